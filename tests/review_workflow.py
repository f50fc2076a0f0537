"""One annotator's session on the sample queue, as the terminal and the browser tests play it.

The sample run's queue holds four items. The session decides three of them:

- 203 (gold True, both provers and the suggested label False): accept the proposal, which
  changes the label True → False: confirmed, with a note;
- 301 (a premise with a free variable; the proposal already closed premises[0]'s parenthesis):
  edit premises[2], first with a typo (refused), then fixed: both provers now derive True;
- 1201 (gold True, both provers Uncertain): relabel to Uncertain, confirmed, with a note.

1301 stays open. `assert_applied_exactly` then runs `review apply` and checks that the new
version differs from its parent in exactly those three items and those fields.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from refinery.cli import main
from refinery.review.sheet import read_queue
from refinery.runs import load_run, run_folders

ID_203, ID_301, ID_1201, ID_1301 = (f"folio-sample/all/{n}" for n in (203, 301, 1201, 1301))
FIXED_1 = "∀x (Train(x) ∧ Delayed(x) → MissConnection(passengers))"  # from the proposal
PREMISE_3 = "MissConnection(passengers, x) → Compensated(passengers)"  # as proposed
TYPO_3 = PREMISE_3[:-1]  # the last ")" deleted
FIXED_3 = "MissConnection(passengers) → Compensated(passengers)"
FINAL_301 = [FIXED_1, "Train(the815) ∧ Delayed(the815)", FIXED_3, "Compensated(passengers)"]
#: Why the provers say False for 203: the premises that prove the negated conclusion.
WHY_203 = "proves its negation: premises[0], premises[1], premises[2] (eprover, z3)"
NOTE_203 = "Mara is a student or a teacher, so she can borrow books: False, as both provers say."
NOTE_1201 = "No bird here flies, so nothing settles kiwi: Uncertain ∀∃¬."


def copy_sample(sample_run: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the sample run (in its dataset/split folder) and of its review queue."""
    run = tmp_path / "refined" / "folio-sample" / "all" / sample_run.name
    shutil.copytree(sample_run, run)
    queue = tmp_path / "queue.csv"
    shutil.copy(sample_run.parent.parent.parent / "review.csv", queue)
    return run, queue


def assert_decided(queue: Path, reviewer: str) -> None:
    """The queue holds exactly the session's three decisions, by `reviewer`."""
    rows = {r.id: r for r in read_queue(queue)}
    accept = rows[ID_203]
    assert (accept.decision, accept.final_label, accept.note) == (
        "accept_proposal",
        "False",
        NOTE_203,
    )
    edit = rows[ID_301]
    assert (edit.decision, edit.final_label) == ("edit", "")
    assert edit.final_fol.split("\n") == FINAL_301
    relabel = rows[ID_1201]
    assert (relabel.decision, relabel.final_label, relabel.note) == (
        "relabel",
        "Uncertain",
        NOTE_1201,
    )
    for decided in (accept, edit, relabel):
        assert decided.reviewer == reviewer and decided.decided_at
        assert decided.status == "decided" and decided.flag == ""
    assert rows[ID_1301].decision == "" and rows[ID_1301].status == "open"


def assert_applied_exactly(run: Path, queue: Path, reviewer: str) -> None:
    """`review apply` writes a version that differs from `run` in exactly the decided fields."""
    assert main(["review", "apply", "--queue", str(queue), "--run", str(run)]) == 0
    before = {r["id"]: r for r in load_run(run).refined_rows()}
    [_, new_dir] = run_folders(run.parent)
    new = load_run(new_dir)
    assert new.meta["kind"] == "review" and new.meta["parent"] == run.name
    after = {r["id"]: r for r in new.refined_rows()}
    assert list(after) == list(before)
    changed = {}
    for item_id, row in after.items():
        diff = {k for k in row if row[k] != before[item_id].get(k)} - {"run_id"}
        if diff:
            changed[item_id] = diff
    review_columns = {"status", "review_decision", "reviewer", "reviewed_at"}
    assert changed == {
        ID_203: {"label", "review_note", *review_columns},
        ID_301: {"premises-FOL", "prover_label", *review_columns},
        ID_1201: {"label", "review_note", *review_columns},
    }
    assert (after[ID_203]["label"], after[ID_203]["original_label"]) == ("False", "True")
    assert after[ID_203]["review_note"] == NOTE_203
    assert after[ID_301]["premises-FOL"].split("\n") == FINAL_301[:-1]
    assert after[ID_301]["prover_label"] == "True"
    assert (after[ID_1201]["label"], after[ID_1201]["review_note"]) == ("Uncertain", NOTE_1201)
    assert {after[i]["status"] for i in changed} == {"reviewed"}
    assert {after[i]["reviewer"] for i in changed} == {reviewer}
    assert after[ID_1301]["status"] == "needs_review"
    report = (new_dir / "report.md").read_text(encoding="utf-8")
    assert "## Review round (3 decisions)" in report
    assert (
        f"| [{ID_1201}](#item-folio-sample-all-1201) | relabel | {reviewer} | True → Uncertain | 0 |"
        in report
    )
    audit = {
        json.loads(line)["id"]: json.loads(line)
        for line in (new_dir / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    }
    assert [e["where"] for e in audit[ID_301]["edits"]] == ["premises[0]", "premises[2]"]
