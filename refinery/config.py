"""Where the product keeps its state, and the defaults every command starts from.

`REFINERY_STATE_DIR` moves the state folder (caches, Prefect home); the default is `.state/`
under the current directory, which is the repository root for the README's commands.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_BUDGET_SECONDS = 5.0
DEFAULT_RLIMIT = (
    5_000_000  # Z3 resource units per question: deterministic; binds before the timer on FOLIO
)
DEFAULT_PROVERS = ("z3", "tptp")  # "tptp" = Vampire when configured, else E
DEFAULT_RUNS_DIR = "data/refined"  # holds the <dataset>/<split>/<run_id>/ run folders


def state_dir() -> Path:
    """The folder for caches and run state (created on demand by its users)."""
    return Path(os.environ.get("REFINERY_STATE_DIR") or Path.cwd() / ".state")


def default_workers() -> int:
    """One worker per core, at least one."""
    return max(
        1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
