"""`refinery review apply`: the queue's valid decisions become a new version of the refined split.

The new version is a run folder beside the one it starts from (``<time>-review``, `kind`
``review``, `parent` = that run). Decided items get the decision's final FOL and label, status
``reviewed``, and the reviewer, time and note; every other row is carried over unchanged. The
report is regenerated with a "Review round" section. Nothing is written when any decided row
fails `check` (or no longer matches the run's item), when a tool-owned cell (gold label, original
or proposed FOL, …) was edited, or when an item has two rows: the whole list comes back instead.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from refinery import runs
from refinery.addresses import background, premise
from refinery.errors import RefineryError
from refinery.outcomes import REVIEW_FIELDS, Outcome, Status, edit_rows
from refinery.report import run_history, write_report
from refinery.review.decide import Resolution, RowProblem, check_queue
from refinery.review.feedback import Feedback, FeedbackEngine
from refinery.review.ledger import decisions_on
from refinery.review.queue import Decision, QueueRow, queue_row
from refinery.review.sheet import read_queue_lines
from refinery.runs.refined import background_cell


class ApplyRefused(RefineryError):
    """Some decided rows fail the checks; `problems` lists them all."""

    def __init__(self, path: Path, problems: Sequence[RowProblem]) -> None:
        self.problems = list(problems)
        lines = [p.render(str(path)) for p in self.problems]
        super().__init__(
            f"{len(lines)} problem(s) in {path}; nothing applied:\n" + "\n".join(lines)
        )


@dataclass(frozen=True)
class Applied:
    """What `apply_review` wrote: the new run folder and per-decision counts."""

    run_dir: Path
    parent: str
    decisions: dict[str, int]
    changed_labels: int
    changed_fol: int


def review_run_id(now: dt.datetime, base: Path) -> str:
    """A new run id that sorts after every existing one in `base` (``<time>-review[-n]``)."""
    stem = now.strftime("%Y%m%d-%H%M%S") + "-review"
    taken = {p.name for p in base.iterdir()} if base.is_dir() else set()
    n, name = 1, stem
    while name in taken:
        n += 1
        name = f"{stem}-{n}"
    return name


def apply_review(
    queue: Path,
    run: runs.Run,
    engine: FeedbackEngine,
    *,
    now: dt.datetime | None = None,
    reviewer: str = "",
    key: bytes | None = None,
) -> Applied:
    """Apply every valid decision in `queue` to `run`; write and return the new version.

    `reviewer` is used for rows that name none; `key` is the state folder's sealing key
    (`refinery.review.seal`). Raises `ApplyRefused` (nothing written) when a
    decided row fails `check`, is not in the run, was decided on different content or has
    edited tool-owned cells (each named with what the run has), or when an item has two rows.
    """
    now = now or dt.datetime.now(dt.UTC)
    lines = read_queue_lines(queue)
    by_id = {o.id: o for o in run.outcomes}
    tool_rows = {o.id: queue_row(o) for o in run.outcomes}
    problems, valid = check_queue(lines, engine, tool_rows=tool_rows, run_id=run.run_id, key=key)
    for entry in lines:
        row = entry.item
        if not row.decision.strip():
            continue
        outcome = by_id.get(row.id)
        if outcome is None:
            problems.append(
                RowProblem(entry.row, entry.line, row.id, f"not an item of run {run.run_id}")
            )
        elif row.content_hash and row.content_hash != outcome.content_hash:
            problems.append(
                RowProblem(
                    entry.row,
                    entry.line,
                    row.id,
                    f"decided on other content than run {run.run_id} has; re-run refine to "
                    "merge the queue, then look again",
                )
            )
    if problems:
        raise ApplyRefused(queue, sorted(problems, key=lambda p: p.line))

    new_id = review_run_id(now, run.path.parent)
    stamp = now.isoformat(timespec="seconds")
    rows_by_id = {r["id"]: r for r in run.refined_rows()}
    outcomes_by_id = {o.id: o for o in run.outcomes}
    review_log: list[dict[str, Any]] = []
    decisions: dict[str, int] = {}
    for row in (entry.item for entry in lines):
        if row.id not in valid:
            continue
        decision = row.decision.strip()
        decisions[decision] = decisions.get(decision, 0) + 1
        if decision == Decision.SKIP:
            continue  # looked at, left undecided on purpose: the item stays in review
        resolution, feedback = valid[row.id]
        who = row.reviewer.strip() or reviewer
        outcome, changed = _reviewed(outcomes_by_id[row.id], row, resolution, feedback, who, stamp)
        outcomes_by_id[row.id] = outcome
        _apply_row(rows_by_id[row.id], outcome)
        review_log.append(
            {
                "id": row.id,
                "decision": decision,
                "reviewer": who,
                "label_before": row.gold_label,
                "label_after": resolution.label,
                "fol_lines_changed": changed,
                "note": row.note.strip(),
            }
        )
    out = run.path.parent / new_id
    # built aside and renamed into place like a Refine run: a failure leaves no version
    with runs.building(out) as staging:
        outcomes = [outcomes_by_id[o.id] for o in run.outcomes]
        refined = [dict(rows_by_id[o.id], run_id=new_id) for o in outcomes]
        review = {
            "queue": str(queue),
            "decisions": decisions,
            "reviewers": sorted({r["reviewer"] for r in review_log if r["reviewer"]}),
            "applied": [r["id"] for r in review_log],
        }
        meta = runs.review_meta(
            run, run_id=new_id, created_at=stamp, outcomes=outcomes, review=review
        )
        runs.write_run(staging, refined, outcomes, meta)
        report_meta = {
            **run.meta.get("report_meta", {}),
            "run_id": new_id,
            "review_of": run.run_id,
            "review_queue": str(queue),
        }
        write_report(
            staging,
            outcomes=outcomes,
            edits=edit_rows(outcomes),
            validations=run.meta.get("validations", {}),
            meta=report_meta,
            review=review_log,
            history=run_history(staging, before=new_id),
        )
        runs.finish(out)
    return Applied(
        run_dir=out,
        parent=run.run_id,
        decisions=decisions,
        changed_labels=sum(1 for r in review_log if r["label_before"] != r["label_after"]),
        changed_fol=sum(1 for r in review_log if r["fol_lines_changed"]),
    )


@dataclass(frozen=True)
class Carried:
    """What a refine run took over from its queue: the items whose decision now holds in the
    run (`carried`, their content unchanged since the decision), those decided on content that
    has changed since (`second_look`: flagged ``changed_since_decision`` in the queue, left in
    review), and decided rows that fail the checks (`refused`, ``"<id>: <why>"``)."""

    carried: tuple[str, ...] = ()
    second_look: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, list[str]]:
        return {k: list(v) for k, v in asdict(self).items()}


def carry_decisions(
    queue: Path,
    outcomes: Sequence[Outcome],
    rows: Sequence[dict[str, Any]],
    engine: Callable[[], FeedbackEngine],
    key: bytes | None = None,
) -> tuple[list[Outcome], list[dict[str, Any]], Carried]:
    """The run's outcomes and refined rows with every valid decision of `queue` applied, as
    `apply_review` applies it: a later run of the split keeps what people decided.

    Only a decision on the item's current content is carried (the queue's merge flags the
    others `changed_since_decision`); `skip` carries nothing. `engine` is called only when some
    decision is to be carried (it starts the provers that check the decided FOL); `key` is the
    state folder's sealing key (`refinery.review.seal`).
    """
    if not queue.exists():
        return list(outcomes), list(rows), Carried()
    by_id = {o.id: o for o in outcomes}
    same, since = decisions_on(read_queue_lines(queue), by_id)
    second = tuple(e.item.id for e in since)
    if not same:
        return list(outcomes), list(rows), Carried(second_look=second)
    # checked against the run's own rows, never only against a row's own hash
    decided = {entry.item.id for entry in same}
    tool_rows = {o.id: queue_row(o) for o in outcomes if o.id in decided}
    problems, valid = check_queue(same, engine(), tool_rows=tool_rows, key=key)
    changed: dict[str, Outcome] = {}
    for entry in same:
        row = entry.item
        if row.id not in valid:
            continue
        resolution, feedback = valid[row.id]
        # stamped with the decision's own time (empty where no tool recorded one), never the
        # run's: the same queue gives the same files on every run
        changed[row.id], _ = _reviewed(
            by_id[row.id], row, resolution, feedback, row.reviewer.strip(), row.decided_at.strip()
        )
    new_rows = []
    for refined in rows:
        refined = dict(refined)
        if refined.get("id") in changed:
            _apply_row(refined, changed[refined["id"]])
        new_rows.append(refined)
    carried = Carried(
        carried=tuple(changed),
        second_look=second,
        refused=tuple(f"{p.item_id}: {p.message}" for p in problems),
    )
    return [changed.get(o.id, o) for o in outcomes], new_rows, carried


def _reviewed(
    outcome: Outcome,
    row: QueueRow,
    resolution: Resolution,
    feedback: Feedback | None,
    reviewer: str,
    stamp: str,
) -> tuple[Outcome, int]:
    """The outcome with the decision applied, and how many FOL lines the decision changed."""
    source = f"review:{reviewer}" if reviewer else "review"
    note = row.note.strip()
    before = list(outcome.original_premises_fol)
    after = list(resolution.premises_fol)
    pairs = [
        (premise(i), before[i] if i < len(before) else "", after[i] if i < len(after) else "")
        for i in range(max(len(before), len(after)))
    ]
    pairs.append(("conclusion", outcome.original_conclusion_fol, resolution.conclusion_fol))
    pairs += [(background(i), "", fact) for i, fact in enumerate(resolution.background_fol)]
    edits = tuple(
        {
            "where": w,
            "before": b,
            "after": a,
            "source": source,
            "error_class": "review",
            "explanation": note,
        }
        for w, b, a in pairs
        if b != a
    )
    reviewed = outcome.replace(
        status=Status.REVIEWED,
        refined_premises_fol=tuple(resolution.premises_fol),
        refined_conclusion_fol=resolution.conclusion_fol,
        refined_background_fol=resolution.background_fol,
        label=resolution.label,
        edits=edits,
        proposed_edits=(),
        review_decision=row.decision.strip(),
        reviewer=reviewer,
        reviewed_at=stamp,
        review_note=row.note.strip(),
    )
    if feedback is not None:
        reviewed = reviewed.replace(
            prover_label=feedback.label, prover_labels=dict(feedback.labels)
        )
    return reviewed, len(edits)


def _apply_row(row: dict[str, Any], outcome: Outcome) -> None:
    """Carry an applied outcome into its refined-split row (keeping the input's layout)."""
    premises = list(outcome.refined_premises_fol)
    as_list = isinstance(row.get("premises-FOL"), list)  # FOLIO v0 keeps lists
    row["premises-FOL"] = premises if as_list else "\n".join(premises)
    row["conclusion-FOL"] = outcome.refined_conclusion_fol
    row["background-FOL"] = background_cell(outcome, as_list=as_list)
    row["status"] = outcome.status.value
    for key in ("label", "prover_label", "evidence", *REVIEW_FIELDS):
        row[key] = getattr(outcome, key)
