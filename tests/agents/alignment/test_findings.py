"""`align` on one formula beside its sentence: each finding kind, its score, and a faithful twin.

Every kind is pinned with its exact score (the scores decide whether a finding blames the formula,
`BLAME`, or queues the item, `ISSUE`), and beside it a faithful formula for a similar sentence that
must read clean, so a check that fires on everything fails here too.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from refinery.agents.alignment import BLAME, Finding, align, align_formula
from refinery.agents.reading.cues import read_sentence


def _kinds(fol: str, sentence: str, story: Sequence[str] = ()) -> list[tuple[str, float]]:
    """(kind, score) of every finding on one formula, worst first."""
    return [(f.kind, f.score) for f in align({"f": fol}, {"f": sentence}, story).findings]


def _only(fol: str, sentence: str, story: Sequence[str] = ()) -> Finding:
    """The one finding on one formula (fails if there are none or several)."""
    (finding,) = align({"f": fol}, {"f": sentence}, story).findings
    return finding


# -- negation ---------------------------------------------------------------------------------


def test_no_as_an_unnegated_rule_is_negation_missing_and_as_a_negated_result_clean() -> None:
    finding = _only("∀x (Bird(x) ∧ In(x, aviary) → Fly(x))", "No bird in the aviary can fly.")
    assert (finding.kind, finding.score, finding.words) == ("negation_missing", 0.85, ("no",))
    text = "∀x (Bird(x) ∧ In(x, aviary) → ¬Fly(x))"
    assert align_formula(text, "No bird in the aviary can fly.") == 0.0


def test_a_negation_no_word_states_is_negation_extra() -> None:
    finding = _only("∀x (Bird(x) ∧ In(x, aviary) → ¬Fly(x))", "Birds in the aviary can fly.")
    assert (finding.kind, finding.score, finding.symbols) == ("negation_extra", 0.7, ("Fly",))


def test_a_negated_predicate_the_sentence_does_not_name_is_only_a_weak_extra() -> None:
    # ¬High for "low": an antonym, so the ¬ may well be right
    assert _kinds("¬High(ann)", "Ann is a low earner.") == [("negation_extra", 0.4)]


def test_more_negations_than_the_sentence_has_is_extra() -> None:
    # a double negation is extra whatever the sentence says
    assert _kinds("¬¬Doctor(ann)", "Ann is not a doctor.") == [("negation_extra", 0.9)]
    finding = _only("¬Doctor(ann) ∧ ¬Lawyer(ann)", "Ann is not a doctor.")
    assert (finding.kind, finding.score) == ("negation_extra", 0.55)
    assert finding.symbols == ("Doctor", "Lawyer")


@pytest.mark.parametrize(
    ("fol", "expected"),
    [
        ("¬(Doctor(tom) ∨ Lawyer(tom))", []),
        ("¬Doctor(tom) ∧ ¬Lawyer(tom)", []),
        # no negation at all: the full score
        ("Doctor(tom) ∨ Lawyer(tom)", [("negation_missing", 0.85)]),
        # one side negated: "neither … nor" negates both
        ("¬Doctor(tom) ∨ Lawyer(tom)", [("negation_missing", 0.7)]),
    ],
)
def test_neither_nor_negates_both_sides(fol: str, expected: list[tuple[str, float]]) -> None:
    assert _kinds(fol, "Tom is neither a doctor nor a lawyer.") == expected


def test_a_negative_prefix_stated_unnegated_is_negation_missing() -> None:
    finding = _only("Friendly(senator)", "The senator is unfriendly.")
    assert (finding.kind, finding.score, finding.words) == (
        "negation_missing",
        0.7,
        ("unfriendly",),
    )


@pytest.mark.parametrize("fol", ["¬Friendly(senator)", "Unfriendly(senator)"])
def test_a_negative_prefix_as_a_negation_or_as_the_name_reads_clean(fol: str) -> None:
    assert align_formula(fol, "The senator is unfriendly.") == 0.0


def test_the_contrapositive_of_a_doubly_negated_rule_is_not_negation_missing() -> None:
    # "if not A, then not B" written B → A says the same thing without a ¬
    sentence = "If a person is not rich, then they do not own a yacht."
    assert align_formula("∀x (OwnYacht(x) → Rich(x))", sentence) == 0.0
    assert align_formula("∀x (¬Rich(x) → ¬OwnYacht(x))", sentence) == 0.0
    # a sentence negated on one side only gets no exemption
    sentence = "If a person is rich, then they do not own a yacht."
    assert _kinds("∀x (Rich(x) → OwnYacht(x))", sentence) == [("negation_missing", 0.85)]


@pytest.mark.parametrize(
    ("sentence", "fol"),
    [
        ("Tom is unable to swim.", "¬Swim(tom)"),
        ("Tom fails to pass the exam.", "¬Pass(tom, exam)"),
        ("Tom is unhappy.", "¬Happy(tom)"),
        ("The bakery's bread is free of gluten.", "¬Contain(bakeryBread, gluten)"),
        # a negative word absorbed into a name counts as the sentence's negation
        (
            "Tom cannot watch a movie without a ticket.",
            "∀x (Movie(x) → CanWatchWithoutTicket(tom, x))",
        ),
    ],
)
def test_negative_wording_without_a_negation_cue_licenses_the_formulas_negation(
    sentence: str, fol: str
) -> None:
    assert align_formula(fol, sentence) == 0.0


def test_free_to_do_something_negates_nothing() -> None:
    # "free of" negates, "free to" does not
    assert _kinds("¬Take(bakeryBread)", "The bakery's bread is free to take.") == [
        ("negation_extra", 0.7)
    ]


def test_distinct_written_as_not_equal_is_no_negation_and_only_weakly_missing_for_not() -> None:
    # ¬(a = b) is FOLIO's "different": not a ¬ any sentence states
    assert align_formula("¬(ann = bob)", "Ann and Bob are different people.") == 0.0
    # ≠ says "not the same" without a ¬: too weak to blame the formula
    alignment = align({"f": "¬(ann = bob)"}, {"f": "Ann and Bob are not the same person."})
    assert [(f.kind, f.score) for f in alignment.findings] == [("negation_missing", 0.4)]
    assert alignment.score < BLAME


def test_both_or_neither_with_negated_sides_is_negation_extra() -> None:
    sentence = "Sam either both sings and dances, or neither sings nor dances."
    assert _kinds("¬Sing(sam) ↔ ¬Dance(sam)", sentence) == [("negation_extra", 0.6)]
    assert align_formula("Sing(sam) ↔ Dance(sam)", sentence) == 0.0


def test_a_rule_side_the_sentence_negates_needs_its_own_negation() -> None:
    sentence = "If John is not a PhD student, then he is not a member of the university."
    # one ¬ of two: the condition's was dropped
    assert _kinds("PhDStudent(john) → ¬MemberOf(john, university)", sentence) == [
        ("negation_missing", 0.6)
    ]
    assert align_formula("¬PhDStudent(john) → ¬MemberOf(john, university)", sentence) == 0.0
    buy = "If a person doesn't have enough money to buy a product, then that person can't buy it."
    assert ("negation_missing", 0.6) in _kinds(
        "∀x ∀y (Person(x) ∧ Product(y) ∧ ¬HaveEnoughMoneyFor(x, y) → Buy(x, y))", buy
    )
    # the contrapositive of one negated side negates the other: no ¬ is missing
    contrapositive = _kinds("∀x (¬Member(x) → Student(x))", "If someone is not a student, "
                            "they are a member.")  # fmt: skip
    assert "negation_missing" not in [kind for kind, _ in contrapositive]
    # "cannot be deprived": the result's negation, not the condition's
    assert (
        align_formula(
            "∀x (Entitled(x) → ¬Deprived(x))", "Everyone that is entitled cannot be deprived."
        )
        < 0.5
    )


# -- quantifiers ------------------------------------------------------------------------------


def test_some_written_with_forall_is_a_quantifier_finding() -> None:
    finding = _only(
        "∀x (Student(x) ∧ In(x, club) → Athlete(x))", "Some students in the club are athletes."
    )
    assert (finding.kind, finding.score) == ("quantifier", 0.8)
    assert (finding.words, finding.symbols) == (("some",), ("∀",))
    text = "∃x (Student(x) ∧ In(x, club) ∧ Athlete(x))"
    assert align_formula(text, "Some students in the club are athletes.") == 0.0


def test_all_written_with_exists_is_a_quantifier_finding() -> None:
    finding = _only(
        "∃x (Student(x) ∧ In(x, club) ∧ Athlete(x))", "All students in the club are athletes."
    )
    assert (finding.kind, finding.score, finding.words, finding.symbols) == (
        "quantifier",
        0.8,
        ("all",),
        ("∃",),
    )
    # a ∀ later on: the opening "all" still asks for the first binder to be ∀
    text = "∃x (Student(x) ∧ In(x, club) ∧ Athlete(x)) ∧ ∀y (Club(y) → Fun(y))"
    assert _kinds(text, "All students in the club are athletes.") == [("quantifier", 0.7)]


def test_no_written_as_not_all_is_a_quantifier_finding_but_not_all_is_not() -> None:
    # ¬∀ says only "not every bird can fly"
    finding = _only("¬∀x (Bird(x) ∧ In(x, aviary) → Fly(x))", "No bird in the aviary can fly.")
    assert (finding.kind, finding.score, finding.words, finding.symbols) == (
        "quantifier",
        0.8,
        ("no",),
        ("∃",),
    )
    assert (
        align_formula("¬∃x (Bird(x) ∧ In(x, aviary) ∧ Fly(x))", "No bird in the aviary can fly.")
        == 0.0
    )
    text = "¬∀x (Bird(x) ∧ In(x, aviary) → Fly(x))"
    assert align_formula(text, "Not all birds in the aviary can fly.") == 0.0


def test_exists_over_an_implication_is_a_quantifier_finding() -> None:
    # ∃x (A → B) holds of anything that is not an A
    finding = _only(
        "∃x (Student(x) ∧ In(x, club) → Athlete(x))", "Some students in the club are athletes."
    )
    assert (finding.kind, finding.score, finding.symbols) == ("quantifier", 0.7, ("∃", "→"))


def test_a_general_fact_written_with_exists_is_a_weak_quantifier_finding() -> None:
    assert _kinds("∃x (Cat(x) ∧ Mammal(x))", "Cats are mammals.") == [("quantifier", 0.55)]
    assert align_formula("∀x (Cat(x) → Mammal(x))", "Cats are mammals.") == 0.0


def test_a_conditional_rule_written_with_exists_is_a_quantifier_finding() -> None:
    finding = _only("∃x (Cat(x) ∧ Hungry(x) ∧ Meow(x))", "If a cat is hungry, it meows.")
    assert (finding.kind, finding.score, finding.words) == ("quantifier", 0.6, ("if",))
    assert (
        align_formula("∀x (Cat(x) ∧ Hungry(x) → Meow(x))", "If a cat is hungry, it meows.") == 0.0
    )


def test_a_fact_about_a_named_thing_made_universal_is_a_quantifier_error() -> None:
    assert _kinds("∀x WonCup(aberdeen, x)", "Aberdeen has once won a cup.") == [("quantifier", 0.6)]
    assert align_formula("∃x WonCup(aberdeen, x)", "Aberdeen has once won a cup.") == 0.0
    # "all" says it: no finding
    assert align_formula("∀x Likes(ann, x)", "Ann likes all.") == 0.0


# -- connectives ------------------------------------------------------------------------------


def test_and_written_as_or_is_and_as_or() -> None:
    finding = _only("Doctor(ann) ∨ Lawyer(ann)", "Ann is a doctor and a lawyer.")
    assert (finding.kind, finding.score, finding.words, finding.symbols) == (
        "and_as_or",
        0.8,
        ("and",),
        ("∨",),
    )
    assert align_formula("Doctor(ann) ∧ Lawyer(ann)", "Ann is a doctor and a lawyer.") == 0.0


def test_an_and_of_a_rules_subjects_may_be_an_or_in_its_condition() -> None:
    # "students and teachers are …" is ∀x (S(x) ∨ T(x) → …): everyone who is either
    sentence = "Students and teachers at Mount Carmel School are library card holders."
    assert align_formula("∀x (Student(x) ∨ Teacher(x) → LibraryCardHolder(x))", sentence) == 0.0


def test_a_list_of_kinds_is_an_or_in_a_rules_result_and_no_existential() -> None:
    # "there are three types of X: A, B, and C": every X is an A, a B or a C
    sentence = "There are three types of wild turkeys: Eastern, Osceola, and Gould's wild turkey."
    fol = "∀x (WildTurkey(x) → Eastern(x) ∨ Osceola(x) ∨ Goulds(x))"
    assert align_formula(fol, sentence) == 0.0
    assert align_formula(fol.replace("∨", "∧"), sentence) == 0.0  # both readings occur
    # a list of facts is still a conjunction, and "there are" still an ∃
    assert _kinds("Season(spring) ∨ Season(summer)", "Spring and summer are seasons.") == [
        ("and_as_or", 0.8)
    ]
    assert align_formula("∃x (Cat(x) ∧ Black(x))", "There are black cats.") == 0.0
    assert _kinds("∀x (Cat(x) → Black(x))", "There are black cats.")[0][0] == "quantifier"


@pytest.mark.parametrize(
    ("fol", "sentence"),
    [
        ("∀x (¬Ghost(x))", "Ghosts do not exist."),  # a denied ∃ is ∀¬
        ("∀x (¬(Directed(x, endGame) ∧ From(x, hongKong)))", "EndGame was not directed by someone from Hong Kong."),
        ("∀x ∀y (¬Own(x, car) ∧ DriveTo(x, y) → Borrow(x, car))", "Someone who does not own a car to drive somewhere must borrow one."),
        ("∀x (Painting(x) → History(x) ∨ Portrait(x) ∨ Still(x))", "Painting genres can be history, portrait, and still life."),
    ],
)  # fmt: skip
def test_generic_and_denied_someone_and_a_list_of_genres_read_as_rules(
    fol: str, sentence: str
) -> None:
    assert align_formula(fol, sentence) == 0.0


def test_an_and_inside_a_relative_clause_is_no_list_of_subjects() -> None:
    # "who are tall and smart" asks both of one person: ∨ in the condition is wrong
    sentence = "People who are tall and smart win."
    assert _kinds("∀x (Tall(x) ∨ Smart(x) → Win(x))", sentence) == [("and_as_or", 0.8)]
    assert align_formula("∀x (Tall(x) ∧ Smart(x) → Win(x))", sentence) == 0.0


def test_or_written_as_and_is_or_as_and() -> None:
    finding = _only("Doctor(ann) ∧ Lawyer(ann)", "Ann is a doctor or a lawyer.")
    assert (finding.kind, finding.score, finding.words, finding.symbols) == (
        "or_as_and",
        0.6,
        ("or",),
        ("∧",),
    )
    assert align_formula("Doctor(ann) ∨ Lawyer(ann)", "Ann is a doctor or a lawyer.") == 0.0
    # an "or" dropped beside an "and" of another clause
    sentence = "Ann is a doctor, and Bob is a lawyer or a judge."
    assert _kinds("Doctor(ann) ∧ Lawyer(bob)", sentence) == [("or_as_and", 0.6)]


@pytest.mark.parametrize(
    ("sentence", "fol", "score", "symbol"),
    [
        # FOLIO writes "either … or" as ⊕
        ("Ann is either a doctor or a lawyer.", "Doctor(ann) ∨ Lawyer(ann)", 0.55, "∨"),
        # and a plain "or" as ∨
        ("Ann is a doctor or a lawyer.", "Doctor(ann) ⊕ Lawyer(ann)", 0.5, "⊕"),
        ("Ann is a doctor or a lawyer, but not both.", "Doctor(ann) ∨ Lawyer(ann)", 0.7, "∨"),
        ("Ann is a doctor or a lawyer, or both.", "Doctor(ann) ⊕ Lawyer(ann)", 0.7, "⊕"),
        (
            "Sam either both sings and dances, or neither sings nor dances.",
            "Sing(sam) ⊕ Dance(sam)",
            0.8,
            "⊕",
        ),
    ],
)
def test_the_wrong_kind_of_or_is_exclusive_or(
    sentence: str, fol: str, score: float, symbol: str
) -> None:
    finding = _only(fol, sentence)
    assert (finding.kind, finding.score, finding.symbols) == ("exclusive_or", score, (symbol,))


@pytest.mark.parametrize(
    ("sentence", "fol"),
    [
        ("Ann is either a doctor or a lawyer.", "Doctor(ann) ⊕ Lawyer(ann)"),
        ("Ann is a doctor or a lawyer, but not both.", "Doctor(ann) ⊕ Lawyer(ann)"),
        ("Ann is a doctor or a lawyer, or both.", "Doctor(ann) ∨ Lawyer(ann)"),
        # "either …, or both" says the ∨ itself: FOLIO's ⊕ for "either … or" does not apply
        ("Ann is either a doctor, a lawyer, or both.", "Doctor(ann) ∨ Lawyer(ann)"),
        (
            "Sam either both sings and dances, or neither sings nor dances.",
            "Sing(sam) ↔ Dance(sam)",
        ),
    ],
)
def test_the_right_kind_of_or_reads_clean(sentence: str, fol: str) -> None:
    assert align_formula(fol, sentence) == 0.0


def test_a_sentence_joined_by_and_written_as_one_atom_is_conjunct_missing() -> None:
    sentence = "Philip applied for a visa and got it."
    finding = _only("AppliedFor(philip, visa)", sentence)
    assert (finding.kind, finding.score, finding.words) == ("conjunct_missing", 0.6, ("and",))
    assert align_formula("AppliedFor(philip, visa) ∧ Got(philip, visa)", sentence) == 0.0
    # an "and" between two named arguments of one relation is accounted for
    assert align_formula("Siblings(ann, bob)", "Ann and Bob are siblings.") == 0.0


def test_a_negated_or_without_or_nor_or_neither_is_an_and() -> None:
    sentence = "No fears lead to terror."
    assert _kinds("∀x ∀y (Fear(x) → ¬(Terror(y) ∨ LeadTo(x, y)))", sentence) == [("and_as_or", 0.6)]
    assert align_formula("∀x ∀y (Fear(x) → ¬(Terror(y) ∧ LeadTo(x, y)))", sentence) == 0.0
    assert align_formula("¬(Tall(ann) ∨ Rich(ann))", "Ann is neither tall nor rich.") == 0.0


def test_more_ors_than_the_sentence_has_or_and_commas_is_an_and_read_as_or() -> None:
    sentence = "The house is a haunted house or a terrifying building on Halloween."
    assert _kinds("Haunted(h) ∨ (Terrifying(h) ∨ OnHalloween(h))", sentence) == [
        ("and_as_or", 0.55)
    ]
    assert align_formula("Haunted(h) ∨ Terrifying(h) ∧ OnHalloween(h)", sentence) == 0.0
    # a list: its commas count
    assert align_formula("Red(a) ∨ Blue(a) ∨ Green(a)", "A is red, blue or green.") == 0.0


# -- implication ------------------------------------------------------------------------------


def test_all_a_are_b_written_without_an_implication_is_implication_missing() -> None:
    finding = _only("∀x Mammal(x)", "All cats are mammals.")
    assert (finding.kind, finding.score, finding.words) == ("implication_missing", 0.6, ("cats",))


def test_a_universal_conjunction_for_a_rule_is_implication_missing() -> None:
    # ∀x (Cat(x) ∧ Mammal(x)) says everything is a cat; both checks see it
    assert _kinds("∀x (Cat(x) ∧ Mammal(x))", "All cats are mammals.") == [
        ("implication_missing", 0.6),
        ("implication_missing", 0.6),
    ]
    assert align_formula("∀x (Cat(x) → Mammal(x))", "All cats are mammals.") == 0.0


@pytest.mark.parametrize(
    ("sentence", "reversed_fol", "faithful_fol", "symbol"),
    [
        (
            "If a student studies hard, then they pass the exam.",
            "∀x (PassExam(x) → StudyHard(x))",
            "∀x (StudyHard(x) → PassExam(x))",
            "StudyHard",
        ),
        # "B if A"
        (
            "A person is a student if they attend school.",
            "∀x (Student(x) → AttendSchool(x))",
            "∀x (AttendSchool(x) → Student(x))",
            "AttendSchool",
        ),
        # "All A are B"
        (
            "All squirrels are skittish.",
            "∀x (Skittish(x) → Squirrel(x))",
            "∀x (Squirrel(x) → Skittish(x))",
            "Squirrel",
        ),
        # no copula: the condition's words come first
        (
            "All endothermic animals produce heat.",
            "∀x (ProduceHeat(x) → Endothermic(x))",
            "∀x (Endothermic(x) → ProduceHeat(x))",
            "Endothermic",
        ),
    ],
)
def test_a_rule_written_the_other_way_round_is_implication_reversed(
    sentence: str, reversed_fol: str, faithful_fol: str, symbol: str
) -> None:
    finding = _only(reversed_fol, sentence)
    assert (finding.kind, finding.score, finding.symbols) == (
        "implication_reversed",
        0.6,
        (symbol,),
    )
    assert align_formula(faithful_fol, sentence) == 0.0


def test_a_definition_written_the_other_way_round_is_a_weaker_implication_reversed() -> None:
    # "A is B" may be a definition that holds both ways
    text = "∀x (RoundedFortification(x) → Roundel(x))"
    assert _kinds(text, "A roundel is a rounded fortification.") == [("implication_reversed", 0.55)]


def test_a_negation_moved_from_the_result_into_the_condition_is_implication_reversed() -> None:
    finding = _only("∀x (¬Fur(x) → Reptile(x))", "No reptile has fur.")
    assert (finding.kind, finding.score, finding.symbols) == ("implication_reversed", 0.6, ("Fur",))
    assert align_formula("∀x (Reptile(x) → ¬Fur(x))", "No reptile has fur.") == 0.0
    # "students who do not study": the sentence's negation is in the condition too
    text = "∀x (Student(x) ∧ ¬Study(x) → Fail(x))"
    assert align_formula(text, "Students who do not study fail.") == 0.0


@pytest.mark.parametrize(
    "fol",
    ["∀x (¬Frozen(x) → Grow(x))", "∀x (Plant(x) → Frozen(x) ∨ Grow(x))"],
)
def test_unless_licenses_a_negated_condition_or_a_disjunction(fol: str) -> None:
    # "A unless B" is "if not B then A", or "B or A": neither ¬ nor ∨ is extra
    assert align_formula(fol, "A plant grows unless it is frozen.") == 0.0


def test_a_only_if_b_written_as_a_implies_b_reads_clean() -> None:
    sentence = "A person can vote only if they are registered."
    assert align_formula("∀x (Vote(x) → Registered(x))", sentence) == 0.0
    assert _kinds("∀x (Registered(x) → Vote(x))", sentence) == [("implication_reversed", 0.6)]


def test_words_one_side_of_the_sentence_has_alone_set_a_rules_direction() -> None:
    # "movies" is on both sides: only "sci-fi" (one word in `ScifiMovie`) tells them apart
    assert _kinds("∀x (Movie(x) → ScifiMovie(x))", "All sci-fi movies are movies.") == [
        ("implication_reversed", 0.6)
    ]
    assert align_formula("∀x (ScifiMovie(x) → Movie(x))", "All sci-fi movies are movies.") == 0.0
    # one predicate on both sides: the constants tell them apart
    room = "If you have room for dessert, you have room for broccoli."
    assert _kinds("∀x (RoomFor(x, broccoli) → RoomFor(x, dessert))", room) == [
        ("implication_reversed", 0.6)
    ]
    assert align_formula("∀x (RoomFor(x, dessert) → RoomFor(x, broccoli))", room) == 0.0
    # "A, and if B, then C": the rule is between "if" and "then"
    susan = "Susan is at the event, and if Susan is a Harvard student, then she is a young adult."
    assert ("implication_reversed", 0.6) in _kinds(
        "At(susan, event) ∧ (YoungAdult(susan) → HarvardStudent(susan))", susan
    )
    assert (
        align_formula("At(susan, event) ∧ (HarvardStudent(susan) → YoungAdult(susan))", susan)
        == 0.0
    )


def test_a_constant_spelled_two_ways_across_a_rule_sets_no_direction() -> None:
    sentence = "If the balm is refillable, then the balm is refillable or red."
    assert align_formula("Refillable(balm) → Refillable(balmE) ∨ Red(balm)", sentence) < 0.5


# -- arguments --------------------------------------------------------------------------------


def test_a_relation_whose_arguments_the_sentence_orders_the_other_way_is_argument_order() -> None:
    finding = _only("Love(mary, tom)", "Tom loves Mary.")
    assert (finding.kind, finding.score, finding.words, finding.symbols) == (
        "argument_order",
        0.5,
        ("tom", "mary"),
        ("Love",),
    )
    assert align_formula("Love(tom, mary)", "Tom loves Mary.") == 0.0
    # the passive turns the order back
    assert align_formula("Love(mary, tom)", "Mary is loved by Tom.") == 0.0


def test_a_by_predicate_reads_its_first_argument_before_by() -> None:
    sentence = "Harry Potter was written by Rowling."
    assert _kinds("WrittenBy(rowling, harryPotter)", sentence) == [("argument_order", 0.5)]
    assert align_formula("WrittenBy(harryPotter, rowling)", sentence) == 0.0


@pytest.mark.parametrize(
    ("fol", "sentence", "expected"),
    [
        # a "not" before each part: each is denied (train 1360)
        (
            "¬(Popular(pytorch) ∧ WrittenWithCode(pytorch))",
            "PyTorch is not popular and it is not written with code.",
            [("negation_missing", 0.8)],
        ),
        # read right: a ¬ on each part
        (
            "¬Popular(pytorch) ∧ ¬WrittenWithCode(pytorch)",
            "PyTorch is not popular and it is not written with code.",
            [],
        ),
        # "not both" and "it is not the case that" deny the "and" as a whole
        (
            "¬(Popular(pytorch) ∧ WrittenWithCode(pytorch))",
            "PyTorch is not both popular and written with code.",
            [],
        ),
        (
            "¬(Popular(pytorch) ∧ Old(pytorch))",
            "It is not the case that PyTorch is popular and that it is not old.",
            [],
        ),
    ],
)
def test_a_not_before_each_part_of_an_and_is_not_one_not_over_it(
    fol: str, sentence: str, expected: list[tuple[str, float]]
) -> None:
    assert _kinds(fol, sentence) == expected


def test_an_of_predicate_after_a_possessive_names_its_owner_last() -> None:
    # train 1287: "its orbit" is OrbitOf(orbit, it), though the sentence says "it" first
    sentence = "If Europa has cleared its orbit of other debris, it is a planet."
    fol = "∃y (OrbitOf(y, europa) ∧ Clear(europa, y) ∧ DebrisFree(y)) → Planet(europa)"
    assert "argument_order" not in [k for k, _ in _kinds(fol, sentence)]
    # without the possessive the word order still counts
    assert _kinds("OrbitOf(mars, europa)", "Europa is the orbit of Mars.") == [
        ("argument_order", 0.5)
    ]


# -- content ----------------------------------------------------------------------------------


def test_a_listed_word_the_story_has_a_predicate_for_is_word_unsymbolised() -> None:
    story = ["∀x (Friendly(x) → Pet(x))"]
    sentence = "All retrievers are loyal and friendly."
    finding = _only("∀x (Retriever(x) → Loyal(x))", sentence, story)
    assert (finding.kind, finding.score, finding.words, finding.symbols) == (
        "word_unsymbolised",
        0.6,
        ("friendly",),
        ("Friendly",),
    )
    assert align_formula("∀x (Retriever(x) → Loyal(x) ∧ Friendly(x))", sentence, story) == 0.0


@pytest.mark.parametrize(
    ("sentence", "story", "score"),
    [
        # right beside a word the formula symbolises as a one-place atom
        ("Max is an unannounced program.", ["Unannounced(max)"], 0.55),
        # elsewhere in the sentence
        ("Max is a program that was announced yesterday.", ["Announced(max)"], 0.45),
    ],
)
def test_word_unsymbolised_is_scored_by_where_the_word_sits(
    sentence: str, story: list[str], score: float
) -> None:
    assert _kinds("Program(max)", sentence, story) == [("word_unsymbolised", score)]


def test_a_multiword_name_the_story_has_a_constant_for_is_entity_unsymbolised() -> None:
    story = ["In(kiwi, centralAviary)"]
    sentence = "Kiwi is a bird in the Central Aviary."
    finding = _only("Bird(kiwi)", sentence, story)
    assert (finding.kind, finding.score, finding.words, finding.symbols) == (
        "entity_unsymbolised",
        0.5,
        ("central", "aviary"),
        ("centralAviary",),
    )
    assert align_formula("Bird(kiwi) ∧ In(kiwi, centralAviary)", sentence, story) == 0.0


def test_a_one_word_name_counts_when_capitalised_mid_sentence_or_no_english_word() -> None:
    story = ["In(kiwi, paris)", "Like(kiwi, music)"]
    assert _kinds("Bird(kiwi)", "Kiwi is a bird that lives near Paris.", story) == [
        ("entity_unsymbolised", 0.5)
    ]
    # a sentence's first word is capitalised anyway: a sign of a name only when it is no word
    assert align_formula("Bird(kiwi)", "Music lovers know a bird called Kiwi.", story) == 0.0
    assert _kinds("Bird(kiwi)", "Paris has a bird called Kiwi.", story) == [
        ("entity_unsymbolised", 0.5)
    ]


def test_a_name_of_several_words_is_found_by_its_content_words() -> None:
    story = ["From(a, bakedByMelissa)", "In(jack, yaleSVarsityTeam)"]
    # "by" and "'s" are no part of the match: the name's content words are
    assert _kinds("¬Product(driedThaiChili)", "Dried Thai chilies are not products of Baked by "
                  "Melissa.", story) == [("entity_unsymbolised", 0.5)]  # fmt: skip
    assert _kinds("Player(jack)", "Jack is on Yale's varsity team.", story) == [
        ("entity_unsymbolised", 0.5)
    ]
    assert (
        align_formula("In(jack, yaleSVarsityTeam)", "Jack is on Yale's varsity team.", story) == 0.0
    )


def test_a_constant_no_word_of_the_sentence_names_is_symbol_ungrounded() -> None:
    finding = _only("Bird(tweety)", "Kiwi is a bird.")
    assert (finding.kind, finding.score, finding.symbols) == ("symbol_ungrounded", 0.3, ("tweety",))
    assert align_formula("Bird(kiwi)", "Kiwi is a bird.") == 0.0


# -- the item ---------------------------------------------------------------------------------


def test_an_items_score_is_its_worst_finding_and_unparsable_formulas_are_skipped() -> None:
    alignment = align(
        {
            "premises[0]": "∀x (Bird(x) → Fly(x))",
            "premises[1]": "Bird(tweety)",
            "conclusion": "Fly(kiwi",  # does not parse: syntax is another check's job
        },
        {
            "premises[0]": "No bird can fly.",
            "premises[1]": "Kiwi is a bird.",
            "conclusion": "Kiwi can fly.",
        },
    )
    assert [(f.where, f.kind, f.score) for f in alignment.findings] == [
        ("premises[0]", "negation_missing", 0.85),
        ("premises[1]", "symbol_ungrounded", 0.3),
    ]
    assert alignment.score == 0.85 and alignment.is_issue
    assert alignment.score_of(["premises[1]", "conclusion"]) == 0.3
    assert [f.kind for f in alignment.at("premises[1]")] == ["symbol_ungrounded"]
    assert alignment.findings[0].render() == (
        "premises[0]: negation_missing (0.85) the sentence says 'no' but the formula negates nothing"
    )


def test_a_formula_without_a_sentence_is_not_read_and_an_unparsable_one_scores_worst() -> None:
    assert align({"premises[0]": "∀x (Bird(x) → Fly(x))"}, {}).findings == ()
    assert align_formula("∀x (Bird(x) → Fly(x)", "All birds fly.") == 1.0


def test_the_no_of_a_number_is_no_quantifier() -> None:
    text = "∃x (Conductor(x) ∧ Famous(x) ∧ Led(x, symphonyNo9))"
    assert align_formula(text, "A famous conductor led Symphony No. 9.") == 0.0


def test_a_camel_case_constant_written_as_one_word_is_grounded() -> None:
    assert align_formula("AnnouncedBy(weTab, neofonie)", "WeTab was announced by Neofonie.") == 0.0


def test_not_a_or_b_written_as_two_negations_reads_clean() -> None:
    text = "¬Own(tom, car) ∧ ¬Own(tom, bike)"
    assert align_formula(text, "Tom does not own a car or a bike.") == 0.0


# -- attitude ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "fol", "stated"),
    [
        (
            "All working people who hate working for others want to be entrepreneurs.",
            "∀x (Hate(x) → Entrepreneur(x))",
            "Entrepreneur",
        ),
        ("Tom plans to study in Paris.", "StudyIn(tom, paris)", "StudyIn"),
    ],
)
def test_a_wish_stated_as_done_is_attitude_dropped(sentence: str, fol: str, stated: str) -> None:
    finding = _only(fol, sentence)
    assert (finding.kind, finding.score, finding.symbols) == ("attitude_dropped", 0.6, (stated,))
    assert finding.score >= BLAME


@pytest.mark.parametrize(
    ("sentence", "fol"),
    [
        # the attitude kept in a name, or another attitude's name for it
        ("Tom wants to study in Paris.", "WantToStudyIn(tom, paris)"),
        ("The Mede Empire plans to swallow Attolia.", "PlotsToSwallow(medeEmpire, attolia)"),
        # an embedded question asks no one to do anything
        ("John chooses what he wants to do with his time.", "ChooseWhatToDoWith(john, time)"),
    ],
)
def test_an_attitude_the_formula_keeps_or_an_embedded_question_reads_clean(
    sentence: str, fol: str
) -> None:
    assert "attitude_dropped" not in [kind for kind, _ in _kinds(fol, sentence)]


@pytest.mark.parametrize(
    ("fol", "expected"),
    [
        # one ¬ for "no … not": the opposite of what the sentence says
        ("∀x (Lipstick(x) → ¬Rosewood(x))", [("negation_missing", 0.7)]),
        # both negations, none, or one in a name ("without"): read right
        ("¬∃x (Lipstick(x) ∧ ¬Rosewood(x))", []),
        ("∀x (Lipstick(x) → Rosewood(x))", []),
        ("∀x (Lipstick(x) → ¬WithoutRosewood(x))", []),
    ],
)
def test_no_with_a_second_negation_cancels_out(fol: str, expected: list[tuple[str, float]]) -> None:
    assert _kinds(fol, "No lipsticks in the set do not have rosewood.") == expected


# -- the scope of one negation before an "and" ------------------------------------------------


def test_one_negation_before_an_and_written_over_the_whole_and_is_a_weak_extra() -> None:
    found = _kinds(
        "¬(Uses(mpa, spa) ∧ NovelWriting(mpa))",
        "Multivoxel analysis is without statistical pattern analysis and writing a novel.",
    )
    assert ("negation_extra", BLAME) in found  # enough to block a suggestion, no more


@pytest.mark.parametrize(
    ("fol", "sentence"),
    [
        ("¬(Edible(coke) ∧ Sweet(coke))", "The coke is not both edible and sweet."),
        (
            "¬Uses(mpa, spa) ∧ NovelWriting(mpa)",
            "MPA is without pattern analysis and writing a novel.",
        ),
        (
            "∀x (Spa(x) → ¬(Miserly(x) ∧ NeedToSave(x, income)))",
            "People who go to the spa are not people who are miserly and need to save income.",
        ),
        ("¬(Popular(torch) ∧ Written(torch))", "Torch is not popular and it is not written."),
    ],
)
def test_not_both_a_relative_clause_and_two_negations_read_right(fol: str, sentence: str) -> None:
    assert not [k for k in _kinds(fol, sentence) if k[0] == "negation_extra" and k[1] == BLAME]


def test_neither_nor_written_as_a_denied_and_is_negation_missing() -> None:
    sentence = "If KiKi neither jumps nor has legs, then KiKi is terricolous."
    assert _kinds("¬(¬Jump(kiki) ∧ HasLegs(kiki)) → Terricolous(kiki)", sentence) == [
        ("negation_missing", 0.7)
    ]
    assert _kinds("¬Jump(kiki) ∧ ¬HasLegs(kiki) → Terricolous(kiki)", sentence) == []
    assert _kinds("¬(Jump(kiki) ∨ HasLegs(kiki)) → Terricolous(kiki)", sentence) == []
    # "neither an orphan planet nor …": the denied "and" is one part's own
    planet = "PSO is neither an orphan planet nor has the Sun as its star."
    assert _kinds("¬(Planet(pso) ∧ Orphan(pso)) ∧ ¬SunAs(pso, star)", planet) == []


# -- a conjunct written twice -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("fol", "sentence", "meant"),
    [
        (
            "Road(firstRoad) ∧ MadeOf(secondRoad, concrete) ∧ Road(firstRoad)",
            "The first road is made of concrete, and the second road is a road.",
            "Road(secondRoad)",
        ),
        (
            "∃x ∃y (¬(x=y) ∧ Won(x, prize) ∧ Won(x, prize) ∧ Person(x) ∧ Person(y))",
            "Two people won the prize.",
            "Won(y, prize)",
        ),
        (  # the term some predicate holds of beside the copied one is the one meant
            "∃y ∃z (Passenger(y) ∧ Passenger(z) ∧ Carry(bus, y) ∧ Carry(bus, y) ∧ ¬(y=z))",
            "The bus carries two passengers.",
            "Carry(bus, z)",
        ),
    ],
)
def test_a_conjunct_written_twice_where_another_term_lacks_it_is_a_copy_slip(
    fol: str, sentence: str, meant: str
) -> None:
    found = [
        f for f in align({"f": fol}, {"f": sentence}).findings if f.kind == "repeated_conjunct"
    ]
    assert [(f.score, f.symbols[1]) for f in found] == [(0.8, meant)]
    assert f"and {meant} nowhere" in found[0].message


@pytest.mark.parametrize(
    "fol",
    [
        # a constant that is only an object asks nothing of its own
        "Large(shafaq) ∧ Large(shafaq) ∧ In(shafaq, caspianSea)",
        # no other term at all
        "Can(john, rhythm) ∧ Can(john, rhythm) → Play(john)",
    ],
)
def test_a_conjunct_written_twice_with_no_other_term_for_it_is_not_flagged(fol: str) -> None:
    assert "repeated_conjunct" not in [k for k, _ in _kinds(fol, "A sentence about them.")]


# -- cues the words carry ---------------------------------------------------------------------


def test_not_both_followed_by_its_parts_denies_an_and_and_is_no_exclusive_or() -> None:
    sentence = "If Curry is not both a centerback and a defender, then he is a player or a coach."
    fol = "¬(Centerback(curry) ∧ Defender(curry)) → (Player(curry) ∨ Coach(curry))"
    assert "exclusive_or" not in [k for k, _ in _kinds(fol, sentence)]
    # closing its clause, "but not both" is ⊕
    assert ("exclusive_or", 0.7) in _kinds(
        "Animal(hulu) ∨ Dirt(hulu)", "Hulu is either an animal or dirt, but not both."
    )


def test_there_s_is_an_existential_cue() -> None:
    sentence = "There's a person in the family who likes cheese."
    assert _kinds("∃x (InFamily(x) ∧ Like(x, cheese))", sentence) == []
    assert ("quantifier", 0.8) in _kinds("∀x (InFamily(x) → Like(x, cheese))", sentence)


def test_a_predicate_that_spells_the_negative_word_whole_is_no_missing_negation() -> None:
    sentence = "Nonflying birds in Antarctica are penguins."
    assert _kinds("∀x (NonFlying(x) ∧ Bird(x) ∧ In(x, antarctica) → Penguin(x))", sentence) == []


def test_a_rule_whose_result_speaks_of_its_own_subject_is_not_reversed_by_word_order() -> None:
    sentence = "Everyone prefers the smoother of two roads."
    fol = "∀x ∀y ∀z (Road(x) ∧ Road(y) ∧ Smoother(x, y) → Prefer(z, x))"
    assert "implication_reversed" not in [k for k, _ in _kinds(fol, sentence)]
    # the rule's subject named first is still read: "all endothermic animals produce heat"
    assert ("implication_reversed", 0.6) in _kinds(
        "∀x (ProduceHeat(x) → Endothermic(x) ∧ Animal(x))", "All endothermic animals produce heat."
    )


def test_a_copula_inside_one_part_of_an_or_does_not_split_a_rule() -> None:
    sentence = "Problems either have a low rate or are starred by many users."
    fol = "∀x (Problem(x) → LowRate(x) ⊕ StarredByMany(x))"
    assert "implication_reversed" not in [k for k, _ in _kinds(fol, sentence)]


def test_a_place_within_a_place_nests_and_is_not_a_swap() -> None:
    story = ["In(california, unitedStates)", "In(california, unitedStates) ∧ State(california)"]
    fol = "In(losAngeles, california)"
    assert "argument_order" not in [k for k, _ in _kinds(fol, "LA is in California.", story)]


def test_a_not_both_the_formula_drops_is_missing_though_an_either_or_is_written_exclusive() -> None:
    # the ⊕ says the consequent's "either … or"; the condition's "not both" has no ¬ at all
    sentence = "If Rob is not both a singer and a dancer, then Rob either paints or writes."
    fol = "Singer(rob) ∧ Dancer(rob) → (Paint(rob) ⊕ Write(rob))"
    assert ("negation_missing", 0.85) in _kinds(fol, sentence)
    # "…, but not both" closing its clause is what the ⊕ says
    assert _kinds("Paint(rob) ⊕ Write(rob)", "Rob paints or writes, but not both.") == []


def test_a_not_both_the_formula_drops_is_missing_though_a_neither_nor_is_negated() -> None:
    # its one ¬ says the consequent's "neither … nor"; the condition's "not both" is unwritten
    sentence = (
        "If Emily does not both own a pet and live in a city, then she either owns a pet and "
        "lives in a city, or she neither owns a pet nor lives in a city."
    )
    dropped = (
        "(Pet(emily) ∧ City(emily)) → ((Pet(emily) ∧ City(emily)) ⊕ ¬(Pet(emily) ∨ City(emily)))"
    )
    assert ("negation_missing", 0.85) in _kinds(dropped, sentence)
    # written with the "not both", it is not missing (as ¬(A ∧ B), or as ¬A ∨ ¬B)
    for condition in ("¬(Pet(emily) ∧ City(emily))", "(¬Pet(emily) ∨ ¬City(emily))"):
        written = dropped.replace("(Pet(emily) ∧ City(emily)) →", f"{condition} →", 1)
        assert "negation_missing" not in [k for k, _ in _kinds(written, sentence)], written


def test_either_both_or_neither_said_with_and_and_neither_nor_is_no_missing_negation() -> None:
    sentence = (
        "The chopsticks are either made from metal and plastic, or they are neither made from "
        "metal nor plastic."
    )
    assert read_sentence(sentence).both_or_neither
    both_or_neither = "¬(MadeFrom(chopsticks, metal) ⊕ MadeFrom(chopsticks, plastic))"
    assert "negation_missing" not in [k for k, _ in _kinds(both_or_neither, sentence)]
    # a plain "either … or" before a "neither … nor" asks for nothing of the kind
    assert not read_sentence(
        "Tom either sings or dances, and neither paints nor writes."
    ).both_or_neither


def test_a_subject_that_is_the_only_one_of_a_kind_is_the_rule_s_result_not_its_condition() -> None:
    sentence = "Ambiortus Dementjevi is the only known species of Ambiortus."
    fol = "∀x (KnownSpeciesOf(x, ambiortus) → IsSpecies(x, ambiortusDementjevi))"
    assert "implication_reversed" not in [k for k, _ in _kinds(fol, sentence)]
    # a copula's subject is still a generic rule's condition: "a roundel is a fortification"
    assert ("implication_reversed", 0.55) in _kinds(
        "∀x (Fortification(x) → Roundel(x))", "A roundel is a rounded fortification."
    )
