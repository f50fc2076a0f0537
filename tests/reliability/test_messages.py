"""Clear messages: every input the product cannot use is refused in one line that names the file,
the line and the reason, before any proving; a full disk only stops the cache."""

from __future__ import annotations

import json
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from refinery.check import check_items
from refinery.cli import main
from refinery.datasets.folio import load
from refinery.errors import DataError
from refinery.outcomes import Outcome
from refinery.prove.verdict import Budget
from refinery.report import write_report
from refinery.review.queue import QueueRow
from refinery.review.sheet import read_queue, write_rows
from refinery.store import CacheWriteWarning
from vampire.registry import build_provers

ROW = {
    "story_id": 7,
    "premises": "All cats purr.\nTom is a cat.",
    "premises-FOL": "∀x (Cat(x) → Purr(x))\nCat(tom)",
    "conclusion": "Tom purrs.",
    "conclusion-FOL": "Purr(tom)",
    "label": "True",
    "example_id": 70,
}


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the CLI, expect exit 2, and return its one stderr line."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1, err
    return err.rstrip("\n")


def _check(source: Path, out: Path, *extra: str) -> list[str]:
    return ["check", str(source), "--out", str(out), "--provers", "z3", "--workers", "1",
            "--quiet", "--no-cache", *extra]  # fmt: skip


# --- a. empty or unreadable input files -----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("folio_v2_train.jsonl", "", "empty file (0 bytes)"),
        ("folio_v2_train.jsonl", " \n\t\n  \n", "empty file (only whitespace)"),
        ("folio_v2_train.json", "\n\n", "empty file (only whitespace)"),
        ("folio_v2_train.json", "[]", "no rows in it"),
        ("folio_v2_train.csv", "  \n", "empty CSV file (no header, only whitespace)"),
        ("meta-test.jsonl", "\n \n", "empty file (only whitespace)"),
        (
            "folio_v2_train.jsonl",
            json.dumps({"premises": "p"}) + "\n{oops\n",
            "no item could be read: 2 unreadable row(s); the first, line 1: missing fields "
            "'premises-FOL', 'conclusion', 'label'",
        ),
    ],
)
def test_a_an_input_without_items_names_the_file_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, reason: str
) -> None:
    source = tmp_path / name
    source.write_text(text, "utf-8")
    line = _refused(_check(source, tmp_path / "out"), capsys)
    assert line == f"refinery: error: {source}: {reason}"
    assert not (tmp_path / "out").exists()


# --- b. a queue re-saved by a spreadsheet in another encoding or separator -------------------


def _queue(tmp_path: Path) -> Path:
    path = tmp_path / "queue.csv"
    write_rows(path, [QueueRow(id="f/1", nl_premises="Alle Katzen schnurren.", note="ok")])
    return path


def test_b_utf8_with_bom_reads_and_other_encodings_are_refused_saying_what_to_do(
    tmp_path: Path,
) -> None:
    path = _queue(tmp_path)
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    (row,) = read_queue(path)
    assert (row.id, row.nl_premises, row.note) == ("f/1", "Alle Katzen schnurren.", "ok")
    text = path.read_text("utf-8-sig")

    path.write_bytes(text.encode("utf-16"))
    with pytest.raises(DataError) as utf16:
        read_queue(path)
    assert str(utf16.value) == (
        f"{path}: cannot read: UTF-16 (a spreadsheet's 'Unicode text'); save it as CSV UTF-8"
    )

    path.write_bytes(text.replace("ok", "“ok”").encode("cp1252"))
    with pytest.raises(DataError) as legacy:
        read_queue(path)
    assert str(legacy.value) == (
        f"{path}: cannot read: not UTF-8 (byte 0x93 on line 2: a legacy code page such as "
        "Windows-1252, which cannot hold ∀∃¬); save it as CSV UTF-8"
    )

    for separator, name in ((";", "';'"), ("\t", "tabs")):
        path.write_text(text.replace(",", separator), "utf-8-sig")
        with pytest.raises(DataError) as other:
            read_queue(path)
        assert str(other.value) == f"queue.csv uses {name} as separator; save it with ','"


