"""Budgets: no item holds the repair step for minutes, and Z3 decides long chains of rules.

A premise of thousands of conjuncts made every re-check of every candidate parse and prove it
again, round after round: one item held a whole run. Each item now has a repair time budget
(`RepairConfig.item_seconds`); when it is spent the loop stops, the item keeps its best state and
goes to review saying so, and the rest of the batch runs as before.

A 300-premise story of 25 chained rules left Z3 without an answer (E-matching kept instantiating
where a model was at hand) while E decided it at once, so the item ended `undecided`. Z3 now asks
a question it leaves open again with model-based instantiation alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from refinery.check import Checker, check_items
from refinery.datasets.folio import load
from refinery.labels import Label
from refinery.logic.parse import parse
from refinery.outcomes import Outcome, Reason, Status
from refinery.prove import z3_backend
from refinery.prove.decide import decide
from refinery.prove.verdict import Budget
from refinery.prove.verdict import Status as Szs
from refinery.repair import RepairConfig
from refinery.repair.batches import plan_repair, repair_items
from vampire.registry import build_provers

from fakes import make_item

PROVERS = ("z3", "eprover")
BUDGET = Budget(seconds=5)


def _huge_item() -> object:
    """Free variables in three rules (a lint error) beside a premise of 10,000 conjuncts.

    Every candidate closing the variables is re-checked, each re-check parsing and proving the
    huge premise again; none proves the gold False, so unbounded the loop re-checks them all
    (about 13 s here) and goes on to a second round.
    """
    huge = " ∧ ".join(f"Owns(rex, toy{i % 7})" for i in range(10_000))
    premises = [huge, "Dog(rex)", "Dog(x) → Animal(x)", "Animal(y) → Pet(y)", "Pet(z) → Happy(z)"]
    return make_item(1, premises, "Happy(rex)", "False", story_id=1)


def _small_items() -> list[object]:
    return [
        # an unbalanced parenthesis the rules repair
        make_item(2, ["∀x (Dog(x) → Animal(x)", "Dog(rex)"], "Animal(rex)", "True", story_id=2),
        make_item(3, ["∀x (Cat(x) → Pet(x))", "Cat(tom)"], "Pet(tom)", "True", story_id=3),
    ]


def test_an_item_out_of_time_goes_to_review_and_the_batch_goes_on(tmp_path: Path) -> None:
    items = [_huge_item(), *_small_items()]
    checker = Checker(build_provers(PROVERS), BUDGET)
    rows = [row for item in items for row in checker.check_story([item])]
    assert [r.category for r in rows] == ["lint_error", "parse_error", "verified"]
    common = {
        "prover_factory": build_provers,
        "prover_names": PROVERS,
        "budget": BUDGET,
        "config": RepairConfig(item_seconds=2.0),
        "outcome_cache": tmp_path / "outcomes.sqlite",
    }
    huge, repaired, verified = repair_items(items, rows, **common)  # type: ignore[arg-type]

    assert (huge.status, huge.reason) == (Status.NEEDS_REVIEW, Reason.REPAIR_BUDGET)
    assert huge.queued
    budget = huge.audit["budget"]
    assert budget["seconds"] == 2.0 and budget["spent"] >= 2.0
    assert budget["stopped"].startswith(("in round 1 after", "before round 2"))
    assert huge.critique.startswith("repair budget of 2 s spent (")
    assert f"stopped {budget['stopped']}; still {huge.final_category}" in huge.critique
    # it stopped short of the six candidates an unbounded loop re-checks (how many it reached
    # depends on the machine's speed)
    rechecked = [c for r in huge.audit["rounds"] for c in r["candidates"]]
    assert len(rechecked) < 6
    # the best state it reached is kept as a proposal; the refined split keeps the original
    assert huge.refined_premises_fol == huge.original_premises_fol
    assert huge.edits == () and huge.repaired_by == ""
    assert huge.final_category in ("lint_error", "label_mismatch")
    if huge.final_category == "label_mismatch":
        assert huge.proposed_premises_fol is not None and huge.proposed_edits

    # the rest of the batch: exactly what an unbounded run gives
    assert (repaired.status, repaired.repaired_by) == (Status.REPAIRED, "balance_parentheses")
    assert repaired.refined_premises_fol[0] == "∀x (Dog(x) → Animal(x))"
    assert (verified.status, verified.reason) == (Status.VERIFIED, Reason.NONE)
    assert "budget" not in repaired.audit and "budget" not in verified.audit

    # the outcome round-trips through its JSON form with the new reason
    assert Outcome.from_dict(huge.to_dict()) == huge

    # a stop for want of time depends on the machine, not the data: it is not cached, and the
    # next run tries the item again while the others come from the cache
    plan = plan_repair(items, rows, **common)  # type: ignore[arg-type]
    pending = [item.id for story in plan.pending for item, _, _ in story]
    assert pending == [huge.id]
    assert sorted(o["id"] for o in plan.outcomes) == sorted([repaired.id, verified.id])
    plan.finish()


def test_item_budget_must_be_a_positive_number() -> None:
    from refinery.errors import ConfigError

    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ConfigError, match="item_seconds must be a positive number"):
            RepairConfig(item_seconds=bad)


def _chain_story() -> tuple[list[str], str]:
    """P1(a), ∀x (P1(x) → P2(x)), …, ∀x (P24(x) → P25(x)), and 275 unrelated rules: 300
    premises; the conclusion P25(a) follows."""
    premises = ["P1(a)"] + [f"∀x (P{i}(x) → P{i + 1}(x))" for i in range(1, 25)]
    premises += [f"∀x (Q{i}(x) → R{i}(x))" for i in range(300 - len(premises))]
    return premises, "P25(a)"


def test_z3_decides_a_story_of_25_chained_rules() -> None:
    premises, conclusion = _chain_story()
    axioms = [parse(p) for p in premises]
    goal = parse(conclusion)
    axioms_status, pos, neg = (
        v.status
        for v in z3_backend.Z3Prover().check_many(
            axioms, [None, goal, parse(f"¬{conclusion}")], BUDGET
        )
    )
    assert (pos, neg) == (Szs.THEOREM, Szs.COUNTER_SATISFIABLE)
    assert axioms_status is Szs.SATISFIABLE
    assert decide(axioms_status, pos, neg) is Label.TRUE

    item = make_item(1, premises, conclusion, "True")
    (row,) = Checker(build_provers(PROVERS), BUDGET).check_story([item])
    assert row.prover_labels() == {"z3": "True", "eprover": "True"}
    assert row.category == "verified"


def test_without_the_retry_z3_leaves_the_chain_open(monkeypatch: pytest.MonkeyPatch) -> None:
    # the retry is what decides it: with E-matching alone, Z3 stops without an answer
    monkeypatch.setattr(z3_backend, "_RETRY", frozenset())
    premises, conclusion = _chain_story()
    (verdict,) = z3_backend.Z3Prover().check_many(
        [parse(p) for p in premises], [parse(f"¬{conclusion}")], BUDGET
    )
    assert verdict.status in (Szs.GAVE_UP, Szs.RESOURCE_OUT)


def test_the_retry_changes_no_label_on_folio_v2(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = shared_data / "folio_v2" / "reconstructed" / "folio_v2_validation.jsonl"
    if not path.exists():
        pytest.skip(f"FOLIO v2 validation is not at {path}")
    items = load(path).items

    def columns() -> list[tuple[str, ...]]:
        rows = check_items(
            items, prover_factory=build_provers, prover_names=["z3"], budget=BUDGET, workers=1
        )
        return [(r.id, r.provers[0].label, r.provers[0].status, r.category) for r in rows]

    with_retry = columns()
    monkeypatch.setattr(z3_backend, "_RETRY", frozenset())
    assert columns() == with_retry
    assert sum(1 for _, label, _, _ in with_retry if label) > 150  # most items were proved
