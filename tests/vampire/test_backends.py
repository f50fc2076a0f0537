"""EProver and VampireProver: argv, binary resolution, verdict mapping, the runner, real provers.

Where only the command line and the output mapping matter, a fake shell script stands in for the
binary: it records its argv, cwd, pid and the problem it read on stdin and prints canned output. Tests marked
`prover` run the real E and the real Vampire (`vampire_path`: $VAMPIRE_PATH or
../shared/bin/vampire; those skip, saying so, without one).
"""

from __future__ import annotations

import os
import shlex
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from refinery.errors import ProverUnavailable
from refinery.logic.syntax import Const, Forall, Formula, Implies, Not, Or, Pred, Var
from refinery.prove.verdict import Budget, Problem, Prover, Status
from vampire import backends
from vampire.backends import (
    E_COMPLETE_FLAGS,
    E_FLAGS,
    GRACE_SECONDS,
    VAMPIRE_STRATEGY,
    EProver,
    VampireProver,
    prover_seconds,
    to_verdict,
)
from vampire.problem import tptp_text
from vampire.registry import default_tptp_prover, tptp_backends
from vampire.run import RunResult, run_on_file, run_on_stdin

x = Var("x")
MORTAL = (
    Forall("x", Implies(Pred("Man", (x,)), Pred("Mortal", (x,)))),
    Pred("Man", (Const("socrates"),)),
)
THEOREM = Problem(MORTAL, Pred("Mortal", (Const("socrates"),)))
COUNTER_SATISFIABLE = Problem(MORTAL, Pred("Mortal", (Const("plato"),)))
SATISFIABLE = Problem(MORTAL)
UNSATISFIABLE = Problem((*MORTAL, Not(Pred("Mortal", (Const("socrates"),)))))

VAMPIRE_VERSION = "Vampire 4.8 (commit fake on 2024-01-01)"
#: casc mode; then (after the time limit) the syntax and a TPTP proof naming its inputs
VAMPIRE_ARGS = [
    "--mode", "casc", "--input_syntax", "tptp", "--proof", "tptp", "--output_axiom_names", "on",
]  # fmt: skip
VAMPIRE_THEOREM = "% Refutation found.\n% SZS status Theorem for problem\n"
VAMPIRE_MODEL = (
    "% Finite Model Found!\n% SZS status Satisfiable for problem\n"
    "% SZS output start FiniteModel for problem\n% domain size is 1\n"
    "fof(domain,interpretation_domain, ! [X] : (X = fmb_$i_1)).\n"
    "% SZS output end FiniteModel for problem\n"
)


@dataclass
class Fake:
    """A fake prover binary and the files it leaves behind."""

    path: Path
    log: Path

    def argv(self) -> list[str]:
        return (self.log / "argv").read_text().splitlines()

    def problem(self) -> str:
        return (self.log / "problem.p").read_text(encoding="utf-8")

    def pid(self) -> int:
        return int((self.log / "pid").read_text())

    def version_calls(self) -> int:
        calls = self.log / "version_calls"
        return len(calls.read_text().splitlines()) if calls.exists() else 0


def make_fake(
    folder: Path,
    name: str = "vampire",
    *,
    stdout: str = VAMPIRE_THEOREM,
    stderr: str = "",
    exit_code: int = 0,
    hang: bool = False,
) -> Fake:
    """Write an executable shell script `folder/name` that behaves like a prover."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"{name}.log"
    log.mkdir()
    (log / "stdout").write_text(stdout, encoding="utf-8")
    (log / "stderr").write_text(stderr, encoding="utf-8")
    d = shlex.quote(str(log))
    hang_lines = "sleep 30 &\necho $! > " + d + "/child\nsleep 30\n" if hang else ""
    script = f"""#!/bin/sh
if [ "$1" = "--version" ]; then
  echo x >> {d}/version_calls
  echo {shlex.quote(VAMPIRE_VERSION)}
  exit 0
