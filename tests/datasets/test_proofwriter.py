"""ProofWriter: loading meta-*.jsonl, generated FOL, forward chaining, the two new categories.

Small theories are written inline in ProofWriter's own format; the real birds-electricity test
file (../shared/data/proofwriter, via `shared_data`) is read in place.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from refinery.check import Checker, check_items
from refinery.datasets import dataset_labels, load_any
from refinery.datasets.proofwriter import (
    Question,
    Theory,
    constant_name,
    load,
    parse_statement,
    parse_theory,
    to_formula,
)
from refinery.datasets.proofwriter_semantics import closure, theory_labels
from refinery.errors import DataError
from refinery.labels import Label
from refinery.logic.lint import lint
from refinery.logic.parse import Parsed, parse, try_parse
from refinery.logic.printer import to_text
from refinery.logic.syntax import And, Const, Forall, Implies, Not, Pred, Var
from refinery.prove.verdict import Budget, Problem, Status

from fakes import ScriptedProver

REFINERY = Path(sys.executable).parent / "refinery"

Q = tuple[str, str, object]  # (question text, representation, answer)


def lit(subject: str, relation: str, obj: str, polarity: str = "+") -> str:
    return f'("{subject}" "{relation}" "{obj}" "{polarity}")'


def rule(conditions: Sequence[str], head: str) -> str:
    return f"(({' '.join(conditions)}) -> {head})"


def theory(
    theory_id: str,
    facts: Sequence[tuple[str, str]],
    rules: Sequence[tuple[str, str]],
    questions: dict[str, Q],
) -> dict[str, Any]:
    """A row in ProofWriter's meta format (the fields the loader reads, plus a few it keeps)."""
    return {
        "id": theory_id,
        "maxD": 1,
        "NFact": len(facts),
        "NRule": len(rules),
        "theory": " ".join(t for t, _ in [*facts, *rules]),
        "triples": {
            f"triple{i}": {"text": t, "representation": r} for i, (t, r) in enumerate(facts, 1)
        },
        "rules": {
            f"rule{i}": {"text": t, "representation": r} for i, (t, r) in enumerate(rules, 1)
        },
        "questions": {
            key: {"question": t, "answer": a, "QDep": 0, "strategy": "proof", "representation": r}
            for key, (t, r, a) in questions.items()
        },
    }


def write(path: Path, rows: Sequence[object]) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# A theory with every representation form: unary and binary facts (positive and negated), a
# one-condition rule with someone, a two-condition rule, a binary someone rule, a ground rule, a
# `~` condition.
FORMS = theory(
    "AttNeg-OWA-Forms-1",
    facts=[
        ("Bob is big.", lit("Bob", "is", "big")),
        ("The bald eagle is not rough.", lit("the bald eagle", "is", "rough", "-")),
        ("The bald eagle likes the cat.", lit("the bald eagle", "likes", "cat")),
        ("The cat does not chase Bob.", lit("cat", "chases", "Bob", "-")),
    ],
    rules=[
        ("Big people are red.", rule([lit("someone", "is", "big")], lit("someone", "is", "red"))),
        (
            "If someone is big and red then they are a giant.",
            rule(
                [lit("someone", "is", "big"), lit("someone", "is", "red")],
                lit("someone", "is", "a giant"),
            ),
        ),
        (
            "If something likes the cat then it does not chase Bob.",
            rule([lit("something", "likes", "cat")], lit("something", "chases", "Bob", "-")),
        ),
        (
            "If the cat is red then Bob likes the cat.",
            rule([lit("cat", "is", "red")], lit("Bob", "likes", "cat")),
        ),
        (
            "If someone is not rough then they are kind.",
            rule([lit("someone", "is", "rough", "~")], lit("someone", "is", "kind")),
        ),
    ],
    questions={
        "Q1": ("Bob is a giant.", lit("Bob", "is", "a giant"), True),
        "Q2": (
            "The bald eagle does not chase Bob.",
            lit("the bald eagle", "chases", "Bob", "-"),
            True,
        ),
        "Q3": ("The bald eagle is not kind.", lit("the bald eagle", "is", "kind", "-"), False),
        "Q4": ("Bob likes the cat.", lit("Bob", "likes", "cat"), "Unknown"),
        "Q5": ("Bob is kind.", lit("Bob", "is", "kind"), "Unknown"),
    },
)
FORMS_FOL = (
    "Big(bob)",
    "¬Rough(theBaldEagle)",
    "Likes(theBaldEagle, cat)",
    "¬Chases(cat, bob)",
    "∀x (Big(x) → Red(x))",
    "∀x (Big(x) ∧ Red(x) → Giant(x))",
    "∀x (Likes(x, cat) → ¬Chases(x, bob))",
    "Red(cat) → Likes(bob, cat)",
    "∀x (¬Rough(x) → Kind(x))",
)

