"""The label vocabulary shared by datasets, provers and reports.

Gold labels are always one of True / False / Uncertain. A prover decision can additionally be
Inconsistent (the premises contradict each other) or Unknown (a prover timed out or gave up) —
Unknown is never folded into Uncertain.
"""

from __future__ import annotations

from enum import StrEnum


class Label(StrEnum):
    TRUE = "True"
    FALSE = "False"
    UNCERTAIN = "Uncertain"
    INCONSISTENT = "Inconsistent"
    UNKNOWN = "Unknown"


GOLD_LABELS: tuple[Label, ...] = (Label.TRUE, Label.FALSE, Label.UNCERTAIN)

# Spellings found in the wild; FOLIO v0 train says "Unknown" where v2 says "Uncertain".
_GOLD_SPELLINGS: dict[str, Label] = {
    "true": Label.TRUE,
    "false": Label.FALSE,
    "uncertain": Label.UNCERTAIN,
    "unknown": Label.UNCERTAIN,
}


def normalize_gold_label(raw: object) -> Label | None:
    """Map a dataset's label spelling to a gold `Label`, or None when it is not one.

    >>> normalize_gold_label("Unknown")
    <Label.UNCERTAIN: 'Uncertain'>
    >>> normalize_gold_label(" true ") is Label.TRUE
    True
    >>> normalize_gold_label("maybe") is None
    True
    """
    if isinstance(raw, bool):
        return Label.TRUE if raw else Label.FALSE
    if not isinstance(raw, str):
        return None
    return _GOLD_SPELLINGS.get(raw.strip().lower())
