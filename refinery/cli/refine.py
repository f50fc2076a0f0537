"""`refinery refine`: the Refine run as a Prefect flow (ephemeral unless PREFECT_API_URL is set)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from refinery import config
from refinery.cli.options import add_refine_options, refine_settings


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "refine",
        help="check, repair and write the refined split, review queue and report (a Prefect flow)",
    )
    add_refine_options(parser)
    parser.add_argument("--out", help="run folder (default: data/refined/<dataset>/<split>/<run>)")
    parser.add_argument(
        "--fail-on-new-conflicts",
        action="store_true",
        help="exit 1 when items need review that the previous run of the split did not flag",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    settings = refine_settings(
        args, out_dir=args.out, fail_on_new_conflicts=args.fail_on_new_conflicts
    )
    config.prefect_environment()
    from flows.refine import refine_flow
    from refinery.pipeline import format_summary

    state = refine_flow(settings, return_state=True)
    summary = state.result(raise_on_failure=False)
    if isinstance(summary, BaseException):
        raise summary  # a crash, not a verdict on the data: let it show
    print(format_summary(summary))
    if state.is_failed():  # only with --fail-on-new-conflicts (see refinery.runs.changes)
        print(f"refinery: {state.message}", file=sys.stderr)
        return 1
    return 0
