"""`both_or_neither_iff` on hand-made findings: only a lone ⊕ whose sentence says "both or neither"."""

from __future__ import annotations

import pytest

from refinery.agents.models import ErrorClass
from refinery.agents.repairs import connectives

from repair_helpers import afters, findings

BOTH = "Sam either both sings and dances, or neither."


@pytest.mark.parametrize("sentence", [BOTH, "Neither or both: Sam sings and dances."])
def test_xor_becomes_iff_where_the_sentence_says_both_or_neither(sentence: str) -> None:
    f = findings(["Sing(sam) ⊕ Dance(sam)", "Dance(sam)"], nl={"premises[0]": sentence})
    candidates = connectives.propose(f)
    assert afters(candidates) == [[("premises[0]", "Sing(sam) ↔ Dance(sam)")]]
    assert candidates[0][0].error_class is ErrorClass.WRONG_CONNECTIVE
    assert candidates[0][0].source == "both_or_neither_iff"


@pytest.mark.parametrize(
    ("fol", "sentence"),
    [
        ("Sing(sam) ⊕ Dance(sam)", "Sam either sings or dances."),  # no cue: ⊕ may be meant
        ("(Sing(sam) ∧ Dance(sam)) ⊕ ¬(Sing(sam) ∨ Dance(sam))", BOTH),  # the cases spelled out
        ("Sing(sam) ⊕ (Dance(sam) ∧ Rest(sam))", BOTH),  # ⊕ between more than two atoms
    ],
)
def test_other_formulas_are_left_alone(fol: str, sentence: str) -> None:
    f = findings([fol, "Dance(sam)"], nl={"premises[0]": sentence})
    assert connectives.propose(f) == []
