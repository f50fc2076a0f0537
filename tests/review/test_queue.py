"""The review queue: CSV encoding, injection neutralisation, round trips, merge rules, atomicity."""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from refinery.outcomes import Outcome
from refinery.review import sheet
from refinery.review.queue import (
    CHANGED_SINCE_DECISION,
    COLUMNS,
    DECISION_COLUMNS,
    DECISIONS,
    INVALID_DECISION,
    NOT_IN_LATEST_RUN,
    Decision,
    QueueRow,
    queue_rows,
)
from refinery.review.sheet import MergeReport, neutralise, read_queue, unneutralise, write_queue

from fakes import queue_outcome

SYMBOLS = "∀x (P(x) ∧ Q(x) → ∃y (R(x, y) ∨ ¬S(y))) ↔ (T(a) ⊕ U(a))"
DANGEROUS = ["=cmd|'/c calc'!A1", "+1", "-x", "@SUM(A1:A2)", "\tP(a)", "\rP(a)"]


def outcome(n: int, **over: Any) -> Outcome:
    return queue_outcome(n, **over)


def decide(path: Path, item_id: str, **cells: str) -> None:
    """Play a reviewer: edit one row's cells through read + unmerged write."""
    rows = [r.replace(**cells) if r.id == item_id else r for r in read_queue(path)]
    write_queue(path, rows, merge=False)


def by_id(path: Path) -> dict[str, QueueRow]:
    return {r.id: r for r in read_queue(path)}


# --- rows -----------------------------------------------------------------------------------


