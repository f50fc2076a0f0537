"""`harmonize_arity`: make a predicate's minority arity match its majority arity.

Only where the arguments justify it: drop an argument only the minority form has, or append the
constant every majority use ends with when nothing makes that ambiguous.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.reading.spelling import Words
from refinery.agents.repairs.edits import (
    MAX_CANDIDATES,
    Candidate,
    RuleTag,
    TextEdit,
    parsed_fields,
    rewrite_item,
    shape,
    splice,
    unique_candidates,
)
from refinery.agents.repairs.located import LocatedAtom, atoms_of, item_texts, sentence_words
from refinery.logic.analysis import subformulas
from refinery.logic.parse import parses
from refinery.logic.syntax import And, Const, Formula, Or

TAG = RuleTag("harmonize_arity", ErrorClass.ARITY_CONFLICT)


def _fixed_constants(atoms: Sequence[LocatedAtom]) -> dict[int, str]:
    """Positions where every atom has the same constant."""
    out: dict[int, str] = {}
    for i, arg in enumerate(atoms[0].args):
        if isinstance(arg, Const) and all(a.args[i] == arg for a in atoms):
            out[i] = arg.name
    return out


def _drop_arg(atom: LocatedAtom, i: int) -> TextEdit:
    """Remove argument `i` of `atom` with its separator.

    >>> text = "R(x, a,b)"
    >>> [splice(text, [_drop_arg(atoms_of(text)[0], i)]) for i in range(3)]
    ['R(a,b)', 'R(x,b)', 'R(x, a)']
    """
    spans = atom.arg_spans
    if i > 0:
        return (spans[i - 1][1], spans[i][1], "")
    return (spans[0][0], spans[1][0], "")


def _insert_arg(text: str, atom: LocatedAtom, i: int, name: str) -> TextEdit:
    """Insert `name` as argument `i` of `atom`, separated as the atom (or the text) separates.

    >>> text = "R(x,y) ∧ P(x)"
    >>> splice(text, [_insert_arg(text, atoms_of(text)[1], 1, "a")])
    'R(x,y) ∧ P(x,a)'
    """
    spans = atom.arg_spans
    if len(spans) > 1:
        sep = text[spans[0][1] : spans[1][0]]
    else:
        sep = "," if re.search(r",\S", text) and not re.search(r", ", text) else ", "
    if i >= len(spans):
        return (spans[-1][1], spans[-1][1], f"{sep}{name}")
    return (spans[i][0], spans[i][0], f"{name}{sep}")


ArityOption = Callable[[str, LocatedAtom], TextEdit | None]


def _arity_options(
    minority_k: int, majority_k: int, majority: Sequence[LocatedAtom], sentences: dict[str, Words]
) -> list[ArityOption]:
    """Structurally justified ways to turn a `minority_k`-ary atom into a `majority_k`-ary one.

    One argument too many: drop an argument only the minority form has — a constant no
    majority use has in that position, or a variable the atom repeats — last position first,
    unless a kept constant contradicts one the majority form always has. One too few: append the
    constant every majority use has last, and only when that is unambiguous — the atom's own
    arguments line up with the majority form's (no constant where it always has another),
    the atom does not already have that constant, the result does not repeat a conjunct or
    disjunct (`From(a, b) ∧ From(a, b)`, see `repeats`), and the formula's sentence mentions
    the constant (`sentences`, by formula text; a formula without one is not checked).
    Inserting elsewhere would shift the atom's arguments: a guess the gate cannot check when
    the premise does not matter to the label.
    """
    fixed = _fixed_constants(majority)
    # (slot, constant) pairs the majority form has: an argument there lines up with it
    in_majority = {
        (i, t.name) for a in majority for i, t in enumerate(a.args) if isinstance(t, Const)
    }
    options: list[ArityOption] = []
    if minority_k == majority_k + 1:
        for i in range(minority_k - 1, -1, -1):

            def drop(text: str, atom: LocatedAtom, i: int = i) -> TextEdit | None:
                arg = atom.args[i]
                kept = atom.args[:i] + atom.args[i + 1 :]
                clash = any(
                    isinstance(t, Const) and j in fixed and t.name != fixed[j]
                    for j, t in enumerate(kept)
                )
                only_here = isinstance(arg, Const) and (i, arg.name) not in in_majority
                droppable = only_here or atom.args.count(arg) > 1
                return _drop_arg(atom, i) if droppable and not clash else None

            options.append(drop)
    elif minority_k + 1 == majority_k and minority_k in fixed:
        constant = fixed[minority_k]

        def append(text: str, atom: LocatedAtom) -> TextEdit | None:
            if any(isinstance(t, Const) and t.name == constant for t in atom.args):
                return None  # the constant is already there: the missing one is another
            if any(
                isinstance(t, Const) and j in fixed and t.name != fixed[j]
                for j, t in enumerate(atom.args)
            ):
                return None  # the arguments do not line up with the majority form's
            words = sentences.get(text, Words())
            if words.words and not words.mention(constant):
                return None  # the sentence does not mention it
            edit = _insert_arg(text, atom, minority_k, constant)
            before, after = parses(text), parses(splice(text, [edit]))
            if before is None or after is None or repeats(after) > repeats(before):
                return None  # `From(a, b) ∧ From(a, b)`: the formula states that atom already
            return edit

        options.append(append)
    return options


def repeats(f: Formula) -> int:
    """Operands a conjunction or disjunction repeats (`A ∧ B ∧ A`): FOLIO does not write them.

    >>> from refinery.logic.parse import parse
    >>> repeats(parse("P(a) ∧ (Q(a) ∧ P(a))")), repeats(parse("P(a) → Q(a) ∧ P(a)"))
    (1, 0)
    """
    return sum(
        len(n.args) - len(set(n.args)) for n in subformulas(shape(f)) if isinstance(n, And | Or)
    )


def _rewrite_atoms(text: str, *, name: str, arity: int, option: ArityOption) -> str | None:
    """`text` with `option` applied to every `name`/`arity` atom; None if it refuses one."""
    edits = []
    for atom in atoms_of(text):
        if atom.name == name and len(atom.args) == arity:
            edit = option(text, atom)
            if edit is None:
                return None
            edits.append(edit)
    return splice(text, edits)


def propose(findings: ItemContext) -> list[Candidate]:
    """Make a predicate's minority arity match its majority arity, where arguments justify it.

    Uses are counted over the distinct formulas of the item and its story; a tie says nothing.
    With one argument too many, drop an argument only the minority form has; with one too few,
    append the constant every majority use ends with, where nothing makes that ambiguous (see
    `_arity_options`). Each option rewrites every minority use in the item, or none.
    Predicates with the clearest majority come first.

    >>> fol = {"premises[0]": "∀x (Drinks(x, coffee) → Awake(x))", "premises[1]": "Drinks(ann)",
    ...        "conclusion": "Drinks(bob, coffee)"}
    >>> f = ItemContext("i", "s", fol, {}, None)
    >>> [[e.after for e in c] for c in propose(f)]
    [['Drinks(ann, coffee)']]
    >>> nl = {"premises[1]": "Ann drinks tea."}  # the sentence does not say coffee
    >>> propose(ItemContext("i", "s", fol, nl, None))
    []
    """
    parsed = parsed_fields(findings)
    sentences = {findings.fol[w]: sentence_words(findings, w) for w in parsed}
    uses: dict[str, dict[int, list[LocatedAtom]]] = {}
    for text in item_texts(findings):
        for atom in atoms_of(text):
            uses.setdefault(atom.name, {}).setdefault(len(atom.args), []).append(atom)
    proposals: list[tuple[float, Candidate]] = []
    for name, by_arity in sorted(uses.items()):
        if len(by_arity) != 2:
            continue
        (majority_k, majority), (minority_k, minority) = sorted(
            by_arity.items(), key=lambda kv: (-len(kv[1]), kv[0])
        )
        if len(majority) == len(minority):
            continue  # no majority: nothing says which form is right
        why = f"{name!r} takes {majority_k} arguments in {len(majority)} other uses"
        for option in _arity_options(minority_k, majority_k, majority, sentences):
            rewrite = functools.partial(_rewrite_atoms, name=name, arity=minority_k, option=option)
            candidate = rewrite_item(findings, parsed, rewrite, TAG, why)
            if candidate:
                proposals.append((len(majority) / len(minority), candidate))
    proposals.sort(key=lambda p: -p[0])  # stable: ties keep name and option order
    return unique_candidates(c for _, c in proposals)[:MAX_CANDIDATES]
