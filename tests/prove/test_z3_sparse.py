"""The sparse model `find_model` reads (`refinery.prove.z3_sparse`): the ground copy it is
searched on, and what the search guarantees."""

from __future__ import annotations

import itertools
import time

import pytest
import z3

from refinery.logic.parse import parse
from refinery.logic.to_z3 import Z3Translator
from refinery.prove import z3_sparse
from refinery.prove.z3_backend import _at_most
from refinery.prove.z3_sparse import ground_copy, sparse_model

RLIMIT = 2_000_000


def _bounded(texts: list[str], size: int) -> tuple[z3.Solver, Z3Translator, list[z3.ExprRef]]:
    """A solver holding `texts` and a domain of at most `size` elements, checked once."""
    translator = Z3Translator()
    solver = z3.Solver(ctx=translator.ctx)
    for text in texts:
        solver.add(translator.translate(parse(text)))
    elements, bound = _at_most(translator, size)
    solver.add(bound)
    solver.check()
    return solver, translator, elements


STORY = ["∀x (P(x) → Q(x))", "∃x P(x)", "¬Q(a)"]


def test_the_ground_copy_has_a_model_exactly_where_the_bounded_problem_does() -> None:
    # one element: it would be both the P (so a Q) and a, which is no Q
    one = _bounded(STORY, 1)
    assert one[0].check() == z3.unsat
    assert ground_copy(*one, RLIMIT, 5000) is None
    two = _bounded(STORY, 2)
    copy = ground_copy(*two, RLIMIT, 5000)
    assert copy is not None
    assert not any(z3.is_quantifier(f) for f in copy.assertions())
    # its model is one of the quantified problem: every original assertion holds in it
    model = copy.model()
    solver, translator, _ = two
    universe = model.get_universe(translator.sort)
    assert 1 <= len(universe) <= 2
    p, q = (translator.declaration(translator.decl_name("pred", n, 1) or "") for n in "PQ")
    assert all(z3.is_true(model.eval(z3.Implies(p(e), q(e)))) for e in universe)
    assert any(z3.is_true(model.eval(p(e))) for e in universe)


def test_a_copy_past_its_size_is_not_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(z3_sparse, "MAX_INSTANCES", 3)
    assert ground_copy(*_bounded(STORY, 2), RLIMIT, 5000) is None  # ∀ over 2, ∃ over 2: 4


@pytest.mark.parametrize("size", [1, 2, 3])
def test_no_atom_of_the_sparse_model_could_be_false_with_the_others_as_they_are(
    size: int,
) -> None:
    # each premise forces one of two atoms; which ones hold is for the search to choose
    story = ["P(a) ∨ Q(a)", "Q(a) ∨ R(a)", "R(a) ∨ S(a)", "∀x (T(x) ∨ P(x) ∨ ¬Q(x))"]
    solver, translator, elements = _bounded(story, size)
    model = sparse_model(solver, translator, elements, time.perf_counter() + 10, RLIMIT)
    atoms = [
        translator.declaration(translator.decl_name("pred", n, 1) or "")(e)  # type: ignore[operator]
        for n, e in itertools.product("PQRST", elements)
    ]
    held = [atom for atom in atoms if z3.is_true(model.eval(atom, model_completion=True))]
    false = [z3.Not(atom) for atom in atoms if not any(atom.eq(h) for h in held)]
    assert held, "the premises force some atom"
    for atom in held:  # false, with every atom false in the model still false: no model
        assert solver.check(z3.Not(atom), *false) == z3.unsat, f"{atom} holds but need not"
