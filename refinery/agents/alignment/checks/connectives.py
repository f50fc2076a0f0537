"""`and_as_or` / `or_as_and` / `exclusive_or` / `conjunct_missing`: the formula's connectives
against the sentence's.

∨ where the sentence has no "or" (a negated ∨ where it has no "nor" either; more ∨ than its
"or"s and list commas), no ∨ where it has one; ⊕ / ∨ / ↔ against "but not both", "or both",
"both … or neither", "either"; a sentence joined by "and" written as a single atom.
"""

from __future__ import annotations

from refinery.agents.alignment.checks.common import RELATIVE, Story
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import KINDS, Sentence
from refinery.agents.reading.words import content, name_words, same_word

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (
    FindingKind.AND_AS_OR,
    FindingKind.OR_AS_AND,
    FindingKind.CONJUNCT_MISSING,
    FindingKind.EXCLUSIVE_OR,
)


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """Connectives the formula writes and the sentence does not say, or the reverse."""
    out: list[Finding] = []
    plain_ors = f.ors - f.negated_ors - f.negative_ors  # ¬A ∨ ¬B may be "not both A and B"
    # "Students and teachers are card holders" is ∀x (S(x) ∨ T(x) → C(x)): an "and" of a
    # rule's subjects is a ∨ in its condition
    clause = next((i for i, w in enumerate(s.words) if w in RELATIVE), len(s.words))
    plain_ors -= min(f.condition_ors, sum(1 for i in s.ands if i < clause))
    if f.implications and (":" in s.text or not KINDS.isdisjoint(s.words)):
        # "There are three types of X: A, B, and C" is ∀x (X(x) → A(x) ∨ B(x) ∨ C(x)): the
        # "and" lists the kinds an X may be
        plain_ors -= f.ors - f.condition_ors
    disjunctive = s.ors or s.either or s.unless or "whether" in s.words
    if plain_ors > 0 and not disjunctive:
        out.append(
            Finding(
                FindingKind.AND_AS_OR,
                0.8,
                tuple(s.words[i] for i in s.ands),
                ("∨",),
                "the formula says ∨ but the sentence has no 'or'",
            )
        )
    elif f.negated_ors and not disjunctive and "neither" not in s.words:
        # "No fears lead to terror" as ¬(Terror(y) ∨ LeadTo(x, y)): ¬(A ∨ B) is "neither A nor
        # B", and the sentence says neither "or" nor "nor"
        out.append(
            Finding(
                FindingKind.AND_AS_OR,
                0.6,
                tuple(s.words[i] for i in s.negations),
                ("¬∨",),
                "the formula negates an ∨ but the sentence has no 'or' or 'nor'",
            )
        )
    elif s.ors and not s.either and f.or_links > len(s.ors) + s.text.count(",") + len(s.ands):
        # "a creepy haunted house or a terrifying building on Halloween" as A ∨ B ∨ C: more ∨
        # than the sentence has "or"s and list commas (or "and"s, which a rule's condition and
        # a classification may write as ∨)
        out.append(
            Finding(
                FindingKind.AND_AS_OR,
                0.55,
                ("or",),
                ("∨",),
                f"the formula has {f.or_links} ∨, the sentence {len(s.ors)} 'or' and no list",
            )
        )
    joined = f.ands + f.ors + f.xors + f.iffs + len(f.implications)
    if s.ands and not joined and not f.universal and not f.existential and not _and_named(s, f):
        # "Philip applied for a visa and got it" as one atom: a conjunct was dropped
        out.append(
            Finding(
                FindingKind.CONJUNCT_MISSING,
                0.6,
                ("and",),
                (),
                "the sentence joins with 'and', the formula states a single fact",
            )
        )
    # "not A or B" is ¬A ∧ ¬B: an "or" a negation stands right before is no inclusive or
    governed = any(0 < o - n <= 4 for o in s.ors for n in s.negations)
    inclusive = s.ors and not s.neither_nor and "whether" not in s.words and not governed
    said = sum(1 for i in s.ors if s.words[i] == "or" and s.words[i + 1 : i + 2] != ("both",))
    if inclusive and said > f.or_links + f.xors + f.iffs and f.ands:
        out.append(
            Finding(
                FindingKind.OR_AS_AND,
                0.6,
                ("or",),
                ("∧",),
                f"the sentence says 'or' {said} times, the formula has fewer ∨, ⊕ or ↔",
            )
        )
    if s.not_both and f.ors and not f.xors:
        out.append(_x(0.7, ("not", "both"), "∨", "'but not both' is ⊕, the formula says ∨"))
    elif s.or_both and f.xors:
        out.append(_x(0.7, ("or", "both"), "⊕", "'or both' is ∨, the formula says ⊕"))
    elif s.both_or_neither and f.xors and not f.negations:
        out.append(
            _x(0.8, ("both", "neither"), "⊕", "'both … or neither' is ↔, the formula says ⊕")
        )
    elif s.either and f.ors and not (f.xors or f.iffs or s.neither_nor or s.or_both):
        # FOLIO writes "either … or" as ⊕ (194 of 203 formulas in v2); "either …, or both"
        # says ∨ itself
        out.append(
            _x(0.55, ("either", "or"), "∨", "'either … or' is read as ⊕, the formula says ∨")
        )
    elif f.xors and s.ors and not s.either and not s.not_both:
        # FOLIO writes a plain "or" as ∨ (118 of 137 formulas in v2)
        out.append(_x(0.5, ("or",), "⊕", "a plain 'or' is inclusive (∨), the formula says ⊕"))
    return out


def _and_named(s: Sentence, f: Shape) -> bool:
    """Whether the formula's names account for the sentence's "and": a name that spells it
    (`contributionsToAlgebraAndGraphTheory`), or two of its constants joined by it ("Real Madrid
    and Atlético Madrid did not …" as a relation between them)."""
    names = (*f.predicates, *f.constants, *f.functions)
    if any("and" in name_words(name) for name in names):
        return True
    for i in s.ands:
        left, right = s.words[max(0, i - 3) : i], s.words[i + 1 : i + 4]
        sides = [
            any(same_word(w, c) for w in side for n in f.constants for c in content(name_words(n)))
            for side in (left, right)
        ]
        if all(sides):
            return True
    return False


def _x(score: float, words: tuple[str, ...], symbol: str, message: str) -> Finding:
    return Finding(FindingKind.EXCLUSIVE_OR, score, words, (symbol,), message)
