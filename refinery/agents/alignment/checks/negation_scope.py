"""`negation_extra`, by scope: one "not" before an "and", written as a ¬ over the whole "and";
and `negation_missing`: a "not" before each part of an "and", written as one ¬ over it.

"X is without statistical pattern analysis and writing a novel" says X is writing a novel; its
`¬(Uses(x, spa) ∧ NovelWriting(x))` denies only that both hold, and is made true by X not
writing a novel at all. English leaves "is not A and B" open ("the coke is not edible and
sweet" may mean "not both"), so the finding blocks a label suggestion (`BLAME`) without
marking a verified item as misread; "not both", "neither", "it is not the case" and a second
negation (a "not" for each part) are read right and left alone.
"""

from __future__ import annotations

from refinery.agents.alignment.checks.common import Story, position
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.NEGATION_EXTRA, FindingKind.NEGATION_MISSING)
#: The message of a "not A and not B" written ¬(A ∧ B); `fix_negation` rewrites it ¬A ∧ ¬B.
EACH_PART = (
    "a 'not' before each part of an 'and' denies each; the formula denies only that all hold"
)

#: Words that make a "not" deny a whole conjunction.
_WHOLE = frozenset({"both", "neither", "case", "true", "either"})
#: Words that open a clause the "not" denies as one thing.
_CLAUSE = frozenset({"who", "that", "which", "whose", "where"})


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """The conjunct a ¬ denies that the sentence states after its one negation and an "and";
    the ¬ over an "and" whose every part the sentence negates on its own."""
    if not f.denied_conjunctions or not _WHOLE.isdisjoint(s.words):
        return []
    if len(s.negations) > 1:
        return _each_part(s, f)
    if len(s.negations) != 1:
        return []
    cue = s.negations[0]
    after = [a for a in s.ands if a > cue]
    if not after or not _CLAUSE.isdisjoint(s.words[cue : after[0]]):
        return []  # "not people who are A and B": the "and" is inside what is denied
    for conjuncts in f.denied_conjunctions:
        first, rest = conjuncts[0], [n for c in conjuncts[1:] for n in c]
        said_first = [p for n in first if (p := position(s, n)) is not None]
        said_rest = [p for n in rest if (p := position(s, n)) is not None]
        if said_rest and min(said_rest) > after[0] and all(cue < p < after[0] for p in said_first):
            return [
                Finding(
                    FindingKind.NEGATION_EXTRA,
                    0.5,
                    (s.words[cue],),
                    tuple(rest),
                    f"{s.words[cue]!r} before an 'and' denies its first part, or each part; "
                    f"the formula denies only that all hold together ({', '.join(rest)} too)",
                )
            ]
    return []


def _each_part(s: Sentence, f: Shape) -> list[Finding]:
    """ "James does not contribute to the country and does not serve in the army" written
    `¬(ContributeTo(james, country) ∧ ServesIn(james, army))`: each part named after a "not"
    of its own, an "and" between them, and no ¬ inside the denied "and" (train 1214, 1360)."""
    if f.denied_negations:
        return []
    for conjuncts in f.denied_conjunctions:
        said = [[p for n in part if (p := position(s, n)) is not None] for part in conjuncts]
        if len(said) < 2 or not all(said):
            continue
        spans = sorted((min(p), max(p)) for p in said)
        ends = [-1] + [end for _, end in spans[:-1]]  # where the part before each ends
        ok = all(
            any(before < n < start for n in s.negations)
            and (before < 0 or any(before < a < start for a in s.ands))
            for (start, _), before in zip(spans, ends, strict=True)
        )
        if ok:
            cues = tuple(s.words[n] for n in s.negations)
            names = tuple(dict.fromkeys(n for part in conjuncts for n in part))
            return [Finding(FindingKind.NEGATION_MISSING, 0.8, cues, names, EACH_PART)]
    return []
