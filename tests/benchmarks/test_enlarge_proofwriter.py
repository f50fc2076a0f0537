"""The scale benchmark's enlarger: exact sizes, fresh names, the original's logic and answers."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from scripts import bench_script

from refinery.datasets import dataset_labels, load_any


def _enlarger() -> ModuleType:
    return bench_script("enlarge_proofwriter")


@pytest.mark.data
def test_copies_rename_every_name_and_keep_every_answer(shared_data: Path, tmp_path: Path) -> None:
    enlarge = _enlarger()
    lines = (shared_data / "proofwriter" / "meta-test.jsonl").read_text().splitlines()[:4]
    source = tmp_path / "src" / "meta-test.jsonl"
    source.parent.mkdir()
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    original = list(load_any(source).items)
    n = 2 * len(original) + 3  # two whole copies, and 3 questions of a third
    out = enlarge.write_enlarged(source, n, tmp_path / "big" / "meta-test.jsonl")
    loaded = load_any(out)
    copies = list(loaded.items)
    assert not loaded.errors and len(copies) == n and len({it.id for it in copies}) == n
    names = {f for it in original for f in (*it.premises_fol, it.conclusion_fol)}
    assert not names & {f for it in copies for f in (*it.premises_fol, it.conclusion_fol)}
    assert "c1" in copies[0].premises[0] and "c1" in copies[0].conclusion_fol.lower()
    # the same answers, under ProofWriter's own semantics too, for every copy of a question
    gold = {it.example_id: it.label for it in original}
    semantics = dataset_labels(original)
    by_key = {it.example_id: semantics[it.id] for it in original}
    copied = dataset_labels(copies)
    for it in copies:
        theory, key = it.example_id.rsplit("_", 1)
        source_id = f"{theory.rsplit('-c', 1)[0]}_{key}"
        assert it.label == gold[source_id] and copied[it.id] == by_key[source_id]
    assert json.loads(out.read_text().splitlines()[0])["id"].endswith("-c1")


def test_a_size_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="n >= 1"):
        list(_enlarger().enlarge([{"questions": {"Q1": {}}}], 0))
