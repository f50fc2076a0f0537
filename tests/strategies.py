"""Hypothesis strategies for random formulas over a small signature (shared by property tests)."""

from __future__ import annotations

from hypothesis import strategies as st

from refinery.logic.syntax import (
    And,
    Const,
    Eq,
    Exists,
    Forall,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Pred,
    Term,
    Var,
    Xor,
)

CONSTANTS = ("a", "b", "gpt-3", "nica'sMarket")
VARIABLES = ("x", "y")


def terms(bound: tuple[str, ...]) -> st.SearchStrategy[Term]:
    consts = st.sampled_from(CONSTANTS).map(Const)
    if not bound:
        return consts
    return st.one_of(consts, st.sampled_from(bound).map(Var))


def atoms(bound: tuple[str, ...]) -> st.SearchStrategy[Formula]:
    return st.one_of(
        st.sampled_from(("R", "S")).map(lambda n: Pred(n, ())),
        st.builds(lambda n, t: Pred(n, (t,)), st.sampled_from(("P", "Q")), terms(bound)),
        st.builds(lambda t, u: Pred("L", (t, u)), terms(bound), terms(bound)),
        st.builds(Eq, terms(bound), terms(bound)),
    )


def formulas(bound: tuple[str, ...] = (), depth: int = 3) -> st.SearchStrategy[Formula]:
    """Closed formulas (every Var bound) of bounded depth, with every connective and quantifier."""
    if depth == 0:
        return atoms(bound)
    sub = st.deferred(lambda: formulas(bound, depth - 1))
    quantified = st.sampled_from(VARIABLES).flatmap(
        lambda v: st.builds(
            lambda cls, body: cls(v, body),
            st.sampled_from((Forall, Exists)),
            formulas(tuple(dict.fromkeys((*bound, v))), depth - 1),
        )
    )
    return st.one_of(
        atoms(bound),
        st.builds(Not, sub),
        st.builds(lambda xs: And(tuple(xs)), st.lists(sub, min_size=2, max_size=3)),
        st.builds(lambda xs: Or(tuple(xs)), st.lists(sub, min_size=2, max_size=3)),
        st.builds(Xor, sub, sub),
        st.builds(Implies, sub, sub),
        st.builds(Iff, sub, sub),
        quantified,
    )
