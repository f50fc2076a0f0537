"""Recording one decision the moment it is made, under the queue's lock, against what was seen.

A terminal or a browser page shows an item; the annotator decides; `save_decision` writes that
one decision into the queue at once (the whole file through a temp file and a rename, so a
killed process leaves the old file or the new one). Several annotators may work on one queue:

- every read-modify-write holds the queue's file lock, and replaces only the version of the file
  it read (`update_queue`); each decision goes to the queue's journal first
  (`refinery.review.journal`), so one another program's write then loses can be restored;
- a caller passes `seen`, the `decision_version` of the row as the annotator saw it. If another
  annotator has decided the item differently since, nothing is overwritten: the row keeps the
  decision already in the file and gets the flag ``merge_conflict``, the refused version goes to
  the conflict log beside the queue (``<queue>.conflicts.jsonl``), and `DecisionConflict` is
  raised. The conflict is settled like a shard conflict: decide the item again, having seen it.
  Last-write-wins is what this avoids.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from refinery.errors import RefineryError
from refinery.outputs import atomic_write_text
from refinery.review.journal import append_journal
from refinery.review.queue import (
    CHANGED_SINCE_DECISION,
    DECISION_COLUMNS,
    MERGE_CONFLICT,
    QueueRow,
    flag_set,
    same_decision,
)
from refinery.review.sheet import QueueChanged, read_queue, update_queue


def decision_version(row: QueueRow) -> str:
    """A short fingerprint of a row's decision columns: what an annotator saw before deciding.

    >>> decision_version(QueueRow(decision="")) == decision_version(QueueRow())
    True
    >>> decision_version(QueueRow(decision="skip")) == decision_version(QueueRow())
    False
    """
    text = "\x1f".join(row.cells(DECISION_COLUMNS).values())
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def conflicts_path(queue: str | os.PathLike[str]) -> Path:
    """The conflict log beside the queue: every refused concurrent decision, as JSON lines."""
    path = Path(queue)
    return path.with_name(path.name + ".conflicts.jsonl")


class DecisionConflict(RefineryError):
    """Another annotator decided the item differently since it was shown; nothing was overwritten.

    `kept` is the decision now in the queue (flagged ``merge_conflict``), `refused` the one that
    was not written (it is in the conflict log); `row` is the row as the file has it now.
    """

    def __init__(
        self, item_id: str, kept: dict[str, str], refused: dict[str, str], row: QueueRow
    ) -> None:
        self.item_id, self.kept, self.refused, self.row = item_id, kept, refused, row
        who = kept.get("reviewer") or "another annotator"
        super().__init__(
            f"{item_id}: {who} decided {kept.get('decision') or '(nothing)'} while you were "
            f"looking; your {refused.get('decision')} was not written. The item is flagged "
            f"{MERGE_CONFLICT}: look at both versions and decide it again."
        )


def save_decision(
    path: str | os.PathLike[str],
    item_id: str,
    decision: Mapping[str, str],
    *,
    seen: str | None = None,
) -> QueueRow:
    """Record one decision for `item_id` in the queue at `path`, atomically; return the row.

    Parameters
    ----------
    path
        The queue CSV.
    item_id
        The row to decide.
    decision
        Decision columns (`DECISION_COLUMNS`); the others keep what the file has. Deciding
        clears ``changed_since_decision`` and ``merge_conflict``: the annotator has just looked
        at the current content.
    seen
        `decision_version` of the row when the annotator was shown it; None skips the check
        (a single annotator, or a tool that owns the file).

    Returns
    -------
    QueueRow
        The row as the file now has it. When the row already holds the same decision (another
        annotator got there first), it is left as it is.

    Raises
    ------
    DecisionConflict
        The row was decided differently since `seen`; it is flagged and the refused version
        logged, and the existing decision is kept.
    QueueChanged
        Another program is writing the queue, or left it shorter than the tool wrote it;
        nothing was written, and the decision is kept in the journal.
    KeyError, ValueError
        An unknown id, or keys that are not decision columns. The file is left unchanged.
    """
    unknown = set(decision) - set(DECISION_COLUMNS)
    if unknown:
        raise ValueError(f"not decision columns: {sorted(unknown)}")
    proposed = {c: str(decision.get(c, "")) for c in DECISION_COLUMNS}

    def change(rows: list[QueueRow]) -> tuple[list[QueueRow] | None, tuple[str, QueueRow]]:
        at = next((i for i, r in enumerate(rows) if r.id == item_id), None)
        if at is None:
            raise KeyError(f"{item_id} is not in {path}")
        row = rows[at]
        if seen is not None and decision_version(row) != seen:
            if same_decision(row.cells(), proposed):
                return None, ("same", row)
            rows[at] = row.replace(flag=";".join(sorted(flag_set(row.flag) | {MERGE_CONFLICT})))
            return rows, ("conflict", row)
        rows[at] = row.replace(
            **{k: str(v) for k, v in decision.items()},
            flag=";".join(sorted(flag_set(row.flag) - {CHANGED_SINCE_DECISION, MERGE_CONFLICT})),
        )
        # in the journal before the queue: a decision an outside writer then loses is kept
        append_journal(path, [rows[at]])
        return rows, ("saved", rows[at])

    try:
        what, row = update_queue(path, change)
    except QueueChanged as exc:
        # the queue cannot be read whole: the decision is kept in the journal all the same
        append_journal(path, [QueueRow(id=item_id, **proposed)])
        raise QueueChanged(f"{exc}; your decision on {item_id} is kept in the journal") from None
    if what == "same":
        return row
    if what == "conflict":
        kept = row.cells(DECISION_COLUMNS)
        _log_conflict(path, item_id, kept, proposed)
        raise DecisionConflict(item_id, kept, proposed, _row(path, item_id))
    return _row(path, item_id)


def _row(path: str | os.PathLike[str], item_id: str) -> QueueRow:
    return next(r for r in read_queue(path) if r.id == item_id)


def _log_conflict(
    path: str | os.PathLike[str], item_id: str, kept: dict[str, str], refused: dict[str, str]
) -> None:
    log = conflicts_path(path)
    old = log.read_text(encoding="utf-8") if log.is_file() else ""
    entry = {
        "id": item_id,
        "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "kept": kept,
        "refused": refused,
    }
    atomic_write_text(log, old + json.dumps(entry, ensure_ascii=False) + "\n")


def read_conflicts(
    path: str | os.PathLike[str], item_id: str | None = None
) -> list[dict[str, object]]:
    """The conflict log's entries (oldest first), all or only `item_id`'s."""
    log = conflicts_path(path)
    if not log.is_file():
        return []
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line]
    return [e for e in entries if item_id is None or e.get("id") == item_id]
