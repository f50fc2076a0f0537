"""Rule-based repairs: named, pure, deterministic proposers of candidate edits.

This module owns the refiner's deterministic backend. Each `Rule` reads one item's `Findings` and
returns `Candidate`s (edits applied together), most plausible first; it never decides anything —
the gate in `refine.py` re-parses, re-lints and re-proves every candidate. Rules are built from
small text- and AST-level helpers and keep the annotator's spelling: an edit changes only the
characters it must (no canonical reprinting), so review diffs stay small. Every `after` parses.

Rules, in the order `RULES` tries them (each proposes at most `MAX_CANDIDATES`):

- `balance_parentheses`: insert or delete one parenthesis per unmatched one — at the end, where
  the parser stopped, after a leading ¬, or splitting a name glued to its argument (`Dogx)`,
  `CityInlyon, spain)`) where the item's names or the sentence's words say where.
- `fix_token_typos`: `v` for ∨, trailing free text, doubled operators, stray characters, a
  quantifier without its variable, a lost ','.
- `harmonize_arity`: make a predicate's minority arity match its majority one, by dropping an
  argument only the minority has or appending the one constant the majority always ends with.
- `close_free_variables`: bind a free variable where it is used or among the leading
  quantifiers, or name the one constant its argument slot takes elsewhere in the item.
- `unify_names`: rewrite the minority spelling of a name spelled two ways (case, plural, one
  typo) to the majority spelling, in every formula of the item; a tie is left alone.
- `both_or_neither_iff`: ⊕ → ↔ in a two-atom formula whose sentence says "either both … or
  neither".

Syntax repairs for several broken formulas are also proposed together (`_joint`): the gate
accepts an item only when all its formulas parse.

The gate only checks the label, so it cannot tell the intended edit from another that also
restores the label — when the edited formula does not matter to the label, any well-formed
edit passes. Faithfulness therefore rests on the rules: the order of their candidates, and not
proposing a candidate the evidence does not single out (a tie proposes nothing). The evidence
is the item's own formulas (majorities, names in use) and its sentences (`Words`: FOLIO names
camel-case the sentence's words). `benchmarks/bench_faithfulness.py` measures the result.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, assert_never

from refinery.agents.models import Edit, ErrorClass, Findings, Where
from refinery.logic.analysis import subformulas
from refinery.logic.errors import SyntaxProblem
from refinery.logic.lint import lint
from refinery.logic.parse import try_parse
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

#: Edits applied together; a rule's proposal.
Candidate = tuple[Edit, ...]

#: The most candidates one rule proposes: the gate re-proves each, and every extra candidate is a
#: chance to accept a repair that fits the label but not the intended formula.
MAX_CANDIDATES = 6


@dataclass(frozen=True)
class Rule:
    """A named repair rule for one error class."""

    name: str
    error_class: ErrorClass
    propose: Callable[[Findings], list[Candidate]]


# -- shared helpers ---------------------------------------------------------------------------


def parses(text: str) -> Formula | None:
    """The formula `text` denotes, or None when it does not parse.

    >>> parses("P(a) ∧ Q(b)") is not None, parses("P(a) ∧")
    (True, None)
    """
    result = try_parse(text)
    return None if isinstance(result, SyntaxProblem) else result.formula


def free_variables(f: Formula) -> int:
    """How many free-variable lint errors `f` has on its own.

    >>> from refinery.logic.parse import parse
    >>> free_variables(parse("(∀x P(x)) → Q(x)")), free_variables(parse("∀x (P(x) → Q(x))"))
    (1, 0)
    """
    return sum(1 for i in lint([("f", f)]) if i.kind == "free_variable")


def shape(f: Formula) -> Formula:
    """`f` with nested ∧/∨ chains flattened: grouping that cannot change the meaning is ignored.

    >>> from refinery.logic.parse import parse
    >>> shape(parse("(A ∧ B) ∧ C")) == shape(parse("A ∧ (B ∧ C)"))
    True
    """
    match f:
        case Pred() | Eq():
            return f
        case Not(body):
            return Not(shape(body))
        case And(args):
            return And(tuple(_spliced(And, args)))
        case Or(args):
            return Or(tuple(_spliced(Or, args)))
        case Xor(left, right):
            return Xor(shape(left), shape(right))
        case Implies(left, right):
            return Implies(shape(left), shape(right))
        case Iff(left, right):
            return Iff(shape(left), shape(right))
        case Forall(var, body):
            return Forall(var, shape(body))
        case Exists(var, body):
            return Exists(var, shape(body))
        case _:
            assert_never(f)


def _spliced(cls: type[And] | type[Or], args: Iterable[Formula]) -> Iterator[Formula]:
    for a in args:
        flat = shape(a)
        if isinstance(flat, cls):
            yield from flat.args
        else:
            yield flat


TextEdit = tuple[int, int, str]  # (start, end, replacement) on the original text

_BINARY = "∧∨⊕→↔"


def splice(text: str, edits: Iterable[TextEdit]) -> str:
    """Apply non-overlapping `(start, end, replacement)` edits to `text`.

    >>> splice("P(a ∧ Q(b)", [(3, 3, ")"), (0, 0, "¬")])
    '¬P(a) ∧ Q(b)'
    """
    out = text
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + new + out[end:]
    return out


def _edit(where: Where, before: str, after: str, rule: str, why: str) -> Edit:
    return Edit(
        where=where,
        before=before,
        after=after,
        error_class=_CLASS_OF[rule],
        source=rule,
        rationale=why,
    )


def _parsed_fields(findings: Findings) -> dict[Where, Formula]:
    out: dict[Where, Formula] = {}
    for where, text in findings.fol.items():
        f = parses(text)
        if f is not None:
            out[where] = f
    return out


def _broken_fields(findings: Findings) -> dict[Where, SyntaxProblem]:
    out: dict[Where, SyntaxProblem] = {}
    for where, text in findings.fol.items():
        result = try_parse(text, field=where)
        if isinstance(result, SyntaxProblem):
            out[where] = result
    return out


def _error_index(problem: SyntaxProblem) -> int:
    """0-based character index of the problem in its (single-line) source."""
    lines = problem.source.split("\n")
    before = sum(len(line) + 1 for line in lines[: problem.line - 1])
    return min(before + problem.column - 1, len(problem.source))


Fix = tuple[str, str]  # (new text, rationale) for one field

#: `Edit.after` is bounded; a longer text is not a plausible repair of a FOLIO formula.
_MAX_AFTER = 4000


def _edits(where: Where, before: str, fixes: Iterable[Fix], rule: str) -> list[Edit]:
    """Edits at `where` for each distinct fix (`after` not too long for an `Edit`)."""
    unique = dict.fromkeys(f for f in fixes if len(f[0]) <= _MAX_AFTER and f[0] != before)
    return [_edit(where, before, after, rule, why) for after, why in unique]


def _joint(per_field: dict[Where, list[Edit]]) -> list[Candidate]:
    """Candidates from per-formula alternatives, at most `MAX_CANDIDATES`.

    With one formula to repair, its alternatives in order. With several, combinations come
    first — the gate accepts an item only when all of its formulas are sound — ordered by the
    sum of their per-formula ranks; single edits follow.

    >>> a = [_edit("conclusion", "P(a", t, "balance_parentheses", "") for t in ("P(a)", "(P(a))")]
    >>> b = [_edit("premises[0]", "Q(b", "Q(b)", "balance_parentheses", "")]
    >>> [[e.after for e in c] for c in _joint({"conclusion": a, "premises[0]": b})]
    [['P(a)', 'Q(b)'], ['(P(a))', 'Q(b)'], ['P(a)'], ['(P(a))'], ['Q(b)']]
    """
    wheres = [w for w in per_field if per_field[w]]
    out: list[Candidate] = []
    if len(wheres) > 1:
        combos = itertools.product(*(range(len(per_field[w])) for w in wheres))
        for ranks in sorted(combos, key=lambda ranks: (sum(ranks), ranks))[:MAX_CANDIDATES]:
            out.append(tuple(per_field[w][r] for w, r in zip(wheres, ranks, strict=True)))
    out += [(e,) for w in wheres for e in per_field[w]]
    return out[:MAX_CANDIDATES]


# -- names and arguments, located in the text -------------------------------------------------

NameKind = Literal["predicate", "function", "constant"]


@dataclass(frozen=True, slots=True)
class NameUse:
    """One occurrence of a predicate, function or constant name, with where it is in the text."""

    kind: NameKind
    name: str
    arity: int
    start: int
    end: int


def name_uses(text: str) -> list[NameUse]:
    """Every predicate, function and constant occurrence in `text`, in text order.

    Variables are not names: renaming never touches them.

    >>> [(u.kind, u.name, u.arity, u.start) for u in name_uses("∀x (R(x, a) → P)")]
    [('predicate', 'R', 2, 4), ('constant', 'a', 0, 9), ('predicate', 'P', 0, 14)]
    """
    f = parses(text)
    if f is None:
        return []
    out: list[NameUse] = []

    def term(t: Term) -> None:
        match t:
            case Var():
                return
            case Const(name, span) if span is not None:
                out.append(NameUse("constant", name, 0, span.start, span.end))
            case Func(name, args, span):
                if span is not None:
                    out.append(
                        NameUse("function", name, len(args), span.start, span.start + len(name))
                    )
                for a in args:
                    term(a)

    for node in subformulas(f):
        if isinstance(node, Pred) and node.span is not None:
            start = node.span.start
            out.append(
                NameUse("predicate", node.name, len(node.args), start, start + len(node.name))
            )
            for a in node.args:
                term(a)
        elif isinstance(node, Eq):
            term(node.left)
            term(node.right)
    # spans come from the parser; keep only those that really point at the name
    return sorted(
        (u for u in out if text[u.start : u.end] == u.name), key=lambda u: (u.start, u.end)
    )


def _item_texts(findings: Findings) -> list[str]:
    """The distinct formula texts of the item and its story (each counted once)."""
    return list(dict.fromkeys([*findings.fol.values(), *findings.story_fol]))


# -- the sentences' words: evidence for how a name is spelled ---------------------------------
#
# FOLIO builds names by camel-casing the English words of the sentence ("Ann ran for the City
# Council" → `ann`, `cityCouncil`; "a city in Spain" → `CityIn`, `spain`). So the
# words of an item's sentences say where a name's words begin (and so where its capitals go),
# where a predicate glued to its argument ends, and whether a constant belongs in a sentence.

#: A name's camel-case words (`USInvention` → US, Invention; `year2013Final` → year, 2013, Final).
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@dataclass(frozen=True, slots=True)
class Words:
    """The words of some sentences: lowercased, accents stripped; acronyms kept apart too."""

    words: frozenset[str] = frozenset()
    #: words with capitals inside ("LG34", "DI", "ModelXX"): their letters' case says nothing
    acronyms: frozenset[str] = frozenset()
    tokens: tuple[str, ...] = ()  # the words in order

    @classmethod
    def of(cls, *sentences: str) -> Words:
        """The words of `sentences`.

        >>> w = Words.of("Zoë plays LG34's ModelXX.")
        >>> sorted(w.words), sorted(w.acronyms)
        (['lg34', 'modelxx', 'plays', 's', 'zoe'], ['lg34', 'modelxx'])
        """
        tokens = [t for s in sentences for t in re.findall(r"[^\W_]+", _plain(s))]
        acronyms = {t.lower() for t in tokens if len(t) > 1 and t[1:] != t[1:].lower()}
        lower = tuple(t.lower() for t in tokens)
        return cls(frozenset(lower), frozenset(acronyms), lower)

    def known(self, word: str) -> bool:
        """Whether `word` (any case) is one of the words, allowing a plural either way.

        Words of one or two letters must match exactly.

        >>> w = Words.of("Cats feud with the ladies.")
        >>> w.known("Cat"), w.known("feuds"), w.known("lady"), w.known("dog")
        (True, True, True, False)
        """
        w = word.lower()
        if len(w) < 3:  # `a` is not the singular of `as`
            return w in self.words
        forms = {w, w + "s", w + "es"}
        if w.endswith("s"):
            forms.add(w[:-1])
        if w.endswith("es"):
            forms.add(w[:-2])
        if w.endswith("y"):
            forms.add(w[:-1] + "ies")
        if w.endswith("ies"):
            forms.add(w[:-3] + "y")
        return not forms.isdisjoint(self.words)

    def segment(self, text: str) -> list[tuple[int, int, bool]]:
        """Split lowercase `text` into the sentences' words (two letters or more) and digit runs.

        Returns `(start, end, known)` pieces covering `text`: the segmentation that covers the
        most characters with known pieces, then the one with the fewest pieces; characters no
        word covers are single unknown pieces.

        >>> Words.of("Ann is in the city council").segment("anncitycouncil2")
        [(0, 3, True), (3, 7, True), (7, 14, True), (14, 15, True)]
        >>> Words.of("Ann").segment("xann")
        [(0, 1, False), (1, 4, True)]
        """
        n = len(text)
        # best[i]: (covered characters, -pieces) for text[:i], and the last piece
        best: list[tuple[tuple[int, int], tuple[int, int, bool]] | None] = [None] * (n + 1)
        best[0] = ((0, 0), (0, 0, False))
        for i in range(n):
            entry = best[i]
            if entry is None:
                continue
            (covered, pieces), _ = entry
            steps = [(i + 1, text[i].isdigit())]
            steps += [(j, True) for j in range(i + 2, n + 1) if self._piece(text[i:j])]
            for j, known in steps:
                score = (covered + (j - i if known else 0), pieces - 1)
                current = best[j]
                if current is None or score > current[0]:
                    best[j] = (score, (i, j, known))
        out: list[tuple[int, int, bool]] = []
        j = n
        while j > 0:
            entry = best[j]
            assert entry is not None
            out.append(entry[1])
            j = entry[1][0]
        return out[::-1]

    def _piece(self, piece: str) -> bool:
        # a word, or the singular of one (names singularise: "cats" → `cat`), never a plural
        # of one: `oxfords` is not in "Oxford Street" (`oxfordSt`)
        if piece.isdigit() or piece in self.words:
            return True
        singular = {piece + "s", piece + "es"} | (
            {piece[:-1] + "ies"} if piece[-1:] == "y" else set()
        )
        return len(piece) >= 3 and not singular.isdisjoint(self.words)

    def spells(self, text: str) -> bool:
        """Whether lowercase `text` is entirely made of the sentences' words (and numbers).

        >>> w = Words.of("Bob's dinner party")
        >>> w.spells("bobparty"), w.spells("sparty"), w.spells("dinner2")
        (True, False, True)
        """
        return bool(text) and all(known for _, _, known in self.segment(text))

    def phrase(self, text: str) -> bool:
        """Whether lowercase `text` is some consecutive words of the sentences run together.

        A word may stand in its singular (names singularise: "U.S. inventions" → `usinvention`).

        >>> w = Words.of("A-2017 has U.S. inventions.")
        >>> w.phrase("a2017"), w.phrase("a20"), w.phrase("usinvention"), w.phrase("usinventions")
        (True, False, True, True)
        """

        def run_from(i: int, rest: str) -> bool:
            if not rest:
                return True
            if i == len(self.tokens):
                return False
            return any(
                rest.startswith(form) and run_from(i + 1, rest[len(form) :])
                for form in _forms(self.tokens[i])
                if form
            )

        return bool(text) and any(run_from(i, text) for i in range(len(self.tokens)))

    def unknown(self, name: str) -> int:
        """How many camel-case words of `name` are no word of the sentences (a slip makes one).

        A name spelled entirely with the sentences' words has none, whatever its case (`pA`
        and `pa` for "PA"); see `case_errors` for the case. A plural and its singular count
        alike (`Gain`, `Gains`): which one the annotator chose is not in the sentence.

        >>> w = Words.of("Nothing has the Sun as its star; the students gain.")
        >>> [w.unknown(n) for n in ("SunAs", "SunA", "Studen", "Student", "Gain", "Gains")]
        [0, 1, 1, 0, 0, 0]
        """
        plain = "".join(ch for ch in name if ch.isalnum()).lower()
        if self.spells(plain) or self.phrase(plain):
            return 0
        return sum(1 for w in _CAMEL.findall(name) if not w.isdigit() and not self.known(w))

    def mention(self, constant: str) -> bool:
        """Whether the sentences mention `constant`: each of its words, and its numbers.

        FOLIO labels a number (`num1000` for "1,000", `yr2022`, `year1980`): a short word right
        before a number is its label, not a word of the sentence.

        >>> w = Words.of("More than 1,000 users work from home.")
        >>> w.mention("num1000"), w.mention("home"), w.mention("homeOffice"), w.mention("num2000")
        (True, True, False, False)
        """
        plain = "".join(ch for ch in constant if ch.isalnum()).lower()
        if self.spells(plain) or self.phrase(plain):
            return True
        parts = _CAMEL.findall(constant)
        for i, part in enumerate(parts):
            if part.isdigit():
                if not (self.phrase(part) or any(part in t for t in self.tokens)):
                    return False
            elif not (
                self.known(part)
                or (len(part) <= 4 and parts[i + 1 : i + 2] and parts[i + 1].isdigit())
            ):
                return False
        return True

    def case_errors(self, name: str) -> int:
        """Capitals of `name` that do not fall on the words' boundaries, and boundaries without one.

        Only positions inside (or at the start of) a word of the sentences are judged; the
        name's first letter is left to the case convention, and acronyms ("LG34") to nobody.

        >>> w = Words.of("Ann won the 2013 final.")
        >>> [w.case_errors(n) for n in ("ann", "aNn", "year2013Final", "year2013final")]
        [0, 1, 0, 1]
        """
        alnum = [(i, ch) for i, ch in enumerate(name) if ch.isalnum()]
        plain = "".join(ch for _, ch in alnum)
        errors = 0
        for start, end, known in self.segment(plain.lower()):
            piece = plain[start:end]
            if not known or piece.isdigit() or piece.lower() in self.acronyms:
                continue
            for k in range(start, end):
                if k == 0 or not plain[k].isalpha():
                    continue
                errors += plain[k].isupper() != (k == start)
        return errors


def _forms(word: str) -> set[str]:
    """`word` and, for a plural, its singular."""
    forms = {word}
    if len(word) > 3 and word.endswith("s"):
        forms.add(word[:-1])
        if word.endswith("ies"):
            forms.add(word[:-3] + "y")
        elif word.endswith("es"):
            forms.add(word[:-2])
    return forms


def _plain(text: str) -> str:
    """`text` without accents (Zoë → Zoe)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _sentence(findings: Findings, where: Where) -> Words:
    """The words of the sentence `where` formalises (none when the item has no such sentence)."""
    return Words.of(findings.nl[where]) if findings.nl.get(where) else Words()


