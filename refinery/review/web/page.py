"""What the review page shows: the items under the filters, the progress, and one item's view.

Plain functions over queue rows, no web framework: `refinery.review.web.app` renders their
result with Jinja2 (which escapes every string) and hands the page's script the same data as
JSON. A row's ``evidence`` (why the provers give their label: the premises that prove it, or a
countermodel; one line each) shows under the labels. ``findings`` (meaning-aware checks), a field
a later queue may carry, is shown when present.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from refinery.outputs import visible
from refinery.prove.model_table import evidence_models
from refinery.review.decide import GUIDELINES, Draft, fol_lines
from refinery.review.queue import DECISIONS, MERGE_CONFLICT, QueueRow, flag_set
from refinery.review.record import decision_version

#: The reviewer filter's value for items nobody has decided yet.
OPEN = "(open)"
#: Optional row fields a later queue may carry; shown when present.
OPTIONAL_FIELDS = ("findings",)
_TOKEN = re.compile(r"\w+|\s+|.", re.UNICODE)
# The critique joins findings with "; " and each starts "field: kind …"; a message may hold
# "; expected one of: …" itself, which is not a new finding (no "name: " right after it).
_FINDING = re.compile(r";\s+(?=[\w\[\]]+:\s)")


def reasons_of(row: QueueRow) -> list[str]:
    """A row's reason codes (a hand-edited queue may join several with ``;``)."""
    return [c.strip() for c in row.reason.split(";") if c.strip()] or ["(none)"]


def is_decided(row: QueueRow) -> bool:
    return row.decision.strip() in DECISIONS


#: What a search looks through: the item's id, story, sentences, formulas, critique and note.
SEARCHED = (
    "id",
    "story_id",
    "nl_premises",
    "conclusion",
    "original_fol",
    "proposed_fol",
    "cause",
    "critique",
    "findings",
    "note",
)


@dataclass(frozen=True)
class Filters:
    """Which items the page walks through: by reason, by reviewer (`OPEN`: undecided), and by
    a search (`text`: every word of it, in any case, somewhere in the `SEARCHED` cells)."""

    reason: str = ""
    reviewer: str = ""
    text: str = ""

    def matches(self, row: QueueRow) -> bool:
        if self.reason and self.reason not in reasons_of(row):
            return False
        if self.text.strip():
            haystack = " ".join(row.cells(SEARCHED).values()).casefold()
            if not all(word in haystack for word in self.text.casefold().split()):
                return False
        if self.reviewer == OPEN:
            return not is_decided(row)
        return not self.reviewer or (is_decided(row) and row.reviewer.strip() == self.reviewer)

    def url(self, item_id: str | None = None) -> str:
        """The page's address for `item_id` under these filters (``/?…``)."""
        query = {"reason": self.reason, "reviewer": self.reviewer, "q": self.text.strip(),
                 "id": item_id or ""}  # fmt: skip
        return "/?" + urlencode({k: v for k, v in query.items() if v})


def progress(rows: Sequence[QueueRow]) -> dict[str, Any]:
    """Decided and total items, overall and by reason (a row counts once per reason code)."""
    by_reason: dict[str, list[int]] = {}
    for row in rows:
        for code in reasons_of(row):
            counts = by_reason.setdefault(code, [0, 0])
            counts[0] += is_decided(row)
            counts[1] += 1
    decided = sum(is_decided(r) for r in rows)
    return {
        "decided": decided,
        "total": len(rows),
        "left": len(rows) - decided,
        "by_reason": [
            {"reason": k, "decided": v[0], "total": v[1]} for k, v in sorted(by_reason.items())
        ],
    }


