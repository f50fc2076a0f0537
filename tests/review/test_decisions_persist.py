"""A review decision outlives the runs after it: review, `review apply`, the scheduled refine
flow, publish.

The refine flow the deployment runs (`flows.refine.refine_flow`, under Prefect's harness) runs
the sample; two of its queued items are decided in the queue (203 relabelled False, 1201
relabelled Uncertain) and applied. The next scheduled run carries both decisions into its own
folder, says so in its summary and `changes.md`, and publishes with them; the run made before
the review is refused by `publish`, which would undo them. A run on data where 1201's conclusion
changed after the decision carries only 203 and flags 1201 for a second look.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from refinery import publish
from refinery.cli import main
from refinery.errors import RefineryError
from refinery.pipeline import RefineSettings, new_run_id
from refinery.review.queue import CHANGED_SINCE_DECISION
from refinery.review.sheet import read_queue, write_rows
from refinery.runs import load_run

from runs import split_settings

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"
ID_203, ID_1201 = "folio-sample/all/203", "folio-sample/all/1201"
DECIDED_AT = "2026-11-27T09:00:00+00:00"
NOW = dt.datetime.now(dt.UTC)
#: The runs a day apart around `review apply`, whose version is named by the time it runs.
RUN_1, RUN_2, RUN_3 = (new_run_id(NOW + dt.timedelta(days=d)) for d in (-1, 1, 2))


def _settings(split: Path, run_id: str, source: Path = SAMPLE) -> RefineSettings:
    return split_settings(split, run_id, source)


def _decide(queue: Path) -> None:
    """Ann relabels 203 False and 1201 Uncertain, in the queue file, as a spreadsheet would."""
    labels = {ID_203: "False", ID_1201: "Uncertain"}
    rows = [
        row.replace(
            decision="relabel",
            final_label=labels[row.id],
            reviewer="ann",
            note="read again",
            decided_at=DECIDED_AT,
        )
        if row.id in labels
        else row
        for row in read_queue(queue)
    ]
    write_rows(queue, rows)


@pytest.fixture(scope="module")
def scheduled(prefect_harness: None, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run 1, the decisions and `review apply`, then the next scheduled run (run 2)."""
    from flows.refine import refine_flow

    split = tmp_path_factory.mktemp("refined") / "folio-sample" / "all"
    first = refine_flow(_settings(split, RUN_1), return_state=True)
    queue = split.parent / "review.csv"
    _decide(queue)
    assert main(["review", "apply", "--queue", str(queue), "--run", str(split / RUN_1)]) == 0
    second = refine_flow(_settings(split, RUN_2), return_state=True)
    return {"split": split, "queue": queue, "first": first, "second": second}


def test_the_next_scheduled_run_keeps_every_decision(scheduled: dict[str, Any]) -> None:
    assert scheduled["first"].is_completed() and scheduled["second"].is_completed()
    summary = scheduled["second"].result()
    assert summary["decisions"] == {"carried": [ID_203, ID_1201], "second_look": [], "refused": []}
    run = load_run(scheduled["split"] / RUN_2)
    assert run.meta["kind"] == "refine"
    by_id = {o.id: o for o in run.outcomes}
    for item_id, label in ((ID_203, "False"), (ID_1201, "Uncertain")):
        outcome = by_id[item_id]
        assert (outcome.status.value, outcome.label, outcome.reviewer) == ("reviewed", label, "ann")
        assert outcome.reviewed_at == DECIDED_AT  # the decision's time: the same on every run
    rows = {r["id"]: r for r in run.refined_rows()}
    assert (rows[ID_203]["label"], rows[ID_203]["original_label"]) == ("False", "True")
    # compared with the review version before it, nothing the reviewers decided moved back
    changes = summary["changes"]
    assert changes["carried"] == [ID_203, ID_1201]
    assert not any(c["id"] in (ID_203, ID_1201) for c in changes["changed"])
    md = (run.path / "changes.md").read_text(encoding="utf-8")
    assert "Review decisions carried over from the queue: 2" in md
    # the queue still holds both decisions, unflagged
    queued = {r.id: r for r in read_queue(scheduled["queue"])}
    assert queued[ID_203].decision == "relabel" and queued[ID_203].flag == ""


