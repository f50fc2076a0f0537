"""`implication_missing` / `implication_reversed`: "all A are B" or "if A then B" without →, or
with its sides swapped.

Also "A only if B" and "B if A"; the direction is read by the words one side of the sentence has
alone ("all *sci-fi* movies are movies"), and by the order in which a rule without a copula
names its condition and its result ("all endothermic animals produce heat").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from refinery.agents.alignment.checks.common import EVERY, Story, clauses, contrapositive, position
from refinery.agents.alignment.drift import near
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence
from refinery.agents.reading.words import content, joined, name_words, same_word

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (
    FindingKind.IMPLICATION_MISSING,
    FindingKind.IMPLICATION_REVERSED,
)


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """A rule the sentence states, written without → or with its sides swapped."""
    sides = clauses(s)
    score = 0.6
    if sides is None and f.implications and f.universal:
        # a rule's direction only: "A is B" may as well be a fact, or a definition that holds
        # both ways ("a werewolf is a human who turns into a wolf")
        sides, score = _generic(s), 0.55
    if sides is None and f.implications and f.universal:
        return _lead_order(s, f)
    if sides is None:
        return []
    condition, result = sides
    if not f.implications:
        if f.iffs or f.ors or not f.universal:
            return []  # ¬A ∨ B, A ↔ B, or a ground statement: no rule to check
        return [
            Finding(
                FindingKind.IMPLICATION_MISSING,
                0.6,
                tuple(condition[:3]),
                (),
                "the sentence states a rule (if / all) but the formula has no →",
            )
        ]
    rule = f.implications[0]
    if contrapositive(s, f):
        return []  # "if not A, then not B" written B → A: read right
    # names on one side only: a predicate or a constant on both sides (`RoomFor(x, dessert) →
    # RoomFor(x, broccoli)`, `Like(susan, …)` → `Student(susan)`) says nothing about direction
    constants = rule.antecedent_constants | rule.consequent_constants
    shared = (
        (rule.antecedent & rule.consequent)
        | (rule.antecedent_constants & rule.consequent_constants)
        | {c for c in constants for d in constants if c != d and near(c, d)}  # spelled two ways
    )
    ante = (rule.antecedent | rule.antecedent_constants) - shared
    cons = (rule.consequent | rule.consequent_constants) - shared
    straight = _fit(ante, condition) + _fit(cons, result)
    swapped = _fit(ante, result) + _fit(cons, condition)
    # the words one side of the sentence has and the other lacks ("all *sci-fi* movies are
    # movies"): a rule whose sides fit only the other way round is reversed
    only_condition = [w for w in joined(condition) if not any(same_word(w, r) for r in result)]
    only_result = [w for w in joined(result) if not any(same_word(w, c) for c in condition)]
    exclusive = _fit(cons, only_condition) > 0 and not (
        _fit(ante, only_condition) or _fit(cons, only_result)
    )
    if (swapped > straight + 1 and _fit(cons, condition) > 0) or exclusive:
        return [
            Finding(
                FindingKind.IMPLICATION_REVERSED,
                score,
                tuple(condition[:3]),
                tuple(sorted(rule.consequent)),
                "the formula's → runs the other way from the sentence's condition",
            )
        ]
    return []


def _lead_order(s: Sentence, f: Shape) -> list[Finding]:
    """ "All endothermic animals produce heat": no copula to split at, but the words of the
    rule's condition come first; a formula whose result's words all come first is reversed."""
    if not any(i <= 1 and s.words[i] in EVERY for i in s.universal):
        return []
    rule = f.implications[0]
    if rule.antecedent & rule.consequent or rule.new_variable:
        return []  # "everyone prefers the smoother road": the subject is no condition
    ante = [p for name in rule.antecedent if (p := position(s, name)) is not None]
    cons = [p for name in rule.consequent if (p := position(s, name)) is not None]
    if ante and cons and max(cons) < min(ante):
        return [
            Finding(
                FindingKind.IMPLICATION_REVERSED,
                0.6,
                tuple(s.words[i] for i in sorted(cons)[:3]),
                tuple(sorted(rule.consequent)),
                "the formula's → runs the other way: the sentence names its result first",
            )
        ]
    return []


def _generic(s: Sentence) -> tuple[list[str], list[str]] | None:
    """ "A roundel is a rounded fortification": a copula's subject is the rule's condition."""
    if s.conditional or s.universal or s.existential or s.negations:
        return None
    words = list(s.words)
    verb = next((j for j, w in enumerate(words) if w in ("is", "are")), None)
    if verb and not _JOINERS.isdisjoint(words[:verb]):
        return None  # "A either have B or are C": the copula is one part's, not the rule's
    if verb and not _SOLE.isdisjoint(words[verb + 1 : verb + 3]):
        return None  # "A is the only B": every B is A, the subject is the result
    return (words[:verb], words[verb + 1 :]) if verb else None


#: Words after a copula that make its subject the one thing the rest names ("the only species").
_SOLE = frozenset({"only", "sole", "single"})
#: Words before a copula that make it belong to one part of a compound predicate.
_JOINERS = frozenset({"or", "either", "and", "nor"})


def _fit(predicates: Iterable[str], words: Sequence[str]) -> int:
    """How many of the predicates' content words appear among `words`."""
    body = content(list(words))
    return sum(
        1 for p in predicates for w in content(name_words(p)) if any(same_word(w, b) for b in body)
    )
