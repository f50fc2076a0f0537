"""The check stage: parse, lint and prove every item; one typed `CheckRow` per item.

- `row`: the `CheckRow` every later stage reads (and its file form, ``verdicts.csv``);
- `stage`: one story's work (parse, lint, three questions per prover, decide, categorise);
- `batches`: many stories (the row cache, worker batches, the driver that writes the caches);
- `stream`: every item, a chunk at a time on one pool (`check_stream`, `check_items`);
- `summary`: numbers about a batch of rows (category counts, prover agreement).
"""

from refinery.check.batches import (
    CheckBatch,
    CheckJob,
    CheckPlan,
    check_batch,
    check_code_version,
    group_stories,
    plan_check,
    worker_provers,
)
from refinery.check.row import CheckRow, ProverColumns
from refinery.check.stage import (
    CATEGORIES,
    DATASET_CATEGORIES,
    Checker,
    ParsedItem,
    ProverFactory,
    lint_item,
    parse_item,
)
from refinery.check.stream import check_items, check_stream

__all__ = [
    "CATEGORIES",
    "DATASET_CATEGORIES",
    "CheckBatch",
    "CheckJob",
    "CheckPlan",
    "CheckRow",
    "Checker",
    "ParsedItem",
    "ProverColumns",
    "ProverFactory",
    "check_batch",
    "check_code_version",
    "check_items",
    "check_stream",
    "group_stories",
    "lint_item",
    "parse_item",
    "plan_check",
    "worker_provers",
]
