"""What every prover backend takes and returns.

A `Problem` is a list of axioms and an optional conjecture, built from AST nodes only. A backend
answers with a frozen `Verdict` whose `Status` uses the SZS vocabulary; running out of time or
giving up is a status like any other, never an exception. A verdict also says why, where the
backend can: the axioms a proof used (`core`), or a finite model (`countermodel`).

Questions and the statuses that answer them:
- no conjecture ("are the axioms consistent?"): SATISFIABLE or UNSATISFIABLE;
- with a conjecture ("do the axioms entail it?"): THEOREM or COUNTER_SATISFIABLE, or
  CONTRADICTORY_AXIOMS when a backend can tell the axioms alone are unsatisfiable;
- either: TIMEOUT, GAVE_UP, RESOURCE_OUT, ERROR.

NOT_ASKED marks a consistency question the check skipped (see `refinery.prove.decide`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from refinery.logic.syntax import Formula
from refinery.prove.countermodel import Countermodel


class Status(StrEnum):
    THEOREM = "Theorem"
    COUNTER_SATISFIABLE = "CounterSatisfiable"
    SATISFIABLE = "Satisfiable"
    UNSATISFIABLE = "Unsatisfiable"
    CONTRADICTORY_AXIOMS = "ContradictoryAxioms"
    TIMEOUT = "Timeout"
    GAVE_UP = "GaveUp"
    RESOURCE_OUT = "ResourceOut"
    ERROR = "Error"
    #: never a prover's answer: the check did not ask, because the other answers settle the
    #: label (`refinery.prove.decide.needs_consistency`)
    NOT_ASKED = "NotAsked"

    @property
    def is_definitive(self) -> bool:
        """True for the statuses that settle the question asked."""
        return self in _DEFINITIVE


#: The least time left worth a second attempt with another strategy (E's complete schedule,
#: Z3's MBQI alone): less cannot settle anything, and the retry's set-up would overrun the budget.
RETRY_SECONDS = 0.5

_DEFINITIVE = frozenset(
    {
        Status.THEOREM,
        Status.COUNTER_SATISFIABLE,
        Status.SATISFIABLE,
        Status.UNSATISFIABLE,
        Status.CONTRADICTORY_AXIOMS,
    }
)


@dataclass(frozen=True, slots=True)
class Problem:
    """Axioms and an optional conjecture; `name` is for logs and temp-file names only."""

    axioms: tuple[Formula, ...]
    conjecture: Formula | None = None
    name: str = "problem"


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits for one prover call.

    `seconds` is the prover's own limit; callers enforce a wall-clock cap slightly above it.
    `rlimit` is Z3's deterministic resource limit (None: no limit besides time).
    """

    seconds: float = 5.0
    rlimit: int | None = 5_000_000


@dataclass(frozen=True, slots=True)
class Verdict:
    """One prover's answer to one `Problem`."""

    prover: str
    status: Status
    elapsed: float
    version: str = ""
    raw: str = ""  # the status line as the prover printed it (or Z3's reason_unknown)
    model: str | None = None  # countermodel / model text when the backend gives one
    output_tail: str = ""  # last lines of output, for ERROR and GAVE_UP diagnosis
    #: for an unsatisfiable question (THEOREM, UNSATISFIABLE, CONTRADICTORY_AXIOMS): the indices
    #: of the axioms the proof used, when the backend says (None: it did not)
    core: tuple[int, ...] | None = None
    #: a readable finite model, from a backend asked to find one (`ModelFinder`)
    countermodel: Countermodel | None = None
    cached: bool = field(default=False, compare=False)


@runtime_checkable
class Prover(Protocol):
    """A theorem prover backend."""

    name: str

    def version(self) -> str:
        """The backend's version string (part of every cache key)."""
        ...

    def available(self) -> bool:
        """Whether the backend can run on this machine."""
        ...

    def check(self, problem: Problem, budget: Budget) -> Verdict:
        """Decide `problem` within `budget`; never raises for undecided problems."""
        ...


def identities(provers: Iterable[Prover]) -> tuple[str, ...]:
    """Each prover's name and version: what a cached row or outcome was decided by, in its key,
    so that a new binary, or a backend that asks differently, is asked again."""
    return tuple(f"{p.name} {p.version()}" for p in provers)


@runtime_checkable
class ModelFinder(Protocol):
    """A backend that can show a small finite model of a satisfiable problem."""

    name: str

    def version(self) -> str: ...

    def find_model(self, problem: Problem, budget: Budget) -> Verdict:
        """A verdict whose `countermodel` is a smallest model it found of the axioms and the
        negated conjecture (SATISFIABLE / COUNTER_SATISFIABLE), or without one when it found
        none within `budget` (the status says why)."""
        ...
