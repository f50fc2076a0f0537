"""Addressing and replacing sub-formulas: the one place formulas are rebuilt node by node.

A `Path` is the sequence of child indices from the root (`children` order: the body of a
quantifier or ¬, the arguments of ∧/∨, the left then right side of ⊕ → ↔). `nodes` lists every
sub-formula with its path, `replace` rebuilds a formula with one sub-formula swapped; both keep
every other node (and its source span) as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import assert_never

from refinery.logic.analysis import children
from refinery.logic.syntax import (
    And,
    Eq,
    Exists,
    Forall,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Pred,
    Xor,
)

Path = tuple[int, ...]


def nodes(f: Formula, path: Path = ()) -> Iterator[tuple[Path, Formula]]:
    """Every sub-formula with its path, pre-order.

    >>> from refinery.logic.parse import parse
    >>> [(p, type(n).__name__) for p, n in nodes(parse("∀x (P(x) → ¬Q(x))"))]
    [((), 'Forall'), ((0,), 'Implies'), ((0, 0), 'Pred'), ((0, 1), 'Not'), ((0, 1, 0), 'Pred')]
    """
    yield path, f
    for i, child in enumerate(children(f)):
        yield from nodes(child, (*path, i))


def at(f: Formula, path: Path) -> Formula:
    """The sub-formula at `path`."""
    for i in path:
        f = children(f)[i]
    return f


def replace(f: Formula, path: Path, new: Formula) -> Formula:
    """`f` with the sub-formula at `path` replaced by `new`.

    >>> from refinery.logic.parse import parse
    >>> from refinery.logic.printer import to_text
    >>> to_text(replace(parse("∀x (P(x) → Q(x))"), (0, 1), parse("¬Q(x)")))
    '∀x (P(x) → ¬Q(x))'
    """
    if not path:
        return new
    head, rest = path[0], path[1:]
    match f:
        case Pred() | Eq():
            raise IndexError(f"an atom has no sub-formula {path}")
        case Not(body):
            return Not(replace(body, rest, new), f.span)
        case Forall(var, body):
            return Forall(var, replace(body, rest, new), f.span)
        case Exists(var, body):
            return Exists(var, replace(body, rest, new), f.span)
        case And(args) | Or(args):
            parts = list(args)
            parts[head] = replace(parts[head], rest, new)
            return type(f)(tuple(parts), f.span)
        case Xor(left, right) | Implies(left, right) | Iff(left, right):
            if head == 0:
                return type(f)(replace(left, rest, new), right, f.span)
            return type(f)(left, replace(right, rest, new), f.span)
        case _:
            assert_never(f)
