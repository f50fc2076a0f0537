"""What is wrong with an item that stays in review: its cause, the evidence, and whether a label
may be suggested.

On real FOLIO annotations most conflicts between the provers and the gold label are defects of
the FOL, not of the label: a conclusion written with a name no premise uses, a formula whose
shape misreads its sentence, a knowledge the sentences take for granted. A label is therefore
suggested only where nothing in the FOL explains the conflict (`blame`):

- no symbol of the conclusion is missing from the premises while a premise names it alike (a
  case variant, a shared word: `WonGame` beside `WonAgainst`), and no name is spelled two ways;
- no formula that decides the label misreads its sentence (an alignment finding at `BLAME`);
- the provers *prove* the label they suggest: gold True or False that the premises merely fail
  to prove is no evidence against the label (a missing background fact, or a defect no check
  saw, fails the proof as well), and a conclusion that shares no symbol with any premise was
  never checked at all.

Every queued item gets a `Cause` and one line of evidence saying why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from refinery.addresses import CONCLUSION
from refinery.agents.alignment import BLAME, FindingKind
from refinery.agents.critique import deciding
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.reading.words import content, name_words
from refinery.labels import Label
from refinery.logic.analysis import occurrences
from refinery.logic.parse import parses
from refinery.outcomes import Cause, Reason

#: Findings about names rather than a formula's shape.
_NAMING = frozenset(
    {
        FindingKind.NAME_DRIFT,
        FindingKind.WORD_UNSYMBOLISED,
        FindingKind.ENTITY_UNSYMBOLISED,
        FindingKind.SYMBOL_UNGROUNDED,
    }
)
#: Error classes of a proposed edit, by the cause they repair.
_EDIT_CAUSES = {
    ErrorClass.UNBALANCED_PARENTHESES: Cause.SYNTAX,
    ErrorClass.TOKEN_TYPO: Cause.SYNTAX,
    ErrorClass.NAMING_DRIFT: Cause.VOCABULARY,
    ErrorClass.ARITY_CONFLICT: Cause.VOCABULARY,
}
#: Review reasons whose cause does not depend on the FOL's reading.
_REASON_CAUSES = {
    Reason.UNPARSEABLE: Cause.SYNTAX,
    Reason.INCONSISTENT_PREMISES: Cause.STRUCTURE,
    Reason.NL_MISMATCH: Cause.STRUCTURE,
}


@dataclass(frozen=True, slots=True)
class Blame:
    """Why an item is in review: the `cause`, one line of `evidence`, and whether the FOL that
    decides it is clean enough for the provers' label to be suggested (`clean`)."""

    cause: Cause
    evidence: str
    clean: bool = False


def blame(
    reason: Reason,
    context: ItemContext,
    *,
    proposal_classes: Iterable[str] = (),
    lint_kinds: Iterable[str] = (),
) -> Blame:
    """The cause of an item in review for `reason`, read from its final FOL (`context`).

    `proposal_classes` are the error classes of an edit the loop proposes but could not confirm;
    `lint_kinds` the kinds of the lint errors that stopped it.
    """
    if reason in _REASON_CAUSES:
        return Blame(_REASON_CAUSES[reason], _REASON_TEXT.get(reason, reason.value))
    if reason is Reason.LINT_ERROR:
        kinds = set(lint_kinds)
        if "arity_conflict" in kinds:
            return Blame(Cause.VOCABULARY, "a predicate is used with two arities")
        if "free_variable" in kinds:
            return Blame(Cause.STRUCTURE, "a variable is not bound by any quantifier")
        return Blame(Cause.SYNTAX, "lint errors: " + ", ".join(sorted(kinds)))
    if reason is Reason.UNCONFIRMED_REPAIR:
        causes = [_EDIT_CAUSES.get(ErrorClass(c), Cause.STRUCTURE) for c in proposal_classes]
        cause = next((c for c in (Cause.SYNTAX, Cause.VOCABULARY) if c in causes), Cause.STRUCTURE)
        return Blame(cause, "a repair proves the gold label but the sentence does not settle it")
    if reason is not Reason.LABEL_MISMATCH:
        return Blame(Cause.NONE, _UNNAMED.get(reason, ""))
    return _mismatch(context)


#: Why no cause is named for the other review reasons: nothing was decided to read it from.
_UNNAMED = {
    Reason.PROVER_UNDECIDED: "the provers decided nothing within their limits: no cause to name",
    Reason.PROVER_DISAGREEMENT: "the provers disagree: no cause to name until they agree",
    Reason.REPAIR_BUDGET: "the repair's time ran out before a cause could be read",
}


_REASON_TEXT = {
    Reason.UNPARSEABLE: "a formula does not parse",
    Reason.INCONSISTENT_PREMISES: "the premises contradict each other",
    Reason.NL_MISMATCH: "the provers settle the item, but a formula misreads its sentence",
}


def _mismatch(context: ItemContext) -> Blame:
    """The cause of a label the provers do not reproduce from well-formed FOL."""
    premises = _symbols(t for w, t in context.fol.items() if w != CONCLUSION)
    conclusion = _symbols([context.fol.get(CONCLUSION, "")])
    for name in sorted(conclusion - premises):
        alike = _alike(name, premises)
        if alike:
            return Blame(
                Cause.VOCABULARY,
                f"the conclusion's {name} is in no premise, which has {alike}",
            )
    drift = [f for f in context.alignment if f.kind == FindingKind.NAME_DRIFT]
    if drift:
        return Blame(Cause.VOCABULARY, drift[0].message)
    wanted = set(deciding(context))
    misread = [f for f in context.alignment if f.where in wanted and f.score >= BLAME]
    for naming, cause in ((False, Cause.STRUCTURE), (True, Cause.VOCABULARY)):
        worst = next((f for f in misread if (f.kind in _NAMING) == naming), None)
        if worst is not None:
            return Blame(cause, f"{worst.where}: {worst.kind.value}: {worst.message}")
    if not conclusion & premises:
        return Blame(
            Cause.VOCABULARY,
            "the conclusion shares no symbol with any premise: nothing was checked",
        )
    proved = context.agreed in (Label.TRUE, Label.FALSE)
    if not proved:
        return Blame(
            Cause.KNOWLEDGE,
            f"the premises prove neither the conclusion nor its negation: a fact the sentences "
            f"take for granted, or a defect no check names, blocks the gold "
            f"{context.gold.value if context.gold else 'label'}",
        )
    assert context.agreed is not None
    return Blame(
        Cause.LABEL,
        f"the FOL reads as its sentences say and proves {context.agreed.value}",
        clean=True,
    )


def _symbols(texts: Iterable[str]) -> set[str]:
    """The predicate and constant names of the formulas that parse."""
    names: set[str] = set()
    for text in texts:
        f = parses(text)
        if f is not None:
            names |= {o.name for o in occurrences(f) if o.kind in ("predicate", "constant")}
    return names


def _alike(name: str, others: Iterable[str]) -> str:
    """A name among `others` written alike: the same letters in another case, or a content word
    in common (`WonGame`, `WonAgainst`); "" for none."""
    words = _words(name)
    for other in sorted(others):
        if other.lower() == name.lower() or words & _words(other):
            return other
    return ""


def _words(name: str) -> set[str]:
    """A name's words that can ground it (`refinery.agents.reading.words.content`), of three
    letters or more ("in", "of" and single letters join too many names)."""
    return {w for w in content(name_words(name)) if len(w) >= 3}
