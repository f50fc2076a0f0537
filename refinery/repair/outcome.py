"""The outcome of one item's repair: what became of it, why, and what a reviewer is offered.

`build_outcome` turns the loop's end state into the item's `Outcome`: its status and reason,
the refined or proposed FOL and edits, the critique, the audit trail (every round and the
evidence of the final FOL), the alignment columns and the label columns. Labels never change: a
suggested label is a suggestion for review, made only where the FOL that decides the item reads
right (`refinery.agents.critique.label_score`). `cacheable` says whether another run would
reach the same outcome.
"""

from __future__ import annotations

import time
from typing import Any

from refinery.agents.alignment import Alignment
from refinery.agents.critique import label_score
from refinery.agents.models import LLM_SOURCE, Diagnosis, ItemContext
from refinery.check import CheckRow
from refinery.datasets.records import Item
from refinery.labels import Label
from refinery.outcomes import Category, Cause, Outcome, Reason, Status
from refinery.repair.abduce import Bridge
from refinery.repair.blame import Blame, blame
from refinery.repair.gate import Clock, State
from refinery.repair.retest import Retest


def _refuted(rounds: list[dict[str, Any]], gold: Label | None) -> dict[str, set[str]]:
    """The formulas the rules rewrote, re-checked, and never brought to the gold label, with the
    rules that tried."""
    tried: dict[str, set[str]] = {}
    reached: set[str] = set()
    for record in rounds:
        for c in record["candidates"]:
            if "label" not in c or str(c["source"]).startswith(LLM_SOURCE):
                continue  # not re-checked (stale, or read worse), or not the rules'
            for edit in c["edits"]:
                if gold is not None and c["label"] == gold.value:
                    reached.add(edit["where"])
                else:
                    tried.setdefault(edit["where"], set()).add(str(c["source"]))
    return {where: rules for where, rules in tried.items() if where not in reached}


def _background(bridge: Bridge) -> dict[str, Any]:
    """The audit's record of a background search: the axioms it found (none: []) and its cost."""
    return {
        "axioms": [{"fol": c.text, "support": c.support} for c in bridge.axioms],
        "prover_calls": bridge.calls,
        "proof": bridge.proof,
    }


def cacheable(outcome: dict[str, Any]) -> bool:
    """Whether another run would reach this outcome (`Outcome.to_dict` form) again: not when
    its time budget stopped it, nor when an LLM call got no reply (a down endpoint, a timeout,
    an open circuit breaker); the next run tries those items afresh."""
    if outcome["reason"] == Reason.REPAIR_BUDGET.value:
        return False
    calls = (c for r in outcome["audit"].get("rounds", ()) for c in r.get("llm_calls", ()))
    return not any(c.get("error") and not c.get("raw") for c in calls)


