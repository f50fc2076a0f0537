"""Check and repair stages on a Dask or Ray cluster: the task runner, batches, the shared API.

A stage runs its driver steps here, in the flow's process (the caches answer what they can; the
driver stores every result), and maps story batches on a `prefect-dask` / `prefect-ray` task
runner that lives as long as the stage. Batch size adapts to the cluster:
`refinery.parallel.story_batches` makes about four batches per worker thread for a repair, two
for a check (more for big runs). Results are stored by the driver as each batch completes. A
fully cached stage starts no cluster. The check stage streams (`check_on_cluster`: a chunk is
read, planned and sent while the cluster checks the one before); the repair stage's driver tasks
(`plan-repair`, `finish-repair`) take the run's items, rows and plans `quote`d: Prefect would
otherwise walk every one of them for futures, seconds on a large input.

Workers report their task runs to the flow's Prefect API. Without `PREFECT_API_URL` the flow
runs on Prefect's temporary server; its address is handed to the workers (`api_for_workers`), so
the batches show under the flow run. Workers on other machines need a server they can reach:
`prefect server start --host 0.0.0.0` and `PREFECT_API_URL` (see the README).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path
from typing import Any, TypeVar

from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings
from prefect.task_runners import TaskRunner
from prefect.tasks import Task

from refinery.check import CheckBatch, CheckJob, CheckRow, check_stream
from refinery.check.stream import CHUNK_ITEMS
from refinery.datasets.records import Item
from refinery.outcomes import Outcome
from refinery.parallel import TaskRunnerSpec, story_batches
from refinery.pipeline import RefineSettings
from refinery.prove.verdict import Budget
from tasks.batches import (
    LLM_TAG,
    Cargo,
    check_batch_task,
    finish_repair_task,
    plan_repair_task,
    repair_batch_task,
    unwalked,
)
from vampire.registry import build_provers

R = TypeVar("R")

#: Dask's housekeeping, thinned for a cluster a run starts itself, in its workers and in the
#: run's process (its scheduler and nannies). Each wakeup takes the GIL from the checker, or a
#: core from a prover on a machine the run fills (docs/benchmarks.md, "Checking at scale").
QUIET: dict[str, Any] = {
    # every task's stack sampled 100 times a second, for a dashboard profile no run shows
    "distributed.worker.profile.enabled": False,
    # whether the event loop is blocked, every 20 ms; system metrics every 0.5 s
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    # a worker's memory is still watched (and a runaway one stopped), once a second, not ten
    "distributed.worker.memory.monitor-interval": "1s",
}
#: And what a nanny puts in a worker's environment before starting it: Dask sets
#: `MALLOC_TRIM_THRESHOLD_=65536` so a worker gives memory back at once, and every Z3 context a
#: question opens then pays for its pages again (7.4 ms a context against 1.8 ms: on ProofWriter,
#: a sixth of the checking thread's CPU). None unsets it: glibc's own threshold.
NANNY: dict[str, Any] = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}


def task_runner(spec: TaskRunnerSpec, workers: int) -> TaskRunner[Any]:
    """The Prefect task runner `spec` names; `dask` / `ray` start `workers` local processes."""
    if spec.kind == "dask":
        from prefect_dask.task_runners import DaskTaskRunner

        # the scheduler's and nannies' INFO lines would bury the run's own log
        logging.getLogger("distributed").setLevel(logging.WARNING)

        if spec.address:
            return DaskTaskRunner(address=spec.address)
        return DaskTaskRunner(cluster_kwargs=local_cluster_options(workers))
    if spec.kind == "ray":
        try:
            from prefect_ray import RayTaskRunner
        except ImportError as err:
            from refinery.errors import ConfigError

            raise ConfigError(
                "--task-runner ray needs the ray extra: pip install 'fol-refinery[ray]'"
            ) from err
        init: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if not spec.address:
            init["num_cpus"] = workers
        ray_runner: TaskRunner[Any] = RayTaskRunner(address=spec.address, init_kwargs=init)
        return ray_runner
    raise ValueError(f"not a cluster task runner: {spec}")


def local_cluster_options(workers: int) -> dict[str, Any]:
    """How a run starts its own Dask `LocalCluster` of `workers` processes on this machine."""
    return {
        "n_workers": workers,
        # one thread per worker process: provers are CPU-bound, and Z3 is not thread-safe
        "threads_per_worker": 1,
        "processes": True,
        "host": "127.0.0.1",
        "dashboard_address": None,
        # a worker imports the batch code (Prefect, Z3, the checker) as it starts, not inside
        # its first batch: a second of every cold worker
        "preload": ["tasks.batches"],
        "config": QUIET,
    }


@contextmanager
def local_cluster_config() -> Iterator[None]:
    """Dask's configuration for a `LocalCluster` started in this process (`QUIET`, `NANNY`)."""
    import dask

    with dask.config.set({**QUIET, **NANNY}):
        yield


def slots(runner: TaskRunner[Any]) -> int:
    """How many batches the started runner's cluster runs at once (its worker threads / CPUs)."""
    client = getattr(runner, "client", None)
    if client is not None:  # Dask
        threads: dict[str, int] = client.nthreads()
        return max(1, sum(threads.values()))
    import ray

    cpus = ray.cluster_resources().get("CPU", 1)  # type: ignore[no-untyped-call]
    return max(1, int(cpus))


