"""`switch_connective`: the connective the sentence's words ask for, where the formula has another.

From the alignment's connective findings: ∨ → ∧ where the sentence has no "or" (`and_as_or`;
under a ¬ when the sentence has no "nor" either),
∧ → ∨ where it says "or" and the formula has no ∨ (`or_as_and`), ∨ → ⊕ for "but not both",
⊕ → ∨ for "or both" or a plain "or" (`exclusive_or`). "Both … or neither" is
`both_or_neither_iff`'s.
"""

from __future__ import annotations

from refinery.agents.alignment import FindingKind
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.repairs.edits import Candidate, RuleTag
from refinery.agents.repairs.semantic import best, flagged, node_edits
from refinery.logic.rewrite import Path, nodes
from refinery.logic.syntax import And, Formula, Not, Or, Xor

TAG = RuleTag("switch_connective", ErrorClass.WRONG_CONNECTIVE)

Change = tuple[Path, Formula, list[tuple[int, int, str]]]


def propose(findings: ItemContext) -> list[Candidate]:
    """Candidates for each blaming connective finding.

    >>> import dataclasses
    >>> from refinery.agents.alignment import align
    >>> f = ItemContext("i", "s", {"premises[0]": "Tall(ann) ∨ Rich(ann)", "conclusion": "Tall(ann)"},
    ...              {"premises[0]": "Ann is tall and rich."}, None)
    >>> f = dataclasses.replace(f, alignment=align(f.fol, f.nl).findings)
    >>> [c[0].after for c in propose(f)]
    ['Tall(ann) ∧ Rich(ann)']
    """
    out: list[Candidate] = []
    for finding, text, formula in flagged(
        findings, FindingKind.AND_AS_OR, FindingKind.OR_AS_AND, FindingKind.EXCLUSIVE_OR
    ):
        if finding.kind == FindingKind.AND_AS_OR:
            changes = _ors_to(text, formula, And, "∧", negated="¬∨" in finding.symbols)
        elif finding.kind == FindingKind.OR_AS_AND:
            changes = _ands_to_or(text, formula)
        elif "∨" in finding.symbols:
            changes = _ors_to(text, formula, Xor, "⊕")
        else:
            changes = _xors_to_or(text, formula)
        out += node_edits(TAG, finding, text, formula, changes)
    return best(out)


def _operators(text: str, args: tuple[Formula, ...], symbols: str) -> list[tuple[int, int]] | None:
    """Where the operator between consecutive arguments stands (one character each)."""
    spots = []
    for left, right in zip(args, args[1:], strict=False):
        if left.span is None or right.span is None:
            return None
        between = text[left.span.end : right.span.start]
        hits = [i for i, ch in enumerate(between) if ch in symbols]
        if len(hits) != 1:
            return None
        spots.append((left.span.end + hits[0], left.span.end + hits[0] + 1))
    return spots


def _ors_to(
    text: str,
    formula: Formula,
    kind: type[And] | type[Xor],
    symbol: str,
    *,
    negated: bool = False,
) -> list[Change]:
    """The ∨ nodes rewritten as `kind`: those under no ¬, or (`negated`) only those under one."""
    changes: list[Change] = []
    denied: set[tuple[int, ...]] = set()
    for path, node in _walk(formula):
        if isinstance(node, Not):
            denied.add(path)
        if not isinstance(node, Or) or any(path[: len(p)] == p for p in denied) != negated:
            continue
        if kind is Xor and len(node.args) != 2:
            continue
        new: Formula = And(node.args) if kind is And else Xor(node.args[0], node.args[1])
        spots = _operators(text, node.args, "∨|")
        changes.append((path, new, [(a, b, symbol) for a, b in spots or []]))
    return changes


def _ands_to_or(text: str, formula: Formula) -> list[Change]:
    changes: list[Change] = []
    for path, node in _walk(formula):
        if isinstance(node, And):
            spots = _operators(text, node.args, "∧&")
            changes.append((path, Or(node.args), [(a, b, "∨") for a, b in spots or []]))
    return changes


def _xors_to_or(text: str, formula: Formula) -> list[Change]:
    changes: list[Change] = []
    for path, node in _walk(formula):
        if isinstance(node, Xor):
            spots = _operators(text, (node.left, node.right), "⊕")
            changes.append(
                (path, Or((node.left, node.right)), [(a, b, "∨") for a, b in spots or []])
            )
    return changes


def _walk(formula: Formula) -> list[tuple[Path, Formula]]:
    return list(nodes(formula))
