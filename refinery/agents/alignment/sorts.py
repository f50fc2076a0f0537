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
from collections.abc import Iterable, Iterator, Mapping, Sequence
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
    >>> swapped_arguments(parse("In(la, california)"), [parse("In(california, usa)")])
    []
    """
    rest = _places(other for other in story if other != formula)
    # a predicate the rest of the story fills both ways (`Related(a, b)`, `Related(b, a)`;
    # `In(x, bronx)`, `In(bronx, newYork)`) is symmetric or nests: its order tells nothing
    both = {p for (p, c, place) in rest if place == 0 and (p, c, 1) in rest}
    places = rest + _places([formula])
    # the constants each (relation of place, constant, place) pairs with elsewhere
    partners: dict[tuple[str, str, int], set[Term]] = {}
    for other_formula in story:
        if other_formula == formula:
            continue
        for a in _binary(other_formula):
            if a.name.lower() not in _NESTING:
                continue
            for place, (arg, other) in enumerate(zip(a.args, reversed(a.args), strict=True)):
                if isinstance(arg, Const) and isinstance(other, Const):
                    partners.setdefault((a.name, arg.name, place), set()).add(other)
    out = []
    for atom in _binary(formula):
        if atom.name in both or _nests(atom, partners):
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


#: Relations of place that chain (a city in a state in a country), by lower-cased name.
_NESTING = frozenset(
    {"in", "locatedin", "locatedon", "situatedin", "within", "inside", "partof", "containedin"}
)


def _nests(atom: Pred, partners: Mapping[tuple[str, str, int], set[Term]]) -> bool:
    """Whether a relation of place in `atom` chains with the story's (`In(losAngeles,
    california)` beside `In(california, unitedStates)`): the constant sits elsewhere in the
    other place, but beside a third constant, so the two atoms nest rather than swap
    (`partners`: the constants each relation of place, constant and place pairs with)."""
    first, second = atom.args
    if atom.name.lower() not in _NESTING:
        return False  # `LiveIn(lemming, tundra)`, `LiveIn(tundra, vole)`: a swap, not a chain
    if not (isinstance(first, Const) and isinstance(second, Const)):
        return False
    later = partners.get((atom.name, second.name, 0), set())
    earlier = partners.get((atom.name, first.name, 1), set())
    return bool(later - {first}) or bool(earlier - {second})


def _binary(formula: Formula) -> Iterator[Pred]:
    for _, node in nodes(formula):
        if isinstance(node, Pred) and len(node.args) == 2 and node.args[0] != node.args[1]:
            yield node


def _name(term: Term) -> str:
    return term.name