# -- 1. balance_parentheses -------------------------------------------------------------------


def unmatched_parens(text: str) -> tuple[list[int], list[int]]:
    """Indices of the ')' that close nothing and of the '(' never closed (greedy matching).

    Parentheses inside quoted strings do not count.

    >>> unmatched_parens("P(a)) ∧ (Q(b)")
    ([4], [8])
    >>> unmatched_parens('P("(")')
    ([], [])
    """
    stack: list[int] = []
    extra: list[int] = []
    for i, ch in _paren_chars(text):
        if ch == "(":
            stack.append(i)
        elif stack:
            stack.pop()
        else:
            extra.append(i)
    return extra, stack


def _paren_chars(text: str) -> Iterator[tuple[int, str]]:
    quoted = False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "()":
            yield i, ch


def paren_pairs(text: str) -> dict[int, int]:
    """Matching pairs `{open index: close index}` (greedy; unmatched ones are left out).

    >>> paren_pairs("¬(P(a))")
    {3: 5, 1: 6}
    """
    stack: list[int] = []
    pairs: dict[int, int] = {}
    for i, ch in _paren_chars(text):
        if ch == "(":
            stack.append(i)
        elif stack:
            pairs[stack.pop()] = i
    return pairs


def _is_name_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_+"


def close_points(text: str) -> list[int]:
    """Where a ')' may go: right after a name, a string or a ')', before anything but '('.

    >>> close_points("∀x (P(x) ∨ Q")
    [2, 7, 8, 12]
    """
    out = []
    for i in range(1, len(text) + 1):
        prev, nxt = text[i - 1], text[i] if i < len(text) else " "
        if (_is_name_char(prev) or prev in ')"') and not (_is_name_char(nxt) or nxt == "("):
            out.append(i)
    return out


def open_points(text: str) -> list[int]:
    """Where a '(' may go: right before a formula can start (a name, '(', ¬ or a quantifier).

    >>> open_points("¬P(x) ∨ Q)")
    [0, 1, 3, 8]
    """
    out = []
    for i, ch in enumerate(text):
        prev = text[i - 1] if i else " "
        starts_name = _is_name_char(ch) and not (_is_name_char(prev) or prev in "-.'’")
        if starts_name or ch in "¬~!∀∃" or (ch == "(" and _grouping(text, i)):
            out.append(i)
    return out


def _grouping(text: str, i: int) -> bool:
    """Whether the '(' at `i` groups a formula (not an atom's argument list).

    >>> _grouping("∀x (P(x))", 3), _grouping("∀x (P(x))", 5), _grouping("¬(P ∨ Q)", 1)
    (True, False, True)
    """
    before = text[:i].rstrip()
    if not before or not (_is_name_char(before[-1]) or before[-1] in "'’"):
        return True
    return re.search(r"(?:[∀∃]\s*|\b(?:forall|exists)\s+)[\w']+$", before) is not None


def _end(text: str) -> int:
    """Index just past the formula's last character (trailing blanks and a final '.' aside)."""
    end = len(text.rstrip())
    if end and text[end - 1] == "." and text[: end - 1].rstrip().endswith(")"):
        end = len(text[: end - 1].rstrip())
    return end


Option = tuple[float, TextEdit]

#: Weight of the distance to the error: a tie-breaker, weaker than the kind of edit.
_NEAR = 0.25


