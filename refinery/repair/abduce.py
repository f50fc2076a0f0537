"""Background knowledge by abduction: the fewest facts the sentences take for granted that make
the provers prove the gold label.

Where the FOL reads right and still leaves the gold label open, a fact may be missing ("a bee
is an animal"). The search tries axioms of fixed templates over the item's own symbols:

- `∀x (P(x) → Q(x))`, only where the words say it (`QueenBee` is a `Bee`: its name holds
  the other's words) or WordNet does (some sense of "bee" is a kind of "animal");
- `∀x (P(x) → ¬Q(x))`, only where WordNet calls the two adjectives opposites;
- `P(c)` for a constant, only where WordNet says what `c` names is a P ("Georgia" is a "state");
- `C(c)` for a constant, where every rule of the premises that says of a thing what the
  story says of `c` (the same relation, the same place) speaks of `C` things only: the rules
  about books are taken to be about Hamlet, which the story treats as one;
- `∀x ∀y (R(x, y) → ¬R(y, x))` where R's name says "than": a comparison holds one way;
- `¬(a = b)` for two constants: two names, two things;
- `∀x ∀y (P(x) ∧ P(y) → x = y)`, only where P's name holds a superlative ("the smallest race
  track" is one thing), so that what the story says of it holds of every one so named;
- `∀x ∀y (R(c, x) ∧ R(c, y) → x = y)` where a sentence says "C's …" of the constant `c` and two
  formulas each bring in what `c` has by a fresh `∃` in `R`: "Tom's license plate" is one plate,
  however many sentences speak of it.

It is guided by a countermodel, as abduction by hand is: Z3 finds a model of the premises in
which the gold label fails, and only an axiom that model breaks can help. Each such axiom is
tried with Z3 first, then confirmed by every prover, with the premises still consistent; when
none suffices alone, the best is kept and the search asks for a new countermodel (at most
`MAX_AXIOMS` axioms). A bridge is never merged into the premises: it is proposed, with why each
axiom is plausible, the proof that it reaches the gold label (the premises and facts it used)
and how many prover calls the search took.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from refinery.addresses import CONCLUSION, PREMISE_ADDRESS, background
from refinery.agents.models import ItemContext
from refinery.agents.reading.lexicon import Lexicon
from refinery.agents.reading.words import FUNCTION_WORDS, content, name_words
from refinery.check import Checker
from refinery.datasets.records import Item
from refinery.labels import Label
from refinery.logic.analysis import occurrences, subformulas
from refinery.logic.parse import parses
from refinery.logic.printer import to_text
from refinery.logic.syntax import And, Const, Eq, Exists, Forall, Formula, Implies, Not, Pred, Var
from refinery.prove.verdict import Problem

#: The most axioms a bridge may have.
MAX_AXIOMS = 2
#: The most candidates tried against one countermodel (by rank).
MAX_TRIED = 8


@dataclass(frozen=True, slots=True)
class Candidate:
    """One background axiom and why it is plausible."""

    formula: Formula
    support: str
    rank: int  # lower first: WordNet and the words before two names, two things

    @property
    def text(self) -> str:
        return to_text(self.formula)


@dataclass(frozen=True, slots=True)
class Bridge:
    """Axioms that, added to the premises, make every prover prove the gold label."""

    axioms: tuple[Candidate, ...]
    calls: int
    #: the provers' proof of the gold label with the axioms: what it used (``proves the
    #: conclusion: premises[0], background[0] (eprover, z3)``); empty where none was found
    proof: str = ""

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(c.text for c in self.axioms)

    def describe(self) -> str:
        return "; ".join(f"{c.text} ({c.support})" for c in self.axioms)


def candidates(context: ItemContext, lexicon: Lexicon | None) -> list[Candidate]:
    """Every templated axiom over the item's unary predicates and constants that the words or
    WordNet support, best first."""
    unary: set[str] = set()
    binary: set[str] = set()
    constants: set[str] = set()
    for text in context.fol.values():
        f = parses(text)
        for o in occurrences(f) if f is not None else ():
            if o.kind == "predicate" and o.arity == 1:
                unary.add(o.name)
            elif o.kind == "predicate" and o.arity == 2:
                binary.add(o.name)
            elif o.kind == "constant":
                constants.add(o.name)
    out: list[Candidate] = [*_presumed(context), *_comparisons(binary), *_possessives(context)]
    for p in sorted(unary):
        for q in sorted(unary - {p}):
            rule = Forall("x", Implies(Pred(p, (Var("x"),)), Pred(q, (Var("x"),))))
            said = _said(p, q)
            if said:
                out.append(Candidate(rule, said, 0))
                continue
            chain = _kind_of(lexicon, p, q) if lexicon else ()
            if chain:
                out.append(Candidate(rule, "WordNet: " + " → ".join(chain), 1))
            elif lexicon and lexicon.opposite(_phrase(p), _phrase(q)):
                denial = Forall("x", Implies(Pred(p, (Var("x"),)), Not(Pred(q, (Var("x"),)))))
                out.append(
                    Candidate(denial, f"WordNet: {_phrase(p)} is the opposite of {_phrase(q)}", 1)
                )
    for c in sorted(constants) if lexicon else ():
        for p in sorted(unary):
            chain = lexicon.kind_of(_phrase(c), _phrase(p)) if lexicon else ()
            if chain:
                fact = Pred(p, (Const(c),))
                out.append(Candidate(fact, "WordNet: " + " → ".join(chain), 1))
    for p in sorted(unary) if lexicon else ():
        best = [w for w in name_words(p) if lexicon and lexicon.superlative(w)]
        if best:
            x, y = Var("x"), Var("y")
            one = Implies(And((Pred(p, (x,)), Pred(p, (y,)))), Eq(x, y))
            support = f"a superlative: at most one thing is the {_phrase(p)}"
            out.append(Candidate(Forall("x", Forall("y", one)), support, 1))
    out.sort(key=lambda c: (c.rank, c.text))
    # two names of the same sort first (both awarded the prize, both contributing to a field):
    # a countermodel that merges names merges many, and only the first few are tried
    places = _places(context)
    pairs = [(a, b) for i, a in enumerate(sorted(constants)) for b in sorted(constants)[i + 1 :]]
    pairs.sort(key=lambda p: (-len(places.get(p[0], set()) & places.get(p[1], set())), p))
    out += [Candidate(Not(Eq(Const(a), Const(b))), "two names, two things", 2) for a, b in pairs]
    return out


def _places(context: ItemContext) -> dict[str, set[tuple[str, int]]]:
    """Each constant's (predicate, place) uses over the item's formulas."""
    found: dict[str, set[tuple[str, int]]] = {}
    for text in context.fol.values():
        f = parses(text)
        for atom in (n for n in subformulas(f) if isinstance(n, Pred)) if f is not None else ():
            for i, term in enumerate(atom.args):
                if isinstance(term, Const):
                    found.setdefault(term.name, set()).add((atom.name, i))
    return found


def abduce(
    item: Item, context: ItemContext, checker: Checker, lexicon: Lexicon | None
) -> Bridge | None:
    """The smallest bridge found for the gold label of `context` (True or False): its axioms
    are () where the search found none. None where no search could run (no gold True or
    False, no conclusion that parses, no Z3)."""
    gold = context.gold
    premises = [
        f for w, t in context.fol.items() if w != CONCLUSION and (f := parses(t)) is not None
    ]
    conclusion = parses(context.fol.get(CONCLUSION, ""))
    finder = next((p for p in checker.provers if p.name == "z3"), None)
    if gold not in (Label.TRUE, Label.FALSE) or conclusion is None or finder is None:
        return None
    goal = conclusion if gold is Label.TRUE else Not(conclusion)
    # a fact that is the goal itself ("Beethoven is a composer" for that conclusion) proves
    # nothing about the story: the trivial bridge
    pool = [c for c in candidates(context, lexicon) if c.text != to_text(goal)]
    screen = dataclasses.replace(checker, provers=[finder], evidence=False)
    chosen: list[Candidate] = []
    calls = 0
    for _ in range(MAX_AXIOMS):
        problem = Problem(tuple(premises) + tuple(c.formula for c in chosen), goal)
        verdict = finder.find_model(problem, checker.budget)  # type: ignore[attr-defined]
        calls += 1
        model = verdict.countermodel
        if model is None:
            break  # no countermodel to guide the search (or the gold already follows)
        useful = [c for c in pool if c not in chosen and _breaks(model, c.formula)][:MAX_TRIED]
        for c in useful:
            extras = tuple(x.text for x in (*chosen, c))
            calls += 1
            if label_with(screen, item, context, extras) is not gold:
                continue
            calls += 1
            if label_with(checker, item, context, extras) is gold:
                return fewest(item, context, checker, (*chosen, c), calls)
        if not useful:
            break
        chosen.append(useful[0])
    return Bridge((), calls)


def fewest(
    item: Item, context: ItemContext, checker: Checker, axioms: tuple[Candidate, ...], calls: int
) -> Bridge:
    """The bridge of `axioms` (which every prover has confirmed), without any axiom that no
    prover's proof uses: an axiom kept from an earlier countermodel may have turned out
    unneeded once the next one was found."""
    proof, used = proof_with(checker, item, context, [a.text for a in axioms])
    calls += 1
    kept = tuple(a for i, a in enumerate(axioms) if i in used)
    if kept and len(kept) < len(axioms):
        texts = [a.text for a in kept]
        calls += 2
        if label_with(checker, item, context, texts) is context.gold:
            return Bridge(kept, calls, proof_with(checker, item, context, texts)[0])
    return Bridge(axioms, calls, proof)


def _breaks(model: object, axiom: Formula) -> bool:
    """Whether the countermodel makes `axiom` false (an axiom it satisfies cannot help)."""
    try:
        return not model.holds(axiom)  # type: ignore[attr-defined]
    except KeyError:
        return True  # a symbol the model leaves out: it cannot tell, so the axiom is tried


def label_with(
    checker: Checker, item: Item, context: ItemContext, extras: Iterable[str]
) -> Label | None:
    """The label `checker`'s provers agree on for `context`'s FOL with `extras` as more
    premises (labels only: no cores, no countermodels), through its cache."""
    plain = dataclasses.replace(checker, evidence=False)
    (row,) = plain.check_story([_with_extras(item, context, tuple(extras))])
    return Label(row.label) if row.label else None


def proof_with(
    checker: Checker, item: Item, context: ItemContext, extras: Sequence[str]
) -> tuple[str, set[int]]:
    """The provers' proof lines for `context`'s FOL with `extras` as more premises, each extra
    named by its background address (`premises[n]` → `background[0]`), and the positions of
    the extras some proof used."""
    more = _with_extras(item, context, tuple(extras))
    n = len(more.premises_fol) - len(extras)  # the item's own premises come first
    (row,) = checker.check_story([more])
    lines = [line for line in row.evidence.split("\n") if line.startswith("proves")]
    used: set[int] = set()

    def named(found: re.Match[str]) -> str:
        i = int(found.group(1))
        if i < n:
            return found.group(0)
        used.add(i - n)
        return background(i - n)

    return "; ".join(PREMISE_ADDRESS.sub(named, line) for line in lines), used


def _with_extras(item: Item, context: ItemContext, extras: tuple[str, ...]) -> Item:
    """`item` with `context`'s FOL and `extras` as more premises (no sentence of their own)."""
    base = item.with_formulas(context.fol)
    return dataclasses.replace(
        base,
        premises=(*base.premises, *("" for _ in extras)),
        premises_fol=(*base.premises_fol, *extras),
    )


