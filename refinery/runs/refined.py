"""The refined split: the input's rows with refined FOL, outcome columns and provenance.

Each row keeps the input's own columns and layout (FOLIO v2 newline-joined strings, v0 lists),
with `premises-FOL` / `conclusion-FOL` holding the refined FOL, so the file is a drop-in
replacement for the original. Added columns: `background-FOL` (the background facts a reviewer
accepted, in the layout of `premises-FOL`; never merged into the premises), then
`OUTCOME_COLUMNS`: `id`, `status` (verified | repaired | needs_review), `reason`,
`original_label`, `label` (always equal to the original: labels never change
automatically), `suggested_label`, `prover_label`, `original_premises_fol`,
`original_conclusion_fol`, `repaired_by`, `error_classes`, `evidence` (why the refined FOL
gets its label: proving premises or a countermodel), the alignment and label columns
`findings` (one per line), `nl_mismatch_score`, `is_nl_mismatch_issue`, `label_score`,
`is_label_issue`, `cause` and `cause_evidence` (what blocks an item the review queue holds),
`audit` (a pointer into `audit.jsonl`), `run_id`, `content_hash`, and the review columns
`review_decision`, `reviewer`, `reviewed_at`, `review_note` (empty until `refinery review
apply`; status then `reviewed`). A source whose rows are not items (ProofWriter: a row is a
theory) gets FOLIO v2's columns, with its original row as JSON text in `source_row`. Both
parquet and jsonl are written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from refinery.datasets.records import Item
from refinery.errors import DataError
from refinery.outcomes import REVIEW_FIELDS, Outcome
from refinery.outputs import arrow_table, atomic_write, atomic_write_text, mixed_column

OUTCOME_COLUMNS = (
    "id",
    "status",
    "reason",
    "original_label",
    "label",
    "suggested_label",
    "prover_label",
    "original_premises_fol",
    "original_conclusion_fol",
    "repaired_by",
    "error_classes",
    "evidence",
    "findings",
    "nl_mismatch_score",
    "is_nl_mismatch_issue",
    "label_score",
    "is_label_issue",
    "cause",
    "cause_evidence",
    "audit",
    "run_id",
    "content_hash",
    "review_decision",
    "reviewer",
    "reviewed_at",
    "review_note",
)


def refined_rows(
    items: Sequence[Item], outcomes: Sequence[Outcome], run_id: str
) -> list[dict[str, Any]]:
    """Build the refined split's rows (input order), one per item."""
    by_id = {o.id: o for o in outcomes}
    rows = []
    for item in items:
        o = by_id[item.id]
        raw = _input_columns(item)
        as_list = isinstance(raw.get("premises-FOL"), list)  # FOLIO v0 layout keeps lists
        refined = list(o.refined_premises_fol)
        raw["premises-FOL"] = refined if as_list else "\n".join(refined)
        raw["conclusion-FOL"] = o.refined_conclusion_fol
        raw["background-FOL"] = background_cell(o, as_list=as_list)
        original = list(o.original_premises_fol)
        raw.update(
            {
                "id": item.id,
                "status": o.status.value,
                "reason": o.reason.value,
                "original_label": o.original_label,
                "label": raw.get("label", o.label),
                "suggested_label": o.suggested_label,
                "prover_label": o.prover_label,
                "original_premises_fol": original if as_list else "\n".join(original),
                "original_conclusion_fol": o.original_conclusion_fol,
                "repaired_by": o.repaired_by,
                "error_classes": ",".join(o.error_classes),
                "evidence": o.evidence,
                "findings": "\n".join(o.findings),
                "nl_mismatch_score": o.nl_mismatch_score,
                "is_nl_mismatch_issue": o.is_nl_mismatch_issue,
                "label_score": o.label_score,
                "is_label_issue": o.is_label_issue,
                "cause": o.cause.value,
                "cause_evidence": o.cause_evidence,
                "audit": f"audit.jsonl#{item.id}",
                "run_id": run_id,
                "content_hash": item.content_hash,
                # filled in by `refinery review apply` (status becomes "reviewed")
                **{k: getattr(o, k) for k in REVIEW_FIELDS},
            }
        )
        rows.append(raw)
    return rows


def background_cell(outcome: Outcome, *, as_list: bool) -> str | list[str]:
    """The `background-FOL` cell of an outcome: its accepted facts, one per line (a list where
    the split keeps premises as lists); empty where none was accepted."""
    facts = list(outcome.refined_background_fol)
    return facts if as_list else "\n".join(facts)


def fol_lines(value: Any) -> list[str]:
    """A refined row's FOL lines cell as lines: FOLIO v2 joins them with newlines, v0 keeps a
    list.

    >>> fol_lines("P(a)\\nQ(b)"), fol_lines(["P(a)"]), fol_lines("")
    (['P(a)', 'Q(b)'], ['P(a)'], [])
    """
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value).split("\n") if value else []


def check_input_columns(items: Iterable[Item], source: str) -> None:
    """`DataError` before any work when the refined split could not keep the source's columns:
    one whose values mix kinds (a `story_id` that is a number in one row and text in another)
    cannot be written as a typed column, and changing its values would make the split no
    drop-in replacement."""
    why = mixed_column(_input_columns(item) for item in items)  # one row at a time
    if why:
        raise DataError(
            f"{source}: {why}; the refined split keeps the source's columns as they are, so "
            "write every value of that column as one type"
        )


def _input_columns(item: Item) -> dict[str, Any]:
    """The item's input row, or for a non-FOLIO source its FOLIO v2 form plus the source row.

    A FOLIO row is kept as it was (so the split is a drop-in replacement). A source whose rows are
    not items (ProofWriter: one row per theory, one item per question) gets FOLIO v2's columns,
    with the original row as JSON text in `source_row`.
    """
    raw: dict[str, Any] = json.loads(item.raw)
    if "premises-FOL" in raw:
        return raw
    return {
        "story_id": item.story_id,
        "premises": "\n".join(item.premises),
        "premises-FOL": "",
        "conclusion": item.conclusion,
        "conclusion-FOL": "",
        "label": item.label.value if item.label else item.raw_label,
        "example_id": item.example_id,
        "source_row": item.raw,
    }


def write_refined(
    out_dir: Path, rows: Sequence[Mapping[str, Any]], outcomes: Sequence[Outcome]
) -> dict[str, Path]:
    """Write `refined.parquet`, `refined.jsonl` and `audit.jsonl` (one line per item) atomically."""
    # without pandas: a re-run on unchanged data would pay its second of import for nothing
    import pyarrow.parquet as pq

    table = arrow_table(rows)
    jsonl = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    audit = "".join(
        json.dumps(
            {
                "id": o.id,
                "status": o.status.value,
                "edits": [dict(e) for e in o.edits],
                "proposed_edits": [dict(e) for e in o.proposed_edits],
                # every item's reading against its sentences, verified ones too
                "findings": list(o.findings),
                "cause": o.cause.value,
                "trail": dict(o.audit),
            },
            ensure_ascii=False,
            default=str,
        )
        + "\n"
        for o in outcomes
    )
    return {
        "parquet": atomic_write(
            out_dir / "refined.parquet", lambda tmp: pq.write_table(table, tmp)
        ),
        "jsonl": atomic_write_text(out_dir / "refined.jsonl", jsonl),
        "audit": atomic_write_text(out_dir / "audit.jsonl", audit),
    }
