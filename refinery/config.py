"""Where the product keeps its state, and the defaults every command starts from.

`REFINERY_STATE_DIR` moves the state folder (caches, Prefect home); the default is `.state/`
under the current directory, which is the repository root for the README's commands.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_BUDGET_SECONDS = 5.0
#: The most seconds a prover question (`--budget`) or one item's repair (`--repair-seconds`) may
#: take: past an hour nothing is worth waiting for in a batch, and a typo (1e12) would look like
#: a hang.
MAX_SECONDS = 3600.0
DEFAULT_REPAIR_SECONDS = 60.0
DEFAULT_RLIMIT = (
    5_000_000  # Z3 resource units per question: deterministic; binds before the timer on FOLIO
)
DEFAULT_PROVERS = ("z3", "tptp")  # "tptp" = Vampire when configured, else E
DEFAULT_RUNS_DIR = "data/refined"  # holds the <dataset>/<split>/<run_id>/ run folders
DEFAULT_CRON = "0 3 * * *"  # scheduled Refine runs: every day at 03:00 UTC
DEFAULT_DEPLOYMENT = "scheduled"  # the deployment's name: refine/scheduled


def state_dir() -> Path:
    """The folder for caches and run state (created on demand by its users)."""
    return Path(os.environ.get("REFINERY_STATE_DIR") or Path.cwd() / ".state")


def default_workers() -> int:
    """One worker per core, at least one."""
    return max(
        1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )


def prefect_environment() -> None:
    """Settings every Prefect process of ours needs; call before prefect is imported.

    No telemetry, Prefect's home (its database, logs and settings) in the state folder, and
    time for the temporary server to start. Values already set in the environment win.
    """
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_HOME", str(state_dir() / "prefect"))
    # prefect creates its home without parents; a fresh clone has no .state/ yet
    Path(os.environ["PREFECT_HOME"]).mkdir(parents=True, exist_ok=True)
    # the temporary server migrates a fresh database first: on two busy cores that can take
    # longer than Prefect's 20 s default, and the run would fail before it starts
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    # a server that takes a request and never answers held a run for 427 s (60 s a request,
    # five retries): a deadline per request and fewer retries bound it to a minute
    os.environ.setdefault("PREFECT_API_REQUEST_TIMEOUT", "20")
    os.environ.setdefault("PREFECT_CLIENT_MAX_RETRIES", "2")
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
