"""The meaning-level repair rules on findings from the real alignment.

Each rule proposes an edit only where the alignment (`refinery.agents.alignment.align`) blames
a formula for saying something its sentence does not; the expected candidates are exact, in
order (the refiner tries them in order). Every rule also has a case where the formula reads its
sentence, so there is no finding and no candidate.
"""

from __future__ import annotations

import dataclasses

import pytest

from refinery.agents.alignment import BLAME, Finding, FindingKind, align
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.repairs import (
    MAX_CANDIDATES,
    MEANING_RULES,
    RULES,
    arguments,
    conjuncts,
    implication,
    near_names,
    negation,
    propose_repairs,
    quantifiers,
    switch_connective,
)
from refinery.agents.repairs.edits import RuleTag, rewrite_node
from refinery.agents.repairs.semantic import best, flagged, node_edits
from refinery.logic.parse import parse
from refinery.logic.rewrite import at, nodes, replace
from refinery.logic.syntax import Const, Not, Pred

from repair_helpers import afters, findings


def aligned(fol: list[str], sentences: list[str], *, story: tuple[str, ...] = ()) -> ItemContext:
    """ItemContext for premises + conclusion (the last of `fol`), with their sentences and the
    alignment's findings, as `item_context` builds them."""
    f = findings(fol, story=story)
    nl = {where: text for where, text in zip(f.fol, sentences, strict=True)}
    return dataclasses.replace(f, nl=nl, alignment=align(f.fol, nl, story).findings)


def kinds(f: ItemContext) -> list[tuple[str, str]]:
    return [(x.where, x.kind) for x in f.alignment]


# -- fix_negation ----------------------------------------------------------------------------


def test_a_dropped_not_is_restored_on_the_atom_the_cue_governs() -> None:
    f = aligned(["∀x (Cat(x) → Bark(x))", "Cat(tom)"], ["Cats do not bark.", "Tom is a cat."])
    assert kinds(f) == [("premises[0]", "negation_missing")]
    candidates = negation.propose(f)
    assert afters(candidates) == [
        [("premises[0]", "∀x (Cat(x) → ¬Bark(x))")],  # "not" governs "bark"
        [("premises[0]", "¬∀x (Cat(x) → Bark(x))")],  # the whole formula: a guess
    ]
    first, second = candidates[0][0], candidates[1][0]
    assert (first.guess, second.guess) == (False, True)
    assert first.source == "fix_negation" and first.error_class is ErrorClass.WRONG_NEGATION
    assert first.before == "∀x (Cat(x) → Bark(x))"
    assert first.rationale == f.alignment[0].message


def test_not_both_negates_the_conjunction_never_one_conjunct() -> None:
    sentence = "Colorectal cancer is not both a bile duct cancer and with a low survival rate."
    wrong = "BileDuctCancer(colorectalCancer) ∧ ComeWith(colorectalCancer, lowSurvivalRate)"
    f = aligned([wrong, "BileDuctCancer(colorectalCancer)"], [sentence, "It is one."])
    candidates = negation.propose(f)
    assert afters(candidates)[0] == [("premises[0]", f"¬({wrong})")]
    assert candidates[0][0].guess is False
    assert [
        ("premises[0]", f"¬BileDuctCancer(colorectalCancer) ∧ {wrong.split(' ∧ ')[1]}")
    ] not in (afters(candidates))


def test_a_not_both_of_a_condition_whose_words_no_name_says_negates_the_condition() -> None:
    # "a person who can resist …": no predicate names the words after the cue
    sentence = (
        "If Rob is not both a person who resists sweets and regretful, then Rob either paints "
        "or writes."
    )
    wrong = "Resist(rob, sweets) ∧ Regret(rob) → (Paint(rob) ⊕ Write(rob))"
    f = aligned([wrong, "Resist(rob, sweets)"], [sentence, "Rob resists sweets."])
    candidates = negation.propose(f)
    fixed = "¬(Resist(rob, sweets) ∧ Regret(rob)) → (Paint(rob) ⊕ Write(rob))"
    assert afters(candidates)[0] == [("premises[0]", fixed)]
    assert candidates[0][0].guess is False


