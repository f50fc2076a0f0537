"""Test doubles: a scripted prover whose answers a test sets, an item builder, and a Refine
outcome of the shape the review queue is built from."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from refinery.datasets.records import Item
from refinery.labels import normalize_gold_label
from refinery.outcomes import Outcome
from refinery.prove.verdict import Budget, Problem, Status, Verdict


@dataclass
class ScriptedProver:
    """Answers every problem with `answer(problem)`; counts its calls."""

    name: str
    answer: Callable[[Problem], Status]
    calls: list[Problem] = field(default_factory=list)

    def version(self) -> str:
        return "scripted-1"

    def available(self) -> bool:
        return True

    def check(self, problem: Problem, budget: Budget) -> Verdict:
        self.calls.append(problem)
        started = time.perf_counter()
        status = self.answer(problem)
        return Verdict(self.name, status, time.perf_counter() - started, "scripted-1", status.value)


def make_item(
    example_id: int,
    premises_fol: list[str],
    conclusion_fol: str,
    label: str,
    *,
    story_id: int = 1,
    premises: list[str] | None = None,
    conclusion: str = "c",
) -> Item:
    nl = premises if premises is not None else [f"premise {i}" for i in range(len(premises_fol))]
    row = {
        "story_id": story_id,
        "premises": "\n".join(nl),
        "premises-FOL": "\n".join(premises_fol),
        "conclusion": conclusion,
        "conclusion-FOL": conclusion_fol,
        "label": label,
        "example_id": example_id,
    }
    return Item(
        dataset="test",
        split="dev",
        story_id=str(story_id),
        example_id=str(example_id),
        premises=tuple(nl),
        premises_fol=tuple(premises_fol),
        conclusion=conclusion,
        conclusion_fol=conclusion_fol,
        label=normalize_gold_label(label),
        raw_label=label,
        source="memory",
        line=example_id,
        raw=json.dumps(row, ensure_ascii=False),
    )


@dataclass
class ScriptedLLM:
    """An `LLMClient` that answers each purpose ("critique", "refine") from a script of JSON texts.

    A script entry that is not valid for the reply model is returned as an error, exactly as the
    real client does, so tests can feed malformed replies.
    """

    replies: dict[str, list[str]]
    name: str = "llm:scripted"
    calls: list[str] = field(default_factory=list)

    def complete_json(
        self, messages: list[dict[str, str]], reply_model: type, *, purpose: str
    ) -> object:
        from pydantic import ValidationError

        from refinery.agents.llm import LLMResult

        self.calls.append(purpose)
        queue = self.replies.get(purpose) or [""]
        raw = queue.pop(0) if len(queue) > 1 else queue[0]
        try:
            value = reply_model.model_validate_json(raw)  # type: ignore[attr-defined]
            error = None
        except ValidationError as err:
            value, error = None, f"schema: {err.errors()[0]['msg']}" if raw else "empty reply"
        return LLMResult(value, error, raw, 10, 5, False, 0.0, 1)


def queue_outcome(n: int, **over: Any) -> Outcome:
    """A `needs_review` outcome for item n, with what `refinery.review.queue.queue_rows` reads."""
    base: dict[str, Any] = {
        "id": f"folio-v2/validation/{n}",
        "status": "needs_review",
        "dataset": "folio-v2",
        "split": "validation",
        "story_id": f"s{n}",
        "reason": "label_mismatch",
        "premises": ["All dogs bark.", "Rex is a dog."],
        "original_premises_fol": ["∀x (Dog(x) → Bark(x))", "Dog(rex)"],
        "proposed_premises_fol": ["∀x (Dog(x) → Bark(x))", "Dog(rex) ∧ ¬Cat(rex)"],
        "conclusion": "Rex barks.",
        "original_conclusion_fol": "Bark(rex)",
        "proposed_conclusion_fol": None,
        "gold_label": "False",
        "prover_labels": {"z3": "True", "eprover": "True"},
        "suggested_label": "True",
        "critique": "The gold label contradicts\nboth provers.",
        "rounds": 2,
        "content_hash": f"hash{n}",
    }
    return Outcome.from_dict(base | over)