@contextmanager
def api_for_workers() -> Iterator[None]:
    """Make the flow's API address explicit, so workers report to it and start no server.

    Task runs carry the flow's settings to the workers; in ephemeral mode those name no API,
    and each worker would start a temporary server of its own. Name the flow's instead.
    """
    if get_current_settings().api.url:
        yield
        return
    from prefect.server.api.server import SubprocessASGIServer

    server = SubprocessASGIServer()  # the one the flow already runs on (a singleton)
    server.start()
    with temporary_settings({PREFECT_API_URL: server.api_url}):
        yield


@contextmanager
def cluster(spec: TaskRunnerSpec, workers: int) -> Iterator[tuple[TaskRunner[Any], int]]:
    """A started task runner for `spec` and its number of parallel slots."""
    own = spec.kind == "dask" and not spec.address  # a LocalCluster of the run's own
    config = local_cluster_config() if own else nullcontext()
    with api_for_workers(), config, task_runner(spec, workers) as runner:
        yield runner, slots(runner)


def map_batches(
    runner: TaskRunner[Any], task: Task[..., R], batches: Sequence[Any], job: Any, first: int = 0
) -> Iterator[R]:
    """Submit every batch now (numbered from `first`); their results in order as asked (a
    failure raises).

    In order, not as completed: waiting on each future rides out a lost worker, whose batch the
    scheduler runs again, where completion callbacks can miss the re-run.
    """
    futures = [
        runner.submit(task, {"index": first + i, "stories": Cargo(batch), "job": job})
        for i, batch in enumerate(batches)
    ]
    return (future.result() for future in futures)


class ClusterDispatch:
    """Check batches on the cluster `spec` names, started at the first stories to check: a run
    the caches answer whole starts none. A `refinery.check.stream.Dispatch`; use it in `with`.
    """

    def __init__(self, spec: TaskRunnerSpec, workers: int) -> None:
        self.spec, self.workers = spec, workers
        self._stack = ExitStack()
        self._runner: TaskRunner[Any] | None = None
        self._slots = 1
        self._submitted = 0

    def __enter__(self) -> ClusterDispatch:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.__exit__(*exc)

    def __call__(self, stories: list[list[Item]], job: CheckJob) -> Iterator[CheckBatch]:
        if not stories:
            return iter(())
        if self._runner is None:
            self._runner, self._slots = self._stack.enter_context(cluster(self.spec, self.workers))
        # each batch costs a Prefect task run on its worker (a client, a run record, about
        # 0.2 s): two a slot, not four, as a check's stories weigh about alike; a chunk ends
        # after a story, so a little over `chunk_items` still makes two a slot
        batches = story_batches(stories, self._slots, per_slot=2, max_items=BATCH_ITEMS * 5 // 4)
        first, self._submitted = self._submitted, self._submitted + len(batches)
        return map_batches(self._runner, check_batch_task, batches, job, first)


#: Items in a cluster check's batch: a few seconds of a worker's time, a result of some 15 MB.
BATCH_ITEMS = 2000


def chunk_items(workers: int) -> int:
    """Items a cluster check plans at a time: two batches a worker, `CHUNK_ITEMS` at least
    (`--workers` sizes the chunks of a cluster named by its address too)."""
    return max(CHUNK_ITEMS, 2 * BATCH_ITEMS * workers)


def check_on_cluster(
    items: Iterable[Item],
    provers: list[str],
    budget: Budget,
    cache: Path | None,
    spec: TaskRunnerSpec,
    workers: int,
    evidence: bool = True,
    *,
    chunk: int | None = None,
    dataset_column: bool = False,
) -> list[CheckRow]:
    """The check stage with its batches on the cluster `spec` names (`workers`: a new one's size).

    Streamed as `refinery check` streams (`refinery.check.stream`): a chunk's batches go out as
    soon as it is read and planned, and the driver stores one chunk while the cluster checks the
    next. `chunk`: items a chunk (`chunk_items` by default; refine checks its items as one, as
    `check_items` does); `dataset_column` is `check_stream`'s.
    """
    with ClusterDispatch(spec, workers) as dispatch:
        return list(
            check_stream(
                items,
                prover_factory=build_provers,
                prover_names=provers,
                budget=budget,
                cache_path=cache,
                evidence=evidence,
                dataset_column=dataset_column,
                chunk_items=chunk or chunk_items(workers),
                dispatch=dispatch,
            )
        )


def repair_on_cluster(
    items: list[Item], rows: list[CheckRow], settings: RefineSettings
) -> list[Outcome]:
    """The repair stage with its batches on the cluster the settings name."""
    config = settings.repair_config()
    caches = (settings.cache_path(), settings.outcome_cache_path())
    plan = plan_repair_task(
        unwalked(items), unwalked(rows), list(settings.provers), settings.budget(), config, caches,
        settings.llm_concurrency,
    )  # fmt: skip
    task = repair_batch_task
    if "llm" in config.agents:
        task = repair_batch_task.with_options(tags={LLM_TAG})
    if plan.pending:
        with cluster(settings.runner(), settings.workers) as (runner, n):
            for result in map_batches(runner, task, story_batches(plan.pending, n), plan.job):
                plan.add(result)
    return [o.replace(run_id=settings.run_id) for o in finish_repair_task(unwalked(plan))]
