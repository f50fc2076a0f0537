"""Faithfulness benchmark: corrupt verified FOLIO v2 items, repair them, count false approvals.

For each corruption class, up to N verified items (seeded sample) get one premise corrupted; the
check + repair loop runs on them; every accepted repair is compared with the original formulas by
both provers (original ↔ repaired must be a theorem). Prints per class: items, corruptions the
gate could not see (the item still verifies), repaired, repair rate (of detected), sent to
review, and false approvals (target: zero).

Usage: python benchmarks/bench_faithfulness.py [--per-class 150] [--seed 0] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from refinery import config
from refinery.check import check_items
from refinery.datasets.folio import load
from refinery.faithfulness import CORRUPTIONS, corrupt, equivalent
from refinery.outcomes import Status
from refinery.prove.verdict import Budget
from refinery.prove.verdict import Status as Szs
from refinery.repair import RepairConfig, repair_items
from vampire.registry import build_provers

PROVERS = ["z3", "eprover"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-class", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
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
    budget = Budget(seconds=config.DEFAULT_BUDGET_SECONDS, rlimit=config.DEFAULT_RLIMIT)
    cache = Path(tempfile.mkdtemp(prefix="refinery-faith-")) / "verdicts.sqlite"
    common = {
        "prover_factory": build_provers,
        "prover_names": PROVERS,
        "budget": budget,
        "workers": args.workers,
        "cache_path": cache,
    }
    started = time.perf_counter()
    rows = check_items(items, **common)
    verified = [it for it, r in zip(items, rows, strict=True) if r["category"] == "verified"]
    print(
        f"{len(verified)} verified FOLIO v2 items; up to {args.per_class} corrupted per class (seed {args.seed})"
    )

    originals = {it.id: it for it in verified}
    corrupted, origin = [], {}
    for kind in CORRUPTIONS:
        rng = random.Random(f"{args.seed}:{kind}")
        pool = verified[:]
        rng.shuffle(pool)
        made = 0
        for item in pool:
            if made == args.per_class:
                break
            result = corrupt(item, kind, rng)
            if result is not None:
                corrupted.append(result[0])
                origin[result[0].id] = (item.id, kind)
                made += 1
    crows = check_items(corrupted, **common)
    outcomes = repair_items(corrupted, crows, config=RepairConfig(agents=("rules",)), **common)

    provers = build_provers(PROVERS)
    table: dict[str, dict[str, int]] = {
        k: dict.fromkeys(
            ("items", "undetected", "repaired", "review", "false_approvals", "unknown_equivalence"),
            0,
        )
        for k in CORRUPTIONS
    }
    examples: list[str] = []
    for o in outcomes:
        original_id, kind = origin[o.id]
        t = table[kind]
        t["items"] += 1
        if o.check_category == "verified":
            t["undetected"] += 1
            continue
        if o.status is not Status.REPAIRED:
            t["review"] += 1
            continue
        t["repaired"] += 1
        original = originals[original_id]
        pairs = list(zip(original.premises_fol, o.refined_premises_fol, strict=True))
        pairs.append((original.conclusion_fol or "", o.refined_conclusion_fol))
        verdicts = [equivalent(a, b, provers, budget) for a, b in pairs if a != b]
        if any(v is Szs.COUNTER_SATISFIABLE for v in verdicts):
            t["false_approvals"] += 1
            if len(examples) < 8:
                changed = [(a, b) for a, b in pairs if a != b]
                examples.append(f"{o.id} ({o.repaired_by}): {changed}")
        elif any(v is None for v in verdicts):
            t["unknown_equivalence"] += 1

    print(
        f"\n{'class':<18}{'items':>6}{'unseen':>8}{'repaired':>10}{'rate':>8}{'review':>8}{'false appr.':>13}{'unknown':>9}"
    )
    totals = dict.fromkeys(
        ("items", "undetected", "repaired", "review", "false_approvals", "unknown_equivalence"), 0
    )
    for kind, t in table.items():
        detected = t["items"] - t["undetected"]
        rate = t["repaired"] / detected if detected else 0.0
        print(
            f"{kind:<18}{t['items']:>6}{t['undetected']:>8}{t['repaired']:>10}{rate:>8.1%}{t['review']:>8}"
            f"{t['false_approvals']:>13}{t['unknown_equivalence']:>9}"
        )
        for k in totals:
            totals[k] += t[k]
    detected = totals["items"] - totals["undetected"]
    print(
        f"{'all':<18}{totals['items']:>6}{totals['undetected']:>8}{totals['repaired']:>10}"
        f"{totals['repaired'] / max(1, detected):>8.1%}{totals['review']:>8}{totals['false_approvals']:>13}"
        f"{totals['unknown_equivalence']:>9}"
    )
    if examples:
        print("\nfalse approvals (first few):")
        for e in examples:
            print("  " + e)
    print(f"\n{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
