"""What the meaning-aware critique does on FOLIO v2: outcome counts, NL-mismatch flags, the queue.

Runs Refine (rules only, no Prefect) on each split and prints: the direct/repaired/review counts
and the review reasons; how many `verified` items carry a finding at all, how many reach
`ISSUE` and are queued as `nl_mismatch`; the queue's share of the split; label suggestions and
label-change repairs; and a seeded sample of flagged `verified` items (sentence, formula, worst
finding) for a person to read and judge. A flag is not proof of an error: read the sample.

Usage: python benchmarks/bench_alignment.py [--splits validation,train] [--sample 20] [--seed 0]
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

from refinery import pipeline
from refinery.agents.alignment import ISSUE
from refinery.agents.endpoint import llm_endpoint
from refinery.outcomes import Outcome, Reason, Status
from vampire.registry import build_provers


def refine(source: Path, workers: int, state: Path) -> tuple[list[Outcome], float]:
    started = time.perf_counter()
    settings = pipeline.RefineSettings(
        source=str(source),
        out_dir=str(state / source.stem),
        review_path=str(state / f"{source.stem}-review.csv"),
        agents=("rules",),
        workers=workers,
        state_dir=str(state),
    )
    with llm_endpoint(settings.agents, cache_path=settings.llm_cache_path()) as endpoint:
        written = pipeline.run_plain(settings, build_provers, endpoint)
    return list(written["outcomes"]), time.perf_counter() - started


def report(split: str, outcomes: list[Outcome], seconds: float, sample: int, seed: int) -> None:
    n = len(outcomes)
    status = Counter(o.status.value for o in outcomes)
    reasons = Counter(o.reason.value for o in outcomes if o.status is Status.NEEDS_REVIEW)
    verified = [o for o in outcomes if o.status is Status.VERIFIED]
    found = [o for o in verified if o.findings]
    flagged = [o for o in verified if o.reason is Reason.NL_MISMATCH]
    queued = [o for o in outcomes if o.queued]
    suggested = [o for o in outcomes if o.suggested_label]
    meaning = Counter(
        o.repaired_by for o in outcomes if o.status is Status.REPAIRED and o.repaired_by
    )
    print(f"\n== FOLIO v2 {split}: {n} items in {seconds:.0f} s")
    print(
        f"direct (verified) {status['verified']}   repaired {status['repaired']}   "
        f"review {status['needs_review']}"
    )
    print("review reasons: " + ", ".join(f"{r} {c}" for r, c in reasons.most_common()))
    print("repaired by: " + ", ".join(f"{r} {c}" for r, c in meaning.most_common()))
    print(
        f"verified with any finding {len(found)} ({len(found) / max(1, len(verified)):.0%}); "
        f"flagged nl_mismatch (≥ {ISSUE}) {len(flagged)}"
    )
    print(f"label suggestions {len(suggested)}: " + ", ".join(
        f"{k} {v}" for k, v in Counter(
            f"{o.gold_label}→{o.suggested_label}" for o in suggested
        ).most_common()
    ))  # fmt: skip
    print(f"queue {len(queued)} of {n} = {len(queued) / max(1, n):.1%} (target ≤ 25%)")
    kinds = Counter(f.split(": ", 1)[1].split(" ", 1)[0] for o in flagged for f in o.findings[:1])
    print("flagged by worst finding: " + ", ".join(f"{k} {c}" for k, c in kinds.most_common()))
    picked = random.Random(seed).sample(flagged, min(sample, len(flagged)))
    for o in sorted(picked, key=lambda o: o.id):
        worst = o.findings[0]
        where = worst.split(":", 1)[0]
        fol = [*o.refined_premises_fol, o.refined_conclusion_fol]
        at = len(fol) - 1 if where == "conclusion" else int(where[len("premises[") : -1])
        print(f"\n{o.id}  [{o.gold_label}]  {worst}")
        print(f"  NL : {o.sentence(where)}")
        print(f"  FOL: {fol[at]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", default="validation,train")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    )
    args = parser.parse_args()
    state = Path(tempfile.mkdtemp(prefix="refinery-bench-alignment-"))
    for split in args.splits.split(","):
        source = args.data / "folio_v2" / "reconstructed" / f"folio_v2_{split}.jsonl"
        if not source.is_file():
            print(f"FOLIO v2 not found at {source}; pass --data", file=sys.stderr)
            return 2
        outcomes, seconds = refine(source, args.workers, state)
        report(split, outcomes, seconds, args.sample, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
