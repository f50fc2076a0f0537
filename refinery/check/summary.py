"""Numbers about a batch of check rows: category counts, prover agreement, prover time.

`Tally` keeps them as running counts, a row at a time, so a streamed check (`refinery check`,
`refinery.check.stream`) summarises rows it no longer holds; the functions over a list of rows
(`refinery.check.check_items`' result, for the benchmarks) are tallies of that list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from refinery.check.row import CheckRow
from refinery.labels import Label
from refinery.outcomes import Category


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


@dataclass
class Tally:
    """Running counts over check rows: items, categories, cached rows, pairwise agreement of
    `provers`, and the ids of the items in each of the categories `watched` (a CI gate's)."""

    provers: Sequence[str] = ()
    watched: Iterable[str] = ()
    items: int = 0
    cached: int = 0
    semantics: bool = False  # some row has a dataset-semantics label (`label_dataset`)
    categories: Counter[str] = field(default_factory=Counter)
    decided: Counter[tuple[str, str]] = field(default_factory=Counter)
    agreed: Counter[tuple[str, str]] = field(default_factory=Counter)
    ids: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ids = {category: [] for category in self.watched}

    def add(self, row: CheckRow) -> None:
        self.items += 1
        self.cached += row.cached
        self.semantics = self.semantics or row.label_dataset is not None
        self.categories[row.category] += 1
        if row.category in self.ids:
            self.ids[row.category].append(row.id)
        labels = {p.name: p.label for p in row.provers}
        for pair in self.pairs:
            a, b = (labels.get(name, "") for name in pair)
            if a not in _UNDECIDED and b not in _UNDECIDED:
                self.decided[pair] += 1
                self.agreed[pair] += a == b

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """Every pair of `provers`, in order."""
        return [(a, b) for i, a in enumerate(self.provers) for b in self.provers[i + 1 :]]

    def category_counts(self) -> dict[str, int]:
        """Items per category, every category present (zeros included), in `Category` order.

        The dataset-semantics categories are listed only when some row carries a
        dataset-semantics label (`label_dataset`), so a FOLIO summary shows the classical
        categories alone.
        """
        return {
            c.value: self.categories.get(c, 0)
            for c in Category
            if self.semantics or not c.of_dataset
        }

    def agreement(self, first: str, second: str) -> PairAgreement:
        """Agreement of `first` and `second` (one of `pairs`) over the items both decided."""
        pair = (first, second)
        return PairAgreement(first, second, self.decided[pair], self.agreed[pair])


def tally(rows: Iterable[CheckRow], provers: Sequence[str] = ()) -> Tally:
    """The `Tally` of `rows`."""
    counts = Tally(provers)
    for row in rows:
        counts.add(row)
    return counts


def category_counts(rows: Sequence[CheckRow]) -> dict[str, int]:
    """Count of items per category (`Tally.category_counts`)."""
    return tally(rows).category_counts()


def prover_agreement(rows: Sequence[CheckRow], first: str, second: str) -> PairAgreement:
    """Agreement of the provers `first` and `second` over items both decided."""
    return tally(rows, (first, second)).agreement(first, second)


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
