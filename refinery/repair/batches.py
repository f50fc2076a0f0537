"""Repair runs: whole stories in batches on workers, answered from the outcome cache first.

`repair_items` is the repair step of a run: `plan_repair` answers unchanged stories from the
outcome cache (keyed by `outcome_key`: the item, its story, the options, the provers and the
code that decides outcomes), `repair_batch` runs `refinery.repair.loop.repair_item` over the rest on
a worker (which writes no cache), and `RepairPlan` is the driver: the only writer of the
outcome, verdict and LLM-reply caches. Per-item work lives in `refinery.repair.loop`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from refinery.check import (
    Checker,
    CheckRow,
    ProverFactory,
    check_code_version,
    group_stories,
    worker_provers,
)
from refinery.datasets.records import Item
from refinery.outcomes import Outcome
from refinery.parallel import code_hash, from_cache, in_input_order, run_stories
from refinery.prove.cache import TABLE as VERDICT_TABLE
from refinery.prove.cache import VerdictCache
from refinery.prove.verdict import Budget, identities
from refinery.repair.loop import RepairConfig, repair_item
from refinery.repair.outcome import cacheable
from refinery.store import JsonStore, this_host, worker_view

#: The code an outcome depends on besides the check's (`CHECK_CODE`), relative to the `refinery`
#: package: its folders, then its single files (a test checks every one exists).
REPAIR_CODE = (("agents", "logic", "prove", "repair"), ("outcomes.py",))

# -- outcome cache ----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def code_version() -> str:
    """A hash of the code that decides outcomes (this loop, agents, prompts, check, logic).

    Part of every outcome-cache key, so editing a rule or a prompt invalidates cached outcomes.
    """
    agents = code_hash(Path(__file__).resolve().parents[1], *REPAIR_CODE, (".py", ".lark", ".md"))
    return hashlib.sha256((agents + check_code_version()).encode()).hexdigest()


def outcome_key(
    item: Item,
    story_fol: Sequence[str],
    config: RepairConfig,
    provers: Sequence[str],
    budget: Budget,
) -> str:
    """Everything an item's outcome depends on: its content, its story's FOL, the run options
    (`provers`: their `identities`, name and version)."""
    payload = {
        "code": code_version(),
        "id": item.id,
        "content": item.content_hash,
        "story": sorted(story_fol),
        "agents": list(config.agents),
        "rounds": [config.max_rounds, config.llm_rounds, config.max_candidates],
        "item_seconds": config.item_seconds,
        "llm": config.llm.model if config.llm and "llm" in config.agents else None,
        "provers": list(provers),
        "budget": [budget.seconds, budget.rlimit],
    }
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()


# -- driver and batches ----------------------------------------------------------------------------

#: A story to repair: each item with its check row and its cached outcome (None: to run).
Pending = list[tuple[Item, CheckRow, dict[str, Any] | None]]


@dataclass(frozen=True, slots=True)
class RepairJob:
    """What a repair batch needs besides its stories; picklable, it travels to every worker.

    The cache paths are the driver's: a worker on the driver's `host` reads them (the verdicts
    as they were when the run was planned, `cache_upto`), none writes them
    (`refinery.store.worker_view`). `llm_gate()` is entered around every HTTP request to
    the LLM (a cluster-wide concurrency limit); None: no limit.
    """

    prover_factory: ProverFactory
    prover_names: tuple[str, ...]
    budget: Budget
    config: RepairConfig
    cache_path: Path | None = None
    host: str = field(default_factory=this_host)
    llm_gate: Callable[[], AbstractContextManager[Any]] | None = None
    cache_upto: int | None = None
    provers: tuple[str, ...] = ()  # their `identities` on the driver: the outcome cache's key


@dataclass(frozen=True, slots=True)
class RepairBatch:
    """A batch's outcomes (JSON form) and what it computed that the driver stores."""

    outcomes: list[dict[str, Any]]
    fresh: list[tuple[str, dict[str, Any]]]  # (outcome key, outcome) for the outcome cache
    verdicts: list[tuple[str, str]]
    replies: list[tuple[str, str]]


def _story_fol(items: Iterable[Item]) -> list[str]:
    """Every distinct FOL text of a story: the evidence naming-drift repairs compare against."""
    return list(
        dict.fromkeys(t for item in items for t in (*item.premises_fol, item.conclusion_fol or ""))
    )


