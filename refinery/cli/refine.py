"""`refinery refine`: the whole Refine run, as a Prefect flow (ephemeral unless PREFECT_API_URL is
set) or, with `--no-prefect`, the same steps in this process (`refinery.pipeline.refine_here`).

Everything that can be checked before the run is, so a typo fails in a fraction of a second
with one line: the source, the options (through `RefineSettings`) and the LLM endpoint.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from refinery import config
from refinery.cli.options import Args, make_command, option, refine_options, refine_settings
from refinery.errors import RefineryError


def run(args: Args) -> int:
    """Check, repair and write the refined split, the review queue and the report.

    The run is a Prefect flow (on a temporary server unless Prefect's settings name one);
    --no-prefect runs the same steps in this process.
    """
    from rich.console import Console

    from refinery.agents.endpoint import EMBEDDED, EMBEDDED_NOTE, check_llm_choice
    from refinery.datasets import check_source
    from refinery.errors import ConfigError

    check_source(args.source)
    settings = refine_settings(
        args, out_dir=args.out, fail_on_new_conflicts=args.fail_on_new_conflicts
    )
    check_llm_choice(settings.agents, settings.llm)
    if args.no_prefect and settings.runner().distributed:
        raise ConfigError("--no-prefect runs on this machine; --task-runner dask|ray needs Prefect")
    if settings.out_dir:  # every check that needs no data comes before Prefect starts
        from refinery.runs import check_free

        check_free(Path(settings.out_dir))
    console = Console(stderr=True)
    if "llm" in settings.agents and settings.llm == EMBEDDED:
        console.print(f"[yellow]note: {EMBEDDED_NOTE}[/]")
    _quiet_libraries(verbose=args.verbose)
    if args.no_prefect:
        summary, failure = _here(settings, console, args.quiet)
    else:
        try:
            summary, failure = _flow(settings, console, args.quiet)
        except APILostAfterRun as lost:
            print(f"refinery: warning: {lost}", file=sys.stderr)
            return 0
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2, default=str))
    else:
        from refinery.pipeline import format_summary

        print(format_summary(summary))
    if failure:  # only with --fail-on-new-conflicts (see refinery.runs.changes)
        print(f"refinery: {failure}", file=sys.stderr)
        return 1
    return 0


def _here(settings: Any, console: Any, quiet: bool) -> tuple[dict[str, Any], str | None]:
    from refinery.pipeline import refine_here
    from refinery.progress import terminal
    from vampire.registry import build_provers

    with terminal(console, enabled=not quiet) as stage:
        return refine_here(settings, build_provers, stage)


def _flow(settings: Any, console: Any, quiet: bool) -> tuple[dict[str, Any], str | None]:
    if not quiet:  # Prefect takes seconds to start: say so first
        console.print(f"refine {settings.source}: starting Prefect (a few seconds) …")
    config.prefect_environment()
    from flows.refine import refine_flow
    from flows.server import temporary_api
    from refinery.progress import listening, terminal

    try:
        with (
            temporary_api(),  # a server that ends with the run, unless Prefect names one
            terminal(console, enabled=not quiet) as stage,
            listening(stage),
        ):
            state = refine_flow(settings, return_state=True)
    except Exception as exc:
        _refuse_api_loss(exc, settings)
        raise
    summary = state.result(raise_on_failure=False)
    if isinstance(summary, BaseException):
        _refuse_api_loss(summary, settings)
        raise summary  # a crash, not a verdict on the data: let it show
    return summary, state.message if state.is_failed() else None


def _lost_api(exc: BaseException) -> BaseException | None:
    """The error in `exc`'s chain that says the Prefect API stopped answering, if any."""
    import httpx

    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, httpx.TransportError):
            return exc
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return None


def _refuse_api_loss(exc: BaseException, settings: Any) -> None:
    """One line instead of Prefect's tracebacks when the run lost its API (the server killed,
    the network gone). Lost on the way, the run did not finish, so its folder and the queue are
    as they were (`RefineryError`); lost only once its folder was in place, the run is complete
    and Prefect merely has no record of its end (`APILostAfterRun`: a warning, exit 0)."""
    lost = _lost_api(exc)
    if lost is None:
        return
    why = f"the Prefect API stopped answering during the run ({type(lost).__name__}: {lost})"
    done = _complete_run(settings)
    if done is not None:
        raise APILostAfterRun(
            f"{why}; the run is complete in {done}, but Prefect has no record of its end"
        )
    raise RefineryError(
        f"{why}; the run did not finish, and its folder and the review queue are as they "
        "were: run it again"
    ) from None


class APILostAfterRun(RefineryError):
    """The Prefect API was lost after the run's folder was in place: the run is complete
    (`run` prints it as a warning and exits 0)."""


def _complete_run(settings: Any) -> Path | None:
    """The run's folder, when it is in place and complete (its id is known before it starts)."""
    from refinery.runs import incomplete_reason

    if settings.out_dir:
        found = [Path(settings.out_dir)]
    else:
        runs = Path(settings.runs_dir or config.DEFAULT_RUNS_DIR)
        found = sorted(runs.glob(f"*/*/{settings.run_id}"))
    return next((f for f in found if f.is_dir() and incomplete_reason(f) is None), None)


def _quiet_libraries(*, verbose: bool) -> None:
    """Prefect's run-by-run log lines, only when asked for (a server's UI keeps them anyway).

    On the run's own temporary server, not even its errors: each one ends the run, and the
    command says it once (in one line, or the crash's own traceback); a server you named keeps
    its errors for its UI.
    """
    if not verbose:
        quiet = "WARNING" if os.environ.get("PREFECT_API_URL") else "CRITICAL"
        os.environ.setdefault("PREFECT_LOGGING_LEVEL", quiet)
        # its background workers' own logger (events it could not send to a lost API)
        os.environ.setdefault("PREFECT_INTERNAL_LOGGING_LEVEL", quiet)


command = make_command(
    "refine",
    run,
    refine_options,
    option("--out", help="run folder (default: data/refined/<dataset>/<split>/<run>)"),
    option(
        "--fail-on-new-conflicts",
        is_flag=True,
        help="exit 1 when items need review that the previous run of the split did not flag",
    ),
    option(
        "--no-prefect",
        is_flag=True,
        help="run the same steps in this process, without Prefect: a one-off run that pays no "
        "orchestrator start-up (scheduled runs and clusters use the flow)",
    ),
    option("--json", is_flag=True, help="print the run summary as JSON (stdout) instead"),
    option("--quiet", is_flag=True, help="no progress bars (they go to stderr)"),
    option("--verbose", is_flag=True, help="show Prefect's and great-expectations' own logs"),
    short_help="check, repair and write the refined split, review queue and report",
    source=True,
)
