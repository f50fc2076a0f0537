"""Faithfulness of repairs: corrupt correct items on purpose, repair them, check equivalence.

A repair that makes the provers reproduce the gold label is not necessarily the formula the
annotator meant. To measure that, `corrupt` injects one known error into a verified item —
drop or add a parenthesis, rename a predicate in one premise, change a constant's case, change an
arity, free a variable — and after the repair loop `equivalent` asks both provers whether each
repaired formula is logically equivalent to the original. An accepted repair that is not is a
**false approval**.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable, Sequence

from refinery.datasets.records import Item
from refinery.logic.analysis import occurrences
from refinery.logic.parse import Parsed, try_parse
from refinery.logic.syntax import Formula, Iff
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
