"""`retype_name`: a name one formula alone uses that the others write as another kind of symbol.

A conclusion cannot be proved from premises that spell its name as something else: FOLIO's
annotators write "in the FIFA series" as `In(x, fIFASeries)` in one formula and as
`FIFASeries(x)` in another, and "traffic" both as `Traffic(x)` and as the constant `traffic`.
Where one formula alone uses a name that the others use, case aside, as the other kind:

- a one-place predicate `P(t)` whose name is a constant `p` of the premises, the second
  argument of exactly one two-place relation `R` there, becomes `R(t, p)` ("Be Lionel is in
  the FIFA series": `In(beLionel, fIFASeries)`, as the premises write it);
- a one-place predicate whose name is a relation's and a constant's run together, where the
  others write the relation with that constant second, becomes the relation: `InMyHouse(jojo)`
  beside `In(x, myHouse)` is `In(jojo, myHouse)`;
- in the conclusion, a constant `c` whose name is a one-place predicate `C` of the premises
  makes it a statement about every `C`: `φ(c)` becomes `∀y (C(y) → φ(y))` ("Jerry should not
  worry about traffic": about anything that is traffic).

Like `split_compound`, each is a guess left as a proposal for review: linking the conclusion to
the story can decide the label, and the gate cannot tell that from a repair.
"""

from __future__ import annotations

from refinery.addresses import CONCLUSION
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.repairs.edits import Candidate, RuleTag, make_edit, rewrite_atoms, splice
from refinery.agents.repairs.located import NameUse, name_uses
from refinery.logic.analysis import bound_names, subformulas
from refinery.logic.parse import parses
from refinery.logic.syntax import Const, Iff, Implies, Or, Pred, Xor

TAG = RuleTag("retype_name", ErrorClass.NAMING_DRIFT)


def propose(findings: ItemContext) -> list[Candidate]:
    """One candidate per name that one formula alone uses and the others write as another
    kind of symbol: every kind in the conclusion (the premises are what it must be written
    in); in a premise, only a relation and its argument run together (`InMyHouse`).

    >>> fol = {"premises[0]": "∀x (In(x, fIFASeries) → Support(x, pS4))",
    ...        "conclusion": "FIFASeries(beLionel)"}
    >>> [[(e.where, e.after) for e in c] for c in propose(ItemContext("i", "s", fol, {}, None))]
    [[('conclusion', 'In(beLionel, fIFASeries)')]]
    >>> fol = {"premises[0]": "∀x (Traffic(x) → OutsideControl(x))",
    ...        "conclusion": "¬ShouldWorry(jerry, traffic)"}
    >>> [[(e.where, e.after) for e in c] for c in propose(ItemContext("i", "s", fol, {}, None))]
    [[('conclusion', '∀y (Traffic(y) → ¬ShouldWorry(jerry, y))')]]
    >>> fol = {"premises[0]": "∀x (Dog(x) ∧ In(x, myHouse) → Bark(x))",
    ...        "premises[1]": "InMyHouse(jojo) ∧ Dog(jojo)", "conclusion": "Bark(jojo)"}
    >>> [[(e.where, e.after) for e in c] for c in propose(ItemContext("i", "s", fol, {}, None))]
    [[('premises[1]', 'In(jojo, myHouse) ∧ Dog(jojo)')]]
    """
    out: list[Candidate] = []
    for where, before in findings.fol.items():
        if parses(before) is None:
            continue
        others = [t for w, t in findings.fol.items() if w != where]
        out += _retype_formula(where, before, others)
    return out


