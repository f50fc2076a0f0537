"""The refine flow end to end under Prefect's test harness, on the shipped sample."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from refinery.pipeline import RefineSettings
from refinery.review.sheet import read_queue

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"


def sample_settings(tmp_path: Path) -> RefineSettings:
    """A rules-only run of the shipped sample into `tmp_path`."""
    return RefineSettings(
        source=str(SAMPLE),
        out_dir=str(tmp_path / "run"),
        review_path=str(tmp_path / "review.csv"),
        agents=("rules",),
        workers=2,
        state_dir=str(tmp_path / "state"),
    )


def test_refine_flow_on_the_sample(prefect_harness: None, tmp_path: Path) -> None:
    from flows.refine import refine_flow

    settings = sample_settings(tmp_path)
    summary = refine_flow(settings)
    assert summary["counts"] == {"verified": 6, "repaired": 8, "needs_review": 4}

    refined = pd.read_parquet(tmp_path / "run" / "refined.parquet")
    jsonl = [
        json.loads(line)
        for line in (tmp_path / "run" / "refined.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert list(refined["id"]) == [r["id"] for r in jsonl] and len(jsonl) == 18
    by_example = refined.set_index("example_id")
    # labels never change; repairs name the rule that made them
    assert (refined["label"] == refined["original_label"]).all()
    assert (
        by_example.loc[501, "status"] == "repaired"
        and by_example.loc[501, "repaired_by"] == "balance_parentheses"
    )
    assert by_example.loc[501, "premises-FOL"].splitlines()[0].endswith("PracticeDaily(x))")
    assert by_example.loc[501, "original_premises_fol"].splitlines()[0].endswith("PracticeDaily(x)")
    assert by_example.loc[701, "repaired_by"] == "unify_names"
    assert by_example.loc[1001, "repaired_by"] == "both_or_neither_iff"
    # meaning repairs, proposed from what the sentence says: "no bird … can fly" is ∀¬, and
    # "loyal and friendly" has two conjuncts
    assert by_example.loc[901, "repaired_by"] == "switch_quantifier"
    assert by_example.loc[901, "premises-FOL"].splitlines()[0] == (
        "∀x (Bird(x) ∧ In(x, aviary) → ¬Fly(x))"
    )
    assert by_example.loc[1101, "repaired_by"] == "restore_conjunct"
    assert (
        by_example.loc[203, "status"] == "needs_review"
        and by_example.loc[203, "suggested_label"] == "False"
    )
    assert set(refined["run_id"]) == {settings.run_id}

    queue = read_queue(tmp_path / "review.csv")
    assert {row.id.rsplit("/", 1)[1] for row in queue} == {"203", "301", "1201", "1301"}
    assert all(row.decision == "" for row in queue)
    # a wrong label is suggested with its evidence; a formula that misreads its sentence is
    # blamed, with the finding, and no label is suggested
    rows = {row.id.rsplit("/", 1)[1]: row for row in queue}
    assert (rows["203"].suggested_label, rows["203"].label_score) == ("False", "0.00")
    assert rows["1201"].suggested_label == "" and "centralAviary" in rows["1201"].findings
    # every queued item says what blocks it: the label, a name, an arity clash
    causes = {n: rows[n].cause for n in ("203", "301", "1201", "1301")}
    assert causes == {
        "203": "label",
        "301": "vocabulary",
        "1201": "vocabulary",
        "1301": "vocabulary",
    }
    assert "proves False" in rows["203"].cause_evidence and "max" in rows["1301"].cause_evidence
    assert [row.id.rsplit("/", 1)[1] for row in queue][0] == "203"  # worst first
    # the label-error item says why the provers derive False: the premises that prove it
    (row_203,) = [row for row in queue if row.id.endswith("/203")]
    assert row_203.evidence == (
        "proves its negation: premises[0], premises[1], premises[2] (eprover, z3)"
    )
    assert by_example.loc[203, "evidence"] == row_203.evidence

    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert "| verified | 6 |" in report and "| repaired | 8 |" in report
    # both Great Expectations validations are in the report, with their statistics
    assert "### input: passed" in report and "### output: passed" in report
    assert "## Review queue (4 items)" in report
    assert "  - proves its negation: premises[0], premises[1], premises[2]" in report
    assert "refine_input" in report and "refine_output" in report
    for png in ("confusion.png", "error_classes.png"):
        assert (tmp_path / "run" / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    audit = [
        json.loads(line)
        for line in (tmp_path / "run" / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert len(audit) == 18 and all("trail" in a for a in audit)


def test_refine_flow_with_z3_and_vampire(
    prefect_harness: None, tmp_path: Path, vampire_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flows.refine import refine_flow

    monkeypatch.setenv("VAMPIRE_PATH", vampire_path)  # the workers build their own provers
    settings = RefineSettings(
        source=str(SAMPLE),
        out_dir=str(tmp_path / "run"),
        review_path=str(tmp_path / "review.csv"),
        agents=("rules",),
        provers=("z3", "vampire"),
        workers=2,
        state_dir=str(tmp_path / "state"),
    )
    summary = refine_flow(settings)
    # the same outcomes as with E, decided by Z3 and Vampire
    assert summary["counts"] == {"verified": 6, "repaired": 8, "needs_review": 4}
    refined = pd.read_parquet(tmp_path / "run" / "refined.parquet").set_index("example_id")
    assert refined.loc[203, "evidence"] == (
        "proves its negation: premises[0], premises[1], premises[2] (vampire, z3)"
    )
    # Vampire's finite model builder gives the countermodel when Vampire is among the provers
    assert refined.loc[1301, "evidence"].endswith("the conclusion fails (vampire)")
    outcomes = [
        json.loads(line)
        for line in (tmp_path / "run" / "outcomes.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert all(set(o["prover_labels"]) == {"z3", "vampire"} for o in outcomes)


def test_a_run_whose_artifacts_cannot_be_published_still_succeeds_with_a_warning(
    prefect_harness: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import logging

    import flows.refine
    import tasks.refine
    from flows.refine import refine_flow

    def down(*args: object, **kwargs: object) -> None:
        raise RuntimeError("artifact API down")

    warned: list[str] = []

    class Recording(logging.LoggerAdapter):  # type: ignore[type-arg]
        def warning(self, msg: object, *args: object, **kwargs: object) -> None:
            warned.append(str(msg))

    # the run's own log, recorded as it is written (what a console shows depends on the
    # logging level the process was given)
    run_logger = flows.refine.get_run_logger
    monkeypatch.setattr(
        flows.refine,
        "get_run_logger",
        lambda: Recording(run_logger(), {}),  # type: ignore[arg-type]
    )
    monkeypatch.setattr(tasks.refine, "create_table_artifact", down)
    summary = refine_flow(sample_settings(tmp_path))
    assert summary["counts"] == {"verified": 6, "repaired": 8, "needs_review": 4}
    assert (tmp_path / "run" / "refined.parquet").is_file()
    assert len(read_queue(tmp_path / "review.csv")) == 4
    assert warned == [
        f"the run is complete in {tmp_path / 'run'}, but its Prefect artifacts could not be "
        "published (RuntimeError: artifact API down)"
    ]
