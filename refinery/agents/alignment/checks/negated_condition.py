"""`implication_reversed`: "No reptile has fur" as `∀x (¬Fur(x) → Reptile(x))`.

The sentence's negation sits in the result (or the subject), but the formula negates only the
rule's condition.
"""

from __future__ import annotations

from refinery.agents.alignment.checks.common import RELATIVE, Story
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.IMPLICATION_REVERSED,)

_CONDITIONAL_WORDS = frozenset({"only", "unless", "without", "except", "otherwise", "until"})


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """ "No reptile has fur" as ∀x (¬Fur(x) → Reptile(x)): the sentence's negation sits in the
    result (or the subject), but the formula negates only the rule's condition."""
    if not s.negations or s.conditional or not _CONDITIONAL_WORDS.isdisjoint(s.words):
        return []
    relative = any(
        not RELATIVE.isdisjoint(s.words[max(0, i - 3) : i]) for i in s.negations
    )  # "students who do not study": a negated condition
    for rule in f.implications:
        if rule.negated_antecedent and not rule.negated_consequent and not relative:
            return [
                Finding(
                    FindingKind.IMPLICATION_REVERSED,
                    0.6,
                    tuple(s.words[i] for i in s.negations),
                    tuple(sorted(rule.antecedent)),
                    "the sentence negates its result, the formula only the rule's condition",
                )
            ]
    return []
