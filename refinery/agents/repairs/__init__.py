"""Rule-based repairs: named, pure, deterministic proposers of candidate edits.

This package owns the refiner's deterministic backend. Each rule is one module that declares its
`TAG` (name and error class) and reads one item's `ItemContext` into `Candidate`s (edits applied
together), most plausible first; it never decides anything — the gate in `refinery.repair`
re-parses, re-lints and re-proves every candidate. `registry.RULES` lists the rules in the order
they are tried (each module's docstring says what it does): first those that repair syntax and
structure, then the meaning-level rules (`registry.MEANING_RULES`), which act only where the
alignment blames a formula (`semantic`). Rules share text surgery (`edits`: every edit keeps the
annotator's spelling, every `after` parses), the item's names located in its formulas
(`located`), and the one sentence reader (`refinery.agents.reading`: the sentences' words, their
quantifier and connective cues).

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
