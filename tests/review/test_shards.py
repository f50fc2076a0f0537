"""Review shards: split a queue by story, merge the annotators' shards back, flag conflicts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from refinery.cli import main
from refinery.outcomes import Outcome
from refinery.review.queue import DECISION_COLUMNS, MERGE_CONFLICT, QueueRow, queue_rows
from refinery.review.record import save_decision
from refinery.review.shards import format_conflicts, manifest_path, merge_shards, split_queue
from refinery.review.sheet import read_queue, write_queue, write_rows

from fakes import queue_outcome

# story -> item numbers: sizes 3, 2, 2, 1, 1, 1 (10 items)
STORIES = {"s1": (1, 2, 3), "s2": (4, 5), "s3": (6, 7), "s4": (8,), "s5": (9,), "s6": (10,)}


def outcome(n: int, **over: Any) -> Outcome:
    story = next(s for s, items in STORIES.items() if n in items)
    return queue_outcome(n, **({"story_id": story, "conclusion": f"Rex barks ({n})."} | over))


def item(n: int) -> str:
    return f"folio-v2/validation/{n}"


def make_queue(tmp_path: Path) -> Path:
    path = tmp_path / "review.csv"
    write_queue(path, queue_rows([outcome(n) for n in range(1, 11)]))
    return path


def by_id(path: Path) -> dict[str, QueueRow]:
    return {r.id: r for r in read_queue(path)}


def decision(path: Path, n: int) -> dict[str, str]:
    return by_id(path)[item(n)].cells(DECISION_COLUMNS)


def shard_of(shards: list[Path], n: int) -> Path:
    [found] = [p for p in shards if item(n) in by_id(p)]
    return found


def second_copy(shard: Path) -> Path:
    """The same shard handed to a second annotator."""
    copy = shard.with_name(shard.stem + ".bob.csv")
    shutil.copyfile(shard, copy)
    return copy


# --- split ----------------------------------------------------------------------------------


def test_split_keeps_stories_whole_balances_sizes_and_writes_a_manifest(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    save_decision(path, item(4), {"decision": "skip", "reviewer": "ann"})
    queue = by_id(path)
    shards = split_queue(path, 2)
    assert [p.name for p in shards] == ["review.shard-1-of-2.csv", "review.shard-2-of-2.csv"]
    contents = [by_id(p) for p in shards]
    assert sorted(len(c) for c in contents) == [5, 5]
    ids = [i for c in contents for i in c]
    assert sorted(ids) == sorted(queue) and len(ids) == len(set(ids))
    for story, numbers in STORIES.items():
        holders = {k for k, c in enumerate(contents) for n in numbers if item(n) in c}
        assert len(holders) == 1, story
    # shard rows are the queue's rows, decisions included
    assert all(row == queue[i] for c in contents for i, row in c.items())
    manifest = json.loads(manifest_path(path).read_text(encoding="utf-8"))
    assert manifest_path(path).name == "review.csv.shards.json"
    assert manifest["queue"] == "review.csv"
    assert manifest["shards"] == {p.name: list(by_id(p)) for p in shards}
    assert manifest["base"][item(4)]["decision"] == "skip"
    assert manifest["base"][item(1)] == dict.fromkeys(DECISION_COLUMNS, "")
    assert set(manifest["base"]) == set(queue)


def test_split_into_three_and_into_an_out_folder(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    shards = split_queue(path, 3, tmp_path / "out")
    assert [p.parent for p in shards] == [tmp_path / "out"] * 3
    assert sorted(len(read_queue(p)) for p in shards) == [3, 3, 4]
    assert manifest_path(path).is_file()  # beside the queue, not the shards


# --- merge ----------------------------------------------------------------------------------


def test_merge_brings_the_shards_decisions_back(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    before = by_id(path)
    shards = split_queue(path, 2)
    save_decision(shard_of(shards, 1), item(1), {"decision": "accept_proposal", "reviewer": "ann"})
    save_decision(
        shard_of(shards, 6), item(6), {"decision": "relabel", "final_label": "True", "note": "x"}
    )
    save_decision(shard_of(shards, 9), item(9), {"decision": "skip"})
    result = merge_shards(path, shards)
    assert result.taken == {
        item(1): shard_of(shards, 1).name,
        item(6): shard_of(shards, 6).name,
        item(9): shard_of(shards, 9).name,
    }
    assert result.conflicts == {} and result.unknown == []
    after = by_id(path)
    assert after[item(1)].decision == "accept_proposal" and after[item(1)].reviewer == "ann"
    assert after[item(6)].final_label == "True" and after[item(6)].status == "decided"
    assert after[item(9)].decision == "skip"
    untouched = set(before) - {item(1), item(6), item(9)}
    assert all(after[i] == before[i] for i in untouched)
    assert all(
        after[i].cells(("critique", "proposed_fol", "flag"))
        == before[i].cells(("critique", "proposed_fol", "flag"))
        for i in before
    )


def test_changing_a_decision_made_before_the_split_is_taken(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    save_decision(path, item(2), {"decision": "keep_original", "reviewer": "ann"})
    save_decision(path, item(8), {"decision": "skip", "reviewer": "ann"})
    shards = split_queue(path, 2)
    save_decision(
        shard_of(shards, 2),
        item(2),
        {"decision": "relabel", "final_label": "Uncertain", "reviewer": "bob"},
    )
    # the main queue changes 8 after the split; its shard still holds the split-time decision
    save_decision(path, item(8), {"decision": "accept_proposal", "reviewer": "lead"})
    result = merge_shards(path, shards)
    assert result.conflicts == {}
    assert result.taken == {item(2): shard_of(shards, 2).name}
    assert decision(path, 2) | {"decided_at": ""} == {
        "decision": "relabel",
        "final_label": "Uncertain",
        "final_fol": "",
        "reviewer": "bob",
        "note": "",
        "decided_at": "",
    }
    assert decision(path, 8)["decision"] == "accept_proposal"  # not reverted to the base
    assert MERGE_CONFLICT not in by_id(path)[item(2)].flag


def test_two_annotators_deciding_one_item_differently_is_a_conflict(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    save_decision(path, item(3), {"decision": "skip", "reviewer": "lead"})
    shards = split_queue(path, 2)
    ann = shard_of(shards, 1)
    bob = second_copy(ann)
    save_decision(ann, item(1), {"decision": "accept_proposal", "reviewer": "ann"})
    save_decision(bob, item(1), {"decision": "relabel", "final_label": "True", "reviewer": "bob"})
    # the same decision from both (only the reviewer differs): no conflict
    save_decision(ann, item(2), {"decision": "keep_original", "note": "fine", "reviewer": "ann"})
    save_decision(bob, item(2), {"decision": "keep_original", "note": "fine", "reviewer": "bob"})
    save_decision(ann, item(3), {"decision": "edit", "final_label": "True", "reviewer": "ann"})
    before = by_id(path)

    result = merge_shards(path, [ann, bob])
    assert set(result.conflicts) == {item(1)}
    # 3: ann changed it, bob's copy still holds the split-time decision: no competing version
    assert result.taken == {item(2): ann.name, item(3): ann.name}
    assert result.conflicts[item(1)] == [
        (ann.name, decision(ann, 1)),
        (bob.name, decision(bob, 1)),
    ]
    after = by_id(path)
    assert after[item(1)].flag == MERGE_CONFLICT
    assert after[item(1)].cells(DECISION_COLUMNS) == before[item(1)].cells(
        DECISION_COLUMNS
    )  # keeps its current (empty) decision
    assert after[item(1)].status == "open"
    assert after[item(2)].decision == "keep_original" and after[item(2)].flag == ""
    assert after[item(3)].decision == "edit" and after[item(3)].final_label == "True"
    listing = format_conflicts(result)
    assert listing.splitlines()[0] == f"conflict: {item(1)}"
    assert f"  {ann.name}: decision='accept_proposal', reviewer='ann'" in listing.splitlines()
    assert (
        f"  {bob.name}: decision='relabel', final_label='True', reviewer='bob'"
        in listing.splitlines()
    )


def test_a_conflict_between_a_shard_and_the_main_queue_lists_both(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    shards = split_queue(path, 2)
    save_decision(shard_of(shards, 4), item(4), {"decision": "skip", "reviewer": "ann"})
    save_decision(path, item(4), {"decision": "relabel", "final_label": "True", "reviewer": "lead"})
    result = merge_shards(path, shards)
    assert [name for name, _ in result.conflicts[item(4)]] == [
        "review.csv",
        shard_of(shards, 4).name,
    ]
    row = by_id(path)[item(4)]
    assert row.decision == "relabel" and row.flag == MERGE_CONFLICT
    assert "  review.csv: decision='relabel', final_label='True', reviewer='lead'" in (
        format_conflicts(result)
    )


def test_a_settled_conflict_is_not_flagged_again_by_a_re_merge(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    shards = split_queue(path, 2)
    ann = shard_of(shards, 1)
    bob = second_copy(ann)
    save_decision(ann, item(1), {"decision": "accept_proposal", "reviewer": "ann"})
    save_decision(bob, item(1), {"decision": "relabel", "final_label": "True", "reviewer": "bob"})
    assert set(merge_shards(path, [ann, bob]).conflicts) == {item(1)}
    # still flagged: a re-merge before anyone settled it reports it again
    assert set(merge_shards(path, [ann, bob]).conflicts) == {item(1)}

    settled = save_decision(path, item(1), {"decision": "relabel", "final_label": "Uncertain"})
    assert MERGE_CONFLICT not in settled.flag
    again = merge_shards(path, [ann, bob])
    assert again.conflicts == {} and again.taken == {}
    row = by_id(path)[item(1)]
    assert row.flag == ""
    assert (row.decision, row.final_label) == ("relabel", "Uncertain")

    # a version nobody has seen yet is news: flagged again
    save_decision(bob, item(1), {"decision": "skip", "reviewer": "bob"})
    news = merge_shards(path, [ann, bob])
    assert set(news.conflicts) == {item(1)}
    row = by_id(path)[item(1)]
    assert (row.decision, row.final_label, row.flag) == (
        "relabel",
        "Uncertain",
        MERGE_CONFLICT,
    )


def test_ids_missing_from_the_queue_are_reported_and_ignored(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    shards = split_queue(path, 2)
    rows = read_queue(shards[0])
    stray = queue_rows([outcome(1, id="folio-v2/validation/99")])[0].replace(decision="skip")
    write_rows(shards[0], [*rows, stray])
    before = path.read_bytes()
    result = merge_shards(path, shards)
    assert result.unknown == [(shards[0].name, "folio-v2/validation/99")]
    assert "folio-v2/validation/99" not in by_id(path)
    assert path.read_bytes() == before


def test_merge_without_a_manifest_takes_the_queue_as_base(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    save_decision(path, item(1), {"decision": "keep_original"})
    shards = split_queue(path, 2)
    manifest_path(path).unlink()
    # after the split the lead changes 1 in the queue: with the queue as base, the shard's
    # (split-time) keep_original now reads as a change
    save_decision(path, item(1), {"decision": "skip"})
    save_decision(shard_of(shards, 4), item(4), {"decision": "skip"})
    result = merge_shards(path, shards)
    assert result.taken == {item(1): shard_of(shards, 1).name, item(4): shard_of(shards, 4).name}
    assert result.conflicts == {}
    assert decision(path, 1)["decision"] == "keep_original"
    assert decision(path, 4)["decision"] == "skip"
    # the merge records what it took, so a later re-merge has a base and remembers conflicts
    recorded = json.loads(manifest_path(path).read_text(encoding="utf-8"))
    assert recorded["base"][item(1)]["decision"] == "keep_original"
    assert recorded["base"][item(4)]["decision"] == "skip"


def test_without_a_manifest_a_settled_conflict_is_not_overwritten_by_a_re_merge(
    tmp_path: Path,
) -> None:
    path = make_queue(tmp_path)
    shards = split_queue(path, 2)
    manifest_path(path).unlink()
    ann = shard_of(shards, 1)
    bob = second_copy(ann)
    save_decision(ann, item(1), {"decision": "accept_proposal"})
    save_decision(bob, item(1), {"decision": "skip"})
    assert set(merge_shards(path, [ann, bob]).conflicts) == {item(1)}
    save_decision(path, item(1), {"decision": "accept_proposal"})  # the reviewer sides with ann
    merge_shards(path, [ann, bob])
    row = by_id(path)[item(1)]
    # either kept as settled, or flagged again: never silently replaced by bob's version
    assert row.decision == "accept_proposal" or MERGE_CONFLICT in row.flag


# --- commands -------------------------------------------------------------------------------


def test_review_split_and_merge_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_queue(tmp_path)
    assert main(["review", "split", "2", "--queue", str(path)]) == 0
    one, two = (tmp_path / f"review.shard-{k}-of-2.csv" for k in (1, 2))
    assert capsys.readouterr().out.splitlines() == [
        str(one),
        str(two),
        f"manifest: {manifest_path(path)}",
    ]
    save_decision(one, read_queue(one)[0].id, {"decision": "skip"})
    assert main(["review", "merge", "--queue", str(path), str(one), str(two)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{path}: 1 decision(s) merged from shards"]


def test_review_merge_exits_1_on_conflicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_queue(tmp_path)
    shards = split_queue(path, 2)
    ann = shard_of(shards, 9)
    bob = second_copy(ann)
    save_decision(ann, item(9), {"decision": "skip", "reviewer": "ann"})
    save_decision(bob, item(9), {"decision": "keep_original", "reviewer": "bob"})
    rows = read_queue(bob)
    write_rows(bob, [*rows, queue_rows([outcome(2, id="folio-v2/validation/77")])[0]])
    code = main(["review", "merge", "--queue", str(path), str(ann), str(bob)])
    assert code == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{path}: 0 decision(s) merged from shards",
        f"  {bob.name}: folio-v2/validation/77 is not in the queue; ignored",
        f"conflict: {item(9)}",
        f"  {ann.name}: decision='skip', reviewer='ann'",
        f"  {bob.name}: decision='keep_original', reviewer='bob'",
        f"1 conflict(s) flagged merge_conflict in {path}: settle each decision there and "
        "clear the flag",
    ]
    assert by_id(path)[item(9)].flag == MERGE_CONFLICT


def test_review_merge_refuses_a_missing_shard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_queue(tmp_path)
    before = path.read_bytes()
    code = main(["review", "merge", "--queue", str(path), str(tmp_path / "nope.csv")])
    assert code == 2
    assert "no such shard" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_a_re_merge_does_not_revert_a_later_edit_of_the_queue(tmp_path: Path) -> None:
    path = tmp_path / "review.csv"
    write_queue(path, queue_rows([outcome(n, story_id=f"s{n}") for n in (1, 2, 3, 4)]))
    shards = split_queue(path, 2)
    save_decision(shard_of(shards, 1), item(1), {"decision": "skip"})
    assert merge_shards(path, shards).taken == {item(1): shard_of(shards, 1).name}
    # the lead then settles item 1 differently in the main queue; the same shards come back
    save_decision(path, item(1), {"decision": "keep_original"})
    again = merge_shards(path, shards)
    assert again.taken == {} and again.conflicts == {}
    assert decision(path, 1)["decision"] == "keep_original"
