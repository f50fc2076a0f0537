"""Causes read again from a mended FOL, re-proved by Z3 and E (`refinery.repair.retest`)."""

from __future__ import annotations

import pytest
from blaming import CHECKER, mismatch_cause

from refinery.agents.critique import item_context
from refinery.outcomes import Cause, Reason
from refinery.repair.blame import Blame, _scope_in_doubt, blame

from fakes import make_item


def _blame(
    premises: list[tuple[str, str]],
    conclusion: tuple[str, str],
    gold: str,
    story: tuple[str, ...] = (),
) -> Blame:
    return mismatch_cause(premises, conclusion, gold, story)


ELEPHANTS = [
    ("All elephants are mammals.", "∀x (Elephant(x) → Mammal(x))"),
    ("Jumbo is a mammal.", "Mammal(jumbo)"),
]


def test_a_gold_label_that_needs_a_converse_blames_the_label() -> None:
    found = _blame(ELEPHANTS, ("Jumbo is an elephant.", "Elephant(jumbo)"), "True")
    assert found.cause is Cause.LABEL
    assert "premises[0] is read both ways" in found.evidence
    assert not found.clean  # the provers proved nothing: no label is suggested


def test_a_sentence_that_states_only_if_is_not_read_as_a_converse_error() -> None:
    premises = [
        ("Only elephants are mammals.", "∀x (Elephant(x) → Mammal(x))"),
        ("Jumbo is a mammal.", "Mammal(jumbo)"),
    ]
    found = _blame(premises, ("Jumbo is an elephant.", "Elephant(jumbo)"), "True")
    _no_converse(found)


def test_a_compound_condition_is_not_read_both_ways() -> None:
    # its converse would also say every Macbook is a product: a fact, not a converse
    premises = [
        ("All products with M2 chips are Macbooks.", "∀x (Product(x) ∧ M2(x) → Macbook(x))"),
        ("The X1 is a Macbook.", "Macbook(x1)"),
    ]
    found = _blame(premises, ("The X1 has an M2 chip.", "M2(x1)"), "True")
    _no_converse(found)


def _no_converse(found: Blame) -> None:
    """No converse was read: the gold label left open, with no fact found, is surmised to
    claim more than the sentences say, said as a surmise, never a label resting on a converse
    and never a suggestion."""
    assert (found.cause, found.clean, found.surmised) == (Cause.LABEL, False, True)
    assert "(a surmise:" in found.evidence
    assert "read both ways" not in found.evidence


def test_a_fact_no_converse_gives_is_no_converse_error() -> None:
    found = _blame(ELEPHANTS, ("Jumbo is sleepy.", "Sleepy(jumbo)"), "True")
    _no_converse(found)


def test_a_drifted_name_that_reaches_gold_once_renamed_is_vocabulary() -> None:
    premises = [
        ("All cats purr.", "∀x (Cat(x) → Purr(x))"),
        ("Tom is a cat.", "Cat(tom)"),
    ]
    found = _blame(premises, ("Tom purrs.", "purr(tom)"), "True")
    assert found.cause is Cause.VOCABULARY
    assert "written Purr, the FOL proves the gold True" in found.evidence


def test_a_drifted_name_that_still_proves_another_label_blames_the_label() -> None:
    premises = [
        ("All cats purr.", "∀x (Cat(x) → Purr(x))"),
        ("Tom is a cat.", "Cat(tom)"),
    ]
    found = _blame(premises, ("Tom does not purr.", "¬purr(tom)"), "True")
    assert (found.cause, found.clean) == (Cause.LABEL, False)
    assert "written Purr" in found.evidence and "proves False" in found.evidence


def test_a_name_spelled_two_ways_that_does_not_block_blames_the_label() -> None:
    premises = [
        ("All cats purr.", "∀x (Cat(x) → Purr(x))"),
        ("Tom is a cat.", "Cat(tom)"),
        ("Tom is a house cat.", "HouseCat(tom)"),
    ]
    story = ("Housecat(tom)",)  # another item of the story spells it otherwise
    found = _blame(premises, ("Tom does not purr.", "¬Purr(tom)"), "True", story)
    assert found.cause is Cause.LABEL
    assert "spelled one way" in found.evidence and "proves False" in found.evidence


def test_a_drifted_name_that_leaves_a_misread_formula_blames_its_shape() -> None:
    # renamed, the conclusion still fails: premises[0] says "or" where its sentence says "and"
    premises = [
        ("Tom is tall and rich.", "Tall(tom) ∨ Rich(tom)"),
        ("All rich people are happy.", "∀x (Rich(x) → Happy(x))"),
    ]
    found = _blame(premises, ("Tom is happy.", "happy(tom)"), "True")
    assert found.cause is Cause.STRUCTURE
    assert found.evidence.startswith("the conclusion's happy is in no premise, which has Happy")
    assert "written Happy, premises[0]: and_as_or" in found.evidence


