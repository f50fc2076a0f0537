"""The ProofWriter benchmark's examples are read from the check's rows as they are."""

from __future__ import annotations

import pytest
from blaming import CHECKER
from scripts import bench_script

from fakes import make_item


def test_an_example_names_the_item_its_gold_and_the_provers_label(
    capsys: pytest.CaptureFixture[str],
) -> None:
    item = make_item(7, ["Red(ann)"], "Blue(ann)", "False", conclusion="Ann is blue.")
    (row,) = CHECKER.check_story([item])
    assert row.category == "label_mismatch"  # the provers leave it open
    bench_script("bench_proofwriter")._show([row], {item.id: item}, "label_mismatch", 4)
    out = capsys.readouterr().out
    assert "label_mismatch: 1 items; examples:" in out
    assert f"{item.id}: 'Ann is blue.' (Blue(ann)) gold False" in out
    assert "classical Uncertain" in out
