"""Corruptions inject exactly one known error; equivalence is decided by the provers."""

from __future__ import annotations

import random

import pytest

from refinery.logic.parse import Parsed, try_parse
from refinery.prove.verdict import Budget, Status
from refinery.repair.faithfulness import (
    CORRUPTIONS,
    add_paren,
    change_arity,
    constant_case,
    corrupt,
    drop_paren,
    equivalent,
    free_variable,
    rename_predicate,
)  # fmt: skip
from vampire.registry import build_provers

from fakes import make_item

TEXT = "∀x (Member(x, club) ∧ Active(x) → Attend(x, meeting))"


def test_paren_corruptions_unbalance_the_formula() -> None:
    for fn in (drop_paren, add_paren):
        out = fn(TEXT, random.Random(3))
        assert out is not None and out.count("(") != out.count(")")
        assert abs(len(out) - len(TEXT)) == 1


def test_name_corruptions_change_exactly_one_occurrence() -> None:
    renamed = rename_predicate(TEXT, random.Random(0), names=["Attend"])
    assert renamed in {TEXT.replace("Attend", "Atten"), TEXT.replace("Attend", "Attends")}
    cased = constant_case(TEXT, random.Random(0), names=["meeting"])
    assert cased is not None and cased.lower() == TEXT.lower() and cased != TEXT


def test_arity_and_quantifier_corruptions() -> None:
    dropped = change_arity(TEXT, random.Random(0))
    assert dropped in {
        TEXT.replace("Member(x, club)", "Member(x)"),
        TEXT.replace("Attend(x, meeting)", "Attend(x)"),
    }
    freed = free_variable(TEXT, random.Random(0))
    assert freed == "(Member(x, club) ∧ Active(x) → Attend(x, meeting))"
    assert isinstance(try_parse(freed), Parsed)


def test_corrupt_makes_a_distinct_item_in_its_own_story() -> None:
    item = make_item(7, [TEXT, "Member(ann, club) ∧ Active(ann)"], "Attend(ann, meeting)", "True")
    for kind in CORRUPTIONS:
        result = corrupt(item, kind, random.Random(kind))
        assert result is not None, kind
        bad, where = result
        index = int(where[len("premises[") : -1])
        assert bad.premises_fol[index] != item.premises_fol[index]
        assert [t for i, t in enumerate(bad.premises_fol) if i != index] == [
            t for i, t in enumerate(item.premises_fol) if i != index
        ]
        assert bad.id == f"{item.id}~{kind}" and bad.story_id != item.story_id


@pytest.mark.prover
@pytest.mark.parametrize(
    ("a", "b", "status"),
    [
        ("P(a) → Q(a)", "¬P(a) ∨ Q(a)", Status.THEOREM),
        ("∀x (P(x) → Q(x))", "∀y (¬Q(y) → ¬P(y))", Status.THEOREM),
        ("P(a) → Q(a)", "Q(a) → P(a)", Status.COUNTER_SATISFIABLE),
        ("P(a)", "P(b)", Status.COUNTER_SATISFIABLE),
        ("P(a", "P(a)", None),
    ],
)
def test_equivalence_by_both_provers(a: str, b: str, status: Status | None) -> None:
    assert equivalent(a, b, build_provers(["z3", "eprover"]), Budget(seconds=5)) is status
