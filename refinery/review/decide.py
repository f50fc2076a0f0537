"""What a reviewer's decision turns an item into, and `check` of a whole queue.

A decision row (see `refinery.review.queue`) resolves to the item's final FOL and final label:

- ``accept_proposal``: `proposed_fol` (the original when nothing was proposed for the FOL) and
  `final_label`, else `suggested_label`, else the gold label; with the background facts of
  `background_fol`, which the refined split keeps in their own column, apart from the premises;
- ``keep_original``: the original FOL and gold label;
- ``edit``: `final_fol` (the original when empty) and `final_label` (the gold label when empty);
- ``relabel``: the original FOL and `final_label`;
- ``skip``: nothing changes.

A reviewer's own FOL is stored in canonical symbols (``->`` becomes ``→``; see
`refinery.logic.parse.canonical_symbols`), so ASCII typing never reaches a published split.

`check_row` applies the same gates to a decision that a machine repair must pass: the final FOL
(with the accepted background facts) parses and lints clean. Labels never change silently: a
final label other than the gold label needs a note saying why, and ``accept_proposal`` takes a
suggested label only when `final_label` spells it out (in a spreadsheet that is the
confirmation; the terminal and the page ask "gold → final" and write it). A final label that
contradicts what both provers derive from the final FOL needs a note too. The same rules are
the annotators' guidelines (`GUIDELINES`).

`check_queue` also refuses what no single row shows: two rows for one item, and a decided row
whose tool-owned cells (gold label, original or proposed FOL, …) were edited by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from refinery.labels import GOLD_LABELS
from refinery.logic.parse import canonical_symbols
from refinery.review.feedback import Feedback, FeedbackEngine
from refinery.review.queue import (
    CELL_LIMIT,
    CHANGED_SINCE_DECISION,
    DECISION_COLUMNS,
    DECISIONS,
    ITEM_COLUMNS,
    MERGE_CONFLICT,
    TOOL_COLUMNS,
    Decision,
    QueueRow,
    row_hash,
    tool_cells_edited,
    was_cut,
)
from refinery.review.seal import sealed
from refinery.review.sheet import QueueLine

_GOLD = tuple(label.value for label in GOLD_LABELS)

#: The annotators' guidelines: each decision, then when a note is required. The terminal's
#: help and the page's guidelines panel both show exactly this.
GUIDELINES: dict[str, tuple[tuple[str, str], ...]] = {
    "decisions": (
        (
            Decision.ACCEPT_PROPOSAL,
            "take the proposed FOL, the suggested label and the proposed background facts",
        ),
        (Decision.KEEP_ORIGINAL, "the dataset's FOL and gold label are right as they are"),
        (Decision.EDIT, "your own FOL (it starts from the proposal), and a label if it changes"),
        (Decision.RELABEL, "keep the original FOL, change the label"),
        (Decision.SKIP, "looked at, left undecided on purpose (a note helps whoever looks next)"),
    ),
    "notes": (
        (
            "label change",
            "a final label other than the gold label: confirm gold → final and say why",
        ),
        (
            "against the provers",
            "a final label other than the one both provers derive from the final FOL: say why",
        ),
    ),
}


def label_change_text(gold: str, final: str) -> str:
    """How a label change is shown and confirmed: ``"True → False"``."""
    return f"{gold or '(none)'} → {final or '(none)'}"


@dataclass(frozen=True)
class Resolution:
    """The final FOL and label a decision gives an item."""

    premises_fol: tuple[str, ...]
    conclusion_fol: str
    label: str
    fol_changed: bool
    label_changed: bool
    #: the background facts accepted with the decision (kept apart from the premises)
    background_fol: tuple[str, ...] = ()


@dataclass(frozen=True)
class RowProblem:
    """One thing wrong with one queue row: where (spreadsheet row, file line, id) and what."""

    row: int
    line: int
    item_id: str
    message: str

    def render(self, path: str = "") -> str:
        """``review.csv: row 4 (line 41): folio/…/12: message``: the row a spreadsheet shows,
        then the line a text editor shows (cells may span lines, so they differ)."""
        where = f"row {self.row} (line {self.line})"
        return (
            f"{path}: {where}: {self.item_id}: {self.message}"
            if path
            else (f"{where}: {self.item_id}: {self.message}")
        )


def fol_lines(text: str) -> list[str]:
    """A FOL cell's formulas: premises one per line, the conclusion on the last line."""
    lines = text.replace("\r\n", "\n").split("\n")
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()  # a spreadsheet may add a trailing newline
    return [line.strip() for line in lines]


