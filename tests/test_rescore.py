"""Rescoring predictions: every number checked against a hand count on a reviewed copy of the sample,
against its run folder, its published release (local or from the Hub cache) and the clean subset.

The reviewed copy changes three labels, as a reviewer would:
203 True → False, 901 True → Uncertain, 1101 True → False. Its gold labels are then

    original: True ×15 (101 201 203 301 401 402 501 601 701 801 901 1001 1101 1201 1301),
              False ×1 (103), Uncertain ×2 (102 202)
    refined:  True ×12 (101 201 301 401 402 501 601 701 801 1001 1201 1301),
              False ×3 (103 203 1101), Uncertain ×3 (102 202 901)

and the hand-written predictions (`PREDICTED`) are right or wrong as worked out in each test.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from refinery import publish
from refinery.cli import main
from refinery.errors import DataError, RefineryError
from refinery.labels import Label
from refinery.outcomes import Status
from refinery.publish.rescore import (
    Prediction,
    Predictions,
    Scores,
    Tally,
    read_predictions,
    rescore,
)
from refinery.runs import load_run, update_meta, write_run

PREFIX = "folio-sample/all/"
CHANGED = {"203": "False", "901": "Uncertain", "1101": "False"}

# example_id → the model's answer, mixed case; 301 has no prediction, 401 an unparseable one
PREDICTED = {
    "101": "true",
    "102": "UNCERTAIN",
    "103": "False",
    "201": "True",
    "202": "unknown",  # a documented spelling of Uncertain
    "203": "false",
    "401": "maybe",
    "402": "False",
    "501": "True",
    "601": "True",
    "701": "Uncertain",
    "801": "TRUE",
    "901": "Uncertain",
    "1001": "True",
    "1101": "True",
    "1201": "Uncertain",
    "1301": "True",
}


@pytest.fixture
def reviewed(sample_run: Path, tmp_path: Path) -> Path:
    """A copy of the sample run in which a reviewer changed three labels."""
    run = shutil.copytree(sample_run, tmp_path / "run")
    loaded = load_run(run)
    rows, outcomes = loaded.refined_rows(), list(loaded.outcomes)
    for i, row in enumerate(rows):
        new = CHANGED.get(str(row["example_id"]))
        if new is not None:
            assert row["label"] == "True"
            row.update(label=new, status="reviewed", review_decision="relabel", reviewer="ana")
            outcomes[i] = outcomes[i].replace(
                label=new, status=Status.REVIEWED, review_decision="relabel", reviewer="ana"
            )
    write_run(run, rows, outcomes, loaded.meta)  # as a review round writes it
    return run


def write_csv(path: Path) -> Path:
    """The predictions by id as a spreadsheet would save them: BOM, CRLF, plus three odd rows."""
    lines = ["id,label"] + [f"{PREFIX}{n},{label}" for n, label in PREDICTED.items()]
    lines += [
        f"{PREFIX}9999,True",  # not in the split: reported, not scored
        ",False",  # line 20: no id, counted as unusable
        f"{PREFIX}101,False",  # a second answer for 101: the first one counts
    ]
    path.write_bytes(("\ufeff" + "\r\n".join(lines) + "\r\n").encode("utf-8"))
    return path


def write_jsonl(path: Path) -> Path:
    """The same predictions keyed by example_id (a JSON number), one object per line."""
    records = [{"example_id": int(n), "label": label} for n, label in PREDICTED.items()]
    records.append({"example_id": 9999, "label": "True"})
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def assert_hand_counts(scores: Scores) -> None:
    """The numbers for `PREDICTED` on the reviewed sample, counted by hand."""
    assert scores.items == 18
    # original True (15): right 101 201 501 601 801 1001 1101 1301 = 8; wrong 203 (F) 402 (F)
    # 701 (U) 901 (U) 1201 (U); missing 301; unparseable 401 → 8/15
    assert scores.original["True"] == Tally(items=15, correct=8, unparseable=1, missing=1)
    assert scores.original["False"] == Tally(items=1, correct=1)  # 103
    assert scores.original["Uncertain"] == Tally(items=2, correct=2)  # 102, 202 ("unknown")
    # all: 8 + 1 + 2 = 11 of 18
    assert scores.original["all"] == Tally(items=18, correct=11, unparseable=1, missing=1)
    assert scores.original["all"].accuracy == 11 / 18
    # refined True (12): right 101 201 501 601 801 1001 1301 = 7; wrong 402 701 1201;
    # missing 301; unparseable 401 → 7/12
    assert scores.refined["True"] == Tally(items=12, correct=7, unparseable=1, missing=1)
    # refined False (3): right 103 203; wrong 1101 (predicted True) → 2/3
    assert scores.refined["False"] == Tally(items=3, correct=2)
    # refined Uncertain (3): 102 202 901 all right → 3/3
    assert scores.refined["Uncertain"] == Tally(items=3, correct=3)
    # all: 7 + 2 + 3 = 12 of 18
    assert scores.refined["all"] == Tally(items=18, correct=12, unparseable=1, missing=1)
    assert scores.refined["all"].accuracy == 12 / 18
    # changed items 203 901 1101: original labels T T T, predicted F U T → 1/3;
    # refined labels F U F → 2/3. The +1 overall (12 − 11) is exactly 2 − 1 here.
    assert scores.changed == 3
    assert scores.changed_original == Tally(items=3, correct=1)
    assert scores.changed_refined == Tally(items=3, correct=2)
    assert scores.unlabeled == 0


def test_csv_with_bom_scores_as_counted_by_hand(reviewed: Path, tmp_path: Path) -> None:
    predictions = read_predictions(write_csv(tmp_path / "preds.csv"))
    assert predictions.key == "id"  # the BOM did not glue itself to the first column name
    assert predictions.bad_rows == ("line 20: no id",)  # header + 17 + unknown = 19 lines before
    scores = rescore(predictions, load_run(reviewed).refined_rows())
    assert_hand_counts(scores)
    assert scores.unparseable_ids == (f"{PREFIX}401",)
    assert scores.missing_ids == (f"{PREFIX}301",)
    assert scores.unknown_ids == (f"{PREFIX}9999",)
    assert scores.duplicate_ids == (f"{PREFIX}101",)


def test_jsonl_keyed_by_example_id_scores_the_same(reviewed: Path, tmp_path: Path) -> None:
    predictions = read_predictions(write_jsonl(tmp_path / "preds.jsonl"))
    assert predictions.key == "example_id" and predictions.bad_rows == ()
    scores = rescore(predictions, load_run(reviewed).refined_rows())
    assert_hand_counts(scores)
    assert (scores.unparseable_ids, scores.missing_ids, scores.unknown_ids) == (
        ("401",),
        ("301",),
        ("9999",),
    )
    assert scores.duplicate_ids == ()


def test_label_spellings_and_unusable_rows(tmp_path: Path) -> None:
    rows = [
        {"id": f"d/s/{n}", "example_id": n, "label": gold, "original_label": gold}
        for n, gold in enumerate(["True", "False", "Uncertain", "True", "True", "True"])
    ]
    path = tmp_path / "preds.jsonl"
    path.write_text(
        "\n".join(
            [
                '{"id": "d/s/0", "label": true}',  # JSON booleans are True / False
                '{"id": "d/s/1", "label": " false "}',
                "",  # blank lines are skipped
                '{"id": "d/s/2", "label": "Unknown"}',
                '{"id": "d/s/3", "label": "Inconsistent"}',  # not a gold label: unparseable
                '{"id": "d/s/4", "label": null}',
                '{"id": "d/s/5"}',  # no label at all: unparseable too
                '{"id": "  ", "label": "True"}',  # line 8
                '{"example_id": 3, "label": "True"}',  # line 9: this file keys by id
            ]
        ),
        encoding="utf-8",
    )
    predictions = read_predictions(path)
    assert predictions.bad_rows == ("line 8: no id", "line 9: no id")
    assert [p.label for p in predictions.items] == [
        Label.TRUE,
        Label.FALSE,
        Label.UNCERTAIN,
        None,
        None,
        None,
    ]
    scores = rescore(predictions, rows)
    # right: 0 1 2; unparseable: 3 4 5 → 3 of 6, nothing missing or changed
    assert scores.original["all"] == Tally(items=6, correct=3, unparseable=3)
    assert scores.refined["all"] == scores.original["all"]
    assert scores.unparseable_ids == ("d/s/3", "d/s/4", "d/s/5")
    assert scores.changed == 0 and scores.changed_refined == Tally()
    assert scores.changed_refined.accuracy is None


def test_unlabelled_items_are_left_out_of_that_side_only() -> None:
    rows = [
        {"id": "a", "example_id": 1, "original_label": None, "label": "True"},  # labelled in review
        {"id": "b", "example_id": 2, "original_label": "False", "label": "False"},
    ]
    predictions = Predictions(
        key="id", items=(Prediction("a", Label.TRUE, "True", 2), Prediction("b", None, "?", 3))
    )
    scores = rescore(predictions, rows)
    assert scores.unlabeled == 1 and scores.changed == 1
    assert scores.original["all"] == Tally(items=1, correct=0, unparseable=1)  # b only
    assert scores.refined["all"] == Tally(items=2, correct=1, unparseable=1)  # a right, b not
    assert scores.changed_original == Tally() and scores.changed_refined == Tally(1, 1)


def test_example_ids_repeated_in_the_split_are_refused() -> None:
    rows = [
        {"id": "d/a/7", "example_id": 7, "label": "True", "original_label": "True"},
        {"id": "d/b/7", "example_id": 7, "label": "True", "original_label": "True"},
    ]
    predictions = Predictions(key="example_id", items=(Prediction("7", Label.TRUE, "True", 2),))
    with pytest.raises(RefineryError, match="example_id '7' appears 2 times"):
        rescore(predictions, rows)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("p.jsonl", '{"id": "a", "label": "True"}\n{"id": "b", "label": \n', r"p\.jsonl:2: not valid JSON"),
        ("p.jsonl", '{"id": "a", "label": "True"}\n["b", "True"]\n', r"p\.jsonl:2: expected a JSON object, got list"),
        ("p.jsonl", '{"key": "a", "label": "True"}\n', r"p\.jsonl: no row has an id or example_id \(found: key, label\)"),
        ("p.jsonl", '{"id": "a", "answer": "True"}\n', r"p\.jsonl: no row has a label \(found: answer, id\)"),
        ("p.jsonl", "\n\n", r"p\.jsonl: no predictions"),
        ("p.csv", "id,answer\na,True\n", r"p\.csv:1: header has no label column \(columns: id, answer\)"),
        ("p.csv", "item,label\na,True\n", r"p\.csv:1: header has no id \(or example_id\) column"),
        ("p.csv", "", r"p\.csv: empty file"),
        ("p.csv", "id,label\n", r"p\.csv: no predictions"),
        ("p.json", "[]", r"p\.json: predictions must be a \.csv or \.jsonl file"),
    ],
)  # fmt: skip
def test_malformed_files_name_the_file_and_line(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=message):
        read_predictions(path)


def test_a_missing_or_binary_file_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        read_predictions(tmp_path / "absent.csv")
    (tmp_path / "latin1.csv").write_bytes("id,label\nä,True\n".encode("latin-1"))
    with pytest.raises(DataError, match="not UTF-8"):
        read_predictions(tmp_path / "latin1.csv")


TABLE = """\
                original labels          refined labels