def _comparisons(binary: Iterable[str]) -> list[Candidate]:
    """`∀x ∀y (R(x, y) → ¬R(y, x))` for each two-place R whose name says "than"
    (`RankHigherThan`): of two things, one ranks higher than the other, not both ways."""
    out = []
    for r in sorted(binary):
        if "than" in name_words(r):
            x, y = Var("x"), Var("y")
            one_way = Implies(Pred(r, (x, y)), Not(Pred(r, (y, x))))
            support = f"a comparison: '{' '.join(name_words(r))}' holds one way between two things"
            out.append(Candidate(Forall("x", Forall("y", one_way)), support, 1))
    return out


#: "Tom's", "Walter Folger Brown's": a possessive, its owner's name and the two words after it
_POSSESSIVE = re.compile(r"\b((?:[A-Z][\w-]*\s+)*[A-Z][\w-]*)['’]s((?:\s+[A-Za-z][\w-]*){0,2})")


def _possessives(context: ItemContext) -> list[Candidate]:
    """`∀x ∀y (R(c, x) ∧ R(c, y) → x = y)` (or with `c` second) where a sentence says "C's …"
    of the constant `c` named C, its formula brings in what `c` has by a fresh `∃` in `R`, and
    another formula does the same: two sentences about "Tom's license plate" each written
    `∃x (Owns(tom, x) ∧ …)` speak of one plate, which the FOL leaves open."""
    fresh: dict[tuple[str, str, int], set[str]] = {}  # (R, c, c's place) → where ∃ binds the other
    for where, text in context.fol.items():
        f = parses(text)
        for node in subformulas(f) if f is not None else ():
            if not isinstance(node, Exists):
                continue
            for atom in (a for a in subformulas(node.body) if isinstance(a, Pred)):
                if len(atom.args) == 2 and Var(node.var) in atom.args:
                    i = 1 - atom.args.index(Var(node.var))
                    if isinstance(owner := atom.args[i], Const):
                        fresh.setdefault((atom.name, owner.name, i), set()).add(where)
    out: list[Candidate] = []
    for (relation, c, i), places in sorted(fresh.items()):
        if len(places) < 2:
            continue
        said = [
            m.group(0)
            for where in sorted(places)
            for m in _POSSESSIVE.finditer(context.nl.get(where, ""))
            if [w.lower() for w in m.group(1).split()] == [w.lower() for w in name_words(c)]
        ]
        if said:
            x, y = Var("x"), Var("y")
            has_x, has_y = (
                Pred(relation, (Const(c), v) if i == 0 else (v, Const(c))) for v in (x, y)
            )
            one = Implies(And((has_x, has_y)), Eq(x, y))
            support = f'a possessive: "{said[0]}" names one thing'
            out.append(Candidate(Forall("x", Forall("y", one)), support, 1))
    return out


