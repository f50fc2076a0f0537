"""`Problem` → TPTP problem file text (roles, statement names); thin over `refinery.logic.tptp`."""

from __future__ import annotations

from collections.abc import Sequence

from refinery.logic.syntax import Formula
from refinery.logic.tptp import TptpProblem, problem_to_tptp, problems_to_tptp
from refinery.prove.verdict import Problem


def tptp_problem(problem: Problem) -> TptpProblem:
    """The TPTP text and symbol map for `problem`: axioms `p1`…`pn`, conjecture `goal`."""
    return problem_to_tptp(problem.axioms, problem.conjecture)


def tptp_text(problem: Problem) -> str:
    """Just the TPTP file text for `problem`."""
    return tptp_problem(problem).text


def tptp_texts(axioms: Sequence[Formula], conjectures: Sequence[Formula | None]) -> list[str]:
    """The TPTP file text of each question over the same axioms, which are rendered once."""
    return [p.text for p in problems_to_tptp(axioms, conjectures)]
