"""The cause of an item in review, and when the provers' label may be suggested."""

from __future__ import annotations

import pytest

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
        Reason.UNCONFIRMED_REPAIR, context, proposals=[("premises[0]", "unbalanced_parentheses")]
    )
    assert proposal.cause is Cause.SYNTAX


@pytest.mark.parametrize(
    ("proposals", "cause"),
    [
        # a formula that did not parse is a syntax defect, whatever else its repair needed
        ([("premises[4]", "unbalanced_parentheses"), ("premises[4]", "free_variable")], "syntax"),
        # the edit that reached the gold label, of a formula that parsed, says what blocks it
        (
            [("premises[1]", "unbalanced_parentheses"), ("premises[3]", "free_variable")],
            "structure",
        ),
        ([("premises[4]", "token_typo"), ("conclusion", "naming_drift")], "vocabulary"),
        ([("premises[2]", "wrong_quantifier")], "structure"),
    ],
)
def test_an_unconfirmed_repair_names_what_blocks_the_label(
    proposals: list[tuple[str, str]], cause: str
) -> None:
    context = _context([("A.", "A(a)")], ("B.", "B(a)"), Label.TRUE, Label.UNCERTAIN)
    assert blame(Reason.UNCONFIRMED_REPAIR, context, proposals=proposals).cause == cause
    assert blame(Reason.PROVER_UNDECIDED, context).cause is Cause.NONE


@pytest.mark.parametrize(
    ("premises", "orphan", "partner"),
    [
        # a predicate said with fewer words than the story's name for it
        (
            [
                (
                    "People who grow tomatoes in a garden are gardeners.",
                    "∀x (GrowIn(x, tomato, garden) → Gardener(x))",
                ),
                ("Ann grows tomatoes in her garden.", "Grow(ann, tomato, garden)"),
            ],
            "Grow",
            "GrowIn",
        ),
        # a constant written with its initials
        (
            [
                (
                    "Everyone born in the USA is American.",
                    "∀x (BornIn(x, unitedStatesOfAmerica) → American(x))",
                ),
                ("Ann was born in the USA.", "BornIn(ann, usa)"),
            ],
            "usa",
            "unitedStatesOfAmerica",
        ),
    ],
)
def test_a_premise_name_no_other_formula_uses_beside_a_name_for_the_same_words_is_vocabulary(
    premises: list[tuple[str, str]], orphan: str, partner: str
) -> None:
    conclusion = (
        ("Ann is a gardener.", "Gardener(ann)")
        if orphan == "Grow"
        else ("Ann is American.", "American(ann)")
    )
    found = blame(
        Reason.LABEL_MISMATCH, _context(premises, conclusion, Label.TRUE, Label.UNCERTAIN)
    )
    assert found.cause is Cause.VOCABULARY and not found.clean
    assert "is in no other formula" in found.evidence
    assert orphan in found.evidence and partner in found.evidence


def test_a_premise_name_of_other_words_is_no_orphan() -> None:
    # `Sing` is a notion of its own, not `GrowIn` said short: the failure to prove is knowledge
    context = _context(
        [
            (
                "People who grow tomatoes in a garden are gardeners.",
                "∀x (GrowIn(x, tomato, garden) → Gardener(x))",
            ),
            ("Ann sings in her garden.", "Sing(ann, tomato, garden)"),
        ],
        ("Ann is a gardener.", "Gardener(ann)"),
        Label.TRUE,
        Label.UNCERTAIN,
    )
    assert blame(Reason.LABEL_MISMATCH, context).cause is Cause.KNOWLEDGE


def test_a_conclusion_that_names_a_story_word_with_a_symbol_of_its_own_is_vocabulary() -> None:
    context = _context(
        [("All pets are fed.", "∀x (Pet(x) → Fed(x))"), ("Tom is a pet.", "Pet(tom)")],
        ("Tom is fed.", "Nourished(tom)"),
        Label.TRUE,
        Label.UNCERTAIN,
    )
    found = blame(Reason.LABEL_MISMATCH, context)
    assert (found.cause, found.clean) == (Cause.VOCABULARY, False)
    assert "Nourished, in no premise" in found.evidence


@pytest.mark.parametrize(
    ("repaired", "cause", "opening"),
    [
        # settled as written: nothing blocked the gold label but the misreading itself
        ((), "structure", "the provers settle the item, but "),
        # settled once a lost ")" was restored (train 1360's shape): the parse blocked it
        (
            [("premises[1]", "unbalanced_parentheses")],
            "syntax",
            "the repair (unbalanced parentheses) settles the item at its gold label, but ",
        ),
        (
            [("premises[1]", "free_variable"), ("conclusion", "naming_drift")],
            "vocabulary",
            "the repair (free variable, naming drift) settles the item at its gold label, but ",
        ),
    ],
)
def test_a_settled_item_that_misreads_a_sentence_blames_what_blocked_its_gold_label(
    repaired: list[tuple[str, str]], cause: str, opening: str
) -> None:
    context = _context(
        [("Tom is tall and rich.", "Tall(tom) ∨ Rich(tom)")],
        ("Tom is tall or rich.", "Tall(tom) ∨ Rich(tom)"),
        Label.TRUE,
        Label.TRUE,
    )
    found = blame(Reason.NL_MISMATCH, context, repaired=repaired)
    assert (found.cause, found.clean, found.surmised) == (cause, False, False)
    assert found.evidence == (
        opening + "premises[0]: and_as_or: the formula says ∨ but the sentence has no 'or'"
    )
