"""`refinery rescore`: score a model's predictions on the original and the refined labels.

The split comes from a run folder (or a split's folder of runs: its newest, as `review apply`
picks it), a folder `refinery publish` built, or a published dataset on
the Hub (``OWNER/NAME``, downloaded into the Hugging Face cache); ``--clean`` scores only the
settled items, as the release's ``clean`` config holds them.
"""

from __future__ import annotations

import click

from refinery.cli.options import PATH, Args, make_command, option
from refinery.outputs import visible


def run(args: Args) -> int:
    """Score PREDICTIONS on the original and the refined labels, per gold label.

    PREDICTIONS is a .csv or .jsonl file with id (or example_id) and label (True / False /
    Uncertain). Unparseable and missing predictions count as wrong and are also counted apart;
    predictions for ids not in the split (or, with --clean, outside the clean subset) are
    reported, not scored.
    """
    import json

    from refinery.outputs import atomic_write_text
    from refinery.publish.rescore import format_table, load_against, read_predictions, rescore

    against = load_against(args.against, split=args.split)
    predictions = read_predictions(args.predictions)
    scores = rescore(predictions, against.rows, clean=args.clean)
    subset, items = "", f"{scores.items} items"
    if args.clean:
        subset = ", clean subset"
        items = f"{scores.items} of {scores.split_items} items (verified, repaired or reviewed)"
    print(
        visible(
            f"{args.predictions}: {len(predictions.items)} predictions against {against.name}"
            f"{subset}: {items}, {scores.changed} labels changed by review"
        )
    )
    print()
    print(visible(format_table(scores)))  # ids are the file's text: a lone surrogate, escapes
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


command = make_command(
    "rescore",
    run,
    click.argument("predictions", type=PATH, metavar="PREDICTIONS"),
    option(
        "--against",
        required=True,
        metavar="SPLIT",
        help="a run folder, a split's folder of runs (its newest), a published folder "
        "(refinery publish), or a Hub dataset OWNER/NAME",
    ),
    option("--split", help="which split of a published dataset (needed when it has several)"),
    option(
        "--clean",
        is_flag=True,
        help="score only the clean subset: items verified, repaired or reviewed",
    ),
    option("--out", type=PATH, metavar="FILE", help="also write the scores as JSON"),
    short_help="score predictions against a run's or a release's original and refined labels",
)
