"""`word_unsymbolised`: a content word the story has a predicate for, absent from the formula
(a dropped conjunct: "loyal and friendly" as `Loyal(x)`).
"""

from __future__ import annotations

from refinery.agents.alignment.checks.common import Story, indexed
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence
from refinery.agents.reading.words import WordIndex, content, name_words, same_word

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.WORD_UNSYMBOLISED,)


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """Story predicates whose words the sentence says and this formula leaves out.

    Scored by how much the shape supports a dropped conjunct: the word is a list item ("loyal
    and friendly", 0.6) or sits right beside a word this formula symbolises as a one-place atom
    ("unannounced program", 0.55) — then `restore_conjunct` can put it back — else 0.45.
    """
    # indexed, not compared pair by pair: a formula of thousands of atoms costs linear time
    mine = set(f.predicates)
    own = WordIndex(
        (w, None) for name in (*mine, *f.constants, *f.functions) for w in name_words(name)
    )
    unary = WordIndex(
        (w, None) for a in f.atoms if len(a.args) == 1 for w in content(name_words(a.name))
    )
    sentence, _ = indexed(s.words)
    out = []
    for predicate, arity in story.predicates.items():
        if predicate in mine:
            continue
        words = content(name_words(predicate))
        if not words or all(own.matches(w) for w in words):
            continue  # this formula spells the same words otherwise
        starts = sorted(
            i
            for i in sentence.matches(words[0])
            if i + len(words) <= len(s.words)
            and all(
                same_word(w, p) for w, p in zip(s.words[i : i + len(words)], words, strict=True)
            )
        )
        if not starts:
            continue
        score = 0.45
        for i in starts:
            end = i + len(words) - 1
            listed = {s.words[j] for j in (i - 1, end + 1) if 0 <= j < len(s.words)}
            beside = [s.words[j] for j in (i - 1, end + 1) if 0 <= j < len(s.words)]
            if arity == 1 and listed & {"and", "or"}:
                score = max(score, 0.6)
            elif arity == 1 and any(unary.matches(b) for b in beside):
                score = max(score, 0.55)
        out.append(
            Finding(
                FindingKind.WORD_UNSYMBOLISED,
                score,
                tuple(words),
                (predicate,),
                f"the sentence says {' '.join(words)!r} and the story has {predicate}, "
                "but this formula leaves it out",
            )
        )
    return out
