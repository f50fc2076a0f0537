"""The repair loop and its gate, with real provers (Z3 and E) and scripted or real agents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refinery.check import Checker
from refinery.errors import ConfigError
from refinery.outcomes import Category, Outcome, Status
from refinery.prove.verdict import Budget
from refinery.repair import RepairConfig, repair_item
from refinery.repair.batches import repair_items
from vampire.registry import build_provers

from fakes import ScriptedLLM, make_item

PROVERS = ["z3", "eprover"]


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker(build_provers(PROVERS), Budget(seconds=5))


def _run(
    checker: Checker, item: object, config: RepairConfig | None = None, client: object = None
) -> Outcome:
    (row,) = checker.check_story([item])  # type: ignore[list-item]
    return repair_item(item, row, checker=checker, config=config or RepairConfig(), client=client)  # type: ignore[arg-type]


def test_verified_items_pass_through_untouched(checker: Checker) -> None:
    item = make_item(1, ["∀x (Dog(x) → Animal(x))", "Dog(rex)"], "Animal(rex)", "True")
    out = _run(checker, item)
    assert (out.status, out.rounds, out.edits) == (Status.VERIFIED, 0, ())
    assert out.refined_premises_fol == item.premises_fol


def test_unbalanced_parenthesis_is_repaired_and_the_label_kept(checker: Checker) -> None:
    item = make_item(1, ["∀x (Dog(x) → Animal(x)", "Dog(rex)"], "Animal(rex)", "True")
    out = _run(checker, item)
    assert out.status == "repaired" and out.repaired_by == "balance_parentheses"
    assert out.refined_premises_fol[0] == "∀x (Dog(x) → Animal(x))"
    assert out.label == out.original_label == "True"
    assert out.final_category == "verified"
    (edit,) = out.edits
    assert (edit["where"], edit["before"], edit["after"]) == (
        "premises[0]",
        "∀x (Dog(x) → Animal(x)",
        "∀x (Dog(x) → Animal(x))",
    )


def test_two_errors_are_repaired_over_two_rounds(checker: Checker) -> None:
    # round 1 balances the parenthesis (progress: now a lint error), round 2 binds the free x
    # (with its sentences: the gate reads every edited formula beside its sentence)
    item = make_item(
        1,
        ["∀x (Dog(x) → Animal(x)", "Dog(rex)"],
        "∃y (Animal(y)) ∧ Dog(x)",
        "True",
        premises=["All dogs are animals.", "Rex is a dog."],
        conclusion="There is an animal, and there is a dog.",
    )
    out = _run(checker, item)
    assert out.status == "repaired", out.audit
    assert out.rounds == 2
    assert [e["source"] for e in out.edits] == ["balance_parentheses", "close_free_variables"]


def test_a_wrong_label_is_never_changed_but_suggested(checker: Checker) -> None:
    item = make_item(1, ["∀x (Dog(x) → Animal(x))", "Dog(rex)"], "¬Animal(rex)", "True")
    out = _run(checker, item)
    assert (out.status, out.reason) == ("needs_review", "label_mismatch")
    assert (out.label, out.suggested_label) == ("True", "False")
    assert "label_error" in out.error_classes


def test_the_gate_rejects_a_candidate_that_proves_another_label(checker: Checker) -> None:
    # both closures of the free variable parse; only one makes the provers derive the gold label
    item = make_item(1, ["Dog(rex)", "¬Dog(fido)"], "Dog(x)", "Uncertain")
    out = _run(checker, item)
    candidates = out.audit["rounds"][0]["candidates"]
    assert any(not c["accepted"] and c["category"] == "label_mismatch" for c in candidates)
    if out.status == "repaired":
        assert out.final_category == "verified"


def test_llm_edit_is_accepted_only_through_the_gate(checker: Checker) -> None:
    item = make_item(
        1,
        ["∀x (Bird(x) → Fly(x))", "Bird(kiwi)"],
        "¬Fly(kiwi)",
        "True",
        premises=["", "Kiwi is a bird."],  # no sentence to read: the rules cannot help
    )
    wrong = {
        "edits": [
            {
                "where": "premises[1]",
                "after": "¬Bird(kiwi)",
                "error_class": "scope",
                "rationale": "x",
            }
        ]
    }
    right = {
        "edits": [
            {
                "where": "premises[0]",
                "after": "∀x (Bird(x) → ¬Fly(x))",
                "error_class": "scope",
                "rationale": "no bird flies",
            }
        ]
    }
    critique = {
        "diagnoses": [
            {
                "where": "premises[0]",
                "error_class": "scope",
                "explanation": "negation scope",
                "confidence": "high",
                "suggested_label": None,
            }
        ]
    }
    client = ScriptedLLM(
        {"critique": [json.dumps(critique)], "refine": [json.dumps(wrong), json.dumps(right)]}
    )
    out = _run(checker, item, RepairConfig(agents=("rules", "llm"), llm_rounds=2), client)
    assert out.status == "repaired" and out.repaired_by == "llm:scripted"
    assert client.calls == ["critique", "refine", "refine"]  # the critique is asked once
    rounds = out.audit["rounds"]
    # round 1: the wrong edit is rejected: "Kiwi is a bird" has no negation
    assert rounds[0]["candidates"][-1]["accepted"] is False
    assert rounds[0]["candidates"][-1]["why"].startswith("reads worse: premises[1]")
    assert rounds[-1]["candidates"][-1]["accepted"] is True
    assert out.refined_premises_fol[0] == "∀x (Bird(x) → ¬Fly(x))"


def test_an_llm_edit_of_the_conclusion_that_proves_the_label_stays_a_proposal(
    checker: Checker,
) -> None:
    # rewriting the conclusion until the gold label holds would hide a wrong label
    item = make_item(1, ["∀x (Bird(x) → Fly(x))", "Bird(kiwi)"], "¬Fly(kiwi)", "True")
    flip = {
        "edits": [
            {"where": "conclusion", "after": "Fly(kiwi)", "error_class": "scope", "rationale": "x"}
        ]
    }
    client = ScriptedLLM({"critique": ['{"diagnoses": []}'], "refine": [json.dumps(flip)]})
    out = _run(checker, item, RepairConfig(agents=("rules", "llm")), client)
    assert (out.status, out.reason) == ("needs_review", "unconfirmed_repair")
    assert out.refined_conclusion_fol == "¬Fly(kiwi)" and out.edits == ()
    assert out.proposed_conclusion_fol == "Fly(kiwi)"
    (candidate,) = out.audit["rounds"][0]["candidates"]
    assert candidate["category"] == "verified" and not candidate["accepted"]
    assert candidate["why"] == "changes what the conclusion says: a proposal for review"


@pytest.mark.parametrize(
    "reply", ["", "{not json", '{"edits": [{"where": "premises[9]"}]}', '{"edits": []}']
)
def test_bad_llm_replies_end_as_recorded_outcomes(checker: Checker, reply: str) -> None:
    item = make_item(1, ["¬∀x (Bird(x) → Fly(x))", "Bird(kiwi)"], "¬Fly(kiwi)", "True")
    client = ScriptedLLM({"critique": [reply], "refine": [reply]})
    out = _run(checker, item, RepairConfig(agents=("rules", "llm")), client)
    assert out.status == "needs_review"
    calls = out.audit["rounds"][0]["llm_calls"]
    assert [c["purpose"] for c in calls] == ["critique", "refine"]
    if reply in ("", "{not json"):
        assert all(c["error"] for c in calls)


def test_llm_rounds_bound_the_model_calls(checker: Checker) -> None:
    item = make_item(1, ["¬∀x (Bird(x) → Fly(x))", "Bird(kiwi)"], "¬Fly(kiwi)", "True")
    wrong = {
        "edits": [
            {"where": "conclusion", "after": "Fly(kiwi)", "error_class": "scope", "rationale": "x"}
        ]
    }
    client = ScriptedLLM({"critique": ['{"diagnoses": []}'], "refine": [json.dumps(wrong)]})
    out = _run(checker, item, RepairConfig(agents=("rules", "llm"), llm_rounds=1), client)
    assert out.status == "needs_review" and client.calls == ["critique", "refine"]


def test_config_validation() -> None:
    with pytest.raises(ConfigError, match="agents"):
        RepairConfig(agents=("llm",))
    with pytest.raises(ConfigError, match="max_rounds"):
        RepairConfig(max_rounds=0)


def test_repair_items_keeps_order_and_runs_in_workers() -> None:
    items = [
        make_item(1, ["∀x (Dog(x) → Animal(x)", "Dog(rex)"], "Animal(rex)", "True", story_id=1),
        make_item(2, ["P(a)"], "P(a)", "True", story_id=2),
        make_item(3, ["P(a)"], "¬P(a)", "True", story_id=3),
    ]
    from refinery.check import check_items

    rows = check_items(
        items, prover_factory=build_provers, prover_names=PROVERS, budget=Budget(), workers=1
    )
    outcomes = repair_items(
        items,
        rows,
        prover_factory=build_provers,
        prover_names=PROVERS,
        budget=Budget(),
        config=RepairConfig(),
        workers=2,
    )
    assert [o.id for o in outcomes] == [it.id for it in items]
    assert [o.status for o in outcomes] == ["repaired", "verified", "needs_review"]


_CALLS: list[object] = []


def _counting_factory(names: object) -> list[object]:
    provers = build_provers(PROVERS)
    for prover in provers:
        original = prover.check

        def check(problem: object, budget: object, _original: object = original) -> object:
            _CALLS.append(problem)
            return _original(problem, budget)  # type: ignore[operator]

        prover.check = check  # type: ignore[method-assign]
        if hasattr(prover, "check_many"):
            many = prover.check_many

            def check_many(
                axioms: object,
                goals: list[object],
                budget: object,
                _many: object = many,
                **options: object,
            ) -> object:
                _CALLS.extend(goals)
                return _many(axioms, goals, budget, **options)  # type: ignore[operator]

            prover.check_many = check_many  # type: ignore[attr-defined]
    return provers


def test_outcome_cache_skips_the_loop_on_unchanged_items(tmp_path: object) -> None:
    from pathlib import Path

    from refinery.check import check_items

    items = [make_item(1, ["∀x (Dog(x) → Animal(x)", "Dog(rex)"], "Animal(rex)", "True")]
    rows = check_items(
        items, prover_factory=build_provers, prover_names=PROVERS, budget=Budget(), workers=1
    )
    store = Path(str(tmp_path)) / "outcomes.sqlite"
    common = {
        "prover_factory": _counting_factory,
        "prover_names": PROVERS,
        "budget": Budget(),
        "config": RepairConfig(),
        "workers": 1,
        "outcome_cache": store,
    }
    _CALLS.clear()
    first = repair_items(items, rows, **common)  # type: ignore[arg-type]
    assert _CALLS, "the first run re-checks candidates"
    _CALLS.clear()
    second = repair_items(items, rows, **common)  # type: ignore[arg-type]
    assert _CALLS == [] and second == first
    # a changed option is a different key: the loop runs again
    repair_items(items, rows, **{**common, "config": RepairConfig(max_rounds=2)})  # type: ignore[arg-type]
    assert _CALLS


@pytest.mark.llm
def test_the_loop_with_the_real_embedded_model(checker: Checker, tmp_path: object) -> None:
    """The real OpenAI-compatible path inside the loop: whatever the 135M model answers, the
    outcome is recorded and nothing it proposes is accepted without passing the gate."""
    from pathlib import Path

    from refinery.agents.embedded import serve_embedded
    from refinery.agents.llm import OpenAICompatibleClient

    # the rules blame the label (every formula reads its sentence): the LLM is asked too
    item = make_item(
        1,
        ["∀x (Bird(x) → Fly(x))", "Bird(kiwi)"],
        "¬Fly(kiwi)",
        "True",
        premises=["All birds can fly.", "Kiwi is a bird."],
    )
    with serve_embedded() as served:
        client = OpenAICompatibleClient(
            served.base_url,
            "not-needed",
            served.model,
            timeout=120,
            cache_path=Path(str(tmp_path)) / "llm.sqlite",
        )
        out = _run(checker, item, RepairConfig(agents=("rules", "llm")), client)
    calls = [c for r in out.audit["rounds"] for c in r["llm_calls"]]
    assert [c["purpose"] for c in calls] == ["critique", "refine"]
    assert all(c["model"] == f"llm:{served.model}" for c in calls)
    assert all(c["error"] or c["completion_tokens"] > 0 for c in calls)
    if out.status == "repaired":  # only through the gate: the provers now derive the gold label
        assert out.final_category == "verified" and out.repaired_by.startswith("llm:")
    else:
        assert out.status == "needs_review" and out.refined_premises_fol == item.premises_fol


@pytest.mark.parametrize(
    ("category", "suggested"), [("semantics_mismatch", ""), ("label_error_candidate", "False")]
)
def test_dataset_semantics_categories_go_to_review_unrepaired(
    checker: Checker, category: str, suggested: str
) -> None:
    # ProofWriter's FOL is generated from its representations: only the label is in doubt
    item = make_item(1, ["P(a)"], "P(a)", "True")
    (row,) = checker.check_story([item])
    row = row.replace(category=Category(category), label_dataset="False")
    out = repair_item(item, row, checker=checker, config=RepairConfig())
    assert (out.status, out.reason, out.rounds) == ("needs_review", category, 0)
    assert out.suggested_label == suggested and out.label == "True"


def test_a_missing_fact_is_proposed_as_background_never_merged_into_the_premises(
    checker: Checker,
) -> None:
    item = make_item(
        1,
        ["∀x (Car(x) → HasWheels(x))", "RedCar(rex)"],
        "HasWheels(rex)",
        "True",
        premises=["All cars have wheels.", "Rex is a red car."],
        conclusion="Rex has wheels.",
    )
    out = _run(checker, item)
    assert out.status is Status.NEEDS_REVIEW and out.cause.value == "knowledge"
    assert out.background_fol == ("∀x (RedCar(x) → Car(x))",)
    assert out.refined_premises_fol == item.premises_fol and out.proposed_premises_fol is None
    search = out.audit["background"]
    assert search["axioms"] == [
        {"fol": "∀x (RedCar(x) → Car(x))", "support": "the words: a red car is a car"}
    ]
    assert search["prover_calls"] >= 3
    assert Outcome.from_dict(json.loads(json.dumps(out.to_dict()))) == out


@pytest.mark.parametrize(
    ("premises", "conclusion", "proposed"),
    [
        (
            [
                ("All games in the FIFA series support the PS4.", "∀x (In(x, fIFASeries) → Support(x, pS4))"),
                ("Be Lionel is in the FIFA series.", "In(beLionel, fIFASeries)"),
            ],
            ("Be Lionel is in the FIFA series and supports the PS4.", "FIFASeries(beLionel) ∧ Support(beLionel, pS4)"),
            "In(beLionel, fIFASeries) ∧ Support(beLionel, pS4)",
        ),
        (
            [
                ("Jerry should not worry about things outside his control.", "∀x (OutsideControl(x) → ¬ShouldWorry(jerry, x))"),
                ("All traffic is outside of his control.", "∀x (Traffic(x) → OutsideControl(x))"),
            ],
            ("Jerry should not worry about traffic.", "¬ShouldWorry(jerry, traffic)"),
            "∀y (Traffic(y) → ¬ShouldWorry(jerry, y))",
        ),
    ],
)  # fmt: skip
def test_a_name_the_premises_write_as_another_kind_is_proposed_retyped_for_review(
    checker: Checker,
    premises: list[tuple[str, str]],
    conclusion: tuple[str, str],
    proposed: str,
) -> None:
    item = make_item(
        1,
        [fol for _, fol in premises],
        conclusion[1],
        "True",
        premises=[sentence for sentence, _ in premises],
        conclusion=conclusion[0],
    )
    out = _run(checker, item)
    # the retyped conclusion proves the gold label, but linking it is a guess: a proposal
    assert out.status is Status.NEEDS_REVIEW and out.reason.value == "unconfirmed_repair"
    assert out.refined_conclusion_fol == item.conclusion_fol
    assert out.proposed_conclusion_fol == proposed
    assert [e["source"] for e in out.proposed_edits] == ["retype_name"]
    assert out.suggested_label == ""


def test_a_compound_the_premises_spell_in_parts_is_proposed_split_for_review(
    checker: Checker,
) -> None:
    item = make_item(
        1,
        ["∀x (Female(x) ∧ TennisPlayer(x) → Athlete(x))", "¬Athlete(serena)"],
        "¬FemaleTennisPlayer(serena)",
        "True",
        premises=["All female tennis players are athletes.", "Serena is not an athlete."],
        conclusion="Serena is not a female tennis player.",
    )
    out = _run(checker, item)
    # the split proves the gold label, but a guess stays a proposal: the FOL is not changed
    assert out.status is Status.NEEDS_REVIEW and out.reason.value == "unconfirmed_repair"
    assert out.refined_conclusion_fol == item.conclusion_fol
    assert out.proposed_conclusion_fol == "¬(Female(serena) ∧ TennisPlayer(serena))"
    assert [e["source"] for e in out.proposed_edits] == ["split_compound"]
    # the proposal reaches the gold label: no label is suggested against it
    assert out.suggested_label == "" and not out.is_label_issue


@pytest.mark.parametrize(
    ("premise", "conclusion"),
    [("Cat(tоm)", "Mammal(tom)"), ("Cat(tom)", "Ｍammal(tom)")],  # a Cyrillic о; a fullwidth Ｍ
)
def test_a_name_that_only_looks_latin_is_written_plainly_never_blamed_on_the_label(
    checker: Checker, premise: str, conclusion: str
) -> None:
    item = make_item(
        1,
        ["∀x (Cat(x) → Mammal(x))", premise],
        conclusion,
        "True",
        premises=["All cats are mammals.", "Tom is a cat."],
        conclusion="Tom is a mammal.",
    )
    (row,) = checker.check_story([item])
    assert row.category == "lint_error" and "lookalike_name" in row.issues
    out = _run(checker, item)
    assert out.status is Status.REPAIRED and out.repaired_by == "plain_names"
    assert [*out.refined_premises_fol, out.refined_conclusion_fol] == [
        "∀x (Cat(x) → Mammal(x))",
        "Cat(tom)",
        "Mammal(tom)",
    ]
    assert out.suggested_label == "" and not out.is_label_issue


def test_an_llm_that_conjoins_the_conclusion_onto_a_premise_is_refused(checker: Checker) -> None:
    # a hostile or careless model: "premise 0 := premise 0 ∧ conclusion" makes any label True
    item = make_item(
        1,
        ["∀x (Student(x) → Read(x, book))", "Teacher(tom)"],
        "Read(tom, book)",
        "True",
        premises=["Every student reads books.", "Tom is a student."],
        conclusion="Tom reads books.",
    )
    forced = {
        "edits": [
            {
                "where": "premises[1]",
                "after": "Teacher(tom) ∧ Read(tom, book)",
                "error_class": "scope",
                "rationale": "makes the conclusion follow",
            }
        ]
    }
    client = ScriptedLLM(
        {"critique": [json.dumps({"diagnoses": []})], "refine": [json.dumps(forced)]}
    )
    out = _run(checker, item, RepairConfig(agents=("rules", "llm"), llm_rounds=1), client)
    assert out.repaired_by != "llm:scripted"
    (tried,) = [
        c for r in out.audit["rounds"] for c in r["candidates"] if c["source"] == "llm:scripted"
    ]
    assert tried["accepted"] is False
    assert tried["why"] == "adds Read to premises[1], which no word of its sentence names"


def test_twins_in_one_repair_batch_are_proved_as_if_each_were_alone(tmp_path: Path) -> None:
    """Two stories that ask the same questions (twins) in one cluster batch: the second must
    not read the first's fresh verdicts, or its outcome would depend on how stories were
    batched (a story alone on the local pool proves them)."""
    from refinery.check.batches import CheckJob, check_batch
    from refinery.repair.batches import RepairJob, repair_batch

    premises = ["∀x (Cat(x) → Purr(x))", "Cat(tom)"]
    twins = [make_item(1, premises, "Purrs(tom)", "True", story_id=s) for s in (1, 2)]
    rows = check_batch([[it] for it in twins], CheckJob(build_provers, ("z3",), Budget())).rows
    job = RepairJob(build_provers, ("z3",), Budget(), RepairConfig(agents=("rules",)),
                    tmp_path / "verdicts.sqlite")  # fmt: skip
    alone = repair_batch([[(twins[0], rows[0], None)]], job)
    both = repair_batch([[(it, row, None)] for it, row in zip(twins, rows, strict=True)], job)
    assert len(alone.verdicts) > 0  # the refiner proved its candidate edits
    assert len(both.verdicts) == 2 * len(alone.verdicts)
    assert both.outcomes[0]["status"] == both.outcomes[1]["status"] == alone.outcomes[0]["status"]
