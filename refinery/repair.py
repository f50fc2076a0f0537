"""The repair loop: bounded critique → refine → re-check per item, its gate, one outcome per item.

For an item whose check found a conflict (unparseable FOL, a lint error, inconsistent premises or
a label the provers do not reproduce), each round: the critique diagnoses, the refiner proposes
candidate edits (rules first; the LLM only when no rule candidate passed), and every candidate is
re-checked by the same `Checker` — parse, lint, both provers. A candidate is accepted only when
the item becomes `verified`: it parses, lints clean, the premises are consistent, both provers
agree, and the agreed label equals the gold label. Labels never change: an item whose
well-formed FOL keeps proving another label goes to review with a suggested label.

A rejected candidate that still makes progress (e.g. it parses now) becomes the base of the next
round, so a formula with two errors can be repaired in two steps. Every round's diagnoses,
candidates and verdicts are kept as the item's audit trail.

"Refine" is the whole run (`refinery.pipeline`); this module is its per-item step.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from refinery.agents.critique import findings_for, rule_critique
from refinery.agents.endpoint import LLMEndpoint
from refinery.agents.models import Diagnosis, Edit, Findings
from refinery.agents.repairs import apply_candidate, propose_repairs
from refinery.check import Checker, ProverFactory, check_code_version, group_stories
from refinery.datasets.records import Item
from refinery.errors import ConfigError
from refinery.outcomes import Outcome, Reason, Status
from refinery.parallel import code_hash, from_cache, in_input_order, run_stories
from refinery.prove.cache import VerdictCache
from refinery.prove.verdict import Budget
from refinery.store import JsonStore

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

    def __post_init__(self) -> None:
        check_agents(self.agents)
        if self.max_rounds < 1:
            raise ConfigError(f"max_rounds must be at least 1, got {self.max_rounds}")


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
    """Run the loop for one item; return its outcome."""
    started = time.perf_counter()
    rounds: list[dict[str, Any]] = []
    diagnoses_seen: list[Diagnosis] = []
    best = _State(item, row)
    accepted: _State | None = None
    category = row["category"]
    llm_on = "llm" in config.agents and client is not None
    if category != "verified" and category not in _NOT_REPAIRABLE:
        seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
        feedback: list[str] = []
        llm_diagnoses: list[Diagnosis] | None = None  # the LLM critique runs once per item
        llm_asked = 0
        for number in range(1, config.max_rounds + 1):
            findings = findings_for(best.item, best.row, story_fol=story_fol, feedback=feedback)
            key = (tuple(findings.fol.values()), tuple(feedback))
            if key in seen:  # nothing changed since the last round: it would repeat itself
                break
            seen.add(key)
            use_llm = client if llm_on and llm_asked < config.llm_rounds else None
            record, accepted, progress = _round(
                number, findings, best, checker, config, use_llm, llm_diagnoses
            )
            llm_asked += 1 if record["llm_calls"] else 0
            if "llm_diagnoses" in record:  # asked this round (even if it found nothing)
                llm_diagnoses = [Diagnosis.model_validate(d) for d in record["llm_diagnoses"]]
            rounds.append(record)
            diagnoses_seen += [Diagnosis.model_validate(d) for d in record["diagnoses"]]
            if accepted is not None:
                break
            # a model may revise given what the gate rejected; deterministic rules would not
            feedback += _rejections(record, llm_only=True)
            if progress is not None:
                best = progress
            elif not (llm_on and llm_asked < config.llm_rounds):
                break
    final = accepted or best
    return _outcome(
        item,
        row,
        final,
        accepted is not None,
        rounds,
        diagnoses_seen,
        time.perf_counter() - started,
    )


def _round(
    number: int,
    findings: Findings,
    base: _State,
    checker: Checker,
    config: RepairConfig,
    client: Any,
    llm_diagnoses: list[Diagnosis] | None = None,
) -> tuple[dict[str, Any], _State | None, _State | None]:
    proposals = propose_repairs(findings)
    drift = sorted({e.where for rule, cand in proposals if rule == "unify_names" for e in cand})
    diagnoses = rule_critique(findings, drift_positions=drift)
    record: dict[str, Any] = {"round": number, "diagnoses": [], "candidates": [], "llm_calls": []}
    candidates: list[tuple[str, tuple[Edit, ...]]] = list(proposals)
    accepted, progress = _try(candidates[: config.max_candidates], base, checker, record)
    if accepted is None and "llm" in config.agents and client is not None:
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
            llm_candidates[: config.max_candidates], base, checker, record
        )
        accepted = llm_accepted
        progress = progress if _better(progress, llm_progress) else llm_progress
    record["diagnoses"] = [d.model_dump(mode="json") for d in diagnoses]
    return record, accepted, progress


def _rejections(record: dict[str, Any], *, llm_only: bool) -> list[str]:
    """One line per rejected candidate of a round: what it changed and what the re-check said."""
    out = []
    for c in record["candidates"]:
        if c.get("accepted") or (llm_only and not str(c["source"]).startswith("llm:")):
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
) -> tuple[_State | None, _State | None]:
    """Re-check candidates in order; return (first accepted, best progress)."""
    fol = _fol(base.item)
    base_rank = _RANK.get(base.row["category"], 0)
    progress: _State | None = None
    for source, candidate in candidates:
        entry: dict[str, Any] = {
            "source": source,
            "edits": [e.model_dump(mode="json") for e in candidate],
        }
        record["candidates"].append(entry)
        try:
            new_fol = apply_candidate(fol, candidate)
        except ValueError as err:  # an edit whose `before` no longer matches: stale proposal
            entry.update(accepted=False, why=f"not applicable: {err}")
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
            entry.update(
                accepted=True,
                why="parses, lints clean, consistent, provers agree on the gold label",
            )
            return state, progress
        entry.update(accepted=False, why=f"re-check: {row['category']}")
        rank = _RANK.get(row["category"], 0)
        if rank > base_rank and (progress is None or rank > _RANK.get(progress.row["category"], 0)):
            progress = state
    return None, progress


def _fol(item: Item) -> dict[str, str]:
    fol = {f"premises[{i}]": text for i, text in enumerate(item.premises_fol)}
    fol["conclusion"] = item.conclusion_fol or ""
    return fol


def _with_fol(item: Item, fol: dict[str, str]) -> Item:
    premises = tuple(fol[f"premises[{i}]"] for i in range(len(item.premises_fol)))
    return dataclasses.replace(item, premises_fol=premises, conclusion_fol=fol["conclusion"])


def _outcome(
    item: Item,
    row: dict[str, Any],
    final: _State,
    accepted: bool,
    rounds: list[dict[str, Any]],
    diagnoses: list[Diagnosis],
    seconds: float,
) -> Outcome:
    category = row["category"]
    if category == "verified":
        status, reason = Status.VERIFIED, Reason.NONE
    elif accepted:
        status, reason = Status.REPAIRED, Reason.NONE
    else:
        status, reason = Status.NEEDS_REVIEW, Reason.for_category(final.row["category"])
    suggested = ""
    label_diag = next((d for d in diagnoses if d.suggested_label is not None), None)
    review = status is Status.NEEDS_REVIEW
    if review and final.row["category"] == "label_mismatch":
        suggested = final.row["label"]  # well-formed FOL keeps proving this label
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
    critique = "; ".join(
        f"{d.where}: {d.error_class.value} ({d.confidence:.2f}) {d.explanation}"
        for d in diagnoses[:5]
    )
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
            # why the final FOL gets its label: every core and countermodel, per prover
            "evidence": json.loads(final.row.get("evidence_detail") or "{}"),
        },
        content_hash=item.content_hash,
        notation=row.get("notation", ""),
        evidence=final.row.get("evidence", ""),
        seconds=round(seconds, 4),
    )


# -- outcome cache ----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the code that decides outcomes (this loop, agents, prompts, check, logic).

    Part of every outcome-cache key, so editing a rule or a prompt invalidates cached outcomes.
    """
    root = Path(__file__).resolve().parent
    agents = code_hash(
        root,
        ("agents", "logic", "prove"),
        ("repair.py", "outcomes.py"),
        (".py", ".lark", ".md"),
    )
    return hashlib.sha256((agents + check_code_version()).encode()).hexdigest()


