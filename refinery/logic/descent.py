"""A fast reader for well-formed formulas; `refinery.logic.parse` and its lark grammar stay the
reference.

A FOLIO-sized check parses thousands of formulas, and lark's LALR parser with position tracking
spends about 0.25 ms on each; this hand-written recursive-descent reader of the same grammar
(`grammar.lark`: same tokens, same precedence, the same spans and notation notes) spends about a
fifth of that. It reads only what it can read cleanly: an unknown character, a token where the
grammar has no place for it, or nesting deeper than `MAX_NESTING` returns None, and `parse` asks
lark, which also words the error. A differential test (tests/logic/test_descent.py) holds the two
to identical trees, spans and notes on the datasets' formulas and on generated ones.
"""

from __future__ import annotations

import bisect
import re

from refinery.errors import RefineryError
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
    Xor,
)

#: Deeper nesting (¬, quantifiers, parentheses, → chains, function terms) is left to lark, which
#: applies the depth limit; FOLIO's deepest formulas nest about a dozen levels.
MAX_NESTING = 40

#: Canonical spelling of each operator terminal; anything else is a recorded notation variant.
CANONICAL = {
    "NOT": "¬",
    "AND": "∧",
    "OR": "∨",
    "XOR": "⊕",
    "IMPLIES": "→",
    "IFF": "↔",
    "EQ": "=",
    "NEQ": "≠",
}
QUANT_CANONICAL = {"∀": "∀", "∃": "∃", "forall": "∀", "exists": "∃"}

# The grammar's terminals in the order lark's lexer tries them: priority, then the widest
# match first, each terminal's spellings longest first. Where two terminals could match at one
# place the first wins, as in lark; where lark's contextual lexer would pick another terminal,
# the parser below meets a token it has no place for and hands the text to lark.
_TERMINALS = (
    ("QUANT", r"forall(?![A-Za-z0-9_])|exists(?![A-Za-z0-9_])|∀|∃"),
    ("XOR", r"<\+>|⊕"),
    ("IMPLIES", r"-->|->|=>|—>|–>|→|⇒|⟶"),
    ("IFF", r"<->|<=>|↔|⇔|⟷|⟺|≡"),
    ("AND", r"&&|/\\|∧|&|\^"),
    ("OR", r"\|\||\\/|∨|\|"),
    ("EQ", r"==|="),
    ("NEQ", r"!=|≠"),
    ("NOT", r"¬|~|!"),
    ("PERIOD", r"\."),
    ("LPAR", r"\("),
    ("RPAR", r"\)"),
    ("COMMA", r","),
    ("NAME", r"\w+(?:[-.'’]\w+)*\+*"),
    ("STRING", r'"[^"\n]*"'),
    ("WS", "[ \t\f\r\n\u00a0\u200b]+"),
)
_TOKEN = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _TERMINALS))

#: Every operator spelling this reader knows, by terminal (a test compares it with the grammar's).
SPELLINGS = dict(_TERMINALS)


class _Unread(RefineryError):
    """This reader cannot read the text cleanly: lark decides (never leaves `read`)."""


Token = tuple[str, str, int, int]  # kind, text, start, end


def _tokens(text: str) -> list[Token]:
    out: list[Token] = []
    pos, size = 0, len(text)
    match = _TOKEN.match
    while pos < size:
        m = match(text, pos)
        if m is None:
            raise _Unread
        kind, end = m.lastgroup, m.end()
        if kind != "WS":
            out.append((kind or "", m.group(), pos, end))
        pos = end
    out.append(("$END", "", size, size))
    return out


