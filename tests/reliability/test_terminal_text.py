"""Dataset and reviewer text on a terminal: escape sequences (clipboard, title, clear screen),
bidi overrides and invisible characters are shown as visible codes, never passed through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from commands import run

from refinery.cli import main
from refinery.review.queue import QueueRow
from refinery.review.sheet import write_rows
from refinery.review.web.page import Filters, item_view

CLIPBOARD = "\x1b]52;c;ZXZpbA==\x07"  # OSC 52: write "evil" to the clipboard
TITLE = "\x1b]0;pwned\x07"  # set the window title
CLEAR = "\x1b[2J\x1b[H"  # clear the screen
RLO = "\u202e"  # right-to-left override: reorders what follows
HIDDEN = "\u200b"  # a zero-width space inside a name
#: What must never reach the terminal raw.
RAW = ("\x1b", "\x07", RLO, HIDDEN)


def _clean(out: str) -> None:
    for char in RAW:
        assert char not in out, f"{char!r} reached the terminal"


def test_lint_shows_escapes_in_formulas_as_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "formulas.txt"
    path.write_text(f"Cat(tom{CLIPBOARD}\n∀x (P(x) {RLO}→ Q(x)\n", encoding="utf-8")
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    _clean(out)
    assert "⟨U+001B⟩]52;c;ZXZpbA==⟨U+0007⟩" in out and "⟨U+202E⟩" in out


def test_a_zero_width_space_inside_a_name_is_a_parse_error_shown_as_a_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # invisible, it would make `tom` and `to​m` two constants in verified FOL
    path = tmp_path / "formulas.txt"
    path.write_text("Cat(to\u200bm)\n", encoding="utf-8")
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert "Cat(to⟨U+200B⟩m)" in out and "\u200b" not in out


def test_an_error_message_quoting_a_row_shows_its_escapes_as_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / f"bad{TITLE}.jsonl"
    source.write_text(json.dumps({"story_id": 1}) + "\n", encoding="utf-8")
    assert main(["review", "work", "--queue", str(source), "--reviewer", "x"]) == 2
    err = capsys.readouterr().err
    _clean(err)
    assert "⟨U+001B⟩]0;pwned⟨U+0007⟩" in err


def test_review_work_shows_every_dataset_and_reviewer_string_as_codes(tmp_path: Path) -> None:
    queue = tmp_path / "review.csv"
    hostile = QueueRow.from_cells(
        {
            "id": "folio-v2/validation/1",
            "reason": "label_mismatch",
            "cause": "vocabulary",
            "cause_evidence": f"the conclusion's t{HIDDEN}om is in no premise{CLEAR}",
            "nl_premises": f"All cats purr.{CLIPBOARD}\nTom is a cat.{TITLE}",
            "original_fol": f"∀x (Cat(x) → Purr(x))\nCat(tom)\nPurr(t{HIDDEN}om)",
            "proposed_fol": "∀x (Cat(x) → Purr(x))\nCat(tom)\nPurr(tom)",
            "conclusion": f"Tom purrs.{RLO}!",
            "gold_label": "True",
            "critique": f"conclusion: {CLEAR}drift",
            "evidence": f"a model: {CLIPBOARD}",
            "note": f"looked at it {RLO}twice",
        }
    )
    write_rows(queue, [hostile])
    done = run(
        "review", "work", "--queue", str(queue), "--reviewer", "ann", cwd=tmp_path, input="q\n"
    )
    assert done.returncode == 0, done.stderr
    _clean(done.stdout)
    assert "Tom purrs.⟨U+202E⟩!" in done.stdout
    assert "Purr(t⟨U+200B⟩om)" in done.stdout and "All cats purr.⟨U+001B⟩]52;c;" in done.stdout


def test_the_review_page_shows_a_reviewers_bidi_override_as_a_code() -> None:
    row = QueueRow(
        id="d/s/1",
        nl_premises=f"All cats purr.{RLO}",
        original_fol="Cat(tom)\nPurr(tom)",
        conclusion="Tom purrs.",
        gold_label="True",
        critique=f"conclusion: {RLO}drift",
        decision="skip",
        note=f"checked {RLO}twice",
    )
    shown = item_view(row, [row], Filters())
    assert shown["formulas"][0]["nl"] == "All cats purr.⟨U+202E⟩"
    assert shown["decision"]["note"] == "checked ⟨U+202E⟩twice"
    assert shown["critique"] == ["conclusion: ⟨U+202E⟩drift"]
