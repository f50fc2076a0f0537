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

    Disabled (or when `console` is not a terminal) it draws nothing and the stages do nothing.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    show = enabled and console.is_terminal
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
