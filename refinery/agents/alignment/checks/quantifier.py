"""`quantifier`: ∀ where the sentence says "some", ∃ where it says "all" (or states a general
fact), ∀ over a fact about a named thing ("Aberdeen has once won a cup"); and
`implication_missing` for `∀x (A(x) ∧ B(x))`, which says everything is an A.
"""

from __future__ import annotations

from collections.abc import Sequence

from refinery.agents.alignment.checks.common import Story
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.QUANTIFIER, FindingKind.IMPLICATION_MISSING)


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """Binders of a kind the sentence's wording does not ask for; `∀x (A ∧ B)` for a rule."""
    # "if someone is angry, they yell", "someone who is angry yells": someone is anyone
    rule = bool(s.conditional) or s.words[1:2] in (("who",), ("that",))
    some = [] if rule else [s.words[i] for i in s.existential]
    none = ("no", "none", "nobody", "nothing")
    every = [s.words[i] for i in s.universal if s.words[i] not in none]
    nothing = [s.words[i] for i in s.universal if s.words[i] in none]
    # a cue that opens the sentence quantifies its subject, and so the formula's first binder
    lead_some = bool(some) and s.existential[0] <= 1
    lead_every = any(i <= 1 and s.words[i] in ("all", "every", "each") for i in s.universal)
    if some and not every and f.universal and not f.existential:
        return [_q(0.8, some, "∀", f"the sentence says {some[0]!r} (∃) but the formula says ∀")]
    if lead_every and not some and f.existential and not f.universal and not _not_all(s):
        return [_q(0.8, every, "∃", f"the sentence says {every[0]!r} (∀) but the formula says ∃")]
    if lead_some and not lead_every and f.outer == "∀":
        return [_q(0.7, some, "∀", f"the sentence opens with {some[0]!r} (∃), the formula with ∀")]
    if lead_every and not lead_some and f.outer == "∃" and not _not_all(s):
        return [
            _q(0.7, every, "∃", f"the sentence opens with {every[0]!r} (∀), the formula with ∃")
        ]
    if f.exists_rules:
        return [
            Finding(FindingKind.QUANTIFIER, 0.7, (), ("∃", "→"), "∃x (A → B) holds of anything that is not "
                     "an A: a rule wants ∀, 'some' wants ∧")
        ]  # fmt: skip
    if nothing and not some and f.existential and not f.universal and not _not_all(s):
        # "no bird can fly" is ∀¬ (or ¬∃); ¬∀ says only "not every bird can fly"
        return [
            _q(0.8, nothing, "∃", f"the sentence says {nothing[0]!r} (none at all) but the "
               "formula says only 'not all' (∃)")
        ]  # fmt: skip
    if rule and not s.existential and f.existential and not f.universal and not f.constants:
        return [_q(0.6, ("if",), "∃", "the sentence states a rule (if) but the formula says ∃")]
    if f.forall_conjunctions and not s.existential:
        return [
            Finding(
                FindingKind.IMPLICATION_MISSING,
                0.6,
                tuple(every),
                ("∧",),
                "∀x (A(x) ∧ B(x)) says everything is an A: a rule wants →",
            )
        ]
    ground = f.constants and not (f.implications or f.iffs or f.ors or f.xors or f.existential)
    if ground and f.universal and not (s.universal or s.conditional or s.negations or rule):
        # "Aberdeen has once won a cup" as ∀x WonCup(aberdeen, x): a fact about a named thing,
        # with no "all", "every" or "if", made a claim about everything
        return [
            _q(0.6, (), "∀", f"the sentence states a fact about {f.constants[0]}, the formula "
               "makes it hold for everything (∀)")
        ]  # fmt: skip
    generic = not some and not every and not f.constants and f.existential and not f.universal
    if generic and not s.negations:
        return [_q(0.55, (), "∃", "the sentence states a general fact but the formula says ∃")]
    return []


def _not_all(s: Sentence) -> bool:
    """ "not all" / "not every": existential in effect."""
    return any(s.words[i - 1 : i] == ("not",) for i in s.universal)


def _q(score: float, words: Sequence[str], symbol: str, message: str) -> Finding:
    return Finding(FindingKind.QUANTIFIER, score, tuple(words), (symbol,), message)
