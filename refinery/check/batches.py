"""The check stage over many stories: the row cache, worker batches and the one writer.

`check_items` checks every item on this machine's pool and returns one `CheckRow` per item, in
input order. Its steps are public for runs on a cluster: `plan_check` (the driver answers
unchanged stories from its row cache), `check_batch` (a worker checks whole stories, writing no
cache) and `CheckPlan.add` / `finish` (the driver, the only writer, stores each batch's rows and
verdicts, then applies the dataset's own semantics, `refinery.check.stage.apply_dataset_semantics`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path

from refinery.check.row import CheckRow
from refinery.check.stage import Checker, ProverFactory, apply_dataset_semantics
from refinery.datasets.records import Item
from refinery.parallel import code_hash, from_cache, in_input_order, run_stories
from refinery.prove.cache import TABLE as VERDICT_TABLE
from refinery.prove.cache import VerdictCache
from refinery.prove.verdict import Budget, Prover
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

    `cache_path` is the driver's verdict cache: a worker on the driver's `host` reads it, a
    worker elsewhere proves afresh, and none writes it (`refinery.store.worker_view`).
    `evidence` is `Checker.evidence`.
    """

    prover_factory: ProverFactory
    prover_names: tuple[str, ...]
    budget: Budget
    cache_path: Path | None = None
    host: str = field(default_factory=this_host)
    evidence: bool = True


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
    """Check whole stories on a worker; never writes a cache (see `CheckJob`)."""
    cache = VerdictCache(None, store=worker_view(job.cache_path, VERDICT_TABLE, job.host))
    provers = worker_provers(job.prover_factory, job.prover_names, threading.get_ident())
    checker = Checker(provers, job.budget, cache, job.evidence)
    rows = [row for story in stories for row in checker.check_story(story)]
    cache.close()
    return CheckBatch(rows, cache.recorded())


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
) -> CheckPlan:
    """Answer unchanged stories from the row cache; the rest become `pending` stories."""
    verdicts = VerdictCache(cache_path)
    verdicts.prepare()
    row_store = JsonStore(cache_path.with_name("rows.sqlite") if cache_path else None, "rows")
    row_store.prepare()
    keys = {it.id: row_key(it, prover_names, budget, evidence) for it in items}
    cached, pending = from_cache(
        group_stories(items), row_store, lambda it, _: keys[it.id], on_progress
    )
    job = CheckJob(prover_factory, tuple(prover_names), budget, cache_path, evidence=evidence)
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


def check_items(
    items: Sequence[Item],
    *,
    prover_factory: ProverFactory,
    prover_names: Sequence[str],
    budget: Budget,
    workers: int = 1,
    cache_path: Path | None = None,
    on_progress: Callable[[int], None] | None = None,
    evidence: bool = True,
) -> list[CheckRow]:
    """Check every item on this machine; rows come back in input order.

    The steps a cluster run takes one by one (`plan_check`, `check_batch` per batch,
    `CheckPlan.add`, `CheckPlan.finish`), with a story per batch on a local pool.

    Parameters
    ----------
    items:
        Loaded items (any mix of datasets and splits).
    prover_factory, prover_names:
        `prover_factory(prover_names)` builds the provers inside each worker.
    budget:
        Per-question limits.
    workers:
        Worker processes; 1 runs in this process.
    cache_path:
        SQLite verdict cache file; None disables caching.
    on_progress:
        Called with the number of items finished after each story.
    evidence:
        Say why (see `Checker.evidence`); off, `evidence` is empty and checking is cheaper.

    Returns
    -------
    list[CheckRow]
        One row per item, whose file form (`CheckRow.to_dict`) has the columns
        `id, dataset, split, story_id, example_id, gold_label`;
        per prover `label_<p>` (decided label), `status_<p>` (axioms/pos/neg SZS statuses) and
        `seconds_<p>`; `label` (agreed label or ""), `agreement`, `label_dataset` (only when
        some item's dataset has its own semantics, see `apply_dataset_semantics`: that label,
        "" for other items), `category` (see `Category`),
        `issues` (one rendered issue per line), `n_issues`, `notation` (normalisations applied),
        `evidence` (why: one line per proof or countermodel, see `refinery.prove.evidence`),
        `content_hash`, `cached` (every verdict came from the cache), `prover_seconds` (fresh
        prover time for the item, the shared consistency question split across its items),
        `seconds` (wall time share), `verdicts` (every raw answer; JSON in files) and
        `evidence_detail` (every core per prover and question, every countermodel).
    """
    plan = plan_check(
        items,
        prover_factory=prover_factory,
        prover_names=prover_names,
        budget=budget,
        cache_path=cache_path,
        on_progress=on_progress,
        evidence=evidence,
    )
    for batch in run_stories(plan.pending, partial(check_batch, job=plan.job), workers=workers):
        plan.add(batch)
    return plan.finish()


@lru_cache(maxsize=1)
def check_code_version() -> str:
    """A hash of the code that decides a check row (`CHECK_CODE`)."""
    root = Path(__file__).resolve().parent
    return code_hash(root.parent, *CHECK_CODE, (".py", ".lark"))


def row_key(item: Item, prover_names: Sequence[str], budget: Budget, evidence: bool = True) -> str:
    """What a check row depends on: the item's identity and content, the provers, the budget."""
    payload = [
        check_code_version(),
        item.id,
        item.content_hash,
        list(prover_names),
        budget.seconds,
        budget.rlimit,
        evidence,
    ]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()
