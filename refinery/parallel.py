"""Running per-story work in worker processes, with answers from a cache first.

Both stages work story by story (a story's items share premises and naming evidence). This
module owns the mechanics they share: answering unchanged stories from a content-addressed store
in the parent (no worker started, nothing proved), running the rest in this process or in a fork
pool, packing stories into batches for a cluster (`story_batches`), naming the task runner
(`--task-runner`, `parse_task_runner`), and hashing the code that decides results so a code
change invalidates cached results.
"""

from __future__ import annotations

import ctypes
import hashlib
import heapq
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from refinery import lifeline
from refinery.errors import ConfigError
from refinery.store import JsonStore

S = TypeVar("S")
R = TypeVar("R")
Row = dict[str, Any]


def from_cache(
    stories: Iterable[Sequence[S]],
    store: JsonStore,
    key: Callable[[S, Sequence[S]], str],
    on_progress: Callable[[int], None] | None = None,
) -> tuple[list[Row], list[list[tuple[S, Row | None]]]]:
    """Split stories into the rows the store has for every member, and the stories still to run.

    A story still to run keeps each member's stored row (None when missing), so a stage that
    works item by item reuses the members the store has.
    """
    found_rows: list[Row] = []
    pending: list[list[tuple[S, Row | None]]] = []
    for story in stories:
        found = [store.get(key(member, story)) for member in story]
        if all(row is not None for row in found):
            found_rows += [row for row in found if row is not None]
            if on_progress:
                on_progress(len(story))
        else:
            pending.append(list(zip(story, found, strict=True)))
    return found_rows, pending


def run_stories(stories: Sequence[S], run: Callable[[list[S]], R], *, workers: int) -> Iterator[R]:
    """`run([story])` for every story: here when `workers <= 1`, else in a fork pool.

    Results come in completion order. `run` must pickle (a module-level function, or a
    `functools.partial` of one over picklable values). Workers die with this process (see
    `refinery.lifeline`); when the caller stops early — an exception, Ctrl-C, or closing the
    generator — pending stories are cancelled and the workers stopped at once, not awaited.
    """
    with StoryPool(workers) as pool:
        yield from pool.run(stories, run)


class StoryPool:
    """`run_stories` over one pool for many calls: a run that goes chunk by chunk
    (`refinery.check.stream`) forks its workers, and builds their provers, once.

    The pool starts at the first call that needs one (none for `workers <= 1` or a single
    story); leaving the `with` block shuts it down, or stops it at once on an exception.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: Any = None

    def __enter__(self) -> StoryPool:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if self._pool is None:
            return
        if kind is None:
            self._pool.shutdown()
        else:
            _stop(self._pool)
        self._pool = None

    def run(self, stories: Sequence[S], run: Callable[[list[S]], R]) -> Iterator[R]:
        """`run([story])` for every story, results in completion order (see `run_stories`)."""
        yield from self.start(stories, run)

    def start(self, stories: Sequence[S], run: Callable[[list[S]], R]) -> Iterator[R]:
        """`run` with the stories handed to the pool now, not at the first result asked for:
        a caller that starts its next stories before it takes in the last ones' results keeps
        the workers busy meanwhile. Without a pool the stories run here, as results are asked."""
        if self.workers <= 1 or len(stories) <= 1 and self._pool is None:
            return (run([story]) for story in stories)
        # here, not at the top: a run answered from the cache starts no pool and pays no import
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=get_context("fork"), initializer=_worker_started
            )
        try:
            with lifeline.forking():  # a fork pool starts its workers at a submit
                futures = [self._pool.submit(run, [story]) for story in stories]
        except BaseException:
            self._abort()
            raise
        return self._completed(futures)

    def _completed(self, futures: list[Any]) -> Iterator[Any]:
        from concurrent.futures import as_completed

        try:
            for future in as_completed(futures):
                yield future.result()
        except BaseException:
            self._abort()
            raise

    def _abort(self) -> None:
        if self._pool is not None:
            _stop(self._pool)
            self._pool = None


def _worker_started() -> None:
    """A fork-pool worker's initializer: its signals (`lifeline.worker_started`), its malloc."""
    lifeline.worker_started()
    steady_malloc()


#: glibc's `mallopt` parameters, and the mmap threshold its own dynamic rule reaches at most on
#: 64-bit (the trim threshold it then sets is twice that)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_BYTES = 32 << 20