def _presumed(context: ItemContext) -> list[Candidate]:
    """`C(c)` where the story says of the constant `c` what its rules ask only of `C` things:
    every premise rule whose condition has an atom of a relation in a place where `c` stands
    elsewhere guards that variable with `C` in the same condition, no formula says whether `c`
    is a `C`, and no premise states a one-place fact of `c` (a thing the story gives a kind of
    its own, "Jason Kramer is a music supervisor", is not presumed another from a rule that may
    be misread). "All books written by Neil Gaiman …", "Hamlet is written by Neil Gaiman": the
    story takes Hamlet to be a book."""
    guards: dict[tuple[str, int], list[set[str]]] = {}  # (relation, place) → each rule's guards
    kinded: set[str] = set()  # constants a premise states a one-place fact of
    for where, text in context.fol.items():
        f = parses(text)
        if f is None:
            continue
        if where != CONCLUSION:
            stated = f.args if isinstance(f, And) else (f,)
            kinded |= {
                a.args[0].name
                for a in stated
                if isinstance(a, Pred) and len(a.args) == 1 and isinstance(a.args[0], Const)
            }
        if where == CONCLUSION:
            continue
        for var, condition in _rules(f):
            kinds = {a.name for a in condition if a.args == (Var(var),)}
            for atom in condition:
                if atom.args == (Var(var),) and atom.name in kinds:
                    continue  # a guard itself
                for i, term in enumerate(atom.args):
                    if term == Var(var):
                        guards.setdefault((atom.name, i), []).append(kinds)
    out: list[Candidate] = []
    for c, places in sorted(_places(context).items()):  # where each constant stands
        if c in kinded:
            continue  # the story gives it a kind of its own: the words or WordNet must link them
        for relation, i in sorted(places):
            rules = guards.get((relation, i), [])
            if not rules:
                continue
            for kind in sorted(set.intersection(*rules) - {relation}):
                # a kind is one-place: `C(c)` said or denied anywhere stands at (C, 0)
                if (kind, 0) not in places and _a_kind(kind):
                    support = (
                        f"the story's rules ask {relation} only of {_phrase(kind)} things, "
                        f"and say it of {c}"
                    )
                    out.append(Candidate(Pred(kind, (Const(c),)), support, 1))
    return list({c.text: c for c in out}.values())


