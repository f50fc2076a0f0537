"""The critique agent's rules backend: checker findings → `Diagnosis` records.

Every syntax error and lint issue maps onto the fixed taxonomy with a confidence. When the FOL is
clean but the provers agree on a label other than the gold one, the critique decides which of
the two is wrong by reading the sentences (`refinery.agents.alignment`) of the formulas that
decide the label (`deciding`: the premises the proof used, or for an open conclusion the premises
it shares symbols with, and the conclusion itself). When one of them does not say what its
sentence says (a finding scored at least `BLAME`), the FOL is blamed: the finding is the
diagnosis, and no label is suggested. Only when they all read right is the label suspected, and
the provers' label suggested — a suggestion for review, never an automatic change — with a
label-quality score (`label_score`: low when the label is likely wrong, as in cleanlab).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from refinery.agents.alignment import BLAME, Finding, FindingKind, align
from refinery.agents.models import Diagnosis, ErrorClass, ItemContext
from refinery.agents.repairs import names as case_names
from refinery.agents.repairs import near_names
from refinery.check import CheckRow, lint_item, parse_item
from refinery.datasets.records import Item
from refinery.labels import Label
from refinery.logic.analysis import occurrences
from refinery.logic.errors import SyntaxProblem
from refinery.logic.parse import try_parse

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
    "lookalike_name": (ErrorClass.NAMING_DRIFT, 0.95),
    "name_clash": (ErrorClass.NAMING_DRIFT, 0.4),
    "vacuous_quantifier": (ErrorClass.SCOPE, 0.5),
    "count_mismatch": (ErrorClass.NL_MISMATCH, 0.8),
}


def item_context(
    item: Item,
    row: CheckRow,
    *,
    story_fol: Sequence[str] = (),
    feedback: Sequence[str] = (),
) -> ItemContext:
    """Assemble what the check stage knows about `item` (its check `row`) for the agents."""
    parsed = parse_item(item)
    fol = item.formulas()
    nl = item.sentences()
    agreed = row.label or None
    return ItemContext(
        item_id=item.id,
        story_id=item.story_id,
        fol=fol,
        nl=nl,
        gold=item.label,
        problems=parsed.problems,
        issues=tuple(lint_item(parsed)),
        labels=row.prover_labels(),
        agreed=Label(agreed) if agreed else None,
        models=row.models,
        story_fol=tuple(story_fol),
        feedback=tuple(feedback),
        alignment=align(fol, nl, story_fol).findings,
        evidence=row.evidence_detail,
    )


def rule_critique(findings: ItemContext, *, drift_positions: Sequence[str] = ()) -> list[Diagnosis]:
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
        blamed = [f for f in _deciding_findings(findings) if f.score >= BLAME]
        out += [_diag(f.where, _CLASS_OF_KIND[f.kind], f.message, f.score) for f in blamed]
        if not out:
            out.append(
                Diagnosis(
                    where="label",
                    error_class=ErrorClass.LABEL_ERROR,
                    explanation=(
                        f"the FOL is well-formed, its deciding formulas say what their sentences "
                        f"say, and both provers derive {findings.agreed.value}, not the gold "
                        f"{findings.gold.value if findings.gold else 'label'}"
                    ),
                    confidence=round(1.0 - label_score(findings), 2),
                    suggested_label=findings.agreed if findings.agreed in _GOLD else None,
                )
            )
    out.sort(key=lambda d: -d.confidence)
    return out


_GOLD = (Label.TRUE, Label.FALSE, Label.UNCERTAIN)
#: The error class each kind of alignment finding diagnoses (a finding that something the
#: sentence says is missing from the formula, or the reverse, is an `NL_MISMATCH`).
_CLASS_OF_KIND: dict[FindingKind, ErrorClass] = {
    FindingKind.NEGATION_MISSING: ErrorClass.WRONG_NEGATION,
    FindingKind.NEGATION_EXTRA: ErrorClass.WRONG_NEGATION,
    FindingKind.QUANTIFIER: ErrorClass.WRONG_QUANTIFIER,
    FindingKind.AND_AS_OR: ErrorClass.WRONG_CONNECTIVE,
    FindingKind.OR_AS_AND: ErrorClass.WRONG_CONNECTIVE,
    FindingKind.EXCLUSIVE_OR: ErrorClass.WRONG_CONNECTIVE,
    FindingKind.CONJUNCT_MISSING: ErrorClass.NL_MISMATCH,
    FindingKind.IMPLICATION_MISSING: ErrorClass.WRONG_CONNECTIVE,
    FindingKind.IMPLICATION_REVERSED: ErrorClass.WRONG_CONNECTIVE,
    FindingKind.ARGUMENT_ORDER: ErrorClass.ARGUMENT_ORDER,
    FindingKind.WORD_UNSYMBOLISED: ErrorClass.NL_MISMATCH,
    FindingKind.ENTITY_UNSYMBOLISED: ErrorClass.NL_MISMATCH,
    FindingKind.SYMBOL_UNGROUNDED: ErrorClass.NL_MISMATCH,
    FindingKind.ATTITUDE_DROPPED: ErrorClass.NL_MISMATCH,
    FindingKind.REPEATED_CONJUNCT: ErrorClass.NL_MISMATCH,
    FindingKind.NAME_DRIFT: ErrorClass.NAMING_DRIFT,
}


def deciding(findings: ItemContext) -> list[str]:
    """The positions of the formulas that decide the provers' label, conclusion included.

    A proved label (True, False): the premises the provers' proofs used (every prover's core);
    the conclusion alone where every core is empty (a tautology, a contradiction).
    Inconsistent premises: the premises in the contradiction's cores. An open conclusion
    (Uncertain) or no agreed label: the premises that share a predicate or a constant with the
    conclusion, directly or through other such premises.
    """
    question = {Label.TRUE: "pos", Label.FALSE: "neg", Label.INCONSISTENT: "axioms"}.get(
        findings.agreed or Label.UNKNOWN
    )
    cores = findings.evidence.get("cores", {}) if question else {}
    used = {ref for per_prover in cores.values() for ref in per_prover.get(question, [])}
    if used:
        return sorted(used) + ([] if question == "axioms" else ["conclusion"])
    if question in ("pos", "neg") and cores and all(question in per for per in cores.values()):
        return ["conclusion"]  # every proof used no premise: the conclusion alone decides
    return _connected(findings)


def _connected(findings: ItemContext) -> list[str]:
    symbols: dict[str, set[str]] = {}
    for where, text in findings.fol.items():
        parsed = try_parse(text)
        if not isinstance(parsed, SyntaxProblem):
            symbols[where] = {f"{o.kind}:{o.name}" for o in occurrences(parsed.formula)}
    reached = set(symbols.get("conclusion", set()))
    chosen = {"conclusion"}
    grew = True
    while grew:
        grew = False
        for where, names in symbols.items():
            if where not in chosen and names & reached:
                chosen.add(where)
                reached |= names
                grew = True
    return sorted(chosen)


#: The rules whose rewrite tests a name drift: renaming one spelling, in every formula using it.
_RENAMES = frozenset({case_names.TAG.name, near_names.TAG.name})


def _deciding_findings(
    findings: ItemContext, refuted: Mapping[str, Collection[str]] | None = None
) -> list[Finding]:
    refuted = refuted or {}
    wanted = set(deciding(findings)) - set(refuted)
    # a name drift is one finding on every formula that spells the name: a rename of one
    # spelling (in the formulas that use it) tests them all
    renamed = {
        f.symbols
        for f in findings.alignment
        if f.kind == FindingKind.NAME_DRIFT and not _RENAMES.isdisjoint(refuted.get(f.where, ()))
    }
    return [
        f
        for f in findings.alignment
        if f.where in wanted and not (f.kind == FindingKind.NAME_DRIFT and f.symbols in renamed)
    ]


def label_score(
    findings: ItemContext, refuted: Mapping[str, Collection[str]] | None = None
) -> float:
    """How well the gold label holds up, in [0, 1]; low means it is likely wrong (cleanlab).

    1 when the provers agree with it (or decide nothing); otherwise the worst alignment score
    among the formulas that decide the provers' label: a well-read FOL that proves another label
    leaves little doubt about the label, a misread one leaves the label standing. Formulas in
    `refuted` (position → the rules that tried) do not count: the refiner rewrote them as their
    findings ask, and the provers still did not derive the gold label, so their misreading does
    not explain the conflict.
    """
    if findings.agreed is None or findings.agreed == findings.gold or findings.gold is None:
        return 1.0
    if findings.agreed not in _GOLD:
        return 1.0  # Inconsistent: the premises, not the label, are in doubt
    return max((f.score for f in _deciding_findings(findings, refuted)), default=0.0)


def _diag(where: str, error_class: ErrorClass, explanation: str, confidence: float) -> Diagnosis:
    return Diagnosis(
        where=where, error_class=error_class, explanation=explanation, confidence=confidence
    )
