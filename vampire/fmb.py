"""Vampire's `FiniteModel` output block → a `Countermodel` in source names.

Vampire's finite model builder (`-sa fmb`) prints the model it found as TPTP `tff` statements:
one declaration per domain element (`'fmb_$i_1'`), a definition per constant
(`c_mara = 'fmb_$i_1'`), and per function and predicate one conjunction listing its value on
every argument tuple (`f_best_1('fmb_$i_1') = 'fmb_$i_2' & …`, `~p_Young_1('fmb_$i_2') & …`).
Symbols are decoded with `refinery.logic.tptp.decode_symbol`, so the model speaks the item's own
names. Anything else in the block (a saturation, an unknown statement) gives None, never a guess.
"""

from __future__ import annotations

import re

from refinery.logic.tptp import decode_symbol
from refinery.prove.countermodel import Countermodel, display_order, element_names

_STATEMENT = re.compile(r"tff\(\s*'?([^',]+)'?\s*,\s*(\w+)\s*,(.*?)\)\s*\.\s*$", re.S | re.M)
_ELEMENT = re.compile(r"'(fmb_[^']+)'")
_ATOM = re.compile(r"(~?)\s*(\w+)(?:\(([^()]*)\))?$")
_EQUATION = re.compile(r"(\w+)(?:\(([^()]*)\))?\s*=\s*'(fmb_[^']+)'$")


def parse_finite_model(block: str) -> Countermodel | None:
    """The model a `FiniteModel` block describes, or None when it is not one we can read.

    >>> block = '''tff('declare_$i1',type,'fmb_$i_1':$i).
    ... tff(c_mara_definition,axiom,c_mara = 'fmb_$i_1').
    ... tff(predicate_p_Tall_1,axiom,
    ...            p_Tall_1('fmb_$i_1')
    ... ).
    ... tff(p_Rain_definition,axiom,~p_Rain).'''
    >>> m = parse_finite_model(block)
    >>> m.domain, dict(m.constants), sorted(m.predicates.items())
    (('mara',), {'mara': 'mara'}, [(('Rain', 0), frozenset()), (('Tall', 1), frozenset({('mara',)}))])
    """
    elements: list[str] = []
    constants: dict[str, str] = {}
    holds: dict[tuple[str, int], set[tuple[str, ...]]] = {}
    tables: dict[tuple[str, int], dict[tuple[str, ...], str]] = {}
    try:
        for _, role, body in _STATEMENT.findall(block):
            body = " ".join(body.split())
            if role == "type":
                declared = _ELEMENT.match(body)
                if declared is not None:
                    elements.append(declared.group(1))
                continue
            if role != "axiom" or body.startswith(("!", "'fmb")):
                continue  # the domain's closure and distinctness: implied by the elements
            for part in (p.strip() for p in body.split("&")):
                if not part:
                    continue
                if "=" in part:
                    _equation(part, constants, tables)
                else:
                    _literal(part, holds)
    except ValueError:
        return None
    if not elements:
        return None
    names, named = element_names(elements, constants)
    return Countermodel(
        domain=display_order(names, named),
        constants=named,
        predicates={
            key: frozenset(tuple(names[e] for e in row) for row in rows)
            for key, rows in holds.items()
        },
        functions={
            key: {tuple(names[e] for e in row): names[v] for row, v in table.items()}
            for key, table in tables.items()
        },
    )


def _args(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    found = tuple(_ELEMENT.findall(text))
    if len(found) != text.count(",") + 1:
        raise ValueError(f"unreadable arguments {text!r}")
    return found


def _equation(
    part: str, constants: dict[str, str], tables: dict[tuple[str, int], dict[tuple[str, ...], str]]
) -> None:
    m = _EQUATION.match(part)
    if m is None:
        raise ValueError(f"unreadable equation {part!r}")
    kind, name, arity = decode_symbol(m.group(1))
    args = _args(m.group(2))
    if kind == "constant":
        constants[name] = m.group(3)
    elif kind == "function" and len(args) == arity:
        tables.setdefault((name, arity), {})[args] = m.group(3)
    else:
        raise ValueError(f"unexpected equation {part!r}")


def _literal(part: str, holds: dict[tuple[str, int], set[tuple[str, ...]]]) -> None:
    m = _ATOM.match(part)
    if m is None:
        raise ValueError(f"unreadable literal {part!r}")
    kind, name, arity = decode_symbol(m.group(2))
    args = _args(m.group(3))
    if kind != "predicate" or len(args) != arity:
        raise ValueError(f"unexpected literal {part!r}")
    rows = holds.setdefault((name, arity), set())
    if not m.group(1):
        rows.add(args)
