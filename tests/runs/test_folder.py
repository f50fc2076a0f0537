"""Run folders: run.json and outcomes.jsonl are written by Refine and read back whole."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from refinery.errors import RefineryError
from refinery.runs import load_run, previous_run, run_folders, update_meta


def test_a_refine_run_reads_back_whole(sample_run: Path) -> None:
    run = load_run(sample_run)
    assert run.meta["kind"] == "refine" and run.meta["parent"] is None
    assert run.meta["dataset"] == "folio-sample" and run.meta["split"] == "all"
    assert run.meta["counts"] == {"verified": 6, "repaired": 8, "needs_review": 4}
    assert run.meta["settings"]["agents"] == ["rules"]
    assert "input" not in run.meta["validations"]  # the test built it without GX suites
    rows = run.refined_rows()
    assert [o.id for o in run.outcomes] == [r["id"] for r in rows] and len(rows) == 18
    assert all(r["reviewer"] == "" and r["review_decision"] == "" for r in rows)


def test_previous_run_is_the_newest_older_complete_folder(sample_run: Path, tmp_path: Path) -> None:
    base = tmp_path / "split"
    for name in ("20260101-000000", "20260102-000000", "20260103-000000"):
        shutil.copytree(sample_run, base / name)
        update_meta(base / name, run_id=name)
    (base / "20260102-120000").mkdir()  # incomplete: no run.json
    (base / "20260102-130000").mkdir()
    (base / "20260102-130000" / "run.json").write_text("{}", encoding="utf-8")  # no outcomes
    assert [p.name for p in run_folders(base)][-1] == "20260103-000000"
    prev = previous_run(base / "20260103-000000")
    assert prev is not None and prev.run_id == "20260102-000000"
    assert previous_run(base / "20260101-000000") is None


def test_a_folder_that_is_not_a_run_is_refused(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text(json.dumps({"run_id": "x"}), encoding="utf-8")
    with pytest.raises(RefineryError, match="missing outcomes.jsonl, refined.jsonl"):
        load_run(tmp_path)
