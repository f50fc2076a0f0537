"""Running per-story work in worker processes, with answers from a cache first.

Both stages work story by story (a story's items share premises and naming evidence). This
module owns the mechanics they share: answering unchanged stories from a content-addressed store
in the parent (no worker started, nothing proved), running the rest in this process or in a fork
pool whose initializer builds each worker's provers, reporting progress, and hashing the code
that decides results so a code change invalidates cached results.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path
from typing import Any, TypeVar

from refinery.store import JsonStore

S = TypeVar("S")
Row = dict[str, Any]


def from_cache(
    stories: Iterable[Sequence[S]],
    store: JsonStore,
    key: Callable[[S, Sequence[S]], str],
    on_progress: Callable[[int], None] | None = None,
) -> tuple[list[Row], list[Sequence[S]]]:
    """Split stories into the rows the store has for every member, and the stories still to run."""
    found_rows: list[Row] = []
    pending: list[Sequence[S]] = []
    for story in stories:
        found = [store.get(key(member, story)) for member in story]
        if all(row is not None for row in found):
            found_rows += [row for row in found if row is not None]
            if on_progress:
                on_progress(len(story))
        else:
            pending.append(story)
    return found_rows, pending


def run_stories(
    stories: Sequence[Sequence[S]],
    run: Callable[[Sequence[S]], list[Row]],
    *,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
    workers: int,
    on_progress: Callable[[int], None] | None = None,
) -> list[Row]:
    """`run(story)` for every story: here when `workers <= 1`, else in a fork pool (completion order).

    `run` and `initializer` must be module-level functions: the pool pickles them by reference.
    """
    rows: list[Row] = []
    if not stories:
        return rows
    if workers <= 1:
        initializer(*initargs)
        for story in stories:
            rows += run(story)
            if on_progress:
                on_progress(len(story))
        return rows
    with ProcessPoolExecutor(
        workers, mp_context=get_context("fork"), initializer=initializer, initargs=initargs
    ) as pool:
        futures = {pool.submit(run, story): len(story) for story in stories}
        for future in as_completed(futures):
            rows += future.result()
            if on_progress:
                on_progress(futures[future])
    return rows


def in_input_order(rows: list[Row], ids: Sequence[str]) -> list[Row]:
    """`rows` sorted by the position of their `id` in `ids`."""
    order = {item_id: i for i, item_id in enumerate(ids)}
    return sorted(rows, key=lambda row: order[row["id"]])


def code_hash(
    root: Path,
    folders: Sequence[str],
    files: Sequence[str] = (),
    suffixes: Sequence[str] = (".py",),
) -> str:
    """A sha256 of the source files under `root/<folder>` (by suffix) and of `root/<file>`."""
    digest = hashlib.sha256()
    paths = [
        p for folder in folders for p in sorted((root / folder).rglob("*")) if p.suffix in suffixes
    ]
    for path in [*paths, *(root / f for f in files)]:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
