"""`negation_missing` / `negation_extra`: the sentence negates and the formula does not, or
the reverse.

A negative word absorbed into a name (`CanWatchWithout`) counts as a negation; so does a negative
prefix on a predicate's word ("unsanctioned" for `¬Sanctioned`), and a word that negates without
a negation cue ("unless", "fails", "unable").
"""

from __future__ import annotations

from refinery.agents.alignment.checks.common import (
    NAME_NEGATIONS,
    Story,
    contrapositive,
    missing_negation,
    position,
)
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Atom, Shape
from refinery.agents.reading.cues import Sentence
from refinery.agents.reading.words import WordIndex, content, name_words, same_word

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.NEGATION_MISSING, FindingKind.NEGATION_EXTRA)

#: Words that negate without a negation cue: "unless" means "if not", "fails to" means "not".
_NEGATIVE_WORDS = frozenset(
    {
        "unless", "otherwise", "fail", "fails", "failed", "lack", "lacks", "lacking", "absent",
        "except", "neither", "nor", "only", "instead", "refuse", "refuses", "deny",
        "denies", "false", "impossible", "unable", "never", "cease", "stop", "stopped", "avoid",
        "different", "other", "remove", "removed", "rather", "besides", "apart", "outside",
        "beyond", "away", "lost", "lose", "loses", "miss", "missed", "misses",
    }
)  # fmt: skip
_NEGATIVE_PREFIXES = ("un", "non", "dis", "in", "im", "il", "ir", "a")
#: The message of a "neither … nor" whose formula negates less than both parts; `fix_negation`
#: rewrites a ¬ over their ⊕ or ∧ (`¬(Linux(x) ⊕ Software(x))`) as a ¬ on each.
NEITHER = "'neither … nor' negates both, the formula does not"
_SAMENESS = frozenset({"same", "different", "distinct", "other", "another", "both"})


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """The negations the sentence states and the formula does not, or the reverse."""
    named = [a.name for a in f.atoms if not set(name_words(a.name)).isdisjoint(NAME_NEGATIONS)]
    cues = [s.words[i] for i in s.negations]
    # "neither … nor" is one negation of an "or"
    count = len(cues) - (cues.count("nor") if s.neither_nor else 0)
    if f.double_negations:
        return [Finding(FindingKind.NEGATION_EXTRA, 0.9, (), (), "¬¬: a negation negated again")]
    if cues[:1] == ["no"] and len(cues) == 2 and not s.conditional:
        # "no A do not B" is "every A is B": the two cancel, and one ¬ says the opposite
        if (f.negations + len(named)) % 2 == 0:
            return []
        message = "'no … not' cancels out (every A is B), the formula negates once"
        return [missing_negation(0.7, cues, message)]
    if cues and f.negations == 0 and not named:
        # ⊕ says "…, but not both" and ≠ says "not the same" without a ¬; two negations may
        # cancel ("no … without"), so an even count is weaker evidence. A "not both" followed
        # by its parts denies a conjunction, which no ⊕ elsewhere in the formula says.
        xor_says = f.xors and not s.denies_both
        implicit = (xor_says or f.distinct) and not _SAMENESS.isdisjoint(s.words)
        if count % 2 == 0 and contrapositive(s, f):
            return []  # "if not A, then not B" written B → A: read right
        score = 0.4 if implicit else 0.85 if count % 2 else 0.6
        return [
            missing_negation(
                score, cues, f"the sentence says {cues[0]!r} but the formula negates nothing"
            )
        ]
    if s.denies_both and not f.denied_conjunctions and not f.negative_ors:
        # "does not both A and B" denies an "and"; this formula's negations deny something
        # else ("neither … nor" beside it), so the "not both" went unwritten
        message = "'not both' denies an 'and', the formula denies none"
        return [missing_negation(0.85, cues, message)]
    if s.neither_nor and not s.both_or_neither and not f.negated_ors and f.negations < 2:
        return [missing_negation(0.7, cues, NEITHER)]
    if s.neither_nor and not s.both_or_neither and not f.negated_ors and f.denied_negations:
        # ¬(¬A ∧ B) has its two negations, but denies only that both hold ("not an orphan
        # planet", ¬(Planet ∧ Orphan), is one part's own "and": no inner ¬)
        return [missing_negation(0.7, cues, "'neither … nor' negates each part; the formula "
                                 "denies an 'and' as a whole")]  # fmt: skip
    if s.both_or_neither and not cues and f.negations > 1:
        return [
            Finding(FindingKind.NEGATION_EXTRA, 0.6, ("neither",), (), "'both … or neither' is ¬(A ⊕ B); "
                     f"the formula has {f.negations} negations")
        ]  # fmt: skip
    unnegated = _prefixed(s, f, negative=False)
    if unnegated and not _prefixed(s, f, negative=True):
        return [
            missing_negation(0.7, (unnegated[0][0],), f"{unnegated[0][0]!r} is not-{unnegated[0][1]}, "
                     "the formula states it un-negated")
        ]  # fmt: skip
    if not cues and f.negations > 0 and not _negative_wording(s, f):
        negated = tuple(dict.fromkeys(a.name for a in f.atoms if a.negative))
        # ¬High for "low": an antonym the sentence uses instead of the predicate's own word
        stated = all(_stated(s, f, a) for a in f.atoms if a.negative)
        return [
            Finding(
                FindingKind.NEGATION_EXTRA,
                0.7 if stated else 0.4,
                (),
                negated,
                "the formula negates (¬) but no word of the sentence does",
            )
        ]
    # "does not own a car or a bike" is ¬A ∧ ¬B: a negation before an "or" negates each option
    count += sum(1 for n in s.negations for o in s.ors if 0 < o - n <= 4)
    if cues and f.negations > count and not _negative_wording(s, f):
        return [
            Finding(
                FindingKind.NEGATION_EXTRA,
                0.55,
                tuple(cues),
                tuple(dict.fromkeys(a.name for a in f.atoms if a.negative)),
                f"the formula has {f.negations} negations, the sentence {count}",
            )
        ]
    return []