def resolve(row: QueueRow) -> Resolution | str:
    """The decision's final FOL and label, or why the row cannot be resolved (a message).

    Only the decision columns are looked at here; `check_row` adds the prover gates.
    """
    decision = row.decision.strip()
    original = fol_lines(row.original_fol)
    gold = row.gold_label.strip()
    final_label = row.final_label.strip()
    if decision not in DECISIONS:
        return f"unknown decision {decision!r} (allowed: {', '.join(DECISIONS)})"
    if final_label and final_label not in _GOLD:
        return f"final_label {final_label!r} is not one of {', '.join(_GOLD)}"
    # `cell` is the queue cell the final FOL comes from (`source`; none for the reviewer's own)
    fol, label, source, cell = original, gold, "original_fol", row.original_fol
    background: tuple[str, ...] = ()
    if decision == Decision.ACCEPT_PROPOSAL:
        proposed = (row.proposed_fol, row.suggested_label, row.background_fol)
        if not any(cell.strip() for cell in proposed):
            return "accept_proposal, but nothing was proposed for this item"
        if row.proposed_fol.strip():
            fol, source, cell = fol_lines(row.proposed_fol), "proposed_fol", row.proposed_fol
        if was_cut(row.background_fol):
            return (
                "background_fol is cut in the queue: decide edit and write the facts in final_fol"
            )
        background = tuple(f for f in fol_lines(row.background_fol) if f)
        label = final_label or row.suggested_label.strip() or gold
    elif decision == Decision.KEEP_ORIGINAL:
        if final_label and final_label != gold:
            return "keep_original keeps the gold label; use relabel or edit to change it"
    elif decision == Decision.EDIT:
        if not row.final_fol.strip() and not final_label:
            return "edit needs final_fol and/or final_label"
        if row.final_fol.strip():
            fol, source = [canonical_symbols(f) for f in fol_lines(row.final_fol)], ""
        label = final_label or gold
    elif decision == Decision.RELABEL:
        if not final_label:
            return "relabel needs final_label"
        label = final_label
    if decision != Decision.SKIP and source and was_cut(cell):
        return (
            f"{source} is cut in the queue (over {CELL_LIMIT // 1024} KB): decide edit and write "
            "the full FOL in final_fol"
        )
    if decision != Decision.SKIP and len(fol) < 2:
        return (
            "the final FOL needs the premises, one per line, then the conclusion on the last line"
        )
    return Resolution(
        premises_fol=tuple(fol[:-1]),
        conclusion_fol=fol[-1],
        label=label,
        fol_changed=fol != original,
        label_changed=label != gold,
        background_fol=background,
    )


@dataclass(frozen=True)
class RowCheck:
    """`check_row`'s answer: the problems, the resolution and the provers' feedback.

    `needs_note` is true when all that is wrong is a missing note or an unconfirmed label: what
    an annotator fixes by confirming and saying why. `label_change` is ``(gold, final)`` when the
    decision changes the label.
    """

    problems: list[str]
    resolution: Resolution | None
    feedback: Feedback | None
    needs_note: bool = False
    label_change: tuple[str, str] | None = None


