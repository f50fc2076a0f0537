"""The alignment costs polynomial work on chains of →, and linear work on wide ∨ and ∧.

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


def _lemma_lookups(n: int, connective: str, word: str, monkeypatch: pytest.MonkeyPatch) -> int:
    from refinery.agents import alignment
    from refinery.agents.reading import words

    calls = 0
    lemmas = words.lemmas

    def counted(w: str) -> frozenset[str]:
        nonlocal calls
        calls += 1
        return lemmas(w)

    monkeypatch.setattr(words, "lemmas", counted)
    fol = {
        "premises[0]": connective.join(f"Unit{i}(item{i})" for i in range(n)),
        "conclusion": "Unit0(item0)",
    }
    nl = {
        "premises[0]": f" {word} ".join(f"item{i} is unit{i}" for i in range(n)),
        "conclusion": "item0 is unit0",
    }
    alignment.align(fol, nl)
    return calls


@pytest.mark.parametrize(("connective", "word"), [(" ∨ ", "or"), (" ∧ ", "and")])
def test_a_formula_of_thousands_of_atoms_costs_linear_work(
    monkeypatch: pytest.MonkeyPatch, connective: str, word: str
) -> None:
    # every word was compared with every symbol's words: a 10,000-way ∨ held refine for minutes
    short = _lemma_lookups(500, connective, word, monkeypatch)
    long = _lemma_lookups(1000, connective, word, monkeypatch)
    assert long <= 2.5 * short  # linear doubles; the old cost quadrupled (and then some)
