"""Run folders: what one Refine run (or one review round applied to it) leaves on disk.

A run folder (``data/refined/<dataset>/<split>/<run_id>/``) holds the refined split
(`refined.parquet`, `refined.jsonl`), the audit trail (`audit.jsonl`), the full per-item outcomes
(`outcomes.jsonl`), the report, and `run.json`: what made it (`kind` ``refine`` or ``review``,
`parent` run for a review round, source, dataset, split, settings, data validations, counts).
Later stages (review apply, publish, scheduled runs) read a run only through this module.

A run folder is built aside, in a hidden staging folder beside it (`staging_path`:
``.<name>.partial``), and renamed into place only when every file is written (`claim`, then
`finish`), so a killed run never leaves a half-written folder under a run's name. Whatever
lists runs (`run_folders`, `previous_run`) skips, with an `IncompleteRunWarning`, a staging
folder left behind and a folder without a readable ``run.json``; `load_run` refuses them.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refinery.errors import RefineryError
from refinery.outcomes import Outcome, outcome_counts
from refinery.outputs import atomic_write_text
from refinery.runs.refined import write_refined
from refinery.runs.verify import manifest

RUN_FILE = "run.json"
OUTCOMES_FILE = "outcomes.jsonl"
#: Suffixes of staging folders: a run's or review round's (``.<name>.partial``), and ``.tmp``, which
#: review rounds of earlier versions left.
STAGING_SUFFIXES = (".partial", ".tmp")

#: Staging folders this process is building now: listing them is no cause for a warning.
_building: set[Path] = set()


class IncompleteRunWarning(UserWarning):
    """A folder beside the runs of a split is not a complete run and was skipped."""


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


def write_run(
    folder: Path,
    rows: Sequence[Mapping[str, Any]],
    outcomes: Sequence[Outcome],
    meta: Mapping[str, Any],
) -> dict[str, Path]:
    """Write a run's files into `folder` (its staging folder, see `building`): the refined split
    and audit trail (`refinery.runs.refined`), `outcomes.jsonl` and `run.json`, which records
    each data file's sha256 (`refinery.runs.verify`). The one writer of a run folder's data, for
    a Refine run and a review round alike; returns the paths."""
    files = write_refined(folder, rows, outcomes)
    files["outcomes"] = write_outcomes(folder, outcomes)
    # last, with every data file's digest: what the run wrote, for `refinery.runs.verify`
    files["run"] = write_meta(folder, {**meta, "files": manifest(folder)})
    return files


def refine_meta(
    *,
    run_id: str,
    created_at: str,
    source: str,
    dataset: str,
    split: str,
    outcomes: Sequence[Outcome],
    settings: Mapping[str, Any],
    llm: str,
) -> dict[str, Any]:
    """run.json of a Refine run: what made it, and its outcome counts."""
    return {
        "run_id": run_id,
        "kind": "refine",
        "parent": None,
        "created_at": created_at,
        "source": source,
        "dataset": dataset,
        "split": split,
        "items": len(outcomes),
        "counts": outcome_counts(outcomes),
        "settings": dict(settings),
        "llm": llm,
    }


def review_meta(
    parent: Run,
    *,
    run_id: str,
    created_at: str,
    outcomes: Sequence[Outcome],
    review: Mapping[str, Any],
) -> dict[str, Any]:
    """run.json of a review round: its parent's, as a new version (`kind` review) with the
    round's counts and what the round applied."""
    meta = {
        **parent.meta,
        "run_id": run_id,
        "kind": "review",
        "parent": parent.run_id,
        "created_at": created_at,
        "counts": outcome_counts(outcomes),
    }
    return {**meta, "review": dict(review)}


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


def staging_path(final: Path) -> Path:
    """The hidden folder a run is built in before it is renamed to `final`.

    >>> staging_path(Path("data/refined/folio/train/20261122-011530-3f9a")).name
    '.20261122-011530-3f9a.partial'
    """
    return final.parent / f".{final.name}{STAGING_SUFFIXES[0]}"


def check_free(final: Path) -> None:
    """Raise `RefineryError` (one line) unless a new run may be built for `final`.

    `final` must not exist (an empty folder is allowed) and no run may be building it.
    """
    if final.exists() and not (final.is_dir() and not any(final.iterdir())):
        try:
            held = f"holds run {_read_meta(final)['run_id']}"
        except (OSError, ValueError):
            held = "exists and is not an empty folder"
        raise RefineryError(f"{final} already {held}; refusing to write a run into it")
    staging = staging_path(final)
    if staging.exists():
        raise RefineryError(
            f"{final} is being written by another run, or was left by a killed one "
            f"(remove {staging} if no run is writing it)"
        )


def claim(final: Path) -> Path:
    """Create `final`'s staging folder exclusively and return it (`check_free` first).

    Two runs that would build the same folder cannot both claim it: the second one raises.
    """
    check_free(final)
    staging = staging_path(final)
    staging.parent.mkdir(parents=True, exist_ok=True)
    try:
        staging.mkdir()
    except FileExistsError:
        raise RefineryError(f"{final} is being written by another run") from None
    _building.add(staging.resolve())
    return staging


