"""Why an item got its label: the premises that prove it, or a model in which it fails.

For each decided direction of an item, the evidence names what a person needs to check the
verdict by hand:

- a proof (the conclusion, its negation, or a contradiction among the premises): the premises
  it used, per prover (`Verdict.core`; `premises[i]` is axiom i);
- an open direction: a small countermodel (`Verdict.countermodel`) in which every premise holds
  and the conclusion fails (or holds), with one line saying so.

`evidence_lines` turns an item's verdicts into that compact, stable text (one line per fact,
sorted the same way every run); `evidence_detail` gives the same as JSON for the audit trail.
`wanted_models` says which countermodels are worth finding for an item: the ones that show why
the provers' label is not the gold label.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from refinery.addresses import premise, premise_index
from refinery.labels import Label
from refinery.logic.analysis import negation, subformulas
from refinery.logic.syntax import Formula, Pred
from refinery.prove.countermodel import Countermodel
from refinery.prove.verdict import Budget, Problem, Prover, Status, Verdict

Question = Literal["axioms", "pos", "neg"]
#: The two directions of a conclusion: `pos` asks premises ⊢ conclusion, `neg` premises ⊢ ¬it.
Direction = Literal["pos", "neg"]

_UNSAT = (Status.THEOREM, Status.UNSATISFIABLE, Status.CONTRADICTORY_AXIOMS)
_PROVES = {
    "axioms": "the premises contradict each other",
    "pos": "proves the conclusion",
    "neg": "proves its negation",
}
_SHOWS = {
    "pos": "the conclusion can fail",
    "neg": "the conclusion can hold",
}
_MEANS = {
    "pos": "all premises hold and the conclusion fails",
    "neg": "all premises hold and so does the conclusion",
}


@dataclass(frozen=True, slots=True)
class ModelVerdict:
    """A model finder's answer for one direction (`find_model` on premises and conclusion)."""

    direction: Direction
    verdict: Verdict


def premise_refs(core: Sequence[int]) -> str:
    """`premises[0], premises[2]` for axiom indices (0-based, as `Verdict.core` holds them).

    >>> premise_refs((2, 0)), premise_refs(())
    ('premises[0], premises[2]', '(none: it holds by itself)')
    """
    if not core:
        return "(none: it holds by itself)"
    return ", ".join(premise(i) for i in sorted(core))


def wanted_models(label: Label | None, gold: Label | None) -> tuple[Direction, ...]:
    """The countermodels that show why the provers' `label` is not `gold`.

    The provers say Uncertain: a model where the conclusion fails answers a gold True, one where
    it holds answers a gold False. Proved labels are explained by their cores instead.

    >>> wanted_models(Label.UNCERTAIN, Label.TRUE), wanted_models(Label.TRUE, Label.TRUE)
    (('pos',), ())
    """
    if label is not Label.UNCERTAIN or gold is Label.UNCERTAIN:
        return ()
    if gold is Label.TRUE:
        return ("pos",)
    if gold is Label.FALSE:
        return ("neg",)
    return ("pos", "neg")


def evidence_lines(
    label: Label | None,
    trios: Mapping[str, tuple[Verdict, Verdict, Verdict]],
    models: Sequence[ModelVerdict] = (),
    conclusion: Formula | None = None,
) -> list[str]:
    """The item's evidence, one line per proof or countermodel (empty when there is none).

    With an agreed `label`, only what explains it: its proof (True, False), the contradiction
    (Inconsistent), or the countermodels found (Uncertain). Without one (the provers disagree
    or some could not decide), every proof each prover found, so the disagreement shows.
    """
    if label is Label.TRUE:
        questions: tuple[Question, ...] = ("pos",)
    elif label is Label.FALSE:
        questions = ("neg",)
    elif label is Label.INCONSISTENT:
        questions = ("axioms",) if _proved(trios, "axioms") else ("pos", "neg")
    elif label is Label.UNCERTAIN:
        questions = ()
    else:
        questions = ("axioms", "pos", "neg")
    lines = [_proof_line(q, trios) for q in questions if _proved(trios, q)]
    for found in models:
        model = found.verdict.countermodel
        if model is None:
            continue
        false_atoms = _atoms(conclusion) if found.direction == "pos" and conclusion else []
        lines.append(
            f"{_SHOWS[found.direction]}: {model.render(false_atoms=false_atoms)} — "
            f"{_MEANS[found.direction]} ({found.verdict.prover})"
        )
    return lines


