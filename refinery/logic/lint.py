"""Lint rules over the formulas of one item (its premises and conclusion) → `Issue` records.

Rules and severities:
- `arity_conflict` (error): one predicate or function name used with two arities.
- `free_variable` (error): an unbound name that can only be a variable — one of u…z (optionally
  with one digit), or a name the same item binds elsewhere. FOLIO constants are words, so a
  single-letter `x` outside every quantifier is a scope error, not an individual.
- `predicate_as_function` (error): a predicate name applied as a term (`Likes(x, Good(y))`).
- `name_clash` (warning): one name used both as a predicate and as a constant.
- `vacuous_quantifier` (warning): a quantifier whose variable never occurs in its body.
- `count_mismatch` (warning): the number of NL premises differs from the FOL premises.
Errors make a verdict untrustworthy; warnings are reported but do not block.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from refinery.logic.analysis import Occurrence, bound_names, occurrences, vacuous_quantifiers
from refinery.logic.diagnostics import Issue, Severity
from refinery.logic.syntax import Formula

_VARIABLE_LIKE = re.compile(r"[u-z][0-9]?'*")
_SINGLE_LETTER = re.compile(r"[a-z][0-9]*'*")

ERROR_KINDS = frozenset({"arity_conflict", "free_variable", "predicate_as_function"})


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
    for where, f in formulas:
        bound |= bound_names(f)
        for occ in occurrences(f):
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
    for where, f in formulas:
        for q in vacuous_quantifiers(f):
            add("vacuous_quantifier", f"variable {q.var!r} does not occur in its scope", where)
    if nl_premises is not None and fol_premises is not None and nl_premises != fol_premises:
        add(
            "count_mismatch",
            f"{nl_premises} NL premises but {fol_premises} FOL premises",
            "premises",
        )
    issues.sort(key=lambda i: i.severity != "error")
    return issues
