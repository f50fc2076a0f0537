"""The published columns: their types, what each one means, and which items the clean config keeps.

A run's refined rows become the ``refined`` config with two changes of type, so that
`datasets.load_dataset` gives typed columns: `label` and `original_label` hold the one gold
vocabulary (`refinery.labels.GOLD_LABELS`, other spellings normalised, anything else null) and are
declared as a ``ClassLabel``; `error_classes`, comma-joined in a run folder, becomes a list of
strings. The parquet files keep the label text (pandas reads ``"True"``, not ``0``); the types
live in the card's ``dataset_info`` (`features`), which `datasets` casts to on load. The
``clean`` config is the refined rows whose status is settled (`CLEAN_STATUSES`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from refinery.labels import GOLD_LABELS, normalize_gold_label
from refinery.outcomes import Status

#: The configs of a release, default first; ``clean`` has ``refined``'s columns.
CONFIGS = ("refined", "clean", "changes")
#: The gold label names, in `ClassLabel` order (0 = True, 1 = False, 2 = Uncertain).
LABEL_NAMES = tuple(label.value for label in GOLD_LABELS)
#: Columns published as a ``ClassLabel`` over `LABEL_NAMES`.
LABEL_COLUMNS = ("label", "original_label")
#: Columns a run folder joins with commas and a release keeps as lists of strings.
JOINED_COLUMNS = ("error_classes",)
#: The statuses the ``clean`` config keeps: items the provers or a reviewer settled.
CLEAN_STATUSES = (Status.VERIFIED, Status.REPAIRED, Status.REVIEWED)

_INT_COLUMNS = {"story_id", "example_id"}

#: The `changes` config's columns, typed up front so a split with no changes still loads.
CHANGES_SCHEMA = pa.schema(
    [
        (name, pa.string())
        for name in (
            "id",
            "field",
            "before",
            "after",
            "status",
            "reason",
            "reviewer",
            "repaired_by",
            "evidence",
        )
    ]
)

#: What each column means, for the card's Fields section; a column not here came from the source.
FIELD_NOTES: dict[str, str] = {
    "story_id": "the source's story id (a story's examples share its premises)",
    "premises": "the premises in natural language, one per line (a list where the source has one)",
    "premises-FOL": "the refined premise FOL, one formula per line in the order of `premises`",
    "conclusion": "the conclusion in natural language",
    "conclusion-FOL": "the refined conclusion FOL",
    "background-FOL": "background facts a reviewer accepted for what the sentences take for "
    'granted ("a bee is an animal"), one per line in the layout of `premises-FOL`; never '
    "merged into the premises: a prover needs them as further premises to reach the label",
    "example_id": "the source's example id",
    "source_row": "the source row as JSON text (sources whose rows are not items, e.g. "
    "ProofWriter theories)",
    "id": "FOL Refinery's item id, `<dataset>/<split>/<example_id>`, unique in the release",
    "status": "verified | repaired | reviewed | needs_review (see Limitations)",
    "reason": "why the item needs review, or is flagged though settled (e.g. `nl_mismatch`); "
    "empty when nothing is open",
    "original_label": "the source's gold label",
    "label": "the gold label: the source's, unless a reviewer changed it (status `reviewed`)",
    "suggested_label": "the label the provers derive when it differs from the gold label, "
    "for a reviewer to weigh; empty otherwise",
    "prover_label": "the label the provers derive from the refined FOL (`Unknown`: undecided, "
    "`Inconsistent`: the premises contradict each other)",
    "original_premises_fol": "the premise FOL as the source had it",
    "original_conclusion_fol": "the conclusion FOL as the source had it",
    "repaired_by": "the accepted repairs, `+`-joined; empty when none",
    "error_classes": "the error classes found in the source's FOL (empty when none)",
    "evidence": "why the refined FOL gets the provers' label: the premises a proof used, or "
    "a countermodel",
    "findings": "where a formula does not say what its sentence says, worst first, one per line",
    "nl_mismatch_score": "the worst finding's score in [0, 1] (0: every formula reads as its "
    "sentence says)",
    "is_nl_mismatch_issue": "whether the worst finding is strong enough to send the item to review",
    "label_score": "how well the gold label holds up in [0, 1] (low: likely wrong)",
    "is_label_issue": "whether a label change is suggested",
    "cause": "what blocks an item the review queue holds (for one the provers settle but a "
    "formula misreads: what blocked its gold label): label | vocabulary | structure | "
    "knowledge | ambiguous | syntax (empty for an item not queued, or one the provers did not "
    "decide)",
    "cause_evidence": "why that cause, in one line",
    "audit": "where the item's repair trail is in `report/<split>/audit.jsonl`",
    "run_id": "the run (or review round) that wrote the row",
    "content_hash": "sha256 of the item's source premises, FOL, conclusion and label",
    "review_decision": "the reviewer's decision (empty until reviewed)",
    "reviewer": "who reviewed the item",
    "reviewed_at": "when the review was applied",
    "review_note": "the reviewer's note",
}
CHANGES_NOTES: dict[str, str] = {
    "id": "the item's id (as in `refined`)",
    "field": "what changed: `premises-FOL[i]` (premise line i, from 0), `conclusion-FOL`, "
    "`background-FOL[i]` (an accepted background fact) or `label`",
    "before": "the source's value (null: the line exists only after the change)",
    "after": "the released value (null: the line was removed)",
    "status": "the item's status",
    "reason": "the item's open reason, if any",
    "reviewer": "who made the change, when a reviewer did",
    "repaired_by": "the repair that made the change, when a repair did",
    "evidence": "why the item's released FOL gets the provers' label",
}


def published_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A refined row as a release holds it: gold labels normalised, joined columns as lists.

    >>> published_row({"label": "Unknown", "original_label": "maybe", "error_classes": "a,b"})
    {'label': 'Uncertain', 'original_label': None, 'error_classes': ['a', 'b']}
    >>> published_row({"error_classes": ""})["error_classes"]
    []
    """
    out = dict(row)
    for name in LABEL_COLUMNS:
        if name in out:
            label = normalize_gold_label(out[name])
            out[name] = label.value if label is not None else None
    for name in JOINED_COLUMNS:
        value = out.get(name)
        if isinstance(value, str):
            out[name] = [part for part in value.split(",") if part]
    return out


