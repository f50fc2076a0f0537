"""Names that drift across a story beyond case: `IsNovel`/`Novel`, `stPierre`/`pierre`, `lifeOf`/`liveOf`.

Two names of one kind (and arity) are near-duplicates when they differ only in case, by a plural
ending, by filler words (`Is`, `st`), by at most two letters in one word of four letters or
more, or by the last letter of a short word that only one of the spellings has in the sentences
(`InNF`/`InNFL` beside "NFL", `CanD`/`CanDo` beside "can do") — unless the sentences use both
spellings as distinct words (`Dessert`/`Desert`), which makes them two names, or the difference
is a number (`year2010`/`year2012`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from refinery.agents.reading.words import FUNCTION_WORDS, name_words, same_word


@dataclass(frozen=True, slots=True)
class Drift:
    """Two spellings of what looks like one name."""

    kind: str  # "predicate" or "constant"
    arity: int
    first: str
    second: str


#: Pairs grow with the square of the names: past this many (a FOLIO story has a few dozen) the
#: search is skipped rather than costing a minute per item on a generated or corrupted story.
MAX_NAMES = 500


def near_duplicates(
    names: Iterable[tuple[str, str, int]], sentence_words: Iterable[str] = ()
) -> list[Drift]:
    """Every pair of `(kind, name, arity)` that look like one name spelled two ways.

    >>> found = near_duplicates([("predicate", "IsNovel", 1), ("predicate", "Novel", 1),
    ...     ("constant", "stPierre", 0), ("constant", "pierre", 0), ("predicate", "lifeOf", 2),
    ...     ("predicate", "liveOf", 2), ("predicate", "Student", 1), ("predicate", "Students", 1)])
    >>> [(d.first, d.second) for d in found]
    [('pierre', 'stPierre'), ('IsNovel', 'Novel'), ('Student', 'Students'), ('lifeOf', 'liveOf')]
    >>> [(d.first, d.second) for d in near_duplicates(
    ...     [("predicate", "InNF", 2), ("predicate", "InNFL", 2)], ["in", "the", "nfl"])]
    [('InNF', 'InNFL')]
    """
    words = list(sentence_words)
    unique = sorted(set(names))
    if len(unique) > MAX_NAMES:
        return []
    out = []
    for i, (kind, a, arity) in enumerate(unique):
        for kind_b, b, arity_b in unique[i + 1 :]:
            if (kind_b, arity_b) != (kind, arity):
                continue
            if not near(a, b) and not _clipped(a, b, words):
                continue
            if _two_words(a, b, words):
                continue
            out.append(Drift(kind, arity, a, b))
    return sorted(out, key=lambda d: (d.kind, d.first, d.second))


#: Words a name may carry or drop without changing what it names.
_FILLERS = frozenset(
    {"is", "are", "was", "be", "a", "an", "the", "has", "have", "does", "do", "st"}
)


def near(a: str, b: str) -> bool:
    """Whether two names look like one name spelled two ways (see the module)."""
    la, lb = a.lower(), b.lower()
    if la == lb or la.rstrip("s") == lb.rstrip("s"):
        return True  # roderickStrong / roderickstrong, Visual / Visuals
    wa, wb = name_words(a), name_words(b)
    if any(w.isdigit() for w in set(wa) ^ set(wb)):
        return False  # `catullus4` is not `catullus`; `year2010` is not `year2012`
    core_a = [w for w in wa if w not in _FILLERS]
    core_b = [w for w in wb if w not in _FILLERS]
    if core_a and core_a == core_b:
        return True  # IsNovel / Novel, stPierre / pierre
    if len(wa) != len(wb):
        return False
    differ = [(x, y) for x, y in zip(wa, wb, strict=True) if x != y]
    if len(differ) != 1:
        return False
    x, y = differ[0]
    # one word misspelt (Consituent / Constituent, life / live): not a preposition swapped
    return (
        x not in FUNCTION_WORDS
        and y not in FUNCTION_WORDS
        and min(len(x), len(y)) >= 4
        and x[0] == y[0]
        and edit_distance(x, y) <= 2
    )


def _clipped(a: str, b: str, sentence_words: list[str]) -> bool:
    """Whether the names differ by the last letter of one word (`NF`/`NFL`, `D`/`Do`) and the
    sentences say only the longer word: the shorter is a slip of the key, not a word."""
    wa, wb = name_words(a), name_words(b)
    if len(wa) != len(wb) or len(wa) < 2:
        return False  # a one-word name cut short is as likely another word (`Pet`/`Pets` aside)
    differ = [(x, y) for x, y in zip(wa, wb, strict=True) if x != y]
    if len(differ) != 1:
        return False
    short, long = sorted(differ[0], key=len)
    if long[:-1] != short or not long[-1].isalpha():
        return False
    return long in sentence_words and short not in sentence_words


def _two_words(a: str, b: str, sentence_words: list[str]) -> bool:
    """Whether the sentences use distinct words for both names (then they are two names)."""
    wa = {w for w in name_words(a) if w not in FUNCTION_WORDS}
    wb = {w for w in name_words(b) if w not in FUNCTION_WORDS}
    only_a, only_b = wa - wb, wb - wa
    if not only_a or not only_b:
        return False
    used = set(sentence_words)
    return all(any(same_word(w, u) for u in used) for w in only_a | only_b) and not any(
        same_word(x, y) for x in only_a for y in only_b
    )


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions), case-sensitive.

    >>> edit_distance("stephencurRy", "stephencurry"), edit_distance("stephencurRy", "stephenCurry")
    (1, 2)
    """
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]
