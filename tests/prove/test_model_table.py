"""A countermodel's evidence line read back as tables: every cell agrees with the model itself."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from refinery.logic.parse import parse
from refinery.logic.syntax import Pred
from refinery.prove.countermodel import MAX_SHOWN_FACTS, Countermodel
from refinery.prove.model_table import FAILS, HOLDS, UNSAID, evidence_models, read, why

TAIL = "all premises hold and the conclusion fails (z3)"


def _atom(text: str) -> Pred:
    atom = parse(text)
    assert isinstance(atom, Pred)
    return atom


def _line(model: Countermodel, false_atoms: list[Pred] | None = None) -> str:
    """The evidence line `refinery.prove.evidence` writes for a `pos` countermodel."""
    return f"the conclusion can fail: {model.render(false_atoms=false_atoms or [])} — {TAIL}"


@st.composite
def models(draw: st.DrawFn) -> Countermodel:
    """Small models over P, Q (one place), L (two), T (three), R (none), f (a function) and up
    to three constants, names with the odd characters FOLIO has."""
    size = draw(st.integers(1, 4))
    domain = tuple(f"d{i + 1}" for i in range(size))
    names = draw(st.lists(st.sampled_from(["a", "gpt-3", "nica'sMarket"]), unique=True))
    constants = {c: draw(st.sampled_from(domain)) for c in names}

    def subset(arity: int) -> frozenset[tuple[str, ...]]:
        every = list(itertools.product(domain, repeat=arity))
        return frozenset(draw(st.lists(st.sampled_from(every), unique=True)))

    predicates = {(name, arity): subset(arity) for name, arity in (("P", 1), ("Q", 1), ("L", 2))}
    predicates[("T", 3)] = subset(3)
    predicates[("R", 0)] = subset(0)
    function = {(e,): draw(st.sampled_from(domain)) for e in domain}
    return Countermodel(domain, constants, predicates, {("f", 1): function})


@settings(max_examples=200, deadline=None)
@given(models())
def test_every_cell_says_what_the_model_says(model: Countermodel) -> None:
    # the conclusion's ground atoms are shown negated where they fail
    goal = [_atom("P(a)"), _atom("L(a, a)")] if "a" in model.constants else []
    table = read(_line(model, goal))
    assert table is not None and table.tail == TAIL
    # the line names an element after a constant: the table's elements are the model's
    assert set(table.elements) == set(model.domain)
    cut = bool(table.cut)
    assert cut == ("more atoms" in _line(model, goal))
    rows = {row.name: row for row in table.unary}
    for name in ("P", "Q"):
        holds = model.predicates[(name, 1)]
        if not holds:
            assert name in table.empty or name in rows  # a goal predicate shows its ✗
        if name not in rows:
            continue
        for element, cell in zip(table.elements, rows[name].cells, strict=True):
            truth = (element,) in holds
            assert cell == HOLDS if truth else cell in ((FAILS, UNSAID) if cut else (FAILS,))
    grids = {grid.name: grid for grid in table.binary}
    if "L" in grids:
        for (i, a), (j, b) in itertools.product(enumerate(table.elements), repeat=2):
            cell = grids["L"].cells[i][j]
            truth = (a, b) in model.predicates[("L", 2)]
            assert cell == HOLDS if truth else cell in ((FAILS, UNSAID) if cut else (FAILS,))
    others = {row.name: row for row in table.others}
    if not cut:
        assert others["R"].listed == (("true",) if model.predicates[("R", 0)] else ("false",))
        assert len(others["f"].listed) == model.size
        ternary = model.predicates[("T", 3)]
        assert ("T" in table.empty) == (not ternary)
        if ternary:
            assert set(others["T"].listed) == {f"({', '.join(t)})" for t in ternary}
    # every constant is an element's name or listed as another name of it
    named = {c: e for e, names in table.aliases for c in names}
    for constant, element in model.constants.items():
        assert named.get(constant, constant) == element


def test_a_line_cut_short_says_so_and_never_claims_a_failure_it_did_not_see() -> None:
    domain = tuple(f"d{i}" for i in range(1, 9))
    every = frozenset((a, b) for a in domain for b in domain)  # 64 atoms: past the cut
    model = Countermodel(domain, {}, {("L", 2): every, ("P", 1): frozenset({("d1",)})})
    table = read(_line(model))
    assert table is not None and table.cut.endswith("more atoms not shown")
    cells = {c for row in table.binary[0].cells for c in row}
    assert cells <= {HOLDS, UNSAID} and UNSAID in cells
    assert len(every) > MAX_SHOWN_FACTS


def test_a_large_model_keeps_its_summary_and_no_rows() -> None:
    model = Countermodel(tuple(f"d{i}" for i in range(13)), {}, {("P", 1): frozenset()})
    table = read(_line(model))
    assert table is not None and table.cut == "13 elements: not listed"
    assert table.unary == table.binary == table.others == ()


def test_proofs_and_other_lines_are_not_tables() -> None:
    lines = [
        "proves the conclusion: premises[0], premises[2] (eprover, z3)",
        "the premises contradict each other: premises[1] (z3)",
        "the conclusion can fail: no model",
        _line(Countermodel(("d1",), {}, {("P", 1): frozenset({("d1",)})})),
    ]
    models = evidence_models(lines)
    assert models[:3] == [None, None, None]
    assert models[3] is not None and models[3]["unary"] == [{"name": "P", "cells": [HOLDS]}]
    assert why(lines[0]) == lines[0]


def test_the_terminal_form_is_aligned_under_its_elements() -> None:
    school = Countermodel(
        ("lakeside", "mara"),
        {"mara": "mara", "lakeside": "lakeside", "lake": "lakeside"},
        {("StudentAt", 2): frozenset({("mara", "lakeside")}), ("Tall", 1): frozenset()},
    )
    text = why(_line(school, [_atom("StudentAt(mara, mara)"), _atom("Tall(mara)")]))
    assert text.split("\n") == [
        f"the conclusion can fail — {TAIL}",
        "    lakeside is also lake",
        "          lakeside  mara",
        "    Tall  ✗         ✗",
        "",
        "    StudentAt  lakeside  mara",
        "    lakeside   ✗         ✗",
        "    mara       ✓         ✗",
    ]
