"""Benchmark the check stage on FOLIO v2 (train + validation, 1,204 items), cold, no cache.

Prints, for both provers and N workers: total wall time, items/s, per-item median and p95, the
share of time spent inside the provers, and every item that hit the budget with its cost. Then it
re-runs only the stories whose items were all decided within budget and compares the wall time
with (summed prover time ÷ workers).

It also measures its own floor in the same run: a bare loop of each process prover (E, Vampire
when present) on a tiny problem gives the least a call can cost; the floor of the cold run is
(Σ prover floor × that prover's calls + Z3's seconds) ÷ workers, and wall ÷ floor shows what the
product adds on top of starting the provers (target ≤ 1.2).

The cold run is repeated (`--rounds`, 3 by default), each round measuring its floor right after
it, and the median ratio is the one to quote; every round is printed.

Usage: python benchmarks/bench_check.py [--workers 2] [--budget 5] [--rounds 3] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refinery import config
from refinery.check import check_items
from refinery.check.summary import all_agree, category_counts, prover_agreement, seconds_per_item
from refinery.datasets.folio import load
from refinery.logic.parse import parse
from refinery.prove.cache import TABLE
from refinery.prove.verdict import Budget, Problem
from vampire.backends import EProver, VampireProver
from vampire.problem import tptp_text
from vampire.registry import build_provers, resolve_names
from vampire.run import run_on_stdin

TINY = Problem(
    (parse("∀x (Man(x) → Mortal(x))"), parse("Man(socrates)")), parse("Mortal(socrates)")
)

BUDGET_STATUSES = {"Timeout", "ResourceOut"}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _run(
    items: list[Any], names: list[str], budget: Budget, workers: int, cache: Path | None = None
) -> tuple[list[dict[str, Any]], float]:
    started = time.perf_counter()
    rows = check_items(
        items,
        prover_factory=build_provers,
        prover_names=names,
        budget=budget,
        workers=workers,
        cache_path=cache,
    )
    return rows, time.perf_counter() - started


def _hit_budget(row: dict[str, Any], names: list[str]) -> bool:
    detail = row.verdicts
    return any(q["status"] in BUDGET_STATUSES for p in names for q in detail.get(p, {}).values())


def _floor_call(prover: EProver | VampireProver, rounds: int = 40) -> float:
    """Median seconds of a bare call on a tiny problem: the prover's own command line, no
    Python around it but the process runner."""
    assert prover.path is not None
    argv = [prover.path, *prover.arguments(TINY, 5)]
    text = tptp_text(TINY)
    return statistics.median(run_on_stdin(argv, text, timeout=10).elapsed for _ in range(rounds))


def _calls(cache: Path) -> tuple[Counter[str], float]:
    """Prover calls the cold run made (one stored verdict each) and Z3's seconds in them."""
    calls: Counter[str] = Counter()
    z3_seconds = 0.0
    with contextlib.closing(sqlite3.connect(cache)) as db:
        for (text,) in db.execute(f"SELECT value FROM {TABLE}"):
            value = json.loads(text)
            calls[value["prover"]] += 1
            if value["prover"] == "z3":
                z3_seconds += value["elapsed"]
    return calls, z3_seconds


def _report(title: str, rows: list[dict[str, Any]], wall: float, workers: int) -> None:
    prover_total = sum(r.prover_seconds for r in rows)
    per_item = [r.seconds for r in rows]
    print(f"\n== {title}")
    print(f"items                 {len(rows)}")
    print(f"wall time             {wall:.2f} s")
    print(f"throughput            {len(rows) / wall:.1f} items/s")
    print(
        f"per item median / p95 {statistics.median(per_item) * 1000:.1f} ms / {_pct(per_item, 0.95) * 1000:.1f} ms"
    )
    print(
        f"prover time (summed)  {prover_total:.2f} s; ÷ {workers} workers = {prover_total / workers:.2f} s"
    )
    print(f"share inside provers  {prover_total / (wall * workers):.1%} of worker time")
    print(
        f"wall ÷ (prover/worker) {wall / max(1e-9, prover_total / workers):.2f}×  (target ≤ 1.3×)"
    )


@dataclass
class _Round:
    rows: list[dict[str, Any]]
    wall: float
    cache: Path
    calls: Counter[str]
    z3_seconds: float
    floors: dict[str, float]
    workers: int

    @property
    def floor(self) -> float:
        """(Σ bare call × that prover's calls + Z3's seconds) ÷ workers."""
        process = sum(self.floors[p] * self.calls[p] for p in self.floors)
        return (process + self.z3_seconds) / self.workers


