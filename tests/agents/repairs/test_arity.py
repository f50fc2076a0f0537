"""`harmonize_arity` on hand-made findings.

Expected outputs are exact: the order of candidates is part of each rule's contract (the
refiner accepts the first candidate the gate passes).
"""

from __future__ import annotations

import pytest

from refinery.agents.models import ErrorClass
from refinery.agents.repairs import arity

from repair_helpers import afters, findings


@pytest.mark.parametrize(
    ("fol", "expected"),
    [
        # the majority always has `coffee` second: append it
        (
            ["∀x (Drinks(x, coffee) → Awake(x))", "Drinks(ann)", "Drinks(bob, coffee)"],
            [[("premises[1]", "Drinks(ann, coffee)")]],
        ),
        # one constant too many: drop the last one first
        (
            ["∀x (Student(x) → Young(x))", "Student(ann, school)", "Student(bob)"],
            [[("premises[1]", "Student(ann)")], [("premises[1]", "Student(school)")]],
        ),
        # a variable repeated in the atom
        (
            ["∀x (Student(x) → Young(x))", "∀x (Student(x, x) → Old(x))", "Student(bob)"],
            [[("premises[1]", "∀x (Student(x) → Old(x))")]],
        ),
    ],
)
def test_arity_repairs(fol: list[str], expected: list[list[tuple[str, str]]]) -> None:
    candidates = arity.propose(findings(fol))
    assert afters(candidates) == expected
    assert all(e.error_class is ErrorClass.ARITY_CONFLICT for c in candidates for e in c)


@pytest.mark.parametrize(
    ("fol", "nl"),
    [
        # the constant every other use ends with is not in this formula's sentence
        (
            ["∃x (In(virus, x) ∧ Get(x))", "∀x (Get(x, flu) → Tired(x))", "¬Get(ann, flu)"],
            {"premises[0]": "When the virus is in a being, it may get the virus."},
        ),
        # the missing argument is not the last one every use has the same: nothing to append
        # (inserting `kruger` in front would shift `y` into the wrong slot)
        (["Proposed(kruger, cynicism) ∧ Proposed(y)", "∃x (Proposed(kruger, x))"], {}),
        # `paramount` stands where every other use has `columbia`: the arguments do not line up
        (["Produces(paramount)", "Produces(columbia, tintin)", "Produces(columbia, tintin)"], {}),
        # appending would repeat a conjunct the formula already has
        (["Member(hs) ∧ Member(hs, reichstag)", "Member(hs, reichstag) → Famous(hs)"], {}),
    ],
)
def test_an_argument_is_appended_only_when_unambiguous(fol: list[str], nl: dict[str, str]) -> None:
    assert arity.propose(findings(fol, nl=nl)) == []


def test_an_argument_is_appended_when_the_sentence_mentions_it() -> None:
    fol = ["∃x (In(virus, x) ∧ Get(x))", "∀x (Get(x, flu) → Tired(x))", "¬Get(ann, flu)"]
    f = findings(fol, nl={"premises[0]": "When the virus is in a being, it may get the flu."})
    assert afters(arity.propose(f)) == [[("premises[0]", "∃x (In(virus, x) ∧ Get(x, flu))")]]


@pytest.mark.parametrize(
    "fol",
    [
        ["P(a, b)", "P(a)"],  # no majority
        ["∀x (Likes(x, y) → Happy(x))", "Likes(ann)", "Likes(bob, cid)"],  # no fixed constant
        [
            "∀x (Student(x) → Young(x))",
            "∀x ∀y (Student(x, y) → Old(y))",
            "Student(bob)",
        ],  # a variable
    ],
)
def test_unjustified_arity_changes_are_not_proposed(fol: list[str]) -> None:
    assert arity.propose(findings(fol)) == []
