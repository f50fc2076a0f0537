"""Run folders: what one Refine run (or one review round applied to it) leaves on disk.

A run folder (``data/refined/<dataset>/<split>/<run_id>/``) holds the refined split
(`refined.parquet`, `refined.jsonl`), the audit trail (`audit.jsonl`), the full per-item outcomes
(`outcomes.jsonl`), the report, and `run.json`: what made it (`kind` ``refine`` or ``review``,
`parent` run for a review round, source, dataset, split, settings, data validations, counts).
Later stages (review apply, publish, scheduled runs) read a run only through this module.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refinery.errors import RefineryError
from refinery.outcomes import Outcome
from refinery.outputs import atomic_write_text

RUN_FILE = "run.json"
OUTCOMES_FILE = "outcomes.jsonl"


@dataclass(frozen=True)
class Run:
    """One run folder, read back: `meta` is run.json, `outcomes` one per item (input order)."""

    path: Path
    meta: dict[str, Any]
    outcomes: list[Outcome]

    @property
    def run_id(self) -> str:
        return str(self.meta["run_id"])

    def refined_rows(self) -> list[dict[str, Any]]:
        """The refined split's rows, as written (refined.jsonl keeps the input's own types)."""
        return read_jsonl(self.path / "refined.jsonl")


def write_outcomes(out_dir: Path, outcomes: Iterable[Outcome]) -> Path:
    """Write `outcomes.jsonl` atomically (one JSON object per item, input order)."""
    text = "".join(
        json.dumps(o.to_dict(), ensure_ascii=False, default=str) + "\n" for o in outcomes
    )
    return atomic_write_text(out_dir / OUTCOMES_FILE, text)


def write_meta(out_dir: Path, meta: Mapping[str, Any]) -> Path:
    """Write `run.json` atomically."""
    text = json.dumps(dict(meta), ensure_ascii=False, indent=2, default=str) + "\n"
    return atomic_write_text(out_dir / RUN_FILE, text)


def update_meta(out_dir: Path, **fields: Any) -> Path:
    """Merge `fields` into an existing `run.json`."""
    meta = json.loads((out_dir / RUN_FILE).read_text(encoding="utf-8"))
    return write_meta(out_dir, {**meta, **fields})


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_run(path: Path | str) -> Run:
    """Read a run folder; a folder that is not a complete run raises `RefineryError`."""
    folder = Path(path)
    missing = [n for n in (RUN_FILE, OUTCOMES_FILE, "refined.jsonl") if not (folder / n).is_file()]
    if missing:
        raise RefineryError(f"{folder} is not a run folder (missing {', '.join(missing)})")
    meta = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
    outcomes = [Outcome.from_dict(o) for o in read_jsonl(folder / OUTCOMES_FILE)]
    return Run(path=folder, meta=meta, outcomes=outcomes)


def run_folders(base: Path) -> list[Path]:
    """The complete run folders directly under `base` (one dataset split), oldest first.

    Run ids sort by time (`YYYYMMDD-HHMMSS`, review rounds add a suffix), so name order is age.
    """
    if not base.is_dir():
        return []
    # a leading dot marks a version still being written (see refinery.review.apply)
    return sorted(
        p for p in base.iterdir() if not p.name.startswith(".") and (p / RUN_FILE).is_file()
    )


def previous_run(folder: Path, *, kinds: Sequence[str] = ("refine", "review")) -> Run | None:
    """The newest complete run beside `folder` that is older than it (None when none)."""
    earlier = [p for p in run_folders(folder.parent) if p.name < folder.name]
    for candidate in reversed(earlier):
        try:
            run = load_run(candidate)
        except (RefineryError, ValueError, OSError):
            continue  # a half-deleted or foreign folder is not a baseline
        if run.meta.get("kind", "refine") in kinds:
            return run
    return None
