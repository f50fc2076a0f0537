"""Z3 as an in-process `Prover`: one fresh context per call, limits set on the solver.

This module owns running Z3 and mapping its answers onto the SZS `Status` vocabulary:

- no conjecture: sat → SATISFIABLE, unsat → UNSATISFIABLE;
- with a conjecture (its negation is asserted): unsat → THEOREM, sat → COUNTER_SATISFIABLE;
- unknown: out of time → TIMEOUT, out of `rlimit` → RESOURCE_OUT, anything else (e.g.
  "incomplete quantifiers") → GAVE_UP; a `z3.Z3Exception` → ERROR.

Limits are the solver parameters `timeout` (milliseconds) and `rlimit` (Z3's deterministic
resource counter). Both apply to each `check()` separately; `rlimit` counts from where the
context's counter stands when the check starts, so it also works per question under push/pop.
Z3's reason strings do not tell the two limits apart reliably (an exhausted `rlimit`, and a
timeout in incremental mode, both read "canceled"), so the classification also compares the
resource units the check spent with the budget.

A watchdog thread interrupts the context shortly after the budget, as a backstop for the rare
phases in which Z3 does not poll its own timer; an interrupted check is reported as TIMEOUT
(Z3 then says "interrupted" or "canceled").
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from refinery.errors import ConfigError, ProverUnavailable
from refinery.logic.syntax import Formula
from refinery.logic.to_z3 import Z3Translator
from refinery.prove.verdict import Budget, Problem, Status, Verdict

try:
    import z3
except ImportError as exc:  # pragma: no cover - z3-solver is a declared dependency
    raise ProverUnavailable(
        "z3-solver is not installed: make run (or pip install z3-solver)"
    ) from exc

MODEL_CHARS = 2000
"""Longest model text kept in a `Verdict` (the start is kept; the rest is elided)."""

OUTPUT_CHARS = 2000
"""Longest `output_tail` kept for ERROR verdicts."""

WATCHDOG_GRACE = 1.0
"""Seconds past the budget (plus 10% of it) before the watchdog interrupts Z3."""

_RLIMIT_KEY = "rlimit count"
_UINT_MAX = 2**32 - 1


@dataclass(frozen=True, slots=True)
class _Outcome:
    status: Status
    raw: str
    model: str | None = None
    output_tail: str = ""


class Z3Prover:
    """The `Prover` backed by the z3-solver Python API; every call is independent.

    Calls share no Z3 state (each builds its own `z3.Context`), so one instance may be used from
    several threads or processes at once.
    """

    name = "z3"

    def version(self) -> str:
        """Z3's full version string, e.g. "5.4.0.0"."""
        return str(z3.get_full_version())

    def available(self) -> bool:
        """Always True: importing this module already required z3."""
        return True

    def check(self, problem: Problem, budget: Budget) -> Verdict:
        """Decide `problem` within `budget`; undecided and failed runs are verdicts, not raises.

        Raises `ConfigError` for a budget Z3 cannot honour (seconds ≤ 0, rlimit < 1) and
        `UnsupportedNode` for an AST node the translation has no rule for: both are bugs in the
        caller, not properties of the data.
        """
        return self.check_many(problem.axioms, [problem.conjecture], budget)[0]

    def check_many(
        self,
        axioms: Sequence[Formula],
        conjectures: Sequence[Formula | None],
        budget: Budget,
    ) -> list[Verdict]:
        """Answer several questions about the same axioms with one solver.

        The axioms are asserted once; each conjecture's negation is pushed, checked and popped,
        so Z3 keeps what it learnt about the axioms between questions. `None` asks whether the
        axioms are consistent. `budget` applies to each question separately.

        Parameters
        ----------
        axioms:
            The shared premises.
        conjectures:
            One entry per question; `None` for the consistency question.
        budget:
            Time and `rlimit` per question.

        Returns
        -------
        list[Verdict]
            One verdict per entry of `conjectures`, in order; `elapsed` covers only that
            question's check (translation time is included in the first one).
        """
        timeout_ms, rlimit = _limits(budget)
        version = self.version()
        verdicts: list[Verdict] = []
        start = time.perf_counter()
        try:
            translator = Z3Translator()
            solver = z3.Solver(ctx=translator.ctx)
            solver.set("timeout", timeout_ms)
            if rlimit is not None:
                solver.set("rlimit", rlimit)
            for axiom in axioms:
                solver.add(translator.translate(axiom))
            # Translate every goal before the first check, so a bad node fails before any work.
            goals = [None if c is None else translator.translate(c) for c in conjectures]
        except z3.Z3Exception as exc:
            failed = _error(exc)
            return [self._verdict(failed, time.perf_counter() - start, version)] * len(conjectures)
        # A single question needs no push: Z3 then picks its non-incremental strategy, which
        # can be stronger (more preprocessing) than the incremental core.
        incremental = len(conjectures) > 1
        for goal in goals:
            pushed = False
            try:
                if incremental:
                    solver.push()
                    pushed = True
                if goal is not None:
                    solver.add(z3.Not(goal))
                outcome = _run(solver, timeout_ms, rlimit, conjecture=goal is not None)
            except z3.Z3Exception as exc:
                outcome = _error(exc)
            finally:
                # Always leave the base level as it was, or one question leaks into the next.
                if pushed:
                    solver.pop()
            now = time.perf_counter()
            verdicts.append(self._verdict(outcome, now - start, version))
            start = now
        return verdicts

    def _verdict(self, outcome: _Outcome, elapsed: float, version: str) -> Verdict:
        return Verdict(
            prover=self.name,
            status=outcome.status,
            elapsed=elapsed,
            version=version,
            raw=outcome.raw,
            model=outcome.model,
            output_tail=outcome.output_tail,
        )