def build_outcome(
    item: Item,
    row: CheckRow,
    final: State,
    accepted: bool,
    rounds: list[dict[str, Any]],
    diagnoses: list[Diagnosis],
    clock: Clock,
    reading: ItemContext,
    alignment: Alignment,
    retest: Retest | None = None,
) -> Outcome:
    """The item's record. `reading` is the final FOL's findings (the label score reads them);
    `alignment`, those of the FOL the item keeps; `retest` re-proves a mended FOL for the
    cause (`refinery.repair.blame`)."""
    category = row.category
    spent = time.perf_counter() - clock.started
    budget = {"seconds": clock.seconds, "spent": round(spent, 2), "stopped": clock.stopped}
    quality = label_score(reading, _refuted(rounds, item.label))
    if category is Category.VERIFIED:
        status, reason = Status.VERIFIED, Reason.NONE
    elif accepted:
        status, reason = Status.REPAIRED, Reason.NONE
    elif clock.stopped:
        status, reason = Status.NEEDS_REVIEW, Reason.REPAIR_BUDGET
    elif rounds and rounds[-1].get("unconfirmed"):
        status, reason = Status.NEEDS_REVIEW, Reason.UNCONFIRMED_REPAIR
    else:
        status, reason = Status.NEEDS_REVIEW, final.row.category.reason
    if status is not Status.NEEDS_REVIEW and alignment.is_issue:
        reason = Reason.NL_MISMATCH  # settled by the provers, but it does not read right
    suggested = ""
    label_diag = next((d for d in diagnoses if d.suggested_label is not None), None)
    review = status is Status.NEEDS_REVIEW
    # the loop's edits, by (where, error class): applied when accepted, else only proposed
    made = [(e.where, e.error_class.value) for e in final.edits]
    blamed = (
        blame(
            reason,
            reading,
            proposals=() if accepted else made,
            lint_kinds=[i.kind for i in reading.issues if i.severity == "error"],
            retest=retest,
            repaired=made if accepted else (),
        )
        if review or reason is Reason.NL_MISMATCH
        else Blame(Cause.NONE, "")
    )
    if review and final.row.category is Category.LABEL_MISMATCH:
        # only a proof from FOL that reads right is evidence against the label
        suggested = final.row.label if blamed.clean else ""
    elif review and final.row.category is Category.LABEL_ERROR_CANDIDATE:
        suggested = final.row.label_dataset or ""  # the dataset's own semantics' label
        blamed = Blame(Cause.LABEL, "the dataset's own reasoning derives another label")
    elif review and final.row.category is Category.SEMANTICS_MISMATCH:
        blamed = Blame(Cause.AMBIGUOUS, "classical logic decides what the dataset leaves open")
    elif (
        review
        and reason is not Reason.UNCONFIRMED_REPAIR  # a proposal reaches the gold label
        and label_diag is not None
        and label_diag.suggested_label is not None
    ):
        suggested = label_diag.suggested_label.value
    label_issue = bool(suggested) and final.row.category is Category.LABEL_MISMATCH
    # accepted edits refine the item; rejected-but-progressing ones are only a proposal for review
    refined = final.item if accepted else item
    proposal = bool(final.edits) and not accepted
    edits = tuple(e.model_dump(mode="json") for e in final.edits)
    sources = list(dict.fromkeys(e.source for e in final.edits))
    classes = sorted(
        {d.error_class.value for d in diagnoses} | {e.error_class.value for e in final.edits}
    )
    # the model's diagnoses stay in the audit trail: only the rules' reach the queue
    critique = "; ".join(
        f"{d.where}: {d.error_class.value} ({d.confidence:.2f}) {d.explanation}"
        for d in [d for d in diagnoses if not d.source.startswith(LLM_SOURCE)][:5]
    )
    if reason is Reason.REPAIR_BUDGET:
        stop = (
            f"repair budget of {clock.seconds:g} s spent ({spent:.2f} s), stopped {clock.stopped}"
        )
        critique = "; ".join(filter(None, (stop, f"still {final.row.category.value}", critique)))
    gold = item.label.value if item.label else ""
    return Outcome(
        id=item.id,
        dataset=item.dataset,
        split=item.split,
        story_id=item.story_id,
        example_id=item.example_id,
        status=status,
        reason=reason,
        check_category=category.value,
        final_category=final.row.category.value,
        original_label=gold,
        gold_label=gold,
        label=gold,  # never changed automatically
        suggested_label=suggested,
        prover_label=final.row.label,
        prover_labels=final.row.prover_labels(),
        premises=item.premises,
        conclusion=item.conclusion,
        original_premises_fol=item.premises_fol,
        original_conclusion_fol=item.conclusion_fol or "",
        refined_premises_fol=refined.premises_fol,
        refined_conclusion_fol=refined.conclusion_fol or "",
        proposed_premises_fol=final.item.premises_fol if proposal else None,
        proposed_conclusion_fol=(final.item.conclusion_fol or "") if proposal else None,
        edits=edits if accepted else (),
        proposed_edits=edits if proposal else (),
        repaired_by="+".join(sources) if accepted else "",
        error_classes=tuple(classes),
        critique=critique,
        rounds=len(rounds),
        audit={
            "check": {
                "category": category.value,
                "label": row.label,
                "issues": row.issues,
                "notation": row.notation,
            },
            "rounds": rounds,
            **({"budget": budget} if reason is Reason.REPAIR_BUDGET else {}),
            # why the final FOL gets its label: every core and countermodel, per prover
            "evidence": dict(final.row.evidence_detail),
            **({"background": _background(blamed.background)} if blamed.background else {}),
        },
        content_hash=item.content_hash,
        notation=row.notation,
        evidence=final.row.evidence,
        findings=tuple(f.render() for f in alignment.findings),
        nl_mismatch_score=round(alignment.score, 2),
        is_nl_mismatch_issue=alignment.is_issue,
        label_score=round(quality, 2),
        is_label_issue=label_issue,
        cause=blamed.cause,
        cause_evidence=blamed.evidence,
        background_fol=blamed.background.texts if blamed.background else (),
        seconds=round(spent, 4),
    )