# The contraposition case: classical logic derives ¬Big(bob) from ¬Red(bob) and Big → Red;
# forward chaining does not, so the gold Unknown is ProofWriter's own answer.
CONTRAPOSITION = theory(
    "AttNeg-OWA-Contra-1",
    facts=[("Bob is not red.", lit("Bob", "is", "red", "-"))],
    rules=[
        (
            "If someone is big then they are red.",
            rule([lit("someone", "is", "big")], lit("someone", "is", "red")),
        )
    ],
    questions={
        "Q1": ("Bob is big.", lit("Bob", "is", "big"), "Unknown"),
        "Q2": ("Bob is not big.", lit("Bob", "is", "big", "-"), "Unknown"),
        "Q3": ("Bob is red.", lit("Bob", "is", "red"), False),
        # a wrong gold label: forward chaining derives ¬Red(bob), so this is False, not True
        "Q4": ("Bob is not red.", lit("Bob", "is", "red", "-"), False),
    },
)


# --- loading and FOL generation --------------------------------------------------------------


def test_every_representation_form_becomes_the_expected_fol(tmp_path: Path) -> None:
    result = load(write(tmp_path / "meta-test.jsonl", [FORMS]))
    assert result.errors == () and (result.dataset, result.split) == ("proofwriter", "test")
    first = result.items[0]
    assert first.premises_fol == FORMS_FOL
    assert first.premises[0] == "Bob is big." and first.premises[8].startswith("If someone is not")
    assert [(it.example_id, it.conclusion_fol, it.label) for it in result.items] == [
        ("AttNeg-OWA-Forms-1_Q1", "Giant(bob)", Label.TRUE),
        ("AttNeg-OWA-Forms-1_Q2", "¬Chases(theBaldEagle, bob)", Label.TRUE),
        ("AttNeg-OWA-Forms-1_Q3", "¬Kind(theBaldEagle)", Label.FALSE),
        ("AttNeg-OWA-Forms-1_Q4", "Likes(bob, cat)", Label.UNCERTAIN),
        ("AttNeg-OWA-Forms-1_Q5", "Kind(bob)", Label.UNCERTAIN),
    ]
    assert {it.story_id for it in result.items} == {"AttNeg-OWA-Forms-1"}
    assert first.id == "proofwriter/test/AttNeg-OWA-Forms-1_Q1"
    assert (first.line, first.raw_label, result.items[3].raw_label) == (1, "True", "Unknown")
    assert json.loads(first.raw) == FORMS
    assert first.conclusion == "Bob is a giant."


def test_generated_fol_parses_to_the_intended_tree_and_lints_clean(tmp_path: Path) -> None:
    (item, *_) = load(write(tmp_path / "meta-test.jsonl", [FORMS])).items
    x = Var("x")
    assert parse(item.premises_fol[5]) == Forall(
        "x", Implies(And((Pred("Big", (x,)), Pred("Red", (x,)))), Pred("Giant", (x,)))
    )
    assert parse(item.premises_fol[6]) == Forall(
        "x", Implies(Pred("Likes", (x, Const("cat"))), Not(Pred("Chases", (x, Const("bob")))))
    )
    formulas = [(f"premises[{i}]", parse(f)) for i, f in enumerate(item.premises_fol)]
    assert [i for i in lint(formulas) if i.severity == "error"] == []


def test_negation_as_failure_conditions_are_classical_negation_in_owa() -> None:
    statement = parse_statement(
        rule(
            [lit("someone", "is", "big"), lit("someone", "is", "rough", "~")],
            lit("someone", "is", "kind"),
        )
    )
    assert to_text(to_formula(statement)) == "∀x (Big(x) ∧ ¬Rough(x) → Kind(x))"