def _close_options(text: str, p: int, err: int) -> list[Option]:
    """Ways to balance the never-closed '(' at `p`, with a cost (lower = more plausible)."""
    n = max(len(text), 1)
    end = _end(text)
    points = [q for q in close_points(text) if p < q <= end]
    at_error = max((q for q in points if q <= err), default=-1)
    out: list[Option] = []
    for q in points:
        if _closes_inequality(text, q):
            cost = -0.2  # `¬(a=b)`, FOLIO's a≠b, is the likeliest group to have lost its ')'
        elif q == end:
            cost = 0.0  # a formula's closers pile up at its end, where one is easily lost
        elif q == at_error:
            cost = 0.5  # the parser stopped right after this: a ')' lets it go on
        elif text[q - 1] == ")":
            cost = 1.0 + _NEAR * abs(err - q) / n  # inside a run of closers
        else:
            cost = 2.0 + _NEAR * abs(err - q) / n
        out.append((cost, (q, q, ")")))
    for q, ch in _paren_chars(text):
        # deleting an argument list's '(' would glue the predicate to its argument (`Dogx`)
        if ch == "(" and q >= p and (_grouping(text, q) or not _is_name_char(text[q + 1 : q + 2])):
            doubled = text[q + 1 : q + 2] == "(" or text[q - 1 : q] == "("
            cost = (0.75 if doubled else 1.0) + _NEAR * abs(err - q) / n
            if _doubled_inequality(text, q):
                cost = -0.2  # `¬((a=b)`: one '(' too many around FOLIO's a≠b
            out.append((cost, (q, q + 1, "")))
    return out


def _open_options(
    text: str, p: int, err: int, vocabulary: frozenset[str], words: Words
) -> list[Option]:
    """Ways to balance the ')' at `p` that closes nothing, with a cost."""
    n = max(len(text), 1)
    start = len(text) - len(text.lstrip())
    out: list[Option] = []
    for q, ch in _paren_chars(text):
        if ch == ")" and q <= p:
            # the offending ')' first; any other ')' of its run gives the same text
            same_run = text[q:p].strip(") ") == ""
            in_run = text[q - 1 : q] == ")" or text[q + 1 : q + 2] == ")"
            cost = 0.0 if same_run else (0.3 if in_run else 1.0) + _NEAR * abs(p - q) / n
            out.append((cost, (q, q + 1, "")))
    # where a lost '(' stood says the grouping, not the distance to the error (always at `p`)
    out += [(_open_cost(text, q, p, start), (q, q, "(")) for q in open_points(text) if q < p]
    out += _split_options(text, p, vocabulary, words)
    return out


def _open_cost(text: str, q: int, p: int, start: int) -> float:
    """How plausible a lost '(' at `q` is, given that it would close at `p`."""
    group = text[q:p]
    extra, unclosed = unmatched_parens(group)
    if unclosed or len(extra) > 1:
        return 3.0  # a larger rearrangement
    shift = 0.0
    if extra:
        # the new '(' pairs with an earlier ')', whose group the ')' at `p` closes instead: a
        # '(' lost inside a group (`∃y (A → B ∨ C) ∧ D)` for `∃y (A → (B ∨ C) ∧ D)`)
        group, shift = group[: extra[0]], 0.5
    before = text[start:q].rstrip()
    if before.endswith(("¬", "~", "!")):
        # `¬(A ∧ B)` is FOLIO's idiom; a group that itself holds a ¬ (`¬A ∧ ¬B)`) is more
        # likely a stray ')' after a conjunction of negations, and one holding a rule (`¬A → B)`)
        # a stray ')' after the rule's conclusion
        return shift + (-0.1 if not any(c in group for c in "¬~!→↔") else 0.9)
    if q == start:
        return shift + 0.75
    if before.endswith(tuple(_BINARY)) or before.endswith(("&", "|", "->", "<->")):
        return shift + 1.0
    return shift + 2.0


_NAME = re.compile(r"[\w+]+(?:[-.'’]\w+)*")


def _split_options(text: str, p: int, vocabulary: frozenset[str], words: Words) -> list[Option]:
    """A lost argument-list '(' glues a predicate to its first argument: `Dogx)` for `Dog(x)`.

    Only a name outside any argument list that runs into ',' or ')' is split (FOLIO has no
    propositional atoms: such a name is a predicate with its argument list's '(' lost). Evidence,
    strongest first: the tail is a known term (a quantified variable or a name of the item) and
    the head a known predicate; the head a known predicate and the tail lowercase (a constant);
    the tail a known term and the head capitalised; else the sentence's words (see
    `_sentence_split`). Without evidence nothing is split: a guessed split invents a predicate.
    """
    bound = set(re.findall(r"[∀∃]\s*([\w']+)", text))
    args = set(re.findall(r"[(,]\s*([\w'’.+-]+)\s*(?=[,)])", text))
    predicates = set(re.findall(r"([\w'’.+-]+)\s*\(", text))
    out: list[Option] = []
    for m in _formula_level_names(text[: p + 1]):
        name = m.group()
        options: list[Option] = []
        for k in range(1, len(name)):
            head, tail = name[:k], name[k:]
            known_head = head in predicates or head in vocabulary
            if not (tail in bound or tail in vocabulary or (tail in args and tail != name)):
                if known_head and tail[:1].islower():
                    options.append((-0.1, (m.start() + k, m.start() + k, "(")))
                continue
            # a name that runs into ')' outside an argument list is strong evidence already
            if known_head:
                cost = -0.25
            elif head[:1].isupper() and not tail[:1].isupper():
                cost = 0.0
            else:
                continue
            options.append((cost, (m.start() + k, m.start() + k, "(")))
        if not options:
            at = _sentence_split(name, words)
            options = [] if at is None else [(0.0, (m.start() + at, m.start() + at, "("))]
        out += options
    return out


def _formula_level_names(text: str) -> Iterator[re.Match[str]]:
    """Names outside any argument list that run into ',' or ')': glued to their argument.

    >>> [m.group() for m in _formula_level_names("¬CityInlyon, spain) ∧ P(a, b)")]
    ['CityInlyon']
    >>> [m.group() for m in _formula_level_names("∀x (Dogx) → Animal(x))")]
    ['Dogx']
    >>> [m.group() for m in _formula_level_names("∀x (Man(x) → ¬Faster(xm bolt))")]
    []
    """
    for m in _NAME.finditer(text):
        if not re.match(r"\s*[,)]", text[m.end() :]) or text[: m.start()].rstrip().endswith(
            (",", "=")
        ):
            continue  # not followed by an argument list's rest, or an argument itself
        opened = [i for i, ch in _paren_chars(text[: m.start()]) if ch == "("]
        closed = set(paren_pairs(text[: m.start()]))
        innermost = next((i for i in reversed(opened) if i not in closed), None)
        if innermost is None or _grouping(text, innermost):
            yield m


def _sentence_split(name: str, words: Words) -> int | None:
    """Where the sentence's words say a glued `name` splits into a predicate and a constant.

    The constant (lowerCamel) starts with a lowercase word the predicate's last word absorbed:
    `CityInlyon` is `CityIn` + `lyon`. A split qualifies when the constant's
    first word run is spelled entirely with the sentence's words, or is some of its words run
    together (`Supportsa-2017` for "A-2017 supports …"); of those, the one whose glued
    camel word the words cover most (the predicate's last word counting when it is a word of
    the sentence too) wins — a tie splits nothing.

    >>> _sentence_split("CityInlyon", Words.of("Lyon is not a city in Spain."))
    6
    >>> w = Words.of("Ann is the first guest at Bob's party.")
    >>> _sentence_split("FirstGuestAtbobsparty", w)  # `At`|`bobsparty` beats `Atbob`|`sparty`
    12
    >>> _sentence_split("Producesparamount", Words.of("It was made.")) is None
    True
    """
    scored: list[tuple[int, int]] = []
    for k in range(1, len(name)):
        head, tail = name[:k], name[k:]
        if not (head[:1].isupper() and tail[:1].islower()):
            continue
        run = "".join(ch for ch in re.sub(r"[A-Z].*", "", tail) if ch.isalnum())
        if not (words.spells(run) or words.phrase(run)):
            continue
        last = _CAMEL.findall(head)
        glued = last[-1] if last else head
        scored.append((len(run) + (len(glued) if words.known(glued) else 0), k))
    scored.sort(reverse=True)
    if not scored or (len(scored) > 1 and scored[0][0] == scored[1][0]):
        return None
    return scored[0][1]


def _new_propositions(f: Formula, known: Iterable[str]) -> bool:
    """Whether `f` has a propositional atom the item does not use: a glued name, not a formula.

    FOLIO has none (every predicate takes arguments), so one appearing in a repair is a name
    glued to its lost argument list (`ChessClubmarlow`).

    >>> from refinery.logic.parse import parse
    >>> _new_propositions(parse("Rain ∧ Wet(road)"), {"Rain"}), _new_propositions(parse("Rainy"), ())
    (False, True)
    """
    names = set(known)
    return any(isinstance(n, Pred) and not n.args and n.name not in names for n in subformulas(f))


def _closes_inequality(text: str, q: int) -> bool:
    """Whether a ')' at `q` would close `¬(a=b`: FOLIO writes a≠b as `¬(a=b)`.

    >>> _closes_inequality("¬(y=z ∧ Leg(y)", 6), _closes_inequality("¬(y=z ∧ Leg(y)", 14)
    (True, False)
    """
    if text[q:].lstrip().startswith(")"):
        return False  # that one is closed already
    return re.search(r"¬\s*\(\s*[\w'’.+-]+\s*=\s*[\w'’.+-]+\s*$", text[:q]) is not None


def _doubled_inequality(text: str, q: int) -> bool:
    """Whether deleting the '(' at `q` leaves `¬(a=b)`: `¬((a=b)` has one '(' too many.

    >>> _doubled_inequality("¬((a=b) ∧ P(a)", 1), _doubled_inequality("¬((a=b) ∧ P(a)", 2)
    (True, False)
    """
    return text[:q].rstrip().endswith("¬") and bool(
        re.match(r"\(\s*[\w'’.+-]+\s*=\s*[\w'’.+-]+\s*\)", text[q + 1 :])
    )


def mixed_precedence(text: str) -> int:
    """Groups that chain ∧ with ∨ or ⊕ (or ∨ with ⊕) unparenthesised, leaving it to precedence.

    FOLIO groups such mixtures (11 of 3,151 formulas do not): a repair that leaves one has
    most likely dropped a group's ')' instead of restoring its '('. → and ↔ bind loosest, and
    chaining them with the others is common, so they split a group into parts.

    >>> mixed_precedence("A(a) ∧ B(a) ⊕ C(a)"), mixed_precedence("A(a) ∧ (B(a) ⊕ C(a)) → D(a) ∨ E(a)")
    (1, 0)
    """
    groups: list[list[str]] = [[]]
    done: list[list[str]] = []
    for ch in re.sub(r'"[^"]*"', "", text):
        if ch == "(":
            groups.append([])
        elif ch == ")":
            if len(groups) > 1:
                done.append(groups.pop())
        elif ch in _BINARY:
            groups[-1].append(ch)
    count = 0
    for ops in done + groups:
        count += sum(len(set(part)) > 1 for part in "".join(ops).replace("↔", "→").split("→"))
    return count


