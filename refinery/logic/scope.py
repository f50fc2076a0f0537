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
#: The connectives under which the wide and the narrow reading differ (ASCII arrows end in ">").
_DIFFERS_CHARS = frozenset("→↔⟷⊕^>")


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
    found = _matches(text)
    if found is None:
        return None
    closing, around = found
    differs = _next_differing(text, around)
    pairs: list[tuple[int, int, str]] = []  # (open before, close after, the chain narrowed)
    for m in _CHAIN.finditer(text):
        group = m.end() - 1
        close = closing[group]
        if not _OPERATOR.match(text, close + 1):
            continue
        opener = around[m.start()]
        end = closing[opener] if opener >= 0 else len(text)  # the enclosing group's end
        if differs[close] < 0:
            continue  # only ∧ and ∨ after the group: both readings say the same
        after = text[close + 1 : end]
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


def _matches(text: str) -> tuple[dict[int, int], list[int]] | None:
    """Each "(" offset → its ")" offset, and for each offset the innermost group around it (its
    "(" offset, -1 for none; a parenthesis is in the group outside it), in one pass; None where
    the text is not balanced."""
    stack: list[int] = []
    found: dict[int, int] = {}
    around: list[int] = []
    for i, char in enumerate(text):
        if char == ")":
            if not stack:
                return None
            found[stack.pop()] = i
        around.append(stack[-1] if stack else -1)  # a parenthesis belongs to the group outside
        if char == "(":
            stack.append(i)
    return (found, around) if not stack else None


def _next_differing(text: str, around: list[int]) -> list[int]:
    """For each offset, the next `→`, `↔` or `⊕` (any ASCII arrow ends in ">") at the same depth
    in the same group, -1 for none: one pass from the right, whatever the text's size."""
    out = [-1] * len(text)
    seen: dict[int, int] = {}  # innermost group → its nearest such operator to the right
    for i in range(len(text) - 1, -1, -1):
        out[i] = seen.get(around[i], -1)
        if text[i] in _DIFFERS_CHARS:
            seen[around[i]] = i
        elif text[i] == "(":
            seen.pop(i, None)  # leaving the group that this "(" opens
    return out


def _mentions(text: str, var: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(var)}(?![A-Za-z0-9_])", text) is not None


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{line}:{column}"
