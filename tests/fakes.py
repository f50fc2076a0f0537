"""Test doubles: a scripted prover whose answers a test sets, and an item builder."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from refinery.datasets.records import Item
from refinery.labels import normalize_gold_label
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
) -> Item:
    nl = premises if premises is not None else [f"premise {i}" for i in range(len(premises_fol))]
    row = {
        "story_id": story_id,
        "premises": "\n".join(nl),
        "premises-FOL": "\n".join(premises_fol),
        "conclusion": "c",
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
        conclusion="c",
        conclusion_fol=conclusion_fol,
        label=normalize_gold_label(label),
        raw_label=label,
        source="memory",
        line=example_id,
        raw=json.dumps(row, ensure_ascii=False),
    )
