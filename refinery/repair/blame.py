"""What is wrong with an item that stays in review: its cause, the evidence, and whether a label
may be suggested.

On real FOLIO annotations most conflicts between the provers and the gold label are defects of
the FOL, not of the label: a conclusion written with a name no premise uses, a formula whose
shape misreads its sentence, a knowledge the sentences take for granted. A label is therefore
suggested only where nothing in the FOL explains the conflict (`blame`):

- no symbol of the conclusion is missing from the premises while a premise names it alike (a
  case variant, a shared word: `WonGame` beside `WonAgainst`), or while its sentence names a
  symbol the story uses; no premise uses a name no other formula uses while another formula
  has a name for the same words (`Grow` beside `GrowIn`, `usa` beside
  `unitedStatesOfAmerica`); and no name is spelled two ways;
- no formula that decides the label misreads its sentence (an alignment finding at `BLAME`);
- the provers *prove* the label they suggest: gold True or False that the premises merely fail
  to prove is no evidence against the label (a missing background fact, or a defect no check
  saw, fails the proof as well), and a conclusion that shares no symbol with any premise was
  never checked at all.

Every queued item gets a `Cause` and one line of evidence saying why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from refinery.addresses import CONCLUSION
from refinery.agents.alignment import BLAME, FindingKind
from refinery.agents.alignment.drift import near
from refinery.agents.critique import deciding
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.reading.words import content, name_words, same_word, tokens
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
    proposals: Sequence[tuple[str, str]] = (),
    lint_kinds: Iterable[str] = (),
) -> Blame:
    """The cause of an item in review for `reason`, read from its final FOL (`context`).

    `proposals` are the (where, error class) of the edits the loop proposes but could not
    confirm, in the order applied; `lint_kinds` the kinds of the lint errors that stopped it.
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
        return Blame(
            _proposal_cause(proposals),
            "a repair proves the gold label but the sentence does not settle it",
        )
    if reason is not Reason.LABEL_MISMATCH:
        return Blame(Cause.NONE, _UNNAMED.get(reason, ""))
    return _mismatch(context)


def _proposal_cause(proposals: Sequence[tuple[str, str]]) -> Cause:
    """What an unconfirmed repair says blocks the gold label: the last edit (the one that
    reached it) of a formula that parsed; a formula that did not parse is a syntax defect,
    whatever else its repair needed (a lost `)` and a variable for a named person)."""
    unparsed = {w for w, c in proposals if _EDIT_CAUSES.get(ErrorClass(c)) is Cause.SYNTAX}
    rest = [ErrorClass(c) for w, c in proposals if w not in unparsed]
    if rest:
        return (
            Cause.VOCABULARY if _EDIT_CAUSES.get(rest[-1]) is Cause.VOCABULARY else Cause.STRUCTURE
        )
    return Cause.SYNTAX if unparsed else Cause.STRUCTURE


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
    renamed = _renamed(context, conclusion - premises)
    if renamed:
        return Blame(Cause.VOCABULARY, renamed)
    orphan = _orphan(context)
    if orphan:
        return Blame(Cause.VOCABULARY, orphan)
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


#: Findings that a sentence names something the story has a symbol for, and its formula not.
_UNSYMBOLISED = frozenset({FindingKind.WORD_UNSYMBOLISED, FindingKind.ENTITY_UNSYMBOLISED})


def _renamed(context: ItemContext, only_conclusion: set[str]) -> str:
    """Evidence that the conclusion names with a symbol of its own what the story names with
    another: its sentence says a story symbol its formula leaves out, or a premise's sentence
    says the conclusion's symbol and its formula uses another; "" for none."""
    if not only_conclusion:
        return ""
    for f in context.alignment:
        if f.kind not in _UNSYMBOLISED:
            continue
        if f.where == CONCLUSION:
            return (
                f"the conclusion's sentence names {', '.join(f.symbols) or ' '.join(f.words)}, "
                f"its formula uses {', '.join(sorted(only_conclusion))}, in no premise"
            )
        if set(f.symbols) & only_conclusion:
            return (
                f"{f.where}'s sentence names the conclusion's {f.symbols[0]}, its formula another"
            )
    return ""


def _orphan(context: ItemContext) -> str:
    """Evidence of a premise name no other formula uses while another formula has a name for the
    same words: the premise cannot link to the rest, as a conclusion-only name cannot; "" for
    none. A predicate's partner has its arity, every word of the orphan, and its words are all
    said by the orphan's sentence (`Grow` in "grow … in their garden" beside `GrowIn`); a
    constant's partner is a near spelling (`homelessCharify`) or its initials (`usa`)."""
    uses: dict[tuple[str, str, int], set[str]] = {}
    for where, text in context.fol.items():
        f = parses(text)
        for o in occurrences(f) if f is not None else ():
            if o.kind in ("predicate", "constant"):
                uses.setdefault((o.kind, o.name, o.arity), set()).add(where)
    for (kind, name, arity), (home, *more) in sorted(uses.items()):
        if more or home == CONCLUSION:
            continue  # shared, or the conclusion's own (`_alike` reads those)
        said = tokens(context.nl.get(home, ""))
        mine = content(name_words(name))
        for (kind2, other, arity2), places in sorted(uses.items()):
            if kind2 != kind or other == name or home in places:
                continue
            if kind == "predicate":
                theirs = content(name_words(other))
                if arity2 != arity or not mine or not theirs:
                    continue
                within = all(any(same_word(a, b) for b in theirs) for a in mine)
                if not (within and all(any(same_word(w, t) for t in said) for w in theirs)):
                    continue
            elif not (near(name, other) or _initials(name, other)):
                continue
            return f"{home}'s {name} is in no other formula, which have {other}"
    return ""


def _initials(a: str, b: str) -> bool:
    """Whether the shorter name is the initials of the longer one's words (`usa`)."""
    short, long = sorted((a, b), key=len)
    words = content(name_words(long))
    return len(short) >= 2 and len(words) >= 2 and short.lower() == "".join(w[0] for w in words)
