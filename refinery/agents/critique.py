"""The critique agent's rules backend: checker findings → `Diagnosis` records.

Every syntax error and lint issue maps onto the fixed taxonomy with a confidence. When the FOL is
clean but the provers agree on a label other than the gold one, the critique looks for evidence
in the FOL (a name spelled two ways, ⊕ where the sentence says "both or neither"); without such
evidence it suspects the label itself and suggests the provers' label — a suggestion for review,
never an automatic change.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from refinery.agents.models import Diagnosis, ErrorClass, Findings
from refinery.agents.repairs.evidence import BOTH_OR_NEITHER
from refinery.check import lint_item, parse_item
from refinery.datasets.records import Item
from refinery.labels import Label

_SYNTAX_CLASS = {
    "unbalanced_parentheses": (ErrorClass.UNBALANCED_PARENTHESES, 0.95),
    "unexpected_end": (ErrorClass.UNBALANCED_PARENTHESES, 0.6),
    "unknown_symbol": (ErrorClass.TOKEN_TYPO, 0.7),
    "unexpected_token": (ErrorClass.TOKEN_TYPO, 0.6),
    "empty": (ErrorClass.NL_MISMATCH, 0.9),
}
_LINT_CLASS = {
    "arity_conflict": (ErrorClass.ARITY_CONFLICT, 0.9),
    "free_variable": (ErrorClass.FREE_VARIABLE, 0.9),
    "predicate_as_function": (ErrorClass.SCOPE, 0.6),
    "name_clash": (ErrorClass.NAMING_DRIFT, 0.4),
    "vacuous_quantifier": (ErrorClass.SCOPE, 0.5),
    "count_mismatch": (ErrorClass.NL_MISMATCH, 0.8),
}


def findings_for(
    item: Item,
    row: Mapping[str, Any],
    *,
    story_fol: Sequence[str] = (),
    feedback: Sequence[str] = (),
) -> Findings:
    """Assemble what the check stage knows about `item` (its check `row`) for the agents."""
    parsed = parse_item(item)
    fol = {f"premises[{i}]": text for i, text in enumerate(item.premises_fol)}
    fol["conclusion"] = item.conclusion_fol or ""
    nl: dict[str, str] = {}
    if len(item.premises) == len(item.premises_fol):
        nl = {f"premises[{i}]": text for i, text in enumerate(item.premises)}
    nl["conclusion"] = item.conclusion
    labels = {k.removeprefix("label_"): str(v) for k, v in row.items() if k.startswith("label_")}
    detail = json.loads(row.get("verdicts") or "{}")
    models = {
        prover: q["model"]
        for prover, questions in detail.items()
        for q in questions.values()
        if q.get("model")
    }
    agreed = row.get("label") or None
    return Findings(
        item_id=item.id,
        story_id=item.story_id,
        fol=fol,
        nl=nl,
        gold=item.label,
        problems=parsed.problems,
        issues=tuple(lint_item(parsed)),
        labels=labels,
        agreed=Label(agreed) if agreed else None,
        models=models,
        story_fol=tuple(story_fol),
        feedback=tuple(feedback),
    )


def rule_critique(findings: Findings, *, drift_positions: Sequence[str] = ()) -> list[Diagnosis]:
    """Diagnose `findings` deterministically, most confident first.

    Parameters
    ----------
    findings:
        The item's check results.
    drift_positions:
        Positions where the naming-drift repair rule found a name spelled two ways; passed in by
        the refiner so the critique and the repair rule share one detector.
    """
    out: list[Diagnosis] = []
    for problem in findings.problems:
        error_class, confidence = _SYNTAX_CLASS.get(problem.kind, (ErrorClass.TOKEN_TYPO, 0.5))
        out.append(_diag(problem.field, error_class, problem.message, confidence))
    for issue in findings.issues:
        error_class, confidence = _LINT_CLASS.get(issue.kind, (ErrorClass.SCOPE, 0.3))
        where = issue.where if issue.where in findings.fol else "premises"
        out.append(_diag(where, error_class, issue.message, confidence))
    clean = not findings.problems and not any(i.severity == "error" for i in findings.issues)
    if clean and findings.agreed is Label.INCONSISTENT:
        out.append(
            _diag(
                "premises",
                ErrorClass.NL_MISMATCH,
                "both provers find the premises contradictory",
                0.6,
            )
        )
    elif clean and findings.agreed is not None and findings.agreed != findings.gold:
        for where in drift_positions:
            out.append(
                _diag(
                    where,
                    ErrorClass.NAMING_DRIFT,
                    "a name here is spelled differently elsewhere in the story",
                    0.7,
                )
            )
        for where, text in findings.fol.items():
            sentence = findings.nl.get(where, "")
            if "⊕" in text and BOTH_OR_NEITHER.search(sentence):
                out.append(
                    _diag(
                        where,
                        ErrorClass.WRONG_CONNECTIVE,
                        "⊕ encodes 'exactly one', but the sentence says 'both or neither'",
                        0.6,
                    )
                )
        if not out:
            out.append(
                Diagnosis(
                    where="label",
                    error_class=ErrorClass.LABEL_ERROR,
                    explanation=(
                        f"the FOL is well-formed and both provers derive {findings.agreed.value}, "
                        f"not the gold {findings.gold.value if findings.gold else 'label'}"
                    ),
                    confidence=0.5,
                    suggested_label=findings.agreed if findings.agreed in _GOLD else None,
                )
            )
    out.sort(key=lambda d: -d.confidence)
    return out


_GOLD = (Label.TRUE, Label.FALSE, Label.UNCERTAIN)


def _diag(where: str, error_class: ErrorClass, explanation: str, confidence: float) -> Diagnosis:
    return Diagnosis(
        where=where, error_class=error_class, explanation=explanation, confidence=confidence
    )
