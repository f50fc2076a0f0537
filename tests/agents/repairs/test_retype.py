"""`retype_name`: a name one formula alone uses that the others write as another kind of symbol."""

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


def test_a_relation_and_its_argument_run_together_become_the_relation_in_any_formula() -> None:
    fol = {
        "premises[0]": "∀x (Dog(x) ∧ In(x, myHouse) → Bark(x))",
        "premises[1]": "InMyHouse(jojo) ∧ Dog(jojo)",
        "conclusion": "MadeByApple(jojo)",
    }
    fol["premises[2]"] = "MadeBy(x1, apple)"
    assert _afters(fol) == [
        [("premises[1]", "In(jojo, myHouse) ∧ Dog(jojo)")],
        [("conclusion", "MadeBy(jojo, apple)")],
    ]


def test_a_run_together_name_two_pairs_spell_or_a_premise_name_spelled_another_way_is_left() -> (
    None
):
    two = {
        "premises[0]": "In(x, myHouse) ∧ InMy(y, house)",
        "premises[1]": "InMyHouse(jojo)",
        "conclusion": "Dog(jojo)",
    }
    assert _afters(two) == []  # In + myHouse and InMy + house: which is meant is not said
    # a premise's one-place Traffic beside the conclusion's constant traffic: the premise is
    # not the odd one out, so only the conclusion is rewritten
    cased = {"premises[0]": "∀x (Traffic(x) → Loud(x))", "conclusion": "Worry(jerry, traffic)"}
    assert [c[0][0] for c in _afters(cased)] == ["conclusion"]
