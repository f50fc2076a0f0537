"""`resplit_name`: a relation whose words the other formulas split another way between a
relation's name and its constants."""

from __future__ import annotations

import pytest

from refinery.agents.models import ItemContext
from refinery.agents.repairs import resplit


def _afters(fol: dict[str, str], nl: dict[str, str]) -> list[list[tuple[str, str]]]:
    found = resplit.propose(ItemContext("i", "s", fol, nl, None))
    assert all(e.guess for c in found for e in c)  # always a proposal for review
    return [[(e.where, e.after) for e in c] for c in found]


@pytest.mark.parametrize(
    ("odd", "sentence", "others", "written"),
    [
        # a constant's words moved into the name (train 827)
        (
            "∀x (EcoFriendly(x) → Help(x, slowDownGlobalWarming))",
            "All eco-friendly brands can help slow down global warming.",
            "∀x (Disposable(x) → ¬HelpSlowDown(x, globalWarming))",
            "∀x (EcoFriendly(x) → HelpSlowDown(x, globalWarming))",
        ),
        # a relation and its constant run together, every atom of it
        (
            "MadeByApple(p1) ∧ (MadeByApple(p2) → Phone(p2))",
            "P1 is made by Apple, and P2 is a phone if it is made by Apple.",
            "∀x (MadeBy(x, apple) → Expensive(x))",
            "MadeBy(p1, apple) ∧ (MadeBy(p2, apple) → Phone(p2))",
        ),
        # another arity: a constant the other formula names, a person in its variable's place
        (
            "ProvidesFinancialAidTo(ets, tom)",
            "ETS provides financial aid to Tom.",
            "∀x (ProvideTo(ets, financialAid, x) → Happy(x))",
            "ProvideTo(ets, financialAid, tom)",
        ),
    ],
)
def test_an_odd_relation_is_written_as_the_others_split_its_words(
    odd: str, sentence: str, others: str, written: str
) -> None:
    fol = {"premises[0]": others, "premises[1]": odd, "conclusion": "Happy(tom)"}
    assert _afters(fol, {"premises[1]": sentence}) == [[("premises[1]", written)]]


@pytest.mark.parametrize(
    ("odd", "sentence", "others"),
    [
        # the name says a negation its words would drop
        (
            "DoNotWantToBeAddictedToCaffeine(rina)",
            "Rina does not want to be addicted to caffeine.",
            "∀x (WantToBeAddictedTo(x, caffeine) → Drink(x))",
        ),
        # the sentence does not say the other relation's words
        ("Help(x, slowDownGlobalWarming)", "It helps.", "HelpSlowDown(a, globalWarming)"),
        # one name spelled two ways: a rename, other rules' work
        ("Helps(a, warming)", "A helps warming.", "Help(b, warming)"),
        # the words do not resplit: a word left over
        ("HelpSlowDownFast(a)", "A helps slow down fast.", "HelpSlowDown(b, globalWarming)"),
    ],
)
def test_nothing_where_the_words_do_not_resplit(odd: str, sentence: str, others: str) -> None:
    fol = {"premises[0]": others, "premises[1]": odd, "conclusion": "Happy(tom)"}
    assert _afters(fol, {"premises[1]": sentence}) == []
