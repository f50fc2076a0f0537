"""The refined split keeps FOLIO rows as they were and gives other sources FOLIO's columns."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd

from refinery.outcomes import Outcome
from refinery.runs.refined import refined_rows, write_refined

from fakes import make_item


def _outcome(item_id: str, fol: list[str], conclusion: str) -> Outcome:
    return Outcome.from_dict({
        "id": item_id, "status": "repaired", "reason": "", "original_label": "True", "label": "True",
        "suggested_label": "", "prover_label": "True", "refined_premises_fol": fol,
        "refined_conclusion_fol": conclusion, "original_premises_fol": ["P(a"], "original_conclusion_fol": conclusion,
        "repaired_by": "balance_parentheses", "error_classes": ["unbalanced_parentheses"],
        "edits": [], "proposed_edits": [], "audit": {},
    })  # fmt: skip


def test_folio_rows_keep_their_layout_with_refined_fol(tmp_path: Path) -> None:
    item = make_item(1, ["P(a"], "P(a)", "True")
    (row,) = refined_rows([item], [_outcome(item.id, ["P(a)"], "P(a)")], "run1")
    assert row["premises-FOL"] == "P(a)" and row["original_premises_fol"] == "P(a"
    assert (row["status"], row["run_id"], row["audit"]) == (
        "repaired",
        "run1",
        f"audit.jsonl#{item.id}",
    )
    assert "source_row" not in row


def test_a_source_whose_rows_are_not_items_gets_folio_columns(tmp_path: Path) -> None:
    theory = {
        "id": "RB1",
        "triples": {"t1": {"text": "Bob is big."}},
        "questions": {"Q1": {"answer": True}},
    }
    item = dataclasses.replace(
        make_item(1, ["Big(bob)"], "Big(bob)", "True"), raw=json.dumps(theory)
    )
    rows = refined_rows([item], [_outcome(item.id, ["Big(bob)"], "Big(bob)")], "run1")
    assert rows[0]["premises-FOL"] == "Big(bob)" and json.loads(rows[0]["source_row"]) == theory
    write_refined(tmp_path, rows, [_outcome(item.id, ["Big(bob)"], "Big(bob)")])
    assert pd.read_parquet(tmp_path / "refined.parquet")["premises-FOL"].tolist() == ["Big(bob)"]
