"""Meaning-level repairs through the whole loop (`repair_item`), with real provers (Z3 and E).

A meaning edit is applied only when it reads its sentence better, answers a strong finding,
names the place the sentence means, changes the conclusion only where it plainly misreads its
sentence (and then no other passing edit may differ) and is the only edit of its meaning that
proves the gold label; otherwise it stays a proposal (`unconfirmed_repair`). A label
mismatch suggests another label only when the formulas that decide it read their sentences.
Every item runs with its story's formulas (`story_fol`), as `repair_batch` passes them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from refinery.agents.alignment import BLAME, ISSUE
from refinery.agents.critique import item_context, label_score, rule_critique
from refinery.check import Checker
from refinery.datasets import load_any
from refinery.datasets.records import Item
from refinery.outcomes import Outcome, Reason, Status
from refinery.prove.verdict import Budget
from refinery.repair import RepairConfig, repair_item
from vampire.registry import build_provers

from fakes import make_item

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "raw" / "sample" / "folio_sample.jsonl"
AMBIGUOUS = "ambiguous: another edit of different meaning also proves the gold label"


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker(build_provers(["z3", "eprover"]), Budget(seconds=5))


def _item(
    premises_fol: list[str],
    conclusion_fol: str,
    label: str,
    premises: list[str],
    conclusion: str,
) -> Item:
    item = make_item(1, premises_fol, conclusion_fol, label, premises=premises)
    return dataclasses.replace(item, conclusion=conclusion)


def _story(item: Item) -> tuple[str, ...]:
    return (*item.premises_fol, item.conclusion_fol or "")


def _run(checker: Checker, item: Item, story: tuple[str, ...] | None = None) -> Outcome:
    (row,) = checker.check_story([item])
    story_fol = _story(item) if story is None else story
    return repair_item(item, row, checker=checker, config=RepairConfig(), story_fol=story_fol)


def _candidates(out: Outcome) -> list[dict[str, object]]:
    return [c for r in out.audit["rounds"] for c in r["candidates"]]


def _changes(candidate: dict[str, object]) -> list[tuple[str, str]]:
    return [(e["where"], e["after"]) for e in candidate["edits"]]  # type: ignore[attr-defined]


# -- (a) a strong finding, one edit that proves the gold label: repaired ----------------------


@pytest.mark.parametrize(
    ("premises_fol", "conclusion_fol", "label", "premises", "conclusion", "rule", "fixed"),
    [
        (
            ["¬∀x (Bird(x) → Fly(x))", "Bird(tweety)"],
            "¬Fly(tweety)",
            "True",
            ["No bird can fly.", "Tweety is a bird."],
            "Tweety cannot fly.",
            "switch_quantifier",
            "∀x (Bird(x) → ¬Fly(x))",
        ),
        (
            ["∀x (Cat(x) → Bark(x))", "Cat(tom)"],
            "¬Bark(tom)",
            "True",
            ["Cats do not bark.", "Tom is a cat."],
            "Tom does not bark.",
            "fix_negation",
            "∀x (Cat(x) → ¬Bark(x))",
        ),
        (
            ["Tall(ann) ∨ Rich(ann)"],
            "Rich(ann)",
            "True",
            ["Ann is tall and rich."],
            "Ann is rich.",
            "switch_connective",
            "Tall(ann) ∧ Rich(ann)",
        ),
        (
            ["Sing(sam) ∨ Dance(sam)", "Sing(sam)"],
            "¬Dance(sam)",
            "True",
            ["Sam either sings or dances, but not both.", "Sam sings."],
            "Sam does not dance.",
            "switch_connective",
            "Sing(sam) ⊕ Dance(sam)",
        ),
        (
            ["∀x (Win(x) → Train(x))", "Train(ann)"],
            "Win(ann)",
            "True",
            ["If a runner trains, she wins.", "Ann trains."],
            "Ann wins.",
            "flip_implication",
            "∀x (Train(x) → Win(x))",
        ),
        (
            ["Leads(diamondMine, roderickStrong)", "∀x (Leads(x, diamondMine) → Wrestler(x))"],
            "Wrestler(roderickStrong)",
            "True",
            [
                "Roderick Strong leads Diamond Mine.",
                "Everyone who leads Diamond Mine is a wrestler.",
            ],
            "Roderick Strong is a wrestler.",
            "swap_arguments",
            "Leads(roderickStrong, diamondMine)",
        ),
        (
            ["∀x (Retriever(x) → Loyal(x))", "Retriever(max)"],
            "Friendly(max)",
            "True",
            ["All retrievers are loyal and friendly.", "Max is a retriever."],
            "Max is friendly.",
            "restore_conjunct",
            "∀x (Retriever(x) → Loyal(x) ∧ Friendly(x))",
        ),
    ],
)
def test_a_meaning_error_with_a_strong_finding_is_repaired(
    checker: Checker,
    premises_fol: list[str],
    conclusion_fol: str,
    label: str,
    premises: list[str],
    conclusion: str,
    rule: str,
    fixed: str,
) -> None:
    item = _item(premises_fol, conclusion_fol, label, premises, conclusion)
    out = _run(checker, item)
    assert (out.status, out.reason, out.check_category) == ("repaired", "", "label_mismatch")
    assert out.final_category == "verified" and out.repaired_by == rule
    (edit,) = out.edits
    assert (edit["where"], edit["before"], edit["after"]) == ("premises[0]", premises_fol[0], fixed)
    assert edit["source"] == rule and edit["guess"] is False
    assert out.refined_premises_fol == (fixed, *premises_fol[1:])
    assert out.label == out.original_label == label  # the label never changes
    assert out.proposed_premises_fol is None and out.proposed_edits == ()
    # the repaired FOL reads its sentences
    assert (out.nl_mismatch_score, out.findings) == (0.0, ())
    accepted = [c for c in _candidates(out) if c["accepted"]]
    assert [(c["source"], _changes(c)) for c in accepted] == [(rule, [("premises[0]", fixed)])]


def test_a_meaning_edit_that_reads_worse_is_not_even_re_checked(checker: Checker) -> None:
    # swap_arguments also proposes turning premises[1] round; that edit would prove the label
    # too, but "Everyone who leads Diamond Mine" reads Leads(x, diamondMine)
    item = _item(
        ["Leads(diamondMine, roderickStrong)", "∀x (Leads(x, diamondMine) → Wrestler(x))"],
        "Wrestler(roderickStrong)",
        "True",
        ["Roderick Strong leads Diamond Mine.", "Everyone who leads Diamond Mine is a wrestler."],
        "Roderick Strong is a wrestler.",
    )
    out = _run(checker, item)
    assert out.status == "repaired"
    worse = [c for c in _candidates(out) if _changes(c)[0][0] == "premises[1]"]
    assert [_changes(c) for c in worse] == [
        [("premises[1]", "∀x (Leads(diamondMine, x) → Wrestler(x))")]
    ]
    assert worse[0]["accepted"] is False and "category" not in worse[0]
    assert str(worse[0]["why"]).startswith("reads worse: premises[1] aligns 0.50")


def test_a_meaning_edit_that_reads_no_better_is_not_re_checked(checker: Checker) -> None:
    # each candidate turns one of the two ∨ into ∧: the formula still says "or" once
    item = _item(
        ["(Tall(ann) ∨ Rich(ann)) ∧ (Tall(bob) ∨ Rich(bob))"],
        "Rich(ann)",
        "True",
        ["Ann is tall and rich, and Bob is tall and rich."],
        "Ann is rich.",
    )
    out = _run(checker, item)
    candidates = _candidates(out)
    assert [c["source"] for c in candidates] == ["switch_connective"] * 2
    for c in candidates:
        assert c["accepted"] is False and "category" not in c
        assert c["why"] == "changes the meaning without reading any better against the sentences"
    assert (out.status, out.reason) == (Status.NEEDS_REVIEW, Reason.LABEL_MISMATCH)
    assert out.proposed_edits == () and out.suggested_label == ""


# -- (b) it proves the gold label, but the sentence does not settle it: a proposal -----------


@pytest.mark.parametrize(
    ("premises_fol", "conclusion_fol", "label", "premises", "conclusion", "change", "why"),
    [
        # argument order read from the sentence alone (no other Leads atom): a weak finding
        (
            ["Leads(diamondMine, roderickStrong)", "∀x ∀y (Leads(x, y) → Leader(x))"],
            "Leader(roderickStrong)",
            "True",
            ["Roderick Strong leads Diamond Mine.", "Everyone who leads something is a leader."],
            "Roderick Strong is a leader.",
            ("premises[0]", "Leads(roderickStrong, diamondMine)", "swap_arguments"),
            "changes the meaning on a weak finding: a proposal for review",
        ),
        # "never take to the air" names no atom: which part to negate is the rule's guess
        (
            ["∀x (Penguin(x) → Fly(x))", "Penguin(pingu)"],
            "¬Fly(pingu)",
            "True",
            ["Penguins never take to the air.", "Pingu is a penguin."],
            "Pingu cannot fly.",
            ("premises[0]", "∀x (Penguin(x) → ¬Fly(x))", "fix_negation"),
            "the rule could not tell which part the sentence means: a proposal for review",
        ),
        # the conclusion is what the label is about: changing it on a weak finding ("either
        # … or" read as ⊕, 0.55) may hide a wrong label
        (
            ["Tall(ann)", "Rich(ann)"],
            "Tall(ann) ∨ Rich(ann)",
            "False",
            ["Ann is tall.", "Ann is rich."],
            "Ann is either tall or rich.",
            ("conclusion", "Tall(ann) ⊕ Rich(ann)", "switch_connective"),
            "changes what the conclusion says: a proposal for review",
        ),
    ],
)
def test_an_unsettled_meaning_edit_stays_a_proposal(
    checker: Checker,
    premises_fol: list[str],
    conclusion_fol: str,
    label: str,
    premises: list[str],
    conclusion: str,
    change: tuple[str, str, str],
    why: str,
) -> None:
    item = _item(premises_fol, conclusion_fol, label, premises, conclusion)
    out = _run(checker, item)
    assert (out.status, out.reason) == (Status.NEEDS_REVIEW, Reason.UNCONFIRMED_REPAIR)
    # nothing applied: the refined FOL is the original, the edit is only proposed
    assert out.edits == () and out.repaired_by == ""
    assert out.refined_premises_fol == item.premises_fol
    assert out.refined_conclusion_fol == item.conclusion_fol
    where, after, rule = change
    assert [(e["where"], e["after"], e["source"]) for e in out.proposed_edits] == [change]
    proposed = {f"premises[{i}]": t for i, t in enumerate(out.proposed_premises_fol or ())}
    proposed["conclusion"] = out.proposed_conclusion_fol or ""
    assert proposed[where] == after
    assert out.final_category == "verified"  # it does prove the gold label
    (passing,) = [c for c in _candidates(out) if c.get("category") == "verified"]
    assert (passing["source"], passing["accepted"], passing["why"]) == (rule, False, why)
    assert out.audit["rounds"][-1]["unconfirmed"] is True
    assert out.suggested_label == ""  # the label is not what is in doubt


def test_a_passing_edit_whose_formula_still_misreads_its_sentence_stays_a_proposal(
    checker: Checker,
) -> None:
    # the parenthesis is the only error the rules see, but the balanced formula still says
    # cats bark where the sentence says they do not
    item = _item(
        ["∀x (Cat(x) → Bark(x)", "Cat(tom)"],
        "Bark(tom)",
        "True",
        ["Cats do not bark.", "Tom is a cat."],
        "Tom barks.",
    )
    out = _run(checker, item)
    assert (out.status, out.reason) == (Status.NEEDS_REVIEW, Reason.UNCONFIRMED_REPAIR)
    assert out.refined_premises_fol == item.premises_fol and out.edits == ()
    assert out.proposed_premises_fol == ("∀x (Cat(x) → Bark(x))", "Cat(tom)")
    (candidate,) = _candidates(out)
    assert (candidate["source"], candidate["category"], candidate["accepted"]) == (
        "balance_parentheses",
        "verified",
        False,
    )
    assert (
        candidate["why"] == "an edited formula still misreads its sentence: a proposal for review"
    )


def test_a_guess_that_proves_the_label_is_recorded_as_a_guess(checker: Checker) -> None:
    item = _item(
        ["∀x (Penguin(x) → Fly(x))", "Penguin(pingu)"],
        "¬Fly(pingu)",
        "True",
        ["Penguins never take to the air.", "Pingu is a penguin."],
        "Pingu cannot fly.",
    )
    out = _run(checker, item)
    assert [e["guess"] for e in out.proposed_edits] == [True]


# -- (c) two edits of different meaning both prove the gold label: the sentence must decide --


def test_of_two_passing_readings_the_one_that_reads_better_wins(checker: Checker) -> None:
    # "Cats do not bark": no cat barks (∀¬), or, the rule's fallback, not every cat barks (¬∀);
    # both give "some cat does not bark", but only the first is what the sentence says
    item = _item(
        ["∀x (Cat(x) → Bark(x))", "Cat(tom)"],
        "∃x (Cat(x) ∧ ¬Bark(x))",
        "True",
        ["Cats do not bark.", "Tom is a cat."],
        "Some cat does not bark.",
    )
    out = _run(checker, item)
    assert (out.status, out.repaired_by) == (Status.REPAIRED, "fix_negation")
    assert out.refined_premises_fol[0] == "∀x (Cat(x) → ¬Bark(x))"
    passing = [c for c in _candidates(out) if c.get("category") == "verified"]
    assert [(_changes(c), c["why"]) for c in passing if not c["accepted"]] == [
        ([("premises[0]", "¬∀x (Cat(x) → Bark(x))")], "also passes")
    ]


@pytest.mark.parametrize(
    ("premises_fol", "conclusion_fol", "premises", "conclusion", "first", "second"),
    [
        # two misread premises, each enough on its own
        (
            [
                "¬∀x (Bird(x) → Fly(x))",
                "¬∀x (Penguin(x) → Fly(x))",
                "Bird(tweety)",
                "Penguin(tweety)",
            ],
            "¬Fly(tweety)",
            [
                "No bird can fly.",
                "No penguin can fly.",
                "Tweety is a bird.",
                "Tweety is a penguin.",
            ],
            "Tweety cannot fly.",
            ("premises[0]", "∀x (Bird(x) → ¬Fly(x))"),
            ("premises[1]", "∀x (Penguin(x) → ¬Fly(x))"),
        ),
    ],
)
def test_two_meaning_edits_that_both_pass_are_ambiguous(
    checker: Checker,
    premises_fol: list[str],
    conclusion_fol: str,
    premises: list[str],
    conclusion: str,
    first: tuple[str, str],
    second: tuple[str, str],
) -> None:
    item = _item(premises_fol, conclusion_fol, "True", premises, conclusion)
    out = _run(checker, item)
    assert (out.status, out.reason) == (Status.NEEDS_REVIEW, Reason.UNCONFIRMED_REPAIR)
    assert out.edits == () and out.refined_premises_fol == item.premises_fol
    passing = [c for c in _candidates(out) if c.get("category") == "verified"]
    assert [_changes(c) for c in passing] == [[first], [second]]
    assert all(c["accepted"] is False and c["why"] == AMBIGUOUS for c in passing)
    # the first passing edit is the one put to the reviewer
    assert [(e["where"], e["after"]) for e in out.proposed_edits] == [first]
    assert out.audit["rounds"][-1]["unconfirmed"] is True


def test_an_edit_that_still_misreads_its_sentence_is_no_rival_to_one_that_reads(
    checker: Checker,
) -> None:
    # ∀x (Dog(x) ∧ Mammal(x)) also proves Mammal(rex), but says everything is a dog
    item = _item(
        ["∃x (Dog(x) ∧ Mammal(x))", "Dog(rex)"],
        "Mammal(rex)",
        "True",
        ["All dogs are mammals.", "Rex is a dog."],
        "Rex is a mammal.",
    )
    out = _run(checker, item)
    assert out.status == Status.REPAIRED
    assert out.refined_premises_fol[0] == "∀x (Dog(x) → Mammal(x))"
    passing = [c for c in _candidates(out) if c.get("category") == "verified"]
    assert [_changes(c) for c in passing if not c["accepted"]] == [
        [("premises[0]", "∀x (Dog(x) ∧ Mammal(x))")]
    ]


def test_a_conclusion_that_plainly_misreads_its_sentence_is_repaired(checker: Checker) -> None:
    # "and" written ∨ (0.80): the one reading the sentence asks for proves the gold label
    item = _item(
        ["Tall(ann)", "¬Rich(ann)"],
        "Tall(ann) ∨ Rich(ann)",
        "False",
        ["Ann is tall.", "Ann is not rich."],
        "Ann is tall and rich.",
    )
    out = _run(checker, item)
    assert (out.status, out.repaired_by) == (Status.REPAIRED, "switch_connective")
    assert out.refined_conclusion_fol == "Tall(ann) ∧ Rich(ann)"
    assert out.label == "False" and out.suggested_label == ""


def test_a_conclusion_edit_with_any_other_passing_meaning_is_ambiguous(checker: Checker) -> None:
    # "not directed by a filmmaker from Kirkland" lost its ¬: ¬Filmmaker(x) inside the ∃ reads
    # as well as the guessed ¬ around the whole ∃, and both prove the gold label — for the
    # conclusion, which decides the label, that is a rival however it ranks
    item = _item(
        ["Filmmaker(bob) ∧ From(bob, kirkland)", "∀x (DirectedBy(film, x) → x = ann)",
         "Filmmaker(ann) ∧ ¬From(ann, kirkland)"],
        "∃x (Filmmaker(x) ∧ From(x, kirkland) ∧ DirectedBy(film, x))",
        "True",
        ["Bob is a filmmaker from Kirkland.", "Film is directed by Ann alone.",
         "Ann is a filmmaker not from Kirkland."],
        "Film is not directed by a filmmaker from Kirkland.",
    )  # fmt: skip
    out = _run(checker, item)
    assert (out.status, out.reason) == (Status.NEEDS_REVIEW, Reason.UNCONFIRMED_REPAIR)
    assert out.edits == () and out.refined_conclusion_fol == item.conclusion_fol
    passing = [c for c in _candidates(out) if c.get("category") == "verified"]
    assert len(passing) >= 2 and all(c["why"] == AMBIGUOUS for c in passing)


def test_a_refuted_misreading_suggests_the_label_its_reading_proves(checker: Checker) -> None:
    # the ∨ misreads "and", but the ∧ the sentence asks for proves True, not the gold False:
    # the label is wrong either way, and the suggestion is what the right reading proves
    item = _item(
        ["Tall(ann) ∨ Rich(ann)"], "Tall(ann)", "False", ["Ann is tall and rich."], "Ann is tall."
    )
    out = _run(checker, item)
    assert (out.status, out.reason) == (Status.NEEDS_REVIEW, Reason.LABEL_MISMATCH)
    assert out.prover_label == "Uncertain"  # what the misread FOL proves
    # a rewrite of the misread formula proves another label, but that is no proof from the FOL
    # as written: no label is suggested. The rewrite reads right and proves True, so what
    # blocks the gold False is the label, said with the rewrite
    assert (out.suggested_label, out.is_label_issue, out.cause) == ("", False, "label")
    assert (
        "rewritten as the finding asks, Tall(ann) ∧ Rich(ann), the FOL proves True: the gold False is out of reach"
        in (out.cause_evidence)
    )


def test_readings_that_disagree_suggest_the_label_the_written_fol_proves_if_one_does(
    checker: Checker,
) -> None:
    # each ∨ misreads "and"; read right alone, the first proves True, the second leaves the
    # conclusion open (Uncertain, as the FOL as written does); neither proves the gold False
    item = _item(
        ["Tall(ann) ∨ Rich(ann)", "Rich(ann) ∨ Smart(ann)"],
        "Tall(ann)",
        "False",
        ["Ann is tall and rich.", "Ann is rich and smart."],
        "Ann is tall.",
    )
    out = _run(checker, item)
    assert (out.status, out.reason, out.prover_label) == (
        Status.NEEDS_REVIEW, Reason.LABEL_MISMATCH, "Uncertain"
    )  # fmt: skip
    proved = {str(c["label"]) for c in _candidates(out) if c.get("category") == "label_mismatch"}
    assert proved == {"True", "Uncertain"}
    # readings that disagree prove nothing about the label: no suggestion; but premises[0] read
    # right proves True whatever premises[1] says, so the gold False is what blocks
    assert (out.suggested_label, out.is_label_issue, out.cause) == ("", False, "label")


# -- (d) every deciding formula reads its sentence: the label is suspected ------------------


def test_a_wrong_label_on_well_read_fol_is_suggested(checker: Checker) -> None:
    item = _item(
        ["∀x (Dog(x) → Animal(x))", "Dog(rex)"],
        "Animal(rex)",
        "False",
        ["All dogs are animals.", "Rex is a dog."],
        "Rex is an animal.",
    )
    out = _run(checker, item)
    assert (out.status, out.reason) == (Status.NEEDS_REVIEW, Reason.LABEL_MISMATCH)
    assert (out.label, out.suggested_label) == ("False", "True")
    assert out.label_score < BLAME and out.is_label_issue
    assert out.critique.startswith("label: label_error")
    assert out.edits == () and out.proposed_edits == ()


def test_a_misread_formula_that_does_not_decide_the_label_does_not_block_the_suggestion(
    checker: Checker,
) -> None:
    # the cat premise misreads its sentence, but the proof of "True" does not use it
    item = _item(
        ["∀x (Dog(x) → Animal(x))", "Dog(rex)", "∀x (Cat(x) → Bark(x))"],
        "Animal(rex)",
        "False",
        ["All dogs are animals.", "Rex is a dog.", "Cats do not bark."],
        "Rex is an animal.",
    )
    out = _run(checker, item)
    assert (out.reason, out.suggested_label, out.is_label_issue) == ("label_mismatch", "True", True)
    assert out.label_score < BLAME
    assert [f.split(":")[0] for f in out.findings] == ["premises[2]"]  # still reported
    assert out.nl_mismatch_score >= ISSUE


# -- (e) a deciding formula misreads its sentence, and no rule fixes it: the FOL is blamed ---


def _sample(example_id: str) -> tuple[Item, tuple[str, ...]]:
    items = load_any(str(SAMPLE)).items
    (item,) = [it for it in items if it.example_id == example_id]
    story = tuple(
        dict.fromkeys(
            t
            for it in items
            if it.story_id == item.story_id
            for t in (*it.premises_fol, it.conclusion_fol or "")
        )
    )
    return item, story


@pytest.mark.parametrize(
    ("example_id", "kind"),
    [
        ("1201", "entity_unsymbolised"),  # "in the Central Aviary" dropped from premises[1]
        ("1301", "entity_unsymbolised"),  # `rex` for "Max"
    ],
)
def test_a_misread_deciding_formula_is_blamed_and_no_label_suggested(
    checker: Checker, example_id: str, kind: str
) -> None:
    item, story = _sample(example_id)
    out = _run(checker, item, story)
    assert (out.status, out.reason) == (Status.NEEDS_REVIEW, Reason.LABEL_MISMATCH)
    assert out.final_category == "label_mismatch"
    assert out.suggested_label == "" and not out.is_label_issue
    assert out.label_score >= BLAME
    assert out.critique.startswith("premises[1]: nl_mismatch")
    assert "label_error" not in out.error_classes
    assert any(f.startswith(f"premises[1]: {kind}") for f in out.findings)
    assert out.edits == () and out.proposed_edits == ()
    # the critique itself: the formula is diagnosed, the label is not
    (row,) = checker.check_story([item])
    diagnoses = rule_critique(item_context(item, row, story_fol=story))
    assert [d.where for d in diagnoses] == ["premises[1]"]
    assert all(d.suggested_label is None for d in diagnoses)


# -- refuted: a rename that was tried and did not reach the gold label ----------------------


def test_a_name_drift_a_rename_refuted_no_longer_blames_the_fol(checker: Checker) -> None:
    # renaming Sciencefiction → ScienceFiction makes the provers derive False, not the gold True
    item = _item(
        ["∀x (ScienceFiction(x) → Book(x))", "Sciencefiction(dune)"],
        "¬Book(dune)",
        "True",
        ["Science fiction works are books.", "Dune is science fiction."],
        "Dune is not a book.",
    )
    (row,) = checker.check_story([item])
    findings = item_context(item, row, story_fol=_story(item))
    drift = [(f.where, f.score) for f in findings.alignment if f.kind == "name_drift"]
    assert drift == [("premises[0]", 0.6), ("premises[1]", 0.6)]
    # before any rename: the drift decides, the label is not suspected
    assert label_score(findings) == 0.6
    # a rename of either spelling tests the drift on every formula that spells it
    assert label_score(findings, {"premises[1]": {"unify_names"}}) < BLAME
    # another rule's failure on premises[1] says nothing about premises[0]'s drift
    assert label_score(findings, {"premises[1]": {"fix_negation"}}) == 0.6

    out = _run(checker, item)
    renames = [c for c in _candidates(out) if c["source"] == "unify_names"]
    assert [(_changes(c), c["label"]) for c in renames] == [
        ([("premises[1]", "ScienceFiction(dune)")], "False")
    ]
    assert out.status == Status.NEEDS_REVIEW and out.final_category == "label_mismatch"
    # the drift is still there: no label is suggested from the FOL as it stands
    assert out.label_score < BLAME and not out.is_label_issue and out.suggested_label == ""
    # but re-proved spelled one way, it proves False: the drift does not block the gold label
    assert out.cause == "label"
    assert "spelled one way" in out.cause_evidence and "proves False" in out.cause_evidence
    # the drift is still reported, only not blamed for the label
    assert any("name_drift (0.60)" in f for f in out.findings)


def test_a_misreading_the_rules_rewrote_without_reaching_the_gold_label_is_refuted(
    checker: Checker,
) -> None:
    # the ∨ misreads "and", but ∧ proves True, not the gold False: the misreading does not
    # explain the conflict, so the label is suspected
    item = _item(
        ["Tall(ann) ∨ Rich(ann)"], "Tall(ann)", "False", ["Ann is tall and rich."], "Ann is tall."
    )
    (row,) = checker.check_story([item])
    findings = item_context(item, row, story_fol=_story(item))
    assert label_score(findings) == 0.8
    assert label_score(findings, {"premises[0]": {"switch_connective"}}) == 0.0

    out = _run(checker, item)
    (tried,) = _candidates(out)
    assert (tried["source"], _changes(tried), tried["label"]) == (
        "switch_connective",
        [("premises[0]", "Tall(ann) ∧ Rich(ann)")],
        "True",
    )
    assert (out.status, out.reason) == (Status.NEEDS_REVIEW, Reason.LABEL_MISMATCH)
    assert out.label_score < BLAME and not out.is_label_issue and out.cause == "label"
    assert out.is_nl_mismatch_issue  # the misreading is still reported


def test_a_near_duplicate_name_is_repaired(checker: Checker) -> None:
    item = _item(
        ["∀x (Novel(x) → Book(x))", "Novel(emma)", "IsNovel(dune)"],
        "Book(dune)",
        "True",
        ["Novels are books.", "Emma is a novel.", "Dune is a novel."],
        "Dune is a book.",
    )
    out = _run(checker, item)
    assert (out.status, out.repaired_by) == ("repaired", "unify_near_names")
    assert out.refined_premises_fol[2] == "Novel(dune)"


# -- (f) verified, but a formula misreads its sentence --------------------------------------


def test_a_verified_item_that_misreads_its_sentence_is_an_nl_mismatch(checker: Checker) -> None:
    item = _item(
        ["Tall(ann) ∨ Rich(ann)"],
        "Tall(ann) ∨ Rich(ann)",
        "True",
        ["Ann is tall and rich."],
        "Ann is tall or rich.",
    )
    out = _run(checker, item)
    assert (out.status, out.reason, out.rounds) == (Status.VERIFIED, Reason.NL_MISMATCH, 0)
    assert out.nl_mismatch_score == 0.8 and out.is_nl_mismatch_issue
    assert out.queued  # settled by the provers, but queued for a reader
    assert out.findings == (
        "premises[0]: and_as_or (0.80) the formula says ∨ but the sentence has no 'or'",
    )
    assert out.refined_premises_fol == item.premises_fol and out.edits == ()
    # the cause names the formula and what it misreads, never the label
    assert (out.cause, out.cause_evidence) == (
        "structure",
        "the provers settle the item, but premises[0]: and_as_or: the formula says ∨ but the "
        "sentence has no 'or'",
    )


def test_a_repaired_item_that_misreads_its_sentence_blames_what_the_repair_mended(
    checker: Checker,
) -> None:
    # train 539's shape: a name spelled two ways blocks the gold label; a premise the proof
    # does not use misreads "and" as ∨
    item = _item(
        ["Tall(bob) ∨ Rich(bob)", "∀x (Student(x) → Smart(x))", "Student(annsmith)"],
        "Smart(annSmith)",
        "True",
        ["Bob is tall and rich.", "Every student is smart.", "Ann Smith is a student."],
        "Ann Smith is smart.",
    )
    out = _run(checker, item)
    assert (out.status, out.reason, out.repaired_by) == (
        Status.REPAIRED,
        Reason.NL_MISMATCH,
        "unify_names",
    )
    assert out.queued and out.refined_premises_fol[2] == "Student(annSmith)"
    assert (out.cause, out.cause_evidence) == (
        "vocabulary",
        "the repair (naming drift) settles the item at its gold label, but premises[0]: "
        "and_as_or: the formula says ∨ but the sentence has no 'or'",
    )


def test_a_verified_item_with_a_weaker_finding_keeps_an_empty_reason(checker: Checker) -> None:
    item = _item(
        ["∀x (Win(x) → Train(x))", "Win(ann)"],
        "Train(ann)",
        "True",
        ["If a runner trains, she wins.", "Ann wins."],
        "Ann trains.",
    )
    out = _run(checker, item)
    assert (out.status, out.reason, out.rounds) == (Status.VERIFIED, Reason.NONE, 0)
    assert 0 < out.nl_mismatch_score < ISSUE and not out.is_nl_mismatch_issue
    assert not out.queued
    assert out.findings[0].startswith("premises[0]: implication_reversed (0.60)")


def test_a_copied_conjunct_is_written_as_the_one_meant_and_left_a_proposal(
    checker: Checker,
) -> None:
    item = _item(
        [
            "Road(firstRoad) ∧ MadeOf(firstRoad, concrete) ∧ Road(firstRoad) ∧ MadeOf(secondRoad, asphalt)",
            "∀x (Road(x) ∧ MadeOf(x, asphalt) → Smooth(x))",
        ],
        "Smooth(secondRoad)",
        "True",
        [
            "The first road is made of concrete, and the second road is made of asphalt.",
            "All roads made of asphalt are smooth.",
        ],
        "The second road is smooth.",
    )
    out = _run(checker, item)
    # the copy reaches the gold label, but which term was meant is a guess: never applied alone
    assert (out.status, out.reason) == (Status.NEEDS_REVIEW, Reason.UNCONFIRMED_REPAIR)
    assert out.refined_premises_fol == item.premises_fol
    assert out.proposed_premises_fol[0] == (
        "Road(firstRoad) ∧ MadeOf(firstRoad, concrete) ∧ Road(secondRoad) ∧ MadeOf(secondRoad, asphalt)"
    )
    (edit,) = [e for e in out.proposed_edits if e["where"] == "premises[0]"]
    assert (edit["source"], edit["guess"]) == ("mend_copied_conjunct", True)
    assert out.cause == "structure"
