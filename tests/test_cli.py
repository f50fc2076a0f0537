"""The `refinery` command, run as users run it (a subprocess of the installed entry point)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from commands import run

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"


def test_check_on_the_sample_writes_one_row_per_item(tmp_path: Path) -> None:
    out = tmp_path / "out"
    state = {"REFINERY_STATE_DIR": str(tmp_path / "state")}  # its own caches: a cold first run
    state["VAMPIRE_PATH"] = ""  # the default provers, Z3 and E, where a user also has Vampire
    proc = run("check", str(SAMPLE), "--out", str(out), "--workers", "2", cwd=tmp_path, env=state)
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_parquet(out / "verdicts.parquet")
    csv = pd.read_csv(out / "verdicts.csv", keep_default_na=False)
    assert list(frame["id"]) == list(csv["id"])
    by_id = dict(zip(frame["example_id"], frame["category"], strict=True))
    assert by_id == {
        "101": "verified", "102": "verified", "103": "verified",
        "201": "verified", "202": "verified", "203": "label_mismatch",
        "301": "parse_error", "401": "verified", "402": "lint_error",
        "501": "parse_error", "601": "parse_error", "701": "label_mismatch",
        "801": "lint_error", "901": "label_mismatch", "1001": "label_mismatch",
        "1101": "label_mismatch", "1201": "label_mismatch", "1301": "label_mismatch",
    }  # fmt: skip
    row = frame.set_index("example_id").loc["203"]
    assert (row["label_z3"], row["label_eprover"], row["label"], row["gold_label"]) == (
        "False",
        "False",
        "False",
        "True",
    )
    assert (
        "premises[0]:1:55: error: syntax: unexpected end of formula"
        in frame.set_index("example_id").loc["301", "issues"]
    )
    for column in ("story_id", "status_z3", "status_eprover", "seconds", "content_hash", "issues"):
        assert column in frame.columns
    assert "label_mismatch" in proc.stderr and "z3 vs eprover: agree on 15/15" in proc.stderr
    # the cache lives in the state folder; a re-run answers every question from it
    again = run("check", str(SAMPLE), "--out", str(out), "--workers", "1", cwd=tmp_path, env=state)
    assert "verdicts from cache: 18/18 items" in again.stderr
    # the progress lines say what a re-run (or a resumed run) did not redo, only then
    assert "from the cache" not in proc.stderr
    assert "of which from the cache (not redone): 18/18 (100%)" in again.stderr


def test_check_reports_bad_rows_and_goes_on(tmp_path: Path) -> None:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], "{not json", lines[1]]) + "\n", encoding="utf-8")
    proc = run("check", str(bad), "--out", str(tmp_path / "o"), "--provers", "z3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "bad.jsonl:2:" in proc.stderr
    assert len(pd.read_parquet(tmp_path / "o" / "verdicts.parquet")) == 2


def test_unknown_prover_is_a_clean_error(tmp_path: Path) -> None:
    proc = run("check", str(SAMPLE), "--provers", "z3,prover9", cwd=tmp_path)
    assert proc.returncode == 2
    assert "unknown prover 'prover9'" in proc.stderr and "Traceback" not in proc.stderr


def test_lint_prints_one_line_per_error_and_a_total(tmp_path: Path) -> None:
    formulas = tmp_path / "f.txt"
    formulas.write_text(
        "∀x (P(x) → Q(x))\nP(a) ∧ (Q(b)\nR(x)\n# a comment\nS(a) ∧ S(a, b)\n", encoding="utf-8"
    )
    proc = run("lint", str(formulas), cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    errors = [line for line in lines if ": error" in line or "unexpected" in line]
    assert len(errors) == 3
    assert lines[-1] == "4 formulas, 3 errors"
    assert any(line.startswith(f"{formulas}:2:1:13: unexpected end of formula") for line in lines)


def test_check_with_three_provers(tmp_path: Path, vampire_path: str) -> None:
    out = tmp_path / "out"
    proc = run(
        "check", str(SAMPLE), "--out", str(out), "--provers", "z3,eprover,vampire",
        cwd=tmp_path, env={"VAMPIRE_PATH": vampire_path},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for pair in ("z3 vs eprover", "z3 vs vampire", "eprover vs vampire"):
        assert f"{pair}: agree on 15/15" in proc.stderr
    frame = pd.read_parquet(out / "verdicts.parquet").set_index("example_id")
    assert list(frame.loc["203", ["label_z3", "label_eprover", "label_vampire"]]) == ["False"] * 3
    assert frame.loc["203", "evidence"].endswith("(eprover, vampire, z3)")
