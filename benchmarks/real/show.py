"""Show one item of a run as a reader sees it: its sentences beside its FOL, and what the product
did (status, reason, cause, suggestion, edits, critique, findings, evidence).

Usage: python benchmarks/real/show.py RUN_FOLDER ITEM_ID
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(run: Path, item_id: str) -> int:
    lines = (run / "outcomes.jsonl").read_text(encoding="utf-8").splitlines()
    found = [o for o in map(json.loads, lines) if o["id"] == item_id]
    if not found:
        print(f"{item_id}: not in {run}")
        return 1
    o = found[0]
    print(f"== {item_id}  story {o['story_id']}  gold {o['gold_label']}")
    print(
        f"product: status={o['status']} reason={o['reason']} cause={o.get('cause', '')!r} "
        f"suggested_label={o['suggested_label']!r} provers={o['prover_labels']}"
    )
    for i, (nl, fol) in enumerate(zip(o["premises"], o["original_premises_fol"], strict=False)):
        print(f"  premises[{i}]  NL: {nl}\n               FOL: {fol}")
    print(
        f"  conclusion   NL: {o['conclusion']}\n               FOL: {o['original_conclusion_fol']}"
    )
    for kind in ("edits", "proposed_edits"):
        for e in o[kind]:
            print(f"  {kind[:-1]} by {e['source']} at {e['where']}: {e['before']}  ⇒  {e['after']}")
    print("cause evidence:", o.get("cause_evidence", ""))
    print("critique:", o["critique"])
    print("findings:", *o["findings"], sep="\n  ")
    print("evidence:", o["evidence"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]), sys.argv[2]))
