"""The repair loop: bounded critique → refine → re-check per item, its gate, one outcome per item.

For an item whose check found a conflict (unparseable FOL, a lint error, inconsistent premises or
a label the provers do not reproduce), each round: the critique diagnoses, the refiner proposes
candidate edits (rules first; the LLM only when no rule candidate passed), and every candidate is
re-checked by the same `Checker` — parse, lint, both provers. A candidate is accepted only when
the item becomes `verified`: it parses, lints clean, the premises are consistent, both provers
agree, the agreed label equals the gold label, and every edited formula is one line (the refined
split stores one formula per line). Labels never change: an item whose well-formed FOL keeps
proving another label goes to review with a suggested label.

A candidate must also read at least as well as the formula it replaces (`refinery.agents
.alignment`): an edit that makes the provers reproduce the gold label by making a formula say
something its sentence does not is not a repair. An edit of a meaning-level rule (a negation, a
quantifier, a connective …) must read strictly better.

A rejected candidate that still makes progress (e.g. it parses now) becomes the base of the next
round, so a formula with two errors can be repaired in two steps. Every round's diagnoses,
candidates and verdicts are kept as the item's audit trail.

The loop looks at the item's clock (`RepairConfig.item_seconds`) before each round, re-check and
LLM call; once it is spent the item keeps its best state and goes to review (`repair_budget`),
its audit and critique saying where it stopped. A step under way is not cut short.

"Refine" is the whole run (`refinery.pipeline`); this module is its per-item step.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from refinery.agents.alignment import BLAME, Alignment
from refinery.agents.critique import findings_for, label_score, rule_critique
from refinery.agents.endpoint import LLMEndpoint
from refinery.agents.models import LLM_SOURCE, Diagnosis, Edit, Findings
from refinery.agents.repairs import apply_candidate, propose_repairs
from refinery.agents.settle import (
    AMBIGUOUS,
    MISREADS,
    PASSES,
    of_meaning,
    read_edits,
    unsettled,
)
from refinery.check import (
    Checker,
)
from refinery.config import DEFAULT_REPAIR_SECONDS
from refinery.datasets.records import Item
from refinery.errors import ConfigError
from refinery.labels import Label
from refinery.logic.parse import parses
from refinery.logic.syntax import Not
from refinery.outcomes import Outcome, Reason, Status

#: How far a check category is from `verified`: a candidate that climbs is progress.
_RANK = {
    "parse_error": 0,
    "lint_error": 1,
    "inconsistent": 2,
    "undecided": 2,
    "prover_disagreement": 2,
    "label_mismatch": 3,
    "verified": 4,
}
#: Categories the loop does not try to repair: the FOL is not what is in doubt.
_NOT_REPAIRABLE = {
    "undecided",
    "prover_disagreement",
    # datasets with their own semantics (ProofWriter): the FOL is generated, the label is in doubt
    "semantics_mismatch",
    "label_error_candidate",
}


#: The agents a run may use: the rules always, the LLM on top of them.
AGENTS = ("rules", "llm")


def check_agents(agents: Sequence[str]) -> tuple[str, ...]:
    """`agents` when they are `rules` or `rules,llm`; otherwise `ConfigError`.

    >>> check_agents(["rules", "llm"])
    ('rules', 'llm')
    """
    if set(agents) - set(AGENTS) or "rules" not in agents:
        raise ConfigError(f"agents must be rules or rules,llm, got {','.join(agents)!r}")
    return tuple(agents)


def parse_agents(text: str) -> tuple[str, ...]:
    """The agents of a comma-separated option value (`--agents rules,llm`).

    >>> parse_agents(" rules, llm ")
    ('rules', 'llm')
    """
    return check_agents([a.strip() for a in text.split(",") if a.strip()])


@dataclass(frozen=True, slots=True)
class RepairConfig:
    """Which agents run and how long the loop may go."""

    agents: tuple[str, ...] = ("rules",)
    max_rounds: int = 3
    max_candidates: int = 12  # candidates re-checked per round
    #: rounds in which the LLM refiner is asked (its calls are the expensive part: the embedded
    #: 135M model takes seconds per call; raise this for a capable endpoint)
    llm_rounds: int = 1
    llm: LLMEndpoint | None = None
    #: wall-clock seconds the loop may spend on one item before it stops where it stands
    item_seconds: float = DEFAULT_REPAIR_SECONDS

    def __post_init__(self) -> None:
        check_agents(self.agents)
        if self.max_rounds < 1:
            raise ConfigError(f"max_rounds must be at least 1, got {self.max_rounds}")
        if not 0 < self.item_seconds < float("inf"):
            raise ConfigError(f"item_seconds must be a positive number, got {self.item_seconds!r}")


@dataclass
class _Clock:
    """An item's time budget, and where the loop stopped when it was spent ("": it was not)."""

    seconds: float
    started: float = field(default_factory=time.perf_counter)
    stopped: str = ""

    def spent(self, where: str) -> bool:
        """Whether the budget is spent; if so, the loop stops `where` (the first stop counts)."""
        over = time.perf_counter() - self.started >= self.seconds
        self.stopped = self.stopped or (where if over else "")
        return over


