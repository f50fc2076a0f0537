"""Scale benchmark: `check` on ProofWriter enlarged to 10k, 100k and 1M questions.

For each size, `enlarge_proofwriter` writes renamed copies of the meta-test (nothing can come
from a cache), then each runner checks it in a fresh process with an empty cache, both provers:
- `stream`: the `refinery check` command, which reads, checks and writes a chunk at a time;
  its memory is the peak resident memory of its whole process tree (the command, its workers
  and their provers), sampled every 0.1 s; its labels are compared with `local`'s;
- `local`: this machine's fork pool of --workers processes on the whole input in memory
  (`check_items`);
- `dask`: the check flow (Prefect) with story batches on a `distributed.LocalCluster` of
  --workers processes on 127.0.0.1, started before the clock starts (as a user's cluster
  would be), like the Prefect server.
Wall time includes loading the file. Printed per size and runner: wall time, questions/s, peak
resident memory of the driver and of the largest worker process, and Dask's time as a ratio to
local's. The cost curve shows as questions/s across sizes (flat = linear).

Usage: python benchmarks/bench_scale.py [--sizes 10000 100000 1000000] [--workers 2] [--budget 5]
                                        [--runners stream local dask]
"""

from __future__ import annotations

import argparse
import hashlib
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
            "categories": _categories(rows), "labels": _labels_of_rows(rows)}  # fmt: skip


def _labels_of_rows(rows: list[Any]) -> str:
    """A digest of every (id, label) pair, as `labels_of_csv` reads it from a table."""
    return hashlib.sha256("".join(f"{r.id}\t{r.label}\n" for r in rows).encode()).hexdigest()[:16]


def measure_stream(source: Path, workers: int, budget: float, state: Path) -> dict[str, Any]:
    """`refinery check` on `source` as a user runs it; peak memory of its whole process tree."""
    out = state / "out"
    env = {**os.environ, "REFINERY_STATE_DIR": str(state)}
    argv = [str(Path(sys.executable).parent / "refinery"), "check", str(source), "--out", str(out),
            "--workers", str(workers), "--budget", str(budget), "--quiet", "--json"]  # fmt: skip
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_kib(proc.pid))
        time.sleep(0.1)
    wall = time.perf_counter() - started
    summary = json.loads(proc.stdout.read() if proc.stdout else b"{}")
    labels = labels_of_csv(out / "verdicts.csv")
    return {"rows": summary["items"], "wall": wall, "driver": peak, "worker": 0,
            "categories": dict(sorted((k, v) for k, v in summary["categories"].items() if v)),
            "labels": labels}  # fmt: skip


def _tree_kib(root: int) -> int:
    """Resident memory of `root` and every process under it, in KiB (from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    total = 0
    for pid in tree:
        try:
            with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
                total += int(fh.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
        except (OSError, IndexError, ValueError):
            continue
    return total


def labels_of_csv(path: Path) -> str:
    """A digest of every (id, label) pair of a verdicts table, to compare runners by."""
    import csv
    import hashlib

    digest = hashlib.sha256()
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            digest.update(f"{row['id']}\t{row['label']}\n".encode())
    return digest.hexdigest()[:16]


def measure_dask(source: Path, workers: int, budget: float, state: Path) -> dict[str, Any]:
    """Check `source` through the check flow on a LocalCluster started beforehand."""
    os.environ["REFINERY_STATE_DIR"] = str(state)
    from refinery import config

    config.prefect_environment()
    from distributed import Client, LocalCluster

    from flows.check import check_flow
    from flows.cluster import local_cluster_config, local_cluster_options
    from flows.server import temporary_api
    from vampire.registry import resolve_names

    with local_cluster_config():  # as `--task-runner dask` starts it
        cluster = LocalCluster(**local_cluster_options(workers))
    try:
        # the command's own server: its logs are drained before it stops (a bare server left
        # Prefect printing "Error logging to API" after the run)
        with temporary_api(), Client(cluster) as client:
            started = time.perf_counter()
            rows = check_flow(
                sources=[str(source)],
                provers=resolve_names(list(config.DEFAULT_PROVERS)),
                budget_seconds=budget,
                rlimit=config.DEFAULT_RLIMIT,
                workers=workers,
                cache=str(state / "verdicts.sqlite"),
                task_runner=cluster.scheduler_address.replace("tcp://", "dask://"),
            ).value
            wall = time.perf_counter() - started
            peaks = client.run(_peak_kib)
    finally:
        cluster.close()
    return {"rows": len(rows), "wall": wall, "driver": _peak_kib(), "worker": max(peaks.values()),
            "categories": _categories(rows), "labels": _labels_of_rows(rows)}  # fmt: skip


def _categories(rows: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.category] = counts.get(row.category, 0) + 1
    return dict(sorted(counts.items()))


def _one(args: argparse.Namespace) -> int:
    """Child process: one measurement, printed as one JSON line (fresh peak-memory counters)."""
    measure = {"local": measure_local, "dask": measure_dask, "stream": measure_stream}[args.one]
    # a million questions leave ~14 GB of caches and tables: removed once measured
    with tempfile.TemporaryDirectory(prefix="refinery-scale-") as state:
        result = measure(args.source, args.workers, args.budget, Path(state))
    print("RESULT " + json.dumps(result))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=float, default=5.0)
    parser.add_argument("--runners", nargs="+", default=["local", "stream", "dask"])
    data = Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    parser.add_argument("--data", type=Path, default=data)
    parser.add_argument("--one", choices=["stream", "local", "dask"], help=argparse.SUPPRESS)
    parser.add_argument("--source", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return _one(args)
    meta = args.data / "proofwriter" / "meta-test.jsonl"
    if not meta.is_file():
        print(f"ProofWriter meta-test not found at {meta}; pass --data", file=sys.stderr)
        return 2
    print(f"check, both provers, {args.workers} workers, budget {args.budget:g} s, cold caches")
    print(f"{'questions':>9} {'runner':>6} {'wall s':>8} {'q/s':>7} {'driver MiB':>10} "
          f"{'worker MiB':>10} {'vs local':>8}  (stream: driver = its whole process tree)")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="refinery-scale-data-") as work:
        return _sizes(args, meta, Path(work))


def _sizes(args: argparse.Namespace, meta: Path, work: Path) -> int:
    """Each size's input written into `work`, each runner measured on it, then the summary."""
    sys.path.insert(0, str(HERE))
    from enlarge_proofwriter import write_enlarged

    categories: dict[str, Any] = {}
    labels: dict[str, str] = {}
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
            labels[f"{size} {runner}"] = r.get("labels", "")
            ratio = (
                f"{r['wall'] / walls['local']:.2f}x"
                if "local" in walls and runner != "local"
                else "-"
            )
            print(f"{r['rows']:>9} {runner:>6} {r['wall']:>8.1f} {r['rows'] / r['wall']:>7.1f} "
                  f"{_mib(r['driver']):>10.0f} {_mib(r['worker']):>10.0f} {ratio:>8}", flush=True)  # fmt: skip
    print("\ncategories and labels per run (every runner of a size must agree):")
    for key, counts in categories.items():
        size = key.split()[0]
        agree = len({json.dumps(c) for k, c in categories.items() if k.split()[0] == size}) == 1
        same = len({v for k, v in labels.items() if k.split()[0] == size and v}) <= 1
        note = ("" if agree else "  <- categories DIFFER") + ("" if same else "  <- labels DIFFER")
        print(f"  {key}: {counts} labels {labels[key]}{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
