"""Recording decisions with several annotators: what each saw, conflicts, the file lock, and the
file format kept on every write back."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from refinery.errors import RefineryError
from refinery.review.queue import DECISION_COLUMNS, MERGE_CONFLICT, QueueRow, queue_rows
from refinery.review.record import (
    DecisionConflict,
    conflicts_path,
    decision_version,
    read_conflicts,
    save_decision,
)
from refinery.review.sheet import queue_lock, read_queue, write_queue

from fakes import queue_outcome

ITEM = "folio-v2/validation/1"
ANN = {"decision": "relabel", "final_label": "True", "note": "both provers", "reviewer": "ann"}
BOB = {"decision": "keep_original", "note": "the NL says so", "reviewer": "bob"}


def make_queue(tmp_path: Path, n: int = 3) -> Path:
    path = tmp_path / "review.csv"
    write_queue(path, queue_rows([queue_outcome(k) for k in range(1, n + 1)]))
    return path


def row(path: Path, item_id: str = ITEM) -> QueueRow:
    return next(r for r in read_queue(path) if r.id == item_id)


def test_a_decision_since_the_item_was_seen_is_a_conflict_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    path = make_queue(tmp_path)
    seen = decision_version(row(path))  # ann and bob open the item at the same time
    save_decision(path, ITEM, ANN, seen=seen)
    with pytest.raises(DecisionConflict) as raised:
        save_decision(path, ITEM, BOB, seen=seen)
    after = row(path)
    assert after.cells(("decision", "final_label", "note", "reviewer")) == ANN
    assert after.flag == MERGE_CONFLICT and after.status == "decided"
    conflict = raised.value
    assert conflict.kept["reviewer"] == "ann" and conflict.refused["decision"] == "keep_original"
    assert "ann decided relabel while you were looking" in str(conflict)
    [entry] = read_conflicts(path, ITEM)
    assert entry["kept"] == after.cells(DECISION_COLUMNS)
    assert entry["refused"] == {c: BOB.get(c, "") for c in DECISION_COLUMNS}
    assert conflicts_path(path).name == "review.csv.conflicts.jsonl"

    # bob looks again (now having seen ann's decision) and settles it: the flag goes
    settled = save_decision(path, ITEM, BOB, seen=decision_version(after))
    assert (settled.decision, settled.reviewer, settled.flag) == (
        "keep_original",
        "bob",
        "",
    )
    assert len(read_conflicts(path)) == 1


def test_the_same_decision_from_two_annotators_is_no_conflict(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    seen = decision_version(row(path))
    save_decision(path, ITEM, ANN, seen=seen)
    again = save_decision(path, ITEM, {**ANN, "reviewer": "bob"}, seen=seen)
    assert again.reviewer == "ann" and again.flag == ""  # the first one stays
    assert read_conflicts(path) == [] and not conflicts_path(path).exists()


def test_deciding_another_item_meanwhile_is_no_conflict(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    seen = decision_version(row(path))
    save_decision(
        path,
        "folio-v2/validation/2",
        ANN,
        seen=decision_version(row(path, "folio-v2/validation/2")),
    )
    assert save_decision(path, ITEM, BOB, seen=seen).decision == "keep_original"


def test_a_writer_waits_for_the_lock_and_says_so_when_it_is_held_too_long(
    tmp_path: Path,
) -> None:
    path = make_queue(tmp_path)
    before = path.read_bytes()
    probe = textwrap.dedent(
        f"""
        from refinery.review import sheet as queue
        from refinery.review.record import save_decision
        from refinery.errors import RefineryError
        queue.LOCK_SECONDS = 0.2
        try:
            save_decision({str(path)!r}, {ITEM!r}, {{"decision": "skip"}})
        except RefineryError as e:
            print("REFUSED", e)
        """
    )
    with queue_lock(path):  # another annotator is writing
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert "REFUSED" in done.stdout and "is busy" in done.stdout, done.stdout + done.stderr
    assert path.read_bytes() == before
    # once the lock is free, the same write goes through
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout == "" and row(path).decision == "skip", done.stderr


def test_concurrent_writers_lose_no_decision(tmp_path: Path) -> None:
    path = make_queue(tmp_path, n=12)
    writer = textwrap.dedent(
        f"""
        import sys
        from refinery.review.record import save_decision
        for n in sys.argv[1:]:
            save_decision({str(path)!r}, f"folio-v2/validation/{{n}}", {{"decision": "skip", "reviewer": "w" + n}})
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", writer, *map(str, numbers)])
        for numbers in (range(1, 13, 3), range(2, 13, 3), range(3, 13, 3))
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    rows = read_queue(path)
    assert [(r.decision, r.reviewer) for r in rows] == [("skip", f"w{n}") for n in range(1, 13)]


def test_a_write_back_restores_the_bom_and_crlf_a_pandas_save_dropped(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    frame.to_csv(path, index=False)  # pandas: no BOM, LF rows
    resaved = path.read_bytes()
    assert not resaved.startswith(b"\xef\xbb\xbf") and b"\r\n" not in resaved
    before = read_queue(path)
    save_decision(path, ITEM, {"decision": "skip", "note": "=1+1 is not a formula"})
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert data.count(b"\r\n") == 1 + 3  # CRLF after the header and each row (LF inside cells)
    assert b"'=1+1 is not a formula" in data  # neutralised against formula injection
    after = read_queue(path)
    assert after[1:] == before[1:]
    assert after[0].note == "=1+1 is not a formula"


def test_a_bad_decision_changes_nothing(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    before = path.read_bytes()
    with pytest.raises(KeyError):
        save_decision(path, "folio-v2/validation/99", {"decision": "skip"}, seen="x")
    with pytest.raises(ValueError, match="not decision columns"):
        save_decision(path, ITEM, {"gold_label": "True"})
    assert path.read_bytes() == before


def test_the_lock_is_not_taken_twice_by_accident(tmp_path: Path) -> None:
    # holding the lock and calling a locked writer would wait on itself: it says so instead
    path = make_queue(tmp_path)
    with (
        queue_lock(path),
        pytest.raises(RefineryError, match="is busy"),
        queue_lock(path, timeout=0.1),
    ):
        pass
