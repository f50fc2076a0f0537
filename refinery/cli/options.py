"""What the commands share, declared once: the option maker, value types and option groups.

Every long option reads `REFINERY_<NAME>` (`--no-cache` → `REFINERY_NO_CACHE`), shown in its
help; the command line wins. A command's handler gets its values as `Args` attributes, so the
handlers stay plain functions that tests and other commands can call.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import click
from click.shell_completion import CompletionItem

from refinery import config

#: A command's option and argument values, by their Python names (`args.no_cache`).
Args = SimpleNamespace

F = TypeVar("F", bound=Callable[..., Any])

#: What a command that reads a dataset says about its SOURCE (`make_command(source=True)`).
SOURCE_HELP = (
    "SOURCE is a FOLIO .jsonl/.json/.csv file, a ProofWriter meta-*.jsonl file, or "
    "hf:OWNER/NAME[:SPLIT]."
)

#: A path option or argument: no check at parse time (the command says what is wrong with it).
PATH = click.Path(path_type=Path)
#: A path kept as text: Tab completes files, and a source `hf:OWNER/NAME[:SPLIT]` stays as typed.
PATH_TEXT = click.Path()


def option(*decls: str, **attrs: Any) -> Callable[[F], F]:
    """`click.option` reading `REFINERY_<LONG NAME>` from the environment and showing it."""
    long = next(d for d in decls if d.startswith("--")).split("/")[0]
    envvar = "REFINERY_" + long[2:].replace("-", "_").upper()
    return click.option(*decls, envvar=envvar, show_envvar=True, **attrs)


def handled_by(handler: Callable[[Args], int]) -> Callable[..., int]:
    """A click callback that hands the command's values to `handler` as one `Args`."""

    def callback(**values: Any) -> int:
        return handler(Args(**values))

    return callback


def make_command(
    name: str,
    handler: Callable[[Args], int],
    *params: Callable[[Any], Any],
    short_help: str | None = None,
    source: bool = False,
) -> click.Command:
    """The command `name` running `handler` with `params` (options, arguments), in help order.

    Its help is the handler's docstring, with what SOURCE may be after the first paragraph when
    `source`; its one-line help `short_help`, else the docstring's first sentence.
    """
    doc = inspect.cleandoc(handler.__doc__ or "")
    if source:
        first, _, rest = doc.partition("\n\n")
        doc = "\n\n".join(p for p in (first, SOURCE_HELP, rest) if p)
    if short_help is None:
        sentence = doc.split(". ")[0].split("\n\n")[0].rstrip(".")
        short_help = sentence[:1].lower() + sentence[1:]
    command: click.Command = apply(click.command(name, help=doc, short_help=short_help), *params)(
        handled_by(handler)
    )
    return command


