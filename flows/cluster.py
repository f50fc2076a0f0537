"""Check and repair stages on a Dask or Ray cluster: the task runner, batches, the shared API.

A stage runs its driver steps here, in the flow's process (`plan-*`: the caches answer what they
can; `finish-*`), and maps story batches on a `prefect-dask` / `prefect-ray` task runner that
lives as long as the stage. Batch size adapts to the cluster: `refinery.parallel.story_batches`
makes about four batches per worker thread (more for big runs). Results are stored by the driver
as each batch completes. A fully cached stage starts no cluster. The driver's tasks take the
run's items, rows and plans `quote`d: Prefect would otherwise walk every one of them for
futures, seconds on a large input.

Workers report their task runs to the flow's Prefect API. Without `PREFECT_API_URL` the flow
runs on Prefect's temporary server; its address is handed to the workers (`api_for_workers`), so
the batches show under the flow run. Workers on other machines need a server they can reach:
`prefect server start --host 0.0.0.0` and `PREFECT_API_URL` (see the README).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, TypeVar

from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings
from prefect.task_runners import TaskRunner
from prefect.tasks import Task

from refinery.check import CheckRow
from refinery.datasets.records import Item
from refinery.outcomes import Outcome
from refinery.parallel import TaskRunnerSpec, story_batches
from refinery.pipeline import RefineSettings
from refinery.prove.verdict import Budget
from tasks.batches import (
    LLM_TAG,
    Cargo,
    check_batch_task,
    finish_check_task,
    finish_repair_task,
    plan_check_task,
    plan_repair_task,
    repair_batch_task,
    unwalked,
)

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
    runner: TaskRunner[Any], task: Task[..., R], batches: Sequence[Any], job: Any
) -> Iterator[R]:
    """Submit every batch, then yield their results in order (a failure raises).

    In order, not as completed: waiting on each future rides out a lost worker, whose batch the
    scheduler runs again, where completion callbacks can miss the re-run.
    """
    futures = [
        runner.submit(task, {"index": i, "stories": Cargo(batch), "job": job})
        for i, batch in enumerate(batches)
    ]
    for future in futures:
        yield future.result()


def check_on_cluster(
    items: list[Item],
    provers: list[str],
    budget: Budget,
    cache: Path | None,
    spec: TaskRunnerSpec,
    workers: int,
    evidence: bool = True,
) -> list[CheckRow]:
    """The check stage with its batches on the cluster `spec` names (`workers`: a new one's size)."""
    plan = plan_check_task(unwalked(items), provers, budget, cache, evidence)
    if plan.pending:
        with cluster(spec, workers) as (runner, n):
            # each batch costs a Prefect task run on its worker (a client, a run record, about
            # 0.4 s): two a slot, not four, as a check's stories weigh about alike
            batches = story_batches(plan.pending, n, per_slot=2)
            for result in map_batches(runner, check_batch_task, batches, plan.job):
                plan.add(result)
    return finish_check_task(unwalked(plan))


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
