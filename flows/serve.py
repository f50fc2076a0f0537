"""Serve the refine flow as a scheduled deployment: one long-running process, no work pool.

`serve_refine` registers the deployment ``refine/<name>`` with a cron schedule on the Prefect API
that PREFECT_API_URL names, then runs every scheduled or manually triggered run in a subprocess
until the process is stopped (stopping pauses the schedule). The deployment's parameters hold the
fixed options only: each run fills in its own run id, so it writes a new folder under
``<runs_dir>/<dataset>/<split>/`` and compares itself with the run before it (refinery.runs.changes).
"""

from __future__ import annotations

from typing import Any

from prefect.types.entrypoint import EntrypointType

from flows.refine import refine_flow
from refinery.config import DEFAULT_CRON, DEFAULT_DEPLOYMENT
from refinery.errors import ConfigError
from refinery.pipeline import RefineSettings


def deployment_parameters(settings: RefineSettings) -> dict[str, Any]:
    """The flow's parameters for a deployment: every option but the per-run ones.

    `run_id` is left out so each run gets a fresh one (a fixed id would make every run overwrite
    one folder); `endpoint` is built inside the run. `out_dir` names one run folder, so a
    deployment refuses it: set `runs_dir` instead.
    """
    if settings.out_dir:
        raise ConfigError(
            f"a scheduled deployment writes a new run folder per run; set runs_dir (the parent "
            f"of the split folders), not out_dir={settings.out_dir!r}"
        )
    fixed = settings.model_dump(mode="json", exclude={"run_id", "out_dir", "endpoint"})
    return {"settings": fixed}


def serve_refine(
    settings: RefineSettings,
    *,
    name: str = DEFAULT_DEPLOYMENT,
    cron: str = DEFAULT_CRON,
    limit: int = 1,
) -> None:
    """Serve ``refine/<name>`` on `cron` (blocks until stopped).

    Parameters
    ----------
    settings:
        The options every run uses (see `deployment_parameters`); scheduled runs usually set
        `fail_on_new_conflicts=True` so new conflicts show as Failed runs.
    name, cron:
        Deployment name and its cron schedule (server time zone: UTC).
    limit:
        Runs at once; 1 keeps runs of a split in order, so each compares with the one before.
    """
    refine_flow.serve(
        name=name,
        cron=cron,
        parameters=deployment_parameters(settings),
        description=f"Scheduled Refine of {settings.source}: changes since the previous run",
        tags=["data-quality"],
        limit=limit,
        # runs load the flow by module (flows.refine is installed), whatever the working directory
        entrypoint_type=EntrypointType.MODULE_PATH,
    )
