"""AST → TPTP `fof` problem text, plus the map from emitted symbols back to source names.

This module owns the TPTP rendering of formulas and the symbol encoding. Everything is built from
the AST, never from source text, so no source name can change the structure of a problem:
symbols are ASCII `lower_word`s made by an injective, reversible encoding of (kind, name, arity),
and the header comment carries no source text.

Symbol encoding (`encode_symbol`): a kind prefix (`p_` predicate, `f_` function, `c_` constant),
then the name with every character outside [A-Za-z0-9] escaped (`_` → `__`, any other character →
`_u<hex code point>_`), then `_<arity>` when the arity is non-zero. In the escaped name an
underscore is always followed by `_` or `u`, so the arity suffix (underscore + digit) cannot be
confused with it, and `decode_symbol` undoes the encoding. The arity suffix keeps a predicate
used with two arities as two symbols, which E requires.

Output is deterministic: axioms are `p1`…`pn` in order, the conjecture is `goal`, bound
variables are `X1`, `X2`, … in order of binding within each formula (so shadowing stays correct),
and every non-atomic sub-formula is parenthesised.

>>> from refinery.logic.syntax import Const, Forall, Implies, Pred, Var
>>> rule = Forall("x", Implies(Pred("Man", (Var("x"),)), Pred("Mortal", (Var("x"),))))
>>> print(problem_to_tptp([rule], Pred("Mortal", (Const("socrates"),))).text)
% FOL Refinery problem: 1 axiom, with goal
fof(p1, axiom, (![X1]: (p_Man_1(X1) => p_Mortal_1(X1)))).
fof(goal, conjecture, p_Mortal_1(c_socrates)).
<BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Never, NoReturn

from refinery.errors import RefineryError, UnsupportedNode
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

SymbolKind = Literal["predicate", "function", "constant"]
Symbol = tuple[SymbolKind, str, int]

_PREFIX: dict[SymbolKind, str] = {"predicate": "p_", "function": "f_", "constant": "c_"}
_KIND_OF_PREFIX: dict[str, SymbolKind] = {v: k for k, v in _PREFIX.items()}
_PLAIN = re.compile(r"[A-Za-z0-9]")
_HEX_ESCAPE = re.compile(r"u([0-9a-f]+)_")
_ARITY = re.compile(r"([0-9]+)")


class FreeVariableError(RefineryError, ValueError):
    """A `Var` occurs outside any quantifier binding it: the AST was built wrongly."""


@dataclass(frozen=True, slots=True)
class TptpProblem:
    """A TPTP problem file and the map from each emitted symbol to (kind, source name, arity)."""

    text: str
    symbols: dict[str, Symbol]


@lru_cache(maxsize=65536)  # a dataset reuses a few thousand names across all its questions
def encode_symbol(kind: SymbolKind, name: str, arity: int) -> str:
    """The TPTP `lower_word` for a source symbol; injective over (kind, name, arity).

    >>> encode_symbol("predicate", "Man", 1), encode_symbol("constant", "gpt-3", 0)
    ('p_Man_1', 'c_gpt_u2d_3')
    """
    if arity < 0:
        raise ValueError(f"arity must be >= 0, got {arity}")
    escaped = "".join(_escape_char(ch) for ch in name)
    return f"{_PREFIX[kind]}{escaped}_{arity}" if arity else f"{_PREFIX[kind]}{escaped}"


def _escape_char(ch: str) -> str:
    if _PLAIN.fullmatch(ch):
        return ch
    return "__" if ch == "_" else f"_u{ord(ch):x}_"


def decode_symbol(symbol: str) -> Symbol:
    """Invert `encode_symbol`; raises `ValueError` on a string it could not have produced.

    >>> decode_symbol("c_gpt_u2d_3")
    ('constant', 'gpt-3', 0)
    """
    kind = _KIND_OF_PREFIX.get(symbol[:2])
    if kind is None:
        raise ValueError(f"not an encoded symbol: {symbol!r}")
    out: list[str] = []
    i, n = 2, len(symbol)
    while i < n:
        ch = symbol[i]
        if ch != "_":
            if not _PLAIN.fullmatch(ch):
                raise ValueError(f"bad character {ch!r} in {symbol!r}")
            out.append(ch)
            i += 1
        elif symbol.startswith("__", i):
            out.append("_")
            i += 2
        elif (hexm := _HEX_ESCAPE.match(symbol, i + 1)) is not None and len(hexm.group(1)) <= 6:
            out.append(chr(int(hexm.group(1), 16)))
            i = hexm.end()
        elif (arity := _ARITY.fullmatch(symbol, i + 1)) is not None and arity.group(1)[0] != "0":
            return kind, "".join(out), int(arity.group(1))
        else:
            raise ValueError(f"bad escape at {i} in {symbol!r}")
    return kind, "".join(out), 0


def problem_to_tptp(axioms: Sequence[Formula], conjecture: Formula | None) -> TptpProblem:
    """Render axioms (`p1`…`pn`, role axiom) and an optional conjecture (`goal`) as TPTP fof.

    Parameters:
        axioms: closed formulas, in the order they are numbered.
        conjecture: the formula to prove, or None for a consistency question.

    Returns:
        The problem text (one `fof` statement per line after a header comment) and the symbol
        map, sorted by emitted symbol.

    Raises:
        UnsupportedNode: a node type this translation has no rule for.
        FreeVariableError: a `Var` that no enclosing quantifier binds.
    """
    return problems_to_tptp(axioms, [conjecture])[0]


def problems_to_tptp(
    axioms: Sequence[Formula], conjectures: Sequence[Formula | None]
) -> list[TptpProblem]:
    """`problem_to_tptp` for each conjecture over the same axioms, rendering the axioms once
    (a story's questions share them: on ProofWriter they are most of the text)."""
    shared: dict[str, Symbol] = {}
    plural = "" if len(axioms) == 1 else "s"
    body = [f"fof(p{i}, axiom, {_Emitter(shared).formula(a)})." for i, a in enumerate(axioms, 1)]
    out = []
    for conjecture in conjectures:
        symbols = dict(shared)
        lines = [
            f"% FOL Refinery problem: {len(axioms)} axiom{plural}, "
            + ("no goal" if conjecture is None else "with goal"),
            *body,
        ]
        if conjecture is not None:
            lines.append(f"fof(goal, conjecture, {_Emitter(symbols).formula(conjecture)}).")
        out.append(TptpProblem("\n".join(lines) + "\n", dict(sorted(symbols.items()))))
    return out


class _Emitter:
    """Renders one formula; holds the bound-variable numbering, which restarts per formula."""

    def __init__(self, symbols: dict[str, Symbol]) -> None:
        self._symbols = symbols
        self._bound: dict[str, str] = {}  # source variable → TPTP variable, innermost binding
        self._next_var = 0

    def _symbol(self, kind: SymbolKind, name: str, arity: int) -> str:
        sym = encode_symbol(kind, name, arity)
        self._symbols[sym] = (kind, name, arity)
        return sym

    def formula(self, f: Formula) -> str:
        """A TPTP unit formula: atoms bare, everything else in parentheses."""
        match f:
            case Pred(name, args):
                sym = self._symbol("predicate", name, len(args))
                return f"{sym}({self._terms(args)})" if args else sym
            case Eq(left, right):
                return f"({self.term(left)} = {self.term(right)})"
            case Not(body):
                return f"~{self.formula(body)}"
            case And(args):
                return self._chain("&", "$true", args)
            case Or(args):
                return self._chain("|", "$false", args)
            case Xor(left, right):
                return self._binary("<~>", left, right)
            case Implies(left, right):
                return self._binary("=>", left, right)
            case Iff(left, right):
                return self._binary("<=>", left, right)
            case Forall(var, body):
                return self._quantified("!", var, body)
            case Exists(var, body):
                return self._quantified("?", var, body)
            case _:
                _unsupported(f)

    def term(self, t: Term) -> str:
        match t:
            case Var(name):
                if name not in self._bound:
                    raise FreeVariableError(f"tptp: variable {name!r} is not bound: {t!r}")
                return self._bound[name]
            case Const(name):
                return self._symbol("constant", name, 0)
            case Func(name, args):
                sym = self._symbol("function", name, len(args))
                return f"{sym}({self._terms(args)})" if args else sym
            case _:
                _unsupported(t)

    def _terms(self, args: Sequence[Term]) -> str:
        return ", ".join(self.term(a) for a in args)

    def _chain(self, op: str, empty: str, args: Sequence[Formula]) -> str:
        # The AST promises two or more arguments; degenerate nodes still get a sound rendering.
        if not args:
            return empty
        if len(args) == 1:
            return self.formula(args[0])
        return "(" + f" {op} ".join(self.formula(a) for a in args) + ")"

    def _binary(self, op: str, left: Formula, right: Formula) -> str:
        return f"({self.formula(left)} {op} {self.formula(right)})"

    def _quantified(self, quant: str, var: str, body: Formula) -> str:
        self._next_var += 1
        tptp_var = f"X{self._next_var}"
        outer = self._bound.get(var)
        self._bound[var] = tptp_var
        try:
            return f"({quant}[{tptp_var}]: {self.formula(body)})"
        finally:
            _restore(self._bound, var, outer)


def _restore(bound: dict[str, str], var: str, outer: str | None) -> None:
    if outer is None:
        del bound[var]
    else:
        bound[var] = outer


def _unsupported(node: Never) -> NoReturn:
    # Typed `Never` so mypy proves the matches exhaustive (as `assert_never` would), while at run
    # time a stray object still gets the project's own error rather than an AssertionError.
    raise UnsupportedNode(node, "tptp")
