"""Which items a large run's report shows: a sample per status and reason, the same every run.

A report listing every item of a 10,000-item run is 41 MB and takes a browser 4 s to open; a
million-item run's would not open. Above `FULL_REPORT_ITEMS` items, every count, table of
counts and chart is still over all items, but the item tables, edit sections and entries show
`sample`'s items, and each heading says how many of how many (`Sampled`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from refinery.outcomes import Outcome

#: Above this many items a report shows a sample of them (a 10,000-item report listing every
#: item is 41 MB and takes a browser 4 s to open).
FULL_REPORT_ITEMS = 2_000
#: Items a sampled report shows per status and reason.
SAMPLE_PER_REASON = 25


@dataclass(frozen=True, slots=True)
class Sampled:
    """What a sampled report leaves out: how many it shows per status and reason, and the
    totals of the lists it shortens (every count elsewhere is over all items)."""

    per_reason: int
    queue: int
    applied: int
    proposed: int
    label_changes: int


def sample(outcomes: Sequence[Outcome], per_reason: int = SAMPLE_PER_REASON) -> frozenset[str]:
    """The ids a sampled report shows: for each status and reason, the `per_reason` items whose
    id has the smallest SHA-256, so the same items every run, spread over the whole input.

    >>> from refinery.outcomes import Reason, Status
    >>> run = [Outcome(id=f"x/{k}", status=Status.NEEDS_REVIEW, reason=Reason.LABEL_MISMATCH)
    ...        for k in range(10)] + [Outcome(id="x/10", status=Status.VERIFIED)]
    >>> sorted(sample(run, per_reason=2))
    ['x/0', 'x/10', 'x/4']
    """
    groups: dict[tuple[str, str], list[str]] = {}
    for o in outcomes:
        groups.setdefault((o.status.value, o.reason.value), []).append(o.id)
    return frozenset(
        item_id
        for ids in groups.values()
        for item_id in sorted(ids, key=lambda i: hashlib.sha256(i.encode()).digest())[:per_reason]
    )


def sampled(outcomes: Sequence[Outcome], edits: Sequence[Mapping[str, object]]) -> Sampled:
    """What a sampled report of `outcomes` and `edits` shortens, with the totals it says."""
    applied = sum(1 for e in edits if e.get("accepted", True))
    return Sampled(
        per_reason=SAMPLE_PER_REASON,
        queue=sum(1 for o in outcomes if o.queued),
        applied=applied,
        proposed=len(edits) - applied,
        label_changes=sum(1 for o in outcomes if changes_label(o)),
    )


def changes_label(o: Outcome) -> bool:
    """Whether the outcome suggests a label other than its gold one (a "label change")."""
    return bool(o.suggested_label) and o.suggested_label != o.gold_label
