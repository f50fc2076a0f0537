"""Manual review: the queue annotators work through, and how their decisions come back.

- `queue`: the review CSV's schema; writing, reading back and merging it with a Refine re-run;
- `feedback`: what the parser, linter and both provers say about an edited item (live feedback);
- `decide`: what a decision turns an item into (final FOL and label), and `check` of a queue;
- `apply`: valid decisions merged into the refined split as a new run version;
- `shards`: splitting a queue by story for several annotators and merging the shards back;
- `terminal`: the interactive `refinery review work` loop.

Nothing here imports Prefect or great-expectations: these commands start instantly.
"""

from refinery.review.queue import COLUMNS, DECISIONS, queue_rows, read_queue, write_queue

__all__ = ["COLUMNS", "DECISIONS", "queue_rows", "read_queue", "write_queue"]