def test_names_are_rebuilt_from_letters_so_no_text_reaches_the_formula(tmp_path: Path) -> None:
    hostile = "Bob) ∨ ∀y Evil(y"
    row = theory(
        "RelNeg-OWA-Names-1",
        facts=[
            ("...", lit(hostile, "is", "big")),
            ("...", lit("X", "likes", "forall")),  # would be a variable / a quantifier keyword
        ],
        rules=[("...", rule([lit("someone", "likes", "X")], lit("someone", "is", "big")))],
        questions={"Q1": ("?", lit("forall", "is", "big"), "Unknown")},
    )
    (item,) = load(write(tmp_path / "meta-test.jsonl", [row])).items
    assert item.premises_fol == (
        "Big(bobYEvilY)",
        "Likes(x_, forall_)",
        "∀x (Likes(x, x_) → Big(x))",
    )
    assert item.conclusion_fol == "Big(forall_)"
    # the constant x_ is never captured by the rule's ∀x
    assert parse(item.premises_fol[2]) == Forall(
        "x", Implies(Pred("Likes", (Var("x"), Const("x_"))), Pred("Big", (Var("x"),)))
    )
    assert constant_name("the bald eagle") == "theBaldEagle"


def test_closed_world_files_and_theories_are_refused(tmp_path: Path) -> None:
    cwa = tmp_path / "CWA" / "depth-3"
    cwa.mkdir(parents=True)
    with pytest.raises(DataError, match="negation as failure"):
        load(write(cwa / "meta-test.jsonl", [FORMS]))
    row = dict(FORMS, id="AttNeg-CWA-D3-7")
    with pytest.raises(
        DataError, match=r"meta-dev.jsonl:2: theory 'AttNeg-CWA-D3-7'.*closed-world"
    ):
        load(write(tmp_path / "meta-dev.jsonl", [CONTRAPOSITION, row]))


def test_malformed_theories_and_questions_are_errors_and_the_rest_loads(tmp_path: Path) -> None:
    bad_question = theory(
        "T-OWA-Q",
        facts=[("Bob is big.", lit("Bob", "is", "big"))],
        rules=[],
        questions={
            "Q1": ("Bob is big.", lit("Bob", "is", "big"), True),
            "Q2": ("Bob is big?", lit("Bob", "is", "big"), "maybe"),
            "Q3": ("Someone is big.", lit("someone", "is", "big"), True),
            "Q4": ("Bob is big.", lit("Bob", "is", "big", "~"), True),
            "Q5": ("Bob is big.", lit("Bob", "big", "is", "+") + ")", True),
        },
    )
    unbalanced = theory("T-OWA-U", [("x", '(("Bob" "is" "big" "+")')], [], {})
    naf_fact = theory(
        "T-OWA-N",
        [("x", lit("Bob", "is", "big", "~"))],
        [],
        {"Q1": ("q", lit("Bob", "is", "big"), True)},
    )
    fact_as_rule = theory("T-OWA-R", [], [("x", lit("Bob", "is", "big"))], {})
    clash = theory(
        "T-OWA-A",
        [("x", lit("Bob", "is", "likes")), ("y", lit("Bob", "likes", "cat"))],
        [],
        {"Q1": ("q", lit("Bob", "is", "likes"), True)},
    )
    path = write(
        tmp_path / "meta-test.jsonl",
        [
            bad_question,
            "{not json",
            unbalanced,
            ["a list"],
            naf_fact,
            fact_as_rule,
            clash,
            dict(bad_question, id="T-OWA-Q"),
            CONTRAPOSITION,
        ],
    )
    result = load(path)
    assert [it.example_id for it in result.items] == ["T-OWA-Q_Q1"] + [
        f"AttNeg-OWA-Contra-1_Q{i}" for i in range(1, 5)
    ]
    reasons = [(e.line, e.reason) for e in result.errors]
    assert reasons[0] == (1, "Q2: answer 'maybe' is not true, false or Unknown")
    assert reasons[1] == (1, "Q3: someone/something in a question")
    assert reasons[2] == (1, "Q4: '~' (negation as failure) in a question")
    assert reasons[3][0] == 1 and reasons[3][1].startswith("Q5: unbalanced ')'")
    assert reasons[4][0] == 2 and reasons[4][1].startswith("invalid JSON")
    assert reasons[5] == (3, 'triple1: unbalanced \'(\' in \'(("Bob" "is" "big" "+")\'')
    assert reasons[6] == (4, "row is not a JSON object")
    assert reasons[7] == (5, "triple1: '~' (negation as failure) in a fact")
    assert reasons[8][0] == 6 and reasons[8][1].startswith("rule1: representation is not a rule")
    assert reasons[9] == (7, "predicate 'Likes' would be both an attribute and a relation")
    assert reasons[10] == (8, "duplicate theory id 'T-OWA-Q' (first at line 1)")
    assert len(reasons) == 11
    assert all(e.source == str(path) for e in result.errors)


