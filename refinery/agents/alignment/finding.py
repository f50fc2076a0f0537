"""One way a formula does not say what its sentence says (`Finding`), and the kinds of way.

`FindingKind` is the one vocabulary of disagreements: the alignment's checks
(`alignment.kinds`) report them, the meaning-level repair rules pick the findings they answer by
kind, and the critique maps each kind onto an `ErrorClass`. A StrEnum, so rendered findings and
written files keep the plain strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class FindingKind(StrEnum):
    """The kinds of disagreement between a formula and its sentence."""

    NEGATION_MISSING = "negation_missing"  # the sentence negates, the formula does not
    NEGATION_EXTRA = "negation_extra"  # the formula negates, the sentence does not
    QUANTIFIER = "quantifier"  # ∀ for "some", ∃ for "all" or a general fact
    AND_AS_OR = "and_as_or"  # ∨ where the sentence has no "or"
    OR_AS_AND = "or_as_and"  # fewer ∨ than the sentence's "or"s
    EXCLUSIVE_OR = "exclusive_or"  # ⊕ / ∨ / ↔ against "but not both", "or both" …
    CONJUNCT_MISSING = "conjunct_missing"  # a sentence joined by "and" as a single atom
    IMPLICATION_MISSING = "implication_missing"  # a rule without →
    IMPLICATION_REVERSED = "implication_reversed"  # a rule whose → runs the other way
    ARGUMENT_ORDER = "argument_order"  # R(b, a) where the sentence reads a … R … b
    WORD_UNSYMBOLISED = "word_unsymbolised"  # a word the story has a predicate for, left out
    ENTITY_UNSYMBOLISED = "entity_unsymbolised"  # a name the story has a constant for, left out
    SYMBOL_UNGROUNDED = "symbol_ungrounded"  # a constant no word of the sentence names
    NAME_DRIFT = "name_drift"  # one name spelled two ways across the story
    ATTITUDE_DROPPED = "attitude_dropped"  # "wants to be an A" stated as A(x)
    REPEATED_CONJUNCT = "repeated_conjunct"  # A(x) ∧ A(x) where A(y) was meant: a copy slip


@dataclass(frozen=True, slots=True)
class Finding:
    """One way a formula of the item does not say what its sentence says.

    A check of one formula leaves `where` empty; `align` fills in the formula's position.
    """

    where: str = field(default="", kw_only=True)  # premises[i] or conclusion
    kind: FindingKind
    score: float
    words: tuple[str, ...]  # the sentence's words involved
    symbols: tuple[str, ...]  # the formula's symbols involved
    message: str

    def render(self) -> str:
        return f"{self.where}: {self.kind} ({self.score:.2f}) {self.message}"