def test_the_restored_not_keeps_the_annotators_notation() -> None:
    for text, fixed in [
        ("forall x (Cat(x) -> Bark(x))", "forall x (Cat(x) -> ¬Bark(x))"),
        ("∀x(Cat(x)→Bark(x))", "∀x(Cat(x)→¬Bark(x))"),
    ]:
        f = aligned([text, "Cat(tom)"], ["Cats do not bark.", "Tom is a cat."])
        assert afters(negation.propose(f))[0] == [("premises[0]", fixed)]


def test_a_cue_that_names_no_atom_only_gives_guesses() -> None:
    # "never take to the air": no predicate of the formula is a word after the cue
    f = aligned(
        ["∀x (Penguin(x) → Fly(x))", "Penguin(pingu)"],
        ["Penguins never take to the air.", "Pingu is a penguin."],
    )
    candidates = negation.propose(f)
    assert afters(candidates) == [
        [("premises[0]", "∀x (Penguin(x) → ¬Fly(x))")],
        [("premises[0]", "¬∀x (Penguin(x) → Fly(x))")],
    ]
    assert all(c[0].guess for c in candidates)


def test_a_negation_the_sentence_never_says_is_dropped() -> None:
    f = aligned(["~Bark(tom)", "Cat(tom)"], ["Tom barks.", "Tom is a cat."])
    assert kinds(f) == [("premises[0]", "negation_extra")]
    (candidate,) = negation.propose(f)
    assert afters([candidate]) == [[("premises[0]", "Bark(tom)")]]
    assert candidate[0].guess is False


def test_a_not_before_each_part_of_an_and_goes_onto_each_part() -> None:
    # train 1214: "does not contribute … and does not serve" is ¬C ∧ ¬S, never ¬(C ∧ S)
    f = aligned(
        ["Taxpayer(james)", "¬(ContributeTo(james, country) ∧ ServesIn(james, army))"],
        [
            "James pays taxes.",
            "James does not contribute to the country and does not serve in the army.",
        ],
    )
    assert kinds(f) == [("conclusion", "negation_missing")]
    (candidate,) = negation.propose(f)
    assert afters([candidate]) == [
        [("conclusion", "¬ContributeTo(james, country) ∧ ¬ServesIn(james, army)")]
    ]


def test_neither_nor_written_as_a_denied_xor_becomes_a_denied_or() -> None:
    # train 1357-1360: "neither a Linux system nor a piece of software" as ¬(L ⊕ S), which
    # holds of both as well; the atom-by-atom rewrites (¬(¬L ⊕ S)) misread it another way
    f = aligned(
        ["Popular(burger)", "UsedIn(pytorch, lab) ∧ ¬(Linux(pytorch) ⊕ Software(pytorch))"],
        ["Burger is popular.", "PyTorch is used in the lab, and is neither Linux nor software."],
    )
    assert ("conclusion", "negation_missing") in kinds(f)
    assert afters(negation.propose(f)) == [
        [("conclusion", "UsedIn(pytorch, lab) ∧ ¬(Linux(pytorch) ∨ Software(pytorch))")]
    ]


@pytest.mark.parametrize(
    ("fol", "sentence"),
    [
        ("∀x (Cat(x) → ¬Bark(x))", "Cats do not bark."),
        ("Bark(tom)", "Tom barks."),
        ("∀x (Bird(x) → ¬Fly(x))", "No bird can fly."),
    ],
)
def test_fix_negation_leaves_a_formula_that_reads_its_sentence_alone(
    fol: str, sentence: str
) -> None:
    f = aligned([fol, "Cat(tom)"], [sentence, "Tom is a cat."])
    assert f.alignment == ()
    assert negation.propose(f) == []


# -- switch_quantifier -----------------------------------------------------------------------


def test_no_bird_can_fly_written_not_all_becomes_none() -> None:
    for text in ("¬∀x (Bird(x) → Fly(x))", "¬(∀x (Bird(x) → Fly(x)))"):
        f = aligned([text, "Bird(tweety)"], ["No bird can fly.", "Tweety is a bird."])
        assert kinds(f) == [("premises[0]", "quantifier")]
        candidates = quantifiers.propose(f)
        assert afters(candidates) == [[("premises[0]", "∀x (Bird(x) → ¬Fly(x))")]]
        assert candidates[0][0].source == "switch_quantifier"
        assert candidates[0][0].error_class is ErrorClass.WRONG_QUANTIFIER


