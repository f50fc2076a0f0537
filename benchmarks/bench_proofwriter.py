"""Benchmark the check stage on ProofWriter (birds-electricity OWA meta-test: 5,270 questions).

Both provers, N workers, a cold (empty) verdict cache, then a warm re-run. Prints the wall time,
questions/s, how many prover questions the sharing saves (one consistency question per theory;
identical questions, and "X" / "not X", asked once), the category counts, how often classical
logic and the dataset's own forward chaining agree with the gold labels, and a few examples of
`semantics_mismatch` and `label_error_candidate`. Last, it flips some gold labels on purpose and
counts how many the dataset semantics flags as `label_error_candidate` (warm cache).

Usage: python benchmarks/bench_proofwriter.py [--workers 2] [--budget 5] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from refinery import config
from refinery.check import CheckRow, check_items, parse_item
from refinery.check.summary import all_agree, category_counts, prover_agreement, seconds_per_item
from refinery.datasets import load_any
from refinery.datasets.records import Item
from refinery.labels import Label
from refinery.logic.analysis import negation
from refinery.logic.syntax import Formula
from refinery.prove.verdict import Budget
from vampire.registry import build_provers, resolve_names

_FLIP = {Label.TRUE: Label.FALSE, Label.FALSE: Label.UNCERTAIN, Label.UNCERTAIN: Label.TRUE}


def _run(
    items: list[Item], names: list[str], budget: Budget, workers: int, cache: Path
) -> tuple[list[CheckRow], float, float]:
    """Rows, wall seconds, and CPU seconds of the workers and their prover processes."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows = check_items(
        items,
        prover_factory=build_provers,
        prover_names=names,
        budget=budget,
        workers=workers,
        cache_path=cache,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return rows, wall, cpu


def _questions(items: list[Item]) -> tuple[int, int]:
    """Prover questions per prover: without any sharing, and as the check stage asks them."""
    naive = 3 * len(items)
    goals: dict[str, set[Formula | None]] = {}
    for it in items:
        c = parse_item(it).conclusion
        if c is not None:
            goals.setdefault(it.story_id, {None}).update((c, negation(c)))
    return naive, sum(len(g) for g in goals.values())


def _show(rows: list[CheckRow], items: dict[str, Item], category: str, n: int) -> None:
    """Up to n examples, each from another theory and with another question text."""
    chosen = [r for r in rows if r.category == category]
    print(f"\n{category}: {len(chosen)} items; examples:")
    if not chosen:
        print("  (none)")
    seen: set[str] = set()
    examples = []
    for r in chosen:
        it = items[r.id]
        if it.story_id not in seen and it.conclusion not in seen:
            seen |= {it.story_id, it.conclusion}
            examples.append(r)
    for r in examples[:n]:
        it = items[r.id]
        print(
            f"  {r.id}: {it.conclusion!r} ({it.conclusion_fol}) gold {r.gold_label}, "
            f"dataset semantics {r.label_dataset}, classical {r.label or '-'}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=float, default=config.DEFAULT_BUDGET_SECONDS)
    parser.add_argument("--examples", type=int, default=4)
    parser.add_argument(
        "--provers",
        default=",".join(config.DEFAULT_PROVERS),
        help="e.g. z3,eprover,vampire (VAMPIRE_PATH names the Vampire binary)",
    )
    parser.add_argument("--flip", type=int, default=20, help="gold labels flipped on purpose")
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    )
    args = parser.parse_args()
    path = args.data / "proofwriter" / "meta-test.jsonl"
    if not path.is_file():
        print(f"ProofWriter meta-test not found at {path}; pass --data", file=sys.stderr)
        return 2
    started = time.perf_counter()
    loaded = load_any(path)
    load_s = time.perf_counter() - started
    items = list(loaded.items)
    names = resolve_names(args.provers.split(","))
    budget = Budget(seconds=args.budget, rlimit=config.DEFAULT_RLIMIT)
    theories = len({it.story_id for it in items})
    print(
        f"ProofWriter {path.name}: {len(items)} questions, {theories} theories, "
        f"{len(loaded.errors)} load errors, loaded with generated FOL in {load_s:.2f} s; "
        f"provers {', '.join(names)}; {args.workers} workers; budget {args.budget:g} s"
    )
    naive, asked = _questions(items)
    print(
        f"prover questions per prover: {asked} asked (without sharing: {naive}, "
        f"{naive / asked:.2f}× more)"
    )

    cache = Path(tempfile.mkdtemp(prefix="refinery-bench-")) / "verdicts.sqlite"
    try:
        rows, wall, cpu = _run(items, names, budget, args.workers, cache)
        print("\n== cold (empty verdict cache)")
        print(f"wall time             {wall:.2f} s")
        print(f"throughput            {len(rows) / wall:.1f} questions/s")
        print(
            f"CPU (workers+provers) {cpu:.2f} s; ÷ {args.workers} workers = "
            f"{cpu / args.workers:.2f} s, {len(rows) / (cpu / args.workers):.0f} questions/s "
            "on otherwise idle cores"
        )
        print(
            "categories            "
            + ", ".join(f"{k} {v}" for k, v in category_counts(rows).items() if v)
        )
        classical = sum(1 for r in rows if r.label == r.gold_label)
        semantics = sum(1 for r in rows if r.label_dataset == r.gold_label)
        print(f"classical vs gold     {classical}/{len(rows)} = {classical / len(rows):.2%}")
        print(f"dataset sem. vs gold  {semantics}/{len(rows)} = {semantics / len(rows):.2%}")
        confusion = Counter((r.gold_label, r.label or "-") for r in rows)
        print(
            "gold → classical      "
            + ", ".join(f"{g}→{c} {n}" for (g, c), n in sorted(confusion.items()))
        )
        for i, a_name in enumerate(names):
            for b_name in names[i + 1 :]:
                a = prover_agreement(rows, a_name, b_name)
                print(f"{a_name} vs {b_name}: {a.agree}/{a.both_decided} = {a.rate:.2%}")
        if len(names) > 2:
            same, every = all_agree(rows, names)
            print(f"all {len(names)} agree: {same}/{every} = {same / max(1, every):.2%}")
        print(
            "prover time per question "
            + ", ".join(f"{p} {seconds_per_item(rows, p) * 1000:.2f} ms" for p in names)
        )
        by_id = {it.id: it for it in items}
        _show(rows, by_id, "semantics_mismatch", args.examples)
        _show(rows, by_id, "label_error_candidate", args.examples)

        warm_rows, warm_wall, _ = _run(items, names, budget, args.workers, cache)
        hits = sum(1 for r in warm_rows if r.cached)
        print(
            f"\n== warm re-run: {warm_wall:.2f} s, {len(items) / warm_wall:.0f} questions/s, "
            f"{hits}/{len(items)} items fully from cache"
        )

        rng = random.Random(0)
        flipped = [
            dataclasses.replace(it, label=_FLIP[it.label]) if it.label else it
            for it in rng.sample(items, args.flip)
        ]
        flip_rows, _, _ = _run(flipped, names, budget, args.workers, cache)
        caught = sum(1 for r in flip_rows if r.category == "label_error_candidate")
        print(f"== injected label errors flagged as label_error_candidate: {caught}/{args.flip}")
    finally:
        shutil.rmtree(cache.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
