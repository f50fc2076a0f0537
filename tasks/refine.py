"""Tasks of the refine flow: each is a thin wrapper over one core function."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast
from uuid import UUID

from prefect import get_run_logger, task
from prefect.artifacts import (
    create_markdown_artifact,
    create_progress_artifact,
    create_table_artifact,
    update_progress_artifact,
)

from refinery import pipeline
from refinery.check import CheckRow, check_items
from refinery.datasets import load_any
from refinery.datasets.records import Item, LoadResult
from refinery.outcomes import Outcome, summary_table
from refinery.progress import started
from refinery.prove.verdict import Budget
from refinery.runs.changes import Changes
from refinery.validation import validate_input, validate_output
from vampire.registry import build_provers


@task(name="load")
def load_items(source: str) -> LoadResult:
    """Load the source; each malformed row is reported (a warning in the run's log) and skipped."""
    return pipeline.load_checked(load_any, source, get_run_logger().warning)


def stage_progress(name: str, total: int, every: float = 1.0) -> Callable[[int], None]:
    """Step `name` of `total` items: a Prefect progress artifact (`refine-<name>-progress`) and
    whatever display listens in-process (`refinery.progress`); returns its `advance(n)`.

    The UI shows per-stage item counts as they complete; updates go out at most once per
    `every` seconds (and at the end), so a long step costs the API a few calls, not thousands.
    """
    key = f"refine-{name}-progress"
    # typed sync-or-async; called from a sync task it returns the id
    artifact = cast(UUID, create_progress_artifact(0.0, key=key, description=f"0/{total} items"))
    done, sent = 0, time.monotonic()

    def advance(n: int) -> None:
        nonlocal done, sent
        done += n
        if done >= total or time.monotonic() - sent >= every:
            sent = time.monotonic()
            share = 100.0 * done / max(1, total)
            update_progress_artifact(artifact, share, description=f"{done}/{total} items")

    return started(name, total, advance)


@task(name="validate-input")
def validate_input_task(items: list[Item], cache: Path | None = None) -> dict[str, Any]:
    """Great Expectations suite over the raw items (summaries cached by content)."""
    return validate_input(items, cache)


@task(name="check")
def check_task(
    items: list[Item], provers: list[str], budget: Budget, workers: int, cache: Path | None
) -> list[CheckRow]:
    """Parse, lint and prove every item."""
    return check_items(
        items,
        prover_factory=build_provers,
        prover_names=provers,
        budget=budget,
        workers=workers,
        cache_path=cache,
        on_progress=stage_progress("check", len(items)),
    )


@task(
    name="repair",
    retries=2,
    retry_delay_seconds=2,
    retry_condition_fn=pipeline.retry_on_llm_transport,
)
def repair_task(
    items: list[Item], rows: list[CheckRow], settings: pipeline.RefineSettings
) -> list[Outcome]:
    """The critique → refine → re-check loop over the conflicting items."""
    progress = stage_progress("repair", len(items))
    return pipeline.repair(items, rows, settings, build_provers, progress)


@task(name="write-outputs")
def write_outputs_task(
    items: list[Item], outcomes: list[Outcome], settings: pipeline.RefineSettings
) -> dict[str, Any]:
    """Refined split, audit trail and review queue."""
    return pipeline.write_outputs(items, outcomes, settings, build_provers)


@task(name="validate-output")
def validate_output_task(outcomes: list[Outcome], cache: Path | None = None) -> dict[str, Any]:
    """Great Expectations suite over the outcomes (summaries cached by content)."""
    return validate_output(outcomes, cache)


@task(name="write-report")
def write_report_task(
    outcomes: list[Outcome], validations: dict[str, Any], settings: pipeline.RefineSettings
) -> dict[str, str]:
    """report.md, report.html and the PNG charts."""
    return pipeline.write_run_report(outcomes, validations, settings)


@task(name="publish-artifacts")
def publish_artifacts_task(outcomes: list[Outcome], report_md: str) -> None:
    """Summary table and report as Prefect artifacts, keyed by dataset and split."""
    create_table_artifact(
        key=pipeline.artifact_key("outcomes", outcomes),
        table=summary_table(outcomes),
        description="Outcome counts",
    )
    create_markdown_artifact(
        key=pipeline.artifact_key("report", outcomes),
        markdown=Path(report_md).read_text(encoding="utf-8"),
    )


@task(name="compare-with-previous")
def changes_task(
    outcomes: list[Outcome], rows: list[CheckRow], settings: pipeline.RefineSettings
) -> Changes:
    """Changes since the previous run of the split; changes.md and changes.json in the run folder."""
    return pipeline.write_run_changes(outcomes, rows, settings)


@task(name="finish-run")
def finish_run_task(settings: pipeline.RefineSettings, outcomes: list[Outcome]) -> dict[str, int]:
    """Rename the complete run folder into place (until now it did not exist under its name),
    then merge the run's items into the review queue."""
    return pipeline.finish_run(settings, outcomes)


@task(name="publish-changes")
def publish_changes_task(changes: Changes, failure: str | None, outcomes: list[Outcome]) -> None:
    """The change-only report as an artifact, and, when the run fails for it, why (keyed by
    dataset and split, `artifact_key`)."""
    create_markdown_artifact(
        key=pipeline.artifact_key("changes", outcomes),
        markdown=changes.markdown(),
        description="Changes since last run",
    )
    if failure:
        create_markdown_artifact(
            key=pipeline.artifact_key("new-conflicts", outcomes),
            markdown=f"# Run {changes.run_id} failed\n\n{failure}\n\n{changes.markdown()}",
            description="Why the run failed",
        )