def evidence_detail(
    trios: Mapping[str, tuple[Verdict, Verdict, Verdict]], models: Sequence[ModelVerdict] = ()
) -> dict[str, Any]:
    """The evidence as JSON: every core per prover and question, and every countermodel."""
    cores = {
        prover: {
            q: [premise(i) for i in v.core]
            for q, v in zip(("axioms", "pos", "neg"), trio, strict=True)
            if v.status in _UNSAT and v.core is not None
        }
        for prover, trio in trios.items()
    }
    return {
        "cores": {p: c for p, c in cores.items() if c},
        "countermodels": {
            m.direction: {"prover": m.verdict.prover, **m.verdict.countermodel.to_dict()}
            for m in models
            if m.verdict.countermodel is not None
        },
    }


def _index(question: Question) -> int:
    return ("axioms", "pos", "neg").index(question)


def _proved(trios: Mapping[str, tuple[Verdict, Verdict, Verdict]], question: Question) -> bool:
    return any(trio[_index(question)].status in _UNSAT for trio in trios.values())


def _proof_line(question: Question, trios: Mapping[str, tuple[Verdict, Verdict, Verdict]]) -> str:
    """`proves the conclusion: premises[0], premises[2] (eprover, z3)`; differing cores apart."""
    by_core: dict[tuple[int, ...] | None, list[str]] = {}
    for prover, trio in sorted(trios.items()):
        verdict = trio[_index(question)]
        if verdict.status in _UNSAT:
            core = None if verdict.core is None else tuple(sorted(verdict.core))
            by_core.setdefault(core, []).append(prover)
    parts = [
        f"{premise_refs(core)} ({', '.join(provers)})"
        for core, provers in sorted(by_core.items(), key=lambda kv: (kv[0] is None, kv[0] or ()))
        if core is not None
    ]
    unnamed = by_core.get(None)
    if unnamed:  # a prover that proved it without naming what it used
        parts.append(f"premises not named ({', '.join(unnamed)})")
    return f"{_PROVES[question]}: {'; '.join(parts)}"


def _atoms(formula: Formula) -> list[Pred]:
    """The ground atoms of a formula, to show negated where a countermodel makes them false."""
    return [n for n in subformulas(formula) if isinstance(n, Pred)]


@dataclass(frozen=True, slots=True)
class Recheck:
    """Evidence checked independently: each core proved again alone, each model evaluated."""

    core_sizes: tuple[int, ...] = ()
    cores_ok: int = 0
    model_sizes: tuple[int, ...] = ()
    models_ok: int = 0

    def __add__(self, other: Recheck) -> Recheck:
        return Recheck(
            self.core_sizes + other.core_sizes,
            self.cores_ok + other.cores_ok,
            self.model_sizes + other.model_sizes,
            self.models_ok + other.models_ok,
        )


def recheck(
    detail: Mapping[str, Any],
    premises: Sequence[Formula],
    conclusion: Formula,
    prover: Prover,
    budget: Budget,
) -> Recheck:
    """Re-prove every core of `evidence_detail` alone with `prover`, evaluate every countermodel.

    A core must still prove its question (THEOREM, or UNSATISFIABLE for the premises alone);
    a countermodel must make every premise true and the conclusion false (`pos`) or true
    (`neg`). Anything else is a bug in whatever recorded it.
    """
    goals: dict[str, Formula | None] = {
        "axioms": None,
        "pos": conclusion,
        "neg": negation(conclusion),
    }
    sizes, ok = [], 0
    for per_question in detail.get("cores", {}).values():
        for question, refs in per_question.items():
            indices = [premise_index(r) for r in refs]
            core = tuple(premises[i] for i in indices if i is not None)
            sizes.append(len(core))
            again = prover.check(Problem(core, goals[question]), budget)
            ok += again.status in (Status.THEOREM, Status.UNSATISFIABLE)
    domains, models_ok = [], 0
    for direction, found in detail.get("countermodels", {}).items():
        model = Countermodel.from_dict(found)
        domains.append(model.size)
        holds = all(model.holds(p) for p in premises)
        models_ok += holds and model.holds(conclusion) == (direction == "neg")
    return Recheck(tuple(sizes), ok, tuple(domains), models_ok)
