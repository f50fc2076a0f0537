"""The Great Expectations suites: they pass on good data and name what is wrong on bad data."""

from __future__ import annotations

from pathlib import Path

import pytest

from refinery import validation
from refinery.outcomes import Outcome
from refinery.validation import validate_input, validate_output

from fakes import make_item


def test_input_suite_passes_on_clean_items_and_reports_each_problem() -> None:
    good = [make_item(1, ["P(a)"], "P(a)", "True"), make_item(2, ["P(a)"], "¬P(a)", "False")]
    summary = validate_input(good)
    assert summary["success"] and summary["failed"] == []
    assert (
        summary["statistics"]["evaluated_expectations"]
        == summary["statistics"]["successful_expectations"]
        > 5
    )

    bad = [
        make_item(
            3, ["P(a)", "Q(a)"], "P(a)", "True", premises=["only one sentence"]
        ),  # count mismatch
        make_item(4, ["P(a)"], "", "Maybe"),  # no conclusion FOL, unknown label
    ]
    summary = validate_input(bad)
    assert not summary["success"]
    failed = {f["expectation"] for f in summary["failed"]}
    assert failed == {
        "expect_column_pair_values_to_be_equal",
        "expect_column_values_to_be_in_set",
        "expect_column_value_lengths_to_be_between",
    }


def test_output_suite_catches_a_changed_label() -> None:
    outcome = Outcome.from_dict({
        "id": "d/s/1", "status": "repaired", "label": "True", "original_label": "True", "suggested_label": "",
        "run_id": "r1", "refined_premises_fol": ["P(a)"], "refined_conclusion_fol": "P(a)",
    })  # fmt: skip
    assert validate_output([outcome])["success"]
    changed = outcome.replace(id="d/s/2", label="False")
    summary = validate_output([outcome, changed])
    assert not summary["success"]
    assert [f["expectation"] for f in summary["failed"]] == [
        "expect_column_pair_values_to_be_equal"
    ]


def test_unchanged_data_reuses_its_summary_without_great_expectations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "validations.sqlite"
    items = [make_item(1, ["P(a)"], "P(a)", "True"), make_item(2, ["P(a)"], "", "Maybe")]
    first = validate_input(items, cache)
    assert not first["success"]

    def no_gx() -> None:
        raise AssertionError("great_expectations was asked for on a cached summary")

    monkeypatch.setattr(validation, "_gx", no_gx)
    assert validate_input(items, cache) == first
    # another run id over the same rows is the same question (the suite asks one id per run)
    outcome = Outcome.from_dict({"id": "d/s/1", "status": "verified", "label": "True",
                                 "original_label": "True", "run_id": "r1",
                                 "refined_premises_fol": ["P(a)"], "refined_conclusion_fol": "P(a)"})  # fmt: skip
    monkeypatch.undo()
    done = validate_output([outcome], cache)
    monkeypatch.setattr(validation, "_gx", no_gx)
    assert validate_output([outcome.replace(run_id="r2")], cache) == done
    # changed data is validated afresh
    with pytest.raises(AssertionError, match="cached summary"):
        validate_input([*items, make_item(3, ["P(b)"], "P(b)", "True")], cache)