@dataclass
class _State:
    item: Item
    row: dict[str, Any]
    edits: list[Edit] = field(default_factory=list)  # edits applied to get here from the original


def repair_item(
    item: Item,
    row: dict[str, Any],
    *,
    checker: Checker,
    config: RepairConfig,
    story_fol: Sequence[str] = (),
    client: Any = None,
) -> Outcome:
    """Run the loop for one item within `config.item_seconds`; return its outcome."""
    clock = _Clock(config.item_seconds)
    rounds: list[dict[str, Any]] = []
    diagnoses_seen: list[Diagnosis] = []
    best = _State(item, row)
    first: Findings | None = None  # round 1's findings: the original FOL's
    accepted: _State | None = None
    unconfirmed = False
    category = row["category"]
    llm_on = "llm" in config.agents and client is not None
    if category != "verified" and category not in _NOT_REPAIRABLE:
        seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
        feedback: list[str] = []
        llm_diagnoses: list[Diagnosis] | None = None  # the LLM critique runs once per item
        llm_asked = 0
        for number in range(1, config.max_rounds + 1):
            if clock.spent(f"before round {number}"):
                break
            findings = findings_for(best.item, best.row, story_fol=story_fol, feedback=feedback)
            first = findings if first is None else first
            key = (tuple(findings.fol.values()), tuple(feedback))
            if key in seen:  # nothing changed since the last round: it would repeat itself
                break
            seen.add(key)
            use_llm = client if llm_on and llm_asked < config.llm_rounds else None
            record, accepted, progress = _round(
                number, findings, best, checker, config, use_llm, llm_diagnoses, clock
            )
            llm_asked += 1 if record["llm_calls"] else 0
            if "llm_diagnoses" in record:  # asked this round (even if it found nothing)
                llm_diagnoses = [Diagnosis.model_validate(d) for d in record["llm_diagnoses"]]
            rounds.append(record)
            diagnoses_seen += [Diagnosis.model_validate(d) for d in record["diagnoses"]]
            if accepted is not None:
                break
            if record.get("unconfirmed") or clock.stopped:  # a proposal, or out of time
                unconfirmed, best = bool(record.get("unconfirmed")), progress or best
                break
            # a model may revise given what the gate rejected; deterministic rules would not
            feedback += _rejections(record, llm_only=True)
            if progress is not None:
                best = progress
            elif not (llm_on and llm_asked < config.llm_rounds):
                break
    final = accepted or best
    if unconfirmed:
        rounds[-1]["unconfirmed"] = True
    # verified is not the end: the final FOL is read against its sentences either way (but a
    # proposal out of time); the findings shown are those of the FOL the item keeps (round 1's)
    reading = first
    if reading is None or final.edits and (accepted or not clock.spent("before the last read")):
        reading = findings_for(final.item, final.row, story_fol=story_fol)
    kept = first if first is not None and accepted is None and final.edits else reading
    return _outcome(
        item,
        row,
        final,
        accepted is not None,
        rounds,
        diagnoses_seen,
        clock,
        reading,
        Alignment(kept.alignment),
    )


