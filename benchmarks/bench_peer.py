"""FOL Refinery's `check` beside cotlog's gold-FOL checker, on FOLIO v2, as a user runs both.

cotlog (github.com/metareflection/cotlog) decides a label with E alone (no consistency question,
one process); `refinery check` asks Z3 and E three questions, in worker processes, and says why.
Rounds alternate the two commands (A B A B …); each `refinery check` round starts from an empty
state folder (cold), then runs once more on it (warm). Prints medians and the ratio per split,
and both tools' agreement with the gold labels.

cotlog is not a dependency: pass its checkout (`--cotlog DIR`, the folder holding `src/cotlog`).
Its gold path reads `# SZS` lines, so it needs an E that prints them (E 2.x, e.g. Debian's
`eprover` 2.6) first on PATH; `--cotlog-eprover` names the folder holding that binary.

Usage: python benchmarks/bench_peer.py --cotlog DIR [--rounds 3] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REFINERY = Path(sys.executable).with_name("refinery")


def _timed(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return wall


def _cotlog(cotlog: Path, data: Path, out: Path, env: dict[str, str]) -> float:
    argv = [sys.executable, "-m", "cotlog.eval", "--mode", "gold", "--data", str(data)]
    return _timed([*argv, "--output-dir", str(out)], {**env, "PYTHONPATH": str(cotlog / "src")})


def _cotlog_counts(out: Path) -> tuple[int, int]:
    """(items decided, items matching gold) of cotlog's newest results file."""
    newest = max(out.glob("gold_*.jsonl"), key=lambda p: p.stat().st_mtime)
    records = [json.loads(line) for line in newest.read_text(encoding="utf-8").splitlines()]
    decided = [r for r in records if r["predicted_label"] in ("True", "False")]
    return len(decided), sum(1 for r in records if r["correct"])


def _ours_counts(verdicts: Path) -> tuple[int, int, Counter[str]]:
    with verdicts.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    decided = sum(1 for r in rows if r["label"] in ("True", "False", "Uncertain", "Inconsistent"))
    return (
        decided,
        sum(1 for r in rows if r["category"] == "verified"),
        Counter(r["category"] for r in rows),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cotlog", type=Path, required=True)
    parser.add_argument("--cotlog-eprover", type=Path, default=Path("/usr/bin"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--splits", default="validation,train")
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    )
    args = parser.parse_args()
    if not (args.cotlog / "src" / "cotlog").is_dir():
        print(f"cotlog not found at {args.cotlog}; pass --cotlog DIR", file=sys.stderr)
        return 2
    folder = args.data / "folio_v2" / "reconstructed"
    base = {k: v for k, v in os.environ.items() if k != "VAMPIRE_PATH"}  # the default provers
    cot_env = {**base, "PATH": f"{args.cotlog_eprover}{os.pathsep}{base.get('PATH', '')}"}
    work = Path(tempfile.mkdtemp(prefix="refinery-peer-"))
    print(
        f"{args.rounds} rounds, alternating; cotlog with {shutil.which('eprover', path=cot_env['PATH'])}"
    )
    try:
        for split in args.splits.split(","):
            data = folder / f"folio_v2_{split}.jsonl"
            cot, cold, warm = [], [], []
            for k in range(args.rounds):
                cot.append(_cotlog(args.cotlog, data, work / "cotlog", cot_env))
                state = work / f"state-{split}-{k}"
                env = {**base, "REFINERY_STATE_DIR": str(state)}
                check = [str(REFINERY), "check", str(data), "--quiet", "--out", str(work / split)]
                cold.append(_timed(check, env))
                warm.append(_timed(check, env))
                shutil.rmtree(state)
            c, o, w = statistics.median(cot), statistics.median(cold), statistics.median(warm)
            cot_decided, cot_right = _cotlog_counts(work / "cotlog")
            decided, right, categories = _ours_counts(work / split / "verdicts.csv")
            print(f"\n== FOLIO v2 {split} ({data.name})")
            print(
                f"cotlog (E only)        {c:7.2f} s   rounds {', '.join(f'{x:.2f}' for x in cot)}"
            )
            print(
                f"refinery check, cold   {o:7.2f} s   rounds {', '.join(f'{x:.2f}' for x in cold)}"
            )
            print(
                f"refinery check, warm   {w:7.2f} s   rounds {', '.join(f'{x:.2f}' for x in warm)}"
            )
            print(f"cold ÷ cotlog          {o / c:7.3f}×")
            print(
                f"decided / match gold   cotlog {cot_decided} / {cot_right}; refinery {decided} / {right}"
            )
            print(
                "refinery categories    "
                + ", ".join(f"{k} {v}" for k, v in categories.most_common())
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
