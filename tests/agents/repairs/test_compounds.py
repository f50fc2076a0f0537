"""`split_compound`: a compound one formula alone uses, written as the other formulas' parts."""

from __future__ import annotations

from refinery.agents.models import ItemContext
from refinery.agents.repairs import compounds


def _afters(fol: dict[str, str]) -> list[list[tuple[str, str]]]:
    found = compounds.propose(ItemContext("i", "s", fol, {}, None))
    return [[(e.where, e.after) for e in c] for c in found]


def test_a_conclusion_compound_is_written_as_the_premises_parts() -> None:
    fol = {
        "premises[0]": "∀x (Female(x) ∧ TennisPlayer(x) → Athlete(x))",
        "premises[1]": "Female(serena) ∧ TennisPlayer(serena)",
        "conclusion": "¬FemaleTennisPlayer(serena)",
    }
    assert _afters(fol) == [[("conclusion", "¬(Female(serena) ∧ TennisPlayer(serena))")]]


def test_every_atom_of_the_compound_in_its_formula_is_split() -> None:
    fol = {
        "premises[0]": "Red(a) ∧ Car(b)",
        "conclusion": "∀x (RedCar(x) → RedCar(f(x)))",
    }
    assert _afters(fol) == [[("conclusion", "∀x ((Red(x) ∧ Car(x)) → (Red(f(x)) ∧ Car(f(x))))")]]


def test_a_compound_two_formulas_use_is_a_name_of_the_story() -> None:
    fol = {
        "premises[0]": "Female(a) ∧ TennisPlayer(a)",
        "premises[1]": "FemaleTennisPlayer(b)",
        "conclusion": "FemaleTennisPlayer(a)",
    }
    assert _afters(fol) == []


def test_no_split_without_both_parts_or_with_two_splits() -> None:
    assert _afters({"premises[0]": "Female(a)", "conclusion": "FemaleTennisPlayer(a)"}) == []
    two = {
        "premises[0]": "Red(a) ∧ RedCar(b) ∧ Car(c) ∧ CarPark(d)",
        "conclusion": "RedCarPark(a)",  # RedCar + Park? Red + CarPark: no Park, one split
    }
    assert _afters(two) == [[("conclusion", "(Red(a) ∧ CarPark(a))")]]
    ambiguous = {
        "premises[0]": "Red(a) ∧ RedCar(b) ∧ Park(c) ∧ CarPark(d)",
        "conclusion": "RedCarPark(a)",
    }
    assert _afters(ambiguous) == []
