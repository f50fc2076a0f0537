"""The repair gate: when an edit counts. The accept rule and every reason it gives, in one file.

A candidate edit is re-checked by the same `Checker` as the original item: it parses, lints
clean, the premises are consistent, both provers agree, and the agreed label equals the gold
label (the item becomes `verified`); every edited formula is one line (the refined split stores
one formula per line). A candidate must also read at least as well as the formula it replaces
(`read_edits`, by the alignment of `refinery.agents.alignment`): an edit that makes the provers
reproduce the gold label by making a formula say something its sentence does not is no repair.
An edit of a meaning-level rule (a negation, a quantifier, a connective …) or of the LLM must
read strictly better. A candidate that passes settles the item only when `unsettled` finds no
reason to leave it a proposal, and no other edit of different meaning passes too
(`try_candidates`). Labels never change here.

`Clock` is an item's time budget and `State` how far the loop got (the item, its check row, the
edits applied); `RANK` orders check categories by distance from `verified`, so a rejected
candidate that climbs is progress.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from refinery.agents.alignment import BLAME, ISSUE, FindingKind, align_formula
from refinery.agents.models import LLM_SOURCE, Edit, ItemContext
from refinery.agents.reading.spelling import Words
from refinery.agents.repairs import MEANING_RULES, apply_candidate
from refinery.agents.repairs.near_names import TAG as NEAR_NAMES
from refinery.check import Checker, CheckRow
from refinery.datasets.records import Item
from refinery.logic.analysis import occurrences
from refinery.logic.parse import parses
from refinery.logic.syntax import Not
from refinery.outcomes import Category

#: How far a check category is from `verified`: a candidate that climbs is progress. The
#: dataset-semantics categories are never reached by an edit (the loop does not repair them).
RANK: dict[Category, int] = {
    Category.PARSE_ERROR: 0,
    Category.LINT_ERROR: 1,
    Category.LABEL_ERROR_CANDIDATE: 0,
    Category.PROVER_DISAGREEMENT: 2,
    Category.UNDECIDED: 2,
    Category.INCONSISTENT: 2,
    Category.VERIFIED: 4,
    Category.SEMANTICS_MISMATCH: 0,
    Category.LABEL_MISMATCH: 3,
}
#: Categories the loop does not try to repair: the FOL is not what is in doubt.
NOT_REPAIRABLE = frozenset(
    {
        Category.UNDECIDED,
        Category.PROVER_DISAGREEMENT,
        # datasets with their own semantics (ProofWriter): the FOL is generated, the label is
        # in doubt
        Category.SEMANTICS_MISMATCH,
        Category.LABEL_ERROR_CANDIDATE,
    }
)


@dataclass
class Clock:
    """An item's time budget, and where the loop stopped when it was spent ("": it was not)."""

    seconds: float
    started: float = field(default_factory=time.perf_counter)
    stopped: str = ""

    def spent(self, where: str) -> bool:
        """Whether the budget is spent; if so, the loop stops `where` (the first stop counts)."""
        over = time.perf_counter() - self.started >= self.seconds
        self.stopped = self.stopped or (where if over else "")
        return over


@dataclass
class State:
    """How far the loop got: the item, its check row, and the edits applied to the original."""

    item: Item
    row: CheckRow
    edits: list[Edit] = field(default_factory=list)


def better(a: State | None, b: State | None) -> bool:
    """Whether `a` is at least as far along as `b` (earlier candidates win ties)."""
    if b is None:
        return True
    if a is None:
        return False
    return RANK[a.row.category] >= RANK[b.row.category]


