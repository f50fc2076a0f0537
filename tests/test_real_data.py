"""End-to-end runs on the public datasets in ../shared/data (skipped when absent).

These pin the acceptance numbers of the check stage as regression guards: every item gets a row,
nothing escapes as an exception, and the two provers agree.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from refinery.check import CATEGORIES, check_items
from refinery.check.summary import category_counts, prover_agreement
from refinery.cli import main
from refinery.datasets.folio import load, load_fol_lines
from refinery.logic.errors import SyntaxProblem
from refinery.logic.parse import Parsed, try_parse
from refinery.prove.verdict import Budget
from vampire.registry import build_provers

pytestmark = [pytest.mark.data, pytest.mark.slow, pytest.mark.prover]


def _check(path: Path, tmp_path: Path) -> list[dict[str, object]]:
    result = load(path)
    assert result.errors == ()
    rows = check_items(
        list(result.items),
        prover_factory=build_provers,
        prover_names=["z3", "eprover"],
        budget=Budget(seconds=5),
        workers=2,
        cache_path=tmp_path / "cache.sqlite",
    )
    assert [r.id for r in rows] == [it.id for it in result.items]
    assert {r.category for r in rows} <= set(CATEGORIES)
    return rows


@pytest.mark.parametrize(
    ("split", "size", "verified_at_least"), [("validation", 203, 113), ("train", 1001, 531)]
)
def test_folio_v2(
    shared_data: Path, tmp_path: Path, split: str, size: int, verified_at_least: int
) -> None:
    rows = _check(shared_data / "folio_v2" / "reconstructed" / f"folio_v2_{split}.jsonl", tmp_path)
    assert len(rows) == size
    counts = category_counts(rows)
    assert counts["verified"] >= verified_at_least, counts
    agreement = prover_agreement(rows, "z3", "eprover")
    assert agreement.both_decided >= 0.8 * size and agreement.rate >= 0.99, agreement
    for row in rows:
        if row.category == "parse_error":
            assert "error: syntax:" in row.issues


@pytest.mark.parametrize("name", ["folio-validation.jsonl", "folio-train.jsonl"])
def test_folio_v0_checks_without_exceptions(shared_data: Path, tmp_path: Path, name: str) -> None:
    rows = _check(shared_data / "folio_v0" / name, tmp_path)
    assert len(rows) in (204, 1004)
    if name == "folio-train.jsonl":  # v0 train has no conclusion FOL: reported, not crashed
        assert all(r.category == "parse_error" for r in rows)
        assert all("conclusion:1:1: error: syntax: empty formula" in r.issues for r in rows)


def test_every_formula_parses_or_fails_cleanly(shared_data: Path) -> None:
    sources = [
        shared_data / "folio_v0" / "folio-train.jsonl",
        shared_data / "folio_v0" / "folio-validation.jsonl",
        shared_data / "folio_v2" / "reconstructed" / "folio_v2_train.jsonl",
        shared_data / "malls" / "MALLS-v0.1-test.json",
    ]
    total = 0
    for path in sources:
        for line, text in load_fol_lines(path):
            result = try_parse(text, field=f"{path.name}:{line}")
            assert isinstance(result, Parsed | SyntaxProblem)
            total += 1
    assert total > 10_000


def test_lint_command_on_malls(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared_data / "malls" / "MALLS-v0.1-test.json"
    status = main(["lint", str(path)])
    lines = capsys.readouterr().out.splitlines()
    total = lines[-1]
    assert total.startswith("1000 formulas, ")
    errors = int(total.split(", ")[1].split()[0])
    assert status == (1 if errors else 0)
    # one line per error: a syntax error prints its location line plus the source and caret lines
    headers = [line for line in lines[:-1] if line.startswith(str(path))]
    assert len(headers) == errors


def test_folio_v2_validation_evidence_is_complete_and_every_core_proves_again(
    shared_data: Path, tmp_path: Path
) -> None:
    """Every conflict has evidence; every recorded core, re-checked alone by Z3, is a proof."""

    from refinery.logic.parse import parse
    from refinery.prove.evidence import Recheck, recheck
    from refinery.prove.z3_backend import Z3Prover

    path = shared_data / "folio_v2" / "reconstructed" / "folio_v2_validation.jsonl"
    items = {it.id: it for it in load(path).items}
    rows = _check(path, tmp_path)
    total = Recheck()
    for row in rows:
        if row.category in ("label_mismatch", "inconsistent"):
            assert row.evidence, row.id
        detail = row.evidence_detail
        if not (detail.get("cores") or detail.get("countermodels")):
            continue  # nothing proved (a parse or lint error, or the provers could not decide)
        item = items[row.id]
        premises = [parse(p) for p in item.premises_fol]
        total += recheck(detail, premises, parse(item.conclusion_fol or ""), Z3Prover(), Budget())
    assert total.cores_ok == len(total.core_sizes) > 100
    assert total.models_ok == len(total.model_sizes) > 10
