"""`refinery check` on clusters started by hand on 127.0.0.1, beside the local pool: same labels?

A user who outgrows one machine starts a scheduler and workers themselves and names the
scheduler with `--task-runner`. This script does that on this machine, as separate processes:
- Dask: `dask scheduler` and two `dask worker` processes (one thread each), then
  `refinery check SOURCE --task-runner dask://127.0.0.1:PORT`;
- Ray: `ray start --head` and `ray start --address` for a second node process, then
  `refinery check SOURCE --task-runner ray://127.0.0.1:PORT` (Ray's client server). Ray 2.60
  turns token authentication on for a head started where `~/.ray/auth_token` exists, and a
  node or client without it then cannot join; so every Ray process here runs with
  `RAY_AUTH_MODE=token` and the token `ray get-auth-token --generate` keeps in that file.
Each source is also checked on the local pool (`--workers 2`). Every run starts from an empty
state folder, so nothing comes from a cache. Printed per source and runner: wall time, items,
cached rows, and a digest of every (id, label) pair, which must be the same on every runner.

Usage: python benchmarks/bench_cluster.py [--sources FILE ...] [--runners local dask ray]
(default sources: FOLIO v2 train and ProofWriter's meta-test enlarged to 30,000 questions)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the other benchmarks' helpers
from bench_scale import labels_of_csv  # noqa: E402
from enlarge_proofwriter import write_enlarged  # noqa: E402

BIN = Path(sys.executable).parent
ENV = {**os.environ, "DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
       "RAY_AUTH_MODE": "token"}  # fmt: skip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in reversed(procs):
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def dask_cluster(logs: Path) -> Iterator[str]:
    """A scheduler and two single-thread workers, each its own process; yields the address."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs: list[subprocess.Popen[bytes]] = []
    try:
        procs.append(_spawn(["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port),
                             "--no-dashboard"], logs / "scheduler.log"))  # fmt: skip
        for k in range(2):
            procs.append(_spawn(["dask", "worker", address, "--nthreads", "1", "--nworkers", "1",
                                 "--no-dashboard", "--name", f"w{k}"], logs / f"worker{k}.log"))  # fmt: skip
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield f"dask://127.0.0.1:{port}"
    finally:
        _stop(procs)


@contextmanager
def ray_cluster(logs: Path) -> Iterator[str]:
    """A Ray head (no CPUs of its own) and a second node with two CPUs; yields the client address."""
    port, client_port = _free_port(), _free_port()
    ray = str(BIN / "ray")
    head = [ray, "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port),
            "--ray-client-server-port", str(client_port), "--num-cpus", "0",
            "--include-dashboard", "false", "--disable-usage-stats"]  # fmt: skip
    node = [ray, "start", "--address", f"127.0.0.1:{port}", "--node-ip-address", "127.0.0.1",
            "--num-cpus", "2", "--disable-usage-stats"]  # fmt: skip
    subprocess.run([ray, "get-auth-token", "--generate"], env=ENV, capture_output=True, check=True)
    try:
        for argv, name in ((head, "head"), (node, "node")):
            done = subprocess.run(argv, env=ENV, capture_output=True, text=True, timeout=300)
            (logs / f"ray-{name}.log").write_text(done.stdout + done.stderr, encoding="utf-8")
            if done.returncode:
                raise SystemExit(f"ray start ({name}) failed:\n{done.stderr[-2000:]}")
        yield f"ray://127.0.0.1:{client_port}"
    finally:
        subprocess.run([ray, "stop", "--force"], env=ENV, capture_output=True, timeout=120)


def _spawn(argv: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen([str(BIN / argv[0]), *argv[1:]], stdout=out,
                                stderr=subprocess.STDOUT, env=ENV)  # fmt: skip


def check(source: Path, runner: str, work: Path) -> dict[str, object]:
    """`refinery check` of `source` on `runner` from an empty state folder."""
    state, out = Path(tempfile.mkdtemp(dir=work)), Path(tempfile.mkdtemp(dir=work))
    argv = [str(BIN / "refinery"), "check", str(source), "--out", str(out), "--workers", "2",
            "--json", "--quiet"] + ([] if runner == "local" else ["--task-runner", runner])  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(argv, env={**ENV, "REFINERY_STATE_DIR": str(state)},
                          capture_output=True, text=True)  # fmt: skip
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1) or not done.stdout.strip():  # 1: a gate failed
        raise SystemExit(
            f"refinery check on {runner} failed (exit {done.returncode}):\n{done.stderr[-3000:]}"
        )
    summary = json.loads(done.stdout)
    labels = labels_of_csv(out / "verdicts.csv")
    shutil.rmtree(state)
    shutil.rmtree(out)
    return {"wall": wall, "items": summary["items"], "cached": summary["cached"],
            "labels": labels}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data = Path(os.environ.get("REFINERY_SHARED_DATA", HERE.parent.parent / "shared" / "data"))
    parser.add_argument("--data", type=Path, default=data)
    parser.add_argument("--sources", type=Path, nargs="*")
    parser.add_argument("--questions", type=int, default=30_000)
    parser.add_argument("--runners", nargs="+", default=["local", "dask", "ray"])
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="refinery-cluster-"))
    try:
        sources = args.sources
        if not sources:
            meta = args.data / "proofwriter" / "meta-test.jsonl"
            enlarged = work / str(args.questions) / "meta-test.jsonl"
            folio = args.data / "folio_v2" / "reconstructed" / "folio_v2_train.jsonl"
            sources = [folio, write_enlarged(meta, args.questions, enlarged)]
        results: dict[str, dict[str, dict[str, object]]] = {str(s): {} for s in sources}
        clusters = {"dask": dask_cluster, "ray": ray_cluster}
        print(f"{'source':<28} {'runner':<30} {'wall s':>7} {'items':>6} {'cached':>6}  labels")
        for runner in args.runners:
            logs = work / f"logs-{runner}"
            logs.mkdir()
            started = nullcontext(runner) if runner == "local" else clusters[runner](logs)
            with started as name:
                for source in sources:
                    r = check(source, name, work)
                    results[str(source)][runner] = r
                    label = f"{source.parent.name}/{source.name}"[-28:]
                    print(f"{label:<28} {name:<30} {r['wall']:>7.1f} {r['items']:>6} "
                          f"{r['cached']:>6}  {r['labels']}", flush=True)  # fmt: skip
        same = all(len({r["labels"] for r in by.values()}) == 1 for by in results.values())
        print("labels identical on every runner:" if same else "labels DIFFER:", same)
        return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
