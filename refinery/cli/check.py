"""`refinery check`: parse, lint and prove every item; write one verdict row per item.

Locally (the default) no Prefect is imported; `--task-runner dask|ray|…` runs the check flow
(flows.check), whose rows are written the same way.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from refinery import config
from refinery.cli.options import (
    PATH,
    PATH_TEXT,
    Args,
    comma_list,
    make_command,
    option,
    prover_options,
)

if TYPE_CHECKING:
    from refinery.check.row import CheckRow
    from refinery.check.summary import Tally


def _categories() -> tuple[str, ...]:
    from refinery.outcomes import Category

    return tuple(Category)


def run(args: Args) -> int:
    """Parse, lint and prove every item of SOURCE...; write one verdict row per item.

    Rows are written as they are decided, a chunk of items at a time, so an input of any size
    takes the memory of a chunk. Exit 1 when --fail-on names a category some item ends in.
    """
    from rich.console import Console

    from refinery.check.summary import Tally
    from refinery.datasets import check_source
    from refinery.outputs import TableWriter
    from vampire.registry import build_provers, resolve_names

    # Everything that can be refused is refused here, before any proving.
    gates = _gates(args.fail_on)
    for source in args.sources:
        check_source(source)
    if args.out is not None:
        _check_out(args.out)
    console = Console(stderr=True)
    names = resolve_names(args.provers.split(","))
    build_provers(names)  # a missing or broken prover binary is refused now, naming its path
    cache = None if args.no_cache else config.state_dir() / "cache" / "verdicts.sqlite"
    started = time.perf_counter()
    if args.task_runner == "local":
        rows = _check_here(args, names, cache, console)
    else:
        rows = iter(_check_on_cluster(args, names, cache))
    first = next(rows, None)
    if first is None:
        console.print("[red]no items loaded[/]")
        return 1
    out = args.out or Path(config.DEFAULT_RUNS_DIR) / first.dataset / first.split / "check"
    counts = Tally(names, gates)
    # whether a row came from the cache does not make its verdicts new
    with TableWriter(out, "verdicts", volatile=("cached",)) as writer:
        for row in itertools.chain([first], rows):
            writer.add(row.to_dict())
            counts.add(row)
        table = writer.close()
    wall = time.perf_counter() - started
    _print_summary(counts, wall, console)
    if table.written:
        console.print(f"wrote {table.parquet} and {table.csv}")
    else:
        console.print(f"verdicts unchanged: {table.parquet} and {table.csv} left as they are")
    failing = {c: n for c, n in counts.category_counts().items() if c in gates and n}
    if args.json:
        print(json.dumps(_json_summary(counts, wall, table, failing), indent=2))
    if failing:
        found = ", ".join(f"{c} {n}" for c, n in failing.items())
        console.print(f"[red]--fail-on: {found} item(s)[/]")
        return 1
    return 0


def _check_out(out: Path) -> None:
    """`ConfigError` when `--out` (or a folder above it) is an existing file, not a folder."""
    from refinery.errors import ConfigError

    for folder in (out, *out.parents):
        if folder.exists():
            if not folder.is_dir():
                where = "" if folder == out else f" ({folder} is a file)"
                raise ConfigError(
                    f"--out {out}: not a folder{where}; give a folder for the verdicts"
                )
            return


def _gates(text: str) -> set[str]:
    """The categories of `--fail-on`; `ConfigError` for a name that is not a category."""
    from refinery.errors import ConfigError
    from refinery.outcomes import Category

    gates = {c.strip() for c in text.split(",") if c.strip()}
    unknown = sorted(gates - set(Category))
    if unknown:
        raise ConfigError(
            f"--fail-on: unknown categor{'y' if len(unknown) == 1 else 'ies'} "
            f"{', '.join(unknown)}; expected some of {', '.join(Category)}"
        )
    return gates


def _json_summary(
    counts: Tally, wall: float, table: Any, failing: dict[str, int]
) -> dict[str, Any]:
    return {
        "items": counts.items,
        "seconds": round(wall, 3),
        "provers": list(counts.provers),
        "categories": counts.category_counts(),
        "agreement": {
            f"{a}/{b}": {"agree": found.agree, "both_decided": found.both_decided}
            for a, b in counts.pairs
            for found in [counts.agreement(a, b)]
        },
        "cached": counts.cached,
        "files": {"parquet": str(table.parquet), "csv": str(table.csv)},
        "written": bool(table.written),
        "failed_gates": failing,
        # the items behind each failed gate, so a CI log says which to look at
        "failing_ids": {c: counts.ids[c] for c in failing},
    }


def _check_on_cluster(args: Args, names: list[str], cache: Path | None) -> list[CheckRow]:
    """The check flow with story batches on the cluster `--task-runner` names (via Prefect)."""
    config.prefect_environment()
    from flows.check import check_flow
    from flows.server import temporary_api

    with temporary_api():  # a server that ends with the run, unless Prefect names one
        handed = check_flow(
            sources=list(args.sources),
            provers=names,
            budget_seconds=args.budget,
            rlimit=args.rlimit or None,
            workers=args.workers,
            cache=str(cache) if cache else None,
            task_runner=args.task_runner,
            evidence=not args.no_evidence,
        )
    rows: list[CheckRow] = handed.value
    return rows


def _check_here(
    args: Args, names: list[str], cache: Path | None, console: Any
) -> Iterator[CheckRow]:
    """Check on this machine's pool, with a progress bar, a chunk at a time; no Prefect."""
    from refinery.check.stream import check_stream
    from refinery.datasets import stream_sources
    from refinery.progress import terminal, when_first
    from refinery.prove.verdict import Budget
    from vampire.registry import build_provers

    found = stream_sources(args.sources, partial(_say_skipped, console))
    budget = Budget(seconds=args.budget, rlimit=args.rlimit or None)
    with terminal(console, enabled=not args.quiet) as stage:
        yield from check_stream(
            found.items,
            prover_factory=build_provers,
            prover_names=names,
            budget=budget,
            workers=args.workers,
            cache_path=cache,
            on_progress=stage(f"checking with {', '.join(names)}", found.expected),
            evidence=not args.no_evidence,
            dataset_column=found.semantics,
            # a resumed run (or a re-run) says how much it did not redo
            on_cached=when_first(stage, "of which from the cache (not redone)", found.expected),
        )


