"""Rule-based repairs: named, pure, deterministic proposers of candidate edits.

This package owns the refiner's deterministic backend. Each rule (one module: `parentheses`,
`typos`, `arity`, `free_variables`, `names`, `connectives`) reads one item's `Findings` and
returns `Candidate`s (edits applied together), most plausible first; it never decides anything —
the gate in `refinery.repair` re-parses, re-lints and re-proves every candidate. Rules share text
surgery (`edits`: every edit keeps the annotator's spelling, every `after` parses) and evidence
(`evidence`: the item's names, its sentences' words, quantifier and connective cues).
`registry.RULES` lists them in the order they are tried:

- `balance_parentheses`: insert or delete one parenthesis per unmatched one.
- `fix_token_typos`: `v` for ∨, trailing free text, doubled operators, stray characters, a
  quantifier without its variable, a lost ','.
- `harmonize_arity`: make a predicate's minority arity match its majority one.
- `close_free_variables`: bind a free variable, or name the one constant its slot takes.
- `unify_names`: rewrite the minority spelling of a name spelled two ways; a tie is left alone.
- `both_or_neither_iff`: ⊕ → ↔ where the sentence says "either both … or neither".

Syntax repairs for several broken formulas are also proposed together (`edits.joint`): the gate
accepts an item only when all its formulas parse.

The gate only checks the label, so it cannot tell the intended edit from another that also
restores the label — when the edited formula does not matter to the label, any well-formed
edit passes. Faithfulness therefore rests on the rules: the order of their candidates, and not
proposing a candidate the evidence does not single out (a tie proposes nothing).
`benchmarks/bench_faithfulness.py` measures the result.
"""

from refinery.agents.repairs.edits import MAX_CANDIDATES, Candidate, RuleTag, apply_candidate
from refinery.agents.repairs.registry import MEANING_RULES, RULES, Rule, propose_repairs

__all__ = [
    "MAX_CANDIDATES",
    "MEANING_RULES",
    "RULES",
    "Candidate",
    "Rule",
    "RuleTag",
    "apply_candidate",
    "propose_repairs",
]
