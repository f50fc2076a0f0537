"""FOLIO's quantifier-scope notation: `Q v (group) op rest` binds the quantifier to its group.

Annotators write "if an animal has legs, it jumps" as `∀x (∃y (Leg(y) ∧ Has(x, y)) → Jump(x))`.
Our grammar gives a quantifier the widest scope, which reads `∃y ((Leg(y) ∧ Has(x, y)) →
Jump(x))`: true of anything as soon as one thing is not a leg, so vacuous. TPTP (and so E,
Vampire and the FOLIO paper's own pipeline) binds a quantifier to the unit that follows it,
`(∃y (Leg(y) ∧ Has(x, y))) → Jump(x)`, which is what the sentence says.

Both readings are possible only where a parenthesised group follows the quantifier chain and an
operator follows the group. Read against their sentences, the FOLIO v2 train formulas written so
(whose group's variables do not occur after it, and with a `→`, `↔` or `⊕` after it, where the
readings differ) all want the narrow reading: 10 of 10 ("If a universal language exists, then …",
"people who enjoy celebrating … with other people attend weddings", "people … who wear the same
flannel shirts every day are consistent"); measured in docs/benchmarks.md. So the narrow
reading is the convention: `narrow` wraps each such quantifier and its group in parentheses,
and records a notation note. A variable that does occur after the group keeps the wide reading
(the narrow one would leave it free), as do the quantifiers of a chain before it:
`∀x ∃y (A(x, y)) → B(x)` reads `∀x ((∃y (A(x, y))) → B(x))`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A chain of quantifiers and their variables, followed by an opening parenthesis.
_CHAIN = re.compile(r"((?:(?:[∀∃]|\b(?:forall|exists)\b)\s*[A-Za-z_][A-Za-z0-9_]*\s*)+)\(")
#: One quantifier of a chain and its variable.
_ONE = re.compile(r"(?:[∀∃]|\b(?:forall|exists)\b)\s*([A-Za-z_][A-Za-z0-9_]*)\s*")
#: Operators that start right after a group: the binary connectives, canonical and ASCII.
_OPERATOR = re.compile(r"\s*(→|∧|∨|⊕|↔|⟷|—>|->|=>|<->|<=>|&|\||\^)")
#: The connectives under which the wide and the narrow reading differ.
_DIFFERS = re.compile(r"→|↔|⟷|⊕|—>|->|=>|<->|<=>|\^")


@dataclass(frozen=True, slots=True)
class Narrowed:
    """`text` with each narrowed quantifier and its group in parentheses: `inserted` holds the
    offsets of the added characters in the new text, `notes` one notation note each."""

    text: str
    inserted: tuple[int, ...]
    notes: tuple[tuple[int, str], ...]


def narrow(text: str) -> Narrowed | None:
    """The narrow reading of `text` (see the module doc), or None where nothing is read
    differently (or the text is not balanced, or quotes a string).

    >>> narrow("∀x (∃y (Leg(y) ∧ Has(x, y)) → Jump(x))").text
    '∀x ((∃y (Leg(y) ∧ Has(x, y))) → Jump(x))'
    >>> narrow("∀x ∃y (A(x, y)) → B(x)").text
    '∀x (∃y (A(x, y))) → B(x)'
    >>> narrow("∃y (A(y)) ∧ B(c)") is None  # the same either way
    True
    >>> narrow("∃y (A(y)) ∧ ∀z (B(z) → C(z))") is None  # the → is the ∀'s own
    True
    """
    if '"' in text:
        return None
    closing = _matches(text)
    if closing is None:
        return None
    pairs: list[tuple[int, int, str]] = []  # (open before, close after, the chain narrowed)
    for m in _CHAIN.finditer(text):
        group = m.end() - 1
        close = closing[group]
        if not _OPERATOR.match(text, close + 1):
            continue
        end = _enclosing_end(closing, m.start(), len(text))
        after = text[close + 1 : end]
        if not _DIFFERS.search(_top_level(after)):
            continue  # only ∧ and ∨ after the group: both readings say the same
        kept = [q for q in _ONE.finditer(m.group(1)) if _mentions(after, q.group(1))]
        start = m.start(1) + (kept[-1].end() if kept else 0)
        if start >= group:
            continue  # every variable occurs after the group: the wide reading binds it
        pairs.append((start, close + 1, text[start:group].strip()))
    if not pairs:
        return None
    inserts = sorted([(s, "(") for s, _, _ in pairs] + [(e, ")") for _, e, _ in pairs])
    out, inserted, last = [], [], 0
    for shift, (offset, char) in enumerate(inserts):
        out.append(text[last:offset])
        inserted.append(offset + shift)
        out.append(char)
        last = offset
    out.append(text[last:])
    notes = tuple(
        (s, f"{_where(text, s)} scope: '{chain} (…)' binds its group only, as TPTP reads it")
        for s, _, chain in pairs
    )
    return Narrowed("".join(out), tuple(inserted), notes)


def original(offset: int, inserted: tuple[int, ...]) -> int:
    """The offset in the original text of `offset` in the narrowed one."""
    return offset - sum(1 for i in inserted if i < offset)


def _matches(text: str) -> dict[int, int] | None:
    """Each "(" offset → its ")" offset; None where the text is not balanced."""
    stack: list[int] = []
    found: dict[int, int] = {}
    for i, char in enumerate(text):
        if char == "(":
            stack.append(i)
        elif char == ")":
            if not stack:
                return None
            found[stack.pop()] = i
    return None if stack else found


def _enclosing_end(closing: dict[int, int], at: int, length: int) -> int:
    """Where the innermost group around offset `at` closes (the text's end for none)."""
    around = [(o, c) for o, c in closing.items() if o < at < c]
    return max(around)[1] if around else length


def _top_level(text: str) -> str:
    """`text` without what its parentheses enclose (the operators outside every group)."""
    out, depth = [], 0
    for char in text:
        depth += char == "("
        if depth == 0:
            out.append(char)
        depth -= char == ")" and depth > 0
    return "".join(out)


def _mentions(text: str, var: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(var)}(?![A-Za-z0-9_])", text) is not None


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{line}:{column}"
