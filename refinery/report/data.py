"""What a run report says, as typed records: counts, tables, items, edits, history, validations.

`summarise` turns a run's outcomes (and its edit rows, validations, metadata, review decisions
and earlier runs) into one `ReportData`; the templates in `refinery/report/templates/` only
lay it out. Every list is sorted here (ids in natural order: "…/2" before "…/10"), so the same
run always gives the same report. Each item gets one anchor (`item-<slug>`), unique within the
report, and every record that names an item carries it, so a table row can link to the item.
Charts count items, never diagnoses: an item diagnosed twice with one class counts once.
A run of more than `FULL_REPORT_ITEMS` items gets a sampled report (`refinery.report.sample`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from refinery.addresses import premise
from refinery.labels import GOLD_LABELS, Label
from refinery.outcomes import Outcome, Status
from refinery.report.diff import Segment, changes, inline_diff, unified_diff
from refinery.report.sample import FULL_REPORT_ITEMS, Sampled, changes_label, sample, sampled

#: Outcome statuses, in report order.
STATUSES: tuple[str, ...] = tuple(s.value for s in Status)
#: Shown for an empty label or reason.
NONE = "(none)"
_META_FIRST = ("run_id", "source", "agents", "rounds", "time")
_LABEL_ORDER = [label.value for label in Label]
# one diagnosis per "; "-joined part of a critique starts with where it points
_CRITIQUE_SPLIT = re.compile(r"; (?=(?:premises\[\d+\]|premises|conclusion|label): )")


def natural_key(text: str) -> tuple[tuple[int, str], ...]:
    """Sort key: digit runs compare as numbers.

    >>> sorted(["f/10", "f/2", "premises[10]", "premises[2]"], key=natural_key)
    ['f/2', 'f/10', 'premises[2]', 'premises[10]']
    """
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"(\d+)", text))


def slug(item_id: str) -> str:
    """The anchor of an item, before de-duplication: lower case, other characters as "-".

    >>> slug("folio-v2/validation/12")
    'item-folio-v2-validation-12'
    """
    return "item-" + (re.sub(r"[^a-z0-9]+", "-", item_id.lower()).strip("-") or "x")


def anchors(item_ids: Iterable[str]) -> dict[str, str]:
    """One unique anchor per id; ids whose slugs clash get "-2", "-3" in natural id order.

    >>> anchors(["a/b", "a-b", "c"])
    {'a-b': 'item-a-b', 'a/b': 'item-a-b-2', 'c': 'item-c'}
    """
    out: dict[str, str] = {}
    taken: set[str] = set()
    for item_id in sorted(set(item_ids), key=natural_key):
        base = candidate = slug(item_id)
        n = 1
        while candidate in taken:
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate)
        out[item_id] = candidate
    return out


def _s(value: object) -> str:
    return "" if value is None else str(value)


def _ordered(found: Iterable[str], first: Sequence[str]) -> list[str]:
    """`first` in its order, then the other values found, sorted."""
    found = set(found)
    return list(first) + sorted(found - set(first))


@dataclass(frozen=True, slots=True)
class Formula:
    """One formula of an item: its sentence, its original FOL, and what replaced or may replace it.

    `refined` is the change from the original to the FOL the refined split holds (None when
    unchanged); `proposed` the change from that to a proposal left for review (None when none).
    """

    where: str
    nl: str
    original: str
    refined: tuple[Segment, ...] | None
    proposed: tuple[Segment, ...] | None

    @property
    def current(self) -> str:
        """The FOL the refined split holds."""
        return self.original if self.refined is None else _new_text(self.refined)

    @property
    def proposal(self) -> str:
        """The proposed FOL ("" when there is none)."""
        return "" if self.proposed is None else _new_text(self.proposed)


def _new_text(segments: tuple[Segment, ...]) -> str:
    return "".join(s.text for s in segments if s.kind != "del")


@dataclass(frozen=True, slots=True)
class ItemView:
    """One item as the report shows it; `anchor` is its unique `id` attribute in the report."""

    id: str
    anchor: str
    status: str
    reason: str
    cause: str  # what blocks the item in review, and why ("" when nothing is open)
    cause_evidence: str
    #: background facts: those a reviewer accepted (`background_accepted`), else those proposed
    background: tuple[str, ...]
    background_accepted: bool
    queued: bool
    gold: str
    prover_label: str
    prover_labels: tuple[tuple[str, str], ...]
    suggested: str
    label_score: float
    repaired_by: str
    error_classes: tuple[str, ...]
    critique: tuple[str, ...]
    findings: tuple[str, ...]
    evidence: tuple[str, ...]
    formulas: tuple[Formula, ...]
    applied_edits: int
    proposed_edits: int
    review: tuple[tuple[str, str], ...]  # (field, value) of a review decision, when one was made

    @property
    def score(self) -> str:
        """The label score as shown (two decimals)."""
        return f"{self.label_score:.2f}"

    @property
    def conclusion(self) -> Formula | None:
        return next((f for f in self.formulas if f.where == "conclusion"), None)


@dataclass(frozen=True, slots=True)
class EditView:
    """One FOL edit: applied (`accepted`) or only proposed for an item still in review."""

    id: str
    anchor: str  # "" when the edit names no item of this report
    where: str
    nl: str
    source: str
    error_class: str
    accepted: bool
    before: str
    after: str
    segments: tuple[Segment, ...]
    changes: tuple[tuple[str, str], ...]
    unified: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LabelChange:
    """A suggested label change with why it is suggested and the evidence for it."""

    item: ItemView
    why: str
    evidence: str


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """One decision of a review round."""

    id: str
    anchor: str
    decision: str
    reviewer: str
    label: str
    fol_lines_changed: str
    note: str


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """Items per status in one run of the split; `current` marks the run this report is for."""

    run_id: str
    counts: tuple[int, ...]  # in `STATUSES` order
    current: bool

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True, slots=True)
class Validation:
    """One data-validation suite: passed or not, its statistics, its failed expectations."""

    name: str
    success: bool
    statistics: tuple[tuple[str, str], ...]
    failed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReportData:
    """Everything one run report shows, sorted."""

    title: str
    meta: tuple[tuple[str, str], ...]
    status_counts: tuple[tuple[str, int], ...]
    total: int
    reason_counts: tuple[tuple[str, str, int], ...]  # (status, reason, items)
    repaired_by: tuple[tuple[str, int], ...]
    gold_axis: tuple[str, ...]
    prover_axis: tuple[str, ...]
    confusion: tuple[tuple[int, ...], ...]  # [gold][prover]
    error_classes: tuple[tuple[str, int], ...]  # (class, items)
    items: tuple[ItemView, ...]
    queue: tuple[ItemView, ...]  # every item that goes to the review queue
    applied: tuple[EditView, ...]
    proposed: tuple[EditView, ...]
    label_changes: tuple[LabelChange, ...]
    review: tuple[ReviewRow, ...]
    history: tuple[HistoryRow, ...]
    validations: tuple[Validation, ...]
    sampled: Sampled | None = None  # None: every item is shown

    @property
    def confusion_rows(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """(gold label, items per agreed prover label) per row of the confusion matrix."""
        return tuple(zip(self.gold_axis, self.confusion, strict=True))

    @property
    def statuses(self) -> tuple[str, ...]:
        """The statuses a history row counts, in order."""
        return STATUSES


def summarise(
    outcomes: Sequence[Outcome],
    edits: Sequence[Mapping[str, object]],
    *,
    error_classes: Sequence[str],
    validations: Mapping[str, Mapping[str, object]],
    meta: Mapping[str, object],
    review: Sequence[Mapping[str, object]] = (),
    history: Sequence[Mapping[str, object]] = (),
) -> ReportData:
    """Everything the report shows, from the run's outcomes and edit rows.

    Parameters
    ----------
    outcomes, edits, validations, meta, review, history
        As `refinery.report.write_report` takes them.
    error_classes
        The error-class taxonomy in its order: each gets a row, with 0 items when none has it.
    """
    every = sorted(outcomes, key=lambda o: natural_key(o.id))
    shown = sample(every) if len(every) > FULL_REPORT_ITEMS else None
    ordered = every if shown is None else [o for o in every if o.id in shown]
    links = anchors(o.id for o in ordered)
    edit_views = sorted(
        (_edit(e, links) for e in edits if shown is None or _s(e.get("id")) in shown),
        key=lambda e: (
            natural_key(e.id),
            natural_key(e.where),
            e.source,
            e.before,
            e.after,
        ),
    )
    items = tuple(_item(o, links[o.id]) for o in ordered)
    gold_axis, prover_axis, confusion = _confusion(outcomes)
    statuses = Counter(o.status.value for o in outcomes)
    return ReportData(
        title=f"FOL Refinery report: {_s(meta.get('run_id', ''))}",
        meta=_meta_rows(meta),
        status_counts=tuple((s, statuses.get(s, 0)) for s in _ordered(statuses, STATUSES)),
        total=len(outcomes),
        reason_counts=_reason_counts(outcomes),
        repaired_by=_repaired_by(outcomes),
        gold_axis=gold_axis,
        prover_axis=prover_axis,
        confusion=confusion,
        error_classes=_class_items(outcomes, error_classes),
        items=items,
        queue=tuple(i for i in items if i.queued),
        applied=tuple(e for e in edit_views if e.accepted),
        proposed=tuple(e for e in edit_views if not e.accepted),
        label_changes=tuple(
            LabelChange(item=i, why=_why(o), evidence="; ".join(i.evidence) or NONE)
            for o, i in zip(ordered, items, strict=True)
            if changes_label(o)
        ),
        review=_review_rows(review, links),
        history=_history(history, outcomes, _s(meta.get("run_id", ""))),
        validations=_validations(validations),
        sampled=None if shown is None else sampled(every, edits),
    )


def _reason_counts(outcomes: Sequence[Outcome]) -> tuple[tuple[str, str, int], ...]:
    order = _ordered({o.status.value for o in outcomes}, STATUSES)
    reasons: Counter[tuple[str, str]] = Counter()
    for o in outcomes:
        status = o.status.value
        # Several reason codes may be joined by ";" or ","; each counts once for the item.
        codes = {c.strip() for c in re.split(r"[;,]", o.reason.value) if c.strip()}
        if status != "verified" or codes:
            reasons.update((status, code) for code in codes or {NONE})
    return tuple(
        sorted(
            ((s, r, n) for (s, r), n in reasons.items()),
            key=lambda t: (order.index(t[0]), -t[2], t[1]),
        )
    )


def _repaired_by(outcomes: Sequence[Outcome]) -> tuple[tuple[str, int], ...]:
    found = Counter(o.repaired_by or NONE for o in outcomes if o.status is Status.REPAIRED)
    return tuple(sorted(found.items(), key=lambda t: (-t[1], t[0])))


def _confusion(
    outcomes: Sequence[Outcome],
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """The gold axis, the agreed-prover axis, and items per (gold, prover) pair."""
    pairs = Counter((o.gold_label or NONE, o.prover_label or NONE) for o in outcomes)
    gold_axis = _ordered((g for g, _ in pairs), [lab.value for lab in GOLD_LABELS])
    prover_seen = {p for _, p in pairs}
    prover_axis = [lab for lab in _LABEL_ORDER if lab in prover_seen or lab in GOLD_LABELS]
    prover_axis += sorted(prover_seen - set(prover_axis) - {NONE}) + (
        [NONE] if NONE in prover_seen else []
    )
    if NONE in gold_axis:  # keep "(none)" last on both axes
        gold_axis = [g for g in gold_axis if g != NONE] + [NONE]
    confusion = tuple(tuple(pairs.get((g, p), 0) for p in prover_axis) for g in gold_axis)
    return tuple(gold_axis), tuple(prover_axis), confusion


def _class_items(
    outcomes: Sequence[Outcome], taxonomy: Sequence[str]
) -> tuple[tuple[str, int], ...]:
    # a set per item: two diagnoses of one class on one item are one item with that class
    items = Counter(c for o in outcomes for c in set(o.error_classes))
    return tuple((c, items.get(c, 0)) for c in _ordered(items, taxonomy))


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line for line in text.split("\n") if line.strip())


def _change(before: str, after: str | None) -> tuple[Segment, ...] | None:
    return None if after is None or after == before else inline_diff(before, after)


def _at(values: Sequence[str] | None, i: int) -> str | None:
    return values[i] if values is not None and i < len(values) else None


def _formulas(o: Outcome) -> tuple[Formula, ...]:
    proposed = o.proposed_premises_fol
    count = max(
        len(o.premises),
        len(o.original_premises_fol),
        len(o.refined_premises_fol),
        len(proposed or ()),
    )
    rows = []
    for i in range(count):
        original = _at(o.original_premises_fol, i) or ""
        refined = _at(o.refined_premises_fol, i)
        current = original if refined is None else refined
        rows.append(
            Formula(
                where=premise(i),
                nl=_at(o.premises, i) or "",
                original=original,
                refined=_change(original, refined),
                proposed=_change(current, _at(proposed, i)),
            )
        )
    refined_c = o.refined_conclusion_fol or o.original_conclusion_fol
    rows.append(
        Formula(
            where="conclusion",
            nl=o.conclusion,
            original=o.original_conclusion_fol,
            refined=_change(o.original_conclusion_fol, refined_c),
            proposed=_change(refined_c, o.proposed_conclusion_fol),
        )
    )
    return tuple(rows)


def _item(o: Outcome, anchor: str) -> ItemView:
    review = (
        ("decision", o.review_decision),
        ("reviewer", o.reviewer),
        ("reviewed at", o.reviewed_at),
        ("note", o.review_note),
    )
    return ItemView(
        id=o.id,
        anchor=anchor,
        status=o.status.value,
        reason=o.reason.value or NONE,
        cause=o.cause.value,
        cause_evidence=o.cause_evidence,
        background=o.refined_background_fol or o.background_fol,
        background_accepted=bool(o.refined_background_fol),
        queued=o.queued,
        gold=o.gold_label or NONE,
        prover_label=o.prover_label or NONE,
        prover_labels=tuple(sorted((str(k), str(v)) for k, v in o.prover_labels.items())),
        suggested=o.suggested_label or NONE,
        label_score=o.label_score,
        repaired_by=o.repaired_by,
        error_classes=tuple(sorted(set(o.error_classes))),
        critique=tuple(p for p in _CRITIQUE_SPLIT.split(o.critique) if p.strip()),
        findings=tuple(o.findings),
        evidence=_lines(o.evidence),
        formulas=_formulas(o),
        applied_edits=len(o.edits),
        proposed_edits=len(o.proposed_edits),
        review=tuple((k, v) for k, v in review if v),
    )


def _edit(e: Mapping[str, object], links: Mapping[str, str]) -> EditView:
    before, after, where = _s(e.get("before")), _s(e.get("after")), _s(e.get("where"))
    segments = inline_diff(before, after)
    item_id = _s(e.get("id"))
    return EditView(
        id=item_id,
        anchor=links.get(item_id, ""),
        where=where,
        nl=_s(e.get("nl")),
        source=_s(e.get("source")),
        error_class=_s(e.get("error_class")),
        # rows without the flag come from callers that pass applied edits only
        accepted=bool(e.get("accepted", True)),
        before=before,
        after=after,
        segments=segments,
        changes=tuple(changes(segments)),
        unified=tuple(unified_diff(before, after, where)),
    )


def _why(o: Outcome) -> str:
    agreed = o.prover_label
    parts = [f"provers agree on {agreed}" if agreed else "no prover agreement"]
    if o.reason:
        parts.append(f"reason: {o.reason.value}")
    classes = o.error_classes
    if classes:
        parts.append("diagnosed: " + ", ".join(sorted(set(classes))))
    return "; ".join(parts)


def _value(value: object) -> str:
    if isinstance(value, Mapping):
        return ", ".join(
            f"{k}={_value(v)}" for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))
        )
    if isinstance(value, list | tuple | set | frozenset):
        items = [_value(v) for v in value]
        return ", ".join(sorted(items) if isinstance(value, set | frozenset) else items)
    return _s(value)


def _meta_rows(meta: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    keys = [k for k in _META_FIRST if k in meta] + sorted(set(meta) - set(_META_FIRST))
    return tuple((k, _value(meta[k])) for k in keys)


def _review_rows(
    review: Sequence[Mapping[str, object]], links: Mapping[str, str]
) -> tuple[ReviewRow, ...]:
    rows = []
    for r in sorted(review, key=lambda r: natural_key(_s(r.get("id")))):
        before, after = _s(r.get("label_before")), _s(r.get("label_after"))
        rows.append(
            ReviewRow(
                id=_s(r.get("id")),
                anchor=links.get(_s(r.get("id")), ""),
                decision=_s(r.get("decision")),
                reviewer=_s(r.get("reviewer")) or NONE,
                label=f"{before} → {after}" if before != after else f"{after} (kept)",
                fol_lines_changed=_s(r.get("fol_lines_changed")),
                note=_s(r.get("note")),
            )
        )
    return tuple(rows)


def _count(value: object) -> int:
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return 0


def _history(
    history: Sequence[Mapping[str, object]], outcomes: Sequence[Outcome], run_id: str
) -> tuple[HistoryRow, ...]:
    """The earlier runs in the order given, then this run (unless the caller listed it last)."""
    if not history:
        return ()
    rows = [
        HistoryRow(
            run_id=_s(h.get("run_id")),
            counts=tuple(_count(h.get(s)) for s in STATUSES),
            current=False,
        )
        for h in history
    ]
    found = Counter(o.status.value for o in outcomes)
    now = HistoryRow(run_id=run_id, counts=tuple(found[s] for s in STATUSES), current=True)
    if rows[-1].run_id == run_id:
        rows.pop()
    return (*rows, now)


def _failed_text(e: object) -> str:
    if not isinstance(e, Mapping):
        return _s(e)
    kind = _s(e.get("expectation_type") or e.get("type") or "expectation")
    kwargs = e.get("kwargs") or {}
    args = ""
    if isinstance(kwargs, Mapping):
        args = ", ".join(f"{k}={v!r}" for k, v in sorted(kwargs.items()) if k != "batch_id")
    text = f"{kind}({args})"
    result = e.get("result")
    if isinstance(result, Mapping) and "unexpected_count" in result:
        text += f": {result['unexpected_count']} unexpected"
        sample = result.get("partial_unexpected_list")
        if isinstance(sample, list) and sample:
            text += " (e.g. " + ", ".join(repr(x) for x in sample[:5]) + ")"
    return text


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []


def _validations(validations: Mapping[str, Mapping[str, object]]) -> tuple[Validation, ...]:
    out = []
    for name in sorted(validations):
        v = validations[name]
        stats = v.get("statistics") or {}
        failed = v.get("failed_expectations", v.get("failed"))
        if failed is None:  # a great-expectations `describe_dict()`: keep the failures
            failed = [
                e
                for e in _as_list(v.get("expectations"))
                if isinstance(e, Mapping) and not e.get("success")
            ]
        out.append(
            Validation(
                name=name,
                success=bool(v.get("success")),
                statistics=tuple(sorted((str(k), _value(x)) for k, x in stats.items()))
                if isinstance(stats, Mapping)
                else (),
                failed=tuple(_failed_text(e) for e in _as_list(failed)),
            )
        )
    return tuple(out)
