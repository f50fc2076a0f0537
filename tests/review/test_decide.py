"""Review decisions: what each one resolves to, `check` of a spreadsheet-edited queue (real provers,
spreadsheet rows and file lines), deliberate label changes, the `review check` command,
spreadsheet round trips, `save_decision` and `queue_status`."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from refinery.cli import main
from refinery.outcomes import Outcome
from refinery.prove.verdict import Budget
from refinery.review.decide import (
    Draft,
    Resolution,
    RowCheck,
    RowProblem,
    check_queue,
    check_row,
    decision_fields,
    draft_decision,
    from_proposal,
    resolve,
)
from refinery.review.feedback import FeedbackEngine
from refinery.review.ledger import queue_status
from refinery.review.queue import (
    CHANGED_SINCE_DECISION,
    COLUMNS,
    DECISION_COLUMNS,
    MERGE_CONFLICT,
    NOT_IN_LATEST_RUN,
    QueueRow,
    queue_rows,
)
from refinery.review.record import save_decision
from refinery.review.sheet import read_queue, read_queue_lines, write_rows
from vampire.registry import build_provers

from fakes import queue_outcome

SYMBOLS = "∀∃¬∧∨→↔⊕"
ORIGINAL = "∀x (Dog(x) → Bark(x))\nDog(rex)\nBark(rex)"
PROPOSED = "∀x (Dog(x) → Bark(x))\nDog(rex) ∧ ¬Cat(rex)\nBark(rex)"
ID_203, ID_301, ID_1201, ID_1301 = (f"folio-sample/all/{n}" for n in (203, 301, 1201, 1301))
# 301's premise 0 lacks its closing parenthesis: a final FOL that keeps it does not parse
UNBALANCED_301 = (
    "∀x (Train(x) ∧ Delayed(x) → MissConnection(passengers)\n"
    "Train(the815) ∧ Delayed(the815)\n"
    "Compensated(passengers)"
)
NOTE_1301 = "The NL says Max is the retriever; the FOL says rex, the gold label is right."
NOTE_203 = "The FOL and both provers agree Mara can borrow books: the conclusion is False."
NOTE_1201 = "No bird here flies, so nothing settles kiwi: Uncertain."


def row(**cells: str) -> QueueRow:
    """A queue row with an original and a proposed FOL, gold False, suggested True."""
    base = QueueRow(
        id="folio-v2/validation/1",
        original_fol=ORIGINAL,
        proposed_fol=PROPOSED,
        gold_label="False",
        suggested_label="True",
    )
    return base.replace(**cells)


def resolved(**cells: str) -> Resolution:
    result = resolve(row(**cells))
    assert isinstance(result, Resolution), result
    return result


def refused(**cells: str) -> str:
    result = resolve(row(**cells))
    assert isinstance(result, str), result
    return result


def sample_queue(sample_run: Path, tmp_path: Path) -> Path:
    """A writable copy of the sample run's review queue."""
    path = tmp_path / "review.csv"
    shutil.copyfile(sample_run.parent.parent.parent / "review.csv", path)
    return path


def row_starts(path: Path) -> dict[str, int]:
    """The physical line (1-based) where each row starts, found by scanning the file's text."""
    text = path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")
    return {
        line.split(",", 1)[0]: n
        for n, line in enumerate(text.split("\n"), start=1)
        if line.startswith("folio-sample/all/")
    }


def raw_records(path: Path) -> dict[str, str]:
    """Each row's raw text in the file, from its first line up to the next row's."""
    lines = path.read_bytes().decode("utf-8-sig").split("\n")  # "\r" stays: line ends compare too
    starts = sorted((n, item_id) for item_id, n in row_starts(path).items())
    bounds = [n for n, _ in starts[1:]] + [len(lines) + 1]
    return {
        item_id: "\n".join(lines[n - 1 : end - 1])
        for (n, item_id), end in zip(starts, bounds, strict=True)
    }


