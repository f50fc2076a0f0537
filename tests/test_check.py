"""The check stage with scripted provers: categories, sharing, caching, columns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refinery.check import CATEGORIES, Checker, CheckRow, check_items, parse_item
from refinery.check.stage import categorise, dataset_category
from refinery.labels import Label
from refinery.logic.syntax import Not
from refinery.outcomes import Category
from refinery.prove.cache import VerdictCache
from refinery.prove.decide import Agreement
from refinery.prove.verdict import Budget, Problem, Status

from fakes import ScriptedProver, make_item

S = Status


def entails_by_lookup(truths: dict[str, bool | None]) -> ScriptedProver:
    """A prover that 'knows' which conclusions follow: keyed by the conclusion's predicate name."""

    def answer(problem: Problem) -> Status:
        if problem.conjecture is None:
            return S.SATISFIABLE
        atom, negated = problem.conjecture, False
        while isinstance(atom, Not):
            atom, negated = atom.body, not negated
        name = getattr(atom, "name", "")
        if name not in truths:
            return S.GAVE_UP
        value = truths[name]
        if value is None:  # neither it nor its negation follows
            return S.COUNTER_SATISFIABLE
        return S.THEOREM if value != negated else S.COUNTER_SATISFIABLE

    return ScriptedProver("scripted", answer)


def test_categories_from_scripted_answers() -> None:
    items = [
        make_item(1, ["A(a)"], "T(a)", "True"),
        make_item(2, ["A(a)"], "T(a)", "False"),
        make_item(3, ["A(a)"], "U(a)", "Uncertain"),
        make_item(4, ["A(a)"], "G(a)", "True"),  # the prover gives up on G
        make_item(5, ["A(a"], "T(a)", "True"),
        make_item(6, ["A(a)", "A(a, b)"], "T(a)", "True"),
    ]
    prover = entails_by_lookup({"T": True, "U": None})
    rows = [r.to_dict() for r in Checker([prover], Budget()).check_story(items)]
    assert [r["category"] for r in rows] == [
        "verified",
        "label_mismatch",
        "verified",
        "undecided",
        "parse_error",
        "lint_error",
    ]
    assert (
        rows[0]["label"] == "True"
        and rows[0]["status_scripted"] == "Satisfiable/Theorem/CounterSatisfiable"
    )
    assert rows[3]["label"] == "" and rows[3]["label_scripted"] == "Unknown"
    assert (
        rows[4]["label_scripted"] == "" and "premises[0]:1:4: error: syntax:" in rows[4]["issues"]
    )
    assert "arity_conflict" in rows[5]["issues"] and rows[5]["label_scripted"] == "True"


def test_questions_are_deduplicated_and_consistency_is_asked_only_when_open() -> None:
    items = [make_item(i, ["A(a)", "B(a)"], "T(a)", "True") for i in range(1, 4)]
    items.append(make_item(9, ["A(a)"], "T(a)", "True"))  # same story, different premises
    prover = entails_by_lookup({"T": True})
    rows = [r.to_dict() for r in Checker([prover], Budget()).check_story(items)]
    # two premise sets × (conclusion + negation); a counter-satisfiable negation already shows
    # the premises have a model, so their consistency is not asked
    assert len(prover.calls) == 4
    assert not any(p.conjecture is None for p in prover.calls)
    assert {r["status_scripted"] for r in rows} == {"NotAsked/Theorem/CounterSatisfiable"}
    assert {r["label"] for r in rows} == {"True"}


def test_consistency_is_asked_once_per_premise_set_where_a_direction_leaves_it_open() -> None:
    items = [make_item(1, ["A(a)"], "T(a)", "True"), make_item(2, ["A(a)"], "G(a)", "True")]
    prover = entails_by_lookup({"T": True})  # gives up on G: the label hangs on consistency
    rows = [r.to_dict() for r in Checker([prover], Budget()).check_story(items)]
    assert sum(1 for p in prover.calls if p.conjecture is None) == 1
    assert [r["status_scripted"].split("/")[0] for r in rows] == ["Satisfiable", "Satisfiable"]
    assert [r["label_scripted"] for r in rows] == ["True", "Unknown"]


