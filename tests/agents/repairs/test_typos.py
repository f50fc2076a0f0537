"""`fix_token_typos` on hand-made findings.

Expected outputs are exact: the order of candidates is part of each rule's contract (the
refiner accepts the first candidate the gate passes).
"""

from __future__ import annotations

import pytest

from refinery.agents.models import ErrorClass
from refinery.agents.repairs import typos

from repair_helpers import afters, findings


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("P(a) v (Q(a))", ["P(a) ∨ (Q(a))"]),
        ("∀x (Athlete(x) → ¬Lazy(x)) Never: does not exist a time", ["∀x (Athlete(x) → ¬Lazy(x))"]),
        ("P(a) → → Q(a)", ["P(a) → Q(a)"]),
        ("∃x (Song(x) ∧ By(x, boneym,))", ["∃x (Song(x) ∧ By(x, boneym))"]),
        ("P(a) ∧ Q(b)#", ["P(a) ∧ Q(b)"]),
        ("∃(CarBody(x) ∧ Made(x, colli))", ["∃x (CarBody(x) ∧ Made(x, colli))"]),
        # `m` sits next to ',' on the keyboard: `xm bolt` meant `x, bolt`
        (
            "∀x (Man(x) → ¬Faster(xm bolt))",
            ["∀x (Man(x) → ¬Faster(x, bolt))", "∀x (Man(x) → ¬Faster(xm, bolt))"],
        ),
        # a typo and a parenthesis error in one formula: both fixed in one edit
        ("((P(a) v (Q(a))", ["((P(a) ∨ Q(a)))"]),
    ],
)
def test_token_typos(text: str, expected: list[str]) -> None:
    candidates = typos.propose(findings([text, "Q(b)"]))
    assert afters(candidates) == [[("premises[0]", after)] for after in expected]
    assert all(e.error_class is ErrorClass.TOKEN_TYPO for c in candidates for e in c)


def test_free_text_with_formula_symbols_is_not_dropped() -> None:
    # the tail holds a formula: dropping it would lose content, not a comment
    assert typos.propose(findings(["P(a)) → Q(a)", "Q(b)"])) == []
