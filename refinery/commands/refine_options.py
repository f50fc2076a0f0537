"""The options `refinery refine` and `refinery schedule` share, and the settings they build."""

from __future__ import annotations

import argparse
from typing import Any

from refinery import config
from refinery.errors import ConfigError


def add_refine_options(parser: argparse.ArgumentParser) -> None:
    """SOURCE, --review, the agents, the provers and the budget."""
    parser.add_argument(
        "source", metavar="SOURCE", help="FOLIO .jsonl/.json/.csv file, or hf:OWNER/NAME[:SPLIT]"
    )
    parser.add_argument("--review", help="review queue CSV (default: review/<dataset>-<split>.csv)")
    parser.add_argument(
        "--agents", default="rules,llm", help="rules | rules,llm (default %(default)s)"
    )
    parser.add_argument(
        "--max-rounds", type=int, default=3, help="repair rounds per item (default %(default)s)"
    )
    parser.add_argument(
        "--llm-rounds",
        type=int,
        default=1,
        help="rounds in which the LLM refiner is asked (default %(default)s; raise for a capable endpoint)",
    )
    parser.add_argument("--provers", default=",".join(config.DEFAULT_PROVERS))
    parser.add_argument("--workers", type=int, default=config.default_workers())
    parser.add_argument("--budget", type=float, default=config.DEFAULT_BUDGET_SECONDS)
    parser.add_argument("--no-cache", action="store_true", help="ignore the verdict and LLM caches")


def refine_settings(args: argparse.Namespace, **overrides: Any) -> Any:
    """`RefineSettings` from the shared options; `overrides` set the command's own fields."""
    from refinery.pipeline import RefineSettings
    from vampire.registry import resolve_names

    agents = tuple(a.strip() for a in args.agents.split(",") if a.strip())
    if set(agents) - {"rules", "llm"} or "rules" not in agents:
        raise ConfigError(f"--agents must be rules or rules,llm, got {args.agents!r}")
    fields: dict[str, Any] = {
        "source": args.source,
        "review_path": args.review,
        "agents": agents,
        "max_rounds": args.max_rounds,
        "llm_rounds": args.llm_rounds,
        "provers": tuple(resolve_names(args.provers.split(","))),
        "workers": args.workers,
        "budget_seconds": args.budget,
        "use_cache": not args.no_cache,
    }
    return RefineSettings(**(fields | overrides))