fi
printf '%s\\n' "$@" > {d}/argv
cat > {d}/problem.p
pwd > {d}/cwd
echo $$ > {d}/pid
{hang_lines}cat {d}/stdout
cat {d}/stderr >&2
exit {exit_code}
"""
    path = folder / name
    path.write_text(script)
    path.chmod(0o755)
    return Fake(path, log)


def group_alive(pgid: int) -> bool:
    """Whether any process of group `pgid` still runs (zombies awaiting a reaper don't count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def group_gone(pgid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while group_alive(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture(autouse=True)
def _no_prover_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test chooses binaries itself; the developer's environment must not leak in."""
    monkeypatch.delenv("VAMPIRE_PATH", raising=False)
    monkeypatch.delenv("EPROVER_PATH", raising=False)


# --- Vampire against a fake binary ------------------------------------------------------------


def test_vampire_resolves_from_env_and_builds_casc_argv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = make_fake(tmp_path)
    monkeypatch.setenv("VAMPIRE_PATH", str(fake.path))
    prover = VampireProver()
    assert prover.path == str(fake.path)
    assert prover.available()
    verdict = prover.check(THEOREM, Budget(seconds=2.5))
    assert fake.argv() == [*VAMPIRE_ARGS[:2], "-t", "3", *VAMPIRE_ARGS[2:]]
    assert fake.problem() == tptp_text(THEOREM)
    assert verdict.prover == "vampire"
    assert verdict.status is Status.THEOREM
    assert verdict.raw == "% SZS status Theorem for problem"
    assert verdict.version == f"{VAMPIRE_VERSION} {VAMPIRE_STRATEGY}"
    assert verdict.model is None
    assert verdict.output_tail == ""
    assert verdict.elapsed > 0


def test_vampire_consistency_question_uses_model_finding_mode(tmp_path: Path) -> None:
    fake = make_fake(tmp_path, stdout=VAMPIRE_MODEL)
    verdict = VampireProver(fake.path).check(SATISFIABLE, Budget(seconds=4))
    assert fake.argv() == [
        *VAMPIRE_ARGS[:2], "--intent", "sat", "-t", "4", *VAMPIRE_ARGS[2:]
    ]  # fmt: skip
    assert "conjecture" not in fake.problem()
    assert verdict.status is Status.SATISFIABLE
    assert verdict.model is not None and "domain size is 1" in verdict.model


def test_time_limit_is_whole_seconds_and_never_zero(tmp_path: Path) -> None:
    fake = make_fake(tmp_path)
    VampireProver(fake.path).check(THEOREM, Budget(seconds=0.2))
    assert fake.argv()[2:4] == ["-t", "1"]  # 0 would mean "no limit" to Vampire
    assert [prover_seconds(Budget(s)) for s in (0.0, 0.2, 1.0, 1.01, 7.5)] == [1, 1, 1, 2, 8]


def test_vampire_found_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = make_fake(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert VampireProver().path == str(fake.path)


def test_version_runs_once_per_binary(tmp_path: Path) -> None:
    fake = make_fake(tmp_path)
    prover = VampireProver(fake.path)
    for _ in range(3):
        prover.check(THEOREM, Budget(1))
    # a second instance shares it; the strategy is part of it, as it is of a cached verdict's key
    assert VampireProver(fake.path).version() == f"{VAMPIRE_VERSION} {VAMPIRE_STRATEGY}"
    assert fake.version_calls() == 1


def _crashing_portfolio(folder: Path, *, crash: bool) -> Path:
    """A Vampire whose CASC portfolio ends in Timeout (after strategies died of a signal when
    `crash`), and whose default mode proves: Vampire 5.0.1 on FOLIO v2 train 69."""
    folder.mkdir(parents=True, exist_ok=True)
    died = "echo '% Aborted by signal SIGSEGV on problem'" if crash else ""
    script = f"""#!/bin/sh
if [ "$1" = "--version" ]; then echo {shlex.quote(VAMPIRE_VERSION)}; exit 0; fi
echo "$*" >> {folder}/calls
cat > /dev/null
if [ "$1" = "--mode" ]; then
  {died}
  echo '% Proof not found in time 4.9 s'
  echo '% SZS status Timeout for problem'
  exit 1
fi
echo '% Refutation found.'
echo '% SZS status Theorem for problem'
"""
    path = folder / "vampire"
    path.write_text(script)
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("crash", [True, False])
def test_a_portfolio_whose_strategies_crashed_is_asked_again_in_default_mode(
    tmp_path: Path, crash: bool
) -> None:
    path = _crashing_portfolio(tmp_path, crash=crash)
    verdict = VampireProver(path).check(THEOREM, Budget(seconds=5))
    calls = (tmp_path / "calls").read_text().splitlines()
    if crash:
        assert verdict.status is Status.THEOREM
        assert [c.split()[:3] for c in calls] == [
            ["--mode", "casc", "-t"],
            ["-t", "1", "--input_syntax"],
        ]
    else:  # a portfolio that merely ran out of time is not run again
        assert verdict.status is Status.TIMEOUT and len(calls) == 1


def test_vampire_5_0_1_decides_train_69_once_its_portfolio_crashed(vampire_path: str) -> None:
    """FOLIO v2 train 69 with its stray `)` removed: every CASC strategy that finds the
    refutation dies of SIGSEGV; the default mode proves it."""
    from refinery.logic.parse import parse

    premises = (
        "∀x (Easy(x) → ∃y (LessThan(y, percent20) ∧ ACRate(x,y)))",
        "∀x (Recommended(x) → Easy(x))",
        "∀x (Easy(x) ⊕ Hard(x))",
        "∀x (Starred(x) → Hard(x))",
        "Recommended(twosum)",
        "Starred(foursum)",
    )
    problem = Problem(tuple(parse(p) for p in premises), parse("Easy(twosum)"))
    verdict = VampireProver(vampire_path).check(problem, Budget(seconds=5))
    assert verdict.status is Status.THEOREM, verdict.output_tail


@pytest.mark.parametrize("how", ["env", "argument", "path"])
def test_missing_vampire_is_unavailable_and_check_raises(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "no-such-vampire"
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no vampire on PATH
    if how == "env":
        monkeypatch.setenv("VAMPIRE_PATH", str(missing))
    prover = VampireProver(missing) if how == "argument" else VampireProver()
    assert prover.path is None
    assert not prover.available()
    with pytest.raises(ProverUnavailable):
        prover.check(THEOREM, Budget(1))
    with pytest.raises(ProverUnavailable):
        prover.version()


def test_non_executable_file_is_unavailable(tmp_path: Path) -> None:
    fake = make_fake(tmp_path)
    fake.path.chmod(0o644)
    assert not VampireProver(fake.path).available()


def test_crash_with_garbage_is_error_with_output_tail(tmp_path: Path) -> None:
    fake = make_fake(
        tmp_path, stdout="\x00\x01 garbage out\n", stderr="Segmentation fault\n", exit_code=139
    )
    verdict = VampireProver(fake.path).check(THEOREM, Budget(1))
    assert verdict.status is Status.ERROR
    assert verdict.raw == ""
    assert "garbage out" in verdict.output_tail
    assert "Segmentation fault" in verdict.output_tail


def test_exit_code_does_not_decide(tmp_path: Path) -> None:
    ok = make_fake(tmp_path / "a", stdout=VAMPIRE_THEOREM, exit_code=1)
    assert VampireProver(ok.path).check(THEOREM, Budget(1)).status is Status.THEOREM
    silent = make_fake(tmp_path / "b", stdout="all fine\n", exit_code=0)
    assert VampireProver(silent.path).check(THEOREM, Budget(1)).status is Status.ERROR


def test_undecided_keeps_output_tail(tmp_path: Path) -> None:
    long = "x" * 10_000 + "\n% SZS status GaveUp for problem\n"
    verdict = VampireProver(make_fake(tmp_path, stdout=long).path).check(THEOREM, Budget(1))
    assert verdict.status is Status.GAVE_UP
    assert verdict.output_tail.endswith("GaveUp for problem\n")
    assert len(verdict.output_tail) == backends.TAIL_CHARS


def test_hanging_prover_times_out_and_its_whole_group_dies(tmp_path: Path) -> None:
    fake = make_fake(tmp_path, hang=True)
    verdict = VampireProver(fake.path).check(THEOREM, Budget(seconds=0.5))
    assert verdict.status is Status.TIMEOUT
    assert 1.0 <= verdict.elapsed < 1.0 + GRACE_SECONDS + 1.5  # limit 1 s + grace
    assert group_gone(fake.pid())
    child = int((fake.log / "child").read_text())
    assert group_gone(child)  # the background worker was in the group too


def test_the_problem_goes_on_stdin_and_no_directory_is_made(tmp_path: Path) -> None:
    fake = make_fake(tmp_path)
    before = set(Path(tempfile.gettempdir()).glob("refinery-prover-*"))
    VampireProver(fake.path).check(THEOREM, Budget(1))
    assert "fof(goal, conjecture," in fake.problem()  # read from stdin: no file argument
    assert Path((fake.log / "cwd").read_text().strip()) == Path.cwd()
    assert set(Path(tempfile.gettempdir()).glob("refinery-prover-*")) == before


def test_binary_removed_after_resolution_raises_unavailable(tmp_path: Path) -> None:
    fake = make_fake(tmp_path)
    prover = VampireProver(fake.path)
    fake.path.unlink()
    with pytest.raises(ProverUnavailable):
        prover.check(THEOREM, Budget(1))


# --- E: command line and resolution (fake binaries) --------------------------------------------


def test_eprover_argv(tmp_path: Path) -> None:
    fake = make_fake(tmp_path, "eprover", stdout="% SZS status CounterSatisfiable\n")
    verdict = EProver(fake.path).check(COUNTER_SATISFIABLE, Budget(seconds=2.1))
    assert fake.argv() == ["--auto", "--tstp-format", "-s", "-p", "--cpu-limit=3"]
    assert list(E_FLAGS) == fake.argv()[:4]
    assert verdict.prover == "eprover"
    assert verdict.status is Status.COUNTER_SATISFIABLE


def test_eprover_asks_the_complete_schedule_where_auto_gave_up(tmp_path: Path) -> None:
    """`--auto` may prune axioms; a GaveUp is asked again without pruning, in the time left."""
    fake = make_fake(tmp_path, "eprover", stdout="% SZS status GaveUp\n")
    verdict = EProver(fake.path).check(COUNTER_SATISFIABLE, Budget(seconds=3))
    assert fake.argv() == [*E_COMPLETE_FLAGS, "--cpu-limit=3"]  # the second run's command line
    assert verdict.status is Status.GAVE_UP
    decided = make_fake(tmp_path / "decided", "eprover", stdout="% SZS status Theorem\n")
    EProver(decided.path).check(COUNTER_SATISFIABLE, Budget(seconds=3))
    assert decided.argv()[0] == "--auto"  # a decided first answer is not asked again


def test_eprover_from_env_and_explicit_path_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_fake = make_fake(tmp_path / "env", "eprover")
    arg_fake = make_fake(tmp_path / "arg", "eprover")
    monkeypatch.setenv("EPROVER_PATH", str(env_fake.path))
    assert EProver().path == str(env_fake.path)
    assert EProver(arg_fake.path).path == str(arg_fake.path)


def test_eprover_env_may_name_a_command_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = make_fake(tmp_path, "my-eprover")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("EPROVER_PATH", "my-eprover")
    assert EProver().path == str(fake.path)


def test_eprover_defaults_to_the_wheel() -> None:
    eprover = pytest.importorskip("eprover")
    assert EProver().path == os.path.abspath(eprover.eprover_path)


def test_eprover_falls_back_to_path_without_the_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = make_fake(tmp_path, "eprover")
    monkeypatch.setattr(backends, "_wheel_eprover", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert EProver().path == str(fake.path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert not EProver().available()


def test_explicit_missing_eprover_does_not_fall_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prover = EProver(tmp_path / "missing")
    assert not prover.available()
    with pytest.raises(ProverUnavailable):
        prover.check(THEOREM, Budget(1))
    monkeypatch.setenv("EPROVER_PATH", str(tmp_path / "missing"))
    assert not EProver().available()


# --- registry -------------------------------------------------------------------------------


def test_registry_lists_both_backends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAMPIRE_PATH", str(tmp_path / "missing"))
    backends_by_name = tptp_backends()
    assert sorted(backends_by_name) == ["eprover", "vampire"]
    assert all(isinstance(b, Prover) for b in backends_by_name.values())
    assert isinstance(backends_by_name["vampire"], VampireProver)
    assert not backends_by_name["vampire"].available()


def test_default_prover_prefers_vampire(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAMPIRE_PATH", str(make_fake(tmp_path).path))
    assert isinstance(default_tptp_prover(), VampireProver)
    monkeypatch.setenv("VAMPIRE_PATH", str(tmp_path / "missing"))
    assert isinstance(default_tptp_prover(), EProver)


# --- run → verdict mapping and the runner ----------------------------------------------------


def _run(stdout: str, *, timed_out: bool = False, stderr: str = "") -> RunResult:
    return RunResult(stdout, stderr, -9 if timed_out else 0, 1.5, timed_out, pid=1)


def test_definitive_status_printed_before_a_kill_still_counts() -> None:
    verdict = to_verdict("p", "v1", _run("% SZS status Theorem\n", timed_out=True))
    assert verdict.status is Status.THEOREM


def test_kill_without_definitive_status_is_timeout() -> None:
    for stdout in ("", "% SZS status GaveUp\n", "garbage"):
        verdict = to_verdict("p", "v1", _run(stdout, timed_out=True))
        assert verdict.status is Status.TIMEOUT
        assert verdict.elapsed == 1.5 and verdict.version == "v1"


def test_syntax_error_on_stderr_only_is_error() -> None:
    # What E 3.5 does on a malformed file: nothing on stdout, a message on stderr, exit 3.
    stderr = "eprover: problem.p:2:(Column 1):(just read ''): Closing bracket (')') expected\n"
    verdict = to_verdict("eprover", "E", _run("", stderr=stderr))
    assert verdict.status is Status.ERROR
    assert "Closing bracket" in verdict.output_tail


def test_runner_passes_arguments_verbatim_and_decodes_bad_bytes(tmp_path: Path) -> None:
    script = tmp_path / "echoer"
    script.write_text("#!/bin/sh\nprintf '%s|' \"$@\"\nprintf '\\377\\376\\n'\ncat \"$2\"\n")
    script.chmod(0o755)
    run = run_on_file([str(script), "a b; rm -rf /"], "fof(p1, axiom, p).\n", timeout=5)
    assert run.stdout.startswith("a b; rm -rf /|problem.p|")
    assert "\ufffd" in run.stdout and run.stdout.endswith("fof(p1, axiom, p).\n")
    assert not run.timed_out and run.returncode == 0


def test_stdin_runner_passes_a_problem_larger_than_a_pipe_both_ways() -> None:
    text = "".join(f"fof(p{i}, axiom, p{i}).\n" for i in range(60_000))  # ~1.5 MB
    run = run_on_stdin(["cat"], text, timeout=20)
    assert run.stdout == text and not run.timed_out and run.returncode == 0


def test_stdin_runner_keeps_what_a_killed_prover_wrote(tmp_path: Path) -> None:
    script = tmp_path / "slow"
    script.write_text("#!/bin/sh\necho '% SZS status Theorem'\nsleep 30\n")
    script.chmod(0o755)
    started = time.monotonic()
    run = run_on_stdin([str(script)], "fof(p1, axiom, p).\n", timeout=0.5)
    assert run.timed_out and time.monotonic() - started < 3
    assert run.stdout == "% SZS status Theorem\n"
    assert group_gone(run.pid)


def test_stdin_runner_ignores_a_prover_that_does_not_read_its_input() -> None:
    run = run_on_stdin(["true"], "x" * 1_000_000, timeout=5)
    assert not run.timed_out and run.returncode == 0


def test_runner_rejects_paths_as_file_names() -> None:
    with pytest.raises(ValueError):
        run_on_file(["true"], "", timeout=1, filename="../escape.p")


def test_runner_missing_binary_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        run_on_file([str(tmp_path / "nothing")], "", timeout=1)


# --- the real provers: E, and Vampire when its binary is there ----------------------------------


@pytest.fixture(scope="module")
def eprover() -> EProver:
    prover = EProver()
    if not prover.available():
        pytest.skip("E prover not found")
    return prover


@pytest.fixture(scope="module", params=["eprover", "vampire"])
def real_tptp(request: pytest.FixtureRequest) -> Prover:
    """Each real TPTP prover in turn (Vampire skips, saying so, without its binary)."""
    if request.param == "vampire":
        return VampireProver(request.getfixturevalue("vampire_path"))
    prover: Prover = request.getfixturevalue("eprover")
    return prover


def pigeonhole(pigeons: int) -> Problem:
    """PHP(n, n-1): unsatisfiable, and exponentially hard for resolution provers such as E."""
    holes = range(pigeons - 1)

    def inside(i: int, h: int) -> Pred:
        return Pred(f"In{i}_{h}", ())

    axioms: list[Formula] = [Or(tuple(inside(i, h) for h in holes)) for i in range(pigeons)]
    axioms += [
        Or((Not(inside(a, h)), Not(inside(b, h))))
        for h in holes
        for a in range(pigeons)
        for b in range(a + 1, pigeons)
    ]
    return Problem(tuple(axioms), name=f"php{pigeons}")


@pytest.mark.prover
@pytest.mark.parametrize(
    ("problem", "status", "has_model"),
    [
        (THEOREM, Status.THEOREM, False),
        (COUNTER_SATISFIABLE, Status.COUNTER_SATISFIABLE, True),
        (SATISFIABLE, Status.SATISFIABLE, True),
        (UNSATISFIABLE, Status.UNSATISFIABLE, False),
        (pigeonhole(4), Status.UNSATISFIABLE, False),
    ],
)
def test_real_prover(real_tptp: Prover, problem: Problem, status: Status, has_model: bool) -> None:
    verdict = real_tptp.check(problem, Budget(seconds=5))
    assert verdict.status is status, verdict
    assert verdict.raw.startswith(f"% SZS status {status.value}")
    assert verdict.version.startswith({"eprover": "E 3.", "vampire": "Vampire 5."}[real_tptp.name])
    assert (verdict.model is not None) == has_model
    assert verdict.elapsed < 5


@pytest.mark.prover
@pytest.mark.parametrize(
    ("problem", "core"),
    [
        (THEOREM, (0, 1)),
        (UNSATISFIABLE, (0, 1, 2)),
        # an axiom the proof does not need is left out of its core
        (Problem((Pred("Tall", (Const("ann"),)), *MORTAL), THEOREM.conjecture), (1, 2)),
    ],
)
def test_real_prover_names_the_premises_its_proof_uses(
    real_tptp: Prover, problem: Problem, core: tuple[int, ...]
) -> None:
    verdict = real_tptp.check(problem, Budget(seconds=5))
    assert verdict.core == core, verdict
    # a satisfiable answer has no proof, so no core
    assert real_tptp.check(COUNTER_SATISFIABLE, Budget(seconds=5)).core is None


@pytest.mark.prover
def test_real_vampire_finds_a_smallest_countermodel(vampire_path: str) -> None:
    from refinery.logic.parse import parse

    verdict = VampireProver(vampire_path).find_model(COUNTER_SATISFIABLE, Budget(seconds=5))
    model = verdict.countermodel
    assert verdict.status is Status.COUNTER_SATISFIABLE and model is not None, verdict
    # socrates is mortal and plato is not: two elements, and no fewer will do
    assert model.size == 2
    assert all(model.holds(a) for a in COUNTER_SATISFIABLE.axioms)
    assert COUNTER_SATISFIABLE.conjecture is not None
    assert not model.holds(COUNTER_SATISFIABLE.conjecture)
    assert "Man(socrates)" in model.render(false_atoms=[parse("Mortal(plato)")])
    # no model of a theorem's premises and negated conclusion
    proved = VampireProver(vampire_path).find_model(THEOREM, Budget(seconds=5))
    assert proved.countermodel is None and proved.status is not Status.COUNTER_SATISFIABLE


@pytest.mark.prover
def test_real_e_model_mentions_the_symbols(eprover: EProver) -> None:
    verdict = eprover.check(COUNTER_SATISFIABLE, Budget(seconds=5))
    assert verdict.model is not None
    assert "p_Man_1(c_socrates)" in verdict.model


def _spy_runs(monkeypatch: pytest.MonkeyPatch) -> list[RunResult]:
    runs: list[RunResult] = []
    real: Callable[..., RunResult] = run_on_stdin

    def spy(*args: object, **kwargs: object) -> RunResult:
        result = real(*args, **kwargs)
        runs.append(result)
        return result

    monkeypatch.setattr(backends, "run_on_stdin", spy)
    return runs


@pytest.mark.prover
def test_real_hard_problem_stops_within_budget(
    real_tptp: Prover, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _spy_runs(monkeypatch)
    verdict = real_tptp.check(pigeonhole(10), Budget(seconds=1))
    assert verdict.status in (Status.TIMEOUT, Status.RESOURCE_OUT, Status.GAVE_UP), verdict
    assert verdict.elapsed < 1 + GRACE_SECONDS + 1.0
    assert verdict.output_tail  # undecided verdicts keep output for diagnosis
    assert group_gone(runs[0].pid)


@pytest.mark.prover
def test_real_e_is_killed_at_the_wall_clock_cap(eprover: EProver) -> None:
    # E would happily use its 60 CPU seconds; the runner's cap must stop E and its workers.
    assert eprover.path is not None
    argv = [eprover.path, *E_COMPLETE_FLAGS, "--cpu-limit=60"]
    run = run_on_file(argv, tptp_text(pigeonhole(10)), timeout=1.0)
    assert run.timed_out
    assert run.elapsed < 1.0 + 1.5
    assert group_gone(run.pid)
    assert to_verdict("eprover", "E", run).status is Status.TIMEOUT


@pytest.mark.prover
def test_real_versions(real_tptp: Prover) -> None:
    expected = {"eprover": "E 3.5", "vampire": "Vampire 5.0.1"}[real_tptp.name]
    assert real_tptp.version().startswith(expected)


@pytest.mark.prover
def test_real_check_many_answers_each_question_as_check_does(real_tptp: Prover) -> None:
    """One process per question over shared axioms rendered once: same answers, same order."""
    questions = [THEOREM.conjecture, None, COUNTER_SATISFIABLE.conjecture]
    assert isinstance(real_tptp, EProver | VampireProver)
    many = real_tptp.check_many(MORTAL, questions, Budget(seconds=5), cores=True)
    single = [real_tptp.check(Problem(MORTAL, q), Budget(seconds=5)) for q in questions]
    assert [v.status for v in many] == [v.status for v in single]
    assert [v.status for v in many] == [
        Status.THEOREM,
        Status.SATISFIABLE,
        Status.COUNTER_SATISFIABLE,
    ]
    assert many[0].core == single[0].core and many[0].core  # the proof names its premises
