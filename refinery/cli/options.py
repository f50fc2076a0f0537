"""Options several commands share, declared once, and the Refine settings they build."""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from typing import Any

from refinery import config


def add_prover_options(parser: argparse.ArgumentParser, *, workers: bool = True) -> None:
    """--provers and --budget, and --workers unless the command proves in its own process."""
    parser.add_argument(
        "--provers",
        default=",".join(config.DEFAULT_PROVERS),
        help="comma-separated: z3, eprover, vampire, tptp (= vampire if configured, else eprover)",
    )
    parser.add_argument(
        "--budget",
        type=seconds,
        default=config.DEFAULT_BUDGET_SECONDS,
        help=f"seconds per prover question, more than 0 and at most {config.MAX_SECONDS:g} "
        "(default %(default)s)",
    )
    if workers:
        parser.add_argument(
            "--workers",
            type=int,
            default=config.default_workers(),
            help="worker processes; a story is the unit of work (default: one per core)",
        )
        parser.add_argument(
            "--task-runner",
            default="local",
            type=_task_runner,
            metavar="local|dask|dask://HOST:PORT|ray|ray://HOST:PORT",
            help="where story batches run: this machine's pool (default), a new local Dask or "
            "Ray cluster of --workers processes, or an existing one; anything but local runs "
            "through Prefect",
        )


def seconds(text: str) -> float:
    """A time option's value (`--budget`, `--repair-seconds`): a number in (0, `MAX_SECONDS`].

    >>> seconds("2.5")
    2.5
    >>> seconds("1e12")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '1e12' is not a number of seconds in (0, 3600]
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= config.MAX_SECONDS):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds in (0, {config.MAX_SECONDS:g}]"
        )
    return value


def _task_runner(text: str) -> str:
    from refinery.errors import ConfigError
    from refinery.parallel import check_task_runner

    try:
        return check_task_runner(text)
    except ConfigError as err:
        raise argparse.ArgumentTypeError(str(err)) from err


def add_refine_options(parser: argparse.ArgumentParser) -> None:
    """SOURCE, --review, the agents, the provers and the budget (`refine` and `schedule`)."""
    parser.add_argument(
        "source",
        metavar="SOURCE",
        help="FOLIO .jsonl/.json/.csv file, ProofWriter meta-*.jsonl, or hf:OWNER/NAME[:SPLIT]",
    )
    parser.add_argument("--review", help="review queue CSV (default: review/<dataset>-<split>.csv)")
    parser.add_argument(
        "--agents",
        default="rules",
        help="rules | rules,llm: the LLM critic is opt-in and needs --llm (default %(default)s)",
    )
    parser.add_argument(
        "--llm",
        default="",
        metavar="URL|embedded",
        help="the llm agent's OpenAI-compatible endpoint (default: $OPENAI_BASE_URL; model "
        "$REFINERY_LLM_MODEL, key $OPENAI_API_KEY), or 'embedded': the bundled SmolLM2-135M, "
        "a demonstration of the wiring, not a useful critic",
    )
    parser.add_argument(
        "--max-rounds", type=int, default=3, help="repair rounds per item (default %(default)s)"
    )
    parser.add_argument(
        "--repair-seconds",
        type=seconds,
        default=config.DEFAULT_REPAIR_SECONDS,
        help="wall-clock seconds one item's repair may take; past it the item goes to review "
        f"with reason repair_budget (default %(default)s, at most {config.MAX_SECONDS:g})",
    )
    parser.add_argument(
        "--llm-rounds",
        type=int,
        default=1,
        help="rounds in which the LLM refiner is asked (default %(default)s; raise for a capable endpoint)",
    )
    add_prover_options(parser)
    parser.add_argument(
        "--llm-concurrency",
        type=int,
        metavar="N",
        help="LLM requests at once across all workers (a Prefect global concurrency limit, "
        "refinery-llm, on a cluster; locally it caps the repair processes); default: no limit",
    )
    parser.add_argument("--no-cache", action="store_true", help="ignore the verdict and LLM caches")


def refine_settings(args: argparse.Namespace, **overrides: Any) -> Any:
    """`RefineSettings` from the shared options; `overrides` set the command's own fields."""
    from refinery.pipeline import RefineSettings
    from refinery.repair import parse_agents
    from vampire.registry import resolve_names

    fields: dict[str, Any] = {
        "source": args.source,
        "review_path": args.review,
        "agents": parse_agents(args.agents),
        "max_rounds": args.max_rounds,
        "repair_seconds": args.repair_seconds,
        "llm_rounds": args.llm_rounds,
        "llm": args.llm,
        "provers": tuple(resolve_names(args.provers.split(","))),
        "workers": args.workers,
        "task_runner": args.task_runner,
        "llm_concurrency": args.llm_concurrency,
        "budget_seconds": args.budget,
        "use_cache": not args.no_cache,
    }
    return RefineSettings(**(fields | overrides))


#: Environment values a flag (`store_true` option) reads as on.
_ON = {"1", "true", "yes", "on"}


def env_defaults(parser: argparse.ArgumentParser, environ: Mapping[str, str]) -> None:
    """Let `REFINERY_<OPTION>` set each long option's default, in every subcommand.

    `--workers` reads `REFINERY_WORKERS`, `--no-cache` reads `REFINERY_NO_CACHE` (1/true/yes/on),
    and so on; the command line still wins. Each option's help names its variable. A value is
    parsed as the option's own argument would be, so a bad one fails the same way.
    """
    for action in parser._actions:  # argparse's one public-enough view of the options
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                env_defaults(sub, environ)
            continue
        longs = [o for o in action.option_strings if o.startswith("--")]
        flag = isinstance(action, argparse._StoreTrueAction | argparse.BooleanOptionalAction)
        if not longs or action.dest in ("help", "version") or (action.nargs == 0 and not flag):
            continue
        name = "REFINERY_" + longs[0][2:].replace("-", "_").upper()
        if action.help is not argparse.SUPPRESS:
            action.help = f"{action.help or ''} [env {name}]".strip()
        value = environ.get(name)
        if value is None:
            continue
        if flag:
            action.default = value.strip().lower() in _ON
        else:
            action.default = value  # a string default goes through the option's `type`
