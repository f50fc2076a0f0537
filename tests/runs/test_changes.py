"""Change-only reporting: hand-built outcome lists, then one real run folder against another."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from refinery.check import Checker
from refinery.outcomes import Outcome
from refinery.prove.verdict import Budget, Status
from refinery.runs import load_run, update_meta
from refinery.runs.changes import (
    CacheReuse,
    cache_reuse,
    changes_since_previous,
    compare,
    is_new_conflict,
    write_changes,
)

from fakes import ScriptedProver, make_item


def _o(
    item_id: str, status: str = "verified", reason: str = "", content: str = "h", **extra: Any
) -> Outcome:
    return Outcome.from_dict(
        {
            "id": item_id,
            "status": status,
            "reason": reason,
            "label": "True",
            "prover_label": "True",
            "content_hash": f"{item_id}-{content}",
            **extra,
        }
    )


BASE = [
    _o("a"),
    _o("b", "repaired"),
    _o("c", "needs_review", "label_mismatch"),
    _o("d", "reviewed", "label_mismatch"),
]


def test_unchanged_outcomes_are_no_changes() -> None:
    changes = compare(
        BASE, BASE, run_id="r2", previous_run_id="r1", cache=CacheReuse(hits=4, items=4)
    )
    assert changes.no_changes and not changes.first_run and changes.new_conflicts == ()
    assert changes.headline() == "no changes since run r1"
    md = changes.markdown()
    assert "No changes since run r1." in md and "Verdicts from cache: 4/4 items (100%)" in md
    assert changes.failure_message(fail_on_new_conflicts=True) is None


def test_added_removed_and_changed_items() -> None:
    now = [
        _o("a", prover_label="False"),  # changed: prover label
        _o("b", "repaired", content="edited"),  # changed: content only
        _o("c", "needs_review", "label_mismatch"),
        _o("e"),  # added, verified: not a conflict
    ]
    changes = compare(now, BASE, run_id="r2", previous_run_id="r1")
    assert changes.added == ("e",) and changes.removed == ("d",)
    assert [(c.id, c.fields) for c in changes.changed] == [
        ("a", ("prover_label",)),
        ("b", ("content_hash",)),
    ]
    assert changes.changed[0].before == {"prover_label": "True"}
    assert changes.changed[0].after == {"prover_label": "False"}
    assert not changes.no_changes and changes.new_conflicts == ()
    assert changes.headline() == "since run r1: 1 added, 1 removed, 2 changed, 0 new conflicts"
    md = changes.markdown()
    assert "## Added\n\n- e" in md and "## Removed\n\n- d" in md
    assert "| a | prover_label | True | False |" in md


@pytest.mark.parametrize(
    ("before", "now", "new"),
    [
        (None, _o("x", "needs_review", "unparseable"), True),  # brand-new item needing review
        (None, _o("x"), False),  # brand-new verified item
        (_o("x"), _o("x", "needs_review", "label_mismatch"), True),  # regression
        (_o("x", "repaired"), _o("x", "needs_review", "lint_error"), True),
        (  # same problem as before: already in the queue
            _o("x", "needs_review", "label_mismatch"),
            _o("x", "needs_review", "label_mismatch"),
            False,
        ),
        (  # same problem, content edited: still known (listed as changed)
            _o("x", "needs_review", "label_mismatch"),
            _o("x", "needs_review", "label_mismatch", content="edited"),
            False,
        ),
        (  # a different problem
            _o("x", "needs_review", "unparseable"),
            _o("x", "needs_review", "label_mismatch"),
            True,
        ),
        (  # a reviewer decided it, nothing changed since
            _o("x", "reviewed", "label_mismatch"),
            _o("x", "needs_review", "label_mismatch"),
            False,
        ),
        (  # the decision was about other content
            _o("x", "reviewed", "label_mismatch"),
            _o("x", "needs_review", "label_mismatch", content="edited"),
            True,
        ),
        (_o("x", "needs_review", "unparseable"), _o("x", "repaired"), False),  # fixed
        (  # a slow LLM spent the repair's time: the problem it left is the one already known
            _o("x", "needs_review", "label_mismatch"),
            _o("x", "needs_review", "repair_budget", final_category="label_mismatch"),
            False,
        ),
        (  # ... and when it has time again
            _o("x", "needs_review", "repair_budget", final_category="label_mismatch"),
            _o("x", "needs_review", "label_mismatch"),
            False,
        ),
        (  # out of time with another problem left: a different problem
            _o("x", "needs_review", "label_mismatch"),
            _o("x", "needs_review", "repair_budget", final_category="parse_error"),
            True,
        ),
    ],
)
def test_the_new_conflict_rule(before: Outcome | None, now: Outcome, new: bool) -> None:
    assert is_new_conflict(now, before) is new


def test_new_conflicts_fail_only_when_asked() -> None:
    now = [*BASE, _o("e", "needs_review", "label_mismatch")]
    now[0] = _o("a", "needs_review", "inconsistent_premises")
    changes = compare(now, BASE, run_id="r2", previous_run_id="r1")
    assert changes.new_conflicts == ("a", "e")
    message = changes.failure_message(fail_on_new_conflicts=True)
    assert message is not None and message.startswith("2 new conflicts since run r1: a, e")
    assert changes.failure_message(fail_on_new_conflicts=False) is None
    assert "## New conflicts (need review, not known before)\n\n- a\n- e" in changes.markdown()


def test_the_first_run_reports_first_run_and_never_fails() -> None:
    now = [_o("a", "needs_review", "unparseable"), _o("b")]
    changes = compare(now, None, run_id="r1", previous_run_id=None)
    assert changes.first_run and not changes.no_changes
    assert changes.added == changes.removed == changes.new_conflicts == ()
    assert changes.failure_message(fail_on_new_conflicts=True) is None
    assert "First run of this split" in changes.markdown() and "1 of 2 items" in changes.markdown()
    data = changes.to_dict()
    assert data["first_run"] and data["previous_run_id"] is None and data["cache"] is None


def test_long_lists_are_cut_in_markdown_but_whole_in_json(tmp_path: Path) -> None:
    now = [_o(f"n{i:03}", "needs_review", "unparseable") for i in range(60)]
    changes = compare(now, [], run_id="r2", previous_run_id="r1")
    paths = write_changes(tmp_path, changes)
    md = paths["changes_md"].read_text(encoding="utf-8")
    assert "- n049" in md and "- n050" not in md and "… and 10 more" in md
    data = json.loads(paths["changes_json"].read_text(encoding="utf-8"))
    assert len(data["new_conflicts"]) == 60 and data["headline"].startswith("since run r1")


def test_cache_reuse_counts_rows_whose_verdicts_all_came_from_cache() -> None:
    (row,) = Checker([ScriptedProver("p", lambda problem: Status.THEOREM)], Budget()).check_story(
        [make_item(1, ["A(a)"], "A(a)", "True")]
    )
    rows = [row.replace(cached=c) for c in (True, False, True, False)]
    reuse = cache_reuse(rows)
    assert (reuse.hits, reuse.items) == (2, 4) and reuse.share == 0.5
    assert cache_reuse([]).share == 0.0


def test_a_run_folder_against_the_previous_one(sample_run: Path, tmp_path: Path) -> None:
    base = tmp_path / "split"
    shutil.copytree(sample_run, base / "20260101-000000")
    shutil.copytree(sample_run, base / "20260102-000000")
    update_meta(base / "20260102-000000", run_id="20260102-000000")
    run = load_run(base / "20260102-000000")
    first = changes_since_previous(base / "20260101-000000", run.outcomes, run_id="20260101-000000")
    assert first.first_run
    again = changes_since_previous(base / "20260102-000000", run.outcomes, run_id=run.run_id)
    assert again.no_changes and again.previous_run_id == "20260101-000000"


def test_a_run_of_another_dataset_beside_it_is_no_baseline(
    sample_run: Path, tmp_path: Path
) -> None:
    # `--out` can put runs of two datasets side by side: only the same dataset and split count
    base = tmp_path / "out"
    shutil.copytree(sample_run, base / "20260101-000000")
    shutil.copytree(sample_run, base / "20260102-000000")
    update_meta(base / "20260102-000000", run_id="20260102-000000", dataset="other-set")
    shutil.copytree(sample_run, base / "20260103-000000")
    update_meta(base / "20260103-000000", run_id="20260103-000000")
    run = load_run(base / "20260103-000000")
    changes = changes_since_previous(base / "20260103-000000", run.outcomes, run_id=run.run_id)
    assert changes.previous_run_id == "20260101-000000" and changes.no_changes
    alone = base / "20260104-000000"
    shutil.copytree(base / "20260102-000000", alone)  # the other dataset's next run
    update_meta(alone, run_id=alone.name)
    other = [o.replace(dataset="other-set") for o in run.outcomes]
    assert changes_since_previous(alone, other, run_id=alone.name).previous_run_id == (
        "20260102-000000"
    )
