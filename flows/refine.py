"""The refine flow: raw data → checked → repaired → refined split, review queue and report.

Reads like the pipeline it runs; every step is a task over one core function (refinery.pipeline
and friends), and the flow itself never looks at a verdict: it branches on where the work runs
(`settings.task_runner`: this machine's pool, or story batches on a cluster, flows.cluster) and
on the run-level decision that refinery.runs.changes makes.

After the outputs are written, the run is compared with the previous run of its split
(refinery.runs.changes): changes.md / changes.json in the run folder and a `refine-changes` artifact.
The run folder is built aside and renamed into place by the `finish-run` task once the report
and the changes are in it (refinery.pipeline), so a run that dies half-way leaves no run folder.
With `settings.fail_on_new_conflicts` (scheduled deployments), new conflicts end the run in a
Failed state: the flow *returns* `Failed(message=..., data=summary)` rather than raising, so the
server shows a plain Failed run with the reason as its state message (no traceback), and the
summary stays readable from the state; a `refine-new-conflicts` artifact says why.
"""

from __future__ import annotations

from typing import Any, cast

from prefect import flow, get_run_logger
from prefect.states import Failed

from flows.cluster import check_on_cluster, repair_on_cluster
from refinery import pipeline
from refinery.agents.endpoint import llm_endpoint
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


@flow(name="refine")
def refine_flow(settings: pipeline.RefineSettings) -> dict[str, Any]:
    """Run every stage of Refine for one source; return the run summary (or Failed, see above)."""
    loaded = load_items(settings.source)
    items = list(loaded.items)
    settings = pipeline.resolve_outputs(settings, loaded)
    validated = settings.validation_cache_path()
    input_validation = validate_input_task(items, validated)
    spec = settings.runner()  # local: one task over this machine's pool; else batches on a cluster
    provers, budget, cache = list(settings.provers), settings.budget(), settings.cache_path()
    if spec.distributed:
        rows = check_on_cluster(items, provers, budget, cache, spec, settings.workers)
    else:
        rows = check_task(items, provers, budget, settings.workers, cache)
    llm_cache, choice = settings.llm_cache_path(), settings.llm
    with llm_endpoint(settings.agents, cache_path=llm_cache, choice=choice) as endpoint:
        settings = settings.with_endpoint(endpoint)  # the run's files name the model
        if spec.distributed:
            outcomes = repair_on_cluster(items, rows, settings)
        else:
            outcomes = repair_task(items, rows, settings)
    with pipeline.building(settings):  # a failed step leaves no staging folder
        written = write_outputs_task(items, outcomes, settings)
        output_validation = validate_output_task(written["outcomes"], validated)
        report = write_report_task(
            written["outcomes"], {"input": input_validation, "output": output_validation}, settings
        )
        changes = changes_task(written["outcomes"], rows, settings)
        finish_run_task(settings)
    publish_artifacts_task(written["outcomes"], report["markdown"])
    failure = changes.failure_message(fail_on_new_conflicts=settings.fail_on_new_conflicts)
    publish_changes_task(changes, failure)
    summary = pipeline.run_summary(
        written["outcomes"], settings, written, report, changes.to_dict()
    )
    # one line for the flow's log; the summary itself is the `refine-outcomes` artifact (and
    # what `refinery refine` prints once)
    get_run_logger().info(pipeline.headline(summary))
    if failure:
        # Prefect makes a returned state the run's final state; a direct call then raises
        # FailedRun, and `return_state=True` gives the state with the summary as its result
        return cast(dict[str, Any], Failed(message=failure, data=summary))
    return summary
