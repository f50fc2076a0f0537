"""The ProofWriter benchmark's examples are read from the check's rows as they are."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from blaming import CHECKER

from fakes import make_item

REPO = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    path = REPO / "benchmarks" / "bench_proofwriter.py"
    spec = importlib.util.spec_from_file_location("bench_proofwriter", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_an_example_names_the_item_its_gold_and_the_provers_label(
    capsys: pytest.CaptureFixture[str],
) -> None:
    item = make_item(7, ["Red(ann)"], "Blue(ann)", "False", conclusion="Ann is blue.")
    (row,) = CHECKER.check_story([item])
    assert row.category == "label_mismatch"  # the provers leave it open
    _bench()._show([row], {item.id: item}, "label_mismatch", 4)
    out = capsys.readouterr().out
    assert "label_mismatch: 1 items; examples:" in out
    assert f"{item.id}: 'Ann is blue.' (Blue(ann)) gold False" in out
    assert "classical Uncertain" in out