def test_load_any_dispatches_on_the_format(tmp_path: Path) -> None:
    unnamed = write(tmp_path / "theories.jsonl", [CONTRAPOSITION])
    result = load_any(unnamed)
    assert result.dataset == "proofwriter" and len(result.items) == 4
    folio_row = {
        "premises": "A.",
        "premises-FOL": "A(a)",
        "conclusion": "B.",
        "conclusion-FOL": "B(a)",
        "label": "True",
    }
    folio = load_any(write(tmp_path / "folio_v2_validation.jsonl", [folio_row]))
    assert (folio.dataset, folio.split, len(folio.items)) == ("folio-v2", "validation", 1)
    with pytest.raises(DataError, match="no such file"):
        load_any(tmp_path / "meta-train.jsonl")


# --- the dataset's own semantics -------------------------------------------------------------


def _theory(row: dict[str, Any]) -> tuple[Theory, dict[str, Label]]:
    parsed, questions = parse_theory(row)
    return parsed, theory_labels(parsed, [q for q in questions if isinstance(q, Question)])


def test_forward_chaining_reproduces_the_hand_written_gold_labels() -> None:
    parsed, labels = _theory(FORMS)
    # Bob: big → red → giant (two conditions); the eagle likes the cat → does not chase Bob;
    # the eagle is known not rough → kind (a `~` condition needs the known negation); Bob's
    # roughness is unknown, so `~` does not fire for him.
    assert labels == {
        "Q1": Label.TRUE,
        "Q2": Label.TRUE,
        "Q3": Label.FALSE,
        "Q4": Label.UNCERTAIN,
        "Q5": Label.UNCERTAIN,
    }
    derived = {(a.predicate, a.args, p) for a, p in closure(parsed)}
    assert ("Kind", ("theBaldEagle",), True) in derived
    assert not any(pred == "Kind" and args == ("bob",) for pred, args, _ in derived)


def test_forward_chaining_does_not_contrapose() -> None:
    _, labels = _theory(CONTRAPOSITION)
    assert labels == {
        "Q1": Label.UNCERTAIN,
        "Q2": Label.UNCERTAIN,
        "Q3": Label.FALSE,
        "Q4": Label.TRUE,
    }


def test_dataset_labels_covers_proofwriter_items_only(tmp_path: Path) -> None:
    pw = load(write(tmp_path / "meta-test.jsonl", [CONTRAPOSITION])).items
    folio_row = {"premises": "A.", "premises-FOL": "A(a)", "conclusion": "B.", "label": "True"}
    folio = load_any(write(tmp_path / "folio.jsonl", [folio_row])).items
    labels = dataset_labels([*pw, *folio])
    assert set(labels) == {it.id for it in pw}
    assert labels[pw[3].id] is Label.TRUE


def test_loaded_theories_are_found_parsed_and_only_the_latest_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import refinery.datasets.proofwriter as pw

    monkeypatch.setattr(pw, "RECENT_THEORIES", 2)
    rows = [{**CONTRAPOSITION, "id": f"T{n}"} for n in range(3)]
    items = load(write(tmp_path / "meta-test.jsonl", rows)).items
    first, last = items[0], items[-1]
    assert len(pw._recent) == 2 and first.raw not in pw._recent
    labels = dataset_labels(items)
    assert [labels[it.id] for it in items if it.story_id == "T0"] == [
        labels[it.id] for it in items if it.story_id == "T2"
    ]  # a theory no longer kept is parsed again, to the same labels
    monkeypatch.setattr(pw.json, "loads", None)  # a kept theory is not decoded again
    assert pw.parse_raw(last.raw)[0].id == "T2"
    with pytest.raises(TypeError):
        pw.parse_raw(first.raw)


# --- the check stage: two semantics, two verdicts --------------------------------------------


@pytest.mark.prover
def test_contraposition_is_a_semantics_mismatch_and_a_wrong_gold_a_label_error(
    tmp_path: Path,
) -> None:
    from vampire.registry import build_provers

    items = load(write(tmp_path / "meta-test.jsonl", [CONTRAPOSITION])).items
    rows = [
        r.to_dict()
        for r in check_items(
            items,
            prover_factory=build_provers,
            prover_names=["z3", "eprover"],
            budget=Budget(seconds=5),
        )
    ]
    got = [(r["label_z3"], r["label_eprover"], r["label_dataset"], r["category"]) for r in rows]
    assert got == [
        ("False", "False", "Uncertain", "semantics_mismatch"),  # classical: ¬Big(bob)
        ("True", "True", "Uncertain", "semantics_mismatch"),
        ("False", "False", "False", "verified"),
        ("True", "True", "True", "label_error_candidate"),  # gold False is wrong
    ]
    columns = list(rows[0])
    assert columns.index("label_dataset") == columns.index("agreement") + 1