def is_clean(row: Mapping[str, Any]) -> bool:
    """Whether the ``clean`` config keeps `row`: its status is verified, repaired or reviewed."""
    return row.get("status") in CLEAN_STATUSES


def refined_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """Published rows as an Arrow table, with the input's own types (v2 strings, v0 lists).

    A column with no value in any row would come out null-typed, which `datasets` cannot cast
    later: it becomes a string (an int for the source's id columns), a list of nulls a list of
    strings.
    """
    table = pa.Table.from_pylist([published_row(r) for r in rows])
    fields = []
    for f in table.schema:
        if pa.types.is_null(f.type):
            f = pa.field(f.name, pa.int64() if f.name in _INT_COLUMNS else pa.string())
        elif pa.types.is_list(f.type) and pa.types.is_null(f.type.value_type):
            f = pa.field(f.name, pa.list_(pa.string()))
        fields.append(f)
    return table.cast(pa.schema(fields))


def features(schema: pa.Schema) -> list[dict[str, Any]]:
    """The card's ``dataset_info.features`` for a table: `datasets`' YAML form, one per column.

    Lists are written as ``sequence``, which every `datasets` release reads as a list.
    """
    return [_feature(f.name, f.type) for f in schema]


def _feature(name: str, kind: pa.DataType) -> dict[str, Any]:
    if name in LABEL_COLUMNS and pa.types.is_string(kind):
        names = {str(i): label for i, label in enumerate(LABEL_NAMES)}
        return {"name": name, "dtype": {"class_label": {"names": names}}}
    if pa.types.is_list(kind):
        return {"name": name, "sequence": _dtype(name, kind.value_type)}
    return {"name": name, "dtype": _dtype(name, kind)}


def _dtype(name: str, kind: pa.DataType) -> str:
    """The `datasets` ``Value`` dtype of a flat Arrow type (Arrow and `datasets` share names)."""
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return "string"
    if pa.types.is_boolean(kind):
        return "bool"
    if pa.types.is_floating(kind):
        return {16: "float16", 32: "float32"}.get(kind.bit_width, "float64")
    if pa.types.is_integer(kind):
        return str(kind)  # int64, int32, uint8, …
    raise ValueError(f"column {name!r} has type {kind}, which a release cannot declare")


def feature_text(feature: Mapping[str, Any]) -> str:
    """A feature as the card's Fields section names its type.

    >>> feature_text({"name": "label", "dtype": {"class_label": {"names": {"0": "True"}}}})
    'class label: True'
    >>> feature_text({"name": "e", "sequence": "string"}), feature_text({"name": "n", "dtype": "int64"})
    ('list of string', 'int64')
    """
    if "sequence" in feature:
        return f"list of {feature['sequence']}"
    dtype = feature["dtype"]
    if isinstance(dtype, Mapping):
        return "class label: " + ", ".join(dtype["class_label"]["names"].values())
    return str(dtype)
