"""The repair stage: per item, critique → refine → re-check until the gate accepts an edit.

- `loop`: the per-item loop (`repair_item`) and its options (`RepairConfig`);
- `gate`: when an edit counts — the accept rule and every reason it gives, in one file;
- `outcome`: the item's `Outcome` from the loop's end state (status, reason, suggestion, audit);
- `batches`: many stories (the outcome cache, worker batches, the driver that writes the caches);
- `faithfulness`: known corruptions of verified items, for measuring what repairs bring back.
"""

from refinery.repair.batches import repair_items
from refinery.repair.loop import AGENTS, RepairConfig, check_agents, parse_agents, repair_item
from refinery.repair.outcome import cacheable

__all__ = [
    "AGENTS",
    "RepairConfig",
    "cacheable",
    "check_agents",
    "parse_agents",
    "repair_item",
    "repair_items",
]
