"""Run folders are never shared, never half-written, and a leftover is never taken for a run.

Two Refine runs started in the same second get their own ids and folders; a run killed before
its report leaves only a hidden staging folder, which the next run's baseline, the run history,
`publish` and `rescore` skip or refuse; a run that finishes still works end to end.
"""

from __future__ import annotations

import datetime as dt
import errno
import json
from pathlib import Path

import pytest

from refinery import pipeline, publish, runs
from refinery.cli import main
from refinery.errors import RefineryError
from refinery.pipeline import RefineSettings, refine_here
from refinery.publish.rescore import load_against
from refinery.report import run_history
from refinery.review.sheet import read_queue
from vampire.registry import build_provers

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"
SPLIT = ("folio-sample", "all")
SECOND = dt.datetime(2026, 11, 22, 1, 15, 30, tzinfo=dt.UTC)


def settings(tmp_path: Path, run_id: str, out_dir: str | None = None) -> RefineSettings:
    """A rules-only run of the shipped sample under `tmp_path/runs`, caches in `tmp_path/state`."""
    return RefineSettings(
        source=str(SAMPLE),
        runs_dir=str(tmp_path / "runs"),
        review_path=str(tmp_path / "review.csv"),
        agents=("rules",),
        workers=2,
        state_dir=str(tmp_path / "state"),
        run_id=run_id,
        out_dir=out_dir,
    )


def split_dir(tmp_path: Path) -> Path:
    return tmp_path.joinpath("runs", *SPLIT)


def test_run_ids_started_in_the_same_second_differ_and_still_sort_by_time() -> None:
    ids = [pipeline.new_run_id(SECOND) for _ in range(200)]
    assert len(set(ids)) == 200
    assert all(
        i.startswith("20261122-011530-") and len(i) == len("20261122-011530-3f9a") for i in ids
    )
    later = pipeline.new_run_id(SECOND + dt.timedelta(seconds=1))
    assert all(i < later for i in ids)
    assert pipeline.new_run_id(SECOND - dt.timedelta(seconds=1)) < min(ids)


def test_two_runs_of_one_second_keep_their_own_folders(tmp_path: Path) -> None:
    first_id, second_id = sorted([pipeline.new_run_id(SECOND), pipeline.new_run_id(SECOND)])
    first, _ = refine_here(settings(tmp_path, first_id), build_provers)
    second, _ = refine_here(settings(tmp_path, second_id), build_provers)
    split = split_dir(tmp_path)
    assert sorted(p.name for p in split.iterdir()) == sorted([first_id, second_id])
    for summary, run_id in ((first, first_id), (second, second_id)):
        assert summary["out_dir"] == str(split / run_id)
        run = runs.load_run(split / run_id)
        assert run.run_id == run_id and len(run.outcomes) == 18
        assert {r["run_id"] for r in run.refined_rows()} == {run_id}
        # the summary names the files where they are now, not where they were built
        assert all(Path(f).is_file() for f in summary["files"].values())
        assert all(Path(f).parent == split / run_id for f in summary["files"].values())
    # the second compares with the first: same second, told apart by the suffix
    assert first["changes"]["first_run"]
    assert second["changes"]["previous_run_id"] == first_id


