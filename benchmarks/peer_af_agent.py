"""Run the AF-agent paper's gold-FOL pipeline on a FOLIO file, from that paper's own checkout.

`bench_peer.py --af-agent DIR` starts this script with `DIR/src` on `PYTHONPATH` and `DIR` as
its working folder, so the code that runs is the checkout's (github.com/zyni2001/AF-agent,
commit 3b04a45: `folio_utils.fol_to_tptp` rewrites FOLIO's FOL to TPTP with regular expressions,
`folio_utils.vampire_runner.check_folio_with_vampire` asks Vampire "premises ∧ ¬conclusion",
then, where that is satisfiable, "premises ∧ conclusion"). Nothing of it is copied here. Items
are checked one after another, as the paper's evaluation does; each result is one JSON line
(`id`, `gold`, `predicted`: True, False or Uncertain, `status`).

Usage (from bench_peer): peer_af_agent.py DATA.jsonl OUT.jsonl VAMPIRE [TIME_LIMIT]
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    data, out, vampire = sys.argv[1:4]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else 50  # the paper's default
    from folio_utils.vampire_runner import check_folio_with_vampire  # the checkout's

    with open(data, encoding="utf-8") as src, open(out, "w", encoding="utf-8") as dst:
        for line in src:
            if not line.strip():
                continue
            row = json.loads(line)
            premises = [p for p in row["premises-FOL"].splitlines() if p.strip()]
            try:
                got = check_folio_with_vampire(premises, row["conclusion-FOL"], limit, vampire)
                label = {True: "True", False: "False", None: "Uncertain"}[got["predicted_label"]]
                status = got["vampire_status"]
            except Exception as exc:  # noqa: BLE001 - a peer's failure on one item is its answer
                label, status = "Uncertain", f"error: {type(exc).__name__}"
            record = {"id": row.get("example_id"), "gold": row.get("label"), "predicted": label,
                      "status": status}  # fmt: skip
            dst.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
