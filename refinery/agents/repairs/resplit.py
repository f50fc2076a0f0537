"""`resplit_name`: a relation one formula alone uses, whose words the other formulas split
another way between a relation's name and its constant arguments.

FOLIO's annotators write one phrase several ways: "help slow down global warming" is
`Help(x, slowDownGlobalWarming)` in one premise and `HelpSlowDown(x, globalWarming)` in the
others; "made by Apple" is `MadeByApple(p)` beside `MadeBy(x, apple)`; "contributes to the
country" is `ContributeToCountry(james)` beside `ContributeTo(x, country)`. The formula with the
odd name links to nothing, so nothing can be proved through it.

An atom `P(a…)` whose predicate no other formula of the item uses is written `Q(b…)`, as
another formula writes it, where:

- the words of `P` and of the constants of `a` that `Q(b…)` names (*absorbed*) are the words of
  `Q` and of `b`'s constants, and the words move: `P` and `Q` are not one name spelled two
  ways (other rules rename those);
- `a`'s other arguments fill `b`'s variable places, in order;
- the formula's sentence says every word of `Q`;
- `P` says no negation ("DoNotWantToBeAddictedTo…"): its words would drop it.

Every atom of `P` in the formula is rewritten, or none. Like `retype_name`, the edit links a
formula to the story and so can decide the label: it is a guess, a proposal for review.
"""

from __future__ import annotations

from refinery.agents.alignment.checks.common import NAME_NEGATIONS
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.reading.words import all_said, content, name_words, tokens
from refinery.agents.repairs.edits import Candidate, RuleTag, make_edit, paren_pairs, splice
from refinery.agents.repairs.located import atoms_of, name_uses
from refinery.logic.parse import parses
from refinery.logic.syntax import Const, Term

TAG = RuleTag("resplit_name", ErrorClass.NAMING_DRIFT)
#: The most targets one odd name is written as (each a candidate; the proofs choose).
MAX_TARGETS = 3


def propose(findings: ItemContext) -> list[Candidate]:
    """One candidate per odd relation and each way the other formulas write its words.

    >>> fol = {"premises[0]": "∀x (HelpSlowDown(x, globalWarming) → Good(x))",
    ...        "premises[1]": "∀x (Brand(x) → Help(x, slowDownGlobalWarming))",
    ...        "conclusion": "Good(patagonia)"}
    >>> nl = {"premises[1]": "All brands help slow down global warming."}
    >>> [[(e.where, e.after) for e in c] for c in propose(ItemContext("i", "s", fol, nl, None))]
    [[('premises[1]', '∀x (Brand(x) → HelpSlowDown(x, globalWarming))')]]
    """
    uses: dict[str, set[str]] = {}
    for where, text in findings.fol.items():
        for atom in atoms_of(text):
            uses.setdefault(atom.name, set()).add(where)
    out: list[Candidate] = []
    for where, before in findings.fol.items():
        if parses(before) is None:
            continue
        said = tokens(findings.nl.get(where, ""))
        theirs = [
            a
            for w, t in findings.fol.items()
            if w != where
            for a in atoms_of(t)
            if where not in uses.get(a.name, set())
        ]
        for name in dict.fromkeys(a.name for a in atoms_of(before) if uses[a.name] == {where}):
            if not NAME_NEGATIONS.isdisjoint(name_words(name)):
                continue
            targets: dict[str, str] = {}
            for other in theirs:
                if not all_said(_words(other.name), said):
                    continue
                after = _rewritten(before, name, other.name, other.args)
                if after is not None and after != before and parses(after) is not None:
                    targets.setdefault(after, f"{name} is in no other formula, which write "
                                       f"its words as {other.name}")  # fmt: skip
            for after, why in list(targets.items())[:MAX_TARGETS]:
                out.append((make_edit(where, before, after, TAG, why, guess=True),))
    return out


def _rewritten(text: str, name: str, other: str, theirs: tuple[Term, ...]) -> str | None:
    """`text` with every atom of `name` written as `other(theirs…)` with its own free
    arguments in `theirs`' variable places; None unless every atom of `name` resplits."""
    located = [a for a in atoms_of(text) if a.name == name]
    spans = [u for u in name_uses(text) if u.kind == "predicate" and u.name == name]
    if not located or len(located) != len(spans):
        return None
    pairs = paren_pairs(text)
    edits = []
    for use, atom in zip(spans, located, strict=True):
        free = _free(name, atom.args, other, theirs)
        if free is None:
            return None
        written = iter(text[atom.arg_spans[i][0] : atom.arg_spans[i][1]] for i in free)
        args = [t.name if isinstance(t, Const) else next(written) for t in theirs]
        closing = pairs[text.index("(", use.end)]
        edits.append((use.start, closing + 1, f"{other}({', '.join(args)})"))
    return splice(text, edits)


def _free(
    name: str, mine: tuple[Term, ...], other: str, theirs: tuple[Term, ...]
) -> list[int] | None:
    """The places of `mine` (the arguments of an atom of `name`) that fill the variable places
    of `other(theirs…)`, in order; None where the words do not resplit."""
    target = _words(other) + [w for t in theirs if isinstance(t, Const) for w in _words(t.name)]
    absorbed: list[str] = []
    free: list[int] = []
    for i, term in enumerate(mine):
        words = _words(term.name) if isinstance(term, Const) else []
        if words and all_said(words, target):
            absorbed += words
        else:
            free.append(i)
    places = [t for t in theirs if not isinstance(t, Const)]
    if len(free) != len(places) or _same_words(_words(name), _words(other)):
        return None
    return free if _same_words(_words(name) + absorbed, target) else None


def _same_words(a: list[str], b: list[str]) -> bool:
    """Whether every word of `a` is a word of `b` and the reverse (one lemma or stem)."""
    return bool(a) and all_said(a, b) and all_said(b, a)


def _words(name: str) -> list[str]:
    return content(name_words(name))
