"""The data agents exchange: what the checker found, diagnoses, and proposed edits.

`ItemContext` is the input to both agents (everything the check stage knows about one item).
A critique returns `Diagnosis` records from a fixed taxonomy (`ErrorClass`); a refiner turns
them into `Edit`s — whole-formula replacements at a position. Agents only propose: the loop in
`refinery.repair` re-parses, re-lints and re-proves before anything counts. LLM replies are validated
into these same pydantic models, so a malformed reply is a recorded failure, never code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from refinery.agents.alignment import Finding
from refinery.labels import Label
from refinery.logic.diagnostics import Issue
from refinery.logic.errors import SyntaxProblem


class ErrorClass(StrEnum):
    """The fixed taxonomy of annotation errors."""

    UNBALANCED_PARENTHESES = "unbalanced_parentheses"
    TOKEN_TYPO = "token_typo"  # an operator or token typo: `v` for ∨, a stray symbol
    NAMING_DRIFT = "naming_drift"  # lexical typo / a name spelled two ways across formulas
    ARITY_CONFLICT = "arity_conflict"
    FREE_VARIABLE = "free_variable"
    SCOPE = "scope"  # quantifier scope or operator precedence
    WRONG_CONNECTIVE = "wrong_connective"  # e.g. ⊕ where the NL says "both or neither"
    WRONG_NEGATION = "wrong_negation"  # a ¬ the sentence has and the formula lacks, or the reverse
    WRONG_QUANTIFIER = "wrong_quantifier"  # ∀ for "some", ∃ for "all" or a general fact
    ARGUMENT_ORDER = "argument_order"  # R(b, a) where the sentence says a R b
    NL_MISMATCH = "nl_mismatch"  # NL content missing from or added to the FOL
    LABEL_ERROR = "label_error"  # the gold label itself looks wrong


#: Where a diagnosis or edit points: "premises[<i>]", "conclusion", "premises" (the premise set
#: as a whole, e.g. when it is inconsistent) or "label". Edits only target one formula.
Where = str


class Diagnosis(BaseModel):
    """One suspected error: where, which class, why, and how sure."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    where: Where = Field(pattern=r"^(premises\[\d+\]|premises|conclusion|label)$")
    error_class: ErrorClass
    explanation: str = Field(max_length=2000)
    confidence: float = Field(ge=0.0, le=1.0)
    suggested_label: Label | None = None
    source: str = "rules"  # "rules" or "llm:<model>"


#: How the LLM's diagnoses and edits name their source: ``llm:<model>``.
LLM_SOURCE = "llm:"


class Edit(BaseModel):
    """Replace the formula at `where` (whose current text is `before`) by `after`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    where: Where = Field(pattern=r"^(premises\[\d+\]|conclusion)$")
    before: str
    after: str = Field(max_length=4000)
    error_class: ErrorClass
    source: str  # the rule's name, or "llm:<model>"
    rationale: str = ""
    # one of several places the rule could not tell apart: never applied without a person
    guess: bool = False


@dataclass(frozen=True, slots=True)
class ItemContext:
    """Everything the check stage knows about one item, in the shape agents read.

    `fol` maps each position to its current FOL text: `premises[0]` … and `conclusion`;
    `nl` maps the same positions to the natural-language sentence (when counts line up).
    `labels` is each prover's label; `agreed` the label both reached (None if not);
    `models` holds countermodel/saturation text per prover when a backend gave one.
    """

    item_id: str
    story_id: str
    fol: dict[Where, str]
    nl: dict[Where, str]
    gold: Label | None
    problems: tuple[SyntaxProblem, ...] = ()
    issues: tuple[Issue, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)
    agreed: Label | None = None
    models: dict[str, str] = field(default_factory=dict)
    #: FOL of the other items of the same story (position → text), for naming-drift evidence
    story_fol: tuple[str, ...] = ()
    #: earlier proposals the gate rejected, and why — so a model can revise instead of repeating
    feedback: tuple[str, ...] = ()
    #: where a formula does not say what its sentence says (`refinery.agents.alignment`)
    alignment: tuple[Finding, ...] = ()
    #: why the provers give their label: cores per prover and question, countermodels
    #: (`refinery.prove.evidence.evidence_detail`)
    evidence: Mapping[str, Any] = field(default_factory=dict)

    def premise_positions(self) -> list[Where]:
        return [w for w in self.fol if w.startswith("premises[")]
