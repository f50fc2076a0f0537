"""The manual-review queue's schema and rows: columns, decisions, flags, and how an item becomes
a row.

This module is the only place that defines the review CSV's columns (`COLUMNS`). The Refine stage
turns every item it could not settle (`status == "needs_review"`) into one row (`queue_row`);
annotators fill in the decision columns in a terminal or a spreadsheet; re-running the stage
merges the new rows into the file without losing a decision (`refinery.review.sheet`, which
reads and writes the file).

A row is a `QueueRow` (one string field per column, `COLUMNS` order); what a reviewer decided is
one of the `Decision` values (`DECISIONS`):

- ``accept_proposal``: apply `proposed_fol` (and `suggested_label`, if any) as proposed, and
  take the background facts of `background_fol`, if any, into the split's own column;
- ``keep_original``: the original annotation is right, change nothing;
- ``edit``: use the reviewer's own `final_fol` (same layout as `original_fol`) and/or `final_label`;
- ``relabel``: keep the FOL, set the gold label to `final_label`;
- ``skip``: looked at, left undecided on purpose (e.g. the NL itself is ambiguous).

The tool-owned cells (`TOOL_COLUMNS`) are the tool's, not the annotators': `row_hash` fingerprints
them when the tool writes a row, so `review check` and `review apply` can refuse a row whose
proposal, FOL or gold label was edited by hand (`tool_cells_edited`); `row_seal` seals them under
the state folder's key, which anyone who can recompute `row_hash` still lacks
(`refinery.review.seal`). No tool-written cell is
longer than `CELL_LIMIT` (a longer text is cut, saying where the full text is), and the reader
accepts cells of any size, so an oversized cell never locks a queue.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import replace as _replace
from enum import StrEnum

from refinery.labels import Label
from refinery.outcomes import Outcome

#: Content columns: written by the pipeline, refreshed on re-runs while undecided.
CONTENT_COLUMNS: tuple[str, ...] = (
    "id",
    "dataset",
    "split",
    "story_id",
    "reason",
    "cause",
    "cause_evidence",
    "nl_premises",
    "original_fol",
    "proposed_fol",
    "background_fol",
    "conclusion",
    "conclusion_fol",
    "gold_label",
    "prover_labels",
    "suggested_label",
    "critique",
    "evidence",
    "findings",
    "nl_mismatch_score",
    "label_score",
    "rounds",
    "content_hash",
    "row_hash",
    "row_seal",
)
#: Bookkeeping columns: recomputed by every merge (a reviewer may clear `flag` after checking).
STATE_COLUMNS: tuple[str, ...] = ("status", "flag")
#: Decision columns: empty when the pipeline writes a row; only reviewers fill them in.
DECISION_COLUMNS: tuple[str, ...] = (
    "decision",
    "final_label",
    "final_fol",
    "reviewer",
    "note",
    "decided_at",
)
#: Every column of the review CSV, in file order.
COLUMNS: tuple[str, ...] = CONTENT_COLUMNS + STATE_COLUMNS + DECISION_COLUMNS
#: The tool-owned cells `row_hash` covers: an annotator must not edit them (``review apply``
#: refuses a row where one was).
TOOL_COLUMNS: tuple[str, ...] = tuple(
    c for c in CONTENT_COLUMNS if c not in ("row_hash", "row_seal")
)
#: The tool-owned columns that come from the item itself (its id, sentences, FOL and gold label):
#: a row decided on the item's content (`content_hash`) has exactly the run's cells here.
ITEM_COLUMNS: tuple[str, ...] = (
    "id",
    "dataset",
    "split",
    "story_id",
    "nl_premises",
    "original_fol",
    "conclusion",
    "conclusion_fol",
    "gold_label",
    "content_hash",
)
#: Tool-owned columns added after queues were first written: `row_hash` counts them only when
#: filled, so a row an earlier version wrote (where they are absent, so empty) keeps its hash.
LATER_COLUMNS: tuple[str, ...] = ("background_fol",)

#: The most the tool writes into one cell, in UTF-8 bytes; a longer text is cut (`cap_cell`).
CELL_LIMIT = 32 * 1024
#: Starts the note that ends a cut cell; a cell holding it is not the whole text.
CUT_MARK = "[… cut by FOL Refinery:"

#: The decision columns that make up what was decided, for comparing two versions of a
#: decision (who decided and when are not part of it).
DECISION_CONTENT: tuple[str, ...] = ("decision", "final_label", "final_fol", "note")


class Decision(StrEnum):
    """What a reviewer decided: the `decision` column's allowed values (meanings above)."""

    ACCEPT_PROPOSAL = "accept_proposal"
    KEEP_ORIGINAL = "keep_original"
    EDIT = "edit"
    RELABEL = "relabel"
    SKIP = "skip"


