"""Is a run folder as its run wrote it? The run's own record against its files.

A run folder is plain files a person can edit, so what is published from one is checked first:

- `run.json`, written last, records each data file's sha256 (`manifest`); a file changed since
  says so, whoever recomputed what inside it;
- the refined split agrees with `outcomes.jsonl` and `run.json`, row by row: the same items in
  the same order, once each, with the status, gold labels and refined FOL the outcomes hold,
  and gold labels of the one vocabulary.

`problems` lists every disagreement, each naming the file, the row and the field; `publish`
refuses a run with any. A run written before the manifest existed is checked row by row only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from refinery.labels import normalize_gold_label
from refinery.outcomes import Outcome
from refinery.runs.refined import fol_lines

#: The data files whose digests `run.json` records.
DATA_FILES = ("refined.jsonl", "refined.parquet", "outcomes.jsonl", "audit.jsonl")


def manifest(folder: Path) -> dict[str, str]:
    """The sha256 of each data file in `folder` (those that exist), for `run.json`."""
    return {name: _digest(folder / name) for name in DATA_FILES if (folder / name).is_file()}


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def problems(
    folder: Path,
    meta: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    outcomes: Sequence[Outcome],
) -> list[str]:
    """Every way the run folder differs from what its run wrote (empty: as written)."""
    found = [
        f"{name} was changed after the run wrote it (its sha256 is not the one run.json records)"
        for name, digest in dict(meta.get("files") or {}).items()
        if not (folder / name).is_file() or _digest(folder / name) != digest
    ]
    items = meta.get("items")
    if len(rows) != len(outcomes) or (items is not None and items != len(outcomes)):
        found.append(
            f"refined.jsonl has {len(rows)} rows; the run wrote {len(outcomes)} outcomes"
            + (f" and run.json counts {items} items" if items is not None else "")
        )
    seen: dict[str, int] = {}
    for n, (row, outcome) in enumerate(zip(rows, outcomes, strict=False), start=1):
        item = str(row.get("id"))
        if item in seen:
            found.append(f"refined.jsonl row {n}: id {item} repeats row {seen[item]}")
        seen.setdefault(item, n)
        if item != outcome.id:
            found.append(f"refined.jsonl row {n}: id {item}, where outcomes.jsonl has {outcome.id}")
            continue
        found += [f"refined.jsonl row {n} ({item}): {p}" for p in _row_problems(row, outcome)]
    return found


def _row_problems(row: Mapping[str, Any], outcome: Outcome) -> list[str]:
    out = []
    for column in ("label", "original_label"):
        value = row.get(column)
        if value not in (None, "") and normalize_gold_label(value) is None:
            out.append(f"{column} is {value!r}, not a gold label")
    expected = {
        "status": outcome.status.value,
        "label": normalize_gold_label(outcome.label),
        "original_label": normalize_gold_label(outcome.original_label),
        "premises-FOL": list(outcome.refined_premises_fol),
        "conclusion-FOL": outcome.refined_conclusion_fol,
    }
    actual = {
        "status": row.get("status"),
        "label": normalize_gold_label(row.get("label")),
        "original_label": normalize_gold_label(row.get("original_label")),
        "premises-FOL": fol_lines(row.get("premises-FOL")),
        "conclusion-FOL": row.get("conclusion-FOL"),
    }
    out += [
        f"{column} is {actual[column]!r}, where outcomes.jsonl has {expected[column]!r}"
        for column in expected
        if actual[column] != expected[column]
    ]
    return out
