"""`refinery rescore`: score a model's predictions on the original and the refined labels.

The split comes from a run folder, a folder `refinery publish` built, or a published dataset on
the Hub (``OWNER/NAME``, downloaded into the Hugging Face cache); ``--clean`` scores only the
settled items, as the release's ``clean`` config holds them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "rescore",
        help="score predictions against a run's or a release's original and refined labels",
        description=(
            "Accuracy per gold label on the original and the refined labels. Unparseable and "
            "missing predictions count as wrong and are also counted apart; predictions for ids "
            "not in the split (or, with --clean, outside the clean subset) are reported, not "
            "scored."
        ),
    )
    parser.add_argument(
        "predictions",
        type=Path,
        metavar="PREDICTIONS",
        help=".csv or .jsonl with id (or example_id) and label: True / False / Uncertain",
    )
    parser.add_argument(
        "--against",
        required=True,
        metavar="SPLIT",
        help="a run folder, a published folder (refinery publish), or a Hub dataset OWNER/NAME",
    )
    parser.add_argument(
        "--split", help="which split of a published dataset (needed when it has several)"
    )
    parser.add_argument(
        "--clean",
        action="store_true",
        help="score only the clean subset: items verified, repaired or reviewed",
    )
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the scores as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import json

    from refinery.outputs import atomic_write_text
    from refinery.rescore import format_table, load_against, read_predictions, rescore

    against = load_against(args.against, split=args.split)
    predictions = read_predictions(args.predictions)
    scores = rescore(predictions, against.rows, clean=args.clean)
    subset, items = "", f"{scores.items} items"
    if args.clean:
        subset = ", clean subset"
        items = f"{scores.items} of {scores.split_items} items (verified, repaired or reviewed)"
    print(
        f"{args.predictions}: {len(predictions.items)} predictions against {against.name}"
        f"{subset}: {items}, {scores.changed} labels changed by review"
    )
    print()
    print(format_table(scores))
    if args.out is not None:
        report = {
            "predictions": str(args.predictions),
            "against": args.against,
            "source": against.kind,
            "run": str(against.path),
            "run_id": against.run_id,
            "split": against.split,
            "key": predictions.key,
            **scores.to_dict(),
        }
        atomic_write_text(args.out, json.dumps(report, ensure_ascii=False, indent=2) + "\n")
        print(f"\nwrote {args.out}")
    return 0
