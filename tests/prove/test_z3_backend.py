"""Z3Prover: status mapping, models, limits (timeout, rlimit, watchdog), check_many, errors."""

from __future__ import annotations

import gc
import multiprocessing
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import z3

from refinery.errors import ConfigError
from refinery.logic.syntax import (
    And,
    Const,
    Eq,
    Exists,
    Forall,
    Formula,
    Func,
    Implies,
    Not,
    Or,
    Pred,
    Term,
    Var,
)
from refinery.logic.to_z3 import Z3Translator
from refinery.prove import z3_backend
from refinery.prove.verdict import Budget, Problem, Prover, Status, Verdict
from refinery.prove.z3_backend import Z3Prover

PROVER = Z3Prover()
BUDGET = Budget(seconds=5.0, rlimit=5_000_000)
x, y, z = Var("x"), Var("y"), Var("z")
a, b = Const("a"), Const("b")


def pred(name: str, *args: Term) -> Pred:
    return Pred(name, args)


def check(*axioms: Formula, conjecture: Formula | None = None, budget: Budget = BUDGET) -> Verdict:
    return PROVER.check(Problem(axioms, conjecture), budget)


def pigeonhole(holes: int) -> tuple[Formula, ...]:
    """Propositional PHP(n+1, n): unsatisfiable, and exponentially hard for resolution/CDCL."""

    def at(i: int, j: int) -> Pred:
        return pred(f"p{i}_{j}")

    clauses: list[Formula] = [Or(tuple(at(i, j) for j in range(holes))) for i in range(holes + 1)]
    for j in range(holes):
        for i in range(holes + 1):
            for k in range(i + 1, holes + 1):
                clauses.append(Not(And((at(i, j), at(k, j)))))
    return tuple(clauses)


# Only infinite models: R is a strict order without a maximum. Z3's model search never ends.
INFINITE_ONLY = (
    Forall("x", Exists("y", pred("R", x, y))),
    Forall("x", Not(pred("R", x, x))),
    Forall(
        "x",
        Forall("y", Forall("z", Implies(And((pred("R", x, y), pred("R", y, z))), pred("R", x, z)))),
    ),
)

SOCRATES = (Forall("x", Implies(pred("Man", x), pred("Mortal", x))), pred("Man", Const("socrates")))


# --- protocol and basic statuses -------------------------------------------------------------


def test_implements_the_prover_protocol() -> None:
    assert isinstance(PROVER, Prover)
    assert PROVER.name == "z3" and PROVER.available()
    assert PROVER.version()[0].isdigit()


def test_theorem() -> None:
    v = check(*SOCRATES, conjecture=pred("Mortal", Const("socrates")))
    assert (v.status, v.raw, v.model) == (Status.THEOREM, "unsat", None)
    assert v.prover == "z3" and v.version == PROVER.version() and v.elapsed >= 0


def test_counter_satisfiable_comes_with_a_countermodel() -> None:
    v = check(*SOCRATES, conjecture=pred("Mortal", Const("plato")))
    assert (v.status, v.raw) == (Status.COUNTER_SATISFIABLE, "sat")
    assert v.model is not None and "plato" in v.model and "Mortal" in v.model


def test_satisfiable_axioms() -> None:
    v = check(*SOCRATES)
    assert (v.status, v.raw) == (Status.SATISFIABLE, "sat")
    assert v.model is not None and "socrates" in v.model


def test_unsatisfiable_axioms() -> None:
    v = check(*SOCRATES, Not(pred("Mortal", Const("socrates"))))
    assert (v.status, v.raw, v.model) == (Status.UNSATISFIABLE, "unsat", None)


def test_contradictory_axioms_prove_anything() -> None:
    # Z3 cannot tell "theorem" from "the axioms are inconsistent"; decide.py asks both questions.
    assert check(pred("A"), Not(pred("A")), conjecture=pred("B")).status is Status.THEOREM


# --- constants and equality -------------------------------------------------------------------


