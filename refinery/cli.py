"""The `refinery` command line: `check`, `lint`, `refine`, then `refinery.commands`.

This module is the composition root: it is the one place that wires the core (`refinery`) to
the prover backends (`vampire`). It imports nothing heavy at module level — plain commands must
start fast, and none of them imports Prefect.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refinery import config
from refinery.commands.refine_options import add_refine_options, refine_settings
from refinery.errors import RefineryError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="refinery", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    check = sub.add_parser("check", help="parse, lint and prove every item; write verdicts")
    check.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="FOLIO .jsonl/.json/.csv file, ProofWriter meta-*.jsonl, or hf:OWNER/NAME[:SPLIT]",
    )
    check.add_argument(
        "--out", type=Path, help="output folder (default: data/refined/<dataset>/<split>/check)"
    )
    check.add_argument(
        "--provers",
        default=",".join(config.DEFAULT_PROVERS),
        help="comma-separated: z3, eprover, vampire, tptp (= vampire if configured, else eprover)",
    )
    check.add_argument("--workers", type=int, default=config.default_workers())
    check.add_argument(
        "--budget",
        type=float,
        default=config.DEFAULT_BUDGET_SECONDS,
        help="seconds per prover question (default %(default)s)",
    )
    check.add_argument(
        "--rlimit",
        type=int,
        default=config.DEFAULT_RLIMIT,
        help="Z3 deterministic resource limit per question (0 = none)",
    )
    check.add_argument(
        "--no-cache", action="store_true", help="ignore and do not fill the verdict cache"
    )
    check.add_argument("--quiet", action="store_true", help="no progress bar")

    refine = sub.add_parser(
        "refine",
        help="check, repair and write the refined split, review queue and report (a Prefect flow)",
    )
    add_refine_options(refine)
    refine.add_argument("--out", help="run folder (default: data/refined/<dataset>/<split>/<run>)")
    refine.add_argument(
        "--fail-on-new-conflicts",
        action="store_true",
        help="exit 1 when items need review that the previous run of the split did not flag",
    )

    lint = sub.add_parser("lint", help="parse and lint a file of FOL formulas")
    lint.add_argument(
        "file", type=Path, help=".txt (one per line), .json list (e.g. MALLS), or a FOLIO file"
    )
    from refinery.commands import publish, rescore, review, schedule

    for module in (review, publish, rescore, schedule):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "lint":
            return _lint(args)
        if args.command == "refine":
            return _refine(args)
        handler = getattr(args, "handler", None)
        if handler is not None:
            return int(handler(args))
    except RefineryError as err:
        print(f"refinery: error: {err}", file=sys.stderr)
        return 2
    return 2  # pragma: no cover - argparse enforces a command


def _check(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from refinery.check import check_items
    from refinery.datasets import load_any
    from refinery.outputs import write_table
    from refinery.prove.verdict import Budget
    from vampire.registry import build_provers, resolve_names

    console = Console(stderr=True)
    names = resolve_names(args.provers.split(","))
    items: list[Any] = []
    for source in args.sources:
        result = load_any(source)
        for err in result.errors:
            console.print(f"[yellow]{err.source}:{err.line}: skipped row: {err.reason}[/]")
        items += result.items
    if not items:
        console.print("[red]no items loaded[/]")
        return 1
    first = items[0]
    out = args.out or Path(config.DEFAULT_RUNS_DIR) / first.dataset / first.split / "check"
    budget = Budget(seconds=args.budget, rlimit=args.rlimit or None)
    cache = None if args.no_cache else config.state_dir() / "cache" / "verdicts.sqlite"
    started = time.perf_counter()
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=args.quiet or not console.is_terminal,
    ) as bar:
        task = bar.add_task(f"checking with {', '.join(names)}", total=len(items))
        rows = check_items(
            items,
            prover_factory=build_provers,
            prover_names=names,
            budget=budget,
            workers=args.workers,
            cache_path=cache,
            on_progress=lambda n: bar.advance(task, n),
        )
    wall = time.perf_counter() - started
    parquet, csv = write_table(rows, out, "verdicts")
    _print_summary(rows, names, wall, console)
    console.print(f"wrote {parquet} and {csv}")
    return 0


def _print_summary(
    rows: list[dict[str, Any]], names: Sequence[str], wall: float, console: Any
) -> None:
    from rich.table import Table

    from refinery.summary import category_counts, prover_agreement

    table = Table(title=f"{len(rows)} items checked in {wall:.1f}s")
    table.add_column("category")
    table.add_column("items", justify="right")
    table.add_column("share", justify="right")
    for category, n in category_counts(rows).items():
        table.add_row(category, str(n), f"{n / max(1, len(rows)):.1%}")
    console.print(table)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            agreement = prover_agreement(rows, a, b)
            console.print(
                f"{a} vs {b}: agree on {agreement.agree}/{agreement.both_decided} items both decided "
                f"({agreement.rate:.1%})"
            )
    cached = sum(1 for r in rows if r["cached"])
    console.print(f"verdicts from cache: {cached}/{len(rows)} items")


def prefect_environment() -> None:
    """Settings every Prefect process of ours needs, before prefect is imported."""
    import os

    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_HOME", str(config.state_dir() / "prefect"))
    # prefect creates its home without parents; a fresh clone has no .state/ yet
    Path(os.environ["PREFECT_HOME"]).mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")


def _refine(args: argparse.Namespace) -> int:
    settings = refine_settings(
        args, out_dir=args.out, fail_on_new_conflicts=args.fail_on_new_conflicts
    )
    prefect_environment()
    from flows.refine import refine_flow
    from refinery.pipeline import format_summary

    state = refine_flow(settings, return_state=True)
    summary = state.result(raise_on_failure=False)
    if isinstance(summary, BaseException):
        raise summary  # a crash, not a verdict on the data: let it show
    print(format_summary(summary))
    if state.is_failed():  # only with --fail-on-new-conflicts (see refinery.changes)
        print(f"refinery: {state.message}", file=sys.stderr)
        return 1
    return 0


def _lint(args: argparse.Namespace) -> int:
    from refinery.datasets.folio import load_fol_lines
    from refinery.logic.lint import lint
    from refinery.logic.parse import Parsed, try_parse

    entries = load_fol_lines(args.file)
    errors = 0
    for line, text in entries:
        result = try_parse(text, field=f"{args.file}:{line}")
        if not isinstance(result, Parsed):
            errors += 1
            print(result.render())
            continue
        for issue in lint([(f"{args.file}:{line}", result.formula)]):
            if issue.severity == "error":
                errors += 1
                print(issue.render())
    print(f"{len(entries)} formulas, {errors} errors")
    return 1 if errors else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
