"""Property tests across backends: Z3 and E agree on random small formulas; no translation raises."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refinery.labels import Label
from refinery.logic.lint import lint
from refinery.logic.syntax import Formula, Not
from refinery.logic.to_z3 import Z3Translator
from refinery.logic.tptp import problem_to_tptp
from refinery.prove.decide import decide
from refinery.prove.verdict import Budget, Problem, Prover
from refinery.prove.z3_backend import Z3Prover
from vampire.backends import EProver

from strategies import formulas

BUDGET = Budget(seconds=3)


@settings(max_examples=300, deadline=None)
@given(formulas())
def test_translations_and_lint_never_raise(f: Formula) -> None:
    text = problem_to_tptp([f], f).text
    assert text.count("fof(") == 2
    assert Z3Translator().translate(f) is not None
    lint([("premises[0]", f)])


def _label(prover: Prover, axioms: tuple[Formula, ...], goal: Formula) -> Label:
    statuses = [prover.check(Problem(axioms, g), BUDGET).status for g in (None, goal, Not(goal))]
    return decide(*statuses)


@pytest.mark.prover
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(formulas(depth=2), min_size=1, max_size=2), formulas(depth=2))
def test_z3_and_eprover_agree_on_random_small_problems(
    axioms: list[Formula], goal: Formula
) -> None:
    """Both provers reach the same label whenever both reach one (E may say ContradictoryAxioms
    where Z3 says Theorem: the decision table reads both as Inconsistent)."""
    z3_label = _label(Z3Prover(), tuple(axioms), goal)
    e_label = _label(EProver(), tuple(axioms), goal)
    if Label.UNKNOWN not in (z3_label, e_label):
        assert z3_label is e_label, (axioms, goal)
