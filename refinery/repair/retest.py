"""Fix and re-prove: what the provers say of an item's FOL once one defect is mended.

A defect found in the FOL of a label mismatch need not be what keeps the gold label out of
reach. People who read real FOLIO annotations call an item a label error when the gold label
stays unprovable after the defect is fixed, and a missing fact only when some fact would close
the proof. `blame` asks `Retest` two such questions:

- `renamed`: the FOL with the conclusion's drifted name written as the premises write it,
  checked by every prover and read against its sentences again;
- `converse`: whether the gold label follows once one conditional premise is also read the
  other way ("if" as "if and only if"). A gold label that needs a converse the sentence does
  not state rests on affirming the consequent or denying the antecedent: a label error;
- `mended`: the FOL with one formula a finding blames rewritten by each repair rule that
  changes its meaning, read again: a formula mended as its sentence says that still leaves the
  gold label out of reach is not what keeps it out;
- `bridge`: the background facts the sentences take for granted that make the provers prove
  the gold label (`refinery.repair.abduce`): a missing fact, said.

Every question goes through the check stage's `Checker` (its cache, its budget, Z3's
deterministic resource limit), so the answers are the same on a busy machine as on a quiet one.
The mended FOL only explains a cause: it is never applied and never suggested as a label.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from refinery.addresses import CONCLUSION
from refinery.agents.alignment import BLAME
from refinery.agents.critique import item_context
from refinery.agents.models import ItemContext
from refinery.agents.reading.cues import read_sentence
from refinery.agents.reading.lexicon import Lexicon
from refinery.agents.reading.words import tokens
from refinery.agents.repairs.edits import apply_candidate
from refinery.agents.repairs.located import name_uses
from refinery.agents.repairs.names import rename
from refinery.agents.repairs.registry import MEANING_RULES, propose_repairs
from refinery.check import Checker
from refinery.datasets.records import Item
from refinery.labels import Label
from refinery.logic.analysis import SymbolKind, var_free_in
from refinery.logic.parse import parses
from refinery.logic.printer import to_text
from refinery.logic.syntax import Forall, Formula, Implies, Not, Pred
from refinery.repair.abduce import Bridge, abduce, label_with
from refinery.repair.gate import read_edits

#: The most rewrites of one formula `Retest.mended` reads (each is a check by every prover).
MAX_MENDS = 4
#: Words that make a sentence state both directions, or a converse of its own.
_BOTH_WAYS = frozenset({"only", "iff", "unless", "exactly", "precisely", "just"})


@dataclass(frozen=True, slots=True)
class Retest:
    """Re-proves `item` with one fix applied, through `checker` (see the module doc)."""

    item: Item
    checker: Checker
    story_fol: tuple[str, ...] = ()
    #: WordNet, for the background search (None: only the words support a bridge)
    lexicon: Lexicon | None = None
    #: where `item`'s FOL is the repair loop's unconfirmed edit, not the annotators' own
    #: (`blame` fills it from the proposals)
    edited: frozenset[str] = frozenset()

    def bridge(self, context: ItemContext) -> Bridge | None:
        """The background facts that make every prover prove `context`'s gold label
        (`refinery.repair.abduce`), or None."""
        return abduce(self.item, context, self.checker, self.lexicon)

    def renamed(
        self, context: ItemContext, name: str, other: str, where: str = CONCLUSION
    ) -> ItemContext | None:
        """The reading of `context`'s FOL with `name` written `other` in the formula at `where`
        (the conclusion by default), where both are the same kind of symbol with the same
        arity; None where they are not."""
        mine = _uses([context.fol.get(where, "")], {name})
        theirs = _uses([t for w, t in context.fol.items() if w != where], {other})
        if len(mine) != 1 or not mine & theirs:
            return None  # a constant against a predicate, or another arity: no plain rename
        return self._rewritten(context, *mine.pop(), name, other, only=where)

    def unified(self, context: ItemContext, first: str, second: str) -> ItemContext | None:
        """The reading of `context`'s FOL with `second` written `first` in every formula (and
        the story's), where both are the same kind of symbol with the same arity."""
        shared = _uses(context.fol.values(), {first, second})
        if len(shared) != 1:
            return None  # a constant against a predicate, or two arities: no plain rename
        return self._rewritten(context, *shared.pop(), second, first)

    def _rewritten(
        self,
        context: ItemContext,
        kind: SymbolKind,
        arity: int,
        old: str,
        new: str,
        only: str | None = None,
    ) -> ItemContext:
        """The reading with `old` written `new` (in the formula `only`, else in all), and in the
        story's other formulas too: left as they are, the old spelling would still read as a
        drift beside the new one."""
        fol = {
            w: rename(t, kind, arity, old, new) if only in (None, w) else t
            for w, t in context.fol.items()
        }
        story = tuple(rename(t, kind, arity, old, new) for t in context.story_fol)
        return self.reading(fol, story)

    def mended(self, context: ItemContext, where: str) -> list[tuple[str, ItemContext]]:
        """The readings of `context`'s FOL with the formula at `where` rewritten by a repair
        rule that changes what it means (certain edits only, no guess), as (the rewrite,
        its reading), the rules' order, at most `MAX_MENDS`. A rewrite counts only where the
        gate would let it settle an item: it reads better against its sentence, and well."""
        out: list[tuple[str, ItemContext]] = []
        for rule, candidate in propose_repairs(context):
            if rule not in MEANING_RULES or any(e.where != where or e.guess for e in candidate):
                continue
            worse, _, after = read_edits(rule, candidate, context)
            if worse is not None or after >= BLAME:
                continue
            fol = apply_candidate(dict(context.fol), candidate)
            out.append((fol[where], self.reading(fol)))
            if len(out) == MAX_MENDS:
                break
        return out

    def reading(
        self, fol: Mapping[str, str], story_fol: tuple[str, ...] | None = None
    ) -> ItemContext:
        """The item with `fol`, checked by every prover and read against its sentences (and
        the story's FOL, `story_fol`, the item's own by default)."""
        new = self.item.with_formulas(fol)
        (row,) = self.checker.check_story([new])
        story = self.story_fol if story_fol is None else story_fol
        return item_context(new, row, story_fol=story)

    def converse(self, context: ItemContext) -> str:
        """The premise whose converse, added to the premises, makes the provers agree on the
        gold label (first Z3 alone, then every prover); "" for none. Only a conditional whose
        sentence does not state the converse itself is read both ways, and only where the
        converse makes no claim about a thing its consequent does not mention."""
        gold = context.gold
        if gold not in (Label.TRUE, Label.FALSE):
            return ""
        screen = dataclasses.replace(
            self.checker, provers=[p for p in self.checker.provers if p.name == "z3"]
        )
        for where, text in context.fol.items():
            if where == CONCLUSION or _states_both_ways(context.nl.get(where, "")):
                continue
            formula = parses(text)
            back = _converse(formula) if formula is not None else None
            if back is None:
                continue
            extra = to_text(back)
            if screen.provers and label_with(screen, self.item, context, [extra]) is not gold:
                continue
            if label_with(self.checker, self.item, context, [extra]) is gold:
                return where
        return ""