# --- c. a row with a cell inserted or cut short, an unterminated quote -----------------------


def test_c_a_row_of_the_wrong_width_or_an_open_quote_names_its_line(tmp_path: Path) -> None:
    path = _queue(tmp_path)
    header, row = path.read_bytes().decode("utf-8-sig").rstrip("\r\n").split("\r\n")
    width = header.count(",") + 1
    second = row.replace("f/1", "f/2")
    for bad, found in ((second + ",extra", width + 1), (second.rsplit(",", 3)[0], width - 3)):
        path.write_text("\r\n".join([header, row, "", bad]) + "\r\n", "utf-8-sig")
        with pytest.raises(DataError) as wrong:
            read_queue(path)
        assert str(wrong.value) == (
            f"{path}:4: row 4 has {found} cells, the header has {width} "
            "(a cell inserted, or the row cut short)"
        )
    path.write_text("\r\n".join([header, row, second.replace(",ok,", ',"ok,')]) + "\r\n", "utf-8")
    with pytest.raises(DataError) as open_quote:
        read_queue(path)
    assert str(open_quote.value) == (
        f"{path}:3: unreadable CSV: unterminated quote: a quoted cell starting in this row "
        "never ends"
    )
    # the dataset CSV reader says the same, where the quote opens
    data = tmp_path / "d.csv"
    data.write_text(
        "story_id,premises,premises-FOL,conclusion,conclusion-FOL,label,example_id\n"
        "1,A.,A(a),C.,C(c),True,10\n"
        '1,"A.,A(a),C.,C(c),True,11\n'
        "1,A.,A(a),C.,C(c),True,12\n",
        "utf-8",
    )
    with pytest.raises(DataError) as folio_quote:
        load(data)
    assert str(folio_quote.value) == (
        f"{data}:3: unreadable CSV: unterminated quote: a quoted cell starting in this row "
        "never ends"
    )
    # and so does an open quote in the header, which is line 1
    data.write_text('"story_id,premises,premises-FOL,conclusion,label\n', "utf-8")
    with pytest.raises(DataError) as header_quote:
        load(data)
    assert str(header_quote.value) == (
        f"{data}:1: unreadable CSV: unterminated quote: a quoted cell starting in this row "
        "never ends"
    )


# --- d. check --out naming a file ------------------------------------------------------------