class _Watchdog:
    """Interrupts `ctx` after `seconds`, but only while the guarded block is still running."""

    def __init__(self, ctx: z3.Context, seconds: float) -> None:
        self._ctx = ctx
        self._lock = threading.Lock()
        self._active = False
        self.fired = False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        # The lock keeps a late firing from interrupting the *next* check on a reused solver.
        with self._lock:
            if self._active:
                self.fired = True
                self._ctx.interrupt()

    def __enter__(self) -> None:
        self._active = True
        self._timer.start()

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._active = False
        self._timer.cancel()


def _limits(budget: Budget) -> tuple[int, int | None]:
    """The solver's `timeout` (ms) and `rlimit` for `budget`; rejects budgets Z3 would misread."""
    if not math.isfinite(budget.seconds) or budget.seconds <= 0:
        raise ConfigError(f"budget.seconds must be a positive number, got {budget.seconds!r}")
    if budget.rlimit is not None and budget.rlimit < 1:
        raise ConfigError(f"budget.rlimit must be None or ≥ 1, got {budget.rlimit!r}")
    # Both are unsigned 32-bit parameters where 0 means "unlimited": never round down to 0,
    # and cap instead of letting a large value wrap around.
    timeout_ms = min(_UINT_MAX, max(1, round(budget.seconds * 1000)))
    rlimit = None if budget.rlimit is None else min(_UINT_MAX, budget.rlimit)
    return timeout_ms, rlimit


def _rlimit_count(solver: z3.Solver) -> int:
    try:
        return int(solver.statistics().get_key_value(_RLIMIT_KEY))
    except z3.Z3Exception:  # the key is absent before the context has done any work
        return 0


def _run(solver: z3.Solver, timeout_ms: int, rlimit: int | None, *, conjecture: bool) -> _Outcome:
    """One `check()` under a watchdog, classified into an `_Outcome`."""
    watchdog = _Watchdog(solver.ctx, timeout_ms / 1000 * 1.1 + WATCHDOG_GRACE)
    before = _rlimit_count(solver)
    with watchdog:
        result = solver.check()
    if result == z3.unsat:
        return _Outcome(Status.THEOREM if conjecture else Status.UNSATISFIABLE, "unsat")
    if result == z3.sat:
        status = Status.COUNTER_SATISFIABLE if conjecture else Status.SATISFIABLE
        return _Outcome(status, "sat", model=_render_model(solver))
    reason = str(solver.reason_unknown())
    spent = _rlimit_count(solver) - before
    status = Status.TIMEOUT if watchdog.fired else _unknown_status(reason, spent, rlimit)
    return _Outcome(status, f"unknown ({reason})")


def _unknown_status(reason: str, spent: int, rlimit: int | None) -> Status:
    """Classify Z3's `reason_unknown`, using the resource units the check spent."""
    text = reason.lower()
    if "timeout" in text:
        return Status.TIMEOUT
    if "resource" in text or "rlimit" in text or "memory" in text:
        return Status.RESOURCE_OUT
    if "interrupt" in text:  # a non-incremental check stopped by the watchdog
        return Status.TIMEOUT
    if "cancel" in text:
        # Both an exhausted rlimit and an (incremental-mode or watchdog) timeout say
        # "canceled"; only the spent units tell them apart.
        if rlimit is not None and spent >= rlimit:
            return Status.RESOURCE_OUT
        return Status.TIMEOUT
    return Status.GAVE_UP


def _render_model(solver: z3.Solver) -> str | None:
    # SMT-LIB text straight from Z3's C API: Python's pretty printer costs ~3.5 ms per model,
    # a third of a ProofWriter run's CPU, for text only a human or an agent ever reads
    try:
        text: str = solver.model().sexpr()
    except z3.Z3Exception:
        return None
    if len(text) > MODEL_CHARS:
        text = text[:MODEL_CHARS] + f"\n… ({len(text) - MODEL_CHARS} more characters)"
    return text


def _error(exc: z3.Z3Exception) -> _Outcome:
    message = str(exc.value) if hasattr(exc, "value") else str(exc)
    return _Outcome(Status.ERROR, "error", output_tail=message[-OUTPUT_CHARS:])


__all__ = ["Z3Prover"]
