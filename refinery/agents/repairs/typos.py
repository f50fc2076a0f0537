"""`fix_token_typos`: single-token fixes that make a formula parse.

`v` for ∨, trailing free text, doubled operators, stray characters, a quantifier without its
variable, a lost ','. A typo that hides a parenthesis error too is fixed with it in one edit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from refinery.agents.models import Edit, ErrorClass, ItemContext, Where
from refinery.agents.repairs.edits import (
    BINARY,
    MAX_CANDIDATES,
    Candidate,
    Fix,
    RuleTag,
    broken_fields,
    edits_for,
    error_position,
    joint,
    splice,
)
from refinery.agents.repairs.located import item_vocabulary
from refinery.agents.repairs.parentheses import (
    formula_level_names,
    new_propositions,
    paren_repairs,
)
from refinery.logic.errors import SyntaxProblem
from refinery.logic.parse import parses, try_parse

TAG = RuleTag("fix_token_typos", ErrorClass.TOKEN_TYPO)


# A lone `v` between two formulas is an ASCII ∨ (it cannot be a term there: terms sit in '(…)').
_LONE_V = re.compile(r"(?<=[\s)])v(?=[\s(])")
_DOUBLED = re.compile(rf"([{BINARY}])(\s*\1)+")


_QUANT_NO_VAR = re.compile(r"([∀∃])\s*\(")
_STRAY = set(",;:`'\"´.?|\\")


def typo_repairs(text: str, vocabulary: Iterable[str] = ()) -> list[Fix]:
    """Single-token fixes that make `text` parse, most specific first.

    None for a formula with a name glued to its argument list (`CityInlyon, spain)`, see
    `formula_level_names`): only splitting the name repairs that, and a token fix would make
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
    if not isinstance(problem, SyntaxProblem) or any(formula_level_names(text)):
        return []
    known = frozenset(vocabulary)
    err = error_position(problem)
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
            if not new_propositions(f, known):
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
    if any(ch in tail for ch in "()" + BINARY + "¬∀∃"):
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


def propose(findings: ItemContext) -> list[Candidate]:
    """Fix operator and token typos in formulas that do not parse.

    >>> f = ItemContext("i", "s", {"premises[0]": "P(a) v Q(a)", "conclusion": "Q(a)"}, {}, None)
    >>> [[e.after for e in c] for c in propose(f)]
    [['P(a) ∨ Q(a)']]
    """
    return joint(typo_edits(findings))


def typo_edits(findings: ItemContext) -> dict[Where, list[Edit]]:
    out: dict[Where, list[Edit]] = {}
    for where, problem in broken_fields(findings).items():
        before = findings.fol[where]
        fixes = typo_repairs(problem.source, item_vocabulary(findings))
        out[where] = edits_for(where, before, fixes, TAG)
    return out
