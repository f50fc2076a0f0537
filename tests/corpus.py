"""The shared formula corpus: one table feeds the parser, printer, TPTP emitter and every prover.

Each row: a name, the FOL text, the tree the parser must build, and the status a prover must give
when the formula is posed as a conjecture with no axioms (THEOREM iff it is valid). The expected
TPTP text lives in tests/golden/tptp/corpus_<name>.p.
"""

from __future__ import annotations

from typing import NamedTuple

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
    Var,
    Xor,
)
from refinery.prove.verdict import Status

x, y = Var("x"), Var("y")
a, b = Const("a"), Const("b")


def P(t: object) -> Pred:
    return Pred("P", (t,))  # type: ignore[arg-type]


def Q(t: object) -> Pred:
    return Pred("Q", (t,))  # type: ignore[arg-type]


def L(t: object, u: object) -> Pred:
    return Pred("L", (t, u))  # type: ignore[arg-type]


class Example(NamedTuple):
    name: str
    fol: str
    tree: Formula
    status: Status  # as a conjecture with no axioms


THEOREM, COUNTER = Status.THEOREM, Status.COUNTER_SATISFIABLE

CORPUS: tuple[Example, ...] = (
    Example("excluded_middle", "P(a) ∨ ¬P(a)", Or((P(a), Not(P(a)))), THEOREM),
    Example("atom", "P(a)", P(a), COUNTER),
    # the quantifier's body runs to the closing parenthesis: ∀x ((P(x) → Q(x)) ∧ P(a))
    Example(
        "modus_ponens",
        "(∀x (P(x) → Q(x)) ∧ P(a)) → Q(a)",
        Implies(Forall("x", And((Implies(P(x), Q(x)), P(a)))), Q(a)),
        THEOREM,
    ),
    Example(
        "modus_ponens_scoped",
        "((∀x (P(x) → Q(x))) ∧ P(a)) → Q(a)",
        Implies(And((Forall("x", Implies(P(x), Q(x))), P(a))), Q(a)),
        THEOREM,
    ),
    Example(
        "xor_not_or",
        "(P(a) ⊕ Q(a)) → (P(a) ∨ Q(a))",
        Implies(Xor(P(a), Q(a)), Or((P(a), Q(a)))),
        THEOREM,
    ),
    Example(
        "or_not_xor",
        "(P(a) ∨ Q(a)) → (P(a) ⊕ Q(a))",
        Implies(Or((P(a), Q(a))), Xor(P(a), Q(a))),
        COUNTER,
    ),
    Example(
        "xor_chain_parity",
        "P(a) ⊕ P(a) ⊕ P(a) ↔ P(a)",
        Iff(Xor(Xor(P(a), P(a)), P(a)), P(a)),
        THEOREM,
    ),
    Example(
        "iff_commutes",
        "(P(a) ↔ Q(a)) → (Q(a) ↔ P(a))",
        Implies(Iff(P(a), Q(a)), Iff(Q(a), P(a))),
        THEOREM,
    ),
    Example(
        "implication_right_assoc", "P(a) → Q(a) → P(a)", Implies(P(a), Implies(Q(a), P(a))), THEOREM
    ),
    Example(
        "quantifier_swap",
        "∃x ∀y L(x, y) → ∀y ∃x L(x, y)",
        Exists("x", Forall("y", Implies(L(x, y), Forall("y", Exists("x", L(x, y)))))),
        COUNTER,
    ),
    Example(
        "quantifier_swap_scoped",
        "(∃x ∀y L(x, y)) → ∀y ∃x L(x, y)",
        Implies(Exists("x", Forall("y", L(x, y))), Forall("y", Exists("x", L(x, y)))),
        THEOREM,
    ),
    Example("constants_not_distinct", "a ≠ b", Not(Eq(a, b)), COUNTER),
    Example(
        "equality_substitution",
        "a = b ∧ P(a) → P(b)",
        Implies(And((Eq(a, b), P(a))), P(b)),
        THEOREM,
    ),
    Example(
        "shadowing",
        "(∀x (P(x) → ∃x Q(x))) → (P(a) → ∃y Q(y))",
        Implies(Forall("x", Implies(P(x), Exists("x", Q(x)))), Implies(P(a), Exists("y", Q(y)))),
        THEOREM,
    ),
    Example(
        # a quantifier and its group before an operator bind the group only, as TPTP reads it
        # (`refinery.logic.scope`): the same tree as "shadowing"
        "shadowing_group_scope",
        "∀x (P(x) → ∃x Q(x)) → (P(a) → ∃y Q(y))",
        Implies(Forall("x", Implies(P(x), Exists("x", Q(x)))), Implies(P(a), Exists("y", Q(y)))),
        THEOREM,
    ),
    Example(
        "shadowing_wide_scope",
        "∀x ((P(x) → ∃x Q(x)) → (P(a) → ∃y Q(y)))",
        Forall("x", Implies(Implies(P(x), Exists("x", Q(x))), Implies(P(a), Exists("y", Q(y))))),
        COUNTER,
    ),
    Example(
        "drinker", "∃x (P(x) → ∀y P(y))", Exists("x", Implies(P(x), Forall("y", P(y)))), THEOREM
    ),
    Example(
        "function_term",
        "∀x ((P(x) → P(f(x))) ∧ P(a) → P(f(f(a))))",
        Forall(
            "x",
            Implies(
                And((Implies(P(x), P(Func("f", (x,)))), P(a))), P(Func("f", (Func("f", (a,)),)))
            ),
        ),
        COUNTER,
    ),
    Example(
        "function_term_scoped",
        "(∀x (P(x) → P(f(x)))) ∧ P(a) → P(f(f(a)))",
        Implies(
            And((Forall("x", Implies(P(x), P(Func("f", (x,))))), P(a))),
            P(Func("f", (Func("f", (a,)),))),
        ),
        THEOREM,
    ),
    Example(
        "odd_names",
        "Planet(pSOJ318.5-22) ∧ SoldAt(avocado, nica'sMarket) → Planet(pSOJ318.5-22)",
        Implies(
            And(
                (
                    Pred("Planet", (Const("pSOJ318.5-22"),)),
                    Pred("SoldAt", (Const("avocado"), Const("nica'sMarket"))),
                )
            ),
            Pred("Planet", (Const("pSOJ318.5-22"),)),
        ),
        THEOREM,
    ),
    Example("arity_overload", "P(a) → P(a, b)", Implies(P(a), Pred("P", (a, b))), COUNTER),
)
