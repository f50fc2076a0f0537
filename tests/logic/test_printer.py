"""Printer: exact canonical strings and the parse(print(f)) == f round trip."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from refinery.logic.parse import parse
from refinery.logic.printer import to_text
from refinery.logic.syntax import And, Exists, Forall, Formula, Not, Or, Pred, Var

from strategies import formulas


@pytest.mark.parametrize(
    ("source", "canonical"),
    [
        ("∀x(Dog(x)→Animal(x))", "∀x (Dog(x) → Animal(x))"),
        ("∀x ∀y (L(x,y))", "∀x ∀y (L(x, y))"),
        ("(A → B) → C", "(A → B) → C"),
        ("A → (B → C)", "A → B → C"),
        ("¬(A ∧ B)", "¬(A ∧ B)"),
        ("¬(x = y)", "x ≠ y"),
        ("(A ∨ B) ⊕ (C ∧ D)", "(A ∨ B) ⊕ C ∧ D"),
        ("A ⊕ (B ⊕ C)", "A ⊕ (B ⊕ C)"),
        ("(∀x P(x)) ∧ Q(a)", "(∀x (P(x))) ∧ Q(a)"),
        ("¬∃x (P(x))", "¬(∃x (P(x)))"),
    ],
)
def test_canonical_text(source: str, canonical: str) -> None:
    assert to_text(parse(source)) == canonical


def test_quantifier_operand_is_parenthesised_so_scope_survives() -> None:
    x = Var("x")
    f: Formula = And((Forall("x", Pred("P", (x,))), Exists("x", Pred("Q", (x,)))))
    assert parse(to_text(f)) == f
    g: Formula = Or((Not(Forall("x", Pred("P", (x,)))), Pred("R", ())))
    assert parse(to_text(g)) == g


@settings(max_examples=500, deadline=None)
@given(formulas())
def test_round_trip(f: Formula) -> None:
    assert parse(to_text(f)) == f
