"""Where a formula sits in an item: ``premises[i]``, ``conclusion``, or ``background[i]``.

Every stage names a formula by this address: parse errors and lint issues, proof cores, the
critique's diagnoses, the rules' edits, the alignment's findings, the review queue. `premise`
writes one and `premise_index` reads one back; `Item.formulas` (`refinery.datasets.records`)
gives an item's formulas by address. A background fact proposed for an item
(`refinery.repair.abduce`) is ``background[i]``: it is not one of the item's formulas.
"""

from __future__ import annotations

import re

CONCLUSION = "conclusion"
#: A premise address anywhere in a text (``premises[3]``; group 1 is the index).
PREMISE_ADDRESS = re.compile(r"premises\[(\d+)\]")


def premise(index: int) -> str:
    """The address of the premise at `index` (from 0).

    >>> premise(3)
    'premises[3]'
    """
    return f"premises[{index}]"


def background(index: int) -> str:
    """The address of the background fact at `index` (from 0).

    >>> background(0)
    'background[0]'
    """
    return f"background[{index}]"


def premise_index(where: str) -> int | None:
    """The index of the premise at `where`, or None when `where` names no single premise.

    >>> premise_index("premises[12]"), premise_index("conclusion"), premise_index("premises")
    (12, None, None)
    """
    found = PREMISE_ADDRESS.fullmatch(where)
    return int(found.group(1)) if found else None
