"""Reading Vampire's `FiniteModel` block: a real captured output, and what is not a model."""

from __future__ import annotations

from pathlib import Path

import pytest

from refinery.logic.parse import parse
from vampire.fmb import parse_finite_model
from vampire.szs import parse_szs

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "fmb"
#: The problem behind functions_and_propositions.out (Vampire 5.0.1, `-sa fmb`), in our notation.
PREMISES = [
    "∀x (Student(x) → Young(x))",
    "Student(mara)",
    "¬Young(bob)",
    "Rain",
    "∀x Likes(x, best(x))",
    "¬Likes(mara, mara)",
]
CONCLUSION = "Teacher(mara)"


def test_a_real_model_reads_back_in_source_names_and_is_a_countermodel() -> None:
    szs = parse_szs((GOLDEN / "functions_and_propositions.out").read_text(encoding="utf-8"))
    assert szs.output_kind == "FiniteModel" and szs.output is not None
    model = parse_finite_model(szs.output)
    assert model is not None
    assert model.domain == ("bob", "mara") and dict(model.constants) == {
        "bob": "bob",
        "mara": "mara",
    }
    assert model.functions[("best", 1)] == {("mara",): "bob", ("bob",): "bob"}
    assert model.predicates[("Rain", 0)] == frozenset({()})
    assert model.predicates[("Teacher", 1)] == frozenset()
    # evaluated independently of Vampire: every premise holds, the conclusion fails
    assert all(model.holds(parse(p)) for p in PREMISES)
    assert not model.holds(parse(CONCLUSION))
    assert model.render(false_atoms=[parse(CONCLUSION)]) == (
        "domain {bob, mara}; best(bob) = bob; best(mara) = bob; Likes(bob, bob); "
        "Likes(bob, mara); Likes(mara, bob); Rain; Student(mara); Young(mara); ¬Teacher(mara)"
    )


@pytest.mark.parametrize(
    "block",
    [
        "",  # nothing
        "cnf(u9,axiom,\n    p_Teacher_1(c_bob)).\n",  # a saturation, not a model
        "tff('declare_$i1',type,'fmb_$i_1':$i).\ntff(x,axiom,p_Tall_1('fmb_$i_1', 'fmb_$i_1')).\n",
        "tff('declare_$i1',type,'fmb_$i_1':$i).\ntff(x,axiom,mystery('fmb_$i_1')).\n",
    ],
)
def test_what_is_not_a_readable_model_gives_none(block: str) -> None:
    assert parse_finite_model(block) is None
