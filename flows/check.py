"""The check flow: `refinery check --task-runner dask|ray|…` runs here, batches on a cluster.

Loads every source, then the check stage of flows.cluster (the driver answers unchanged stories
from its caches and stores every batch's results); returns the rows, which the command writes
exactly as a local run does. A local check needs no flow (refinery.cli.check).
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow

from flows.cluster import check_on_cluster
from refinery.check import CheckRow
from refinery.datasets.records import Item
from refinery.parallel import parse_task_runner
from refinery.prove.verdict import Budget
from tasks.batches import Cargo
from tasks.refine import load_items


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

    `evidence=False` decides labels only (`refinery check --no-evidence`).
    """
    items: list[Item] = []
    for source in sources:
        items += load_items(source).items
    budget = Budget(seconds=budget_seconds, rlimit=rlimit)
    spec = parse_task_runner(task_runner)
    cache_path = Path(cache) if cache else None
    return Cargo(check_on_cluster(items, provers, budget, cache_path, spec, workers, evidence))