def _states_both_ways(sentence: str) -> bool:
    """Whether the sentence says "only (if)", "if and only if", "unless", "just when"…"""
    s = read_sentence(sentence)
    return s.only_if or s.iff or s.unless or not _BOTH_WAYS.isdisjoint(tokens(sentence))


def _converse(f: Formula) -> Formula | None:
    """`∀v… (B → A)` for `∀v… (A → B)`, where A is one (possibly negated) atom whose every
    variable occurs in B (the converse of a transitivity rule would claim something of its
    middle term, and of `Product(x) ∧ With(x, chip) → Macbook(x)` that every Macbook is a
    product); None for other shapes."""
    bound: list[str] = []
    while isinstance(f, Forall):
        bound.append(f.var)
        f = f.body
    if not isinstance(f, Implies) or not _literal(f.left):
        return None  # "all A are B" read as "all B are A"; a compound condition adds more
    if any(var_free_in(f.left, v) and not var_free_in(f.right, v) for v in bound):
        return None
    out: Formula = Implies(f.right, f.left)
    for v in reversed(bound):
        out = Forall(v, out)
    return out


def _literal(f: Formula) -> bool:
    """An atom, or a negated one."""
    return isinstance(f.body if isinstance(f, Not) else f, Pred)


def _uses(texts: Iterable[str], names: set[str]) -> set[tuple[SymbolKind, int]]:
    """The (kind, arity) of every use of `names` in `texts`."""
    return {(u.kind, u.arity) for t in texts for u in name_uses(t) if u.name in names}
