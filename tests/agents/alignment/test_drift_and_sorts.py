"""Story-wide checks: one name spelled two ways (`drift`), one argument pair swapped (`sorts`)."""

from __future__ import annotations

import pytest

from refinery.agents.alignment import align
from refinery.agents.alignment.drift import near, near_duplicates
from refinery.agents.alignment.sorts import swapped_arguments
from refinery.logic.parse import parse

# -- drift ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("IsNovel", "Novel"),  # a filler word
        ("stPierre", "pierre"),
        ("lifeOf", "liveOf"),  # one letter in one word
        ("Student", "Students"),  # a plural
        ("roderickStrong", "roderickstrong"),  # case only
        ("Consituent", "Constituent"),  # a typo
    ],
)
def test_near_names(a: str, b: str) -> None:
    assert near(a, b) and near(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Dog", "Cat"),
        ("Bark", "Park"),  # four letters, but another first letter
        ("year2010", "year2012"),  # a number tells them apart
        ("catullus4", "catullus"),
        ("LiveIn", "LiveAt"),  # a preposition swapped is another relation
        ("StudentAt", "TeacherAt"),
    ],
)
def test_different_names_are_not_near(a: str, b: str) -> None:
    assert not near(a, b)


def test_near_duplicates_skip_two_words_the_sentences_use_and_other_kinds_or_arities() -> None:
    names = [("predicate", "Dessert", 1), ("predicate", "Desert", 1)]
    assert near_duplicates(names, ["every", "dessert", "is", "sweet", "desert", "dry"]) == []
    (drift,) = near_duplicates(names, ["every", "dessert", "is", "sweet"])
    assert (drift.kind, drift.arity, drift.first, drift.second) == (
        "predicate",
        1,
        "Desert",
        "Dessert",
    )
    # names of another kind or arity never drift
    assert near_duplicates([("predicate", "Novel", 1), ("predicate", "IsNovel", 2)]) == []
    assert near_duplicates([("predicate", "Novel", 1), ("constant", "novel", 0)]) == []


def test_a_short_word_cut_by_its_last_letter_drifts_when_only_the_whole_word_is_said() -> None:
    names = [("predicate", "InNF", 2), ("predicate", "InNFL", 2)]
    found = near_duplicates(names, ["the", "club", "is", "in", "nfl"])
    assert [(d.first, d.second) for d in found] == [("InNF", "InNFL")]
    assert [(d.first, d.second) for d in near_duplicates(
        [("predicate", "CanD", 2), ("predicate", "CanDo", 2)], ["can", "do", "jump", "shots"]
    )] == [("CanD", "CanDo")]  # fmt: skip
    # both words said: two names ("win" and "wine"); neither said: nothing tells the slip
    both = [("predicate", "DoWin", 1), ("predicate", "DoWine", 1)]
    assert near_duplicates(both, ["do", "win", "wine"]) == []
    assert near_duplicates(names, ["the", "club"]) == []
    # a one-word name cut short may be another word
    assert near_duplicates([("predicate", "Pas", 1), ("predicate", "Past", 1)], ["past"]) == []


def test_drift_split_between_a_premise_and_the_conclusion_scores_highest() -> None:
    # a proof that needs the two as one name breaks right at the conclusion
    alignment = align(
        {"premises[0]": "∀x (IsNovel(x) → Book(x))", "conclusion": "Book(dune) ∨ Novel(dune)"},
        {"premises[0]": "Every novel is a book.", "conclusion": "Dune is a novel or a book."},
    )
    assert [(f.where, f.kind, f.score, f.symbols) for f in alignment.findings] == [
        ("conclusion", "name_drift", 0.75, ("IsNovel", "Novel")),
        ("premises[0]", "name_drift", 0.75, ("IsNovel", "Novel")),
    ]


def test_drift_between_two_premises_scores_lower() -> None:
    alignment = align(
        {
            "premises[0]": "∀x (IsNovel(x) → Book(x))",
            "premises[1]": "Novel(dune)",
            "conclusion": "Book(dune)",
        },
        {
            "premises[0]": "Every novel is a book.",
            "premises[1]": "Dune is a novel.",
            "conclusion": "Dune is a book.",
        },
    )
    assert [(f.where, f.kind, f.score) for f in alignment.findings] == [
        ("premises[0]", "name_drift", 0.6),
        ("premises[1]", "name_drift", 0.6),
    ]