def spreadsheet_edit(path: Path, edits: dict[str, dict[str, str]]) -> None:
    """What an analyst does in pandas: read every cell as text, set cells by id, save."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    for item_id, cells in edits.items():
        for column, value in cells.items():
            frame.loc[frame["id"] == item_id, column] = value
    frame.to_csv(path, index=False)


def text_edit(path: Path, item_id: str, **cells: str) -> None:
    """Type into an open row's state and decision cells with a text editor (CRLF kept)."""
    text = path.read_bytes().decode("utf-8-sig")
    start = text.index("\r\n" + item_id + ",")
    tail = ",open,,,,,,,\r\n"
    at = text.index(tail, start)
    out = io.StringIO()
    values = {"status": "open", "flag": ""} | cells
    csv.writer(out, lineterminator="\r\n").writerow(
        [values.get(c, "") for c in ("status", "flag", *DECISION_COLUMNS)]
    )
    text = text[:at] + "," + out.getvalue() + text[at + len(tail) :]
    path.write_bytes(text.encode("utf-8-sig"))


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> FeedbackEngine:
    cache = tmp_path_factory.mktemp("review-decide") / "verdicts.sqlite"
    return FeedbackEngine(build_provers(["z3", "eprover"]), Budget(seconds=5), cache)


# --- resolve --------------------------------------------------------------------------------


def test_accept_proposal_takes_the_proposed_fol_and_the_suggested_label() -> None:
    r = resolved(decision="accept_proposal")
    assert r.premises_fol == ("∀x (Dog(x) → Bark(x))", "Dog(rex) ∧ ¬Cat(rex)")
    assert r.conclusion_fol == "Bark(rex)"
    assert r.label == "True"
    assert r.fol_changed and r.label_changed


def test_accept_proposal_prefers_the_reviewers_final_label() -> None:
    r = resolved(decision="accept_proposal", final_label="Uncertain")
    assert r.label == "Uncertain" and r.premises_fol[1] == "Dog(rex) ∧ ¬Cat(rex)"


def test_accept_proposal_without_a_proposed_fol_keeps_the_original_fol() -> None:
    r = resolved(decision="accept_proposal", proposed_fol="")
    assert r.premises_fol == ("∀x (Dog(x) → Bark(x))", "Dog(rex)")
    assert r.label == "True"
    assert not r.fol_changed and r.label_changed


def test_accept_proposal_without_a_suggested_label_keeps_the_gold_label() -> None:
    r = resolved(decision="accept_proposal", suggested_label="")
    assert r.label == "False" and not r.label_changed and r.fol_changed


def test_accept_proposal_with_nothing_proposed_is_refused() -> None:
    message = refused(decision="accept_proposal", proposed_fol="", suggested_label="")
    assert message == "accept_proposal, but nothing was proposed for this item"


def test_keep_original_changes_nothing() -> None:
    r = resolved(decision="keep_original")
    assert r == Resolution(
        premises_fol=("∀x (Dog(x) → Bark(x))", "Dog(rex)"),
        conclusion_fol="Bark(rex)",
        label="False",
        fol_changed=False,
        label_changed=False,
    )
    assert resolved(decision="keep_original", final_label="False").label == "False"


def test_keep_original_with_a_different_label_is_refused() -> None:
    message = refused(decision="keep_original", final_label="True")
    assert message == "keep_original keeps the gold label; use relabel or edit to change it"


def test_edit_with_a_final_fol_only_keeps_the_gold_label() -> None:
    # a spreadsheet may append a newline to the cell; it is not an extra formula
    r = resolved(decision="edit", final_fol="P(rex)\n¬Q(rex)\nR(rex)\n")
    assert r.premises_fol == ("P(rex)", "¬Q(rex)") and r.conclusion_fol == "R(rex)"
    assert r.label == "False" and r.fol_changed and not r.label_changed


def test_edit_with_a_final_label_only_keeps_the_original_fol() -> None:
    r = resolved(decision="edit", final_label="Uncertain")
    assert r.premises_fol == ("∀x (Dog(x) → Bark(x))", "Dog(rex)")
    assert r.label == "Uncertain" and not r.fol_changed and r.label_changed


def test_edit_with_both_uses_both() -> None:
    r = resolved(decision="edit", final_fol="P(rex)\r\nQ(rex)", final_label="True")
    assert r.premises_fol == ("P(rex)",) and r.conclusion_fol == "Q(rex)" and r.label == "True"


