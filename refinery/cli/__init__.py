"""The `refinery` command line: one module per subcommand, registered from one table.

This package is the composition root: the one place that wires the core (`refinery`) to the
prover backends (`vampire`) and to the flows. Each subcommand module has `register(subparsers)`,
which adds its parser and sets `handler` (a function of the parsed arguments returning the exit
code). Modules import only argparse and light core modules at load time; the heavy work is
imported inside the handler, so `refinery --help` and the plain commands start fast, and none
but `refine` and `schedule` imports Prefect.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from refinery import lifeline
from refinery.cli import check, lint, publish, refine, rescore, review, schedule
from refinery.cli.options import env_defaults
from refinery.errors import RefineryError

#: Every subcommand, in the order `refinery --help` lists them.
COMMANDS = (check, lint, refine, review, publish, rescore, schedule)


def parser() -> argparse.ArgumentParser:
    """The `refinery` argument parser with every subcommand registered."""
    top = argparse.ArgumentParser(
        prog="refinery",
        description="Find and fix errors in first-order-logic reasoning benchmarks.",
        epilog="Exit codes: 0 done; 1 the data fails a gate you asked for (check --fail-on, "
        "refine --fail-on-new-conflicts); 2 bad input or usage (one line on stderr).",
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = top.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    env_defaults(top, os.environ)
    return top


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("fol-refinery")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


#: Exit codes of an interrupted run, as a shell reports a process killed by the signal.
INTERRUPTED, TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; an error is one line on stderr, an interrupt one line and 130 (143)."""
    args = parser().parse_args(argv)
    from vampire.run import kill_running

    if kill_running not in lifeline.on_interrupt:
        lifeline.on_interrupt.append(kill_running)
    try:
        with lifeline.signals_raise():
            return int(args.handler(args))
    except BaseException as exc:
        if not (lifeline.stopping or isinstance(exc, KeyboardInterrupt)):
            if isinstance(exc, RefineryError):
                print(f"refinery: error: {exc}", file=sys.stderr)
                return 2
            raise
        # stopped by a signal (whatever the run raised on its way out is that signal's echo);
        # what the caches hold stays: every write is a finished transaction
        lifeline.interrupted()
        # the first signal counts: a library may answer Ctrl-C by sending itself SIGTERM
        first = lifeline.stopping or (signal.SIGTERM if isinstance(exc, lifeline.Terminated) else 0)
        terminated = first == signal.SIGTERM
        print(f"refinery: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return TERMINATED if terminated else INTERRUPTED
    finally:
        if lifeline.stopping:
            lifeline.quiet_until_now()


def run() -> None:
    """The `refinery` executable: `main`, and after an interrupt an exit that waits for nothing.

    Threads still busy (a prover call in a task thread) would hold up a normal exit; everything
    the run started is stopped by then, and what it wrote is complete or not there at all.
    """
    code = main()
    if code in (INTERRUPTED, TERMINATED):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
