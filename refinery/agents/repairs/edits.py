"""What repair rules share: candidates, rule tags, and text surgery that keeps the annotator's spelling.

A rule proposes `Candidate`s, edits applied together. Each edit changes only the characters it must
(`splice` of `TextEdit`s on the original text, no canonical reprinting), so review diffs stay
small, and carries the `RuleTag` of the rule that made it. The helpers here read a formula's text:
which fields parse, where a syntax error is, which parentheses pair up.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import assert_never

from refinery.agents.models import Edit, ErrorClass, ItemContext, Where
from refinery.agents.repairs.located import name_uses
from refinery.logic.errors import SyntaxProblem
from refinery.logic.lint import lint
from refinery.logic.parse import parses, try_parse
from refinery.logic.printer import to_text
from refinery.logic.rewrite import Path, at, replace
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

#: Edits applied together; a rule's proposal.
Candidate = tuple[Edit, ...]

#: The most candidates one rule proposes: the gate re-proves each, and every extra candidate is a
#: chance to accept a repair that fits the label but not the intended formula.
MAX_CANDIDATES = 6


@dataclass(frozen=True, slots=True)
class RuleTag:
    """What a repair rule is called and which error class it repairs; stamped on its edits.

    Each rule module declares its own (`TAG`); the registry lists the modules.
    """

    name: str
    error_class: ErrorClass


def free_variable_count(f: Formula) -> int:
    """How many free-variable lint errors `f` has on its own.

    >>> from refinery.logic.parse import parse
    >>> free_variable_count(parse("(∀x P(x)) → Q(x)")), free_variable_count(parse("∀x (P(x) → Q(x))"))
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

BINARY = "∧∨⊕→↔"


def splice(text: str, edits: Iterable[TextEdit]) -> str:
    """Apply non-overlapping `(start, end, replacement)` edits to `text`.

    >>> splice("P(a ∧ Q(b)", [(3, 3, ")"), (0, 0, "¬")])
    '¬P(a) ∧ Q(b)'
    """
    out = text
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + new + out[end:]
    return out


def make_edit(
    where: Where, before: str, after: str, tag: RuleTag, why: str, *, guess: bool = False
) -> Edit:
    """An edit made by the rule `tag` names: its `source` and error class come from the tag."""
    return Edit(
        where=where,
        before=before,
        after=after,
        error_class=tag.error_class,
        source=tag.name,
        rationale=why,
        guess=guess,
    )


def parsed_fields(findings: ItemContext) -> dict[Where, Formula]:
    out: dict[Where, Formula] = {}
    for where, text in findings.fol.items():
        f = parses(text)
        if f is not None:
            out[where] = f
    return out


#: The syntax rules re-parse a formula once per place an edit could go, so their cost grows with
#: the square of its length: past this many characters (twice FOLIO's longest formula, 943) a
#: broken formula goes to review unrepaired instead of holding up the run for minutes.
MAX_SYNTAX_REPAIR_CHARS = 2000


def broken_fields(findings: ItemContext) -> dict[Where, SyntaxProblem]:
    """The formulas that do not parse (and are short enough to repair), with the problem."""
    out: dict[Where, SyntaxProblem] = {}
    for where, text in findings.fol.items():
        if len(text) > MAX_SYNTAX_REPAIR_CHARS:
            continue
        result = try_parse(text, field=where)
        if isinstance(result, SyntaxProblem):
            out[where] = result
    return out


def error_position(problem: SyntaxProblem) -> int:
    """0-based character index of the problem in its (single-line) source."""
    lines = problem.source.split("\n")
    before = sum(len(line) + 1 for line in lines[: problem.line - 1])
    return min(before + problem.column - 1, len(problem.source))


Fix = tuple[str, str]  # (new text, rationale) for one field

#: `Edit.after` is bounded; a longer text is not a plausible repair of a FOLIO formula.
MAX_AFTER = 4000


def edits_for(where: Where, before: str, fixes: Iterable[Fix], tag: RuleTag) -> list[Edit]:
    """Edits at `where` for each distinct fix (`after` not too long for an `Edit`)."""
    unique = dict.fromkeys(f for f in fixes if len(f[0]) <= MAX_AFTER and f[0] != before)
    return [make_edit(where, before, after, tag, why) for after, why in unique]


