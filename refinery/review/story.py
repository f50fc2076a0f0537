"""A premise fix made once for a whole story: the story's questions share their premises.

FOLIO asks several questions of one story, so a premise formalised wrongly is wrong in each of
them. `story_drafts` carries the premises one item's draft changes into every other open item
of the same story that holds the same premise (its own conclusion kept). Each is then decided
as its own edit would be: checked by the provers, and saved only where nothing needs a person
(no label change, no label against the provers); the rest keep the fix as their draft, for the
annotator to confirm on that item.
"""

from __future__ import annotations

from collections.abc import Sequence

from refinery.logic.parse import canonical_symbols
from refinery.review.decide import Draft, fol_lines
from refinery.review.queue import (
    DECISIONS,
    QueueRow,
)


def changed_premises(row: QueueRow, fol: Sequence[str]) -> dict[str, str]:
    """The premises `fol` (a draft of `row`: premises, then the conclusion) rewrites: each
    original formula, canonical, with what the draft has instead."""
    original = fol_lines(row.original_fol)
    if len(fol) != len(original):
        return {}
    return {
        canonical_symbols(before): canonical_symbols(after)
        for before, after in zip(original[:-1], fol[:-1], strict=True)
        if canonical_symbols(before) != canonical_symbols(after)
    }


def story_drafts(
    rows: Sequence[QueueRow], item_id: str, fol: Sequence[str]
) -> list[tuple[QueueRow, Draft]]:
    """The other open items of `item_id`'s story that hold a premise `fol` rewrites, each with
    its draft after the same rewrite (from the reviewer's own draft of it, if any)."""
    row = next((r for r in rows if r.id == item_id), None)
    if row is None:
        return []
    fixes = changed_premises(row, fol)
    story = (row.dataset, row.split, row.story_id)
    found = []
    for other in rows:
        if other.id == item_id or (other.dataset, other.split, other.story_id) != story:
            continue
        if other.decision.strip() in DECISIONS or not fixes:
            continue
        draft = Draft.start(other)
        premises = [fixes.get(canonical_symbols(f), f) for f in draft.fol[:-1]]
        if premises != draft.fol[:-1]:
            found.append((other, Draft([*premises, draft.fol[-1]], draft.label, draft.note)))
    return found
