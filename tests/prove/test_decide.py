"""The decision table, on every combination of statuses."""

from __future__ import annotations

import itertools

import pytest

from refinery.labels import Label
from refinery.prove.decide import Agreement, combine, decide
from refinery.prove.verdict import Status

S = Status
UNDECIDED = (S.TIMEOUT, S.GAVE_UP, S.RESOURCE_OUT, S.ERROR)


def expected(axioms: Status, pos: Status, neg: Status) -> Label:
    """An independent restatement of the rule, written as the spec reads."""
    if axioms is S.UNSATISFIABLE or S.CONTRADICTORY_AXIOMS in (pos, neg):
        return Label.INCONSISTENT
    if pos is S.THEOREM and neg is S.THEOREM:
        return Label.INCONSISTENT
    consistent = axioms is S.SATISFIABLE
    if pos is S.THEOREM:
        return Label.TRUE if consistent or neg is S.COUNTER_SATISFIABLE else Label.UNKNOWN
    if neg is S.THEOREM:
        return Label.FALSE if consistent or pos is S.COUNTER_SATISFIABLE else Label.UNKNOWN
    if pos is S.COUNTER_SATISFIABLE and neg is S.COUNTER_SATISFIABLE:
        return Label.UNCERTAIN
    return Label.UNKNOWN


@pytest.mark.parametrize(("axioms", "pos", "neg"), list(itertools.product(Status, repeat=3)))
def test_every_status_combination(axioms: Status, pos: Status, neg: Status) -> None:
    assert decide(axioms, pos, neg) is expected(axioms, pos, neg)


@pytest.mark.parametrize("undecided", UNDECIDED)
def test_an_undecided_side_is_never_uncertain(undecided: Status) -> None:
    assert decide(S.SATISFIABLE, S.COUNTER_SATISFIABLE, undecided) is Label.UNKNOWN
    assert decide(S.SATISFIABLE, undecided, S.COUNTER_SATISFIABLE) is Label.UNKNOWN
    assert decide(undecided, S.COUNTER_SATISFIABLE, S.COUNTER_SATISFIABLE) is Label.UNCERTAIN


def test_truth_needs_known_consistency() -> None:
    assert decide(S.SATISFIABLE, S.THEOREM, S.TIMEOUT) is Label.TRUE
    assert decide(S.GAVE_UP, S.THEOREM, S.COUNTER_SATISFIABLE) is Label.TRUE
    assert decide(S.GAVE_UP, S.THEOREM, S.GAVE_UP) is Label.UNKNOWN
    assert decide(S.SATISFIABLE, S.TIMEOUT, S.THEOREM) is Label.FALSE


@pytest.mark.parametrize(
    ("labels", "result"),
    [
        ({"z3": Label.FALSE, "eprover": Label.FALSE}, (Label.FALSE, Agreement.AGREED)),
        (
            {"z3": Label.INCONSISTENT, "eprover": Label.INCONSISTENT},
            (Label.INCONSISTENT, Agreement.AGREED),
        ),
        ({"z3": Label.UNCERTAIN, "eprover": Label.TRUE}, (None, Agreement.DISAGREE)),
        ({"z3": Label.UNKNOWN, "eprover": Label.TRUE}, (None, Agreement.UNDECIDED)),
        ({"z3": Label.UNKNOWN, "eprover": Label.UNKNOWN}, (None, Agreement.UNDECIDED)),
        (
            {"z3": Label.TRUE, "eprover": Label.UNKNOWN, "vampire": Label.FALSE},
            (None, Agreement.DISAGREE),
        ),
        ({}, (None, Agreement.UNDECIDED)),
    ],
)
def test_combine(labels: dict[str, Label], result: tuple[Label | None, Agreement]) -> None:
    assert combine(labels) == result