#: Allowed values of the `decision` column, in documented order.
DECISIONS: tuple[Decision, ...] = tuple(Decision)
#: Values of the `status` column.
OPEN, DECIDED = "open", "decided"
#: Values of the `flag` column (several are joined by ";").
CHANGED_SINCE_DECISION = "changed_since_decision"
NOT_IN_LATEST_RUN = "not_in_latest_run"
INVALID_DECISION = "invalid_decision"
MERGE_CONFLICT = "merge_conflict"
FLAGS: tuple[str, ...] = (
    CHANGED_SINCE_DECISION,
    NOT_IN_LATEST_RUN,
    INVALID_DECISION,
    MERGE_CONFLICT,
)

#: The columns the gold and suggested labels are spelled in (read back in their canonical case).
LABEL_COLUMNS = ("gold_label", "suggested_label", "final_label")
LABELS = {label.value.lower(): label.value for label in Label}
SCORE_COLUMNS = ("nl_mismatch_score", "label_score")


@dataclass(frozen=True, slots=True)
class QueueRow:
    """One row of the review queue: one string per column, fields in `COLUMNS` order.

    Cells are as `read_queue` gives them back (not neutralised); a missing cell is empty.
    Rows are immutable: `replace` makes a changed copy; `cells` is the file form.

    >>> row = QueueRow(id="d/s/1", decision="skip")
    >>> row.decision == Decision.SKIP, QueueRow.from_cells(row.cells()) == row
    (True, True)
    """

    id: str = ""
    dataset: str = ""
    split: str = ""
    story_id: str = ""
    reason: str = ""
    cause: str = ""
    cause_evidence: str = ""
    nl_premises: str = ""
    original_fol: str = ""
    proposed_fol: str = ""
    background_fol: str = ""
    conclusion: str = ""
    conclusion_fol: str = ""
    gold_label: str = ""
    prover_labels: str = ""
    suggested_label: str = ""
    critique: str = ""
    evidence: str = ""
    findings: str = ""
    nl_mismatch_score: str = ""
    label_score: str = ""
    rounds: str = ""
    content_hash: str = ""
    row_hash: str = ""
    row_seal: str = ""
    status: str = ""
    flag: str = ""
    decision: str = ""
    final_label: str = ""
    final_fol: str = ""
    reviewer: str = ""
    note: str = ""
    decided_at: str = ""

    @classmethod
    def from_cells(cls, cells: Mapping[str, str]) -> QueueRow:
        """The row with these cells (column → text); a missing column is empty.

        Raises
        ------
        ValueError
            A key that is not a column of the review schema (`COLUMNS`).
        """
        unknown = set(cells) - set(COLUMNS)
        if unknown:
            raise ValueError(f"columns not in the review schema: {sorted(unknown)}")
        return cls(**cells)

    def cells(self, columns: Sequence[str] = COLUMNS) -> dict[str, str]:
        """Column → cell, in `columns` order (all of `COLUMNS`, the file's order, by default)."""
        return {c: getattr(self, c) for c in columns}

    def replace(self, **changes: str) -> QueueRow:
        """A copy with `changes` (column → new cell); an unknown column is a `TypeError`."""
        return _replace(self, **changes)


def _one_line(text: object) -> str:
    # One formula or sentence per line: a stray newline inside one would shift the rest.
    return " ".join(str(text).splitlines()).strip()


