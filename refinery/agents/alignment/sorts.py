"""Argument order across a story: each argument place of a predicate holds one sort of thing.

`LiveIn(borealTaigaZone, taigaVole)` beside `LiveIn(x, borealTaigaZone)` elsewhere in the story
puts the zone first once and second everywhere else: the pair is swapped. Only constants are
compared (a variable's sort is a guess), and only a constant the rest of the story never puts
where this atom does more often than the story and this formula put it here (as often: a tie
the caller breaks by the sentence's word order), and only
when no other constant of the atom sits where the story puts it. A predicate the rest of the
story fills both ways (`Related(a, b)` and `Related(b, a)`, or nested places) is never flagged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from refinery.logic.rewrite import nodes
from refinery.logic.syntax import Const, Formula, Pred, Term


@dataclass(frozen=True, slots=True)
class Swap:
    """A binary atom whose constant sits where the rest of the story never puts it."""

    predicate: str
    args: tuple[str, str]  # as written, constants by name, variables by name
    constant: str
    place: int  # where this atom puts the constant (0 first, 1 second)
    tie: bool = False  # the story puts it in both places equally often: the sentence decides


def swapped_arguments(formula: Formula, story: Sequence[Formula]) -> list[Swap]:
    """The atoms of `formula` whose argument order the rest of the `story` contradicts.

    >>> from refinery.logic.parse import parse
    >>> story = [parse("∀x (Vole(x) → LiveIn(x, borealTaigaZone))"),
    ...          parse("LiveIn(y, borealTaigaZone)")]
    >>> [(s.predicate, s.constant, s.place)
    ...  for s in swapped_arguments(parse("LiveIn(borealTaigaZone, taigaVole)"), story)]
    [('LiveIn', 'borealTaigaZone', 0)]
    >>> swapped_arguments(parse("Related(a, b)"), [parse("Related(b, a)"), parse("Related(a, c)")])
    []
    """
    rest = _places(other for other in story if other != formula)
    # a predicate the rest of the story fills both ways (`Related(a, b)`, `Related(b, a)`;
    # `In(x, bronx)`, `In(bronx, newYork)`) is symmetric or nests: its order tells nothing
    both = {p for (p, c, place) in rest if place == 0 and (p, c, 1) in rest}
    places = rest + _places([formula])
    out = []
    for atom in _binary(formula):
        if atom.name in both:
            continue
        swapped, settled, tie = None, False, True
        for place, arg in enumerate(atom.args):
            if isinstance(arg, Const):
                here = places[(atom.name, arg.name, place)]
                there = places[(atom.name, arg.name, 1 - place)]
                if there >= here:
                    swapped = swapped or arg.name
                    tie = tie and there == here
                elif there == 0 and here > 1:
                    settled = True  # the story agrees with this place
        if swapped and not settled:
            names = (_name(atom.args[0]), _name(atom.args[1]))
            place = 0 if names[0] == swapped else 1
            out.append(Swap(atom.name, names, swapped, place, tie))
    return out


def _places(formulas: Iterable[Formula]) -> Counter[tuple[str, str, int]]:
    """How often each (predicate, constant, place) occurs."""
    places: Counter[tuple[str, str, int]] = Counter()
    for f in formulas:
        for atom in _binary(f):
            for place, arg in enumerate(atom.args):
                if isinstance(arg, Const):
                    places[(atom.name, arg.name, place)] += 1
    return places


def _binary(formula: Formula) -> Iterator[Pred]:
    for _, node in nodes(formula):
        if isinstance(node, Pred) and len(node.args) == 2 and node.args[0] != node.args[1]:
            yield node


def _name(term: Term) -> str:
    return term.name