def outcome_key(
    item: Item,
    story_fol: Sequence[str],
    config: RepairConfig,
    provers: Sequence[str],
    budget: Budget,
) -> str:
    """Everything an item's outcome depends on: its content, its story's FOL, the run options."""
    payload = {
        "code": code_version(),
        "id": item.id,
        "content": item.content_hash,
        "story": sorted(story_fol),
        "agents": list(config.agents),
        "rounds": [config.max_rounds, config.llm_rounds, config.max_candidates],
        "llm": config.llm.model if config.llm and "llm" in config.agents else None,
        "provers": list(provers),
        "budget": [budget.seconds, budget.rlimit],
    }
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()


# -- parallel driver ------------------------------------------------------------------------------


@dataclass
class _Worker:
    checker: Checker
    config: RepairConfig
    client: Any
    provers: tuple[str, ...]
    budget: Budget
    outcomes: JsonStore


_WORKER: _Worker | None = None


def _init_worker(
    factory: ProverFactory,
    names: Sequence[str],
    budget: Budget,
    cache_path: Path | None,
    config: RepairConfig,
    outcome_cache: Path | None = None,
) -> None:
    global _WORKER
    client = None
    if "llm" in config.agents and config.llm is not None:
        from refinery.agents.llm import OpenAICompatibleClient

        client = OpenAICompatibleClient(
            config.llm.base_url,
            config.llm.api_key,
            config.llm.model,
            timeout=config.llm.timeout,
            cache_path=config.llm.cache_path,
        )
    checker = Checker(factory(names), budget, VerdictCache(cache_path))
    _WORKER = _Worker(
        checker, config, client, tuple(names), budget, JsonStore(outcome_cache, "outcomes")
    )


