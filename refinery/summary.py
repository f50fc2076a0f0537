"""Numbers about a batch of check rows: category counts and prover agreement.

Pure functions over the rows `refinery.check.check_items` returns, shared by the CLI, the
benchmark and (later) reports.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from refinery.check import CATEGORIES, DATASET_CATEGORIES
from refinery.labels import Label


def category_counts(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Count of items per category, every category present (zeros included), in `CATEGORIES` order.

    `DATASET_CATEGORIES` are listed only when the rows carry a dataset-semantics label
    (`label_dataset`), so a FOLIO summary shows the classical categories alone.
    """
    counts = Counter(r["category"] for r in rows)
    semantics = any("label_dataset" in r for r in rows)
    return {c: counts.get(c, 0) for c in CATEGORIES if semantics or c not in DATASET_CATEGORIES}


@dataclass(frozen=True, slots=True)
class PairAgreement:
    """How often two provers agree on the items both decide (label other than Unknown)."""

    first: str
    second: str
    both_decided: int
    agree: int

    @property
    def rate(self) -> float:
        return self.agree / self.both_decided if self.both_decided else 1.0


def prover_agreement(rows: Sequence[dict[str, Any]], first: str, second: str) -> PairAgreement:
    """Agreement of `label_<first>` and `label_<second>` over items both decided.

    >>> rows = [{"label_a": "True", "label_b": "True"}, {"label_a": "True", "label_b": "False"},
    ...         {"label_a": "Unknown", "label_b": "True"}, {"label_a": "", "label_b": ""}]
    >>> prover_agreement(rows, "a", "b")
    PairAgreement(first='a', second='b', both_decided=2, agree=1)
    """
    decided = [
        r
        for r in rows
        if r.get(f"label_{first}") not in ("", None, Label.UNKNOWN.value)
        and r.get(f"label_{second}") not in ("", None, Label.UNKNOWN.value)
    ]
    agree = sum(1 for r in decided if r[f"label_{first}"] == r[f"label_{second}"])
    return PairAgreement(first, second, len(decided), agree)


def prover_names(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The provers that have `label_<name>` columns in the rows."""
    if not rows:
        return []
    return [k.removeprefix("label_") for k in rows[0] if k.startswith("label_")]


def all_agree(rows: Sequence[dict[str, Any]], provers: Sequence[str]) -> tuple[int, int]:
    """(items where every prover decides and all say the same, items where every prover decides).

    >>> all_agree([{"label_a": "True", "label_b": "True"}, {"label_a": "True", "label_b": ""}],
    ...           ["a", "b"])
    (1, 1)
    """
    undecided = ("", None, Label.UNKNOWN.value)
    every = [r for r in rows if all(r.get(f"label_{p}") not in undecided for p in provers)]
    same = sum(1 for r in every if len({r[f"label_{p}"] for p in provers}) == 1)
    return same, len(every)


def seconds_per_item(rows: Sequence[dict[str, Any]], prover: str) -> float:
    """Mean seconds `prover` spent per item, over every question it answered (model finding too).

    Read from the rows' `verdicts` JSON; cached answers count with the time they first took.
    """
    total = sum(
        q["seconds"]
        for r in rows
        for q in json.loads(r["verdicts"] or "{}").get(prover, {}).values()
    )
    return total / len(rows) if rows else 0.0