gold label      items  correct      acc  items  correct      acc
True               15        8    53.3%     12        7    58.3%
False               1        1   100.0%      3        2    66.7%
Uncertain           2        2   100.0%      3        3   100.0%
all                18       11    61.1%     18       12    66.7%
labels changed      3        1    33.3%      3        2    66.7%

unparseable predictions      1  counted wrong: folio-sample/all/401
missing predictions          1  counted wrong: folio-sample/all/301
unknown ids                  1  not scored: folio-sample/all/9999
duplicate predictions        1  first one counted: folio-sample/all/101
unusable rows                1  not scored: line 20: no id"""


def test_cli_prints_the_table_and_writes_json(
    reviewed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = write_csv(tmp_path / "preds.csv")
    out = tmp_path / "scores" / "rescore.json"
    code = main(["rescore", str(preds), "--against", str(reviewed), "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    # 8/15 = 53.3%, 7/12 = 58.3%, 2/3 = 66.7%, 11/18 = 61.1%
    assert TABLE in printed
    assert printed.startswith(
        f"{preds}: 19 predictions against run 20260101-000000: 18 items, "
        "3 labels changed by review\n"
    )
    assert printed.rstrip().endswith(f"wrote {out}")
    report = json.loads(out.read_text(encoding="utf-8"))
    assert (report["run_id"], report["key"], report["items"], report["changed"]) == (
        "20260101-000000",
        "id",
        18,
        3,
    )
    assert report["original"]["all"] == {
        "items": 18,
        "correct": 11,
        "accuracy": 11 / 18,
        "unparseable": 1,
        "missing": 1,
    }
    assert report["refined"]["False"]["correct"] == 2
    assert report["changed_refined"]["accuracy"] == pytest.approx(2 / 3)
    assert (report["unparseable"], report["missing"], report["unknown"]) == (1, 1, 1)
    assert report["unknown_ids"] == [f"{PREFIX}9999"]
    assert report["bad_rows"] == ["line 20: no id"]


def test_cli_errors_are_reported_not_raised(
    reviewed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "preds.jsonl"
    bad.write_text('{"id": "x", "label": "True"}\nnot json\n', encoding="utf-8")
    assert main(["rescore", str(bad), "--against", str(reviewed)]) == 2
    assert f"refinery: error: {bad}:2: not valid JSON" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["rescore", str(bad), "--against", str(empty)]) == 2
    assert "is not a run folder" in capsys.readouterr().err


# --- against a release: a published folder, a Hub download, the clean subset ---------------------

REPO_ID = "fol-refinery/folio-sample-refined"
NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


@pytest.fixture
def released(reviewed: Path, tmp_path: Path) -> Path:
    """The reviewed run published, as `refinery publish` builds it (split `all` → `train`)."""
    return publish.build(load_run(reviewed), tmp_path / "pub", repo_id=REPO_ID, now=NOW).folder


@pytest.fixture
def hub_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty Hugging Face cache, offline: nothing reaches the network or the user's cache."""
    from huggingface_hub import constants

    cache = tmp_path / "hf-cache"
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    # huggingface_hub reads both at import; the download reads these module constants
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    return cache


