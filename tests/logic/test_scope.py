"""FOLIO's quantifier-scope notation read as TPTP reads it (`refinery.logic.scope`)."""

from __future__ import annotations

import pytest

from refinery.logic.parse import parse_formula, try_parse
from refinery.logic.printer import to_text
from refinery.logic.syntax import Exists, Forall, Implies


def test_a_quantifier_group_before_an_arrow_binds_the_group_only() -> None:
    text = "∀x (∃y (Leg(y) ∧ Has(x, y)) → Jump(x))"
    parsed = parse_formula(text)
    assert isinstance(parsed.formula, Forall)
    rule = parsed.formula.body
    assert isinstance(rule, Implies) and isinstance(rule.left, Exists)
    assert parsed.notation == ("1:5 scope: '∃y (…)' binds its group only, as TPTP reads it",)


def test_inside_a_condition_the_arrow_takes_the_whole_condition() -> None:
    # "people in the company who wear flannel shirts are consistent": (A ∧ ∃y G) → B
    parsed = parse_formula("∀x (In(x) ∧ ∃y (Shirt(y) ∧ Wear(x, y)) → Consistent(x))")
    assert to_text(parsed.formula) == "∀x (In(x) ∧ (∃y (Shirt(y) ∧ Wear(x, y))) → Consistent(x))"


@pytest.mark.parametrize(
    "text",
    [
        "∀x (Show(x) ∧ ∃y (Runner(y)) → ¬Develops(y, x))",  # y after the group: wide binds it
        "∃y (A(y)) ∧ B(c)",  # the same either way
        "∃y (A(y)) ∧ ∀z (B(z) → C(z))",  # the → is the ∀'s own
        "∃y (A(y) → B(y))",  # no operator after the group
    ],
)
def test_where_the_readings_agree_or_a_variable_is_used_after_nothing_changes(text: str) -> None:
    parsed = parse_formula(text)
    assert not any("scope" in n for n in parsed.notation)


def test_only_the_chain_after_the_last_used_variable_is_narrowed() -> None:
    parsed = parse_formula("∀x ∃y (A(x, y)) → B(x)")
    assert to_text(parsed.formula) == "∀x ((∃y (A(x, y))) → B(x))"


def test_spans_and_notes_point_into_the_text_as_written() -> None:
    text = "∀x (∃y (Leg(y) & Has(x, y)) -> Jump(x))"
    parsed = parse_formula(text)
    rule = parsed.formula.body  # type: ignore[attr-defined]
    assert rule.span is not None and text[rule.span.start : rule.span.end] == (
        "∃y (Leg(y) & Has(x, y)) -> Jump(x)"
    )
    jump = rule.right
    assert text[jump.span.start : jump.span.end] == "Jump(x)" and jump.span.column == 32
    assert [n.split()[0] for n in parsed.notation] == ["1:5", "1:16", "1:29"]


def test_an_unbalanced_formula_is_still_the_same_syntax_error() -> None:
    problem = try_parse("∀x (∃y (Leg(y) ∧ Has(x, y)) → Jump(x)")
    assert not hasattr(problem, "formula")