def test_constants_are_not_assumed_distinct() -> None:
    assert check(pred("P", a), Not(pred("P", b))).status is Status.SATISFIABLE
    assert check(Eq(a, b)).status is Status.SATISFIABLE
    assert check(conjecture=Not(Eq(a, b))).status is Status.COUNTER_SATISFIABLE
    assert check(conjecture=Eq(a, b)).status is Status.COUNTER_SATISFIABLE


def test_equality_of_constants_transfers_properties() -> None:
    assert check(Eq(a, b), pred("P", a), Not(pred("P", b))).status is Status.UNSATISFIABLE
    assert check(pred("P", a), Not(pred("P", b)), conjecture=Not(Eq(a, b))).status is (
        Status.THEOREM
    )


def test_domain_size_constraints_with_equality() -> None:
    # "There is exactly one thing" makes any two constants equal.
    one = Exists("x", Forall("y", Eq(y, x)))
    assert check(one, conjecture=Eq(a, b)).status is Status.THEOREM


# --- models -------------------------------------------------------------------------------------


def test_long_models_are_truncated() -> None:
    axioms = tuple(pred(f"Property{i}", Const(f"individual{i}")) for i in range(300))
    v = check(*axioms)
    assert v.status is Status.SATISFIABLE and v.model is not None
    assert len(v.model) <= z3_backend.MODEL_CHARS + 40
    assert v.model.endswith("more characters)")


# --- check_many ---------------------------------------------------------------------------------

STORY = (
    Forall("x", Implies(pred("Dog", x), pred("Animal", x))),
    Forall("x", Implies(pred("Animal", x), Or((pred("Cute", x), pred("Wild", x))))),
    Forall("x", Implies(And((pred("Animal", x), pred("Wild", x))), Not(pred("Pet", x)))),
    pred("Dog", Const("rex")),
    pred("Pet", Const("rex")),
)
QUESTIONS: list[Formula | None] = [
    None,
    pred("Cute", Const("rex")),  # theorem
    pred("Wild", Const("rex")),  # its negation is the theorem
    Not(pred("Wild", Const("rex"))),
    pred("Cute", Const("tom")),  # open
    Exists("x", And((pred("Pet", x), pred("Animal", x)))),
    None,
]


def test_check_many_equals_individual_checks() -> None:
    many = PROVER.check_many(STORY, QUESTIONS, BUDGET)
    single = [PROVER.check(Problem(STORY, q), BUDGET) for q in QUESTIONS]
    assert [(v.status, v.raw) for v in many] == [(v.status, v.raw) for v in single]
    assert [v.status for v in many] == [
        Status.SATISFIABLE,
        Status.THEOREM,
        Status.COUNTER_SATISFIABLE,
        Status.THEOREM,
        Status.COUNTER_SATISFIABLE,
        Status.THEOREM,
        Status.SATISFIABLE,
    ]


def test_check_many_does_not_leak_one_question_into_the_next() -> None:
    # If ¬Q(a) stayed asserted after the first question, the third would wrongly be a THEOREM
    # and the consistency questions would change too.
    qs: list[Formula | None] = [pred("Q", a), None, Not(pred("Q", a)), None]
    statuses = [v.status for v in PROVER.check_many((pred("P", a),), qs, BUDGET)]
    assert statuses == [
        Status.COUNTER_SATISFIABLE,
        Status.SATISFIABLE,
        Status.COUNTER_SATISFIABLE,
        Status.SATISFIABLE,
    ]


def test_check_many_can_leave_models_unrendered() -> None:
    """The checker's evidence is a separate small countermodel: the raw one is not printed."""
    qs: list[Formula | None] = [pred("Q", a), None, pred("P", a)]
    bare = PROVER.check_many((pred("P", a),), qs, BUDGET, models=False)
    full = PROVER.check_many((pred("P", a),), qs, BUDGET)
    assert [v.status for v in bare] == [v.status for v in full]
    assert [v.model is None for v in bare] == [True, True, True]
    assert [v.model is None for v in full] == [False, False, True]


