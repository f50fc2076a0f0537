"""The two sides an alignment compares: a sentence's cues (`read_sentence`) and a formula's
counts (`shape_of`). Positions and counts are exact: the findings point at them."""

from __future__ import annotations

import pytest

from refinery.agents.alignment.shape import Atom, Implication, shape_of
from refinery.agents.reading.cues import read_sentence
from refinery.logic.parse import parse

# -- cues -------------------------------------------------------------------------------------


def test_cues_keep_the_token_position_where_they_start() -> None:
    s = read_sentence("No bird in the aviary can fly, and not all birds sing.")
    assert s.words[:3] == ("no", "bird", "in")
    # "no" negates and quantifies; "not all" negates, and its "all" is a universal cue
    assert (s.negations, s.universal, s.existential) == ((0, 8), (0, 9), ())
    assert (s.ands, s.ors) == ((7,), ())


def test_contractions_are_spelled_out_as_a_negation() -> None:
    s = read_sentence("Kiwi can't fly.")
    assert s.words == ("kiwi", "can", "not", "fly")
    assert s.negations == (2,)


def test_the_no_of_a_number_is_not_a_negation() -> None:
    # "Symphony No. 9" negates nothing
    assert read_sentence("Beethoven wrote Symphony No. 9.").negations == ()


@pytest.mark.parametrize(
    ("text", "existential"),
    [
        ("There are some cats.", (0, 2)),
        ("At least one student passed, and several failed.", (0, 6)),
        ("In the class, someone owns a dog.", (3,)),
    ],
)
def test_existential_cues(text: str, existential: tuple[int, ...]) -> None:
    assert read_sentence(text).existential == existential


def test_there_is_no_is_a_universal_negation() -> None:
    s = read_sentence("There is no cat in the house.")
    assert (s.negations, s.universal, s.existential) == ((2,), (2,), ())


def test_but_not_both_is_an_exclusive_or_not_a_negation() -> None:
    s = read_sentence("Sam either sings or dances, but not both.")
    assert s.either and s.not_both and not s.or_both
    assert (s.negations, s.ors) == ((), (3,))
    # "whether or not" owns its "not" too
    assert read_sentence("Whether or not it rains, Tom walks.").negations == ()


def test_or_both_is_an_inclusive_or() -> None:
    s = read_sentence("Ann is a doctor or a lawyer, or both.")
    assert s.or_both and not s.not_both and not s.either
    assert s.ors == (4, 7)


def test_both_or_neither_owns_its_neither_and_nor() -> None:
    s = read_sentence("Sam either both sings and dances, or neither sings nor dances.")
    assert s.both_or_neither and s.neither_nor and s.either
    # the "neither" and "nor" belong to ↔: no negation cue is left
    assert s.negations == ()
    assert (s.ands, s.ors) == ((4,), (6, 9))


def test_neither_nor_negates_and_its_nor_is_an_or() -> None:
    s = read_sentence("Tom is neither a doctor nor a lawyer.")
    assert s.neither_nor and not s.both_or_neither
    assert (s.negations, s.ors) == ((2, 5), (5,))


@pytest.mark.parametrize(
    ("text", "flags"),
    [
        ("A person can vote only if they are registered.", {"only_if"}),
        ("A plant grows unless it is frozen.", {"unless"}),
        ("A number is even if and only if it is divisible by two.", {"iff", "only_if"}),
        ("If it rains, then the grass is wet.", set()),
    ],
)
def test_conditional_flags(text: str, flags: set[str]) -> None:
    s = read_sentence(text)
    assert {name for name in ("only_if", "unless", "iff") if getattr(s, name)} == flags


def test_conditional_cue_positions() -> None:
    assert read_sentence("If it rains, then the grass is wet.").conditional == (0, 3)
    assert read_sentence("A plant grows unless it is frozen.").conditional == (3,)


def test_an_empty_sentence_has_no_cues() -> None:
    s = read_sentence("")
    assert s.empty and s.words == () and s.negations == ()


# -- shape ------------------------------------------------------------------------------------