def test_two_provers_must_agree() -> None:
    items = [make_item(1, ["A(a)"], "T(a)", "True")]
    yes = entails_by_lookup({"T": True})
    no = ScriptedProver(
        "other", lambda p: S.SATISFIABLE if p.conjecture is None else S.COUNTER_SATISFIABLE
    )
    (row,) = [r.to_dict() for r in Checker([yes, no], Budget()).check_story(items)]
    assert (row["label_scripted"], row["label_other"]) == ("True", "Uncertain")
    assert (row["category"], row["agreement"], row["label"]) == (
        "prover_disagreement",
        "disagree",
        "",
    )


def test_inconsistent_premises() -> None:
    prover = ScriptedProver("s", lambda p: S.UNSATISFIABLE if p.conjecture is None else S.THEOREM)
    (row,) = Checker([prover], Budget()).check_story(
        [make_item(1, ["A(a)", "¬A(a)"], "T(a)", "True")]
    )
    assert (row.category, row.label) == ("inconsistent", "Inconsistent")


def test_cache_answers_a_rerun_without_calling_the_prover(tmp_path: Path) -> None:
    items = [make_item(1, ["A(a)"], "T(a)", "True"), make_item(2, ["A(a)"], "¬T(a)", "False")]
    cache_file = tmp_path / "v.sqlite"
    first = entails_by_lookup({"T": True})
    rows1 = [
        r.to_dict() for r in Checker([first], Budget(), VerdictCache(cache_file)).check_story(items)
    ]
    # T(a), ¬T(a): the negation of ¬T(a) is asked as T(a), not ¬¬T(a); consistency not needed
    assert len(first.calls) == 2 and not any(r["cached"] for r in rows1)
    second = entails_by_lookup({"T": True})
    rows2 = [
        r.to_dict()
        for r in Checker([second], Budget(), VerdictCache(cache_file)).check_story(items)
    ]
    assert second.calls == [] and all(r["cached"] for r in rows2)
    assert [r["label"] for r in rows2] == [r["label"] for r in rows1]
    # a different budget is a different question
    third = entails_by_lookup({"T": True})
    Checker([third], Budget(seconds=9), VerdictCache(cache_file)).check_story(items)
    assert len(third.calls) == 2


def test_errors_are_not_cached(tmp_path: Path) -> None:
    cache_file = tmp_path / "v.sqlite"
    items = [make_item(1, ["A(a)"], "T(a)", "True")]
    broken = ScriptedProver("s", lambda p: S.ERROR)
    Checker([broken], Budget(), VerdictCache(cache_file)).check_story(items)
    again = ScriptedProver("s", lambda p: S.ERROR)
    Checker([again], Budget(), VerdictCache(cache_file)).check_story(items)
    assert len(again.calls) == 3


def _factory(names: object) -> list[ScriptedProver]:
    return [entails_by_lookup({"T": True})]


@pytest.mark.parametrize("workers", [1, 2])
def test_check_items_keeps_input_order_across_workers(workers: int) -> None:
    items = [
        make_item(i, ["A(a)"] * (1 + i % 3), "T(a)", "True", story_id=i % 4) for i in range(12)
    ]
    seen: list[int] = []
    rows = check_items(
        items,
        prover_factory=_factory,
        prover_names=["scripted"],
        budget=Budget(),
        workers=workers,
        on_progress=seen.append,
    )
    assert [r.id for r in rows] == [it.id for it in items]
    assert sum(seen) == len(items)
    assert {r.category for r in rows} == {"verified"}


