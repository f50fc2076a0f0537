"""Great Expectations suites for the Refine stage's input and output, and their summaries.

`validate_input(items)` checks the raw data before anything is proved: schema, label vocabulary,
non-empty FOL, NL/FOL premise counts. `validate_output(outcomes)` checks what Refine wrote:
statuses, unique ids, labels unchanged, FOL present where an item counts as verified or repaired.
Both return a plain summary dict (name, success, statistics, failed expectations) that goes into
the report; a failed expectation is a finding to report, not an exception.

With a `cache` (a SQLite file), a summary is kept under a hash of the rows the suite saw, the
suite's code and the great-expectations version: unchanged data re-validates without importing
great_expectations or pandas, which cost seconds (about 9 s of a 2-core warm run). Both are
otherwise imported inside the functions: only the Refine run validates.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refinery.datasets.records import Item
from refinery.outcomes import Outcome, Status
from refinery.store import JsonStore

if TYPE_CHECKING:
    import pandas as pd

_RAW_LABELS = ["True", "False", "Uncertain", "Unknown"]
_INPUT_COLUMNS = [
    "id",
    "story_id",
    "raw_label",
    "premises",
    "premises_fol",
    "conclusion",
    "conclusion_fol",
    "n_premises",
    "n_premises_fol",
]
#: The validation cache's table in its SQLite file.
TABLE = "validations"


def input_records(items: Iterable[Item]) -> list[dict[str, Any]]:
    """One row per item with the columns the input suite checks."""
    return [
        {
            "id": it.id,
            "story_id": it.story_id,
            "raw_label": it.raw_label,
            "premises": "\n".join(it.premises),
            "premises_fol": "\n".join(it.premises_fol),
            "conclusion": it.conclusion,
            "conclusion_fol": it.conclusion_fol,
            "n_premises": len(it.premises),
            "n_premises_fol": len(it.premises_fol),
        }
        for it in items
    ]


def output_records(outcomes: Iterable[Outcome]) -> list[dict[str, Any]]:
    """One row per outcome with the columns the output suite checks."""
    rows = []
    for o in outcomes:
        counted = o.status in (Status.VERIFIED, Status.REPAIRED)
        rows.append(
            {
                "id": o.id,
                "status": o.status.value,
                "label": o.label,
                "original_label": o.original_label,
                "suggested_label": o.suggested_label,
                "run_id": o.run_id,
                # verified/repaired items must carry FOL; review items may carry anything
                "fol_present_if_counted": (not counted)
                or (bool(o.refined_conclusion_fol) and bool(o.refined_premises_fol)),
            }
        )
    return rows


def _input_expectations(gx: Any) -> list[Any]:
    e = gx.expectations
    required = [c for c in _INPUT_COLUMNS if not c.startswith("n_")]  # the counts are derived
    return [
        *[e.ExpectColumnToExist(column=c) for c in required],
        e.ExpectColumnValuesToBeUnique(column="id"),
        e.ExpectColumnValuesToBeInSet(column="raw_label", value_set=_RAW_LABELS),
        e.ExpectColumnValuesToNotBeNull(column="conclusion_fol"),
        e.ExpectColumnValueLengthsToBeBetween(column="premises_fol", min_value=1),
        e.ExpectColumnValueLengthsToBeBetween(column="conclusion_fol", min_value=1),
        e.ExpectColumnValueLengthsToBeBetween(column="conclusion", min_value=1),
        e.ExpectColumnPairValuesToBeEqual(column_A="n_premises", column_B="n_premises_fol"),
    ]


def _output_expectations(gx: Any) -> list[Any]:
    e = gx.expectations
    return [
        e.ExpectColumnValuesToBeUnique(column="id"),
        # a Refine run's own statuses: "reviewed" comes only from a review round
        e.ExpectColumnValuesToBeInSet(
            column="status", value_set=[s.value for s in Status if s is not Status.REVIEWED]
        ),
        e.ExpectColumnPairValuesToBeEqual(column_A="label", column_B="original_label"),
        e.ExpectColumnValuesToBeInSet(
            column="suggested_label", value_set=["", "True", "False", "Uncertain"]
        ),
        e.ExpectColumnValuesToBeInSet(column="fol_present_if_counted", value_set=[True]),
        e.ExpectColumnUniqueValueCountToBeBetween(column="run_id", min_value=1, max_value=1),
    ]


def run_suite(
    frame: pd.DataFrame, name: str, expectations: Sequence[Any], gx: Any
) -> dict[str, Any]:
    """Validate `frame` against `expectations` in an ephemeral GX context; summarise the result."""
    context = gx.get_context(mode="ephemeral")
    _quiet_progress_bars(context)
    source = context.data_sources.add_pandas(name=f"{name}_source")
    asset = source.add_dataframe_asset(name=f"{name}_asset")
    batch = asset.add_batch_definition_whole_dataframe(f"{name}_batch").get_batch(
        batch_parameters={"dataframe": frame}
    )
    suite = context.suites.add(gx.ExpectationSuite(name=name))
    for expectation in expectations:
        suite.add_expectation(expectation)
    result = batch.validate(suite)
    failed = []
    for r in result.results:
        if not r.success:
            config = r.expectation_config
            details = r.result or {}
            failed.append(
                {
                    "expectation": config.type,
                    "kwargs": {k: v for k, v in config.kwargs.items() if k != "batch_id"},
                    "unexpected_count": details.get("unexpected_count"),
                    "examples": [
                        str(x) for x in (details.get("partial_unexpected_list") or [])[:5]
                    ],
                }
            )
    stats = dict(result.statistics)
    return {
        "name": name,
        "success": bool(result.success),
        "statistics": {
            "suite": name,
            "rows": len(frame),
            "evaluated_expectations": int(stats.get("evaluated_expectations", 0)),
            "successful_expectations": int(stats.get("successful_expectations", 0)),
        },
        "failed": failed,
    }


def _quiet_progress_bars(context: Any) -> None:
    """GX prints a progress bar per suite; in flow logs that is noise."""
    try:
        from great_expectations.data_context.types.base import ProgressBarsConfig

        context.variables.progress_bars = ProgressBarsConfig(globally=False)
    except (ImportError, AttributeError):  # older/newer GX: cosmetic only
        pass


def _gx() -> Any:
    # GX would otherwise try to send usage statistics over the network
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    os.environ.setdefault("TQDM_DISABLE", "1")  # GX's per-suite progress bars flood flow logs
    import great_expectations as gx

    # each ephemeral context logs the temporary folder of a docs site nobody builds: noise
    logging.getLogger("great_expectations.data_context.types.base").setLevel(logging.WARNING)
    return gx


def validate_input(items: Iterable[Item], cache: Path | None = None) -> dict[str, Any]:
    """Run the input suite over the loaded items (see the module docstring for `cache`)."""
    records = input_records(items)
    return _validate("refine_input", records, _INPUT_COLUMNS, _input_expectations, cache)


def validate_output(outcomes: Iterable[Outcome], cache: Path | None = None) -> dict[str, Any]:
    """Run the output suite over the refine outcomes (see the module docstring for `cache`)."""
    records = output_records(outcomes)
    return _validate("refine_output", records, None, _output_expectations, cache)


def _validate(
    name: str,
    records: list[dict[str, Any]],
    columns: list[str] | None,
    expectations: Callable[[Any], list[Any]],
    cache: Path | None,
) -> dict[str, Any]:
    store = JsonStore(cache, TABLE)
    key = _key(name, records)
    try:
        found = store.get(key)
        if found is not None:
            return dict(found)
        import pandas as pd

        gx = _gx()
        summary = run_suite(pd.DataFrame(records, columns=columns), name, expectations(gx), gx)
        store.put(key, summary)
        return summary
    finally:
        store.close()


def _key(name: str, records: list[dict[str, Any]]) -> str:
    """What a summary depends on: the rows, the suites' code, the great-expectations version.

    Each run has a new id, and the suite asks only that a run's rows share one: run ids are
    keyed by their order of appearance, so an unchanged re-run finds its summary.
    """
    runs: dict[Any, int] = {}
    if records and "run_id" in records[0]:
        records = [{**r, "run_id": runs.setdefault(r["run_id"], len(runs))} for r in records]
    digest = hashlib.sha256()
    digest.update(Path(__file__).read_bytes())
    digest.update(metadata.version("great-expectations").encode())
    digest.update(name.encode())
    digest.update(json.dumps(records, ensure_ascii=False, sort_keys=True).encode())
    return digest.hexdigest()
