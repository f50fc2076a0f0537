"""Build real run folders for tests: the Refine stage's core steps on a small source, no Prefect.

`make_run` runs `pipeline.run_plain` (rules only, real Z3 and E): the same functions the flow's
tasks call, into a folder of the test's choosing.
"""

from __future__ import annotations

from pathlib import Path

from refinery import pipeline
from vampire.registry import build_provers

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"


def make_run(
    out_dir: Path,
    *,
    source: Path = SAMPLE,
    review_path: Path | None = None,
    state_dir: Path | None = None,
    run_id: str | None = None,
) -> pipeline.RefineSettings:
    """Run Refine (rules only) on `source` into `out_dir`; return the settings it ran with."""
    extra = {"run_id": run_id} if run_id else {}
    settings = pipeline.RefineSettings(
        source=str(source),
        out_dir=str(out_dir),
        review_path=str(review_path or out_dir.parent / "review.csv"),
        agents=("rules",),
        workers=2,
        state_dir=str(state_dir or out_dir.parent / "state"),
        **extra,
    )
    pipeline.run_plain(settings, build_provers)
    return settings


def split_settings(
    split: Path, run_id: str, source: Path = SAMPLE, *, fail_on_new_conflicts: bool = False
) -> pipeline.RefineSettings:
    """A scheduled run's settings: run `run_id` of the split folder `split`, rules only, its
    queue and state folder beside the split's dataset folder, as the deployment lays them out."""
    return pipeline.RefineSettings(
        source=str(source),
        out_dir=str(split / run_id),
        review_path=str(split.parent / "review.csv"),
        agents=("rules",),
        workers=2,
        state_dir=str(split.parent / "state"),
        run_id=run_id,
        fail_on_new_conflicts=fail_on_new_conflicts,
    )
