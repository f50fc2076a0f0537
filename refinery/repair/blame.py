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

A conclusion the provers decide from no premise at all (every core empty) is read alone
(`deciding`): no defect of a premise bears on it.

Every queued item gets a `Cause` and one line of evidence saying why. A defect found is not
always what blocks the gold label, so where a `Retest` is given the cause is read again from
the FOL with the defect mended (`refinery.repair.retest`), the mended FOL never applied:

- a drifted name written as the premises write it (or spelled one way, or a premise's name no
  other formula shares written as the formula with a name for the same words writes it) that
  proves the gold label confirms the drift; one whose mended FOL's own reading blames
  something deeper (it reads right and proves another label, or rests the gold on a converse;
  a formula misreads its sentence; a background fact closes the proof) makes that the cause,
  one drift at a time; a gold label the mended FOL merely leaves open proves nothing;
- a formula a finding blames, rewritten by each meaning repair rule whose edit the gate would
  let settle an item (`Retest.mended`): a rewrite that proves the gold label confirms the
  finding; where every rewrite reads right and proves another label, the gold label is out
  of reach as written and as rewritten, and the label is the cause (the finding right or a
  false alarm); where every rewrite reads right and leaves the gold open, and the FOL as
  written leaves it open too with no background fact that closes it (or proves another
  label), the finding is not what blocks the gold and the label is surmised, unless the
  formula is the repair loop's own unconfirmed edit (a proposal's) or a rewrite keeps an
  `∃y (A → B)` anywhere (the notation whose scope is in doubt);
- a conclusion relation no premise uses that, written as a premise relates the same thing in
  the same place (`From(x, watershed)` beside `In(x, watershed)`), proves the gold label is
  vocabulary;
- a constant in a place where every other formula has one other constant its sentence says
  (`Failed(james, james)` for "James failed the class"), written as the others write it, that
  proves the gold label is vocabulary;
- a gold True or False the FOL leaves open, where reading one conditional premise both ways
  ("if" as "if and only if", a converse its sentence does not state) proves it, rests on
  affirming the consequent or denying the antecedent: the label;
- one that no converse and no background fact found closes is *surmised* the label: read by
  people, that is what most such FOLIO items are. A surmise is said as one; it never outranks
  a drifted name (the mended one may be one of several), and a formula's finding only where
  mending the formula changes nothing.

An item the provers settle on a formula that misreads its sentence (`nl_mismatch`) is blamed on
what blocked its gold label: what the applied repair mended, or, settled as written, the
misreading itself (`structure`).

None of these suggests a label: only a proof from the FOL as it stands does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from refinery.addresses import CONCLUSION
from refinery.agents.alignment import BLAME, Finding, FindingKind
from refinery.agents.critique import deciding
from refinery.agents.models import ErrorClass, ItemContext
from refinery.labels import Label
from refinery.logic.analysis import subformulas
from refinery.logic.parse import parses
from refinery.logic.syntax import Exists, Implies
from refinery.outcomes import Cause, Reason
from refinery.repair.abduce import Bridge
from refinery.repair.retest import Retest
from refinery.repair.slips import (
    alike,
    copied_constants,
    one_witness,
    orphan,
    renamed,
    same_place,
    shortened,
    stray_arguments,
    symbols,
)

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
}


@dataclass(frozen=True, slots=True)
class Blame:
    """Why an item is in review: the `cause`, one line of `evidence`, whether the FOL that
    decides it is clean enough for the provers' label to be suggested (`clean`), and the
    background facts proposed for a missing one (`background`)."""

    cause: Cause
    evidence: str
    clean: bool = False
    #: the background search, where one ran: the facts that close the proof of the gold label
    #: (none found: no axioms)
    background: Bridge | None = None
    #: the cause is what is likeliest once every check and search came back empty, not what
    #: one found: never a deeper cause than a defect found (`_deeper`, `_mended`)
    surmised: bool = False