def _round(
    number: int,
    findings: Findings,
    base: _State,
    checker: Checker,
    config: RepairConfig,
    client: Any,
    llm_diagnoses: list[Diagnosis] | None,
    clock: _Clock,
) -> tuple[dict[str, Any], _State | None, _State | None]:
    proposals = propose_repairs(findings)
    drift = sorted({e.where for rule, cand in proposals if rule == "unify_names" for e in cand})
    diagnoses = rule_critique(findings, drift_positions=drift)
    record: dict[str, Any] = {"round": number, "diagnoses": [], "candidates": [], "llm_calls": []}
    cap = config.max_candidates
    accepted, progress = _try(proposals[:cap], base, checker, record, findings, clock)
    if accepted is None and client is not None and not clock.spent(f"in round {number} (LLM)"):
        from refinery.agents.llm_agents import llm_critique, llm_refine

        if llm_diagnoses is None:
            llm_diagnoses, call = llm_critique(findings, client)
            record["llm_calls"].append(dataclasses.asdict(call))
            record["llm_diagnoses"] = [d.model_dump(mode="json") for d in llm_diagnoses]
        diagnoses += llm_diagnoses
        edits, call = llm_refine(findings, diagnoses, client)
        record["llm_calls"].append(dataclasses.asdict(call))
        llm_candidates: list[tuple[str, tuple[Edit, ...]]] = []
        if edits:
            llm_candidates.append((client.name, tuple(edits)))
            if len(edits) > 1:
                llm_candidates += [(client.name, (e,)) for e in edits]
        llm_accepted, llm_progress = _try(
            llm_candidates[:cap], base, checker, record, findings, clock
        )
        accepted = llm_accepted
        progress = progress if _better(progress, llm_progress) else llm_progress
    record["diagnoses"] = [d.model_dump(mode="json") for d in diagnoses]
    return record, accepted, progress


def _rejections(record: dict[str, Any], *, llm_only: bool) -> list[str]:
    """One line per rejected candidate of a round: what it changed and what the re-check said."""
    out = []
    for c in record["candidates"]:
        if c.get("accepted") or (llm_only and not str(c["source"]).startswith(LLM_SOURCE)):
            continue
        change = "; ".join(f"{e['where']} → {e['after']}" for e in c["edits"])
        result = c.get("why", "rejected")
        if c.get("label"):
            result += f" (provers derive {c['label']})"
        out.append(f"{change}: {result}")
    return out


def _better(a: _State | None, b: _State | None) -> bool:
    """Whether `a` is at least as far along as `b` (earlier candidates win ties)."""
    if b is None:
        return True
    if a is None:
        return False
    return _RANK.get(a.row["category"], 0) >= _RANK.get(b.row["category"], 0)


