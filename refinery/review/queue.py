"""The manual-review queue: its CSV schema, and writing, reading back and merging it.

This module is the only place that defines the review CSV's columns (`COLUMNS`). The Refine stage
turns every item it could not settle (`status == "needs_review"`) into one row; annotators fill in
the decision columns in a terminal or a spreadsheet; re-running the stage merges the new rows into
the file without losing a decision (`write_queue`).

A row is a `QueueRow` (one string field per column, `COLUMNS` order); what a reviewer decided is
one of the `Decision` values (`DECISIONS`):

- ``accept_proposal``: apply `proposed_fol` (and `suggested_label`, if any) as proposed;
- ``keep_original``: the original annotation is right, change nothing;
- ``edit``: use the reviewer's own `final_fol` (same layout as `original_fol`) and/or `final_label`;
- ``relabel``: keep the FOL, set the gold label to `final_label`;
- ``skip``: looked at, left undecided on purpose (e.g. the NL itself is ambiguous).

The file is UTF-8 with a BOM so spreadsheets show ∀∃¬ correctly, and cells are neutralised
against formula injection reversibly (see `neutralise`). Every read-modify-write of a queue holds
its file lock (`queue_lock`, a ``<queue>.lock`` file beside it), so a terminal, a browser page and
a Refine re-run never interleave their writes.

The tool-owned cells (`TOOL_COLUMNS`) are the tool's, not the annotators': `row_hash` fingerprints
them when the tool writes a row, so `review check` and `review apply` can refuse a row whose
proposal, FOL or gold label was edited by hand (`tool_cells_edited`). No tool-written cell is
longer than `CELL_LIMIT` (a longer text is cut, saying where the full text is), and the reader
accepts cells of any size, so an oversized cell never locks a queue.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import replace as _replace
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple

from filelock import FileLock, Timeout

from refinery.datasets.records import csv_problem, read_text_file
from refinery.errors import DataError, RefineryError
from refinery.labels import Label
from refinery.outcomes import Outcome
from refinery.outputs import atomic_write

#: Content columns: written by the pipeline, refreshed on re-runs while undecided.
CONTENT_COLUMNS: tuple[str, ...] = (
    "id",
    "dataset",
    "split",
    "story_id",
    "reason",
    "nl_premises",
    "original_fol",
    "proposed_fol",
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
TOOL_COLUMNS: tuple[str, ...] = tuple(c for c in CONTENT_COLUMNS if c != "row_hash")

#: The most the tool writes into one cell, in UTF-8 bytes; a longer text is cut (`cap_cell`).
CELL_LIMIT = 32 * 1024
#: Starts the note that ends a cut cell; a cell holding it is not the whole text.
CUT_MARK = "[… cut by FOL Refinery:"
# csv's default field limit (128 KiB) is below what a spreadsheet or an annotator may write;
# 2**31 - 1 is the largest a C long takes on every platform.
_FIELD_LIMIT = min(sys.maxsize, 2**31 - 1)

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

# A spreadsheet evaluates a cell that starts with one of these as a formula (or, for tab/CR,
# may shift it into one); the apostrophe is what spreadsheets themselves use to mean "text".
_TRIGGERS = frozenset("=+-@\t\r")
_QUOTE = "'"
_LABEL_COLUMNS = ("gold_label", "suggested_label", "final_label")
_LABELS = {label.value.lower(): label.value for label in Label}
_SCORE_COLUMNS = ("nl_mismatch_score", "label_score")
#: How long a writer waits for another one to finish with the queue before giving up.
LOCK_SECONDS = 30.0


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
    nl_premises: str = ""
    original_fol: str = ""
    proposed_fol: str = ""
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


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file that guards the queue at `path` (beside it, so every process finds it)."""
    target = Path(path)
    return target.with_name(target.name + ".lock")


