"""AST → canonical FOL text in FOLIO's Unicode notation.

The output re-parses to an equal AST (`parse(to_text(f)) == f`). Parentheses are added where
precedence needs them, where the tree's shape must survive (a nested `Or` inside an `Or`), and
around mixed ∨/⊕ operands for readability. A quantifier that is an operand of anything but
another quantifier is parenthesised, because its body would otherwise extend to the right.
"""

from __future__ import annotations

from typing import assert_never

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

# Binding strength, loosest first; quantifiers are handled separately.
_IFF, _IMPLIES, _OR, _AND, _NOT, _ATOM = 1, 2, 3, 4, 5, 6


def term_text(t: Term) -> str:
    """Print a term.

    >>> term_text(Func("f", (Var("x"), Const("a"))))
    'f(x, a)'
    """
    match t:
        case Var(name) | Const(name):
            return name
        case Func(name, args):
            return f"{name}({', '.join(term_text(a) for a in args)})"
        case _:
            assert_never(t)


def _prec(f: Formula) -> int:
    match f:
        case Iff():
            return _IFF
        case Implies():
            return _IMPLIES
        case Or() | Xor():
            return _OR
        case And():
            return _AND
        case Not():
            return _NOT
        case Pred() | Eq():
            return _ATOM
        case Forall() | Exists():
            return 0
        case _:
            assert_never(f)


def _wrap(f: Formula, needs: bool) -> str:
    text = to_text(f)
    return f"({text})" if needs or isinstance(f, Forall | Exists) else text


def to_text(f: Formula) -> str:
    """Print a formula in canonical notation.

    >>> from refinery.logic.parse import parse
    >>> to_text(parse("forall x (Dog(x) -> Animal(x) & ~Cat(x))"))
    '∀x (Dog(x) → Animal(x) ∧ ¬Cat(x))'
    >>> to_text(parse("(a ∨ b) ∨ c ⊕ d"))
    '((a ∨ b) ∨ c) ⊕ d'
    """
    match f:
        case Pred(name, args):
            return f"{name}({', '.join(term_text(a) for a in args)})" if args else name
        case Eq(left, right):
            return f"{term_text(left)} = {term_text(right)}"
        case Not(Eq(left, right)):
            return f"{term_text(left)} ≠ {term_text(right)}"
        case Not(body):
            return "¬" + _wrap(body, _prec(body) < _NOT)
        case And(args):
            return " ∧ ".join(_wrap(a, _prec(a) <= _AND) for a in args)
        case Or(args):
            # any Or/Xor operand gets parentheses: keeps nested Or shape and mixed ∨/⊕ readable
            return " ∨ ".join(_wrap(a, _prec(a) <= _OR) for a in args)
        case Xor(left, right):
            return f"{_wrap(left, _prec(left) < _OR or isinstance(left, Or))} ⊕ " + _wrap(
                right, _prec(right) <= _OR
            )
        case Implies(left, right):
            return (
                f"{_wrap(left, _prec(left) <= _IMPLIES)} → {_wrap(right, _prec(right) < _IMPLIES)}"
            )
        case Iff(left, right):
            return f"{_wrap(left, _prec(left) < _IFF)} ↔ {_wrap(right, _prec(right) <= _IFF)}"
        case Forall(var, body) | Exists(var, body):
            symbol = "∀" if isinstance(f, Forall) else "∃"
            if isinstance(body, Forall | Exists):
                return f"{symbol}{var} {to_text(body)}"
            return f"{symbol}{var} ({to_text(body)})"
        case _:
            assert_never(f)