def test_folio_notation_binds_a_quantifier_to_its_group_so_no_repair_is_needed() -> None:
    # FOLIO's `∃y (…) → B` is read as TPTP reads it, `(∃y (…)) → B` (`refinery.logic.scope`)
    rule = "∀x (∃y (Person(y) ∧ Enjoy(y, x)) → Attract(x, attention))"
    f = aligned(
        [rule, "Attract(film, attention)"],
        ["All things that some people enjoy attract attention.", "The film attracts attention."],
    )
    assert kinds(f) == []
    assert afters(quantifiers.propose(f)) == []


def test_an_exists_over_a_whole_rule_narrows_to_its_condition_and_the_rule_stays_a_rule() -> None:
    # `∃y ((…) → B)` written with ∃ over the whole rule; "all … some" is still a rule
    rule = "∀x ∃y ((Person(y) ∧ Enjoy(y, x)) → Attract(x, attention))"
    f = aligned(
        [rule, "Attract(film, attention)"],
        ["All things that some people enjoy attract attention.", "The film attracts attention."],
    )
    assert kinds(f) == [("premises[0]", "quantifier")]
    candidates = afters(quantifiers.propose(f))
    # the annotator's text kept, its group now followed by the →: read narrow
    assert candidates[0] == [
        ("premises[0]", "∀x (∃y ((Person(y) ∧ Enjoy(y, x))) → Attract(x, attention))")
    ]
    assert not any("→" not in after for c in candidates for _, after in c)


def test_exists_where_the_sentence_says_every_becomes_forall() -> None:
    f = aligned(
        ["∃x (Human(x) → Mortal(x))", "Human(socrates)"],
        ["Every human is mortal.", "Socrates is a human."],
    )
    assert afters(quantifiers.propose(f)) == [[("premises[0]", "∀x (Human(x) → Mortal(x))")]]


def test_exists_where_the_sentence_states_a_general_fact() -> None:
    # no "some": a rule, and only a rule
    f = aligned(
        ["∃x (Human(x) → Mortal(x))", "Human(socrates)"],
        ["Humans are mortal.", "Socrates is a human."],
    )
    assert afters(quantifiers.propose(f)) == [[("premises[0]", "∀x (Human(x) → Mortal(x))")]]
    # "some" may mean either: the rule first, "some humans are mortal" (∃ with ∧) second
    f = aligned(
        ["∃x (Human(x) → Mortal(x))", "Human(socrates)"],
        ["Some humans are mortal.", "Socrates is a human."],
    )
    assert afters(quantifiers.propose(f)) == [
        [("premises[0]", "∀x (Human(x) → Mortal(x))")],
        [("premises[0]", "∃x (Human(x) ∧ Mortal(x))")],
    ]
    # "if something …" is a rule even with its ∃: never ∃ with ∧
    f = aligned(
        ["∃y (Leg(y) ∧ Have(rex, y) → Jump(rex))", "Have(rex, leg1)"],
        ["If something has a leg, it jumps.", "Rex has a leg."],
    )
    assert all("∧ Jump" not in after for c in afters(quantifiers.propose(f)) for _, after in c)


@pytest.mark.parametrize(
    ("fol", "sentence"),
    [
        ("∀x (Bird(x) → ¬Fly(x))", "No bird can fly."),
        ("∃x (Dog(x) ∧ Bark(x))", "Some dogs bark."),
        ("∀x (Dog(x) → Mammal(x))", "All dogs are mammals."),
    ],
)
def test_switch_quantifier_leaves_the_right_quantifier_alone(fol: str, sentence: str) -> None:
    f = aligned([fol, "Dog(rex)"], [sentence, "Rex is a dog."])
    assert f.alignment == ()
    assert quantifiers.propose(f) == []


