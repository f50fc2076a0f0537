"""`close_free_variables`: bind a free variable, or name the constant it stands for.

A lost binder goes back where FOLIO puts binders (beside a twin variable's, before the group that
uses the variable, or among the leading quantifiers), ∀ or ∃ as the sentence's wording and the
formula's shape say; or the variable is the one constant the item's other formulas put there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

from refinery.agents.models import Edit, ErrorClass, ItemContext, Where
from refinery.agents.reading.cues import how_often, quantifier_cue
from refinery.agents.reading.words import name_words, tokens
from refinery.agents.repairs.edits import (
    Candidate,
    Fix,
    RuleTag,
    edits_for,
    grouping,
    joint,
    paren_pairs,
    parsed_fields,
    shape,
    splice,
)
from refinery.agents.repairs.located import VARIABLE, atoms_of, name_uses
from refinery.logic.analysis import bound_names
from refinery.logic.lint import lint
from refinery.logic.parse import parses
from refinery.logic.syntax import (
    And,
    Const,
    Eq,
    Exists,
    Forall,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Pred,
    Term,
    Var,
    Xor,
)

TAG = RuleTag("close_free_variables", ErrorClass.FREE_VARIABLE)


def _free_names(f: Formula) -> list[str]:
    """Names lint reports as free variables in `f`, in order of appearance."""
    names = []
    for issue in lint([("f", f)]):
        if issue.kind == "free_variable":
            m = re.match(r"'(.+)' is not bound", issue.message)
            if m:
                names.append(m.group(1))
    return list(dict.fromkeys(names))


def _quantify(text: str, quantifier: str, var: str) -> str:
    """`text` under `∀var`/`∃var`, adding parentheses only where the reader needs them.

    A quantifier's body extends to the end of the formula, so a prefix before another
    quantifier or a group around everything needs none.

    >>> _quantify("(P(x) → Q(x))", "∀", "x"), _quantify("P(x) → Q(x)", "∃", "x")
    ('∀x (P(x) → Q(x))', '∃x (P(x) → Q(x))')
    >>> _quantify("∀x (A(x) → B(x, y))", "∃", "y")
    '∃y ∀x (A(x) → B(x, y))'
    """
    body = text.strip()
    start = len(text) - len(text.lstrip())
    wrapped = paren_pairs(body).get(0) == len(body) - 1 and grouping(body, 0)
    if wrapped or body.startswith(("∀", "∃")):
        return f"{text[:start]}{quantifier}{var} {text[start:]}"
    return f"{text[:start]}{quantifier}{var} ({body}){text[start + len(body) :]}"


def _var_spans(text: str, var: str) -> list[tuple[int, int]]:
    """Where the free name `var` stands in `text` (it parses as a constant there)."""
    return [(u.start, u.end) for u in name_uses(text) if u.kind == "constant" and u.name == var]


def _innermost_group(text: str, spans: Sequence[tuple[int, int]]) -> int | None:
    """Start of the innermost grouping '(' whose pair encloses all `spans`, if any."""
    if not spans:
        return None
    lo, hi = min(s for s, _ in spans), max(e for _, e in spans)
    inside = [i for i, j in paren_pairs(text).items() if i < lo and hi <= j and grouping(text, i)]
    return max(inside) if inside else None


def _sole_constant(findings: ItemContext, where: Where, text: str, var: str) -> str | None:
    """The one constant other formulas of the item put where `var` stands (same predicate/slot)."""
    slots = {
        (atom.name, len(atom.args), i)
        for atom in atoms_of(text)
        for i, t in enumerate(atom.args)
        if isinstance(t, Const) and t.name == var
    }
    seen: set[str] = set()
    for other, other_text in findings.fol.items():
        if other == where:
            continue
        for atom in atoms_of(other_text):
            for name, arity, i in slots:
                if atom.name == name and len(atom.args) == arity:
                    t = atom.args[i]
                    if isinstance(t, Const) and not VARIABLE.fullmatch(t.name):
                        seen.add(t.name)
    return next(iter(seen)) if len(seen) == 1 else None


def _likely_quantifiers(scope: Formula | None) -> tuple[str, str]:
    """∀ before ∃ for a rule-shaped scope (→, ↔, ∨, ⊕, ¬), ∃ first for a conjunction or atom.

    FOLIO writes `∀x (P(x) → Q(x))` and `∃x (P(x) ∧ Q(x))`; the other pairings are rare.

    >>> from refinery.logic.parse import parse
    >>> _likely_quantifiers(parse("P(x) → Q(x)")), _likely_quantifiers(parse("∃y (P(x) ∧ R(x, y))"))
    (('∀', '∃'), ('∃', '∀'))
    """
    while isinstance(scope, Forall | Exists):
        scope = scope.body
    if isinstance(scope, And | Pred | Eq):
        return ("∃", "∀")
    return ("∀", "∃")


_PREFIX = re.compile(r"([∀∃])\s*([\w']+)\s*")


def _prefix(text: str) -> tuple[list[tuple[str, str, int]], int]:
    """The quantifiers a formula starts with, as (quantifier, variable, start), and its body's start.

    >>> _prefix("∃y ∀z (P(y, z))")
    ([('∃', 'y', 0), ('∀', 'z', 3)], 6)
    """
    chain: list[tuple[str, str, int]] = []
    pos = len(text) - len(text.lstrip())
    while (m := _PREFIX.match(text, pos)) is not None:
        chain.append((m.group(1), m.group(2), m.start()))
        pos = m.end()
    return chain, pos


def _roles(f: Formula) -> dict[str, frozenset[tuple[str, int, int, bool]]]:
    """For each variable or constant name, the argument slots it fills: (predicate, arity,
    position, under an odd number of negations); equality is the predicate '='."""
    out: dict[str, set[tuple[str, int, int, bool]]] = {}

    def slot(t: Term, role: tuple[str, int, int, bool]) -> None:
        if isinstance(t, Var | Const):
            out.setdefault(t.name, set()).add(role)

    def walk(g: Formula, neg: bool) -> None:
        match g:
            case Pred(name, terms):
                for i, t in enumerate(terms):
                    slot(t, (name, len(terms), i, neg))
            case Eq(lhs, rhs):
                slot(lhs, ("=", 2, 0, neg))
                slot(rhs, ("=", 2, 0, neg))
            case Not(body):
                walk(body, not neg)
            case And(parts) | Or(parts):
                for part in parts:
                    walk(part, neg)
            case Implies(left, right):
                walk(left, not neg)
                walk(right, neg)
            case Xor(left, right) | Iff(left, right):
                walk(left, neg)
                walk(right, neg)
            case Forall(_, body) | Exists(_, body):
                walk(body, neg)
            case _:
                assert_never(g)

    walk(f, False)
    return {name: frozenset(roles) for name, roles in out.items()}


def _twin_quantifier(f: Formula, chain: Sequence[tuple[str, str, int]], var: str) -> str | None:
    """The quantifier of the bound variables that fill exactly `var`'s slots, if they agree.

    FOLIO writes "two distinct cities" as twin variables under one quantifier:
    `∃x ∃y (City(x) ∧ City(y) ∧ ¬(x=y))`; a lost binder of one twin is the other's. Slots
    count with their polarity (`Visit(x) ∧ ¬Visit(y)` are no twins), equalities not at all.

    >>> from refinery.logic.parse import parse
    >>> text = "∃y (City(x) ∧ City(y) ∧ ¬(x=y))"
    >>> _twin_quantifier(parse(text), _prefix(text)[0], "x")
    '∃'
    """
    roles = {
        name: frozenset(r for r in slots if r[0] != "=") for name, slots in _roles(f).items()
    }  # twins differ in the equalities that keep them apart
    mine = roles.get(var)
    found = {q for q, v, _ in chain if v != var and mine and roles.get(v) == mine}
    return found.pop() if len(found) == 1 else None


def _var_quantifiers(f: Formula, var: str) -> tuple[str, str]:
    """`_likely_quantifiers` for the smallest subformula holding every use of `var`.

    A variable used only in a rule's condition is universal even in a conjunction there
    (`(A(x) ∧ R(x, y)) → B(y)` lost `∀x`), and one used only in a conclusion's conjunction is
    existential (`A(x) → C(y) ∧ R(x, y)` lost `∃y`): a negative position turns the answer over.

    >>> from refinery.logic.parse import parse
    >>> _var_quantifiers(parse("∀y ((A(x) ∧ R(x, y)) → B(y))"), "x")
    ('∀', '∃')
    >>> _var_quantifiers(parse("∀x (A(x) → C(y) ∧ R(x, y))"), "y")
    ('∃', '∀')
    """

    def holds(g: Formula) -> bool:
        return var in _roles(g)

    node, negative = f, False
    while True:
        match node:
            case Forall(_, body) | Exists(_, body):
                node = body
                continue
            case Not(body):
                node, negative = body, not negative
                continue
            case And(args) | Or(args):
                holding = [a for a in args if holds(a)]
                if len(holding) == 1:
                    node = holding[0]
                    continue
            case Implies(left, right) if holds(left) != holds(right):
                node, negative = (left, not negative) if holds(left) else (right, negative)
                continue
            case Xor(left, right) | Iff(left, right) if holds(left) != holds(right):
                node = left if holds(left) else right
                continue
        break
    first, second = _likely_quantifiers(node)
    return (second, first) if negative else (first, second)


def _at_tail(text: str, group: int) -> bool:
    """Whether the group opening at `group` is the last thing in its enclosing scope.

    Only there does a binder before it scope over the group alone: the parser extends a
    quantifier to the end of its own enclosing group.
    """
    close = paren_pairs(text).get(group)
    if close is None:
        return False
    rest = text[close + 1 :].lstrip()
    return not rest or rest[0] == ")"


def _closings(findings: ItemContext, where: Where, text: str, var: str) -> list[Fix]:
    """Ways to close the free `var` in `text` (the formula at `where`), most plausible first.

    A lost binder is restored where FOLIO puts binders, in this order:

    - among the leading quantifiers, with the quantifier of a twin variable, if there is one
      (`_twin_quantifier`);
    - nested, right before the innermost group that uses the variable, when that group is not
      the formula's body and either ends its enclosing scope (`A(x) → (B(y) ∧ C(x, y))`),
      already has a binder (`∃y (B(y) ∧ C(z, y)) → D` lost `∃z` next to `∃y`) or follows a ¬
      (`¬∃x (…)`, FOLIO's "no one"): elsewhere a binder before a group followed by more
      formula would scope over that too;
    - the one constant the item's other formulas put in the same argument of the same
      predicate, when this formula already names that constant;
    - among the leading quantifiers, in alphabetical order (FOLIO binds x, y, z in turn:
      `∀y (R(x, y))` lost `∀x` in front), or over the whole formula when it has none; the
      quantifier by the sentence's wording (`quantifier_cue`) together with the shape of the
      part of the formula that uses the variable (`_var_quantifiers`): the two agreeing, or
      only one speaking, decide, ∀ before ∃ when a universal sentence has a conjunction's
      shape; a rule-shaped formula whose sentence says "some" (`∃x (A(x) → B(x))`, an
      annotators' slip as often as not) is undecidable and gets no leading binder. Then the
      other quantifier;
    - that constant when this formula does not name it, unless the binders were undecidable.

    Only texts that parse and no longer have `var` free; one per meaning.
    """
    f = parses(text)
    if f is None:
        return []
    individuals = _named_individuals(findings, where, text, var)
    if individuals is None:
        return []
    if individuals:
        # the sentence names who the variable stands for and says no "all" or "some": the
        # variable is that individual (a pronoun, "he"), never a binder's
        fixes = [
            (splice(text, [(s, e, c) for s, e in _var_spans(text, var)]), f"{var} is {c}")
            for c in individuals
        ]
        return [(after, why) for after, why in fixes if parses(after) is not None]
    raw: list[Fix] = []
    chain, body = _prefix(text)
    twin = _twin_quantifier(f, chain, var)
    order = _leading_quantifiers(findings, where, f, twin, var)
    leading: list[Fix] = []
    for q in order:
        if chain:
            at = next((start for _, v, start in chain if v > var), body)
            after = splice(text, [(at, at, f"{q}{var} ")])
        else:
            after = _quantify(text, q, var)
        leading.append((after, f"bind {var} ({q}) over the formula"))
    if twin is not None:  # the strongest evidence there is
        raw.append(leading.pop(0))
    group = _innermost_group(text, _var_spans(text, var))
    nested = re.search(r"(?:[∀∃]\s*[\w']+|¬)\s*$", text[:group]) if group is not None else None
    if group is not None and group != body and (nested or _at_tail(text, group)):
        # a lost nested quantifier belongs right before the group that uses its variable
        q = _likely_quantifiers(parses(text[group + 1 : paren_pairs(text)[group]]))[0]
        raw.append((splice(text, [(group, group, f"{q}{var} ")]), f"bind {var} ({q}) there"))
    constant = _sole_constant(findings, where, text, var)
    named: Fix | None = None
    if constant is not None:
        after = splice(text, [(s, e, constant) for s, e in _var_spans(text, var)])
        named = (after, f"{var} stands where the item's other formulas have {constant}")
        # a formula that already talks about that individual most likely meant it here too
        if any(u.kind == "constant" and u.name == constant for u in name_uses(text)):
            raw.append(named)
            named = None
    raw += leading
    if named is not None and order:  # last; where the binders are undecidable, so is this
        raw.append(named)
    out: list[Fix] = []
    seen: set[Formula] = set()
    for after, why in raw:
        g = parses(after)
        if g is not None and var not in _free_names(g) and shape(g) not in seen:
            seen.add(shape(g))
            out.append((after, why))
    return out


#: Pronouns that refer back to a named individual ("Mike … if he wants …"); "it" and "they"
#: as often stand for a kind ("if the fruit …, it …").
_PERSONAL_PRONOUNS = frozenset(["he", "him", "his", "himself", "she", "her", "hers", "herself"])
#: "It" refers back to a named thing only beside that name ("ModelXX …, and managers do not
#: control it" over `¬With(modelXX, …) ∧ ¬ControlledBy(x, …)`).
_NEUTER_PRONOUNS = frozenset(["it", "its", "itself"])
#: Words by which a sentence quantifies ("if" and "when" do not: "Mike … if he …").
_QUANTIFIER_WORDS = frozenset(
    [
        "all",
        "every",
        "everyone",
        "everybody",
        "everything",
        "each",
        "any",
        "anyone",
        "anybody",
        "anything",
        "no",
        "none",
        "nobody",
        "nothing",
        "some",
        "someone",
        "somebody",
        "something",
        "whoever",
        "whatever",
        "there",
    ]
)


@dataclass(frozen=True, slots=True)
class _Said:
    """What a sentence says, for telling which constant it names: its words, and runs of two
    or three of them written as one ("Koei Tecmo" for `koeitecmo`)."""

    words: frozenset[str]
    joined: frozenset[str]
    quantifies: bool

    @classmethod
    def of(cls, sentence: str) -> _Said:
        words = tokens(sentence)
        runs = {"".join(words[i : i + n]) for n in (2, 3) for i in range(len(words))}
        often = how_often(words)  # "every day", "all the time": not over whom
        quantifies = any(w in _QUANTIFIER_WORDS and i not in often for i, w in enumerate(words))
        return cls(frozenset(words), frozenset(runs), quantifies)

    def names(self, constant: str) -> bool:
        """Whether the sentence says every word of `constant`, or the name as one run."""
        parts = name_words(constant)
        lower = constant.lower()
        return (
            lower in self.words or lower in self.joined or bool(parts) and set(parts) <= self.words
        )


def _constants(texts: Iterable[str]) -> set[str]:
    """The constants the formulas `texts` use (not the variables FOLIO sometimes leaves free)."""
    return {
        u.name
        for t in texts
        for u in name_uses(t)
        if u.kind == "constant" and not VARIABLE.fullmatch(u.name)
    }


def may_name_an_individual(sentence: str, formula: str) -> bool:
    """Whether a free variable of `formula` may stand for an individual its sentence names: the
    sentence says no quantifier word and names a constant the formula uses ("Koei Tecmo is a
    holding company" beside `Japanese(koeitecmo) ∧ HoldingCompany(x)`).

    >>> may_name_an_individual("Koei Tecmo is a holding company.", "Japanese(koeitecmo) ∧ H(x)")
    True
    >>> may_name_an_individual("People from Catalan are not from Chile.", "C(x) → ¬Chilean(x)")
    False
    """
    said = _Said.of(sentence)
    if not said.words or said.quantifies:
        return False
    return any(said.names(c) for c in _constants([formula]))


def _named_individuals(
    findings: ItemContext, where: Where, text: str, var: str
) -> list[str] | None:
    """The constants the free `var` of `text` stands for, when its sentence refers back to a
    named individual ("he", "she"; "it" beside a name the formula uses) and says no quantifier
    word: those the sentence names (`_Said.names`) that no atom with `var` holds already, in
    any spelling (`Occur(virus, x)` is not about the virus twice); likeliest first: a constant
    the item puts in the same argument of the same predicate, then one in the same argument
    position, then the longer name. None when the sentence names a constant the item puts
    only in other arguments of the variable's predicate and names none the item puts in its
    very place (swapped arguments: nothing is safe to propose).

    >>> fol = {"premises[0]": "Apply(mike, cpt)", "premises[1]": "Work(x, us) → Apply(mike, cpt)"}
    >>> nl = {"premises[1]": "Mike applies for CPT if he wants to work in the US."}
    >>> f = ItemContext("i", "s", fol, nl, None)
    >>> _named_individuals(f, "premises[1]", fol["premises[1]"], "x")
    ['mike', 'cpt']
    """
    said = _Said.of(findings.nl.get(where, ""))
    refers_back = said.words & _PERSONAL_PRONOUNS or (
        said.words & _NEUTER_PRONOUNS and any(said.names(c) for c in _constants([text]))
    )
    if not refers_back or said.quantifies:
        return []  # a generic sentence ("people from Catalan …", "water … flows"): no one named
    texts = (*findings.fol.values(), *findings.story_fol)
    constants = _constants(texts)
    mine = atoms_of(text)
    slots = {
        (a.name, len(a.args), i)
        for a in mine
        for i, t in enumerate(a.args)
        if isinstance(t, Const) and t.name == var
    }
    taken = {
        t.name
        for a in mine
        if any(isinstance(t, Const) and t.name == var for t in a.args)
        for t in a.args
        if isinstance(t, Const)
    }
    places = {i for _, _, i in slots}
    placed: dict[str, tuple[int, int]] = {}
    for t in texts:
        for a in atoms_of(t):
            for i, arg in enumerate(a.args):
                if isinstance(arg, Const) and arg.name in constants:
                    same_slot, same_place = placed.get(arg.name, (0, 0))
                    placed[arg.name] = (
                        same_slot + ((a.name, len(a.args), i) in slots),
                        same_place + (i in places),
                    )
    # nor a constant spelled like one of those (`Cost(gRE, x)` beside a drifted `gre`)
    twins = {t.lower() for t in taken}
    named = [c for c in constants - taken if said.names(c) and c.lower() not in twins]
    fits = any(placed.get(c, (0, 0))[0] for c in named)
    if not fits and set(named) & _elsewhere_in_other_places(texts, slots, constants):
        # the sentence names someone the item never puts in the variable's place, and no
        # one it names is ever there: the formula's arguments may be swapped, and no
        # constant or binder is a safe guess
        return None
    return sorted(named, key=lambda c: (*(-n for n in placed.get(c, (0, 0))), -len(c), c))


def _elsewhere_in_other_places(
    texts: Sequence[str], slots: set[tuple[str, int, int]], constants: set[str]
) -> set[str]:
    """The constants the item puts in a predicate of `slots`, but only in other arguments than
    the variable's (`PlayIn(oliver, y, …)` beside `PlayIn(oliver, x, …)`: y is no Oliver)."""
    where: dict[str, set[tuple[str, int, int]]] = {}
    predicates = {(name, arity) for name, arity, _ in slots}
    for t in texts:
        for a in atoms_of(t):
            if (a.name, len(a.args)) in predicates:
                for i, arg in enumerate(a.args):
                    if isinstance(arg, Const) and arg.name in constants:
                        where.setdefault(arg.name, set()).add((a.name, len(a.args), i))
    return {c for c, places in where.items() if not places & slots}


def _leading_quantifiers(
    findings: ItemContext, where: Where, f: Formula, twin: str | None, var: str
) -> tuple[str, ...]:
    """The quantifiers to try for a binder among the leading ones, likeliest first (see `_closings`)."""
    if twin is not None:
        return (twin, "∃" if twin == "∀" else "∀")
    shaped = _var_quantifiers(f, var)
    cue = quantifier_cue(findings.nl.get(where, ""))
    if cue is None or cue == shaped[0]:
        return shaped
    if cue == "∀":
        return ("∀", "∃")
    return ()  # "some" over a rule: as often ∀ (a slip in the sentence) as ∃ (in the formula)


def _free_edits(findings: ItemContext) -> dict[Where, list[Edit]]:
    out: dict[Where, list[Edit]] = {}
    for where, f in parsed_fields(findings).items():
        names = _free_names(f)
        before = findings.fol[where]
        fixes = [fix for var in names for fix in _closings(findings, where, before, var)]
        if len(names) > 1:  # all of them at once, each by its likeliest closing
            text, whys = before, []
            for var in names:
                options = _closings(findings, where, text, var)
                if not options:
                    break
                text, why = options[0]
                whys.append(why)
            else:
                fixes.insert(0, (text, "; ".join(whys)))
        if fixes:
            out[where] = _binding_a_name_is_a_guess(
                edits_for(where, before, fixes, TAG), findings.nl.get(where, "")
            )
    return out


def _binding_a_name_is_a_guess(edits: list[Edit], sentence: str) -> list[Edit]:
    """The edits, a binder put where the variable may be an individual the sentence names
    (`may_name_an_individual`), or where a quantifier of the formula binds the same name
    (`_rebound`), marked a guess: the label cannot tell the two apart (a gold Uncertain
    survives any weakening), so the gate leaves it a proposal."""
    return [
        e.model_copy(update={"guess": True})
        if _binders(e.after) > _binders(e.before)
        and (may_name_an_individual(sentence, e.before) or _rebound(e.before))
        else e
        for e in edits
    ]


def _rebound(text: str) -> bool:
    """Whether a variable free in `text` is also bound in it (`P(y) → ∃y (…)`): the annotator
    wrote one name for two things, and which the free one is no binder can tell."""
    f = parses(text)
    if f is None:
        return False
    return bool(set(_free_names(f)) & bound_names(f))


def _binders(text: str) -> int:
    return text.count("∀") + text.count("∃")


def propose(findings: ItemContext) -> list[Candidate]:
    """Close a free variable: bind it where it is used, bind it over the formula, or name it.

    Candidates, most plausible first (see `_closings`): a binder with a twin variable's
    quantifier; a binder just before the innermost group that uses the variable, where that
    group ends its scope (a lost nested quantifier); the one constant the item's other formulas
    put in the same argument of the same predicate, when this formula names it already; a
    binder among the leading quantifiers (alphabetically) or over the whole formula, ∀ or ∃ as
    the sentence's wording and the formula's shape say — none where they disagree on a rule.
    Several formulas with free variables are repaired together first (see `joint`).

    >>> fol = {"premises[0]": "Regret(robert, college)", "conclusion": "Regret(x, college) ∧ Sad(robert)"}
    >>> f = ItemContext("i", "s", fol, {}, None)
    >>> [[e.after for e in c] for c in propose(f)]
    [['Regret(robert, college) ∧ Sad(robert)'], ['∃x (Regret(x, college) ∧ Sad(robert))'], ['∀x (Regret(x, college) ∧ Sad(robert))']]
    >>> f = ItemContext("i", "s", {"premises[0]": "∀x (A(x) → (B(x, y)))", "conclusion": "A(a)"}, {}, None)
    >>> [c[0].after for c in propose(f)]
    ['∀x (A(x) → ∃y (B(x, y)))', '∀x ∃y (A(x) → (B(x, y)))', '∀x ∀y (A(x) → (B(x, y)))']
    """
    return joint(_free_edits(findings))