def _pw_prover() -> ScriptedProver:
    """Scripted 'classical' answers: only Big(bob) atoms are decided (as False)."""

    def answer(problem: Problem) -> Status:
        goal = problem.conjecture
        if goal is None:
            return Status.SATISFIABLE
        return Status.THEOREM if goal == parse("¬Big(bob)") else Status.COUNTER_SATISFIABLE

    return ScriptedProver("scripted", answer)


def test_paired_questions_share_calls_and_settled_theories_skip_consistency(
    tmp_path: Path,
) -> None:
    other = dict(CONTRAPOSITION, id="AttNeg-OWA-Contra-2")
    items = load(write(tmp_path / "meta-test.jsonl", [CONTRAPOSITION, other])).items
    assert len({it.story_id for it in items}) == 2
    prover = _pw_prover()
    rows = check_items(
        items,
        prover_factory=lambda names: [prover],
        prover_names=["scripted"],
        budget=Budget(),
    )
    # every question has a counter-satisfiable side: the theories' consistency is never asked
    assert [p for p in prover.calls if p.conjecture is None] == []
    # per theory: Big(bob), ¬Big(bob), Red(bob), ¬Red(bob); never ¬¬Big(bob)
    goals = [to_text(p.conjecture) for p in prover.calls if p.conjecture is not None]
    assert sorted(goals) == sorted(["Big(bob)", "¬Big(bob)", "Red(bob)", "¬Red(bob)"] * 2)
    assert len(prover.calls) == 8  # without sharing: 2 × (1 + 4 × 2) = 18
    assert [r.category for r in rows[:4]] == [
        "semantics_mismatch",
        "semantics_mismatch",
        "label_mismatch",  # the scripted prover cannot derive ¬Red(bob): not a semantics case
        "label_error_candidate",
    ]


def test_folio_rows_get_no_dataset_column(tmp_path: Path) -> None:
    folio_row = {"premises": "A.", "premises-FOL": "A(a)", "conclusion": "B.", "label": "True",
                 "conclusion-FOL": "¬Big(bob)"}  # fmt: skip
    items = load_any(write(tmp_path / "folio.jsonl", [folio_row])).items
    (row,) = check_items(
        items, prover_factory=lambda names: [_pw_prover()], prover_names=["s"], budget=Budget()
    )
    assert "label_dataset" not in row.to_dict() and row.category == "verified"
    (direct,) = Checker([_pw_prover()], Budget()).check_story(list(items))
    assert list(direct.to_dict()) == list(row.to_dict())


@pytest.mark.prover
def test_refinery_check_runs_on_a_proofwriter_file(tmp_path: Path) -> None:
    source = write(tmp_path / "meta-test.jsonl", [CONTRAPOSITION])
    out = tmp_path / "out"
    proc = subprocess.run(
        [str(REFINERY), "check", str(source), "--out", str(out), "--workers", "1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_parquet(out / "verdicts.parquet")
    assert list(frame["category"]) == [
        "semantics_mismatch",
        "semantics_mismatch",
        "verified",
        "label_error_candidate",
    ]
    assert list(frame["label_dataset"]) == ["Uncertain", "Uncertain", "False", "True"]
    assert "semantics_mismatch" in proc.stderr and "label_error_candidate" in proc.stderr


# --- the real test file ----------------------------------------------------------------------


@pytest.mark.data
def test_the_real_meta_test_file_loads_parses_and_reproduces_its_labels(
    shared_data: Path,
) -> None:
    path = shared_data / "proofwriter" / "meta-test.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    result = load_any(path)
    assert result.errors == () and len(result.items) == 5270
    assert (result.dataset, result.split) == ("proofwriter", "test")
    assert len({it.id for it in result.items}) == 5270
    assert len({it.story_id for it in result.items}) == 140
    formulas = {f for it in result.items for f in (*it.premises_fol, it.conclusion_fol or "")}
    unparsed = [f for f in formulas if not isinstance(try_parse(f), Parsed)]
    assert unparsed == []
    assert all(len(it.premises) == len(it.premises_fol) for it in result.items)
    labels = dataset_labels(result.items)
    assert sum(labels[it.id] == it.label for it in result.items) == 5270
    birds = [it for it in result.items if "BirdsVar1" in it.story_id]
    assert "∀x (Bird(x) ∧ ¬Abnormal(x) → Flying(x))" in birds[0].premises_fol
