"""Verdict cache keys: one per question, stable across releases, shared axioms hashed once."""

from __future__ import annotations

import hashlib
import json

from refinery.logic.parse import parse
from refinery.logic.printer import to_text
from refinery.logic.syntax import Formula
from refinery.prove.cache import problem_key, problem_keys
from refinery.prove.verdict import Budget, Problem

AXIOMS = (parse("∀x (Man(x) → Mortal(x))"), parse("Man(sócrates)"))
GOALS: list[Formula | None] = [parse("Mortal(sócrates)"), None, parse("¬Mortal(sócrates)")]
BUDGET = Budget(seconds=5.0, rlimit=1000)


def test_key_is_the_hash_of_the_question_as_json() -> None:
    """The key's definition: a warm cache from an earlier release must still hit."""
    for goal in GOALS:
        payload = {
            "prover": "eprover",
            "version": "E 3.5.1",
            "seconds": 5.0,
            "rlimit": 1000,
            "axioms": [to_text(a) for a in AXIOMS],
            "conjecture": None if goal is None else to_text(goal),
        }
        expected = hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()
        assert problem_key("eprover", "E 3.5.1", BUDGET, Problem(AXIOMS, goal)) == expected


def test_keys_over_shared_axioms_equal_one_key_per_question() -> None:
    keys = problem_keys("z3", "4.15", BUDGET, AXIOMS, GOALS)
    assert keys == [problem_key("z3", "4.15", BUDGET, Problem(AXIOMS, g)) for g in GOALS]
    assert len(set(keys)) == len(GOALS)


def test_everything_that_decides_an_answer_is_in_the_key() -> None:
    base = problem_key("z3", "4.15", BUDGET, Problem(AXIOMS, GOALS[0]))
    others = [
        problem_key("eprover", "4.15", BUDGET, Problem(AXIOMS, GOALS[0])),
        problem_key("z3", "4.16", BUDGET, Problem(AXIOMS, GOALS[0])),
        problem_key("z3", "4.15", Budget(seconds=6.0, rlimit=1000), Problem(AXIOMS, GOALS[0])),
        problem_key("z3", "4.15", Budget(seconds=5.0, rlimit=None), Problem(AXIOMS, GOALS[0])),
        problem_key("z3", "4.15", BUDGET, Problem(AXIOMS[:1], GOALS[0])),
        problem_key("z3", "4.15", BUDGET, Problem(AXIOMS[::-1], GOALS[0])),
    ]
    assert base not in others and len(set(others)) == len(others)
