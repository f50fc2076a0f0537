"""A finite model in source names: what a person reads when a direction is not provable.

A `Countermodel` lists its domain elements, which constant denotes which element, which function
maps which arguments where, and which predicates hold of which elements; every predicate not
listed for a tuple is false of it (a model is total, and this one is finite). Elements are named
after the constants that denote them (the alphabetically first; the others are aliases), and
unnamed elements `d1`, `d2`, …, so a model reads like the item's own words:
`domain {lakeside, mara}; StudentAt(mara, lakeside); CanBorrow = {}`.

Backends (Z3's model API, Vampire's finite model builder) fill one in; `holds` evaluates a
formula in it, which is how tests and benchmarks check that a recorded countermodel really
makes the premises true and the conclusion false, independently of the prover that found it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from refinery.logic.syntax import (
    And,
    Const,
    Eq,
    Exists,
    Forall,
    Formula,
    Func,
    Iff,
    Implies,
    Not,
    Or,
    Pred,
    Term,
    Var,
    Xor,
)

#: A model with more elements than this is not rendered atom by atom (it would not be read).
MAX_SHOWN_ELEMENTS = 12
#: At most this many atoms are listed; the rest is counted.
MAX_SHOWN_FACTS = 60


@dataclass(frozen=True, slots=True)
class Countermodel:
    """A finite first-order model, in source names.

    Attributes
    ----------
    domain:
        The element names, in display order.
    constants:
        Constant name → the element it denotes.
    predicates:
        (predicate name, arity) → the tuples of elements it holds of; a 0-ary predicate holds
        when its set contains the empty tuple. Tuples absent from a set are false.
    functions:
        (function name, arity) → {argument tuple: value}; total over the domain.
    """

    domain: tuple[str, ...]
    constants: Mapping[str, str] = field(default_factory=dict)
    predicates: Mapping[tuple[str, int], frozenset[tuple[str, ...]]] = field(default_factory=dict)
    functions: Mapping[tuple[str, int], Mapping[tuple[str, ...], str]] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.domain)

    # -- evaluation ---------------------------------------------------------------------------

    def holds(self, formula: Formula) -> bool:
        """Whether `formula` (closed) is true in this model.

        A symbol the model does not interpret raises `KeyError`: the model is not one of this
        formula's language, which is a bug upstream, not a truth value.

        >>> from refinery.logic.parse import parse
        >>> m = Countermodel(("ann", "bob"), {"ann": "ann", "bob": "bob"},
        ...                  {("Tall", 1): frozenset({("ann",)})})
        >>> m.holds(parse("Tall(ann) ∧ ¬Tall(bob)")), m.holds(parse("∀x Tall(x)"))
        (True, False)
        """
        return self._formula(formula, {})

    def _formula(self, f: Formula, env: Mapping[str, str]) -> bool:
        match f:
            case Pred(name, args):
                values = tuple(self._term(a, env) for a in args)
                return values in self.predicates[(name, len(args))]
            case Eq(left, right):
                return self._term(left, env) == self._term(right, env)
            case Not(body):
                return not self._formula(body, env)
            case And(args):
                return all(self._formula(a, env) for a in args)
            case Or(args):
                return any(self._formula(a, env) for a in args)
            case Xor(left, right):
                return self._formula(left, env) != self._formula(right, env)
            case Implies(left, right):
                return not self._formula(left, env) or self._formula(right, env)
            case Iff(left, right):
                return self._formula(left, env) == self._formula(right, env)
            case Forall(var, body):
                return all(self._formula(body, {**env, var: d}) for d in self.domain)
            case Exists(var, body):
                return any(self._formula(body, {**env, var: d}) for d in self.domain)
            case _:
                assert_never(f)

    def _term(self, t: Term, env: Mapping[str, str]) -> str:
        match t:
            case Var(name):
                return env[name]
            case Const(name):
                return self.constants[name]
            case Func(name, args):
                values = tuple(self._term(a, env) for a in args)
                return self.functions[(name, len(args))][values]
            case _:
                assert_never(t)

    # -- rendering ----------------------------------------------------------------------------

    def render(self, *, false_atoms: Iterable[Pred] = ()) -> str:
        """One line a person can read: domain, aliases, functions, true atoms, empty predicates.

        `false_atoms` (ground atoms, e.g. the conclusion's) are shown negated when false, so the
        line says what fails, not only what holds.

        >>> m = Countermodel(("lakeside", "mara"), {"mara": "mara", "lakeside": "lakeside",
        ...     "lake": "lakeside"}, {("StudentAt", 2): frozenset({("mara", "lakeside")}),
        ...     ("CanBorrow", 1): frozenset(), ("TeacherAt", 2): frozenset()})
        >>> from refinery.logic.parse import parse
        >>> m.render(false_atoms=[parse("TeacherAt(mara, lakeside)")])
        'domain {lakeside, mara}; lake = lakeside; StudentAt(mara, lakeside); ¬TeacherAt(mara, lakeside); CanBorrow = {}'
        """
        parts = [f"domain {{{', '.join(self.domain)}}}"]
        parts += [f"{c} = {e}" for c, e in sorted(self.constants.items()) if c != e]
        if self.size > MAX_SHOWN_ELEMENTS:
            parts.append(f"({self.size} elements: too large to list atom by atom)")
            return "; ".join(parts)
        order = {e: i for i, e in enumerate(self.domain)}
        facts: list[str] = []
        for (name, _), table in sorted(self.functions.items()):
            for row, value in sorted(table.items(), key=lambda kv: [order[a] for a in kv[0]]):
                facts.append(f"{name}({', '.join(row)}) = {value}")
        empty: list[str] = []
        for (name, arity), holds in sorted(self.predicates.items()):
            if not holds and arity > 0:
                empty.append(f"{name} = {{}}")
                continue
            if arity == 0:
                facts.append(name if holds else f"¬{name}")
                continue
            for row in sorted(holds, key=lambda a: [order[x] for x in a]):
                facts.append(f"{name}({', '.join(row)})")
        shown_false = []
        for atom in false_atoms:
            try:
                true = self._formula(atom, {})
            except KeyError:
                continue  # not ground in this model's language: nothing to show
            if not true:
                shown = ", ".join(self._term(a, {}) for a in atom.args)
                shown_false.append(f"¬{atom.name}({shown})" if atom.args else f"¬{atom.name}")
        listed = facts + [f for f in dict.fromkeys(shown_false) if f not in facts]
        negated = {atom.name for atom in false_atoms}
        empty = [e for e in empty if e.split(" = ")[0] not in negated]  # its ¬atom says it
        if len(listed) > MAX_SHOWN_FACTS:
            listed = [*listed[:MAX_SHOWN_FACTS], f"… {len(listed) - MAX_SHOWN_FACTS} more atoms"]
        return "; ".join(parts + listed + empty)

    # -- storage ------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the verdict cache, the audit trail); `from_dict` reads it back."""
        return {
            "domain": list(self.domain),
            "constants": dict(self.constants),
            "predicates": [
                [name, arity, sorted(list(t) for t in holds)]
                for (name, arity), holds in sorted(self.predicates.items())
            ],
            "functions": [
                [name, arity, [[list(args), value] for args, value in sorted(table.items())]]
                for (name, arity), table in sorted(self.functions.items())
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Countermodel:
        return cls(
            domain=tuple(data["domain"]),
            constants=dict(data["constants"]),
            predicates={
                (name, arity): frozenset(tuple(t) for t in holds)
                for name, arity, holds in data["predicates"]
            },
            functions={
                (name, arity): {tuple(args): value for args, value in table}
                for name, arity, table in data["functions"]
            },
        )


def element_names(
    elements: Sequence[Any], constants: Mapping[str, Any]
) -> tuple[dict[Any, str], dict[str, str]]:
    """Readable names for a backend's elements, and each constant's element by that name.

    An element is named after the alphabetically first constant that denotes it; the other
    elements are `d1`, `d2`, … in the backend's order (skipping a name a constant already has).

    >>> names, consts = element_names(["e0", "e1", "e2"], {"bob": "e1", "ann": "e1", "cy": "e0"})
    >>> [names[e] for e in ("e0", "e1", "e2")], consts
    (['cy', 'ann', 'd1'], {'ann': 'ann', 'bob': 'ann', 'cy': 'cy'})
    """
    names: dict[Any, str] = {}
    for constant in sorted(constants):
        names.setdefault(constants[constant], constant)
    taken = set(names.values())
    counter = itertools.count(1)
    for e in elements:
        if e not in names:
            name = f"d{next(counter)}"
            while name in taken:
                name = f"d{next(counter)}"
            names[e] = name
    return names, {c: names[e] for c, e in sorted(constants.items())}


def display_order(names: Mapping[Any, str], constants: Mapping[str, str]) -> tuple[str, ...]:
    """Named elements first (alphabetically), then the unnamed ones in order.

    >>> display_order({0: "d1", 1: "bob", 2: "ann"}, {"bob": "bob", "ann": "ann"})
    ('ann', 'bob', 'd1')
    """
    named = sorted(set(constants.values()))
    return (*named, *(n for n in names.values() if n not in named))
