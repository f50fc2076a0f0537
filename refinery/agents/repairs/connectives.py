"""`both_or_neither_iff`: ⊕ → ↔ where the sentence says "either both … or neither"."""

from __future__ import annotations

from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.reading.cues import BOTH_OR_NEITHER
from refinery.agents.repairs.edits import (
    MAX_CANDIDATES,
    Candidate,
    RuleTag,
    make_edit,
)
from refinery.logic.analysis import subformulas
from refinery.logic.parse import parses
from refinery.logic.syntax import Not, Pred, Xor

TAG = RuleTag("both_or_neither_iff", ErrorClass.WRONG_CONNECTIVE)


def propose(findings: ItemContext) -> list[Candidate]:
    """Replace a lone ⊕ by ↔ where the sentence says "either both … or neither".

    ⊕ means "exactly one", the opposite of "both or neither"; formulas that already spell the
    two cases out (`(A ∧ B) ⊕ ¬(A ∨ B)`, a correct encoding) are left alone: only a formula
    with a single ⊕ between two atoms is touched.

    >>> f = ItemContext("i", "s", {"premises[0]": "Sing(sam) ⊕ Dance(sam)", "conclusion": "Dance(sam)"},
    ...              {"premises[0]": "Sam either both sings and dances, or neither."}, None)
    >>> [c[0].after for c in propose(f)]
    ['Sing(sam) ↔ Dance(sam)']
    """
    out: list[Candidate] = []
    for where, text in findings.fol.items():
        if text.count("⊕") != 1 or not BOTH_OR_NEITHER.search(findings.nl.get(where, "")):
            continue
        formula = parses(text)
        if formula is None:
            continue
        xors = [n for n in subformulas(formula) if isinstance(n, Xor)]
        if len(xors) != 1 or not all(
            isinstance(side, Pred) for side in (xors[0].left, xors[0].right)
        ):
            continue
        if any(isinstance(n, Not) for n in subformulas(formula)):
            continue  # ¬(A ⊕ B) already says "both or neither"
        after = text.replace("⊕", "↔")
        if parses(after) is not None:
            why = "the sentence says 'both or neither' (↔), the formula says 'exactly one' (⊕)"
            out.append((make_edit(where, text, after, TAG, why),))
    return out[:MAX_CANDIDATES]
