"""The alignment's reading of a formula's shape costs polynomial work on chains of →.

Uncached, each → walked the rest of its chain again: work grew four-fold per link, so a
plausible 14-link annotation held a refine for minutes.
"""

from __future__ import annotations

import pytest

from refinery.agents.alignment import shape
from refinery.logic.parse import parse


def _walks(links: int, monkeypatch: pytest.MonkeyPatch) -> int:
    shape._parts.cache_clear()
    calls = 0
    walk = shape._Counter.walk

    def counted(self: shape._Counter, f: object, *, negative: bool) -> None:
        nonlocal calls
        calls += 1
        walk(self, f, negative=negative)  # type: ignore[arg-type]

    monkeypatch.setattr(shape._Counter, "walk", counted)
    formula = parse(" → ".join(f"P{i}(a{i % 3})" for i in range(links + 1)))
    found = shape.shape_of(formula)
    assert len(found.implications) == links  # every link still read
    return calls


def test_a_chain_of_implications_costs_at_most_quadratic_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    short, long = _walks(20, monkeypatch), _walks(40, monkeypatch)
    assert long <= 4.5 * short  # quadratic doubles to 4×; the old cost was 4^20 × more