@contextmanager
def queue_lock(path: str | os.PathLike[str], timeout: float = LOCK_SECONDS) -> Iterator[None]:
    """Hold the queue's file lock: wrap every read-modify-write of a queue in it.

    Not re-entrant: a function that holds it calls only the unlocked writers (`write_rows`).
    """
    lock = FileLock(lock_path(path), timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise RefineryError(
            f"{path} is busy: another process has held {lock_path(path)} for {timeout:.0f} s; "
            "try again"
        ) from None
    try:
        yield
    finally:
        lock.release()


@dataclass(frozen=True, slots=True)
class MergeReport:
    """What `write_queue` did, in rows.

    `added`: new items; `kept_decisions`: decided rows whose content hash is unchanged (kept
    as decided); `flagged_changed`: decided rows whose content changed (new content, old
    decision, flag `changed_since_decision`); `refreshed`: undecided rows rewritten with the new
    content; `retained_missing`: rows absent from the new run kept because a reviewer had written
    in them (flag `not_in_latest_run`); `dropped`: absent rows nobody had written in.
    """

    added: int = 0
    kept_decisions: int = 0
    flagged_changed: int = 0
    refreshed: int = 0
    retained_missing: int = 0
    dropped: int = 0


def neutralise(cell: str) -> str:
    """Make `cell` safe to open in a spreadsheet; `unneutralise` undoes it exactly.

    A cell starting with ``= + - @``, tab or CR gets a leading apostrophe. So that the scheme is
    reversible, a cell that already starts with an apostrophe followed by one of those characters
    or by another apostrophe gets one too; any other cell is unchanged (so ``'tis`` stays as is).

    >>> neutralise("-P(a)"), neutralise("'=x"), neutralise("'tis"), neutralise("P(a)")
    ("'-P(a)", "''=x", "'tis", 'P(a)')
    """
    if cell[:1] in _TRIGGERS or (cell[:1] == _QUOTE and cell[1:2] in _TRIGGERS | {_QUOTE}):
        return _QUOTE + cell
    return cell


def unneutralise(cell: str) -> str:
    """Undo `neutralise`: drop one apostrophe before a trigger character or an apostrophe.

    A cell that a spreadsheet stored without the apostrophe (it only marked the cell as text)
    reads back unchanged, so it loses nothing either.

    >>> [unneutralise(neutralise(s)) for s in ("-P(a)", "'=x", "''", "'tis", "=1")]
    ['-P(a)', "'=x", "''", "'tis", '=1']
    """
    if cell[:1] == _QUOTE and cell[1:2] in _TRIGGERS | {_QUOTE}:
        return cell[1:]
    return cell


def _one_line(text: object) -> str:
    # One formula or sentence per line: a stray newline inside one would shift the rest.
    return " ".join(str(text).splitlines()).strip()


def _lines(texts: Iterable[object] | None) -> str:
    return "\n".join(_one_line(t) for t in texts or ())


def _text(value: object) -> str:
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
    if column in _LABEL_COLUMNS:
        return _LABELS.get(cell.lower(), cell)
    if column in _SCORE_COLUMNS and (value := _score(cell, -1.0)) >= 0:
        return f"{value:.2f}"
    return cell


def row_hash(row: Mapping[str, str]) -> str:
    """A short fingerprint of a row's tool-owned cells (`TOOL_COLUMNS`).

    Blind to what a spreadsheet re-save changes (line endings, padding, ``TRUE`` for ``True``,
    ``0.5`` for ``0.50``), sensitive to anything else.

    >>> a = {"id": "d/s/1", "gold_label": "True"}
    >>> row_hash(a) == row_hash({**a, "gold_label": "TRUE "}), row_hash(a) == row_hash({})
    (True, False)
    """
    text = "\x1f".join(f"{c}\x1e{_normal(c, row.get(c, ''))}" for c in TOOL_COLUMNS)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


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
        id=_text(o.id),
        dataset=_text(o.dataset),
        split=_text(o.split),
        story_id=_text(o.story_id),
        reason=_text(o.reason.value),
        nl_premises=_lines(o.premises),
        original_fol=_lines(original),
        proposed_fol=proposed,
        conclusion=_one_line(_text(o.conclusion)),
        conclusion_fol=_one_line(_text(o.original_conclusion_fol)),
        gold_label=_text(o.gold_label),
        prover_labels="; ".join(f"{k}={_text(v)}" for k, v in sorted(o.prover_labels.items())),
        suggested_label=_text(o.suggested_label),
        critique=_text(o.critique),
        evidence=_text(o.evidence),
        findings=_lines(o.findings),
        nl_mismatch_score=f"{o.nl_mismatch_score:.2f}",
        label_score=f"{o.label_score:.2f}",
        rounds=_text(o.rounds),
        content_hash=_text(o.content_hash),
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
        takes the original for whichever part was not). ``conclusion_fol`` repeats the original
        conclusion next to its NL. ``prover_labels`` reads ``eprover=True; z3=True``.
        No tool-owned cell exceeds `CELL_LIMIT` (`cap_cell`); ``row_hash`` fingerprints them.
        ``status`` is ``open``; ``flag`` and the decision columns are empty.
    """
    rows = [queue_row(o) for o in outcomes if o.queued]
    return sorted(rows, key=_rank)


def _rank(row: QueueRow) -> tuple[float, tuple[tuple[int, str], ...]]:
    """Worst first (cleanlab's order): a likely wrong label or a misread FOL; then by id."""
    return (-priority(row), _id_key(row.id))


def priority(row: QueueRow) -> float:
    """A queue row's urgency: 1 − its label score, or its NL-mismatch score, whichever is more.

    >>> priority(QueueRow(label_score="0.10", nl_mismatch_score="0.40"))
    0.9
    >>> priority(QueueRow(label_score="", nl_mismatch_score=""))  # an older queue: no scores
    0.0
    """
    label = _score(row.label_score, 1.0)
    mismatch = _score(row.nl_mismatch_score, 0.0)
    return round(max(1.0 - label, mismatch), 2)


def _score(text: str, default: float) -> float:
    try:
        return float(text)
    except ValueError:
        return default


def _id_key(item_id: str) -> tuple[tuple[int, str], ...]:
    # "…/2" before "…/10": digit runs compare as numbers.
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"(\d+)", item_id))


