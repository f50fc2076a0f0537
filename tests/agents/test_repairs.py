"""The rule-based repair backend: each rule on hand-made findings, the entry points, real FOLIO.

Expected outputs are exact: the order of candidates is part of each rule's contract (the
refiner accepts the first candidate the gate passes).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from refinery.agents import repairs as R
from refinery.agents.models import Edit, ErrorClass, Findings
from refinery.logic.errors import SyntaxProblem
from refinery.logic.parse import try_parse


def findings(
    fol: list[str] | dict[str, str],
    *,
    nl: dict[str, str] | None = None,
    story: tuple[str, ...] = (),
) -> Findings:
    """Findings for an item; a list is premises then the conclusion."""
    if isinstance(fol, list):
        fol = {**{f"premises[{i}]": t for i, t in enumerate(fol[:-1])}, "conclusion": fol[-1]}
    return Findings("item", "story", dict(fol), nl or {}, None, story_fol=story)


def afters(candidates: list[R.Candidate]) -> list[list[tuple[str, str]]]:
    return [[(e.where, e.after) for e in c] for c in candidates]


# -- balance_parentheses ----------------------------------------------------------------------


def test_missing_closer_at_the_end_is_appended_with_a_complete_edit() -> None:
    f = findings(["∀x (Dog(x) → Animal(x)", "Dog(rex)", "Animal(rex)"])
    (candidate,) = R.balance_parentheses(f)
    assert candidate == (
        Edit(
            where="premises[0]",
            before="∀x (Dog(x) → Animal(x)",
            after="∀x (Dog(x) → Animal(x))",
            error_class=ErrorClass.UNBALANCED_PARENTHESES,
            source="balance_parentheses",
            rationale="insert ')' at column 23",
        ),
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an argument list left open: close it where the parser stopped
        ("P(a ∧ Q(b)", ["P(a) ∧ Q(b)"]),
        # a missing inner closer: the end is likelier, but only one meaning survives dedup
        ("∀x (Student(x) → (Young(x) ∨ Old(x))", ["∀x (Student(x) → (Young(x) ∨ Old(x)))"]),
        # an extra ')': open a group at the start, or delete it (∨ and ∧ left to precedence:
        # FOLIO groups them)
        ("P(a) ∨ Q(b)) ∧ R(c)", ["(P(a) ∨ Q(b)) ∧ R(c)", "P(a) ∨ Q(b) ∧ R(c)"]),
        # a lost '(' after a leading ¬ is FOLIO's ¬(… ∧ …) idiom …
        ("¬Tall(ann) ∧ Rich(ann))", ["¬(Tall(ann) ∧ Rich(ann))", "¬Tall(ann) ∧ Rich(ann)"]),
        # … but not when the group would hold another ¬: then the ')' is the stray one
        ("¬Tall(ann) ∧ ¬Rich(ann))", ["¬Tall(ann) ∧ ¬Rich(ann)", "¬(Tall(ann) ∧ ¬Rich(ann))"]),
        # a lost argument-list '(' glues predicate and variable: split them (deleting the ')'
        # would make `Studentx` a proposition, which FOLIO never has)
        ("∀x (Studentx) → Young(x))", ["∀x (Student(x) → Young(x))"]),
        # balanced counts, misplaced: one ')' too early and one missing at the end
        ("A(a)) → ¬(B(a) ∧ C(a)", ["A(a) → ¬(B(a) ∧ C(a))", "A(a) → ¬B(a) ∧ C(a)"]),
    ],
)
def test_parenthesis_candidates_in_order(text: str, expected: list[str]) -> None:
    assert afters(R.balance_parentheses(findings([text, "Q(b)"]))) == [
        [("premises[0]", after)] for after in expected
    ]


def test_a_glued_constant_is_split_using_the_items_vocabulary() -> None:
    f = findings(["Studentann) ∧ Young(bob)", "Student(ann)"])
    assert afters(R.balance_parentheses(f))[0] == [("premises[0]", "Student(ann) ∧ Young(bob)")]


# Regressions from the faithfulness benchmark (`benchmarks/bench_faithfulness.py`): each case
# below was a false approval — an accepted repair that was not the original formula.


@pytest.mark.parametrize(
    ("text", "sentence", "expected"),
    [
        # a name running into ',' outside any argument list is a predicate glued to its first
        # argument; the sentence's words say where: `CityIn` + `lyon`, not a new unary predicate
        ("¬CityInlyon, spain)", "Lyon is not a city in Spain.", "¬CityIn(lyon, spain)"),
        # the constant's words run together ("Bob's party" → `bobsparty`) and beat `Ofbob|sparty`
        ("GuestOfbobsparty, ann)", "Ann is a guest of Bob's party.", "GuestOf(bobsparty, ann)"),
        # glued to a ')': deleting it would make `ChessClubmarlow` a proposition
        ("ChessClubmarlow)", "Marlow is a chess club.", "ChessClub(marlow)"),
    ],
)
def test_a_glued_name_is_split_where_the_sentence_says(
    text: str, sentence: str, expected: str
) -> None:
    f = findings([text, "Q(b)"], nl={"premises[0]": sentence})
    assert afters([c for _, c in R.propose_repairs(f)]) == [[("premises[0]", expected)]]


@pytest.mark.parametrize("text", ["¬CityInlyon, spain)", "ChessClubmarlow)"])
def test_a_glued_name_without_evidence_gets_no_candidate(text: str) -> None:
    # no guessed split, no deleted ',' or ')': each would turn the argument list into another
    # predicate's (`¬CityInlyon (spain)`) or the atom into a proposition
    f = findings([text, "Q(b)"], nl={"premises[0]": "It is not so."})
    assert R.propose_repairs(f) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # FOLIO writes a≠b as ¬(a=b): that is the group that lost its ')', not the whole rest
        ("¬(a=b ∧ ¬(a=c) ∧ ¬(b=c)", "¬(a=b) ∧ ¬(a=c) ∧ ¬(b=c)"),
        ("¬((a=b) ∧ ¬(a=c) ∧ ¬(b=c)", "¬(a=b) ∧ ¬(a=c) ∧ ¬(b=c)"),
        # deleting the last ')' would leave `Deep(x)` outside its quantifier's parentheses
        ("∀x (Lake(x) → Big(x)) ⊕ Deep(x))", "∀x (Lake(x) → Big(x) ⊕ Deep(x))"),
        # deleting the last ')' would chain ∧ and ⊕ unparenthesised: the '(' was lost
        ("Tv(m) ∧ In(m, lab) ⊕ Has(m, port))", "Tv(m) ∧ (In(m, lab) ⊕ Has(m, port))"),
        # a rule inside ¬(…) is not FOLIO's ¬(A ∧ B): the last ')' is the stray one
        ("¬(P(a) ∧ Q(a)) → R(a))", "¬(P(a) ∧ Q(a)) → R(a)"),
        # a '(' lost inside a group: it pairs with the ')' that closed the group too early
        ("∀x ∃y (W(x) → B(x, y) ∨ S(x, y)) ∧ W(y))", "∀x ∃y (W(x) → (B(x, y) ∨ S(x, y)) ∧ W(y))"),
    ],
)
def test_the_likeliest_parenthesis_repair_comes_first(text: str, expected: str) -> None:
    assert afters(R.balance_parentheses(findings([text, "Q(b)"])))[0] == [("premises[0]", expected)]


def test_two_broken_formulas_are_repaired_together_first() -> None:
    f = findings(["∀x (A(x) → B(x)", "C(a))", "A(a)"])
    assert afters(R.balance_parentheses(f)) == [
        [("premises[0]", "∀x (A(x) → B(x))"), ("premises[1]", "C(a)")],
        [("premises[0]", "∀x (A(x) → B(x))")],
        [("premises[1]", "C(a)")],
    ]


@pytest.mark.parametrize(
    "text",
    ["∀x (Dog(x) → Animal(x))", "∀x (Dog(x) → Animal(x)) Never: none", "P(a) v Q(a)"],
)
def test_no_parenthesis_candidates_without_a_parenthesis_problem(text: str) -> None:
    assert R.balance_parentheses(findings([text, "Q(b)"])) == []


def test_paren_repairs_is_capped() -> None:
    # a ')' after any operand closes the negation somewhere else: seven meanings, six kept
    text = "¬(A(a) ∧ B(a) ∧ C(a) → D(a) ∧ E(a) ∧ F(a) ∧ G(a)"
    fixes = [after for after, _ in R.paren_repairs(text)]
    assert fixes[:2] == [text + ")", "¬(A(a) ∧ B(a) ∧ C(a) → D(a) ∧ E(a) ∧ F(a)) ∧ G(a)"]
    assert len(fixes) == R.MAX_CANDIDATES


# -- fix_token_typos --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("P(a) v (Q(a))", ["P(a) ∨ (Q(a))"]),
        ("∀x (Athlete(x) → ¬Lazy(x)) Never: does not exist a time", ["∀x (Athlete(x) → ¬Lazy(x))"]),
        ("P(a) → → Q(a)", ["P(a) → Q(a)"]),
        ("∃x (Song(x) ∧ By(x, boneym,))", ["∃x (Song(x) ∧ By(x, boneym))"]),
        ("P(a) ∧ Q(b)#", ["P(a) ∧ Q(b)"]),
        ("∃(CarBody(x) ∧ Made(x, colli))", ["∃x (CarBody(x) ∧ Made(x, colli))"]),
        # `m` sits next to ',' on the keyboard: `xm bolt` meant `x, bolt`
        (
            "∀x (Man(x) → ¬Faster(xm bolt))",
            ["∀x (Man(x) → ¬Faster(x, bolt))", "∀x (Man(x) → ¬Faster(xm, bolt))"],
        ),
        # a typo and a parenthesis error in one formula: both fixed in one edit
        ("((P(a) v (Q(a))", ["((P(a) ∨ Q(a)))"]),
    ],
)
def test_token_typos(text: str, expected: list[str]) -> None:
    candidates = R.fix_token_typos(findings([text, "Q(b)"]))
    assert afters(candidates) == [[("premises[0]", after)] for after in expected]
    assert all(e.error_class is ErrorClass.TOKEN_TYPO for c in candidates for e in c)


def test_free_text_with_formula_symbols_is_not_dropped() -> None:
    # the tail holds a formula: dropping it would lose content, not a comment
    assert R.fix_token_typos(findings(["P(a)) → Q(a)", "Q(b)"])) == []


# -- unify_names ------------------------------------------------------------------------------


def test_case_variant_of_a_constant_is_rewritten_to_the_majority() -> None:
    f = findings(
        ["Wrestler(roderickstrong)", "Leads(roderickStrong, mine)", "Wrestler(roderickStrong)"]
    )
    (candidate,) = R.unify_names(f)
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
    assert afters(R.unify_names(f)) == [
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
    assert afters(R.unify_names(f)) == [
        [("premises[0]", "∀x (Student(x) → Young(x))"), ("premises[1]", "Student(ann)")]
    ]


def test_names_inside_other_names_are_not_touched() -> None:
    f = findings(
        ["∀x (Student(x) → StudentAt(x, mit))", "Student(bob)", "Studen(ann)", "Young(ann)"]
    )
    assert afters(R.unify_names(f)) == [[("premises[2]", "Student(ann)")]]
    assert R.rename("∀x (Student(x) → StudentAt(x, mit))", "predicate", 1, "Student", "Pupil") == (
        "∀x (Pupil(x) → StudentAt(x, mit))"
    )


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
    assert afters(R.unify_names(findings(fol))) == expected


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
    assert R.unify_names(findings(fol)) == []


def test_two_words_both_used_by_the_sentences_are_two_names() -> None:
    fol = ["∀x (Dessert(x) → ¬Desert(x))", "Dessert(a)", "Dessert(b)", "Desert(a)"]
    nl = {"premises[0]": "Desserts are not deserts.", "conclusion": "A is a desert."}
    assert R.unify_names(findings(fol, nl=nl)) == []
    assert R.unify_names(findings(fol)) != []  # without the sentences, one edit looks like a typo


def test_a_typo_of_a_typo_goes_back_to_the_closest_spelling() -> None:
    fol = [
        "P(stephencurRy)",
        "Q(stephencurry)",
        "R(stephencurry)",
        "S(stephenCurry)",
        "T(stephenCurry)",
        "U(stephenCurry)",
    ]
    assert afters(R.unify_names(findings(fol)))[0] == [("premises[0]", "P(stephencurry)")]


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
    assert R.unify_names(findings(fol, nl=nl)) == []


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
    assert afters(R.unify_names(f)) == [[("premises[0]", expected)]]


def test_a_name_in_an_arity_conflict_is_not_renamed_away() -> None:
    # renaming `Affect/2` to `Affects` would hide the conflict with `Affect/1`, not repair it
    fol = ["∀x (D(x) → Affects(x, f) ∨ Affects(x, m))", "∀x (Affect(x, f) → P(x))", "Affect(a)"]
    assert R.unify_names(findings(fol)) == []


def test_a_formula_spelling_a_name_both_ways_is_fixed_alone_first() -> None:
    # the slip is in the formula that spells `edSmith` both ways; `T(edsmith)` may be the
    # annotator's own (older) spelling: the smaller edit is tried first
    fol = ["R(edSmith) ∧ S(edsmith)", "T(edsmith)", "V(edSmith)", "W(edSmith)"]
    assert afters(R.unify_names(findings(fol))) == [
        [("premises[0]", "R(edSmith) ∧ S(edSmith)")],
        [("premises[0]", "R(edSmith) ∧ S(edSmith)"), ("premises[1]", "T(edSmith)")],
    ]


# -- harmonize_arity --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fol", "expected"),
    [
        # the majority always has `coffee` second: append it
        (
            ["∀x (Drinks(x, coffee) → Awake(x))", "Drinks(ann)", "Drinks(bob, coffee)"],
            [[("premises[1]", "Drinks(ann, coffee)")]],
        ),
        # one constant too many: drop the last one first
        (
            ["∀x (Student(x) → Young(x))", "Student(ann, school)", "Student(bob)"],
            [[("premises[1]", "Student(ann)")], [("premises[1]", "Student(school)")]],
        ),
        # a variable repeated in the atom
        (
            ["∀x (Student(x) → Young(x))", "∀x (Student(x, x) → Old(x))", "Student(bob)"],
            [[("premises[1]", "∀x (Student(x) → Old(x))")]],
        ),
    ],
)
def test_arity_repairs(fol: list[str], expected: list[list[tuple[str, str]]]) -> None:
    candidates = R.harmonize_arity(findings(fol))
    assert afters(candidates) == expected
    assert all(e.error_class is ErrorClass.ARITY_CONFLICT for c in candidates for e in c)


@pytest.mark.parametrize(
    ("fol", "nl"),
    [
        # the constant every other use ends with is not in this formula's sentence
        (
            ["∃x (In(virus, x) ∧ Get(x))", "∀x (Get(x, flu) → Tired(x))", "¬Get(ann, flu)"],
            {"premises[0]": "When the virus is in a being, it may get the virus."},
        ),
        # the missing argument is not the last one every use has the same: nothing to append
        # (inserting `kruger` in front would shift `y` into the wrong slot)
        (["Proposed(kruger, cynicism) ∧ Proposed(y)", "∃x (Proposed(kruger, x))"], {}),
        # `paramount` stands where every other use has `columbia`: the arguments do not line up
        (["Produces(paramount)", "Produces(columbia, tintin)", "Produces(columbia, tintin)"], {}),
        # appending would repeat a conjunct the formula already has
        (["Member(hs) ∧ Member(hs, reichstag)", "Member(hs, reichstag) → Famous(hs)"], {}),
    ],
)
def test_an_argument_is_appended_only_when_unambiguous(fol: list[str], nl: dict[str, str]) -> None:
    assert R.harmonize_arity(findings(fol, nl=nl)) == []


def test_an_argument_is_appended_when_the_sentence_mentions_it() -> None:
    fol = ["∃x (In(virus, x) ∧ Get(x))", "∀x (Get(x, flu) → Tired(x))", "¬Get(ann, flu)"]
    f = findings(fol, nl={"premises[0]": "When the virus is in a being, it may get the flu."})
    assert afters(R.harmonize_arity(f)) == [[("premises[0]", "∃x (In(virus, x) ∧ Get(x, flu))")]]


@pytest.mark.parametrize(
    "fol",
    [
        ["P(a, b)", "P(a)"],  # no majority
        ["∀x (Likes(x, y) → Happy(x))", "Likes(ann)", "Likes(bob, cid)"],  # no fixed constant
        [
            "∀x (Student(x) → Young(x))",
            "∀x ∀y (Student(x, y) → Old(y))",
            "Student(bob)",
        ],  # a variable
    ],
)
def test_unjustified_arity_changes_are_not_proposed(fol: list[str]) -> None:
    assert R.harmonize_arity(findings(fol)) == []


# -- close_free_variables ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fol", "expected"),
    [
        # the formula is about robert, whom the item puts in that slot: name him first
        (
            ["Regret(robert, college)", "Regret(x, college) ∧ Sad(robert)"],
            [
                "Regret(robert, college) ∧ Sad(robert)",
                "∃x (Regret(x, college) ∧ Sad(robert))",
                "∀x (Regret(x, college) ∧ Sad(robert))",
            ],
        ),
        # a rule: ∀ first; the constant from elsewhere last
        (
            ["Dog(x) → Animal(x)", "Dog(rex)", "Animal(rex)"],
            ["∀x (Dog(x) → Animal(x))", "∃x (Dog(x) → Animal(x))", "Dog(rex) → Animal(rex)"],
        ),
        # a conjunction: ∃ first
        (
            ["Pet(x) ∧ Furry(x)", "Pet(rex)"],
            ["∃x (Pet(x) ∧ Furry(x))", "∀x (Pet(x) ∧ Furry(x))", "Pet(rex) ∧ Furry(rex)"],
        ),
        # inside another quantifier's scope: a lost nested ∃ before the group that uses it;
        # then among the leading quantifiers, in alphabetical place, ∃ first for a variable
        # used only in the conclusion's conjunction
        (
            ["∀x (Person(x) → (Knows(x, y) ∧ Friend(y)))", "Person(ann)"],
            [
                "∀x (Person(x) → ∃y (Knows(x, y) ∧ Friend(y)))",
                "∀x ∃y (Person(x) → (Knows(x, y) ∧ Friend(y)))",
                "∀x ∀y (Person(x) → (Knows(x, y) ∧ Friend(y)))",
            ],
        ),
    ],
)
def test_free_variable_candidates_in_order(fol: list[str], expected: list[str]) -> None:
    candidates = R.close_free_variables(findings(fol))
    where = "premises[0]" if "x" in fol[0] else "conclusion"
    assert afters(candidates) == [[(where, after)] for after in expected]
    assert all(e.error_class is ErrorClass.FREE_VARIABLE for c in candidates for e in c)


@pytest.mark.parametrize(
    ("text", "sentence", "expected"),
    [
        # a lost leading binder goes back among the leading quantifiers (alphabetically), not
        # before the condition's group, which would scope over the conclusion too
        (
            "∀y ((Rapper(x) ∧ Released(x, y)) → RapAlbum(y))",
            "Rappers release rap albums.",
            "∀x ∀y ((Rapper(x) ∧ Released(x, y)) → RapAlbum(y))",
        ),
        # a twin of an ∃-bound variable ("two distinct cities") is ∃ too
        (
            "∃y ∀z (¬(x=z) ∧ ¬(x=y) ∧ City(x) ∧ City(y) ∧ City(z) → Visit(x) ∧ Visit(y) ∧ ¬Visit(z))",
            "Ann has been to two cities.",
            "∃x ∃y ∀z (¬(x=z) ∧ ¬(x=y) ∧ City(x) ∧ City(y) ∧ City(z) → Visit(x) ∧ Visit(y) ∧ ¬Visit(z))",
        ),
        # a variable used only in a rule's conclusion's conjunction is ∃, in its place
        (
            "∀x (Contractor(x) → Site(y) ∧ Oversee(x, y))",
            "A contractor oversees a site.",
            "∀x ∃y (Contractor(x) → Site(y) ∧ Oversee(x, y))",
        ),
        # FOLIO's "no one": ¬∃x (…)
        (
            "¬(Job(x) ∧ Have(ann, x)) ∧ ¬Work(ann)",
            "Ann has no job and does not work.",
            "¬∃x (Job(x) ∧ Have(ann, x)) ∧ ¬Work(ann)",
        ),
    ],
)
def test_a_lost_binder_goes_back_where_folio_puts_it(
    text: str, sentence: str, expected: str
) -> None:
    f = findings([text, "Q(b)"], nl={"premises[0]": sentence})
    assert afters(R.close_free_variables(f))[0] == [("premises[0]", expected)]


@pytest.mark.parametrize(
    ("text", "sentence", "first"),
    [
        # "some" over a rule: ∃x (A → B) is as often a slip as ∀x (A → B) is meant — nothing
        ("Apply(x, visa) → Get(x, visa)", "Some of those who apply for a visa get it.", None),
        # "some" over a conjunction, "all" over a rule: the wording and the shape agree
        ("Day(x) ∧ Bad(x)", "Some days are bad.", "∃x (Day(x) ∧ Bad(x))"),
        ("Dog(x) → Animal(x)", "All dogs are animals.", "∀x (Dog(x) → Animal(x))"),
        # a conditional is universal even when it says "someone"
        ("Angry(x) → Yell(x)", "If someone is angry, they yell.", "∀x (Angry(x) → Yell(x))"),
        # a possibility is existential
        (
            "Occur(virus, x) ∧ Get(x, virus)",
            "When the virus occurs in a being, it may get it.",
            "∃x (Occur(virus, x) ∧ Get(x, virus))",
        ),
    ],
)
def test_the_sentence_says_which_quantifier(text: str, sentence: str, first: str | None) -> None:
    f = findings([text, "Q(b)"], nl={"premises[0]": sentence})
    candidates = afters(R.close_free_variables(f))
    assert (candidates[0] if candidates else None) == (
        None if first is None else [("premises[0]", first)]
    )


def test_free_variables_in_two_formulas_are_closed_together_first() -> None:
    candidates = R.close_free_variables(
        findings(["Dog(x) → Animal(x)", "Cat(y) → Animal(y)", "Animal(rex)"])
    )
    assert afters(candidates)[0] == [
        ("premises[0]", "∀x (Dog(x) → Animal(x))"),
        ("premises[1]", "∀y (Cat(y) → Animal(y))"),
    ]
    assert len(candidates) == R.MAX_CANDIDATES


def test_closed_formulas_get_no_candidates() -> None:
    assert R.close_free_variables(findings(["∀x (Dog(x) → Animal(x))", "Animal(rex)"])) == []


# -- propose_repairs and apply_candidate ------------------------------------------------------


def test_propose_repairs_joins_formulas_that_need_different_syntax_rules() -> None:
    f = findings(["∀x (A(x) → B(x)", "P(a) v Q(a)", "A(a)"])
    proposals = R.propose_repairs(f)
    assert [(name, [(e.where, e.after, e.source) for e in c]) for name, c in proposals] == [
        (
            "balance_parentheses+fix_token_typos",
            [
                ("premises[0]", "∀x (A(x) → B(x))", "balance_parentheses"),
                ("premises[1]", "P(a) ∨ Q(a)", "fix_token_typos"),
            ],
        ),
        ("balance_parentheses", [("premises[0]", "∀x (A(x) → B(x))", "balance_parentheses")]),
        ("fix_token_typos", [("premises[1]", "P(a) ∨ Q(a)", "fix_token_typos")]),
    ]
    only = R.propose_repairs(f, classes={ErrorClass.TOKEN_TYPO})
    assert [name for name, _ in only] == ["fix_token_typos"]


def test_propose_repairs_follows_rule_order_and_drops_duplicates() -> None:
    f = findings(["Dog(x) → Animal(x)", "Dog(rex)", "animal(rex)"], story=("Animal(fido)",))
    names = [name for name, _ in R.propose_repairs(f)]
    assert names == ["close_free_variables"] * 3 + ["unify_names"]
    keys = [tuple((e.where, e.after) for e in c) for _, c in R.propose_repairs(f)]
    assert len(keys) == len(set(keys))


def test_rule_table() -> None:
    assert [(r.name, r.error_class) for r in R.RULES] == [
        ("balance_parentheses", ErrorClass.UNBALANCED_PARENTHESES),
        ("fix_token_typos", ErrorClass.TOKEN_TYPO),
        ("harmonize_arity", ErrorClass.ARITY_CONFLICT),
        ("close_free_variables", ErrorClass.FREE_VARIABLE),
        ("unify_names", ErrorClass.NAMING_DRIFT),
        ("both_or_neither_iff", ErrorClass.WRONG_CONNECTIVE),
    ]
    assert all(r.propose.__name__ == r.name for r in R.RULES)


def test_apply_candidate() -> None:
    fol = {"premises[0]": "P(a", "conclusion": "Q(a)"}
    (candidate,) = R.balance_parentheses(findings(fol))
    assert R.apply_candidate(fol, candidate) == {"premises[0]": "P(a)", "conclusion": "Q(a)"}
    assert fol == {"premises[0]": "P(a", "conclusion": "Q(a)"}  # the input is not modified
    with pytest.raises(ValueError, match="premises\\[0\\]"):
        R.apply_candidate({"premises[0]": "P(b", "conclusion": "Q(a)"}, candidate)
    with pytest.raises(ValueError, match="no such formula"):
        R.apply_candidate({"conclusion": "Q(a)"}, candidate)


# -- properties over a battery of items -------------------------------------------------------

BATTERY = [
    findings(["∀x (Dog(x) → Animal(x)", "Dog(rex)", "Animal(rex)"]),
    findings(["P(a) ∨ Q(b)) ∧ R(c)", "¬Tall(ann) ∧ Rich(ann))", "Q(b)"]),
    findings(["((P(a) v (Q(a))", "∀x (Man(x) → ¬Faster(xm bolt))", "P(a) ∧ Q(b)#"]),
    findings(
        [
            "∀x (Studen(x) → Young(x))",
            "Student(bob)",
            "Drinks(ann)",
            "Drinks(bob, coffee)",
            "Drinks(cid, coffee)",
        ]
    ),
    findings(["Regret(x, college) ∧ Sad(robert)", "∀x (Person(x) → (Knows(x, y)))", "Likes(x, y)"]),
    findings(
        ["Wrestler(roderickstrong)", "Leads(roderickStrong, mine)"],
        story=("Wrestler(roderickStrong)",),
    ),
]


@pytest.mark.parametrize("f", BATTERY)
def test_rules_are_pure_and_deterministic(f: Findings) -> None:
    frozen = copy.deepcopy(f)
    for rule in R.RULES:
        first = rule.propose(f)
        assert rule.propose(f) == first
        assert rule.propose(copy.deepcopy(f)) == first
    assert f == frozen
    assert R.propose_repairs(f) == R.propose_repairs(frozen)


@pytest.mark.parametrize("f", BATTERY)
def test_every_after_parses_and_every_before_is_current(f: Findings) -> None:
    proposals = R.propose_repairs(f)
    assert proposals
    for name, candidate in proposals:
        assert candidate and len({e.where for e in candidate}) == len(candidate)
        for e in candidate:
            assert e.before == f.fol[e.where]
            assert not isinstance(try_parse(e.after), SyntaxProblem), (name, e.after)
            assert e.source in name
        R.apply_candidate(f.fol, candidate)
    for rule in R.RULES:
        assert len(rule.propose(f)) <= R.MAX_CANDIDATES


# -- real FOLIO v2 ----------------------------------------------------------------------------


def _folio_v2_items(shared_data: Path) -> list[tuple[str, dict[str, str]]]:
    """(story key, fol) for every FOLIO v2 train/validation row."""
    out = []
    for path in sorted((shared_data / "folio_v2" / "reconstructed").glob("folio_v2_*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            row = json.loads(line)
            premises = row["premises-FOL"].split("\n")
            fol = {f"premises[{i}]": t for i, t in enumerate(premises)}
            fol["conclusion"] = row["conclusion-FOL"]
            out.append((f"{path.name}/{row['story_id']}", fol))
    return out


@pytest.mark.data
def test_real_unbalanced_formulas_are_made_parseable(shared_data: Path) -> None:
    texts = dict.fromkeys(t for _, fol in _folio_v2_items(shared_data) for t in fol.values())
    unbalanced = [
        t
        for t in texts
        if isinstance(p := try_parse(t), SyntaxProblem) and p.kind == "unbalanced_parentheses"
    ]
    fixed = [t for t in unbalanced if R.balance_parentheses(findings({"conclusion": t}))]
    # measured: 88 of the 89 (the last one also has a `v` for ∨: fix_token_typos repairs it)
    assert len(unbalanced) >= 85
    assert len(fixed) >= 85
    rest = [t for t in unbalanced if t not in fixed]
    assert all(R.fix_token_typos(findings({"conclusion": t})) for t in rest)


@pytest.mark.data
def test_real_items_get_only_well_formed_candidates(shared_data: Path) -> None:
    items = _folio_v2_items(shared_data)
    stories: dict[str, list[str]] = {}
    for key, fol in items:
        stories.setdefault(key, []).extend(fol.values())
    proposed = 0
    for key, fol in items:
        f = Findings("i", key, fol, {}, None, story_fol=tuple(dict.fromkeys(stories[key])))
        for _, candidate in R.propose_repairs(f):
            proposed += 1
            new = R.apply_candidate(fol, candidate)
            assert all(not isinstance(try_parse(new[e.where]), SyntaxProblem) for e in candidate)
    assert proposed > 500  # measured: 1015 over the 1204 rows
