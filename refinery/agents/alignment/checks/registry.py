"""The alignment's checks, in the order they run, and the one entry point over them all.

Each check is a module of this package that declares the kinds it reports (`REPORTS`) and
`check(sentence, shape, story)`; adding a check is one module and one line in `CHECKS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from refinery.agents.alignment.checks import (
    argument_order,
    attitude,
    connectives,
    entity_unsymbolised,
    implication,
    negated_condition,
    negated_side,
    negation,
    negation_scope,
    quantifier,
    repeated,
    symbol_ungrounded,
    word_unsymbolised,
)
from refinery.agents.alignment.checks.common import Story
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence


class CheckModule(Protocol):
    """A module that defines one check."""

    REPORTS: tuple[FindingKind, ...]

    def check(self, s: Sentence, f: Shape, story: Story) -> list[Finding]: ...


@dataclass(frozen=True)
class Check:
    """A check of one formula beside its sentence, and the kinds of finding it reports."""

    reports: tuple[FindingKind, ...]
    check: Callable[[Sentence, Shape, Story], list[Finding]]

    @classmethod
    def of(cls, module: CheckModule) -> Check:
        return cls(module.REPORTS, module.check)


CHECKS: tuple[Check, ...] = (
    Check.of(negation),
    Check.of(quantifier),
    Check.of(connectives),
    Check.of(implication),
    Check.of(negated_condition),
    Check.of(negated_side),
    Check.of(negation_scope),
    Check.of(argument_order),
    Check.of(attitude),
    Check.of(repeated),
    Check.of(word_unsymbolised),
    Check.of(entity_unsymbolised),
    Check.of(symbol_ungrounded),
)


def check_formula(sentence: Sentence, shape: Shape, story: Story) -> list[Finding]:
    """Every disagreement between `sentence` and the formula counted in `shape`, worst first.

    A word one of the `story`'s predicates spells, but this formula does not use, is a dropped
    conjunct; likewise an entity the sentence names that has a constant elsewhere in the story.
    The findings' `where` is left for `align` to fill in.
    """
    if sentence.empty:
        return []
    found = [finding for c in CHECKS for finding in c.check(sentence, shape, story)]
    return sorted(found, key=lambda m: (-m.score, m.kind))
