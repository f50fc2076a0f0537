"""What a formula says, counted: negations, quantifiers by their effective kind, connectives, atoms.

The counts are what a sentence's cues are compared with (`refinery.agents.alignment.checks`).
Quantifiers are counted by the kind they have in effect: `¬∀x` reads "not all" (existential),
`¬∃x` reads "no" (universal), and a quantifier in a rule's condition flips the same way.
`¬(a = b)` is FOLIO's "distinct", not a negation any sentence states.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import assert_never

from refinery.logic.analysis import atom_terms, subformulas
from refinery.logic.printer import to_text
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


@dataclass(frozen=True, slots=True)
class Atom:
    """A predicate occurrence: its name, its argument names (variables too), and whether an odd
    number of ¬ stand over it (a rule's condition does not count: `negative` is what the formula
    writes, not the atom's polarity)."""

    name: str
    args: tuple[str, ...]
    negative: bool


@dataclass(frozen=True, slots=True)
class Implication:
    """One `→`: the predicates and the constants on each side, and which side negates."""

    antecedent: frozenset[str]
    consequent: frozenset[str]
    antecedent_constants: frozenset[str] = frozenset()
    consequent_constants: frozenset[str] = frozenset()
    negated_antecedent: bool = False  # a ¬ inside the condition
    negated_consequent: bool = False
    #: the result speaks of a variable the condition does not (`… → Prefer(z, x)` for
    #: "everyone prefers the smoother road": the sentence's subject is not the rule's condition)
    new_variable: bool = False


@dataclass(frozen=True, slots=True)
class Shape:
    """The counts of one formula."""

    negations: int = 0
    universal: int = 0
    existential: int = 0
    ands: int = 0
    ors: int = 0
    or_links: int = 0  # ∨ operators: `A ∨ B ∨ C` has two, as "A, B, or C" has its commas
    negated_ors: int = 0  # ∨ under an odd number of ¬: "neither … nor"
    negative_ors: int = 0  # ∨ of negations only: ¬A ∨ ¬B is how "not both A and B" reads
    condition_ors: int = 0  # ∨ in a rule's condition: "students and teachers are …" reads so
    xors: int = 0
    implications: tuple[Implication, ...] = ()
    iffs: int = 0
    atoms: tuple[Atom, ...] = ()
    constants: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    double_negations: int = 0  # ¬¬φ: FOLIO never writes one
    distinct: int = 0  # a ≠ b: "different", "another" — a negation the formula states as ≠
    exists_rules: int = 0  # ∃x (A → B): true of anything that is not an A
    forall_conjunctions: int = 0  # ∀x (A(x) ∧ B(x)): says everything is an A
    #: ¬(A ∧ B …): the predicate names of each conjunct a ¬ denies together
    denied_conjunctions: tuple[tuple[frozenset[str], ...], ...] = ()
    denied_negations: int = 0  # ¬(¬A ∧ B): a denied "and" with a negated part
    outer: str = ""  # the effective kind of the outermost quantifier, "∀" or "∃" ("" if none)
    subject: str = ""  # the variable the outermost quantifier binds: the sentence's subject
    #: (a conjunct written twice in one ∧, the conjunct another term lacks there):
    #: `Road(firstRoad) ∧ MadeOf(secondRoad, c) ∧ Road(firstRoad)`, `Road(secondRoad)` meant
    slips: tuple[tuple[str, str], ...] = ()

    @property
    def predicates(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(a.name for a in self.atoms))


def shape_of(formula: Formula) -> Shape:
    """Count `formula`.

    >>> from refinery.logic.parse import parse
    >>> s = shape_of(parse("¬∃x (Bird(x) ∧ In(x, aviary) ∧ Fly(x)) ∨ ¬(a = b)"))
    >>> s.negations, s.universal, s.existential, s.ands, s.ors, s.constants
    (1, 1, 0, 1, 1, ('aviary', 'a', 'b'))
    >>> shape_of(parse("∀x ((∃y R(x, y)) → P(x))")).universal  # ∃ in a condition: "any"
    2
    """
    counter = _Counter()
    counter.walk(formula, negative=False)
    return Shape(
        double_negations=counter.double_negations,
        distinct=counter.distinct,
        exists_rules=counter.exists_rules,
        forall_conjunctions=counter.forall_conjunctions,
        denied_conjunctions=tuple(counter.denied_conjunctions),
        denied_negations=counter.denied_negations,
        outer=_outer(formula),
        subject=_subject(formula),
        slips=tuple(counter.slips),
        negations=counter.negations,
        universal=counter.universal,
        existential=counter.existential,
        ands=counter.ands,
        ors=counter.ors,
        or_links=counter.or_links,
        negated_ors=counter.negated_ors,
        negative_ors=counter.negative_ors,
        condition_ors=counter.condition_ors,
        xors=counter.xors,
        implications=tuple(counter.implications),
        iffs=counter.iffs,
        atoms=tuple(counter.atoms),
        constants=tuple(dict.fromkeys(counter.constants)),
        functions=tuple(dict.fromkeys(counter.functions)),
    )


class _Counter:
    def __init__(self) -> None:
        self.negations = self.universal = self.existential = 0
        self.double_negations = self.exists_rules = self.forall_conjunctions = self.distinct = 0
        self.denied_conjunctions: list[tuple[frozenset[str], ...]] = []
        self.denied_negations = 0
        self.top = True  # still in the formula's leading quantifier prefix
        self.ands = self.ors = self.negated_ors = self.negative_ors = self.xors = self.iffs = 0
        self.denials = 0  # how many ¬ the walk is under
        self.or_links = 0
        self.conditions = 0  # how many implication conditions the walk is inside
        self.condition_ors = 0
        self.implications: list[Implication] = []
        self.atoms: list[Atom] = []
        self.constants: list[str] = []
        self.functions: list[str] = []
        self.slips: list[tuple[str, str]] = []

    def walk(self, f: Formula, *, negative: bool) -> None:
        match f:
            case Pred(name, args):
                self.top = False
                denied = self.denials % 2 == 1
                self.atoms.append(Atom(name, tuple(self._term(t) for t in args), denied))
            case Eq(left, right):
                self._term(left)
                self._term(right)
            case Not(Eq()):  # a ≠ b: "distinct", not a stated negation
                self.distinct += 1
                self.walk(f.body, negative=not negative)
            case Not(body):
                self.negations += 1
                self.double_negations += isinstance(body, Not)
                if isinstance(body, And):
                    self.denied_conjunctions.append(tuple(_parts(a)[0] for a in body.args))
                    self.denied_negations += any(isinstance(a, Not) for a in body.args)
                self.denials += 1  # a rule's condition flips polarity, but is not denied
                self.walk(body, negative=not negative)
                self.denials -= 1
            case And(args):
                self.ands += 1
                self.slips += _slips(f)
                for a in args:
                    self.walk(a, negative=negative)
            case Or(args):
                self.ors += 1
                self.or_links += len(args) - 1
                denied = self.denials % 2 == 1
                self.negated_ors += denied
                self.negative_ors += not denied and all(isinstance(a, Not) for a in args)
                self.condition_ors += self.conditions > 0 and not denied
                for a in args:
                    self.walk(a, negative=negative)
            case Xor(left, right):
                self.xors += 1
                self.walk(left, negative=negative)
                self.walk(right, negative=negative)
            case Implies(left, right):
                (lnames, lconsts, lneg, lvars), (rnames, rconsts, rneg, rvars) = (
                    _parts(left),
                    _parts(right),
                )
                self.implications.append(
                    Implication(lnames, rnames, lconsts, rconsts, lneg, rneg, bool(rvars - lvars))
                )
                self.conditions += 1
                self.walk(left, negative=not negative)
                self.conditions -= 1
                self.walk(right, negative=negative)
            case Iff(left, right):
                self.iffs += 1
                self.walk(left, negative=negative)
                self.walk(right, negative=negative)
            case Forall(_, body) | Exists(_, body):
                inner = body
                while isinstance(inner, Forall) and isinstance(f, Forall):
                    inner = inner.body
                # only at the top: a nested `∃y (A) → B` is how annotators write "if some y …"
                self.exists_rules += (
                    isinstance(f, Exists) and isinstance(body, Implies) and self.top
                )
                self.forall_conjunctions += (
                    isinstance(f, Forall)
                    and isinstance(inner, And)
                    and sum(1 for a in inner.args if isinstance(a, Pred)) >= 2
                    and not any(isinstance(a, Implies | Or | Xor | Iff) for a in inner.args)
                )
                universal = isinstance(f, Forall) != negative
                if not isinstance(body, Forall | Exists):
                    self.top = False  # the quantifier prefix ends here
                self.universal += universal
                self.existential += not universal
                self.walk(body, negative=negative)
            case _:
                assert_never(f)

    def _term(self, t: Term) -> str:
        match t:
            case Var(name):
                return name
            case Const(name):
                self.constants.append(name)
                return name
            case Func(name, args):
                self.functions.append(name)
                for a in args:
                    self._term(a)
                return name
            case _:
                assert_never(t)


def _slips(g: And) -> list[tuple[str, str]]:
    """Each conjunct written twice in the ∧ `g` where another term of `g` lacks it: a variable
    there, or a constant that is there the subject of an atom (`In(x, caspianSea)` asks nothing
    of `caspianSea`). A formula says nothing more by saying a thing twice: the annotator
    copied a conjunct and did not change its name. Linear in the ∧'s size."""
    atoms = [a for a in g.args if isinstance(a, Pred)]
    seen: set[Pred] = set()
    twice: dict[Pred, None] = {}
    for a in atoms:
        if a in seen:
            twice[a] = None
        seen.add(a)
    if not twice:
        return []
    out: list[tuple[str, str]] = []
    terms = [t for a in g.args for o in subformulas(a) for t in atom_terms(o)]
    subjects = {a.args[0] for a in atoms if a.args}
    others = [
        t
        for t in dict.fromkeys(terms)
        if isinstance(t, Var) or (isinstance(t, Const) and t in subjects)
    ]
    # two terms some predicate holds of in the same place are alike (`Passenger(y)`,
    # `Passenger(z)`): the copy more likely changed one into the other
    held: dict[tuple[int, Term], set[str]] = {}
    for a in atoms:
        for i, t in enumerate(a.args):
            held.setdefault((i, t), set()).add(a.name)

    for atom in twice:
        meant = min(
            (
                (not _alike(held, t, u), rank, to_text(new))
                for rank, u in enumerate(others)
                if u not in atom.args
                for k, t in enumerate(atom.args)
                if type(t) is type(u)
                and (new := Pred(atom.name, (*atom.args[:k], u, *atom.args[k + 1 :]))) not in seen
            ),
            default=None,
        )
        if meant is not None:
            out.append((to_text(atom), meant[2]))
    return out


def _alike(held: dict[tuple[int, Term], set[str]], t: Term, u: Term) -> bool:
    """Whether some predicate holds of `t` and of `u` in the same place (`held`: the predicate
    names at each (place, term))."""
    return any(held.get((i, t), set()) & held.get((i, u), set()) for i in range(3))


def _variables(f: Formula) -> set[str]:
    counter = _Counter()
    counter.walk(f, negative=False)
    return {arg for atom in counter.atoms for arg in atom.args}


def _outer(f: Formula) -> str:
    """The effective kind of the outermost quantifier (under leading ¬s)."""
    negative = False
    while isinstance(f, Not):
        negative, f = not negative, f.body
    if isinstance(f, Forall | Exists):
        return "∀" if isinstance(f, Forall) != negative else "∃"
    return ""


def _subject(f: Formula) -> str:
    while isinstance(f, Not):
        f = f.body
    return f.var if isinstance(f, Forall | Exists) else ""


@lru_cache(maxsize=4096)
def _parts(f: Formula) -> tuple[frozenset[str], frozenset[str], bool, frozenset[str]]:
    """The predicate names, the constants, whether `f` negates anything, and the variables its
    atoms hold: one walk, cached (each → of a chain asks about the rest of it again: uncached,
    the work grew 4× per link)."""
    counter = _Counter()
    counter.walk(f, negative=False)
    constants = frozenset(counter.constants)
    return (
        frozenset(a.name for a in counter.atoms),
        constants,
        counter.negations > 0,
        frozenset(arg for a in counter.atoms for arg in a.args) - constants,
    )
