"""What the repair rules read in an item's formulas: its names and arguments, located in the text.

A rule must not propose an edit the evidence does not single out (the gate checks only the label),
so the rules read the item's own formulas: which names it uses, where, with which arguments
(`name_uses`, `atoms_of`), and which names its story knows (`item_vocabulary`). The words of its
sentences are read by `refinery.agents.reading` (`sentence_words` hands a rule one sentence's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from refinery.agents.models import ItemContext, Where
from refinery.agents.reading.spelling import Words
from refinery.logic.analysis import SymbolKind, subformulas
from refinery.logic.parse import parses
from refinery.logic.syntax import Const, Eq, Func, Pred, Term, Var

# -- names, located in the text ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NameUse:
    """One occurrence of a predicate, function or constant name, with where it is in the text."""

    kind: SymbolKind
    name: str
    arity: int
    start: int
    end: int


def name_uses(text: str) -> list[NameUse]:
    """Every predicate, function and constant occurrence in `text`, in text order.

    Variables are not names: renaming never touches them.

    >>> [(u.kind, u.name, u.arity, u.start) for u in name_uses("∀x (R(x, a) → P)")]
    [('predicate', 'R', 2, 4), ('constant', 'a', 0, 9), ('predicate', 'P', 0, 14)]
    """
    f = parses(text)
    if f is None:
        return []
    out: list[NameUse] = []

    def term(t: Term) -> None:
        match t:
            case Var():
                return
            case Const(name, span) if span is not None:
                out.append(NameUse("constant", name, 0, span.start, span.end))
            case Func(name, args, span):
                if span is not None:
                    out.append(
                        NameUse("function", name, len(args), span.start, span.start + len(name))
                    )
                for a in args:
                    term(a)

    for node in subformulas(f):
        if isinstance(node, Pred) and node.span is not None:
            start = node.span.start
            out.append(
                NameUse("predicate", node.name, len(node.args), start, start + len(node.name))
            )
            for a in node.args:
                term(a)
        elif isinstance(node, Eq):
            term(node.left)
            term(node.right)
    # spans come from the parser; keep only those that really point at the name
    return sorted(
        (u for u in out if text[u.start : u.end] == u.name), key=lambda u: (u.start, u.end)
    )


def item_texts(findings: ItemContext) -> list[str]:
    """The distinct formula texts of the item and its story (each counted once)."""
    return list(dict.fromkeys([*findings.fol.values(), *findings.story_fol]))


def sentence_words(findings: ItemContext, where: Where) -> Words:
    """The words of the sentence `where` formalises (none when the item has no such sentence)."""
    return Words.of(findings.nl[where]) if findings.nl.get(where) else Words()


def item_vocabulary(findings: ItemContext) -> frozenset[str]:
    """Predicate and constant names used by the item's and story's formulas that parse."""
    return frozenset(u.name for t in item_texts(findings) for u in name_uses(t))


# -- predicate arguments, located in the text ------------------------------------------------


@dataclass(frozen=True, slots=True)
class LocatedAtom:
    """A predicate occurrence with the text span of each argument (the alignment's `Atom` counts
    a formula's atoms instead, with their polarity and no positions)."""

    name: str
    args: tuple[Term, ...]
    arg_spans: tuple[tuple[int, int], ...]


def atoms_of(text: str) -> list[LocatedAtom]:
    """The predicate occurrences of `text` that have arguments, in text order."""
    f = parses(text)
    if f is None:
        return []
    out = []
    for node in subformulas(f):
        if isinstance(node, Pred) and node.args:
            spans = tuple((a.span.start, a.span.end) for a in node.args if a.span is not None)
            if len(spans) == len(node.args):
                out.append(LocatedAtom(node.name, node.args, spans))
    return sorted(out, key=lambda a: a.arg_spans[0])


#: A name FOLIO uses as a variable (x, y, z, x1 …): not a constant, whatever the parser says.
VARIABLE = re.compile(r"[u-z][0-9]?")
