"""Evidence lines: which proofs and countermodels explain an item's label, and how they read."""

from __future__ import annotations

import json

import pytest

from refinery.labels import Label
from refinery.logic.parse import parse
from refinery.prove.countermodel import Countermodel
from refinery.prove.evidence import (
    ModelVerdict,
    evidence_detail,
    evidence_lines,
    premise_refs,
    wanted_models,
)
from refinery.prove.verdict import Status, Verdict

S = Status


def v(prover: str, status: Status, core: tuple[int, ...] | None = None) -> Verdict:
    return Verdict(prover, status, 0.0, core=core)


def trio(prover: str, axioms: Status, pos: Status, neg: Status, *, core=None, neg_core=None):  # type: ignore[no-untyped-def]
    return (v(prover, axioms, core), v(prover, pos, core), v(prover, neg, neg_core))


TRUE_BOTH = {
    "z3": trio("z3", S.SATISFIABLE, S.THEOREM, S.COUNTER_SATISFIABLE, core=(0, 2)),
    "eprover": trio("eprover", S.SATISFIABLE, S.THEOREM, S.COUNTER_SATISFIABLE, core=(2, 0)),
}
MODEL = Countermodel(("max",), {"max": "max"}, {("Friendly", 1): frozenset()})


def test_a_proved_label_names_its_premises_once_for_provers_that_agree() -> None:
    # the same core, whatever order a prover lists it in
    assert evidence_lines(Label.TRUE, TRUE_BOTH) == [
        "proves the conclusion: premises[0], premises[2] (eprover, z3)"
    ]


def test_differing_cores_are_kept_apart_and_a_prover_without_one_is_said() -> None:
    trios = {
        "z3": trio("z3", S.SATISFIABLE, S.COUNTER_SATISFIABLE, S.THEOREM, neg_core=(1,)),
        "eprover": trio(
            "eprover", S.SATISFIABLE, S.COUNTER_SATISFIABLE, S.THEOREM, neg_core=(0, 1)
        ),
        "vampire": trio("vampire", S.SATISFIABLE, S.COUNTER_SATISFIABLE, S.THEOREM),
    }
    assert evidence_lines(Label.FALSE, trios) == [
        "proves its negation: premises[0], premises[1] (eprover); premises[1] (z3); "
        "premises not named (vampire)"
    ]


def test_inconsistent_premises_name_the_contradiction() -> None:
    trios = {"z3": trio("z3", S.UNSATISFIABLE, S.THEOREM, S.THEOREM, core=(1, 3))}
    assert evidence_lines(Label.INCONSISTENT, trios) == [
        "the premises contradict each other: premises[1], premises[3] (z3)"
    ]


def test_an_uncertain_label_is_explained_by_the_countermodel_found() -> None:
    trios = {"z3": trio("z3", S.SATISFIABLE, S.COUNTER_SATISFIABLE, S.COUNTER_SATISFIABLE)}
    found = [ModelVerdict("pos", Verdict("z3", S.COUNTER_SATISFIABLE, 0.0, countermodel=MODEL))]
    lines = evidence_lines(Label.UNCERTAIN, trios, found, parse("Friendly(max)"))
    assert lines == [
        "the conclusion can fail: domain {max}; ¬Friendly(max) — all premises hold and the "
        "conclusion fails (z3)"
    ]
    detail = json.loads(json.dumps(evidence_detail(trios, found)))
    assert detail["countermodels"]["pos"]["prover"] == "z3" and detail["cores"] == {}


def test_without_an_agreed_label_every_proof_shows_the_disagreement() -> None:
    trios = {
        "z3": trio("z3", S.SATISFIABLE, S.THEOREM, S.COUNTER_SATISFIABLE, core=(0,)),
        "eprover": trio("eprover", S.SATISFIABLE, S.COUNTER_SATISFIABLE, S.TIMEOUT),
    }
    assert evidence_lines(None, trios) == ["proves the conclusion: premises[0] (z3)"]
    assert evidence_lines(None, {"z3": trio("z3", S.TIMEOUT, S.TIMEOUT, S.TIMEOUT)}) == []


@pytest.mark.parametrize(
    ("label", "gold", "wanted"),
    [
        (Label.UNCERTAIN, Label.TRUE, ("pos",)),
        (Label.UNCERTAIN, Label.FALSE, ("neg",)),
        (Label.UNCERTAIN, None, ("pos", "neg")),
        (Label.UNCERTAIN, Label.UNCERTAIN, ()),
        (Label.FALSE, Label.TRUE, ()),
        (None, Label.TRUE, ()),
    ],
)
def test_models_are_looked_for_only_where_they_explain_a_mismatch(
    label: Label | None, gold: Label | None, wanted: tuple[str, ...]
) -> None:
    assert wanted_models(label, gold) == wanted


def test_an_empty_core_says_the_conclusion_needs_no_premise() -> None:
    assert premise_refs(()) == "(none: it holds by itself)"
