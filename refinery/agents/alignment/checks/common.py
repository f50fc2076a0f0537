"""What the alignment's checks share: the story they read, and the sentence's rule and words.

A check (one module of `alignment.checks`) reads one formula's counts (`shape.Shape`) beside its
sentence's cues (`reading.cues.Sentence`) and the story around it (`Story`). Several of them read
a rule-shaped sentence the same way (`clauses`) and find a name's words in it (`position`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import NEGATION_WORDS, Sentence
from refinery.agents.reading.words import WordIndex, content, name_words, same_word, tokens


@dataclass(frozen=True, slots=True)
class Story:
    """The names the item's story uses anywhere: a word one of its predicates spells, or an
    entity one of its constants names, that this formula leaves out was dropped."""

    predicates: Mapping[str, int]  # name → arity
    constants: Sequence[str]


#: Words that negate inside a name (`CanWatchWithout`, `NonProfit`, `LackOfSleep`).
NAME_NEGATIONS = frozenset({"not", "no", "non", "never", "without", "un", "dis", "lack", "free"})
#: The universal words that open a rule ("all A are B", "everyone who …").
EVERY = frozenset(
    {"all", "every", "each", "any", "everything", "everyone", "everybody", "anyone", "anything"}
)
#: Words that open a relative clause or a condition ("students who …", "… if …").
RELATIVE = frozenset({"who", "that", "which", "whose", "whom", "where", "if", "when"})
#: Copulas and auxiliaries: where "all A are B" splits into its condition and its result.
_BE = frozenset({"is", "are", "was", "were", "be", "been", "being", "can", "could", "will", "do", "does", "did", "has", "have", "had", "would", "should", "may", "might", "must"})  # fmt: skip


def missing_negation(score: float, cues: Sequence[str], message: str) -> Finding:
    return Finding(FindingKind.NEGATION_MISSING, score, tuple(cues), (), message)


def contrapositive(s: Sentence, f: Shape) -> bool:
    """ "If A is not B, C never does D" as `∀x (D → B)`: both sides negated in the sentence, and
    a rule with no ¬ on either side in the formula — the contrapositive, read right."""
    sides = clauses(s)
    if sides is None or not f.implications:
        return False
    rule = f.implications[0]
    negated = [not NEGATION_WORDS.isdisjoint(side) for side in sides]
    return all(negated) and not (rule.negated_antecedent or rule.negated_consequent)


def clauses(s: Sentence) -> tuple[list[str], list[str]] | None:
    """(condition words, result words) of a rule-shaped sentence, or None."""
    words = list(s.words)
    if s.iff or "unless" in words:
        return None  # both ways, or "if not": no direction to check
    for cue in ("if", "when", "whenever"):
        if cue not in words:
            continue
        i = words.index(cue)
        if "only" in words[:i]:  # "A only if B", "A would only … if B": A → B
            return [w for w in words[:i] if w != "only"], words[i + 1 :]
        if "then" in words[i + 1 :]:  # "(A, and) if B, then C": the rule is B → C
            then = words.index("then", i + 1)
            return words[i + 1 : then], words[then + 1 :]
        head, _, tail = s.text.partition(",")
        comma = tokens(head) if tail else []
        if i < len(comma):  # "If A, (then) B": the condition ends at the comma
            result = words[len(comma) :]
            return comma[i + 1 :], result[1:] if result[:1] == ["then"] else result
        if i == 0:
            rest = words[1:]
            if "then" in rest:
                split = rest.index("then")
                return rest[:split], rest[split + 1 :]
            return None  # no comma, no "then": where the condition ends is a guess
        return words[i + 1 :], words[:i]  # "B if A"
    lead = [i for i in s.universal if s.words[i] in EVERY]
    if lead and lead[0] <= 1:
        rest = words[lead[0] + 1 :]
        verbs = [j for j, w in enumerate(rest) if w in _BE]
        if verbs and not RELATIVE.isdisjoint(rest[: verbs[0]]):
            verbs = verbs[-1:]  # "all squirrels that can be spotted … are skittish": the last verb
        if verbs and verbs[0]:
            split = verbs[0]
            while split and (rest[split - 1] in _BE or rest[split - 1] in ("not", "never")):
                split -= 1  # "everyone that is entitled … can not be deprived": the result's
            return rest[:split], rest[verbs[0] + 1 :]  # "All A are B"
    return None


def position(s: Sentence, name: str) -> int | None:
    """Where the sentence first uses a word of `name` (content words only)."""
    wanted = content(name_words(name))
    whole = "".join(name_words(name))  # `weTab` for "WeTab", `playStation` for "PlayStation"
    if len(s.words) > _SCAN:
        # a long sentence is indexed once, so its thousands of symbols cost linear time
        index, first = indexed(s.words)
        found = [i for w in wanted for i in index.matches(w)]
        return min([*found, *([first[whole]] if whole in first else [])], default=None)
    for i, word in enumerate(s.words):
        if word == whole or any(same_word(word, w) for w in wanted):
            return i
    return None


#: Sentences up to this many words are scanned; longer ones are indexed (`indexed`).
_SCAN = 64


#: The indexes of the last sentences read, by the identity of their words (hashing a tuple of
#: thousands of words on every lookup would cost what the index saves).
_INDEXES: dict[int, tuple[tuple[str, ...], WordIndex[int], dict[str, int]]] = {}


def indexed(words: tuple[str, ...]) -> tuple[WordIndex[int], dict[str, int]]:
    """A sentence's words by `same_word`, tagged with their positions, and each word's first
    position; built once per sentence."""
    hit = _INDEXES.get(id(words))
    if hit is not None and hit[0] is words:
        return hit[1], hit[2]
    first: dict[str, int] = {}
    for i, word in enumerate(words):
        first.setdefault(word, i)
    index = WordIndex((w, i) for i, w in enumerate(words))
    if len(_INDEXES) >= 32:
        _INDEXES.clear()
    _INDEXES[id(words)] = (words, index, first)
    return index, first