def joint(per_field: dict[Where, list[Edit]]) -> list[Candidate]:
    """Candidates from per-formula alternatives, at most `MAX_CANDIDATES`.

    With one formula to repair, its alternatives in order. With several, combinations come
    first — the gate accepts an item only when all of its formulas are sound — ordered by the
    sum of their per-formula ranks; single edits follow.

    >>> tag = RuleTag("example", ErrorClass.UNBALANCED_PARENTHESES)
    >>> a = [make_edit("conclusion", "P(a", t, tag, "") for t in ("P(a)", "(P(a))")]
    >>> b = [make_edit("premises[0]", "Q(b", "Q(b)", tag, "")]
    >>> [[e.after for e in c] for c in joint({"conclusion": a, "premises[0]": b})]
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


def paren_chars(text: str) -> Iterator[tuple[int, str]]:
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
    for i, ch in paren_chars(text):
        if ch == "(":
            stack.append(i)
        elif stack:
            pairs[stack.pop()] = i
    return pairs


def is_name_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_+"


def grouping(text: str, i: int) -> bool:
    """Whether the '(' at `i` groups a formula (not an atom's argument list).

    >>> grouping("∀x (P(x))", 3), grouping("∀x (P(x))", 5), grouping("¬(P ∨ Q)", 1)
    (True, False, True)
    """
    before = text[:i].rstrip()
    if not before or not (is_name_char(before[-1]) or before[-1] in "'’"):
        return True
    return re.search(r"(?:[∀∃]\s*|\b(?:forall|exists)\s+)[\w']+$", before) is not None


def rewrite_atoms(text: str, name: str, write: Callable[[str], str]) -> str:
    """`text` with each one-place atom `name(t)` written `write(t)` (`t` as the text has it).

    >>> rewrite_atoms("¬Red(a) ∧ Red(f(b))", "Red", lambda t: f"In({t}, red)")
    '¬In(a, red) ∧ In(f(b), red)'
    """
    pairs = paren_pairs(text)
    edits = []
    for use in name_uses(text):
        if use.kind == "predicate" and use.name == name and use.arity == 1:
            opening = text.index("(", use.end)
            closing = pairs[opening]
            edits.append((use.start, closing + 1, write(text[opening + 1 : closing])))
    return splice(text, edits)


def rewrite_item(
    findings: ItemContext,
    parsed: dict[Where, Formula],
    rewrite: Callable[[str], str | None],
    tag: RuleTag,
    why: str,
    *,
    guess: bool = False,
) -> Candidate:
    """Edits applying `rewrite` to every parsed formula of the item it changes (`guess`: each
    edit is a guess, left a proposal for review).

    Empty when `rewrite` refuses a formula (returns None) or breaks one: such a change is
    all-or-nothing, since half a renaming is a new inconsistency.
    """
    edits = []
    for where in parsed:
        before = findings.fol[where]
        after = rewrite(before)
        if after is None or len(after) > MAX_AFTER or parses(after) is None:
            return ()
        if after != before:
            edits.append(make_edit(where, before, after, tag, why, guess=guess))
    return tuple(edits)


def unique_candidates(candidates: Iterable[Candidate]) -> list[Candidate]:
    out: list[Candidate] = []
    seen: set[tuple[tuple[str, str], ...]] = set()
    for c in candidates:
        key = tuple(sorted((e.where, e.after) for e in c))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


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


def rewrite_node(
    text: str, formula: Formula, path: Path, new: Formula, surgery: Sequence[TextEdit] = ()
) -> str | None:
    """`text` with the sub-formula at `path` replaced by `new`, touching as little as it can.

    `surgery` is the smallest text edit that should do it (a `¬` inserted, an operator
    swapped); it is kept when the result parses to exactly the intended formula. Otherwise the
    node's own text is reprinted (`to_text`, parenthesised when it is not an atom), which keeps
    every other character as the annotator wrote it. None when neither gives that formula.

    >>> from refinery.logic.parse import parse
    >>> text = "∀x (Cat(x) → Pet(x))"
    >>> f = parse(text)
    >>> rewrite_node(text, f, (0, 1), Not(at(f, (0, 1))), [(13, 13, "¬")])
    '∀x (Cat(x) → ¬Pet(x))'
    >>> rewrite_node(text, f, (0,), Implies(at(f, (0, 1)), at(f, (0, 0))))
    '∀x (Pet(x) → Cat(x))'
    """
    intended = replace(formula, path, new)
    tries = [splice(text, surgery)] if surgery else []
    node = at(formula, path)
    if node.span is not None:
        body = to_text(new)
        tries += [splice(text, [(node.span.start, node.span.end, body)])]
        if not isinstance(new, Pred | Eq):
            tries.append(splice(text, [(node.span.start, node.span.end, f"({body})")]))
    for candidate in tries:
        if parses(candidate) == intended:
            return candidate
    return None