def scope_leaks(text: str) -> int:
    """Quantifiers whose variable is used after the ')' that closes their parenthesised body.

    The parser extends a quantifier to the end of its group, so `∀x (A(x)) ∧ B(x)` binds both;
    but an annotator closes the scope where it ends, and FOLIO almost never leaves a variable
    outside it (4 of 3,151 formulas): a repair that does so has put a ')' in the wrong place.

    >>> scope_leaks("∀x (G(x) → S(x)) ⊕ M(x)"), scope_leaks("∀x (G(x) → S(x) ⊕ M(x))")
    (1, 0)
    >>> scope_leaks("(∀x (P(x))) ∧ Q(x)"), scope_leaks("∀x (P(x)) ∧ ∀x (Q(x))")
    (0, 0)
    """
    pairs = paren_pairs(text)
    leaks = 0
    for m in re.finditer(r"[∀∃]\s*([\w']+)\s*(?=\()", text):
        var, close = m.group(1), pairs.get(m.end())
        if close is None:
            continue
        end = min((j for i, j in pairs.items() if i < m.start() and j > close), default=len(text))
        rest = text[close + 1 : end]
        rebound = re.search(rf"[∀∃]\s*{re.escape(var)}(?![\w'])", rest)
        rest = rest[: rebound.start()] if rebound else rest
        leaks += re.search(rf"(?<![\w'’.+-]){re.escape(var)}(?![\w'’(+-])", rest) is not None
    return leaks


def redundant_pairs(text: str) -> int:
    """Grouping parentheses that change nothing: around one atom, around a pair, or everything.

    Used to prefer, among repairs, the text an annotator would have written.

    >>> redundant_pairs("¬(P(a)) ∧ ((Q(b)))"), redundant_pairs("¬(x=y) ∧ (P(a) ∨ Q(b))")
    (3, 0)
    """
    pairs = paren_pairs(text)
    start, end = _stripped(text, 0, len(text))
    count = 0
    for i, j in pairs.items():
        if not _grouping(text, i):
            continue
        lo, hi = _stripped(text, i + 1, j)  # the group's content without its blanks
        wraps_pair = pairs.get(lo) == hi - 1
        inner = text[lo:hi]
        atom = re.fullmatch(r"[\w'’.+-]+(\s*\(.*\))?", inner) is not None and _one_group(inner)
        everything = (i, j + 1) == (start, end)
        count += wraps_pair or atom or everything
    return count


def _stripped(text: str, lo: int, hi: int) -> tuple[int, int]:
    """`text[lo:hi]` without leading and trailing blanks, as indices."""
    while lo < hi and text[lo].isspace():
        lo += 1
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    return lo, hi


def propositions(f: Formula) -> int:
    """How many propositional (0-ary) atoms `f` has; FOLIO rarely uses them.

    >>> from refinery.logic.parse import parse
    >>> propositions(parse("Rain ∧ Wet(road)"))
    1
    """
    return sum(1 for n in subformulas(f) if isinstance(n, Pred) and not n.args)


def _one_group(inner: str) -> bool:
    """Whether an atom-shaped text `Name(...)` really is one atom (its '(' closes at the end)."""
    k = inner.find("(")
    return k < 0 or paren_pairs(inner).get(k) == len(inner) - 1


def paren_repairs(
    text: str,
    error_index: int | None = None,
    vocabulary: Iterable[str] = (),
    words: Words | None = None,
) -> list[Fix]:
    """Texts that parse after one insertion or deletion per unmatched parenthesis.

    Each unmatched parenthesis gets its own options — insert its missing partner, delete it,
    or (for a ')' whose argument list lost its '(') split a glued name using `vocabulary`, the
    names known from the item's other formulas, or `words`, the sentence's (see
    `_split_options`). Results that parse are grouped by meaning-preserving shape (each keeping
    its most natural text), kept only if they leave the fewest free variables, and ordered by
    plausibility: a `¬(a=b` closed right after the equation, the end of the formula and the
    error position first, then runs of ')', then farther away; needless parentheses cost extra,
    a variable left outside its quantifier's parentheses (`scope_leaks`) much more. A result
    with a propositional atom the item does not use is dropped: that is a name glued to its
    lost argument list, and deleting the ')' would make it a new predicate.

    >>> [t for t, _ in paren_repairs("∀x (Dog(x) → Animal(x)")]
    ['∀x (Dog(x) → Animal(x))']
    >>> [t for t, _ in paren_repairs("P(a) ∨ Q(b)) ∧ R(c)")]  # ∨ and ∧ unparenthesised: unlikely
    ['(P(a) ∨ Q(b)) ∧ R(c)', 'P(a) ∨ Q(b) ∧ R(c)']
    >>> [t for t, _ in paren_repairs("P(a ∧ Q(b)")]
    ['P(a) ∧ Q(b)']
    >>> [t for t, _ in paren_repairs("∀x (Dogx) → Animal(x))")]
    ['∀x (Dog(x) → Animal(x))']
    >>> [t for t, _ in paren_repairs("¬(a=b ∧ ¬(a=c)")]
    ['¬(a=b) ∧ ¬(a=c)', '¬(a=b ∧ ¬(a=c))']
    """
    words = Words() if words is None else words
    if error_index is None:
        problem = try_parse(text)
        error_index = _error_index(problem) if isinstance(problem, SyntaxProblem) else 0
    vocab = frozenset(vocabulary)
    extra, unclosed = unmatched_parens(text)
    per_paren = [_open_options(text, p, error_index, vocab, words) for p in extra]
    per_paren += [_close_options(text, p, error_index) for p in unclosed]
    if not per_paren or len(per_paren) > 3:
        return []
    width = {1: 10_000, 2: 16, 3: 8}[len(per_paren)]  # keeps the search to a few hundred parses
    combos: list[tuple[float, tuple[TextEdit, ...]]] = []
    for choice in itertools.product(*(sorted(opts)[:width] for opts in per_paren)):
        edits = tuple(e for _, e in choice)
        spots = [e[0] for e in edits]
        if len(set(spots)) == len(spots):
            combos.append((sum(c for c, _ in choice), edits))
    combos.sort(key=lambda c: (c[0], sorted(e[0] for e in c[1])))
    groups: dict[Formula, tuple[float, str, tuple[TextEdit, ...], int]] = {}
    seen: set[str] = set()
    for cost, edits in combos:
        after = splice(text, edits)
        if after in seen:
            continue
        seen.add(after)
        f = parses(after)
        if f is None or _new_propositions(f, vocab):
            continue  # a name glued to its lost argument list (`Dogx`) is not a proposition
        # needless parentheses and a variable left outside its quantifier's group are unlikely
        score = cost + 0.5 * redundant_pairs(after) + 0.5 * propositions(f)
        score += 2.0 * scope_leaks(after) + 1.5 * mixed_precedence(after)
        key = shape(f)
        if key not in groups or (score, after) < groups[key][:2]:
            groups[key] = (score, after, edits, free_variables(f))
        if len(seen) >= 400 or len(groups) >= 4 * MAX_CANDIDATES:
            break
    if not groups:
        return []
    fewest = min(g[3] for g in groups.values())
    ranked = sorted((g for g in groups.values() if g[3] == fewest), key=lambda g: (g[0], g[1]))
    return [(after, _describe_parens(edits)) for _, after, edits, _ in ranked[:MAX_CANDIDATES]]


def _describe_parens(edits: Sequence[TextEdit]) -> str:
    parts = []
    for start, _, new in sorted(edits):
        if new:
            parts.append(f"insert {new!r} at column {start + 1}")
        else:
            parts.append(f"delete the parenthesis at column {start + 1}")
    return "; ".join(parts)


_PAREN_KINDS = {"unbalanced_parentheses", "unexpected_end"}


def _is_paren_problem(problem: SyntaxProblem) -> bool:
    return problem.kind in _PAREN_KINDS or (
        problem.kind == "unexpected_token" and problem.token in {"(", ")"}
    )


def _vocabulary(findings: Findings) -> frozenset[str]:
    """Predicate and constant names used by the item's and story's formulas that parse."""
    return frozenset(u.name for t in _item_texts(findings) for u in name_uses(t))


def _paren_edits(findings: Findings) -> dict[Where, list[Edit]]:
    out: dict[Where, list[Edit]] = {}
    vocabulary: frozenset[str] | None = None
    for where, problem in _broken_fields(findings).items():
        if _is_paren_problem(problem):
            vocabulary = _vocabulary(findings) if vocabulary is None else vocabulary
            fixes = paren_repairs(
                problem.source, _error_index(problem), vocabulary, _sentence(findings, where)
            )
            before = findings.fol[where]
            out[where] = _edits(where, before, fixes, "balance_parentheses")
    return out


def balance_parentheses(findings: Findings) -> list[Candidate]:
    """Insert the missing or delete the extra parenthesis where the parser stopped.

    >>> f = Findings("i", "s", {"premises[0]": "∀x (P(x) → Q(x)", "conclusion": "Q(a)"}, {}, None)
    >>> [[e.after for e in c] for c in balance_parentheses(f)]
    [['∀x (P(x) → Q(x))']]
    """
    return _joint(_paren_edits(findings))


# -- 2. fix_token_typos -----------------------------------------------------------------------

# A lone `v` between two formulas is an ASCII ∨ (it cannot be a term there: terms sit in '(…)').
_LONE_V = re.compile(r"(?<=[\s)])v(?=[\s(])")
_DOUBLED = re.compile(rf"([{_BINARY}])(\s*\1)+")
_VARIABLE = re.compile(r"[u-z][0-9]?")
_QUANT_NO_VAR = re.compile(r"([∀∃])\s*\(")
_STRAY = set(",;:`'\"´.?|\\")


def typo_repairs(text: str, vocabulary: Iterable[str] = ()) -> list[Fix]:
    """Single-token fixes that make `text` parse, most specific first.

    None for a formula with a name glued to its argument list (`CityInlyon, spain)`, see
    `_formula_level_names`): only splitting the name repairs that, and a token fix would make
    the argument list another predicate's (`CityInlyon(spain)`). Nor any fix that leaves a
    propositional atom the item (`vocabulary`) does not use.

    >>> typo_repairs("P(a) v (Q(a))")[0][0]
    'P(a) ∨ (Q(a))'
    >>> typo_repairs("∀x (Athlete(x) → ¬Lazy(x)) Never: does not exist")[0][0]
    '∀x (Athlete(x) → ¬Lazy(x))'
    >>> typo_repairs("P(a) ∧ ∧ Q(a)")[0][0]
    'P(a) ∧ Q(a)'
    >>> typo_repairs("∃x (Song(x) ∧ By(x, boneym,))")[0][0]
    '∃x (Song(x) ∧ By(x, boneym))'
    >>> typo_repairs("∃(CarBody(x) ∧ Made(x, colli))")[0][0]
    '∃x (CarBody(x) ∧ Made(x, colli))'
    """
    problem = try_parse(text)
    if not isinstance(problem, SyntaxProblem) or any(_formula_level_names(text)):
        return []
    known = frozenset(vocabulary)
    err = _error_index(problem)
    raw: list[Fix] = []
    spots = [m.start() for m in _LONE_V.finditer(text)]
    if spots:  # all of them first; one at a time in case one `v` is something else
        raw.append((splice(text, [(s, s + 1, "∨") for s in spots]), "'v' used as '∨'"))
        if len(spots) > 1:
            raw += [(splice(text, [(s, s + 1, "∨")]), "'v' used as '∨'") for s in spots]
    for m in _DOUBLED.finditer(text):
        raw.append((splice(text, [(m.start(), m.end(), m.group(1))]), f"doubled {m.group(1)!r}"))
    raw += _tail_drop(text, problem, err)
    raw += _stray_char(text, problem, err)
    raw += _quantifier_variable(text)
    raw += _missing_comma(text, problem, err)
    out: list[Fix] = []
    seen: set[str] = set()
    for after, why in raw:
        if after in seen or after == text:
            continue
        seen.add(after)
        f = parses(after)
        if f is not None:
            if not _new_propositions(f, known):
                out.append((after, why))
            continue
        # the typo may hide a parenthesis error too: fix both in one edit
        for fixed, paren_why in paren_repairs(after, vocabulary=known)[:1]:
            if fixed not in seen:
                seen.add(fixed)
                out.append((fixed, f"{why}; {paren_why}"))
    return out[:MAX_CANDIDATES]


