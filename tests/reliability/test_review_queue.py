"""The review queue under hostile edits: tool-owned cells edited by hand, two rows for one item,
and cells larger than csv's default field limit (written by an annotator or by the tool)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from refinery.cli import main
from refinery.prove.verdict import Budget
from refinery.review.apply import ApplyRefused, apply_review, carry_decisions
from refinery.review.decide import edited_tool_cells
from refinery.review.feedback import FeedbackEngine
from refinery.review.queue import (
    CELL_LIMIT,
    COLUMNS,
    QueueRow,
    queue_row,
    queue_rows,
    row_hash,
    tool_cells_edited,
)
from refinery.review.record import save_decision
from refinery.review.seal import queue_key, seal, sealed
from refinery.review.sheet import MergeReport, neutralise, read_queue, write_queue, write_rows
from refinery.runs import load_run, run_folders
from vampire.registry import build_provers

from review_workflow import ID_203, ID_301, ID_1201, ID_1301, NOTE_203, NOTE_1201, copy_sample

NOTE_1301 = "The NL says Max is the retriever; the FOL says rex, the gold label is right."
YOURS = (
    "only decision, final_label, final_fol, reviewer, note, decided_at are yours to change (a new "
    "label or FOL goes in final_label / final_fol, with decision relabel or edit)"
)
STOCK_FIELD_LIMIT = 128 * 1024


@pytest.fixture
def engine(tmp_path: Path) -> FeedbackEngine:
    return FeedbackEngine(build_provers(["z3"]), Budget(seconds=5), tmp_path / "verdicts.sqlite")


@pytest.fixture
def restore_field_limit() -> Iterator[None]:
    """Put csv's process-wide field limit back as it was after the test."""
    before = csv.field_size_limit()
    yield
    csv.field_size_limit(before)


def by_id(queue: Path) -> dict[str, QueueRow]:
    return {r.id: r for r in read_queue(queue)}


def refined(run: Path) -> dict[str, dict[str, object]]:
    return {str(r["id"]): r for r in load_run(run).refined_rows()}