def try_candidates(
    candidates: Iterable[tuple[str, tuple[Edit, ...]]],
    base: State,
    checker: Checker,
    record: dict[str, Any],
    findings: ItemContext,
    clock: Clock,
) -> tuple[State | None, State | None]:
    """Re-check candidates in order, while `clock` lasts; return (accepted, best progress).

    A form rule's candidate that passes the gate and settles the item (`unsettled`) is accepted
    at once. Among the meaning-level candidates that pass, those whose formulas still misread
    their sentences only stand in when nothing better passes; of the rest, the first is accepted
    when it settles the item and no other edit of different meaning passes too (for an edit of
    the conclusion, which decides the label, no other edit of different meaning at all). Otherwise the
    first is returned as progress, and the record says `unconfirmed`. Out of time, a candidate
    that passed is only progress (unchecked rivals might pass too).
    """
    fol = base.item.formulas()
    base_rank = RANK[base.row.category]
    progress: State | None = None
    passed: list[Passed] = []
    for source, candidate in candidates:
        entry: dict[str, Any] = {
            "source": source,
            "edits": [e.model_dump(mode="json") for e in candidate],
        }
        done = len(record["candidates"])
        if clock.spent(f"in round {record['round']} after {done} candidate{'s' * (done != 1)}"):
            break
        record["candidates"].append(entry)
        try:
            new_fol = apply_candidate(fol, candidate)
        except ValueError as err:  # an edit whose `before` no longer matches: stale proposal
            entry.update(accepted=False, why=f"not applicable: {err}")
            continue
        broken = multi_line(candidate)
        if broken:  # the split stores one formula per line: a line break would add a premise
            entry.update(accepted=False, why=f"not one line: {broken} holds a line break")
            continue
        worse, before, after = read_edits(source, candidate, findings)
        if worse:
            entry.update(accepted=False, why=worse)
            continue
        new_item = base.item.with_formulas(new_fol)
        (row,) = checker.check_story([new_item])
        labels = {f"label_{name}": label for name, label in row.prover_labels().items()}
        entry.update(category=row.category.value, label=row.label, labels=labels, issues=row.issues)
        state = State(new_item, row, [*base.edits, *candidate])
        if row.category is Category.VERIFIED:
            why = unsettled(source, candidate, before, after) or carried(base.edits, candidate)
            entry.update(accepted=False, why=why or PASSES)
            if why is None and not of_meaning(source) and not passed:
                entry.update(accepted=True)
                return state, progress
            reads = (why == MISREADS, any(e.guess and negates_all(e) for e in candidate))
            passed.append(Passed(state, entry, why, source, reads))
            continue
        entry.update(accepted=False, why=f"re-check: {row.category.value}")
        rank = RANK[row.category]
        if rank > base_rank and (progress is None or rank > RANK[progress.row.category]):
            progress = state
    if not passed:
        return None, progress
    if clock.stopped:
        return None, passed[0].state
    # a form rule's first passing candidate decides alone, as the rules run in order; among
    # meaning-level ones, an edit after which the formula still misreads its sentence, or a
    # ¬ put around a whole formula because the rule could not tell where it belongs, is no
    # rival to a better reading
    best = min(p.rank for p in passed) if of_meaning(passed[0].source) else passed[0].rank
    tied = [
        p for p in passed if p.rank == best and of_meaning(p.source) == of_meaning(passed[0].source)
    ]
    first = tied[0]
    for other in passed:
        if other is not first:
            other.entry.update(why="also passes")
    # an edit of the conclusion decides the label itself: any other passing meaning, however
    # it reads, is a rival (`¬Filmmaker(x)` inside ∃ beside a guessed ¬ around the whole ∃)
    pool = passed if any(e["where"] == "conclusion" for e in first.entry["edits"]) else tied
    rivals = [
        p
        for p in pool
        if p is not first
        and of_meaning(p.source)
        and p.state.item.formulas() != first.state.item.formulas()
    ]
    if rivals and of_meaning(first.source):
        # two different meanings both prove the gold label: the sentence must decide
        for p in (first, *rivals):
            p.entry.update(why=AMBIGUOUS)
        record["unconfirmed"] = True
        return None, first.state
    if first.unsettled is None:
        first.entry.update(accepted=True, why=PASSES)
        return first.state, progress
    first.entry.update(why=first.unsettled)
    record["unconfirmed"] = True
    return None, first.state