def _lines(texts: Iterable[object] | None) -> str:
    return "\n".join(_one_line(t) for t in texts or ())


def text(value: object) -> str:
    # CRLF inside a cell would not survive a round trip through some editors; LF always does.
    return "" if value is None else str(value).replace("\r\n", "\n")


def cap_cell(text: str, item_id: str, limit: int = CELL_LIMIT) -> str:
    """`text`, cut to at most `limit` UTF-8 bytes with a note saying where the whole text is.

    >>> cap_cell("short", "d/s/1")
    'short'
    >>> cut = cap_cell("x" * 40_000, "d/s/1")
    >>> len(cut.encode()) <= CELL_LIMIT, CUT_MARK in cut
    (True, True)
    """
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text

    def note_for(n: int) -> str:
        return (
            f"\n{CUT_MARK} {n} more characters; the full text is item {item_id} in the run "
            "folder's outcomes.jsonl and audit.jsonl]"
        )

    budget = limit - len(note_for(len(text)).encode("utf-8"))
    kept = data[: max(budget, 0)].decode("utf-8", errors="ignore")
    return kept + note_for(len(text) - len(kept))


def was_cut(cell: str) -> bool:
    """Whether the tool cut `cell` (`cap_cell`): it does not hold the whole text."""
    return CUT_MARK in cell


def _normal(column: str, cell: str) -> str:
    """A cell as `read_queue` gives it back, stripped: what `row_hash` compares."""
    cell = cell.replace("\r\n", "\n").strip()
    if column in LABEL_COLUMNS:
        return LABELS.get(cell.lower(), cell)
    if column in SCORE_COLUMNS and (value := score(cell, -1.0)) >= 0:
        return f"{value:.2f}"
    return cell


def row_hash(row: Mapping[str, str]) -> str:
    """A short fingerprint of a row's tool-owned cells (`TOOL_COLUMNS`).

    Blind to what a spreadsheet re-save changes (line endings, padding, ``TRUE`` for ``True``,
    ``0.5`` for ``0.50``), sensitive to anything else. An empty `LATER_COLUMNS` cell is left
    out, so the hash of a row written before that column existed is unchanged.

    >>> a = {"id": "d/s/1", "gold_label": "True"}
    >>> row_hash(a) == row_hash({**a, "gold_label": "TRUE "}), row_hash(a) == row_hash({})
    (True, False)
    >>> row_hash(a) == row_hash({**a, "background_fol": "∀x (Bee(x) → Animal(x))"})
    False
    """
    return hashlib.sha256(tool_text(row).encode("utf-8")).hexdigest()[:16]


def tool_text(row: Mapping[str, str]) -> str:
    """A row's tool-owned cells as one text, as `row_hash` and the keyed seal read them."""
    cells = {c: _normal(c, row.get(c, "")) for c in TOOL_COLUMNS}
    return "\x1f".join(
        f"{c}\x1e{cell}" for c, cell in cells.items() if cell or c not in LATER_COLUMNS
    )


def tool_cells_edited(row: QueueRow) -> bool:
    """Whether a row's tool-owned cells differ from what the tool wrote (per its `row_hash`).

    A row without a `row_hash` (written by an older version) cannot tell: False.
    """
    stored = row.row_hash.strip()
    return bool(stored) and stored != row_hash(row.cells())