def _story_fol(pairs: Sequence[tuple[Item, dict[str, Any]]]) -> list[str]:
    """Every distinct FOL text of a story: the evidence naming-drift repairs compare against."""
    return list(
        dict.fromkeys(
            t for item, _ in pairs for t in (*item.premises_fol, item.conclusion_fol or "")
        )
    )


def _run_story(pairs: Sequence[tuple[Item, dict[str, Any]]]) -> list[dict[str, Any]]:
    assert _WORKER is not None, "worker not initialised"
    w = _WORKER
    story_fol = _story_fol(pairs)
    out = []
    for item, row in pairs:
        key = outcome_key(item, story_fol, w.config, w.provers, w.budget)
        outcome = w.outcomes.get(key)
        if outcome is None:
            outcome = repair_item(
                item, row, checker=w.checker, config=w.config, story_fol=story_fol, client=w.client
            ).to_dict()
            w.outcomes.put(key, outcome)
        out.append(outcome)  # JSON form: what the cache holds and the pool sends back
    return out


def repair_items(
    items: Sequence[Item],
    rows: Sequence[dict[str, Any]],
    *,
    prover_factory: ProverFactory,
    prover_names: Sequence[str],
    budget: Budget,
    config: RepairConfig,
    workers: int = 1,
    cache_path: Path | None = None,
    outcome_cache: Path | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[Outcome]:
    """Repair every item given its check row; outcomes come back in input order.

    Stories are the unit of work (their formulas are the evidence for naming drift); provers
    and the LLM client are built inside each worker, the verdict and LLM caches are shared files.
    With `outcome_cache`, an item whose content, story, options and deciding code are unchanged
    since a previous run gets its stored outcome without re-running the loop.
    """
    by_id = {r["id"]: r for r in rows}
    stories = [[(it, by_id[it.id]) for it in story] for story in group_stories(items)]
    VerdictCache(cache_path).prepare()
    if config.llm is not None:  # workers share the reply cache: create it before they start
        JsonStore(config.llm.cache_path, "replies").prepare()
    store = JsonStore(outcome_cache, "outcomes")
    store.prepare()
    # answer unchanged stories from the outcome cache here: no worker, no prover, no model
    cached, pending = from_cache(
        stories,
        store,
        lambda pair, story: outcome_key(pair[0], _story_fol(story), config, prover_names, budget),
        on_progress,
    )
    store.close()
    fresh = run_stories(
        pending,
        _run_story,
        initializer=_init_worker,
        initargs=(prover_factory, tuple(prover_names), budget, cache_path, config, outcome_cache),
        workers=workers,
        on_progress=on_progress,
    )
    ordered = in_input_order(cached + fresh, [it.id for it in items])
    return [Outcome.from_dict(o) for o in ordered]


__all__ = [
    "AGENTS",
    "RepairConfig",
    "check_agents",
    "parse_agents",
    "outcome_key",
    "repair_item",
    "repair_items",
]
