"""Several annotators: split a queue into shards by story, merge the shards back.

`split_queue` keeps every story in one shard (its items share premises, so one person should see
them together) and balances shard sizes. With an overlap of K, K items also go to a second
annotator (the next shard), so `refinery.review.agreement` can measure how often two annotators
agree. It writes a manifest beside the queue
(``<queue>.shards.json``) recording each item's decision at split time: the base of a
three-way merge. `merge_shards` then takes, per item, whatever changed relative to that base;
two different changes to the same item (two annotators, or an annotator and an edit of the main
queue) are a conflict: the row keeps its current decision, gets the flag ``merge_conflict``, and
every competing version is listed, never silently dropped (last-write-wins is what this avoids).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refinery.errors import RefineryError
from refinery.outputs import atomic_write_text
from refinery.review.journal import append_journal
from refinery.review.queue import (
    DECISION_COLUMNS,
    DECISION_CONTENT,
    MERGE_CONFLICT,
    QueueRow,
    same_decision,
)
from refinery.review.sheet import read_queue, update_queue, write_rows


def manifest_path(queue: Path) -> Path:
    return queue.with_name(queue.name + ".shards.json")


def _decision(row: QueueRow) -> dict[str, str]:
    return row.cells(DECISION_COLUMNS)


def split_queue(
    queue: Path, shards: int, out_dir: Path | None = None, *, overlap: int = 0
) -> list[Path]:
    """Write `shards` shard files (``<stem>.shard-<k>-of-<n>.csv``) and the manifest.

    Stories go whole to the currently smallest shard, largest story first. Then `overlap` items
    are copied into a second shard: taken in turn from each shard (open items first, in queue
    order), each goes also to the next shard, so every pair of neighbouring annotators shares
    some. The manifest lists them under ``overlap`` (id → the two shard names).
    """
    if shards < 1:
        raise RefineryError("the number of shards must be at least 1")
    rows = read_queue(queue)
    if overlap and shards < 2:
        raise RefineryError("an overlap needs at least two shards")
    if not 0 <= overlap <= len(rows):
        raise RefineryError(f"the overlap must be between 0 and the {len(rows)} items")
    stories: dict[tuple[str, str, str], list[QueueRow]] = {}
    for row in rows:
        stories.setdefault((row.dataset, row.split, row.story_id), []).append(row)
    buckets: list[list[QueueRow]] = [[] for _ in range(shards)]
    for story in sorted(stories.values(), key=lambda s: (-len(s), s[0].id)):
        min(buckets, key=len).extend(story)
    order = {r.id: i for i, r in enumerate(rows)}
    shared = _overlap(buckets, overlap, order)
    for item_id, (_, second) in shared.items():
        buckets[second].append(next(r for r in rows if r.id == item_id))
    for bucket in buckets:
        bucket.sort(key=lambda r: order[r.id])
    folder = out_dir or queue.parent
    paths = []
    for k, bucket in enumerate(buckets, start=1):
        path = folder / f"{queue.stem}.shard-{k}-of-{shards}.csv"
        write_rows(path, bucket)
        paths.append(path)
    manifest = {
        "queue": queue.name,
        "shards": {p.name: [r.id for r in b] for p, b in zip(paths, buckets, strict=True)},
        "base": {r.id: _decision(r) for r in rows},
        # relative to the queue's folder, so the pair can move together
        "folder": os.path.relpath(folder, queue.parent),
        "overlap": {i: [paths[a].name, paths[b].name] for i, (a, b) in shared.items()},
    }
    atomic_write_text(manifest_path(queue), json.dumps(manifest, ensure_ascii=False, indent=1))
    return paths


def _overlap(
    buckets: Sequence[Sequence[QueueRow]], count: int, order: Mapping[str, int]
) -> dict[str, tuple[int, int]]:
    """`count` items to give a second annotator: id → (its shard, the next shard)."""
    pools = [sorted(b, key=lambda r: (bool(r.decision.strip()), order[r.id])) for b in buckets]
    chosen: dict[str, tuple[int, int]] = {}
    turn = 0
    while len(chosen) < count:  # ends: count is at most the number of items
        first = turn % len(pools)
        turn += 1
        if pools[first]:
            chosen[pools[first].pop(0).id] = (first, (first + 1) % len(pools))
    return chosen


def shard_files(queue: Path) -> list[Path]:
    """The shard files the manifest of `queue` lists (empty without a manifest)."""
    manifest = manifest_path(queue)
    if not manifest.is_file():
        return []
    saved = json.loads(manifest.read_text(encoding="utf-8"))
    folder = queue.parent / saved.get("folder", ".")
    return [folder / name for name in saved.get("shards", {})]


@dataclass
class MergeResult:
    """What `merge_shards` did: ids taken from a shard, ids in conflict (with every version)."""

    taken: dict[str, str] = field(default_factory=dict)  # id -> shard file it came from
    conflicts: dict[str, list[tuple[str, dict[str, str]]]] = field(default_factory=dict)
    unknown: list[tuple[str, str]] = field(default_factory=list)  # (shard, id) not in the queue


def merge_shards(queue: Path, shard_paths: Sequence[Path]) -> MergeResult:
    """Merge the shards' decisions into `queue` (rewritten atomically); report conflicts.

    Without a manifest the queue's current decisions are the base. After the merge the manifest
    records each taken decision as the new base and every conflict's versions, so re-merging the
    same shards neither reverts later edits of the queue nor re-raises a settled conflict.
    The whole merge holds the queue's lock.
    """
    shards = {path: read_queue(path) for path in shard_paths}

    def change(rows: list[QueueRow]) -> tuple[list[QueueRow], tuple[MergeResult, dict[str, Any]]]:
        return _merge_shards(queue, rows, shards)

    def remember(done: tuple[MergeResult, dict[str, Any]]) -> None:
        atomic_write_text(manifest_path(queue), json.dumps(done[1], ensure_ascii=False, indent=1))

    return update_queue(queue, change, after=remember)[0]


def _merge_shards(
    queue: Path, rows: list[QueueRow], shards: Mapping[Path, list[QueueRow]]
) -> tuple[list[QueueRow], tuple[MergeResult, dict[str, Any]]]:
    by_id = {r.id: r for r in rows}
    manifest = manifest_path(queue)
    saved = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {}
    # Without a manifest (shards made by hand) the queue as it is now is the base; the manifest
    # is written below either way, so a later re-merge remembers what was settled.
    base = saved.get("base") or {r.id: _decision(r) for r in rows}
    settled = saved.get("conflicts", {})  # versions already shown as a conflict
    result = MergeResult()
    versions: dict[str, list[tuple[str, dict[str, str]]]] = {}
    for path, shard in shards.items():
        for row in shard:
            if row.id not in by_id:
                result.unknown.append((path.name, row.id))
                continue
            versions.setdefault(row.id, []).append((path.name, _decision(row)))
    for item_id, found in versions.items():
        row = by_id[item_id]
        seen = settled.get(item_id, [])
        if (
            MERGE_CONFLICT not in row.flag
            and seen
            and all(any(same_decision(d, old) for old in seen) for _, d in found)
        ):
            continue  # a conflict a reviewer already settled (and cleared the flag): no news
        origin = base.get(item_id) or dict.fromkeys(DECISION_COLUMNS, "")
        origin = {c: origin.get(c, "") for c in DECISION_COLUMNS}
        candidates = [(name, d) for name, d in found if not same_decision(d, origin)]
        if not same_decision(_decision(row), origin):
            candidates.insert(0, (queue.name, _decision(row)))
        distinct: list[tuple[str, dict[str, str]]] = []
        for name, d in candidates:
            if not any(same_decision(d, other) for _, other in distinct):
                distinct.append((name, d))
        if len(distinct) == 1 and distinct[0][0] != queue.name:
            by_id[item_id] = row.replace(**distinct[0][1])
            result.taken[item_id] = distinct[0][0]
            base[item_id] = distinct[0][1]  # merged: the shard's version is the new base
        elif len(distinct) > 1:
            flags = {f for f in row.flag.split(";") if f} | {MERGE_CONFLICT}
            by_id[item_id] = row.replace(flag=";".join(sorted(flags)))
            result.conflicts[item_id] = candidates
            settled[item_id] = [d for _, d in candidates]
    # in the journal before the queue: a merged decision an outside writer then loses is kept
    append_journal(queue, [by_id[item_id] for item_id in result.taken])
    saved.update(queue=queue.name, base=base, conflicts=settled)
    saved.setdefault("shards", {})
    return [by_id[r.id] for r in rows], (result, saved)


def format_conflicts(result: MergeResult) -> str:
    """The conflicts, one block per item, every competing version on its own line."""
    lines = []
    for item_id, found in sorted(result.conflicts.items()):
        lines.append(f"conflict: {item_id}")
        for name, d in found:
            what = ", ".join(
                f"{c}={d[c]!r}" for c in (*DECISION_CONTENT, "reviewer") if d[c].strip()
            )
            lines.append(f"  {name}: {what or '(no decision)'}")
    return "\n".join(lines)
