"""Benchmark the evidence: what it costs, and whether every core and countermodel holds up.

For each FOLIO v2 split, check runs cold twice per round, labels only (`evidence=False`) and with
evidence, in alternating order, each against an empty cache; the extra cost of evidence is the
difference of the median walls as a share of the labels-only wall. Then every recorded core is
re-checked alone by Z3 (it must prove its direction again) and every countermodel is evaluated
on the item's formulas (every premise must hold and the conclusion fail, or hold). Prints the
share of conflicts (label_mismatch, inconsistent) with evidence, cores re-verified / recorded,
countermodels verified / recorded, the median core size and the median domain size.

Usage: python benchmarks/bench_evidence.py [--workers 2] [--rounds 3] [--provers z3,eprover]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from refinery import config
from refinery.check import check_items
from refinery.datasets.folio import load
from refinery.datasets.records import Item
from refinery.logic.parse import parse
from refinery.prove.evidence import Recheck, recheck
from refinery.prove.verdict import Budget
from refinery.prove.z3_backend import Z3Prover
from vampire.registry import build_provers, resolve_names


def _cold(
    items: list[Item], names: list[str], workers: int, evidence: bool
) -> tuple[list[Any], float]:
    cache = Path(tempfile.mkdtemp(prefix="refinery-bench-evidence-")) / "verdicts.sqlite"
    started = time.perf_counter()
    rows = check_items(
        items,
        prover_factory=build_provers,
        prover_names=names,
        budget=Budget(seconds=config.DEFAULT_BUDGET_SECONDS, rlimit=config.DEFAULT_RLIMIT),
        workers=workers,
        cache_path=cache,
        evidence=evidence,
    )
    return rows, time.perf_counter() - started


def _verify(rows: list[dict[str, Any]], items: dict[str, Item]) -> tuple[int, int, Recheck]:
    """(conflicts, conflicts with evidence, every core and countermodel re-checked)."""
    z3, budget = Z3Prover(), Budget(seconds=config.DEFAULT_BUDGET_SECONDS)
    conflicts = [r for r in rows if r.category in ("label_mismatch", "inconsistent")]
    total = Recheck()
    for row in rows:
        detail = row.evidence_detail
        if detail.get("cores") or detail.get("countermodels"):
            item = items[row.id]
            premises = [parse(p) for p in item.premises_fol]
            total += recheck(detail, premises, parse(item.conclusion_fol or ""), z3, budget)
    return len(conflicts), sum(1 for r in conflicts if r.evidence), total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--provers", default="z3,eprover")
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    )
    args = parser.parse_args()
    folder = args.data / "folio_v2" / "reconstructed"
    if not folder.is_dir():
        print(f"FOLIO v2 not found at {folder}; pass --data", file=sys.stderr)
        return 2
    names = resolve_names(args.provers.split(","))
    print(f"evidence on FOLIO v2; provers {', '.join(names)}; {args.workers} workers; cold runs")
    for split in ("validation", "train"):
        items = list(load(folder / f"folio_v2_{split}.jsonl").items)
        walls: dict[bool, list[float]] = {False: [], True: []}
        rows: list[Any] = []
        for r in range(args.rounds):
            for evidence in (False, True) if r % 2 == 0 else (True, False):
                found, wall = _cold(items, names, args.workers, evidence)
                walls[evidence].append(wall)
                rows = found if evidence else rows
        off, on = statistics.median(walls[False]), statistics.median(walls[True])
        conflicts, explained, v = _verify(rows, {it.id: it for it in items})
        cores, models = len(v.core_sizes), len(v.model_sizes)
        print(f"\n== {split} ({len(items)} items), medians of {args.rounds} rounds")
        print(f"labels only           {off:.2f} s")
        print(f"with evidence         {on:.2f} s   extra {(on - off) / off:+.1%} of check time")
        print(f"conflicts explained   {explained}/{conflicts}")
        print(
            f"cores re-verified     {v.cores_ok}/{cores} ({v.cores_ok / max(1, cores):.0%}); "
            f"median size {statistics.median(v.core_sizes or [0])}"
        )
        print(
            f"countermodels correct {v.models_ok}/{models} ({v.models_ok / max(1, models):.0%}); "
            f"median domain {statistics.median(v.model_sizes or [0])}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
