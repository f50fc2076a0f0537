"""The decision table, on every combination of statuses."""

from __future__ import annotations

import itertools

import pytest

from refinery.labels import Label
from refinery.prove.decide import Agreement, combine, decide, needs_consistency
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


ANSWERS = [s for s in Status if s is not S.NOT_ASKED]  # the nine a prover can give


def coherent(axioms: Status, pos: Status, neg: Status) -> bool:
    """Whether a sound prover can give these three answers about the same premises: never
    evidence of a model (a satisfiable or counter-satisfiable answer) beside evidence that
    there is none (unsatisfiable, contradictory axioms, both directions theorems)."""
    model = axioms is S.SATISFIABLE or S.COUNTER_SATISFIABLE in (pos, neg)
    none = (
        axioms is S.UNSATISFIABLE
        or S.CONTRADICTORY_AXIOMS in (pos, neg)
        or (pos is S.THEOREM and neg is S.THEOREM)
    )
    return not (model and none)


def test_skipping_the_consistency_question_never_changes_a_label() -> None:
    """On all 729 combinations of real answers: where the directions do not need the
    consistency answer, deciding without it gives what deciding with it gives, unless the
    prover contradicted itself."""
    combos = list(itertools.product(ANSWERS, repeat=3))
    assert len(combos) == 729
    skipped = differ = 0
    for axioms, pos, neg in combos:
        if needs_consistency(pos, neg):
            continue
        skipped += 1
        if decide(S.NOT_ASKED, pos, neg) is not decide(axioms, pos, neg):
            assert not coherent(axioms, pos, neg), (axioms, pos, neg)
            differ += 1
    # the directions settle 33 of the 81 (pos, neg) pairs (a counter-satisfiable or
    # contradictory-axioms side: 81 - 7 * 7, and Theorem/Theorem), for each of 9 answers
    assert skipped == 33 * 9
    # only where a prover found the premises unsatisfiable and also a model of them (a
    # counter-satisfiable direction): 15 combinations
    assert differ == 15


@pytest.mark.parametrize(("pos", "neg"), list(itertools.product(ANSWERS, repeat=2)))
def test_an_open_pair_really_depends_on_the_consistency_answer(pos: Status, neg: Status) -> None:
    """The question is asked only when some coherent consistency answer changes the label."""
    labels = {decide(a, pos, neg) for a in ANSWERS if coherent(a, pos, neg)}
    assert needs_consistency(pos, neg) is (len(labels) > 1)


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
