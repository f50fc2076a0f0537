"""A countermodel's evidence line as a small table, for the report, the page and the terminal.

An evidence line (`refinery.prove.evidence.evidence_lines`) holds a countermodel in one line:
`the conclusion can fail: domain {lakeside, mara}; StudentAt(mara, lakeside); ¬Tall(mara);
CanBorrow = {} — all premises hold and the conclusion fails (z3)`. That line is what every
artifact stores (queue, outcomes, report), so the table is read back from it: `read` returns a
`ModelTable`, or None for a line that is not a countermodel.

The table has one column per element. A one-place predicate is a row of ✓ (holds) and ✗
(fails): the model is total, so an element not listed fails. A two-place predicate is a grid,
first argument down, second across. A predicate of more places lists the tuples it holds of,
and those shown failing (a ground atom of the conclusion). A line cut short (`… 3 more atoms`)
says so, and then an unlisted cell is `?`, never ✗.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: A cell: the predicate holds of the element, fails, or the line was cut before saying.
HOLDS, FAILS, UNSAID = "✓", "✗", "?"

_HEADS = ("the conclusion can fail", "the conclusion can hold")
_ATOM = re.compile(r"(¬?)([^\s(),;{}=¬]+)\(([^()]*)\)")
_DOMAIN = re.compile(r"domain \{([^{}]*)\}")
_MORE = re.compile(r"… (\d+) more atoms")


@dataclass(frozen=True, slots=True)
class Row:
    """One predicate or function of the table.

    `cells` (one per element, for a one-place predicate) or `listed` (tuples, function values
    or a truth value, for anything else) says what it is; `failing` lists tuples shown false.
    """

    name: str
    cells: tuple[str, ...] = ()
    listed: tuple[str, ...] = ()
    failing: tuple[str, ...] = ()

    @property
    def said(self) -> str:
        """A non-unary row in words: what it holds of, and what is shown failing.

        >>> Row("Likes", listed=("(a, b)",), failing=("(b, a)",)).said, Row("Likes").said
        ('(a, b); fails of (b, a)', 'holds of nothing')
        """
        said = "; ".join(self.listed) or "holds of nothing"
        return f"{said}; fails of {', '.join(self.failing)}" if self.failing else said


@dataclass(frozen=True, slots=True)
class Grid:
    """A two-place predicate: `cells[i][j]` says whether it holds of (element i, element j)."""

    name: str
    cells: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class ModelTable:
    """A countermodel as rows of a table over its elements."""

    head: str  # "the conclusion can fail"
    tail: str  # "all premises hold and the conclusion fails (z3)"
    elements: tuple[str, ...]
    #: (element, the other constants that denote it), for elements named by several
    aliases: tuple[tuple[str, tuple[str, ...]], ...]
    unary: tuple[Row, ...]
    binary: tuple[Grid, ...]
    others: tuple[Row, ...]  # 0-ary and n-ary predicates, functions
    empty: tuple[str, ...] = ()  # predicates that hold of nothing
    cut: str = ""  # "3 more atoms not shown" or "13 elements: not listed atom by atom"

    def text(self) -> str:
        """The table as aligned plain text (the terminal's form).

        >>> t = read("the conclusion can fail: domain {ann, bob}; Tall(ann); ¬Tall(bob); "
        ...          "Likes(ann, bob); Old = {} — all premises hold and the conclusion fails (z3)")
        >>> print(t.text())
        the conclusion can fail — all premises hold and the conclusion fails (z3)
                ann  bob
          Tall  ✓    ✗
        <BLANKLINE>
          Likes  ann  bob
          ann    ✗    ✓
          bob    ✗    ✗
          hold of nothing: Old
        """
        lines = [f"{self.head} — {self.tail}"]
        lines += [f"  {e} is also {', '.join(names)}" for e, names in self.aliases]
        if self.unary:
            lines += _aligned("", self.elements, [(r.name, r.cells) for r in self.unary])
        for grid in self.binary:
            lines.append("")
            lines += _aligned(
                grid.name, self.elements, list(zip(self.elements, grid.cells, strict=True))
            )
        for row in self.others:
            lines.append(f"  {row.name}: {row.said}")
        if self.empty:
            lines.append(f"  hold of nothing: {', '.join(self.empty)}")
        if self.cut:
            lines.append(f"  ({self.cut})")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        """JSON form, for the review page."""
        return {
            "head": self.head,
            "tail": self.tail,
            "elements": list(self.elements),
            "aliases": [[e, list(names)] for e, names in self.aliases],
            "unary": [{"name": r.name, "cells": list(r.cells)} for r in self.unary],
            "binary": [{"name": g.name, "cells": [list(c) for c in g.cells]} for g in self.binary],
            "others": [{"name": r.name, "text": r.said} for r in self.others],
            "empty": list(self.empty),
            "cut": self.cut,
        }


def _aligned(
    corner: str, columns: tuple[str, ...], rows: list[tuple[str, tuple[str, ...]]]
) -> list[str]:
    """Rows under a header of `columns`, each column as wide as its name."""

    def line(name: str, cells: Sequence[str]) -> str:
        padded = (c.ljust(len(column)) for c, column in zip(cells, columns, strict=True))
        return f"  {name.ljust(left)}  {'  '.join(padded)}".rstrip()

    left = max([len(corner), *(len(name) for name, _ in rows)])
    return [line(corner, columns), *(line(name, cells) for name, cells in rows)]


def read(line: str) -> ModelTable | None:
    """The table of a countermodel evidence line; None for any other line.

    >>> t = read("the conclusion can hold: domain {d1}; Rain; f(d1) = d1; a = d1; "
    ...          "Wet = {} — all premises hold and so does the conclusion (vampire)")
    >>> t.elements, t.aliases, t.unary, t.empty
    (('d1',), (('d1', ('a',)),), (), ('Wet',))
    >>> [(r.name, r.listed) for r in t.others]
    [('Rain', ('true',)), ('f', ('f(d1) = d1',))]
    >>> read("proves the conclusion: premises[0] (z3)") is None
    True
    """
    head, sep, rest = line.partition(": ")
    if not sep or head not in _HEADS or " — " not in rest:
        return None
    body, tail = rest.rsplit(" — ", 1)
    parts = body.split("; ")
    domain = _DOMAIN.fullmatch(parts[0])
    if domain is None:
        return None
    elements = tuple(e for e in domain.group(1).split(", ") if e)
    aliases: dict[str, list[str]] = {}
    holds: dict[str, list[tuple[str, ...]]] = {}
    fails: dict[str, list[tuple[str, ...]]] = {}
    arity: dict[str, int] = {}
    functions: dict[str, list[str]] = {}
    truth: dict[str, str] = {}
    empty: list[str] = []
    cut = ""
    for part in parts[1:]:
        if more := _MORE.fullmatch(part):
            cut = f"{more.group(1)} more atoms not shown"
        elif part.startswith("(") and part.endswith(")"):
            cut = part[1:-1].replace(": too large to list atom by atom", ": not listed")
        elif part.endswith(" = {}"):
            empty.append(part.removesuffix(" = {}"))  # of any arity: the line does not say
        elif " = " in part and "(" in part.split(" = ")[0]:
            functions.setdefault(part.split("(")[0], []).append(part)
        elif " = " in part:
            constant, element = part.split(" = ", 1)
            aliases.setdefault(element, []).append(constant)
        elif atom := _ATOM.fullmatch(part):
            negated, name, args = atom.groups()
            values = tuple(a for a in args.split(", ") if a)
            arity[name] = len(values)
            (fails if negated else holds).setdefault(name, []).append(values)
            holds.setdefault(name, [])
        elif part.startswith("¬"):
            truth[part[1:]] = "false"
        else:
            truth[part] = "true"
    unary, binary, others = [], [], []
    # past a cut, an unlisted tuple may still hold: say so rather than ✗
    unlisted = UNSAID if cut else FAILS
    for name in sorted(holds):
        true, false = set(holds[name]), set(fails.get(name, []))

        def cell(values: tuple[str, ...]) -> str:
            return HOLDS if values in true else FAILS if values in false else unlisted  # noqa: B023

        if arity[name] == 1:
            unary.append(Row(name, cells=tuple(cell((e,)) for e in elements)))
        elif arity[name] == 2:
            grid = tuple(tuple(cell((a, b)) for b in elements) for a in elements)
            binary.append(Grid(name, grid))
        else:
            listed = tuple(f"({', '.join(t)})" for t in holds[name])
            failing = tuple(f"({', '.join(t)})" for t in fails.get(name, []))
            others.append(Row(name, listed=listed, failing=failing))
    others += [Row(name, listed=(value,)) for name, value in truth.items()]
    others += [Row(name, listed=tuple(values)) for name, values in functions.items()]
    return ModelTable(
        head,
        tail,
        elements,
        tuple((e, tuple(names)) for e, names in aliases.items()),
        tuple(unary),
        tuple(binary),
        tuple(sorted(others, key=lambda r: r.name)),
        tuple(empty),
        cut,
    )


def why(line: str) -> str:
    """An evidence line for a terminal: a countermodel as its aligned table, indented under it.

    >>> print(why("the conclusion can fail: domain {a}; P(a) — all premises hold and the "
    ...           "conclusion fails (z3)"))
    the conclusion can fail — all premises hold and the conclusion fails (z3)
           a
        P  ✓
    >>> why("proves the conclusion: premises[0] (z3)")
    'proves the conclusion: premises[0] (z3)'
    """
    table = read(line)
    if table is None:
        return line
    head, *rest = table.text().split("\n")
    return "\n".join([head, *(f"  {r}" if r else "" for r in rest)])


def evidence_models(lines: Iterable[str]) -> list[dict[str, object] | None]:
    """Per evidence line, its table in JSON form (`ModelTable.to_dict`), or None for a proof."""
    return [None if (table := read(line)) is None else table.to_dict() for line in lines]
