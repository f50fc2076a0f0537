"""A background fact the sentences take for granted, from the search to the release: the queue
shows it with the proof that reaches the gold label, `a` accepts it, `review apply` keeps it in
its own column (never in the premises), and the published split loads with it."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import datasets
import pytest
from commands import run as refinery
from fastapi.testclient import TestClient

from refinery import publish
from refinery.cli import main
from refinery.prove.verdict import Budget
from refinery.review.decide import resolve
from refinery.review.feedback import FeedbackEngine
from refinery.review.queue import QueueRow, row_hash
from refinery.review.record import decision_version, save_decision
from refinery.review.sheet import read_queue
from refinery.review.web.actions import Actions
from refinery.review.web.app import create_app
from refinery.runs import load_run, run_folders
from vampire.registry import build_provers

from runs import make_run

PREMISES = ["All cars have wheels.", "Rex is a red car.", "Tim is a bike."]
PREMISES_FOL = ["∀x (Car(x) → HasWheels(x))", "RedCar(rex)", "Bike(tim)"]
FACT = "∀x (RedCar(x) → Car(x))"
ITEM = "cars/all/1"


@pytest.fixture(scope="module")
def background_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rules-only run of one story whose conclusion needs "a red car is a car"."""
    base = tmp_path_factory.mktemp("background")
    source = base / "cars.jsonl"
    rows = [
        {
            "story_id": 1,
            "premises": "\n".join(PREMISES),
            "premises-FOL": "\n".join(PREMISES_FOL),
            "conclusion": conclusion,
            "conclusion-FOL": fol,
            "label": label,
            "example_id": n,
        }
        for n, conclusion, fol, label in (
            (1, "Rex has wheels.", "HasWheels(rex)", "True"),
            (2, "Tim is a bike.", "Bike(tim)", "True"),
        )
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = base / "cars" / "all" / "20260101-000000"
    make_run(out, source=source, review_path=base / "review.csv", run_id=out.name)
    return out


def _queue_copy(background_run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "review.csv"
    copy.write_bytes((background_run.parent.parent.parent / "review.csv").read_bytes())
    return copy


def test_the_queue_shows_the_fact_and_the_proof_that_uses_it(background_run: Path) -> None:
    (row,) = read_queue(background_run.parent.parent.parent / "review.csv")
    assert (row.id, row.cause, row.background_fol) == (ITEM, "knowledge", FACT)
    assert row.proposed_fol == "" and row.suggested_label == ""
    # the proof names the fact by its own address, not as a premise of the item
    assert "proves the conclusion: premises[0], premises[1], background[0]" in row.cause_evidence
    outcome = next(o for o in load_run(background_run).outcomes if o.id == ITEM)
    assert outcome.refined_premises_fol == tuple(PREMISES_FOL)  # never merged
    assert outcome.refined_background_fol == ()  # nobody accepted it yet


def test_a_row_without_background_keeps_the_hash_an_earlier_version_gave_it() -> None:
    cells = {"id": "d/s/1", "gold_label": "True", "original_fol": "P(a)\nP(a)"}
    # the hash the version before the column (e18c7cb) gave this row: its queues stay valid
    assert row_hash(cells) == "0d369e347d282c76"
    assert row_hash({**cells, "background_fol": ""}) == "0d369e347d282c76"
    assert row_hash({**cells, "background_fol": FACT}) != row_hash(cells)


def test_accepting_only_background_is_a_proposal_to_accept() -> None:
    row = QueueRow(
        id="d/s/1",
        original_fol="RedCar(rex)\nHasWheels(rex)",
        background_fol=FACT,
        gold_label="True",
        decision="accept_proposal",
    )
    resolved = resolve(row)
    assert not isinstance(resolved, str)
    assert resolved.background_fol == (FACT,) and not resolved.fol_changed
    assert resolve(row.replace(background_fol="")) == (
        "accept_proposal, but nothing was proposed for this item"
    )


def test_accepted_background_is_its_own_column_through_apply_and_publish(
    background_run: Path, tmp_path: Path, offline: Path
) -> None:
    copy = _queue_copy(background_run, tmp_path)
    save_decision(copy, ITEM, {"decision": "accept_proposal", "reviewer": "ann"})
    assert main(["review", "check", "--queue", str(copy), "--run", str(background_run)]) == 0
    assert main(["review", "apply", "--queue", str(copy), "--run", str(background_run)]) == 0
    newest = run_folders(background_run.parent)[-1]
    run = load_run(newest)
    rows = {r["id"]: r for r in run.refined_rows()}
    accepted = rows[ITEM]
    assert accepted["status"] == "reviewed" and accepted["background-FOL"] == FACT
    assert accepted["premises-FOL"] == "\n".join(PREMISES_FOL)  # the premises are untouched
    assert accepted["prover_label"] == "True"  # with the fact, the provers prove the gold label
    assert rows["cars/all/2"]["background-FOL"] == ""
    audit = [json.loads(line) for line in (newest / "audit.jsonl").read_text().splitlines()]
    (entry,) = [a for a in audit if a["id"] == ITEM]
    assert [(e["where"], e["before"], e["after"]) for e in entry["edits"]] == [
        ("background[0]", "", FACT)
    ]
    assert f"background facts accepted (kept apart from the premises): `{FACT}`" in (
        newest / "report.md"
    ).read_text(encoding="utf-8")

    built = publish.build(
        run, tmp_path / "pub", repo_id="t/cars", now=dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    )
    loaded = datasets.load_dataset(str(built.folder), cache_dir=str(offline))
    by_id = {r["id"]: r for r in loaded["train"]}
    assert by_id[ITEM]["background-FOL"] == FACT and by_id["cars/all/2"]["background-FOL"] == ""
    changes = datasets.load_dataset(str(built.folder), "changes", cache_dir=str(offline))
    assert [(c["field"], c["before"], c["after"]) for c in changes["train"]] == [
        ("background-FOL[0]", None, FACT)
    ]
    card = (built.folder / "README.md").read_text(encoding="utf-8")
    assert "- `background-FOL` (string): background facts a reviewer accepted" in card


@pytest.mark.prover
def test_the_page_shows_the_fact_and_a_accepts_it(background_run: Path, tmp_path: Path) -> None:
    queue = _queue_copy(background_run, tmp_path)
    engine = FeedbackEngine(build_provers(["z3", "eprover"]), Budget(seconds=5), None)
    page = TestClient(create_app(queue, engine, reviewer="ann"), base_url="http://127.0.0.1:1")
    html = page.get("/").text
    assert (
        '<ul id="background" class="background"><li><span class="k">background[0]</span> <code>∀x (RedCar(x) → Car(x))'
        in html
    )
    assert '<button data-key="a" >' in html or '<button data-key="a">' in html  # enabled
    (row,) = read_queue(queue)
    status, reply = Actions(queue, engine, "ann").decide(
        ITEM,
        "accept_proposal",
        fol=[],
        label="",
        note="",
        reviewer="",
        seen=decision_version(row),
        confirm="",
    )
    assert (status, reply["status"]) == (200, "saved")
    (saved,) = read_queue(queue)
    assert (saved.decision, saved.final_label, saved.final_fol) == ("accept_proposal", "", "")


def test_the_terminal_shows_the_fact_and_a_accepts_it(background_run: Path, tmp_path: Path) -> None:
    queue = _queue_copy(background_run, tmp_path)
    done = refinery(
        "review", "work", "--queue", str(queue), "--reviewer", "bob", cwd=tmp_path, input="a\n"
    )
    assert done.returncode == 0, done.stderr
    assert (
        "Background facts proposed (a accepts them; kept apart from the premises):" in done.stdout
    )
    assert f"  background[0]: {FACT}" in done.stdout
    (saved,) = read_queue(queue)
    assert (saved.decision, saved.reviewer) == ("accept_proposal", "bob")
