"""The check stage over many stories: the row cache, worker batches and the one writer.

`refinery.check.stream` checks items on this machine's pool with these steps, which are public
for runs on a cluster too: `plan_check` (the driver answers unchanged stories from its row
cache), `check_batch` (a worker checks whole stories, writing no cache) and `CheckPlan.add` /
`finish` (the driver, the only writer, stores each batch's rows and verdicts, then applies the
dataset's own semantics, `refinery.check.stage.apply_dataset_semantics`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from refinery.check.row import CheckRow
from refinery.check.stage import Checker, ProverFactory, apply_dataset_semantics
from refinery.datasets.records import Item
from refinery.parallel import code_hash, from_cache, in_input_order
from refinery.prove.cache import TABLE as VERDICT_TABLE
from refinery.prove.cache import VerdictCache
from refinery.prove.verdict import Budget, Prover, identities
from refinery.store import JsonStore, this_host, worker_view

#: The code a check row depends on, relative to the `refinery` package: its folders, then its
#: single files (`check_code_version` hashes them; a test checks every one exists).
CHECK_CODE = (("logic", "prove", "datasets", "check"), ("addresses.py", "outcomes.py", "labels.py"))


def group_stories(items: Iterable[Item]) -> list[list[Item]]:
    """Items grouped by story id, largest story first (better load balance across workers)."""
    stories: dict[tuple[str, str, str], list[Item]] = {}
    for it in items:
        stories.setdefault((it.dataset, it.split, it.story_id), []).append(it)
    return sorted(stories.values(), key=len, reverse=True)


@dataclass(frozen=True, slots=True)
class CheckJob:
    """What a check batch needs besides its stories; picklable, it travels to every worker.

    `cache_path` is the driver's verdict cache: a worker on the driver's `host` reads it as it
    was when the run was planned (`cache_upto`), a worker elsewhere proves afresh, and none
    writes it (`refinery.store.worker_view`).
    `evidence` is `Checker.evidence`.
    """

    prover_factory: ProverFactory
    prover_names: tuple[str, ...]
    budget: Budget
    cache_path: Path | None = None
    host: str = field(default_factory=this_host)
    evidence: bool = True
    cache_upto: int | None = None


@dataclass(frozen=True, slots=True)
class CheckBatch:
    """A batch's rows and the verdicts it proved, which the driver stores."""

    rows: list[CheckRow]
    verdicts: list[tuple[str, str]]


@lru_cache(maxsize=8)
def worker_provers(factory: ProverFactory, names: tuple[str, ...], thread: int) -> list[Prover]:
    """The provers of one worker thread, built once (the E and Z3 versions are asked once)."""
    return factory(names)


def check_batch(stories: Sequence[Sequence[Item]], job: CheckJob) -> CheckBatch:
    """Check whole stories on a worker; never writes a cache (see `CheckJob`).

    A story reads the cache as planned and its own new verdicts, not those of the stories
    before it in the batch: it is checked as it would be alone, so twin stories (two theories
    that ask the same questions) come out alike, and the same whichever batches hold them.
    """
    view = worker_view(job.cache_path, VERDICT_TABLE, job.host, job.cache_upto)
    cache = VerdictCache(None, store=view)
    provers = worker_provers(job.prover_factory, job.prover_names, threading.get_ident())
    checker = Checker(provers, job.budget, cache, job.evidence)
    rows: list[CheckRow] = []
    verdicts: list[tuple[str, str]] = []
    for story in stories:
        rows += checker.check_story(story)
        verdicts += cache.take_recorded()
    cache.close()
    return CheckBatch(rows, verdicts)


@dataclass
class CheckPlan:
    """A check run as the driver sees it: cached rows, the stories to check, and the one writer.

    `plan_check` answers unchanged stories from the row cache; each finished batch goes to
    `add`, which stores its rows and verdicts at once; `finish` returns every row.
    """

    items: Sequence[Item]
    job: CheckJob
    keys: dict[str, str]
    pending: list[list[Item]]
    rows: list[CheckRow]
    row_store: JsonStore
    verdicts: VerdictCache
    on_progress: Callable[[int], None] | None = None

    def add(self, batch: CheckBatch) -> None:
        """Keep a batch's rows; store its verdicts and its rows (a row with a prover error is
        not kept: the error may be transient)."""
        self.verdicts.put_raw(batch.verdicts)
        self.row_store.put_many(
            (self.keys[row.id], row.to_dict()) for row in batch.rows if not row.has_error
        )
        self.rows += batch.rows
        if self.on_progress:
            self.on_progress(len(batch.rows))

    def finish(self) -> list[CheckRow]:
        """Every row in input order, with the dataset's own semantics (`apply_dataset_semantics`)."""
        self.row_store.close()
        self.verdicts.close()
        rows = in_input_order(self.rows, [it.id for it in self.items], lambda row: row.id)
        return apply_dataset_semantics(rows, self.items)


def plan_check(
    items: Sequence[Item],
    *,
    prover_factory: ProverFactory,
    prover_names: Sequence[str],
    budget: Budget,
    cache_path: Path | None = None,
    on_progress: Callable[[int], None] | None = None,
    evidence: bool = True,
    on_cached: Callable[[int], None] | None = None,
) -> CheckPlan:
    """Answer unchanged stories from the row cache; the rest become `pending` stories.

    `on_progress` counts every finished item, `on_cached` those answered from the row cache
    (what a resumed run did not redo).
    """
    verdicts = VerdictCache(cache_path)
    verdicts.prepare()
    row_store = JsonStore(cache_path.with_name("rows.sqlite") if cache_path else None, "rows")
    row_store.prepare()
    provers = identities(prover_factory(prover_names))
    keys = {it.id: row_key(it, provers, budget, evidence) for it in items}

    def hit(n: int) -> None:
        for said in (on_progress, on_cached):
            if said:
                said(n)

    cached, pending = from_cache(group_stories(items), row_store, lambda it, _: keys[it.id], hit)
    job = CheckJob(
        prover_factory, tuple(prover_names), budget, cache_path,
        evidence=evidence, cache_upto=verdicts.last_row(),
    )  # fmt: skip
    return CheckPlan(
        items,
        job,
        keys,
        [[it for it, _ in story] for story in pending],
        [CheckRow.from_dict(r).replace(cached=True) for r in cached],
        row_store,
        verdicts,
        on_progress,
    )


@lru_cache(maxsize=1)
def check_code_version() -> str:
    """A hash of the code that decides a check row (`CHECK_CODE`)."""
    root = Path(__file__).resolve().parent
    return code_hash(root.parent, *CHECK_CODE, (".py", ".lark"))


def row_key(item: Item, provers: Sequence[str], budget: Budget, evidence: bool = True) -> str:
    """What a check row depends on: the item's identity and content, the provers (their
    `identities`: name and version), the budget."""
    payload = [
        check_code_version(),
        item.id,
        item.content_hash,
        list(provers),
        budget.seconds,
        budget.rlimit,
        evidence,
    ]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()
