"""How a run's processes end together: workers die with their parent, an interrupt stops all.

A run starts worker processes (the fork pool), prover processes and, for a Prefect run, a
temporary API server. None may outlive the run, however it ends:

- a worker asks the kernel to send it SIGTERM when its parent dies (`PR_SET_PDEATHSIG`, Linux),
  so even a `kill -9` of the run takes the workers with it;
- a worker leaves Ctrl-C to its parent (the terminal sends SIGINT to the whole foreground
  group) and on SIGTERM stops its provers and exits at once, sending nothing back; it is forked
  with both signals held (`forking`), so one sent while it starts waits for those handlers;
- the command line turns SIGTERM into `Terminated`, which unwinds like Ctrl-C, and on either
  calls `interrupted()`: every callback in `on_interrupt` (the provers' kill, Z3's interrupt)
  runs, at once, from a thread of its own (`signals_raise`).

Stdlib only; no-ops where the platform lacks a piece (PDEATHSIG is Linux's).
"""

from __future__ import annotations

import _thread
import contextlib
import ctypes
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_AGAIN_SECONDS = 0.5  # how often a stopping signal is repeated until the run unwinds

#: What an interrupt must stop in this process, e.g. the provers it runs. The command line
#: fills it; forked workers inherit it.
on_interrupt: list[Callable[[], object]] = []


#: The stopping signal received (0: none): after it, any exception of the run is its echo.
stopping = 0
_hooks: list[Callable[[Any], object]] = []  # the unraisable hook `signals_raise` set aside


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so the run unwinds (and cleans up) as on Ctrl-C."""


def interrupted() -> None:
    """Run every `on_interrupt` callback; one that fails does not stop the others."""
    for callback in on_interrupt:
        with contextlib.suppress(Exception):
            callback()


def die_with_parent(sig: int = signal.SIGTERM) -> bool:
    """Ask the kernel to send `sig` to this process when its parent dies; False if unsupported.

    The kernel ties this to the parent *thread* that forked us: fork pools and servers are
    started from the thread that also waits for them, so that thread outlives them.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # this process's own symbols: libc's prctl
        if libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() == 1:  # the parent died before the request: nobody will send it
        os.kill(os.getpid(), sig)
    return True


_STOPPING_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def forking() -> Iterator[None]:
    """Fork workers in this block: SIGINT and SIGTERM are held in the forking thread, and a
    worker starts with them held until `worker_started` has set its own handlers.

    Without it, a worker stopped while it was starting (its SIGTERM from `_stop`) ran the
    handler it inherited inside its fork hooks: under a Prefect flow that handler raises, the
    hook's exception was printed ("Exception ignored in …" on the run's stderr) and the stop
    lost. This process still gets its signals at once (any other thread takes them).
    """
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def worker_started() -> None:
    """Initializer of a fork-pool worker (see the module docstring); the pool forks it inside
    `forking`, so a stopping signal sent meanwhile is handled here, by the worker's handler."""
    # the parent's wakeup fd is inherited: a signal to this worker would wake the parent's
    # relay as if the parent had been signalled (`signals_raise`)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _worker_terminated)
    die_with_parent(signal.SIGTERM)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPPING_SIGNALS)


def _worker_terminated(signum: int, frame: FrameType | None) -> None:
    interrupted()
    os._exit(128 + signum)  # no clean-up that could block, no result sent back


@contextmanager
def signals_raise() -> Iterator[None]:
    """In the block, SIGINT raises `KeyboardInterrupt` and SIGTERM `Terminated` in the main
    thread, with logging switched off first: the libraries' clean-up messages ("crash
    detected", …) would bury the command's one line. Handlers and logging are restored after.
    Outside the main thread (where Python allows no handlers) the block runs unchanged.

    Python runs a handler only between bytecodes of the main thread, which may be inside a
    prover call in C (Z3) for seconds; so a relay thread, woken by the signal itself (the
    wakeup fd), calls `interrupted()` at once, and the call returns for the handler to run.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        global stopping
        stopping = stopping or signum
        logging.disable(logging.CRITICAL)
        # finalisers of objects the unwinding abandons half-built (a Z3 context) complain
        if sys.unraisablehook is not _quiet:
            _hooks.append(sys.unraisablehook)
            sys.unraisablehook = _quiet
        if signum == signal.SIGTERM:
            raise Terminated(f"signal {signum}")
        raise KeyboardInterrupt

    before = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    wake, relay = socket.socketpair()
    wake.setblocking(False)
    previous_fd = signal.set_wakeup_fd(wake.fileno(), warn_on_full_buffer=False)
    threading.Thread(target=_relay, args=(relay,), name="signal-relay", daemon=True).start()
    global stopping
    stopping = 0
    try:
        yield
    finally:
        wake.close()  # the relay reads its end of file and stops
        signal.set_wakeup_fd(previous_fd)
        for sig, previous in before.items():
            signal.signal(sig, previous)
        logging.disable(logging.NOTSET)


def quiet_until_now() -> None:
    """Finalisers speak again (`signals_raise` silenced them on a signal): call once the run's
    frames are gone, i.e. after handling what the block raised."""
    if _hooks:
        sys.unraisablehook = _hooks.pop()


def _quiet(unraisable: Any) -> None:
    pass


def _relay(sock: socket.socket) -> None:
    """Run the callbacks when a stopping signal comes; then repeat it to the main thread every
    `_AGAIN_SECONDS` until the block is left: Python drops an exception raised while it runs
    a finaliser (`__del__`, e.g. a Z3 object's), so one delivery is not always enough."""
    with sock:
        signum = 0
        while True:
            try:
                data = sock.recv(64)
            except TimeoutError:
                _thread.interrupt_main(signal.Signals(signum))
                continue
            except OSError:
                return
            if not data:
                return  # the block was left
            for sig in (signal.SIGTERM, signal.SIGINT):
                if sig in data:
                    signum = signum or sig
                    interrupted()
            if signum:
                sock.settimeout(_AGAIN_SECONDS)