def test_a_renamed_name_that_only_leaves_the_gold_open_stays_the_cause() -> None:
    # renamed, the FOL reads right and leaves the gold open, and no fact closes it: that proves
    # nothing, so the name the item is known to drift on stays the cause
    premises = [("All cats purr.", "∀x (Cat(x) → Purr(x))"), ("Tom is a cat.", "Cat(tom)")]
    found = _blame(premises, ("Tom sleeps.", "Sleep(tom) ∧ purr(tom)"), "True")
    assert found.cause is Cause.VOCABULARY
    assert found.evidence == "the conclusion's purr is in no premise, which has Purr"


def test_a_first_name_where_the_sentence_says_the_full_name_is_one_thing_named_two_ways() -> None:
    premises = [
        ("Peter Parker is a superhero.", "Superhero(peterParker)"),
        (
            "Peter Parker wears a uniform when he is a superhero.",
            "Superhero(peter) → Wears(peter, uniform)",
        ),
    ]
    found = _blame(
        premises, ("Peter Parker wears a uniform.", "Wears(peterParker, uniform)"), "True"
    )
    assert found.cause is Cause.VOCABULARY
    assert found.evidence == (
        "premises[1] writes peter where its sentence names peterParker, as other formulas write "
        "it; written peterParker, the FOL proves the gold True"
    )


@pytest.mark.parametrize(
    ("premises", "conclusion", "full"),
    [
        # a formula that names both tells a genus from its species
        (
            [
                ("Ambiortus is a bird genus.", "BirdGenus(ambiortus)"),
                (
                    "Ambiortus Dementjevi is a species of Ambiortus.",
                    "SpeciesOf(ambiortusDementjevi, ambiortus)",
                ),
            ],
            ("Ambiortus is old.", "Old(ambiortus)"),
            "ambiortusDementjevi",
        ),
        # "the office … from home" is not "home office": `home` and `homeOffice` are two things
        (
            [
                (
                    "People work in the office or from home.",
                    "∀x (WorkIn(x, office) ⊕ WorkFrom(x, home))",
                ),
                ("George has a home office.", "Have(george, homeOffice)"),
            ],
            ("George works from home.", "WorkFrom(george, home)"),
            "homeOffice",
        ),
    ],
)
def test_a_shorter_name_is_no_slip_where_the_longer_names_another_thing(
    premises: list[tuple[str, str]], conclusion: tuple[str, str], full: str
) -> None:
    found = _blame(premises, conclusion, "True")
    assert f"names {full}" not in found.evidence


@pytest.mark.parametrize(
    ("sentence", "cause"),
    [
        # "some" asks for no number: one witness is what the sentence says
        ("Some drugs are beneficial.", Cause.STRUCTURE),
        # "at least two" asks for two
        ("At least two drugs are beneficial.", Cause.LABEL),
    ],
)
def test_a_plural_some_written_as_two_distinct_things_is_read_again_with_one(
    sentence: str, cause: Cause
) -> None:
    premises = [("Aspirin is a beneficial drug.", "Drug(aspirin) ∧ Beneficial(aspirin)")]
    conclusion = "∃x ∃y (Drug(x) ∧ Beneficial(x) ∧ ¬(x=y) ∧ Drug(y) ∧ Beneficial(y))"
    found = _blame(premises, (sentence, conclusion), "True")
    assert found.cause is cause
    if cause is Cause.STRUCTURE:
        assert "written with one, ∃x (Drug(x) ∧ Beneficial(x)), the FOL proves" in found.evidence


@pytest.mark.parametrize(
    ("sentence", "cause"),
    [
        # the other formulas write theClass where the conclusion writes james a second time
        ("James failed the class.", Cause.VOCABULARY),
        # the sentence does not say the other constant's words: no slip to read
        ("James failed himself.", Cause.LABEL),
    ],
)
def test_a_constant_in_a_place_where_every_other_formula_has_another_is_read_again(
    sentence: str, cause: Cause
) -> None:
    premises = [
        ("Good planners do not fail the class.", "∀x (Planner(x) → ¬Failed(x, theClass))"),
        ("James is a good planner.", "Planner(james)"),
    ]
    found = _blame(premises, (sentence, "Failed(james, james)"), "False")
    assert found.cause is cause
    if cause is Cause.VOCABULARY:
        assert found.evidence == (
            "conclusion writes Failed with james where every other formula has theClass; "
            "written Failed(james, theClass), the FOL proves the gold False"
        )


