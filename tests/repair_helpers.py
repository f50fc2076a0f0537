"""ItemContext for the repair rules' tests: hand-made ones, and FOLIO v2's formulas."""

from __future__ import annotations

import json
from pathlib import Path

from refinery.agents.models import ItemContext
from refinery.agents.repairs import Candidate


def findings(
    fol: list[str] | dict[str, str],
    *,
    nl: dict[str, str] | None = None,
    story: tuple[str, ...] = (),
) -> ItemContext:
    """ItemContext for an item; a list is premises then the conclusion."""
    if isinstance(fol, list):
        fol = {**{f"premises[{i}]": t for i, t in enumerate(fol[:-1])}, "conclusion": fol[-1]}
    return ItemContext("item", "story", dict(fol), nl or {}, None, story_fol=story)


def afters(candidates: list[Candidate]) -> list[list[tuple[str, str]]]:
    return [[(e.where, e.after) for e in c] for c in candidates]


def folio_v2_fol(shared_data: Path) -> list[tuple[str, dict[str, str]]]:
    """(story key, fol) for every FOLIO v2 train/validation row."""
    out = []
    for path in sorted((shared_data / "folio_v2" / "reconstructed").glob("folio_v2_*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            row = json.loads(line)
            premises = row["premises-FOL"].split("\n")
            fol = {f"premises[{i}]": t for i, t in enumerate(premises)}
            fol["conclusion"] = row["conclusion-FOL"]
            out.append((f"{path.name}/{row['story_id']}", fol))
    return out
