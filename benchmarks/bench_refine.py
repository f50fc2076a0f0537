"""Benchmark the Refine stage on FOLIO v2 validation: cold (empty caches) and warm (re-run).

Runs the stage's core steps — load, check, repair, write the refined split, queue and report —
twice against one fresh state folder: the first run fills the verdict and LLM caches, the second
re-runs on unchanged input. Prefect is left out so the numbers measure the product, not the
orchestrator's start-up. Target: warm ≤ 1/10 of cold.

Usage: python benchmarks/bench_refine.py [--agents rules|rules,llm] [--llm URL|embedded]
       [--workers 2] [--split validation]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from refinery import pipeline
from refinery.agents.endpoint import llm_endpoint
from refinery.outcomes import outcome_counts
from vampire.registry import build_provers


def run_once(
    source: Path, agents: tuple[str, ...], workers: int, state: Path, out: Path, llm: str = ""
) -> tuple[float, dict[str, int]]:
    started = time.perf_counter()
    settings = pipeline.RefineSettings(
        source=str(source),
        out_dir=str(out),
        review_path=str(out.parent / f"{out.name}-review.csv"),  # beside: the run is renamed in
        agents=agents,
        workers=workers,
        state_dir=str(state),
    )
    with llm_endpoint(agents, cache_path=settings.llm_cache_path(), choice=llm) as endpoint:
        written = pipeline.run_plain(settings, build_provers, endpoint)
    return time.perf_counter() - started, outcome_counts(written["outcomes"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="rules")
    parser.add_argument("--llm", default="", help="endpoint URL, or 'embedded' (the demo model)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--split", default="validation")
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    )
    args = parser.parse_args()
    source = args.data / "folio_v2" / "reconstructed" / f"folio_v2_{args.split}.jsonl"
    if not source.is_file():
        print(f"FOLIO v2 not found at {source}; pass --data", file=sys.stderr)
        return 2
    agents = tuple(args.agents.split(","))
    state = Path(tempfile.mkdtemp(prefix="refinery-bench-state-"))
    print(
        f"Refine on FOLIO v2 {args.split}; agents {args.agents}; {args.workers} workers; state {state}"
    )
    cold, counts = run_once(source, agents, args.workers, state, state / "cold", args.llm)
    print(f"cold  {cold:7.2f} s   {counts}")
    warm, counts_warm = run_once(source, agents, args.workers, state, state / "warm", args.llm)
    print(f"warm  {warm:7.2f} s   {counts_warm}")
    print(f"warm / cold = {warm / cold:.1%}  (target ≤ 10%)")
    if counts != counts_warm:
        print("warning: the warm run's outcomes differ from the cold run's")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
