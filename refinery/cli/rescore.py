"""`refinery rescore`: score a model's predictions on the original and the refined labels."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "rescore",
        help="score predictions against a run's original and refined labels",
        description=(
            "Accuracy per gold label on the original and the refined labels. Unparseable and "
            "missing predictions count as wrong and are also counted apart; predictions for ids "
            "not in the split are reported, not scored."
        ),
    )
    parser.add_argument(
        "predictions",
        type=Path,
        metavar="PREDICTIONS",
        help=".csv or .jsonl with id (or example_id) and label: True / False / Uncertain",
    )
    parser.add_argument(
        "--against", type=Path, required=True, metavar="RUN_DIR", help="a run folder"
    )
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the scores as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import json

    from refinery.outputs import atomic_write_text
    from refinery.rescore import format_table, read_predictions, rescore
    from refinery.runs import load_run

    found = load_run(args.against)
    predictions = read_predictions(args.predictions)
    scores = rescore(predictions, found.refined_rows())
    print(
        f"{args.predictions}: {len(predictions.items)} predictions against run {found.run_id}: "
        f"{scores.items} items, {scores.changed} labels changed by review"
    )
    print()
    print(format_table(scores))
    if args.out is not None:
        report = {
            "predictions": str(args.predictions),
            "run": str(found.path),
            "run_id": found.run_id,
            "key": predictions.key,
            **scores.to_dict(),
        }
        atomic_write_text(args.out, json.dumps(report, ensure_ascii=False, indent=2) + "\n")
        print(f"\nwrote {args.out}")
    return 0