def _tail_drop(text: str, problem: SyntaxProblem, err: int) -> list[Fix]:
    """Drop free text after a complete formula (no parentheses or operators in the tail)."""
    tail = text[err:]
    if problem.kind != "unexpected_token" or not text[:err].strip():
        return []
    if any(ch in tail for ch in "()" + _BINARY + "¬∀∃"):
        return []
    return [(text[:err].rstrip(), f"drop the trailing free text {tail.strip()!r}")]


def _stray_char(text: str, problem: SyntaxProblem, err: int) -> list[Fix]:
    """Delete the character the lexer rejects, or stray punctuation at or just before the error."""
    if problem.kind == "unknown_symbol":
        spots = [err]
    else:
        before = len(text[:err].rstrip()) - 1  # the last character before the error token
        spots = [q for q in (err, before) if 0 <= q < len(text) and text[q] in _STRAY]
    return [(text[:q] + text[q + 1 :], f"delete the stray {text[q]!r}") for q in spots]


def _quantifier_variable(text: str) -> list[Fix]:
    """Give a quantifier that lacks its variable a variable-like name used in its body.

    Names no other quantifier binds come first: those are the ones left free.
    """
    out: list[Fix] = []
    bound = set(re.findall(r"[∀∃]\s*(\w+)", text))
    for m in _QUANT_NO_VAR.finditer(text):
        used = set(re.findall(r"(?<![\w'’])[u-z][0-9]?(?![\w'’(])", text[m.end() :]))
        for name in sorted(used, key=lambda n: (n in bound, n)):
            fixed = splice(text, [(m.start(), m.end(), f"{m.group(1)}{name} (")])
            out.append((fixed, f"bind {name}"))
    return out


def _missing_comma(text: str, problem: SyntaxProblem, err: int) -> list[Fix]:
    """Two names side by side in an argument list: a comma was lost or mistyped."""
    if problem.kind != "unexpected_token" or "','" not in problem.expected:
        return []
    m = re.search(r"([\w'’.-]+)\s+$", text[:err])
    if m is None:
        return []
    name = m.group(1)
    out: list[Fix] = []
    bound = set(re.findall(r"[∀∃]\s*([\w]+)", text))
    if len(name) > 1 and name[:-1] in bound:  # `xm bolt`: the last letter was meant as ','
        out.append((splice(text, [(m.start(1) + len(name) - 1, m.end(1), ",")]), "typo for ','"))
    out.append((splice(text, [(m.end(1), m.end(1), ",")]), "insert the missing ','"))
    return out


def fix_token_typos(findings: Findings) -> list[Candidate]:
    """Fix operator and token typos in formulas that do not parse.

    >>> f = Findings("i", "s", {"premises[0]": "P(a) v Q(a)", "conclusion": "Q(a)"}, {}, None)
    >>> [[e.after for e in c] for c in fix_token_typos(f)]
    [['P(a) ∨ Q(a)']]
    """
    return _joint(_typo_edits(findings))


def _typo_edits(findings: Findings) -> dict[Where, list[Edit]]:
    out: dict[Where, list[Edit]] = {}
    for where, problem in _broken_fields(findings).items():
        before = findings.fol[where]
        fixes = typo_repairs(problem.source, _vocabulary(findings))
        out[where] = _edits(where, before, fixes, "fix_token_typos")
    return out


# -- 3. unify_names ---------------------------------------------------------------------------


def single_edit(a: str, b: str) -> tuple[int, str, str] | None:
    """The one edit that turns `a` into `b`, as (position, removed, inserted), if there is one.

    >>> single_edit("Studen", "Student"), single_edit("towerA", "towerB"), single_edit("ab", "ba")
    ((6, '', 't'), (5, 'A', 'B'), None)
    """
    if a == b:
        return None
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j] == b[-1 - j]:
        j += 1
    removed, inserted = a[i : len(a) - j], b[i : len(b) - j]
    return (i, removed, inserted) if len(removed) <= 1 and len(inserted) <= 1 else None


