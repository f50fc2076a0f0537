"""The cause of a label mismatch on a small item, checked by Z3 and E and re-proved through a
`Retest` (`refinery.repair.retest`): shared by the cause tests."""

from __future__ import annotations

from collections.abc import Sequence

from refinery.agents.critique import item_context
from refinery.agents.reading.lexicon import Lexicon
from refinery.check import Checker
from refinery.outcomes import Reason
from refinery.prove.verdict import Budget
from refinery.repair.blame import Blame, blame
from refinery.repair.retest import Retest
from vampire.registry import build_provers

from fakes import make_item

CHECKER = Checker(build_provers(["z3", "eprover"]), Budget())


def mismatch_cause(
    premises: list[tuple[str, str]],
    conclusion: tuple[str, str],
    gold: str,
    story: tuple[str, ...] = (),
    lexicon: Lexicon | None = None,
    proposals: Sequence[tuple[str, str]] = (),
) -> Blame:
    """The cause of the item with these (sentence, formula) premises and conclusion
    (`proposals`: the (position, error class) of the repair loop's unconfirmed edits)."""
    item = make_item(
        1,
        [f for _, f in premises],
        conclusion[1],
        gold,
        premises=[s for s, _ in premises],
        conclusion=conclusion[0],
    )
    (row,) = CHECKER.check_story([item])
    context = item_context(item, row, story_fol=story)
    retest = Retest(item, CHECKER, story, lexicon)
    return blame(Reason.LABEL_MISMATCH, context, proposals=proposals, retest=retest)
