"""AST → Z3 translation: one sort, symbol keys and the map back, binding, and semantics.

Semantic questions go through `Z3Prover`, so these tests never import z3 themselves.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refinery.errors import UnsupportedNode
from refinery.logic.syntax import (
    And,
    Const,
    Eq,
    Exists,
    Forall,
    Formula,
    Func,
    Iff,
    Implies,
    Not,
    Or,
    Pred,
    Term,
    Var,
    Xor,
)
from refinery.logic.to_z3 import Symbol, Z3Translator, translate
from refinery.prove.verdict import Budget, Problem, Status
from refinery.prove.z3_backend import Z3Prover

from strategies import formulas

PROVER = Z3Prover()
BUDGET = Budget(seconds=5.0, rlimit=5_000_000)
a, b = Const("a"), Const("b")
x, y = Var("x"), Var("y")


def pred(name: str, *args: Term) -> Pred:
    return Pred(name, args)


def status(*axioms: Formula, conjecture: Formula | None = None) -> Status:
    return PROVER.check(Problem(axioms, conjecture), BUDGET).status


# --- shape of the translation ---------------------------------------------------------------


def test_single_uninterpreted_sort_for_every_term() -> None:
    t = Z3Translator()
    expr = t.translate(Eq(Func("f", (a,)), b))
    assert expr.sort().name() == "Bool"
    assert t.sort.name() == "U"
    left, right = expr.children()
    assert left.sort().eq(t.sort) and right.sort().eq(t.sort)
    assert left.decl().name() == "f" and left.decl().range().eq(t.sort)


def test_predicates_are_bool_valued_functions_and_atoms_are_bool_constants() -> None:
    t = Z3Translator()
    atom = t.translate(pred("Rain"))
    app = t.translate(pred("Loves", a, b))
    assert atom.sort().name() == "Bool" and atom.decl().arity() == 0
    assert app.decl().arity() == 2
    assert [app.decl().domain(i).name() for i in range(2)] == ["U", "U"]
    assert app.decl().range().name() == "Bool"


def test_same_name_with_two_arities_gives_two_symbols() -> None:
    t = Z3Translator()
    t.translate(And((pred("P", a), pred("P", a, b), pred("P"))))
    names = {t.decl_name("pred", "P", n) for n in (0, 1, 2)}
    assert None not in names and len(names) == 3
    for n in (0, 1, 2):
        assert t.symbols[t.decl_name("pred", "P", n) or ""] == Symbol("pred", "P", n)


def test_arity_clash_is_semantically_two_predicates() -> None:
    # If P/1 and P/0 (or P/2) were one symbol these would be contradictions or z3 errors.
    assert status(pred("P", a), Not(pred("P", a, a))) is Status.SATISFIABLE
    assert status(pred("P"), Not(pred("P", a))) is Status.SATISFIABLE


def test_predicate_constant_and_function_sharing_a_name_stay_distinct() -> None:
    t = Z3Translator()
    t.translate(And((pred("a", Const("a")), Eq(Func("a", (Const("a"),)), Const("a")))))
    keys = {Symbol("pred", "a", 1), Symbol("const", "a", 0), Symbol("func", "a", 1)}
    assert set(t.symbols.values()) == keys
    assert len({t.decl_name(*k) for k in keys}) == 3
    assert status(pred("a", Const("a")), Not(pred("a"))) is Status.SATISFIABLE


def test_first_symbol_keeps_its_source_name() -> None:
    t = Z3Translator()
    t.translate(And((pred("Man", Const("socrates")), pred("Man"))))
    assert t.decl_name("pred", "Man", 1) == "Man"
    assert t.decl_name("const", "socrates", 0) == "socrates"
    assert t.decl_name("pred", "Man", 0) == "Man~pred0"  # later clashes get kind and arity
    assert t.decl_name("pred", "Woman", 1) is None


def test_symbols_are_shared_across_translate_calls() -> None:
    t = Z3Translator()
    first = t.translate(pred("P", a))
    second = t.translate(pred("P", a))
    assert first.eq(second)
    assert len(t.symbols) == 2


def test_module_level_translate_uses_a_fresh_translator() -> None:
    expr = translate(Implies(pred("P", a), pred("Q", a)))
    assert expr.sort().name() == "Bool"


# --- binding ----------------------------------------------------------------------------------


def test_quantifiers_translate_to_z3_quantifiers() -> None:
    t = Z3Translator()
    fa = t.translate(Forall("x", pred("P", x)))
    ex = t.translate(Exists("x", pred("P", x)))
    assert fa.is_forall() and ex.is_exists()
    assert fa.num_vars() == 1 and fa.var_sort(0).name() == "U"


def test_shadowing_inner_quantifier_rebinds_the_name() -> None:
    # ∀x (P(x) → ∃x Q(x)): the inner x is a new variable, so P(a) gives *some* Q, not Q(a).
    shadow = Forall("x", Implies(pred("P", x), Exists("x", pred("Q", x))))
    assert status(shadow, pred("P", a), conjecture=Exists("y", pred("Q", y))) is Status.THEOREM
    assert status(shadow, pred("P", a), conjecture=pred("Q", a)) is Status.COUNTER_SATISFIABLE


def test_outer_binding_is_restored_after_an_inner_scope() -> None:
    # ∀x ((∃x Q(x)) ∧ P(x)): the P(x) after the inner scope refers to the outer x.
    f = Forall("x", And((Exists("x", pred("Q", x)), pred("P", x))))
    assert status(f, conjecture=pred("P", b)) is Status.THEOREM


def test_bound_variable_never_coincides_with_a_constant_of_the_same_name() -> None:
    # ∃x (P(x) ∧ ¬P(x_const)) is satisfiable; conflating the two would make it P(x) ∧ ¬P(x).
    f = Exists("x", And((pred("P", x), Not(pred("P", Const("x"))))))
    assert status(f) is Status.SATISFIABLE


def test_nested_quantifiers_over_two_variables() -> None:
    # ∀x ∃y L(x, y) does not entail ∃y ∀x L(x, y), but the converse holds.
    fe = Forall("x", Exists("y", pred("L", x, y)))
    ef = Exists("y", Forall("x", pred("L", x, y)))
    assert status(fe, conjecture=ef) is Status.COUNTER_SATISFIABLE
    assert status(ef, conjecture=fe) is Status.THEOREM


# --- connectives and equality ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        (Xor(pred("A"), pred("A")), Status.UNSATISFIABLE),
        (Iff(pred("A"), Not(pred("A"))), Status.UNSATISFIABLE),
        (Xor(pred("A"), Not(pred("A"))), Status.SATISFIABLE),
        (And((pred("A"), pred("B"), Not(pred("C")))), Status.SATISFIABLE),
        (And((pred("A"), pred("B"), Not(pred("A")))), Status.UNSATISFIABLE),
        (Not(Or((pred("A"), pred("B"), Not(pred("B"))))), Status.UNSATISFIABLE),
        (Not(Eq(a, a)), Status.UNSATISFIABLE),
    ],
)
def test_connective_semantics(formula: Formula, expected: Status) -> None:
    assert status(formula) is expected


def test_xor_is_exclusive_and_iff_is_equivalence() -> None:
    A, B = pred("A"), pred("B")
    assert status(Xor(A, B), A, conjecture=Not(B)) is Status.THEOREM
    assert status(Iff(A, B), A, conjecture=B) is Status.THEOREM
    assert status(Or((A, B)), A, conjecture=Not(B)) is Status.COUNTER_SATISFIABLE


def test_equality_is_a_congruence() -> None:
    assert status(Eq(a, b), pred("P", a), conjecture=pred("P", b)) is Status.THEOREM
    fa, fb = Func("f", (a,)), Func("f", (b,))
    assert status(Eq(a, b), conjecture=Eq(fa, fb)) is Status.THEOREM


def test_single_argument_and_or_translate_to_their_argument() -> None:
    # Not produced by the parser, but the meaning is unambiguous and must not crash.
    t = Z3Translator()
    assert t.translate(And((pred("A"),))).eq(t.translate(pred("A")))
    assert (str(t.translate(And(()))), str(t.translate(Or(())))) == ("True", "False")


# --- unsupported input ------------------------------------------------------------------------


def test_free_variable_raises_unsupported_node() -> None:
    with pytest.raises(UnsupportedNode) as info:
        translate(pred("P", Var("x")))
    assert info.value.backend == "z3" and info.value.node == Var("x")


def test_unknown_node_raises_unsupported_node() -> None:
    with pytest.raises(UnsupportedNode) as info:
        translate("P(a)")  # type: ignore[arg-type]
    assert info.value.backend == "z3" and info.value.node == "P(a)"


def test_unknown_term_raises_unsupported_node() -> None:
    with pytest.raises(UnsupportedNode):
        translate(Pred("P", (42,)))  # type: ignore[arg-type]


# --- properties -------------------------------------------------------------------------------

ATOMS = ("A", "B", "C")


def _props(depth: int) -> st.SearchStrategy[Formula]:
    atom = st.sampled_from(ATOMS).map(lambda n: Pred(n, ()))
    if depth == 0:
        return atom
    sub = _props(depth - 1)
    return st.one_of(
        atom,
        st.builds(Not, sub),
        st.lists(sub, min_size=2, max_size=3).map(lambda xs: And(tuple(xs))),
        st.lists(sub, min_size=2, max_size=3).map(lambda xs: Or(tuple(xs))),
        st.builds(Xor, sub, sub),
        st.builds(Implies, sub, sub),
        st.builds(Iff, sub, sub),
    )


def _eval(f: Formula, row: dict[str, bool]) -> bool:
    match f:
        case Pred(name=name):
            return row[name]
        case Not(body=body):
            return not _eval(body, row)
        case And(args=args):
            return all(_eval(g, row) for g in args)
        case Or(args=args):
            return any(_eval(g, row) for g in args)
        case Xor(left=left, right=right):
            return _eval(left, row) != _eval(right, row)
        case Implies(left=left, right=right):
            return (not _eval(left, row)) or _eval(right, row)
        case Iff(left=left, right=right):
            return _eval(left, row) == _eval(right, row)
    raise AssertionError(f"not propositional: {f!r}")


ROWS = [dict(zip(ATOMS, bits, strict=True)) for bits in itertools.product((False, True), repeat=3)]


@settings(max_examples=120, deadline=None, derandomize=True)
@given(f=_props(3), row=st.sampled_from(ROWS))
def test_z3_agrees_with_truth_tables(f: Formula, row: dict[str, bool]) -> None:
    table = [_eval(f, r) for r in ROWS]
    assert status(f) is (Status.SATISFIABLE if any(table) else Status.UNSATISFIABLE)
    assert status(conjecture=f) is (Status.THEOREM if all(table) else Status.COUNTER_SATISFIABLE)
    # Fixing every atom pins the formula to one row of the table.
    literals = tuple(Pred(n, ()) if v else Not(Pred(n, ())) for n, v in row.items())
    expected = Status.THEOREM if _eval(f, row) else Status.COUNTER_SATISFIABLE
    assert status(*literals, conjecture=f) is expected


def _signature(f: Formula | Term, out: set[Symbol]) -> set[Symbol]:
    match f:
        case Const(name=name):
            out.add(Symbol("const", name, 0))
        case Func(name=name, args=args):
            out.add(Symbol("func", name, len(args)))
            for t in args:
                _signature(t, out)
        case Pred(name=name, args=args):
            out.add(Symbol("pred", name, len(args)))
            for t in args:
                _signature(t, out)
        case Eq(left=left, right=right):
            _signature(left, out)
            _signature(right, out)
        case Not(body=body) | Forall(body=body) | Exists(body=body):
            _signature(body, out)
        case And(args=args) | Or(args=args):
            for g in args:
                _signature(g, out)
        case (
            Xor(left=left, right=right)
            | Implies(left=left, right=right)
            | Iff(left=left, right=right)
        ):
            _signature(left, out)
            _signature(right, out)
    return out


@settings(max_examples=200, deadline=None, derandomize=True)
@given(f=formulas())
def test_translation_never_raises_and_maps_every_symbol_back(f: Formula) -> None:
    t = Z3Translator()
    expr = t.translate(f)
    assert expr.sort().name() == "Bool"
    assert set(t.symbols.values()) == _signature(f, set())
    assert len(set(t.symbols)) == len(t.symbols.values())
