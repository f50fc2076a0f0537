"""`swap_arguments`: put a binary atom's arguments in the order the sentence reads them.

From an `argument_order` finding (`Leads(diamondMine, roderickStrong)` for "Roderick Strong
leads Diamond Mine"): swap the two arguments of each atom of that predicate in the formula.
"""

from __future__ import annotations

from refinery.agents.alignment import FindingKind
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.repairs.edits import Candidate, RuleTag
from refinery.agents.repairs.semantic import best, flagged, node_edits
from refinery.logic.rewrite import nodes
from refinery.logic.syntax import Pred

TAG = RuleTag("swap_arguments", ErrorClass.ARGUMENT_ORDER)


def propose(findings: ItemContext) -> list[Candidate]:
    """One candidate per atom the blaming `argument_order` findings name.

    >>> import dataclasses
    >>> from refinery.agents.alignment import align
    >>> fol = {"premises[0]": "Leads(diamondMine, roderickStrong)", "conclusion": "Leads(a, b)"}
    >>> f = ItemContext("i", "s", fol, {"premises[0]": "Roderick Strong leads Diamond Mine."}, None)
    >>> f = dataclasses.replace(f, alignment=align(f.fol, f.nl).findings)
    >>> [c[0].after for c in propose(f)]
    ['Leads(roderickStrong, diamondMine)']
    """
    out: list[Candidate] = []
    for finding, text, formula in flagged(findings, FindingKind.ARGUMENT_ORDER):
        for path, node in nodes(formula):
            if (
                not isinstance(node, Pred)
                or node.name not in finding.symbols
                or len(node.args) != 2
            ):
                continue
            a, b = node.args
            surgery = []
            if a.span is not None and b.span is not None:
                surgery = [
                    (a.span.start, a.span.end, text[b.span.start : b.span.end]),
                    (b.span.start, b.span.end, text[a.span.start : a.span.end]),
                ]
            swapped = Pred(node.name, (b, a), node.span)
            out += node_edits(TAG, finding, text, formula, [(path, swapped, surgery)])
    return best(out)
