"""FOL Refinery's `check` beside its peers' gold-FOL checkers, on FOLIO v2, as a user runs them.

The peers, each from a checkout you name (neither is a dependency, nothing of them is copied):
- cotlog (github.com/metareflection/cotlog, `--cotlog DIR`, the folder holding `src/cotlog`)
  decides a label with E alone (no consistency question, one process). Its gold path reads
  `# SZS` lines, so it needs an E that prints them (E 2.x, e.g. Debian's `eprover` 2.6) first on
  PATH; `--cotlog-eprover` names the folder holding that binary;
- the AF-agent paper's pipeline (github.com/zyni2001/AF-agent at commit 3b04a45, `--af-agent
  DIR`): FOLIO's FOL rewritten to TPTP with regular expressions and one prover, Vampire
  (`--vampire`, default `$VAMPIRE_PATH`), item after item; run from the checkout by
  `peer_af_agent.py`.
`refinery check` asks Z3 and E three questions per item, in worker processes, and says why.
Rounds alternate the commands (A B C A B C …); each `refinery check` round starts from an empty
state folder (cold), then runs once more on it (warm). Prints medians, our cold wall as a ratio
to each peer's and to the fastest, and every tool's agreement with the gold labels.
Every tool's Python source is compiled to bytecode first, as `pip install` leaves an installed
package: where `PYTHONDONTWRITEBYTECODE` is set, a checkout run from source is otherwise compiled
anew on every run (about 0.08 s of ours on validation), which no installed copy pays.

Usage: python benchmarks/bench_peer.py [--cotlog DIR] [--af-agent DIR] [--rounds 3]
                                       [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import compileall
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
REPO = Path(__file__).resolve().parents[1]


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


def _af_agent(checkout: Path, data: Path, out: Path, vampire: str, env: dict[str, str]) -> float:
    script = Path(__file__).with_name("peer_af_agent.py")
    argv = [sys.executable, str(script), str(data), str(out), vampire]
    return _timed(argv, {**env, "PYTHONPATH": str(checkout / "src")}, cwd=checkout)


def _af_agent_counts(out: Path) -> tuple[int, int]:
    """(items decided True or False, items matching gold) of the paper's pipeline."""
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    decided = [r for r in records if r["predicted"] in ("True", "False")]
    return len(decided), sum(1 for r in records if r["predicted"] == r["gold"])


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
    parser.add_argument("--cotlog", type=Path, help="a cotlog checkout")
    parser.add_argument("--cotlog-eprover", type=Path, default=Path("/usr/bin"))
    parser.add_argument("--af-agent", type=Path, help="an AF-agent checkout (commit 3b04a45)")
    parser.add_argument("--vampire", default=os.environ.get("VAMPIRE_PATH", "vampire"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--splits", default="validation,train")
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    )
    args = parser.parse_args()
    if args.cotlog is None and args.af_agent is None:
        print("name a peer: --cotlog DIR and/or --af-agent DIR", file=sys.stderr)
        return 2
    if args.cotlog is not None and not (args.cotlog / "src" / "cotlog").is_dir():
        print(f"cotlog not found at {args.cotlog}; pass --cotlog DIR", file=sys.stderr)
        return 2
    if (
        args.af_agent is not None
        and not (args.af_agent / "src" / "folio_utils" / "vampire_runner.py").is_file()
    ):
        print(f"AF-agent not found at {args.af_agent}; pass --af-agent DIR", file=sys.stderr)
        return 2
    vampire = shutil.which(args.vampire) if args.af_agent is not None else None
    if args.af_agent is not None and vampire is None:
        print(f"no Vampire at {args.vampire}; pass --vampire or set VAMPIRE_PATH", file=sys.stderr)
        return 2
    folder = args.data / "folio_v2" / "reconstructed"
    base = {k: v for k, v in os.environ.items() if k != "VAMPIRE_PATH"}  # the default provers
    cot_env = {**base, "PATH": f"{args.cotlog_eprover}{os.pathsep}{base.get('PATH', '')}"}
    work = Path(tempfile.mkdtemp(prefix="refinery-peer-"))
    peers = ", ".join(
        [f"cotlog with {shutil.which('eprover', path=cot_env['PATH'])}"] * bool(args.cotlog)
        + [f"AF-agent with {vampire}"] * bool(args.af_agent)
    )
    sources = [REPO / "refinery", REPO / "vampire"]
    sources += [peer / "src" for peer in (args.cotlog, args.af_agent) if peer is not None]
    for source in sources:  # as installed (see the module docstring)
        compileall.compile_dir(source, quiet=1)
    print(f"{args.rounds} rounds, alternating; {peers}; bytecode compiled")
    try:
        for split in args.splits.split(","):
            data = folder / f"folio_v2_{split}.jsonl"
            walls: dict[str, list[float]] = {"cotlog": [], "af-agent": [], "cold": [], "warm": []}
            for k in range(args.rounds):
                if args.cotlog is not None:
                    walls["cotlog"].append(_cotlog(args.cotlog, data, work / "cotlog", cot_env))
                if args.af_agent is not None and vampire is not None:
                    af_out = work / "af-agent.jsonl"
                    walls["af-agent"].append(_af_agent(args.af_agent, data, af_out, vampire, base))
                state = work / f"state-{split}-{k}"
                env = {**base, "REFINERY_STATE_DIR": str(state)}
                check = [str(REFINERY), "check", str(data), "--quiet", "--out", str(work / split)]
                walls["cold"].append(_timed(check, env))
                walls["warm"].append(_timed(check, env))
                shutil.rmtree(state)
            median = {name: statistics.median(w) for name, w in walls.items() if w}
            print(f"\n== FOLIO v2 {split} ({data.name})")
            names = {"cotlog": "cotlog (E only)", "af-agent": "AF-agent (Vampire only)",
                     "cold": "refinery check, cold", "warm": "refinery check, warm"}  # fmt: skip
            for name, label in names.items():
                if name in median:
                    rounds = ", ".join(f"{x:.2f}" for x in walls[name])
                    print(f"{label:<24} {median[name]:7.2f} s   rounds {rounds}")
            peers_median = {n: m for n, m in median.items() if n in ("cotlog", "af-agent")}
            for name, wall in peers_median.items():
                print(f"cold ÷ {name:<17} {median['cold'] / wall:7.3f}×")
            fastest = min(peers_median, key=peers_median.__getitem__)
            print(
                f"cold ÷ fastest peer     {median['cold'] / peers_median[fastest]:7.3f}× ({fastest})"
            )
            decided, right, categories = _ours_counts(work / split / "verdicts.csv")
            counts = [f"refinery {decided} / {right}"]
            if args.cotlog is not None:
                cot_decided, cot_right = _cotlog_counts(work / "cotlog")
                counts.append(f"cotlog {cot_decided} / {cot_right}")
            if args.af_agent is not None:
                af_decided, af_right = _af_agent_counts(work / "af-agent.jsonl")
                counts.append(f"AF-agent {af_decided} / {af_right}")
            print("decided / match gold   " + "; ".join(counts))
            print(
                "refinery categories    "
                + ", ".join(f"{k} {v}" for k, v in categories.most_common())
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
