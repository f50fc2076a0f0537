"""The decision journal: every decision a reviewer saves, appended beside the queue first.

The queue is one CSV file, and programs other than this tool write it (a spreadsheet saving it,
a copy over it). `refinery.review.sheet.update_queue` never lets the tool's own write lose a row,
but another program's write can still lose the tool's: so before a decision goes into the queue,
the decided row goes to the journal, ``<queue>.journal.jsonl`` (appended and synced, one JSON
object a line: ``at`` and the row's cells). `journal_gaps` names the items whose journaled
decision the queue no longer holds; `recover` puts them back, row and decision, without
overwriting any decision the queue holds.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from refinery.review.queue import (
    CHANGED_SINCE_DECISION,
    COLUMNS,
    DECISION_COLUMNS,
    QueueRow,
    flag_set,
    same_decision,
)
from refinery.review.sheet import update_queue


def journal_path(queue: str | os.PathLike[str]) -> Path:
    """The journal beside the queue."""
    path = Path(queue)
    return path.with_name(path.name + ".journal.jsonl")


def append_journal(queue: str | os.PathLike[str], rows: Iterable[QueueRow]) -> None:
    """Append the decided `rows` to the queue's journal, synced before it returns."""
    at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    text = "".join(
        json.dumps({"at": at, "row": row.cells()}, ensure_ascii=False) + "\n" for row in rows
    )
    if not text:
        return
    fd = os.open(journal_path(queue), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, text.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def read_journal(queue: str | os.PathLike[str]) -> dict[str, QueueRow]:
    """Each item's last journaled row; a line a killed writer left torn is skipped."""
    return {row.id: row for _, row in _entries(queue)}


def history(queue: str | os.PathLike[str], item_id: str) -> list[tuple[str, QueueRow]]:
    """Every version of `item_id`'s decision the journal holds, oldest first, with when it
    was written."""
    return [(at, row) for at, row in _entries(queue) if row.id == item_id]


def _entries(queue: str | os.PathLike[str]) -> list[tuple[str, QueueRow]]:
    path = journal_path(queue)
    if not path.is_file():
        return []
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
            cells = entry["row"]
            row = QueueRow.from_cells({c: str(cells.get(c, "")) for c in COLUMNS})
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a line a killed writer left torn
        if row.id:
            found.append((str(entry.get("at", "")), row))
    return found


def _decided(row: QueueRow) -> bool:
    return bool(row.decision.strip())


def journal_gaps(queue: str | os.PathLike[str], rows: Sequence[QueueRow]) -> list[str]:
    """The ids whose journaled decision `rows` (the queue as read) has lost: the row is gone,
    or it is undecided."""
    by_id = {r.id: r for r in rows}
    return [
        item_id
        for item_id, row in read_journal(queue).items()
        if _decided(row) and (item_id not in by_id or not _decided(by_id[item_id]))
    ]


@dataclass(frozen=True, slots=True)
class Recovery:
    """What `recover` did: rows put back whole, decisions put back into undecided rows, and
    items whose row holds another decision than the journal's (left as they are)."""

    rows: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    differ: list[str] = field(default_factory=list)


def recover(queue: str | os.PathLike[str]) -> Recovery:
    """Put back what the queue lost of its journal; never overwrite a decision it holds.

    A row missing from the queue is restored as journaled. An undecided row gets the journaled
    decision back (flagged ``changed_since_decision`` when its content changed since). The
    queue is then taken as it is, even when it is shorter than the tool last wrote it.
    """
    journal = read_journal(queue)

    def change(rows: list[QueueRow]) -> tuple[list[QueueRow] | None, Recovery]:
        by_id = {r.id: i for i, r in enumerate(rows)}
        done = Recovery()
        for item_id, kept in journal.items():
            if not _decided(kept):
                continue
            at = by_id.get(item_id)
            if at is None:
                if not kept.content_hash:
                    continue  # a decision journaled without its row: nothing to show it on
                rows.append(kept)
                done.rows.append(item_id)
                continue
            row = rows[at]
            if not _decided(row):
                flags = flag_set(row.flag)
                if kept.content_hash and row.content_hash != kept.content_hash:
                    flags.add(CHANGED_SINCE_DECISION)
                decision = kept.cells(DECISION_COLUMNS)
                rows[at] = row.replace(**decision, flag=";".join(sorted(flags)))
                done.decisions.append(item_id)
            elif not same_decision(row.cells(), kept.cells()):
                done.differ.append(item_id)
        # rewritten even when nothing was missing: the queue as it is becomes the tool's
        # version again, so a deliberately shortened queue is accepted from now on
        return rows, done

    return update_queue(queue, change, shorter_ok=True)
