"""Text → AST: the only module that imports lark.

`parse_formula` returns a `Parsed` (the formula plus the notation normalisations it applied) or
raises `FolSyntaxError`; `try_parse` returns the `SyntaxProblem` instead of raising, which is what
batch code wants. Lark types never leave this module.

Scope is resolved here: a name bound by an enclosing quantifier becomes a `Var`, every other
term name a `Const`; a quantifier chain followed by a parenthesised group and an operator binds
the group only, as TPTP reads it (`refinery.logic.scope`), with a notation note. Notation variants (`⟷`, `—>`, `->`, `&`, `forall`, a trailing period …)
parse to the same tree as the canonical symbols and are recorded per formula.

Nesting is bounded: a formula deeper than `MAX_DEPTH` nodes (terms included) is a `TooDeep`
problem, never a tree, so every recursive printer, translator and linter downstream stays far
from Python's recursion limit.

Well-formed formulas are read by `refinery.logic.descent` (the same grammar by hand, about five
times faster); what it cannot read cleanly comes here, so lark is the reference and the errors
are lark's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from refinery.logic.descent import CANONICAL, MAX_NESTING, QUANT_CANONICAL, read
from refinery.logic.errors import FolSyntaxError, SyntaxProblem
from refinery.logic.scope import narrow, original
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

#: The deepest formula tree accepted (nodes on the longest root-to-leaf path, terms included).
#: FOLIO's deepest formula is far below it; the recursive passes downstream (printer, TPTP, Z3,
#: lint) take one to three frames per level, so this keeps them well inside the default limit.
MAX_DEPTH = 100

# User-facing names for terminals in "expected one of" lists.
_EXPECTED_NAMES = {
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "NAME": "a name",
    "STRING": "a quoted string",
    "QUANT": "a quantifier",
    "PERIOD": "'.'",
    "$END": "end of formula",
    **{k: repr(v) for k, v in CANONICAL.items()},
}


@dataclass(frozen=True, slots=True)
class TooDeep(SyntaxProblem):
    """A formula nested deeper than `MAX_DEPTH`: refused before any recursive pass sees it."""

    @property
    def message(self) -> str:
        return f"nested too deep (limit {MAX_DEPTH})"


def _too_deep(text: str) -> TooDeep:
    return TooDeep("formula", 1, 1, text[:1], (), "too_deep", text)


@dataclass(frozen=True, slots=True)
class Parsed:
    """A successfully parsed formula and the notation normalisations applied to it."""

    formula: Formula
    notation: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark.open_from_package(
        "refinery.logic",
        "grammar.lark",
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=False,
    )


def _span(meta: Any) -> Span | None:
    if getattr(meta, "empty", True):
        return None
    return Span(meta.start_pos, meta.end_pos, meta.line, meta.column)


def _tok_span(tok: Token) -> Span:
    return Span(tok.start_pos or 0, tok.end_pos or 0, tok.line or 1, tok.column or 1)


@v_args(meta=True)
class _Build(Transformer[Token, Any]):
    """Builds AST nodes from the lark tree; records non-canonical operator spellings."""

    def __init__(self) -> None:
        super().__init__()
        self.notation: list[str] = []

    def _note(self, tok: Token, canonical: str) -> None:
        if tok.value != canonical:
            self.notation.append(f"{tok.line}:{tok.column} {tok.value!r} → {canonical!r}")

    def _op(self, tok: Token) -> str:
        self._note(tok, CANONICAL[tok.type])
        return tok.type

    # -- formulas ---------------------------------------------------------------------------
    def start(self, meta: Any, children: list[Any]) -> Formula:
        formula, period = children
        self.notation.append(f"{period.line}:{period.column} trailing '.' removed")
        return formula  # type: ignore[no-any-return]

    def iff(self, meta: Any, children: list[Any]) -> Formula:
        acc: Formula = children[0]
        for i in range(1, len(children), 2):
            self._op(children[i])
            acc = Iff(acc, children[i + 1], span=_span(meta))
        return acc

    def implies(self, meta: Any, children: list[Any]) -> Formula:
        left, tok, right = children
        self._op(tok)
        return Implies(left, right, span=_span(meta))

    def or_(self, meta: Any, children: list[Any]) -> Formula:
        # Fold left; consecutive ∨ in this chain form one n-ary Or. A parenthesised Or that
        # starts the chain stays a separate node, so (a ∨ b) ∨ c keeps its shape.
        acc: Formula = children[0]
        chain_or = False
        for i in range(1, len(children), 2):
            kind, rhs = self._op(children[i]), children[i + 1]
            if kind == "OR":
                if chain_or and isinstance(acc, Or):
                    acc = Or((*acc.args, rhs), span=_span(meta))
                else:
                    acc = Or((acc, rhs), span=_span(meta))
                chain_or = True
            else:
                acc = Xor(acc, rhs, span=_span(meta))
                chain_or = False
        return acc

    def and_(self, meta: Any, children: list[Any]) -> Formula:
        for tok in children[1::2]:
            self._op(tok)
        return And(tuple(children[0::2]), span=_span(meta))

    def negation(self, meta: Any, children: list[Any]) -> Formula:
        tok, body = children
        self._op(tok)
        return Not(body, span=_span(meta))

    def quantified(self, meta: Any, children: list[Any]) -> Formula:
        tok, var, body = children
        canonical = QUANT_CANONICAL[tok.value]
        self._note(tok, canonical)
        cls = Forall if canonical == "∀" else Exists
        return cls(var.value, body, span=_span(meta))

    def pred(self, meta: Any, children: list[Any]) -> Formula:
        name, *args = children
        return Pred(name.value, tuple(args), span=_span(meta))

    def pred0(self, meta: Any, children: list[Any]) -> Formula:
        (name,) = children
        self.notation.append(f"{name.line}:{name.column} empty argument list '()' removed")
        return Pred(name.value, (), span=_span(meta))

    def prop(self, meta: Any, children: list[Any]) -> Formula:
        (name,) = children
        return Pred(name.value, (), span=_tok_span(name))

    def eq(self, meta: Any, children: list[Any]) -> Formula:
        left, tok, right = children
        self._op(tok)
        return Eq(left, right, span=_span(meta))

    def neq(self, meta: Any, children: list[Any]) -> Formula:
        left, tok, right = children
        self._op(tok)
        return Not(Eq(left, right, span=_span(meta)), span=_span(meta))

    # -- terms ------------------------------------------------------------------------------
    def func(self, meta: Any, children: list[Any]) -> Term:
        name, *args = children
        return Func(name.value, tuple(args), span=_span(meta))

    def name(self, meta: Any, children: list[Any]) -> Term:
        (tok,) = children
        return Const(tok.value, span=_tok_span(tok))

    def string(self, meta: Any, children: list[Any]) -> Term:
        (tok,) = children
        return Const(tok.value, span=_tok_span(tok))


def _bind_term(term: Term, bound: frozenset[str]) -> Term:
    match term:
        case Const(name, span) if name in bound:
            return Var(name, span=span)
        case Func(name, args, span):
            return Func(name, tuple(_bind_term(a, bound) for a in args), span=span)
        case _:
            return term


def _bind(f: Formula, bound: frozenset[str]) -> Formula:
    """Turn names bound by an enclosing quantifier into `Var`s (innermost binder wins)."""
    match f:
        case Pred(name, args, span):
            return Pred(name, tuple(_bind_term(a, bound) for a in args), span=span) if bound else f
        case Eq(left, right, span):
            return Eq(_bind_term(left, bound), _bind_term(right, bound), span=span)
        case Not(body, span):
            return Not(_bind(body, bound), span=span)
        case And(args, span):
            return And(tuple(_bind(a, bound) for a in args), span=span)
        case Or(args, span):
            return Or(tuple(_bind(a, bound) for a in args), span=span)
        case Xor() | Implies() | Iff():
            return dataclasses.replace(f, left=_bind(f.left, bound), right=_bind(f.right, bound))
        case Forall(var, body, span):
            return Forall(var, _bind(body, bound | {var}), span=span)
        case Exists(var, body, span):
            return Exists(var, _bind(body, bound | {var}), span=span)
    raise AssertionError(f"unhandled node {f!r}")  # pragma: no cover


def _problem(err: UnexpectedInput, text: str, field: str) -> SyntaxProblem:
    line = getattr(err, "line", 1) or 1
    column = getattr(err, "column", 1) or 1
    expected: set[str] = set()
    if isinstance(err, UnexpectedToken):
        tok = err.token
        at_end = tok.type == "$END"
        found = "end of formula" if at_end else str(tok.value)
        expected = set(err.expected)
        if at_end:  # lark reports EOF at column 1 of line 1; point past the last character
            line, column = text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1
        kind = "unexpected_end" if at_end else "unexpected_token"
    elif isinstance(err, UnexpectedCharacters):
        found, kind = err.char, "unknown_symbol"
        expected = set(err.allowed or ())
    elif isinstance(err, UnexpectedEOF):
        found, kind = "end of formula", "unexpected_end"
        expected = set(err.expected)
        line, column = text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1
    else:  # pragma: no cover - lark has no other UnexpectedInput subclasses
        found, kind = "?", "unexpected_token"
    if text.count("(") != text.count(")"):
        kind = "unbalanced_parentheses"
    names = sorted({_EXPECTED_NAMES.get(e, e) for e in expected if not e.startswith("__")})
    return SyntaxProblem(field, line, column, found, tuple(names), kind, text)


def _tree_depth(tree: Tree[Token]) -> int:
    """Depth of a lark tree, computed without recursion (the tree may be thousands deep)."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, Tree))
    return deepest