def test_a_folder_that_holds_a_run_is_never_written_into(tmp_path: Path) -> None:
    taken = split_dir(tmp_path) / "mine"
    refine_here(settings(tmp_path, "20260101-000000-aaaa", out_dir=str(taken)), build_provers)
    before = {p.name: p.read_bytes() for p in taken.iterdir()}
    again = settings(tmp_path, "20260101-000001-bbbb", out_dir=str(taken))
    with pytest.raises(RefineryError, match=r"mine already holds run 20260101-000000-aaaa") as err:
        refine_here(again, build_provers)
    assert "\n" not in str(err.value)
    assert {p.name: p.read_bytes() for p in taken.iterdir()} == before
    assert sorted(p.name for p in taken.parent.iterdir()) == ["mine"]  # no staging left either
    # a folder with someone else's files is refused the same way
    other = tmp_path / "notes"
    other.mkdir()
    (other / "todo.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(RefineryError, match="notes already exists and is not an empty folder"):
        refine_here(settings(tmp_path, "20260101-000002-cccc", out_dir=str(other)), build_provers)
    assert [p.name for p in other.iterdir()] == ["todo.txt"]


def test_two_runs_cannot_claim_one_folder(tmp_path: Path) -> None:
    final = tmp_path / "split" / "20261122-011530-3f9a"
    staging = runs.claim(final)
    assert staging == tmp_path / "split" / ".20261122-011530-3f9a.partial" and staging.is_dir()
    with pytest.raises(RefineryError, match="is being written by another run"):
        runs.claim(final)
    runs.write_meta(staging, {"run_id": final.name, "kind": "refine"})
    # another run's folder appears under the same name meanwhile: the rename refuses to replace it
    runs.write_meta(final, {"run_id": "other", "kind": "refine"})
    with pytest.raises(RefineryError, match="complete files are in .*3f9a.partial"):
        runs.finish(final)
    assert json.loads((final / runs.RUN_FILE).read_text(encoding="utf-8"))["run_id"] == "other"
    assert json.loads((staging / runs.RUN_FILE).read_text(encoding="utf-8"))["run_id"] == final.name


def test_a_failed_build_removes_only_the_staging_folder_it_claimed(tmp_path: Path) -> None:
    final = tmp_path / "split" / "20261122-011530-aaaa"
    with pytest.raises(ValueError, match="a step failed"), runs.building(final) as staging:
        runs.write_meta(staging, {"run_id": final.name, "kind": "refine"})
        raise ValueError("a step failed")
    assert list((tmp_path / "split").iterdir()) == []  # nothing left, so the name is free again
    with runs.building(final) as staging:
        # a second build of the same folder cannot claim it, and leaves the first one's alone
        with (
            pytest.raises(RefineryError, match="being written by another run"),
            runs.building(final),
        ):
            pass  # pragma: no cover
        assert staging.is_dir()
        # a rename that fails (a folder appeared) keeps the complete files its error names
        runs.write_meta(final, {"run_id": "other", "kind": "refine"})
        with pytest.raises(RefineryError, match="complete files are in"):
            runs.finish(final)
    assert staging.is_dir()


class Killed(RuntimeError):
    """Stands for the process dying while the report is written."""


def test_a_run_killed_before_its_report_is_no_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    split = split_dir(tmp_path)
    done, _ = refine_here(settings(tmp_path, "20260101-000000-aaaa"), build_provers)
    assert done["changes"]["first_run"]

    def die(*args: object, **kwargs: object) -> None:
        raise Killed("killed while writing the report")

    with monkeypatch.context() as m:
        m.setattr("refinery.report.write_report", die)
        # a killed process cleans nothing up: its staging folder stays behind (`runs.building`)
        m.setattr("refinery.runs.folder.shutil.rmtree", lambda *args, **kwargs: None)
        with pytest.raises(Killed):
            refine_here(settings(tmp_path, "20260102-000000-bbbb"), build_provers)
    killed = split / "20260102-000000-bbbb"
    leftover = split / ".20260102-000000-bbbb.partial"
    assert not killed.exists()
    # the outputs were written before the kill, into the staging folder only
    assert (leftover / runs.RUN_FILE).is_file() and (leftover / "refined.jsonl").is_file()
    assert not (leftover / "report.md").exists()

    with pytest.warns(runs.IncompleteRunWarning, match=r"\.20260102-000000-bbbb\.partial"):
        assert [p.name for p in runs.run_folders(split)] == ["20260101-000000-aaaa"]
    with pytest.warns(runs.IncompleteRunWarning, match="left by a killed run"):
        history = run_history(split / "20260103-000000-cccc")
    assert [h["run_id"] for h in history] == ["20260101-000000-aaaa"]

    # the next run compares with the complete run, not with the leftover
    with pytest.warns(runs.IncompleteRunWarning, match=r"\.20260102-000000-bbbb\.partial"):
        nxt, _ = refine_here(settings(tmp_path, "20260103-000000-cccc"), build_provers)
    assert nxt["changes"]["previous_run_id"] == "20260101-000000-aaaa"
    assert nxt["changes"]["no_changes"]
    with pytest.warns(runs.IncompleteRunWarning):
        assert [p.name for p in runs.run_folders(split)] == [
            "20260101-000000-aaaa",
            "20260103-000000-cccc",
        ]

    # publish and rescore refuse the leftover and the name it never got, with one clear line
    with pytest.raises(RefineryError, match="unfinished run") as err:
        runs.load_run(leftover)
    assert "\n" not in str(err.value)
    with pytest.raises(RefineryError, match=r"missing run\.json.*\.partial is an unfinished run"):
        runs.load_run(killed)
    with pytest.raises(RefineryError, match="unfinished run"):
        load_against(str(leftover))
    meta = json.loads((leftover / runs.RUN_FILE).read_text(encoding="utf-8"))
    by_hand = runs.Run(path=leftover, meta=meta, outcomes=[])
    out = tmp_path / "pub"
    with pytest.raises(RefineryError, match="not a complete run .*nothing published"):
        publish.build(by_hand, out, repo_id="someone/folio-sample")
    assert not out.exists()


def test_a_complete_run_publishes(tmp_path: Path) -> None:
    summary, failure = refine_here(settings(tmp_path, "20260101-000000-aaaa"), build_provers)
    assert failure is None
    run_dir = Path(summary["out_dir"])
    assert sorted(p.name for p in run_dir.parent.iterdir()) == ["20260101-000000-aaaa"]
    for name in ("run.json", "outcomes.jsonl", "refined.jsonl", "report.md", "changes.json"):
        assert (run_dir / name).is_file(), name
    run = runs.load_run(run_dir)
    assert run.meta["counts"] == summary["counts"] and "report_meta" in run.meta
    built = publish.build(run, tmp_path / "pub", repo_id="someone/folio-sample")
    assert built.manifest["splits"]["train"]["run_id"] == "20260101-000000-aaaa"


def test_a_run_that_fails_on_a_full_disk_leaves_the_queue_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    queue = tmp_path / "review.csv"

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "report.html"))

    with monkeypatch.context() as m:
        m.setattr("refinery.report.write_report", full)
        with pytest.raises(OSError, match="No space left"):
            refine_here(settings(tmp_path, "20260101-000000-aaaa"), build_provers)
    assert not queue.exists()  # the failed run never reached the queue

    refine_here(settings(tmp_path, "20260102-000000-bbbb"), build_provers)
    before = queue.read_bytes()
    assert len(read_queue(queue)) == 4  # the sample's four items for review
    with monkeypatch.context() as m:
        m.setattr("refinery.report.write_report", full)
        monkeypatch.chdir(tmp_path)
        argv = ["refine", str(SAMPLE), "--no-prefect", "--agents=rules", f"--review={queue}"]
        assert main([*argv, "--out", str(tmp_path / "full")]) == 2
    # one line, naming the file the disk refused (after the progress lines)
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"refinery: error: the file system refused {tmp_path / 'report.html'}: No space left on "
        "device; no file was half-written"
    )
    assert queue.read_bytes() == before
    assert not (tmp_path / "full").exists()