def apply(*decorators: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Several decorators as one, written in the order `--help` lists them (the command first)."""

    def decorate(f: Any) -> Any:
        for decorator in reversed(decorators):
            f = decorator(f)
        return f

    return decorate


class Group(click.Group):
    """A click group that lists its commands in the order they were given, not sorted."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


class Seconds(click.ParamType[float]):
    """A time option's value (`--budget`, `--repair-seconds`): a number in (0, `MAX_SECONDS`].

    >>> Seconds().convert("2.5", None, None)
    2.5
    >>> Seconds().convert("1e12", None, None)
    Traceback (most recent call last):
    ...
    click.exceptions.BadParameter: '1e12' is not a number of seconds in (0, 3600]
    """

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not (math.isfinite(number) and 0 < number <= config.MAX_SECONDS):
            self.fail(
                f"{value!r} is not a number of seconds in (0, {config.MAX_SECONDS:g}]", param, ctx
            )
        return number


def comma_list(names: Callable[[], Iterable[str]]) -> Callable[..., list[CompletionItem]]:
    """Shell completion for a comma-separated list: the last name completes against `names()`."""

    def complete(
        ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        done, _, last = incomplete.rpartition(",")
        prefix = f"{done}," if done else ""
        taken = set(done.split(","))
        return [
            CompletionItem(prefix + name)
            for name in names()
            if name.startswith(last) and name not in taken
        ]

    return complete


def one_of(*values: str) -> Callable[..., list[CompletionItem]]:
    """Shell completion for an option whose usual values are `values` (others are allowed)."""

    def complete(
        ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        return [CompletionItem(v) for v in values if v.startswith(incomplete)]

    return complete


def _prover_names() -> Iterable[str]:
    from vampire.registry import KNOWN

    return KNOWN


def _task_runner(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from refinery.errors import ConfigError
    from refinery.parallel import check_task_runner

    try:
        return check_task_runner(value)
    except ConfigError as err:
        raise click.BadParameter(str(err), ctx, param) from err


def prover_options(*, workers: bool = True) -> Callable[[Any], Any]:
    """--provers and --budget, and --workers and --task-runner unless the command proves here."""
    shared = [
        option(
            "--provers",
            default=",".join(config.DEFAULT_PROVERS),
            show_default=True,
            shell_complete=comma_list(_prover_names),
            help="comma-separated: z3, eprover, vampire, tptp (= vampire if configured, else eprover)",
        ),
        option(
            "--budget",
            type=Seconds(),
            default=config.DEFAULT_BUDGET_SECONDS,
            show_default=True,
            help=f"seconds per prover question, more than 0 and at most {config.MAX_SECONDS:g}",
        ),
    ]
    if workers:
        shared += [
            option(
                "--workers",
                type=int,
                default=config.default_workers(),
                show_default="one per core",
                help="worker processes; a story is the unit of work",
            ),
            option(
                "--task-runner",
                default="local",
                callback=_task_runner,
                metavar="local|dask|dask://HOST:PORT|ray|ray://HOST:PORT",
                shell_complete=one_of("local", "dask", "ray"),
                help="where story batches run: this machine's pool (default), a new local Dask or "
                "Ray cluster of --workers processes, or an existing one; anything but local runs "
                "through Prefect",
            ),
        ]
    return apply(*shared)


def refine_options(f: Any) -> Any:
    """SOURCE, --review, the agents, the provers and the budget (`refine` and `schedule`)."""
    return apply(
        click.argument("source", type=PATH_TEXT, metavar="SOURCE"),
        option(
            "--review",
            type=PATH_TEXT,
            help="review queue CSV (default: review/<dataset>-<split>.csv)",
        ),
        option(
            "--agents",
            default="rules",
            show_default=True,
            shell_complete=one_of("rules", "rules,llm"),
            help="rules | rules,llm: the LLM critic is opt-in and needs --llm",
        ),
        option(
            "--llm",
            default="",
            metavar="URL|embedded",
            help="the llm agent's OpenAI-compatible endpoint (default: $OPENAI_BASE_URL; model "
            "$REFINERY_LLM_MODEL, key $OPENAI_API_KEY), or 'embedded': the bundled SmolLM2-135M, "
            "a demonstration of the wiring, not a useful critic",
        ),
        option(
            "--max-rounds", type=int, default=3, show_default=True, help="repair rounds per item"
        ),
        option(
            "--repair-seconds",
            type=Seconds(),
            default=config.DEFAULT_REPAIR_SECONDS,
            show_default=True,
            help="wall-clock seconds one item's repair may take; past it the item goes to review "
            f"with reason repair_budget (at most {config.MAX_SECONDS:g})",
        ),
        option(
            "--llm-rounds",
            type=int,
            default=1,
            show_default=True,
            help="rounds in which the LLM refiner is asked (raise it for a capable endpoint)",
        ),
        prover_options(),
        option(
            "--llm-concurrency",
            type=int,
            metavar="N",
            help="LLM requests at once across all workers (a Prefect global concurrency limit, "
            "refinery-llm, on a cluster; locally it caps the repair processes); default: no limit",
        ),
        option("--no-cache", is_flag=True, help="ignore the verdict and LLM caches"),
    )(f)


def refine_settings(args: Args, **overrides: Any) -> Any:
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
