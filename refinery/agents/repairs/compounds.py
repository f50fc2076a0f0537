"""`split_compound`: a compound name one formula alone uses, written as the others' parts.

A conclusion written `FemaleTennisPlayer(x)` beside premises that say `Female(x)` and
`TennisPlayer(x)` cannot be proved: the compound links to nothing. Where a one-place predicate
that one formula alone uses has a name whose words are exactly the words of two one-place
predicates other formulas use, in order (one such split only), each of its atoms `C(t)`
becomes `(A(t) ∧ B(t))`. "A female tennis player" is a female who is a tennis player: the
compound's own words name the parts, so the formula says what it said, now in the story's
vocabulary. It is still a guess, left a proposal for review: linking the compound to the story
can decide the label, and a gold label that was reached only because the compound linked to
nothing would then look like a defect the edit repaired.
"""

from __future__ import annotations

import functools

from refinery.addresses import CONCLUSION
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.reading.words import name_words
from refinery.agents.repairs.edits import (
    Candidate,
    RuleTag,
    parsed_fields,
    rewrite_atoms,
    rewrite_item,
)
from refinery.agents.repairs.located import name_uses

TAG = RuleTag("split_compound", ErrorClass.NAMING_DRIFT)


def propose(findings: ItemContext) -> list[Candidate]:
    """One candidate per compound the premises can spell, the conclusion's first.

    >>> fol = {"premises[0]": "∀x (Female(x) ∧ TennisPlayer(x) → Athlete(x))",
    ...        "conclusion": "FemaleTennisPlayer(serena) → Athlete(serena)"}
    >>> [[(e.where, e.after) for e in c] for c in propose(ItemContext("i", "s", fol, {}, None))]
    [[('conclusion', '(Female(serena) ∧ TennisPlayer(serena)) → Athlete(serena)')]]
    """
    parsed = parsed_fields(findings)
    unary: dict[str, set[str]] = {}  # one-place predicate → the formulas that use it
    for where in parsed:
        for use in name_uses(findings.fol[where]):
            if use.kind == "predicate" and use.arity == 1:
                unary.setdefault(use.name, set()).add(where)
    out: list[Candidate] = []
    for name in sorted(unary, key=lambda n: (CONCLUSION not in unary[n], n)):
        if len(unary[name]) != 1:
            continue  # two formulas use it: a name of the story, not a slip
        others = {n for n, places in unary.items() if places - unary[name]}
        parts = _parts(name, others)
        if parts is None:
            continue
        first, second = parts
        why = f"{name} is in no other formula, which write it {first} and {second}"
        rewrite = functools.partial(_split, name=name, first=first, second=second)
        # a guess: linking the compound can decide the label the other way, and the gate
        # cannot tell that from a repair; a reviewer accepts it with one key
        candidate = rewrite_item(findings, parsed, rewrite, TAG, why, guess=True)
        if candidate:
            out.append(candidate)
    return out


def _parts(name: str, others: set[str]) -> tuple[str, str] | None:
    """The two predicates of `others` whose words, in order, are `name`'s words; None if none
    or several splits do."""
    words = name_words(name)
    found = [
        (a, b)
        for a in sorted(others)
        for b in sorted(others)
        if a != b and name_words(a) + name_words(b) == words
    ]
    return found[0] if len(found) == 1 else None


def _split(text: str, name: str, first: str, second: str) -> str:
    """`text` with each one-place atom of `name` written as the conjunction of the two parts."""
    return rewrite_atoms(text, name, lambda arg: f"({first}({arg}) ∧ {second}({arg}))")
