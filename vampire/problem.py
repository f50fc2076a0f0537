"""`Problem` → TPTP problem file text (roles, statement names); thin over `refinery.logic.tptp`."""

from __future__ import annotations

from refinery.logic.tptp import TptpProblem, problem_to_tptp
from refinery.prove.verdict import Problem

# The file name every prover sees (inside a fresh temp dir): fixed, so output that echoes it
# (E's `file('problem.p', p1)` annotations) is deterministic and never carries a caller's name.
PROBLEM_FILE = "problem.p"


def tptp_problem(problem: Problem) -> TptpProblem:
    """The TPTP text and symbol map for `problem`: axioms `p1`…`pn`, conjecture `goal`."""
    return problem_to_tptp(problem.axioms, problem.conjecture)


def tptp_text(problem: Problem) -> str:
    """Just the TPTP file text for `problem`."""
    return tptp_problem(problem).text
