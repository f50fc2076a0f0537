"""The cause of an item in review, and when the provers' label may be suggested."""

from __future__ import annotations

from refinery.agents.alignment import align
from refinery.agents.models import ItemContext
from refinery.labels import Label
from refinery.outcomes import Cause, Reason
from refinery.repair.blame import blame


def _context(
    premises: list[tuple[str, str]], conclusion: tuple[str, str], gold: Label, agreed: Label
) -> ItemContext:
    fol = {f"premises[{i}]": f for i, (_, f) in enumerate(premises)}
    fol["conclusion"] = conclusion[1]
    nl = {f"premises[{i}]": s for i, (s, _) in enumerate(premises)}
    nl["conclusion"] = conclusion[0]
    return ItemContext(
        "d/s/1", "1", fol, nl, gold, agreed=agreed, alignment=align(fol, nl).findings
    )


def test_clean_fol_that_proves_another_label_blames_the_label() -> None:
    context = _context(
        [("All cats purr.", "∀x (Cat(x) → Purr(x))"), ("Tom is a cat.", "Cat(tom)")],
        ("Tom purrs.", "Purr(tom)"),
        Label.FALSE,
        Label.TRUE,
    )
    found = blame(Reason.LABEL_MISMATCH, context)
    assert (found.cause, found.clean) == (Cause.LABEL, True)
    assert "proves True" in found.evidence


def test_a_failure_to_prove_is_no_evidence_against_the_label() -> None:
    context = _context(
        [("All cats purr.", "∀x (Cat(x) → Purr(x))"), ("Tom is a cat.", "Cat(tom)")],
        ("Tom sleeps.", "Sleep(tom)"),
        Label.TRUE,
        Label.UNCERTAIN,
    )
    found = blame(Reason.LABEL_MISMATCH, context)
    assert (found.cause, found.clean) == (Cause.KNOWLEDGE, False)


def test_a_conclusion_name_no_premise_uses_but_one_writes_alike_is_vocabulary() -> None:
    context = _context(
        [("Minsk won against Belarus.", "WonAgainst(minsk, belarus)")],
        ("Minsk won a game.", "WonGame(minsk)"),
        Label.TRUE,
        Label.UNCERTAIN,
    )
    found = blame(Reason.LABEL_MISMATCH, context)
    assert (found.cause, found.clean) == (Cause.VOCABULARY, False)
    assert "WonGame" in found.evidence and "WonAgainst" in found.evidence


def test_a_conclusion_that_shares_no_symbol_was_never_checked() -> None:
    context = _context(
        [("All cats purr.", "∀x (Cat(x) → Purr(x))")],
        ("Rex barks.", "Bark(rex)"),
        Label.TRUE,
        Label.UNCERTAIN,
    )
    found = blame(Reason.LABEL_MISMATCH, context)
    assert (found.cause, found.clean) == (Cause.VOCABULARY, False)
    assert "nothing was checked" in found.evidence


def test_a_misread_deciding_formula_blames_the_structure() -> None:
    context = _context(
        [("No cat purrs.", "∀x (Cat(x) → Purr(x))"), ("Tom is a cat.", "Cat(tom)")],
        ("Tom purrs.", "Purr(tom)"),
        Label.FALSE,
        Label.TRUE,
    )
    found = blame(Reason.LABEL_MISMATCH, context)
    assert (found.cause, found.clean) == (Cause.STRUCTURE, False)


def test_causes_of_the_other_review_reasons() -> None:
    context = _context([("A.", "A(a)")], ("B.", "B(a)"), Label.TRUE, Label.UNCERTAIN)
    assert blame(Reason.UNPARSEABLE, context).cause is Cause.SYNTAX
    assert blame(Reason.LINT_ERROR, context, lint_kinds=["arity_conflict"]).cause is (
        Cause.VOCABULARY
    )
    assert blame(Reason.LINT_ERROR, context, lint_kinds=["free_variable"]).cause is (
        Cause.STRUCTURE
    )
    proposal = blame(
        Reason.UNCONFIRMED_REPAIR, context, proposal_classes=["unbalanced_parentheses"]
    )
    assert proposal.cause is Cause.SYNTAX
    assert blame(Reason.PROVER_UNDECIDED, context).cause is Cause.NONE