def _plural(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    return len(short) >= 3 and (
        long in {short + "s", short + "es"} or (short.endswith("y") and long == short[:-1] + "ies")
    )


def spelled_alike(a: str, b: str, kind: NameKind) -> bool:
    """Whether `a` and `b` look like two spellings of one name.

    Case-only differences, plurals (`Dance`/`Dances`), and one edit between names of at least
    five characters (`Studen`/`Student`) — but not a digit (`year2010`/`year2012`), not the
    last character replaced (`towerA`/`towerB`: an index) and not the first character
    (`Phone`/`IPhone`, `J1Visa`/`F1Visa`: another word); for constants also one letter in
    front of a number (`y1984`/`1984`).

    >>> spelled_alike("roderickstrong", "roderickStrong", "constant")
    True
    >>> spelled_alike("Studen", "Student", "predicate"), spelled_alike("Student", "StudentAt", "predicate")
    (True, False)
    >>> spelled_alike("year2010", "year2012", "constant"), spelled_alike("y1984", "1984", "constant")
    (False, True)
    >>> spelled_alike("towerA", "towerB", "constant"), spelled_alike("Phone", "IPhone", "predicate")
    (False, False)
    """
    if a == b:
        return False
    if a.lower() == b.lower() or _plural(a, b) or _plural(a.lower(), b.lower()):
        return True
    edit = single_edit(a, b)
    if edit is None:
        return False
    at, removed, inserted = edit
    if kind == "constant":
        short, long = sorted((a, b), key=len)
        if short.isdigit() and len(long) == len(short) + 1 and long[0].isalpha():
            return True
    if min(len(a), len(b)) < 5 or any(ch.isdigit() for ch in removed + inserted):
        return False
    # the first letter starts the name and a replaced last one is an index (towerA/towerB)
    return at != 0 and not (removed and inserted and at == len(a) - 1)


def _both_in_nl(a: str, b: str, words: Words) -> bool:
    """Whether the sentences use every word of two look-alike names: two concepts, not a typo.

    Case and plural variants are one concept whatever the sentences say.

    >>> w = Words.of("Desserts are not deserts; students.")
    >>> _both_in_nl("Dessert", "Desert", w), _both_in_nl("Studen", "Student", w)
    (True, False)
    """
    if a.lower() == b.lower() or _plural(a.lower(), b.lower()):
        return False
    return all(words.known(w) for name in (a, b) for w in _CAMEL.findall(name))


def _conventional(name: str, kind: NameKind) -> bool:
    """FOLIO spells predicates UpperCamel and constants lowerCamel."""
    first = name[:1]
    return first.isupper() if kind == "predicate" else not first.isupper()


def _preference(
    words: Words, kind: NameKind, formulas: Counter[str], occurrences: Counter[str]
) -> Callable[[str, str], bool]:
    """Whether spelling `t` beats spelling `m` of one name (`beats(t, m)`).

    Evidence, strongest first: the number of formulas that use the spelling (a slip is made
    in one formula, and a formula repeating a name is one witness), then of occurrences (a
    slip changes one of them); FOLIO's case convention (`_conventional`); then the sentences'
    words: for spellings that differ in more than case, fewer camel-case words that are not
    words of the sentences (`Studen`, `SunA`); last, fewer capitals off the words' boundaries
    (`aNn` for "Ann", `year2013final` for "the 2013 final"). Where a premise or the conclusion
    uses a spelling, or which comes first, is no evidence: when nothing tells two spellings
    apart, neither beats the other, and the tie is left alone.
    """

    def beats(t: str, m: str) -> bool:
        counts = [(formulas[n], occurrences[n], _conventional(n, kind)) for n in (t, m)]
        if counts[0] != counts[1]:
            return counts[0] > counts[1]
        if t.lower() != m.lower():
            unknown = words.unknown(t), words.unknown(m)
            if unknown[0] != unknown[1]:
                return unknown[0] < unknown[1]
        return words.case_errors(t) < words.case_errors(m)

    return beats


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions), case-sensitive.

    >>> edit_distance("stephencurRy", "stephencurry"), edit_distance("stephencurRy", "stephenCurry")
    (1, 2)
    """
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def rename(text: str, kind: NameKind, arity: int | None, old: str, new: str) -> str:
    """Rewrite whole-name occurrences of `old` (of `kind`, and `arity` if given) to `new`.

    >>> rename("∀x (Student(x) → StudentAt(x, mit))", "predicate", 1, "Student", "Pupil")
    '∀x (Pupil(x) → StudentAt(x, mit))'
    """
    edits = [
        (u.start, u.end, new)
        for u in name_uses(text)
        if u.kind == kind and u.name == old and (arity is None or u.arity == arity)
    ]
    return splice(text, edits)


def unify_names(findings: Findings) -> list[Candidate]:
    """Rewrite the minority spelling of a name spelled two ways to the majority spelling.

    Names are compared within one kind (predicates of one arity, constants); uses are counted
    over the distinct formulas of the item and its story, the conclusion included. Each
    spelling used in the item that loses to a look-alike (see `spelled_alike`; for what wins,
    see `_preference`) is rewritten, in every formula of the item, to the closest spelling that
    beats it — one candidate each, strongest evidence first, then all of them together. A
    formula that spells a name both ways has a slip of its own: the rewrite of just such
    formulas comes right before the rewrite everywhere (the smaller edit first). Two
    spellings whose words the sentences both use are two names. A name the item uses with two
    arities is left to `harmonize_arity`: renaming one of them would hide the conflict, not
    repair it. A tie proposes nothing: the rewrite would make the item consistent either way,
    so the gate cannot tell the slip from the intended spelling, and guessing rewrites the
    right formulas to the slip.

    >>> fol = {"premises[0]": "∀x (Studen(x) → Young(x))", "premises[1]": "Student(ann)",
    ...        "conclusion": "Young(ann)"}
    >>> f = Findings("i", "s", fol, {}, None, story_fol=("∀x (Student(x) → Happy(x))",))
    >>> [[(e.where, e.after) for e in c] for c in unify_names(f)]
    [[('premises[0]', '∀x (Student(x) → Young(x))')]]
    """
    parsed = _parsed_fields(findings)
    formulas: dict[tuple[NameKind, int], Counter[str]] = {}
    occurrences: dict[tuple[NameKind, int], Counter[str]] = {}
    for text in _item_texts(findings):
        uses = name_uses(text)
        for u in uses:
            occurrences.setdefault((u.kind, u.arity), Counter())[u.name] += 1
        for kind, arity, name in {(u.kind, u.arity, u.name) for u in uses}:
            formulas.setdefault((kind, arity), Counter())[name] += 1
    in_item = {(u.kind, u.arity, u.name) for w in parsed for u in name_uses(findings.fol[w])}
    arities: dict[tuple[NameKind, str], set[int]] = {}
    for kind, arity, name in in_item:
        arities.setdefault((kind, name), set()).add(arity)
    words = Words.of(*findings.nl.values())
    # (strength, kind, arity, minority, target): one rewrite per losing spelling
    rewrites: list[tuple[tuple[float, float], NameKind, int, str, str]] = []
    for (kind, arity), names in sorted(formulas.items()):
        counted = occurrences[(kind, arity)]
        beats = _preference(words, kind, names, counted)
        for m in sorted(names):
            if (kind, arity, m) not in in_item or len(arities[(kind, m)]) > 1:
                continue  # not in the item, or in an arity conflict: harmonize_arity's business
            better = [
                t
                for t in names
                if spelled_alike(m, t, kind) and beats(t, m) and not _both_in_nl(m, t, words)
            ]
            if better:
                # the closest spelling that beats it: a typo of a typo goes back one step
                t = min(better, key=lambda t: (edit_distance(m, t), -names[t], -counted[t], t))
                strength = (names[t] / names[m], counted[t] / counted[m])
                rewrites.append((strength, kind, arity, m, t))
    rewrites.sort(key=lambda r: (-r[0][0], -r[0][1]))  # stable: ties keep kind/arity/name order
    out = [
        candidate
        for r in rewrites
        for mixed_only in (True, False)
        for candidate in [_rename_everywhere(findings, parsed, [r], mixed_only=mixed_only)]
    ]
    if len(rewrites) > 1:
        out.append(_rename_everywhere(findings, parsed, rewrites))
    return _unique(c for c in out if c)[:MAX_CANDIDATES]


def _rename_everywhere(
    findings: Findings,
    parsed: dict[Where, Formula],
    rewrites: Sequence[tuple[tuple[float, float], NameKind, int, str, str]],
    *,
    mixed_only: bool = False,
) -> Candidate:
    """One candidate applying all `rewrites` to every formula of the item that uses them.

    With `mixed_only`, only to the formulas that use both spellings of a name.
    """
    targets = {(kind, arity, m): t for _, kind, arity, m, t in rewrites}

    def rewrite(text: str) -> str:
        uses = name_uses(text)
        present = {(u.kind, u.arity, u.name) for u in uses}
        if mixed_only and not any(
            key in present and (key[0], key[1], t) in present for key, t in targets.items()
        ):
            return text
        return splice(
            text,
            [
                (u.start, u.end, targets[(u.kind, u.arity, u.name)])
                for u in uses
                if (u.kind, u.arity, u.name) in targets
            ],
        )

    why = "; ".join(f"{m!r} is spelled {t!r} elsewhere" for _, _, _, m, t in rewrites)
    return _rewrite_item(findings, parsed, rewrite, "unify_names", why)


def _rewrite_item(
    findings: Findings,
    parsed: dict[Where, Formula],
    rewrite: Callable[[str], str | None],
    rule: str,
    why: str,
) -> Candidate:
    """Edits applying `rewrite` to every parsed formula of the item it changes.

    Empty when `rewrite` refuses a formula (returns None) or breaks one: such a change is
    all-or-nothing, since half a renaming is a new inconsistency.
    """
    edits = []
    for where in parsed:
        before = findings.fol[where]
        after = rewrite(before)
        if after is None or len(after) > _MAX_AFTER or parses(after) is None:
            return ()
        if after != before:
            edits.append(_edit(where, before, after, rule, why))
    return tuple(edits)


# -- 4. harmonize_arity -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Atom:
    """A predicate occurrence with the text span of each argument."""

    name: str
    args: tuple[Term, ...]
    arg_spans: tuple[tuple[int, int], ...]


def _atoms(text: str) -> list[_Atom]:
    """The predicate occurrences of `text` that have arguments, in text order."""
    f = parses(text)
    if f is None:
        return []
    out = []
    for node in subformulas(f):
        if isinstance(node, Pred) and node.args:
            spans = tuple((a.span.start, a.span.end) for a in node.args if a.span is not None)
            if len(spans) == len(node.args):
                out.append(_Atom(node.name, node.args, spans))
    return sorted(out, key=lambda a: a.arg_spans[0])


def _fixed_constants(atoms: Sequence[_Atom]) -> dict[int, str]:
    """Positions where every atom has the same constant."""
    out: dict[int, str] = {}
    for i, arg in enumerate(atoms[0].args):
        if isinstance(arg, Const) and all(a.args[i] == arg for a in atoms):
            out[i] = arg.name
    return out


def _drop_arg(atom: _Atom, i: int) -> TextEdit:
    """Remove argument `i` of `atom` with its separator.

    >>> text = "R(x, a,b)"
    >>> [splice(text, [_drop_arg(_atoms(text)[0], i)]) for i in range(3)]
    ['R(a,b)', 'R(x,b)', 'R(x, a)']
    """
    spans = atom.arg_spans
    if i > 0:
        return (spans[i - 1][1], spans[i][1], "")
    return (spans[0][0], spans[1][0], "")


def _insert_arg(text: str, atom: _Atom, i: int, name: str) -> TextEdit:
    """Insert `name` as argument `i` of `atom`, separated as the atom (or the text) separates.

    >>> text = "R(x,y) ∧ P(x)"
    >>> splice(text, [_insert_arg(text, _atoms(text)[1], 1, "a")])
    'R(x,y) ∧ P(x,a)'
    """
    spans = atom.arg_spans
    if len(spans) > 1:
        sep = text[spans[0][1] : spans[1][0]]
    else:
        sep = "," if re.search(r",\S", text) and not re.search(r", ", text) else ", "
    if i >= len(spans):
        return (spans[-1][1], spans[-1][1], f"{sep}{name}")
    return (spans[i][0], spans[i][0], f"{name}{sep}")


ArityOption = Callable[[str, _Atom], TextEdit | None]


def _arity_options(
    minority_k: int, majority_k: int, majority: Sequence[_Atom], sentences: dict[str, Words]
) -> list[ArityOption]:
    """Structurally justified ways to turn a `minority_k`-ary atom into a `majority_k`-ary one.

    One argument too many: drop an argument only the minority form has — a constant no
    majority use has in that position, or a variable the atom repeats — last position first,
    unless a kept constant contradicts one the majority form always has. One too few: append the
    constant every majority use has last, and only when that is unambiguous — the atom's own
    arguments line up with the majority form's (no constant where it always has another),
    the atom does not already have that constant, the result does not repeat a conjunct or
    disjunct (`From(a, b) ∧ From(a, b)`, see `repeats`), and the formula's sentence mentions
    the constant (`sentences`, by formula text; a formula without one is not checked).
    Inserting elsewhere would shift the atom's arguments: a guess the gate cannot check when
    the premise does not matter to the label.
    """
    fixed = _fixed_constants(majority)
    # (slot, constant) pairs the majority form has: an argument there lines up with it
    in_majority = {
        (i, t.name) for a in majority for i, t in enumerate(a.args) if isinstance(t, Const)
    }
    options: list[ArityOption] = []
    if minority_k == majority_k + 1:
        for i in range(minority_k - 1, -1, -1):

            def drop(text: str, atom: _Atom, i: int = i) -> TextEdit | None:
                arg = atom.args[i]
                kept = atom.args[:i] + atom.args[i + 1 :]
                clash = any(
                    isinstance(t, Const) and j in fixed and t.name != fixed[j]
                    for j, t in enumerate(kept)
                )
                only_here = isinstance(arg, Const) and (i, arg.name) not in in_majority
                droppable = only_here or atom.args.count(arg) > 1
                return _drop_arg(atom, i) if droppable and not clash else None

            options.append(drop)
    elif minority_k + 1 == majority_k and minority_k in fixed:
        constant = fixed[minority_k]

        def append(text: str, atom: _Atom) -> TextEdit | None:
            if any(isinstance(t, Const) and t.name == constant for t in atom.args):
                return None  # the constant is already there: the missing one is another
            if any(
                isinstance(t, Const) and j in fixed and t.name != fixed[j]
                for j, t in enumerate(atom.args)
            ):
                return None  # the arguments do not line up with the majority form's
            words = sentences.get(text, Words())
            if words.words and not words.mention(constant):
                return None  # the sentence does not mention it
            edit = _insert_arg(text, atom, minority_k, constant)
            before, after = parses(text), parses(splice(text, [edit]))
            if before is None or after is None or repeats(after) > repeats(before):
                return None  # `From(a, b) ∧ From(a, b)`: the formula states that atom already
            return edit

        options.append(append)
    return options


def repeats(f: Formula) -> int:
    """Operands a conjunction or disjunction repeats (`A ∧ B ∧ A`): FOLIO does not write them.

    >>> from refinery.logic.parse import parse
    >>> repeats(parse("P(a) ∧ (Q(a) ∧ P(a))")), repeats(parse("P(a) → Q(a) ∧ P(a)"))
    (1, 0)
    """
    return sum(
        len(n.args) - len(set(n.args)) for n in subformulas(shape(f)) if isinstance(n, And | Or)
    )


def _rewrite_atoms(text: str, *, name: str, arity: int, option: ArityOption) -> str | None:
    """`text` with `option` applied to every `name`/`arity` atom; None if it refuses one."""
    edits = []
    for atom in _atoms(text):
        if atom.name == name and len(atom.args) == arity:
            edit = option(text, atom)
            if edit is None:
                return None
            edits.append(edit)
    return splice(text, edits)


def harmonize_arity(findings: Findings) -> list[Candidate]:
    """Make a predicate's minority arity match its majority arity, where arguments justify it.

    Uses are counted over the distinct formulas of the item and its story; a tie says nothing.
    With one argument too many, drop an argument only the minority form has; with one too few,
    append the constant every majority use ends with, where nothing makes that ambiguous (see
    `_arity_options`). Each option rewrites every minority use in the item, or none.
    Predicates with the clearest majority come first.

    >>> fol = {"premises[0]": "∀x (Drinks(x, coffee) → Awake(x))", "premises[1]": "Drinks(ann)",
    ...        "conclusion": "Drinks(bob, coffee)"}
    >>> f = Findings("i", "s", fol, {}, None)
    >>> [[e.after for e in c] for c in harmonize_arity(f)]
    [['Drinks(ann, coffee)']]
    >>> nl = {"premises[1]": "Ann drinks tea."}  # the sentence does not say coffee
    >>> harmonize_arity(Findings("i", "s", fol, nl, None))
    []
    """
    parsed = _parsed_fields(findings)
    sentences = {findings.fol[w]: _sentence(findings, w) for w in parsed}
    uses: dict[str, dict[int, list[_Atom]]] = {}
    for text in _item_texts(findings):
        for atom in _atoms(text):
            uses.setdefault(atom.name, {}).setdefault(len(atom.args), []).append(atom)
    proposals: list[tuple[float, Candidate]] = []
    for name, by_arity in sorted(uses.items()):
        if len(by_arity) != 2:
            continue
        (majority_k, majority), (minority_k, minority) = sorted(
            by_arity.items(), key=lambda kv: (-len(kv[1]), kv[0])
        )
        if len(majority) == len(minority):
            continue  # no majority: nothing says which form is right
        why = f"{name!r} takes {majority_k} arguments in {len(majority)} other uses"
        for option in _arity_options(minority_k, majority_k, majority, sentences):
            rewrite = functools.partial(_rewrite_atoms, name=name, arity=minority_k, option=option)
            candidate = _rewrite_item(findings, parsed, rewrite, "harmonize_arity", why)
            if candidate:
                proposals.append((len(majority) / len(minority), candidate))
    proposals.sort(key=lambda p: -p[0])  # stable: ties keep name and option order
    return _unique(c for _, c in proposals)[:MAX_CANDIDATES]


def _unique(candidates: Iterable[Candidate]) -> list[Candidate]:
    out: list[Candidate] = []
    seen: set[tuple[tuple[str, str], ...]] = set()
    for c in candidates:
        key = tuple(sorted((e.where, e.after) for e in c))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


# -- 5. close_free_variables ------------------------------------------------------------------


def _free_names(f: Formula) -> list[str]:
    """Names lint reports as free variables in `f`, in order of appearance."""
    names = []
    for issue in lint([("f", f)]):
        if issue.kind == "free_variable":
            m = re.match(r"'(.+)' is not bound", issue.message)
            if m:
                names.append(m.group(1))
    return list(dict.fromkeys(names))


def _quantify(text: str, quantifier: str, var: str) -> str:
    """`text` under `∀var`/`∃var`, adding parentheses only where the reader needs them.

    A quantifier's body extends to the end of the formula, so a prefix before another
    quantifier or a group around everything needs none.

    >>> _quantify("(P(x) → Q(x))", "∀", "x"), _quantify("P(x) → Q(x)", "∃", "x")
    ('∀x (P(x) → Q(x))', '∃x (P(x) → Q(x))')
    >>> _quantify("∀x (A(x) → B(x, y))", "∃", "y")
    '∃y ∀x (A(x) → B(x, y))'
    """
    body = text.strip()
    start = len(text) - len(text.lstrip())
    wrapped = paren_pairs(body).get(0) == len(body) - 1 and _grouping(body, 0)
    if wrapped or body.startswith(("∀", "∃")):
        return f"{text[:start]}{quantifier}{var} {text[start:]}"
    return f"{text[:start]}{quantifier}{var} ({body}){text[start + len(body) :]}"


def _var_spans(text: str, var: str) -> list[tuple[int, int]]:
    """Where the free name `var` stands in `text` (it parses as a constant there)."""
    return [(u.start, u.end) for u in name_uses(text) if u.kind == "constant" and u.name == var]


def _innermost_group(text: str, spans: Sequence[tuple[int, int]]) -> int | None:
    """Start of the innermost grouping '(' whose pair encloses all `spans`, if any."""
    if not spans:
        return None
    lo, hi = min(s for s, _ in spans), max(e for _, e in spans)
    inside = [i for i, j in paren_pairs(text).items() if i < lo and hi <= j and _grouping(text, i)]
    return max(inside) if inside else None


def _sole_constant(findings: Findings, where: Where, text: str, var: str) -> str | None:
    """The one constant other formulas of the item put where `var` stands (same predicate/slot)."""
    slots = {
        (atom.name, len(atom.args), i)
        for atom in _atoms(text)
        for i, t in enumerate(atom.args)
        if isinstance(t, Const) and t.name == var
    }
    seen: set[str] = set()
    for other, other_text in findings.fol.items():
        if other == where:
            continue
        for atom in _atoms(other_text):
            for name, arity, i in slots:
                if atom.name == name and len(atom.args) == arity:
                    t = atom.args[i]
                    if isinstance(t, Const) and not _VARIABLE.fullmatch(t.name):
                        seen.add(t.name)
    return next(iter(seen)) if len(seen) == 1 else None


def _likely_quantifiers(scope: Formula | None) -> tuple[str, str]:
    """∀ before ∃ for a rule-shaped scope (→, ↔, ∨, ⊕, ¬), ∃ first for a conjunction or atom.

    FOLIO writes `∀x (P(x) → Q(x))` and `∃x (P(x) ∧ Q(x))`; the other pairings are rare.

    >>> from refinery.logic.parse import parse
    >>> _likely_quantifiers(parse("P(x) → Q(x)")), _likely_quantifiers(parse("∃y (P(x) ∧ R(x, y))"))
    (('∀', '∃'), ('∃', '∀'))
    """
    while isinstance(scope, Forall | Exists):
        scope = scope.body
    if isinstance(scope, And | Pred | Eq):
        return ("∃", "∀")
    return ("∀", "∃")


_PREFIX = re.compile(r"([∀∃])\s*([\w']+)\s*")

#: Words that say "some" (∃) or "all" (∀). "Not all" is existential, and so is a possibility
#: ("it may get Monkeypox"); "there is no" is universal, and so is a conditional ("if someone is
#: angry, they yell").
_SOME = re.compile(
    r"\b(?:some(?:one|body|thing|where)?|there(?:'s|’s| is| are| was| were| exists?)(?! no\b)|exists?"
    r"|at least|not (?:all|every(?:one|thing)?)|may|might|one|two|three|four|five|several|many|a few)\b",
    re.IGNORECASE,
)
_ALL = re.compile(
    r"\b(?:all|every(?:one|body|thing)?|each|any(?:one|body|thing)?|no(?:ne|body|thing)?|never"
    r"|whoever|whatever|whenever|if|when)\b",
    re.IGNORECASE,
)


def quantifier_cue(sentence: str) -> str | None:
    """The quantifier a sentence's wording asks for: ∃ for "some", ∀ for "all", else None.

    >>> [quantifier_cue(s) for s in ("Some fish sting.", "Not all bears are wild.",
    ...     "There are no ghosts.", "All cats purr.", "Rappers release albums.",
    ...     "If someone is angry, they yell.")]
    ['∃', '∃', '∀', '∀', None, None]
    """
    some = _SOME.search(sentence) is not None
    negated = re.sub(r"\bnot (?:all|every(?:one|thing)?)\b", "", sentence, flags=re.IGNORECASE)
    every = _ALL.search(negated) is not None
    if some == every:
        return None
    return "∃" if some else "∀"


def _prefix(text: str) -> tuple[list[tuple[str, str, int]], int]:
    """The quantifiers a formula starts with, as (quantifier, variable, start), and its body's start.

    >>> _prefix("∃y ∀z (P(y, z))")
    ([('∃', 'y', 0), ('∀', 'z', 3)], 6)
    """
    chain: list[tuple[str, str, int]] = []
    pos = len(text) - len(text.lstrip())
    while (m := _PREFIX.match(text, pos)) is not None:
        chain.append((m.group(1), m.group(2), m.start()))
        pos = m.end()
    return chain, pos


def _roles(f: Formula) -> dict[str, frozenset[tuple[str, int, int, bool]]]:
    """For each variable or constant name, the argument slots it fills: (predicate, arity,
    position, under an odd number of negations); equality is the predicate '='."""
    out: dict[str, set[tuple[str, int, int, bool]]] = {}

    def slot(t: Term, role: tuple[str, int, int, bool]) -> None:
        if isinstance(t, Var | Const):
            out.setdefault(t.name, set()).add(role)

    def walk(g: Formula, neg: bool) -> None:
        match g:
            case Pred(name, terms):
                for i, t in enumerate(terms):
                    slot(t, (name, len(terms), i, neg))
            case Eq(lhs, rhs):
                slot(lhs, ("=", 2, 0, neg))
                slot(rhs, ("=", 2, 0, neg))
            case Not(body):
                walk(body, not neg)
            case And(parts) | Or(parts):
                for part in parts:
                    walk(part, neg)
            case Implies(left, right):
                walk(left, not neg)
                walk(right, neg)
            case Xor(left, right) | Iff(left, right):
                walk(left, neg)
                walk(right, neg)
            case Forall(_, body) | Exists(_, body):
                walk(body, neg)
            case _:
                assert_never(g)

    walk(f, False)
    return {name: frozenset(roles) for name, roles in out.items()}


def _twin_quantifier(f: Formula, chain: Sequence[tuple[str, str, int]], var: str) -> str | None:
    """The quantifier of the bound variables that fill exactly `var`'s slots, if they agree.

    FOLIO writes "two distinct cities" as twin variables under one quantifier:
    `∃x ∃y (City(x) ∧ City(y) ∧ ¬(x=y))`; a lost binder of one twin is the other's. Slots
    count with their polarity (`Visit(x) ∧ ¬Visit(y)` are no twins), equalities not at all.

    >>> from refinery.logic.parse import parse
    >>> text = "∃y (City(x) ∧ City(y) ∧ ¬(x=y))"
    >>> _twin_quantifier(parse(text), _prefix(text)[0], "x")
    '∃'
    """
    roles = {
        name: frozenset(r for r in slots if r[0] != "=") for name, slots in _roles(f).items()
    }  # twins differ in the equalities that keep them apart
    mine = roles.get(var)
    found = {q for q, v, _ in chain if v != var and mine and roles.get(v) == mine}
    return found.pop() if len(found) == 1 else None


def _var_quantifiers(f: Formula, var: str) -> tuple[str, str]:
    """`_likely_quantifiers` for the smallest subformula holding every use of `var`.

    A variable used only in a rule's condition is universal even in a conjunction there
    (`(A(x) ∧ R(x, y)) → B(y)` lost `∀x`), and one used only in a conclusion's conjunction is
    existential (`A(x) → C(y) ∧ R(x, y)` lost `∃y`): a negative position turns the answer over.

    >>> from refinery.logic.parse import parse
    >>> _var_quantifiers(parse("∀y ((A(x) ∧ R(x, y)) → B(y))"), "x")
    ('∀', '∃')
    >>> _var_quantifiers(parse("∀x (A(x) → C(y) ∧ R(x, y))"), "y")
    ('∃', '∀')
    """

    def holds(g: Formula) -> bool:
        return var in _roles(g)

    node, negative = f, False
    while True:
        match node:
            case Forall(_, body) | Exists(_, body):
                node = body
                continue
            case Not(body):
                node, negative = body, not negative
                continue
            case And(args) | Or(args):
                holding = [a for a in args if holds(a)]
                if len(holding) == 1:
                    node = holding[0]
                    continue
            case Implies(left, right) if holds(left) != holds(right):
                node, negative = (left, not negative) if holds(left) else (right, negative)
                continue
            case Xor(left, right) | Iff(left, right) if holds(left) != holds(right):
                node = left if holds(left) else right
                continue
        break
    first, second = _likely_quantifiers(node)
    return (second, first) if negative else (first, second)


def _at_tail(text: str, group: int) -> bool:
    """Whether the group opening at `group` is the last thing in its enclosing scope.

    Only there does a binder before it scope over the group alone: the parser extends a
    quantifier to the end of its own enclosing group.
    """
    close = paren_pairs(text).get(group)
    if close is None:
        return False
    rest = text[close + 1 :].lstrip()
    return not rest or rest[0] == ")"


def _closings(findings: Findings, where: Where, text: str, var: str) -> list[Fix]:
    """Ways to close the free `var` in `text` (the formula at `where`), most plausible first.

    A lost binder is restored where FOLIO puts binders, in this order:

    - among the leading quantifiers, with the quantifier of a twin variable, if there is one
      (`_twin_quantifier`);
    - nested, right before the innermost group that uses the variable, when that group is not
      the formula's body and either ends its enclosing scope (`A(x) → (B(y) ∧ C(x, y))`),
      already has a binder (`∃y (B(y) ∧ C(z, y)) → D` lost `∃z` next to `∃y`) or follows a ¬
      (`¬∃x (…)`, FOLIO's "no one"): elsewhere a binder before a group followed by more
      formula would scope over that too;
    - the one constant the item's other formulas put in the same argument of the same
      predicate, when this formula already names that constant;
    - among the leading quantifiers, in alphabetical order (FOLIO binds x, y, z in turn:
      `∀y (R(x, y))` lost `∀x` in front), or over the whole formula when it has none; the
      quantifier by the sentence's wording (`quantifier_cue`) together with the shape of the
      part of the formula that uses the variable (`_var_quantifiers`): the two agreeing, or
      only one speaking, decide, ∀ before ∃ when a universal sentence has a conjunction's
      shape; a rule-shaped formula whose sentence says "some" (`∃x (A(x) → B(x))`, an
      annotators' slip as often as not) is undecidable and gets no leading binder. Then the
      other quantifier;
    - that constant when this formula does not name it, unless the binders were undecidable.

    Only texts that parse and no longer have `var` free; one per meaning.
    """
    f = parses(text)
    if f is None:
        return []
    raw: list[Fix] = []
    chain, body = _prefix(text)
    twin = _twin_quantifier(f, chain, var)
    order = _leading_quantifiers(findings, where, f, twin, var)
    leading: list[Fix] = []
    for q in order:
        if chain:
            at = next((start for _, v, start in chain if v > var), body)
            after = splice(text, [(at, at, f"{q}{var} ")])
        else:
            after = _quantify(text, q, var)
        leading.append((after, f"bind {var} ({q}) over the formula"))
    if twin is not None:  # the strongest evidence there is
        raw.append(leading.pop(0))
    group = _innermost_group(text, _var_spans(text, var))
    nested = re.search(r"(?:[∀∃]\s*[\w']+|¬)\s*$", text[:group]) if group is not None else None
    if group is not None and group != body and (nested or _at_tail(text, group)):
        # a lost nested quantifier belongs right before the group that uses its variable
        q = _likely_quantifiers(parses(text[group + 1 : paren_pairs(text)[group]]))[0]
        raw.append((splice(text, [(group, group, f"{q}{var} ")]), f"bind {var} ({q}) there"))
    constant = _sole_constant(findings, where, text, var)
    named: Fix | None = None
    if constant is not None:
        after = splice(text, [(s, e, constant) for s, e in _var_spans(text, var)])
        named = (after, f"{var} stands where the item's other formulas have {constant}")
        # a formula that already talks about that individual most likely meant it here too
        if any(u.kind == "constant" and u.name == constant for u in name_uses(text)):
            raw.append(named)
            named = None
    raw += leading
    if named is not None and order:  # last; where the binders are undecidable, so is this
        raw.append(named)
    out: list[Fix] = []
    seen: set[Formula] = set()
    for after, why in raw:
        g = parses(after)
        if g is not None and var not in _free_names(g) and shape(g) not in seen:
            seen.add(shape(g))
            out.append((after, why))
    return out


def _leading_quantifiers(
    findings: Findings, where: Where, f: Formula, twin: str | None, var: str
) -> tuple[str, ...]:
    """The quantifiers to try for a binder among the leading ones, likeliest first (see `_closings`)."""
    if twin is not None:
        return (twin, "∃" if twin == "∀" else "∀")
    shaped = _var_quantifiers(f, var)
    cue = quantifier_cue(findings.nl.get(where, ""))
    if cue is None or cue == shaped[0]:
        return shaped
    if cue == "∀":
        return ("∀", "∃")
    return ()  # "some" over a rule: as often ∀ (a slip in the sentence) as ∃ (in the formula)


def _free_edits(findings: Findings) -> dict[Where, list[Edit]]:
    out: dict[Where, list[Edit]] = {}
    for where, f in _parsed_fields(findings).items():
        names = _free_names(f)
        before = findings.fol[where]
        fixes = [fix for var in names for fix in _closings(findings, where, before, var)]
        if len(names) > 1:  # all of them at once, each by its likeliest closing
            text, whys = before, []
            for var in names:
                options = _closings(findings, where, text, var)
                if not options:
                    break
                text, why = options[0]
                whys.append(why)
            else:
                fixes.insert(0, (text, "; ".join(whys)))
        if fixes:
            out[where] = _edits(where, before, fixes, "close_free_variables")
    return out


def close_free_variables(findings: Findings) -> list[Candidate]:
    """Close a free variable: bind it where it is used, bind it over the formula, or name it.

    Candidates, most plausible first (see `_closings`): a binder with a twin variable's
    quantifier; a binder just before the innermost group that uses the variable, where that
    group ends its scope (a lost nested quantifier); the one constant the item's other formulas
    put in the same argument of the same predicate, when this formula names it already; a
    binder among the leading quantifiers (alphabetically) or over the whole formula, ∀ or ∃ as
    the sentence's wording and the formula's shape say — none where they disagree on a rule.
    Several formulas with free variables are repaired together first (see `_joint`).

    >>> fol = {"premises[0]": "Regret(robert, college)", "conclusion": "Regret(x, college) ∧ Sad(robert)"}
    >>> f = Findings("i", "s", fol, {}, None)
    >>> [[e.after for e in c] for c in close_free_variables(f)]
    [['Regret(robert, college) ∧ Sad(robert)'], ['∃x (Regret(x, college) ∧ Sad(robert))'], ['∀x (Regret(x, college) ∧ Sad(robert))']]
    >>> f = Findings("i", "s", {"premises[0]": "∀x (A(x) → (B(x, y)))", "conclusion": "A(a)"}, {}, None)
    >>> [c[0].after for c in close_free_variables(f)]
    ['∀x (A(x) → ∃y (B(x, y)))', '∀x ∃y (A(x) → (B(x, y)))', '∀x ∀y (A(x) → (B(x, y)))']
    """
    return _joint(_free_edits(findings))


# -- wrong connective ---------------------------------------------------------------------------

#: "either both … or neither" (in either order): the sentence asks for ↔, not ⊕.
BOTH_OR_NEITHER = re.compile(r"\bboth\b.*\bor\b.*\bneither\b|\bneither\b.*\bor\b.*\bboth\b", re.I)


def both_or_neither_iff(findings: Findings) -> list[Candidate]:
    """Replace a lone ⊕ by ↔ where the sentence says "either both … or neither".

    ⊕ means "exactly one", the opposite of "both or neither"; formulas that already spell the
    two cases out (`(A ∧ B) ⊕ ¬(A ∨ B)`, a correct encoding) are left alone: only a formula
    with a single ⊕ between two atoms is touched.

    >>> f = Findings("i", "s", {"premises[0]": "Sing(sam) ⊕ Dance(sam)", "conclusion": "Dance(sam)"},
    ...              {"premises[0]": "Sam either both sings and dances, or neither."}, None)
    >>> [c[0].after for c in both_or_neither_iff(f)]
    ['Sing(sam) ↔ Dance(sam)']
    """
    out: list[Candidate] = []
    for where, text in findings.fol.items():
        if text.count("⊕") != 1 or not BOTH_OR_NEITHER.search(findings.nl.get(where, "")):
            continue
        formula = parses(text)
        xors = (
            [n for n in subformulas(formula) if isinstance(n, Xor)] if formula is not None else []
        )
        if len(xors) != 1 or not all(
            isinstance(side, Pred) for side in (xors[0].left, xors[0].right)
        ):
            continue
        after = text.replace("⊕", "↔")
        if parses(after) is not None:
            why = "the sentence says 'both or neither' (↔), the formula says 'exactly one' (⊕)"
            out.append((_edit(where, text, after, "both_or_neither_iff", why),))
    return out[:MAX_CANDIDATES]


# -- the rule table and the entry points ------------------------------------------------------

RULES: tuple[Rule, ...] = (
    Rule("balance_parentheses", ErrorClass.UNBALANCED_PARENTHESES, balance_parentheses),
    Rule("fix_token_typos", ErrorClass.TOKEN_TYPO, fix_token_typos),
    Rule("harmonize_arity", ErrorClass.ARITY_CONFLICT, harmonize_arity),
    Rule("close_free_variables", ErrorClass.FREE_VARIABLE, close_free_variables),
    Rule("unify_names", ErrorClass.NAMING_DRIFT, unify_names),
    Rule("both_or_neither_iff", ErrorClass.WRONG_CONNECTIVE, both_or_neither_iff),
)
_CLASS_OF = {rule.name: rule.error_class for rule in RULES}
_SYNTAX_RULES = ("balance_parentheses", "fix_token_typos")


def propose_repairs(
    findings: Findings, *, classes: set[ErrorClass] | None = None
) -> list[tuple[str, Candidate]]:
    """Every rule's candidates as `(rule name, candidate)`, most plausible first, deduplicated.

    Rules run in `RULES` order. When several formulas fail to parse and no single rule fixes all
    of them, joint candidates combining the syntax rules' best fixes come first: the gate only
    accepts an item whose formulas all parse.

    Parameters
    ----------
    findings:
        The item's check results.
    classes:
        Only run the rules for these error classes (all rules when None).

    Returns
    -------
    list[tuple[str, Candidate]]
        Candidates in the order the refiner should try them; the name is the rule's (joint
        syntax candidates are named `balance_parentheses+fix_token_typos`).
    """
    proposals = [("+".join(_SYNTAX_RULES), c) for c in _cross_syntax(findings, classes)]
    for rule in RULES:
        if classes is None or rule.error_class in classes:
            proposals += [(rule.name, c) for c in rule.propose(findings)]
    out: list[tuple[str, Candidate]] = []
    seen: set[tuple[tuple[str, str], ...]] = set()
    for name, candidate in proposals:
        key = tuple(sorted((e.where, e.after) for e in candidate))
        if key not in seen:
            seen.add(key)
            out.append((name, candidate))
    return out


def _cross_syntax(findings: Findings, classes: set[ErrorClass] | None) -> list[Candidate]:
    """Joint candidates for broken formulas of which some need one syntax rule, some the other.

    Each rule alone only repairs its own formulas, and the gate needs all of them to parse.
    """
    if classes is not None and not {
        ErrorClass.UNBALANCED_PARENTHESES,
        ErrorClass.TOKEN_TYPO,
    } <= set(classes):
        return []
    paren, typo = _paren_edits(findings), _typo_edits(findings)
    paren_fixed = {w for w, edits in paren.items() if edits}
    typo_fixed = {w for w, edits in typo.items() if edits}
    if len(paren_fixed | typo_fixed) <= max(len(paren_fixed), len(typo_fixed)):
        return []  # one rule covers every formula the other does: its own joint suffices
    merged = {w: paren.get(w, []) + typo.get(w, []) for w in sorted(paren_fixed | typo_fixed)}
    return [c for c in _joint(merged) if len(c) > 1]


def apply_candidate(fol: dict[str, str], candidate: Candidate) -> dict[str, str]:
    """A copy of `fol` with the candidate's edits applied.

    Raises
    ------
    ValueError
        When an edit's position is unknown or its `before` is not the current text there.

    >>> e = Edit(where="conclusion", before="P(a", after="P(a)", error_class="token_typo", source="t")
    >>> apply_candidate({"conclusion": "P(a"}, (e,))
    {'conclusion': 'P(a)'}
    """
    out = dict(fol)
    for edit in candidate:
        if edit.where not in out:
            raise ValueError(f"{edit.where}: no such formula")
        if out[edit.where] != edit.before:
            raise ValueError(f"{edit.where}: the formula is not {edit.before!r}")
        out[edit.where] = edit.after
    return out