def test_edit_with_nothing_is_refused() -> None:
    assert refused(decision="edit") == "edit needs final_fol and/or final_label"
    assert refused(decision="edit", final_fol="  \n ") == "edit needs final_fol and/or final_label"


def test_relabel_keeps_the_fol_and_sets_the_label() -> None:
    r = resolved(decision="relabel", final_label="Uncertain", final_fol="ignored\nformula")
    assert r.premises_fol == ("∀x (Dog(x) → Bark(x))", "Dog(rex)")
    assert r.label == "Uncertain" and not r.fol_changed and r.label_changed


def test_relabel_without_a_label_is_refused() -> None:
    assert refused(decision="relabel") == "relabel needs final_label"


def test_skip_changes_nothing() -> None:
    r = resolved(decision=" skip ")
    assert r.label == "False" and not r.fol_changed and not r.label_changed


def test_an_unknown_decision_is_refused_with_the_allowed_ones() -> None:
    message = refused(decision="acept")
    assert message.startswith("unknown decision 'acept'")
    assert "accept_proposal, keep_original, edit, relabel, skip" in message
    assert refused(decision="").startswith("unknown decision ''")


@pytest.mark.parametrize("label", ["Maybe", "Inconsistent", "Unknown", "true"])
@pytest.mark.parametrize("decision", ["relabel", "edit", "accept_proposal", "keep_original"])
def test_a_final_label_outside_the_gold_labels_is_refused(decision: str, label: str) -> None:
    message = refused(decision=decision, final_label=label)
    assert message == f"final_label {label!r} is not one of True, False, Uncertain"


@pytest.mark.parametrize(
    "cells",
    [
        {"decision": "edit", "final_fol": "P(rex)"},
        {"decision": "accept_proposal", "proposed_fol": "P(rex)"},
        {"decision": "keep_original", "original_fol": "Bark(rex)"},
    ],
)
def test_a_final_fol_of_fewer_than_two_lines_is_refused(cells: dict[str, str]) -> None:
    assert "premises, one per line, then the conclusion on the last line" in refused(**cells)


# --- check_queue on a spreadsheet-edited queue (real provers) -------------------------------


@pytest.mark.prover
def test_check_reports_problems_at_the_spreadsheet_row_and_file_line_of_each_row(
    sample_run: Path, tmp_path: Path, engine: FeedbackEngine
) -> None:
    path = sample_queue(sample_run, tmp_path)
    spreadsheet_edit(
        path,
        {
            ID_203: {"decision": "acept"},
            ID_301: {"decision": "edit", "final_fol": UNBALANCED_301},
            ID_1201: {"decision": "relabel", "final_label": "Maybe"},
            ID_1301: {"decision": "keep_original"},
        },
    )
    starts = row_starts(path)
    assert (
        len(set(starts.values())) == 4 and starts[ID_301] > starts[ID_203] + 1
    )  # cells span lines
    problems, valid = check_queue(read_queue_lines(path), engine)
    assert valid == {}
    # a spreadsheet shows the header as row 1 and each record as one row, however many lines
    assert [(p.row, p.line, p.item_id) for p in problems] == [
        (2, starts[ID_203], ID_203),
        (3, starts[ID_301], ID_301),
        (4, starts[ID_1201], ID_1201),
        (5, starts[ID_1301], ID_1301),
    ]
    bad_decision, no_parse, bad_label, contradiction = (p.message for p in problems)
    assert bad_decision.startswith("unknown decision 'acept'")
    assert bad_label == "final_label 'Maybe' is not one of True, False, Uncertain"
    first, *rest = no_parse.split("\n")
    assert first == "the final FOL does not parse:"
    assert rest[0].startswith("premises[0]:1:")
    assert "∀x (Train(x) ∧ Delayed(x) → MissConnection(passengers)" in rest[1]
    assert rest[2].strip() == "^" and len(rest[2]) > len(rest[1]) - 5  # the caret at the end
    assert contradiction == (
        "final label True contradicts the provers, which derive Uncertain from the final FOL; "
        "add a note saying why"
    )