def test_not_exists_counts_as_universal_and_not_equal_as_distinct() -> None:
    s = shape_of(parse("¬∃x (Bird(x) ∧ In(x, aviary) ∧ Fly(x)) ∨ ¬(a = b)"))
    assert (s.negations, s.universal, s.existential, s.distinct) == (1, 1, 0, 1)
    assert (s.ands, s.ors, s.or_links, s.negated_ors) == (1, 1, 1, 1)
    assert s.constants == ("aviary", "a", "b")
    assert (s.outer, s.subject) == ("∀", "x")


def test_not_forall_counts_as_existential() -> None:
    s = shape_of(parse("¬∀x (Bird(x) → Fly(x))"))
    assert (s.negations, s.universal, s.existential, s.outer) == (1, 0, 1, "∃")


def test_exists_in_a_rules_condition_counts_as_universal() -> None:
    # "if x has any R, then P": the ∃ reads "any"
    s = shape_of(parse("∀x ((∃y R(x, y)) → P(x))"))
    assert (s.universal, s.existential, s.exists_rules) == (2, 0, 0)


def test_exists_over_an_implication_and_forall_over_a_conjunction_are_counted() -> None:
    s = shape_of(parse("∃x (Student(x) → Athlete(x))"))
    assert (s.exists_rules, s.existential, s.outer) == (1, 1, "∃")
    # ∀x (A(x) ∧ B(x)), which says everything is an A, is counted the same way
    assert shape_of(parse("∀x (Cat(x) ∧ Mammal(x))")).forall_conjunctions == 1
    assert shape_of(parse("∀x (Cat(x) → Mammal(x))")).forall_conjunctions == 0


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        # (ors, or_links, negated_ors, negative_ors, condition_ors)
        ("Doctor(ann) ∨ Lawyer(ann) ∨ Judge(ann)", (1, 2, 0, 0, 0)),
        ("¬(Doctor(tom) ∨ Lawyer(tom))", (1, 1, 1, 0, 0)),
        ("¬Doctor(tom) ∨ ¬Lawyer(tom)", (1, 1, 0, 1, 0)),
        ("∀x (Student(x) ∨ Teacher(x) → CardHolder(x))", (1, 1, 0, 0, 1)),
    ],
)
def test_or_counts(text: str, counts: tuple[int, int, int, int, int]) -> None:
    s = shape_of(parse(text))
    assert (s.ors, s.or_links, s.negated_ors, s.negative_ors, s.condition_ors) == counts


def test_implications_record_each_sides_predicates_constants_and_negations() -> None:
    s = shape_of(parse("∀x (¬Rich(x) → ¬OwnYacht(x))"))
    assert s.implications == (
        Implication(
            frozenset({"Rich"}),
            frozenset({"OwnYacht"}),
            negated_antecedent=True,
            negated_consequent=True,
        ),
    )
    (rule,) = shape_of(parse("∀x (Like(susan, x) → Student(susan))")).implications
    assert (rule.antecedent, rule.consequent) == (frozenset({"Like"}), frozenset({"Student"}))
    assert rule.antecedent_constants == rule.consequent_constants == frozenset({"susan"})


def test_an_atom_is_negative_under_an_odd_number_of_negations() -> None:
    s = shape_of(parse("¬(¬Happy(ann) ∧ Sad(ann))"))
    assert s.atoms == (Atom("Happy", ("ann",), False), Atom("Sad", ("ann",), True))
    # a rule's condition is not a denial: `negative` is what the formula writes
    assert [a.negative for a in shape_of(parse("∀x (Cat(x) → ¬Dog(x))")).atoms] == [False, True]


def test_double_negation_and_other_connectives_are_counted() -> None:
    s = shape_of(parse("¬¬Doctor(ann)"))
    assert (s.negations, s.double_negations) == (2, 1)
    assert shape_of(parse("Sing(sam) ⊕ Dance(sam)")).xors == 1
    assert shape_of(parse("Sing(sam) ↔ Dance(sam)")).iffs == 1


def test_a_quantifier_prefix_names_the_outer_kind_and_subject() -> None:
    s = shape_of(parse("∃x ∀y Loves(x, y)"))
    assert (s.universal, s.existential, s.outer, s.subject) == (1, 1, "∃", "x")
    assert s.predicates == ("Loves",)


def test_every_day_says_how_often_and_is_no_universal_cue() -> None:
    # "Every dog" quantifies over dogs; "every day" over no one
    assert read_sentence("Every dog barks every day.").universal == (0,)
    assert read_sentence("Mike wears the same shirt every day.").universal == ()
