"""Where a formula disagrees with its sentence: one scored finding per kind of disagreement.

Each check compares the sentence's cues (`cues.Sentence`) with the formula's counts
(`shape.Shape`) and reports a `Mismatch` with a score in [0, 1]: how sure it is that the formula
does not say what the sentence says. Scores were set on FOLIO v2 *train* (see
`benchmarks/bench_alignment.py`): a kind that often fires on annotators' correct formulas scores
low, so it informs a reader without blaming the formula. The kinds:

- `negation_missing` / `negation_extra`: the sentence negates and the formula does not, or the
  reverse (a negative word absorbed into a name, `CanWatchWithout`, counts as a negation); also
  per side of a rule ("if not A, then not B" as `A → ¬B`);
- `quantifier`: ∀ where the sentence says "some", ∃ where it says "all" (or states a general
  fact), ∀ over a fact about a named thing ("Aberdeen has once won a cup");
- `and_as_or` / `or_as_and`: ∨ where the sentence has no "or" (a negated ∨ where it has no
  "nor" either; more ∨ than its "or"s and list commas), no ∨ where it has one;
- `exclusive_or`: ⊕ / ∨ / ↔ against "but not both", "or both", "both … or neither", "either";
- `implication_missing` / `implication_reversed`: "all A are B" or "if A then B" without →, or
  with its sides swapped (also "A only if B", "B if A"; read by the words one side of the
  sentence has alone: "all *sci-fi* movies are movies");
- `argument_order`: `R(b, a)` where the sentence reads "a … R … b" (and is not passive);
- `conjunct_missing`: a sentence joined by "and" written as a single atom;
- `word_unsymbolised`: a content word the story has a predicate for, absent from the formula (a
  dropped conjunct: "loyal and friendly" as `Loyal(x)`);
- `entity_unsymbolised`: a name the sentence says ("Baked by Melissa", a capitalised word that is
  no English word) that the story has as a constant, absent from the formula;
- `symbol_ungrounded`: a constant no word of the sentence names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from refinery.agents.alignment.cues import KINDS, NEGATION_WORDS, Sentence, denials, read_sentence
from refinery.agents.alignment.drift import near
from refinery.agents.alignment.shape import Atom, Shape
from refinery.agents.alignment.words import (
    content,
    english,
    joined,
    name_words,
    plain,
    same_word,
    tokens,
)

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
_NAME_NEGATIONS = frozenset({"not", "no", "non", "never", "without", "un", "dis", "lack", "free"})
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_EVERY = frozenset(
    {"all", "every", "each", "any", "everything", "everyone", "everybody", "anyone", "anything"}
)
_SAMENESS = frozenset({"same", "different", "distinct", "other", "another", "both"})
_CONDITIONAL_WORDS = frozenset({"only", "unless", "without", "except", "otherwise", "until"})
_RELATIVE = frozenset({"who", "that", "which", "whose", "whom", "where", "if", "when"})
_PASSIVE = frozenset({"by", "of", "in", "at", "to", "from", "for", "with", "on"})
_BE = frozenset({"is", "are", "was", "were", "be", "been", "being", "can", "could", "will", "do", "does", "did", "has", "have", "had", "would", "should", "may", "might", "must"})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One disagreement between a formula and its sentence."""

    kind: str
    score: float
    words: tuple[str, ...]  # the sentence's words involved
    symbols: tuple[str, ...]  # the formula's symbols involved
    message: str


def mismatches(
    sentence: Sentence,
    shape: Shape,
    story_predicates: Mapping[str, int] | None = None,
    story_constants: Iterable[str] = (),
) -> list[Mismatch]:
    """Every disagreement between `sentence` and the formula counted in `shape`, worst first.

    `story_predicates` are the predicates (name → arity) used anywhere in the item's story: a word
    one of them spells, but this formula does not use, is a dropped conjunct; likewise an entity
    the sentence names that has a constant elsewhere in the story (`story_constants`).
    """
    if sentence.empty:
        return []
    found = [
        *_negation(sentence, shape),
        *_quantifier(sentence, shape),
        *_connectives(sentence, shape),
        *_implication(sentence, shape),
        *_negated_condition(sentence, shape),
        *_negated_side(sentence, shape),
        *_argument_order(sentence, shape),
        *_unsymbolised(sentence, shape, story_predicates or {}),
        *_entities(sentence, shape, story_constants),
        *_ungrounded(sentence, shape),
    ]
    return sorted(found, key=lambda m: (-m.score, m.kind))