@pytest.mark.prover
def test_a_label_against_the_provers_is_fine_with_a_note(
    sample_run: Path, tmp_path: Path, engine: FeedbackEngine
) -> None:
    path = sample_queue(sample_run, tmp_path)
    spreadsheet_edit(
        path,
        {
            ID_203: {
                "decision": "accept_proposal",
                "final_label": "False",
                "note": NOTE_203,
                "reviewer": "ann",
            },
            ID_1301: {"decision": "keep_original", "note": NOTE_1301},
        },
    )
    problems, valid = check_queue(read_queue_lines(path), engine)
    assert problems == []
    assert set(valid) == {ID_203, ID_1301}  # 301 and 1201 are undecided: not checked
    resolution, feedback = valid[ID_1301]
    assert resolution.label == "True" and feedback is not None and feedback.label == "Uncertain"
    resolution, feedback = valid[ID_203]
    assert resolution.label == "False" and feedback is not None and feedback.label == "False"


@pytest.mark.prover
def test_check_flags_conflicts_and_changed_items_after_a_text_edit(
    sample_run: Path, tmp_path: Path, engine: FeedbackEngine
) -> None:
    path = sample_queue(sample_run, tmp_path)
    before = row_starts(path)
    text_edit(
        path,
        ID_203,
        flag=MERGE_CONFLICT,
        decision="accept_proposal",
        final_label="False",
        note="ann and bob disagreed\r\nsettled: the provers are right",
    )
    text_edit(
        path,
        ID_1201,
        flag=CHANGED_SINCE_DECISION,
        decision="relabel",
        final_label="Uncertain",
        note=NOTE_1201,
    )
    text_edit(path, ID_1301, decision="keep_original", note=NOTE_1301)
    starts = row_starts(path)
    # the two-line note pushes every later row one line down
    assert starts[ID_1201] == before[ID_1201] + 1 and starts[ID_1301] == before[ID_1301] + 1
    problems, valid = check_queue(read_queue_lines(path), engine)
    assert problems == [
        RowProblem(
            2,
            starts[ID_203],
            ID_203,
            "merge conflict between shards: settle the decision, then clear the flag",
        ),
        RowProblem(
            4,
            starts[ID_1201],
            ID_1201,
            "the item changed since this decision: look again, then clear the flag "
            "changed_since_decision",
        ),
    ]
    assert set(valid) == {ID_1301}


# --- the `review check` command -------------------------------------------------------------