def test_check_many_with_no_questions() -> None:
    assert PROVER.check_many(STORY, [], BUDGET) == []


def test_check_many_budget_applies_per_question() -> None:
    start = time.perf_counter()
    vs = PROVER.check_many(pigeonhole(11), [None, None], Budget(seconds=0.4, rlimit=None))
    assert [v.status for v in vs] == [Status.TIMEOUT, Status.TIMEOUT]
    assert all(0.3 < v.elapsed < 1.4 for v in vs)
    assert time.perf_counter() - start < 3.0


# --- limits ---------------------------------------------------------------------------------------


def test_timeout_on_a_hard_propositional_problem() -> None:
    start = time.perf_counter()
    v = check(*pigeonhole(11), budget=Budget(seconds=0.5, rlimit=None))
    wall = time.perf_counter() - start
    assert v.status is Status.TIMEOUT and v.raw.startswith("unknown (")
    assert wall < 0.5 + 1.0


def test_timeout_on_a_problem_with_only_infinite_models() -> None:
    start = time.perf_counter()
    v = check(*INFINITE_ONLY, budget=Budget(seconds=0.5, rlimit=None))
    assert v.status is Status.TIMEOUT
    assert time.perf_counter() - start < 0.5 + 1.0


def test_rlimit_out_is_resource_out_not_timeout() -> None:
    start = time.perf_counter()
    v = check(*pigeonhole(11), budget=Budget(seconds=60, rlimit=200_000))
    assert v.status is Status.RESOURCE_OUT
    assert time.perf_counter() - start < 5.0  # far inside the 60 s: the rlimit stopped it


def test_rlimit_is_deterministic_and_really_limits() -> None:
    # PHP(8, 7) needs about 46k resource units: a quarter of that never suffices, 4x always does.
    problem = pigeonhole(7)
    low = {check(*problem, budget=Budget(seconds=60, rlimit=12_000)).status for _ in range(3)}
    high = {check(*problem, budget=Budget(seconds=60, rlimit=200_000)).status for _ in range(3)}
    assert (low, high) == ({Status.RESOURCE_OUT}, {Status.UNSATISFIABLE})


def test_rlimit_applies_per_question_in_check_many() -> None:
    # Each check gets the full rlimit again, counted from where the context's counter stands.
    budget = Budget(seconds=60, rlimit=200_000)
    statuses = [v.status for v in PROVER.check_many(pigeonhole(7), [None] * 3, budget)]
    assert statuses == [Status.UNSATISFIABLE] * 3


@pytest.mark.parametrize(
    ("reason", "spent", "rlimit", "expected"),
    [
        ("timeout", 10, 1000, Status.TIMEOUT),
        ("canceled", 10, 1000, Status.TIMEOUT),  # incremental-mode timeout or watchdog
        ("canceled", 10, None, Status.TIMEOUT),
        ("interrupted", 10, 1000, Status.TIMEOUT),  # non-incremental check stopped by watchdog
        ("canceled", 1000, 1000, Status.RESOURCE_OUT),  # rlimit exhausted
        ("max. resource limit exceeded", 10, 1000, Status.RESOURCE_OUT),
        ("max. memory exceeded", 10, None, Status.RESOURCE_OUT),
        ("incomplete quantifiers", 10, 1000, Status.GAVE_UP),
        ("(incomplete (theory array))", 10, 1000, Status.GAVE_UP),
        ("", 10, 1000, Status.GAVE_UP),
    ],
)
def test_unknown_reasons_map_to_statuses(
    reason: str, spent: int, rlimit: int | None, expected: Status
) -> None:
    assert z3_backend._unknown_status(reason, spent, rlimit) is expected


def _hard_solver() -> z3.Solver:
    """A solver on a hard problem with no timeout of its own: only the watchdog stops it."""
    t = Z3Translator()
    solver = z3.Solver(ctx=t.ctx)
    for f in pigeonhole(11):
        solver.add(t.translate(f))
    return solver


