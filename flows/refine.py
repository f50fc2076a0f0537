"""The refine flow: raw data → checked → repaired → refined split, review queue and report.

Reads like the pipeline it runs; every step is a task over one core function (refinery.pipeline
and friends), and the flow itself never looks at a verdict.
"""

from __future__ import annotations

from typing import Any

from prefect import flow

from refinery import pipeline
from refinery.agents.endpoint import llm_endpoint
from tasks.refine import (
    check_task,
    load_items,
    publish_artifacts_task,
    repair_task,
    validate_input_task,
    validate_output_task,
    write_outputs_task,
    write_report_task,
)


@flow(name="refine", log_prints=True)
def refine_flow(settings: pipeline.RefineSettings) -> dict[str, Any]:
    """Run every stage of Refine for one source; return the run summary."""
    loaded = load_items(settings.source)
    items = list(loaded.items)
    settings = pipeline.resolve_outputs(settings, loaded)
    input_validation = validate_input_task(items)
    rows = check_task(
        items, list(settings.provers), settings.budget(), settings.workers, settings.cache_path()
    )
    with llm_endpoint(settings.agents, cache_path=settings.llm_cache_path()) as endpoint:
        outcomes = repair_task(items, rows, settings.with_endpoint(endpoint))
    written = write_outputs_task(items, outcomes, settings)
    output_validation = validate_output_task(written["outcomes"])
    report = write_report_task(
        written["outcomes"], {"input": input_validation, "output": output_validation}, settings
    )
    publish_artifacts_task(written["outcomes"], report["markdown"])
    summary = pipeline.run_summary(written["outcomes"], settings, written, report)
    print(pipeline.format_summary(summary))
    return summary
