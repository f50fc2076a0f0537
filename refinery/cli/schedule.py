"""`refinery schedule`: serve the refine flow as a Prefect deployment with a cron schedule.

The process blocks: it registers ``refine/<name>`` on the Prefect API (PREFECT_API_URL; start a
server with ``prefect server start --host 127.0.0.1``) and runs each scheduled or triggered run
until stopped. Runs fail on new conflicts unless ``--no-fail-on-new-conflicts``. Paths are made
absolute here (the default review queue, review/<dataset>-<split>.csv, stays relative to the
serving process's working directory, where the runs start).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from refinery import config
from refinery.cli.options import (
    PATH,
    Args,
    make_command,
    option,
    refine_options,
    refine_settings,
)


def run(args: Args) -> int:
    """Serve `refine/NAME` with a cron schedule on the Prefect API in PREFECT_API_URL (blocks).

    Each run writes a new run folder under RUNS_DIR/<dataset>/<split>/, reports the changes
    since the previous run (changes.md, artifact refine-changes) and ends Failed when an item
    needs review that the previous run did not flag.
    """
    settings = refine_settings(
        args,
        source=_absolute_source(args.source),
        runs_dir=str(args.runs_dir.resolve()),
        review_path=str(Path(args.review).resolve()) if args.review else None,
        state_dir=str(config.state_dir().resolve()),
        fail_on_new_conflicts=args.fail_on_new_conflicts,
    )
    config.prefect_environment()
    if not os.environ.get("PREFECT_API_URL"):
        print(
            "refinery schedule: PREFECT_API_URL is not set; Prefect will start a temporary "
            "server that lives only as long as this process (start one with "
            "`prefect server start --host 127.0.0.1` and export "
            "PREFECT_API_URL=http://127.0.0.1:4200/api)",
            file=sys.stderr,
        )
    from flows.serve import serve_refine

    serve_refine(settings, name=args.name, cron=args.cron)
    return 0


def _absolute_source(source: str) -> str:
    """A local path made absolute; `hf:` and other non-paths as given."""
    path = Path(source)
    return str(path.resolve()) if path.exists() else source


command = make_command(
    "schedule",
    run,
    refine_options,
    option("--cron", default=config.DEFAULT_CRON, show_default=True, help="cron schedule, UTC"),
    option("--name", default=config.DEFAULT_DEPLOYMENT, show_default=True, help="deployment name"),
    option(
        "--runs-dir",
        type=PATH,
        default=Path(config.DEFAULT_RUNS_DIR),
        show_default=True,
        help="parent of the <dataset>/<split>/<run> folders",
    ),
    option(
        "--fail-on-new-conflicts/--no-fail-on-new-conflicts",
        default=True,
        show_default=True,
        help="end a run Failed when it finds new conflicts",
    ),
    short_help="serve the refine flow on a cron schedule (a Prefect deployment; blocks)",
    source=True,
)
