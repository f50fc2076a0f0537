"""`unify_near_names`: one spelling for a name the story spells two ways beyond case.

From a `name_drift` finding (`IsNovel`/`Novel`, `stPierre`/`pierre`, `lifeOf`/`liveOf`): rewrite
one spelling to the other in every formula of the item. The spelling kept is the one the premises
use when the conclusion alone has the other (a conclusion that drifts from its premises cannot be
proved; the premises' spelling is tried second), else the one more formulas of the story use; on a
tie both are tried, and the gate keeps the one that proves the gold label.
"""

from __future__ import annotations

import functools
from collections import Counter

from refinery.agents.alignment import FindingKind
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.repairs.edits import Candidate, RuleTag, parsed_fields, rewrite_item
from refinery.agents.repairs.located import item_texts, name_uses
from refinery.agents.repairs.names import rename
from refinery.agents.repairs.semantic import best, flagged
from refinery.logic.analysis import SymbolKind

TAG = RuleTag("unify_near_names", ErrorClass.NAMING_DRIFT)


def propose(findings: ItemContext) -> list[Candidate]:
    """Candidates for each blaming `name_drift` finding, the likelier spelling first.

    >>> import dataclasses
    >>> from refinery.agents.alignment import align
    >>> fol = {"premises[0]": "∀x (Novel(x) → Book(x))", "premises[1]": "Novel(dune)",
    ...        "conclusion": "IsNovel(dune)"}
    >>> nl = {"premises[0]": "Novels are books.", "premises[1]": "Dune is a novel.",
    ...       "conclusion": "Dune is a novel."}
    >>> f = dataclasses.replace(ItemContext("i", "s", fol, nl, None), alignment=align(fol, nl).findings)
    >>> [[(e.where, e.after) for e in c] for c in propose(f)][0]
    [('conclusion', 'Novel(dune)')]
    """
    parsed = parsed_fields(findings)
    uses = Counter(
        (u.kind, u.arity, u.name)
        for text in item_texts(findings)
        for u in {(x.kind, x.arity, x.name): x for x in name_uses(text)}.values()
    )
    out: list[Candidate] = []
    done: set[tuple[str, str]] = set()
    for finding, _, _ in flagged(findings, FindingKind.NAME_DRIFT):
        first, second = finding.symbols[:2]
        if (first, second) in done:
            continue
        done.add((first, second))
        kind_arity = {(k, a) for k, a, n in uses if n in (first, second)}
        if len(kind_arity) != 1:
            continue
        kind, arity = kind_arity.pop()
        orders = _orders(findings, kind, arity, first, second, uses)
        for old, new in orders:
            rewrite = functools.partial(_rename, kind=kind, arity=arity, old=old, new=new)
            why = f"{old} is spelled {new} elsewhere in the story"
            candidate = rewrite_item(findings, parsed, rewrite, TAG, why)
            if candidate:
                out.append(candidate)
    return best(out)


def _rename(text: str, *, kind: SymbolKind, arity: int, old: str, new: str) -> str:
    return rename(text, kind, arity, old, new)


def _orders(
    findings: ItemContext,
    kind: SymbolKind,
    arity: int,
    first: str,
    second: str,
    uses: Counter[tuple[SymbolKind, int, str]],
) -> list[tuple[str, str]]:
    """(old, new) renames to try: the conclusion's drift first, else the minority spelling."""
    in_conclusion = {u.name for u in name_uses(findings.fol.get("conclusion", ""))}
    in_premises = {
        u.name for w, t in findings.fol.items() if w != "conclusion" for u in name_uses(t)
    }
    for old, new in ((first, second), (second, first)):
        if old in in_conclusion and old not in in_premises and new in in_premises:
            return [(old, new), (new, old)]  # likelier first: the premise may be the slip
    a, b = uses[(kind, arity, first)], uses[(kind, arity, second)]
    if a == b:  # nothing tells the slip from the intended spelling: the gate picks
        return [(first, second), (second, first)]
    return [(first, second)] if a < b else [(second, first)]
