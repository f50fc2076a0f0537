"""The review queue's file: reading, writing and merging it, under its lock.

The file is CSV (RFC 4180, CRLF rows, LF inside cells), UTF-8 with a BOM so spreadsheets show
∀∃¬ correctly, with cells neutralised against formula injection reversibly (`neutralise`).
`write_queue` merges a Refine run's rows into the file without losing a decision; `read_queue`
and `read_queue_lines` read it back (any cell size). Every read-modify-write of a queue holds its
file lock (`queue_lock`, a ``<queue>.lock`` file beside it), so a terminal, a browser page and a
Refine re-run never interleave their writes. The schema and the rows themselves are
`refinery.review.queue`'s.

Other programs write the file too (a spreadsheet saving it, a copy over it), and the lock does
not bind them. A copy writes in place, row by row, so a reader can catch half a file and a writer
that renamed its own version over it would drop the other half. So every read-modify-write goes
through `update_queue`: it reads the file only once nobody has touched it for `QUIET_SECONDS`
(unless it is exactly as this tool last wrote it), never from a file shorter than the tool last
wrote, and renames its version into place only if the file is still the one it read; otherwise it
reads again. What the tool last wrote is a sidecar, ``<queue>.written.json``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from filelock import FileLock, Timeout

from refinery.datasets.records import csv_problem, read_text_file
from refinery.errors import DataError, RefineryError
from refinery.outputs import atomic_write, atomic_write_text, stale_temps
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
    QueueRow,
    flag_set,
    rank,
    score,
    text,
)
from refinery.review.seal import seal

if TYPE_CHECKING:
    pass

# csv's default field limit (128 KiB) is below what a spreadsheet or an annotator may write;
# 2**31 - 1 is the largest a C long takes on every platform.
_FIELD_LIMIT = min(sys.maxsize, 2**31 - 1)


# A spreadsheet evaluates a cell that starts with one of these as a formula (or, for tab/CR,
# may shift it into one); the apostrophe is what spreadsheets themselves use to mean "text".
_TRIGGERS = frozenset("=+-@\t\r")


_QUOTE = "'"


#: How long a writer waits for another one to finish with the queue before giving up.
LOCK_SECONDS = 30.0
#: How long a file another program wrote must have been left alone before it is read whole.
QUIET_SECONDS = 0.3
#: How long a writer waits for another program to finish writing the queue (or for a file
#: shorter than the tool last wrote to grow back) before it gives up, writing nothing.
SETTLE_SECONDS = 10.0
#: How many times a writer reads again when the file changed between its read and its rename.
_TRIES = 5

_T = TypeVar("_T")


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


class QueueChanged(RefineryError):
    """Another program is writing the queue, or left it shorter than the tool wrote it: the
    tool's write was not made (what a reviewer decided is in the journal, `refinery.review.journal`).
    """


class Stamp(NamedTuple):
    """What tells one version of a file from another without reading it."""

    inode: int
    size: int
    mtime_ns: int


def stamp(path: str | os.PathLike[str]) -> Stamp | None:
    """The file's `Stamp`, or None when there is no file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return Stamp(st.st_ino, st.st_size, st.st_mtime_ns)


def written_path(path: str | os.PathLike[str]) -> Path:
    """The sidecar that says which version of the queue the tool last wrote, and its rows."""
    target = Path(path)
    return target.with_name(f"{target.name}.written.json")


def last_written(path: str | os.PathLike[str]) -> tuple[Stamp | None, int]:
    """The `Stamp` and row count of the tool's last write of the queue ((None, 0): unknown)."""
    try:
        saved = json.loads(written_path(path).read_text(encoding="utf-8"))
        return Stamp(*saved["stamp"]), int(saved["rows"])
    except (OSError, ValueError, KeyError, TypeError):
        return None, 0


