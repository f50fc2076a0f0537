"""The review queue's file: reading, writing and merging it, under its lock.

The file is CSV (RFC 4180, CRLF rows, LF inside cells), UTF-8 with a BOM so spreadsheets show
∀∃¬ correctly, with cells neutralised against formula injection reversibly (`neutralise`).
`write_queue` merges a Refine run's rows into the file without losing a decision; `read_queue`
and `read_queue_lines` read it back (any cell size). Every read-modify-write of a queue holds its
file lock (`queue_lock`, a ``<queue>.lock`` file beside it), so a terminal, a browser page and a
Refine re-run never interleave their writes. The schema and the rows themselves are
`refinery.review.queue`'s.
"""

from __future__ import annotations

import csv
import io
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from filelock import FileLock, Timeout

from refinery.datasets.records import csv_problem, read_text_file
from refinery.errors import DataError, RefineryError
from refinery.outcomes import Outcome, Status
from refinery.outputs import atomic_write, stale_temps
from refinery.review.queue import (
    CHANGED_SINCE_DECISION,
    COLUMNS,
    DECIDED,
    DECISION_COLUMNS,
    DECISIONS,
    FLAGS,
    INVALID_DECISION,
    LABEL_COLUMNS,
    LABELS,
    NOT_IN_LATEST_RUN,
    OPEN,
    SCORE_COLUMNS,
    Decision,
    QueueRow,
    flag_set,
    rank,
    score,
    text,
)

if TYPE_CHECKING:
    from refinery.runs import Run

# csv's default field limit (128 KiB) is below what a spreadsheet or an annotator may write;
# 2**31 - 1 is the largest a C long takes on every platform.
_FIELD_LIMIT = min(sys.maxsize, 2**31 - 1)


# A spreadsheet evaluates a cell that starts with one of these as a formula (or, for tab/CR,
# may shift it into one); the apostrophe is what spreadsheets themselves use to mean "text".
_TRIGGERS = frozenset("=+-@\t\r")


_QUOTE = "'"


#: How long a writer waits for another one to finish with the queue before giving up.
LOCK_SECONDS = 30.0


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file that guards the queue at `path` (beside it, so every process finds it)."""
    target = Path(path)
    return target.with_name(target.name + ".lock")


@contextmanager
def queue_lock(path: str | os.PathLike[str], timeout: float = LOCK_SECONDS) -> Iterator[None]:
    """Hold the queue's file lock: wrap every read-modify-write of a queue in it.

    Not re-entrant: a function that holds it calls only the unlocked writers (`write_rows`).
    Whoever holds it is the queue's one writer, so temp files beside the queue are a killed
    writer's leftovers: they are removed.
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
        for leftover in stale_temps(Path(path)):
            leftover.unlink(missing_ok=True)
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
    merged.sort(key=rank)
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
        item_id = text(row.id).strip()
        if not item_id:
            raise ValueError(f"row {i} has no id")
        if item_id in seen:
            raise ValueError(f"row {i} repeats id {item_id!r}")
        seen.add(item_id)
        out.append(
            QueueRow.from_cells({c: text(v) for c, v in row.cells().items()} | {"id": item_id})
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
            # worst first from the first run, as every merge ranks it
            merged = sorted((_finish(r, flag_set(r.flag)) for r in new_rows), key=rank)
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
        for column in LABEL_COLUMNS:
            cells[column] = LABELS.get(cells[column].strip().lower(), cells[column])
        if cells["decision"].strip().lower() in DECISIONS:
            cells["decision"] = cells["decision"].strip().lower()
        for column in SCORE_COLUMNS:  # pandas re-saves 0.50 as 0.5
            if (value := score(cells[column], -1.0)) >= 0:
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


def decisions_on(
    lines: Sequence[QueueLine], outcomes: Mapping[str, Outcome]
) -> tuple[list[QueueLine], list[QueueLine]]:
    """The rows that decide (anything but `skip`) an item of `outcomes`: those decided on its
    current content, and those decided on content that has changed since (the merge flags them
    `changed_since_decision` with the new content; a reviewer clears the flag after looking
    again)."""
    current: list[QueueLine] = []
    changed: list[QueueLine] = []
    for entry in lines:
        row, outcome = entry.item, outcomes.get(entry.item.id)
        if outcome is None or row.decision.strip() in ("", Decision.SKIP):
            continue
        since = row.content_hash != outcome.content_hash
        (changed if since or CHANGED_SINCE_DECISION in flag_set(row.flag) else current).append(
            entry
        )
    return current, changed


def missing_decisions(run: Run) -> list[str]:
    """The items whose decision the run's review queue holds, on the content the run has, that
    the run does not carry (not `reviewed` with that decision): what publishing it would undo.
    The queue is the one the run wrote (its settings' `review_path`); none, none missing."""
    path = Path(str(run.meta.get("settings", {}).get("review_path") or ""))
    if not path.name or not path.is_file():
        return []
    by_id = {o.id: o for o in run.outcomes}
    current, _ = decisions_on(read_queue_lines(path), by_id)
    return [
        e.item.id
        for e in current
        if by_id[e.item.id].status is not Status.REVIEWED
        or by_id[e.item.id].review_decision != e.item.decision.strip()
    ]