def queue_row(outcome: Outcome) -> QueueRow:
    """The queue row the tool writes for `outcome` (see `queue_rows`), whether queued or not."""
    o = outcome
    original = [*o.original_premises_fol, o.original_conclusion_fol]
    proposed = ""
    if o.proposed_premises_fol is not None or o.proposed_conclusion_fol is not None:
        premises = (
            o.proposed_premises_fol
            if o.proposed_premises_fol is not None
            else o.original_premises_fol
        )
        conclusion = (
            o.proposed_conclusion_fol
            if o.proposed_conclusion_fol is not None
            else o.original_conclusion_fol
        )
        proposed = _lines([*premises, conclusion])
    cells = dict.fromkeys(COLUMNS, "")
    cells.update(
        id=text(o.id),
        dataset=text(o.dataset),
        split=text(o.split),
        story_id=text(o.story_id),
        reason=text(o.reason.value),
        cause=text(o.cause.value),
        cause_evidence=text(o.cause_evidence),
        nl_premises=_lines(o.premises),
        original_fol=_lines(original),
        proposed_fol=proposed,
        background_fol=_lines(o.background_fol),
        conclusion=_one_line(text(o.conclusion)),
        conclusion_fol=_one_line(text(o.original_conclusion_fol)),
        gold_label=text(o.gold_label),
        prover_labels="; ".join(f"{k}={text(v)}" for k, v in sorted(o.prover_labels.items())),
        suggested_label=text(o.suggested_label),
        critique=text(o.critique),
        evidence=text(o.evidence),
        findings=_lines(o.findings),
        nl_mismatch_score=f"{o.nl_mismatch_score:.2f}",
        label_score=f"{o.label_score:.2f}",
        rounds=text(o.rounds),
        content_hash=text(o.content_hash),
        status=OPEN,
    )
    for column in TOOL_COLUMNS:
        cells[column] = cap_cell(cells[column], cells["id"])
    cells["row_hash"] = row_hash(cells)
    return QueueRow.from_cells(cells)


def queue_rows(outcomes: Iterable[Outcome]) -> list[QueueRow]:
    """Build review-queue rows (`COLUMNS`, all strings) from Refine outcomes.

    Parameters
    ----------
    outcomes
        Refine's outcomes; those whose status is not ``needs_review`` are skipped, so all
        outcomes may be passed.

    Returns
    -------
    list of QueueRow
        One row per item in the queue (`Outcome.queued`), worst first (`priority`), then by id.
        ``nl_premises`` holds one sentence per line. ``original_fol`` and ``proposed_fol``
        hold every formula of the item, one per line: the premises in order, then the
        conclusion on the last line (``proposed_fol`` is empty when nothing was proposed, and
        takes the original for whichever part was not). ``background_fol`` holds the background
        facts proposed for a fact the sentences leave out, one per line (empty when none; never
        part of the premises). ``conclusion_fol`` repeats the original
        conclusion next to its NL. ``prover_labels`` reads ``eprover=True; z3=True``.
        No tool-owned cell exceeds `CELL_LIMIT` (`cap_cell`); ``row_hash`` fingerprints them.
        ``status`` is ``open``; ``flag`` and the decision columns are empty.
    """
    rows = [queue_row(o) for o in outcomes if o.queued]
    return sorted(rows, key=rank)


def rank(row: QueueRow) -> tuple[float, tuple[tuple[int, str], ...]]:
    """Worst first (cleanlab's order): a likely wrong label or a misread FOL; then by id."""
    return (-priority(row), id_key(row.id))


def priority(row: QueueRow) -> float:
    """A queue row's urgency: 1 − its label score, or its NL-mismatch score, whichever is more.

    >>> priority(QueueRow(label_score="0.10", nl_mismatch_score="0.40"))
    0.9
    >>> priority(QueueRow(label_score="", nl_mismatch_score=""))  # an older queue: no scores
    0.0
    """
    label = score(row.label_score, 1.0)
    mismatch = score(row.nl_mismatch_score, 0.0)
    return round(max(1.0 - label, mismatch), 2)


def score(text: str, default: float) -> float:
    try:
        return float(text)
    except ValueError:
        return default


def id_key(item_id: str) -> tuple[tuple[int, str], ...]:
    # "…/2" before "…/10": digit runs compare as numbers.
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"(\d+)", item_id))


def flag_set(cell: str) -> set[str]:
    """The flags in a `flag` cell (``;``-joined, blanks ignored)."""
    return {f.strip() for f in cell.split(";") if f.strip()}


def same_decision(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """Whether two decisions (a row's `QueueRow.cells`, or decision columns) decide the same:
    `DECISION_CONTENT` equal."""
    return all(a.get(c, "").strip() == b.get(c, "").strip() for c in DECISION_CONTENT)
