"""Enlarge ProofWriter's meta-test to N questions with renamed copies, so no cache can answer them.

Copy k of a theory appends the tag ``c<k>`` to every entity and attribute: in each literal
``("A" "rel" "B" "±")`` of its facts, rules and questions, ``A`` and ``B`` become ``A c<k>`` and
``B c<k>`` (``someone`` / ``something`` stay: they are the rule's variable; relations stay), and
the NL texts get the same whole-word renaming. The renaming is injective, so every copy has the
original's logical structure and answers, but new constants and predicates: new prover
questions, new content hashes, new item ids (``<theory id>-c<k>``). Copies are taken theory by
theory until N questions; the last theory may lose some questions to hit N exactly.

Usage: python benchmarks/enlarge_proofwriter.py N OUT.jsonl [--source meta-test.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: One literal of a representation: subject, relation, object, polarity.
_LITERAL = re.compile(r'\("([^"]*)" "([^"]*)" "([^"]*)" "([+\-~])"\)')
_VARIABLE_WORDS = frozenset({"someone", "something"})


def _terms(row: dict[str, Any]) -> set[str]:
    """Every entity and attribute of a theory (the variable words excluded)."""
    texts = [e["representation"] for part in ("triples", "rules") for e in row[part].values()]
    texts += [q["representation"] for q in row["questions"].values()]
    found = {t for text in texts for m in _LITERAL.finditer(text) for t in (m[1], m[3])}
    return found - _VARIABLE_WORDS


def _rename_representation(text: str, tag: str) -> str:
    def one(m: re.Match[str]) -> str:
        subject = m[1] if m[1] in _VARIABLE_WORDS else f"{m[1]} {tag}"
        return f'("{subject}" "{m[2]}" "{m[3]} {tag}" "{m[4]}")'

    return _LITERAL.sub(one, text)


def _text_renamer(terms: set[str], tag: str) -> Any:
    """A function renaming every whole-word occurrence of the terms (longest first) in NL text."""
    if not terms:
        return lambda text: text
    ordered = sorted(terms, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(re.escape(t) for t in ordered) + r")\b", re.IGNORECASE)
    return lambda text: pattern.sub(lambda m: f"{m[0]} {tag}", text)


def renamed_copy(row: dict[str, Any], k: int) -> dict[str, Any]:
    """Copy `k` of a theory row, every entity and attribute tagged ``c<k>``."""
    tag = f"c{k}"
    text = _text_renamer(_terms(row), tag)
    out = {key: value for key, value in row.items() if key not in ("allProofs", "proofDetails")}
    out["id"] = f"{row['id']}-{tag}"
    out["theory"] = text(row["theory"])
    for part in ("triples", "rules"):
        out[part] = {
            key: {
                "text": text(e["text"]),
                "representation": _rename_representation(e["representation"], tag),
            }
            for key, e in row[part].items()
        }
    out["questions"] = {
        key: {
            **{f: v for f, v in q.items() if f not in ("proofs", "proofsWithIntermediates")},
            "question": text(q["question"]),
            "representation": _rename_representation(q["representation"], tag),
        }
        for key, q in row["questions"].items()
    }
    return out


def enlarge(rows: list[dict[str, Any]], n: int) -> Iterator[dict[str, Any]]:
    """Renamed copies (k = 1, 2, …) of `rows`, theory by theory, holding exactly `n` questions."""
    if n < 1 or not any(r["questions"] for r in rows):
        raise ValueError(f"need n >= 1 and a theory with questions, got n={n}")
    left, k = n, 0
    while left > 0:
        k += 1
        for row in rows:
            if left <= 0:
                return
            copy = renamed_copy(row, k)
            keys = list(copy["questions"])[:left]
            copy["questions"] = {key: copy["questions"][key] for key in keys}
            left -= len(keys)
            if keys:
                yield copy


def write_enlarged(source: Path, n: int, out: Path) -> Path:
    """Write `n` questions of renamed copies of `source` (a meta-*.jsonl) to `out`."""
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line]
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for copy in enlarge(rows, n):
            f.write(json.dumps(copy, ensure_ascii=False) + "\n")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="questions to write")
    parser.add_argument("out", type=Path, help="output .jsonl (name it meta-*.jsonl)")
    data = Path(os.environ.get("REFINERY_SHARED_DATA", "../shared/data"))
    parser.add_argument("--source", type=Path, default=data / "proofwriter" / "meta-test.jsonl")
    args = parser.parse_args()
    if not args.source.is_file():
        print(f"ProofWriter meta-test not found at {args.source}; pass --source", file=sys.stderr)
        return 2
    print(write_enlarged(args.source, args.n, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