def _retype_formula(where: str, before: str, others: list[str]) -> list[Candidate]:
    """The candidates for the names of the formula at `where` that no other formula uses."""
    theirs = {(u.kind, u.arity, u.name) for t in others for u in name_uses(t)}
    by_case: dict[str, set[tuple[str, int, str]]] = {}
    for symbol in theirs:
        by_case.setdefault(symbol[2].lower(), set()).add(symbol)
    out: list[Candidate] = []
    done: set[str] = set()
    for use in name_uses(before):
        if use.name in done or (use.kind, use.arity, use.name) in theirs:
            continue
        done.add(use.name)
        alike = by_case.get(use.name.lower(), set()) - {(use.kind, use.arity, use.name)}
        if where == CONCLUSION:
            after, why = _retyped(before, use, alike, others)
        elif use.kind == "predicate" and use.arity == 1 and not alike:
            # a premise: only a name plainly run together from the others' (which of two
            # formulas spelling one name two ways is the odd one, the conclusion's premises say)
            after, why = _joined(before, use, others)
        else:
            continue
        if after is not None and after != before and parses(after) is not None:
            out.append((make_edit(where, before, after, TAG, why, guess=True),))
    return out


def _retyped(
    text: str, use: NameUse, others: set[tuple[str, int, str]], premises: list[str]
) -> tuple[str | None, str]:
    """The formula with `use`'s name written as the other formulas (`premises`) write it, and
    why; None where they do not say how (no such symbol, or several)."""
    if use.kind == "predicate" and use.arity == 1:
        constants = [name for kind, _, name in others if kind == "constant"]
        if len(constants) != 1:
            return _joined(text, use, premises)
        (constant,) = constants
        relations = _relations_to(constant, premises)
        if len(relations) != 1:
            return None, ""
        (relation,) = relations
        why = f"{use.name} is in no other formula, which relate things to {constant} by {relation}"
        return _as_relation(text, use.name, relation, constant), why
    if use.kind == "constant":
        classes = [name for kind, arity, name in others if kind == "predicate" and arity == 1]
        if len(classes) != 1:
            return None, ""
        (kind,) = classes
        why = f"{use.name} is in no premise, which say {kind}(x) of things"
        return _about_every(text, use.name, kind), why
    return None, ""


def _joined(text: str, use: NameUse, premises: list[str]) -> tuple[str | None, str]:
    """A one-place `InMyHouse(t)` where the other formulas write `In(x, myHouse)`: the name is a
    relation's and its second argument's, run together; None unless exactly one pair spells it."""
    spelled = [(r, c) for r, c in _objects(premises) if (r + c).lower() == use.name.lower()]
    if len(spelled) != 1:
        return None, ""
    ((relation, constant),) = spelled
    why = f"{use.name} is in no other formula, which write {relation}(x, {constant})"
    return _as_relation(text, use.name, relation, constant), why


def _relations_to(constant: str, premises: list[str]) -> set[str]:
    """The two-place relations whose second argument is `constant` somewhere in `premises`."""
    return {relation for relation, c in _objects(premises) if c == constant}


def _objects(formulas: list[str]) -> set[tuple[str, str]]:
    """(relation, constant) for each two-place atom of `formulas` with a constant second."""
    return {
        (node.name, node.args[1].name)
        for text in formulas
        if (f := parses(text)) is not None
        for node in subformulas(f)
        if isinstance(node, Pred) and len(node.args) == 2 and isinstance(node.args[1], Const)
    }


def _as_relation(text: str, name: str, relation: str, constant: str) -> str:
    """`text` with each atom `name(t)` written `relation(t, constant)`."""
    return rewrite_atoms(text, name, lambda argument: f"{relation}({argument}, {constant})")


def _about_every(text: str, constant: str, kind: str) -> str | None:
    """`∀y (kind(y) → text)`, with the constant written y (a variable the text does not bind)."""
    f = parses(text)
    if f is None:
        return None
    taken = bound_names(f)
    var = next(v for v in ("y", "z", "w", "v", "u", *(f"y{i}" for i in range(9))) if v not in taken)
    edits = [
        (u.start, u.end, var)
        for u in name_uses(text)
        if u.kind == "constant" and u.name == constant
    ]
    body = splice(text, edits)
    if isinstance(f, Implies | Iff | Xor | Or):
        body = f"({body})"  # the new → must not regroup the conclusion's own connective
    return f"∀{var} ({kind}({var}) → {body})"
