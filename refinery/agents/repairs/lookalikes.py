"""`plain_names`: a name written with characters that only look like Latin ones, written plainly.

`Cat(tоm)` with a Cyrillic "о" and `Mammal(tom)` look alike and are two names to every prover;
a fullwidth `Ｍammal` is a third. Lint calls such a name a `lookalike_name`; this rule writes
each one as it reads (`refinery.logic.lint.plain_name`) in every formula of the item, so the
names the annotator meant to be one are one.
"""

from __future__ import annotations

from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.repairs.edits import Candidate, RuleTag, parsed_fields, rewrite_item
from refinery.agents.repairs.located import name_uses
from refinery.agents.repairs.names import rename
from refinery.logic.lint import plain_name

TAG = RuleTag("plain_names", ErrorClass.NAMING_DRIFT)


def propose(findings: ItemContext) -> list[Candidate]:
    """One candidate writing every lookalike name of the item plainly.

    >>> fol = {"premises[0]": "∀x (Cat(x) → Mammal(x))", "premises[1]": "Cat(tоm)",
    ...        "conclusion": "Ｍammal(tom)"}
    >>> [[(e.where, e.after) for e in c] for c in propose(ItemContext("i", "s", fol, {}, None))]
    [[('premises[1]', 'Cat(tom)'), ('conclusion', 'Mammal(tom)')]]
    """
    parsed = parsed_fields(findings)
    lookalikes = {
        (u.kind, u.arity, u.name)
        for where in parsed
        for u in name_uses(findings.fol[where])
        if plain_name(u.name) != u.name
    }
    if not lookalikes:
        return []

    def plainly(text: str) -> str:
        for kind, arity, name in sorted(lookalikes):
            text = rename(text, kind, arity, name, plain_name(name))
        return text

    names = ", ".join(sorted(repr(n) for _, _, n in lookalikes))
    why = f"{names} only look like Latin letters: written plainly, they are the story's names"
    candidate = rewrite_item(findings, parsed, plainly, TAG, why)
    return [candidate] if candidate else []
