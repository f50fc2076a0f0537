"""SZS parsing on stored prover outputs (tests/golden/szs/*.out), without running any binary.

The `e35_*` files were captured from the real E 3.5 with the backend's flags (and one with
`--auto`, which shows E's `%% SZS status ResourceOut` line); `pytest --update-golden` captures them
again, and a `prover` test checks that live E still answers as the stored files say. The other
files are hand-written: E 2.x (`#` comments), Vampire, garbage and empty output.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refinery.prove.verdict import Status
from vampire.backends import E_COMPLETE_FLAGS, E_FLAGS, EProver
from vampire.run import run_on_file
from vampire.szs import SZS_WORDS, _output_block, _status_lines, parse_szs

GOLDEN_SZS = Path(__file__).resolve().parent.parent / "golden" / "szs"

THEOREM = """\
fof(p1, axiom, (![X1]: (p_Man_1(X1) => p_Mortal_1(X1)))).
fof(p2, axiom, p_Man_1(c_socrates)).
fof(goal, conjecture, p_Mortal_1(c_socrates)).
"""
COUNTER_SATISFIABLE = THEOREM.replace("p_Mortal_1(c_socrates)).\n", "p_Mortal_1(c_plato)).\n")
SATISFIABLE = "".join(THEOREM.splitlines(keepends=True)[:2])
UNSATISFIABLE = SATISFIABLE + "fof(p3, axiom, ~p_Mortal_1(c_socrates)).\n"
CONTRADICTORY = "fof(p1, axiom, p_A).\nfof(p2, axiom, ~p_A).\nfof(goal, conjecture, p_B).\n"


def pigeonhole(pigeons: int) -> str:
    """PHP(n, n-1) as propositional fof: unsatisfiable, and exponentially hard for resolution."""
    holes = range(pigeons - 1)
    lines = [" | ".join(f"in_{i}_{h}" for h in holes) for i in range(pigeons)]
    lines += [
        f"~in_{a}_{h} | ~in_{b}_{h}"
        for h in holes
        for a in range(pigeons)
        for b in range(a + 1, pigeons)
    ]
    return "".join(f"fof(p{k}, axiom, ({line})).\n" for k, line in enumerate(lines, start=1))


# name → (problem text, E flags before --cpu-limit, cpu seconds)
E_CAPTURES: dict[str, tuple[str, tuple[str, ...], int]] = {
    "e35_theorem": (THEOREM, E_FLAGS, 5),
    "e35_countersatisfiable": (COUNTER_SATISFIABLE, E_FLAGS, 5),
    "e35_satisfiable": (SATISFIABLE, E_FLAGS, 5),
    "e35_unsatisfiable": (UNSATISFIABLE, E_FLAGS, 5),
    "e35_contradictory_axioms": (CONTRADICTORY, E_FLAGS, 5),
    "e35_gaveup_schedule": (pigeonhole(9), E_COMPLETE_FLAGS, 1),
    "e35_resourceout_auto": (pigeonhole(9), ("--auto", "--tstp-format", "-s", "-p"), 1),
}

# name → (status, raw status line, kind of SZS output block or None)
EXPECTED: dict[str, tuple[Status, str, str | None]] = {
    "e35_theorem": (Status.THEOREM, "% SZS status Theorem", "CNFRefutation"),
    "e35_countersatisfiable": (
        Status.COUNTER_SATISFIABLE,
        "% SZS status CounterSatisfiable",
        "Saturation",
    ),
    "e35_satisfiable": (Status.SATISFIABLE, "% SZS status Satisfiable", "Saturation"),
    "e35_unsatisfiable": (Status.UNSATISFIABLE, "% SZS status Unsatisfiable", "CNFRefutation"),
    "e35_contradictory_axioms": (
        Status.CONTRADICTORY_AXIOMS,
        "% SZS status ContradictoryAxioms",
        "CNFRefutation",
    ),
    "e35_gaveup_schedule": (Status.GAVE_UP, "% SZS status GaveUp", None),
    "e35_resourceout_auto": (Status.RESOURCE_OUT, "%% SZS status ResourceOut", None),
    "e2_theorem_hash": (Status.THEOREM, "# SZS status Theorem", "CNFRefutation"),
    "e2_countersatisfiable_hash": (
        Status.COUNTER_SATISFIABLE,
        "# SZS status CounterSatisfiable",
        "Saturation",
    ),
    "vampire_theorem": (Status.THEOREM, "% SZS status Theorem for problem", "Proof"),
    "vampire_countersatisfiable_fmb": (
        Status.COUNTER_SATISFIABLE,
        "% SZS status CounterSatisfiable for problem",
        "FiniteModel",
    ),
    "vampire_timeout": (Status.TIMEOUT, "% SZS status Timeout for problem", None),
    "garbage": (Status.ERROR, "", None),
    "empty": (Status.ERROR, "", None),
}

MODEL_KINDS = {"Saturation", "FiniteModel"}


def _read(name: str) -> str:
    return (GOLDEN_SZS / f"{name}.out").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_golden_outputs_parse(name: str) -> None:
    status, raw, kind = EXPECTED[name]
    result = parse_szs(_read(name))
    assert (result.status, result.raw, result.output_kind) == (status, raw, kind)
    if kind is None:
        assert result.output is None
    else:
        assert result.output is not None
        assert "SZS output" not in result.output  # the block excludes its start/end lines
    assert (result.model is not None) == (kind in MODEL_KINDS)


def test_every_golden_file_is_covered() -> None:
    assert {p.stem for p in GOLDEN_SZS.glob("*.out")} == set(EXPECTED)


def test_model_block_content() -> None:
    sat = parse_szs(_read("e35_countersatisfiable"))
    assert sat.model is not None
    assert "cnf(" in sat.model and "p_Man_1(c_socrates)" in sat.model
    fmb = parse_szs(_read("vampire_countersatisfiable_fmb")).model
    assert fmb is not None and "interpretation_domain" in fmb


def test_status_must_start_the_line() -> None:
    # Mid-line mentions (a name echoed in an error, a quoted log) do not count.
    assert parse_szs("error near '% SZS status Theorem'\n").status is Status.ERROR
    assert parse_szs("  % SZS status Theorem\n").status is Status.ERROR
    assert parse_szs("SZS status Theorem\n").status is Status.ERROR
    assert parse_szs("noise\n% SZS status Theorem\n").status is Status.THEOREM


def test_status_line_does_not_span_lines() -> None:
    assert parse_szs("%\nSZS status Theorem\n").status is Status.ERROR
    assert parse_szs("% SZS status\nTheorem\n").status is Status.ERROR


def test_unknown_word_is_error_keeping_the_line() -> None:
    result = parse_szs("% SZS status Bananas for problem\n")
    assert result.status is Status.ERROR
    assert result.raw == "% SZS status Bananas for problem"


def test_conflicting_definitive_statuses_are_an_error() -> None:
    result = parse_szs("% SZS status Theorem\n% SZS status CounterSatisfiable\n")
    assert result.status is Status.ERROR
    assert "Theorem" in result.raw and "CounterSatisfiable" in result.raw


def test_definitive_status_wins_over_worker_give_ups() -> None:
    text = "% SZS status GaveUp\n% SZS status Theorem\n% SZS status GaveUp\n"
    assert parse_szs(text).status is Status.THEOREM


def test_progress_lines_are_ignored() -> None:
    text = "%% SZS status Started for p.p\n% SZS status Satisfiable\n%% SZS status Ended for p.p\n"
    result = parse_szs(text)
    assert (result.status, result.raw) == (Status.SATISFIABLE, "% SZS status Satisfiable")


def test_last_undecided_status_decides() -> None:
    assert parse_szs("% SZS status GaveUp\n% SZS status Timeout\n").status is Status.TIMEOUT


@pytest.mark.parametrize(
    ("word", "status"),
    [
        ("Theorem", Status.THEOREM),
        ("CounterSatisfiable", Status.COUNTER_SATISFIABLE),
        ("Satisfiable", Status.SATISFIABLE),
        ("Unsatisfiable", Status.UNSATISFIABLE),
        ("ContradictoryAxioms", Status.CONTRADICTORY_AXIOMS),
        ("Timeout", Status.TIMEOUT),
        ("GaveUp", Status.GAVE_UP),
        ("ResourceOut", Status.RESOURCE_OUT),
        ("MemoryOut", Status.RESOURCE_OUT),
        ("Error", Status.ERROR),
        ("InputError", Status.ERROR),
        ("SyntaxError", Status.ERROR),
    ],
)
def test_word_table(word: str, status: Status) -> None:
    assert SZS_WORDS[word] is status
    for prefix in ("%", "#", "%%"):
        assert parse_szs(f"{prefix} SZS status {word}\n").status is status


def test_unterminated_output_block_is_not_a_model() -> None:
    text = "% SZS status Satisfiable\n% SZS output start Saturation\ncnf(a, plain, p).\n"
    result = parse_szs(text)
    assert result.status is Status.SATISFIABLE
    assert result.model is None


def test_model_only_for_satisfiable_statuses() -> None:
    block = "% SZS output start Saturation\ncnf(a, plain, p).\n% SZS output end Saturation\n"
    assert parse_szs("% SZS status Satisfiable\n" + block).model == "cnf(a, plain, p).\n"
    assert parse_szs("% SZS status GaveUp\n" + block).model is None


# The reading as one `^`-anchored scan of the whole output, which `parse_szs` replaced with a
# search for the words first (faster): both must read every output alike.
_WHOLE_STATUS = re.compile(r"^[%#]+[ \t]*SZS status[ \t]+(\w+)[^\n]*", re.MULTILINE)
_WHOLE_BLOCK = re.compile(
    r"^[%#]+[ \t]*SZS output start[ \t]+(\w+)[^\n]*\n(.*?)^[%#]+[ \t]*SZS output end\b",
    re.MULTILINE | re.DOTALL,
)
_PIECES = [
    "% SZS status Theorem", "# SZS status CounterSatisfiable for x", "%% SZS status ResourceOut",
    "% SZS status Started", "%SZS status\tGaveUp", "x % SZS status Theorem", "% SZS statusTheorem",
    "% SZS output start Saturation", "% SZS output start CNFRefutation for y",
    "% SZS output end Saturation", "%SZS output endless", "  % SZS output end", "cnf(a, plain, p).",
    "% SZS output start", "", "SZS status Theorem SZS output end", "%", " ",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12), st.sampled_from(["\n", " ", ""]))
def test_reading_matches_one_anchored_scan(pieces: list[str], tail: str) -> None:
    text = "\n".join(pieces) + tail
    whole = [(m.group(1), m.group(0).strip()) for m in _WHOLE_STATUS.finditer(text)]
    block = _WHOLE_BLOCK.search(text)
    assert _status_lines(text) == whole
    assert _output_block(text) == ((block.group(1), block.group(2)) if block else (None, None))


@pytest.mark.prover
@pytest.mark.parametrize("name", sorted(E_CAPTURES))
def test_captured_e_outputs_match_live_e(name: str, update_golden: bool) -> None:
    """Re-run E on a captured problem: same status as the stored file (rewritten on update)."""
    prover = EProver()
    if prover.path is None or not prover.available():
        pytest.skip("E prover not found")
    text, flags, seconds = E_CAPTURES[name]
    run = run_on_file([prover.path, *flags, f"--cpu-limit={seconds}"], text, timeout=seconds + 5.0)
    assert not run.timed_out
    path = GOLDEN_SZS / f"{name}.out"
    if update_golden:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(run.stdout, encoding="utf-8")
    assert parse_szs(run.stdout).status is parse_szs(_read(name)).status is EXPECTED[name][0]


def test_inputs_used_from_a_proof_of_a_problem_read_on_stdin() -> None:
    """E quotes `file('<stdin>', p1)`, Vampire `file(unknown,p1)`: both name the statements."""
    for quoted in ("file('<stdin>', p1)", "file(unknown,p1)"):
        other = quoted.replace("p1", "p3")
        proof = (
            "% SZS status Theorem\n% SZS output start CNFRefutation\n"
            f"fof(f1, axiom, q, {quoted}).\nfof(f2, axiom, r, {other}).\n"
            "% SZS output end CNFRefutation\n"
        )
        assert parse_szs(proof).inputs_used == ("p1", "p3")
