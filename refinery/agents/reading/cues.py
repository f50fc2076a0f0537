"""What a sentence's wording asks of its formula: negation, quantifier and connective cues.

`read_sentence` finds, by word (no parser, no model), the cues a formula should reflect:

- negation: not, n't, no, never, none, nobody, nothing, neither … nor, without, nowhere;
- quantifiers: universal (all, every, each, any, no, none, whoever …) and existential (some,
  someone, there is / are, at least, a few, several, exists);
- connectives: and, or, either … or, "but not both", "or both", "both … or neither", neither
  … nor, if … then, only if, unless, when, whenever, if and only if, both … and;
- a list joined by "and" ("A, B, and C").

Each cue keeps the token position where it starts, so a finding can point at the words.

Two cues are also read from the raw text, by pattern, for the repair rules that pick an edit
with them: `quantifier_cue` (which binder a free variable wants) and `BOTH_OR_NEITHER` (⊕ → ↔).
They are not `read_sentence`'s: `quantifier_cue` weighs both kinds of cue against each other and
answers only when one kind is present ("one", "may", "if", "when" count; "always" does not),
and `BOTH_OR_NEITHER` wants "both" and "neither" on either side of an "or", where
`Sentence.both_or_neither` accepts "either … or neither" too (and whatever `BOTH_OR_NEITHER`
does: "both A and B, or he neither is A nor B"). The repair rules were tuned on
the former, the alignment's scores on the latter, so both stay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from refinery.agents.reading.words import tokens

NEGATION_WORDS = frozenset(
    {"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "nowhere"}
)
_UNIVERSAL = frozenset(
    {
        "all", "every", "each", "any", "everyone", "everybody", "everything", "anyone",
        "anybody", "anything", "whoever", "whatever", "whenever", "wherever", "no", "none",
        "nobody", "nothing", "always",
    }
)  # fmt: skip
_EXISTENTIAL = frozenset(
    {"some", "someone", "somebody", "something", "somewhere", "exists", "exist"}
)
_GENERIC = frozenset({"someone", "somebody", "something"})
_CONDITIONAL = frozenset({"if", "when", "whenever", "unless", "then", "provided"})
#: "not both" that closes its clause ("A or B, but not both.") excludes both: ⊕. Followed by
#: its parts ("is not both a singer and a dancer") it denies a conjunction, the common case.
_NOT_BOTH = re.compile(r"\bnot both\s*(?:[,.;:!?)]|$)", re.I)


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence's words and the cues they carry (token positions in `words`)."""

    text: str
    words: tuple[str, ...]
    negations: tuple[int, ...] = ()
    universal: tuple[int, ...] = ()
    existential: tuple[int, ...] = ()
    ands: tuple[int, ...] = ()
    ors: tuple[int, ...] = ()
    either: bool = False  # "either … or"
    not_both: bool = False  # "…, but not both.": exclusive or
    denies_both: bool = False  # "is not both A and B": ¬(A ∧ B)
    or_both: bool = False  # "or both": inclusive or
    both_or_neither: bool = False  # "either both … or neither": ↔
    neither_nor: bool = False  # "neither … nor": ¬(A ∨ B)
    conditional: tuple[int, ...] = ()
    only_if: bool = False
    iff: bool = False  # "if and only if"
    unless: bool = False

    @property
    def empty(self) -> bool:
        return not self.words


#: Words that announce a classification: "there are three types of X: A, B, and C" is a rule
#: (every X is an A, a B or a C), neither an ∃ nor a conjunction
KINDS = frozenset({"type", "types", "kind", "kinds", "genre", "genres", "sort", "sorts", "category", "categories", "categorized", "categorised", "classified", "divided"})  # fmt: skip


