"""The check row: what the check stage says about one item, typed.

A `CheckRow` is made by `refinery.check.stage.Checker` and read by the repair loop, the change
report and the command line. Its verdicts and evidence stay structured (`verdicts`,
`evidence_detail`) until a file is written: `to_dict` is the file form, the columns of
``verdicts.csv`` in their order, with those two as JSON text; `from_dict` reads it back (the row
cache). Nothing outside this package parses a row's JSON.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from refinery.outcomes import Category
from refinery.prove.verdict import Status


@dataclass(frozen=True, slots=True)
class ProverColumns:
    """One prover's answer for an item: its label, the statuses of its three questions
    (``axioms/pos/neg``) and the seconds its two directions took ("" and 0 when not asked)."""

    name: str
    label: str = ""
    status: str = ""
    seconds: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckRow:
    """One item's check result; see `refinery.check.batches.check_items` for each column.

    `label` is the label the provers agree on ("" for none), `category` the `Category`;
    `label_dataset` is the label of the dataset's own semantics, None (no column at all) unless
    some item of the run has one (`refinery.check.stage.apply_dataset_semantics`). `verdicts`
    holds every raw answer per prover and question, `evidence_detail` every core and
    countermodel (`refinery.prove.evidence.evidence_detail`).
    """

    id: str
    dataset: str
    split: str
    story_id: str
    example_id: str
    gold_label: str
    provers: tuple[ProverColumns, ...]
    label: str
    agreement: str
    label_dataset: str | None = None
    category: Category
    issues: str
    n_issues: int
    notation: str
    evidence: str
    content_hash: str
    cached: bool
    prover_seconds: float
    seconds: float
    verdicts: Mapping[str, Any] = field(default_factory=dict)
    evidence_detail: Mapping[str, Any] = field(default_factory=dict)
    # `verdicts` and `evidence_detail` as JSON text, once `to_dict` has written them: a row is
    # written twice (the row cache, then the table), and those two are most of its writing
    _json: tuple[str, str] | None = field(default=None, compare=False, repr=False)

    def replace(self, **changes: Any) -> CheckRow:
        """A copy with `changes` (fields by name)."""
        if "verdicts" in changes or "evidence_detail" in changes:
            changes["_json"] = None
        return dataclasses.replace(self, **changes)

    def prover_labels(self) -> dict[str, str]:
        """Each reasoner's label by name: every prover, then ``dataset`` for the dataset's own
        semantics when the row has that column."""
        labels = {p.name: p.label for p in self.provers}
        if self.label_dataset is not None:
            labels["dataset"] = self.label_dataset
        return labels

    @property
    def has_error(self) -> bool:
        """Whether some prover failed on some question (the row is then not cached: the failure
        may be transient)."""
        return any(
            answer.get("status") == Status.ERROR.value
            for questions in self.verdicts.values()
            for answer in questions.values()
        )

    @property
    def models(self) -> dict[str, str]:
        """Countermodel or saturation text per prover, where a backend gave one."""
        return {
            prover: answer["model"]
            for prover, questions in self.verdicts.items()
            for answer in questions.values()
            if answer.get("model")
        }

    def to_dict(self) -> dict[str, Any]:
        """The file form: ``verdicts.csv``'s columns in order, the JSON columns as text."""
        out: dict[str, Any] = {
            "id": self.id,
            "dataset": self.dataset,
            "split": self.split,
            "story_id": self.story_id,
            "example_id": self.example_id,
            "gold_label": self.gold_label,
        }
        for p in self.provers:
            out[f"label_{p.name}"] = p.label
            out[f"status_{p.name}"] = p.status
            out[f"seconds_{p.name}"] = p.seconds
        out["label"] = self.label
        out["agreement"] = self.agreement
        if self.label_dataset is not None:
            out["label_dataset"] = self.label_dataset
        out["category"] = self.category.value
        out["issues"] = self.issues
        out["n_issues"] = self.n_issues
        out["notation"] = self.notation
        out["evidence"] = self.evidence
        out["content_hash"] = self.content_hash
        out["cached"] = self.cached
        out["prover_seconds"] = self.prover_seconds
        out["seconds"] = self.seconds
        texts = self._json
        if texts is None:
            texts = (
                json.dumps(self.verdicts, ensure_ascii=False),
                json.dumps(self.evidence_detail, ensure_ascii=False),
            )
            object.__setattr__(self, "_json", texts)  # a cache of fields that do not change
        out["verdicts"], out["evidence_detail"] = texts
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CheckRow:
        """Read the file form back (`to_dict`)."""
        names = [k.removeprefix("label_") for k in data if k.startswith("label_")]
        provers = tuple(
            ProverColumns(n, data[f"label_{n}"], data[f"status_{n}"], data[f"seconds_{n}"])
            for n in names
            if n != "dataset"
        )
        return cls(
            id=data["id"],
            dataset=data["dataset"],
            split=data["split"],
            story_id=data["story_id"],
            example_id=data["example_id"],
            gold_label=data["gold_label"],
            provers=provers,
            label=data["label"],
            agreement=data["agreement"],
            label_dataset=data.get("label_dataset"),
            category=Category(data["category"]),
            issues=data["issues"],
            n_issues=data["n_issues"],
            notation=data["notation"],
            evidence=data["evidence"],
            content_hash=data["content_hash"],
            cached=data["cached"],
            prover_seconds=data["prover_seconds"],
            seconds=data["seconds"],
            verdicts=json.loads(data["verdicts"] or "{}"),
            evidence_detail=json.loads(data["evidence_detail"] or "{}"),
        )
