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
import sys
from collections.abc import Sequence

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


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except RefineryError as err:
        print(f"refinery: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
