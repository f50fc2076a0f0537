"""Tests for refinery.datasets: FOLIO loading in every layout, errors, hashes, FOL lists.

Small inline samples cover each format and each malformed-row reason; the real public files
(../shared/data, via the `shared_data` fixture) are read in place, never copied.
"""

from __future__ import annotations

import collections
import csv
import dataclasses
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from refinery.datasets import folio
from refinery.datasets.folio import infer_names, load, load_fol_lines
from refinery.datasets.records import Item, LoadError, split_lines, story_id_from_premises
from refinery.errors import DataError
from refinery.labels import Label

V2_ROW = {
    "story_id": 7,
    "premises": "All cats purr.\n  Tom is a cat. \n\nNo dog purrs.",
    "premises-FOL": "∀x (Cat(x) → Purr(x))\nCat(tom)\n∀x (Dog(x) → ¬Purr(x))\n",
    "conclusion": " Tom purrs. ",
    "conclusion-FOL": "Purr(tom)",
    "label": "True",
    "example_id": 70,
}
V0_ROW = {
    "story_id": 8,
    "example_id": 80,
    "conclusion": "Rex purrs.",
    "premises": ["All cats purr.", "Rex is a dog.", " "],
    "premises-FOL": ["∀x (Cat(x) → Purr(x))", "Dog(rex)", ""],
    "label": "Unknown",
    "source": "wiki",
}
NOT_A_LABEL = "is not one of True, False, Uncertain (or Unknown)"
EXPECTING_NAME = "Expecting property name enclosed in double quotes"


