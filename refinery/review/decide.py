"""What a reviewer's decision turns an item into, and `check` of a whole queue.

A decision row (see `refinery.review.queue`) resolves to the item's final FOL and final label:

- ``accept_proposal``: `proposed_fol` (the original when nothing was proposed for the FOL) and
  `final_label`, else `suggested_label`, else the gold label;
- ``keep_original``: the original FOL and gold label;
- ``edit``: `final_fol` (the original when empty) and `final_label` (the gold label when empty);
- ``relabel``: the original FOL and `final_label`;
- ``skip``: nothing changes.

`check_queue` applies the same gates to a decision that a machine repair must pass: the final
FOL parses and lints clean, and a final label that contradicts what both provers derive from
the final FOL needs a note saying why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from refinery.labels import GOLD_LABELS
from refinery.review.feedback import Feedback, FeedbackEngine
from refinery.review.queue import (
    CHANGED_SINCE_DECISION,
    DECISIONS,
    MERGE_CONFLICT,
)

_GOLD = tuple(label.value for label in GOLD_LABELS)


@dataclass(frozen=True)
class Resolution:
    """The final FOL and label a decision gives an item."""

    premises_fol: tuple[str, ...]
    conclusion_fol: str
    label: str
    fol_changed: bool
    label_changed: bool


@dataclass(frozen=True)
class RowProblem:
    """One thing wrong with one queue row: where (file line, item id) and what."""

    line: int
    item_id: str
    message: str

    def render(self, path: str = "") -> str:
        where = f"{path}:{self.line}" if path else f"line {self.line}"
        return f"{where}: {self.item_id}: {self.message}"


def fol_lines(text: str) -> list[str]:
    """A FOL cell's formulas: premises one per line, the conclusion on the last line."""
    lines = text.replace("\r\n", "\n").split("\n")
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()  # a spreadsheet may add a trailing newline
    return [line.strip() for line in lines]


def resolve(row: Mapping[str, str]) -> Resolution | str:
    """The decision's final FOL and label, or why the row cannot be resolved (a message).

    Only the decision columns are looked at here; `check_row` adds the prover gates.
    """
    decision = row["decision"].strip()
    original = fol_lines(row["original_fol"])
    gold = row["gold_label"].strip()
    final_label = row["final_label"].strip()
    if decision not in DECISIONS:
        return f"unknown decision {decision!r} (allowed: {', '.join(DECISIONS)})"
    if final_label and final_label not in _GOLD:
        return f"final_label {final_label!r} is not one of {', '.join(_GOLD)}"
    fol, label = original, gold
    if decision == "accept_proposal":
        if not row["proposed_fol"].strip() and not row["suggested_label"].strip():
            return "accept_proposal, but nothing was proposed for this item"
        if row["proposed_fol"].strip():
            fol = fol_lines(row["proposed_fol"])
        label = final_label or row["suggested_label"].strip() or gold
    elif decision == "keep_original":
        if final_label and final_label != gold:
            return "keep_original keeps the gold label; use relabel or edit to change it"
    elif decision == "edit":
        if not row["final_fol"].strip() and not final_label:
            return "edit needs final_fol and/or final_label"
        if row["final_fol"].strip():
            fol = fol_lines(row["final_fol"])
        label = final_label or gold
    elif decision == "relabel":
        if not final_label:
            return "relabel needs final_label"
        label = final_label
    if decision != "skip" and len(fol) < 2:
        return (
            "the final FOL needs the premises, one per line, then the conclusion on the last line"
        )
    return Resolution(
        premises_fol=tuple(fol[:-1]),
        conclusion_fol=fol[-1],
        label=label,
        fol_changed=fol != original,
        label_changed=label != gold,
    )


@dataclass(frozen=True)
class RowCheck:
    """`check_row`'s answer: the problems, the resolution and the provers' feedback.

    `needs_note` is true when the only thing wrong is a label that contradicts the provers
    without a note: the one problem an annotator fixes by saying why.
    """

    problems: list[str]
    resolution: Resolution | None
    feedback: Feedback | None
    needs_note: bool = False


def check_row(row: Mapping[str, str], engine: FeedbackEngine) -> RowCheck:
    """Everything wrong with one decided row; also its resolution and the provers' feedback."""
    flags = {f.strip() for f in row["flag"].split(";")}
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
    if row["decision"].strip() == "skip":
        return RowCheck(problems, resolved, None)
    feedback = engine.check(
        resolved.premises_fol,
        resolved.conclusion_fol,
        nl_premises=row["nl_premises"].split("\n"),
        conclusion=row["conclusion"],
        item_id=row["id"],
        gold=resolved.label,
    )
    note = row["note"].strip()
    needs_note = False
    if not feedback.parses:
        problems.append("the final FOL does not parse:\n" + "\n".join(feedback.syntax))
    elif feedback.lint_errors:
        problems.append("the final FOL has lint errors: " + "; ".join(feedback.lint_errors))
    elif not note and feedback.label and feedback.label != resolved.label:
        derived = feedback.label if feedback.decided else f"{feedback.label} premises"
        problems.append(
            f"final label {resolved.label or '(none)'} contradicts the provers, which derive "
            f"{derived} from the final FOL; add a note saying why"
        )
        needs_note = len(problems) == 1
    return RowCheck(problems, resolved, feedback, needs_note)


def check_queue(
    rows: Sequence[tuple[int, Mapping[str, str]]], engine: FeedbackEngine
) -> tuple[list[RowProblem], dict[str, tuple[Resolution, Feedback | None]]]:
    """Check every decided row (`(line, row)` pairs from `read_queue_lines`).

    Returns the problems, in file order, and for each valid decided row its resolution and
    feedback. Undecided rows are not checked: they are simply not ready.
    """
    problems: list[RowProblem] = []
    valid: dict[str, tuple[Resolution, Feedback | None]] = {}
    for line, row in rows:
        if not row["decision"].strip():
            continue
        checked = check_row(row, engine)
        problems += [RowProblem(line, row["id"], m) for m in checked.problems]
        if not checked.problems and checked.resolution is not None:
            valid[row["id"]] = (checked.resolution, checked.feedback)
    return problems, valid
