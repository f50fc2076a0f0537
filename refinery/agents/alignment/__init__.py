"""NL↔FOL alignment: does each formula say what its sentence says? Deterministic, by the words.

`align` reads every formula of an item beside its sentence and reports `Finding`s — which formula,
which words, which symbols, what kind of disagreement, a score in [0, 1] — and the story-wide
name drift (`IsNovel`/`Novel`). The item's `score` is its worst finding: the cleanlab-style
`nl_mismatch_score`, with `is_issue` above `ISSUE`. The critique uses it to tell a wrong formula
from a wrong label, and the repair gate to refuse an edit that reads worse than the original.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from refinery.agents.alignment.checks.argument_order import reads_swapped
from refinery.agents.alignment.checks.common import Story
from refinery.agents.alignment.checks.registry import check_formula
from refinery.agents.alignment.drift import Drift, near_duplicates
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import shape_of
from refinery.agents.alignment.sorts import swapped_arguments
from refinery.agents.reading.cues import read_sentence
from refinery.agents.reading.words import tokens
from refinery.logic.analysis import occurrences
from refinery.logic.parse import parses
from refinery.logic.syntax import Formula

#: A finding at or above this score blames its formula: the FOL, not the label, is in doubt.
BLAME = 0.5
#: An item whose worst finding reaches this is an `nl_mismatch` issue (queued even if verified).
ISSUE = 0.8


@dataclass(frozen=True, slots=True)
class Alignment:
    """An item's findings, worst first."""

    findings: tuple[Finding, ...] = ()

    @property
    def score(self) -> float:
        """The worst finding's score (0 when the item reads as its sentences say)."""
        return max((f.score for f in self.findings), default=0.0)

    @property
    def is_issue(self) -> bool:
        return self.score >= ISSUE

    def at(self, where: str) -> list[Finding]:
        return [f for f in self.findings if f.where == where]

    def score_of(self, wheres: Iterable[str]) -> float:
        """The worst score among the findings on the formulas at `wheres`."""
        wanted = set(wheres)
        return max((f.score for f in self.findings if f.where in wanted), default=0.0)


def align(
    fol: Mapping[str, str], nl: Mapping[str, str], story_fol: Sequence[str] = ()
) -> Alignment:
    """Align every formula of an item (by position) with its sentence, and the story's names.

    Formulas that do not parse, or have no sentence, are skipped: syntax is another check's job.
    """
    parsed = {where: f for where, text in fol.items() if (f := parses(text)) is not None}
    story = [f for t in story_fol if (f := parses(t)) is not None]
    used = {(o.kind, o.name, o.arity) for f in (*parsed.values(), *story) for o in occurrences(f)}
    story_names = Story(
        predicates={name: arity for kind, name, arity in sorted(used) if kind == "predicate"},
        constants=sorted(name for kind, name, _ in used if kind == "constant"),
    )
    found: list[Finding] = []
    for where, formula in parsed.items():
        sentence = read_sentence(nl.get(where, ""))
        for finding in check_formula(sentence, shape_of(formula), story_names):
            found.append(dataclasses.replace(finding, where=where))
    found += _drift(parsed, story, nl)
    found += _sorts(parsed, story, nl)
    return Alignment(tuple(sorted(found, key=lambda f: (-f.score, f.where, f.kind))))


def align_formula(text: str, sentence: str, story_fol: Sequence[str] = ()) -> float:
    """The worst finding's score for one formula beside its sentence (1.0 if it does not parse)."""
    if parses(text) is None:
        return 1.0
    return align({"f": text}, {"f": sentence}, story_fol).score_of(["f"])


def _drift(
    parsed: Mapping[str, Formula], story: Sequence[Formula], nl: Mapping[str, str]
) -> list[Finding]:
    uses: dict[tuple[str, str, int], set[str]] = {}
    for where, formula in parsed.items():
        for o in occurrences(formula):
            if o.kind != "function":
                uses.setdefault((o.kind, o.name, o.arity), set()).add(where)
    names = set(uses) | {
        (o.kind, o.name, o.arity) for f in story for o in occurrences(f) if o.kind != "function"
    }
    words = [w for sentence in nl.values() for w in tokens(sentence)]
    out = []
    for drift in near_duplicates(names, words):
        first = uses.get((drift.kind, drift.first, drift.arity), set())
        second = uses.get((drift.kind, drift.second, drift.arity), set())
        split = ("conclusion" in first) != ("conclusion" in second) and bool(first and second)
        # both spellings in this item: a proof that needs them as one name breaks (0.6, or 0.75
        # split between conclusion and premises); one here, one in another item: 0.4
        score = 0.75 if split else 0.6 if first and second else 0.4
        for where in sorted(first | second):
            out.append(_drift_finding(where, drift, score))
    return out


def _sorts(
    parsed: Mapping[str, Formula], story: Sequence[Formula], nl: Mapping[str, str]
) -> list[Finding]:
    everything = [*parsed.values(), *story]
    out = []
    for where, formula in parsed.items():
        for swap in swapped_arguments(formula, everything):
            if swap.tie and not reads_swapped(nl.get(where, ""), shape_of(formula), swap.predicate):
                continue  # as often each way in the story, and the sentence does not turn it
            out.append(
                Finding(
                    FindingKind.ARGUMENT_ORDER,
                    0.6,
                    (),
                    (swap.predicate,),
                    f"{swap.predicate}({', '.join(swap.args)}): elsewhere in the story "
                    f"{swap.constant} is {swap.predicate}'s {('second', 'first')[swap.place]} "
                    "argument",
                    where=where,
                )
            )
    return out


def _drift_finding(where: str, drift: Drift, score: float) -> Finding:
    return Finding(
        FindingKind.NAME_DRIFT,
        score,
        (),
        (drift.first, drift.second),
        f"{drift.first} and {drift.second} look like one {drift.kind} spelled two ways",
        where=where,
    )


__all__ = [
    "BLAME",
    "ISSUE",
    "Alignment",
    "Finding",
    "FindingKind",
    "align",
    "align_formula",
]