def test_publish_keeps_the_decisions_and_refuses_a_run_without_them(
    scheduled: dict[str, Any], tmp_path: Path
) -> None:
    newest = load_run(scheduled["split"] / RUN_2)
    built = publish.build(newest, tmp_path / "pub", repo_id="fol-refinery/sample")
    published = {r["id"]: r for r in publish.read_split(built.folder, built.split)}
    assert (published[ID_203]["label"], published[ID_1201]["label"]) == ("False", "Uncertain")
    before_review = load_run(scheduled["split"] / RUN_1)
    with pytest.raises(RefineryError, match=r"lacks 2 review decision\(s\) its queue holds"):
        publish.build(before_review, tmp_path / "old", repo_id="fol-refinery/sample")
    forced = publish.build(
        before_review, tmp_path / "old", repo_id="fol-refinery/sample", allow_missing_decisions=True
    )
    old = {r["id"]: r for r in publish.read_split(forced.folder, forced.split)}
    assert old[ID_203]["label"] == "True"


def test_an_item_changed_after_its_decision_is_flagged_not_carried(
    scheduled: dict[str, Any], tmp_path: Path
) -> None:
    from flows.refine import refine_flow

    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row["example_id"] == 1201:
            row["conclusion"] = row["conclusion"].rstrip(".") + ", as the field guide says."
    source = tmp_path / "folio_sample.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    state = refine_flow(_settings(scheduled["split"], RUN_3, source), return_state=True)
    summary = state.result()
    assert summary["decisions"] == {"carried": [ID_203], "second_look": [ID_1201], "refused": []}
    by_id = {o.id: o for o in load_run(scheduled["split"] / RUN_3).outcomes}
    assert by_id[ID_1201].status.value == "needs_review" and by_id[ID_1201].label == "True"
    assert by_id[ID_203].status.value == "reviewed"
    queued = {r.id: r for r in read_queue(scheduled["queue"])}
    assert CHANGED_SINCE_DECISION in queued[ID_1201].flag and queued[ID_1201].decision == "relabel"
    md = (scheduled["split"] / RUN_3 / "changes.md").read_text(encoding="utf-8")
    assert "## Decided on content that changed since (flagged in the queue)" in md
    assert f"- {ID_1201}" in md


def test_a_decision_that_fails_its_checks_is_refused_and_never_half_applied(
    sample_run: Path, tmp_path: Path
) -> None:
    from refinery.prove.verdict import Budget
    from refinery.review.apply import carry_decisions
    from refinery.review.feedback import FeedbackEngine
    from vampire.registry import build_provers

    queue = tmp_path / "review.csv"
    rows = read_queue(sample_run.parents[2] / "review.csv")
    broken = "Bird(kiwi) ∧ ¬Fly(kiwi"  # the reviewer's edit lost a parenthesis
    write_rows(
        queue,
        [
            r.replace(decision="edit", final_fol=broken, reviewer="ann") if r.id == ID_1201 else r
            for r in rows
        ],
    )
    run = load_run(sample_run)
    started: list[bool] = []

    def engine() -> FeedbackEngine:
        started.append(True)
        return FeedbackEngine(build_provers(["z3"]), Budget(seconds=5))

    outcomes, refined, carried = carry_decisions(queue, run.outcomes, run.refined_rows(), engine)
    assert carried.carried == () and carried.second_look == ()
    assert len(carried.refused) == 1 and carried.refused[0].startswith(f"{ID_1201}: ")
    assert started == [True]
    assert outcomes == list(run.outcomes) and refined == run.refined_rows()
    # nothing decided: the provers are never started
    write_rows(queue, rows)
    assert carry_decisions(queue, run.outcomes, run.refined_rows(), engine)[2].to_dict() == {
        "carried": [],
        "second_look": [],
        "refused": [],
    }
    assert started == [True]
    # a decision no tool stamped carries the same way on every run: nothing depends on the clock
    write_rows(
        queue,
        [
            r.replace(decision="relabel", final_label="Uncertain", note="no bird here flies")
            if r.id == ID_1201
            else r
            for r in rows
        ],
    )
    first = carry_decisions(queue, run.outcomes, run.refined_rows(), engine)
    again = carry_decisions(queue, run.outcomes, run.refined_rows(), engine)
    assert first[2].carried == (ID_1201,) and first == again
    assert {o.id: o.reviewed_at for o in first[0]}[ID_1201] == ""