def test_drift_against_another_items_formula_scores_lowest() -> None:
    alignment = align(
        {"premises[0]": "∀x (IsNovel(x) → Book(x))", "conclusion": "Book(dune)"},
        {"premises[0]": "Every novel is a book.", "conclusion": "Dune is a book."},
        story_fol=["Novel(dune)"],
    )
    assert [(f.where, f.kind, f.score) for f in alignment.findings] == [
        ("premises[0]", "name_drift", 0.4)
    ]
    # the same item spelling each name one way has no drift
    consistent = align(
        {"premises[0]": "∀x (Novel(x) → Book(x))", "conclusion": "Book(dune)"},
        {"premises[0]": "Every novel is a book.", "conclusion": "Dune is a book."},
        story_fol=["Novel(dune)"],
    )
    assert consistent.findings == ()


def test_a_constant_spelled_another_way_in_the_story_is_drift_not_a_missing_entity() -> None:
    alignment = align(
        {"f": "In(kiwi, stPierre)"},
        {"f": "Kiwi is a bird in St Pierre."},
        story_fol=["In(tweety, pierre)"],
    )
    assert [(f.kind, f.score, f.symbols) for f in alignment.findings] == [
        ("name_drift", 0.4, ("pierre", "stPierre"))
    ]


# -- sorts ------------------------------------------------------------------------------------

_VOLES = ["∀x (TaigaVole(x) → LiveIn(x, borealTaigaZone))", "LiveIn(lemming, borealTaigaZone)"]


def test_a_constant_in_the_place_the_rest_of_the_story_never_puts_it_is_swapped() -> None:
    story = [parse(t) for t in _VOLES]
    (swap,) = swapped_arguments(parse("LiveIn(borealTaigaZone, taigaVole)"), story)
    assert (swap.predicate, swap.args, swap.constant, swap.place, swap.tie) == (
        "LiveIn",
        ("borealTaigaZone", "taigaVole"),
        "borealTaigaZone",
        0,
        False,
    )
    # the order the story uses throughout: nothing to swap
    assert swapped_arguments(parse("LiveIn(taigaVole, borealTaigaZone)"), story) == []


def test_a_predicate_the_story_fills_both_ways_is_never_swapped() -> None:
    # `Related(a, b)` beside `Related(b, a)`: symmetric, its order tells nothing
    story = [parse("Related(b, a)"), parse("Related(a, c)")]
    assert swapped_arguments(parse("Related(a, b)"), story) == []


def test_align_reports_a_story_level_swap_as_argument_order() -> None:
    alignment = align(
        {
            "premises[0]": _VOLES[0],
            "premises[1]": _VOLES[1],
            "conclusion": "LiveIn(borealTaigaZone, taigaVole)",
        },
        {
            "premises[0]": "Taiga voles live in the boreal taiga zone.",
            "premises[1]": "The lemming lives in the boreal taiga zone.",
            "conclusion": "The taiga vole lives in the boreal taiga zone.",
        },
    )
    (finding,) = alignment.findings
    assert (finding.where, finding.kind, finding.score, finding.symbols) == (
        "conclusion",
        "argument_order",
        0.6,
        ("LiveIn",),
    )
    assert "borealTaigaZone is LiveIn's second argument" in finding.message


def test_a_consistent_story_has_no_argument_order_finding() -> None:
    alignment = align(
        {"premises[0]": "LiveIn(taigaVole, borealTaigaZone)"},
        {"premises[0]": "The taiga vole lives in the boreal taiga zone."},
        story_fol=_VOLES,
    )
    assert alignment.findings == ()


def test_a_tie_is_flagged_only_where_the_sentence_reads_it_swapped() -> None:
    # the story has `tundra` second once, this formula has it first once: the sentence decides
    story = ["LiveIn(lemming, tundra)"]
    (swap,) = swapped_arguments(parse("LiveIn(tundra, vole)"), [parse(t) for t in story])
    assert swap.tie
    swapped = align({"f": "LiveIn(tundra, vole)"}, {"f": "The vole lives in the tundra."}, story)
    assert [(f.kind, f.score) for f in swapped.findings] == [
        ("argument_order", 0.6),
        ("argument_order", 0.5),
    ]
    # "the tundra is home to the vole" names the tundra first: no reason to doubt the order
    home = align({"f": "LiveIn(tundra, vole)"}, {"f": "The tundra is home to the vole."}, story)
    assert home.findings == ()