def _try(
    candidates: Iterable[tuple[str, tuple[Edit, ...]]],
    base: _State,
    checker: Checker,
    record: dict[str, Any],
    findings: Findings,
    clock: _Clock,
) -> tuple[_State | None, _State | None]:
    """Re-check candidates in order, while `clock` lasts; return (accepted, best progress).

    A form rule's candidate that passes the gate and settles the item (`refinery.agents.settle.unsettled`) is accepted
    at once. Among the meaning-level candidates that pass, those whose formulas still misread
    their sentences only stand in when nothing better passes; of the rest, the first is accepted
    when it settles the item and no other edit of different meaning passes too (for an edit of
    the conclusion, which decides the label, no other edit of different meaning at all). Otherwise the
    first is returned as progress, and the record says `unconfirmed`. Out of time, a candidate
    that passed is only progress (unchecked rivals might pass too).
    """
    fol = _fol(base.item)
    base_rank = _RANK.get(base.row["category"], 0)
    progress: _State | None = None
    passed: list[_Passed] = []
    for source, candidate in candidates:
        entry: dict[str, Any] = {
            "source": source,
            "edits": [e.model_dump(mode="json") for e in candidate],
        }
        done = len(record["candidates"])
        if clock.spent(f"in round {record['round']} after {done} candidate{'s' * (done != 1)}"):
            break
        record["candidates"].append(entry)
        try:
            new_fol = apply_candidate(fol, candidate)
        except ValueError as err:  # an edit whose `before` no longer matches: stale proposal
            entry.update(accepted=False, why=f"not applicable: {err}")
            continue
        broken = _multi_line(candidate)
        if broken:  # the split stores one formula per line: a line break would add a premise
            entry.update(accepted=False, why=f"not one line: {broken} holds a line break")
            continue
        worse, before, after = read_edits(source, candidate, findings)
        if worse:
            entry.update(accepted=False, why=worse)
            continue
        new_item = _with_fol(base.item, new_fol)
        (row,) = checker.check_story([new_item])
        entry.update(
            category=row["category"],
            label=row["label"],
            labels={k: v for k, v in row.items() if k.startswith("label_")},
            issues=row["issues"],
        )
        state = _State(new_item, row, [*base.edits, *candidate])
        if row["category"] == "verified":
            why = unsettled(source, candidate, before, after)
            entry.update(accepted=False, why=why or PASSES)
            if why is None and not of_meaning(source) and not passed:
                entry.update(accepted=True)
                return state, progress
            reads = (why == MISREADS, any(e.guess and _negates_all(e) for e in candidate))
            passed.append(_Passed(state, entry, why, source, reads))
            continue
        entry.update(accepted=False, why=f"re-check: {row['category']}")
        rank = _RANK.get(row["category"], 0)
        if rank > base_rank and (progress is None or rank > _RANK.get(progress.row["category"], 0)):
            progress = state
    if not passed:
        return None, progress
    if clock.stopped:
        return None, passed[0].state
    # a form rule's first passing candidate decides alone, as the rules run in order; among
    # meaning-level ones, an edit after which the formula still misreads its sentence, or a
    # ¬ put around a whole formula because the rule could not tell where it belongs, is no
    # rival to a better reading
    best = min(p.rank for p in passed) if of_meaning(passed[0].source) else passed[0].rank
    tied = [
        p for p in passed if p.rank == best and of_meaning(p.source) == of_meaning(passed[0].source)
    ]
    first = tied[0]
    for other in passed:
        if other is not first:
            other.entry.update(why="also passes")
    # an edit of the conclusion decides the label itself: any other passing meaning, however
    # it reads, is a rival (`¬Filmmaker(x)` inside ∃ beside a guessed ¬ around the whole ∃)
    pool = passed if any(e["where"] == "conclusion" for e in first.entry["edits"]) else tied
    rivals = [
        p
        for p in pool
        if p is not first and of_meaning(p.source) and _fol(p.state.item) != _fol(first.state.item)
    ]
    if rivals and of_meaning(first.source):
        # two different meanings both prove the gold label: the sentence must decide
        for p in (first, *rivals):
            p.entry.update(why=AMBIGUOUS)
        record["unconfirmed"] = True
        return None, first.state
    if first.unsettled is None:
        first.entry.update(accepted=True, why=PASSES)
        return first.state, progress
    first.entry.update(why=first.unsettled)
    record["unconfirmed"] = True
    return None, first.state


class _Passed(NamedTuple):
    """A candidate that passed the gate, and how well it reads (a lower `rank` reads better)."""

    state: _State
    entry: dict[str, Any]
    unsettled: str | None
    source: str
    rank: tuple[bool, bool]  # (still misreads its sentence, a guessed ¬ around the whole formula)


def _negates_all(edit: Edit) -> bool:
    """Whether `edit` only puts a ¬ around its whole formula."""
    before = parses(edit.before)
    return before is not None and parses(edit.after) == Not(before)


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


def _refuting_labels(rounds: list[dict[str, Any]], gold: Label | None) -> set[str]:
    """The labels the rules' re-checked candidates proved instead of the gold one."""
    return {
        str(c["label"])
        for record in rounds
        for c in record["candidates"]
        if c.get("category") == "label_mismatch"
        and not str(c["source"]).startswith(LLM_SOURCE)
        and (gold is None or c["label"] != gold.value)
    }


def _multi_line(candidate: Sequence[Edit]) -> str:
    """The first field an edit would split over several lines ("" when every edit is one line)."""
    for edit in candidate:
        # str.splitlines knows every separator (\r, \v, \x1c, \u2028 ...), not only \n
        if edit.after.splitlines() not in ([], [edit.after]):
            return edit.where
    return ""


def _fol(item: Item) -> dict[str, str]:
    fol = {f"premises[{i}]": text for i, text in enumerate(item.premises_fol)}
    fol["conclusion"] = item.conclusion_fol or ""
    return fol


def _with_fol(item: Item, fol: dict[str, str]) -> Item:
    premises = tuple(fol[f"premises[{i}]"] for i in range(len(item.premises_fol)))
    return dataclasses.replace(item, premises_fol=premises, conclusion_fol=fol["conclusion"])


