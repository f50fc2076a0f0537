"""The run report: files, counts, diffs, label changes, validations, figures, determinism."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import Any

import pytest

from refinery.outcomes import Outcome
from refinery.report import write_report

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

OUTCOMES: list[Outcome] = [
    Outcome.from_dict(o)
    for o in [
    # gold, agreed prover label: True/True ×2, False/True ×1, Uncertain/"" ×1, True/False ×1
    {"id": "f/1", "status": "verified", "reason": "", "gold_label": "True", "prover_label": "True",
     "suggested_label": "True", "error_classes": [], "repaired_by": ""},  # same as gold: no change
    {"id": "f/2", "status": "repaired", "reason": "unparseable", "gold_label": "True",
     "prover_label": "True", "suggested_label": "", "error_classes": ["unbalanced_parentheses"],
     "repaired_by": "balance_parentheses"},
    {"id": "f/10", "status": "needs_review", "reason": "label_mismatch", "gold_label": "False",
     "prover_label": "True", "suggested_label": "True", "error_classes": ["label_error"],
     "repaired_by": ""},
    {"id": "f/3", "status": "needs_review", "reason": "prover_disagreement",
     "gold_label": "Uncertain", "prover_label": "", "suggested_label": "",
     "error_classes": ["scope", "label_error"], "repaired_by": ""},
    {"id": "f/4", "status": "needs_review", "reason": "label_mismatch", "gold_label": "True",
     "prover_label": "False", "suggested_label": "False", "error_classes": ["label_error"],
     "repaired_by": "", "evidence": "proves its negation: premises[0] (z3)"},
    ]
]  # fmt: skip
EDITS: list[dict[str, Any]] = [
    {"id": "f/2", "where": "premises[1]", "before": "∀x (Dog(x) → Bark(x)",
     "after": "∀x (Dog(x) → Bark(x))", "nl": "All dogs bark.", "source": "balance_parentheses",
     "error_class": "unbalanced_parentheses"},
    {"id": "f/2", "where": "conclusion", "before": "Bark(rex) v Cat(rex)",
     "after": "Bark(rex) ∨ Cat(rex)", "nl": "Rex barks or is a cat.", "source": "llm:qwen2.5",
     "error_class": "token_typo"},
]  # fmt: skip
VALIDATIONS: dict[str, dict[str, Any]] = {
    "refined_items": {
        "success": False,
        "statistics": {"evaluated_expectations": 4, "successful_expectations": 3},
        "failed_expectations": [
            {
                "expectation_type": "expect_column_values_to_be_in_set",
                "kwargs": {"column": "gold_label", "batch_id": "b"},
                "result": {"unexpected_count": 2, "partial_unexpected_list": ["Maybe"]},
            }
        ],
    },
    "queue": {  # a great-expectations describe_dict(), passed as is
        "success": True,
        "statistics": {"evaluated_expectations": 1},
        "expectations": [{"expectation_type": "expect_column_to_exist", "success": True}],
    },
}
META = {"run_id": "run-42", "source": "folio_v2_validation.jsonl", "agents": ["rules", "llm"],
        "rounds": 3, "time": "2025-06-01T12:00:00Z"}  # fmt: skip


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("report")
    return write_report(out, outcomes=OUTCOMES, edits=EDITS, validations=VALIDATIONS, meta=META)


def test_all_files_exist_and_nothing_else(written: dict[str, Path]) -> None:
    assert set(written) == {"markdown", "html", "confusion", "error_classes"}
    folder = written["markdown"].parent
    assert sorted(p.name for p in folder.iterdir()) == [
        "confusion.png",
        "error_classes.png",
        "report.html",
        "report.md",
    ]


def test_markdown_meta_and_counts(written: dict[str, Path]) -> None:
    md = written["markdown"].read_text(encoding="utf-8")
    assert md.startswith("# FOL Refinery report: run-42\n")
    for line in (
        "| source | folio_v2_validation.jsonl |",
        "| agents | rules, llm |",
        "| rounds | 3 |",
        "| time | 2025-06-01T12:00:00Z |",
        "| verified | 1 |",
        "| repaired | 1 |",
        "| needs_review | 3 |",
        "| total | 5 |",
        "| needs_review | label_mismatch | 2 |",
        "| needs_review | prover_disagreement | 1 |",
        "| repaired | unparseable | 1 |",
        "| balance_parentheses | 1 |",
        "| label_error | 3 |",
        "| scope | 1 |",
        "| arity_conflict | 0 |",
    ):
        assert line in md.splitlines(), line


def test_confusion_table_counts(written: dict[str, Path]) -> None:
    md = written["markdown"].read_text(encoding="utf-8")
    assert "| gold \\ provers | True | False | Uncertain | (none) |" in md
    assert "| True | 2 | 1 | 0 | 0 |" in md
    assert "| False | 1 | 0 | 0 | 0 |" in md
    assert "| Uncertain | 0 | 0 | 0 | 1 |" in md
    assert "![confusion matrix](confusion.png)" in md


def test_a_diff_for_each_edit_with_its_nl_and_source(written: dict[str, Path]) -> None:
    md = written["markdown"].read_text(encoding="utf-8")
    assert "## FOL edits (2)" in md
    for edit in EDITS:
        block = (
            f"--- a/{edit['where']}\n+++ b/{edit['where']}\n@@ -1 +1 @@\n"
            f"-{edit['before']}\n+{edit['after']}\n"
        )
        assert block in md
        assert f"- NL: {edit['nl']}" in md
        assert f"made by: {edit['source']}" in md
    # sorted: for the same item, "conclusion" comes before "premises[1]"
    assert md.index("a/conclusion") < md.index("a/premises[1]")


def test_each_suggested_label_change(written: dict[str, Path]) -> None:
    md = written["markdown"].read_text(encoding="utf-8")
    assert "## Suggested label changes (2)" in md
    rows = [line for line in md.splitlines() if line.startswith(("| f/4 |", "| f/10 |"))]
    assert rows == [
        "| f/4 | True | False | provers agree on False; reason: label_mismatch; diagnosed: label_error | proves its negation: premises[0] (z3) |",
        "| f/10 | False | True | provers agree on True; reason: label_mismatch; diagnosed: label_error | (none) |",
    ]


def test_every_conflict_is_listed_with_its_evidence(written: dict[str, Path]) -> None:
    md = written["markdown"].read_text(encoding="utf-8")
    section = md.split("## Conflicts and their evidence (3)\n", 1)[1].split("\n## ", 1)[0]
    assert section.strip().splitlines() == [
        "- `f/3` prover_disagreement: gold Uncertain, provers (none)",
        "  - (no evidence: nothing proved)",
        "- `f/4` label_mismatch: gold True, provers False",
        "  - proves its negation: premises[0] (z3)",
        "- `f/10` label_mismatch: gold False, provers True",
        "  - (no evidence: nothing proved)",
    ]
    html = written["html"].read_text(encoding="utf-8")
    assert "<h2>Conflicts and their evidence (3)</h2>" in html
    assert "<td>proves its negation: premises[0] (z3)</td>" in html


def test_validations(written: dict[str, Path]) -> None:
    md = written["markdown"].read_text(encoding="utf-8")
    assert "### queue: passed" in md
    assert "### refined_items: FAILED" in md
    assert md.index("### queue") < md.index("### refined_items")
    assert "| successful_expectations | 3 |" in md
    assert (
        "- failed: expect_column_values_to_be_in_set(column='gold_label'): 2 unexpected"
        " (e.g. 'Maybe')" in md
    )


def test_html_is_self_contained_and_escaped(tmp_path: Path, written: dict[str, Path]) -> None:
    page = written["html"].read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("data:image/png;base64,") == 2
    assert "All dogs bark." in page and "∀x (Dog(x) → Bark(x))" in page
    nasty = dict(EDITS[0], nl="<script>alert(1)</script>", after="P(a) & <b>")
    paths = write_report(tmp_path, outcomes=[], edits=[nasty], validations={}, meta={})
    page = paths["html"].read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "+P(a) &amp; &lt;b&gt;" in page


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("key", ["confusion", "error_classes"])
def test_figures_are_pngs_of_reasonable_size(written: dict[str, Path], key: str) -> None:
    width, height = _png_size(written[key])
    assert 300 <= width <= 2000 and 200 <= height <= 2000
    assert 5_000 < written[key].stat().st_size < 500_000


def test_report_is_deterministic_and_order_free(tmp_path: Path) -> None:
    first = write_report(
        tmp_path / "a", outcomes=OUTCOMES, edits=EDITS, validations=VALIDATIONS, meta=META
    )
    second = write_report(
        tmp_path / "b",
        outcomes=OUTCOMES[::-1],
        edits=EDITS[::-1],
        validations=dict(reversed(VALIDATIONS.items())),
        meta=dict(reversed(META.items())),
    )
    for key in first:
        assert first[key].read_bytes() == second[key].read_bytes(), key


def test_empty_run(tmp_path: Path) -> None:
    paths = write_report(tmp_path, outcomes=[], edits=[], validations={}, meta={})
    md = paths["markdown"].read_text(encoding="utf-8")
    assert "| total | 0 |" in md and "## FOL edits (0)" in md
    assert "No validations were run." in md
    _png_size(paths["confusion"])


def test_a_full_folio_split(tmp_path: Path) -> None:
    outcomes = [
        OUTCOMES[i % len(OUTCOMES)].replace(id=f"folio-v2/validation/{i}") for i in range(1200)
    ]
    edits = [dict(EDITS[i % 2], id=f"folio-v2/validation/{i}") for i in range(0, 1200, 3)]
    paths = write_report(tmp_path, outcomes=outcomes, edits=edits, validations={}, meta={})
    md = paths["markdown"].read_text(encoding="utf-8")
    assert "| total | 1200 |" in md
    assert len(re.findall(r"^@@ ", md, flags=re.M)) == 400
