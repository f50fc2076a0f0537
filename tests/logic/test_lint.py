"""Lint rules: each fires on its case and stays quiet on clean input."""

from __future__ import annotations

import subprocess
import sys

from refinery.logic.lint import lint
from refinery.logic.parse import parse


def kinds(*formulas: str, **kwargs: int) -> list[str]:
    fields = [(f"premises[{i}]", parse(f)) for i, f in enumerate(formulas)]
    return [i.kind for i in lint(fields, **kwargs)]  # type: ignore[arg-type]


def test_clean_story_has_no_issues() -> None:
    assert (
        kinds("∀x (Dog(x) → Animal(x))", "Dog(rex)", "Animal(rex)", nl_premises=3, fol_premises=3)
        == []
    )


def test_arity_conflict_names_both_arities_and_fields() -> None:
    issues = lint(
        [("premises[0]", parse("Attend(x1, school)")), ("conclusion", parse("Attend(bonnie)"))]
    )
    conflict = [i for i in issues if i.kind == "arity_conflict"]
    assert len(conflict) == 1 and conflict[0].severity == "error"
    assert "1 in conclusion" in conflict[0].message and "2 in premises[0]" in conflict[0].message


def test_free_variable() -> None:
    issues = lint([("conclusion", parse("SoldAt(x, nica'sMarket)"))])
    assert [(i.kind, i.where, i.span.column if i.span else None) for i in issues] == [
        ("free_variable", "conclusion", 8)
    ]


def test_free_variable_uses_names_bound_elsewhere_in_the_item() -> None:
    # `a` is not variable-like on its own, but it is bound in another formula of the item
    assert kinds("∀a (P(a))", "Q(a)") == ["free_variable"]
    assert kinds("Q(a)") == []  # a constant named a
    assert kinds("Born(y1984)") == []  # word-like names are constants


def test_name_used_as_predicate_and_constant_is_a_warning() -> None:
    issues = lint([("premises[0]", parse("Tall(bob) ∧ Likes(bob, Tall)"))])
    assert [(i.kind, i.severity) for i in issues] == [("name_clash", "warning")]


def test_predicate_applied_as_a_function() -> None:
    assert "predicate_as_function" in kinds("Good(bob)", "Likes(bob, Good(alice))")


def test_vacuous_quantifier_and_count_mismatch() -> None:
    assert kinds("∀x ∃y (P(x))", nl_premises=2, fol_premises=1) == [
        "vacuous_quantifier",
        "count_mismatch",
    ]


def test_errors_come_before_warnings() -> None:
    issues = lint([("premises[0]", parse("∀y (Tall(tall))")), ("conclusion", parse("P(x)"))])
    severities = [i.severity for i in issues]
    assert severities == sorted(severities)  # "error" < "warning"


def test_equal_formulas_from_different_texts_keep_their_own_spans() -> None:
    """Lint remembers each parsed formula's analysis; equal formulas (spans do not count in
    equality) parsed from different texts must still point at their own text."""
    near, far = parse("Likes(x)"), parse("      Likes(x)")
    assert near == far and near is not far
    spans = [lint([("conclusion", f)])[0].span for f in (near, far, near)]
    assert spans[0] is not None and spans[1] is not None
    assert spans[1].column == spans[0].column + 6
    assert spans[2] == spans[0]


def test_a_name_that_only_looks_like_another_is_an_error_a_name_in_one_script_is_not() -> None:
    formulas = [
        ("premises[0]", parse("Cat(tоm) ∧ Ｍammal(tom)")),  # Cyrillic о; fullwidth Ｍ
        ("conclusion", parse("Island(κρήτη) ∧ Café(tom)")),  # Greek alone; Latin with an accent
    ]
    found = [(i.kind, i.severity, i.message) for i in lint(formulas)]
    assert found == [
        (
            "lookalike_name",
            "error",
            "constant 'tоm' looks like 'tom' but is written with other characters "
            "(another script or a compatibility form)",
        ),
        (
            "lookalike_name",
            "error",
            "predicate 'Ｍammal' looks like 'Mammal' but is written with other characters "
            "(another script or a compatibility form)",
        ),
    ]


def test_an_accented_latin_name_is_read_without_loading_the_confusables_data() -> None:
    # the data costs a twentieth of a second to load; FOLIO's świątek and Hermès need none
    code = (
        "import sys\n"
        "from refinery.logic.lint import plain_name\n"
        "assert [plain_name(n) for n in ('świątek', 'Hermès')] == ['świątek', 'Hermès']\n"
        "print('confusable_homoglyphs.confusables' in sys.modules)\n"
        "assert plain_name('tоm') == 'tom'\n"  # Cyrillic о: mixed scripts, looked up
        "print('confusable_homoglyphs.confusables' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]