def flag_set(cell: str) -> set[str]:
    """The flags in a `flag` cell (``;``-joined, blanks ignored)."""
    return {f.strip() for f in cell.split(";") if f.strip()}


def same_decision(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """Whether two decisions (a row's `QueueRow.cells`, or decision columns) decide the same:
    `DECISION_CONTENT` equal."""
    return all(a.get(c, "").strip() == b.get(c, "").strip() for c in DECISION_CONTENT)


def _has_input(row: QueueRow) -> bool:
    return any(cell.strip() for cell in row.cells(DECISION_COLUMNS).values())


def _finish(row: QueueRow, flags: set[str]) -> QueueRow:
    """The row with `status` and `flag` set from the decision and the merge flags."""
    decision = row.decision.strip()
    flags.discard(INVALID_DECISION)
    if decision and decision not in DECISIONS:
        flags.add(INVALID_DECISION)
    return row.replace(
        status=DECIDED if decision in DECISIONS else OPEN,
        # Known flags first in their documented order, then anything a reviewer typed.
        flag=";".join([f for f in FLAGS if f in flags] + sorted(flags - set(FLAGS))),
    )


def _merge(
    new_rows: list[QueueRow], old_rows: list[QueueRow]
) -> tuple[list[QueueRow], MergeReport]:
    old = {r.id: r for r in old_rows}
    counts = dict.fromkeys(("added", "kept", "changed", "refreshed", "retained", "dropped"), 0)
    merged = []
    for new in new_rows:
        prev = old.pop(new.id, None)
        if prev is None:
            merged.append(_finish(new, flag_set(new.flag)))
            counts["added"] += 1
            continue
        flags = flag_set(prev.flag) - {NOT_IN_LATEST_RUN}
        reviewer = prev.cells(DECISION_COLUMNS)
        if prev.decision.strip():
            if prev.content_hash == new.content_hash:
                # Keep the row as decided: the decision refers to the proposal shown in it.
                merged.append(_finish(prev, flags))
                counts["kept"] += 1
            else:
                flags.add(CHANGED_SINCE_DECISION)
                merged.append(_finish(new.replace(**reviewer), flags))
                counts["changed"] += 1
        else:
            # Nothing decided: new content, but keep whatever a reviewer typed (a note, a draft).
            merged.append(_finish(new.replace(**reviewer), flags - {CHANGED_SINCE_DECISION}))
            counts["refreshed"] += 1
    for prev in old.values():
        if _has_input(prev):
            merged.append(_finish(prev, flag_set(prev.flag) | {NOT_IN_LATEST_RUN}))
            counts["retained"] += 1
        else:
            counts["dropped"] += 1
    merged.sort(key=_rank)
    report = MergeReport(
        added=counts["added"],
        kept_decisions=counts["kept"],
        flagged_changed=counts["changed"],
        refreshed=counts["refreshed"],
        retained_missing=counts["retained"],
        dropped=counts["dropped"],
    )
    return merged, report


def _check_rows(rows: Iterable[QueueRow]) -> list[QueueRow]:
    out = []
    seen: set[str] = set()
    for i, row in enumerate(rows):
        item_id = _text(row.id).strip()
        if not item_id:
            raise ValueError(f"row {i} has no id")
        if item_id in seen:
            raise ValueError(f"row {i} repeats id {item_id!r}")
        seen.add(item_id)
        out.append(
            QueueRow.from_cells({c: _text(v) for c, v in row.cells().items()} | {"id": item_id})
        )
    return out


def write_queue(
    path: str | os.PathLike[str],
    rows: Iterable[QueueRow],
    *,
    merge: bool = True,
) -> MergeReport:
    """Write the review queue to `path`, merging with the decisions already in it.

    The file is CSV (RFC 4180, CRLF rows, LF inside cells), UTF-8 with a BOM, one header row,
    written atomically (a temp file next to `path`, then a rename: a failed write leaves the
    old file as it was). Every cell goes through `neutralise`; `read_queue` undoes it.

    Columns, in order:

    - ``id``: the item's stable id, e.g. ``folio-v2/validation/1014``; the merge key;
    - ``dataset``, ``split``, ``story_id``: where the item comes from;
    - ``reason``: why it needs review (reason codes from the Refine stage);
    - ``nl_premises``: the NL premises, one per line;
    - ``original_fol``: the dataset's FOL, premises one per line, then the conclusion;
    - ``proposed_fol``: the proposed FOL in the same layout (empty when nothing was proposed);
    - ``conclusion``, ``conclusion_fol``: the NL conclusion and its original FOL;
    - ``gold_label``: the dataset's label (True / False / Uncertain);
    - ``prover_labels``: each prover's label, ``name=label`` joined by ``;``;
    - ``suggested_label``: the label the agents propose, if any;
    - ``critique``: the agents' explanation;
    - ``evidence``: why the provers give their label: the premises that prove it, or a
      countermodel in which every premise holds and the conclusion fails (one line each);
    - ``findings``: where a formula does not say what its sentence says, worst first;
    - ``nl_mismatch_score``, ``label_score``: the worst finding's score, and how well the gold
      label holds up (low: likely wrong); rows are ranked by them, worst first;
    - ``rounds``: how many critique/repair rounds ran;
    - ``content_hash``: the item's content hash; a decision is tied to it;
    - ``row_hash``: a fingerprint of the cells above, so an edit of them is caught (`row_hash`);
    - ``status``: ``open`` or ``decided`` (``decision`` is one of `DECISIONS`); recomputed;
    - ``flag``: `FLAGS` joined by ``;`` (``changed_since_decision``, ``not_in_latest_run``,
      ``invalid_decision``); a reviewer clears it after re-checking;
    - ``decision``: one of ``accept_proposal``, ``keep_original``, ``edit``, ``relabel``,
      ``skip``; ``final_label``, ``final_fol`` (``original_fol``'s layout): what ``edit`` /
      ``relabel`` set; ``reviewer``, ``note``: free text; ``decided_at``: when (UTC, ISO 8601,
      filled in by ``refinery review work``). These six start empty.

    Merge rules, per id, when the file exists and `merge` is true: a new id is added; a row
    with a decision keeps it — unchanged if its content hash is the same, else with the new
    content and flag ``changed_since_decision`` (never silently overwritten); a row without a
    decision gets the new content, keeping anything a reviewer typed; a row missing from the
    new run is kept with flag ``not_in_latest_run`` if a reviewer wrote in it, else dropped.

    Parameters
    ----------
    path
        The CSV to write (its folder is created).
    rows
        Queue rows, e.g. from `queue_rows`.
    merge
        Merge with the existing file (default); if false, overwrite it.

    Returns
    -------
    MergeReport
        Row counts: added, kept_decisions, flagged_changed, refreshed, retained_missing,
        dropped.

    Raises
    ------
    ValueError
        A row without an id, or an id repeated (in `rows` or the file). (A row with an unknown
        column cannot be built: `QueueRow.from_cells` refuses it.)
    """
    target = Path(path)
    new_rows = _check_rows(rows)
    target.parent.mkdir(parents=True, exist_ok=True)
    with queue_lock(target):
        if merge and target.exists():
            merged, report = _merge(new_rows, _check_rows(read_queue(target)))
        else:
            merged = sorted(
                (_finish(r, flag_set(r.flag)) for r in new_rows), key=lambda r: _id_key(r.id)
            )
            report = MergeReport(added=len(merged))
        _write_csv(target, merged)
    return report


def read_queue(path: str | os.PathLike[str]) -> list[QueueRow]:
    """Read a review queue back, as the rows `write_queue` wrote (plus the reviewers' input).

    Accepts a file with or without a BOM, CRLF or LF line endings (also inside cells), and files
    re-saved by pandas or a spreadsheet: columns may come in any order, missing ones read as
    empty, unknown ones (e.g. a pandas index) are ignored, blank rows are skipped. Labels are
    re-spelled canonically (``TRUE`` → ``True``), and a decision is lower-cased when that makes
    it one of `DECISIONS` (spreadsheets capitalise first letters); scores are written with two
    decimals again.

    Parameters
    ----------
    path
        The CSV file.

    Returns
    -------
    list of QueueRow
        One row per record with every column of `COLUMNS` (strings), in file order.

    Raises
    ------
    DataError
        (a `ValueError`) naming the file, and the line where it applies, when the file is not a
        queue as saved: not UTF-8 (UTF-16, or a legacy code page such as Windows-1252, which has
        already lost ∀∃¬, so it is refused rather than guessed), a separator other than ``,``, no
        ``id`` column, an unterminated quote, or a row with more cells than the header or
        fewer while reaching the decision columns (its cells would be shifted).
    """
    return [entry.item for entry in read_queue_lines(path)]


class QueueLine(NamedTuple):
    """One queue row and where it is: its spreadsheet row number and its first file line.

    A spreadsheet numbers the header row 1 and every record after it (blank ones too); a text
    editor counts physical lines, and a cell may span several. Both are 1-based.
    """

    row: int
    line: int
    item: QueueRow


def read_queue_lines(path: str | os.PathLike[str]) -> list[QueueLine]:
    """`read_queue`, with where each row is: its spreadsheet row and its first file line."""
    # Process-wide, and only ever raised: a cell over csv's 128 KiB default must not lock a queue.
    csv.field_size_limit(max(csv.field_size_limit(), _FIELD_LIMIT))
    records: list[tuple[int, list[str]]] = []
    text = read_text_file(Path(path), save_as="CSV UTF-8")
    # strict: an unterminated quote is an error, not a cell that swallows the rest of the file
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    start = 1
    try:
        for record in reader:
            records.append((start, record))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise DataError(f"{path}:{start}: unreadable CSV: {csv_problem(exc)}") from None
    if not records:
        return []
    # A second BOM or padding can survive some editors' re-saves; column names are ours anyway.
    header = [h.replace("\ufeff", "").strip() for h in records[0][1]]
    if "id" not in header:
        _refuse_separator(path, records[0][1])
        raise DataError(f"{path}: no 'id' column in header {header}")
    where = {name: i for i, name in enumerate(header) if name in COLUMNS}
    # A row with a cell inserted, or one cut short that still reaches the decision columns, has
    # its cells shifted into other columns: refused. One that stops before them reads as
    # undecided (hand-made files); a shifted tool cell there fails `row_hash` anyway.
    decisions_from = min((where[c] for c in DECISION_COLUMNS if c in where), default=len(header))
    rows = []
    for number, (line, record) in enumerate(records[1:], start=2):
        if not any(cell.strip() for cell in record):
            continue
        if len(record) > len(header) or (len(header) > len(record) > decisions_from):
            raise DataError(
                f"{path}:{line}: row {number} has {len(record)} cells, the header has "
                f"{len(header)} (a cell inserted, or the row cut short)"
            )
        cells = {}
        for column in COLUMNS:
            i = where.get(column)
            cell = record[i] if i is not None and i < len(record) else ""
            cells[column] = unneutralise(cell.replace("\r\n", "\n"))
        for column in _LABEL_COLUMNS:
            cells[column] = _LABELS.get(cells[column].strip().lower(), cells[column])
        if cells["decision"].strip().lower() in DECISIONS:
            cells["decision"] = cells["decision"].strip().lower()
        for column in _SCORE_COLUMNS:  # pandas re-saves 0.50 as 0.5
            if (value := _score(cells[column], -1.0)) >= 0:
                cells[column] = f"{value:.2f}"
        rows.append(QueueLine(number, line, QueueRow.from_cells(cells)))
    return rows


def _refuse_separator(path: str | os.PathLike[str], first: Sequence[str]) -> None:
    """`DataError` when the header only makes sense split at another separator than ``,``."""
    line = ",".join(first)
    for separator, name in ((";", "';'"), ("\t", "tabs")):
        if "id" in (cell.replace("\ufeff", "").strip() for cell in line.split(separator)):
            raise DataError(f"{Path(path).name} uses {name} as separator; save it with ','")


def write_rows(path: str | os.PathLike[str], rows: Iterable[QueueRow]) -> Path:
    """Write queue rows as they are (no merge), atomically, recomputing `status` and `flag`."""
    checked = _check_rows(rows)
    return _write_csv(Path(path), [_finish(r, flag_set(r.flag)) for r in checked])


def _write_csv(target: Path, rows: Sequence[QueueRow]) -> Path:
    """The one place the file is written: BOM, CRLF rows, neutralised cells, atomically."""

    def write(tmp: Path) -> None:
        with tmp.open("w", encoding="utf-8-sig", newline="") as f:
            out = csv.writer(f, lineterminator="\r\n")
            out.writerow(COLUMNS)
            for row in rows:
                out.writerow([neutralise(cell) for cell in row.cells().values()])

    return atomic_write(target, write)


def queue_status(rows: Iterable[QueueRow]) -> dict[str, dict[str, int]]:
    """Counts for `refinery review status`: by reason, decision, reviewer and flag, and totals.

    A row's reason may hold several codes (joined by ``;``); each counts once. ``left`` is the
    number of rows without a valid decision (``invalid`` counts misspelled ones among them).
    """
    out: dict[str, dict[str, int]] = {
        "total": {},
        "reason": {},
        "decision": {},
        "reviewer": {},
        "flag": {},
    }

    def bump(table: str, key: str) -> None:
        out[table][key] = out[table].get(key, 0) + 1

    for row in rows:
        bump("total", "items")
        decision = row.decision.strip()
        decided = decision if decision in DECISIONS else ""
        bump("total", "decided" if decided else "left")
        if decision and not decided:
            bump("total", "invalid")
        for code in {c.strip() for c in row.reason.split(";") if c.strip()} or {"(none)"}:
            bump("reason", code)
        bump("decision", decision or "(open)")
        if decided:
            bump("reviewer", row.reviewer.strip() or "(unnamed)")
        for flag in flag_set(row.flag):
            bump("flag", flag)
    return out
