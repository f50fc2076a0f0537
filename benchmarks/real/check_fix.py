"""Check a hand-written fix of one FOLIO item with the provers: the label the fixed FOL proves.

Reads the item from FOLIO v2 (train by default), replaces the formulas given with `--set`,
appends background axioms given with `--add`, writes the one-item story to a temporary file and
runs `refinery check` on it (every prover named, no cache). Prints each prover's label, the
agreed label, the check category against the gold label, and the evidence.

Usage:
    python benchmarks/real/check_fix.py folio-v2/train/123 \
        --set 'premises[2]=∀x (Bee(x) → Animal(x))' --set 'conclusion=Animal(bob)' \
        --add '∀x (Queen(x) → Bee(x))' [--label True] [--provers z3,eprover,vampire]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data" / "folio_v2" / "reconstructed"


def find_row(item_id: str) -> dict[str, object]:
    dataset, split, example = item_id.split("/")
    path = DATA / f"folio_v2_{split}.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if str(row["example_id"]) == example:
            return dict(row)
    raise SystemExit(f"{item_id}: not in {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("id", help="item id, e.g. folio-v2/train/123")
    parser.add_argument("--set", action="append", default=[], metavar="WHERE=FORMULA")
    parser.add_argument("--add", action="append", default=[], metavar="FORMULA")
    parser.add_argument("--label", help="check against this label instead of the gold one")
    parser.add_argument("--provers", default="z3,eprover,vampire")
    args = parser.parse_args()
    row = find_row(args.id)
    premises = [p for p in str(row["premises-FOL"]).split("\n") if p.strip()]
    conclusion = str(row["conclusion-FOL"])
    for change in args.set:
        where, _, formula = change.partition("=")
        where = where.strip()
        if where == "conclusion":
            conclusion = formula
        elif where.startswith("premises[") and where.endswith("]"):
            premises[int(where[9:-1])] = formula
        else:
            raise SystemExit(f"--set {change!r}: say premises[i]=… or conclusion=…")
    premises += args.add
    nl = [p for p in str(row["premises"]).split("\n") if p.strip()]
    nl += ["(background)"] * len(args.add)
    fixed = {**row, "premises": "\n".join(nl), "premises-FOL": "\n".join(premises)}
    fixed["conclusion-FOL"] = conclusion
    if args.label:
        fixed["label"] = args.label
    env = {**os.environ, "VAMPIRE_PATH": str(REPO.parent / "shared" / "bin" / "vampire")}
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "item.jsonl"
        source.write_text(json.dumps(fixed, ensure_ascii=False) + "\n", encoding="utf-8")
        command = [str(Path(sys.executable).parent / "refinery"), "check", str(source)]
        command += ["--out", tmp, "--no-cache", "--quiet", "--provers", args.provers]
        proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp)
        if proc.returncode not in (0, 1):
            print(proc.stderr[-2000:])
            return 2
        with open(Path(tmp) / "verdicts.csv", encoding="utf-8-sig") as f:
            (verdict,) = list(csv.DictReader(f))
    for i, p in enumerate(premises):
        print(f"premises[{i}]: {p}")
    print(f"conclusion: {conclusion}")
    print(f"gold: {fixed['label']}")
    for name in args.provers.split(","):
        print(f"{name}: {verdict.get(f'label_{name}', '?')} ({verdict.get(f'status_{name}', '')})")
    print(f"agreed: {verdict['label'] or '(none)'}  category: {verdict['category']}")
    if verdict["issues"]:
        print("issues:\n  " + verdict["issues"].replace("\n", "\n  "))
    if verdict["evidence"]:
        print("evidence:\n  " + verdict["evidence"].replace("\n", "\n  "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
