"""The LLM backends of the critique and refiner agents: prompts in, validated proposals out.

Prompts are versioned files in `prompts/` (`critique_v1.md`, `refine_v1.md`): a system part,
a line `---`, and a user part, with `$name` placeholders filled from the item's `ItemContext`.
The reply is validated twice: by the client against the reply model (`CritiqueReply`,
`RefineReply`), then here against the item — proposals that point at positions the item does
not have, repeat one another, or leave a formula unchanged are dropped and counted in the
`LLMCallRecord`. What survives is only a proposal: the refine loop re-checks every edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from string import Template
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from refinery.agents.llm import LLMClient, LLMResult
from refinery.agents.models import Diagnosis, Edit, ErrorClass, ItemContext
from refinery.labels import Label

CRITIQUE_PROMPT = "critique_v1"
REFINE_PROMPT = "refine_v1"
RAW_LIMIT = 2000  # characters of the raw reply kept in a record
_TEXT_LIMIT = 400  # characters per sentence or formula in a prompt: keeps small contexts usable

_CLASS_HINTS: dict[ErrorClass, str] = {
    ErrorClass.UNBALANCED_PARENTHESES: "parentheses do not match",
    ErrorClass.TOKEN_TYPO: "a mistyped operator or stray symbol",
    ErrorClass.NAMING_DRIFT: "one predicate or constant spelled two ways",
    ErrorClass.ARITY_CONFLICT: "a predicate used with different numbers of arguments",
    ErrorClass.FREE_VARIABLE: "a variable used without a quantifier",
    ErrorClass.SCOPE: "wrong quantifier scope or operator grouping",
    ErrorClass.WRONG_CONNECTIVE: "the wrong connective, e.g. ⊕ for 'both or neither'",
    ErrorClass.NL_MISMATCH: "the FOL says more or less than the sentence",
    ErrorClass.LABEL_ERROR: "the gold label does not follow from the premises",
}


# Reply schemas are written for what llama.cpp's grammar can enforce while the model writes:
# key order, enums, string lengths, item counts and `[0-9]` patterns (a `\d` pattern is silently
# dropped, and number bounds are not enforced, hence confidence as a word).
Confidence = Literal["low", "medium", "high"]
CONFIDENCE: dict[str, float] = {"low": 0.3, "medium": 0.6, "high": 0.9}


class CritiqueItem(BaseModel):
    """One diagnosis as the model writes it (no `source`: that is set from the client)."""

    model_config = ConfigDict(extra="forbid")

    where: str = Field(pattern=r"^(premises\[[0-9]+\]|conclusion|label)$")
    error_class: ErrorClass
    explanation: str = Field(max_length=200)
    confidence: Confidence
    suggested_label: Literal["True", "False", "Uncertain"] | None


class CritiqueReply(BaseModel):
    """The critique's reply; a few short diagnoses at most, so the reply fits in max_tokens."""

    model_config = ConfigDict(extra="forbid")

    diagnoses: list[CritiqueItem] = Field(max_length=3)


class EditItem(BaseModel):
    """One proposed replacement as the model writes it (`before` is filled in from the item)."""

    model_config = ConfigDict(extra="forbid")

    where: str = Field(pattern=r"^(premises\[[0-9]+\]|conclusion)$")
    after: str = Field(max_length=300)
    error_class: ErrorClass
    rationale: str = Field(max_length=120)


class RefineReply(BaseModel):
    """The refiner's reply."""

    model_config = ConfigDict(extra="forbid")

    edits: list[EditItem] = Field(max_length=3)


@dataclass
class LLMCallRecord:
    """What one agent call cost and produced; plain values, so `asdict` gives JSON."""

    purpose: str
    prompt_version: str
    model: str
    error: str | None
    raw: str  # truncated to RAW_LIMIT characters
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    elapsed: float
    attempts: int
    proposed: int = 0  # items in a valid reply
    kept: int = 0
    dropped: int = 0
    dropped_reasons: list[str] = field(default_factory=list)


@cache
def load_prompt(version: str) -> tuple[str, str]:
    """The (system, user) templates of `prompts/<version>.md`."""
    text = resources.files("refinery.agents").joinpath(f"prompts/{version}.md").read_text("utf-8")
    system, sep, user = text.partition("\n---\n")
    if not sep:
        raise ValueError(f"prompt {version}: no '---' line between the system and user parts")
    return system.strip(), user.strip()


def _clip(text: str) -> str:
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "…"


def render_taxonomy() -> str:
    """One line per error class: its name and what it means."""
    return "\n".join(f"- {c.value}: {_CLASS_HINTS.get(c, c.value)}" for c in ErrorClass)


def render_item(findings: ItemContext) -> str:
    """Premises and conclusion, each sentence next to its FOL, and the gold label."""
    lines = []
    for where, fol in findings.fol.items():
        lines.append(f"{where}")
        if where in findings.nl:
            lines.append(f"  English: {_clip(findings.nl[where])}")
        lines.append(f"  FOL: {_clip(fol)}")
    gold = findings.gold.value if findings.gold is not None else "none"
    lines.append(f"Gold label: {gold}")
    return "\n".join(lines)


def render_findings(findings: ItemContext) -> str:
    """Syntax errors (with a caret), lint issues, where a formula misreads its sentence, and
    what the provers concluded."""
    lines = [problem.render() for problem in findings.problems]
    lines += [issue.render() for issue in findings.issues]
    if findings.alignment:  # what the rules found but could not settle: the model is asked next
        lines.append("Where a formula does not say what its sentence says:")
        lines += [f"- {_clip(f.render())}" for f in findings.alignment]
    if findings.labels:
        verdicts = ", ".join(f"{prover}={label}" for prover, label in findings.labels.items())
        agreed = findings.agreed.value if findings.agreed is not None else "none"
        lines.append(f"provers: {verdicts}; agreed label: {agreed}")
    if findings.feedback:
        lines.append("Rejected earlier proposals (do not repeat them):")
        lines += [f"- {_clip(text)}" for text in findings.feedback]
    return "\n".join(lines) or "none"


