"""The per-item outcome of a Refine run: one typed record and the vocabulary every stage reads.

The repair loop (`refinery.repair`) makes one `Outcome` per item; the run folder keeps them
(`outcomes.jsonl`, see `refinery.runs`); the refined split, the review queue, the report, the
change report and the validation suite read them; a review round (`refinery.review.apply`)
replaces them with reviewed ones. `Status` and `Reason` are string enums, so every file reads the
same as plain strings. This module defines the vocabulary once: statuses in their one order,
reasons, counts, the summary table and the report's edit rows.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from refinery.addresses import premise_index


class Status(StrEnum):
    """How an item ended; in this order everywhere (settled first, then open)."""

    VERIFIED = "verified"  # the original FOL (notation normalisation only) proves the gold label
    REPAIRED = "repaired"  # an accepted repair proves the gold label
    REVIEWED = "reviewed"  # an annotator's decision was applied (`refinery review apply`)
    NEEDS_REVIEW = "needs_review"  # unresolved; `Reason` says why


class Reason(StrEnum):
    """Why an item needs review; `NONE` for the items that do not."""

    NONE = ""
    UNPARSEABLE = "unparseable"
    LINT_ERROR = "lint_error"
    INCONSISTENT_PREMISES = "inconsistent_premises"
    PROVER_UNDECIDED = "prover_undecided"
    PROVER_DISAGREEMENT = "prover_disagreement"
    LABEL_MISMATCH = "label_mismatch"  # well-formed FOL proves another label: see suggested_label
    # datasets with their own semantics (ProofWriter): the label, not the FOL, is in doubt
    SEMANTICS_MISMATCH = "semantics_mismatch"
    LABEL_ERROR_CANDIDATE = "label_error_candidate"
    # settled by the provers, but a formula does not say what its sentence says
    NL_MISMATCH = "nl_mismatch"
    # an edit of meaning proves the gold label, but the sentence does not settle it (another
    # edit also fits, or the finding it answers is weak): the edit is a proposal to confirm
    UNCONFIRMED_REPAIR = "unconfirmed_repair"
    # the repair loop spent its time budget (`RepairConfig.item_seconds`) before it settled the
    # item: `final_category` says what is still wrong, the critique where the loop stopped
    REPAIR_BUDGET = "repair_budget"


class Cause(StrEnum):
    """What blocks an item the review queue holds, as a reader would name it
    (`refinery.repair.blame`)."""

    NONE = ""
    LABEL = "label"  # the FOL says what the sentences say; the gold label does not follow
    VOCABULARY = "vocabulary"  # names drift across formulas (case, near names, compounds)
    STRUCTURE = "structure"  # a formula's shape misreads its sentence (scope, ¬, →, quantifier)
    KNOWLEDGE = "knowledge"  # the sentences take a fact for granted that the FOL leaves out
    AMBIGUOUS = "ambiguous"  # the sentences support more than one label
    SYNTAX = "syntax"  # a formula does not parse, or lints with errors


class Category(StrEnum):
    """What the check stage found for an item, in the order the rules are tested: the first
    that applies wins (`refinery.check.stage.categorise`)."""

    PARSE_ERROR = "parse_error"  # some premise or the conclusion does not parse: no prover ran
    LINT_ERROR = "lint_error"  # parses, but a lint error (arity clash, free variable …)
    # dataset semantics only (ProofWriter): the dataset's own reasoning contradicts the gold label
    LABEL_ERROR_CANDIDATE = "label_error_candidate"
    PROVER_DISAGREEMENT = "prover_disagreement"  # two provers reached different definite labels
    UNDECIDED = "undecided"  # some prover timed out, gave up or failed, so no label counts
    INCONSISTENT = "inconsistent"  # both provers: the premises contradict each other
    VERIFIED = "verified"  # both provers derive the gold label
    # dataset semantics only: gold Uncertain, which the dataset's own reasoning reproduces, but
    # both provers decide True/False (classical logic decides more, e.g. by contraposition)
    SEMANTICS_MISMATCH = "semantics_mismatch"
    LABEL_MISMATCH = "label_mismatch"  # both provers agree on a label other than the gold one

    @property
    def of_dataset(self) -> bool:
        """Whether only a dataset with its own semantics gives this category."""
        return self in (Category.LABEL_ERROR_CANDIDATE, Category.SEMANTICS_MISMATCH)

    @property
    def reason(self) -> Reason:
        """The reason an item that ends in this category needs review.

        >>> Category.PARSE_ERROR.reason, Category("label_mismatch").reason
        (<Reason.UNPARSEABLE: 'unparseable'>, <Reason.LABEL_MISMATCH: 'label_mismatch'>)
        """
        if self is Category.VERIFIED:
            raise ValueError("a verified item needs no review")
        return Reason(_REVIEW_REASONS.get(self, self.value))


#: The review reasons whose name is not the category's own.
_REVIEW_REASONS = {
    Category.PARSE_ERROR: Reason.UNPARSEABLE,
    Category.INCONSISTENT: Reason.INCONSISTENT_PREMISES,
    Category.UNDECIDED: Reason.PROVER_UNDECIDED,
}

#: The fields a review round fills in; an outcome never reviewed writes none of them.
REVIEW_FIELDS = ("review_decision", "reviewer", "reviewed_at", "review_note")


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What became of one item: its status, its FOL before and after, and why.

    Labels are `Label` values as text, or "" for none. `label` is the gold label and never
    changes automatically (only a review round sets it); `suggested_label` is a suggestion for
    review. `refined_*` is the FOL the refined split holds (the original unless a repair was
    accepted or a review applied); `proposed_*` is a rejected repair that still made progress,
    offered for review (None when there is none). `edits` and `proposed_edits` hold one JSON
    object per changed formula (`where`, `before`, `after`, `error_class`, `source`, …); `audit`
    is the loop's trail (the check row's summary and every round). `evidence` says why the final
    FOL gets its label: the premises that prove it, or a countermodel (one line each).
    `findings` are where the final FOL does not say what its sentences say (`refinery.agents
    .alignment`), worst first; `nl_mismatch_score` is the worst finding's score and
    `is_nl_mismatch_issue` whether it reaches the queue (cleanlab-style columns).
    `label_score` says how well the gold label holds up (low: likely wrong) and `is_label_issue`
    whether a label change is suggested. `cause` names what blocks an item the review queue
    holds (the FOL's names, its structure, a fact left out, the label …; for one the provers
    settle but a formula misreads, what blocked its gold label) and `cause_evidence` why;
    `background_fol` the background facts proposed where one is left out (never merged into
    the premises); `refined_background_fol` those a reviewer accepted, which the refined split
    publishes in their own column.
    """

    id: str
    dataset: str = ""
    split: str = ""
    story_id: str = ""
    example_id: str = ""
    status: Status
    reason: Reason = Reason.NONE
    check_category: str = ""
    final_category: str = ""
    original_label: str = ""
    gold_label: str = ""
    label: str = ""
    suggested_label: str = ""
    prover_label: str = ""
    prover_labels: Mapping[str, str] = field(default_factory=dict)
    premises: tuple[str, ...] = ()
    conclusion: str = ""
    original_premises_fol: tuple[str, ...] = ()
    original_conclusion_fol: str = ""
    refined_premises_fol: tuple[str, ...] = ()
    refined_conclusion_fol: str = ""
    proposed_premises_fol: tuple[str, ...] | None = None
    proposed_conclusion_fol: str | None = None
    edits: tuple[Mapping[str, Any], ...] = ()
    proposed_edits: tuple[Mapping[str, Any], ...] = ()
    repaired_by: str = ""
    error_classes: tuple[str, ...] = ()
    critique: str = ""
    rounds: int = 0
    audit: Mapping[str, Any] = field(default_factory=dict)
    content_hash: str = ""
    notation: str = ""
    evidence: str = ""
    findings: tuple[str, ...] = ()
    nl_mismatch_score: float = 0.0
    is_nl_mismatch_issue: bool = False
    label_score: float = 1.0
    is_label_issue: bool = False
    cause: Cause = Cause.NONE
    cause_evidence: str = ""
    background_fol: tuple[str, ...] = ()
    refined_background_fol: tuple[str, ...] = ()
    seconds: float = 0.0
    run_id: str = ""
    review_decision: str = ""
    reviewer: str = ""
    reviewed_at: str = ""
    review_note: str = ""

    @property
    def queued(self) -> bool:
        """Whether the item goes to the review queue: unresolved, or settled but misread."""
        return self.status is Status.NEEDS_REVIEW or self.reason is Reason.NL_MISMATCH

    def sentence(self, where: str) -> str:
        """The NL sentence of the formula at `where` (`premises[i]` or `conclusion`)."""
        if where == "conclusion":
            return self.conclusion
        index = premise_index(where)
        return self.premises[index] if index is not None and index < len(self.premises) else ""

    def replace(self, **changes: Any) -> Outcome:
        """A copy with `changes` (fields by name)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, in field order; the review fields only once a review filled them.

        >>> o = Outcome(id="d/s/1", status=Status.VERIFIED, premises=("All cats purr.",))
        >>> o.to_dict()["premises"], "reviewer" in o.to_dict()
        (['All cats purr.'], False)
        >>> Outcome.from_dict(o.to_dict()) == o
        True
        """
        out: dict[str, Any] = {}
        reviewed = any(getattr(self, name) for name in REVIEW_FIELDS)
        for f in dataclasses.fields(self):
            if f.name in REVIEW_FIELDS and not reviewed:
                continue
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                value = [dict(v) if isinstance(v, Mapping) else v for v in value]
            elif isinstance(value, Mapping):
                value = dict(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """Read the JSON form back (a run folder's `outcomes.jsonl`, the outcome cache).

        Unknown keys, an unknown status or reason, and text where a list belongs are errors
        (`ValueError`): the file is not an outcome of this version.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"outcome {data.get('id')!r}: unknown fields {sorted(unknown)}")
        values = dict(data)
        values["status"] = Status(values["status"])
        values["reason"] = Reason(values.get("reason") or "")
        values["cause"] = Cause(values.get("cause") or "")
        for name in _TUPLES:
            value = values.get(name)
            if isinstance(value, str | bytes):
                raise ValueError(f"outcome {data.get('id')!r}: {name} must be a list, not text")
            if value is not None:
                values[name] = tuple(value)
        return cls(**values)


_TUPLES = (
    "findings",
    "premises",
    "original_premises_fol",
    "refined_premises_fol",
    "proposed_premises_fol",
    "edits",
    "proposed_edits",
    "error_classes",
    "background_fol",
    "refined_background_fol",
)


def outcome_counts(outcomes: Iterable[Outcome]) -> dict[str, int]:
    """Items per status in `Status` order: Refine's three always, `reviewed` when there are any.

    >>> outcome_counts([Outcome(id="a", status=Status.REPAIRED)])
    {'verified': 0, 'repaired': 1, 'needs_review': 0}
    """
    found = Counter(o.status for o in outcomes)
    return {s.value: found[s] for s in Status if s is not Status.REVIEWED or found[s]}


#: The summary's row for what the queue holds: the one "needs review" number the queue, the
#: report and the terminal all give (items in review, and settled ones that misread).
IN_QUEUE = "in the review queue"


def summary_table(outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
    """Outcome counts as table rows, `needs_review` broken down by reason, then how many items
    the review queue holds (`IN_QUEUE`: settled items whose formulas misread count too)."""
    table = [{"outcome": k, "items": v} for k, v in outcome_counts(outcomes).items()]
    reasons: dict[str, int] = {}
    for o in outcomes:
        if o.status is Status.NEEDS_REVIEW:
            reasons[o.reason.value] = reasons.get(o.reason.value, 0) + 1
    table += [{"outcome": f"needs_review: {r}", "items": n} for r, n in sorted(reasons.items())]
    table.append({"outcome": IN_QUEUE, "items": sum(o.queued for o in outcomes)})
    return table


def edit_rows(outcomes: Iterable[Outcome]) -> list[dict[str, Any]]:
    """Every accepted and proposed FOL edit, beside the NL sentence it formalises (the report's)."""
    rows = []
    for o in outcomes:
        for accepted, edits in ((True, o.edits), (False, o.proposed_edits)):
            for e in edits:
                where = e["where"]
                rows.append(
                    {
                        "id": o.id,
                        "where": where,
                        "before": e["before"],
                        "after": e["after"],
                        "nl": o.sentence(where),
                        "source": e["source"],
                        "error_class": e["error_class"],
                        "accepted": accepted,
                    }
                )
    return rows