def repair_batch(stories: Sequence[Pending], job: RepairJob) -> RepairBatch:
    """Repair whole stories on a worker (cached outcomes pass through); writes no cache.

    As in `refinery.check.batches.check_batch`, a story reads the verdict cache as planned and
    its own new verdicts only, as it would alone on this machine's pool."""
    config = job.config
    view = worker_view(job.cache_path, VERDICT_TABLE, job.host, job.cache_upto)
    verdicts = VerdictCache(None, store=view)
    checker = Checker(
        worker_provers(job.prover_factory, job.prover_names, threading.get_ident()),
        job.budget,
        verdicts,
    )
    client = None
    if "llm" in config.agents and config.llm is not None:
        from refinery.agents.llm import OpenAICompatibleClient

        client = OpenAICompatibleClient(
            config.llm.base_url,
            config.llm.api_key,
            config.llm.model,
            timeout=config.llm.timeout,
            gate=job.llm_gate,
        )
        client.cache = worker_view(config.llm.cache_path, "replies", job.host)
    out: list[dict[str, Any]] = []
    fresh: list[tuple[str, dict[str, Any]]] = []
    proved: list[tuple[str, str]] = []
    for story in stories:
        story_fol = _story_fol(item for item, _, _ in story)
        for item, row, outcome in story:
            if outcome is None:
                outcome = repair_item(
                    item, row, checker=checker, config=config, story_fol=story_fol, client=client
                ).to_dict()
                if cacheable(outcome):
                    key = outcome_key(item, story_fol, config, job.provers, job.budget)
                    fresh.append((key, outcome))
            out.append(outcome)  # JSON form: what the cache holds and a worker sends back
        proved += verdicts.take_recorded()
    replies = client.cache.recorded() if client is not None else []
    if client is not None:
        client.close()
    verdicts.close()
    return RepairBatch(out, fresh, proved, replies)


@dataclass
class RepairPlan:
    """A repair run as the driver sees it: cached outcomes, the stories to run, the one writer."""

    items: Sequence[Item]
    job: RepairJob
    pending: list[Pending]
    outcomes: list[dict[str, Any]]
    store: JsonStore
    verdicts: VerdictCache
    replies: JsonStore
    on_progress: Callable[[int], None] | None = None

    def add(self, batch: RepairBatch) -> None:
        """Keep a batch's outcomes; store its new outcomes, verdicts and LLM replies at once."""
        self.store.put_many(batch.fresh)
        self.verdicts.put_raw(batch.verdicts)
        self.replies.put_raw(batch.replies)
        self.outcomes += batch.outcomes
        if self.on_progress:
            self.on_progress(len(batch.outcomes))

    def finish(self) -> list[Outcome]:
        """Every outcome, in input order."""
        for store in (self.store, self.verdicts, self.replies):
            store.close()
        ordered = in_input_order(self.outcomes, [it.id for it in self.items], lambda o: o["id"])
        return [Outcome.from_dict(o) for o in ordered]


def plan_repair(
    items: Sequence[Item],
    rows: Sequence[CheckRow],
    *,
    prover_factory: ProverFactory,
    prover_names: Sequence[str],
    budget: Budget,
    config: RepairConfig,
    cache_path: Path | None = None,
    outcome_cache: Path | None = None,
    llm_gate: Callable[[], AbstractContextManager[Any]] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> RepairPlan:
    """Answer unchanged stories from the outcome cache; the rest become `pending` stories."""
    if "llm" in config.agents:  # a new run gives its endpoint a new chance (see the breaker)
        from refinery.agents.llm import reset_breakers

        reset_breakers()
    by_id = {r.id: r for r in rows}
    stories = [[(it, by_id[it.id]) for it in story] for story in group_stories(items)]
    verdicts = VerdictCache(cache_path)
    verdicts.prepare()
    replies = JsonStore(config.llm.cache_path if config.llm else None, "replies")
    replies.prepare()
    store = JsonStore(outcome_cache, "outcomes")
    store.prepare()
    provers = identities(prover_factory(prover_names))
    cached, pending = from_cache(
        stories,
        store,
        lambda pair, story: outcome_key(
            pair[0], _story_fol(it for it, _ in story), config, provers, budget
        ),
        on_progress,
    )
    job = RepairJob(
        prover_factory, tuple(prover_names), budget, config, cache_path,
        llm_gate=llm_gate, cache_upto=verdicts.last_row(), provers=provers,
    )  # fmt: skip
    todo = [[(it, row, found) for (it, row), found in story] for story in pending]
    return RepairPlan(items, job, todo, cached, store, verdicts, replies, on_progress)


def repair_items(
    items: Sequence[Item],
    rows: Sequence[CheckRow],
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
    """Repair every item on this machine given its check row; outcomes come in input order.

    Stories are the unit of work (their formulas are the evidence for naming drift). With
    `outcome_cache`, an item whose content, story, options and deciding code are unchanged since
    a previous run gets its stored outcome without re-running the loop. The steps a cluster run
    takes one by one: `plan_repair`, `repair_batch` per batch, `RepairPlan.add` and `finish`.
    """
    plan = plan_repair(
        items,
        rows,
        prover_factory=prover_factory,
        prover_names=prover_names,
        budget=budget,
        config=config,
        cache_path=cache_path,
        outcome_cache=outcome_cache,
        on_progress=on_progress,
    )
    for batch in run_stories(plan.pending, partial(repair_batch, job=plan.job), workers=workers):
        plan.add(batch)
    return plan.finish()