def cacheable(outcome: dict[str, Any]) -> bool:
    """Whether another run would reach this outcome (`Outcome.to_dict` form) again: not when
    its time budget stopped it, nor when an LLM call got no reply (a down endpoint, a timeout,
    an open circuit breaker); the next run tries those items afresh."""
    if outcome["reason"] == Reason.REPAIR_BUDGET.value:
        return False
    calls = (c for r in outcome["audit"].get("rounds", ()) for c in r.get("llm_calls", ()))
    return not any(c.get("error") and not c.get("raw") for c in calls)


def _outcome(
    item: Item,
    row: dict[str, Any],
    final: _State,
    accepted: bool,
    rounds: list[dict[str, Any]],
    diagnoses: list[Diagnosis],
    clock: _Clock,
    reading: Findings,
    alignment: Alignment,
) -> Outcome:
    """The item's record. `reading` is the final FOL's findings (the label score reads them);
    `alignment`, those of the FOL the item keeps."""
    category = row["category"]
    spent = time.perf_counter() - clock.started
    budget = {"seconds": clock.seconds, "spent": round(spent, 2), "stopped": clock.stopped}
    quality = label_score(reading, _refuted(rounds, item.label))
    if category == "verified":
        status, reason = Status.VERIFIED, Reason.NONE
    elif accepted:
        status, reason = Status.REPAIRED, Reason.NONE
    elif clock.stopped:
        status, reason = Status.NEEDS_REVIEW, Reason.REPAIR_BUDGET
    elif rounds and rounds[-1].get("unconfirmed"):
        status, reason = Status.NEEDS_REVIEW, Reason.UNCONFIRMED_REPAIR
    else:
        status, reason = Status.NEEDS_REVIEW, Reason.for_category(final.row["category"])
    if status is not Status.NEEDS_REVIEW and alignment.is_issue:
        reason = Reason.NL_MISMATCH  # settled by the provers, but it does not read right
    suggested = ""
    label_diag = next((d for d in diagnoses if d.suggested_label is not None), None)
    review = status is Status.NEEDS_REVIEW
    label_issue = review and final.row["category"] == "label_mismatch" and quality < BLAME
    if label_issue and label_score(reading) >= BLAME:
        # the FOL misreads its sentences, but the rules' readings of it still miss the gold
        # label: the label they prove is the suggestion; where they disagree, the one the FOL
        # as written proves, if a reading proves it too (else none)
        tried = _refuting_labels(rounds, item.label)
        written = final.row["label"]
        suggested = tried.pop() if len(tried) == 1 else written if written in tried else ""
    elif label_issue:
        suggested = final.row["label"]  # well-read FOL keeps proving this label
    elif review and final.row["category"] == "label_mismatch":
        pass  # the FOL is blamed: a formula that decides it misreads its sentence
    elif review and final.row["category"] == "label_error_candidate":
        suggested = final.row.get("label_dataset", "")  # the dataset's own semantics' label
    elif review and label_diag is not None and label_diag.suggested_label is not None:
        suggested = label_diag.suggested_label.value
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
        critique = "; ".join(filter(None, (stop, f"still {final.row['category']}", critique)))
    gold = item.label.value if item.label else ""
    return Outcome(
        id=item.id,
        dataset=item.dataset,
        split=item.split,
        story_id=item.story_id,
        example_id=item.example_id,
        status=status,
        reason=reason,
        check_category=category,
        final_category=final.row["category"],
        original_label=gold,
        gold_label=gold,
        label=gold,  # never changed automatically
        suggested_label=suggested,
        prover_label=final.row["label"],
        prover_labels={
            k.removeprefix("label_"): v for k, v in final.row.items() if k.startswith("label_")
        },
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
            "check": {k: row[k] for k in ("category", "label", "issues", "notation") if k in row},
            "rounds": rounds,
            **({"budget": budget} if reason is Reason.REPAIR_BUDGET else {}),
            # why the final FOL gets its label: every core and countermodel, per prover
            "evidence": json.loads(final.row.get("evidence_detail") or "{}"),
        },
        content_hash=item.content_hash,
        notation=row.get("notation", ""),
        evidence=final.row.get("evidence", ""),
        findings=tuple(f.render() for f in alignment.findings),
        nl_mismatch_score=round(alignment.score, 2),
        is_nl_mismatch_issue=alignment.is_issue,
        label_score=round(quality, 2),
        is_label_issue=label_issue,
        seconds=round(spent, 4),
    )