# -- switch_connective -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fol", "sentence", "fixed"),
    [
        # an "and" list written with ∨ (either spelling of the ∨)
        ("Tall(ann) ∨ Rich(ann)", "Ann is tall and rich.", "Tall(ann) ∧ Rich(ann)"),
        ("Tall(ann) | Rich(ann)", "Ann is tall and rich.", "Tall(ann) ∧ Rich(ann)"),
        # "either … or", "but not both": exclusive
        ("Sing(ann) ∨ Dance(ann)", "Ann either sings or dances.", "Sing(ann) ⊕ Dance(ann)"),
        (
            "Sing(ann) ∨ Dance(ann)",
            "Ann either sings or dances, but not both.",
            "Sing(ann) ⊕ Dance(ann)",
        ),
        # "or both": inclusive
        ("Sing(ann) ⊕ Dance(ann)", "Ann sings or dances, or both.", "Sing(ann) ∨ Dance(ann)"),
        # an "or" written with ∧
        ("Sing(ann) ∧ Dance(ann)", "Ann sings or dances.", "Sing(ann) ∨ Dance(ann)"),
    ],
)
def test_the_connective_the_sentence_asks_for(fol: str, sentence: str, fixed: str) -> None:
    f = aligned([fol, "Tall(ann)"], [sentence, "Ann is tall."])
    candidates = switch_connective.propose(f)
    assert afters(candidates) == [[("premises[0]", fixed)]]
    assert candidates[0][0].source == "switch_connective"
    assert candidates[0][0].error_class is ErrorClass.WRONG_CONNECTIVE


@pytest.mark.parametrize(
    ("fol", "sentence"),
    [
        ("Tall(ann) ∧ Rich(ann)", "Ann is tall and rich."),
        ("Sing(ann) ⊕ Dance(ann)", "Ann either sings or dances, but not both."),
        ("Sing(ann) ∨ Dance(ann)", "Ann sings or dances, or both."),
    ],
)
def test_switch_connective_leaves_the_right_connective_alone(fol: str, sentence: str) -> None:
    f = aligned([fol, "Tall(ann)"], [sentence, "Ann is tall."])
    assert f.alignment == ()
    assert switch_connective.propose(f) == []


# -- flip_implication ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fol", "sentence", "fixed"),
    [
        ("∀x (Win(x) → Train(x))", "If a runner trains, she wins.", "∀x (Train(x) → Win(x))"),
        ("∀x (Win(x) → Train(x))", "A runner wins if she trains.", "∀x (Train(x) → Win(x))"),
        (
            "forall x (Win(x) -> Train(x))",
            "If a runner trains, she wins.",
            "forall x (Train(x) -> Win(x))",
        ),
    ],
)
def test_a_reversed_rule_is_turned_round(fol: str, sentence: str, fixed: str) -> None:
    f = aligned([fol, "Train(ann)"], [sentence, "Ann trains."])
    assert kinds(f) == [("premises[0]", "implication_reversed")]
    candidates = implication.propose(f)
    assert afters(candidates) == [[("premises[0]", fixed)]]
    assert candidates[0][0].source == "flip_implication"


@pytest.mark.parametrize(
    ("fol", "expected"),
    [
        ("∀x (Train(x) → Win(x))", [[("premises[0]", "∀x (Win(x) → Train(x))")]]),  # reversed
        ("∀x (Win(x) → Train(x))", []),  # "A only if B" is A → B: nothing to flip
    ],
)
def test_only_if_is_read_as_a_necessary_condition(
    fol: str, expected: list[list[tuple[str, str]]]
) -> None:
    f = aligned([fol, "Train(ann)"], ["A runner wins only if she trains.", "Ann trains."])
    assert afters(implication.propose(f)) == expected


def test_a_rule_written_as_a_conjunction_becomes_a_rule() -> None:
    f = aligned(["∀x (Dog(x) ∧ Bark(x))", "Dog(rex)"], ["All dogs bark.", "Rex is a dog."])
    assert kinds(f) == [("premises[0]", "implication_missing")]
    assert afters(implication.propose(f)) == [[("premises[0]", "∀x (Dog(x) → Bark(x))")]]


def test_flip_implication_leaves_a_rule_the_right_way_round_alone() -> None:
    f = aligned(
        ["∀x (Train(x) → Win(x))", "Train(ann)"], ["If a runner trains, she wins.", "Ann trains."]
    )
    assert f.alignment == ()
    assert implication.propose(f) == []


