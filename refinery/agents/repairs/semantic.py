"""What the meaning-level rules share: the alignment findings they start from, and their edits.

A meaning-level rule (negation, quantifier, connective, implication, argument order, name drift)
never proposes an edit on its own initiative: only where the alignment (`refinery.agents
.alignment`) found the formula saying something other than its sentence, with a score of at
least `BLAME`. Each candidate rewrites one node (`rewrite_node`), so the rest of the formula
keeps the annotator's spelling; the gate then also requires the edit to read better.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from refinery.agents.alignment import BLAME, Finding, FindingKind
from refinery.agents.models import Edit, ItemContext
from refinery.agents.repairs.edits import (
    MAX_CANDIDATES,
    Candidate,
    RuleTag,
    make_edit,
    rewrite_node,
    unique_candidates,
)
from refinery.logic.parse import parses
from refinery.logic.rewrite import Path
from refinery.logic.syntax import Formula


def flagged(findings: ItemContext, *kinds: FindingKind) -> Iterator[tuple[Finding, str, Formula]]:
    """The blaming findings of `kinds`, with their formula's text and parse."""
    for finding in findings.alignment:
        if finding.kind not in kinds or finding.score < BLAME:
            continue
        text = findings.fol.get(finding.where)
        formula = parses(text) if text is not None else None
        if text is not None and formula is not None:
            yield finding, text, formula


def node_edits(
    tag: RuleTag,
    finding: Finding,
    text: str,
    formula: Formula,
    changes: Iterable[tuple[Path, Formula, list[tuple[int, int, str]]]],
    *,
    guess: bool = False,
) -> list[Candidate]:
    """One single-edit candidate per `(path, new node, surgery)` that rewrites cleanly; `guess`
    marks changes the rule picked without the sentence pointing at the node."""
    out: list[Candidate] = []
    for path, new, surgery in changes:
        after = rewrite_node(text, formula, path, new, surgery)
        if after is not None and after != text:
            edit: Edit = make_edit(finding.where, text, after, tag, finding.message, guess=guess)
            out.append((edit,))
    return out


def best(candidates: Iterable[Candidate]) -> list[Candidate]:
    """Distinct candidates, in order, at most `MAX_CANDIDATES`."""
    return unique_candidates(candidates)[:MAX_CANDIDATES]
