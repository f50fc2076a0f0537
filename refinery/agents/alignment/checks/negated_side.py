"""`negation_missing`, per side of a rule: "if not A, then not B" as `A → ¬B`."""

from __future__ import annotations

from refinery.agents.alignment.checks.common import NAME_NEGATIONS, Story, clauses, missing_negation
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence, denials
from refinery.agents.reading.words import name_words

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.NEGATION_MISSING,)


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """ "If John is not a PhD student, he is not a member" as `PhDStudent(john) → ¬Member(john)`:
    a side of the rule that the sentence negates, written without a ¬ (nor a negative name) —
    unless the formula negates the other side instead, which may be the contrapositive."""
    sides = clauses(s)
    if sides is None or len(f.implications) != 1 or f.negations == 0:
        return []  # no ¬ at all is `_negation`'s case
    rule = f.implications[0]
    said = [denials(side) for side in sides]
    written = [
        negated or any(not NAME_NEGATIONS.isdisjoint(name_words(p)) for p in predicates)
        for negated, predicates in (
            (rule.negated_antecedent, rule.antecedent),
            (rule.negated_consequent, rule.consequent),
        )
    ]
    for k, name in ((0, "condition"), (1, "result")):
        if said[k] and not written[k] and not (written[1 - k] and not said[1 - k]):
            return [
                missing_negation(0.6, said[k], f"the sentence negates the rule's {name} "
                         f"({said[k][0]!r}), the formula does not")
            ]  # fmt: skip
    return []