def read_sentence(text: str) -> Sentence:
    """The cues of `text`.

    >>> s = read_sentence("No bird in the aviary can fly, and not all birds sing.")
    >>> s.negations, s.universal, s.ands
    ((0, 8), (0, 9), (7,))
    >>> s = read_sentence("Sam either sings or dances, but not both.")
    >>> s.not_both, s.negations
    (True, ())
    >>> s = read_sentence("Sam is not both a singer and a dancer.")
    >>> s.not_both, s.denies_both
    (False, True)
    >>> read_sentence("There are some cats.").existential
    (0, 2)
    >>> read_sentence("There's a cat.").existential
    (0,)
    """
    words = tuple(tokens(text))
    joined = " " + " ".join(words) + " "
    # the "not" of "but not both" and the "neither" of "both … or neither" belong to ⊕ and ↔
    connective = {
        i + 1 for i, w in enumerate(words[:-2]) if words[i : i + 3] == ("but", "not", "both")
    }
    connective |= {i + 1 for i, w in enumerate(words[:-1]) if words[i : i + 2] == ("or", "neither")}
    connective |= {
        i + 2 for i, w in enumerate(words[:-2]) if words[i : i + 3] == ("whether", "or", "not")
    }
    for i in sorted(connective):  # "… or neither sings nor dances": its "nor" too
        if words[i] == "neither" and "nor" in words[i:]:
            connective.add(words.index("nor", i))
    # "Symphony No. 9": a number's "no" negates nothing, and quantifies nothing
    numbered = {i for i, w in enumerate(words[:-1]) if w == "no" and words[i + 1].isdigit()}
    connective |= numbered
    negations = tuple(i for i, w in enumerate(words) if w in NEGATION_WORDS and i not in connective)
    not_whom = numbered | how_often(words)
    universal = tuple(i for i, w in enumerate(words) if w in _UNIVERSAL and i not in not_whom)
    existential = [i for i, w in enumerate(words) if w in _EXISTENTIAL]
    for i, w in enumerate(words[:-1]):
        nxt = words[i + 1]
        if w == "there" and nxt in ("is", "s", "are", "was", "were", "exists", "exist"):
            kinds = not KINDS.isdisjoint(words[i + 2 : i + 6])  # "there are six types of X"
            if words[i + 2 : i + 3] != ("no",) and not kinds:  # "there is no …" is universal
                existential.append(i)
        elif (w == "at" and nxt == "least") or (w == "a" and nxt == "few") or w == "several":
            existential.append(i)
    existential = [
        i
        for i in existential
        # "ghosts do not exist", "not directed by someone": a denied ∃ is a ∀¬
        if not any(0 < i - n <= 3 for n in negations)
        # "someone who does not own a car must …": anyone who
        and not (words[i] in _GENERIC and words[i + 1 : i + 2] in (("who",), ("that",)))
    ]
    neither_nor = " neither " in joined and " nor " in joined
    return Sentence(
        text=text,
        words=words,
        negations=negations,
        universal=universal,
        existential=tuple(sorted(set(existential))),
        ands=tuple(i for i, w in enumerate(words) if w == "and"),
        ors=tuple(i for i, w in enumerate(words) if w in ("or", "nor")),
        either=" either " in joined,
        not_both=_NOT_BOTH.search(text) is not None,
        denies_both=" not both " in joined and _NOT_BOTH.search(text) is None,
        or_both=" or both " in joined,
        # "either both A and B, or neither", "either is A and B or neither A nor B"
        both_or_neither=(" or neither " in joined and (" both " in joined or " either " in joined))
        or BOTH_OR_NEITHER.search(text) is not None,
        neither_nor=neither_nor,
        conditional=tuple(i for i, w in enumerate(words) if w in _CONDITIONAL),
        only_if=" only if " in joined,
        iff=" if and only if " in joined,
        unless=" unless " in joined,
    )


#: Words after which "every", "each", "all" say how often, not over whom ("every day").
_TIMES = frozenset(
    ["day", "days", "week", "weeks", "month", "months", "year", "years", "time", "times"]
    + ["morning", "evening", "night", "weekend", "summer", "winter", "season", "semester"]
)


def how_often(words: Sequence[str]) -> set[int]:
    """Positions of the "every", "each" and "all" that say how often ("every day", "all the
    time"): they quantify over no one.

    >>> sorted(how_often(["mike", "wears", "it", "every", "day", "and", "every", "night"]))
    [3, 6]
    """
    return {
        i
        for i, w in enumerate(words)
        if w in ("every", "each", "all") and not _TIMES.isdisjoint(words[i + 1 : i + 3])
    }


def denials(words: Sequence[str]) -> tuple[str, ...]:
    """The negation cues among `words`, less the "not" of "but not both" and "whether or not",
    and the "no" of a number ("No. 9").

    >>> denials(["if", "not", "a", "then", "a", "or", "b", "but", "not", "both"])
    ('not',)
    """
    out = []
    for i, w in enumerate(words):
        after, before = tuple(words[i + 1 : i + 2]), tuple(words[max(0, i - 1) : i])
        if w not in NEGATION_WORDS or (w == "not" and (after == ("both",) or before == ("or",))):
            continue
        if w == "no" and after[:1] and after[0].isdigit():
            continue
        out.append(w)
    return tuple(out)


# -- quantifier cues ----------------------------------------------------------------------------

#: Words that say "some" (∃) or "all" (∀). "Not all" is existential, and so is a possibility
#: ("it may get Monkeypox"); "there is no" is universal, and so is a conditional ("if someone is
#: angry, they yell").
_SOME = re.compile(
    r"\b(?:some(?:one|body|thing|where)?|there(?:'s|’s| is| are| was| were| exists?)(?! no\b)|exists?"
    r"|at least|not (?:all|every(?:one|thing)?)|may|might|one|two|three|four|five|several|many|a few)\b",
    re.IGNORECASE,
)
_ALL = re.compile(
    r"\b(?:all|every(?:one|body|thing)?|each|any(?:one|body|thing)?|no(?:ne|body|thing)?|never"
    r"|whoever|whatever|whenever|if|when)\b",
    re.IGNORECASE,
)


def quantifier_cue(sentence: str) -> str | None:
    """The quantifier a sentence's wording asks for: ∃ for "some", ∀ for "all", else None.

    >>> [quantifier_cue(s) for s in ("Some fish sting.", "Not all bears are wild.",
    ...     "There are no ghosts.", "All cats purr.", "Rappers release albums.",
    ...     "If someone is angry, they yell.")]
    ['∃', '∃', '∀', '∀', None, None]
    """
    some = _SOME.search(sentence) is not None
    negated = re.sub(r"\bnot (?:all|every(?:one|thing)?)\b", "", sentence, flags=re.IGNORECASE)
    every = _ALL.search(negated) is not None
    if some == every:
        return None
    return "∃" if some else "∀"


# -- connective cues ----------------------------------------------------------------------------

#: "either both … or neither" (in either order), or "either A and B, or (they are) neither A nor
#: B": the sentence asks for ↔, not ⊕.
BOTH_OR_NEITHER = re.compile(
    r"\bboth\b.*\bor\b.*\bneither\b|\bneither\b.*\bor\b.*\bboth\b"
    r"|\beither\b.*\band\b.*\bor\b.*\bneither\b",
    re.I,
)