def _a_kind(name: str) -> bool:
    """Whether a one-place predicate names a kind of thing (`Book`, `LeetcodeProblems`), not a
    circumstance its first word places it in (`InThisBatch`)."""
    words = name_words(name)
    return bool(words) and words[0] not in FUNCTION_WORDS


def _rules(f: Formula) -> list[tuple[str, list[Pred]]]:
    """(variable, the atoms its condition joins) for a premise `∀x (A ∧ B … → …)` (`∀x ∀y …`
    gives both variables). Only a condition guards: a rule's consequent says what follows,
    and taking a thing to be of the kind it follows for would affirm the consequent."""
    variables: list[str] = []
    while isinstance(f, Forall):
        variables.append(f.var)
        f = f.body
    if not isinstance(f, Implies):
        return []
    parts = f.left.args if isinstance(f.left, And) else (f.left,)
    condition = [p for p in parts if isinstance(p, Pred)]
    return [(v, condition) for v in variables]


def _kind_of(lexicon: Lexicon, p: str, q: str) -> tuple[str, ...]:
    """WordNet's chain from P's phrase, or else its head (a `ProfessionalBasketballPlayer` is a
    kind of whatever a "basketball player", else a "player", is a kind of), up to Q's phrase."""
    words = content(name_words(p)) or name_words(p)
    for k in range(len(words)):
        chain = lexicon.kind_of(" ".join(words[k:]), _phrase(q))
        if chain:
            return chain
    return ()


def _phrase(name: str) -> str:
    """A predicate's words as WordNet spells a phrase (`CelestialBody` → "celestial body")."""
    return " ".join(content(name_words(name)) or name_words(name))


def _said(p: str, q: str) -> str:
    """Why the words alone say every P is a Q: P's name holds all of Q's words and more."""
    mine, theirs = content(name_words(p)), content(name_words(q))
    if theirs and len(mine) > len(theirs) and mine[-len(theirs) :] == theirs:
        return f"the words: a {' '.join(mine)} is a {' '.join(theirs)}"
    return ""
