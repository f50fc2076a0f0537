"""`balance_parentheses` on hand-made findings and on FOLIO v2's unbalanced formulas.

Expected outputs are exact: the order of candidates is part of each rule's contract (the
refiner accepts the first candidate the gate passes).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from refinery.agents.models import Edit, ErrorClass
from refinery.agents.repairs import MAX_CANDIDATES, parentheses, propose_repairs, typos
from refinery.logic.errors import SyntaxProblem
from refinery.logic.parse import try_parse

from repair_helpers import afters, findings, folio_v2_fol


def test_missing_closer_at_the_end_is_appended_with_a_complete_edit() -> None:
    f = findings(["∀x (Dog(x) → Animal(x)", "Dog(rex)", "Animal(rex)"])
    (candidate,) = parentheses.propose(f)
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
    assert afters(parentheses.propose(findings([text, "Q(b)"]))) == [
        [("premises[0]", after)] for after in expected
    ]


def test_a_glued_constant_is_split_using_the_items_vocabulary() -> None:
    f = findings(["Studentann) ∧ Young(bob)", "Student(ann)"])
    assert afters(parentheses.propose(f))[0] == [("premises[0]", "Student(ann) ∧ Young(bob)")]


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
    assert afters([c for _, c in propose_repairs(f)]) == [[("premises[0]", expected)]]


@pytest.mark.parametrize("text", ["¬CityInlyon, spain)", "ChessClubmarlow)"])
def test_a_glued_name_without_evidence_gets_no_candidate(text: str) -> None:
    # no guessed split, no deleted ',' or ')': each would turn the argument list into another
    # predicate's (`¬CityInlyon (spain)`) or the atom into a proposition
    f = findings([text, "Q(b)"], nl={"premises[0]": "It is not so."})
    assert propose_repairs(f) == []


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
    assert afters(parentheses.propose(findings([text, "Q(b)"])))[0] == [("premises[0]", expected)]


def test_two_broken_formulas_are_repaired_together_first() -> None:
    f = findings(["∀x (A(x) → B(x)", "C(a))", "A(a)"])
    assert afters(parentheses.propose(f)) == [
        [("premises[0]", "∀x (A(x) → B(x))"), ("premises[1]", "C(a)")],
        [("premises[0]", "∀x (A(x) → B(x))")],
        [("premises[1]", "C(a)")],
    ]


@pytest.mark.parametrize(
    "text",
    ["∀x (Dog(x) → Animal(x))", "∀x (Dog(x) → Animal(x)) Never: none", "P(a) v Q(a)"],
)
def test_no_parenthesis_candidates_without_a_parenthesis_problem(text: str) -> None:
    assert parentheses.propose(findings([text, "Q(b)"])) == []


def test_paren_repairs_is_capped() -> None:
    # a ')' after any operand closes the negation somewhere else: seven meanings, six kept
    text = "¬(A(a) ∧ B(a) ∧ C(a) → D(a) ∧ E(a) ∧ F(a) ∧ G(a)"
    fixes = [after for after, _ in parentheses.paren_repairs(text)]
    assert fixes[:2] == [text + ")", "¬(A(a) ∧ B(a) ∧ C(a) → D(a) ∧ E(a) ∧ F(a)) ∧ G(a)"]
    assert len(fixes) == MAX_CANDIDATES


@pytest.mark.data
def test_real_unbalanced_formulas_are_made_parseable(shared_data: Path) -> None:
    texts = dict.fromkeys(t for _, fol in folio_v2_fol(shared_data) for t in fol.values())
    unbalanced = [
        t
        for t in texts
        if isinstance(p := try_parse(t), SyntaxProblem) and p.kind == "unbalanced_parentheses"
    ]
    fixed = [t for t in unbalanced if parentheses.propose(findings({"conclusion": t}))]
    # measured: 88 of the 89 (the last one also has a `v` for ∨: fix_token_typos repairs it)
    assert len(unbalanced) >= 85
    assert len(fixed) >= 85
    rest = [t for t in unbalanced if t not in fixed]
    assert all(typos.propose(findings({"conclusion": t})) for t in rest)