def write_jsonl(path: Path, rows: Sequence[object]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def write_csv(path: Path, rows: list[dict[str, object]]) -> Path:
    columns = [
        "story_id",
        "premises",
        "premises-FOL",
        "conclusion",
        "conclusion-FOL",
        "label",
        "example_id",
    ]
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


# --- inline samples: layouts --------------------------------------------------------------


def test_v2_string_layout_is_split_stripped_and_named(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "folio_v2_validation.jsonl", [V2_ROW])
    result = load(path)
    assert result.errors == ()
    assert (result.dataset, result.split) == ("folio-v2", "validation")
    (item,) = result.items
    assert item.id == "folio-v2/validation/70"
    assert (item.dataset, item.split, item.story_id, item.example_id) == (
        "folio-v2",
        "validation",
        "7",
        "70",
    )
    assert item.premises == ("All cats purr.", "Tom is a cat.", "No dog purrs.")
    assert item.premises_fol == ("∀x (Cat(x) → Purr(x))", "Cat(tom)", "∀x (Dog(x) → ¬Purr(x))")
    assert item.conclusion == "Tom purrs."
    assert item.conclusion_fol == "Purr(tom)"
    assert item.label is Label.TRUE
    assert item.raw_label == "True"
    assert (item.source, item.line) == (str(path), 1)


def test_v0_list_layout_normalizes_unknown_and_missing_conclusion_fol(tmp_path: Path) -> None:
    path = tmp_path / "folio_v0"
    path.mkdir()
    result = load(write_jsonl(path / "folio-train.jsonl", [V0_ROW]))
    assert (result.dataset, result.split, result.errors) == ("folio-v0", "train", ())
    (item,) = result.items
    assert item.id == "folio-v0/train/80"
    assert item.premises == ("All cats purr.", "Rex is a dog.")
    assert item.premises_fol == ("∀x (Cat(x) → Purr(x))", "Dog(rex)")
    assert item.conclusion_fol is None
    assert item.label is Label.UNCERTAIN
    assert item.raw_label == "Unknown"


def test_layout_is_detected_per_row(tmp_path: Path) -> None:
    result = load(write_jsonl(tmp_path / "mixed.jsonl", [V2_ROW, V0_ROW]))
    assert result.errors == ()
    assert [len(i.premises) for i in result.items] == [3, 2]
    assert [i.line for i in result.items] == [1, 2]


def test_blank_or_null_label_means_unlabelled(tmp_path: Path) -> None:
    rows = [{**V2_ROW, "label": None}, {**V2_ROW, "label": " ", "example_id": 71}]
    result = load(write_jsonl(tmp_path / "x_test.jsonl", rows))
    assert result.errors == ()
    assert [(i.label, i.raw_label) for i in result.items] == [(None, ""), (None, "")]


@pytest.mark.parametrize(
    ("spelling", "label"),
    [
        ("True", Label.TRUE),
        ("false", Label.FALSE),
        ("Uncertain", Label.UNCERTAIN),
        ("Unknown", Label.UNCERTAIN),
        (True, Label.TRUE),
    ],
)
def test_label_spellings(tmp_path: Path, spelling: object, label: Label) -> None:
    (item,) = load(write_jsonl(tmp_path / "a.jsonl", [{**V2_ROW, "label": spelling}])).items
    assert item.label is label
    assert item.raw_label == str(spelling)


# --- inline samples: malformed rows ---------------------------------------------------------


def test_malformed_jsonl_rows_become_errors_and_the_rest_loads(tmp_path: Path) -> None:
    lines = [
        json.dumps(V2_ROW),  # 1 ok
        '{"story_id": 1, ',  # 2 bad JSON
        "",  # 3 blank: skipped, no error
        json.dumps({k: v for k, v in V2_ROW.items() if k != "label"}),  # 4
        json.dumps({**V2_ROW, "premises": 3}),  # 5
        json.dumps({**V2_ROW, "label": "Maybe"}),  # 6
        json.dumps({**V2_ROW, "premises": " \n\n "}),  # 7
        json.dumps([V2_ROW]),  # 8
        json.dumps({**V2_ROW, "conclusion": "x"}),  # 9 same example_id as line 1
        json.dumps({**V0_ROW, "premises-FOL": ["A(x)", None]}),  # 10
        json.dumps({**V2_ROW, "example_id": 1.5}),  # 11
        json.dumps({**V2_ROW, "conclusion": "  "}),  # 12
        json.dumps({"premises": "p"}),  # 13
        json.dumps({**V2_ROW, "label": 1}),  # 14
        json.dumps({**V2_ROW, "example_id": 71}),  # 15 ok
    ]
    path = tmp_path / "folio_v2_train.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    result = load(path)
    src = str(path)
    assert result.errors == (
        LoadError(src, 2, f"invalid JSON: {EXPECTING_NAME} at column 17"),
        LoadError(src, 4, "missing field 'label'"),
        LoadError(src, 5, "premises must be a string or a list of strings, got a number"),
        LoadError(src, 6, f"label 'Maybe' {NOT_A_LABEL}"),
        LoadError(src, 7, "empty premises"),
        LoadError(src, 8, "row is a list, expected an object"),
        LoadError(src, 9, "duplicate id 'folio-v2/train/70' (first at line 1)"),
        LoadError(src, 10, "premises-FOL[1] must be a string, got null"),
        LoadError(src, 11, "example_id must be a string or an integer, got a number"),
        LoadError(src, 12, "empty conclusion"),
        LoadError(src, 13, "missing fields 'premises-FOL', 'conclusion', 'label'"),
        LoadError(src, 14, "label must be a string, got a number"),
    )
    assert [i.line for i in result.items] == [1, 15]
    assert [i.example_id for i in result.items] == ["70", "71"]
    assert str(result.errors[0]) == f"{src}:2: invalid JSON: {EXPECTING_NAME} at column 17"


def test_unreadable_inputs_raise_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        load(tmp_path / "absent.jsonl")
    (tmp_path / "a.parquet").write_bytes(b"")
    with pytest.raises(DataError, match="unsupported file type '.parquet'"):
        load(tmp_path / "a.parquet")
    (tmp_path / "latin1.jsonl").write_bytes(b'{"premises": "caf\xe9"}\n')
    with pytest.raises(DataError, match="cannot read"):
        load(tmp_path / "latin1.jsonl")
    (tmp_path / "obj.json").write_text('{"rows": []}', "utf-8")
    with pytest.raises(DataError, match="expected a JSON list of rows, got an object"):
        load(tmp_path / "obj.json")
    (tmp_path / "broken.json").write_text("[{", "utf-8")
    with pytest.raises(DataError, match="invalid JSON"):
        load(tmp_path / "broken.json")


# --- ids, story ids, hashes, raw ------------------------------------------------------------


def test_missing_ids_fall_back_to_premise_hash_and_row_line(tmp_path: Path) -> None:
    base = {k: v for k, v in V0_ROW.items() if k not in ("story_id", "example_id")}
    rows = [
        base,
        {**base, "premises": [" All cats purr.", "", "Rex is a dog. "], "conclusion": "No."},
        {**base, "premises": ["Rex is a dog.", "All cats purr."]},  # order matters
    ]
    items = load(write_jsonl(tmp_path / "folio-validation.jsonl", rows)).items
    assert [i.example_id for i in items] == ["row1", "row2", "row3"]
    assert items[0].id.endswith("/validation/row1")
    expected = "p" + hashlib.sha256(b"All cats purr.\nRex is a dog.").hexdigest()[:8]
    assert items[0].story_id == items[1].story_id == expected
    assert items[2].story_id != expected
    assert story_id_from_premises(items[2].premises) == items[2].story_id


def test_content_hash_follows_its_documented_definition(tmp_path: Path) -> None:
    (item,) = load(write_jsonl(tmp_path / "a.jsonl", [V2_ROW])).items
    payload = json.dumps(
        [
            ["All cats purr.", "Tom is a cat.", "No dog purrs."],
            ["∀x (Cat(x) → Purr(x))", "Cat(tom)", "∀x (Dog(x) → ¬Purr(x))"],
            "Tom purrs.",
            "Purr(tom)",
            "True",
        ],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    assert item.content_hash == hashlib.sha256(payload.encode("utf-8")).hexdigest()
    # Stable across runs, independent of the process (no Python hash() salt).
    assert item.content_hash == "fc04f8fa455b7fa086ddadde9b119d8e97772aaa7cc9e004b2e219345b203423"


@pytest.mark.parametrize(
    "change",
    [
        {"premises": ("All cats purr.", "Tom is a cat.")},
        {"premises_fol": ("∀x (Cat(x) → Purr(x))", "Cat(tom)", "∀x (Dog(x) → Purr(x))")},
        {"conclusion": "Tom purrs loudly."},
        {"conclusion_fol": "¬Purr(tom)"},
        {"conclusion_fol": None},
        {"label": Label.FALSE},
        {"label": None},
    ],
)
def test_content_hash_changes_with_content(tmp_path: Path, change: dict[str, object]) -> None:
    (item,) = load(write_jsonl(tmp_path / "a.jsonl", [V2_ROW])).items
    changed = dataclasses.replace(item, **change)  # type: ignore[arg-type]
    assert changed.content_hash != item.content_hash


def test_content_hash_ignores_ids_provenance_and_raw(tmp_path: Path) -> None:
    (item,) = load(write_jsonl(tmp_path / "a.jsonl", [V2_ROW])).items
    moved = dataclasses.replace(
        item, dataset="d", split="s", story_id="9", example_id="9", source="x", line=5, raw="{}"
    )
    assert moved.content_hash == item.content_hash
    assert moved.id == "d/s/9"  # derived, so it follows the replaced fields


def test_items_are_frozen(tmp_path: Path) -> None:
    (item,) = load(write_jsonl(tmp_path / "a.jsonl", [V2_ROW])).items
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.label = Label.FALSE  # type: ignore[misc]
    assert not hasattr(item, "__dict__")  # slotted


def test_raw_round_trips_the_original_row(tmp_path: Path) -> None:
    rows = [V2_ROW, V0_ROW]
    items = load(write_jsonl(tmp_path / "a.jsonl", rows)).items
    assert [json.loads(i.raw) for i in items] == rows
    assert [list(json.loads(i.raw)) for i in items] == [list(r) for r in rows]  # key order
    assert "\n\n" in json.loads(items[0].raw)["premises"]  # the dropped blank line is kept


# --- the same rows in JSONL, JSON and CSV -----------------------------------------------------


def test_jsonl_json_and_csv_give_the_same_items(tmp_path: Path) -> None:
    rows = [V2_ROW, {**V2_ROW, "example_id": 71, "label": "False", "conclusion-FOL": ""}]
    from_jsonl = load(write_jsonl(tmp_path / "s_dev.jsonl", rows))
    (tmp_path / "s_dev.json").write_text(json.dumps(rows), "utf-8")
    from_json = load(tmp_path / "s_dev.json")
    from_csv = load(write_csv(tmp_path / "s_dev.csv", rows))
    for result in (from_jsonl, from_json, from_csv):
        assert result.errors == ()
        assert [i.id for i in result.items] == ["s/validation/70", "s/validation/71"]
        assert [i.conclusion_fol for i in result.items] == ["Purr(tom)", None]
    hashes = [[i.content_hash for i in r.items] for r in (from_jsonl, from_json, from_csv)]
    assert hashes[0] == hashes[1] == hashes[2]
    assert len(set(hashes[0])) == 2
    assert [i.line for i in from_json.items] == [1, 2]  # position in the list
    # CSV: header is line 1; the first row's quoted premises (4 lines) and premises-FOL
    # (4 lines, the last one empty) share their boundary lines, so it spans lines 2-8.
    assert [i.line for i in from_csv.items] == [2, 9]
    assert json.loads(from_csv.items[0].raw) == {k: str(v) for k, v in V2_ROW.items()}


def test_csv_errors_and_options(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text(
        "\ufeffstory_id,premises,premises-FOL,conclusion,conclusion-FOL,label,example_id\n"
        '1,"A.\nB.","A(a)\nB(b)",C.,C(c),True,10\n'
        "\n"
        "1,A.,A(a),C.,C(c),True\n"
        ",A.,A(a),C.,,,\n"
        "1,A.,A(a),C.,C(c),Perhaps,12\n",
        "utf-8",
    )
    result = load(path, dataset="mine", split="dev")
    assert (result.dataset, result.split) == ("mine", "dev")
    assert result.errors == (
        LoadError(str(path), 6, "row has 6 fields, header has 7"),
        LoadError(str(path), 8, f"label 'Perhaps' {NOT_A_LABEL}"),
    )
    first, second = result.items
    assert (first.id, first.line, first.premises) == ("mine/dev/10", 2, ("A.", "B."))
    assert second.line == 7
    assert second.example_id == "row7"
    assert second.story_id == story_id_from_premises(("A.",))
    assert (second.conclusion_fol, second.label) == (None, None)


def test_csv_without_required_columns_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("story_id,premises,conclusion\n1,A.,C.\n", "utf-8")
    with pytest.raises(DataError, match="lacks column\\(s\\) premises-FOL, label"):
        load(path)
    (tmp_path / "empty.csv").write_text("", "utf-8")
    with pytest.raises(DataError, match="empty CSV file"):
        load(tmp_path / "empty.csv")


@pytest.mark.parametrize(
    ("path", "names"),
    [
        ("a/reconstructed/folio_v2_validation.jsonl", ("folio-v2", "validation")),
        ("a/folio_v0/folio-train.jsonl", ("folio-v0", "train")),
        ("a/folio_v0/folio-validation.jsonl", ("folio-v0", "validation")),
        ("a/folio_v2/dev.csv", ("folio-v2", "validation")),
        ("a/folio_v2/folio_test.json", ("folio-v2", "test")),
        ("a/foliox/folio-val.jsonl", ("folio", "validation")),
        ("a/data/Train.CSV", ("data", "train")),
        ("a/data/sample.jsonl", ("sample", "all")),
    ],
)
def test_infer_names(path: str, names: tuple[str, str]) -> None:
    assert infer_names(path) == names


def test_split_lines() -> None:
    assert split_lines("a\r\n b \n\n") == ("a", "b")
    assert split_lines([]) == ()


# --- the Hugging Face Hub -------------------------------------------------------------------


@pytest.fixture
def hub_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Hub answers (these tests replace `load_dataset`; nothing goes on the network)."""
    monkeypatch.setattr(folio, "_hub_unreachable", lambda: None)


def test_hub_source_goes_through_load_dataset(
    monkeypatch: pytest.MonkeyPatch, hub_reachable: None
) -> None:
    datasets = pytest.importorskip("datasets")
    calls: list[tuple[str, str]] = []
    rows = [V2_ROW, {**V2_ROW, "example_id": 71, "label": "Maybe"}]

    def fake_load_dataset(repo_id: str, *, split: str) -> object:
        calls.append((repo_id, split))
        return datasets.Dataset.from_list(rows)

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    result = load("hf:yale-nlp/FOLIO:validation")
    assert calls == [("yale-nlp/FOLIO", "validation")]
    assert (result.dataset, result.split) == ("folio-v2", "validation")
    (item,) = result.items
    assert (item.id, item.source, item.line) == (
        "folio-v2/validation/70",
        "hf:yale-nlp/FOLIO:validation",
        1,
    )
    assert item.premises == ("All cats purr.", "Tom is a cat.", "No dog purrs.")
    assert result.errors == (
        LoadError(
            "hf:yale-nlp/FOLIO:validation",
            2,
            f"label 'Maybe' {NOT_A_LABEL}",
        ),
    )
    # No split in the spec: the `split` keyword picks it; other repos are named after the repo.
    other = load("hf:someone/My_Folio", split="train")
    assert calls[-1] == ("someone/My_Folio", "train")
    assert (other.dataset, other.items[0].id) == ("my-folio", "my-folio/train/70")


def test_hub_failure_is_a_clear_data_error(
    monkeypatch: pytest.MonkeyPatch, hub_reachable: None
) -> None:
    datasets = pytest.importorskip("datasets")

    def offline(repo_id: str, *, split: str) -> object:
        raise ConnectionError("Couldn't reach 'yale-nlp/FOLIO' on the Hub")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(DataError, match="cannot load 'yale-nlp/FOLIO' split 'train'") as info:
        load("hf:yale-nlp/FOLIO")
    assert "ConnectionError" in str(info.value)
    assert "HF_TOKEN" in str(info.value)
    assert isinstance(info.value.__cause__, ConnectionError)
    with pytest.raises(DataError, match="expected hf:<repo_id>"):
        load("hf:")


def test_an_unreachable_hub_fails_at_once_without_retrying(monkeypatch: pytest.MonkeyPatch) -> None:
    datasets = pytest.importorskip("datasets")
    from huggingface_hub import constants

    def no_network(address: tuple[str, int], timeout: float) -> object:
        raise OSError(-2, "Name or service not known")

    def never(*args: object, **kwargs: object) -> object:
        raise AssertionError("load_dataset must not be called: it retries for half a minute")

    monkeypatch.setattr(folio.socket, "create_connection", no_network)
    monkeypatch.setattr(datasets, "load_dataset", never)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    with pytest.raises(DataError, match="the Hugging Face Hub cannot be reached") as info:
        load("hf:yale-nlp/FOLIO:validation")
    assert "Name or service not known" in str(info.value) and "HF_HUB_OFFLINE=1" in str(info.value)
    # offline mode reads the local cache: no probe, straight to load_dataset
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    assert folio._hub_unreachable() is None


def test_hub_without_datasets_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # makes `import datasets` fail
    with pytest.raises(DataError, match="needs the `datasets` package"):
        load("hf:yale-nlp/FOLIO:validation")


# --- load_fol_lines -------------------------------------------------------------------------


def test_fol_lines_from_txt(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("# header\n∀x (A(x) → B(x))\n\n  B(a)  \n   # indented comment\nC(a)", "utf-8")
    assert load_fol_lines(path) == [(2, "∀x (A(x) → B(x))"), (4, "B(a)"), (6, "C(a)")]


def test_fol_lines_from_json(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(json.dumps([{"NL": "n", "FOL": " A(a) "}, "B(b)", {"FOL": ""}, "C(c)"]))
    assert load_fol_lines(path) == [(1, "A(a)"), (2, "B(b)"), (4, "C(c)")]
    path.write_text(json.dumps([{"FOL": "A(a)"}, {"NL": "no formula"}]))
    with pytest.raises(DataError, match="entry 2 is an object"):
        load_fol_lines(path)


def test_fol_lines_from_folio_files(tmp_path: Path) -> None:
    rows = [V2_ROW, {**V0_ROW, "example_id": 81}]
    expected = [
        (1, "∀x (Cat(x) → Purr(x))"),
        (1, "Cat(tom)"),
        (1, "∀x (Dog(x) → ¬Purr(x))"),
        (1, "Purr(tom)"),
        (2, "∀x (Cat(x) → Purr(x))"),
        (2, "Dog(rex)"),
    ]
    assert load_fol_lines(write_jsonl(tmp_path / "f.jsonl", rows)) == expected
    (tmp_path / "f.json").write_text(json.dumps(rows), "utf-8")
    assert load_fol_lines(tmp_path / "f.json") == expected
    bad = write_jsonl(tmp_path / "bad.jsonl", [V2_ROW, {"premises": "p"}])
    with pytest.raises(DataError, match="1 malformed row\\(s\\): .*bad.jsonl:2: missing fields"):
        load_fol_lines(bad)
    with pytest.raises(DataError, match="no such file"):
        load_fol_lines(tmp_path / "absent.txt")


# --- the real public files (read in place) -----------------------------------------------


def label_counts(items: tuple[Item, ...]) -> dict[str, int]:
    return dict(collections.Counter(str(i.label) for i in items))


@pytest.mark.data
@pytest.mark.parametrize(
    ("split", "rows", "stories", "labels"),
    [
        ("train", 1001, 340, {"True": 388, "Uncertain": 324, "False": 289}),
        ("validation", 203, 73, {"True": 72, "Uncertain": 69, "False": 62}),
    ],
)
def test_real_folio_v2(
    shared_data: Path, split: str, rows: int, stories: int, labels: dict[str, int]
) -> None:
    path = shared_data / "folio_v2" / "reconstructed" / f"folio_v2_{split}.jsonl"
    result = load(path)
    assert result.errors == ()
    assert (result.dataset, result.split) == ("folio-v2", split)
    assert len(result.items) == rows
    assert len({i.id for i in result.items}) == rows
    assert len({i.story_id for i in result.items}) == stories
    assert label_counts(result.items) == labels
    # Blank lines (some rows have them) are dropped, after which NL and FOL counts agree.
    assert all(len(i.premises) == len(i.premises_fol) for i in result.items)
    assert all(i.conclusion_fol for i in result.items)
    # The files were written with json.dumps defaults, so raw reproduces every line exactly.
    lines = path.read_text("utf-8").splitlines()
    assert [json.dumps(json.loads(i.raw)) for i in result.items] == lines
    assert [i.line for i in result.items] == list(range(1, rows + 1))


@pytest.mark.data
def test_real_folio_v2_first_validation_item(shared_data: Path) -> None:
    item = load(shared_data / "folio_v2" / "reconstructed" / "folio_v2_validation.jsonl").items[0]
    assert (item.id, item.story_id, item.line) == ("folio-v2/validation/1014", "380", 1)
    assert len(item.premises) == 6
    # A known typo in FOLIO ("Studen"), kept verbatim.
    assert item.premises_fol[2] == (
        "∀x (InThisClub(x) ∧ Chaperone(x, highSchoolDance) → ¬(Studen(x) ∧ AttendSchool(x)))"
    )
    assert item.label is Label.UNCERTAIN


@pytest.mark.data
def test_real_dev_csv_matches_v2_validation(shared_data: Path) -> None:
    from_csv = load(shared_data / "folio_v2" / "dev.csv")
    from_jsonl = load(shared_data / "folio_v2" / "reconstructed" / "folio_v2_validation.jsonl")
    assert from_csv.errors == ()
    assert len(from_csv.items) == 203
    assert [(i.id, i.story_id, i.content_hash) for i in from_csv.items] == [
        (i.id, i.story_id, i.content_hash) for i in from_jsonl.items
    ]
    # Line numbers are where each (multi-line) CSV row starts.
    assert from_csv.items[0].line == 2
    assert from_csv.items[1].line > 2 + len(from_csv.items[0].premises)


@pytest.mark.data
def test_real_folio_v0(shared_data: Path) -> None:
    train = load(shared_data / "folio_v0" / "folio-train.jsonl")
    assert (train.dataset, train.split, train.errors) == ("folio-v0", "train", ())
    assert len(train.items) == 1004
    assert len({i.story_id for i in train.items}) == 340
    assert label_counts(train.items) == {"True": 388, "Uncertain": 330, "False": 286}
    assert collections.Counter(i.raw_label for i in train.items)["Unknown"] == 330
    assert all(i.conclusion_fol is None for i in train.items)

    validation = load(shared_data / "folio_v0" / "folio-validation.jsonl")
    assert (validation.dataset, validation.split, validation.errors) == (
        "folio-v0",
        "validation",
        (),
    )
    assert len(validation.items) == 204
    assert label_counts(validation.items) == {"True": 72, "Uncertain": 69, "False": 63}
    # No ids in this file: row-line example ids and premise-hash story ids (73 stories, as v2).
    assert [i.example_id for i in validation.items[:2]] == ["row1", "row2"]
    assert all(i.story_id.startswith("p") and len(i.story_id) == 9 for i in validation.items)
    assert len({i.story_id for i in validation.items}) == 73


@pytest.mark.data
def test_real_malls_fol_lines(shared_data: Path) -> None:
    pairs = load_fol_lines(shared_data / "malls" / "MALLS-v0.1-test.json")
    assert len(pairs) == 1000
    assert [n for n, _ in pairs] == list(range(1, 1001))
    assert pairs[0][1].startswith("∀x (Vacation(x) ∧ Relaxing(x) →")


@pytest.mark.data
def test_real_folio_loads_fast(shared_data: Path) -> None:
    folder = shared_data / "folio_v2" / "reconstructed"
    start = time.perf_counter()
    total = sum(len(load(p).items) for p in sorted(folder.glob("*.jsonl")))
    elapsed = time.perf_counter() - start
    assert total == 1204
    assert elapsed < 1.0, f"loading 1,204 rows took {elapsed:.2f}s"
