"""Snapshot every output of `check` and `refine` on real data, and diff two snapshots.

A restructuring must not change what the product writes. `write DIR` runs, from a fresh state
folder (nothing cached), `refinery check` (verdicts.csv / .parquet) and the whole in-process
Refine run (`refinery.pipeline.refine_here`, rules only, a fixed run id) on FOLIO v2 validation
and train and ProofWriter's meta-test, into DIR/<source>/. `compare A B` diffs two snapshots
file by file, byte for byte, after masking only what differs between two runs of the same code
on the same machine: wall-clock times, the creation stamp, the temporary paths, the queue's
keyed seals and the digests of files that hold times (`VOLATILE`).
Parquet files are compared by their rows.

Usage:
    python benchmarks/snapshot.py write DIR [--sources validation,train,proofwriter]
    python benchmarks/snapshot.py compare A B
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
SOURCES = {
    "validation": DATA / "folio_v2" / "reconstructed" / "folio_v2_validation.jsonl",
    "train": DATA / "folio_v2" / "reconstructed" / "folio_v2_train.jsonl",
    "proofwriter": DATA / "proofwriter" / "meta-test.jsonl",
}
#: JSON keys and columns whose values differ between two runs of the same code: wall-clock
#: measurements, the run's creation stamp, a queue row's seal (an HMAC under the state folder's
#: own random key) and run.json's digests of the files (which hold the timings).
VOLATILE = re.compile(
    r"^(seconds|seconds_\w+|prover_seconds|spent|elapsed|created_at|row_seal|files)$"
)
#: The same measurements as the CSV and the reports print them.
_TEXT_TIMES = re.compile(r"\b\d+\.\d+ ?s\b|\b\d+(\.\d+)? ms\b")


def write(out: Path, names: list[str]) -> None:
    """Run check and refine on each source into `out/<name>/`, from an empty state folder."""
    sys.path.insert(0, str(REPO))
    from refinery import pipeline
    from vampire.registry import build_provers

    os.environ.setdefault("VAMPIRE_PATH", str(REPO.parent / "shared" / "bin" / "vampire"))
    for name in names:
        target = out / name
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as state:
            env = {**os.environ, "REFINERY_STATE_DIR": state}
            check = [str(Path(sys.executable).parent / "refinery"), "check", str(SOURCES[name])]
            check += ["--out", str(target / "check"), "--quiet"]
            subprocess.run(check, check=True, env=env, cwd=REPO, stdout=subprocess.DEVNULL)
            settings = pipeline.RefineSettings(
                source=str(SOURCES[name]),
                out_dir=str(target / "runs" / "snapshot"),
                review_path=str(target / "queue.csv"),
                agents=("rules",),
                state_dir=state,
                run_id="snapshot",
            )
            pipeline.refine_here(settings, build_provers)
        print(f"{name}: written to {target}", flush=True)


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        # the digest beside a table and a queue's `.written.json` record a file's size, inode
        # and mtime: a cache, not an output
        if path.is_file() and not path.name.endswith((".lock", ".digest", ".written.json")):
            yield path.relative_to(root)


def _mask(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "<t>" if VOLATILE.match(str(k)) else _mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.dumps(_mask(json.loads(value)), ensure_ascii=False)
        except ValueError:
            return value
    return value


def _masked_text(path: Path, root: Path) -> list[str]:
    """The file's lines with times and the snapshot's own path masked (JSON values by key)."""
    text = path.read_text(encoding="utf-8").replace(str(root), "<root>")
    text = re.sub(r"/tmp/tmp[\w]+", "<state>", text)
    if path.suffix in (".jsonl", ".json"):
        try:
            chunks = (
                [json.loads(line) for line in text.splitlines()]
                if path.suffix == ".jsonl"
                else [json.loads(text)]
            )
            return [json.dumps(_mask(c), ensure_ascii=False, sort_keys=False) for c in chunks]
        except ValueError:
            pass
    if path.suffix == ".csv":
        import csv
        import io

        rows = list(csv.reader(io.StringIO(text)))
        if rows:
            header = rows[0]
            masked = [header]
            for row in rows[1:]:
                masked.append(
                    [
                        "<t>" if VOLATILE.match(h) else _mask(v)
                        for h, v in zip(header, row, strict=False)
                    ]
                )
            return [json.dumps(r, ensure_ascii=False) for r in masked]
    return [_TEXT_TIMES.sub("<t>", line) for line in text.splitlines()]


def _parquet_rows(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    lines = [json.dumps(table.schema.names)]
    for row in table.to_pylist():
        lines.append(json.dumps(_mask(row), ensure_ascii=False, default=str))
    return lines


def compare(first: Path, second: Path) -> int:
    """Print every difference between two snapshots; the number of files that differ."""
    import difflib

    a_files, b_files = set(_files(first)), set(_files(second))
    bad = 0
    for rel in sorted(a_files ^ b_files):
        print(f"only in {'first' if rel in a_files else 'second'}: {rel}")
        bad += 1
    for rel in sorted(a_files & b_files):
        a, b = first / rel, second / rel
        if a.read_bytes() == b.read_bytes():
            continue
        if rel.suffix == ".png":
            print(f"differs (binary): {rel}")
            bad += 1
            continue
        reader = _parquet_rows if rel.suffix == ".parquet" else None
        left = reader(a) if reader else _masked_text(a, first)
        right = reader(b) if reader else _masked_text(b, second)
        if left != right:
            bad += 1
            diff = list(difflib.unified_diff(left, right, str(rel), str(rel), n=0, lineterm=""))
            print("\n".join(d[:400] for d in diff[:40]))
    total = len(a_files | b_files)
    print(f"{total - bad} of {total} files identical (times masked); {bad} differ")
    return bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("out", type=Path)
    w.add_argument("--sources", default=",".join(SOURCES))
    c = sub.add_parser("compare")
    c.add_argument("first", type=Path)
    c.add_argument("second", type=Path)
    args = parser.parse_args()
    if args.command == "write":
        write(args.out, [s for s in args.sources.split(",") if s])
        return 0
    return 1 if compare(args.first, args.second) else 0


if __name__ == "__main__":
    raise SystemExit(main())