class Passed(NamedTuple):
    """A candidate that passed the gate, and how well it reads (a lower `rank` reads better)."""

    state: State
    entry: dict[str, Any]
    unsettled: str | None
    source: str
    rank: tuple[bool, bool]  # (still misreads its sentence, a guessed ¬ around the whole formula)


def negates_all(edit: Edit) -> bool:
    """Whether `edit` only puts a ¬ around its whole formula."""
    before = parses(edit.before)
    return before is not None and parses(edit.after) == Not(before)


def multi_line(candidate: Sequence[Edit]) -> str:
    """The first field an edit would split over several lines ("" when every edit is one line)."""
    for edit in candidate:
        # str.splitlines knows every separator (\r, \v, \x1c, \u2028 ...), not only \n
        if edit.after.splitlines() not in ([], [edit.after]):
            return edit.where
    return ""


AMBIGUOUS = "ambiguous: another edit of different meaning also proves the gold label"
#: A meaning-level edit is applied on its own only where the formula misread its sentence at
#: least this badly before; and any edit only if every formula it changes reads its sentence
#: better than `BLAME` after it: a formula the product itself would blame (a plain "or" still
#: read as ⊕ after a rename) does not say what its sentence says. Otherwise the edit proves the
#: gold label but stays a proposal.
CONFIRM = 0.6
PASSES = "parses, lints clean, consistent, provers agree on the gold label"
MISREADS = "an edited formula still misreads its sentence: a proposal for review"
GUESSED = "the rule could not tell which part the sentence means: a proposal for review"


def unsettled(source: str, candidate: tuple[Edit, ...], before: float, after: float) -> str | None:
    """Why an edit that passes the gate is still only a proposal (None: it settles the item)."""
    if after >= BLAME:
        return MISREADS
    if not of_meaning(source):
        # a form rule marks what its evidence cannot single out (a binder where the sentence
        # may name the individual, a `)` closed at the end under a nested ∃ or ¬)
        return GUESSED if any(e.guess for e in candidate) else None
    conclusion = any(e.where == "conclusion" for e in candidate)
    plain = before >= (CONFIRM if source in MEANING_RULES else ISSUE)  # the model's: stricter
    if source != NEAR_NAMES.name and conclusion and not plain:
        # the label is a claim about the conclusion: changing what the conclusion says until
        # the label holds is as likely to hide a wrong label as to fix a formula — unless the
        # conclusion plainly misreads its sentence ("System 7 is not a band" as Band(system7)),
        # and no other reading passes (the gate counts every passing edit a rival of a
        # conclusion edit, `refinery.repair`)
        return "changes what the conclusion says: a proposal for review"
    if source not in MEANING_RULES:
        return None  # the LLM's edit of a premise: the gate and the reading settle it
    if before < CONFIRM:
        return "changes the meaning on a weak finding: a proposal for review"
    if any(e.guess for e in candidate):
        return GUESSED
    return None


def carried(earlier: Sequence[Edit], candidate: tuple[Edit, ...]) -> str | None:
    """Why the edits kept as progress in earlier rounds leave a passing candidate a proposal:
    a guess among them (it climbed, so it was kept, but nothing confirmed it), or a second form
    rule on a formula they edited (`stacked`)."""
    if any(e.guess for e in earlier):
        return GUESSED
    return stacked(earlier, candidate)


def stacked(earlier: Sequence[Edit], candidate: tuple[Edit, ...]) -> str | None:
    """Why a form rule's edit of a formula another rule already edited stays a proposal: a
    formula broken twice over (a lost `)` and a variable for a named person) was written
    carelessly, and making it parse and close says nothing of whether its shape is the
    sentence's (`Either A and not B, or not A nor B` written `¬A ⊕ ¬B`)."""
    edited = {e.where for e in earlier}
    twice = sorted({e.where for e in candidate if e.where in edited and not of_meaning(e.source)})
    return f"{twice[0]}: {STACKED}" if twice else None