def depth(formula: Formula) -> int:
    """Nodes on the longest root-to-leaf path of `formula`, terms included; no recursion.

    >>> depth(parse("¬¬P(f(a))"))
    5
    """
    deepest = 0
    stack: list[tuple[Formula | Term, int]] = [(formula, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        children: tuple[Formula | Term, ...]
        match node:
            case Pred(args=terms) | Func(args=terms):
                children = terms
            case And(args) | Or(args):
                children = args
            case Eq(left, right) | Xor(left, right) | Implies(left, right) | Iff(left, right):
                children = (left, right)
            case Not(body=body) | Forall(body=body) | Exists(body=body):
                children = (body,)
            case _:
                children = ()
        stack.extend((c, level + 1) for c in children)
    return deepest


@lru_cache(maxsize=65536)
def _parse_cached(text: str) -> Parsed | SyntaxProblem:
    wide = _read(text)
    narrowed = None if isinstance(wide, SyntaxProblem) else narrow(text)
    if narrowed is None or isinstance(wide, SyntaxProblem):
        return wide
    again = _read(narrowed.text)
    if isinstance(again, SyntaxProblem):
        return wide  # never expected: the narrowing only adds a balanced pair of parentheses
    notes = [(_position(n), n) for n in wide.notation] + [
        (_position(n), n) for _, n in narrowed.notes
    ]
    formula = _respan(again.formula, narrowed.inserted, text)
    return Parsed(formula, tuple(n for _, n in sorted(notes)))


def _read(text: str) -> Parsed | SyntaxProblem:
    fast = read(text)  # the same tree, five times faster; lark reads (and words) the rest
    if fast is not None and depth(fast[0]) <= MAX_NESTING:
        return Parsed(_bind(fast[0], frozenset()), fast[1])
    return lark_parse(text)


def _position(note: str) -> tuple[int, ...]:
    return tuple(int(x) for x in note.split()[0].split(":"))


def _respan(node: Any, inserted: tuple[int, ...], text: str) -> Any:
    """`node` (a formula or a term) with every span moved from the narrowed text back to `text`."""
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, Span):
            start, end = original(value.start, inserted), original(value.end, inserted)
            line = text.count("\n", 0, start) + 1
            column = start - (text.rfind("\n", 0, start) + 1) + 1
            changes[f.name] = Span(start, end, line, column)
        elif isinstance(value, tuple):
            changes[f.name] = tuple(_respan(v, inserted, text) for v in value)
        elif dataclasses.is_dataclass(value):
            changes[f.name] = _respan(value, inserted, text)
    return dataclasses.replace(node, **changes)


def lark_parse(text: str) -> Parsed | SyntaxProblem:
    """The reference reader: `text` through the lark grammar alone, uncached (`try_parse` is
    what callers want; this is what `refinery.logic.descent` is tested against)."""
    if not text.strip():
        return SyntaxProblem("formula", 1, 1, "end of formula", (), "empty", text)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as err:
        return _problem(err, text, "formula")
    # lark's transformer recurses once per level: refuse deep trees before it runs. A chain of
    # ↔ or ⊕ is one lark node but a left-folded AST chain, so the AST is measured too.
    if _tree_depth(tree) > MAX_DEPTH:
        return _too_deep(text)
    build = _Build()
    try:
        raw = build.transform(tree)
    except VisitError as err:  # the caller's own stack may already be deep
        if isinstance(err.orig_exc, RecursionError):
            return _too_deep(text)
        raise
    except RecursionError:
        return _too_deep(text)
    if depth(raw) > MAX_DEPTH:
        return _too_deep(text)
    notes = sorted(build.notation, key=lambda n: tuple(int(x) for x in n.split()[0].split(":")))
    return Parsed(_bind(raw, frozenset()), tuple(notes))


def try_parse(text: str, *, field: str = "formula") -> Parsed | SyntaxProblem:
    """Parse `text`; return a `SyntaxProblem` (naming `field`) instead of raising.

    >>> try_parse("∀x (Dog(x) → Animal(x))").formula
    Forall(var='x', body=Implies(left=Pred(name='Dog', args=(Var(name='x'),)), right=Pred(name='Animal', args=(Var(name='x'),))))
    >>> print(try_parse("P(a) ∧", field="premises[2]").render())
    premises[2]:1:7: unexpected end of formula; expected one of: '(', '¬', a name, a quantifier, a quoted string
      P(a) ∧
            ^
    """
    result = _parse_cached(text)
    if isinstance(result, SyntaxProblem) and result.field != field:
        return dataclasses.replace(result, field=field)
    return result


def parses(text: str) -> Formula | None:
    """The formula `text` denotes, or None when it does not parse.

    >>> parses("P(a) ∧ Q(b)") is not None, parses("P(a) ∧")
    (True, None)
    """
    result = try_parse(text)
    return None if isinstance(result, SyntaxProblem) else result.formula


def parse_formula(text: str, *, field: str = "formula") -> Parsed:
    """Parse `text` or raise `FolSyntaxError` naming `field`, line, column and expected tokens."""
    result = try_parse(text, field=field)
    if isinstance(result, SyntaxProblem):
        raise FolSyntaxError(result)
    return result


def canonical_symbols(text: str) -> str:
    """`text` with every operator in its canonical symbol, and nothing else changed.

    What an annotator types in ASCII is stored in the dataset's notation; spacing, parentheses
    and names stay as typed. Text that does not parse comes back unchanged.

    >>> canonical_symbols("exists x (Dog(x) & ~Cat(x)) -> Pet(rex) | x != rex")
    '∃x (Dog(x) ∧ ¬Cat(x)) → Pet(rex) ∨ x ≠ rex'
    >>> canonical_symbols("∀x (P(x) → Q(x)") == "∀x (P(x) → Q(x)"
    True
    """
    if isinstance(_parse_cached(text), SyntaxProblem):
        return text
    tokens = (
        _parser()
        .parse(text)
        .scan_values(lambda v: isinstance(v, Token) and (v.type in CANONICAL or v.type == "QUANT"))
    )
    out, pos = [], 0
    for tok in sorted(tokens, key=lambda t: t.start_pos or 0):
        start, end = tok.start_pos or 0, tok.end_pos or 0
        canonical = CANONICAL.get(tok.type) or QUANT_CANONICAL[tok.value]
        if tok.value == canonical:
            continue
        if tok.type == "QUANT":  # "forall x" -> "∀x": the symbol binds without a space
            while end < len(text) and text[end].isspace():
                end += 1
        out += [text[pos:start], canonical]
        pos = end
    return "".join([*out, text[pos:]])


def parse(text: str) -> Formula:
    """Shorthand: the formula of `parse_formula(text)`."""
    return parse_formula(text).formula