def render_diagnoses(diagnoses: list[Diagnosis]) -> str:
    if not diagnoses:
        return "none"
    return "\n".join(
        f"- {d.where}: {d.error_class.value} ({d.confidence:.2f}): {_clip(d.explanation)}"
        for d in diagnoses
    )


def build_messages(version: str, **fields: str) -> list[dict[str, str]]:
    """Fill the prompt `version` with `fields` (values are inserted verbatim, never evaluated)."""
    system, user = load_prompt(version)
    values = {"taxonomy": render_taxonomy(), **fields}
    return [
        {"role": "system", "content": Template(system).substitute(values)},
        {"role": "user", "content": Template(user).substitute(values)},
    ]


def _record(purpose: str, version: str, client: LLMClient, result: LLMResult) -> LLMCallRecord:
    return LLMCallRecord(
        purpose=purpose,
        prompt_version=version,
        model=client.name,
        error=result.error,
        raw=result.raw[:RAW_LIMIT],
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        cached=result.cached,
        elapsed=result.elapsed,
        attempts=result.attempts,
    )


def llm_critique(findings: ItemContext, client: LLMClient) -> tuple[list[Diagnosis], LLMCallRecord]:
    """Ask `client` to diagnose `findings`.

    Parameters
    ----------
    findings:
        The item's check results.
    client:
        Any `LLMClient`; its `name` becomes each diagnosis's `source`.

    Returns
    -------
    diagnoses:
        Validated diagnoses at positions the item has, without duplicates (same position and
        class), in reply order. Empty when the call failed.
    record:
        The call's cost, error (if any), raw reply, and how many diagnoses were dropped and why.
    """
    messages = build_messages(
        CRITIQUE_PROMPT, item=render_item(findings), findings=render_findings(findings)
    )
    result = client.complete_json(messages, CritiqueReply, purpose="critique")
    record = _record("critique", CRITIQUE_PROMPT, client, result)
    if not isinstance(result.value, CritiqueReply):
        return [], record
    record.proposed = len(result.value.diagnoses)
    kept: list[Diagnosis] = []
    seen: set[tuple[str, ErrorClass]] = set()
    for item in result.value.diagnoses:
        reason = None
        if item.where != "label" and item.where not in findings.fol:
            reason = f"{item.where}: no such position"
        elif (item.where, item.error_class) in seen:
            reason = f"{item.where}: duplicate {item.error_class.value}"
        else:
            label = Label(item.suggested_label) if item.suggested_label else None
            try:
                diagnosis = Diagnosis(
                    where=item.where,
                    error_class=item.error_class,
                    explanation=item.explanation,
                    confidence=CONFIDENCE[item.confidence],
                    suggested_label=label,
                    source=client.name,
                )
            except ValidationError as exc:
                reason = f"{item.where}: invalid diagnosis: {exc.errors()[0]['msg']}"
            else:
                kept.append(diagnosis)
                seen.add((item.where, item.error_class))
        if reason is not None:
            record.dropped_reasons.append(reason)
    record.kept, record.dropped = len(kept), len(record.dropped_reasons)
    return kept, record


def llm_refine(
    findings: ItemContext, diagnoses: list[Diagnosis], client: LLMClient
) -> tuple[list[Edit], LLMCallRecord]:
    """Ask `client` for whole-formula replacements that fix `diagnoses`.

    Parameters
    ----------
    findings:
        The item's check results; `before` of each edit comes from `findings.fol`.
    diagnoses:
        What the critique found (from any backend).
    client:
        Any `LLMClient`; its `name` becomes each edit's `source`.

    Returns
    -------
    edits:
        Validated edits at positions the item has that change the formula, without duplicates,
        in reply order. Empty when the call failed. Nothing here re-parses them: the refine loop
        re-checks every edit before it counts.
    record:
        The call's cost, error (if any), raw reply, and how many edits were dropped and why.
    """
    messages = build_messages(
        REFINE_PROMPT,
        item=render_item(findings),
        findings=render_findings(findings),
        diagnoses=render_diagnoses(diagnoses),
    )
    result = client.complete_json(messages, RefineReply, purpose="refine")
    record = _record("refine", REFINE_PROMPT, client, result)
    if not isinstance(result.value, RefineReply):
        return [], record
    record.proposed = len(result.value.edits)
    kept: list[Edit] = []
    seen: set[tuple[str, str]] = set()
    for item in result.value.edits:
        before = findings.fol.get(item.where)
        after = item.after.strip()
        reason = None
        if before is None:
            reason = f"{item.where}: no such position"
        elif not after:
            reason = f"{item.where}: empty formula"
        elif after.split() == before.split():  # whitespace-only changes are no change
            reason = f"{item.where}: unchanged"
        elif (item.where, after) in seen:
            reason = f"{item.where}: duplicate edit"
        else:
            try:
                edit = Edit(
                    where=item.where,
                    before=before,
                    after=after,
                    error_class=item.error_class,
                    source=client.name,
                    rationale=item.rationale,
                )
            except ValidationError as exc:
                reason = f"{item.where}: invalid edit: {exc.errors()[0]['msg']}"
            else:
                kept.append(edit)
                seen.add((item.where, after))
        if reason is not None:
            record.dropped_reasons.append(reason)
    record.kept, record.dropped = len(kept), len(record.dropped_reasons)
    return kept, record