def _stated(s: Sentence, f: Shape, atom: Atom) -> bool:
    """Whether the sentence says the atom's own words (its constants' when the name has none:
    `Have(x, citizenship)`)."""
    if content(name_words(atom.name)):
        return position(s, atom.name) is not None
    named = [a for a in atom.args if a in f.constants]
    return bool(named) and all(position(s, a) is not None for a in named)


def _prefixed(s: Sentence, f: Shape, *, negative: bool) -> list[tuple[str, str]]:
    """(word, predicate) pairs where a word is a negative prefix on a predicate's word
    ("unsanctioned" for `Sanctioned`), among the atoms of the given polarity."""
    # indexed, not compared pair by pair: a formula of thousands of atoms costs linear time
    whole = WordIndex((w, None) for a in f.atoms for w in content(name_words(a.name)))
    atoms = WordIndex(
        (w, i)
        for i, a in enumerate(f.atoms)
        if a.negative == negative
        for w in content(name_words(a.name))
    )
    spelled = {a.name.lower() for a in f.atoms}
    found: list[tuple[int, int, int, str]] = []  # (atom, word, prefix) order, as read
    for at, word in enumerate(s.words):
        if whole.matches(word) or word in spelled:
            continue  # `Invertebrate` names "invertebrates" whole, `NonFlying` "nonflying"
        for rank, prefix in enumerate(("un", "non", "dis", "in", "im", "il", "ir")):
            stem = word[len(prefix) :]
            if word.startswith(prefix) and len(stem) >= 4:
                found += [(i, at, rank, word) for i in atoms.matches(stem)]
    return [(word, f.atoms[i].name) for i, _, _, word in sorted(found)]


def _negative_wording(s: Sentence, f: Shape) -> bool:
    """Whether some word of the sentence negates without a cue ("unless", "unable", "fails")."""
    if not set(s.words).isdisjoint(_NEGATIVE_WORDS):
        return True
    if any(
        w == "free" and s.words[i + 1 : i + 2] in (("of",), ("from",))
        for i, w in enumerate(s.words)
    ):
        return True  # "free of charge", "free from sugar"; "free to modify" negates nothing
    negated_words = {w for a in f.atoms if a.negative for w in name_words(a.name)}
    for word in s.words:
        for prefix in _NEGATIVE_PREFIXES:
            stem = word[len(prefix) :]
            if (
                word.startswith(prefix)
                and len(stem) >= 4
                and any(same_word(stem, w) for w in negated_words)
            ):
                return True  # "unhappy" for ¬Happy
    return False