def check_row(row: QueueRow, engine: FeedbackEngine) -> RowCheck:
    """Everything wrong with one decided row; also its resolution and the provers' feedback."""
    flags = {f.strip() for f in row.flag.split(";")}
    problems = []
    if MERGE_CONFLICT in flags:
        problems.append("merge conflict between shards: settle the decision, then clear the flag")
    if CHANGED_SINCE_DECISION in flags:
        problems.append(
            "the item changed since this decision: look again, then clear the flag "
            f"{CHANGED_SINCE_DECISION}"
        )
    resolved = resolve(row)
    if isinstance(resolved, str):
        return RowCheck([*problems, resolved], None, None)
    if row.decision.strip() == Decision.SKIP:
        return RowCheck(problems, resolved, None)
    feedback = engine.check_draft(
        row,
        [*resolved.premises_fol, resolved.conclusion_fol],
        gold=resolved.label,
        background=resolved.background_fol,
    )
    if not feedback.parses:
        problems.append("the final FOL does not parse:\n" + "\n".join(feedback.syntax))
    elif feedback.lint_errors:
        problems.append("the final FOL has lint errors: " + "; ".join(feedback.lint_errors))
    gold, note = row.gold_label.strip(), row.note.strip()
    change = (gold, resolved.label) if resolved.label_changed else None
    missing = []
    if change is not None:
        shown = label_change_text(*change)
        if row.decision.strip() == Decision.ACCEPT_PROPOSAL and not row.final_label.strip():
            missing.append(
                f"accept_proposal changes the label {shown}: confirm it by writing "
                f"{resolved.label} in final_label" + ("" if note else ", and add a note saying why")
            )
        elif not note:
            missing.append(f"the label changes {shown}: add a note saying why")
    elif not note and feedback.clean and feedback.label and feedback.label != resolved.label:
        derived = feedback.label if feedback.decided else f"{feedback.label} premises"
        missing.append(
            f"final label {resolved.label or '(none)'} contradicts the provers, which derive "
            f"{derived} from the final FOL; add a note saying why"
        )
    needs_note = bool(missing) and not problems
    return RowCheck([*problems, *missing], resolved, feedback, needs_note, change)


def edited_tool_cells(
    row: QueueRow, tool: QueueRow | None, run_id: str = "", key: bytes | None = None
) -> list[str]:
    """Why `row` is refused for edited tool-owned cells (`TOOL_COLUMNS`); empty when it is not.

    `tool` is the row the tool writes for the item from the run (`queue_row`), when there is
    one: each edited column is then named with what it was. The cells that come from the item
    (`ITEM_COLUMNS`: its sentences, FOL and gold label) must be the run's, whatever the row
    says of itself (anyone can recompute an unkeyed hash; the run is the truth). Beyond them, a
    row sealed under `key` (the state folder's, `refinery.review.seal`) is as the tool wrote it
    (possibly an earlier run's proposal for the same content); any other row must match `tool`
    cell for cell. Without `tool`, a row whose `row_hash` does not match was edited.
    """
    cells = row.cells()
    stored = row.row_hash.strip()
    if tool is not None:
        items = _edited(cells, tool.cells(), ITEM_COLUMNS, run_id)
        if items:
            return items
        if sealed(cells, key):
            return []
    elif stored and stored == row_hash(cells):
        return []
    if tool is None:
        if not tool_cells_edited(row):
            return []  # an older queue without row_hash: nothing to compare it with
        return [
            "tool-owned cells were edited since the tool wrote this row (its row_hash does not "
            f"match); {_YOURS}; `review check --run RUN` or `review apply` names the column"
        ]
    return _edited(cells, tool.cells(), TOOL_COLUMNS, run_id)


def _edited(
    cells: Mapping[str, str], was: Mapping[str, str], columns: Sequence[str], run_id: str
) -> list[str]:
    """One message per column of `columns` whose cell differs from what the tool wrote."""
    where = f" (as run {run_id} has it)" if run_id else ""
    return [
        f"tool-owned column {c} was edited: it was {_show(was[c])}{where}, the queue has "
        f"{_show(cells[c])}; {_YOURS}"
        for c in columns
        # compared as row_hash compares them: blind to a spreadsheet's re-spelling
        if row_hash({c: cells[c]}) != row_hash({c: was[c]})
    ]


_YOURS = (
    f"only {', '.join(DECISION_COLUMNS)} are yours to change (a new label or FOL goes in "
    "final_label / final_fol, with decision relabel or edit)"
)


def _show(cell: str, limit: int = 120) -> str:
    return repr(cell if len(cell) <= limit else cell[:limit] + "…")


