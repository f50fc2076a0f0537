"""The critique's rules backend: findings → diagnoses from the fixed taxonomy."""

from __future__ import annotations

from refinery.agents.alignment import FindingKind
from refinery.agents.critique import _CLASS_OF_KIND, deciding, item_context, rule_critique
from refinery.agents.models import ErrorClass
from refinery.check import Checker
from refinery.labels import Label
from refinery.prove.verdict import Budget
from vampire.registry import build_provers

from fakes import make_item


def _diagnose(*args: object, **kwargs: object) -> list[tuple[str, ErrorClass]]:
    item = make_item(*args, **kwargs)  # type: ignore[arg-type]
    (row,) = Checker(build_provers(["z3", "eprover"]), Budget()).check_story([item])
    return [(d.where, d.error_class) for d in rule_critique(item_context(item, row))]


def test_syntax_errors_map_to_classes() -> None:
    assert _diagnose(1, ["∀x (P(x) → Q(x)", "P(a)"], "Q(a)", "True") == [
        ("premises[0]", ErrorClass.UNBALANCED_PARENTHESES)
    ]
    assert _diagnose(1, ["P(a) # Q(a)"], "Q(a)", "True") == [("premises[0]", ErrorClass.TOKEN_TYPO)]


def test_lint_errors_map_to_classes() -> None:
    classes = [c for _, c in _diagnose(1, ["P(a, b)", "P(a)"], "P(a)", "True")]
    assert classes == [ErrorClass.ARITY_CONFLICT]
    assert _diagnose(1, ["P(a)"], "Q(x)", "True") == [("conclusion", ErrorClass.FREE_VARIABLE)]


def test_clean_fol_with_another_label_suspects_the_label_and_suggests_the_provers_label() -> None:
    item = make_item(1, ["P(a)"], "P(a)", "False")
    (row,) = Checker(build_provers(["z3"]), Budget()).check_story([item])
    (diagnosis,) = rule_critique(item_context(item, row))
    assert diagnosis.where == "label" and diagnosis.error_class is ErrorClass.LABEL_ERROR
    assert diagnosis.suggested_label is Label.TRUE


def test_naming_drift_evidence_is_reported_where_the_rule_found_it() -> None:
    item = make_item(1, ["P(a)"], "P(a)", "False")
    (row,) = Checker(build_provers(["z3"]), Budget()).check_story([item])
    classes = [
        d.error_class
        for d in rule_critique(item_context(item, row), drift_positions=["conclusion"])
    ]
    assert classes == [ErrorClass.NAMING_DRIFT]


def test_both_or_neither_with_xor_is_a_wrong_connective() -> None:
    item = make_item(
        1,
        ["Sing(sam) ⊕ Dance(sam)", "Sing(sam)"],
        "Dance(sam)",
        "True",
        premises=["Sam either both sings and dances, or neither sings nor dances.", "Sam sings."],
    )
    (row,) = Checker(build_provers(["z3"]), Budget()).check_story([item])
    assert [(d.where, d.error_class) for d in rule_critique(item_context(item, row))] == [
        ("premises[0]", ErrorClass.WRONG_CONNECTIVE)
    ]


def test_every_finding_kind_diagnoses_an_error_class() -> None:
    assert set(_CLASS_OF_KIND) == set(FindingKind)
    assert _CLASS_OF_KIND[FindingKind.QUANTIFIER] is ErrorClass.WRONG_QUANTIFIER
    assert _CLASS_OF_KIND[FindingKind.WORD_UNSYMBOLISED] is ErrorClass.NL_MISMATCH


def test_a_label_proved_from_no_premise_is_decided_by_the_conclusion_alone() -> None:
    # a tautology: every prover's core is empty, so no premise (and no misread premise) decides
    item = make_item(1, ["∀x (Cat(x) → Purr(x))", "Cat(tom)"], "Purr(tom) ∨ ¬Purr(tom)", "False")
    (row,) = Checker(build_provers(["z3", "eprover"]), Budget()).check_story([item])
    context = item_context(item, row)
    assert context.agreed is Label.TRUE and deciding(context) == ["conclusion"]
    # a proof that uses premises names them
    item = make_item(2, ["∀x (Cat(x) → Purr(x))", "Cat(tom)"], "Purr(tom)", "False")
    (row,) = Checker(build_provers(["z3", "eprover"]), Budget()).check_story([item])
    assert deciding(item_context(item, row)) == ["premises[0]", "premises[1]", "conclusion"]
