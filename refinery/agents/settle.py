"""When an edit that passes the gate settles an item: how it reads against the sentences.

The repair gate (`refinery.repair`) re-checks a candidate with the provers; this module says
whether what the candidate does reads right. A meaning-level edit (a meaning rule's, or the
LLM's) must not make a formula read worse against its sentence, and must make one read better;
an edit that passes is applied on its own only when it settles the item (`unsettled`): the
formulas it edits read right after it, and, for a meaning rule, the finding it answers was
strong, the rule knew where to act, and it changes the conclusion only where the conclusion
plainly misreads its sentence.
"""

from __future__ import annotations

from refinery.agents.alignment import ISSUE, NAME_DRIFT, align_formula
from refinery.agents.models import LLM_SOURCE, Edit, Findings
from refinery.agents.repairs import MEANING_RULES
from refinery.agents.repairs.near_names import TAG as NEAR_NAMES

AMBIGUOUS = "ambiguous: another edit of different meaning also proves the gold label"
#: An edit is applied on its own only if every formula it changes reads its sentence better than
#: this after the edit; a meaning-level edit also only where the formula misread its sentence
#: at least this badly before. Otherwise it proves the gold label but stays a proposal.
CONFIRM = 0.6
PASSES = "parses, lints clean, consistent, provers agree on the gold label"
MISREADS = "an edited formula still misreads its sentence: a proposal for review"


def unsettled(source: str, candidate: tuple[Edit, ...], before: float, after: float) -> str | None:
    """Why an edit that passes the gate is still only a proposal (None: it settles the item)."""
    if after >= CONFIRM:
        return MISREADS
    if not of_meaning(source):
        return None
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
        return "the rule could not tell which part the sentence means: a proposal for review"
    return None


def read_edits(
    source: str, candidate: tuple[Edit, ...], findings: Findings
) -> tuple[str | None, float, float]:
    """(why the candidate reads worse than what it replaces, or None; how badly the formulas it
    edits misread their sentences before; and after).

    A meaning-level edit (a meaning rule's, or the LLM's) must leave every edited formula that
    parsed before aligned with its sentence at least as well, and some strictly better. A form
    rule's edit (a parenthesis, a typo, a binder) is not held to that: what it fixes is not
    what the sentence says, and the sentence may be too thin to read (it is still held to
    `CONFIRM` by `unsettled`).
    """
    better = False
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
                    if f.where == edit.where and f.kind == NAME_DRIFT
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
        after = align_formula(edit.after, sentence, findings.story_fol)
        worst_after = max(worst_after, after)
        before = align_formula(edit.before, sentence, findings.story_fol)
        if before >= 1.0:
            continue  # it did not parse: nothing to compare with
        worst_before = max(worst_before, before)
        if after > before and of_meaning(source):
            why = (
                f"reads worse: {edit.where} aligns {after:.2f} with its sentence, was {before:.2f}"
            )
            return why, worst_before, worst_after
        better = better or after < before
    if source in MEANING_RULES and not better:
        why = "changes the meaning without reading any better against the sentences"
        return why, worst_before, worst_after
    return None, worst_before, worst_after


def of_meaning(source: str) -> bool:
    """Whether edits from `source` change what a formula means (a meaning rule or the LLM)."""
    return source in MEANING_RULES or source.startswith(LLM_SOURCE)