def diff_segments(before: str, after: str) -> list[tuple[str, str]]:
    """A word-level in-line diff: ``(kind, text)`` with kind ``same``, ``del`` or ``ins``.

    >>> diff_segments("P(a) ∧ Q(b)", "P(a) ∨ Q(b)")
    [('same', 'P(a) '), ('del', '∧'), ('ins', '∨'), ('same', ' Q(b)')]
    """
    a, b = _TOKEN.findall(before), _TOKEN.findall(after)
    out: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(("same", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("del", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(("ins", "".join(b[j1:j2])))
    return out


def _prover_labels(cell: str) -> list[tuple[str, str]]:
    pairs = [p.split("=", 1) for p in cell.split(";") if "=" in p]
    return [(name.strip(), label.strip()) for name, label in pairs]


def item_view(
    row: QueueRow,
    listed: Sequence[QueueRow],
    filters: Filters,
    conflicts: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Everything the page shows about `row`, one of the filtered rows `listed`.

    The FOL boxes hold the draft (`Draft.start`: the reviewer's own FOL, else the original,
    never the proposal, which the tool could not confirm); beside each premise the proposal
    shows as an in-line diff against the original, and ``proposed_fol`` is what the page's
    "edit from the proposal" puts into the boxes. ``seen`` is the row's `decision_version`, which the page sends back with a
    decision so that a concurrent one is caught.
    """
    ids = [r.id for r in listed]
    at = ids.index(row.id)
    draft = Draft.start(row)
    original = fol_lines(row.original_fol)
    proposed = fol_lines(row.proposed_fol) if row.proposed_fol.strip() else []
    nl = row.nl_premises.split("\n") if row.nl_premises else []
    formulas = []
    for i, text in enumerate(draft.fol):
        before = original[i] if i < len(original) else ""
        after = proposed[i] if i < len(proposed) else before
        is_conclusion = i == len(draft.fol) - 1
        formulas.append(
            {
                "index": i,
                # the address the evidence and the critique use: premises[0] is the first
                "name": "conclusion" if is_conclusion else f"premises[{i}]",
                "nl": visible(row.conclusion if is_conclusion else (nl[i] if i < len(nl) else "")),
                "original": before,
                "draft": text,
                "proposal": diff_segments(before, after) if after != before else [],
            }
        )
    # sentences without a formula: shown, not editable
    extra_nl = [visible(s) for s in nl[len(draft.fol) - 1 :]]
    following = [r.id for r in listed[at + 1 :] if not is_decided(r)]
    story = (row.dataset, row.split, row.story_id)
    siblings = [
        r.id
        for r in listed
        if r.id != row.id and (r.dataset, r.split, r.story_id) == story and not is_decided(r)
    ]
    return {
        "id": row.id,
        "dataset": row.dataset,
        "split": row.split,
        "story_id": row.story_id,
        "story_open": siblings,  # the story's other open items: a premise fix may go to them
        "reasons": reasons_of(row),
        "cause": row.cause,
        "cause_evidence": visible(row.cause_evidence),
        "position": at + 1,
        "count": len(ids),
        "prev_url": filters.url(ids[at - 1]) if at > 0 else "",
        "next_url": filters.url(ids[at + 1]) if at + 1 < len(ids) else "",
        "next_open_url": filters.url(following[0]) if following else filters.url(),
        "formulas": formulas,
        "extra_nl": extra_nl,
        "gold": row.gold_label,
        "suggested": row.suggested_label,
        "prover_labels": _prover_labels(row.prover_labels),
        "critique": [visible(c.strip()) for c in _FINDING.split(row.critique) if c.strip()],
        "evidence": [visible(line) for line in row.evidence.split("\n") if line.strip()],
        "evidence_models": evidence_models(
            [line for line in row.evidence.split("\n") if line.strip()]
        ),
        "optional": {k: cell for k, cell in row.cells(OPTIONAL_FIELDS).items() if cell.strip()},
        "background": [f for f in fol_lines(row.background_fol) if f.strip()],
        "proposed_fol": proposed if len(proposed) == len(draft.fol) else [],
        "has_proposal": any(
            cell.strip() for cell in (row.proposed_fol, row.suggested_label, row.background_fol)
        ),
        "decision": {
            k: visible(v)
            for k, v in row.cells(
                ("decision", "final_label", "reviewer", "decided_at", "note")
            ).items()
        },
        "flags": sorted(flag_set(row.flag)),
        "conflict": MERGE_CONFLICT in flag_set(row.flag),
        "conflicts": [dict(c) for c in conflicts],
        "draft_label": draft.label,
        "note": draft.note,
        "seen": decision_version(row),
    }


def history_view(entries: Sequence[tuple[str, QueueRow]]) -> list[dict[str, str]]:
    """An item's journaled decisions, newest first, as the page lists them."""
    return [
        {
            "at": visible(row.decided_at.strip() or at),
            "decision": visible(row.decision.strip() or "(undecided)"),
            "label": visible(row.final_label),
            "reviewer": visible(row.reviewer),
            "note": visible(row.note),
        }
        for at, row in reversed(entries)
    ]


def page_view(
    rows: Sequence[QueueRow],
    filters: Filters,
    item_id: str = "",
    conflicts: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The whole page: filters, progress, guidelines, and the item (`item_id`, else the first
    open item under the filters, else the first one); ``item`` is None when nothing matches."""
    listed = [r for r in rows if filters.matches(r)]
    row = next((r for r in listed if r.id == item_id), None)
    if row is None:
        row = next((r for r in listed if not is_decided(r)), listed[0] if listed else None)
    item_conflicts = [c for c in conflicts if row is not None and c.get("id") == row.id]
    reviewers = sorted({r.reviewer.strip() for r in rows if is_decided(r)} - {""})
    return {
        "filters": {"reason": filters.reason, "reviewer": filters.reviewer, "q": filters.text},
        "reasons": sorted({c for r in rows for c in reasons_of(r)}),
        "reviewers": [OPEN, *reviewers],
        "progress": progress(rows),
        "shown": len(listed),
        "guidelines": GUIDELINES,
        "item": None if row is None else item_view(row, listed, filters, item_conflicts),
    }
