"""`flip_implication`: turn a rule the right way round where the sentence's condition says so.

From an `implication_reversed` finding ("if A then B", "all A are B", "A only if B" written with
its sides swapped): swap the two sides of the formula's first → . From `implication_missing`
over a conjunction (`∀x (A(x) ∧ B(x))`, "everything is an A"): make it the rule
`∀x (A(x) → B(x))`, the last conjunct the consequent.
"""

from __future__ import annotations

from refinery.agents.alignment import FindingKind
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.repairs.edits import Candidate, RuleTag
from refinery.agents.repairs.semantic import best, flagged, node_edits
from refinery.logic.rewrite import Path, nodes
from refinery.logic.syntax import And, Forall, Formula, Implies

TAG = RuleTag("flip_implication", ErrorClass.WRONG_CONNECTIVE)


def propose(findings: ItemContext) -> list[Candidate]:
    """One candidate per blaming `implication_reversed` finding.

    >>> import dataclasses
    >>> from refinery.agents.alignment import align
    >>> fol = {"premises[0]": "∀x (Young(x) → Student(x))", "conclusion": "Young(ann)"}
    >>> f = ItemContext("i", "s", fol, {"premises[0]": "If someone is a student, they are young."}, None)
    >>> f = dataclasses.replace(f, alignment=align(f.fol, f.nl).findings)
    >>> [c[0].after for c in propose(f)]
    ['∀x (Student(x) → Young(x))']
    """
    out: list[Candidate] = []
    for finding, text, formula in flagged(findings, FindingKind.IMPLICATION_MISSING):
        changes: list[tuple[Path, Formula, list[tuple[int, int, str]]]] = []
        for path, node in nodes(formula):
            if isinstance(node, Forall) and isinstance(node.body, And) and len(node.body.args) >= 2:
                args = node.body.args
                condition = args[0] if len(args) == 2 else And(args[:-1])
                changes.append(((*path, 0), Implies(condition, args[-1]), []))
        out += node_edits(TAG, finding, text, formula, changes)
    for finding, text, formula in flagged(findings, FindingKind.IMPLICATION_REVERSED):
        first = next(((p, n) for p, n in nodes(formula) if isinstance(n, Implies)), None)
        if first is None:
            continue
        path, rule = first
        assert isinstance(rule, Implies)
        surgery = []
        if rule.left.span is not None and rule.right.span is not None:
            left = text[rule.left.span.start : rule.left.span.end]
            right = text[rule.right.span.start : rule.right.span.end]
            surgery = [
                (rule.left.span.start, rule.left.span.end, right),
                (rule.right.span.start, rule.right.span.end, left),
            ]
        out += node_edits(
            TAG, finding, text, formula, [(path, Implies(rule.right, rule.left), surgery)]
        )
    return best(out)