def test_watchdog_stops_a_check_that_ignores_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # A solver with no timeout of its own: only the watchdog can stop it.
    monkeypatch.setattr(z3_backend, "WATCHDOG_GRACE", 0.2)
    solver = _hard_solver()
    start = time.perf_counter()
    outcome = z3_backend._run(solver, 100, None, conjecture=False)
    assert outcome.status is Status.TIMEOUT and outcome.raw.startswith("unknown (")
    assert 0.2 < time.perf_counter() - start < 1.5


def test_a_watchdog_disarmed_in_time_never_interrupts_a_later_check() -> None:
    """One thread serves every watchdog; a deadline left behind must not stop the next check."""
    t = Z3Translator()
    solver = z3_backend.z3.Solver(ctx=t.ctx)  # type: ignore[attr-defined]
    solver.add(t.translate(pred("P", a)))
    early = z3_backend.Watchdog(t.ctx, 0.05)
    with early:
        assert solver.check() == z3_backend.z3.sat  # type: ignore[attr-defined]
    time.sleep(0.2)  # well past the disarmed deadline
    assert not early.fired
    assert solver.check() == z3_backend.z3.sat  # type: ignore[attr-defined]


def test_watchdogs_fire_in_deadline_order_across_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shorter deadline armed after a longer one still fires first (the thread re-plans)."""
    monkeypatch.setattr(z3_backend, "WATCHDOG_GRACE", 0.0)
    slow = z3_backend.Watchdog(z3_backend.z3.Context(), 60.0)  # type: ignore[attr-defined]
    with slow:
        solver = _hard_solver()
        start = time.perf_counter()
        outcome = z3_backend._run(solver, 200, None, conjecture=False)
        assert outcome.status is Status.TIMEOUT
        assert time.perf_counter() - start < 1.5
    assert not slow.fired


def test_a_forked_worker_gets_its_own_watchdog_thread() -> None:
    """A fork copies no thread: a child must start its own, or no check there could stop."""
    PROVER.check(Problem(STORY, None), BUDGET)  # the parent's thread is running now
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        elapsed, status = pool.apply_async(_watchdog_in_child).get(timeout=20)
    assert status == Status.TIMEOUT.value and elapsed < 1.5


def _watchdog_in_child() -> tuple[float, str]:
    z3_backend.WATCHDOG_GRACE = 0.0
    solver = _hard_solver()
    start = time.perf_counter()
    outcome = z3_backend._run(solver, 200, None, conjecture=False)
    return time.perf_counter() - start, outcome.status.value


@pytest.mark.parametrize("budget", [Budget(seconds=0), Budget(seconds=-1), Budget(rlimit=0)])
def test_budgets_z3_would_misread_are_rejected(budget: Budget) -> None:
    # timeout=0 and rlimit=0 mean "unlimited" to Z3.
    with pytest.raises(ConfigError):
        check(pred("A"), budget=budget)


def test_limits_are_capped_not_wrapped_and_never_zero() -> None:
    # Both parameters are unsigned 32-bit in Z3, where 0 means "unlimited".
    cap = 2**32 - 1
    assert z3_backend._limits(Budget(seconds=1e12, rlimit=2**70)) == (cap, cap)
    assert z3_backend._limits(Budget(seconds=1e-6, rlimit=None)) == (1, None)
    assert z3_backend._limits(Budget(seconds=2.5, rlimit=7)) == (2500, 7)
    assert check(*SOCRATES, budget=Budget(seconds=1e12, rlimit=2**70)).status is (
        Status.SATISFIABLE
    )


# --- errors and concurrency ---------------------------------------------------------------------


def test_z3_exception_becomes_an_error_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    real_run = z3_backend._run
    calls = iter([True, False, False])

    def flaky(*args: object, **kwargs: object) -> object:
        if next(calls):
            raise z3_backend.z3.Z3Exception("boom: invalid argument")  # type: ignore[attr-defined]
        return real_run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(z3_backend, "_run", flaky)
    qs: list[Formula | None] = [pred("Q", a), Not(pred("Q", a)), None]
    vs = PROVER.check_many((pred("P", a),), qs, BUDGET)
    assert (vs[0].status, vs[0].raw) == (Status.ERROR, "error")
    assert "boom" in vs[0].output_tail
    # The failed question was popped: the next ones see only the axioms.
    assert [v.status for v in vs[1:]] == [Status.COUNTER_SATISFIABLE, Status.SATISFIABLE]


def test_every_context_is_freed_by_its_own_thread_when_the_check_ends() -> None:
    # A context left in a reference cycle is freed by the cyclic collector, at a random moment
    # in whatever thread triggers it; freeing a Z3 context that way hung a Dask worker for good.
    gc.collect()
    gc.disable()
    try:
        check(pred("P", a), conjecture=pred("P", a))
        PROVER.check_many([pred("P", a)], [pred("P", a), pred("Q", a)], BUDGET)
        PROVER.find_model(Problem((pred("P", a),), pred("Q", a)), BUDGET)
        alive = [o for o in gc.get_objects() if isinstance(o, z3.Context)]
    finally:
        gc.enable()
    assert alive == []


def test_concurrent_checks_are_independent() -> None:
    problems = [
        Problem(SOCRATES, pred("Mortal", Const("socrates"))),
        Problem(SOCRATES, pred("Mortal", Const("plato"))),
        Problem(STORY, pred("Cute", Const("rex"))),
        Problem((pred("P", a), Not(pred("P", b)), Eq(a, b))),
        Problem(pigeonhole(11)),
    ] * 3
    budget = Budget(seconds=0.5, rlimit=None)
    expected = [PROVER.check(p, budget).status for p in problems[:5]] * 3
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = [v.status for v in pool.map(lambda p: PROVER.check(p, budget), problems)]
    assert got == expected
    assert expected[:5] == [
        Status.THEOREM,
        Status.COUNTER_SATISFIABLE,
        Status.THEOREM,
        Status.UNSATISFIABLE,
        Status.TIMEOUT,
    ]


# --- evidence: unsat cores and smallest readable models -------------------------------------

from refinery.logic.parse import parse  # noqa: E402 - the evidence tests read formulas as text


def _texts(*formulas: str) -> tuple[Formula, ...]:
    return tuple(parse(f) for f in formulas)


EVIDENCE_STORY = _texts(
    "∀x (Student(x) → Young(x))",  # 0
    "Student(mara)",  # 1
    "Teacher(bob)",  # 2: never needed
    "∀x (Young(x) → Happy(x))",  # 3
)


@pytest.mark.parametrize(
    ("conjecture", "core"),
    [("Happy(mara)", (0, 1, 3)), ("Young(mara)", (0, 1)), ("Teacher(bob) ∨ Rich(bob)", (2,))],
)
def test_a_proof_names_a_minimal_set_of_premises(conjecture: str, core: tuple[int, ...]) -> None:
    verdict = PROVER.check_many(EVIDENCE_STORY, [None, parse(conjecture)], BUDGET)[1]
    assert verdict.status is Status.THEOREM and verdict.core == core
    # the core alone proves it, and dropping any one of its premises does not (minimal)
    alone = tuple(EVIDENCE_STORY[i] for i in core)
    assert check(*alone, conjecture=parse(conjecture)).status is Status.THEOREM
    for left_out in core:
        rest = tuple(EVIDENCE_STORY[i] for i in core if i != left_out)
        assert check(*rest, conjecture=parse(conjecture)).status is Status.COUNTER_SATISFIABLE


def test_inconsistent_premises_name_the_contradiction_and_sat_answers_have_no_core() -> None:
    story = (*EVIDENCE_STORY, parse("¬Happy(mara)"))
    consistency, open_question = PROVER.check_many(story, [None, parse("Rich(bob)")], BUDGET)
    assert consistency.status is Status.UNSATISFIABLE and consistency.core == (0, 1, 3, 4)
    assert open_question.status is Status.THEOREM  # from contradictory premises anything follows
    assert check(*EVIDENCE_STORY, conjecture=parse("Rich(bob)")).core is None
    untracked = PROVER.check_many(story, [None], BUDGET, cores=False)[0]
    assert untracked.status is Status.UNSATISFIABLE and untracked.core is None


def test_find_model_gives_a_smallest_sparse_countermodel() -> None:
    verdict = PROVER.find_model(Problem(EVIDENCE_STORY, parse("Teacher(mara)")), BUDGET)
    model = verdict.countermodel
    assert verdict.status is Status.COUNTER_SATISFIABLE and model is not None
    assert all(model.holds(f) for f in EVIDENCE_STORY) and not model.holds(parse("Teacher(mara)"))
    assert model.size == 2  # bob teaches and mara does not: no one-element model
    # only what the premises force holds: nothing says bob is a student
    assert model.predicates[("Student", 1)] == frozenset({(model.constants["mara"],)})


def test_find_model_of_a_theorem_says_theorem_and_no_model() -> None:
    verdict = PROVER.find_model(Problem(EVIDENCE_STORY, parse("Happy(mara)")), BUDGET)
    assert verdict.status is Status.THEOREM and verdict.countermodel is None


def test_find_model_with_functions_and_equality() -> None:
    fx = Func("f", (x,))
    premises = (Forall("x", Not(Eq(fx, x))), parse("P(a)"))
    verdict = PROVER.find_model(Problem(premises, parse("P(f(a))")), BUDGET)
    model = verdict.countermodel
    assert model is not None and model.size == 2
    assert all(model.holds(p) for p in premises) and not model.holds(parse("P(f(a))"))


def test_find_model_keeps_z3s_size_when_no_smaller_one_is_found_in_time() -> None:
    # each constant alone has its own property: nine elements, and proving that no eight will
    # do is a pigeonhole problem; the search gives up on it and keeps the model it has
    n = z3_backend.MAX_MODEL_SIZE + 1
    facts = tuple(
        parse(f"P{i}(c{j})" if i == j else f"¬P{i}(c{j})") for i in range(n) for j in range(n)
    )
    verdict = PROVER.find_model(Problem(facts, None), BUDGET)
    model = verdict.countermodel
    assert verdict.status is Status.SATISFIABLE and model is not None
    assert model.size == n and all(model.holds(f) for f in facts)


def test_a_quantifier_too_large_for_any_time_limit_is_refused_at_once_the_same_way() -> None:
    # Z3 prepares a quantifier in time quadratic in its size before its time limit applies:
    # 60,000 atoms held it over four minutes under a 10 s limit
    limit = z3_backend.MAX_QUANTIFIED_ATOMS
    wide = Forall(
        "x", Implies(And(tuple(pred(f"P{i}", x) for i in range(limit + 1))), pred("Q", x))
    )
    started = time.perf_counter()
    verdicts = [
        check(wide, conjecture=pred("Q", a)),
        PROVER.find_model(Problem((wide,), pred("Q", a)), BUDGET),
    ]
    assert time.perf_counter() - started < 5  # refused before Z3 sees it (a generous bound)
    for verdict in verdicts:
        assert verdict.status is Status.RESOURCE_OUT
        assert f"a quantifier over {limit + 2} atoms" in verdict.output_tail
    # within the limit the same shape is asked and answered
    narrow = Forall("x", Implies(And(tuple(pred(f"P{i}", x) for i in range(1000))), pred("Q", x)))
    assert check(narrow, conjecture=pred("Q", a)).status is Status.COUNTER_SATISFIABLE
    # ground atoms outside any quantifier cost Z3 nothing special
    ground = And(tuple(pred(f"P{i}", a) for i in range(limit + 1)))
    assert check(ground, conjecture=pred("P0", a)).status is Status.THEOREM