class _Reader:
    """One formula's tokens; every method returns a node and its container (start, end): the
    text it came from, outermost parentheses included, which is what an enclosing node's span
    covers (lark's `propagate_positions`)."""

    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.level = 0
        self.notes: list[tuple[int, str]] = []
        self.newlines = [i for i, ch in enumerate(text) if ch == "\n"] if "\n" in text else []

    # -- positions and notes ----------------------------------------------------------------
    def _where(self, pos: int) -> tuple[int, int]:
        """1-based line and column of character `pos`, counted as lark counts them."""
        if not self.newlines:
            return 1, pos + 1
        before = bisect.bisect_left(self.newlines, pos)
        return before + 1, pos - (self.newlines[before - 1] + 1 if before else 0) + 1

    def _span(self, start: int, end: int) -> Span:
        line, column = self._where(start)
        return Span(start, end, line, column)

    def _note(self, start: int, message: str) -> None:
        line, column = self._where(start)
        self.notes.append((start, f"{line}:{column} {message}"))

    def _op(self, tok: Token) -> str:
        kind, value, start, _ = tok
        canonical = QUANT_CANONICAL[value] if kind == "QUANT" else CANONICAL[kind]
        if value != canonical:
            self._note(start, f"{value!r} → {canonical!r}")
        return kind

    # -- tokens -----------------------------------------------------------------------------
    def _peek(self) -> str:
        return self.toks[self.i][0]

    def _take(self, kind: str) -> Token:
        tok = self.toks[self.i]
        if tok[0] != kind:
            raise _Unread
        self.i += 1
        return tok

    def _deeper(self) -> None:
        self.level += 1
        if self.level > MAX_NESTING:
            raise _Unread

    # -- formulas, loosest first (one method per grammar rule) ------------------------------
    def start(self) -> Formula:
        formula, _, _ = self.iff()
        if self._peek() == "PERIOD":
            self._note(self._take("PERIOD")[2], "trailing '.' removed")
        self._take("$END")
        return formula

    def iff(self) -> tuple[Formula, int, int]:
        first, start, end = self.implies()
        if self._peek() != "IFF":
            return first, start, end
        ops, rest = [], []
        while self._peek() == "IFF":
            ops.append(self._take("IFF"))
            node, _, end = self.implies()
            rest.append(node)
        span = self._span(start, end)  # every link of the chain spans the whole chain
        acc = first
        for tok, right in zip(ops, rest, strict=True):
            self._op(tok)
            acc = Iff(acc, right, span=span)
        return acc, start, end

    def implies(self) -> tuple[Formula, int, int]:
        left, start, end = self.or_()
        if self._peek() != "IMPLIES":
            return left, start, end
        self._op(self._take("IMPLIES"))
        self._deeper()
        right, _, end = self.implies()
        self.level -= 1
        return Implies(left, right, span=self._span(start, end)), start, end

    def or_(self) -> tuple[Formula, int, int]:
        first, start, end = self.and_()
        if self._peek() not in ("OR", "XOR"):
            return first, start, end
        links = []
        while self._peek() in ("OR", "XOR"):
            tok = self.toks[self.i]
            self.i += 1
            node, _, end = self.and_()
            links.append((tok, node))
        span = self._span(start, end)
        # Fold left; consecutive ∨ in this chain form one n-ary Or, and a parenthesised Or
        # that starts the chain stays a separate node (as parse.py's transformer does).
        acc, chain_or = first, False
        for tok, rhs in links:
            if self._op(tok) == "OR":
                if chain_or and isinstance(acc, Or):
                    acc = Or((*acc.args, rhs), span=span)
                else:
                    acc = Or((acc, rhs), span=span)
                chain_or = True
            else:
                acc, chain_or = Xor(acc, rhs, span=span), False
        return acc, start, end

    def and_(self) -> tuple[Formula, int, int]:
        first, start, end = self.unary()
        if self._peek() != "AND":
            return first, start, end
        args = [first]
        while self._peek() == "AND":
            self._op(self._take("AND"))
            node, _, end = self.unary()
            args.append(node)
        return And(tuple(args), span=self._span(start, end)), start, end

    def unary(self) -> tuple[Formula, int, int]:
        kind = self._peek()
        if kind == "NOT":
            tok = self._take("NOT")
            self._op(tok)
            self._deeper()
            body, _, end = self.unary()
            self.level -= 1
            return Not(body, span=self._span(tok[2], end)), tok[2], end
        if kind == "QUANT":
            tok = self._take("QUANT")
            self._op(tok)
            var = self._take("NAME")[1]
            self._deeper()
            body, _, end = self.iff()
            self.level -= 1
            cls = Forall if QUANT_CANONICAL[tok[1]] == "∀" else Exists
            return cls(var, body, span=self._span(tok[2], end)), tok[2], end
        if kind == "LPAR":
            start = self._take("LPAR")[2]
            self._deeper()
            inner, _, _ = self.iff()
            self.level -= 1
            end = self._take("RPAR")[3]
            return inner, start, end  # the node keeps its own span; the container grows
        return self.atom()

    def atom(self) -> tuple[Formula, int, int]:
        first = self.toks[self.i]
        follow = self.toks[self.i + 1][0] if first[0] != "$END" else "$END"
        if follow in ("EQ", "NEQ"):
            left = self._simple()
            tok = self.toks[self.i]
            self.i += 1
            self._op(tok)
            right = self._simple()
            start, end = first[2], self.toks[self.i - 1][3]
            span = self._span(start, end)
            eq = Eq(left, right, span=span)
            return (eq if tok[0] == "EQ" else Not(eq, span=span)), start, end
        name = self._take("NAME")
        if follow != "LPAR":
            return Pred(name[1], (), span=self._span(name[2], name[3])), name[2], name[3]
        self._take("LPAR")
        if self._peek() == "RPAR":
            end = self._take("RPAR")[3]
            self._note(name[2], "empty argument list '()' removed")
            return Pred(name[1], (), span=self._span(name[2], end)), name[2], end
        args, end = self._args()
        return Pred(name[1], args, span=self._span(name[2], end)), name[2], end

    # -- terms ------------------------------------------------------------------------------
    def _args(self) -> tuple[tuple[Term, ...], int]:
        """`arg ("," arg)* ")"` after an opening parenthesis; the end of the closing one."""
        args = [self._arg()]
        while self._peek() == "COMMA":
            self.i += 1
            args.append(self._arg())
        return tuple(args), self._take("RPAR")[3]

    def _arg(self) -> Term:
        if self._peek() == "NAME" and self.toks[self.i + 1][0] == "LPAR":
            name = self._take("NAME")
            self._take("LPAR")
            self._deeper()
            args, end = self._args()
            self.level -= 1
            return Func(name[1], args, span=self._span(name[2], end))
        return self._simple()

    def _simple(self) -> Term:
        kind, value, start, end = self.toks[self.i]
        if kind not in ("NAME", "STRING"):
            raise _Unread
        self.i += 1
        return Const(value, span=self._span(start, end))


def read(text: str) -> tuple[Formula, tuple[str, ...]] | None:
    """The unbound tree of `text` (every term name a `Const`) and its notation notes in text
    order, exactly as the lark grammar builds them; None for anything else (lark decides).

    >>> read("P(a) & Q(a).")[1]
    ("1:6 '&' → '∧'", "1:12 trailing '.' removed")
    >>> read("P(a) ∧") is None
    True
    """
    try:
        reader = _Reader(text)
        formula = reader.start()
    except _Unread:
        return None
    notes = tuple(message for _, message in sorted(reader.notes, key=lambda n: n[0]))
    return formula, notes