def _cold_round(items: list[Any], names: list[str], budget: Budget, workers: int) -> _Round:
    """One cold run with an empty cache, then the bare call floor measured right after it, so
    both see the same machine (a shared machine's speed drifts by tens of percent)."""
    cache = Path(tempfile.mkdtemp(prefix="refinery-bench-")) / "verdicts.sqlite"
    rows, wall = _run(items, names, budget, workers, cache)
    calls, z3_seconds = _calls(cache)
    floors = {
        p.name: _floor_call(p)
        for p in build_provers(names)
        if isinstance(p, (EProver, VampireProver))
    }
    return _Round(rows, wall, cache, calls, z3_seconds, floors, workers)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--rounds", type=int, default=3, help="cold runs, each with its own floor (median)"
    )
    parser.add_argument("--budget", type=float, default=config.DEFAULT_BUDGET_SECONDS)
    parser.add_argument(
        "--provers",
        default=",".join(config.DEFAULT_PROVERS),
        help="e.g. z3,eprover,vampire (VAMPIRE_PATH names the Vampire binary)",
    )
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    )
    args = parser.parse_args()
    folder = args.data / "folio_v2" / "reconstructed"
    if not folder.is_dir():
        print(f"FOLIO v2 not found at {folder}; pass --data", file=sys.stderr)
        return 2
    items = [
        it
        for split in ("train", "validation")
        for it in load(folder / f"folio_v2_{split}.jsonl").items
    ]
    names = resolve_names(args.provers.split(","))
    budget = Budget(seconds=args.budget, rlimit=config.DEFAULT_RLIMIT)
    print(
        f"FOLIO v2: {len(items)} items; provers {', '.join(names)}; {args.workers} workers; "
        f"budget {args.budget:g} s per question; cold (no cache)"
    )

    rounds = [_cold_round(items, names, budget, args.workers) for _ in range(args.rounds)]
    first = rounds[0]
    rows, wall, cache = first.rows, first.wall, first.cache
    _report("all items (cold: empty verdict cache), first round", rows, wall, args.workers)
    print(
        "prover calls          "
        + ", ".join(f"{p} {n}" for p, n in sorted(first.calls.items()))
        + f"; Z3 {first.z3_seconds:.2f} s"
    )
    print(
        "bare call floor       "
        + ", ".join(f"{p} {s * 1000:.2f} ms" for p, s in first.floors.items())
        + " (tiny problem, median of 40)"
    )
    for i, one in enumerate(rounds, 1):
        print(
            f"round {i}               wall {one.wall:.2f} s, floor {one.floor:.2f} s, "
            f"wall ÷ floor {one.wall / one.floor:.2f}"
        )
    ratio = statistics.median(one.wall / one.floor for one in rounds)
    print(f"wall ÷ floor          {ratio:.2f}, median of {len(rounds)} rounds  (target ≤ 1.2)")
    if any(category_counts(one.rows) != category_counts(rows) for one in rounds):
        print("categories differ between rounds!")
    for one in rounds[1:]:
        shutil.rmtree(one.cache.parent, ignore_errors=True)
    print(
        "categories            " + ", ".join(f"{k} {v}" for k, v in category_counts(rows).items())
    )
    for i, a_name in enumerate(names):
        for b_name in names[i + 1 :]:
            a = prover_agreement(rows, a_name, b_name)
            print(
                f"agreement {a_name}/{b_name}: {a.agree}/{a.both_decided} = {a.rate:.2%} "
                "of items both decide"
            )
    if len(names) > 2:
        same, every = all_agree(rows, names)
        print(
            f"all {len(names)} agree          {same}/{every} = "
            f"{same / max(1, every):.2%} of items all decide"
        )
    print(
        "prover time per item  "
        + ", ".join(f"{p} {seconds_per_item(rows, p) * 1000:.1f} ms" for p in names)
    )

    slow = [r for r in rows if _hit_budget(r, names)]
    print(f"\nitems that hit the budget: {len(slow)}")
    for r in slow:
        statuses = ", ".join(f"{p}={r[f'status_{p}']}" for p in names)
        print(f"  {r['id']}: {r['prover_seconds']:.2f} s prover time ({statuses})")

    warm_rows, warm_wall = _run(items, names, budget, args.workers, cache)
    hits = sum(1 for r in warm_rows if r.cached)
    print(
        f"\n== re-run on unchanged data (warm cache): {warm_wall:.2f} s, "
        f"{len(items) / warm_wall:.0f} items/s, {hits}/{len(items)} items fully from cache "
        f"({warm_wall / wall:.1%} of cold)"
    )
    shutil.rmtree(cache.parent, ignore_errors=True)

    slow_stories = {(r.dataset, r.split, r.story_id) for r in slow}
    within = [it for it in items if (it.dataset, it.split, it.story_id) not in slow_stories]
    if slow:
        rows_w, wall_w = _run(within, names, budget, args.workers)
        _report("stories decided within budget (re-run, cold)", rows_w, wall_w, args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
