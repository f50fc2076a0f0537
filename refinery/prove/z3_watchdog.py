"""The Z3 backend's watchdogs: interrupt a Z3 context shortly after its budget, from one thread.

A `Watchdog` guards one check (`with Watchdog(ctx, seconds): …`); `TIMERS` holds every armed
deadline of the process and fires them from one daemon thread. A forked child starts with no
thread and no deadlines, and an interrupted run (`refinery.lifeline`) stops every running
check at once. Only the context's `interrupt()` is used, so this module needs no Z3 import.
"""

from __future__ import annotations

import math
import os
import threading
import time
from typing import Protocol

from refinery import lifeline


class Interruptible(Protocol):
    """What a watchdog needs of a Z3 context."""

    def interrupt(self) -> None: ...


class Watchdog:
    """Interrupts `ctx` after `seconds`, but only while the guarded block is still running.

    Every watchdog of a process is served by one thread (`Timers`): a timer thread per check
    cost about 0.25 ms, a twentieth of a ProofWriter question.
    """

    def __init__(self, ctx: Interruptible, seconds: float) -> None:
        self.ctx = ctx
        self.seconds = seconds
        self.fired = False
        self.stopped = False  # interrupted because the run is (`Timers.stop_all`)

    def __enter__(self) -> None:
        TIMERS.arm(self, time.monotonic() + self.seconds)

    def __exit__(self, *exc: object) -> None:
        TIMERS.disarm(self)


class Timers:
    """The deadlines of the armed watchdogs, and the one daemon thread that fires them.

    Arming, disarming and firing share one lock, so a late firing can never interrupt the
    *next* check on a reused solver. The thread drops every reference to a watchdog before it
    waits: a Z3 context must be freed by the thread that owns it, never by this one.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """No thread and no deadlines; a forked child starts so (with a fresh lock, too)."""
        self._cond = threading.Condition()
        self._armed: dict[int, tuple[float, Watchdog]] = {}
        self._thread: threading.Thread | None = None
        self._wakes_at = math.inf  # when the thread will look again, unless notified

    def arm(self, dog: Watchdog, deadline: float) -> None:
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="z3-watchdog")
                self._thread.daemon = True
                self._thread.start()
            self._armed[id(dog)] = (deadline, dog)
            if deadline < self._wakes_at:  # else the thread wakes in time anyway
                self._cond.notify()

    def disarm(self, dog: Watchdog) -> None:
        with self._cond:
            self._armed.pop(id(dog), None)

    def stop_all(self) -> None:
        """Interrupt every running check now: the run was interrupted (`refinery.lifeline`)."""
        with self._cond:
            for dog in [dog for _, dog in self._armed.values()]:
                dog.stopped = True
                dog.ctx.interrupt()
            self._armed.clear()

    def _serve(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                wait = self._fire_due(now)
                self._wakes_at = now + wait
                self._cond.wait(wait)

    def _fire_due(self, now: float) -> float:
        """Interrupt every context past its deadline; the seconds to wait for the next one.
        A function of its own, so its references to watchdogs end before the thread waits."""
        for key, (deadline, dog) in list(self._armed.items()):
            if deadline <= now:
                del self._armed[key]
                dog.fired = True
                dog.ctx.interrupt()
        return min((d for d, _ in self._armed.values()), default=now + 3600.0) - now


TIMERS = Timers()
os.register_at_fork(after_in_child=TIMERS.reset)
lifeline.on_interrupt.append(TIMERS.stop_all)
