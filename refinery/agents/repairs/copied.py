"""`mend_copied_conjunct`: write the second copy of a conjunct written twice as the conjunct the
other term lacks.

From a `repeated_conjunct` finding (`Road(firstRoad) ∧ MadeOf(secondRoad, concrete) ∧
Road(firstRoad)` for "the first road … and the second road …"): the annotator copied a conjunct
and did not change its name, so the later copy becomes the atom the finding says was meant
(`Road(secondRoad)`). Which term was meant is the finding's best reading, not the sentence's
word: the edit is always a guess, a proposal a reviewer accepts.
"""

from __future__ import annotations

from refinery.agents.alignment import FindingKind
from refinery.agents.models import ErrorClass, ItemContext
from refinery.agents.repairs.edits import Candidate, RuleTag
from refinery.agents.repairs.semantic import best, flagged, node_edits
from refinery.logic.parse import parses
from refinery.logic.printer import to_text
from refinery.logic.rewrite import nodes
from refinery.logic.syntax import Pred

TAG = RuleTag("mend_copied_conjunct", ErrorClass.NL_MISMATCH)


def propose(findings: ItemContext) -> list[Candidate]:
    """One candidate per blaming `repeated_conjunct` finding: its later copy rewritten.

    >>> import dataclasses
    >>> from refinery.agents.alignment import align
    >>> fol = {"premises[0]": "Road(first) ∧ MadeOf(second, asphalt) ∧ Road(first)"}
    >>> f = ItemContext("i", "s", fol, {"premises[0]": "The first and the second are roads."}, None)
    >>> f = dataclasses.replace(f, alignment=align(f.fol, f.nl).findings)
    >>> [(c[0].after, c[0].guess) for c in propose(f)]
    [('Road(first) ∧ MadeOf(second, asphalt) ∧ Road(second)', True)]
    """
    out: list[Candidate] = []
    for finding, text, formula in flagged(findings, FindingKind.REPEATED_CONJUNCT):
        twice, meant = finding.symbols[:2]
        # by their text: alone, `Carry(bus, y)` would read its bound `y` as a constant
        copies = [(p, n) for p, n in nodes(formula) if isinstance(n, Pred) and to_text(n) == twice]
        written = parses(meant)
        terms = {t.name: t for _, n in nodes(formula) if isinstance(n, Pred) for t in n.args}
        if len(copies) < 2 or not isinstance(written, Pred):
            continue
        path, copy = copies[-1]
        args = tuple(terms.get(a.name, a) for a in written.args)
        surgery = [(copy.span.start, copy.span.end, meant)] if copy.span is not None else []
        new = Pred(copy.name, args)
        out += node_edits(TAG, finding, text, formula, [(path, new, surgery)], guess=True)
    return best(out)
