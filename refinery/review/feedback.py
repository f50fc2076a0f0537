"""Live feedback on an annotator's FOL: syntax errors with a caret, lint issues, the provers' label.

The same gates a machine repair passes (parse, lint, both provers agree) are run on a human edit,
so an annotator sees at once what their formula now entails. Provers are passed in (the command
line builds them), and verdicts go through the shared verdict cache, so re-checking an unchanged
premise set costs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from refinery.check import Checker, lint_item, parse_item
from refinery.datasets.records import Item
from refinery.labels import GOLD_LABELS, normalize_gold_label
from refinery.logic.diagnostics import Issue
from refinery.logic.errors import SyntaxProblem
from refinery.prove.cache import VerdictCache
from refinery.prove.model_table import why
from refinery.prove.verdict import Budget, Prover
from refinery.review.queue import QueueRow


@dataclass(frozen=True)
class Feedback:
    """What the tools say about one item's FOL.

    `syntax`: one rendered problem per formula that does not parse (message and caret line);
    `lint`: rendered lint issues (errors and warnings); `lint_errors`: the errors among them;
    `labels`: each prover's label; `label`: the label both agree on ("" when they do not or
    nothing was proved); `agreement`: the agreement code from the check stage; `evidence`: why
    (the premises that prove it, or a countermodel; one line each, see `refinery.prove.evidence`).
    `problems` and `issues` are the same syntax problems and lint issues as records (field,
    line, column), for a page that marks the formula they belong to.
    """

    syntax: tuple[str, ...] = ()
    lint: tuple[str, ...] = ()
    lint_errors: tuple[str, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)
    label: str = ""
    agreement: str = ""
    evidence: tuple[str, ...] = ()
    problems: tuple[SyntaxProblem, ...] = field(default=(), compare=False)
    issues: tuple[Issue, ...] = field(default=(), compare=False)

    @property
    def parses(self) -> bool:
        return not self.syntax

    @property
    def clean(self) -> bool:
        """Parses and has no lint error: the gate a saved edit must pass."""
        return self.parses and not self.lint_errors

    @property
    def decided(self) -> bool:
        """Both provers agree on a gold-type label (True / False / Uncertain)."""
        return self.label in {lab.value for lab in GOLD_LABELS}

    def render(self) -> str:
        """Plain text for the terminal."""
        if self.syntax:
            return "\n".join(["syntax error, not saved:", *self.syntax])
        lines = [f"lint: {issue}" for issue in self.lint] or ["lint: clean"]
        if self.lint_errors:
            return "\n".join([*lines, "provers: not asked until the lint errors are fixed"])
        per = ", ".join(f"{k}={v}" for k, v in sorted(self.labels.items()))
        agreed = self.label or "no agreed label"
        lines.append(f"provers: {agreed} ({per}; {self.agreement})")
        lines += [f"  why: {why(line)}" for line in self.evidence]
        return "\n".join(lines)


class FeedbackEngine:
    """Checks FOL with the given provers under one budget, through the verdict cache."""

    def __init__(
        self, provers: list[Prover], budget: Budget, cache_path: Path | None = None
    ) -> None:
        cache = VerdictCache(cache_path)
        cache.prepare()
        self._checker = Checker(provers=provers, budget=budget, cache=cache)

    def check(
        self,
        premises_fol: Sequence[str],
        conclusion_fol: str,
        *,
        nl_premises: Sequence[str] = (),
        conclusion: str = "",
        item_id: str = "review/item/0",
        gold: str = "",
    ) -> Feedback:
        """Parse, lint and prove one item's FOL (premise formulas, then the conclusion).

        With the `gold` label, a countermodel is looked for where the provers' label is not it
        (as in the check stage); without, for both directions of an Uncertain verdict.
        """
        dataset, split, example = (item_id.split("/", 2) + ["", ""])[:3]
        item = Item(
            dataset=dataset,
            split=split,
            story_id="review",
            example_id=example,
            premises=tuple(nl_premises),
            premises_fol=tuple(premises_fol),
            conclusion=conclusion,
            conclusion_fol=conclusion_fol or None,
            label=normalize_gold_label(gold),
            raw_label=gold,
            source="review",
            line=0,
            raw="{}",
        )
        parsed = parse_item(item)
        if not parsed.ok:
            return Feedback(
                syntax=tuple(p.render() for p in parsed.problems), problems=parsed.problems
            )
        issues = tuple(lint_item(parsed))
        rendered = tuple(i.render() for i in issues)
        errors = tuple(i.render() for i in issues if i.severity == "error")
        if errors:
            return Feedback(lint=rendered, lint_errors=errors, issues=issues)
        [row] = self._checker.check_story([item])
        return Feedback(
            lint=rendered,
            labels=row.prover_labels(),
            label=row.label,
            agreement=row.agreement,
            evidence=tuple(line for line in row.evidence.split("\n") if line),
            issues=issues,
        )

    def check_draft(
        self,
        row: QueueRow,
        fol: Sequence[str],
        gold: str = "",
        background: Sequence[str] = (),
    ) -> Feedback:
        """`check` of `fol` (premise formulas, then the conclusion) for a review-queue row's item,
        against the label the draft would give it (`gold`, see `check`). `background` facts
        count as more premises, after the item's own (``premises[n]`` is the first fact)."""
        nl = row.nl_premises.split("\n")
        if background:  # the facts have no sentence of their own: blanks, after the premises'
            nl = [*(nl + [""] * len(fol))[: len(fol) - 1], *("" for _ in background)]
        return self.check(
            [*fol[:-1], *background],
            fol[-1],
            nl_premises=nl,
            conclusion=row.conclusion,
            item_id=row.id,
            gold=gold,
        )
