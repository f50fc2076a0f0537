"""`Problem` → TPTP problem file text (roles, statement names); thin over `refinery.logic.tptp`."""

from __future__ import annotations

from refinery.logic.tptp import TptpProblem, problem_to_tptp
from refinery.prove.verdict import Problem


def tptp_problem(problem: Problem) -> TptpProblem:
    """The TPTP text and symbol map for `problem`: axioms `p1`…`pn`, conjecture `goal`."""
    return problem_to_tptp(problem.axioms, problem.conjecture)


def tptp_text(problem: Problem) -> str:
    """Just the TPTP file text for `problem`."""
    return tptp_problem(problem).text
