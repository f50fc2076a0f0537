"""What a review queue holds: counts for `review status`, and the decisions it holds on a
run's items (those a later run carries, those a run lacks and publishing it would undo)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from refinery.outcomes import Outcome, Status
from refinery.review.queue import CHANGED_SINCE_DECISION, DECISIONS, Decision, QueueRow, flag_set
from refinery.review.sheet import QueueLine, read_queue_lines

if TYPE_CHECKING:
    from refinery.runs import Run


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
