"""Programs other than the tool write the queue (a copy over it, a spreadsheet saving it): the
tool's writes never lose their rows, and its decisions survive theirs in the journal."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from refinery.cli import main
from refinery.errors import DataError
from refinery.review import sheet
from refinery.review.journal import journal_gaps, read_journal, recover
from refinery.review.queue import queue_rows
from refinery.review.record import save_decision
from refinery.review.sheet import QueueChanged, read_queue, update_queue, write_queue

from fakes import queue_outcome

ROWS = 60


def queue(tmp_path: Path) -> Path:
    path = tmp_path / "review" / "queue.csv"
    write_queue(path, queue_rows([queue_outcome(n) for n in range(1, ROWS + 1)]))
    return path


def item(n: int) -> str:
    return queue_outcome(n).id


def copy_in_place(path: Path, data: bytes, started: threading.Event, pause: float) -> None:
    """What `cp` or an editor does: truncate the file and write it again, a row at a time."""
    lines = data.splitlines(keepends=True)
    with path.open("r+b") as f:
        f.truncate(0)
        f.flush()
        os.fsync(f.fileno())
        started.set()
        for line in lines:
            f.write(line)
            f.flush()
            time.sleep(pause)


def test_a_copy_written_in_place_while_a_decision_is_saved_loses_no_row(tmp_path: Path) -> None:
    path = queue(tmp_path)
    original = path.read_bytes()
    for attempt in range(20):
        started = threading.Event()
        writer = threading.Thread(
            target=copy_in_place, args=(path, original, started, 0.002), daemon=True
        )
        writer.start()
        started.wait()
        # the tool reads while the file holds only part of its rows
        save_decision(path, item(attempt + 1), {"decision": "skip", "reviewer": "ann"})
        writer.join()
        rows = read_queue(path)
        assert len(rows) == ROWS, f"try {attempt}: {len(rows)} rows"
        # the decision was written after the copy finished: it is in the queue
        assert {r.id: r.decision for r in rows}[item(attempt + 1)] == "skip"
        original = path.read_bytes()


def test_a_change_between_read_and_rename_is_read_again_not_overwritten(tmp_path: Path) -> None:
    path = queue(tmp_path)
    calls = 0

    def change(rows: list[sheet.QueueRow]) -> tuple[list[sheet.QueueRow], int]:
        nonlocal calls
        calls += 1
        if calls == 1:  # another program saves a note while the tool is working
            outside = [r.replace(note="seen in the sheet") if r.id == item(5) else r for r in rows]
            sheet.write_rows(tmp_path / "outside.csv", outside)
            os.replace(tmp_path / "outside.csv", path)
        return [r.replace(decision="skip") if r.id == item(7) else r for r in rows], calls

    assert update_queue(path, change) == 2  # read again after the outside write
    by_id = {r.id: r for r in read_queue(path)}
    assert by_id[item(5)].note == "seen in the sheet"  # the outside write is kept
    assert by_id[item(7)].decision == "skip"  # and so is the tool's


def test_a_queue_left_shorter_is_not_written_back_and_the_decision_is_journaled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sheet, "SETTLE_SECONDS", 0.6)
    path = queue(tmp_path)
    for n in (1, 2, 3):
        save_decision(path, item(n), {"decision": "keep_original", "note": f"read {n}"})
    rows = read_queue(path)
    # another program keeps 32 rows, none of the decided ones
    kept = [r for r in rows if r.id not in {item(1), item(2), item(3)}][:32]
    sheet.write_rows(tmp_path / "cut.csv", kept)
    os.replace(tmp_path / "cut.csv", path)
    cut = path.read_bytes()

    with pytest.raises(QueueChanged, match=r"32 rows where FOL Refinery last wrote 60.*recover"):
        save_decision(path, kept[0].id, {"decision": "skip"})
    assert path.read_bytes() == cut  # nothing written back
    assert read_journal(path.parent / "queue.csv")[kept[0].id].decision == "skip"
    assert sorted(journal_gaps(path, read_queue(path))) == sorted(
        [item(1), item(2), item(3), kept[0].id]
    )

    monkeypatch.chdir(tmp_path)
    assert main(["review", "status"]) == 0
    assert "32 rows where FOL Refinery last wrote 60, 4 journaled decision(s) missing" in (
        capsys.readouterr().out
    )
    assert main(["review", "recover"]) == 0
    assert "3 row(s) and 1 decision(s) put back from the journal" in capsys.readouterr().out
    by_id = {r.id: r for r in read_queue(path)}
    assert len(by_id) == 35
    assert [by_id[item(n)].note for n in (1, 2, 3)] == ["read 1", "read 2", "read 3"]
    assert by_id[kept[0].id].decision == "skip"
    assert journal_gaps(path, list(by_id.values())) == []
    # the queue as recovered is the tool's again: decisions are saved at once
    save_decision(path, kept[1].id, {"decision": "skip"})
    assert len(read_queue(path)) == 35


def test_recover_never_overwrites_a_decision_the_queue_holds(tmp_path: Path) -> None:
    path = queue(tmp_path)
    save_decision(path, item(1), {"decision": "keep_original"})
    rows = [r.replace(decision="relabel", final_label="False") if r.id == item(1) else r
            for r in read_queue(path)]  # fmt: skip
    sheet.write_rows(path, rows)  # a spreadsheet changed the decision since
    done = recover(path)
    assert (done.rows, done.decisions, done.differ) == ([], [], [item(1)])
    assert {r.id: r.decision for r in read_queue(path)}[item(1)] == "relabel"


def test_recover_without_a_journal_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    queue(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["review", "recover"]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("no decision journal beside review/queue.csv: nothing to recover from")
    )


def test_a_whole_file_that_is_no_queue_is_refused_at_once(tmp_path: Path) -> None:
    path = queue(tmp_path)
    path.write_text("no id column here\r\n1,2\r\n", encoding="utf-8")  # a spreadsheet's save
    started = time.monotonic()
    with pytest.raises(DataError, match="no 'id' column"):
        save_decision(path, item(1), {"decision": "skip"})
    assert time.monotonic() - started < sheet.SETTLE_SECONDS / 2  # not made to wait it out