# -- swap_arguments --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fol", "fixed"),
    [
        ("Leads(diamondMine, roderickStrong)", "Leads(roderickStrong, diamondMine)"),
        ("Leads( diamondMine,roderickStrong )", "Leads( roderickStrong,diamondMine )"),
    ],
)
def test_swapped_arguments_are_put_in_the_sentences_order(fol: str, fixed: str) -> None:
    f = aligned(
        [fol, "Wrestler(roderickStrong)"],
        ["Roderick Strong leads Diamond Mine.", "Roderick Strong is a wrestler."],
    )
    assert kinds(f) == [("premises[0]", "argument_order")]
    candidates = arguments.propose(f)
    assert afters(candidates) == [[("premises[0]", fixed)]]
    assert candidates[0][0].error_class is ErrorClass.ARGUMENT_ORDER


@pytest.mark.parametrize(
    ("fol", "sentence"),
    [
        ("Leads(roderickStrong, diamondMine)", "Roderick Strong leads Diamond Mine."),
        ("Leads(diamondMine, roderickStrong)", "Diamond Mine is led by Roderick Strong."),
    ],
)
def test_swap_arguments_leaves_the_sentences_order_alone(fol: str, sentence: str) -> None:
    f = aligned([fol, "Wrestler(roderickStrong)"], [sentence, "Roderick Strong is a wrestler."])
    assert arguments.propose(f) == []


# -- restore_conjunct ------------------------------------------------------------------------


RETRIEVERS = ["All retrievers are loyal and friendly.", "Max is a retriever.", "Max is friendly."]


@pytest.mark.parametrize(
    ("sentence", "fixed"),
    [
        (RETRIEVERS[0], "∀x (Retriever(x) → Loyal(x) ∧ Friendly(x))"),
        ("All retrievers are friendly and loyal.", "∀x (Retriever(x) → Friendly(x) ∧ Loyal(x))"),
        ("All retrievers are loyal or friendly.", "∀x (Retriever(x) → Loyal(x) ∨ Friendly(x))"),
    ],
)
def test_a_dropped_list_word_is_put_back_beside_its_neighbour(sentence: str, fixed: str) -> None:
    f = aligned(
        ["∀x (Retriever(x) → Loyal(x))", "Retriever(max)", "Friendly(max)"],
        [sentence, *RETRIEVERS[1:]],
    )
    assert kinds(f) == [("premises[0]", "word_unsymbolised")]
    candidates = conjuncts.propose(f)
    assert afters(candidates) == [[("premises[0]", fixed)]]
    assert candidates[0][0].source == "restore_conjunct"
    assert candidates[0][0].error_class is ErrorClass.NL_MISMATCH


@pytest.mark.parametrize(
    "fol",
    [
        # the story has no Friendly: nothing to restore
        ["∀x (Retriever(x) → Loyal(x))", "Retriever(max)", "Loyal(max)"],
        # nothing dropped
        ["∀x (Retriever(x) → Loyal(x) ∧ Friendly(x))", "Retriever(max)", "Friendly(max)"],
        # a two-place Friendly: which argument it takes is a guess (and the finding is weak)
        ["∀x (Retriever(x) → Loyal(x))", "Retriever(max)", "Friendly(max, bob)"],
    ],
)
def test_restore_conjunct_proposes_nothing_without_a_one_place_dropped_word(
    fol: list[str],
) -> None:
    f = aligned(fol, RETRIEVERS)
    assert ("premises[0]", "word_unsymbolised") not in kinds(f) or all(
        x.score < BLAME for x in f.alignment
    )
    assert conjuncts.propose(f) == []


# -- unify_near_names ------------------------------------------------------------------------


NOVELS = ["Novels are books.", "Dune is a novel.", "Dune is a book."]


def test_a_near_duplicate_name_is_unified_both_ways_on_a_tie() -> None:
    f = aligned(["∀x (Novel(x) → Book(x))", "IsNovel(dune)", "Book(dune)"], NOVELS)
    assert {x.kind for x in f.alignment} == {"name_drift"}
    candidates = near_names.propose(f)
    assert afters(candidates) == [
        [("premises[1]", "Novel(dune)")],
        [("premises[0]", "∀x (IsNovel(x) → Book(x))")],
    ]
    assert candidates[0][0].source == "unify_near_names"
    assert candidates[0][0].error_class is ErrorClass.NAMING_DRIFT


def test_the_majority_spelling_wins() -> None:
    f = aligned(
        ["∀x (Novel(x) → Book(x))", "Novel(emma)", "IsNovel(dune)", "Book(dune)"],
        ["Novels are books.", "Emma is a novel.", "Dune is a novel.", "Dune is a book."],
    )
    assert afters(near_names.propose(f)) == [[("premises[2]", "Novel(dune)")]]


