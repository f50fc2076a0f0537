"""`unify_names` on hand-made findings.

Expected outputs are exact: the order of candidates is part of each rule's contract (the
refiner accepts the first candidate the gate passes).
"""

from __future__ import annotations

import pytest

from refinery.agents.models import ErrorClass
from refinery.agents.repairs import names

from repair_helpers import afters, findings


def test_case_variant_of_a_constant_is_rewritten_to_the_majority() -> None:
    f = findings(
        ["Wrestler(roderickstrong)", "Leads(roderickStrong, mine)", "Wrestler(roderickStrong)"]
    )
    (candidate,) = names.propose(f)
    assert afters([candidate]) == [[("premises[0]", "Wrestler(roderickStrong)")]]
    assert candidate[0].error_class is ErrorClass.NAMING_DRIFT
    assert candidate[0].source == "unify_names"


def test_plural_variant_counts_the_story() -> None:
    f = findings(
        [
            "∀x (Chaperone(x, highSchoolDances) → Adult(x))",
            "Chaperone(ann, highSchoolDance)",
            "Adult(ann)",
        ],
        story=("Attend(bob, highSchoolDance)",),
    )
    assert afters(names.propose(f)) == [
        [("premises[0]", "∀x (Chaperone(x, highSchoolDance) → Adult(x))")]
    ]


def test_one_candidate_rewrites_every_formula_of_the_item() -> None:
    f = findings(
        [
            "∀x (Studen(x) → Young(x))",
            "Studen(ann)",
            "Student(bob)",
            "Student(cid)",
            "Young(dan) ∨ Student(dan)",
        ]
    )
    assert afters(names.propose(f)) == [
        [("premises[0]", "∀x (Student(x) → Young(x))"), ("premises[1]", "Student(ann)")]
    ]


def test_names_inside_other_names_are_not_touched() -> None:
    f = findings(
        ["∀x (Student(x) → StudentAt(x, mit))", "Student(bob)", "Studen(ann)", "Young(ann)"]
    )
    assert afters(names.propose(f)) == [[("premises[2]", "Student(ann)")]]
    assert names.rename(
        "∀x (Student(x) → StudentAt(x, mit))", "predicate", 1, "Student", "Pupil"
    ) == ("∀x (Pupil(x) → StudentAt(x, mit))")


@pytest.mark.parametrize(
    ("fol", "expected"),
    [
        # a digit-number constant with a letter in front
        (
            ["Born(ann, y1984)", "Born(bob, 1984)", "Born(cid, 1984)", "Same(ann, bob)"],
            [[("premises[0]", "Born(ann, 1984)")]],
        ),
        # a tie: the case convention decides (predicates are capitalised)
        (["Happy(ann)", "happy(bob)"], [[("conclusion", "Happy(bob)")]]),
        # a tie both ways: where a spelling is used says nothing, so nothing is proposed
        (["Writtenby(a, b)", "WrittenBy(c, d)"], []),
    ],
)
def test_spelling_variants(fol: list[str], expected: list[list[tuple[str, str]]]) -> None:
    assert afters(names.propose(findings(fol))) == expected


@pytest.mark.parametrize(
    "fol",
    [
        # an index, not a typo
        ["In(towerA, newHaven)", "In(towerB, newHaven)", "In(towerA, manhattan)"],
        # same name, another arity: that is harmonize_arity's business
        ["Studen(ann)", "Student(ann, mit)", "Studen(bob)"],
        # a letter in front makes a new word
        ["∀x (IPhone(x) → Phone(x))", "IPhone(a)", "Phone(b)"],
        # numbers that differ in a digit are different numbers
        ["Built(a, year2010)", "Built(b, year2012)", "Built(c, year2012)"],
    ],
)
def test_distinct_names_are_left_alone(fol: list[str]) -> None:
    assert names.propose(findings(fol)) == []


def test_two_words_both_used_by_the_sentences_are_two_names() -> None:
    fol = ["∀x (Dessert(x) → ¬Desert(x))", "Dessert(a)", "Dessert(b)", "Desert(a)"]
    nl = {"premises[0]": "Desserts are not deserts.", "conclusion": "A is a desert."}
    assert names.propose(findings(fol, nl=nl)) == []
    assert names.propose(findings(fol)) != []  # without the sentences, one edit looks like a typo


def test_a_typo_of_a_typo_goes_back_to_the_closest_spelling() -> None:
    fol = [
        "P(stephencurRy)",
        "Q(stephencurry)",
        "R(stephencurry)",
        "S(stephenCurry)",
        "T(stephenCurry)",
        "U(stephenCurry)",
    ]
    assert afters(names.propose(findings(fol)))[0] == [("premises[0]", "P(stephencurry)")]


@pytest.mark.parametrize(
    "fol",
    [
        # one formula each: the slip may be either spelling (`USInventions` rewrote the right
        # `USInvention` elsewhere); singular and plural are both the sentence's word
        ["∃x (Satellite(x) ∧ ¬USInventions(x))", "∀x (Feat(x) ∧ USInvention(x))"],
        # the same for a constant's case, when the sentences do not say
        ["Ran(aNn, council)", "Elected(ann, council)"],
    ],
)
def test_a_tie_proposes_nothing(fol: list[str]) -> None:
    nl = {"premises[0]": "Some satellites are not U.S. inventions.", "conclusion": "All are."}
    assert names.propose(findings(fol, nl=nl)) == []


@pytest.mark.parametrize(
    ("fol", "sentence", "expected"),
    [
        # capitals fall on the English words' boundaries: "Ann" is `ann`, not `aNn` …
        (["Ran(aNn, council)", "Elected(ann, council)"], "Ann ran.", "Ran(ann, council)"),
        # … and "the 2013 final" is `year2013Final`
        (
            ["Won(celtic, year2013final)", "Won(rangers, year2013Final)"],
            "Celtic won the 2013 final.",
            "Won(celtic, year2013Final)",
        ),
    ],
)
def test_a_case_tie_is_decided_by_the_sentences(
    fol: list[str], sentence: str, expected: str
) -> None:
    f = findings(fol, nl={"premises[0]": sentence})
    assert afters(names.propose(f)) == [[("premises[0]", expected)]]


def test_a_name_in_an_arity_conflict_is_not_renamed_away() -> None:
    # renaming `Affect/2` to `Affects` would hide the conflict with `Affect/1`, not repair it
    fol = ["∀x (D(x) → Affects(x, f) ∨ Affects(x, m))", "∀x (Affect(x, f) → P(x))", "Affect(a)"]
    assert names.propose(findings(fol)) == []


def test_a_formula_spelling_a_name_both_ways_is_fixed_alone_first() -> None:
    # the slip is in the formula that spells `edSmith` both ways; `T(edsmith)` may be the
    # annotator's own (older) spelling: the smaller edit is tried first
    fol = ["R(edSmith) ∧ S(edsmith)", "T(edsmith)", "V(edSmith)", "W(edSmith)"]
    assert afters(names.propose(findings(fol))) == [
        [("premises[0]", "R(edSmith) ∧ S(edSmith)")],
        [("premises[0]", "R(edSmith) ∧ S(edSmith)"), ("premises[1]", "T(edSmith)")],
    ]