def test_queue_row_fields_are_the_columns_and_round_trip() -> None:
    assert tuple(f.name for f in dataclasses.fields(QueueRow)) == COLUMNS
    [row] = queue_rows([outcome(1)])
    assert QueueRow.from_cells(row.cells()) == row
    assert list(row.cells()) == list(COLUMNS)
    assert row.replace(note="why") == QueueRow.from_cells(row.cells() | {"note": "why"})
    assert QueueRow.from_cells({"id": "d/s/1"}) == QueueRow(id="d/s/1")  # missing: empty
    with pytest.raises(ValueError, match="not in the review schema"):
        QueueRow.from_cells({"id": "d/s/1", "extra": "x"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.note = "x"  # type: ignore[misc]


def test_decision_values_are_the_documented_strings() -> None:
    documented = ["accept_proposal", "keep_original", "edit", "relabel", "skip"]
    assert [d.value for d in Decision] == documented
    assert list(DECISIONS) == documented
    assert Decision.SKIP == "skip" and f"{Decision.EDIT}" == "edit"


def test_queue_rows_layout() -> None:
    [row] = queue_rows([outcome(1)])
    assert list(row.cells()) == list(COLUMNS)
    assert row.nl_premises == "All dogs bark.\nRex is a dog."
    assert row.original_fol == "∀x (Dog(x) → Bark(x))\nDog(rex)\nBark(rex)"
    # the conclusion was not proposed, so the proposal carries the original one
    assert row.proposed_fol == "∀x (Dog(x) → Bark(x))\nDog(rex) ∧ ¬Cat(rex)\nBark(rex)"
    assert row.conclusion_fol == "Bark(rex)"
    assert row.prover_labels == "eprover=True; z3=True"
    assert row.rounds == "2"
    assert row.status == "open"
    assert all(cell == "" for cell in row.cells(DECISION_COLUMNS).values())


def test_queue_rows_no_proposal_skips_settled_items_and_sorts_naturally() -> None:
    rows = queue_rows(
        [
            outcome(10, proposed_premises_fol=None),
            outcome(2, status="needs_review"),
            outcome(3, status="verified"),
        ]
    )
    assert [r.id for r in rows] == ["folio-v2/validation/2", "folio-v2/validation/10"]
    assert rows[1].proposed_fol == ""


# --- encoding and neutralisation ------------------------------------------------------------


def test_file_starts_with_a_bom_and_uses_crlf(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    write_queue(path, queue_rows([outcome(1)]))
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfid,dataset,")
    assert b"\r\n" in raw


@pytest.mark.parametrize("cell", [*DANGEROUS, "'=x", "''", "'", "'tis", "P(a)", "", "-"])
def test_neutralise_is_exactly_reversible(cell: str) -> None:
    assert unneutralise(neutralise(cell)) == cell


@pytest.mark.parametrize("cell", DANGEROUS)
def test_dangerous_cells_are_prefixed(cell: str) -> None:
    assert neutralise(cell) == "'" + cell


def test_harmless_cells_are_untouched() -> None:
    assert neutralise("'tis") == "'tis"
    assert neutralise("P(a)") == "P(a)"
    assert unneutralise("=1") == "=1"  # a spreadsheet that dropped the apostrophe loses nothing


def test_no_raw_cell_in_the_file_starts_a_formula(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    rows = queue_rows([outcome(1, critique=c, conclusion=c) for c in DANGEROUS[:1]])
    rows[0] = rows[0].replace(note="@SUM(A1)", final_fol="-P(a)\n=Q(b)")
    write_queue(path, rows)
    with path.open(encoding="utf-8-sig", newline="") as f:
        cells = [c for record in csv.reader(f) for c in record]
    assert not [c for c in cells if c[:1] in set("=+-@\t\r")]
    assert "'=cmd|'/c calc'!A1" in cells


def test_symbols_and_dangerous_cells_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    cells = [SYMBOLS, *DANGEROUS, "'=x", "'tis"]
    rows = queue_rows(
        [outcome(i, critique=c, original_conclusion_fol=c) for i, c in enumerate(cells)]
    )
    write_queue(path, rows)
    assert read_queue(path) == rows
    assert read_queue(path)[1].critique == "=cmd|'/c calc'!A1"


def test_round_trip_through_a_pandas_resave(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    rows = queue_rows([outcome(1, critique=SYMBOLS), outcome(2, critique="-x")])
    write_queue(path, rows)
    # what an analyst would do: default dtypes, NaN for empty cells, no BOM on the way out
    frame = pd.read_csv(path, encoding="utf-8-sig")
    frame["decision"] = frame["decision"].astype(object)  # all empty, so read as float NaN
    frame.loc[0, "decision"] = "accept_proposal"
    frame.to_csv(path, index=True)  # index=True adds an unnamed column; it must be ignored
    assert not path.read_bytes().startswith(b"\xef\xbb\xbf")
    back = read_queue(path)
    expected = [rows[0].replace(decision="accept_proposal"), rows[1]]
    assert back == expected


def test_round_trip_through_a_windows_spreadsheet_resave(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    rows = queue_rows([outcome(1, critique=SYMBOLS + "\n-x")])
    write_queue(path, rows)
    # every LF (also inside cells) becomes CRLF, a BOM kept, labels and decision re-spelled
    text = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n").replace("\n", "\r\n")
    text = text.replace(",False,", ",FALSE,").replace(",open,,,,,,,\r\n", ",open,,Skip,,,,,\r\n")
    path.write_bytes(text.encode("utf-8-sig"))
    [back] = read_queue(path)
    assert back == rows[0].replace(decision="skip")
    assert back.critique == SYMBOLS + "\n-x"


def test_read_accepts_a_file_without_bom_and_missing_columns(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    path.write_text("id,decision\nfolio/1,edit\n,\n", encoding="utf-8")
    [row] = read_queue(path)
    assert row.id == "folio/1" and row.decision == "edit" and row.critique == ""
    path.write_text("decision\nedit\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no 'id' column"):
        read_queue(path)


def test_read_ignores_columns_not_in_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    path.write_text("my notes,id,decision,note\nlook again,folio/1,Skip,ok\n", encoding="utf-8")
    [row] = read_queue(path)
    assert row == QueueRow(id="folio/1", decision="skip", note="ok")


# --- merge ----------------------------------------------------------------------------------


def test_first_write_adds_everything(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    assert write_queue(path, queue_rows([outcome(1), outcome(2)])) == MergeReport(added=2)


def test_merge_keeps_flags_retains_and_refreshes(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    write_queue(path, queue_rows([outcome(n) for n in range(1, 6)]))
    decide(path, "folio-v2/validation/1", decision="accept_proposal", reviewer="ann")
    decide(path, "folio-v2/validation/2", decision="keep_original", note="NL is vague")
    decide(path, "folio-v2/validation/3", decision="relabel", final_label="True")
    decide(path, "folio-v2/validation/4", note="look at premise 2")  # input, no decision

    rerun = [
        outcome(1, critique="a new critique", proposed_premises_fol=["X(a)"]),  # same hash
        outcome(2, content_hash="hash2-new", critique="changed item"),
        outcome(4, critique="refreshed text", content_hash="hash4-new"),
        outcome(5, critique="refreshed 5"),
        outcome(6),
    ]  # 3 is gone (decided): retained
    report = write_queue(path, queue_rows(rerun))
    assert report == MergeReport(
        added=1, kept_decisions=1, flagged_changed=1, refreshed=2, retained_missing=1
    )
    rows = by_id(path)
    one, two, three, four, five = (rows[f"folio-v2/validation/{n}"] for n in (1, 2, 3, 4, 5))
    # unchanged hash: the row stays exactly as decided, proposal included
    assert one.decision == "accept_proposal" and one.reviewer == "ann"
    assert one.status == "decided" and one.flag == ""
    assert "Cat(rex)" in one.proposed_fol and one.critique != "a new critique"
    # changed hash: new content, old decision, flagged
    assert two.decision == "keep_original" and two.note == "NL is vague"
    assert two.content_hash == "hash2-new" and two.critique == "changed item"
    assert two.flag == CHANGED_SINCE_DECISION and two.status == "decided"
    # gone from the run: kept with its decision
    assert three.decision == "relabel" and three.final_label == "True"
    assert three.flag == NOT_IN_LATEST_RUN
    # undecided: refreshed, the reviewer's note kept, nothing flagged
    assert four.critique == "refreshed text" and four.note == "look at premise 2"
    assert four.status == "open" and four.flag == ""
    assert five.critique == "refreshed 5"
    assert "folio-v2/validation/6" in rows


def test_change_flag_is_sticky_until_a_reviewer_clears_it(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    write_queue(path, queue_rows([outcome(1)]))
    decide(path, "folio-v2/validation/1", decision="edit", final_fol="P(a)")
    write_queue(path, queue_rows([outcome(1, content_hash="h2")]))
    report = write_queue(path, queue_rows([outcome(1, content_hash="h2")]))
    assert report == MergeReport(kept_decisions=1)
    assert by_id(path)["folio-v2/validation/1"].flag == CHANGED_SINCE_DECISION
    decide(path, "folio-v2/validation/1", flag="")
    write_queue(path, queue_rows([outcome(1, content_hash="h2")]))
    assert by_id(path)["folio-v2/validation/1"].flag == ""


def test_missing_undecided_rows_are_dropped_and_returning_rows_unflagged(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    write_queue(path, queue_rows([outcome(1), outcome(2)]))
    decide(path, "folio-v2/validation/1", decision="skip")
    report = write_queue(path, [])
    assert report == MergeReport(retained_missing=1, dropped=1)
    assert by_id(path)["folio-v2/validation/1"].flag == NOT_IN_LATEST_RUN
    write_queue(path, queue_rows([outcome(1)]))
    assert by_id(path)["folio-v2/validation/1"].flag == ""


def test_an_invalid_decision_is_kept_and_flagged(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    write_queue(path, queue_rows([outcome(1)]))
    decide(path, "folio-v2/validation/1", decision="acept")
    write_queue(path, queue_rows([outcome(1, content_hash="h2")]))
    row = by_id(path)["folio-v2/validation/1"]
    assert row.decision == "acept" and row.status == "open"
    assert row.flag == f"{CHANGED_SINCE_DECISION};{INVALID_DECISION}"


def test_merge_false_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    write_queue(path, queue_rows([outcome(1)]))
    decide(path, "folio-v2/validation/1", decision="skip")
    assert write_queue(path, queue_rows([outcome(2)]), merge=False) == MergeReport(added=1)
    assert list(by_id(path)) == ["folio-v2/validation/2"]


def test_bad_rows_are_rejected(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    row = queue_rows([outcome(1)])[0]
    with pytest.raises(ValueError, match="repeats id"):
        write_queue(path, [row, row])
    with pytest.raises(ValueError, match="not in the review schema"):
        write_queue(path, [QueueRow.from_cells(row.cells() | {"extra": "x"})])
    assert not path.exists()


# --- atomicity ------------------------------------------------------------------------------


def test_write_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "queue.csv"
    write_queue(path, queue_rows([outcome(1)]))
    write_queue(path, queue_rows([outcome(1), outcome(2)]))
    # the lock file stays: removing it while another writer waits on it would break the lock
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "queue.csv",
        "queue.csv.lock",
        "queue.csv.written.json",
    ]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "queue.csv"
    write_queue(path, queue_rows([outcome(1)]))
    decide(path, "folio-v2/validation/1", decision="skip")
    before = path.read_bytes()

    def boom(cell: str) -> str:
        if cell == "folio-v2/validation/1":  # fail on the first row, after the header
            raise OSError("disk full")
        return cell

    monkeypatch.setattr(sheet, "neutralise", boom)
    with pytest.raises(OSError, match="disk full"):
        write_queue(path, queue_rows([outcome(1), outcome(2)]))
    assert path.read_bytes() == before
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["queue.csv", "queue.csv.lock", "queue.csv.written.json"]


def test_the_first_queue_is_ranked_worst_first_as_every_merge_ranks_it(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    outcomes = [
        queue_outcome(1, label_score=0.9, nl_mismatch_score=0.1),
        queue_outcome(2, label_score=0.2, nl_mismatch_score=0.0),
        queue_outcome(3, label_score=0.9, nl_mismatch_score=0.6),
    ]
    write_queue(path, queue_rows(outcomes))
    first = [r.id.rsplit("/", 1)[1] for r in read_queue(path)]
    assert first == ["2", "3", "1"]
    write_queue(path, queue_rows(outcomes))  # a re-run merges: the same order
    assert [r.id.rsplit("/", 1)[1] for r in read_queue(path)] == first


def test_status_without_queue_lists_every_queue_where_several_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from refinery.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "review").mkdir()
    first, second = Path("review/a.csv"), Path("review/b.csv")
    write_queue(first, queue_rows([outcome(1), outcome(2)]))
    write_queue(second, queue_rows([outcome(3)]))
    decide(second, read_queue(second)[0].id, decision="skip", reviewer="ann")
    write_queue(Path("review/a.shard-1.csv"), queue_rows([outcome(1)]))  # a shard: no queue
    assert main(["review", "status"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "review/a.csv: 2 items, 0 decided, 2 left",
        "review/b.csv: 1 items, 1 decided, 0 left",
        "pass --queue for one queue's counts by reason, decision, reviewer and flag",
    ]
    # one queue named: its tables; the other commands still need --queue to pick one
    assert main(["review", "status", "--queue", str(second)]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        "review/b.csv: 1 items, 1 decided, 0 left",
        "by reason:",
    ]
    assert main(["review", "work"]) == 2
    assert "several queues in review/; pass --queue one of" in capsys.readouterr().err