def test_d_check_out_on_a_file_is_refused_before_proving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "folio_v2_train.jsonl"
    source.write_text(json.dumps(ROW) + "\n", "utf-8")
    taken = tmp_path / "verdicts.txt"
    taken.write_text("keep me", "utf-8")

    def no_proving(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("proving started")

    monkeypatch.setattr("refinery.check.check_items", no_proving)
    line = _refused(_check(source, taken), capsys)
    assert line == f"refinery: error: --out {taken}: not a folder; give a folder for the verdicts"
    below = _refused(_check(source, taken / "sub"), capsys)
    assert below == (
        f"refinery: error: --out {taken / 'sub'}: not a folder ({taken} is a file); "
        "give a folder for the verdicts"
    )
    assert taken.read_text("utf-8") == "keep me"


# --- e. --budget out of range ----------------------------------------------------------------


@pytest.mark.parametrize("value", ["1e12", "0", "-1", "nan", "inf", "3600.5", "soon"])
def test_e_a_budget_out_of_range_is_refused_at_parse_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    assert main(["check", str(tmp_path / "never-read.jsonl"), "--budget", value]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "refinery check: error: Invalid value for '--budget' (env var: 'REFINERY_BUDGET'): "
        f"{value!r} is not a number of seconds in (0, 3600]"
    ]


def test_e_the_budget_limit_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--help"]) == 0
    assert "more than 0 and at most 3600" in " ".join(capsys.readouterr().out.split())


# --- f. a full disk stops the cache, not the run ---------------------------------------------


def test_f_a_cache_that_cannot_be_written_warns_once_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        {**ROW, "example_id": 70},
        {**ROW, "example_id": 71, "conclusion": "Tom is silent.", "conclusion-FOL": "¬Purr(tom)",
         "label": "False"},
        {**ROW, "story_id": 8, "example_id": 72, "premises": "Rex is a dog.",
         "premises-FOL": "Dog(rex)", "conclusion": "Rex purrs.", "label": "Uncertain"},
    ]  # fmt: skip
    source = tmp_path / "folio_v2_train.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    items = load(source).items
    run: dict[str, Any] = {
        "prover_factory": build_provers,
        "prover_names": ["z3"],
        "budget": Budget(seconds=5),
        "workers": 1,
    }
    expected = check_items(items, **run)
    assert [r.label for r in expected] == ["True", "False", "Uncertain"]

    # SQLite's own SQLITE_FULL: every writing connection may not grow the file past its size now
    real_connect = sqlite3.connect

    def full_disk(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real_connect(*args, **kwargs)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {max(pages, 1)}")
        return conn

    monkeypatch.setattr(sqlite3, "connect", full_disk)
    cache = tmp_path / "cache" / "verdicts.sqlite"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = check_items(items, cache_path=cache, **run)
    assert [(r.id, r.label) for r in got] == [(r.id, r.label) for r in expected]
    messages = [str(w.message) for w in caught if issubclass(w.category, CacheWriteWarning)]
    assert messages, "no warning for a cache that could not be written"
    by_file = [m.split(":")[0] for m in messages]
    assert len(by_file) == len(set(by_file)), messages  # once per cache file
    assert all(m.endswith("database or disk is full); going on without caching") for m in messages)
    assert any(str(cache) in m for m in messages)


# --- g. a broken prover binary ---------------------------------------------------------------


def test_g_a_broken_prover_is_refused_at_start_up_naming_its_path_and_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "folio_v2_train.jsonl"
    source.write_text(json.dumps(ROW) + "\n", "utf-8")
    argv = ["check", str(source), "--out", str(tmp_path / "out"), "--provers", "eprover",
            "--workers", "1", "--quiet", "--no-cache"]  # fmt: skip
    monkeypatch.setenv("EPROVER_PATH", "/bin/false")
    assert _refused(argv, capsys) == (
        "refinery: error: eprover: /bin/false is not a working prover: asked to prove "
        "'fof(probe, conjecture, $true).' it exited 1 without 'SZS status Theorem'; output: (none)"
    )
    garbage = tmp_path / "not-a-prover"
    runs = tmp_path / "runs.log"
    garbage.write_text(f"#!/bin/sh\necho run >> {runs}\necho 'Segmentation fault (core dumped)'\n")
    garbage.chmod(0o755)
    monkeypatch.setenv("EPROVER_PATH", str(garbage))
    assert _refused(argv, capsys) == (
        f"refinery: error: eprover: {garbage} is not a working prover: asked to prove "
        "'fof(probe, conjecture, $true).' it exited 0 without 'SZS status Theorem'; "
        "output: Segmentation fault (core dumped)"
    )
    assert not (tmp_path / "out").exists()
    # probed once per binary per process: a second start-up does not run it again
    _refused(argv, capsys)
    assert runs.read_text().split() == ["run"]


# --- h. a Hub repository id with a newline ---------------------------------------------------


@pytest.mark.parametrize("repo_id", ["owner/name\n", "owner/na me", "owner", "owner/name/x"])
def test_h_a_bad_repo_id_is_refused_at_parse_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], repo_id: str
) -> None:
    assert main(["publish", str(tmp_path), "--repo-id", repo_id]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "refinery publish: error: Invalid value for '--repo-id' (env var: 'REFINERY_REPO_ID'): "
        f"{repo_id!r} is not a Hub repository id: expected OWNER/NAME of letters, digits, "
        "'-', '_' and '.'"
    ]