def steady_malloc() -> bool:
    """Fix glibc malloc's mmap and trim thresholds in this process at the top of the range its
    own rule moves them in (32 MiB, 64 MiB); whether it could (glibc only, else nothing).

    Left to glibc's rule, a worker forked from a process that had already run a check (refine's
    repair workers, forked after its check stage) kept faulting fresh pages in as it proved:
    refine on FOLIO v2 train spent 23.6 s of its workers' time in the kernel (14 M page faults)
    against 4.4 s (1.4 M) with the thresholds fixed, 61 s of wall against 53 s; a second check
    in one process took 10.2 s against 8.6 s for the first. Freed memory up to 64 MiB stays
    with the worker, to be reused.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):  # no mallopt: not glibc (or musl's, which returns 0)
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_BYTES)) and bool(
        mallopt(_M_TRIM_THRESHOLD, 2 * _MMAP_BYTES)
    )


def _stop(pool: Any) -> None:
    """Cancel what has not started and stop the workers now (their provers with them)."""
    # the executor has no public way to stop running work: its worker table is the way in
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()  # SIGTERM: a worker kills its provers, then exits
    deadline = time.monotonic() + 2.0
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.exitcode is None:
            process.kill()
            process.join()


def story_batches(
    stories: Sequence[Sequence[S]], slots: int, *, per_slot: int = 4, max_items: int = 2000
) -> list[list[Sequence[S]]]:
    """Whole stories packed into balanced batches for `slots` parallel workers.

    About `per_slot` batches per slot, so a slow batch does not leave the others idle at the
    end and a lost worker loses a small share; more when a batch would exceed `max_items`, which
    bounds the work redone after a loss and the size of one result. The count is a multiple of
    `slots` (where there are stories enough), so the last round keeps every worker busy: 15
    batches on 2 workers would leave one idle for a whole batch. Largest story first, each into
    the lightest batch.

    >>> [[len(s) for s in b] for b in story_batches([[1] * 5, [2] * 3, [3] * 2, [4]], 1, per_slot=2)]
    [[5, 1], [3, 2]]
    """
    total = sum(len(s) for s in stories)
    wanted = max(1, slots * per_slot, -(-total // max_items))
    count = min(len(stories), -(-wanted // slots) * slots)
    heap = [(0, i) for i in range(count)]
    batches: list[list[Sequence[S]]] = [[] for _ in range(count)]
    for story in sorted(stories, key=len, reverse=True):
        load, i = heapq.heappop(heap)
        batches[i].append(story)
        heapq.heappush(heap, (load + len(story), i))
    return [b for b in batches if b]


#: How a run executes its story batches: this machine's pool, or a cluster through Prefect.
RunnerKind = Literal["local", "dask", "ray"]


@dataclass(frozen=True, slots=True)
class TaskRunnerSpec:
    """`--task-runner`: `local`, `dask` / `ray` (a cluster started for the run), or an address."""

    kind: RunnerKind = "local"
    address: str | None = None  # tcp://HOST:PORT (Dask scheduler) or ray://HOST:PORT (Ray client)

    @property
    def distributed(self) -> bool:
        return self.kind != "local"


def parse_task_runner(text: str) -> TaskRunnerSpec:
    """Parse `local | dask | dask://HOST:PORT | ray | ray://HOST:PORT`; otherwise `ConfigError`.

    >>> parse_task_runner("dask://127.0.0.1:8786")
    TaskRunnerSpec(kind='dask', address='tcp://127.0.0.1:8786')
    >>> parse_task_runner("ray").address is None
    True
    """
    value = text.strip()
    if value in ("local", "dask", "ray"):
        return TaskRunnerSpec(cast(RunnerKind, value))
    scheme, sep, rest = value.partition("://")
    host, colon, port = rest.rpartition(":")
    if (
        scheme in ("dask", "ray")
        and sep
        and host
        and colon
        and port.isdigit()
        and 0 < int(port) < 65536
    ):
        address = f"tcp://{host}:{port}" if scheme == "dask" else f"ray://{host}:{port}"
        return TaskRunnerSpec(cast(RunnerKind, scheme), address)
    raise ConfigError(
        f"task runner must be local, dask, dask://HOST:PORT, ray or ray://HOST:PORT, got {text!r}"
    )


def check_task_runner(text: str) -> str:
    """`text` when `parse_task_runner` accepts it (a pydantic validator for settings)."""
    parse_task_runner(text)
    return text.strip()


def in_input_order(rows: list[R], ids: Sequence[str], id_of: Callable[[R], str]) -> list[R]:
    """`rows` sorted by the position of their id (`id_of(row)`) in `ids`."""
    order = {item_id: i for i, item_id in enumerate(ids)}
    return sorted(rows, key=lambda row: order[id_of(row)])


def code_hash(
    root: Path,
    folders: Sequence[str],
    files: Sequence[str] = (),
    suffixes: Sequence[str] = (".py",),
) -> str:
    """A sha256 of the source files under `root/<folder>` (by suffix) and of `root/<file>`."""
    digest = hashlib.sha256()
    for folder in folders:
        if not (root / folder).is_dir():  # a moved folder would silently stop counting
            raise FileNotFoundError(f"code_hash: no folder {root / folder}")
    paths = [
        p for folder in folders for p in sorted((root / folder).rglob("*")) if p.suffix in suffixes
    ]
    for path in [*paths, *(root / f for f in files)]:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