def blame(
    reason: Reason,
    context: ItemContext,
    *,
    proposals: Sequence[tuple[str, str]] = (),
    lint_kinds: Iterable[str] = (),
    retest: Retest | None = None,
    repaired: Sequence[tuple[str, str]] = (),
) -> Blame:
    """The cause of an item in review for `reason`, read from its final FOL (`context`).

    `proposals` are the (where, error class) of the edits the loop proposes but could not
    confirm, in the order applied, and `repaired` those of the edits it applied; `lint_kinds`
    the kinds of the lint errors that stopped it; `retest` re-proves a mended FOL (none: the
    causes are read from `context` alone).
    """
    if reason is Reason.NL_MISMATCH:
        return _misread(context, repaired)
    if reason in _REASON_CAUSES:
        return Blame(_REASON_CAUSES[reason], _REASON_TEXT.get(reason, reason.value))
    if reason is Reason.LINT_ERROR:
        kinds = set(lint_kinds)
        if "arity_conflict" in kinds:
            return Blame(Cause.VOCABULARY, "a predicate is used with two arities")
        if "lookalike_name" in kinds:
            return Blame(
                Cause.VOCABULARY,
                "a name is written with characters that only look like the ones it reads as",
            )
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
    if retest is not None and proposals:  # the formulas the loop wrote, not the annotators
        retest = replace(retest, edited=frozenset(w for w, _ in proposals))
    return _mismatch(context, retest)


def _misread(context: ItemContext, repaired: Sequence[tuple[str, str]] = ()) -> Blame:
    """The cause of an item the provers settle on a formula that misreads its sentence, naming
    the worst finding. What blocked the gold label is what the applied repair mended (train
    539: names spelled two ways; the misread premise is one its proof does not use); settled
    as written, nothing blocked it, and the cause is the misreading's: the formula's shape.
    Never the label: a rewrite of the formula that reads right to the checks may still misread
    (train 1024's "either E or, if not, S" written E ⊕ S, rewritten E ⊕ ¬S, would blame a
    right gold True)."""
    worst = max(context.alignment, key=lambda f: f.score, default=None)
    said = _said(worst) if worst is not None else "a formula misreads its sentence"
    if not repaired:
        return Blame(Cause.STRUCTURE, f"the provers settle the item, but {said}")
    mended = ", ".join(dict.fromkeys(c.replace("_", " ") for _, c in repaired))
    return Blame(
        _proposal_cause(repaired),
        f"the repair ({mended}) settles the item at its gold label, but {said}",
    )


def _said(finding: Finding) -> str:
    """A finding as a cause's evidence names it: where, which kind, what it found."""
    return f"{finding.where}: {finding.kind.value}: {finding.message}"


def _proposal_cause(proposals: Sequence[tuple[str, str]]) -> Cause:
    """What a repair says blocks the gold label: the last edit (the one that reached it) of a
    formula that parsed; a formula that did not parse is a syntax defect, whatever else its
    repair needed (a lost `)` and a variable for a named person)."""
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
}


