"""`refinery review work`: the interactive loop, one queue item at a time, in a plain terminal.

Each item shows its NL premises aligned with their FOL, the conclusion, the gold, prover and
suggested labels with the evidence (the premises that prove the provers' label, or a
countermodel), the critique and the proposed edit as a diff. Keys:

    a  accept the proposal          k  keep the original         e  edit a FOL line
    p  edit from the proposal       l  set the label             n  add a note
    w  write the draft as the decision                           s  skip (decide to leave it)
    j  next item, no decision       b  back to the previous item
    q  quit                         ?  this help and the guidelines

Premises are shown, and edited, by the addresses the evidence and the critique use:
`premises[0]` is the first (type `0`, or `premises[0]`; `c` for the conclusion).
On a terminal each key acts at once (no Enter); with a pipe for input, one key per line. The
draft starts from the original (the proposal is one the tool could not confirm: it is shown as
a diff, and `p` takes it into the draft), and the edit line comes pre-filled with the formula
(readline), so fixing a typo is a few keystrokes. An edited line is checked at once (syntax error with a
caret, lint, the label both provers now derive) and a line that does not parse is rejected. A
decision passes the same checks as `refinery review check` before it is saved; a label change
asks "gold → final" to be confirmed and a note saying why. Each decision is written to the CSV
atomically the moment it is made, so quitting or a killed process never loses a finished one;
leaving an item with an unsaved draft asks first.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from refinery.labels import normalize_gold_label
from refinery.logic.parse import canonical_symbols
from refinery.outputs import visible
from refinery.prove.model_table import why
from refinery.review.decide import (
    GUIDELINES,
    Draft,
    check_decision,
    decision_fields,
    draft_decision,
    fol_lines,
    from_proposal,
    label_change_text,
)
from refinery.review.feedback import FeedbackEngine
from refinery.review.queue import MERGE_CONFLICT, Decision, QueueRow
from refinery.review.record import (
    DecisionConflict,
    conflicts_path,
    decision_version,
    read_conflicts,
    save_decision,
)
from refinery.review.sheet import read_queue

KEYS = __doc__.split("Keys:")[1].split("On a terminal")[0].rstrip() if __doc__ else ""
_RULE = "─" * 78
_LABEL_KEYS = {"t": "True", "f": "False", "u": "Uncertain"}


def _help() -> str:
    lines = [KEYS, "", "Decisions:"]
    lines += [f"    {name:<16} {meaning}" for name, meaning in GUIDELINES["decisions"]]
    lines += ["A note is required for:"]
    lines += [f"    {name:<16} {rule}" for name, rule in GUIDELINES["notes"]]
    return "\n".join(lines)


def _tty_key(prompt: str) -> str:
    """One keypress from the terminal, without Enter; Ctrl-D reads as end of input."""
    import termios
    import tty

    sys.stdout.write(prompt)
    sys.stdout.flush()
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    try:
        # TCSADRAIN, not the default TCSAFLUSH: keys typed ahead must survive the mode switch
        tty.setcbreak(fd, termios.TCSADRAIN)
        data = os.read(fd, 4)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    key = data.decode("utf-8", errors="ignore")
    if key in {"", "\x04"}:
        raise EOFError
    key = "" if key in {"\r", "\n"} else key[:1]
    sys.stdout.write(key + "\n")
    return key


class ReviewSession:
    """The loop over the queue's items; `read`, `write` and `key` are injectable for tests.

    `read` reads a line (edits, notes); `key` reads one command key. By default a terminal
    gets single keypresses and a pre-filled edit line, and a pipe gets lines.
    """

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
        key: Callable[[str], str] | None = None,
    ) -> None:
        self.queue = queue
        self.engine = engine
        self.reviewer = reviewer
        self.read = read
        # every line shown may hold dataset or reviewer text: nothing in it may act on the terminal
        self.write: Callable[[str], None] = lambda line: write(visible(line))
        self.tty = read is input and sys.stdin.isatty() and sys.stdout.isatty()
        self.key = key or (_tty_key if self.tty else lambda prompt: read(prompt).strip())
        rows = read_queue(queue)
        wanted = set(reasons)
        self.ids = [
            r.id
            for r in rows
            if (include_decided or not r.decision.strip())
            and (not wanted or wanted & {c.strip() for c in r.reason.split(";")})
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
            if outcome == "again":
                continue
            if outcome == "back":
                position = history.pop() if history else position
                continue
            history.append(position)
            position += 1
        self.write(f"{self.saved} decision(s) saved to {self.queue}.")
        return self.saved

    def _row(self, item_id: str) -> QueueRow:
        # Re-read: the file is the truth, and another annotator may have written to it.
        return next(r for r in read_queue(self.queue) if r.id == item_id)

    def _item(self, position: int) -> str:
        row = self._row(self.ids[position])
        seen = decision_version(row)
        draft = Draft.start(row)
        self._show(row, position, draft)
        while True:
            try:
                key = self.key("> ")
            except EOFError:
                return "quit"
            if key in {"q", "b", "j", ">"}:
                leave = {"q": "quit", "b": "back"}.get(key, "next")
                if draft == Draft.start(row) or self._confirm("the draft is not saved; leave it?"):
                    return leave
            elif key == "":
                continue  # Enter: nothing to do on a single-key prompt
            elif key in {"?", "h"}:
                self.write(_help())
            elif key == "e":
                self._edit(row, draft)
            elif key == "p":
                taken = from_proposal(row, draft)
                self.write("the draft is now the proposal; e edits it, w saves it." if taken
                           else "no proposed FOL to start from.")  # fmt: skip
            elif key == "l":
                self._label(draft)
            elif key == "n":
                draft.note = self._line("note> ", draft.note)
                self.write("note set in the draft.")
            elif key in {"a", "k", "s", "w"}:
                decision = {
                    "a": Decision.ACCEPT_PROPOSAL,
                    "k": Decision.KEEP_ORIGINAL,
                    "s": Decision.SKIP,
                }.get(key)
                decision = decision or draft_decision(row, draft)  # w: what the draft changes
                if decision is None:
                    self.write("the draft changes nothing; k keeps the original.")
                    continue
                try:
                    if self._save(row, draft, decision, seen):
                        return "next"
                except DecisionConflict as conflict:
                    self.write(str(conflict))
                    self.write(f"your version is kept in {conflicts_path(self.queue)}")
                    return "again"
            else:
                self.write(f"unknown key {key!r}; ? for help")

    def _line(self, prompt: str, prefill: str = "") -> str:
        """A line of input; on a terminal it starts as `prefill`, ready to edit."""
        if not self.tty or not prefill:
            if prefill:
                self.write(f"current: {prefill}")
            try:
                return self.read(prompt).strip() or prefill
            except EOFError:
                return prefill
        try:
            import readline
        except ImportError:  # a Python without readline: show the text, take a new line
            self.write(f"current: {prefill}")
            return self.read(prompt).strip() or prefill
        # shown as the terminal will echo it: an invisible character becomes its visible code
        readline.set_startup_hook(lambda: readline.insert_text(visible(prefill)))
        try:
            return self.read(prompt).strip()
        except EOFError:
            return prefill
        finally:
            readline.set_startup_hook()

    def _confirm(self, question: str) -> bool:
        try:
            return self.key(f"{question} [y/N]> ").lower() in {"y", "yes"}
        except EOFError:
            return False

    # -- actions ------------------------------------------------------------------------------

    def _edit(self, row: QueueRow, draft: Draft) -> None:
        n = len(draft.fol)
        try:
            asked = self.read(f"line to edit (0-{n - 2} for premises[i], c = conclusion)> ")
        except EOFError:
            return
        # the addresses the evidence and the critique use: premises[0] is the first premise
        number = asked.strip().lower().removeprefix("premises[").removesuffix("]")
        index = n - 1 if number in {"c", "conclusion"} else int(number) if number.isdigit() else -1
        if not 0 <= index < n:
            self.write(f"no line {asked.strip()!r}")
            return
        where = _address(index, n)
        text = self._line("new FOL> ", draft.fol[index])
        if not text or text == draft.fol[index]:
            self.write("unchanged.")
            return
        trial = [*draft.fol]
        trial[index] = canonical_symbols(text)
        feedback = self.engine.check_draft(row, trial, gold=draft.label)
        self.write(feedback.render())
        if not feedback.parses:
            self.write(f"rejected: {where} unchanged.")
            return
        draft.fol = trial
        if trial[index] != text:
            self.write(f"notation: stored as {trial[index]}")
        self.write(f"{where} updated in the draft; w saves it.")

    def _label(self, draft: Draft) -> None:
        raw = self.key("label: [t]rue [f]alse [u]ncertain> ").strip()
        label = normalize_gold_label(_LABEL_KEYS.get(raw.lower(), raw))
        if label is None:
            self.write(f"{raw!r} is not True, False or Uncertain; label unchanged.")
            return
        draft.label = label.value
        self.write(f"label set to {draft.label} in the draft; w saves it.")

    def _save(self, row: QueueRow, draft: Draft, decision: str, seen: str) -> bool:
        fields = decision_fields(row, decision, draft)
        confirmed = False
        while True:
            checked = check_decision(row, fields, self.engine)
            if checked.feedback is not None:
                self.write(checked.feedback.render())
            if checked.problems and not checked.needs_note:
                self.write("\n".join(f"not saved: {p}" for p in checked.problems))
                return False
            if checked.label_change and not confirmed:
                change = label_change_text(*checked.label_change)
                if not self._confirm(f"label change {change}: confirm?"):
                    self.write("not saved: the label stays as it was.")
                    return False
                confirmed = True
            if not checked.problems:
                break
            self.write("\n".join(f"needed: {p}" for p in checked.problems))
            note = self._line("note (why)> ")
            if not note:
                self.write("not saved: a note is needed.")
                return False
            fields["note"] = draft.note = note
        fields["reviewer"] = self.reviewer
        fields["decided_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        save_decision(self.queue, row.id, fields, seen=seen)
        self.saved += 1
        self.write(f"saved: {row.id} {decision}")
        return True

    # -- display ------------------------------------------------------------------------------

    def _show(self, row: QueueRow, position: int, draft: Draft) -> None:
        w = self.write
        head = f"item {position + 1}/{len(self.ids)} · {row.id} · reason {row.reason}"
        w(_RULE)
        w(head + (f" · flag {row.flag}" if row.flag else ""))
        if row.cause:
            w(f"cause: {row.cause}: {row.cause_evidence}")
        if row.decision:
            w(f"decided: {row.decision} by {row.reviewer or '?'}")
            if row.note:
                w(f"  note: {row.note}")
        if MERGE_CONFLICT in row.flag:
            for entry in read_conflicts(self.queue, row.id):
                refused = entry.get("refused")
                if isinstance(refused, dict):
                    w(f"competing: {refused.get('decision')} by {refused.get('reviewer') or '?'}")
        w(_RULE)
        nl = row.nl_premises.split("\n") if row.nl_premises else []
        fol = fol_lines(row.original_fol)
        premises_fol = fol[:-1]
        w("Premises")
        for i in range(max(len(nl), len(premises_fol))):
            w(f"  premises[{i}]")
            w(f"    NL : {nl[i] if i < len(nl) else '(no sentence)'}")
            w(f"    FOL: {premises_fol[i] if i < len(premises_fol) else '(no formula)'}")
        w("Conclusion")
        w(f"    NL : {row.conclusion}")
        w(f"    FOL: {fol[-1] if fol else ''}")
        suggested = row.suggested_label or "-"
        w(f"Gold: {row.gold_label or '-'}   Provers: {row.prover_labels or '-'}")
        w(f"Suggested label: {suggested}")
        for line in (row.evidence or "").split("\n"):
            if line:
                w(f"  why: {why(line)}")
        if row.critique:
            w(f"Critique: {row.critique}")
        if row.proposed_fol.strip():
            w("Proposed edit (not confirmed by the tool; p takes it into your draft):")
            for line in _diff(fol, fol_lines(row.proposed_fol)):
                w(f"  {line}")
        else:
            w("Proposed edit: none")
        background = [f for f in fol_lines(row.background_fol) if f.strip()]
        if background:
            w("Background facts proposed (a accepts them; kept apart from the premises):")
            for i, fact in enumerate(background):
                w(f"  background[{i}]: {fact}")
        if draft.fol != fol_lines(row.proposed_fol or row.original_fol):
            w("Your saved FOL (the draft starts from it):")
            for line in _diff(fol, draft.fol):
                w(f"  {line}")
        w(
            "[a]ccept [k]eep [e]dit [p]roposal to draft [l]abel [n]ote [w]rite decision [s]kip "
            "[j]next [b]ack [q]uit [?]"
        )


def _address(i: int, n: int) -> str:
    """Line `i` of `n` FOL lines by the address the evidence uses: `premises[i]`, `conclusion`."""
    return "conclusion" if i == n - 1 else f"premises[{i}]"


def _diff(before: list[str], after: list[str]) -> list[str]:
    """Changed lines only, by their addresses (`premises[i]`, `conclusion`)."""
    out = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        out += [f"- {_address(i, len(before))}: {before[i]}" for i in range(i1, i2)]
        out += [f"+ {_address(j, len(after))}: {after[j]}" for j in range(j1, j2)]
    return out
