"""`symbol_ungrounded`: a constant no word of the sentence names."""

from __future__ import annotations

from refinery.agents.alignment.checks.common import Story, position
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence
from refinery.agents.reading.words import content, name_words

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.SYMBOL_UNGROUNDED,)


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """Constants of the formula that no word of the sentence names."""
    out = []
    for constant in f.constants:
        parts = content(name_words(constant))
        if parts and position(s, constant) is None:
            out.append(
                Finding(
                    FindingKind.SYMBOL_UNGROUNDED,
                    0.3,
                    (),
                    (constant,),
                    f"no word of the sentence names {constant}",
                )
            )
    return out