# -- negation ---------------------------------------------------------------------------------


def _negation(s: Sentence, f: Shape) -> list[Mismatch]:
    named = [a.name for a in f.atoms if not set(name_words(a.name)).isdisjoint(_NAME_NEGATIONS)]
    cues = [s.words[i] for i in s.negations]
    # "neither … nor" is one negation of an "or"
    count = len(cues) - (cues.count("nor") if s.neither_nor else 0)
    if f.double_negations:
        return [Mismatch("negation_extra", 0.9, (), (), "¬¬: a negation negated again")]
    if cues and f.negations == 0 and not named:
        # ⊕ says "not both" and ≠ says "not the same" without a ¬; two negations may cancel
        # ("no … without"), so an even count is weaker evidence
        implicit = (f.xors or f.distinct) and not _SAMENESS.isdisjoint(s.words)
        if count % 2 == 0 and _contrapositive(s, f):
            return []  # "if not A, then not B" written B → A: read right
        score = 0.4 if implicit else 0.85 if count % 2 else 0.6
        return [
            _missing(score, cues, f"the sentence says {cues[0]!r} but the formula negates nothing")
        ]
    if s.neither_nor and not s.both_or_neither and not f.negated_ors and f.negations < 2:
        return [_missing(0.7, cues, "'neither … nor' negates both, the formula does not")]
    if s.both_or_neither and not cues and f.negations > 1:
        return [
            Mismatch("negation_extra", 0.6, ("neither",), (), "'both … or neither' is ¬(A ⊕ B); "
                     f"the formula has {f.negations} negations")
        ]  # fmt: skip
    unnegated = _prefixed(s, f, negative=False)
    if unnegated and not _prefixed(s, f, negative=True):
        return [
            _missing(0.7, (unnegated[0][0],), f"{unnegated[0][0]!r} is not-{unnegated[0][1]}, "
                     "the formula states it un-negated")
        ]  # fmt: skip
    if not cues and f.negations > 0 and not _negative_wording(s, f):
        negated = tuple(dict.fromkeys(a.name for a in f.atoms if a.negative))
        # ¬High for "low": an antonym the sentence uses instead of the predicate's own word
        stated = all(_stated(s, f, a) for a in f.atoms if a.negative)
        return [
            Mismatch(
                "negation_extra",
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
            Mismatch(
                "negation_extra",
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
        return _position(s, atom.name) is not None
    named = [a for a in atom.args if a in f.constants]
    return bool(named) and all(_position(s, a) is not None for a in named)


def _missing(score: float, cues: Sequence[str], message: str) -> Mismatch:
    return Mismatch("negation_missing", score, tuple(cues), (), message)


def _prefixed(s: Sentence, f: Shape, *, negative: bool) -> list[tuple[str, str]]:
    """(word, predicate) pairs where a word is a negative prefix on a predicate's word
    ("unsanctioned" for `Sanctioned`), among the atoms of the given polarity."""
    whole = {w for a in f.atoms for w in content(name_words(a.name))}
    out = []
    for atom in f.atoms:
        if atom.negative != negative:
            continue
        words = content(name_words(atom.name))
        for word in s.words:
            if any(same_word(word, w) for w in whole):
                continue  # `Invertebrate` names "invertebrates" whole
            for prefix in ("un", "non", "dis", "in", "im", "il", "ir"):
                stem = word[len(prefix) :]
                stated = word.startswith(prefix) and len(stem) >= 4
                if stated and any(same_word(stem, w) for w in words):
                    out.append((word, atom.name))
    return out


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


# -- quantifiers ------------------------------------------------------------------------------


def _quantifier(s: Sentence, f: Shape) -> list[Mismatch]:
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
            Mismatch("quantifier", 0.7, (), ("∃", "→"), "∃x (A → B) holds of anything that is not "
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
            Mismatch(
                "implication_missing",
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


def _q(score: float, words: Sequence[str], symbol: str, message: str) -> Mismatch:
    return Mismatch("quantifier", score, tuple(words), (symbol,), message)


# -- connectives ------------------------------------------------------------------------------


def _connectives(s: Sentence, f: Shape) -> list[Mismatch]:
    out: list[Mismatch] = []
    plain_ors = f.ors - f.negated_ors - f.negative_ors  # ¬A ∨ ¬B may be "not both A and B"
    # "Students and teachers are card holders" is ∀x (S(x) ∨ T(x) → C(x)): an "and" of a
    # rule's subjects is a ∨ in its condition
    clause = next((i for i, w in enumerate(s.words) if w in _RELATIVE), len(s.words))
    plain_ors -= min(f.condition_ors, sum(1 for i in s.ands if i < clause))
    if f.implications and (":" in s.text or not KINDS.isdisjoint(s.words)):
        # "There are three types of X: A, B, and C" is ∀x (X(x) → A(x) ∨ B(x) ∨ C(x)): the
        # "and" lists the kinds an X may be
        plain_ors -= f.ors - f.condition_ors
    disjunctive = s.ors or s.either or s.unless or "whether" in s.words
    if plain_ors > 0 and not disjunctive:
        out.append(
            Mismatch(
                "and_as_or",
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
            Mismatch(
                "and_as_or",
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
            Mismatch(
                "and_as_or",
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
            Mismatch(
                "conjunct_missing",
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
            Mismatch(
                "or_as_and",
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
    elif s.either and f.ors and not f.xors and not f.iffs and not s.neither_nor:
        # FOLIO writes "either … or" as ⊕ (194 of 203 formulas in v2)
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


def _x(score: float, words: tuple[str, ...], symbol: str, message: str) -> Mismatch:
    return Mismatch("exclusive_or", score, words, (symbol,), message)


# -- implication ------------------------------------------------------------------------------


def _implication(s: Sentence, f: Shape) -> list[Mismatch]:
    sides = _clauses(s)
    score = 0.6
    if sides is None and f.implications and f.universal:
        # a rule's direction only: "A is B" may as well be a fact, or a definition that holds
        # both ways ("a werewolf is a human who turns into a wolf")
        sides, score = _generic(s), 0.55
    if sides is None and f.implications and f.universal:
        return _lead_order(s, f)
    if sides is None:
        return []
    condition, result = sides
    if not f.implications:
        if f.iffs or f.ors or not f.universal:
            return []  # ¬A ∨ B, A ↔ B, or a ground statement: no rule to check
        return [
            Mismatch(
                "implication_missing",
                0.6,
                tuple(condition[:3]),
                (),
                "the sentence states a rule (if / all) but the formula has no →",
            )
        ]
    rule = f.implications[0]
    if _contrapositive(s, f):
        return []  # "if not A, then not B" written B → A: read right
    # names on one side only: a predicate or a constant on both sides (`RoomFor(x, dessert) →
    # RoomFor(x, broccoli)`, `Like(susan, …)` → `Student(susan)`) says nothing about direction
    constants = rule.antecedent_constants | rule.consequent_constants
    shared = (
        (rule.antecedent & rule.consequent)
        | (rule.antecedent_constants & rule.consequent_constants)
        | {c for c in constants for d in constants if c != d and near(c, d)}  # spelled two ways
    )
    ante = (rule.antecedent | rule.antecedent_constants) - shared
    cons = (rule.consequent | rule.consequent_constants) - shared
    straight = _fit(ante, condition) + _fit(cons, result)
    swapped = _fit(ante, result) + _fit(cons, condition)
    # the words one side of the sentence has and the other lacks ("all *sci-fi* movies are
    # movies"): a rule whose sides fit only the other way round is reversed
    only_condition = [w for w in joined(condition) if not any(same_word(w, r) for r in result)]
    only_result = [w for w in joined(result) if not any(same_word(w, c) for c in condition)]
    exclusive = _fit(cons, only_condition) > 0 and not (
        _fit(ante, only_condition) or _fit(cons, only_result)
    )
    if (swapped > straight + 1 and _fit(cons, condition) > 0) or exclusive:
        return [
            Mismatch(
                "implication_reversed",
                score,
                tuple(condition[:3]),
                tuple(sorted(rule.consequent)),
                "the formula's → runs the other way from the sentence's condition",
            )
        ]
    return []


def _lead_order(s: Sentence, f: Shape) -> list[Mismatch]:
    """ "All endothermic animals produce heat": no copula to split at, but the words of the
    rule's condition come first; a formula whose result's words all come first is reversed."""
    if not any(i <= 1 and s.words[i] in _EVERY for i in s.universal):
        return []
    rule = f.implications[0]
    if rule.antecedent & rule.consequent:
        return []
    ante = [p for name in rule.antecedent if (p := _position(s, name)) is not None]
    cons = [p for name in rule.consequent if (p := _position(s, name)) is not None]
    if ante and cons and max(cons) < min(ante):
        return [
            Mismatch(
                "implication_reversed",
                0.6,
                tuple(s.words[i] for i in sorted(cons)[:3]),
                tuple(sorted(rule.consequent)),
                "the formula's → runs the other way: the sentence names its result first",
            )
        ]
    return []


def _contrapositive(s: Sentence, f: Shape) -> bool:
    """ "If A is not B, C never does D" as `∀x (D → B)`: both sides negated in the sentence, and
    a rule with no ¬ on either side in the formula — the contrapositive, read right."""
    sides = _clauses(s)
    if sides is None or not f.implications:
        return False
    rule = f.implications[0]
    negated = [not NEGATION_WORDS.isdisjoint(side) for side in sides]
    return all(negated) and not (rule.negated_antecedent or rule.negated_consequent)


def _negated_condition(s: Sentence, f: Shape) -> list[Mismatch]:
    """ "No reptile has fur" as ∀x (¬Fur(x) → Reptile(x)): the sentence's negation sits in the
    result (or the subject), but the formula negates only the rule's condition."""
    if not s.negations or s.conditional or not _CONDITIONAL_WORDS.isdisjoint(s.words):
        return []
    relative = any(
        not _RELATIVE.isdisjoint(s.words[max(0, i - 3) : i]) for i in s.negations
    )  # "students who do not study": a negated condition
    for rule in f.implications:
        if rule.negated_antecedent and not rule.negated_consequent and not relative:
            return [
                Mismatch(
                    "implication_reversed",
                    0.6,
                    tuple(s.words[i] for i in s.negations),
                    tuple(sorted(rule.antecedent)),
                    "the sentence negates its result, the formula only the rule's condition",
                )
            ]
    return []


def _negated_side(s: Sentence, f: Shape) -> list[Mismatch]:
    """ "If John is not a PhD student, he is not a member" as `PhDStudent(john) → ¬Member(john)`:
    a side of the rule that the sentence negates, written without a ¬ (nor a negative name) —
    unless the formula negates the other side instead, which may be the contrapositive."""
    sides = _clauses(s)
    if sides is None or len(f.implications) != 1 or f.negations == 0:
        return []  # no ¬ at all is `_negation`'s case
    rule = f.implications[0]
    said = [denials(side) for side in sides]
    written = [
        negated or any(not _NAME_NEGATIONS.isdisjoint(name_words(p)) for p in predicates)
        for negated, predicates in (
            (rule.negated_antecedent, rule.antecedent),
            (rule.negated_consequent, rule.consequent),
        )
    ]
    for k, name in ((0, "condition"), (1, "result")):
        if said[k] and not written[k] and not (written[1 - k] and not said[1 - k]):
            return [
                _missing(0.6, said[k], f"the sentence negates the rule's {name} "
                         f"({said[k][0]!r}), the formula does not")
            ]  # fmt: skip
    return []


def _clauses(s: Sentence) -> tuple[list[str], list[str]] | None:
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
    lead = [i for i in s.universal if s.words[i] in _EVERY]
    if lead and lead[0] <= 1:
        rest = words[lead[0] + 1 :]
        verbs = [j for j, w in enumerate(rest) if w in _BE]
        if verbs and not _RELATIVE.isdisjoint(rest[: verbs[0]]):
            verbs = verbs[-1:]  # "all squirrels that can be spotted … are skittish": the last verb
        if verbs and verbs[0]:
            split = verbs[0]
            while split and (rest[split - 1] in _BE or rest[split - 1] in ("not", "never")):
                split -= 1  # "everyone that is entitled … can not be deprived": the result's
            return rest[:split], rest[verbs[0] + 1 :]  # "All A are B"
    return None


def _generic(s: Sentence) -> tuple[list[str], list[str]] | None:
    """ "A roundel is a rounded fortification": a copula's subject is the rule's condition."""
    if s.conditional or s.universal or s.existential or s.negations:
        return None
    words = list(s.words)
    verb = next((j for j, w in enumerate(words) if w in ("is", "are")), None)
    return (words[:verb], words[verb + 1 :]) if verb else None


def _fit(predicates: Iterable[str], words: Sequence[str]) -> int:
    """How many of the predicates' content words appear among `words`."""
    body = content(list(words))
    return sum(
        1 for p in predicates for w in content(name_words(p)) if any(same_word(w, b) for b in body)
    )


# -- arguments --------------------------------------------------------------------------------


def _argument_order(s: Sentence, f: Shape) -> list[Mismatch]:
    out = []
    for atom in f.atoms:
        if len(atom.args) != 2 or atom.args[0] == atom.args[1]:
            continue
        first, second = (_term_position(s, f, arg) for arg in atom.args)
        if first is None or second is None:
            continue
        if name_words(atom.name)[-1:] == ["by"]:
            # `AnnouncedBy(weTab, neofonie)`: "WeTab was announced by Neofonie" puts the first
            # argument before "by", the second after; the active "Neofonie announced WeTab"
            # turns it, so only a sentence with "by" between them is read
            if second < first and "by" in s.words[second:first]:
                out.append(_order(s, atom, first, second))
            continue
        if second >= first:
            continue
        before, after = s.words[second - 1 : second], s.words[second + 1 : second + 2]
        if "by" in s.words[second:first] or before in (("of",), ("by",)) or after == ("s",):
            continue  # passive ("made by b"), "the son of b, a", "b's album a"
        verb = _position(s, atom.name)
        # "the lead single of b is a": the predicate's word before both names says nothing
        if verb is not None and not second < verb < first:
            continue
        if verb is not None or all(a in f.constants for a in atom.args):
            out.append(_order(s, atom, first, second))
    return out


def _order(s: Sentence, atom: Atom, first: int, second: int) -> Mismatch:
    return Mismatch(
        "argument_order",
        0.5,
        (s.words[second], s.words[first]),
        (atom.name,),
        f"{atom.name}({', '.join(atom.args)}): the sentence puts {atom.args[1]} before "
        f"{atom.args[0]}",
    )


def reads_swapped(sentence: str, formula_shape: Shape, predicate: str) -> bool:
    """Whether the sentence's word order alone says an atom of `predicate` has its arguments
    the wrong way round: the tie-break for a story that puts a constant in both places."""
    found = _argument_order(read_sentence(sentence), formula_shape)
    return any(m.symbols == (predicate,) for m in found)


def _term_position(s: Sentence, f: Shape, term: str) -> int | None:
    """Where the sentence names a term: a constant by its words; a variable by the words of the
    one-place predicates the formula applies to it ("writers" for `x` in `Writer(x)`), or, for
    the formula's outermost variable, by the quantifier cue that opens the sentence ("if
    someone", "some people")."""
    if term in f.constants:
        return _position(s, term)
    found = [_position(s, a.name) for a in f.atoms if a.args == (term,)]
    if term == f.subject:
        cues = [i for i in (*s.universal, *s.existential, *s.conditional) if i <= 1]
        found += cues[:1]
    return min((p for p in found if p is not None), default=None)


def _position(s: Sentence, name: str) -> int | None:
    """Where the sentence first uses a word of `name` (content words only)."""
    wanted = content(name_words(name))
    whole = "".join(name_words(name))  # `weTab` for "WeTab", `playStation` for "PlayStation"
    for i, word in enumerate(s.words):
        if word == whole or any(same_word(word, w) for w in wanted):
            return i
    return None


# -- content ----------------------------------------------------------------------------------


def _unsymbolised(s: Sentence, f: Shape, story_predicates: Mapping[str, int]) -> list[Mismatch]:
    """Story predicates whose words the sentence says and this formula leaves out.

    Scored by how much the shape supports a dropped conjunct: the word is a list item ("loyal
    and friendly", 0.6) or sits right beside a word this formula symbolises as a one-place atom
    ("unannounced program", 0.55) — then `restore_conjunct` can put it back — else 0.45.
    """
    own = {w for name in (*f.predicates, *f.constants, *f.functions) for w in name_words(name)}
    unary = {w for a in f.atoms if len(a.args) == 1 for w in content(name_words(a.name))}
    out = []
    for predicate, arity in story_predicates.items():
        if predicate in f.predicates:
            continue
        words = content(name_words(predicate))
        if not words or all(any(same_word(w, o) for o in own) for w in words):
            continue  # this formula spells the same words otherwise
        starts = [
            i
            for i in range(len(s.words) - len(words) + 1)
            if all(same_word(w, p) for w, p in zip(s.words[i:], words, strict=False))
        ]
        if not starts:
            continue
        score = 0.45
        for i in starts:
            end = i + len(words) - 1
            listed = {s.words[j] for j in (i - 1, end + 1) if 0 <= j < len(s.words)}
            beside = [s.words[j] for j in (i - 1, end + 1) if 0 <= j < len(s.words)]
            if arity == 1 and listed & {"and", "or"}:
                score = max(score, 0.6)
            elif arity == 1 and any(same_word(b, u) for b in beside for u in unary):
                score = max(score, 0.55)
        out.append(
            Mismatch(
                "word_unsymbolised",
                score,
                tuple(words),
                (predicate,),
                f"the sentence says {' '.join(words)!r} and the story has {predicate}, "
                "but this formula leaves it out",
            )
        )
    return out


def _entities(s: Sentence, f: Shape, story_constants: Iterable[str]) -> list[Mismatch]:
    own = {w for name in (*f.predicates, *f.constants, *f.functions) for w in name_words(name)}
    raw = _WORD.findall(plain(s.text))
    # capitals mid-sentence, or a first word that is no English word ("Xiufeng, Xiangshan …
    # are districts"): every sentence capitalises its first word ("Music …")
    proper = {w.lower() for w in raw[1:] if w[0].isupper()}
    proper |= {w.lower() for w in raw[:1] if w[0].isupper() and not english(w.lower())}
    body = content(list(s.words))  # "Baked by Melissa", "Yale's varsity team": content words
    out = []
    for constant in story_constants:
        parts = content(name_words(constant))
        if constant in f.constants or not parts:
            continue
        if any(p in own for p in parts):
            continue  # this formula spells (part of) the entity otherwise: `ann` for annJLand
        if any(near(constant, c) for c in f.constants):
            continue  # spelled another way here: a name drift, not a missing entity
        # a name of two words or more, or one word the sentence capitalises
        named = _phrase_at(body, parts) if len(parts) > 1 else parts[0] in proper
        if named:
            out.append(
                Mismatch(
                    "entity_unsymbolised",
                    0.5,
                    tuple(parts),
                    (constant,),
                    f"the sentence names {' '.join(parts)!r}, the story's {constant}, "
                    "but this formula leaves it out",
                )
            )
    return out


def _phrase_at(words: Sequence[str], parts: Sequence[str]) -> bool:
    n = len(parts)
    return any(
        all(same_word(a, b) for a, b in zip(words[i : i + n], parts, strict=True))
        for i in range(len(words) - n + 1)
    )


def _ungrounded(s: Sentence, f: Shape) -> list[Mismatch]:
    out = []
    for constant in f.constants:
        parts = content(name_words(constant))
        if parts and _position(s, constant) is None:
            out.append(
                Mismatch(
                    "symbol_ungrounded",
                    0.3,
                    (),
                    (constant,),
                    f"no word of the sentence names {constant}",
                )
            )
    return out
