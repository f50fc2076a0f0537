"""Faithfulness of repairs: corrupt correct items on purpose, repair them, check equivalence.

A repair that makes the provers reproduce the gold label is not necessarily the formula the
annotator meant. To measure that, `corrupt` injects one known error into a verified item —
drop or add a parenthesis, rename a predicate in one premise, change a constant's case, change an
arity, free a variable — and after the repair loop `equivalent` asks both provers whether each
repaired formula is logically equivalent to the original. An accepted repair that is not is a
**false approval**.

The meaning-level corruptions (`SEMANTIC`) rewrite one node of one formula's syntax tree — drop or
add a ¬, switch ∀/∃, ∧/∨ or ⊕/∨, reverse a →, swap a binary atom's arguments, drop a conjunct —
and print the formula again; some flip the item's label, some keep it. `flip_label` changes the
gold label instead and leaves the FOL alone: a real label error, which only a label suggestion
fixes.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable, Sequence

from refinery.datasets.records import Item
from refinery.labels import GOLD_LABELS
from refinery.logic.analysis import occurrences
from refinery.logic.parse import Parsed, try_parse
from refinery.logic.printer import to_text
from refinery.logic.rewrite import Path, nodes, replace
from refinery.logic.syntax import (
    And,
    Eq,
    Exists,
    Forall,
    Formula,
    Iff,
    Implies,
    Not,
    Or,
    Pred,
    Xor,
)
from refinery.prove.verdict import Budget, Problem, Prover, Status

_NAME = r"[\w][\w'’.\-]*"


def _premise_choices(item: Item) -> list[int]:
    return [i for i, t in enumerate(item.premises_fol) if isinstance(try_parse(t), Parsed)]


def drop_paren(text: str, rng: random.Random) -> str | None:
    """Delete one parenthesis."""
    spots = [i for i, ch in enumerate(text) if ch in "()"]
    if not spots:
        return None
    i = rng.choice(spots)
    return text[:i] + text[i + 1 :]


def add_paren(text: str, rng: random.Random) -> str | None:
    """Insert one extra parenthesis next to an existing one or at the end."""
    spots = [i for i, ch in enumerate(text) if ch in "()"] + [len(text)]
    i = rng.choice(spots)
    return text[:i] + rng.choice("()") + text[i:]


def _rename(text: str, name: str, new: str, rng: random.Random) -> str:
    hits = [m.start() for m in re.finditer(rf"(?<![\w'’.\-]){re.escape(name)}(?![\w'’\-])", text)]
    i = rng.choice(hits)
    return text[:i] + new + text[i + len(name) :]


def rename_predicate(text: str, rng: random.Random, *, names: Sequence[str] = ()) -> str | None:
    """Misspell one occurrence of a predicate: drop its last letter, or add a plural 's'."""
    parsed = try_parse(text)
    if not isinstance(parsed, Parsed):
        return None
    preds = sorted(
        {o.name for o in occurrences(parsed.formula) if o.kind == "predicate" and len(o.name) >= 5}
    )
    preds = [p for p in preds if p in names] or preds
    if not preds:
        return None
    name = rng.choice(preds)
    new = name[:-1] if rng.random() < 0.5 else name + "s"
    return _rename(text, name, new, rng)


def constant_case(text: str, rng: random.Random, *, names: Sequence[str] = ()) -> str | None:
    """Change the case of one letter of one constant occurrence (`roderickStrong` → `roderickstrong`)."""
    parsed = try_parse(text)
    if not isinstance(parsed, Parsed):
        return None
    consts = sorted(
        {
            o.name
            for o in occurrences(parsed.formula)
            if o.kind == "constant" and re.search(r"[A-Za-z]", o.name)
        }
    )
    consts = [c for c in consts if c in names] or consts
    if not consts:
        return None
    name = rng.choice(consts)
    letters = [i for i, ch in enumerate(name) if ch.isalpha()]
    upper = [i for i in letters if name[i].isupper()]
    i = rng.choice(upper or letters)
    new = name[:i] + name[i].swapcase() + name[i + 1 :]
    return _rename(text, name, new, rng)


def change_arity(text: str, rng: random.Random) -> str | None:
    """Drop the last argument of one atom with two or more arguments."""
    atoms = list(re.finditer(rf"({_NAME})\(([^()]*,[^()]*)\)", text))
    if not atoms:
        return None
    m = rng.choice(atoms)
    args = m.group(2).rsplit(",", 1)[0]
    return text[: m.start(2)] + args + text[m.end(2) :]


def free_variable(text: str, rng: random.Random) -> str | None:
    """Delete one quantifier prefix (`∀x `), leaving its variable free."""
    spots = list(re.finditer(r"[∀∃]\s*(\w+)\s*", text))
    if not spots:
        return None
    m = rng.choice(spots)
    return text[: m.start()] + text[m.end() :]


CORRUPTIONS: dict[str, Callable[..., str | None]] = {
    "drop_paren": drop_paren,
    "add_paren": add_paren,
    "rename_predicate": rename_predicate,
    "constant_case": constant_case,
    "change_arity": change_arity,
    "free_variable": free_variable,
}


# -- meaning-level corruptions: one node of the syntax tree ------------------------------------


def _mutations(f: Formula, kind: str) -> list[tuple[Path, Formula]]:
    """Every (path, replacement) that `kind` can make in `f`."""
    out: list[tuple[Path, Formula]] = []
    for path, node in nodes(f):
        match kind, node:
            case "drop_negation", Not(body) if not isinstance(body, Eq):
                out.append((path, body))
            case "add_negation", Pred():
                out.append((path, Not(node)))
            case "swap_quantifier", Forall(var, body):
                out.append((path, Exists(var, body)))
            case "swap_quantifier", Exists(var, body):
                out.append((path, Forall(var, body)))
            case "and_or", And(args):
                out.append((path, Or(args)))
            case "and_or", Or(args):
                out.append((path, And(args)))
            case "xor_or", Xor(left, right):
                out.append((path, Or((left, right))))
            case "xor_or", Or(args) if len(args) == 2:
                out.append((path, Xor(args[0], args[1])))
            case "reverse_implication", Implies(left, right):
                out.append((path, Implies(right, left)))
            case "swap_arguments", Pred(name, args) if len(args) == 2 and args[0] != args[1]:
                out.append((path, Pred(name, (args[1], args[0]))))
            case "drop_conjunct", And(args):
                for i in range(len(args)):
                    rest = args[:i] + args[i + 1 :]
                    out.append((path, rest[0] if len(rest) == 1 else And(rest)))
    return out


SEMANTIC = (
    "drop_negation",
    "add_negation",
    "swap_quantifier",
    "and_or",
    "xor_or",
    "reverse_implication",
    "swap_arguments",
    "drop_conjunct",
)
#: The gold label changed, the FOL left alone.
FLIP_LABEL = "flip_label"


def corrupt_meaning(item: Item, kind: str, rng: random.Random) -> tuple[Item, str] | None:
    """`item` with one formula (a premise or the conclusion) rewritten by `kind`, or its label
    flipped (`FLIP_LABEL`); None when `kind` does not apply. Ids and stories as in `corrupt`."""
    if kind == FLIP_LABEL:
        if item.label is None:
            return None
        label = rng.choice([lab for lab in GOLD_LABELS if lab != item.label])
        return _renamed(
            dataclasses.replace(item, label=label, raw_label=label.value), kind
        ), "label"
    fields = [f"premises[{i}]" for i in range(len(item.premises_fol))] + ["conclusion"]
    rng.shuffle(fields)
    for where in fields:
        text = (
            item.conclusion_fol or ""
            if where == "conclusion"
            else item.premises_fol[int(where[9:-1])]
        )
        parsed = try_parse(text)
        if not isinstance(parsed, Parsed):
            continue
        options = _mutations(parsed.formula, kind)
        if not options:
            continue
        path, new = rng.choice(options)
        changed = to_text(replace(parsed.formula, path, new))
        if where == "conclusion":
            mutated = dataclasses.replace(item, conclusion_fol=changed)
        else:
            premises = list(item.premises_fol)
            premises[int(where[9:-1])] = changed
            mutated = dataclasses.replace(item, premises_fol=tuple(premises))
        return _renamed(mutated, kind), where
    return None


def _renamed(item: Item, kind: str) -> Item:
    return dataclasses.replace(
        item,
        example_id=f"{item.example_id}~{kind}",
        story_id=f"{item.story_id}~{item.example_id}~{kind}",
    )


def corrupt(item: Item, kind: str, rng: random.Random) -> tuple[Item, str] | None:
    """`item` with one premise corrupted by `kind`, as its own story; None when `kind` does not apply.

    The corrupted item gets a distinct id (`<example_id>~<kind>`) and story, so the repair sees only
    the item itself as evidence.
    """
    choices = _premise_choices(item)
    rng.shuffle(choices)
    other_names: list[str] = []
    for text in (*item.premises_fol, item.conclusion_fol or ""):
        parsed = try_parse(text)
        if isinstance(parsed, Parsed):
            other_names += [o.name for o in occurrences(parsed.formula)]
    shared = [n for n in set(other_names) if other_names.count(n) > 1]
    for i in choices:
        fn = CORRUPTIONS[kind]
        text = item.premises_fol[i]
        new = (
            fn(text, rng, names=shared)
            if kind in ("rename_predicate", "constant_case")
            else fn(text, rng)
        )
        if new is None or new == text:
            continue
        premises = list(item.premises_fol)
        premises[i] = new
        corrupted = dataclasses.replace(
            item,
            premises_fol=tuple(premises),
            example_id=f"{item.example_id}~{kind}",
            story_id=f"{item.story_id}~{item.example_id}~{kind}",
        )
        return corrupted, f"premises[{i}]"
    return None


def equivalent(
    original: str, repaired: str, provers: Sequence[Prover], budget: Budget
) -> Status | None:
    """Whether two formulas are logically equivalent by every prover.

    Returns THEOREM when all provers prove `original ↔ repaired`, COUNTER_SATISFIABLE when any
    prover refutes it, None when they could not decide (or a formula does not parse).
    """
    a, b = try_parse(original), try_parse(repaired)
    if not isinstance(a, Parsed) or not isinstance(b, Parsed):
        return None
    goal: Formula = Iff(a.formula, b.formula)
    statuses = [p.check(Problem((), goal), budget).status for p in provers]
    if Status.COUNTER_SATISFIABLE in statuses:
        return Status.COUNTER_SATISFIABLE
    return Status.THEOREM if all(s is Status.THEOREM for s in statuses) else None