def test_apply_refuses_edited_tool_owned_cells_naming_row_column_and_old_value(
    sample_run: Path, tmp_path: Path, engine: FeedbackEngine, capsys: pytest.CaptureFixture[str]
) -> None:
    run, queue = copy_sample(sample_run, tmp_path)
    tool = by_id(queue)
    rows = by_id(queue)
    rows[ID_1301] = rows[ID_1301].replace(
        decision="keep_original", note=NOTE_1301, gold_label="False"
    )
    bent = tool[ID_1201].original_fol.replace("\nBird(kiwi)\n", "\n¬Bird(kiwi)\n")
    rows[ID_1201] = rows[ID_1201].replace(
        decision="keep_original", note=NOTE_1201, original_fol=bent
    )
    smuggled = tool[ID_203].original_fol.replace("¬CanBorrow(mara, book)", "⊤")
    rows[ID_203] = rows[ID_203].replace(
        decision="accept_proposal",
        final_label="False",
        note=NOTE_203,
        proposed_fol=smuggled,
    )
    write_rows(queue, rows.values())
    lines = {row.id: n for n, row in enumerate(read_queue(queue), start=2)}

    with pytest.raises(ApplyRefused) as refused:
        apply_review(queue, load_run(run), engine)
    assert [(p.row, p.item_id, p.message) for p in refused.value.problems] == [
        (
            lines[ID_203],
            ID_203,
            f"tool-owned column proposed_fol was edited: it was '' (as run {run.name} has it), "
            f"the queue has {smuggled[:120] + '…'!r}; {YOURS}",
        ),
        (
            lines[ID_1201],
            ID_1201,
            f"tool-owned column original_fol was edited: it was "
            f"{tool[ID_1201].original_fol!r} (as run {run.name} has it), the queue has "
            f"{bent!r}; {YOURS}",
        ),
        (
            lines[ID_1301],
            ID_1301,
            f"tool-owned column gold_label was edited: it was 'True' (as run {run.name} has it), "
            f"the queue has 'False'; {YOURS}",
        ),
    ]
    assert run_folders(run.parent) == [run]  # nothing applied

    # `review check` has no run to compare with: the row hash still catches each edit
    assert main(["review", "check", str(queue), "--provers", "z3"]) == 1
    out = capsys.readouterr().out.splitlines()
    generic = (
        "tool-owned cells were edited since the tool wrote this row (its row_hash does not "
        f"match); {YOURS}; `review check --run RUN` or `review apply` names the column"
    )
    ordered = sorted((ID_203, ID_1201, ID_1301), key=lines.__getitem__)
    assert len(out) == 4 and out[3] == f"{queue}: 4 rows, 3 decided, 0 valid, 3 with problems"
    for line, item_id in zip(out[:3], ordered, strict=True):
        assert re.fullmatch(
            rf"{re.escape(str(queue))}: row {lines[item_id]} \(line \d+\): "
            rf"{re.escape(item_id)}: {re.escape(generic)}",
            line,
        ), line

    # given the run, `review check` names each column and what the run has, as apply does
    assert main(["review", "check", str(queue), "--provers", "z3", "--run", str(run)]) == 1
    named = capsys.readouterr().out.splitlines()
    assert [line.split(": ", 3)[-1] for line in named[:3]] == [
        p.message for p in sorted(refused.value.problems, key=lambda p: p.row)
    ]

    # the same decisions on the tool's own cells apply, and change exactly what they decide
    for item_id in (ID_203, ID_1201, ID_1301):
        rows[item_id] = rows[item_id].replace(
            **tool[item_id].cells(("gold_label", "original_fol", "proposed_fol"))
        )
    write_rows(queue, rows.values())
    applied = apply_review(queue, load_run(run), engine)
    before, after = refined(run), refined(applied.run_dir)
    assert after[ID_1301]["label"] == before[ID_1301]["label"] == "True"
    assert after[ID_1201]["premises-FOL"] == before[ID_1201]["premises-FOL"]
    assert "¬Bird(kiwi)" not in str(after[ID_1201]["premises-FOL"])
    assert (after[ID_203]["label"], after[ID_203]["conclusion-FOL"]) == (
        "False",
        before[ID_203]["conclusion-FOL"],
    )
    assert (applied.changed_labels, applied.changed_fol) == (1, 0)


def _write_raw(queue: Path, rows: list[QueueRow]) -> list[int]:
    """Write rows as a spreadsheet would (duplicates allowed); return each record's first line."""
    text, starts = io.StringIO(), []
    out = csv.writer(text, lineterminator="\r\n")
    out.writerow(COLUMNS)
    for row in rows:
        starts.append(text.getvalue().count("\n") + 1)
        out.writerow([neutralise(cell) for cell in row.cells().values()])
    queue.write_bytes(text.getvalue().encode("utf-8-sig"))
    return starts


def test_a_forged_row_whose_hash_was_recomputed_is_refused_against_the_run(
    sample_run: Path, tmp_path: Path, engine: FeedbackEngine
) -> None:
    # the gold label edited and the unkeyed row_hash recomputed to match: the row vouches for
    # itself, but the run's own row says otherwise, and the run is the truth
    run, queue = copy_sample(sample_run, tmp_path)
    rows = by_id(queue)
    forged = rows[ID_1301].replace(decision="keep_original", note=NOTE_1301, gold_label="False")
    rows[ID_1301] = forged.replace(row_hash=row_hash(forged.cells()))
    assert not tool_cells_edited(rows[ID_1301])  # the forgery is self-consistent
    write_rows(queue, rows.values())

    with pytest.raises(ApplyRefused) as refused:
        apply_review(queue, load_run(run), engine)
    [problem] = refused.value.problems
    assert problem.item_id == ID_1301 and problem.message.startswith(
        f"tool-owned column gold_label was edited: it was 'True' (as run {run.name} has it)"
    )
    assert run_folders(run.parent) == [run]  # nothing applied

    # a later run of the split does not carry it either: it is refused, the label stays
    loaded = load_run(run)
    outcomes, new_rows, carried = carry_decisions(
        queue, loaded.outcomes, loaded.refined_rows(), lambda: engine
    )
    assert carried.carried == () and [r.split(": ")[0] for r in carried.refused] == [ID_1301]
    assert {str(r["id"]): r["label"] for r in new_rows}[ID_1301] == "True"


