"""Countermodels: evaluation in a finite model, the readable line, and the stored form."""

from __future__ import annotations

import pytest

from refinery.logic.parse import parse
from refinery.prove.countermodel import MAX_SHOWN_ELEMENTS, Countermodel, element_names

# mara studies at lakeside; lake is another name for lakeside; nobody teaches or borrows
SCHOOL = Countermodel(
    domain=("lakeside", "mara"),
    constants={"mara": "mara", "lakeside": "lakeside", "lake": "lakeside"},
    predicates={
        ("StudentAt", 2): frozenset({("mara", "lakeside")}),
        ("TeacherAt", 2): frozenset(),
        ("CanBorrow", 1): frozenset(),
        ("Open", 0): frozenset({()}),
    },
    functions={("head", 1): {("mara",): "mara", ("lakeside",): "mara"}},
)


@pytest.mark.parametrize(
    ("formula", "holds"),
    [
        ("StudentAt(mara, lakeside) ∧ StudentAt(mara, lake)", True),
        ("lake = lakeside ∧ ¬(mara = lake)", True),
        ("∃x StudentAt(x, lakeside)", True),
        ("∀x ∃y StudentAt(x, y)", False),
        ("∀x ¬CanBorrow(x) ∧ Open", True),
        ("TeacherAt(mara, lakeside) ∨ CanBorrow(mara)", False),
        ("StudentAt(mara, lakeside) ⊕ Open", False),
        ("(Open → CanBorrow(mara)) ↔ ¬Open", True),
    ],
)
def test_formulas_are_evaluated_in_the_model(formula: str, holds: bool) -> None:
    assert SCHOOL.holds(parse(formula)) is holds


def test_a_symbol_outside_the_models_language_is_an_error_not_a_truth_value() -> None:
    with pytest.raises(KeyError):
        SCHOOL.holds(parse("Rich(mara)"))


def test_the_line_names_elements_aliases_functions_atoms_and_empty_predicates() -> None:
    line = SCHOOL.render(false_atoms=[parse("TeacherAt(mara, lake)")])
    assert line == (
        "domain {lakeside, mara}; lake = lakeside; head(lakeside) = mara; head(mara) = mara; "
        "Open; StudentAt(mara, lakeside); ¬TeacherAt(mara, lakeside); CanBorrow = {}"
    )


def test_a_large_model_is_summarised() -> None:
    n = MAX_SHOWN_ELEMENTS + 1
    big = Countermodel(domain=tuple(f"d{i}" for i in range(n)), predicates={("P", 0): frozenset()})
    assert (
        big.render()
        == f"domain {{{', '.join(big.domain)}}}; ({n} elements: too large to list atom by atom)"
    )


def test_the_stored_form_round_trips() -> None:
    assert Countermodel.from_dict(SCHOOL.to_dict()) == SCHOOL


def test_elements_are_named_after_their_first_constant_else_numbered() -> None:
    names, constants = element_names(["e1", "e2", "e3"], {"zed": "e2", "amy": "e2", "d1": "e3"})
    assert names == {"e2": "amy", "e3": "d1", "e1": "d2"}  # d1 is taken by a constant
    assert constants == {"amy": "amy", "d1": "d1", "zed": "amy"}