def test_categorise_order() -> None:
    assert categorise(False, True, Label.TRUE, Agreement.AGREED, Label.TRUE) == "parse_error"
    assert categorise(True, True, Label.TRUE, Agreement.AGREED, Label.TRUE) == "lint_error"
    assert categorise(True, False, None, Agreement.DISAGREE, Label.TRUE) == "prover_disagreement"
    assert categorise(True, False, None, Agreement.UNDECIDED, Label.TRUE) == "undecided"
    assert (
        categorise(True, False, Label.INCONSISTENT, Agreement.AGREED, Label.TRUE) == "inconsistent"
    )
    assert categorise(True, False, Label.FALSE, Agreement.AGREED, Label.FALSE) == "verified"
    assert categorise(True, False, Label.FALSE, Agreement.AGREED, Label.TRUE) == "label_mismatch"
    assert set(CATEGORIES) == {
        "verified",
        "label_mismatch",
        "inconsistent",
        "parse_error",
        "lint_error",
        "prover_disagreement",
        "undecided",
        "label_error_candidate",
        "semantics_mismatch",
    }


def test_dataset_category_refines_only_rows_with_a_dataset_label() -> None:
    T, F, U = Label.TRUE, Label.FALSE, Label.UNCERTAIN
    # classical logic decides more than the dataset's semantics, which reproduces gold
    assert dataset_category(Category("label_mismatch"), F, U, U) == "semantics_mismatch"
    assert dataset_category(Category("label_mismatch"), T, U, U) == "semantics_mismatch"
    # a mismatch the dataset's semantics cannot explain stays a label_mismatch
    assert dataset_category(Category("label_mismatch"), U, T, T) == "label_mismatch"
    assert dataset_category(Category("label_mismatch"), F, T, T) == "label_mismatch"
    # the dataset's own semantics contradicts gold, whatever the provers say
    for category in ("verified", "label_mismatch", "undecided", "inconsistent"):
        assert dataset_category(Category(category), T, T, U) == "label_error_candidate"
    # broken FOL stays broken; agreement stays
    assert dataset_category(Category("parse_error"), None, T, U) == "parse_error"
    assert dataset_category(Category("lint_error"), T, T, U) == "lint_error"
    assert dataset_category(Category("verified"), T, T, T) == "verified"
    assert dataset_category(Category("prover_disagreement"), None, U, U) == "prover_disagreement"


def test_parse_item_records_notation_with_field() -> None:
    p = parse_item(make_item(1, ["A(a) ⟷ B(a)"], "T(a).", "True"))
    assert p.ok and p.notation == (
        "premises[0]:1:6 '⟷' → '↔'",
        "conclusion:1:5 trailing '.' removed",
    )


# --- evidence with the real provers -------------------------------------------------------------

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"


@pytest.fixture(scope="module")
def sample_rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    from refinery.datasets import load_any
    from vampire.registry import build_provers

    cache = tmp_path_factory.mktemp("evidence") / "verdicts.sqlite"
    rows = check_items(
        load_any(str(SAMPLE)).items,
        prover_factory=build_provers,
        prover_names=["z3", "eprover"],
        budget=Budget(),
        workers=2,
        cache_path=cache,
    )
    return {r.example_id: r.to_dict() for r in rows}


@pytest.mark.prover
def test_the_label_error_item_shows_the_premises_that_prove_false(
    sample_rows: dict[str, dict[str, object]],
) -> None:
    row = sample_rows["203"]
    assert (row["gold_label"], row["label"]) == ("True", "False")
    assert row["evidence"] == (
        "proves its negation: premises[0], premises[1], premises[2] (eprover, z3)"
    )


@pytest.mark.prover
def test_an_uncertain_mismatch_shows_a_countermodel_that_really_is_one(
    sample_rows: dict[str, dict[str, object]],
) -> None:
    import json

    from refinery.datasets import load_any
    from refinery.logic.parse import parse
    from refinery.prove.countermodel import Countermodel

    item = next(it for it in load_any(str(SAMPLE)).items if it.example_id == "1101")
    row = sample_rows["1101"]
    assert (row["gold_label"], row["label"]) == ("True", "Uncertain")
    assert str(row["evidence"]).startswith("the conclusion can fail: domain {")
    detail = json.loads(str(row["evidence_detail"]))
    model = Countermodel.from_dict(detail["countermodels"]["pos"])
    assert all(model.holds(parse(p)) for p in item.premises_fol)
    assert not model.holds(parse(item.conclusion_fol or ""))