def _mismatch(context: ItemContext, retest: Retest | None = None, mend: bool = True) -> Blame:
    """The cause of a label the provers do not reproduce from well-formed FOL (`mend`: a
    formula a finding blames may be rewritten and read again, once)."""
    premises = symbols(t for w, t in context.fol.items() if w != CONCLUSION)
    conclusion = symbols([context.fol.get(CONCLUSION, "")])
    for name in sorted(conclusion - premises):
        partner = alike(name, premises)
        if partner:
            drift = f"the conclusion's {name} is in no premise, which has {partner}"
            mended = retest.renamed(context, name, partner) if retest else None
            return _named(context, drift, f"written {partner}", mended, retest, mend)
    spelled = next((f for f in context.alignment if f.kind == FindingKind.NAME_DRIFT), None)
    if spelled is not None:
        first, second = spelled.symbols[:2]
        mended = retest.unified(context, first, second) if retest else None
        return _named(context, spelled.message, "spelled one way", mended, retest, mend)
    named_apart = renamed(context, conclusion - premises)
    if named_apart:
        return Blame(Cause.VOCABULARY, named_apart)
    lone = orphan(context)
    if lone is not None:
        home, name, other = lone
        said = f"{home}'s {name} is in no other formula, which have {other}"
        mended = retest.renamed(context, name, other, home) if retest else None
        return _named(context, said, f"written {other}", mended, retest, mend)
    short = shortened(context)
    if short is not None:
        where, name, full = short
        said = f"{where} writes {name} where its sentence names {full}, as other formulas write it"
        mended = retest.unified(context, full, name) if retest else None
        return _named(context, said, f"written {full}", mended, retest, mend)
    # a constant in another's place, or copied with its conjunct: re-proved as mended
    for cause, slip in ((Cause.VOCABULARY, stray_arguments), (Cause.STRUCTURE, copied_constants)):
        for where, text, said in slip(context) if retest else ():
            if (
                retest is not None
                and retest.reading({**context.fol, where: text}).agreed is context.gold
            ):
                return Blame(
                    cause, f"{said}; written {text}, the FOL proves the gold {_gold(context)}"
                )
    for name, place, other in same_place(context, conclusion - premises) if retest else ():
        mended = retest.renamed(context, name, other) if retest else None
        if mended is not None and mended.agreed is context.gold:
            return Blame(
                Cause.VOCABULARY,
                f"the conclusion's {name} is in no premise, which relate {place} in the same "
                f"place by {other}; written {other}, the FOL proves the gold {_gold(context)}",
            )
    wanted = set(deciding(context))
    misread = [f for f in context.alignment if f.where in wanted and f.score >= BLAME]
    for naming, cause in ((False, Cause.STRUCTURE), (True, Cause.VOCABULARY)):
        worst = next((f for f in misread if (f.kind in _NAMING) == naming), None)
        if worst is not None:
            said = _said(worst)
            if cause is Cause.STRUCTURE and retest is not None and mend:
                return _mended(context, retest, worst.where, said)
            return Blame(cause, said)
    one = one_witness(context) if retest else None
    if retest is not None and one is not None:
        mended = retest.reading({**context.fol, CONCLUSION: one})
        if mended.agreed is context.gold:
            return Blame(
                Cause.STRUCTURE,
                f"the conclusion asks for two distinct things where its sentence says no "
                f"number; written with one, {one}, the FOL proves the gold {_gold(context)}",
            )
    if not conclusion & premises:
        return Blame(
            Cause.VOCABULARY,
            "the conclusion shares no symbol with any premise: nothing was checked",
        )
    proved = context.agreed in (Label.TRUE, Label.FALSE)
    if not proved:
        bridge = retest.bridge(context) if retest else None
        if bridge is not None and bridge.axioms:
            why = "the FOL reads as its sentences say and leaves the conclusion open"
            return _closed_by(context, bridge, why)
        both_ways = retest.converse(context) if retest else ""
        if both_ways:
            return Blame(
                Cause.LABEL,
                f"the FOL reads as its sentences say and leaves the conclusion open; the gold "
                f"{_gold(context)} follows only if {both_ways} is read both ways ('if' as 'if "
                f"and only if'), which its sentence does not say",
                background=bridge,
            )
        if bridge is None:  # no search ran: a missing fact is as likely as anything
            return Blame(
                Cause.KNOWLEDGE,
                f"the premises prove neither the conclusion nor its negation: a fact the "
                f"sentences take for granted, or a defect no check names, blocks the gold "
                f"{_gold(context)}",
            )
        # Every check reads the FOL right and no fact of the templates closes the proof. Read
        # by people, every such item of FOLIO v2 train (29): the gold label claims what the
        # sentences leave open in 13, a formula misread in a way no check names in 6, a fact
        # the templates do not write in 5. A surmise, said as one, and no label suggested.
        return Blame(
            Cause.LABEL,
            f"every check reads the FOL as its sentences say, the premises prove neither the "
            f"conclusion nor its negation, and no background fact found closes the proof: the "
            f"gold {_gold(context)} likely claims more than the sentences say (a surmise: a "
            f"fact the search cannot write, or a defect no check names, would leave it open "
            f"too)",
            background=bridge,
            surmised=True,
        )
    assert context.agreed is not None
    if wanted == {CONCLUSION}:  # every proof used no premise
        said = f"the conclusion reads as its sentence says and is {context.agreed.value} whatever the premises say"
    else:
        said = f"the FOL reads as its sentences say and proves {context.agreed.value}"
    return Blame(Cause.LABEL, said, clean=True)


