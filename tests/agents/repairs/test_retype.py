"""`retype_name`: a conclusion name the premises write as another kind of symbol."""

from __future__ import annotations

from refinery.agents.models import ItemContext
from refinery.agents.repairs import retype


def _afters(fol: dict[str, str]) -> list[list[tuple[str, str]]]:
    found = retype.propose(ItemContext("i", "s", fol, {}, None))
    assert all(e.guess for c in found for e in c)  # always a proposal for review
    return [[(e.where, e.after) for e in c] for c in found]


def test_a_predicate_becomes_the_one_relation_the_premises_use_with_its_constant() -> None:
    fol = {
        "premises[0]": "∀x (VideoGame(x) ∧ In(x, pokemonSeries) → ReleasedBy(x, nintendo))",
        "conclusion": "VideoGame(beLionel) ∧ ¬PokemonSeries(beLionel)",
    }
    assert _afters(fol) == [[("conclusion", "VideoGame(beLionel) ∧ ¬In(beLionel, pokemonSeries)")]]


def test_a_constant_becomes_every_thing_of_its_kind_with_its_own_connective_kept() -> None:
    fol = {
        "premises[0]": "∀x (Traffic(x) → Loud(x))",
        "premises[1]": "Road(y) ∨ Road(z)",
        "conclusion": "∀y (Road(y) → Near(traffic, y)) → Worry(jerry, traffic)",
    }
    assert _afters(fol) == [
        [("conclusion", "∀z (Traffic(z) → (∀y (Road(y) → Near(z, y)) → Worry(jerry, z)))")]
    ]


def test_nothing_where_the_premises_do_not_say_how_to_write_it() -> None:
    two_relations = {
        "premises[0]": "In(a, fIFASeries) ∧ PartOf(b, fIFASeries)",
        "conclusion": "FIFASeries(c)",
    }
    assert _afters(two_relations) == []
    already_used = {"premises[0]": "In(a, series) ∧ Series(b)", "conclusion": "Series(c)"}
    assert _afters(already_used) == []
    first_argument = {"premises[0]": "Contains(fIFASeries, a)", "conclusion": "FIFASeries(a)"}
    assert _afters(first_argument) == []
    broken = {"premises[0]": "Traffic(a)", "conclusion": "Worry(jerry, traffic"}
    assert _afters(broken) == []
