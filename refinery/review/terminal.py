"""`refinery review work`: the interactive loop, one queue item at a time, in a plain terminal.

Each item shows its NL premises aligned with their FOL, the conclusion, the gold, prover and
suggested labels with the evidence (the premises that prove the provers' label, or a
countermodel), the critique and the proposed edit as a diff. Keys:

    a  accept the proposal          k  keep the original         e  edit a FOL line
    l  set the label                n  add a note                w  save the edited draft
    s  skip (decide to leave it)    >  next item, no decision    b  back to the previous item
    q  quit                         ?  this help

An edited line is checked at once (syntax error with a caret, lint, the label both provers now
derive) and a line that does not parse is rejected. A decision passes the same checks as
`refinery review check` before it is saved, and each one is written to the CSV atomically the
moment it is made, so quitting or a killed process never loses a finished decision. Only
`input()` and `print` are used: it works over ssh, in tmux, and with a pipe for input.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from refinery.labels import normalize_gold_label
from refinery.review.decide import check_row, fol_lines
from refinery.review.feedback import FeedbackEngine
from refinery.review.queue import read_queue, save_decision

HELP = __doc__.split("Keys:")[1].split("An edited")[0].rstrip() if __doc__ else ""
_RULE = "─" * 78


@dataclass
class _Draft:
    """What the annotator has typed for the current item, before it is saved."""

    fol: list[str]
    label: str
    note: str = ""


class ReviewSession:
    """The loop over the queue's items; `read` and `write` are injectable for tests."""

    def __init__(
        self,
        queue: Path,
        engine: FeedbackEngine,
        *,
        reviewer: str,
        reasons: Sequence[str] = (),
        include_decided: bool = False,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self.queue = queue
        self.engine = engine
        self.reviewer = reviewer
        self.read = read
        self.write = write
        rows = read_queue(queue)
        wanted = set(reasons)
        self.ids = [
            r["id"]
            for r in rows
            if (include_decided or not r["decision"].strip())
            and (not wanted or wanted & {c.strip() for c in r["reason"].split(";")})
        ]
        self.saved = 0

    # -- the loop -----------------------------------------------------------------------------

    def run(self) -> int:
        """Work through the items; return how many decisions were saved."""
        if not self.ids:
            self.write("Nothing to review: no open items match.")
            return 0
        position, history = 0, list[int]()
        while 0 <= position < len(self.ids):
            outcome = self._item(position)
            if outcome == "quit":
                break
            if outcome == "back":
                position = history.pop() if history else position
                continue
            history.append(position)
            position += 1
        self.write(f"{self.saved} decision(s) saved to {self.queue}.")
        return self.saved

    def _row(self, item_id: str) -> dict[str, str]:
        # Re-read: the file is the truth, and another process may have merged into it.
        return next(r for r in read_queue(self.queue) if r["id"] == item_id)

    def _item(self, position: int) -> str:
        row = self._row(self.ids[position])
        draft = _Draft(
            fol=fol_lines(row["final_fol"] or row["original_fol"]),
            label=row["final_label"] or row["gold_label"],
            note=row["note"],
        )
        self._show(row, position)
        while True:
            try:
                key = self.read("> ").strip()
            except EOFError:
                return "quit"
            if key in {"q", "quit"}:
                return "quit"
            if key in {"b", "back"}:
                return "back"
            if key in {">", "next", ""}:
                return "next"
            if key in {"?", "h", "help"}:
                self.write(HELP)
            elif key == "e":
                self._edit(row, draft)
            elif key == "l":
                self._label(draft)
            elif key == "n":
                draft.note = self._ask("note> ")
                self.write("note set.")
            elif key == "a":
                if self._save(row, draft, "accept_proposal"):
                    return "next"
            elif key == "k":
                if self._save(row, draft, "keep_original"):
                    return "next"
            elif key == "w":
                if self._save_draft(row, draft):
                    return "next"
            elif key == "s":
                if self._save(row, draft, "skip"):
                    return "next"
            else:
                self.write(f"unknown key {key!r}; ? for help")

    def _ask(self, prompt: str) -> str:
        try:
            return self.read(prompt).strip()
        except EOFError:
            return ""

    # -- actions ------------------------------------------------------------------------------

    def _edit(self, row: dict[str, str], draft: _Draft) -> None:
        n = len(draft.fol)
        where = self._ask(f"line to edit (1-{n - 1} premises, c = conclusion)> ").lower()
        index = n - 1 if where in {"c", str(n)} else int(where) - 1 if where.isdigit() else -1
        if not 0 <= index < n:
            self.write(f"no line {where!r}")
            return
        self.write(f"current: {draft.fol[index]}")
        text = self._ask("new FOL> ")
        if not text:
            self.write("unchanged.")
            return
        trial = [*draft.fol]
        trial[index] = text
        feedback = self.engine.check(
            trial[:-1],
            trial[-1],
            nl_premises=row["nl_premises"].split("\n"),
            conclusion=row["conclusion"],
            item_id=row["id"],
            gold=draft.label,
        )
        if not feedback.parses:
            self.write(feedback.render())
            self.write(f"rejected: line {where} unchanged.")
            return
        draft.fol = trial
        self.write(feedback.render())
        self.write(f"line {where} updated in the draft; w saves it.")

    def _label(self, draft: _Draft) -> None:
        raw = self._ask("label (True/False/Uncertain)> ")
        label = normalize_gold_label(raw)
        if label is None:
            self.write(f"{raw!r} is not True, False or Uncertain; label unchanged.")
            return
        draft.label = label.value
        self.write(f"label set to {draft.label} in the draft; w saves it.")

    def _save_draft(self, row: dict[str, str], draft: _Draft) -> bool:
        fol_changed = draft.fol != fol_lines(row["original_fol"])
        label_changed = draft.label != row["gold_label"]
        if not fol_changed and not label_changed:
            self.write("the draft changes nothing; k keeps the original.")
            return False
        return self._save(row, draft, "edit" if fol_changed else "relabel")

    def _save(self, row: dict[str, str], draft: _Draft, decision: str) -> bool:
        fields = {"decision": decision, "note": draft.note, "final_fol": "", "final_label": ""}
        if decision == "edit":
            fields["final_fol"] = "\n".join(draft.fol)
            if draft.label != row["gold_label"]:
                fields["final_label"] = draft.label
        elif decision == "relabel":
            fields["final_label"] = draft.label
        while True:
            candidate = {**row, **fields, "flag": ""}
            checked = check_row(candidate, self.engine)
            if checked.feedback is not None:
                self.write(checked.feedback.render())
            if not checked.problems:
                break
            self.write("\n".join(f"not saved: {p}" for p in checked.problems))
            if checked.needs_note:
                note = self._ask("note (why the label differs from the provers)> ")
                if note:
                    fields["note"] = note
                    continue
            return False
        fields["reviewer"] = self.reviewer
        fields["decided_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        save_decision(self.queue, row["id"], fields)
        self.saved += 1
        self.write(f"saved: {row['id']} {decision}")
        return True

    # -- display ------------------------------------------------------------------------------

    def _show(self, row: dict[str, str], position: int) -> None:
        w = self.write
        head = f"item {position + 1}/{len(self.ids)} · {row['id']} · reason {row['reason']}"
        w(_RULE)
        w(head + (f" · flag {row['flag']}" if row["flag"] else ""))
        if row["decision"]:
            w(f"decided: {row['decision']} by {row['reviewer'] or '?'}")
        w(_RULE)
        nl = row["nl_premises"].split("\n") if row["nl_premises"] else []
        fol = fol_lines(row["original_fol"])
        premises_fol = fol[:-1]
        w("Premises")
        for i in range(max(len(nl), len(premises_fol))):
            w(f"{i + 1:>3} NL : {nl[i] if i < len(nl) else '(no sentence)'}")
            w(f"    FOL: {premises_fol[i] if i < len(premises_fol) else '(no formula)'}")
        w("Conclusion")
        w(f"    NL : {row['conclusion']}")
        w(f"    FOL: {fol[-1] if fol else ''}")
        suggested = row["suggested_label"] or "-"
        w(f"Gold: {row['gold_label'] or '-'}   Provers: {row['prover_labels'] or '-'}")
        w(f"Suggested label: {suggested}")
        for line in (row["evidence"] or "").split("\n"):
            if line:
                w(f"  why: {line}")
        if row["critique"]:
            w(f"Critique: {row['critique']}")
        if row["proposed_fol"].strip():
            w("Proposed edit:")
            for line in _diff(fol, fol_lines(row["proposed_fol"])):
                w(f"  {line}")
        else:
            w("Proposed edit: none")
        w("[a]ccept [k]eep [e]dit [l]abel [n]ote [w]rite draft [s]kip [>]next [b]ack [q]uit [?]")


def _diff(before: list[str], after: list[str]) -> list[str]:
    """Changed lines only, numbered as the annotator edits them (c = conclusion)."""

    def name(i: int, n: int) -> str:
        return "c" if i == n - 1 else str(i + 1)

    out = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        out += [f"- {name(i, len(before))}: {before[i]}" for i in range(i1, i2)]
        out += [f"+ {name(j, len(after))}: {after[j]}" for j in range(j1, j2)]
    return out