def _say_skipped(console: Any, entry: Any) -> None:
    """An unreadable row on the console, as it is met."""
    from rich.markup import escape

    from refinery.outputs import visible

    # the reason may quote the row: shown, never interpreted (markup or escapes)
    where = escape(visible(f"{entry.source}:{entry.line}: skipped row: {entry.reason}"))
    console.print(f"[yellow]{where}[/]")


def _print_summary(counts: Tally, wall: float, console: Any) -> None:
    from rich.table import Table

    table = Table(title=f"{counts.items} items checked in {wall:.1f}s")
    table.add_column("category")
    table.add_column("items", justify="right")
    table.add_column("share", justify="right")
    for category, n in counts.category_counts().items():
        table.add_row(category, str(n), f"{n / max(1, counts.items):.1%}")
    console.print(table)
    for a, b in counts.pairs:
        agreement = counts.agreement(a, b)
        console.print(
            f"{a} vs {b}: agree on {agreement.agree}/{agreement.both_decided} items both decided "
            f"({agreement.rate:.1%})"
        )
    console.print(f"verdicts from cache: {counts.cached}/{counts.items} items")


command = make_command(
    "check",
    run,
    click.argument("sources", nargs=-1, required=True, type=PATH_TEXT, metavar="SOURCE..."),
    option(
        "--out", type=PATH, help="output folder (default: data/refined/<dataset>/<split>/check)"
    ),
    prover_options(),
    option(
        "--rlimit",
        type=int,
        default=config.DEFAULT_RLIMIT,
        show_default=True,
        help="Z3 deterministic resource limit per question (0 = none)",
    ),
    option("--no-cache", is_flag=True, help="ignore and do not fill the verdict cache"),
    option(
        "--no-evidence",
        is_flag=True,
        help="decide labels only: no proving premises, no countermodels (faster)",
    ),
    option("--quiet", is_flag=True, help="no progress bar"),
    option(
        "--fail-on",
        default="",
        metavar="CATEGORY,…",
        shell_complete=comma_list(_categories),
        help="exit 1 when some item ends in one of these categories, e.g. "
        "label_mismatch,parse_error (a gate for CI jobs); default: exit 0 whatever the data",
    ),
    option(
        "--json",
        is_flag=True,
        help="print a machine-readable summary (counts per category, agreement, files) on stdout",
    ),
    short_help="parse, lint and prove every item; write verdicts",
    source=True,
)
