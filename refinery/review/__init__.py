"""Manual review: the queue annotators work through, and how their decisions come back.

- `queue`: the review CSV's schema (a row is a `QueueRow`, a decision a `Decision`) and how an
  item becomes a row;
- `sheet`: the file: writing, reading back and merging it with a Refine re-run, and the file
  lock every read-modify-write holds;
- `record`: one decision written the moment it is made, against what the annotator saw
  (a concurrent different decision becomes a ``merge_conflict``, nothing is overwritten);
- `feedback`: what the parser, linter and both provers say about an edited item (live feedback);
- `decide`: what a decision turns an item into (final FOL and label), `check` of a queue, the
  guidelines, and the draft an annotator edits;
- `apply`: valid decisions merged into the refined split as a new run version;
- `shards`: splitting a queue by story for several annotators (with an overlap) and merging
  the shards back; `agreement`: how often two annotators agree on the items they share;
- `terminal`: the interactive `refinery review work` loop;
- `web`: the review page, `refinery review serve` (the only part that loads FastAPI).

Nothing here imports Prefect or great-expectations: these commands start instantly.
"""

from refinery.review.queue import COLUMNS, DECISIONS, Decision, QueueRow, queue_rows
from refinery.review.sheet import read_queue, write_queue

__all__ = [
    "COLUMNS",
    "DECISIONS",
    "Decision",
    "QueueRow",
    "queue_rows",
    "read_queue",
    "write_queue",
]
