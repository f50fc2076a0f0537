"""Tasks of the refine flow: each is a thin wrapper over one core function."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from refinery import pipeline
from refinery.check import check_items
from refinery.datasets import load_any
from refinery.datasets.records import Item, LoadResult
from refinery.outcomes import Outcome, summary_table
from refinery.prove.verdict import Budget
from refinery.runs.changes import Changes, cache_reuse, changes_since_previous, write_changes
from refinery.validation import validate_input, validate_output
from vampire.registry import build_provers


@task(name="load")
def load_items(source: str) -> LoadResult:
    """Load the source; each malformed row is reported and skipped."""
    return pipeline.load_checked(load_any, source)


@task(name="validate-input")
def validate_input_task(items: list[Item]) -> dict[str, Any]:
    """Great Expectations suite over the raw items."""
    return validate_input(items)


@task(name="check")
def check_task(
    items: list[Item], provers: list[str], budget: Budget, workers: int, cache: Path | None
) -> list[dict[str, Any]]:
    """Parse, lint and prove every item."""
    return check_items(
        items,
        prover_factory=build_provers,
        prover_names=provers,
        budget=budget,
        workers=workers,
        cache_path=cache,
    )


@task(
    name="repair",
    retries=2,
    retry_delay_seconds=2,
    retry_condition_fn=pipeline.retry_on_llm_transport,
)
def repair_task(
    items: list[Item], rows: list[dict[str, Any]], settings: pipeline.RefineSettings
) -> list[Outcome]:
    """The critique → refine → re-check loop over the conflicting items."""
    return pipeline.repair(items, rows, settings, build_provers)


@task(name="write-outputs")
def write_outputs_task(
    items: list[Item], outcomes: list[Outcome], settings: pipeline.RefineSettings
) -> dict[str, Any]:
    """Refined split, audit trail and review queue."""
    return pipeline.write_outputs(items, outcomes, settings)


@task(name="validate-output")
def validate_output_task(outcomes: list[Outcome]) -> dict[str, Any]:
    """Great Expectations suite over the outcomes."""
    return validate_output(outcomes)


@task(name="write-report")
def write_report_task(
    outcomes: list[Outcome], validations: dict[str, Any], settings: pipeline.RefineSettings
) -> dict[str, str]:
    """report.md, report.html and the PNG charts."""
    return pipeline.write_run_report(outcomes, validations, settings)


@task(name="publish-artifacts")
def publish_artifacts_task(outcomes: list[Outcome], report_md: str) -> None:
    """Summary table and report as Prefect artifacts."""
    create_table_artifact(
        key="refine-outcomes", table=summary_table(outcomes), description="Outcome counts"
    )
    create_markdown_artifact(
        key="refine-report", markdown=Path(report_md).read_text(encoding="utf-8")
    )


@task(name="compare-with-previous")
def changes_task(
    outcomes: list[Outcome], rows: list[dict[str, Any]], settings: pipeline.RefineSettings
) -> Changes:
    """Changes since the previous run of the split; changes.md and changes.json in the run folder."""
    assert settings.out_dir, "call resolve_outputs first"
    out = Path(settings.out_dir)
    changes = changes_since_previous(out, outcomes, run_id=settings.run_id, cache=cache_reuse(rows))
    write_changes(out, changes)
    return changes


@task(name="publish-changes")
def publish_changes_task(changes: Changes, failure: str | None) -> None:
    """The change-only report as an artifact, and, when the run fails for it, why."""
    create_markdown_artifact(
        key="refine-changes", markdown=changes.markdown(), description="Changes since last run"
    )
    if failure:
        create_markdown_artifact(
            key="refine-new-conflicts",
            markdown=f"# Run {changes.run_id} failed\n\n{failure}\n\n{changes.markdown()}",
            description="Why the run failed",
        )
