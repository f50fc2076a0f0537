"""`attitude_dropped`: the sentence says someone wants, plans or tries to do something, the
formula states that they do it ("want to be entrepreneurs" as `Entrepreneur(x)`).

A wish is not a fact: the formula proves what its sentence leaves open. Read only where the
attitude verb governs an infinitive the formula symbolises, and no predicate of the formula
spells the verb (`PlotsToSwallowUp`, `WantToBe`); "what they want to do" asks no one to do it.
"""

from __future__ import annotations

from refinery.agents.alignment.checks.common import Story
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence
from refinery.agents.reading.words import content, name_words, same_word

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.ATTITUDE_DROPPED,)

#: Verbs of wanting, planning and trying, by the stem a predicate that keeps them spells.
_ATTITUDES = {
    "want": "want", "wants": "want", "wanted": "want", "wish": "wish", "wishes": "wish",
    "hope": "hope", "hopes": "hope", "plan": "plan", "plans": "plan", "planned": "plan",
    "intend": "intend", "intends": "intend", "try": "try", "tries": "trie", "tried": "trie",
    "attempt": "attempt", "attempts": "attempt", "aim": "aim", "aims": "aim",
    "desire": "desire", "desires": "desire", "plot": "plot", "plots": "plot",
}  # fmt: skip
_STEMS = frozenset(_ATTITUDES.values())
#: Words before the verb that make it an embedded question, not a wish ("what they want to do").
_EMBEDDING = frozenset({"what", "whatever", "where", "how", "when", "whom", "which"})
#: Words after "to" that carry no content of their own ("want to be", "plan to have").
_LIGHT = frozenset({"be", "become", "have", "get", "do", "make", "go"})


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """A wish, plan or attempt whose object the formula asserts as done."""
    kept = {w for a in f.atoms for w in name_words(a.name)}
    for i, word in enumerate(s.words[:-2]):
        stem = _ATTITUDES.get(word)
        if (
            stem is None
            or s.words[i + 1] != "to"
            or _EMBEDDING.intersection(s.words[max(0, i - 3) : i])
        ):
            continue
        if any(k.startswith(kept_stem) for k in kept for kept_stem in _STEMS):
            continue  # the formula keeps an attitude in a name
        after = [w for w in s.words[i + 2 : i + 5] if w not in _LIGHT]
        target = next((w for w in after if content([w])), None)
        done = [
            a.name
            for a in f.atoms
            if target is not None and any(same_word(target, w) for w in name_words(a.name))
        ]
        if done:
            return [
                Finding(
                    FindingKind.ATTITUDE_DROPPED,
                    0.6,
                    (word, "to", target or ""),
                    (done[0],),
                    f"the sentence says '{word} to … {target}', the formula states {done[0]} as a fact",
                )
            ]
    return []