@pytest.mark.prover
def test_verified_items_carry_their_proof_and_no_model(
    sample_rows: dict[str, dict[str, object]],
) -> None:
    assert sample_rows["101"]["evidence"] == (
        "proves the conclusion: premises[0], premises[2] (eprover, z3)"
    )
    # Uncertain on both sides, as the gold label says: nothing to explain, no model asked for
    assert sample_rows["102"]["label"] == "Uncertain" and sample_rows["102"]["evidence"] == ""


@pytest.mark.prover
def test_labels_only_checking_decides_the_same_and_says_nothing(
    sample_rows: dict[str, dict[str, object]],
) -> None:
    from refinery.datasets import load_any
    from vampire.registry import build_provers

    rows = check_items(
        load_any(str(SAMPLE)).items,
        prover_factory=build_provers,
        prover_names=["z3", "eprover"],
        budget=Budget(),
        evidence=False,
    )
    assert {r.example_id: r.category for r in rows} == {
        k: r["category"] for k, r in sample_rows.items()
    }
    assert all(r.evidence == "" for r in rows)


def test_a_row_keeps_its_verdicts_structured_and_reads_back_from_its_file_form() -> None:
    items = [make_item(1, ["A(a)"], "T(a)", "True"), make_item(2, ["A(a"], "T(a)", "True")]
    rows = Checker([entails_by_lookup({"T": True})], Budget()).check_story(items)
    assert rows[0].verdicts["scripted"]["pos"]["status"] == "Theorem"
    for row in rows:
        form = row.to_dict()
        assert isinstance(form["verdicts"], str) and isinstance(form["evidence_detail"], str)
        assert CheckRow.from_dict(form) == row
        assert list(CheckRow.from_dict(form).to_dict()) == list(form)
    assert rows[0].prover_labels() == {"scripted": "True"}
    semantics = rows[0].replace(label_dataset="Uncertain")
    assert semantics.prover_labels() == {"scripted": "True", "dataset": "Uncertain"}
    assert (
        list(semantics.to_dict()).index("label_dataset")
        == list(semantics.to_dict()).index("agreement") + 1
    )


def test_a_row_with_a_prover_error_is_not_cached() -> None:
    def broken(problem: Problem) -> Status:
        return S.ERROR

    (row,) = Checker([ScriptedProver("scripted", broken)], Budget()).check_story(
        [make_item(1, ["A(a)"], "T(a)", "True")]
    )
    assert row.has_error
    (good,) = Checker([entails_by_lookup({"T": True})], Budget()).check_story(
        [make_item(1, ["A(a)"], "T(a)", "True")]
    )
    assert not good.has_error


def test_an_item_gives_its_formulas_and_sentences_by_address() -> None:
    item = make_item(1, ["A(a)", "B(a)"], "T(a)", "True")
    assert item.formulas() == {"premises[0]": "A(a)", "premises[1]": "B(a)", "conclusion": "T(a)"}
    assert set(item.sentences()) == set(item.formulas())
    changed = item.with_formulas({**item.formulas(), "premises[1]": "C(a)"})
    assert changed.premises_fol == ("A(a)", "C(a)") and changed.content_hash != item.content_hash


def test_a_row_written_twice_writes_its_changes() -> None:
    # `to_dict` keeps the JSON text of the verdicts and evidence it wrote; a copy with other
    # verdicts must not reuse it, a copy with another label must
    items = [make_item(1, ["A(a)"], "T(a)", "True")]
    (row,) = Checker([entails_by_lookup({"T": True})], Budget()).check_story(items)
    first = row.to_dict()
    assert json.loads(first["verdicts"]) == row.verdicts
    relabelled = row.replace(label_dataset="True").to_dict()
    assert relabelled["verdicts"] is first["verdicts"] and relabelled["label_dataset"] == "True"
    changed = row.replace(verdicts={"other": {}}, evidence_detail={"why": 1}).to_dict()
    assert (changed["verdicts"], changed["evidence_detail"]) == ('{"other": {}}', '{"why": 1}')
    assert row.replace(verdicts={"other": {}}) == row.replace(verdicts={"other": {}})
