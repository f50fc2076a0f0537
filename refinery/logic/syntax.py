"""The immutable FOL syntax tree.

Every node is a frozen, slotted dataclass with tuple children, so formulas are hashable values
that can be cached and compared. `span` records where a node came from in the source text and is
excluded from equality: two formulas are equal when they say the same thing in the same shape.
Constructors never rewrite; normalisation is an explicit pass elsewhere.

Terms are `Var` (bound by an enclosing quantifier), `Const` (anything else) and `Func`
(function application). The parser decides Var vs Const by scope, so a closed formula never
contains a free `Var`; a name that looks like a variable but is unbound is a `Const` that the
linter reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class Span:
    """Half-open character range [start, end) in the source text; line/column are 1-based."""

    start: int
    end: int
    line: int = 1
    column: int = 1


@dataclass(frozen=True, slots=True)
class Var:
    """A variable occurrence, bound by an enclosing `Forall`/`Exists` of the same name."""

    name: str
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Const:
    """An individual constant such as `rina` or `gpt-3`."""

    name: str
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Func:
    """A function application `f(t1, …, tn)` used as a term (n ≥ 1)."""

    name: str
    args: tuple[Term, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


Term: TypeAlias = Var | Const | Func


@dataclass(frozen=True, slots=True)
class Pred:
    """An atomic formula `P(t1, …, tn)`; n = 0 is a propositional atom written `P`."""

    name: str
    args: tuple[Term, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Eq:
    """Equality `t1 = t2` (`t1 ≠ t2` parses as `Not(Eq(…))`)."""

    left: Term
    right: Term
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Not:
    """Negation `¬φ`."""

    body: Formula
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class And:
    """Conjunction of two or more formulas; a flat chain `a ∧ b ∧ c` is one node."""

    args: tuple[Formula, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Or:
    """Inclusive disjunction of two or more formulas."""

    args: tuple[Formula, ...]
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Xor:
    """Exclusive or `φ ⊕ ψ` (binary; chains associate to the left)."""

    left: Formula
    right: Formula
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Implies:
    """Implication `φ → ψ`."""

    left: Formula
    right: Formula
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Iff:
    """Biconditional `φ ↔ ψ`."""

    left: Formula
    right: Formula
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Forall:
    """Universal quantification of one variable; `∀x ∀y φ` is two nested nodes."""

    var: str
    body: Formula
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Exists:
    """Existential quantification of one variable."""

    var: str
    body: Formula
    span: Span | None = field(default=None, compare=False, repr=False)


Formula: TypeAlias = Pred | Eq | Not | And | Or | Xor | Implies | Iff | Forall | Exists
Quantifier: TypeAlias = Forall | Exists

__all__ = [
    "And",
    "Const",
    "Eq",
    "Exists",
    "Forall",
    "Formula",
    "Func",
    "Iff",
    "Implies",
    "Not",
    "Or",
    "Pred",
    "Quantifier",
    "Span",
    "Term",
    "Var",
    "Xor",
]