def _cache_release(cache: Path, folder: Path) -> None:
    """Put a published folder in the Hub cache as a finished download of REPO_ID leaves it."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = cache / ("datasets--" + REPO_ID.replace("/", "--"))
    snapshot = repo / "snapshots" / commit
    for name in ("README.md", "publish.json", "refined/train.parquet"):
        (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / name, snapshot / name)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit, encoding="utf-8")


def test_a_published_folder_scores_as_its_run(
    reviewed: Path, released: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = write_csv(tmp_path / "preds.csv")
    assert main(["rescore", str(preds), "--against", str(reviewed)]) == 0
    from_run = capsys.readouterr().out
    assert main(["rescore", str(preds), "--against", str(released)]) == 0
    from_release = capsys.readouterr().out
    assert TABLE in from_release
    # the same scores, line by line; only the first line (what was scored against) differs
    assert from_release.split("\n", 1)[1] == from_run.split("\n", 1)[1]
    assert from_release.startswith(
        f"{preds}: 19 predictions against {REPO_ID} v1 split train (run 20260101-000000): "
        "18 items, 3 labels changed by review\n"
    )
    out = tmp_path / "scores.json"
    assert main(["rescore", str(preds), "--against", str(released), "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert (report["source"], report["split"], report["subset"]) == ("published", "train", "all")
    assert (report["items"], report["split_items"], report["outside"]) == (18, 18, 0)
    assert report["refined"]["all"]["correct"] == 12 and report["original"]["all"]["correct"] == 11


def test_a_splits_folder_of_runs_scores_against_its_newest_run(
    sample_run: Path, reviewed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    split = tmp_path / "runs" / "folio-sample" / "all"
    shutil.copytree(sample_run, split / "20250101-000000-aaaa")  # older, unreviewed
    shutil.copytree(reviewed, split / "20260101-000000-bbbb")  # newer: what review apply picks
    preds = write_csv(tmp_path / "preds.csv")
    assert main(["rescore", str(preds), "--against", str(reviewed)]) == 0
    from_run = capsys.readouterr().out
    assert main(["rescore", str(preds), "--against", str(split)]) == 0
    from_split = capsys.readouterr().out
    # the newest run's scores, and the first line says which run was picked
    assert from_split.split("\n", 1)[1] == from_run.split("\n", 1)[1]
    assert f"(the newest run in {split})" in from_split.split("\n", 1)[0]
    # a folder with neither runs nor a release is refused in one line
    assert main(["rescore", str(preds), "--against", str(tmp_path / "runs")]) == 2
    assert "a split's folder of runs" in capsys.readouterr().err


CLEAN_TABLE = """\
                original labels          refined labels
