"""The label decision: a pure table from prover statuses to a `Label`.

For one prover, three questions are asked of an item:
- `axioms`: are the premises consistent?  (SATISFIABLE / UNSATISFIABLE)
- `pos`: do the premises entail the conclusion?  (THEOREM / COUNTER_SATISFIABLE)
- `neg`: do the premises entail its negation?  (THEOREM / COUNTER_SATISFIABLE)

`decide` turns those into True / False / Uncertain / Inconsistent, or Unknown whenever the
answer depends on a question a prover did not settle (timeout, gave up, error): Unknown is never
silently reported as Uncertain. `combine` merges two provers' labels; they must agree.

The consistency question is asked only when the two direction answers leave it open
(`needs_consistency`): a counter-satisfiable direction already shows the premises have a model,
and a contradiction already shows they have none. The skipped question's status is NOT_ASKED.
"""

from __future__ import annotations

from enum import StrEnum

from refinery.labels import Label
from refinery.prove.verdict import Status


def decide(axioms: Status, pos: Status, neg: Status) -> Label:
    """Label from one prover's three statuses.

    Rules, in order:
    1. premises unsatisfiable, or a side reports contradictory axioms, or both the conclusion
       and its negation are theorems → Inconsistent;
    2. conclusion is a theorem and the premises are known consistent (SATISFIABLE, or its
       negation is counter-satisfiable, which exhibits a model of the premises) → True;
    3. the mirror case for the negation → False;
    4. both sides counter-satisfiable → Uncertain (each side's countermodel is a premises model);
    5. anything else → Unknown.

    >>> decide(Status.SATISFIABLE, Status.THEOREM, Status.COUNTER_SATISFIABLE)
    <Label.TRUE: 'True'>
    >>> decide(Status.TIMEOUT, Status.COUNTER_SATISFIABLE, Status.COUNTER_SATISFIABLE)
    <Label.UNCERTAIN: 'Uncertain'>
    >>> decide(Status.SATISFIABLE, Status.COUNTER_SATISFIABLE, Status.GAVE_UP)
    <Label.UNKNOWN: 'Unknown'>
    """
    if (
        axioms is Status.UNSATISFIABLE
        or Status.CONTRADICTORY_AXIOMS in (pos, neg)
        or (pos is Status.THEOREM and neg is Status.THEOREM)
    ):
        return Label.INCONSISTENT
    if pos is Status.THEOREM:
        known_consistent = axioms is Status.SATISFIABLE or neg is Status.COUNTER_SATISFIABLE
        return Label.TRUE if known_consistent else Label.UNKNOWN
    if neg is Status.THEOREM:
        known_consistent = axioms is Status.SATISFIABLE or pos is Status.COUNTER_SATISFIABLE
        return Label.FALSE if known_consistent else Label.UNKNOWN
    if pos is Status.COUNTER_SATISFIABLE and neg is Status.COUNTER_SATISFIABLE:
        return Label.UNCERTAIN
    return Label.UNKNOWN


def needs_consistency(pos: Status, neg: Status) -> bool:
    """Whether `decide` can depend on the consistency answer, given the two directions.

    It cannot when a direction is counter-satisfiable (its countermodel is a model of the
    premises, so a sound prover cannot find them unsatisfiable), or when the answers already
    show a contradiction (contradictory axioms, or both directions theorems). In those cases
    `decide(NOT_ASKED, pos, neg)` is the label any sound consistency answer would give.

    >>> needs_consistency(Status.THEOREM, Status.COUNTER_SATISFIABLE)
    False
    >>> needs_consistency(Status.THEOREM, Status.TIMEOUT)
    True
    """
    if Status.COUNTER_SATISFIABLE in (pos, neg) or Status.CONTRADICTORY_AXIOMS in (pos, neg):
        return False
    return not (pos is Status.THEOREM and neg is Status.THEOREM)


class Agreement(StrEnum):
    AGREED = "agreed"  # every prover gave the same definite label
    DISAGREE = "disagree"  # two provers gave different definite labels
    UNDECIDED = "undecided"  # at least one prover could not decide, none contradict


def combine(labels: dict[str, Label]) -> tuple[Label | None, Agreement]:
    """Merge per-prover labels: a label counts only when every prover reaches it.

    >>> combine({"z3": Label.TRUE, "eprover": Label.TRUE})
    (<Label.TRUE: 'True'>, <Agreement.AGREED: 'agreed'>)
    >>> combine({"z3": Label.TRUE, "eprover": Label.UNKNOWN})
    (None, <Agreement.UNDECIDED: 'undecided'>)
    >>> combine({"z3": Label.TRUE, "eprover": Label.FALSE})
    (None, <Agreement.DISAGREE: 'disagree'>)
    """
    if not labels:
        return None, Agreement.UNDECIDED
    definite = {lab for lab in labels.values() if lab is not Label.UNKNOWN}
    if len(definite) > 1:
        return None, Agreement.DISAGREE
    if len(definite) == 1 and all(lab is not Label.UNKNOWN for lab in labels.values()):
        return definite.pop(), Agreement.AGREED
    return None, Agreement.UNDECIDED
