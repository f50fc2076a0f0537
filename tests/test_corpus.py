"""Every corpus row through parser, printer, TPTP emission (golden files) and both provers."""

from __future__ import annotations

from pathlib import Path

import pytest

from refinery.logic.parse import parse
from refinery.logic.printer import to_text
from refinery.logic.tptp import problem_to_tptp
from refinery.prove.verdict import Budget, Problem
from refinery.prove.z3_backend import Z3Prover
from vampire.backends import EProver

from corpus import CORPUS, Example

GOLDEN = Path(__file__).parent / "golden" / "tptp"
ROWS = [pytest.param(e, id=e.name) for e in CORPUS]


@pytest.mark.parametrize("example", ROWS)
def test_parser_builds_the_expected_tree(example: Example) -> None:
    assert parse(example.fol) == example.tree


@pytest.mark.parametrize("example", ROWS)
def test_printer_round_trips(example: Example) -> None:
    assert parse(to_text(example.tree)) == example.tree


@pytest.mark.parametrize("example", ROWS)
def test_tptp_matches_golden_file(example: Example, update_golden: bool) -> None:
    text = problem_to_tptp([], example.tree).text
    path = GOLDEN / f"corpus_{example.name}.p"
    if update_golden:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run pytest --update-golden"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("example", ROWS)
def test_z3_status(example: Example) -> None:
    verdict = Z3Prover().check(Problem((), example.tree), Budget(seconds=10))
    assert verdict.status is example.status


@pytest.mark.prover
@pytest.mark.parametrize("example", ROWS)
def test_eprover_status(example: Example) -> None:
    verdict = EProver().check(Problem((), example.tree), Budget(seconds=10))
    assert verdict.status is example.status, verdict.output_tail
