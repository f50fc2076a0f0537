"""Progress of a run's long steps, as callbacks any runner can drive and any display can show.

A `Stage` starts a step (`stage("check", total)`) and returns its `advance(n)` callback. The
plain driver (`refinery.pipeline.refine_here`) takes a stage; the refine flow's tasks report to
a Prefect progress artifact and to the stages `listening()` registers, which is how
`refinery refine` shows the flow's steps on the terminal while Prefect runs them in-process.
`terminal()` is that display: one rich progress bar per step, on stderr.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

Advance = Callable[[int], None]
Stage = Callable[[str, int], Advance]

_LISTENERS: list[Stage] = []
_LOCK = threading.Lock()


def no_progress(name: str, total: int) -> Advance:
    """A stage nobody watches."""
    return lambda n: None


@contextmanager
def listening(stage: Stage) -> Iterator[None]:
    """Show every step started by `started` while the block runs (e.g. a flow run in-process)."""
    with _LOCK:
        _LISTENERS.append(stage)
    try:
        yield
    finally:
        with _LOCK:
            _LISTENERS.remove(stage)


def started(name: str, total: int, *also: Advance) -> Advance:
    """Start step `name` with every listener; the returned callback advances them and `also`."""
    with _LOCK:
        advances = [stage(name, total) for stage in _LISTENERS] + list(also)

    def advance(n: int) -> None:
        for a in advances:
            a(n)

    return advance


@contextmanager
def terminal(console: Any, *, enabled: bool = True) -> Iterator[Stage]:
    """A rich progress display on `console`; yields the `Stage` that adds one bar per step.

    Disabled it shows nothing. When `console` is not a terminal (a log file, a scheduler's
    output) there is no bar: each step says plain lines instead (`plain_lines`), at every tenth
    of its items and at its end.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    if enabled and not console.is_terminal:
        yield plain_lines(lambda line: console.print(line, markup=False, highlight=False))
        return
    show = enabled
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not show,
    ) as bar:

        def stage(name: str, total: int) -> Advance:
            task = bar.add_task(name, total=total)
            return lambda n: bar.advance(task, n)

        yield stage


def when_first(stage: Stage, name: str, total: int) -> Advance:
    """An `Advance` that starts step `name` on `stage` only when first called with items: a
    step shown only when it happens (a resumed run's answers from the cache).

    >>> lines = []
    >>> advance = when_first(plain_lines(lines.append), "from the cache", 4)
    >>> lines
    []
    >>> advance(0); lines
    []
    >>> advance(4); lines
    ['from the cache: 0/4 (0%)', 'from the cache: 4/4 (100%)']
    """
    started: list[Advance] = []
    lock = threading.Lock()

    def advance(n: int) -> None:
        if not n:
            return
        with lock:
            if not started:
                started.append(stage(name, total))
        started[0](n)

    return advance


def plain_lines(say: Callable[[str], None]) -> Stage:
    """A `Stage` that says ``check: 100/1001 (10%)`` when a step starts, each time it passes
    another tenth of its items, and when it ends: progress a log can keep.

    >>> lines = []
    >>> advance = plain_lines(lines.append)("check", 20)
    >>> for _ in range(20):
    ...     advance(1)
    >>> lines[:3], lines[-1], len(lines)
    (['check: 0/20 (0%)', 'check: 2/20 (10%)', 'check: 4/20 (20%)'], 'check: 20/20 (100%)', 11)
    """

    def stage(name: str, total: int) -> Advance:
        lock = threading.Lock()
        done, said = 0, 0  # items done; tenths said

        def line(count: int) -> str:
            share = f" ({100 * count // total}%)" if total else ""
            return f"{name}: {count}/{total}{share}"

        say(line(0))

        def advance(n: int) -> None:
            nonlocal done, said
            with lock:
                done += n
                tenths = 10 * done // total if total else 10
                if tenths > said:
                    said = tenths
                    say(line(done))

        return advance

    return stage
