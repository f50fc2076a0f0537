"""`unify_names`: rewrite the minority spelling of a name spelled two ways to the majority one.

Spellings are compared within one kind (predicates of one arity, constants): case, plural, one
typo (`spelled_alike`). Which spelling wins is decided by evidence (`_preference`): how many
formulas use it, FOLIO's case convention, the sentences' words. A tie is left alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from refinery.agents.alignment.drift import MAX_NAMES, edit_distance
from refinery.agents.models import ErrorClass, ItemContext, Where
from refinery.agents.reading.spelling import Words
from refinery.agents.reading.words import CAMEL_WORDS
from refinery.agents.repairs.edits import (
    MAX_CANDIDATES,
    Candidate,
    RuleTag,
    parsed_fields,
    rewrite_item,
    splice,
    unique_candidates,
)
from refinery.agents.repairs.located import item_texts, name_uses
from refinery.logic.analysis import SymbolKind
from refinery.logic.syntax import Formula

TAG = RuleTag("unify_names", ErrorClass.NAMING_DRIFT)


def single_edit(a: str, b: str) -> tuple[int, str, str] | None:
    """The one edit that turns `a` into `b`, as (position, removed, inserted), if there is one.

    >>> single_edit("Studen", "Student"), single_edit("towerA", "towerB"), single_edit("ab", "ba")
    ((6, '', 't'), (5, 'A', 'B'), None)
    """
    if a == b:
        return None
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j] == b[-1 - j]:
        j += 1
    removed, inserted = a[i : len(a) - j], b[i : len(b) - j]
    return (i, removed, inserted) if len(removed) <= 1 and len(inserted) <= 1 else None


def _plural(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    return len(short) >= 3 and (
        long in {short + "s", short + "es"} or (short.endswith("y") and long == short[:-1] + "ies")
    )


def spelled_alike(a: str, b: str, kind: SymbolKind) -> bool:
    """Whether `a` and `b` look like two spellings of one name.

    Case-only differences, plurals (`Dance`/`Dances`), and one edit between names of at least
    five characters (`Studen`/`Student`) — but not a digit (`year2010`/`year2012`), not the
    last character replaced (`towerA`/`towerB`: an index) and not the first character
    (`Phone`/`IPhone`, `J1Visa`/`F1Visa`: another word); for constants also one letter in
    front of a number (`y1984`/`1984`).

    >>> spelled_alike("roderickstrong", "roderickStrong", "constant")
    True
    >>> spelled_alike("Studen", "Student", "predicate"), spelled_alike("Student", "StudentAt", "predicate")
    (True, False)
    >>> spelled_alike("year2010", "year2012", "constant"), spelled_alike("y1984", "1984", "constant")
    (False, True)
    >>> spelled_alike("towerA", "towerB", "constant"), spelled_alike("Phone", "IPhone", "predicate")
    (False, False)
    """
    if a == b:
        return False
    if a.lower() == b.lower() or _plural(a, b) or _plural(a.lower(), b.lower()):
        return True
    edit = single_edit(a, b)
    if edit is None:
        return False
    at, removed, inserted = edit
    if kind == "constant":
        short, long = sorted((a, b), key=len)
        if short.isdigit() and len(long) == len(short) + 1 and long[0].isalpha():
            return True
    if min(len(a), len(b)) < 5 or any(ch.isdigit() for ch in removed + inserted):
        return False
    # the first letter starts the name and a replaced last one is an index (towerA/towerB)
    return at != 0 and not (removed and inserted and at == len(a) - 1)


def _both_in_nl(a: str, b: str, words: Words) -> bool:
    """Whether the sentences use every word of two look-alike names: two concepts, not a typo.

    Case and plural variants are one concept whatever the sentences say.

    >>> w = Words.of("Desserts are not deserts; students.")
    >>> _both_in_nl("Dessert", "Desert", w), _both_in_nl("Studen", "Student", w)
    (True, False)
    """
    if a.lower() == b.lower() or _plural(a.lower(), b.lower()):
        return False
    return all(words.known(w) for name in (a, b) for w in CAMEL_WORDS.findall(name))


def _conventional(name: str, kind: SymbolKind) -> bool:
    """FOLIO spells predicates UpperCamel and constants lowerCamel."""
    first = name[:1]
    return first.isupper() if kind == "predicate" else not first.isupper()


def _preference(
    words: Words, kind: SymbolKind, formulas: Counter[str], occurrences: Counter[str]
) -> Callable[[str, str], bool]:
    """Whether spelling `t` beats spelling `m` of one name (`beats(t, m)`).

    Evidence, strongest first: the number of formulas that use the spelling (a slip is made
    in one formula, and a formula repeating a name is one witness), then of occurrences (a
    slip changes one of them); FOLIO's case convention (`_conventional`); then the sentences'
    words: for spellings that differ in more than case, fewer camel-case words that are not
    words of the sentences (`Studen`, `SunA`); last, fewer capitals off the words' boundaries
    (`aNn` for "Ann", `year2013final` for "the 2013 final"). Where a premise or the conclusion
    uses a spelling, or which comes first, is no evidence: when nothing tells two spellings
    apart, neither beats the other, and the tie is left alone.
    """

    def beats(t: str, m: str) -> bool:
        counts = [(formulas[n], occurrences[n], _conventional(n, kind)) for n in (t, m)]
        if counts[0] != counts[1]:
            return counts[0] > counts[1]
        if t.lower() != m.lower():
            unknown = words.unknown(t), words.unknown(m)
            if unknown[0] != unknown[1]:
                return unknown[0] < unknown[1]
        return words.case_errors(t) < words.case_errors(m)

    return beats


def rename(text: str, kind: SymbolKind, arity: int | None, old: str, new: str) -> str:
    """Rewrite whole-name occurrences of `old` (of `kind`, and `arity` if given) to `new`.

    >>> rename("∀x (Student(x) → StudentAt(x, mit))", "predicate", 1, "Student", "Pupil")
    '∀x (Pupil(x) → StudentAt(x, mit))'
    """
    edits = [
        (u.start, u.end, new)
        for u in name_uses(text)
        if u.kind == kind and u.name == old and (arity is None or u.arity == arity)
    ]
    return splice(text, edits)


def propose(findings: ItemContext) -> list[Candidate]:
    """Rewrite the minority spelling of a name spelled two ways to the majority spelling.

    Names are compared within one kind (predicates of one arity, constants); uses are counted
    over the distinct formulas of the item and its story, the conclusion included. Each
    spelling used in the item that loses to a look-alike (see `spelled_alike`; for what wins,
    see `_preference`) is rewritten, in every formula of the item, to the closest spelling that
    beats it — one candidate each, strongest evidence first, then all of them together. A
    formula that spells a name both ways has a slip of its own: the rewrite of just such
    formulas comes right before the rewrite everywhere (the smaller edit first). Two
    spellings whose words the sentences both use are two names. A name the item uses with two
    arities is left to `harmonize_arity`: renaming one of them would hide the conflict, not
    repair it. A tie proposes nothing: the rewrite would make the item consistent either way,
    so the gate cannot tell the slip from the intended spelling, and guessing rewrites the
    right formulas to the slip.

    >>> fol = {"premises[0]": "∀x (Studen(x) → Young(x))", "premises[1]": "Student(ann)",
    ...        "conclusion": "Young(ann)"}
    >>> f = ItemContext("i", "s", fol, {}, None, story_fol=("∀x (Student(x) → Happy(x))",))
    >>> [[(e.where, e.after) for e in c] for c in propose(f)]
    [[('premises[0]', '∀x (Student(x) → Young(x))')]]
    """
    parsed = parsed_fields(findings)
    formulas: dict[tuple[SymbolKind, int], Counter[str]] = {}
    occurrences: dict[tuple[SymbolKind, int], Counter[str]] = {}
    for text in item_texts(findings):
        uses = name_uses(text)
        for u in uses:
            occurrences.setdefault((u.kind, u.arity), Counter())[u.name] += 1
        for kind, arity, name in {(u.kind, u.arity, u.name) for u in uses}:
            formulas.setdefault((kind, arity), Counter())[name] += 1
    in_item = {(u.kind, u.arity, u.name) for w in parsed for u in name_uses(findings.fol[w])}
    arities: dict[tuple[SymbolKind, str], set[int]] = {}
    for kind, arity, name in in_item:
        arities.setdefault((kind, name), set()).add(arity)
    words = Words.of(*findings.nl.values())
    # (strength, kind, arity, minority, target): one rewrite per losing spelling
    rewrites: list[tuple[tuple[float, float], SymbolKind, int, str, str]] = []
    for (kind, arity), names in sorted(formulas.items()):
        if len(names) > MAX_NAMES:
            continue  # pairs grow with the square of the names (see `MAX_NAMES`)
        counted = occurrences[(kind, arity)]
        beats = _preference(words, kind, names, counted)
        for m in sorted(names):
            if (kind, arity, m) not in in_item or len(arities[(kind, m)]) > 1:
                continue  # not in the item, or in an arity conflict: harmonize_arity's business
            better = [
                t
                for t in names
                if spelled_alike(m, t, kind) and beats(t, m) and not _both_in_nl(m, t, words)
            ]
            if better:
                # the closest spelling that beats it: a typo of a typo goes back one step
                t = min(better, key=lambda t: (edit_distance(m, t), -names[t], -counted[t], t))
                strength = (names[t] / names[m], counted[t] / counted[m])
                rewrites.append((strength, kind, arity, m, t))
    rewrites.sort(key=lambda r: (-r[0][0], -r[0][1]))  # stable: ties keep kind/arity/name order
    out = [
        candidate
        for r in rewrites
        for mixed_only in (True, False)
        for candidate in [_rename_everywhere(findings, parsed, [r], mixed_only=mixed_only)]
    ]
    if len(rewrites) > 1:
        out.append(_rename_everywhere(findings, parsed, rewrites))
    return unique_candidates(c for c in out if c)[:MAX_CANDIDATES]


def _rename_everywhere(
    findings: ItemContext,
    parsed: dict[Where, Formula],
    rewrites: Sequence[tuple[tuple[float, float], SymbolKind, int, str, str]],
    *,
    mixed_only: bool = False,
) -> Candidate:
    """One candidate applying all `rewrites` to every formula of the item that uses them.

    With `mixed_only`, only to the formulas that use both spellings of a name.
    """
    targets = {(kind, arity, m): t for _, kind, arity, m, t in rewrites}

    def rewrite(text: str) -> str:
        uses = name_uses(text)
        present = {(u.kind, u.arity, u.name) for u in uses}
        if mixed_only and not any(
            key in present and (key[0], key[1], t) in present for key, t in targets.items()
        ):
            return text
        return splice(
            text,
            [
                (u.start, u.end, targets[(u.kind, u.arity, u.name)])
                for u in uses
                if (u.kind, u.arity, u.name) in targets
            ],
        )

    why = "; ".join(f"{m!r} is spelled {t!r} elsewhere" for _, _, _, m, t in rewrites)
    return rewrite_item(findings, parsed, rewrite, TAG, why)
