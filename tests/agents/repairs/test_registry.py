"""The rule table and the entry points over every rule: order, joint syntax repairs, purity, real FOLIO.

Expected outputs are exact: the order of candidates is part of each rule's contract (the
refiner accepts the first candidate the gate passes).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.repairs import (
    MAX_CANDIDATES,
    RULES,
    apply_candidate,
    parentheses,
    propose_repairs,
)
from refinery.logic.errors import SyntaxProblem
from refinery.logic.parse import try_parse

from repair_helpers import findings, folio_v2_fol


def test_propose_repairs_joins_formulas_that_need_different_syntax_rules() -> None:
    f = findings(["∀x (A(x) → B(x)", "P(a) v Q(a)", "A(a)"])
    proposals = propose_repairs(f)
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
    only = propose_repairs(f, classes={ErrorClass.TOKEN_TYPO})
    assert [name for name, _ in only] == ["fix_token_typos"]


def test_propose_repairs_follows_rule_order_and_drops_duplicates() -> None:
    f = findings(["Dog(x) → Animal(x)", "Dog(rex)", "animal(rex)"], story=("Animal(fido)",))
    names = [name for name, _ in propose_repairs(f)]
    assert names == ["close_free_variables"] * 3 + ["unify_names"]
    keys = [tuple((e.where, e.after) for e in c) for _, c in propose_repairs(f)]
    assert len(keys) == len(set(keys))


def test_rule_table() -> None:
    assert [(r.name, r.error_class) for r in RULES] == [
        ("balance_parentheses", ErrorClass.UNBALANCED_PARENTHESES),
        ("fix_token_typos", ErrorClass.TOKEN_TYPO),
        ("plain_names", ErrorClass.NAMING_DRIFT),
        ("harmonize_arity", ErrorClass.ARITY_CONFLICT),
        ("close_free_variables", ErrorClass.FREE_VARIABLE),
        ("unify_names", ErrorClass.NAMING_DRIFT),
        ("both_or_neither_iff", ErrorClass.WRONG_CONNECTIVE),
        ("split_compound", ErrorClass.NAMING_DRIFT),
        ("retype_name", ErrorClass.NAMING_DRIFT),
        ("resplit_name", ErrorClass.NAMING_DRIFT),
        # meaning rules: proposed only from an alignment finding
        ("unify_near_names", ErrorClass.NAMING_DRIFT),
        ("fix_negation", ErrorClass.WRONG_NEGATION),
        ("switch_quantifier", ErrorClass.WRONG_QUANTIFIER),
        ("switch_connective", ErrorClass.WRONG_CONNECTIVE),
        ("flip_implication", ErrorClass.WRONG_CONNECTIVE),
        ("swap_arguments", ErrorClass.ARGUMENT_ORDER),
        ("restore_conjunct", ErrorClass.NL_MISMATCH),
        ("mend_copied_conjunct", ErrorClass.NL_MISMATCH),
    ]
    # one module per rule, declaring its own tag
    modules = [sys.modules[r.propose.__module__] for r in RULES]
    assert len(set(modules)) == len(RULES)
    assert all(m.TAG.name == r.name for m, r in zip(modules, RULES, strict=True))
    assert all(m.__name__.startswith("refinery.agents.repairs.") for m in modules)


def test_apply_candidate() -> None:
    fol = {"premises[0]": "P(a", "conclusion": "Q(a)"}
    (candidate,) = parentheses.propose(findings(fol))
    assert apply_candidate(fol, candidate) == {"premises[0]": "P(a)", "conclusion": "Q(a)"}
    assert fol == {"premises[0]": "P(a", "conclusion": "Q(a)"}  # the input is not modified
    with pytest.raises(ValueError, match="premises\\[0\\]"):
        apply_candidate({"premises[0]": "P(b", "conclusion": "Q(a)"}, candidate)
    with pytest.raises(ValueError, match="no such formula"):
        apply_candidate({"conclusion": "Q(a)"}, candidate)


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
def test_rules_are_pure_and_deterministic(f: ItemContext) -> None:
    frozen = copy.deepcopy(f)
    for rule in RULES:
        first = rule.propose(f)
        assert rule.propose(f) == first
        assert rule.propose(copy.deepcopy(f)) == first
    assert f == frozen
    assert propose_repairs(f) == propose_repairs(frozen)


@pytest.mark.parametrize("f", BATTERY)
def test_every_after_parses_and_every_before_is_current(f: ItemContext) -> None:
    proposals = propose_repairs(f)
    assert proposals
    for name, candidate in proposals:
        assert candidate and len({e.where for e in candidate}) == len(candidate)
        for e in candidate:
            assert e.before == f.fol[e.where]
            assert not isinstance(try_parse(e.after), SyntaxProblem), (name, e.after)
            assert e.source in name
        apply_candidate(f.fol, candidate)
    for rule in RULES:
        assert len(rule.propose(f)) <= MAX_CANDIDATES


@pytest.mark.data
def test_real_items_get_only_well_formed_candidates(shared_data: Path) -> None:
    items = folio_v2_fol(shared_data)
    stories: dict[str, list[str]] = {}
    for key, fol in items:
        stories.setdefault(key, []).extend(fol.values())
    proposed = 0
    for key, fol in items:
        f = ItemContext("i", key, fol, {}, None, story_fol=tuple(dict.fromkeys(stories[key])))
        for _, candidate in propose_repairs(f):
            proposed += 1
            new = apply_candidate(fol, candidate)
            assert all(not isinstance(try_parse(new[e.where]), SyntaxProblem) for e in candidate)
    assert proposed > 500  # measured: 1015 over the 1204 rows