@pytest.mark.prover
def test_review_check_prints_one_line_per_problem_and_fails(
    sample_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = sample_queue(sample_run, tmp_path)
    spreadsheet_edit(
        path,
        {
            ID_203: {"decision": "Acept"},
            ID_1201: {"decision": "relabel", "final_label": "Maybe"},
            ID_1301: {"decision": "keep_original"},
        },
    )
    starts = row_starts(path)
    code = main(["review", "check", "--queue", str(path), "--provers", "z3,eprover"])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert out == [
        f"{path}: row 2 (line {starts[ID_203]}): {ID_203}: unknown decision 'Acept' (allowed: "
        "accept_proposal, keep_original, edit, relabel, skip)",
        f"{path}: row 4 (line {starts[ID_1201]}): {ID_1201}: final_label 'Maybe' is not one of "
        "True, False, Uncertain",
        f"{path}: row 5 (line {starts[ID_1301]}): {ID_1301}: final label True contradicts the "
        "provers, which derive Uncertain from the final FOL; add a note saying why",
        f"{path}: 4 rows, 3 decided, 0 valid, 3 with problems",
    ]


@pytest.mark.prover
def test_review_check_passes_a_clean_queue(
    sample_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = sample_queue(sample_run, tmp_path)
    save_decision(
        path, ID_203, {"decision": "accept_proposal", "final_label": "False", "note": NOTE_203}
    )
    save_decision(
        path, ID_1201, {"decision": "Relabel", "final_label": "uncertain", "note": NOTE_1201}
    )
    save_decision(path, ID_1301, {"decision": "keep_original", "note": NOTE_1301})
    code = main(["review", "check", str(path), "--provers", "z3,eprover"])
    assert capsys.readouterr().out.splitlines() == [
        f"{path}: 4 rows, 3 decided, 3 valid, 0 with problems"
    ]
    assert code == 0


# --- spreadsheet round trip -----------------------------------------------------------------


def test_a_pandas_and_windows_resave_keeps_symbols_and_decisions(
    sample_run: Path, tmp_path: Path
) -> None:
    path = sample_queue(sample_run, tmp_path)
    final_fol = (
        "∀x (Train(x) ∧ Delayed(x) → MissConnection(passengers))\n"
        "∃y (Train(y) ∨ ¬Delayed(y)) ↔ (Late(the815) ⊕ OnTime(the815))\n"
        "Compensated(passengers)"
    )
    save_decision(
        path,
        ID_203,
        {"decision": "accept_proposal", "reviewer": "ann", "note": f"symbols: {SYMBOLS}"},
    )
    save_decision(
        path,
        ID_301,
        {
            "decision": "edit",
            "final_fol": final_fol,
            "final_label": "Uncertain",
            "reviewer": "bob",
            "note": "-premise 2 rewritten\n=not a formula",
            "decided_at": "2026-01-02T03:04:05+00:00",
        },
    )
    save_decision(path, ID_1201, {"decision": "relabel", "final_label": "Uncertain"})
    save_decision(path, ID_1301, {"decision": "skip", "note": "¬ambiguous\n∀ retrievers?"})
    before = read_queue(path)

    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.to_csv(path, index=False)
    text = path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n").replace("\n", "\r\n")
    path.write_bytes(text.encode("utf-8-sig"))

    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert raw.count(b"\n") == raw.count(b"\r\n")  # CRLF everywhere ...
    assert "¬Delayed(y)) ↔ (Late(the815) ⊕ OnTime(the815))\r\nCompensated" in text  # ... in cells
    after = read_queue(path)
    assert after == before
    decided = {r.id: r for r in after}
    assert decided[ID_301].final_fol == final_fol
    assert decided[ID_301].note == "-premise 2 rewritten\n=not a formula"
    assert all(ch in decided[ID_203].note + final_fol for ch in SYMBOLS)
    assert decided[ID_1301].note == "¬ambiguous\n∀ retrievers?"


# --- save_decision --------------------------------------------------------------------------


def test_save_decision_rewrites_one_row_and_clears_review_flags(
    sample_run: Path, tmp_path: Path
) -> None:
    path = sample_queue(sample_run, tmp_path)
    flags = f"{CHANGED_SINCE_DECISION};{NOT_IN_LATEST_RUN};{MERGE_CONFLICT}"
    rows = [r.replace(flag=flags) if r.id in (ID_301, ID_1201) else r for r in read_queue(path)]
    write_rows(path, rows)
    records = raw_records(path)
    assert len(records) == 4 and all(r.count("\n") >= 2 for r in records.values())
    before = {r.id: r for r in read_queue(path)}

    saved = save_decision(
        path, ID_1201, {"decision": "relabel", "final_label": "Uncertain", "reviewer": "ann"}
    )
    after = {r.id: r for r in read_queue(path)}
    assert saved == {r.id: r for r in read_queue(path)}[ID_1201]  # the row as now on disk
    assert saved.status == "decided" and saved.flag == NOT_IN_LATEST_RUN
    assert after[ID_1201] == before[ID_1201].replace(
        decision="relabel",
        final_label="Uncertain",
        reviewer="ann",
        status="decided",
        flag=NOT_IN_LATEST_RUN,
    )
    assert after[ID_301].flag == flags  # only the decided row's flags are cleared
    new_records = raw_records(path)
    assert new_records[ID_1201] != records[ID_1201]
    for item_id in (ID_203, ID_301, ID_1301):
        assert new_records[item_id] == records[item_id]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "review.csv",
        "review.csv.journal.jsonl",  # the decision, journaled before the queue was written
        "review.csv.lock",
        "review.csv.written.json",  # which version the tool wrote last
    ]


def test_save_decision_refuses_an_unknown_id_or_column(sample_run: Path, tmp_path: Path) -> None:
    path = sample_queue(sample_run, tmp_path)
    before = path.read_bytes()
    with pytest.raises(KeyError, match="folio-sample/all/999"):
        save_decision(path, "folio-sample/all/999", {"decision": "skip"})
    with pytest.raises(ValueError, match="not decision columns"):
        save_decision(path, ID_203, {"decision": "skip", "gold_label": "False"})
    assert path.read_bytes() == before  # and nothing journaled
    assert sorted(p.name for p in tmp_path.iterdir()) == ["review.csv", "review.csv.lock"]


# --- queue_status ---------------------------------------------------------------------------


def outcome(n: int, **over: Any) -> Outcome:
    return queue_outcome(n, **({"proposed_premises_fol": None, "critique": "", "rounds": 1} | over))


def test_queue_status_counts_reasons_decisions_reviewers_and_flags() -> None:
    rows = queue_rows([outcome(n) for n in range(1, 6)])
    # a queue edited by hand may join several reasons in one cell, or leave it empty
    for n, reason in ((2, "lint_error; label_mismatch"), (3, "lint_error;lint_error"), (4, "")):
        rows[n - 1] = rows[n - 1].replace(reason=reason)
    decisions = {
        1: {"decision": "accept_proposal", "reviewer": "ann"},
        2: {"decision": "relabel", "final_label": "True", "reviewer": " ann "},
        3: {"decision": "skip", "flag": f"{MERGE_CONFLICT};{CHANGED_SINCE_DECISION}"},
        4: {"note": "not sure yet", "flag": MERGE_CONFLICT},
    }
    for n, cells in decisions.items():
        rows[n - 1] = rows[n - 1].replace(**cells)
    assert queue_status(rows) == {
        "total": {"items": 5, "decided": 3, "left": 2},
        "reason": {"label_mismatch": 3, "lint_error": 2, "(none)": 1},
        "decision": {"accept_proposal": 1, "relabel": 1, "skip": 1, "(open)": 2},
        "reviewer": {"ann": 2, "(unnamed)": 1},
        "flag": {MERGE_CONFLICT: 2, CHANGED_SINCE_DECISION: 1},
    }
    assert queue_status([]) == {
        "total": {},
        "reason": {},
        "decision": {},
        "reviewer": {},
        "flag": {},
    }


def test_queue_status_counts_a_misspelled_decision_as_left_and_invalid() -> None:
    rows = queue_rows([outcome(1), outcome(2)])
    rows[0] = rows[0].replace(decision="acept", reviewer="ann")
    status = queue_status(rows)
    assert status["total"] == {"items": 2, "left": 2, "invalid": 1}
    assert status["decision"] == {"acept": 1, "(open)": 1}
    assert status["reviewer"] == {}


def test_a_single_formula_with_a_trailing_newline_asks_for_the_layout() -> None:
    assert resolve(row(decision="edit", final_fol="P(a)\n")) == (
        "the final FOL needs the premises, one per line, then the conclusion on the last line"
    )


# --- deliberate label changes ---------------------------------------------------------------


@pytest.mark.prover
def test_accept_proposal_changes_a_label_only_when_written_out_and_explained(
    sample_run: Path, tmp_path: Path, engine: FeedbackEngine
) -> None:
    rows = {r.id: r for r in read_queue(sample_queue(sample_run, tmp_path))}
    item = rows[ID_203]  # gold True, suggested False

    def check(**cells: str) -> RowCheck:
        return check_row(item.replace(**({"decision": "accept_proposal"} | cells)), engine)

    silent = check()
    assert silent.problems == [
        "accept_proposal changes the label True → False: confirm it by writing False in "
        "final_label, and add a note saying why"
    ]
    assert silent.needs_note and silent.label_change == ("True", "False")
    unexplained = check(final_label="False")
    assert unexplained.problems == ["the label changes True → False: add a note saying why"]
    unconfirmed = check(note=NOTE_203)
    assert unconfirmed.problems == [
        "accept_proposal changes the label True → False: confirm it by writing False in final_label"
    ]
    done = check(final_label="False", note=NOTE_203)
    assert done.problems == [] and done.label_change == ("True", "False")
    assert done.resolution is not None and done.resolution.label == "False"


@pytest.mark.prover
@pytest.mark.parametrize("decision", ["relabel", "edit"])
def test_every_label_change_needs_a_note(
    decision: str, sample_run: Path, tmp_path: Path, engine: FeedbackEngine
) -> None:
    rows = {r.id: r for r in read_queue(sample_queue(sample_run, tmp_path))}
    item = rows[ID_1201].replace(decision=decision, final_label="Uncertain")
    # Uncertain is what both provers derive: agreeing with them is no reason to skip the note
    assert check_row(item, engine).problems == [
        "the label changes True → Uncertain: add a note saying why"
    ]
    assert check_row(item.replace(note=NOTE_1201), engine).problems == []
    assert check_row(item.replace(final_label="True"), engine).label_change is None


def test_a_reviewers_ascii_fol_is_stored_in_canonical_symbols() -> None:
    r = resolved(
        decision="edit", final_fol="forall x (Dog(x) -> Bark(x))\nDog(rex) & ~Cat(rex)\nBark(rex)"
    )
    assert r.premises_fol == ("∀x (Dog(x) → Bark(x))", "Dog(rex) ∧ ¬Cat(rex)")
    fields = decision_fields(
        row(), "edit", Draft(fol=["exists y P(y) | Q(y)", "P(a)"], label="False")
    )
    assert fields["final_fol"] == "∃y P(y) ∨ Q(y)\nP(a)"


# --- drafts ---------------------------------------------------------------------------------


def test_a_draft_starts_from_the_reviewers_fol_else_the_original_never_the_proposal() -> None:
    # a queued proposal is one the tool could not confirm: never the answer before anyone asks
    assert Draft.start(row()).fol == ORIGINAL.split("\n")
    assert Draft.start(row(proposed_fol="")).fol == ORIGINAL.split("\n")
    draft = Draft.start(row())
    assert from_proposal(row(), draft) and draft.fol == PROPOSED.split("\n")
    assert draft.label == "False"  # the label stays as it was
    assert not from_proposal(row(proposed_fol=""), Draft.start(row()))
    mine = "P(rex)\nQ(rex)"
    assert Draft.start(row(final_fol=mine, final_label="True")) == Draft(
        fol=["P(rex)", "Q(rex)"], label="True"
    )
    assert Draft.start(row()).label == "False"  # the gold label, never the suggested one


def test_what_saving_a_draft_decides() -> None:
    item = row()
    assert draft_decision(item, Draft(fol=ORIGINAL.split("\n"), label="False")) is None
    assert draft_decision(item, Draft(fol=ORIGINAL.split("\n"), label="True")) == "relabel"
    assert draft_decision(item, Draft(fol=PROPOSED.split("\n"), label="False")) == "edit"
    ascii_original = ["forall x (Dog(x) -> Bark(x))", "Dog(rex)", "Bark(rex)"]
    assert draft_decision(item, Draft(fol=ascii_original, label="False")) is None


def test_decision_fields_write_a_label_change_out() -> None:
    draft = Draft(fol=PROPOSED.split("\n"), label="Uncertain", note="why")
    assert decision_fields(row(), "accept_proposal", draft) == {
        "decision": "accept_proposal",
        "final_label": "True",  # the suggested label, spelled out
        "final_fol": "",
        "note": "why",
    }
    assert (
        decision_fields(row(suggested_label="False"), "accept_proposal", draft)["final_label"] == ""
    )
    assert decision_fields(row(), "relabel", draft)["final_label"] == "Uncertain"
    assert decision_fields(row(), "keep_original", draft)["final_label"] == ""
    edit = decision_fields(row(), "edit", draft)
    assert edit["final_fol"] == PROPOSED and edit["final_label"] == "Uncertain"


def test_spreadsheet_rows_count_blank_records_and_multi_line_cells(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    header = ",".join(COLUMNS)
    text = f'{header}\r\nid1,,,,,"two\nlines"\r\n\r\nid2\r\n'
    path.write_bytes(text.encode("utf-8-sig"))
    assert [(e.row, e.line, e.item.id) for e in read_queue_lines(path)] == [
        (2, 2, "id1"),
        (4, 5, "id2"),  # a spreadsheet shows the blank record as row 3
    ]