def test_a_conclusion_that_drifts_from_its_premises_is_renamed_first() -> None:
    f = aligned(["∀x (Novel(x) → Book(x))", "Novel(dune)", "IsNovel(dune)"], NOVELS)
    assert afters(near_names.propose(f)) == [
        [("conclusion", "Novel(dune)")],
        [("premises[0]", "∀x (IsNovel(x) → Book(x))"), ("premises[1]", "IsNovel(dune)")],
    ]


def test_unify_near_names_needs_a_blaming_drift() -> None:
    # one spelling: no drift
    f = aligned(["∀x (Novel(x) → Book(x))", "Novel(dune)", "Book(dune)"], NOVELS)
    assert f.alignment == () and near_names.propose(f) == []
    # the other spelling only in another item of the story: a weak finding, below BLAME
    f = aligned(
        ["∀x (Novel(x) → Book(x))", "Novel(dune)", "Book(dune)"],
        NOVELS,
        story=("IsNovel(emma)",),
    )
    assert {x.kind for x in f.alignment} == {"name_drift"}
    assert all(x.score < BLAME for x in f.alignment)
    assert near_names.propose(f) == []


# -- what the meaning rules share ------------------------------------------------------------


def _negation_finding(score: float, where: str = "premises[0]") -> Finding:
    return Finding(
        FindingKind.NEGATION_MISSING, score, ("not",), (), "a hand-made finding", where=where
    )


def test_only_findings_at_or_above_blame_are_acted_on() -> None:
    base = findings(["∀x (Cat(x) → Bark(x))", "Cat(tom)"])
    nl = {"premises[0]": "Cats do not bark."}
    weak = dataclasses.replace(base, nl=nl, alignment=(_negation_finding(BLAME - 0.01),))
    strong = dataclasses.replace(base, nl=nl, alignment=(_negation_finding(BLAME),))
    assert list(flagged(weak, "negation_missing")) == []
    assert [(x.score, t) for x, t, _ in flagged(strong, "negation_missing")] == [
        (BLAME, "∀x (Cat(x) → Bark(x))")
    ]
    assert negation.propose(weak) == []
    assert afters(negation.propose(strong))[0] == [("premises[0]", "∀x (Cat(x) → ¬Bark(x))")]
    # a finding of another kind is not this rule's
    assert list(flagged(strong, "negation_extra")) == []


def test_a_finding_on_a_formula_that_does_not_parse_is_skipped() -> None:
    base = findings(["∀x (Cat(x) → Bark(x)", "Cat(tom)"])
    f = dataclasses.replace(
        base, nl={"premises[0]": "Cats do not bark."}, alignment=(_negation_finding(0.9),)
    )
    assert list(flagged(f, "negation_missing")) == []
    assert negation.propose(f) == []


def test_meaning_rules_propose_nothing_without_an_alignment() -> None:
    # the same misread formula, but no sentences: no finding, so no meaning candidate
    bare = findings(["¬∀x (Bird(x) → Fly(x))", "Tall(ann) ∨ Rich(ann)", "Bird(tweety)"])
    assert bare.alignment == ()
    assert [rule for rule, _ in propose_repairs(bare) if rule in MEANING_RULES] == []
    read = aligned(
        ["¬∀x (Bird(x) → Fly(x))", "Tall(ann) ∨ Rich(ann)", "Bird(tweety)"],
        ["No bird can fly.", "Ann is tall and rich.", "Tweety is a bird."],
    )
    assert [(rule, c[0].after) for rule, c in propose_repairs(read)] == [
        ("switch_quantifier", "∀x (Bird(x) → ¬Fly(x))"),
        ("switch_connective", "Tall(ann) ∧ Rich(ann)"),
    ]


def test_the_eight_meaning_rules() -> None:
    assert sorted(MEANING_RULES) == [
        "fix_negation",
        "flip_implication",
        "mend_copied_conjunct",
        "restore_conjunct",
        "swap_arguments",
        "switch_connective",
        "switch_quantifier",
        "unify_near_names",
    ]
    assert MEANING_RULES.issubset(r.name for r in RULES)
    # the form rules are not held to reading better
    assert {"balance_parentheses", "fix_token_typos", "unify_names"}.isdisjoint(MEANING_RULES)


