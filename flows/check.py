"""The check flow: `refinery check --task-runner dask|ray|…` runs here, batches on a cluster.

Reads its sources a row at a time and checks them a chunk at a time on the cluster
(flows.cluster.check_on_cluster: the driver answers unchanged stories from its caches and
stores every batch's results); returns the rows, which the command writes exactly as a local
run does. A local check needs no flow (refinery.cli.check).
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, get_run_logger

from flows.cluster import check_on_cluster
from refinery.check import CheckRow
from refinery.datasets import stream_sources
from refinery.parallel import parse_task_runner
from refinery.prove.verdict import Budget
from tasks.batches import Cargo


@flow(name="check", log_prints=True)
def check_flow(
    sources: list[str],
    provers: list[str],
    budget_seconds: float,
    rlimit: int | None,
    workers: int,
    cache: str | None,
    task_runner: str,
    evidence: bool = True,
) -> Cargo[list[CheckRow]]:
    """Check every item of the sources on the cluster `task_runner` names; rows in input order
    (in a `Cargo`: Prefect would walk every row of a returned list).

    `evidence=False` decides labels only (`refinery check --no-evidence`). Each unreadable row
    is a warning in the run's log; a source without a readable row fails the run (`DataError`).
    """
    logger = get_run_logger()
    found = stream_sources(sources, lambda error: logger.warning(f"skipped row: {error}"))
    budget = Budget(seconds=budget_seconds, rlimit=rlimit)
    rows = check_on_cluster(
        found.items,
        provers,
        budget,
        Path(cache) if cache else None,
        parse_task_runner(task_runner),
        workers,
        evidence,
        dataset_column=found.semantics,
    )
    return Cargo(rows)