STACKED = "a second rule on the same formula: its shape is unconfirmed, a proposal for review"


def read_edits(
    source: str, candidate: tuple[Edit, ...], findings: ItemContext
) -> tuple[str | None, float, float]:
    """(why the candidate reads worse than what it replaces, or None; how badly the formulas it
    edits misread their sentences before; and after).

    A meaning-level edit (a meaning rule's, or the LLM's) must leave every edited formula that
    parsed before aligned with its sentence at least as well, and some strictly better; a
    symbol the LLM's edit brings in must be named by its sentence (`ungrounded`). A form
    rule's edit (a parenthesis, a typo, a binder) is not held to that: what it fixes is not
    what the sentence says, and the sentence may be too thin to read (it is still held to
    `BLAME` by `unsettled`).
    """
    better = compared = False
    worst_before = worst_after = 0.0
    for edit in candidate:
        sentence = findings.nl.get(edit.where, "")
        if source == NEAR_NAMES.name:
            # a rename answers a drift between formulas, which no formula shows on its own (the
            # rest of the story still spells the old name): the drift is what it reads better
            drift = max(
                (
                    f.score
                    for f in findings.alignment
                    if f.where == edit.where and f.kind == FindingKind.NAME_DRIFT
                ),
                default=0.0,
            )
            before = align_formula(edit.before, sentence) if sentence else 0.0
            after = align_formula(edit.after, sentence) if sentence else 0.0
            if after > before:
                why = f"reads worse: {edit.where} aligns {after:.2f} with its sentence, was {before:.2f}"
                return why, worst_before, worst_after
            worst_before, worst_after = max(worst_before, drift, before), max(worst_after, after)
            better = better or drift > 0
            continue
        if not sentence:
            continue
        if source.startswith(LLM_SOURCE) and (stray := ungrounded(edit, sentence)):
            # the model may add what the provers need ("premise 0 ∧ conclusion"): a symbol
            # the edit brings in must be something its sentence says
            why = f"adds {stray} to {edit.where}, which no word of its sentence names"
            return why, worst_before, worst_after
        after = align_formula(edit.after, sentence, findings.story_fol)
        worst_after = max(worst_after, after)
        before = align_formula(edit.before, sentence, findings.story_fol)
        if before >= 1.0:
            continue  # it did not parse: nothing to compare with
        worst_before = max(worst_before, before)
        compared = compared or any(ch.isalnum() for ch in sentence)  # "-" says nothing
        if after > before and of_meaning(source):
            why = (
                f"reads worse: {edit.where} aligns {after:.2f} with its sentence, was {before:.2f}"
            )
            return why, worst_before, worst_after
        better = better or after < before
    # the model's edit too, where a sentence could be read (an edit that only weakens or adds
    # to a formula reads no better, whatever the provers then derive)
    if (source in MEANING_RULES or (compared and of_meaning(source))) and not better:
        why = "changes the meaning without reading any better against the sentences"
        return why, worst_before, worst_after
    return None, worst_before, worst_after


def ungrounded(edit: Edit, sentence: str) -> str:
    """The first predicate or constant `edit` brings into its formula that no word of
    `sentence` names ("" when there is none, or a formula does not parse)."""
    before, after = parses(edit.before), parses(edit.after)
    if after is None:
        return ""
    had = {(o.kind, o.name) for o in occurrences(before)} if before is not None else set()
    words = Words.of(sentence)
    for o in occurrences(after):
        if (o.kind, o.name) in had:
            continue
        named = words.mention(o.name) if o.kind == "constant" else words.unknown(o.name) == 0
        if not named:
            return o.name
    return ""


def of_meaning(source: str) -> bool:
    """Whether edits from `source` change what a formula means (a meaning rule or the LLM)."""
    return source in MEANING_RULES or source.startswith(LLM_SOURCE)
