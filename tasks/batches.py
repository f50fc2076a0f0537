"""Tasks of a cluster run: the driver's cache-first steps, and story batches for the workers.

`plan-repair` and `finish-repair` run in the flow's process (the driver): they read the caches
before any batch is submitted and write every result after, so SQLite is written by one process
only (a cluster check's driver does the same, streamed: `flows.cluster.check_on_cluster`).
`check-batch` / `repair-batch` are mapped on the cluster's task runner and write no cache. A
batch that fails because its worker lacks a prover says which worker it was. Prefect retries a
batch only on an operating-system error (a fork or a file limit on a busy worker); a lost
worker's batch is re-run by the cluster's scheduler, and a prover timeout is a verdict, so
neither is retried here.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Generic, TypeVar, cast
from uuid import uuid4

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from refinery.check import CheckBatch, CheckJob, CheckRow, check_batch
from refinery.datasets.records import Item
from refinery.errors import ProverUnavailable
from refinery.outcomes import Outcome
from refinery.prove.verdict import Budget
from refinery.repair import RepairConfig
from refinery.repair.batches import (
    Pending,
    RepairBatch,
    RepairJob,
    RepairPlan,
    plan_repair,
    repair_batch,
)
from vampire.registry import build_provers

T = TypeVar("T")


class Cargo(Generic[T]):
    """A value Prefect and Dask carry as one object, unopened: a batch's stories to a worker,
    the check flow's rows back to the command.

    Prefect walks every task parameter and every flow's return value for futures, and Dask
    hashes (or rebuilds) the arguments of a task it is given; on a thousand items each walk
    costs the driver about a second of CPU that its workers need (on 10,000 ProofWriter
    questions, 6 of the 7 seconds a cluster run spent submitting, and 4 s after the flow
    returned its rows). Nothing in it is a future, so it goes whole, with a token of its own.
    """

    __slots__ = ("value", "_token")

    def __init__(self, value: T) -> None:
        self.value = value
        self._token = uuid4().hex

    def __dask_tokenize__(self) -> str:
        return self._token


def unwalked(value: T) -> T:
    """`value` for a task in the driver's process, `quote`d: Prefect hands it over as it is
    instead of walking it for futures (seconds on ten thousand rows). Typed as the value,
    which is what the task receives."""
    return cast(T, quote(value))


#: The Prefect global concurrency limit that LLM requests of a cluster run take a slot from.
LLM_LIMIT = "refinery-llm"
#: The tag repair batches carry when they may call the LLM.
LLM_TAG = "llm"


def worker_name() -> str:
    """Which worker this is, for error messages: the Dask worker's address, else host and pid."""
    if "distributed" in sys.modules:
        from distributed import get_worker

        try:
            return f"dask worker {get_worker().address} ({socket.gethostname()})"
        except ValueError:  # not inside a Dask worker
            pass
    if "ray" in sys.modules:
        import ray

        if ray.is_initialized():
            return f"ray node {ray.get_runtime_context().get_node_id()} ({socket.gethostname()})"
    return f"{socket.gethostname()} (pid {os.getpid()})"


@contextmanager
def named_worker() -> Iterator[None]:
    """Re-raise a missing prover with the worker's name, so the run says where to install it."""
    try:
        yield
    except ProverUnavailable as err:
        raise ProverUnavailable(f"on {worker_name()}: {err}") from err


def retry_on_os_error(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect retry condition: an operating-system error (resources) only, never bad data."""
    try:
        state.result()
    except OSError:
        return True
    except Exception:  # noqa: BLE001 - a bug or a missing prover: retrying cannot help
        return False
    return False


def llm_slot() -> AbstractContextManager[None]:
    """One slot of the LLM concurrency limit, held for one HTTP request (strict: it must exist)."""
    from prefect.concurrency.sync import concurrency

    return concurrency(LLM_LIMIT, occupy=1, strict=True)


@task(
    name="check-batch",
    task_run_name="check-batch-{index}",
    cache_policy=NO_CACHE,
    retries=2,
    retry_delay_seconds=1,
    retry_condition_fn=retry_on_os_error,
)
def check_batch_task(
    index: int, stories: Cargo[Sequence[Sequence[Item]]], job: CheckJob
) -> CheckBatch:
    """Check a batch of whole stories on a worker."""
    with named_worker():
        return check_batch(stories.value, job)


@task(name="plan-repair", cache_policy=NO_CACHE)
def plan_repair_task(
    items: list[Item],
    rows: list[CheckRow],
    provers: list[str],
    budget: Budget,
    config: RepairConfig,
    caches: tuple[Path | None, Path | None],
    llm_limit: int | None,
) -> RepairPlan:
    """Unchanged stories from the outcome cache; the rest to repair (with the LLM limit set)."""
    if llm_limit and "llm" in config.agents:
        from prefect.client.orchestration import get_client

        with get_client(sync_client=True) as client:
            client.upsert_global_concurrency_limit_by_name(LLM_LIMIT, llm_limit)
    return plan_repair(items, rows, prover_factory=build_provers, prover_names=provers,
                       budget=budget, config=config, cache_path=caches[0], outcome_cache=caches[1],
                       llm_gate=llm_slot if llm_limit else None)  # fmt: skip


@task(
    name="repair-batch",
    task_run_name="repair-batch-{index}",
    cache_policy=NO_CACHE,
    retries=2,
    retry_delay_seconds=1,
    retry_condition_fn=retry_on_os_error,
)
def repair_batch_task(index: int, stories: Cargo[Sequence[Pending]], job: RepairJob) -> RepairBatch:
    """Repair a batch of whole stories on a worker."""
    with named_worker():
        return repair_batch(stories.value, job)


@task(name="finish-repair", cache_policy=NO_CACHE)
def finish_repair_task(plan: RepairPlan) -> list[Outcome]:
    """Every outcome in input order."""
    return plan.finish()