def _mended(context: ItemContext, retest: Retest, where: str, said: str) -> Blame:
    """The cause of a mismatch where a finding blames the formula at `where` (`said`): its
    shape, unless every rewrite the meaning rules make of it (`Retest.mended`) leaves a FOL
    that reads as its sentences say and proves another label (or rests the gold on a
    converse): then the label, whether the finding was right (the rewrite reads right) or a
    false alarm (the FOL did). Where every rewrite leaves the gold open, a background fact
    that closes the proof of the FOL as written is what blocks it: `knowledge`; where none
    does and every rewrite reads right, the label is surmised (see the module doc for the
    exceptions). Else a rewrite that leaves the gold open proves nothing. The evidence says
    what the rewrite gave, never that it is the right formula."""
    after: list[tuple[str, Blame, ItemContext]] = []
    for text, reading in retest.mended(context, where):
        if reading.agreed is context.gold:
            return Blame(
                Cause.STRUCTURE, f"{said}; written {text}, the FOL proves the gold {_gold(context)}"
            )
        after.append((text, _mismatch(reading, retest, mend=False), reading))
    if after and all(b.cause is Cause.LABEL and not b.surmised for _, b, _ in after):
        text, first, reading = after[0]
        # a proof of another label, or the converse the gold rests on
        got = (
            f"the FOL proves {reading.agreed.value}"
            if first.clean and reading.agreed
            else first.evidence
        )
        return Blame(
            Cause.LABEL,
            f"{said}; rewritten as the finding asks, {text}, {got}: the gold "
            f"{_gold(context)} is out of reach as written and as rewritten",
        )
    open_ = context.agreed not in (Label.TRUE, Label.FALSE)
    bridge = retest.bridge(context) if after and open_ else None
    if bridge is not None and bridge.axioms:
        # mending the formula leaves the gold open, and a fact left out closes it as written:
        # the fact is what blocks the gold (the finding stays in the evidence)
        why = f"{said}, but rewritten as the finding asks the gold {_gold(context)} stays open"
        return _closed_by(context, bridge, why)
    # as written the gold is open with no fact found to close it, or another label is proved
    proved = None if open_ else context.agreed
    if (
        after
        and (bridge is not None or proved is not None)
        and where not in retest.edited
        and all(b.cause is Cause.LABEL and not _scope_in_doubt(t) for t, b, _ in after)
    ):
        # mending the formula changes nothing the gold needs: what blocks it is elsewhere,
        # as where no check finds anything (`_mismatch`'s surmise)
        written = (
            f"and as written the FOL proves {proved.value}"
            if proved is not None
            else "as it does as written"
        )
        return Blame(
            Cause.LABEL,
            f"{said}; rewritten as the finding asks, {after[0][0]}, every check reads the FOL "
            f"right and it still leaves the gold {_gold(context)} open, {written}, and no "
            f"background fact found closes it: the gold likely claims more than the sentences "
            f"say (a surmise: a fact the search cannot write, or a defect no check names, would "
            f"leave it open too)",
            background=bridge,
            surmised=True,
        )
    return Blame(Cause.STRUCTURE, said)


def _scope_in_doubt(text: str) -> bool:
    """Whether `text` holds an `∃v (A → B)` (or does not parse): annotators write
    `∃y (A(y)) → B` for "if some y …", so a rewrite keeping one may misread its sentence."""
    formula = parses(text)
    return formula is None or any(
        isinstance(f, Exists) and isinstance(f.body, Implies) for f in subformulas(formula)
    )


def _closed_by(context: ItemContext, bridge: Bridge, why: str) -> Blame:
    """`knowledge`: `why` the gold label is out of reach, then the background facts that
    bring the provers to it (proposed in `background_fol`) and their proof."""
    proof = f" ({bridge.proof})" if bridge.proof else ""
    return Blame(
        Cause.KNOWLEDGE,
        f"{why}; with {bridge.describe()}, the provers prove the gold {_gold(context)}{proof}",
        background=bridge,
    )


def _named(
    context: ItemContext,
    said: str,
    how: str,
    mended: ItemContext | None,
    retest: Retest | None,
    mend: bool,
) -> Blame:
    """The cause of a mismatch where a name drifts (`said`), read again from the FOL with the
    name mended (`how`, `mended`; None: it could not be): the name, where mending it proves
    the gold label or leaves nothing deeper; else what the mended FOL's own reading blames
    (one drift at a time: a further drift, a converse, a misread formula, a missing fact)."""
    if mended is not None and mended.agreed is context.gold:
        return Blame(Cause.VOCABULARY, f"{said}; {how}, the FOL proves the gold {_gold(context)}")
    after = _mismatch(mended, retest, mend) if mended is not None else None
    if after is not None and _deeper(after):
        return Blame(after.cause, f"{said}; {how}, {after.evidence}")
    return Blame(Cause.VOCABULARY, said)


def _deeper(after: Blame) -> bool:
    """Whether the cause read from a FOL with a name mended blocks the gold label whatever the
    name: a label proved from FOL that reads right (or resting on a converse), a formula that
    misreads its sentence, a fact found that closes the proof. Not a gold label merely left
    open: the mended name may be one of several drifted ones."""
    if after.cause is Cause.KNOWLEDGE:
        return after.background is not None and bool(after.background.axioms)
    return after.cause in (Cause.LABEL, Cause.STRUCTURE) and not after.surmised


def _gold(context: ItemContext) -> str:
    return context.gold.value if context.gold else "label"
