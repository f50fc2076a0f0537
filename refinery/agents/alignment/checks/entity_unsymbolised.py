"""`entity_unsymbolised`: a name the sentence says that the story has as a constant, absent from
the formula.

A name is two content words or more in a row ("Baked by Melissa"), or one capitalised word:
mid-sentence, or first and no English word ("Xiufeng, Xiangshan … are districts").
"""

from __future__ import annotations

import re

from refinery.agents.alignment.checks.common import Story
from refinery.agents.alignment.drift import near
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence
from refinery.agents.reading.words import content, english, name_words, phrase_at, plain

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.ENTITY_UNSYMBOLISED,)

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """Story constants the sentence names and this formula leaves out."""
    own = {w for name in (*f.predicates, *f.constants, *f.functions) for w in name_words(name)}
    raw = _WORD.findall(plain(s.text))
    # capitals mid-sentence, or a first word that is no English word ("Xiufeng, Xiangshan …
    # are districts"): every sentence capitalises its first word ("Music …")
    proper = {w.lower() for w in raw[1:] if w[0].isupper()}
    proper |= {w.lower() for w in raw[:1] if w[0].isupper() and not english(w.lower())}
    body = content(list(s.words))  # "Baked by Melissa", "Yale's varsity team": content words
    out = []
    for constant in story.constants:
        parts = content(name_words(constant))
        if constant in f.constants or not parts:
            continue
        if any(p in own for p in parts):
            continue  # this formula spells (part of) the entity otherwise: `ann` for annJLand
        if any(near(constant, c) for c in f.constants):
            continue  # spelled another way here: a name drift, not a missing entity
        # a name of two words or more, or one word the sentence capitalises
        named = phrase_at(body, parts) if len(parts) > 1 else parts[0] in proper
        if named:
            out.append(
                Finding(
                    FindingKind.ENTITY_UNSYMBOLISED,
                    0.5,
                    tuple(parts),
                    (constant,),
                    f"the sentence names {' '.join(parts)!r}, the story's {constant}, "
                    "but this formula leaves it out",
                )
            )
    return out
