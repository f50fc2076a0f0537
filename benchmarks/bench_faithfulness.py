"""Faithfulness benchmark: corrupt verified FOLIO v2 items, repair them, count what went right.

For each seed and corruption class, up to N verified items (a seeded sample from both splits) get
one error: a syntax error (`refinery.repair.faithfulness.CORRUPTIONS`), a meaning-level change to one
formula (`SEMANTIC`: dropped or added ¬, ∀↔∃, ∧↔∨, ⊕↔∨, reversed →, swapped arguments, dropped
conjunct), or a flipped gold label (`FLIP_LABEL`). Check and the repair loop (rules only) run on
them; every accepted repair is compared with the original formulas by both provers.

Per class it prints: items; label-flipping (the corruption changes what the provers derive);
detected (not verified any more, or flagged `nl_mismatch`); repaired back (accepted, and every
changed formula equivalent to the original); queued; false approvals (accepted, but not
equivalent — target zero); repairs of a misread original (accepted and not equivalent, but the
original formula itself misreads its sentence at `CONFIRM` or worse, so it is no truth to judge
by — counted apart and listed at the end for a reader to judge); label suggestions and how many are right. Label suggestions are right
only on `flip_label` items, and only with the original label: precision = right ÷ all
suggestions (over every class), recall = right ÷ `flip_label` items. Thresholds were set looking
at train items: the validation rows are the held-out ones.

Usage: python benchmarks/bench_faithfulness.py [--per-class 100] [--seeds 0,1,2] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from refinery import config
from refinery.agents.alignment import align_formula
from refinery.check import check_items
from refinery.datasets.folio import load
from refinery.datasets.records import Item
from refinery.outcomes import Outcome, Status
from refinery.prove.verdict import Budget
from refinery.prove.verdict import Status as Szs
from refinery.repair import RepairConfig
from refinery.repair.batches import repair_items
from refinery.repair.faithfulness import (
    CORRUPTIONS,
    FLIP_LABEL,
    SEMANTIC,
    corrupt,
    corrupt_meaning,
    equivalent,
)
from refinery.repair.gate import CONFIRM
from vampire.registry import build_provers

PROVERS = ["z3", "eprover"]
CLASSES = (*CORRUPTIONS, *SEMANTIC, FLIP_LABEL)
COLUMNS = (
    "items", "flips", "detected", "repaired", "queued", "false", "misread", "suggested", "right"
)  # fmt: skip


def _corrupted(
    verified: list[Item], seed: int, per_class: int
) -> tuple[list[Item], dict[str, tuple[Item, str]]]:
    made: list[Item] = []
    origin: dict[str, tuple[Item, str]] = {}
    for kind in CLASSES:
        rng = random.Random(f"{seed}:{kind}")
        pool = verified[:]
        rng.shuffle(pool)
        count = 0
        for item in pool:
            if count == per_class:
                break
            result = (
                corrupt(item, kind, rng)
                if kind in CORRUPTIONS
                else corrupt_meaning(item, kind, rng)
            )
            if result is not None:
                made.append(result[0])
                origin[result[0].id] = (item, kind)
                count += 1
    return made, origin


def _score(
    outcomes: list[Outcome],
    rows: dict[str, dict[str, object]],
    origin: dict[str, tuple[Item, str]],
    budget: Budget,
    story_fol: dict[str, list[str]],
    listing: list[tuple[str, str, str, list[tuple[int, str, str]], list[str]]],
) -> dict[tuple[str, str], Counter[str]]:
    provers = build_provers(PROVERS)
    table: dict[tuple[str, str], Counter[str]] = {}
    for o in outcomes:
        original, kind = origin[o.id]
        t = table.setdefault((original.split, kind), Counter())
        t["items"] += 1
        t["flips"] += rows[o.id].category != "verified"
        t["detected"] += o.status is not Status.VERIFIED or o.queued
        t["queued"] += o.queued
        if o.suggested_label and o.suggested_label != o.gold_label:
            t["suggested"] += 1
            truth = original.label.value if original.label else ""
            t["right"] += kind == FLIP_LABEL and o.suggested_label == truth
        if o.status is not Status.REPAIRED:
            continue
        fol = [*original.premises_fol, original.conclusion_fol or ""]
        refined = [*o.refined_premises_fol, o.refined_conclusion_fol]
        nl = [*original.premises, original.conclusion]
        story = [*fol, *(story_fol.get(original.story_id, ()))]
        wrong, verdicts = [], []
        for i, (a, b) in enumerate(zip(fol, refined, strict=True)):
            if a != b:
                verdicts.append(equivalent(a, b, provers, budget))
                if verdicts[-1] is Szs.COUNTER_SATISFIABLE:
                    wrong.append((i, a, b))
        if wrong:
            # an original the alignment itself reads as misread (≥ CONFIRM) is no truth to
            # judge a repair by: counted apart, and listed so a reader can judge it
            sentence = {i: nl[i] if i < len(nl) else "" for i, _, _ in wrong}
            misread = all(align_formula(a, sentence[i], story) >= CONFIRM for i, a, _ in wrong)
            t["misread" if misread else "false"] += 1
            listing.append((kind, o.id, "misread original" if misread else "FALSE", wrong, nl))
        elif all(v is Szs.THEOREM for v in verdicts):
            t["repaired"] += 1
    return table


def _print(title: str, table: dict[str, Counter[str]]) -> None:
    print(f"\n{title}")
    print(f"{'class':<20}" + "".join(f"{c:>10}" for c in COLUMNS))
    total: Counter[str] = Counter()
    for kind in CLASSES:
        t = table.get(kind, Counter())
        total.update(t)
        print(f"{kind:<20}" + "".join(f"{t[c]:>10}" for c in COLUMNS))
    print(f"{'all':<20}" + "".join(f"{total[c]:>10}" for c in COLUMNS))
    flips = table.get(FLIP_LABEL, Counter())
    precision = total["right"] / total["suggested"] if total["suggested"] else 0.0
    recall = flips["right"] / flips["items"] if flips["items"] else 0.0
    meaning: Counter[str] = Counter()
    for kind in SEMANTIC:
        meaning.update(table.get(kind, Counter()))
    print(
        f"label suggestions: precision {total['right']}/{total['suggested']} = {precision:.1%}, "
        f"recall {flips['right']}/{flips['items']} = {recall:.1%}; meaning corruptions that flip "
        f"the label repaired back: {meaning['repaired']}/{meaning['flips']}; "
        f"false approvals: {total['false']}; repairs of a misread original: {total['misread']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-class", type=int, default=100)
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    )
    args = parser.parse_args()
    folder = args.data / "folio_v2" / "reconstructed"
    if not folder.is_dir():
        print(f"FOLIO v2 not found at {folder}; pass --data", file=sys.stderr)
        return 2
    items = [
        it for s in ("train", "validation") for it in load(folder / f"folio_v2_{s}.jsonl").items
    ]
    with tempfile.TemporaryDirectory(prefix="refinery-faith-") as state:
        return _run(args, items, Path(state) / "verdicts.sqlite")


def _run(args: argparse.Namespace, items: list[Item], cache: Path) -> int:
    """Check the items, corrupt the verified ones per seed, repair and score them."""
    budget = Budget(seconds=config.DEFAULT_BUDGET_SECONDS, rlimit=config.DEFAULT_RLIMIT)
    common = {
        "prover_factory": build_provers,
        "prover_names": PROVERS,
        "budget": budget,
        "workers": args.workers,
        "cache_path": cache,
    }
    started = time.perf_counter()
    rows = check_items(items, **common)
    verified = [it for it, r in zip(items, rows, strict=True) if r.category == "verified"]
    seeds = [int(s) for s in args.seeds.split(",")]
    print(
        f"{len(verified)} verified FOLIO v2 items; up to {args.per_class} corrupted per class; "
        f"seeds {seeds}"
    )
    story_fol: dict[str, list[str]] = {}
    for it in items:
        story_fol.setdefault(it.story_id, []).extend([*it.premises_fol, it.conclusion_fol or ""])
    overall: dict[tuple[str, str], Counter[str]] = {}
    listing: list[tuple[str, str, str, list[tuple[int, str, str]], list[str]]] = []
    for seed in seeds:
        corrupted, origin = _corrupted(verified, seed, args.per_class)
        crows = check_items(corrupted, **common)
        outcomes = repair_items(corrupted, crows, config=RepairConfig(agents=("rules",)), **common)
        by_id = {r.id: r for r in crows}
        table = _score(outcomes, by_id, origin, budget, story_fol, listing)
        merged: dict[str, Counter[str]] = {}
        for (split, kind), t in table.items():
            merged.setdefault(kind, Counter()).update(t)
            overall.setdefault((split, kind), Counter()).update(t)
        _print(f"== seed {seed}", merged)
    for split in ("train", "validation"):
        part = {kind: t for (s, kind), t in overall.items() if s == split}
        held = " (held out: thresholds were set on train)" if split == "validation" else ""
        _print(f"== all seeds, {split} items{held}", part)
    print("\naccepted repairs that are not equivalent to the original:")
    for kind, item_id, verdict, wrong, nl in listing:
        for i, before, after in wrong:
            print(f"  {verdict}: {item_id} ({kind}) {nl[i] if i < len(nl) else ''!r}")
            print(f"      original {before}\n      repaired {after}")
    print(f"\n{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