gold label      items  correct      acc  items  correct      acc
True               12        7    58.3%      9        6    66.7%
False               1        1   100.0%      3        2    66.7%
Uncertain           2        2   100.0%      3        3   100.0%
all                15       10    66.7%     15       11    73.3%
labels changed      3        1    33.3%      3        2    66.7%

unparseable predictions      1  counted wrong: folio-sample/all/401
missing predictions          0
unknown ids                  1  not scored: folio-sample/all/9999
outside the subset           2  not scored: folio-sample/all/1201, folio-sample/all/1301"""


def test_clean_scores_only_settled_items_and_says_so(
    released: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # clean leaves out the three items still in review: 301 (no prediction), 1201, 1301.
    # original True (12): right 101 201 501 601 801 1001 1101; wrong 203 402 701 901;
    # unparseable 401 → 7/12. refined True (9): right 101 201 501 601 801 1001 → 6/9;
    # refined False 103 203 right, 1101 wrong → 2/3; Uncertain 102 202 901 → 3/3.
    preds = write_csv(tmp_path / "preds.csv")
    out = tmp_path / "clean.json"
    argv = ["rescore", str(preds), "--against", str(released), "--clean", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(
        f"{preds}: 19 predictions against {REPO_ID} v1 split train (run 20260101-000000), "
        "clean subset: 15 of 18 items (verified, repaired or reviewed), 3 labels changed by "
        "review\n"
    )
    assert CLEAN_TABLE in printed
    report = json.loads(out.read_text(encoding="utf-8"))
    assert (report["subset"], report["items"], report["split_items"]) == ("clean", 15, 18)
    assert report["outside_ids"] == [f"{PREFIX}1201", f"{PREFIX}1301"]
    assert report["missing_ids"] == [] and report["refined"]["all"]["accuracy"] == 11 / 15


def test_clean_on_a_run_folder_matches_the_release(released: Path, reviewed: Path) -> None:
    predictions = read_predictions(write_jsonl(released.parent / "preds.jsonl"))
    from_run = rescore(predictions, load_run(reviewed).refined_rows(), clean=True)
    from_release = rescore(predictions, publish.read_split(released, "train"), clean=True)
    assert from_run == from_release
    assert from_run.outside_ids == ("1201", "1301") and from_run.missing_ids == ()
    assert from_run.original["all"] == Tally(items=15, correct=10, unparseable=1)


def test_a_hub_id_scores_from_the_cache_and_fails_offline_in_one_line(
    released: Path, hub_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = write_csv(tmp_path / "preds.csv")
    assert main(["rescore", str(preds), "--against", REPO_ID]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        f"refinery: error: cannot download dataset {REPO_ID}: offline (HF_HUB_OFFLINE is set) "
        "and not in the local Hugging Face cache\n"
    )  # one line, no traceback
    _cache_release(hub_cache, released)  # as a earlier download would have left it
    assert main(["rescore", str(preds), "--against", f"hf:{REPO_ID}", "--split", "all"]) == 0
    printed = capsys.readouterr().out
    assert f"against {REPO_ID} v1 split train (run 20260101-000000): 18 items" in printed
    assert TABLE in printed


def test_a_release_with_several_splits_needs_split(
    reviewed: Path, released: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = shutil.copytree(reviewed, tmp_path / "20260103-000000")
    update_meta(other, run_id=other.name, split="validation")
    publish.build(load_run(other), released, repo_id=REPO_ID, now=NOW)
    preds = write_csv(tmp_path / "preds.csv")
    assert main(["rescore", str(preds), "--against", str(released)]) == 2
    assert "has splits train, validation: choose one with --split" in capsys.readouterr().err
    assert main(["rescore", str(preds), "--against", str(released), "--split", "validation"]) == 0
    assert "split validation (run 20260103-000000): 18 items" in capsys.readouterr().out
    assert main(["rescore", str(preds), "--against", str(released), "--split", "test"]) == 2
    assert "--split test: " in capsys.readouterr().err
    assert main(["rescore", str(preds), "--against", str(reviewed), "--split", "test"]) == 2
    assert "holds split 'all'" in capsys.readouterr().err
    assert main(["rescore", str(preds), "--against", "not a repo id"]) == 2
    assert "no such folder, and not a Hub dataset id" in capsys.readouterr().err


def test_offline_is_one_line_from_the_environment_alone(tmp_path: Path) -> None:
    # a fresh process, as a user runs it: HF_HUB_OFFLINE=1 is all it is told
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf-home")}
    preds = write_jsonl(tmp_path / "preds.jsonl")
    code = "import sys; from refinery.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = [sys.executable, "-c", code, "rescore", str(preds), "--against", REPO_ID]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"refinery: error: cannot download dataset {REPO_ID}: offline (HF_HUB_OFFLINE is set) "
        "and not in the local Hugging Face cache"
    ]
