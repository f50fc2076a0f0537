"""The repair loop: bounded critique → refine → re-check per item; one outcome per item.

For an item whose check found a conflict (unparseable FOL, a lint error, inconsistent premises or
a label the provers do not reproduce), each round: the critique diagnoses, the refiner proposes
candidate edits (rules first; the LLM only when no rule candidate passed), and the gate
(`refinery.repair.gate`) re-checks every candidate with the same `Checker` and decides whether
it counts. Labels never change: an item whose well-formed FOL keeps proving another label goes
to review with a suggested label (`refinery.repair.outcome`).

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
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from refinery.agents.alignment import Alignment
from refinery.agents.critique import item_context, rule_critique
from refinery.agents.endpoint import LLMEndpoint
from refinery.agents.models import LLM_SOURCE, Diagnosis, Edit, ItemContext
from refinery.agents.reading.lexicon import Lexicon
from refinery.agents.repairs import propose_repairs
from refinery.check import Checker, CheckRow
from refinery.config import DEFAULT_REPAIR_SECONDS
from refinery.datasets.records import Item
from refinery.errors import ConfigError
from refinery.outcomes import Category, Outcome
from refinery.repair.gate import NOT_REPAIRABLE, Clock, State, better, try_candidates
from refinery.repair.outcome import build_outcome
from refinery.repair.retest import Retest

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


def repair_item(
    item: Item,
    row: CheckRow,
    *,
    checker: Checker,
    config: RepairConfig,
    story_fol: Sequence[str] = (),
    client: Any = None,
) -> Outcome:
    """Run the loop for one item within `config.item_seconds`; return its outcome."""
    clock = Clock(config.item_seconds)
    rounds: list[dict[str, Any]] = []
    diagnoses_seen: list[Diagnosis] = []
    best = State(item, row)
    first: ItemContext | None = None  # round 1's findings: the original FOL's
    accepted: State | None = None
    unconfirmed = False
    llm_on = "llm" in config.agents and client is not None
    if row.category is not Category.VERIFIED and row.category not in NOT_REPAIRABLE:
        seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
        feedback: list[str] = []
        llm_diagnoses: list[Diagnosis] | None = None  # the LLM critique runs once per item
        llm_asked = 0
        for number in range(1, config.max_rounds + 1):
            if clock.spent(f"before round {number}"):
                break
            findings = item_context(best.item, best.row, story_fol=story_fol, feedback=feedback)
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
        reading = item_context(final.item, final.row, story_fol=story_fol)
    kept = first if first is not None and accepted is None and final.edits else reading
    return build_outcome(
        item,
        row,
        final,
        accepted is not None,
        rounds,
        diagnoses_seen,
        clock,
        reading,
        Alignment(kept.alignment),
        Retest(final.item, checker, tuple(story_fol), _lexicon()),
    )


def _round(
    number: int,
    findings: ItemContext,
    base: State,
    checker: Checker,
    config: RepairConfig,
    client: Any,
    llm_diagnoses: list[Diagnosis] | None,
    clock: Clock,
) -> tuple[dict[str, Any], State | None, State | None]:
    proposals = propose_repairs(findings)
    drift = sorted({e.where for rule, cand in proposals if rule == "unify_names" for e in cand})
    diagnoses = rule_critique(findings, drift_positions=drift)
    record: dict[str, Any] = {"round": number, "diagnoses": [], "candidates": [], "llm_calls": []}
    cap = config.max_candidates
    accepted, progress = try_candidates(proposals[:cap], base, checker, record, findings, clock)
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
        llm_accepted, llm_progress = try_candidates(
            llm_candidates[:cap], base, checker, record, findings, clock
        )
        accepted = llm_accepted
        progress = progress if better(progress, llm_progress) else llm_progress
    record["diagnoses"] = [d.model_dump(mode="json") for d in diagnoses]
    return record, accepted, progress


@functools.lru_cache(maxsize=1)
def _lexicon() -> Lexicon | None:
    """WordNet, read once per process (None where it is not installed)."""
    return Lexicon.find()


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