def read_settled(
    path: str | os.PathLike[str], *, shorter_ok: bool = False
) -> tuple[list[QueueRow], Stamp | None]:
    """The queue's rows and the `Stamp` they were read at, read only from a whole file.

    A file exactly as the tool last wrote it is read at once. Any other version is read once
    nobody has touched it for `QUIET_SECONDS` (by its modification time, or by watching it),
    and only if it has at least the rows the tool last wrote (unless `shorter_ok`): a copy
    written in place, row by row, is read when it is complete. Missing file: no rows, no stamp.

    Raises `QueueChanged` when the file is still changing, or still shorter, after
    `SETTLE_SECONDS`; `DataError` when a file left alone does not read as a queue.
    """
    mine, count = last_written(path)
    deadline = time.monotonic() + SETTLE_SECONDS
    watched: tuple[Stamp | None, float] = (None, 0.0)
    problem: QueueChanged | None = None
    while True:
        before = stamp(path)
        if before is None:
            return [], None
        if before == mine:
            return read_queue(path), before
        now = time.monotonic()
        if before != watched[0]:
            watched = (before, now)
        idle = max(now - watched[1], (time.time_ns() - before.mtime_ns) / 1e9)
        if idle >= QUIET_SECONDS:
            try:
                rows = read_queue(path)
            except DataError:
                if stamp(path) == before:
                    raise  # a whole file, left alone, that is not a queue: say so at once
            else:
                if stamp(path) == before:
                    if shorter_ok or len(rows) >= count:
                        return rows, before
                    problem = QueueChanged(
                        f"{path} has {len(rows)} rows where FOL Refinery last wrote {count}: "
                        "another program has changed it, and nothing was written. "
                        f"`refinery review recover --queue {path}` restores the rows and "
                        "decisions it lost from the decision journal"
                    )
        if now >= deadline:
            raise problem or QueueChanged(
                f"{path} is being written by another program (it kept changing for "
                f"{SETTLE_SECONDS:.0f} s); nothing was written: try again"
            )
        time.sleep(0.05)


class _Moved(RefineryError):
    """The file changed between a writer's read and its rename (caught: the writer reads again)."""


def update_queue(
    path: str | os.PathLike[str],
    change: Callable[[list[QueueRow]], tuple[Sequence[QueueRow] | None, _T]],
    *,
    shorter_ok: bool = False,
    after: Callable[[_T], None] | None = None,
) -> _T:
    """One read-modify-write of the queue at `path`, safe against every other writer.

    Holds the queue's lock; reads the rows with `read_settled`; `change(rows)` returns the rows
    to write (None: write nothing) and a result, which is returned. The new version replaces the
    file only if the file is still the version read; otherwise the file is read and changed
    again (up to `_TRIES` times), so whatever `change` does besides returning must bear being
    done again. `after(result)` runs once the file is written, still under the lock.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with queue_lock(target):
        for _ in range(_TRIES):
            rows, seen = read_settled(target, shorter_ok=shorter_ok)
            new, result = change(rows)
            if new is None:
                return result
            checked = [_finish(r, flag_set(r.flag)) for r in _check_rows(new)]
            try:
                _write_csv(target, checked, seen=seen)
            except _Moved:
                continue
            if after is not None:
                after(result)
            return result
    raise QueueChanged(
        f"{path} kept being rewritten by another program while FOL Refinery wrote it; "
        "nothing was written: try again"
    )


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
    key: bytes | None = None,
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
    - ``row_seal``: with `key`, a keyed seal of the same cells (`refinery.review.seal`): a row
      whose cells a later run does not reproduce is trusted only when its seal holds;
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
    key
        The state folder's sealing key: the new rows are sealed with it (a kept row keeps the
        seal it had).

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
    new_rows = _check_rows(rows)
    if key is not None:
        new_rows = [r.replace(row_seal=seal(r.cells(), key)) for r in new_rows]

    def change(old: list[QueueRow]) -> tuple[list[QueueRow], MergeReport]:
        if merge and old:
            return _merge(new_rows, _check_rows(old))
        # worst first from the first run, as every merge ranks it
        merged = sorted((_finish(r, flag_set(r.flag)) for r in new_rows), key=rank)
        return merged, MergeReport(added=len(merged))

    return update_queue(path, change, shorter_ok=not merge)


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
    """Write queue rows as they are (no merge), atomically, recomputing `status` and `flag`:
    a new file (a shard), or a queue whose lock the caller holds (else use `update_queue`)."""
    checked = _check_rows(rows)
    return _write_csv(Path(path), [_finish(r, flag_set(r.flag)) for r in checked])


_ANY = Stamp(-1, -1, -1)


def _write_csv(target: Path, rows: Sequence[QueueRow], *, seen: Stamp | None = _ANY) -> Path:
    """The one place the file is written: BOM, CRLF rows, neutralised cells, atomically; only
    over the version `seen` (None: no file), when given; then the sidecar says it is ours."""

    def write(tmp: Path) -> None:
        with tmp.open("w", encoding="utf-8-sig", newline="") as f:
            out = csv.writer(f, lineterminator="\r\n")
            out.writerow(COLUMNS)
            for row in rows:
                out.writerow([neutralise(cell) for cell in row.cells().values()])

    def unchanged() -> None:
        if seen is not _ANY and stamp(target) != seen:
            raise _Moved

    atomic_write(target, write, check=unchanged)
    ours = stamp(target)
    if ours is not None:
        atomic_write_text(
            written_path(target), json.dumps({"stamp": list(ours), "rows": len(rows)})
        )
    return target
