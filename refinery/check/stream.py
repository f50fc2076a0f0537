"""Checking an input of any size in bounded memory: a chunk at a time, rows as they are decided.

`check_stream` takes items lazily (`refinery.datasets.stream_any`) and checks them
`CHUNK_ITEMS` at a time with the steps of `refinery.check.batches` (the row cache, worker
batches, the one writer of the caches), on one worker pool for the whole run. Each chunk's rows
come out in input order as soon as the chunk is done, so the caller writes them
(`refinery.outputs.TableWriter`) and lets them go. The next chunk is planned and handed to the
workers before a chunk's rows are taken in, so the workers do not wait while this process
stores and writes them: memory holds two chunks, not the input.

A chunk ends between stories only: a story is a run of consecutive items with the same story,
as ProofWriter writes them (a theory is one line). A story whose items are scattered (FOLIO
repeats a story's premises in every question's row) is checked in as many parts as it has runs
in a chunk boundary's way; the rows are the same, only the shared consistency question is asked
once per part, unless the verdict cache already held it when the part's chunk was planned
(which is before the chunk ahead of it is stored: what a chunk reads from the cache never
depends on how fast the workers were). An input no longer than a chunk is checked as one;
`check_items` is the whole input as one chunk, its rows in a list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path

from refinery.check.batches import CheckBatch, CheckJob, CheckPlan, check_batch, plan_check
from refinery.check.row import CheckRow
from refinery.check.stage import ProverFactory
from refinery.datasets.records import Item
from refinery.parallel import StoryPool
from refinery.prove.verdict import Budget

#: Items per chunk: enough stories to keep every worker busy, few enough rows to hold.
CHUNK_ITEMS = 4000

#: How a chunk's stories to check reach the workers: handed over at once, their batches' results
#: as they come. This machine's pool by default; a cluster's task runner in `flows.cluster`.
Dispatch = Callable[[list[list[Item]], CheckJob], Iterator[CheckBatch]]


def chunks(items: Iterable[Item], size: int = CHUNK_ITEMS) -> Iterator[list[Item]]:
    """Consecutive items, about `size` at a time, a chunk ending only where the story changes.

    >>> from types import SimpleNamespace as Story
    >>> its = [Story(dataset="d", split="s", story_id=story) for story in "aabbbc"]
    >>> [[it.story_id for it in c] for c in chunks(its, 2)]
    [['a', 'a'], ['b', 'b', 'b'], ['c']]
    """
    chunk: list[Item] = []
    for item in items:
        if len(chunk) >= size and _story(chunk[-1]) != _story(item):
            yield chunk
            chunk = []
        chunk.append(item)
    if chunk:
        yield chunk


def _story(item: Item) -> tuple[str, str, str]:
    return item.dataset, item.split, item.story_id


def check_stream(
    items: Iterable[Item],
    *,
    prover_factory: ProverFactory,
    prover_names: Sequence[str],
    budget: Budget,
    workers: int = 1,
    cache_path: Path | None = None,
    on_progress: Callable[[int], None] | None = None,
    evidence: bool = True,
    dataset_column: bool = False,
    chunk_items: int = CHUNK_ITEMS,
    on_cached: Callable[[int], None] | None = None,
    dispatch: Dispatch | None = None,
) -> Iterator[CheckRow]:
    """Every item's `CheckRow`, in input order, a chunk at a time (see the module docstring).

    The parameters are `check_items`'; `dispatch` replaces this machine's pool of `workers`
    (a cluster's, `flows.cluster`); `dataset_column` gives every row a `label_dataset`
    (empty for an item whose dataset has no semantics of its own), as `check_items` does when
    some item of the input has one: a streamed table's columns are fixed by its first row;
    `on_cached` is called with the items each chunk answers from the row cache (see
    `plan_check`), so a resumed run shows what it did not redo.
    """
    in_flight: tuple[CheckPlan, Iterator[CheckBatch]] | None = None
    with StoryPool(workers) as pool:
        start = dispatch or partial(_on_pool, pool)
        for chunk in chunks(items, chunk_items):
            plan = plan_check(
                chunk,
                prover_factory=prover_factory,
                prover_names=prover_names,
                budget=budget,
                cache_path=cache_path,
                on_progress=on_progress,
                evidence=evidence,
                on_cached=on_cached,
            )
            # started before the chunk in flight is taken in, so the workers have stories
            # while this process stores and writes that chunk's rows
            started = start(plan.pending, plan.job)
            if in_flight is not None:
                yield from _taken_in(*in_flight, dataset_column)
            in_flight = plan, started
        if in_flight is not None:
            yield from _taken_in(*in_flight, dataset_column)


def _on_pool(pool: StoryPool, stories: list[list[Item]], job: CheckJob) -> Iterator[CheckBatch]:
    """`Dispatch` to this machine's pool: a story per task, results in completion order."""
    return pool.start(stories, partial(check_batch, job=job))


def _taken_in(
    plan: CheckPlan, batches: Iterator[CheckBatch], dataset_column: bool
) -> Iterator[CheckRow]:
    """A chunk's rows in input order, once its batches are stored (see `check_stream`)."""
    for batch in batches:
        plan.add(batch)
    for row in plan.finish():
        if dataset_column and row.label_dataset is None:
            row = row.replace(label_dataset="")
        yield row


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
    `CheckPlan.add`, `CheckPlan.finish`), with a story per batch on a local pool: the streamed
    check (`refinery.check.stream.check_stream`) with the whole input as one chunk.

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
    return list(
        check_stream(
            items,
            prover_factory=prover_factory,
            prover_names=prover_names,
            budget=budget,
            workers=workers,
            cache_path=cache_path,
            on_progress=on_progress,
            evidence=evidence,
            chunk_items=max(1, len(items)),  # one chunk: every story whole
        )
    )