def check_queue(
    rows: Sequence[QueueLine],
    engine: FeedbackEngine,
    *,
    tool_rows: Mapping[str, QueueRow] | None = None,
    run_id: str = "",
    key: bytes | None = None,
) -> tuple[list[RowProblem], dict[str, tuple[Resolution, Feedback | None]]]:
    """Check every decided row (from `read_queue_lines`), and that no item has two rows.

    `tool_rows` (id → the row the tool writes from the run, `queue_row`) lets an edited
    tool-owned cell be named with what it was; without it a `row_hash` mismatch is still caught.
    `key` is the state folder's sealing key (`edited_tool_cells`).
    Returns the problems, in file order, and for each valid decided row its resolution and
    feedback. Undecided rows are not checked: they are simply not ready.
    """
    first: dict[str, QueueLine] = {}
    for entry in rows:
        first.setdefault(entry.item.id.strip(), entry)
    problems: list[RowProblem] = []
    valid: dict[str, tuple[Resolution, Feedback | None]] = {}
    repeated: set[str] = set()
    for entry in rows:
        row = entry.item
        item_id = row.id.strip()
        earlier = first[item_id]
        if earlier is not entry:
            repeated.add(item_id)
            problems.append(
                RowProblem(
                    entry.row,
                    entry.line,
                    row.id,
                    f"two rows for one item: row {earlier.row} (line {earlier.line}) and row "
                    f"{entry.row} (line {entry.line}); keep one and delete the other",
                )
            )
        if not row.decision.strip():
            continue
        tool = tool_rows.get(item_id) if tool_rows is not None else None
        messages = edited_tool_cells(row, tool, run_id, key)
        checked = None if messages else check_row(row, engine)
        if checked is not None:
            messages = checked.problems
        problems += [RowProblem(entry.row, entry.line, row.id, m) for m in messages]
        if checked is not None and not messages and checked.resolution is not None:
            valid[item_id] = (checked.resolution, checked.feedback)
    for item_id in repeated:
        valid.pop(item_id, None)
    problems.sort(key=lambda p: p.line)
    return problems, valid


# --- drafts: what the terminal and the page build a decision from ---------------------------


@dataclass
class Draft:
    """What an annotator has typed for one item before saving: FOL lines, label and note."""

    fol: list[str]
    label: str
    note: str = ""

    @classmethod
    def start(cls, row: QueueRow) -> Draft:
        """The draft an item opens with: edits start from the reviewer's own FOL if there is
        one, else from the original, never from the proposal (every proposal in the queue is
        one the tool could not confirm: it is shown beside the formula, and taken into the
        draft only when asked, `from_proposal`); the label from the gold label.

        A note typed without a decision comes along; a decided item's note explains that
        decision, so a new decision starts without it (it must give its own reasons).
        """
        fol = row.final_fol or row.original_fol
        label = row.final_label or row.gold_label
        note = "" if row.decision.strip() in DECISIONS else row.note
        return cls(fol=fol_lines(fol), label=label, note=note)


def from_proposal(row: QueueRow, draft: Draft) -> bool:
    """Put the proposed FOL into `draft` (label and note kept); False when there is none."""
    if not row.proposed_fol.strip():
        return False
    draft.fol = fol_lines(row.proposed_fol)
    return True


def draft_decision(row: QueueRow, draft: Draft) -> Decision | None:
    """What saving `draft` decides: ``edit`` when its FOL differs from the original,
    ``relabel`` when only the label does, None when it changes nothing."""
    original = fol_lines(row.original_fol)
    if [canonical_symbols(f) for f in draft.fol] != [canonical_symbols(f) for f in original]:
        return Decision.EDIT
    return Decision.RELABEL if draft.label != row.gold_label else None


def decision_fields(row: QueueRow, decision: str, draft: Draft) -> dict[str, str]:
    """The decision columns for `decision` taken from `draft` (reviewer and time not included).

    A label change is always written out in `final_label` (``accept_proposal`` included), so
    the file says exactly what the annotator confirmed; FOL is stored in canonical symbols.
    """
    gold = row.gold_label
    fields = {"decision": decision, "note": draft.note, "final_fol": "", "final_label": ""}
    if decision == Decision.ACCEPT_PROPOSAL:
        suggested = row.suggested_label.strip()
        fields["final_label"] = suggested if suggested and suggested != gold else ""
    elif decision == Decision.EDIT:
        fields["final_fol"] = "\n".join(canonical_symbols(f) for f in draft.fol)
        fields["final_label"] = draft.label if draft.label != gold else ""
    elif decision == Decision.RELABEL:
        fields["final_label"] = draft.label
    return fields


def check_decision(row: QueueRow, fields: Mapping[str, str], engine: FeedbackEngine) -> RowCheck:
    """`check_row` of `row` as `fields` would decide it (deciding clears the review flags)."""
    return check_row(row.replace(**{**fields, "flag": ""}), engine)
