"""A premise fix made once for a story: carried into the story's other open items that hold the
premise, each checked by the real provers, saved where nothing needs a person, else drafted;
and undo, from the decision journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from refinery.prove.verdict import Budget
from refinery.review.feedback import FeedbackEngine
from refinery.review.journal import history
from refinery.review.queue import QueueRow, queue_rows
from refinery.review.record import decision_version, save_decision
from refinery.review.sheet import read_queue, write_queue
from refinery.review.story import story_drafts
from refinery.review.web.actions import Actions
from refinery.review.web.page import Filters, page_view
from vampire.registry import build_provers

from fakes import queue_outcome

FIX = "∀x (Dog(x) → ¬Bark(x))"  # premises[0], "All dogs bark." read as its opposite on purpose


def item(n: int, conclusion: str, gold: str, story: str = "s1") -> object:
    return queue_outcome(
        n,
        story_id=story,
        original_conclusion_fol=conclusion,
        gold_label=gold,
        proposed_premises_fol=None,
    )


@pytest.fixture
def queue(tmp_path: Path) -> Path:
    path = tmp_path / "review.csv"
    outcomes = [
        item(1, "Bark(rex)", "False"),  # the item being fixed
        item(2, "¬Bark(rex)", "True"),  # the fix proves its gold label: saved
        item(3, "Bark(rex)", "True"),  # the fix proves False against gold True: a person decides
        item(4, "¬Bark(rex)", "True", story="s2"),  # another story: untouched
        item(5, "¬Bark(rex)", "True"),  # decided already: untouched
    ]
    write_queue(path, queue_rows(outcomes))  # type: ignore[arg-type]
    rows = [r.replace(decision="skip") if r.id.endswith("/5") else r for r in read_queue(path)]
    write_queue(path, rows, merge=False)
    return path


def by_id(path: Path) -> dict[str, QueueRow]:
    return {r.id.rsplit("/", 1)[1]: r for r in read_queue(path)}


def test_the_fix_goes_to_the_storys_open_items_that_hold_the_premise(queue: Path) -> None:
    rows = read_queue(queue)
    first = by_id(queue)["1"]
    fol = [FIX, "Dog(rex)", "Bark(rex)"]
    found = {r.id.rsplit("/", 1)[1]: d.fol for r, d in story_drafts(rows, first.id, fol)}
    assert found == {"2": [FIX, "Dog(rex)", "¬Bark(rex)"], "3": [FIX, "Dog(rex)", "Bark(rex)"]}
    assert story_drafts(rows, first.id, ["∀x (Dog(x) → Bark(x))", "Dog(rex)", "¬Bark(rex)"]) == []
    view = page_view(rows, Filters(), first.id)["item"]
    assert [i.rsplit("/", 1)[1] for i in view["story_open"]] == ["2", "3"]


def test_each_item_is_saved_only_where_the_provers_need_no_person(
    queue: Path, tmp_path: Path
) -> None:
    engine = FeedbackEngine(build_provers(["z3", "eprover"]), Budget(seconds=5), tmp_path / "v")
    actions = Actions(queue, engine, reviewer="ann")
    first = by_id(queue)["1"]
    status, reply = actions.story_fix(first.id, [FIX, "Dog(rex)", "Bark(rex)"], "bob")
    assert status == 200
    assert [i.rsplit("/", 1)[1] for i in reply["saved"]] == ["2"]
    assert [i.rsplit("/", 1)[1] for i in reply["drafted"]] == ["3"]
    (why,) = reply["drafted"][by_id(queue)["3"].id]
    assert "contradicts the provers" in why
    after = by_id(queue)
    assert (after["2"].decision, after["2"].reviewer) == ("edit", "bob")
    assert after["2"].final_fol.split("\n") == [FIX, "Dog(rex)", "¬Bark(rex)"]
    assert after["2"].note == f"the premise fix of {first.id}, made for its whole story"
    # item 3 keeps the fix as its draft, undecided, for the annotator to confirm there
    assert after["3"].decision == "" and after["3"].final_fol.split("\n")[0] == FIX
    assert after["1"].decision == "" and after["1"].final_fol == ""  # saved on its own (w)
    assert (after["4"].final_fol, after["5"].final_fol) == ("", "")


def test_undo_puts_back_the_version_before_the_last_and_again_redoes(
    queue: Path, tmp_path: Path
) -> None:
    engine = FeedbackEngine(build_provers(["z3"]), Budget(seconds=5), tmp_path / "v")
    actions = Actions(queue, engine, reviewer="ann")
    target = by_id(queue)["2"]
    status, reply = actions.undo(target.id, decision_version(target))
    assert (status, reply["status"]) == (422, "refused")  # nothing saved yet: nothing to undo
    save_decision(queue, target.id, {"decision": "keep_original", "reviewer": "ann"})
    save_decision(queue, target.id, {"decision": "skip", "reviewer": "bob"})

    status, reply = actions.undo(target.id, decision_version(by_id(queue)["2"]))
    assert (status, reply["decision"]) == (200, "keep_original")
    assert (by_id(queue)["2"].decision, by_id(queue)["2"].reviewer) == ("keep_original", "ann")
    status, reply = actions.undo(target.id, decision_version(by_id(queue)["2"]))
    assert (status, reply["decision"]) == (200, "skip")  # undone again: the skip is back
    assert [r.decision for _, r in history(queue, target.id)] == [
        "keep_original", "skip", "keep_original", "skip"
    ]  # fmt: skip
    # a stale page (another annotator decided since) undoes nothing
    status, reply = actions.undo(target.id, decision_version(target))
    assert (status, reply["status"]) == (409, "conflict")
    assert by_id(queue)["2"].decision == "skip"
