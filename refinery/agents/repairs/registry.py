"""The repair rules, in the order the refiner tries them, and the one entry point over them all.

Each rule is a module of this package that declares its own `TAG` (name and error class) and
`propose(findings)`; adding a rule is one module and one line in `RULES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.repairs import (
    arguments,
    arity,
    compounds,
    conjuncts,
    connectives,
    copied,
    free_variables,
    implication,
    lookalikes,
    names,
    near_names,
    negation,
    parentheses,
    quantifiers,
    resplit,
    retype,
    switch_connective,
    typos,
)
from refinery.agents.repairs.edits import Candidate, RuleTag, joint


class RuleModule(Protocol):
    """A module that defines one repair rule."""

    TAG: RuleTag

    def propose(self, findings: ItemContext) -> list[Candidate]: ...


@dataclass(frozen=True)
class Rule:
    """A named repair rule for one error class: `propose` reads an item's findings."""

    name: str
    error_class: ErrorClass
    propose: Callable[[ItemContext], list[Candidate]]

    @classmethod
    def of(cls, module: RuleModule) -> Rule:
        return cls(module.TAG.name, module.TAG.error_class, module.propose)


RULES: tuple[Rule, ...] = (
    Rule.of(parentheses),
    Rule.of(typos),
    Rule.of(lookalikes),
    Rule.of(arity),
    Rule.of(free_variables),
    Rule.of(names),
    Rule.of(connectives),
    Rule.of(compounds),
    Rule.of(retype),
    Rule.of(resplit),
    # meaning: proposed only where the alignment blames a formula (`repairs.semantic`)
    Rule.of(near_names),
    Rule.of(negation),
    Rule.of(quantifiers),
    Rule.of(switch_connective),
    Rule.of(implication),
    Rule.of(arguments),
    Rule.of(conjuncts),
    Rule.of(copied),
)
#: The rules whose edits change what a formula means: the gate wants them to read better.
MEANING_RULES = frozenset(
    r.TAG.name
    for r in (
        near_names,
        negation,
        quantifiers,
        switch_connective,
        implication,
        arguments,
        conjuncts,
        copied,
    )
)
#: The name of joint candidates that need both syntax rules (see `_cross_syntax`).
_SYNTAX_JOINT = f"{parentheses.TAG.name}+{typos.TAG.name}"


def propose_repairs(
    findings: ItemContext, *, classes: set[ErrorClass] | None = None
) -> list[tuple[str, Candidate]]:
    """Every rule's candidates as `(rule name, candidate)`, most plausible first, deduplicated.

    Rules run in `RULES` order. When several formulas fail to parse and no single rule fixes all
    of them, joint candidates combining the syntax rules' best fixes come first: the gate only
    accepts an item whose formulas all parse.

    Parameters
    ----------
    findings:
        The item's check results.
    classes:
        Only run the rules for these error classes (all rules when None).

    Returns
    -------
    list[tuple[str, Candidate]]
        Candidates in the order the refiner should try them; the name is the rule's (joint
        syntax candidates are named `balance_parentheses+fix_token_typos`).
    """
    proposals = [(_SYNTAX_JOINT, c) for c in _cross_syntax(findings, classes)]
    for rule in RULES:
        if classes is None or rule.error_class in classes:
            proposals += [(rule.name, c) for c in rule.propose(findings)]
    out: list[tuple[str, Candidate]] = []
    seen: set[tuple[tuple[str, str], ...]] = set()
    for name, candidate in proposals:
        key = tuple(sorted((e.where, e.after) for e in candidate))
        if key not in seen:
            seen.add(key)
            out.append((name, candidate))
    return out


def _cross_syntax(findings: ItemContext, classes: set[ErrorClass] | None) -> list[Candidate]:
    """Joint candidates for broken formulas of which some need one syntax rule, some the other.

    Each rule alone only repairs its own formulas, and the gate needs all of them to parse.
    """
    if classes is not None and not {
        parentheses.TAG.error_class,
        typos.TAG.error_class,
    } <= set(classes):
        return []
    paren, typo = parentheses.paren_edits(findings), typos.typo_edits(findings)
    paren_fixed = {w for w, edits in paren.items() if edits}
    typo_fixed = {w for w, edits in typo.items() if edits}
    if len(paren_fixed | typo_fixed) <= max(len(paren_fixed), len(typo_fixed)):
        return []  # one rule covers every formula the other does: its own joint suffices
    merged = {w: paren.get(w, []) + typo.get(w, []) for w in sorted(paren_fixed | typo_fixed)}
    return [c for c in joint(merged) if len(c) > 1]
