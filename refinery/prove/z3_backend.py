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

A watchdog interrupts the context shortly after the budget, as a backstop for the rare phases in
which Z3 does not poll its own timer (one thread per process serves every check's watchdog); an
interrupted check is reported as TIMEOUT (Z3 then says "interrupted" or "canceled"). When the
run itself is interrupted (Ctrl-C, SIGTERM: `refinery.lifeline`), every running check is
stopped at once and raises `KeyboardInterrupt`, so no half answer is ever recorded; Z3's own
Ctrl-C handling is off, or it would swallow the signal and answer "canceled".

A question Z3 leaves open on its own (it gave up, or spent its `rlimit`) is asked once more,
with what is left of its time, on a second solver without E-matching: instantiation by models
(MBQI) alone. E-matching is what proves most theorems fast, but on stories of many rules over
few constants it keeps instantiating where a model is at hand: a 300-premise story of 25 chained
rules leaves Z3 without an answer after seconds, while MBQI alone finds the model in a tenth of a
second. Answers Z3 gives with its defaults never change: E-matching off from the start left a
FOLIO v2 train item undecided and took Z3 about 60% longer, so it is only the retry. The retry
has an `rlimit` of its own.

Evidence: every axiom is asserted under a tracking literal, so an unsatisfiable question comes
with Z3's (minimised) unsat core as the verdict's `core`. `find_model` looks for a smallest
model (domain size 1, 2, … up to `MAX_MODEL_SIZE`) and reads it into a `Countermodel` through
the model API, in source names.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from refinery.errors import ConfigError, ProverUnavailable
from refinery.logic.analysis import children
from refinery.logic.syntax import Eq, Exists, Forall, Formula, Pred
from refinery.logic.to_z3 import Z3Translator
from refinery.prove.countermodel import Countermodel, display_order, element_names
from refinery.prove.verdict import RETRY_SECONDS, Budget, Problem, Status, Verdict
from refinery.prove.z3_watchdog import Watchdog

try:
    import z3
except ImportError as exc:  # pragma: no cover - z3-solver is a declared dependency
    raise ProverUnavailable(
        "z3-solver is not installed: make run (or pip install z3-solver)"
    ) from exc

from refinery.prove.z3_sparse import left_ms, sparse_model  # noqa: E402 (after z3's refusal)

MODEL_CHARS = 2000
"""Longest model text kept in a `Verdict` (the start is kept; the rest is elided)."""

OUTPUT_CHARS = 2000
"""Longest `output_tail` kept for ERROR verdicts."""

WATCHDOG_GRACE = 1.0
"""Seconds past the budget (plus 10% of it) before the watchdog interrupts Z3."""

MAX_MODEL_SIZE = 8
"""The largest domain size `find_model` tries below the size of Z3's own model."""

SIZE_TRY_RLIMIT = 2_000_000
"""How much work (Z3's deterministic resource units; about a second here, at 2–3 million a
second) `find_model` spends on one domain size, or on one check of the sparse-model search
(`refinery.prove.z3_sparse`), before keeping the model it has. A count of work, not of time, so
a busy machine finds the same countermodel as a quiet one; the search's own deadline stays as a
backstop."""

#: Statuses a retry with MBQI alone may still settle: Z3 stopped on its own, not on the clock.
_RETRY = frozenset({Status.GAVE_UP, Status.RESOURCE_OUT})
#: Part of `version()`, so cached verdicts of the strategy without the retry are not reused.
STRATEGY = "mbqi-retry-2"

_RLIMIT_KEY = "rlimit count"
_UINT_MAX = 2**32 - 1
_TRACK = "axiom!"  # tracking literals' prefix: `!` cannot occur in a source name


@dataclass(frozen=True, slots=True)
class _Outcome:
    status: Status
    raw: str
    model: str | None = None
    output_tail: str = ""
    core: tuple[int, ...] | None = None


class Z3Prover:
    """The `Prover` backed by the z3-solver Python API; every call is independent.

    Calls share no Z3 state (each builds its own `z3.Context`), so one instance may be used from
    several threads or processes at once.
    """

    name = "z3"

    def version(self) -> str:
        """Z3's full version string and this backend's strategy, e.g. "4.13.0.0 mbqi-retry-2"."""
        return f"{z3.get_full_version()} {STRATEGY}"

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
        *,
        cores: bool = True,
        models: bool = True,
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
        cores:
            Track the axioms, so unsatisfiable answers carry their (minimised) core; about a
            tenth more time on FOLIO.
        models:
            Render the model of each satisfiable answer (Z3's SMT-LIB text, for a person to
            read); off, about a tenth less time on ProofWriter, whose raw models are large.

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
        refused = _too_large([*axioms, *(c for c in conjectures if c is not None)])
        if refused is not None:
            return [self._verdict(refused, time.perf_counter() - start, version)] * len(conjectures)
        try:
            translator = Z3Translator()
            solver = _solver(translator, timeout_ms, rlimit, minimise_cores=cores)
            asserted = [translator.translate(axiom) for axiom in axioms]
            _assert(solver, asserted, cores=cores)
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
                outcome = _run(
                    solver,
                    timeout_ms,
                    rlimit,
                    conjecture=goal is not None,
                    cores=cores,
                    models=models,
                )
            except z3.Z3Exception as exc:
                outcome = _error(exc)
            finally:
                # Always leave the base level as it was, or one question leaks into the next.
                if pushed:
                    solver.pop()
            left = timeout_ms - round((time.perf_counter() - start) * 1000)
            if outcome.status in _RETRY and left >= RETRY_SECONDS * 1000:
                outcome = _retry(translator, asserted, goal, outcome, left, rlimit, cores, models)
            now = time.perf_counter()
            verdicts.append(self._verdict(outcome, now - start, version))
            start = now
        return verdicts

    def find_model(self, problem: Problem, budget: Budget) -> Verdict:
        """A small model of the axioms and the negated conjecture, as a `Countermodel`.

        Z3 first finds any model; then domain sizes 1, 2, … below its size are tried in turn
        (a cardinality axiom over fresh elements, each try capped at `SIZE_TRY_RLIMIT`: forcing
        many named individuals into fewer elements is a pigeonhole problem, hard for any
        solver), and the first satisfiable size gives the model; else Z3's own size stands. The
        model is made sparse (`refinery.prove.z3_sparse.sparse_model`) before it is read.
        THEOREM / UNSATISFIABLE when there is no model at all. `budget.seconds` bounds the
        whole search.
        """
        _, rlimit = _limits(budget)
        version = self.version()
        start = time.perf_counter()
        deadline = start + budget.seconds
        conjecture = problem.conjecture is not None
        found: Countermodel | None = None
        refused = _too_large(
            [*problem.axioms, *([problem.conjecture] if problem.conjecture is not None else [])]
        )
        if refused is not None:
            return self._verdict(refused, time.perf_counter() - start, version)
        try:
            translator = Z3Translator()
            solver = _solver(translator, 1, rlimit, minimise_cores=False)
            for axiom in problem.axioms:
                solver.add(translator.translate(axiom))
            if problem.conjecture is not None:
                solver.add(z3.Not(translator.translate(problem.conjecture)))
            outcome = _run(solver, left_ms(solver, deadline), rlimit, conjecture=conjecture)
            if outcome.status in (Status.SATISFIABLE, Status.COUNTER_SATISFIABLE):
                first = solver.model()
                size = max(1, len(first.get_universe(translator.sort) or []))
                for k in range(1, min(size, MAX_MODEL_SIZE + 1)):
                    found, step = self._bounded(solver, translator, k, deadline, rlimit, conjecture)
                    if found is not None or not step.status.is_definitive:
                        break  # a model this small, or no time to look for a smaller one
                if found is None:  # Z3's own size, made sparse; else as it came
                    found, _ = self._bounded(solver, translator, size, deadline, rlimit, conjecture)
                    found = found or _countermodel(first, translator)
        except z3.Z3Exception as exc:
            outcome, found = _error(exc), None
        verdict = self._verdict(outcome, time.perf_counter() - start, version)
        return dataclasses.replace(verdict, model=None, core=None, countermodel=found)

    @staticmethod
    def _bounded(
        solver: z3.Solver,
        translator: Z3Translator,
        size: int,
        deadline: float,
        rlimit: int | None,
        conjecture: bool,
    ) -> tuple[Countermodel | None, _Outcome]:
        """A sparse model with at most `size` elements, tried for at most `SIZE_TRY_RLIMIT`."""
        solver.push()
        try:
            elements, bound = _at_most(translator, size)
            solver.add(bound)
            tries = min(rlimit or SIZE_TRY_RLIMIT, SIZE_TRY_RLIMIT)
            solver.set("rlimit", tries)
            step = _run(solver, left_ms(solver, deadline), tries, conjecture=conjecture)
            if step.status not in (Status.SATISFIABLE, Status.COUNTER_SATISFIABLE):
                return None, step
            sparse = sparse_model(solver, translator, elements, deadline, tries)
            return _countermodel(sparse, translator), step
        finally:
            solver.set("rlimit", rlimit or 0)  # 0: no limit, as the search started
            solver.pop()

    def _verdict(self, outcome: _Outcome, elapsed: float, version: str) -> Verdict:
        return Verdict(
            prover=self.name,
            status=outcome.status,
            elapsed=elapsed,
            version=version,
            raw=outcome.raw,
            model=outcome.model,
            output_tail=outcome.output_tail,
            core=outcome.core,
        )


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


def _solver(
    translator: Z3Translator, timeout_ms: int, rlimit: int | None, *, minimise_cores: bool = True
) -> z3.Solver:
    solver = z3.Solver(ctx=translator.ctx)
    # Z3 would take Ctrl-C for itself and answer "canceled", a timeout to us: the run's own
    # handler must see it (and `TIMERS.stop_all` interrupts the check at once)
    solver.set("ctrl_c", False)
    solver.set("timeout", timeout_ms)
    if rlimit is not None:
        solver.set("rlimit", rlimit)
    if minimise_cores:  # a core a person reads: no premise it can do without
        solver.set("core.minimize", True)
    return solver


def _assert(solver: z3.Solver, axioms: Sequence[z3.BoolRef], *, cores: bool) -> None:
    """Assert `axioms`; with `cores`, each under its tracking literal (an unsat core then names
    the proof's premises)."""
    for i, axiom in enumerate(axioms):
        if cores:
            solver.assert_and_track(axiom, z3.Bool(f"{_TRACK}{i}", axiom.ctx))
        else:
            solver.add(axiom)


def _retry(
    translator: Z3Translator,
    axioms: Sequence[z3.BoolRef],
    goal: z3.BoolRef | None,
    first: _Outcome,
    timeout_ms: int,
    rlimit: int | None,
    cores: bool,
    models: bool,
) -> _Outcome:
    """Ask a question `first` left open again on a fresh solver with MBQI alone (no E-matching),
    within `timeout_ms`; the first answer stands unless this one is definitive."""
    try:
        solver = _solver(translator, timeout_ms, rlimit, minimise_cores=cores)
        solver.set("smt.ematching", False)
        _assert(solver, axioms, cores=cores)
        if goal is not None:
            solver.add(z3.Not(goal))
        second = _run(
            solver, timeout_ms, rlimit, conjecture=goal is not None, cores=cores, models=models
        )
    except z3.Z3Exception:
        return first
    if not second.status.is_definitive:
        return first
    return dataclasses.replace(second, raw=f"{second.raw} (MBQI alone, after {first.raw})")


def _at_most(translator: Z3Translator, size: int) -> tuple[list[z3.ExprRef], z3.BoolRef]:
    """Fresh elements e1 … e_size and ∀x (x = e1 ∨ … ∨ x = e_size): a domain of at most `size`."""
    elements = [z3.FreshConst(translator.sort, prefix="element") for _ in range(size)]
    x = z3.FreshConst(translator.sort, prefix="any")
    bound = z3.ForAll([x], z3.Or([x == e for e in elements]) if size > 1 else x == elements[0])
    return elements, bound


def _countermodel(model: z3.ModelRef, translator: Z3Translator) -> Countermodel:
    """`model` in source names: elements named after constants, every symbol evaluated."""
    universe = list(model.get_universe(translator.sort) or [])
    constants: dict[str, z3.ExprRef] = {}
    predicates: dict[tuple[str, int], z3.FuncDeclRef | z3.ExprRef] = {}
    functions: dict[tuple[str, int], z3.FuncDeclRef] = {}
    for z3_name, symbol in translator.symbols.items():
        decl = translator.declaration(z3_name)
        if symbol.kind == "const":
            constants[symbol.name] = model.eval(decl, model_completion=True)
        elif symbol.kind == "pred":
            predicates[(symbol.name, symbol.arity)] = decl
        else:
            functions[(symbol.name, symbol.arity)] = decl
    if not universe:  # no constant, no quantifier: the sort was never used
        universe = [z3.FreshConst(translator.sort, prefix="element")]
    by_id = {e.get_id(): e for e in universe}
    names, named_constants = element_names(
        [e.get_id() for e in universe], {c: v.get_id() for c, v in constants.items()}
    )
    holds: dict[tuple[str, int], frozenset[tuple[str, ...]]] = {}
    for (name, arity), decl in predicates.items():
        rows = itertools.product(by_id, repeat=arity)
        holds[(name, arity)] = frozenset(
            tuple(names[i] for i in row)
            for row in rows
            if z3.is_true(
                model.eval(decl(*(by_id[i] for i in row)) if arity else decl, model_completion=True)
            )
        )
    tables: dict[tuple[str, int], dict[tuple[str, ...], str]] = {}
    for (name, arity), decl in functions.items():
        tables[(name, arity)] = {
            tuple(names[i] for i in row): names[
                model.eval(decl(*(by_id[i] for i in row)), model_completion=True).get_id()
            ]
            for row in itertools.product(by_id, repeat=arity)
        }
    return Countermodel(display_order(names, named_constants), named_constants, holds, tables)


def _rlimit_count(solver: z3.Solver) -> int:
    try:
        return int(solver.statistics().get_key_value(_RLIMIT_KEY))
    except z3.Z3Exception:  # the key is absent before the context has done any work
        return 0


def _run(
    solver: z3.Solver,
    timeout_ms: int,
    rlimit: int | None,
    *,
    conjecture: bool,
    cores: bool = False,
    models: bool = True,
) -> _Outcome:
    """One `check()` under a watchdog, classified into an `_Outcome` (with the core if `cores`,
    the model if `models`)."""
    watchdog = Watchdog(solver.ctx, timeout_ms / 1000 * 1.1 + WATCHDOG_GRACE)
    before = _rlimit_count(solver)
    with watchdog:
        result = solver.check()
    if watchdog.stopped:  # whatever Z3 says now is no answer: nothing may record it
        raise KeyboardInterrupt("Z3 interrupted")
    if result == z3.unsat:
        core = _core(solver) if cores else None
        return _Outcome(Status.THEOREM if conjecture else Status.UNSATISFIABLE, "unsat", core=core)
    if result == z3.sat:
        status = Status.COUNTER_SATISFIABLE if conjecture else Status.SATISFIABLE
        return _Outcome(status, "sat", model=_render_model(solver) if models else None)
    reason = str(solver.reason_unknown())
    spent = _rlimit_count(solver) - before
    status = Status.TIMEOUT if watchdog.fired else _unknown_status(reason, spent, rlimit)
    return _Outcome(status, f"unknown ({reason})")


def _core(solver: z3.Solver) -> tuple[int, ...] | None:
    """The tracked axioms of the last unsat check, by index (None when none are tracked)."""
    try:
        # the declaration's name, not `str(lit)`: Z3's Python printer costs three times more
        names = [lit.decl().name() for lit in solver.unsat_core()]
    except z3.Z3Exception:
        return None
    return tuple(sorted(int(n[len(_TRACK) :]) for n in names if n.startswith(_TRACK)))


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


#: The most atoms one quantifier's body may hold for Z3 to be asked. Z3 prepares a quantified
#: formula in time quadratic in its size before any time limit applies (8,000 atoms: 3 s;
#: 60,000: over four minutes with a 10 s limit), so a larger one is refused at once, the same
#: way on every machine; E still answers it. FOLIO's largest has 19.
MAX_QUANTIFIED_ATOMS = 5000


def _too_large(formulas: Sequence[Formula]) -> _Outcome | None:
    """`ResourceOut`, saying why, when a quantifier of `formulas` holds more than
    `MAX_QUANTIFIED_ATOMS` atoms; None when Z3 can be asked."""
    most = max((_quantified_atoms(f)[1] for f in formulas), default=0)
    if most <= MAX_QUANTIFIED_ATOMS:
        return None
    why = (
        f"not asked: a quantifier over {most} atoms (more than {MAX_QUANTIFIED_ATOMS}) would "
        "hold Z3 past any time limit"
    )
    return _Outcome(Status.RESOURCE_OUT, "too large", output_tail=why)


def _quantified_atoms(formula: Formula) -> tuple[int, int]:
    """The atoms of `formula`, and the most atoms in one quantifier's body within it."""
    if isinstance(formula, Pred | Eq):
        return 1, 0
    atoms, most = 0, 0
    for child in children(formula):
        a, m = _quantified_atoms(child)
        atoms, most = atoms + a, max(most, m)
    if isinstance(formula, Forall | Exists):
        most = max(most, atoms)
    return atoms, most


def _error(exc: z3.Z3Exception) -> _Outcome:
    message = str(exc.value) if hasattr(exc, "value") else str(exc)
    return _Outcome(Status.ERROR, "error", output_tail=message[-OUTPUT_CHARS:])


__all__ = ["Z3Prover"]
