"""Lint rules over the formulas of one item (its premises and conclusion) → `Issue` records.

Rules and severities:
- `arity_conflict` (error): one predicate or function name used with two arities.
- `free_variable` (error): an unbound name that can only be a variable — one of u…z (optionally
  with one digit), or a name the same item binds elsewhere. FOLIO constants are words, so a
  single-letter `x` outside every quantifier is a scope error, not an individual.
- `predicate_as_function` (error): a predicate name applied as a term (`Likes(x, Good(y))`).
- `lookalike_name` (error): a name written with characters that only look like the ones it
  reads as: letters of another script among Latin ones (a Cyrillic "о" in `tоm`), or
  compatibility forms (a fullwidth "Ｍ"). `Cat(tоm)` and `Mammal(tom)` are about two
  individuals that nobody can tell apart; `plain_name` is the name as it reads.
- `name_clash` (warning): one name used both as a predicate and as a constant.
- `vacuous_quantifier` (warning): a quantifier whose variable never occurs in its body.
- `count_mismatch` (warning): the number of NL premises differs from the FOL premises.
Errors make a verdict untrustworthy; warnings are reported but do not block.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache

from refinery.logic.analysis import Occurrence, bound_names, occurrences, vacuous_quantifiers
from refinery.logic.diagnostics import Issue, Severity
from refinery.logic.syntax import Exists, Forall, Formula

_VARIABLE_LIKE = re.compile(r"[u-z][0-9]?'*")
_SINGLE_LETTER = re.compile(r"[a-z][0-9]*'*")

ERROR_KINDS = frozenset(
    {"arity_conflict", "free_variable", "predicate_as_function", "lookalike_name"}
)


@lru_cache(maxsize=4096)
def plain_name(name: str) -> str:
    """`name` as it reads: compatibility forms folded (NFKC: "Ｍ" → "M"), and letters of
    another script that look like Latin ones, in a name that mixes scripts, written in Latin
    (Unicode's confusables data). A name in one script alone (`Κρήτη`) is its own.

    >>> plain_name("tоm"), plain_name("Ｍammal"), plain_name("Κρήτη"), plain_name("tom")
    ('tom', 'Mammal', 'Κρήτη', 'tom')
    """
    if name.isascii():
        return name
    folded = unicodedata.normalize("NFKC", name)
    if folded.isascii() or len(_scripts(folded)) < 2:
        return folded  # "świątek", "Hermès": accented Latin, nothing to look up
    from confusable_homoglyphs import confusables  # its data loads only for such a name

    if not confusables.is_mixed_script(folded):
        return folded
    found = confusables.is_confusable(folded, preferred_aliases=["latin"], greedy=True) or []
    latin = {
        f["character"]: next((g["c"] for g in f["homoglyphs"] if g["c"].isascii()), "")
        for f in found
    }
    return "".join(latin.get(c) or c for c in folded)


def _scripts(text: str) -> set[str]:
    """The scripts of the letters of `text`, by the first word of each one's Unicode name
    ("LATIN SMALL LETTER E WITH GRAVE"): enough to tell that a name mixes none, which spares
    loading the confusables data (a twentieth of a second) for an accented name."""
    return {unicodedata.name(c, "?").split(" ")[0] for c in text if c.isalpha()}


class _Same:
    """A formula compared by identity: equal formulas can differ in the spans lint reports.
    The parser returns one object per text, so a story's shared premises are walked once."""

    __slots__ = ("formula",)

    def __init__(self, formula: Formula) -> None:
        self.formula = formula

    def __hash__(self) -> int:
        return id(self.formula)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.formula is self.formula


@lru_cache(maxsize=65536)  # the cache holds each formula, so no id is reused while cached
def _facts(
    key: _Same,
) -> tuple[frozenset[str], tuple[Occurrence, ...], tuple[Forall | Exists, ...]]:
    """What lint reads of one formula: bound names, symbol occurrences, vacuous quantifiers."""
    f = key.formula
    return frozenset(bound_names(f)), tuple(occurrences(f)), tuple(vacuous_quantifiers(f))


def lint(
    formulas: Sequence[tuple[str, Formula]],
    *,
    nl_premises: int | None = None,
    fol_premises: int | None = None,
    item_id: str = "",
) -> list[Issue]:
    """Lint one item's formulas.

    Parameters
    ----------
    formulas:
        `(where, formula)` pairs, e.g. `("premises[0]", f)`; only parsed formulas.
    nl_premises, fol_premises:
        Premise counts for the NL/FOL count check (skipped when either is None).
    item_id:
        Copied into every `Issue`.

    Returns
    -------
    list[Issue]
        Errors first, then warnings, each in field order.

    >>> from refinery.logic.parse import parse
    >>> [i.kind for i in lint([("premises[0]", parse("P(a)")), ("conclusion", parse("P(a, b) ∧ Q(x)"))])]
    ['arity_conflict', 'free_variable']
    """
    issues: list[Issue] = []
    uses: dict[tuple[str, str], list[tuple[str, Occurrence]]] = defaultdict(list)
    bound: set[str] = set()
    facts = [(where, _facts(_Same(f))) for where, f in formulas]
    for where, (names, found, _) in facts:
        bound |= names
        for occ in found:
            uses[(occ.kind, occ.name)].append((where, occ))

    def add(kind: str, message: str, where: str, occ: Occurrence | None = None) -> None:
        severity: Severity = "error" if kind in ERROR_KINDS else "warning"
        span = occ.span if occ else None
        issues.append(Issue(kind, severity, message, where, item_id, span))

    for (kind, name), occs in uses.items():
        if kind == "constant":
            continue
        arities = sorted({o.arity for _, o in occs})
        if len(arities) > 1:
            first = {o.arity: w for w, o in reversed(occs)}
            detail = ", ".join(f"{a} in {first[a]}" for a in arities)
            add("arity_conflict", f"{kind} {name!r} is used with arities {detail}", occs[-1][0])
    for (kind, name), occs in uses.items():
        if kind == "constant" and (
            _VARIABLE_LIKE.fullmatch(name) or (name in bound and _SINGLE_LETTER.fullmatch(name))
        ):
            for where in dict.fromkeys(w for w, _ in occs):
                occ = next(o for w, o in occs if w == where)
                add("free_variable", f"{name!r} is not bound by any quantifier", where, occ)
        if kind == "function" and ("predicate", name) in uses:
            where, occ = occs[0]
            add("predicate_as_function", f"predicate {name!r} is applied as a term", where, occ)
        if kind == "constant" and ("predicate", name) in uses:
            where, occ = occs[0]
            add("name_clash", f"{name!r} is used both as a predicate and a constant", where, occ)
        if (plain := plain_name(name)) != name:
            where, occ = occs[0]
            add(
                "lookalike_name",
                f"{kind} {name!r} looks like {plain!r} but is written with other characters "
                "(another script or a compatibility form)",
                where,
                occ,
            )
    for where, (_, _, vacuous) in facts:
        for q in vacuous:
            add("vacuous_quantifier", f"variable {q.var!r} does not occur in its scope", where)
    if nl_premises is not None and fol_premises is not None and nl_premises != fol_premises:
        add(
            "count_mismatch",
            f"{nl_premises} NL premises but {fol_premises} FOL premises",
            "premises",
        )
    issues.sort(key=lambda i: i.severity != "error")
    return issues