TAG = RuleTag("test_rule", ErrorClass.WRONG_NEGATION)


def test_node_edits_mark_guesses_and_drop_changes_that_change_nothing() -> None:
    text = "∀x (Cat(x) → Bark(x))"
    formula = parse(text)
    finding = _negation_finding(0.9)
    consequent = at(formula, (0, 1))
    changes = [
        ((0, 1), Not(consequent), [(13, 13, "¬")]),
        ((0, 1), consequent, []),  # the same node: no edit
    ]
    (candidate,) = node_edits(TAG, finding, text, formula, changes, guess=True)
    (edit,) = candidate
    assert (edit.after, edit.guess, edit.source) == ("∀x (Cat(x) → ¬Bark(x))", True, "test_rule")
    assert edit.rationale == "a hand-made finding"


def test_best_deduplicates_and_caps_the_candidates() -> None:
    text = "P(a)"
    formula = parse(text)
    finding = _negation_finding(0.9)
    names = [f"Q{i}" for i in range(MAX_CANDIDATES + 2)]
    changes = [((), Pred(n, (Const("a"),)), []) for n in names]
    candidates = node_edits(TAG, finding, text, formula, changes * 2)
    assert len(candidates) == 2 * len(names)
    kept = best(candidates)
    assert [c[0].after for c in kept] == [f"{n}(a)" for n in names[:MAX_CANDIDATES]]


def test_rewrite_node_keeps_the_rest_of_the_text_and_refuses_a_wrong_surgery() -> None:
    text = "∀x (Cat(x)→Bark(x))  "
    formula = parse(text)
    new = Not(at(formula, (0, 1)))
    # the surgery alone
    assert rewrite_node(text, formula, (0, 1), new, [(11, 11, "¬")]) == "∀x (Cat(x)→¬Bark(x))  "
    # a surgery that gives another formula falls back to reprinting only the node
    assert rewrite_node(text, formula, (0, 1), new, [(4, 4, "¬")]) == "∀x (Cat(x)→¬Bark(x))  "
    # a node without a source span and no surgery: nothing can be rewritten
    bare = Pred("Cat", (Const("tom"),))
    assert rewrite_node("Cat(tom)", bare, (), Not(bare)) is None


def test_replace_rebuilds_one_node_and_keeps_the_others() -> None:
    formula = parse("∀x (Cat(x) → (Bark(x) ∨ Meow(x)))")
    assert [p for p, _ in nodes(formula)] == [(), (0,), (0, 0), (0, 1), (0, 1, 0), (0, 1, 1)]
    purr = at(parse("∀x Purr(x)"), (0,))  # x bound, as in the formula
    swapped = replace(formula, (0, 1, 1), purr)
    assert swapped == parse("∀x (Cat(x) → (Bark(x) ∨ Purr(x)))")
    assert at(swapped, (0, 0)).span == at(formula, (0, 0)).span  # untouched nodes keep their span
    with pytest.raises(IndexError):
        replace(formula, (0, 0, 0), parse("P(x)"))


def test_a_copied_conjunct_is_written_as_the_term_that_lacks_it_and_marked_a_guess() -> None:
    read = aligned(
        ["∃y ∃z (Passenger(y) ∧ Passenger(z) ∧ Carry(bus, y) ∧ Carry(bus, y) ∧ ¬(y=z))"],
        ["The bus carries two passengers."],
    )
    proposed = [
        (c[0].after, c[0].guess) for r, c in propose_repairs(read) if r == "mend_copied_conjunct"
    ]
    assert proposed == [
        ("∃y ∃z (Passenger(y) ∧ Passenger(z) ∧ Carry(bus, y) ∧ Carry(bus, z) ∧ ¬(y=z))", True)
    ]


@pytest.mark.parametrize(
    "fol",
    [
        "Large(shafaq) ∧ Large(shafaq) ∧ In(shafaq, caspianSea)",  # no other subject
        "Carry(bus, y) ∧ Carry(bus, z)",  # nothing written twice
    ],
)
def test_no_copied_conjunct_is_mended_where_none_was_found(fol: str) -> None:
    read = aligned([fol], ["A sentence about it."])
    assert [r for r, _ in propose_repairs(read) if r == "mend_copied_conjunct"] == []