def test_two_rows_for_one_item_are_refused_by_check_and_apply_naming_both(
    sample_run: Path, tmp_path: Path, engine: FeedbackEngine, capsys: pytest.CaptureFixture[str]
) -> None:
    run, queue = copy_sample(sample_run, tmp_path)
    rows = list(read_queue(queue))
    at = next(i for i, r in enumerate(rows) if r.id == ID_1201)
    rows[at] = rows[at].replace(decision="relabel", final_label="Uncertain", note=NOTE_1201)
    skip = rows[at].replace(decision="skip", final_label="", note="not sure")
    rows.append(skip)
    starts = _write_raw(queue, rows)
    first = [r.id for r in rows].index(ID_1201)
    a_row, a_line, b_row, b_line = first + 2, starts[first], len(rows) + 1, starts[-1]
    assert b_line > a_line + 1  # multi-line cells: file lines differ from spreadsheet rows

    message = (
        f"two rows for one item: row {a_row} (line {a_line}) and row {b_row} (line {b_line}); "
        "keep one and delete the other"
    )
    assert main(["review", "check", str(queue), "--provers", "z3"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{queue}: row {b_row} (line {b_line}): {ID_1201}: {message}",
        f"{queue}: 5 rows, 2 decided, 0 valid, 1 with problems",
    ]
    with pytest.raises(ApplyRefused) as refused:
        apply_review(queue, load_run(run), engine)
    assert [(p.row, p.line, p.item_id, p.message) for p in refused.value.problems] == [
        (b_row, b_line, ID_1201, message)
    ]
    assert run_folders(run.parent) == [run]
    assert refined(run)[ID_1201]["label"] == "True"


@pytest.mark.usefixtures("restore_field_limit")
def test_a_cell_over_csvs_field_limit_is_read_and_the_tool_writes_none(
    sample_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, queue = copy_sample(sample_run, tmp_path)
    rows = by_id(queue)
    note = ("¬ambiguous ∀ retrievers? " * 8000)[:200_000]
    rows[ID_1301] = rows[ID_1301].replace(decision="skip", note=note)
    write_rows(queue, rows.values())
    csv.field_size_limit(STOCK_FIELD_LIMIT)  # as a fresh process has it
    with queue.open(encoding="utf-8-sig", newline="") as f, pytest.raises(csv.Error):
        list(csv.reader(f))  # what a stock reader makes of it

    assert main(["review", "status", "--queue", str(queue)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"{queue}: 4 items, 1 decided, 3 left"
    assert main(["review", "check", str(queue), "--provers", "z3"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{queue}: 4 rows, 1 decided, 1 valid, 0 with problems"
    ]
    assert by_id(queue)[ID_1301].note == note
    # a later Refine of the split merges into the queue as usual
    outcomes = load_run(run).outcomes
    assert write_queue(queue, queue_rows(outcomes)) == MergeReport(kept_decisions=1, refreshed=3)
    assert by_id(queue)[ID_1301].note == note

    # the tool itself never writes a cell over CELL_LIMIT, and says where the rest is
    assert CELL_LIMIT == 32 * 1024
    [outcome] = [o for o in outcomes if o.id == ID_301]
    critique = "∀x critique " * 20_000
    huge = outcome.replace(critique=critique, evidence="e" * 300_000, findings=("f" * 150_000,))
    fresh = tmp_path / "fresh.csv"
    write_queue(fresh, queue_rows([huge]))
    with fresh.open(encoding="utf-8-sig", newline="") as f:
        cells = [cell for record in csv.reader(f) for cell in record]
    assert max(len(cell.encode("utf-8")) for cell in cells) <= CELL_LIMIT
    [row] = read_queue(fresh)
    tail = (
        "more characters; the full text is item folio-sample/all/301 in the run folder's "
        "outcomes.jsonl and audit.jsonl]"
    )
    for column, text in (("critique", critique), ("evidence", "e" * 300_000)):
        kept, marker = row.cells()[column].split("\n[… cut by FOL Refinery: ")
        assert text.startswith(kept) and len(kept) > CELL_LIMIT // 4
        assert marker == f"{len(text) - len(kept)} {tail}"
    assert row.original_fol == by_id(queue)[ID_301].original_fol  # short cells untouched
    assert not tool_cells_edited(row)


def test_a_killed_writers_temp_files_are_removed_by_the_next_writer(
    sample_run: Path, tmp_path: Path
) -> None:
    _, queue = copy_sample(sample_run, tmp_path)
    before = read_queue(queue)
    leftovers = [tmp_path / ".queue.csv.k1ll3d.tmp", tmp_path / ".queue.csv.0ther.tmp"]
    for leftover in leftovers:
        leftover.write_text("id\r\nhalf a row", encoding="utf-8")
    other = tmp_path / ".notes.csv.x.tmp"  # another file's temp: not the queue's to remove
    other.write_text("", encoding="utf-8")
    save_decision(queue, ID_1301, {"decision": "skip", "reviewer": "ann"})
    assert [p.exists() for p in leftovers] == [False, False] and other.exists()
    after = read_queue(queue)
    assert [r.id for r in after] == [r.id for r in before]
    assert {r.id: r.decision for r in after}[ID_1301] == "skip"


def test_a_forged_proposal_is_refused_and_only_the_tools_seal_vouches_for_an_older_one(
    sample_run: Path, tmp_path: Path, engine: FeedbackEngine
) -> None:
    # accept_proposal of a proposal edited by hand, its unkeyed row_hash recomputed: the row
    # would pass off the annotator's FOL as the tool's proposal
    run, queue = copy_sample(sample_run, tmp_path)
    key = queue_key(sample_run.parent.parent.parent / "state")
    assert key is not None  # the run that wrote the queue made the state folder's key
    rows = by_id(queue)
    assert sealed(rows[ID_203].cells(), key)  # every row the tool writes is sealed
    decided = rows[ID_203].replace(decision="accept_proposal", final_label="False", note=NOTE_203)
    forged = decided.replace(proposed_fol=decided.original_fol)
    rows[ID_203] = forged.replace(row_hash=row_hash(forged.cells()))
    assert not tool_cells_edited(rows[ID_203])  # self-consistent to anyone without the key
    write_rows(queue, rows.values())

    with pytest.raises(ApplyRefused) as refused:
        apply_review(queue, load_run(run), engine, key=key)
    [problem] = refused.value.problems
    assert problem.item_id == ID_203 and problem.message.startswith(
        f"tool-owned column proposed_fol was edited: it was {decided.proposed_fol!r} "
        f"(as run {run.name} has it)"
    )
    assert run_folders(run.parent) == [run]  # nothing applied

    # the same cells sealed with the key: a proposal an earlier run of the tool wrote
    older = rows[ID_203].replace(row_seal=seal(rows[ID_203].cells(), key))
    tool = {o.id: queue_row(o) for o in load_run(run).outcomes}[ID_203]
    assert edited_tool_cells(older, tool, run.name, key) == []
    assert edited_tool_cells(older, tool, run.name, None) != []  # no key: the run decides
    assert edited_tool_cells(older, tool, run.name, b"another state folder's key") != []
