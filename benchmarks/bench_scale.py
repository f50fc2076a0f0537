"""Scale benchmark: `check` on ProofWriter enlarged to 10k, 50k and 100k questions, local vs Dask.

For each size, `enlarge_proofwriter` writes renamed copies of the meta-test (nothing can come
from a cache), then each runner checks it in a fresh process with an empty cache, both provers:
- `local`: this machine's fork pool of --workers processes (`check_items`);
- `dask`: the check flow (Prefect) with story batches on a `distributed.LocalCluster` of
  --workers processes on 127.0.0.1, started before the clock starts (as a user's cluster
  would be), like the Prefect server.
Wall time includes loading the file. Printed per size and runner: wall time, questions/s, peak
resident memory of the driver and of the largest worker process, and Dask's time as a ratio to
local's. The cost curve shows as questions/s across sizes (flat = linear).

Usage: python benchmarks/bench_scale.py [--sizes 10000 50000 100000] [--workers 2] [--budget 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _mib(kib: int) -> float:
    return kib / 1024  # ru_maxrss is in KiB on Linux


def _peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def measure_local(source: Path, workers: int, budget: float, state: Path) -> dict[str, Any]:
    """Check `source` on the fork pool; wall time, peak memory of this process and its workers."""
    from refinery import config
    from refinery.check import check_items
    from refinery.datasets import load_any
    from refinery.prove.verdict import Budget
    from vampire.registry import build_provers, resolve_names

    names = resolve_names(list(config.DEFAULT_PROVERS))
    started = time.perf_counter()
    items = list(load_any(source).items)
    rows = check_items(
        items,
        prover_factory=build_provers,
        prover_names=names,
        budget=Budget(seconds=budget, rlimit=config.DEFAULT_RLIMIT),
        workers=workers,
        cache_path=state / "verdicts.sqlite",
    )
    wall = time.perf_counter() - started
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # largest worker or prover
    return {"rows": len(rows), "wall": wall, "driver": _peak_kib(), "worker": children,
            "categories": _categories(rows)}  # fmt: skip


def measure_dask(source: Path, workers: int, budget: float, state: Path) -> dict[str, Any]:
    """Check `source` through the check flow on a LocalCluster started beforehand."""
    os.environ["REFINERY_STATE_DIR"] = str(state)
    from refinery import config

    config.prefect_environment()
    from distributed import Client, LocalCluster
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.check import check_flow
    from vampire.registry import resolve_names

    server = SubprocessASGIServer()
    server.start()
    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None,
    )  # fmt: skip
    try:
        with temporary_settings({PREFECT_API_URL: server.api_url}), Client(cluster) as client:
            started = time.perf_counter()
            rows = check_flow(
                sources=[str(source)],
                provers=resolve_names(list(config.DEFAULT_PROVERS)),
                budget_seconds=budget,
                rlimit=config.DEFAULT_RLIMIT,
                workers=workers,
                cache=str(state / "verdicts.sqlite"),
                task_runner=cluster.scheduler_address.replace("tcp://", "dask://"),
            )
            wall = time.perf_counter() - started
            peaks = client.run(_peak_kib)
    finally:
        cluster.close()
        server.stop()
    return {"rows": len(rows), "wall": wall, "driver": _peak_kib(), "worker": max(peaks.values()),
            "categories": _categories(rows)}  # fmt: skip


def _categories(rows: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.category] = counts.get(row.category, 0) + 1
    return dict(sorted(counts.items()))


def _one(args: argparse.Namespace) -> int:
    """Child process: one measurement, printed as one JSON line (fresh peak-memory counters)."""
    state = Path(tempfile.mkdtemp(prefix="refinery-scale-"))
    measure = measure_local if args.one == "local" else measure_dask
    result = measure(args.source, args.workers, args.budget, state)
    print("RESULT " + json.dumps(result))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=float, default=5.0)
    parser.add_argument("--runners", nargs="+", default=["local", "dask"])
    data = Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    parser.add_argument("--data", type=Path, default=data)
    parser.add_argument("--one", choices=["local", "dask"], help=argparse.SUPPRESS)
    parser.add_argument("--source", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return _one(args)
    meta = args.data / "proofwriter" / "meta-test.jsonl"
    if not meta.is_file():
        print(f"ProofWriter meta-test not found at {meta}; pass --data", file=sys.stderr)
        return 2
    sys.path.insert(0, str(HERE))
    from enlarge_proofwriter import write_enlarged

    print(f"check, both provers, {args.workers} workers, budget {args.budget:g} s, cold caches")
    print(f"{'questions':>9} {'runner':>6} {'wall s':>8} {'q/s':>7} {'driver MiB':>10} "
          f"{'worker MiB':>10} {'vs local':>8}")  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="refinery-scale-data-"))
    categories: dict[str, Any] = {}
    for size in args.sizes:
        source = write_enlarged(meta, size, work / str(size) / "meta-test.jsonl")
        walls: dict[str, float] = {}
        for runner in args.runners:
            argv = [sys.executable, __file__, "--one", runner, "--source", str(source),
                    "--workers", str(args.workers), "--budget", str(args.budget)]  # fmt: skip
            proc = subprocess.run(argv, capture_output=True, text=True, cwd=HERE.parent)
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
            if proc.returncode or line is None:
                print(f"{size:>9} {runner:>6} failed:\n{proc.stderr[-3000:]}", file=sys.stderr)
                return 1
            r = json.loads(line.removeprefix("RESULT "))
            walls[runner] = r["wall"]
            categories[f"{size} {runner}"] = r["categories"]
            ratio = f"{r['wall'] / walls['local']:.2f}x" if "local" in walls else "-"
            print(f"{r['rows']:>9} {runner:>6} {r['wall']:>8.1f} {r['rows'] / r['wall']:>7.1f} "
                  f"{_mib(r['driver']):>10.0f} {_mib(r['worker']):>10.0f} {ratio:>8}", flush=True)  # fmt: skip
    print("\ncategories per run (both runners of a size must agree):")
    for key, counts in categories.items():
        size = key.split()[0]
        agree = len({json.dumps(c) for k, c in categories.items() if k.split()[0] == size}) == 1
        print(f"  {key}: {counts}{'' if agree else '  <- DIFFERS'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
