"""Items given to two annotators (`review split --overlap K`) and `review agreement`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refinery.cli import main
from refinery.review.agreement import cohen_kappa, measure_agreement
from refinery.review.queue import MERGE_CONFLICT, queue_rows
from refinery.review.record import save_decision
from refinery.review.shards import manifest_path, merge_shards, shard_files, split_queue
from refinery.review.sheet import read_queue, write_queue

from fakes import queue_outcome

# ten single-item stories: gold False, suggested True, proposal changes premise 2
ITEMS = [f"folio-v2/validation/{n}" for n in range(1, 11)]
SAYS_WHY = "both provers derive True"


def make_queue(tmp_path: Path) -> Path:
    path = tmp_path / "review.csv"
    write_queue(path, queue_rows([queue_outcome(n) for n in range(1, 11)]))
    return path


def ids(path: Path) -> list[str]:
    return [r.id for r in read_queue(path)]


# --- Cohen's kappa --------------------------------------------------------------------------


def test_kappa_of_three_labels_matches_the_hand_computation() -> None:
    # 10 items: 7 equal answers; first annotator T,T,T,T,F,F,F,U,U,U; second T,T,T,F,F,F,U,U,U,T
    pairs = list(
        zip("TTTTFFFUUU", "TTTFFFUUUT", strict=True)  # p_o = 7/10
    )
    # p_e = (4*4 + 3*3 + 3*3) / 100 = 0.34 -> kappa = (0.7 - 0.34) / 0.66
    assert cohen_kappa(pairs) == pytest.approx((0.7 - 0.34) / 0.66)


def test_kappa_is_one_for_full_agreement_and_negative_below_chance() -> None:
    assert cohen_kappa([("True", "True"), ("False", "False")]) == 1.0
    assert cohen_kappa([("True", "False"), ("False", "True")]) == -1.0
    assert cohen_kappa([]) is None


# --- split --overlap ------------------------------------------------------------------------


def test_an_overlap_gives_k_items_to_two_annotators(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    save_decision(path, ITEMS[0], {"decision": "skip"})  # decided items are shared last
    shards = split_queue(path, 2, overlap=3)
    first, second = (set(ids(p)) for p in shards)
    shared = first & second
    assert len(shared) == 3 and ITEMS[0] not in shared
    assert first | second == set(ITEMS)
    assert len(first) + len(second) == 10 + 3
    manifest = json.loads(manifest_path(path).read_text(encoding="utf-8"))
    assert set(manifest["overlap"]) == shared
    assert all(sorted(v) == sorted(p.name for p in shards) for v in manifest["overlap"].values())
    assert shard_files(path) == shards
    for shard in shards:  # each shard in queue order
        assert ids(shard) == sorted(ids(shard), key=ITEMS.index)


def test_an_overlap_needs_two_shards_and_enough_items(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    with pytest.raises(Exception, match="at least two shards"):
        split_queue(path, 1, overlap=1)
    with pytest.raises(Exception, match="between 0 and the 10 items"):
        split_queue(path, 2, overlap=11)


def test_shared_items_merge_when_both_agree_and_conflict_when_not(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    ann, bob = split_queue(path, 2, overlap=2)
    same, differ = sorted(set(ids(ann)) & set(ids(bob)), key=ITEMS.index)
    for shard, who in ((ann, "ann"), (bob, "bob")):
        save_decision(shard, same, {"decision": "keep_original", "note": "x", "reviewer": who})
    save_decision(ann, differ, {"decision": "skip", "reviewer": "ann"})
    save_decision(bob, differ, {"decision": "relabel", "final_label": "True", "note": "y"})
    result = merge_shards(path, [ann, bob])
    assert set(result.taken) == {same} and set(result.conflicts) == {differ}
    rows = {r.id: r for r in read_queue(path)}
    assert rows[same].decision == "keep_original"
    assert rows[differ].flag == MERGE_CONFLICT and rows[differ].decision == ""


# --- agreement ------------------------------------------------------------------------------


def decide_both(ann: Path, bob: Path, item: str, a: dict[str, str], b: dict[str, str]) -> None:
    save_decision(ann, item, a | {"reviewer": "ann"})
    save_decision(bob, item, b | {"reviewer": "bob"})


def test_agreement_on_labels_and_fol_decisions(tmp_path: Path) -> None:
    path = make_queue(tmp_path)
    ann, bob = split_queue(path, 2, overlap=5)
    shared = sorted(set(ids(ann)) & set(ids(bob)), key=ITEMS.index)
    accept = {"decision": "accept_proposal", "final_label": "True", "note": SAYS_WHY}
    # 1: same decision; 2: same label by two routes, different FOL; 3: labels differ;
    # 4: same FOL typed two ways (ASCII and symbols); 5: only ann has decided
    decide_both(ann, bob, shared[0], accept, accept)
    decide_both(
        ann, bob, shared[1], accept, {"decision": "relabel", "final_label": "True", "note": "z"}
    )
    decide_both(ann, bob, shared[2], {"decision": "keep_original"}, accept)
    ascii_fol = "forall x (Dog(x) -> Bark(x))\nDog(rex) & ~Cat(rex)\nBark(rex)"
    symbols = "∀x (Dog(x) → Bark(x))\nDog(rex)  ∧  ¬Cat(rex)\nBark(rex)"
    decide_both(
        ann,
        bob,
        shared[3],
        {"decision": "edit", "final_fol": ascii_fol},
        {"decision": "edit", "final_fol": symbols},
    )
    save_decision(ann, shared[4], {"decision": "skip"})

    result = measure_agreement([ann, bob])
    assert result.pending == (shared[4],)
    by_id = {i.item_id: i for i in result.items}
    assert set(by_id) == set(shared[:4])
    assert by_id[shared[1]].labels == ("True", "True") and not by_id[shared[1]].same_fol
    assert by_id[shared[2]].labels == ("False", "True")
    assert by_id[shared[3]].same_fol and by_id[shared[3]].decisions == ("edit", "edit")
    # labels: T/T, T/T, F/T, F/F -> p_o 3/4; p_e = (2/4*3/4 + 2/4*1/4) = 0.5 -> kappa 0.5
    assert result.label_kappa == pytest.approx(0.5)
    # decisions: (acc,acc) (acc,rel) (keep,acc) (edit,edit): p_o 2/4,
    # p_e = (2*2 [acc] + 1*0 [keep] + 1*1 [edit]) / 16 = 5/16
    assert result.decision_kappa == pytest.approx((0.5 - 5 / 16) / (1 - 5 / 16))
    report = result.render()
    assert report.splitlines()[:4] == [
        "5 item(s) given to two annotators: 4 decided by both, 1 pending",
        "  labels:     3/4 (75%) agree, Cohen's κ 0.50 (skips left out)",
        "  decisions:  2/4 (50%) the same, Cohen's κ 0.27",
        "  final FOL:  2/4 (50%) the same",
    ]
    shard_a, shard_b = ann.name, bob.name
    assert (
        f"  {shared[2]}: {shard_a}: keep_original False | {shard_b}: accept_proposal True"
        in report.splitlines()
    )


def test_review_split_overlap_and_agreement_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_queue(tmp_path)
    assert main(["review", "split", "2", "--overlap", "2", "--queue", str(path)]) == 0
    capsys.readouterr()
    ann, bob = shard_files(path)
    shared = sorted(set(ids(ann)) & set(ids(bob)), key=ITEMS.index)
    for item in shared:
        decide_both(ann, bob, item, {"decision": "skip"}, {"decision": "skip"})
    assert main(["review", "agreement", "--queue", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "2 item(s) given to two annotators: 2 decided by both, 0 pending",
        "  labels:     0/0 agree, Cohen's κ n/a (skips left out)",
        "  decisions:  2/2 (100%) the same, Cohen's κ n/a",
        "  final FOL:  2/2 (100%) the same",
    ]
    assert main(["review", "agreement", str(tmp_path / "nope.csv")]) == 2
    assert "no such shard" in capsys.readouterr().err
