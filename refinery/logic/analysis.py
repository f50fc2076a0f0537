"""Read-only questions about formulas: symbols and arities, bound names, vacuous quantifiers.

All functions walk the AST with an exhaustive `match`; none of them rewrites anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, assert_never

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
    Span,
    Term,
    Var,
    Xor,
)

SymbolKind = Literal["predicate", "function", "constant"]


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One use of a symbol: its kind, name, arity and where it stands."""

    kind: SymbolKind
    name: str
    arity: int
    span: Span | None


def children(f: Formula) -> tuple[Formula, ...]:
    """The direct sub-formulas of `f`."""
    match f:
        case Pred() | Eq():
            return ()
        case Not(body) | Forall(_, body) | Exists(_, body):
            return (body,)
        case And(args) | Or(args):
            return args
        case Xor(left, right) | Implies(left, right) | Iff(left, right):
            return (left, right)
        case _:
            assert_never(f)


def subformulas(f: Formula) -> Iterator[Formula]:
    """`f` and every sub-formula, pre-order."""
    stack = [f]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def _term_occurrences(t: Term) -> Iterator[Occurrence]:
    match t:
        case Var():
            return
        case Const(name, span):
            yield Occurrence("constant", name, 0, span)
        case Func(name, args, span):
            yield Occurrence("function", name, len(args), span)
            for a in args:
                yield from _term_occurrences(a)
        case _:
            assert_never(t)


def atom_terms(f: Formula) -> tuple[Term, ...]:
    """The terms an atom or an equation names directly (none for other formulas)."""
    if isinstance(f, Pred):
        return f.args
    if isinstance(f, Eq):
        return (f.left, f.right)
    return ()


def occurrences(f: Formula) -> Iterator[Occurrence]:
    """Every predicate, function and constant occurrence in `f`.

    >>> from refinery.logic.parse import parse
    >>> [(o.kind, o.name, o.arity) for o in occurrences(parse("∀x (P(x) → R(x, a))"))]
    [('predicate', 'P', 1), ('predicate', 'R', 2), ('constant', 'a', 0)]
    """
    for node in subformulas(f):
        if isinstance(node, Pred):
            yield Occurrence("predicate", node.name, len(node.args), node.span)
        for t in atom_terms(node):
            yield from _term_occurrences(t)


def bound_names(f: Formula) -> set[str]:
    """Names bound by some quantifier in `f`."""
    return {n.var for n in subformulas(f) if isinstance(n, Forall | Exists)}


def _mentions(f: Formula, var: str) -> bool:
    def in_term(t: Term) -> bool:
        match t:
            case Var(name):
                return name == var
            case Const():
                return False
            case Func(_, args):
                return any(in_term(a) for a in args)
            case _:
                assert_never(t)

    for node in subformulas(f):
        if isinstance(node, Forall | Exists) and node.var == var:
            continue  # occurrences below a re-binding belong to the inner quantifier
        if any(in_term(t) for t in atom_terms(node)):
            return True
    return False


def vacuous_quantifiers(f: Formula) -> list[Forall | Exists]:
    """Quantifiers whose variable does not occur free in their body.

    >>> from refinery.logic.parse import parse
    >>> [q.var for q in vacuous_quantifiers(parse("∀x ∃y P(x)"))]
    ['y']
    """
    out: list[Forall | Exists] = []
    for node in subformulas(f):
        if isinstance(node, Forall | Exists) and not var_free_in(node.body, node.var):
            out.append(node)
    return out


def var_free_in(f: Formula, var: str) -> bool:
    """Whether `var` occurs free in `f` (shadowing respected)."""
    match f:
        case Forall(v, body) | Exists(v, body):
            return v != var and var_free_in(body, var)
        case Pred() | Eq():
            return _mentions(f, var)
        case _:
            return any(var_free_in(c, var) for c in children(f))


def quantifier_depth(f: Formula) -> int:
    """Maximum nesting of quantifiers."""
    match f:
        case Forall(_, body) | Exists(_, body):
            return 1 + quantifier_depth(body)
        case _:
            return max((quantifier_depth(c) for c in children(f)), default=0)


def negation(f: Formula) -> Formula:
    """The negated conclusion to ask about: ``φ`` for ``¬φ``, else ``¬φ``.

    Dropping the double negation is sound and lets paired questions share a prover call: the
    negation of "Bob is not big" (``¬Big(bob)``) is the conclusion of "Bob is big".

    >>> from refinery.logic.syntax import Const, Pred
    >>> big = Pred("Big", (Const("bob"),))
    >>> negation(Not(big)) == big and negation(big) == Not(big)
    True
    """
    return f.body if isinstance(f, Not) else Not(f)
