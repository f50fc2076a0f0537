"""The refine flow: raw data → checked → repaired → refined split, review queue and report.

The steps and their order are `refinery.pipeline.run_refine`'s, the same the in-process run
follows; here every step is a task over one core function (`TaskSteps`), and the flow itself
never looks at a verdict: it branches on where the work runs (`settings.task_runner`: this
machine's pool, or story batches on a cluster, flows.cluster) and on the run-level decision that
refinery.runs.changes makes.

After the outputs are written, the run is compared with the previous run of its split
(refinery.runs.changes): changes.md / changes.json in the run folder and a `refine-changes-<dataset>-<split>` artifact.
The run folder is built aside and renamed into place by the `finish-run` task once the report
and the changes are in it (refinery.pipeline), so a run that dies half-way leaves no run folder.
With `settings.fail_on_new_conflicts` (scheduled deployments), new conflicts end the run in a
Failed state: the flow *returns* `Failed(message=..., data=summary)` rather than raising, so the
server shows a plain Failed run with the reason as its state message (no traceback), and the
summary stays readable from the state; a `refine-new-conflicts-<dataset>-<split>` artifact says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from prefect import flow, get_run_logger
from prefect.states import Failed

from flows.cluster import check_on_cluster, repair_on_cluster
from refinery import pipeline
from refinery.check import CheckRow
from refinery.datasets.records import Item, LoadResult
from refinery.errors import RefineryError
from refinery.outcomes import Outcome
from refinery.runs.changes import Changes
from tasks.batches import unwalked
from tasks.refine import (
    changes_task,
    check_task,
    finish_run_task,
    load_items,
    publish_artifacts_task,
    publish_changes_task,
    repair_task,
    validate_input_task,
    validate_output_task,
    write_outputs_task,
    write_report_task,
)


@dataclass(frozen=True)
class TaskSteps:
    """The refine steps as Prefect tasks (`refinery.pipeline.Steps`); check and repair go to
    story batches on a cluster when `settings.task_runner` names one (flows.cluster). Items,
    rows and outcomes go in `quote`d: Prefect would walk each of them for futures."""

    def load(self, source: str) -> LoadResult:
        return load_items(source)

    def validate_input(self, items: list[Item], cache: Path | None) -> dict[str, Any]:
        return validate_input_task(unwalked(items), cache)

    def check(self, items: list[Item], settings: pipeline.RefineSettings) -> list[CheckRow]:
        spec = settings.runner()  # local: one task over this machine's pool
        provers, budget, cache = list(settings.provers), settings.budget(), settings.cache_path()
        if spec.distributed:
            # every story whole, in one chunk, as the local check (`check_items`)
            workers, whole = settings.workers, max(1, len(items))
            return check_on_cluster(items, provers, budget, cache, spec, workers, chunk=whole)
        return check_task(unwalked(items), provers, budget, settings.workers, cache)

    def repair(
        self, items: list[Item], rows: list[CheckRow], settings: pipeline.RefineSettings
    ) -> list[Outcome]:
        if settings.runner().distributed:
            return repair_on_cluster(items, rows, settings)
        return repair_task(unwalked(items), unwalked(rows), settings)

    def write_outputs(
        self, items: list[Item], outcomes: list[Outcome], settings: pipeline.RefineSettings
    ) -> dict[str, Any]:
        return write_outputs_task(unwalked(items), unwalked(outcomes), settings)

    def validate_output(self, outcomes: list[Outcome], cache: Path | None) -> dict[str, Any]:
        return validate_output_task(unwalked(outcomes), cache)

    def write_report(
        self,
        outcomes: list[Outcome],
        validations: dict[str, Any],
        settings: pipeline.RefineSettings,
    ) -> dict[str, str]:
        return write_report_task(unwalked(outcomes), validations, settings)

    def compare(
        self, outcomes: list[Outcome], rows: list[CheckRow], settings: pipeline.RefineSettings
    ) -> Changes:
        return changes_task(unwalked(outcomes), unwalked(rows), settings)

    def finish(self, settings: pipeline.RefineSettings, outcomes: list[Outcome]) -> dict[str, int]:
        return finish_run_task(settings, unwalked(outcomes))


@flow(name="refine")
def refine_flow(settings: pipeline.RefineSettings) -> dict[str, Any]:
    """Run every stage of Refine for one source; return the run summary (or Failed, see above)."""
    try:
        finished = pipeline.run_refine(settings, TaskSteps())
    except RefineryError as err:
        # bad input or settings, said in one line: the run fails with it as its message and
        # result, and no traceback (it is no crash); `refinery refine` prints it, exit 2
        get_run_logger().error(str(err))
        return cast(dict[str, Any], Failed(message=str(err), data=err))
    assert finished.changes is not None  # the flow always compares with the previous run
    failure = finished.failure()
    try:
        publish_artifacts_task(unwalked(finished.outcomes), finished.report["markdown"])
        publish_changes_task(finished.changes, failure, unwalked(finished.outcomes))
    except Exception as exc:  # noqa: BLE001 - the run is complete: its artifacts are extras
        get_run_logger().warning(
            f"the run is complete in {finished.settings.out_dir}, but its Prefect artifacts "
            f"could not be published ({type(exc).__name__}: {exc})"
        )
    summary = finished.summary()
    # one line for the flow's log; the summary itself is the `refine-outcomes-<dataset>-<split>` artifact (and
    # what `refinery refine` prints once)
    get_run_logger().info(pipeline.headline(summary))
    if failure:
        # Prefect makes a returned state the run's final state; a direct call then raises
        # FailedRun, and `return_state=True` gives the state with the summary as its result
        return cast(dict[str, Any], Failed(message=failure, data=summary))
    return summary
