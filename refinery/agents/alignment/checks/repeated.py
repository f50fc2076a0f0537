"""`repeated_conjunct`: one conjunct written twice in an ∧ where another term of it lacks the
conjunct — "the first road is made of concrete, and the second of asphalt" written
`Road(firstRoad) ∧ MadeOf(secondRoad, concrete) ∧ Road(firstRoad) ∧ …`.

Saying a thing twice adds nothing, so the second copy was meant to say something else: the
annotator copied a conjunct and did not change its name. The formula then leaves the other
thing unsaid, and a proof that needs it fails (or a second "distinct" thing goes unconstrained:
`Passenger(y) ∧ Passenger(z) ∧ Transport(x, y) ∧ Transport(x, y)`). Read from the formula
alone: no sentence says a thing twice on purpose.
"""

from __future__ import annotations

from refinery.agents.alignment.checks.common import Story
from refinery.agents.alignment.finding import Finding, FindingKind
from refinery.agents.alignment.shape import Shape
from refinery.agents.reading.cues import Sentence

#: The kinds of finding this check reports.
REPORTS: tuple[FindingKind, ...] = (FindingKind.REPEATED_CONJUNCT,)


def check(s: Sentence, f: Shape, story: Story) -> list[Finding]:
    """A conjunct written twice where another term lacks it (`Shape.slips`)."""
    return [
        Finding(
            FindingKind.REPEATED_CONJUNCT,
            0.8,
            (),
            (twice, meant),
            f"{twice} is written twice and {meant} nowhere: a copied conjunct whose name was "
            "not changed",
        )
        for twice, meant in f.slips
    ]
