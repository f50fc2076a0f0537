"""Hostile formulas and rows: each becomes a per-item or per-row record, never a crash.

Formulas nested past `MAX_DEPTH`, JSONL rows the decoder cannot read (a 100k-deep array, a
5,000-digit id, a lone surrogate escape) and an LLM edit that splits a formula over two lines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refinery.check import Checker, check_items
from refinery.cli import main
from refinery.datasets import load_any
from refinery.errors import DataError
from refinery.logic.lint import lint
from refinery.logic.parse import MAX_DEPTH, Parsed, depth, parses, try_parse
from refinery.logic.printer import to_text
from refinery.prove.verdict import Budget
from refinery.repair import RepairConfig, repair_item
from refinery.runs.refined import refined_rows, write_refined
from vampire.registry import build_provers

from fakes import ScriptedLLM, make_item

PROVERS = ["z3", "eprover"]
TOO_DEEP = f"nested too deep (limit {MAX_DEPTH})"


def _at_depth(n: int) -> dict[str, str]:
    """One formula per nesting shape, each exactly `n` nodes deep (terms included)."""
    return {
        "not": "¬" * (n - 2) + "P(a)",  # an even number of ¬ when n is even: P(a) again
        "forall": "".join(f"∀x{i} " for i in range(n - 2)) + f"P(x{n - 3})",
        "func": "P(" + "f(" * (n - 2) + "a" + ")" * (n - 1),
        "implies": " → ".join(["P(a)"] * (n - 1)),
        "iff": " ↔ ".join(["P(a)"] * (n - 1)),  # one lark node, a left-folded chain of Iff
    }


HOSTILE = {
    "not": "¬" * 1000 + "P(a)",
    "forall": "∀x " * 1000 + "P(x)",
    "func": "P(" + "f(" * 300 + "a" + ")" * 301,
    "implies": " → ".join(["P(a)"] * 1000),
}


# --- formulas nested too deep ----------------------------------------------------------------


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_a_formula_nested_too_deep_is_a_parse_error_and_the_batch_goes_on(shape: str) -> None:
    items = [
        make_item(1, ["∀x (Dog(x) → Animal(x))", "Dog(rex)"], "Animal(rex)", "True", story_id=1),
        make_item(2, ["P(a)", HOSTILE[shape]], "P(a)", "True", story_id=2),
        make_item(3, ["P(a)"], "¬P(a)", "True", story_id=3),
    ]
    rows = check_items(
        items, prover_factory=build_provers, prover_names=PROVERS, budget=Budget(seconds=5)
    )
    assert [r.category for r in rows] == ["verified", "parse_error", "label_mismatch"]
    assert rows[1].issues == f"premises[1]:1:1: error: syntax: {TOO_DEEP}"
    problem = try_parse(HOSTILE[shape], field="premises[1]")
    assert not isinstance(problem, Parsed)
    assert (problem.kind, problem.message, problem.field) == ("too_deep", TOO_DEEP, "premises[1]")


def test_formulas_at_the_depth_limit_are_checked_with_real_provers() -> None:
    shapes = _at_depth(MAX_DEPTH)
    for text in shapes.values():
        formula = parses(text)
        assert formula is not None and depth(formula) == MAX_DEPTH
    for text in _at_depth(MAX_DEPTH + 1).values():
        result = try_parse(text)
        assert not isinstance(result, Parsed) and result.message == TOO_DEEP
    items = [
        make_item(i, ["P(a)", text], "P(a)", "True", story_id=i)
        for i, text in enumerate(shapes.values(), 1)
    ]
    rows = check_items(
        items, prover_factory=build_provers, prover_names=PROVERS, budget=Budget(seconds=5)
    )
    assert [(r.category, r.label) for r in rows] == [("verified", "True")] * len(shapes)


def test_lint_reports_a_too_deep_formula_and_lints_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "formulas.txt"
    path.write_text("P(a) ∧ Q(b)\n" + "¬" * 500 + "P(a)\n" + "R(x)\n", encoding="utf-8")
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:2:1:1: {TOO_DEEP}" in out
    assert f"{path}:3:1:3: error: free_variable" in out  # the line after it is still linted
    assert out.rstrip().endswith("3 formulas, 2 errors")


_OPENERS = st.sampled_from(["¬", "∀x ", "∃y ", "(", "P(x) → ", "f(", "Q(a) ∧ "])


@st.composite
def _nested_texts(draw: st.DrawFn) -> str:
    """Random mixes of ¬, quantifiers, (, → and f( up to ~2000 deep, mostly well formed."""
    ops = draw(st.lists(_OPENERS, max_size=2000))
    closers = "".join(")" for op in reversed(ops) if op.endswith("("))
    inner = "g(a" if ops and ops[-1] == "f(" else "P(x)"
    return "".join(ops) + inner + closers + draw(st.sampled_from(["", ")", " → R(b)"]))


@settings(max_examples=60, deadline=None)
@given(_nested_texts())
def test_any_nesting_parses_or_is_a_problem_and_what_parses_prints_and_lints(text: str) -> None:
    result = try_parse(text)
    if isinstance(result, Parsed):
        assert depth(result.formula) <= MAX_DEPTH
        assert parses(to_text(result.formula)) == result.formula
        lint([("f", result.formula)])
    else:
        assert result.render().startswith("formula:")


# --- rows the decoder cannot read --------------------------------------------------------------


def _folio_row(example_id: object, premises: str = "Dogs bark.") -> str:
    row = {
        "story_id": 1,
        "premises": premises,
        "premises-FOL": "∀x (Dog(x) → Bark(x))",
        "conclusion": "Rex barks.",
        "conclusion-FOL": "Bark(rex)",
        "label": "Uncertain",
        "example_id": example_id,
    }
    return json.dumps(row)  # ASCII: a lone surrogate becomes the escape \ud800


DEEP_ARRAY = "[" * 100_000 + "]" * 100_000


def test_bad_jsonl_rows_are_load_errors_naming_their_line_and_the_others_load(
    tmp_path: Path,
) -> None:
    lines = [
        _folio_row(1),
        _folio_row(2, premises="\ud800"),
        DEEP_ARRAY,
        _folio_row(4).replace('"example_id": 4', '"example_id": ' + "7" * 5000),
        _folio_row("x" * 300),
        _folio_row(6),
    ]
    assert lines[1].count("\\ud800") == 1 and "7" * 5000 in lines[3]
    path = tmp_path / "folio_v2_validation.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load_any(path)
    assert [(i.example_id, i.line) for i in result.items] == [("1", 1), ("6", 6)]
    errors = {e.line: e.reason for e in result.errors}
    assert sorted(errors) == [2, 3, 4, 5]
    assert errors[2] == "not valid Unicode: field 'premises' holds a lone surrogate (\\ud800)"
    assert errors[3] == "invalid JSON: nested too deep to read"
    assert errors[4].startswith("invalid JSON: Exceeds the limit (4300 digits)")
    assert errors[5] == "example_id is 300 characters (limit 256)"
    assert all(e.source == str(path) for e in result.errors)


def test_a_deep_first_row_does_not_stop_the_format_sniffing(tmp_path: Path) -> None:
    # load_any reads the first row to tell ProofWriter from FOLIO
    path = tmp_path / "folio_v2_train.jsonl"
    path.write_text(DEEP_ARRAY + "\n" + _folio_row(2) + "\n", encoding="utf-8")
    result = load_any(path)
    assert [i.example_id for i in result.items] == ["2"]
    assert [(e.line, e.reason) for e in result.errors] == [
        (1, "invalid JSON: nested too deep to read")
    ]


def test_json_list_rows_are_checked_too(tmp_path: Path) -> None:
    path = tmp_path / "folio_v2_train.json"
    path.write_text(f"[{_folio_row(1)}, {_folio_row(2, premises=chr(0xDFFF))}]", "utf-8")
    result = load_any(path)
    assert [i.example_id for i in result.items] == ["1"]
    assert [(e.line, e.reason) for e in result.errors] == [
        (2, "not valid Unicode: field 'premises' holds a lone surrogate (\\udfff)")
    ]
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP_ARRAY, encoding="utf-8")
    with pytest.raises(DataError, match="nested too deep to read"):
        load_any(deep)


def test_bad_proofwriter_rows_are_load_errors_and_the_others_load(tmp_path: Path) -> None:
    fact = '("Bob" "is" "big" "+")'

    def theory(theory_id: str) -> str:
        return json.dumps(
            {
                "id": theory_id,
                "triples": {"triple1": {"text": "Bob is big.", "representation": fact}},
                "rules": {},
                "questions": {
                    "Q1": {"question": "Bob is big.", "answer": True, "representation": fact}
                },
            }
        )

    lines = [DEEP_ARRAY, theory("T-1"), theory("T-\ud800"), '{"id": ' + "9" * 5000 + "}"]
    path = tmp_path / "meta-test.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load_any(path)
    assert [i.id for i in result.items] == ["proofwriter/test/T-1_Q1"]
    errors = {e.line: e.reason for e in result.errors}
    assert sorted(errors) == [1, 3, 4]
    assert errors[1] == "invalid JSON: nested too deep to read"
    assert errors[3] == "not valid Unicode: field 'id' holds a lone surrogate (\\ud800)"
    assert errors[4].startswith("invalid JSON: Exceeds the limit (4300 digits)")


# --- an LLM edit that splits a formula over lines ----------------------------------------------


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker(build_provers(PROVERS), Budget(seconds=5))


_CRITIQUE = {
    "diagnoses": [
        {
            "where": "premises[0]",
            "error_class": "scope",
            "explanation": "negation scope",
            "confidence": "high",
            "suggested_label": None,
        }
    ]
}


@pytest.mark.parametrize("sep", [" ", "\n", "\r\n", "\r", "\u2028", "\x0b"])
def test_an_edit_with_a_line_break_is_never_accepted_and_the_split_round_trips(
    checker: Checker, tmp_path: Path, sep: str
) -> None:
    item = make_item(
        1,
        ["∀x (Bird(x) → Fly(x))", "Bird(kiwi)"],
        "¬Fly(kiwi)",
        "True",
        premises=["-", "Kiwi is a bird."],  # no words to read: the rules cannot help
    )
    edit = {"where": "premises[0]", "after": f"∀x (Bird(x) →{sep}¬Fly(x))"}
    reply = {"edits": [{**edit, "error_class": "scope", "rationale": "no bird flies"}]}
    client = ScriptedLLM({"critique": [json.dumps(_CRITIQUE)], "refine": [json.dumps(reply)]})
    (row,) = checker.check_story([item])
    config = RepairConfig(agents=("rules", "llm"), llm_rounds=1)
    out = repair_item(item, row, checker=checker, config=config, client=client)  # type: ignore[arg-type]
    (llm,) = [c for r in out.audit["rounds"] for c in r["candidates"] if c["source"] == client.name]
    if sep == " ":  # the same edit on one line passes the gate: the test reaches it
        assert (out.status, llm["accepted"]) == ("repaired", True)
    else:
        assert (out.status, out.reason) == ("needs_review", "label_mismatch")
        assert llm["accepted"] is False
        assert llm["why"] == "not one line: premises[0] holds a line break"
        assert out.refined_premises_fol == item.premises_fol
    write_refined(tmp_path, refined_rows([item], [out], "run-1"), [out])
    (back,) = load_any(tmp_path / "refined.jsonl").items
    assert len(back.premises) == len(back.premises_fol) == 2
    assert all(parses(f) is not None for f in (*back.premises_fol, back.conclusion_fol or ""))
