"""Gate rules read from an edit alone: a parenthesis closed at the very end."""

from __future__ import annotations

from refinery.agents.models import Edit, ErrorClass
from refinery.repair.gate import WIDENS, widened


def _edit(before: str, after: str, source: str = "balance_parentheses") -> Edit:
    return Edit(
        where="premises[0]",
        before=before,
        after=after,
        error_class=ErrorClass.UNBALANCED_PARENTHESES,
        source=source,
    )


def test_a_parenthesis_closed_at_the_end_that_puts_a_rule_under_a_nested_exists_is_a_proposal() -> (
    None
):
    before = "∀x (Gamble(x) ∨ ∃y (Game(y) ∧ Bet(x, y) → AtRisk(x))"
    assert widened((_edit(before, before + ")"),)) == WIDENS


def test_the_leading_quantifiers_group_may_close_at_the_end() -> None:
    assert widened((_edit("∀x (P(x) → Q(x)", "∀x (P(x) → Q(x))"),)) is None


def test_a_parenthesis_placed_inside_is_not_held_back() -> None:
    before = "∀x (Gamble(x) ∨ ∃y (Game(y) ∧ Bet(x, y) → AtRisk(x))"
    inside = "∀x (Gamble(x) ∨ ∃y (Game(y) ∧ Bet(x, y)) → AtRisk(x))"
    assert widened((_edit(before, inside),)) is None
    # another rule's edit of the same shape is not a parenthesis repair
    assert widened((_edit(before, before + ")", source="fix_token_typos"),)) is None


def test_a_binder_on_a_variable_that_may_be_the_named_individual_is_a_proposal() -> None:
    from refinery.agents.models import ItemContext
    from refinery.repair.gate import BINDS_NAMED, binds_named

    before = "Japanese(koeitecmo) ∧ HoldingCompany(x)"
    named = ItemContext(
        "i",
        "s",
        {"premises[0]": before},
        {"premises[0]": "Koei Tecmo is a Japanese holding company."},
        None,
    )
    generic = ItemContext(
        "i",
        "s",
        {"premises[0]": before},
        {"premises[0]": "Some companies are Japanese holding companies."},
        None,
    )
    edit = _edit(before, f"∃x ({before})", source="close_free_variables")
    assert binds_named((edit,), named) == BINDS_NAMED
    assert binds_named((edit,), generic) is None  # the sentence quantifies: a binder may be right
    naming = _edit(
        before, "Japanese(koeitecmo) ∧ HoldingCompany(koeitecmo)", source="close_free_variables"
    )
    assert binds_named((naming,), named) is None
