"""A form rule's guess stays a proposal: a parenthesis closed at the very end, a binder where the
sentence may name the individual."""

from __future__ import annotations

from refinery.agents.models import Edit, ErrorClass, ItemContext
from refinery.agents.repairs import free_variables, parentheses
from refinery.repair.gate import GUESSED, STACKED, carried, stacked, unsettled


def _edit(before: str, after: str, source: str, *, guess: bool = False) -> Edit:
    return Edit(
        where="premises[0]",
        before=before,
        after=after,
        error_class=ErrorClass.UNBALANCED_PARENTHESES,
        source=source,
        guess=guess,
    )


def _proposed(fol: str, sentence: str, rule: object) -> dict[str, bool]:
    context = ItemContext(
        "i", "s", {"premises[0]": fol, "conclusion": "Q(b)"}, {"premises[0]": sentence}, None
    )
    return {e.after: e.guess for c in rule.propose(context) for e in c}  # type: ignore[attr-defined]


def test_a_parenthesis_closed_at_the_end_that_puts_a_rule_under_a_nested_exists_is_a_guess() -> (
    None
):
    before = "∀x (Gamble(x) ∨ ∃y (Game(y) ∧ Bet(x, y) → AtRisk(x))"
    assert parentheses.widens_over_the_rest(before, before + ")")
    proposed = _proposed(before, "People who gamble or bet are at risk.", parentheses)
    assert proposed.get(before + ")") is True
    assert not any(g for after, g in proposed.items() if after != before + ")")


def test_the_leading_quantifiers_group_may_close_at_the_end() -> None:
    assert not parentheses.widens_over_the_rest("∀x (P(x) → Q(x)", "∀x (P(x) → Q(x))")
    assert _proposed("∀x (P(x) → Q(x)", "All P are Q.", parentheses) == {"∀x (P(x) → Q(x))": False}


def test_a_binder_on_a_variable_that_may_be_the_named_individual_is_a_guess() -> None:
    before = "Japanese(koeitecmo) ∧ HoldingCompany(x)"
    named = _proposed(before, "Koei Tecmo is a Japanese holding company.", free_variables)
    assert named and all(named[a] for a in named if "∃" in a or "∀" in a)
    # the sentence quantifies: a binder may be right
    generic = _proposed(before, "Some companies are Japanese holding companies.", free_variables)
    assert generic and not any(generic.values())


def test_the_gate_leaves_any_rule_s_guess_a_proposal() -> None:
    guessed = _edit("P(a", "P(a)", "balance_parentheses", guess=True)
    assert unsettled("balance_parentheses", (guessed,), 0.0, 0.0) == GUESSED
    plain = _edit("P(a", "P(a)", "balance_parentheses")
    assert unsettled("balance_parentheses", (plain,), 0.0, 0.0) is None


def test_a_second_form_rule_on_an_edited_formula_stays_a_proposal() -> None:
    parenthesis = _edit(
        "¬(A(x) ∨ B(x)) ⊕ ¬C(jack))", "¬(A(x) ∨ B(x)) ⊕ ¬C(jack)", "balance_parentheses"
    )
    binder = _edit(parenthesis.after, "¬(A(jack) ∨ B(jack)) ⊕ ¬C(jack)", "close_free_variables")
    assert stacked([parenthesis], (binder,)) == f"premises[0]: {STACKED}"
    # another formula, or a first edit, is not stacked
    assert stacked([parenthesis.model_copy(update={"where": "conclusion"})], (binder,)) is None
    assert stacked([], (binder,)) is None


def test_a_guess_kept_as_progress_leaves_a_later_passing_candidate_a_proposal() -> None:
    guessed = _edit("S(x) ∧ E(car)", "∃x (S(x) ∧ E(car))", "close_free_variables", guess=True)
    later = _edit("∃x (P(x) → Q(x))", "∀x (P(x) → Q(x))", "switch_quantifier")
    later = later.model_copy(update={"where": "premises[1]"})
    assert carried([guessed], (later,)) == GUESSED
    assert carried([guessed.model_copy(update={"guess": False})], (later,)) is None