MUSEUMS = [
    ("The Metropolitan Museum of Art is a museum in NYC.",
     "Museum(metropolitanMuseumOfArt) ∧ In(metropolitanMuseumOfArt, nYC)"),
    ("The Metropolitan Museum of Art includes Byzantine art.",
     "Include(metropolitanMuseumOfArt, byzantineArt)"),
    ("Whitney Museum of American Art includes American art.",
     "Include(whitneyMuseumOfAmericanArt, americanArt)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("sentence", "formula", "cause"),
    [
        # the second conjunct copied from the Metropolitan's premise, its constant left as it was
        ("Whitney Museum of American Art is a museum in NYC.",
         "Museum(whitneyMuseumOfAmericanArt) ∧ In(metropolitanMuseumOfArt, nYC)", Cause.STRUCTURE),
        # the sentence names both museums: nothing was copied, and nothing else closes the proof
        ("Whitney Museum of American Art is a museum near the Metropolitan Museum of Art.",
         "Museum(whitneyMuseumOfAmericanArt) ∧ Near(metropolitanMuseumOfArt, whitneyMuseumOfAmericanArt)",
         Cause.LABEL),
    ],
)  # fmt: skip
def test_a_constant_copied_with_its_conjunct_from_another_formula_is_read_again(
    sentence: str, formula: str, cause: Cause
) -> None:
    found = _blame(
        [*MUSEUMS, (sentence, formula)],
        ("A museum in NYC includes American art.",
         "∃x (Museum(x) ∧ In(x, nYC) ∧ Include(x, americanArt))"),
        "True",
    )  # fmt: skip
    assert found.cause is cause, found.evidence
    if cause is Cause.STRUCTURE:
        assert found.evidence == (
            "premises[3] writes metropolitanMuseumOfArt, which its sentence does not name, beside "
            "whitneyMuseumOfAmericanArt, which it does; premises[0] names metropolitanMuseumOfArt: "
            "a conjunct copied from there; written Museum(whitneyMuseumOfAmericanArt) ∧ "
            "In(whitneyMuseumOfAmericanArt, nYC), the FOL proves the gold True"
        )


def test_a_numeral_names_a_constant_spelled_out() -> None:
    from refinery.repair.slips import _names

    assert _names("'4Sum' is starred by more than 1,000 users.", "foursum")
    assert _names("Megan Whalen Turner worked with Greenwillow Books.", "meganWhalenTurner")
    assert not _names("'4Sum' is starred by more than 1,000 users.", "twosum")


@pytest.mark.parametrize(
    ("gold", "cause", "then"),
    [
        ("True", Cause.VOCABULARY, "the FOL proves the gold True"),
        ("False", Cause.LABEL, "the FOL reads as its sentences say and proves True"),
    ],
)
def test_a_premise_name_no_other_formula_uses_is_renamed_and_read_again(
    gold: str, cause: Cause, then: str
) -> None:
    premises = [
        (
            "Everyone who grows tomatoes in a garden is patient.",
            "∀x (GrowIn(x, tomato) → Patient(x))",
        ),
        ("Tom grows tomatoes in his garden.", "Grow(tom, tomato)"),
    ]
    found = _blame(premises, ("Tom is patient.", "Patient(tom)"), gold)
    assert found.cause is cause
    said = "premises[1]'s Grow is in no other formula, which have GrowIn; written GrowIn, "
    assert found.evidence == said + then


def test_a_misread_formula_whose_reading_right_proves_another_label_blames_the_label() -> None:
    found = _blame(
        [("Ann is tall and rich.", "Tall(ann) ∨ Rich(ann)")], ("Ann is tall.", "Tall(ann)"), "False"
    )
    assert (found.cause, found.clean) == (Cause.LABEL, False)
    assert found.evidence.startswith("premises[0]: and_as_or")
    assert (
        "rewritten as the finding asks, Tall(ann) ∧ Rich(ann), the FOL proves True: the gold False is out of reach"
        in (found.evidence)
    )


TALL_AND_RICH = [("Ann is tall and rich.", "Tall(ann) ∨ Rich(ann)")]
TALL_AND_HAPPY = ("Ann is tall and happy.", "Tall(ann) ∧ Happy(ann)")


def test_a_misread_formula_whose_rewrite_leaves_the_gold_open_as_written_surmises_the_label() -> (
    None
):
    # as written and rewritten alike nothing says Ann is happy: mending the ∨ changes nothing
    # the gold needs, so it is not what blocks it; a surmise, never a suggestion
    found = _blame(TALL_AND_RICH, TALL_AND_HAPPY, "True")
    assert (found.cause, found.clean, found.surmised) == (Cause.LABEL, False, True)
    assert found.evidence.startswith("premises[0]: and_as_or")
    assert (
        "rewritten as the finding asks, Tall(ann) ∧ Rich(ann), every check reads the FOL right "
        "and it still leaves the gold True open, as it does as written" in found.evidence
    )


def test_a_misread_formula_whose_rewrite_leaves_open_a_gold_the_fol_as_written_refutes() -> None:
    # as written ⊕ refutes "Ann is rich"; read as its plain "or", nothing says she is: the
    # gold True is out of reach either way, and no proof of another label survives the mend
    found = _blame(
        [("Ann is tall or rich.", "Tall(ann) ⊕ Rich(ann)"), ("Ann is tall.", "Tall(ann)")],
        ("Ann is rich.", "Rich(ann)"),
        "True",
    )
    assert (found.cause, found.clean, found.surmised) == (Cause.LABEL, False, True)
    assert found.evidence.startswith("premises[0]: exclusive_or")
    assert (
        "rewritten as the finding asks, Tall(ann) ∨ Rich(ann), every check reads the FOL right "
        "and it still leaves the gold True open, and as written the FOL proves False"
        in found.evidence
    )


def test_a_misread_formula_the_repair_loop_wrote_stays_its_shape() -> None:
    # the formula is the loop's own unconfirmed edit: what it misreads may be the edit's doing
    edit = [("premises[0]", "wrong_connective")]
    found = mismatch_cause(TALL_AND_RICH, TALL_AND_HAPPY, "True", proposals=edit)
    assert found.cause is Cause.STRUCTURE and not found.surmised
    assert (
        found.evidence == "premises[0]: and_as_or: the formula says ∨ but the sentence has no 'or'"
    )


@pytest.mark.parametrize(
    ("text", "doubt"),
    [
        ("∀x (Series(x) → ∃y (ShowRunner(y) → ¬Develops(y, x)))", True),
        ("∃y (ShowRunner(y) → Develops(y, eastwick))", True),
        ("∀x (Series(x) → ∃y (ShowRunner(y) ∧ ¬Develops(y, x)))", False),
        ("∀x (Series(x) → ", True),
    ],
)
def test_a_rewrite_keeping_an_exists_over_an_implication_is_in_doubt(
    text: str, doubt: bool
) -> None:
    assert _scope_in_doubt(text) is doubt


def test_a_misread_formula_whose_reading_right_reaches_gold_is_its_shape() -> None:
    found = _blame(
        [("Ann is tall and rich.", "Tall(ann) ∨ Rich(ann)")], ("Ann is tall.", "Tall(ann)"), "True"
    )
    assert found.cause is Cause.STRUCTURE
    assert "written Tall(ann) ∧ Rich(ann), the FOL proves the gold True" in found.evidence


def test_a_relation_named_two_ways_in_one_place_is_vocabulary_when_renaming_reaches_gold() -> None:
    premises = [
        (
            "Water in the watershed flows to the river.",
            "∀x (Water(x) ∧ In(x, watershed) → FlowsTo(x, river))",
        ),
    ]
    found = _blame(
        premises,
        (
            "All water from the watershed flows to the river.",
            "∀x (Water(x) ∧ From(x, watershed) → FlowsTo(x, river))",
        ),
        "True",
    )
    assert found.cause is Cause.VOCABULARY
    assert "relate watershed in the same place by In" in found.evidence


def test_a_conclusion_true_whatever_the_premises_is_read_alone() -> None:
    # a premise misread ("no" written without ¬) cannot bear on a tautology
    premises = [
        ("No cat purrs.", "∀x (Cat(x) → Purr(x))"),
        ("Tom is a cat.", "Cat(tom)"),
    ]
    found = _blame(
        premises,
        ("If Tom purrs and is a cat, then Tom purrs.", "Purr(tom) ∧ Cat(tom) → Purr(tom)"),
        "False",
    )
    assert (found.cause, found.clean) == (Cause.LABEL, True)
    assert "whatever the premises say" in found.evidence


def test_without_a_retest_the_causes_are_read_from_the_fol_alone() -> None:
    item = make_item(
        1,
        [f for _, f in ELEPHANTS],
        "Elephant(jumbo)",
        "True",
        premises=[s for s, _ in ELEPHANTS],
        conclusion="Jumbo is an elephant.",
    )
    (row,) = CHECKER.check_story([item])
    assert blame(Reason.LABEL_MISMATCH, item_context(item, row)).cause is Cause.KNOWLEDGE
