"""Agreement between annotators on the items two of them decided (`review split --overlap K`).

For every item that appears in two shards and is decided in both, compare the two decisions:

- **labels**: the final label each decision gives (`refinery.review.decide.resolve`); Cohen's κ
  corrects the share of equal labels for the agreement expected by chance. Skips decide no
  label and are left out of it.
- **FOL decisions**: the decision kind (accept_proposal, keep_original, edit, relabel, skip),
  with its κ, and whether both arrive at the same final FOL (formulas compared in canonical
  notation, so spacing and ASCII spellings do not count as disagreement).

Items given to two annotators but not yet decided by both are counted as pending.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from refinery.logic.parse import Parsed, try_parse
from refinery.logic.printer import to_text
from refinery.review.decide import Resolution, resolve
from refinery.review.queue import DECISIONS, Decision, QueueRow
from refinery.review.sheet import read_queue


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's κ of two annotators' answers, one `(first, second)` pair per item.

    κ = (p_o − p_e) / (1 − p_e), with p_o the share of equal answers and p_e the share expected
    by chance from each annotator's own answer frequencies. None when it is undefined: no
    pairs, or both annotators always give the one same answer (p_e = 1).

    >>> yes_yes, yes_no, no_yes, no_no = [("y", "y")] * 20, [("y", "n")] * 5, [("n", "y")] * 10, [("n", "n")] * 15
    >>> round(cohen_kappa(yes_yes + yes_no + no_yes + no_no), 3)
    0.4
    >>> cohen_kappa([("True", "True")] * 3) is None
    True
    """
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[c] * second[c] for c in first) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


@dataclass(frozen=True)
class PairedItem:
    """One item decided by two annotators: their shards, decisions, labels, and FOL."""

    item_id: str
    shards: tuple[str, str]
    decisions: tuple[str, str]
    labels: tuple[str, str]  # "" for a skip
    same_fol: bool


@dataclass(frozen=True)
class Agreement:
    """`measure_agreement`'s answer; the κ values are None where undefined."""

    items: tuple[PairedItem, ...]
    pending: tuple[str, ...]

    @property
    def labelled(self) -> list[tuple[str, str]]:
        return [i.labels for i in self.items if all(i.labels)]

    @property
    def label_kappa(self) -> float | None:
        return cohen_kappa(self.labelled)

    @property
    def decision_kappa(self) -> float | None:
        return cohen_kappa([i.decisions for i in self.items])

    def render(self) -> str:
        """The report `refinery review agreement` prints."""
        n, labelled = len(self.items), self.labelled
        lines = [
            f"{n + len(self.pending)} item(s) given to two annotators: {n} decided by both, "
            f"{len(self.pending)} pending"
        ]
        if n:
            same_labels = sum(a == b for a, b in labelled)
            same_decisions = sum(a == b for a, b in (i.decisions for i in self.items))
            lines += [
                f"  labels:     {_share(same_labels, len(labelled))} agree, "
                f"Cohen's κ {_kappa(self.label_kappa)} (skips left out)",
                f"  decisions:  {_share(same_decisions, n)} the same, "
                f"Cohen's κ {_kappa(self.decision_kappa)}",
                f"  final FOL:  {_share(sum(i.same_fol for i in self.items), n)} the same",
            ]
        differ = [
            i for i in self.items if i.labels[0] != i.labels[1] or i.decisions[0] != i.decisions[1]
        ]
        if differ:
            lines.append("disagreements:")
        for i in differ:
            sides = [
                f"{shard}: {decision} {label or '(no label)'}"
                for shard, decision, label in zip(i.shards, i.decisions, i.labels, strict=True)
            ]
            lines.append(f"  {i.item_id}: " + " | ".join(sides))
        return "\n".join(lines)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "0/0"


def _kappa(value: float | None) -> str:
    # undefined with no items, or when both annotators only ever gave one same answer
    return "n/a" if value is None else f"{value:.2f}"


def _canonical(formula: str) -> str:
    parsed = try_parse(formula)
    return to_text(parsed.formula) if isinstance(parsed, Parsed) else formula.strip()


def _fol(resolution: Resolution) -> list[str]:
    return [_canonical(f) for f in (*resolution.premises_fol, resolution.conclusion_fol)]


def measure_agreement(shards: Sequence[Path]) -> Agreement:
    """Compare the decisions of every item that is in two of `shards`.

    Parameters
    ----------
    shards
        Shard files (from `split_queue` with an overlap); an item in more than two is compared
        between the first two that hold it, in the order given.

    Returns
    -------
    Agreement
        The paired items decided (validly) in both shards, and the ids still pending.
    """
    holders: dict[str, list[tuple[str, QueueRow]]] = {}
    for path in shards:
        for row in read_queue(path):
            holders.setdefault(row.id, []).append((path.name, row))
    items, pending = [], []
    for item_id, found in holders.items():
        if len(found) < 2:
            continue
        (name_a, a), (name_b, b) = found[:2]
        res_a, res_b = (resolve(r) if r.decision in DECISIONS else "" for r in (a, b))
        if not isinstance(res_a, Resolution) or not isinstance(res_b, Resolution):
            pending.append(item_id)
            continue
        labels = tuple(
            "" if r.decision == Decision.SKIP else res.label for r, res in ((a, res_a), (b, res_b))
        )
        items.append(
            PairedItem(
                item_id=item_id,
                shards=(name_a, name_b),
                decisions=(a.decision, b.decision),
                labels=(labels[0], labels[1]),
                same_fol=_fol(res_a) == _fol(res_b),
            )
        )
    return Agreement(tuple(items), tuple(pending))
