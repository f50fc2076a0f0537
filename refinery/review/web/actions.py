"""What the review page's requests do: check an edit live, and record a decision.

Both take plain values and return ``(HTTP status, JSON-ready dict)``, so they are tested without
a server. Recording runs the same steps as the terminal: build the decision from the draft
(`refinery.review.decide`), check it like `review check` would, ask for the label change to be
confirmed ("gold → final") and explained, then write it under the queue's lock against the
version the annotator saw (`refinery.review.record`).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refinery.addresses import premise_index
from refinery.logic.parse import canonical_symbols
from refinery.prove.model_table import evidence_models
from refinery.review.decide import (
    Draft,
    check_decision,
    decision_fields,
    draft_decision,
    label_change_text,
)
from refinery.review.feedback import Feedback, FeedbackEngine
from refinery.review.journal import history
from refinery.review.queue import DECISION_COLUMNS, DECISIONS, Decision, QueueRow, same_decision
from refinery.review.record import DecisionConflict, decision_version, save_decision
from refinery.review.sheet import read_queue
from refinery.review.story import story_drafts

#: The page's "save the draft" request: the server decides whether that is an edit or a relabel.
DRAFT = "draft"

Reply = tuple[int, dict[str, Any]]


def _field_index(field: str, count: int) -> int:
    """`premises[2]` → 2, `conclusion` → the last box; -1 for anything else (`story`)."""
    if field == "conclusion":
        return count - 1
    index = premise_index(field)
    return -1 if index is None else index


def feedback_json(feedback: Feedback, count: int) -> dict[str, Any]:
    """The live check's answer for a page with `count` FOL boxes (premises, then conclusion).

    ``errors`` has one entry per formula that does not parse, with its box index, line and
    column (for the caret) and the message; ``lint`` the lint issues with their box; the rest
    says what the provers derive, and ``evidence`` why (one line per proof or countermodel).
    """
    errors = [
        {
            "index": _field_index(p.field, count),
            "line": p.line,
            "column": p.column,
            "message": p.message,
            "source": p.source,
        }
        for p in feedback.problems
    ]
    lint = [
        {
            "index": _field_index(i.where, count),
            "severity": i.severity,
            "kind": i.kind,
            "message": i.message,
        }
        for i in feedback.issues
    ]
    return {
        "parses": feedback.parses,
        "clean": feedback.clean,
        "decided": feedback.decided,
        "label": feedback.label,
        "labels": dict(sorted(feedback.labels.items())),
        "agreement": feedback.agreement,
        "errors": errors,
        "lint": lint,
        "text": feedback.render(),
        "evidence": "\n".join(feedback.evidence),
        "models": evidence_models(feedback.evidence),
    }


@dataclass
class Actions:
    """The page's requests over one queue; checks are serialised (one prover set, one cache)."""

    queue: Path
    engine: FeedbackEngine
    reviewer: str

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def row(self, item_id: str) -> QueueRow | None:
        return next((r for r in read_queue(self.queue) if r.id == item_id), None)

    def check(self, item_id: str, fol: Sequence[str], label: str = "") -> Reply:
        """Live feedback on the page's FOL boxes (ASCII spellings read as the symbols).

        `label` is the draft's label (the gold label when empty): the evidence shows a
        countermodel where the provers' label is not it, as the terminal does.
        """
        row = self.row(item_id)
        if row is None:
            return 404, {"error": f"{item_id} is not in the queue"}
        if len(fol) < 2:
            return 422, {"error": "the FOL needs the premises, then the conclusion"}
        canonical = [canonical_symbols(f.strip()) for f in fol]
        with self._lock:
            feedback = self.engine.check_draft(row, canonical, gold=label or row.gold_label)
        return 200, {**feedback_json(feedback, len(fol)), "canonical": canonical}

    def decide(
        self,
        item_id: str,
        decision: str,
        *,
        fol: Sequence[str],
        label: str,
        note: str,
        reviewer: str,
        seen: str,
        confirm: str = "",
    ) -> Reply:
        """Check and record one decision; or say what is missing.

        Replies: 200 ``saved``; 428 ``confirm`` (a label change to confirm, or a note to add:
        the page asks and sends the request again with `confirm` and `note`); 422 ``refused``
        (the problems, e.g. FOL that does not parse); 409 ``conflict`` (another annotator
        decided the item differently since `seen`: nothing overwritten, the item is flagged);
        404 for an unknown item.
        """
        row = self.row(item_id)
        if row is None:
            return 404, {"status": "refused", "problems": [f"{item_id} is not in the queue"]}
        start = Draft.start(row)
        fol = [f.strip() for f in fol] or start.fol
        draft = Draft(fol=list(fol), label=label or start.label, note=note.strip())
        if decision == DRAFT:
            decision = draft_decision(row, draft) or ""
            if not decision:
                problem = "the draft changes nothing; keep the original instead"
                return 422, {"status": "refused", "problems": [problem]}
        if decision not in DECISIONS:
            return 422, {"status": "refused", "problems": [f"unknown decision {decision!r}"]}
        fields = decision_fields(row, decision, draft)
        with self._lock:
            checked = check_decision(row, fields, self.engine)
        if checked.problems and not checked.needs_note:
            return 422, {"status": "refused", "decision": decision, "problems": checked.problems}
        change = label_change_text(*checked.label_change) if checked.label_change else ""
        if checked.needs_note or (change and confirm != change):
            return 428, {
                "status": "confirm",
                "decision": decision,
                "change": change,
                "needs_note": checked.needs_note,
                "problems": checked.problems,
            }
        fields["reviewer"] = reviewer.strip() or self.reviewer
        fields["decided_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        try:
            saved = save_decision(self.queue, item_id, fields, seen=seen)
        except DecisionConflict as conflict:
            return 409, {
                "status": "conflict",
                "message": str(conflict),
                "kept": conflict.kept,
                "refused": conflict.refused,
            }
        return 200, {"status": "saved", "decision": saved.decision, "id": item_id}

    def undo(self, item_id: str, seen: str) -> Reply:
        """Put back the item's decision as it was before the last one saved (the journal's
        version before it; none: undecided). Pressed again, it redoes. Replies 200 ``undone``
        with the decision now in force, 422 when the item holds no saved decision to undo, 409
        when another annotator decided it since `seen`."""
        row = self.row(item_id)
        if row is None:
            return 404, {"status": "refused", "problems": [f"{item_id} is not in the queue"]}
        versions = [r for _, r in history(self.queue, item_id)]
        mine = row.cells(DECISION_COLUMNS)
        if not versions or not same_decision(versions[-1].cells(), mine):
            problem = "no decision of this page's to undo: the journal does not hold this one"
            return 422, {"status": "refused", "problems": [problem]}
        before = versions[-2].cells(DECISION_COLUMNS) if len(versions) > 1 else {}
        restored = {c: before.get(c, "") for c in DECISION_COLUMNS}
        try:
            saved = save_decision(self.queue, item_id, restored, seen=seen)
        except DecisionConflict as conflict:
            return 409, {"status": "conflict", "message": str(conflict)}
        return 200, {"status": "undone", "decision": saved.decision, "id": item_id}

    def story_fix(self, item_id: str, fol: Sequence[str], reviewer: str) -> Reply:
        """Carry the premises `fol` rewrites into the story's other open items that hold them.

        Each such item is saved as an ``edit`` when its check needs nobody (no problem, no
        label change, no label against the provers); otherwise the fix becomes its draft (its
        ``final_fol``, no decision), shown when the annotator opens it. Replies 200 with the
        ids ``saved`` and ``drafted`` (each drafted one with why).
        """
        rows = read_queue(self.queue)
        if not any(r.id == item_id for r in rows):
            return 404, {"status": "refused", "problems": [f"{item_id} is not in the queue"]}
        canonical = [canonical_symbols(f.strip()) for f in fol]
        saved: list[str] = []
        drafted: dict[str, list[str]] = {}
        note = f"the premise fix of {item_id}, made for its whole story"
        for other, draft in story_drafts(rows, item_id, canonical):
            # checked with the item's own note only: a label against the provers needs a
            # person's reason, which the note this fix leaves is not
            fields = decision_fields(other, Decision.EDIT, draft)
            with self._lock:
                checked = check_decision(other, fields, self.engine)
            seen = decision_version(other)
            change = checked.label_change
            if checked.problems or change is not None:
                drafted[other.id] = list(checked.problems) or (
                    [f"the label changes {label_change_text(*change)}"] if change else []
                )
                fields = {"final_fol": fields["final_fol"]}
            else:
                fields["note"] = fields["note"] or note
                fields["reviewer"] = reviewer.strip() or self.reviewer
                fields["decided_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
                saved.append(other.id)
            try:
                save_decision(self.queue, other.id, fields, seen=seen)
            except DecisionConflict as conflict:
                saved = [i for i in saved if i != other.id]
                drafted[other.id] = [str(conflict)]
        return 200, {"status": "applied", "saved": saved, "drafted": drafted}