def finish(final: Path) -> Path:
    """Rename `final`'s complete staging folder into place; never replaces another run."""
    staging = staging_path(final)
    try:
        # POSIX rename replaces only an empty folder; one holding files makes it fail
        os.rename(staging, final)
    except OSError as err:
        raise RefineryError(
            f"{final} appeared while this run was written ({err.strerror}); "
            f"this run's complete files are in {staging}"
        ) from None
    finally:
        release(final)
    return final


def release(final: Path) -> None:
    """Forget that this process builds `final` (`finish` does, whether the rename worked)."""
    _building.discard(staging_path(final).resolve())


@contextmanager
def building(final: Path) -> Iterator[Path]:
    """`claim` `final` and yield its staging folder, for the steps that write it and `finish`
    it; if one fails, that staging folder is removed, so a failed build leaves nothing.

    A staging folder whose rename failed is kept: `finish` released it, and its error names it
    (the files in it are complete).
    """
    staging = claim(final)
    try:
        yield staging
    except BaseException:
        if staging.resolve() in _building:
            shutil.rmtree(staging, ignore_errors=True)
            release(final)
        raise


def incomplete_reason(folder: Path) -> str | None:
    """Why the folder `folder` is not a complete run (None when it is one)."""
    if folder.name.startswith(".") and folder.name.endswith(STAGING_SUFFIXES):
        return "an unfinished run: still being written, or left by a killed run"
    if not (folder / RUN_FILE).is_file():
        return f"no {RUN_FILE}"
    try:
        _read_meta(folder)
    except (OSError, ValueError) as err:
        return f"{RUN_FILE} cannot be read ({err})"
    return None


def load_meta(folder: Path) -> dict[str, Any]:
    """A run folder's `run.json` (a staged one too)."""
    return dict(json.loads((folder / RUN_FILE).read_text(encoding="utf-8")))


def _read_meta(folder: Path) -> dict[str, Any]:
    """run.json, which must be a JSON object naming its run (ValueError otherwise)."""
    meta = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
    if not isinstance(meta, dict) or not meta.get("run_id"):
        raise ValueError("no run_id")
    return meta


def load_run(path: Path | str) -> Run:
    """Read a run folder; a folder that is not a complete run raises `RefineryError`."""
    folder = Path(path)
    if folder.name.startswith(".") and folder.name.endswith(STAGING_SUFFIXES):
        raise RefineryError(f"{folder} is {incomplete_reason(folder)}; not a run to read")
    missing = [n for n in (RUN_FILE, OUTCOMES_FILE, "refined.jsonl") if not (folder / n).is_file()]
    if missing:
        hint = ""
        if staging_path(folder).is_dir():
            hint = f"; {staging_path(folder)} is an unfinished run (killed?), not a run to read"
        raise RefineryError(f"{folder} is not a run folder (missing {', '.join(missing)}){hint}")
    try:
        meta = _read_meta(folder)
    except ValueError as err:
        raise RefineryError(f"{folder}: {RUN_FILE} is not a complete run record ({err})") from None
    outcomes = [Outcome.from_dict(o) for o in read_jsonl(folder / OUTCOMES_FILE)]
    return Run(path=folder, meta=meta, outcomes=outcomes)


def run_folders(base: Path) -> list[Path]:
    """The complete run folders directly under `base` (one dataset split), oldest first.

    Run ids sort by time (`YYYYMMDD-HHMMSS-xxxx`, review rounds add a suffix), so name order is
    age. A Refine run's staging folder (a killed or running run) and a folder whose run.json
    cannot be read are skipped with an `IncompleteRunWarning` saying why; other folders (no
    run.json: not a run), a review round's staging and what this process builds, quietly.
    """
    if not base.is_dir():
        return []
    complete: list[Path] = []
    for p in sorted(base.iterdir()):
        if not p.is_dir() or p.resolve() in _building:
            continue
        reason = incomplete_reason(p)
        if reason is None:
            complete.append(p)
        elif p.name.endswith(STAGING_SUFFIXES[0]) or (
            not p.name.startswith(".") and (p / RUN_FILE).exists()
        ):
            # a folder with no run.json was never a run (e.g. `check`'s verdicts folder beside
            # the runs), and a review round's `.tmp` staging is skipped quietly:
            # refinery.review.apply lists the split while it builds one
            _warn(p, reason)
    return complete


def _warn(folder: Path, reason: str) -> None:
    warnings.warn(f"skipped {folder}: {reason}", IncompleteRunWarning, stacklevel=3)


def previous_run(
    folder: Path,
    *,
    kinds: Sequence[str] = ("refine", "review"),
    dataset: str | None = None,
    split: str | None = None,
) -> Run | None:
    """The newest complete run beside `folder` that is older than it (None when none); with
    `dataset` and `split`, only a run of that dataset and split counts (`--out` may put runs
    of several datasets side by side, and a run of another one is no baseline)."""
    earlier = [p for p in run_folders(folder.parent) if p.name < folder.name]
    for candidate in reversed(earlier):
        try:
            run = load_run(candidate)
        except (RefineryError, ValueError, OSError) as err:
            _warn(candidate, f"not a baseline ({err})")  # a half-deleted or foreign folder
            continue
        kind = run.meta.get("kind", "refine")
        where = (run.meta.get("dataset"), run.meta.get("split"))
        if kind in kinds and (dataset is None or where == (dataset, split)):
            return run
    return None
