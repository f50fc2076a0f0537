"""Numbers about a batch of check rows: category counts, prover agreement, prover time.

Pure functions over the rows `refinery.check.check_items` returns, shared by the command line
and the benchmarks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from refinery.check.row import CheckRow
from refinery.labels import Label
from refinery.outcomes import Category


def category_counts(rows: Sequence[CheckRow]) -> dict[str, int]:
    """Count of items per category, every category present (zeros included), in `Category` order.

    The dataset-semantics categories are listed only when the rows carry a dataset-semantics
    label (`label_dataset`), so a FOLIO summary shows the classical categories alone.
    """
    counts = Counter(r.category for r in rows)
    semantics = any(r.label_dataset is not None for r in rows)
    return {c.value: counts.get(c, 0) for c in Category if semantics or not c.of_dataset}


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


_UNDECIDED = ("", Label.UNKNOWN.value)


def prover_agreement(rows: Sequence[CheckRow], first: str, second: str) -> PairAgreement:
    """Agreement of the provers `first` and `second` over items both decided."""
    pairs = [(labels.get(first, ""), labels.get(second, "")) for labels in _labels(rows)]
    decided = [(a, b) for a, b in pairs if a not in _UNDECIDED and b not in _UNDECIDED]
    return PairAgreement(first, second, len(decided), sum(1 for a, b in decided if a == b))


def all_agree(rows: Sequence[CheckRow], provers: Sequence[str]) -> tuple[int, int]:
    """(items where every prover decides and all say the same, items where every prover decides)."""
    every = [
        labels
        for labels in _labels(rows)
        if all(labels.get(p, "") not in _UNDECIDED for p in provers)
    ]
    same = sum(1 for labels in every if len({labels[p] for p in provers}) == 1)
    return same, len(every)


def _labels(rows: Sequence[CheckRow]) -> list[dict[str, str]]:
    return [{p.name: p.label for p in r.provers} for r in rows]


def seconds_per_item(rows: Sequence[CheckRow], prover: str) -> float:
    """Mean seconds `prover` spent per item, over every question it answered (model finding too);
    cached answers count with the time they first took."""
    total = sum(q["seconds"] for r in rows for q in r.verdicts.get(prover, {}).values())
    return total / len(rows) if rows else 0.0