# --- i. dataset text that is HTML ------------------------------------------------------------

SVG = "<svg onload=alert(1)>"


def test_i_dataset_html_is_inert_in_both_reports(tmp_path: Path) -> None:
    outcome = Outcome.from_dict(
        {
            "id": "f/1",
            "status": "needs_review",
            "reason": "label_mismatch",
            "gold_label": "True",
            "prover_label": "False",
            "suggested_label": "False",
            "error_classes": ["label_error"],
            "repaired_by": "",
            "premises": [f"All cats purr. {SVG}", "Tom is a cat."],
            "original_premises_fol": ["∀x (Cat(x) → Purr(x))", "Cat(tom)"],
            "refined_premises_fol": ["∀x (Cat(x) → Purr(x))", "Cat(tom)"],
            "conclusion": f"Tom purrs {SVG} | `x`",
            "original_conclusion_fol": "Purr(tom)",
            "refined_conclusion_fol": "Purr(tom)",
            "evidence": f"proves its negation: {SVG}",
        }
    )
    paths = write_report(
        tmp_path,
        outcomes=[outcome],
        edits=[],
        validations={},
        meta={"source": f"data/{SVG}.jsonl"},
        review=[{"id": "f/1", "decision": "skip", "reviewer": SVG, "label": "", "note": SVG}],
    )
    md = paths["markdown"].read_text("utf-8")
    rendered = MarkdownIt("commonmark").enable("table").render(md)
    assert "<svg" not in rendered
    assert rendered.count("&lt;svg onload=alert(1)&gt;") >= 5  # shown as text, each place
    page = paths["html"].read_text("utf-8")
    assert "<svg" not in page and "&lt;svg onload=alert(1)&gt;" in page


def test_a_column_mixing_numbers_and_text_is_refused_before_refine_does_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the refined split keeps the source's columns: a story_id 1 beside "s2" cannot be one
    # typed column, and refine used to find that out after all its work, with a traceback
    source = tmp_path / "mixed.jsonl"
    rows = [ROW, {**ROW, "story_id": "s2", "example_id": 71}]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setenv("REFINERY_STATE_DIR", str(tmp_path / "state"))
    out, queue = tmp_path / "out", tmp_path / "queue.csv"
    line = _refused(
        ["refine", str(source), "--out", str(out), "--review", str(queue), "--no-prefect",
         "--quiet"],
        capsys,
    )  # fmt: skip
    assert line == (
        f"refinery: error: {source}: column 'story_id' mixes int (row 1) and str (row 2); the "
        "refined split keeps the source's columns as they are, so write every value of that "
        "column as one type"
    )
    assert not out.exists() and not queue.exists()  # nothing written, nothing merged
    # check writes no source columns: it reads the same file as before
    assert main(_check(source, tmp_path / "checked")) == 0


def test_hostile_predictions_files_are_one_line_or_shown_as_codes(
    sample_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    assert _refused(["rescore", str(deep), "--against", str(sample_run)], capsys) == (
        f"refinery: error: {deep}:1: JSON nested too deep"
    )
    nul = tmp_path / "nul.csv"
    nul.write_bytes(b"id,label\nfolio-sample/all/101,True\x00\n")  # one stray NUL: not UTF-16
    assert _refused(["rescore", str(nul), "--against", str(sample_run)], capsys) == (
        f"refinery: error: {nul}: cannot read: a NUL byte on line 2, which no text holds"
    )
    odd = tmp_path / "odd.jsonl"
    odd.write_text(
        json.dumps({"id": "\ud800", "label": "True"}) + "\n"
        + json.dumps({"id": "9" * 5000, "label": "True"}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    assert main(["rescore", str(odd), "--against", str(sample_run)]) == 0
    unknown = next(
        line for line in capsys.readouterr().out.splitlines() if line.startswith("unknown ids")
    )
    assert unknown == f"unknown ids{2:>19}  not scored: ⟨U+D800⟩, {'9' * 79}…"
