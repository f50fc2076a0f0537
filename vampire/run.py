"""Run one prover process on one problem, safely; stdlib only.

This module owns the process plumbing: the problem goes to the prover on its standard input
(`run_on_stdin`, the cheap way) or, for a prover that must read a file, in a fresh temporary
directory (`run_on_file`). The prover starts from an argv list (never a shell string) in its own
process group, and a wall-clock cap backs up the prover's own time limit. When the cap is hit the
whole group is killed (provers such as E's scheduler and Vampire's portfolio fork workers), so no
prover process outlives its budget; `kill_running` does the same at once for every prover this
process is running (an interrupted run calls it). The group stays in the caller's session, so a
terminal's Ctrl-C reaches the caller, not the prover, and whoever tracks the run by session sees
the provers too. Output is decoded with `errors="replace"`: a prover's bytes can never make this
module raise.
"""

from __future__ import annotations

import contextlib
import os
import select
import selectors
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

# After a kill, how long to wait for the pipes to close. Only a process that left the group
# (setsid) can hold them open longer, and nothing here can reach it anyway.
_DRAIN_SECONDS = 5.0
_CHUNK = 65536  # bytes per read or write on a pipe

# The process groups of the provers this process is running (any thread), for `kill_running`.
_running: set[int] = set()
_interrupted: set[int] = set()  # of those, the ones `kill_running` killed
_running_lock = threading.RLock()  # re-entrant: a signal handler may interrupt its holder


def _forget_running() -> None:
    # a forked child runs none of its parent's provers (and must not inherit a held lock)
    global _running_lock
    _running.clear()
    _interrupted.clear()
    _running_lock = threading.RLock()


os.register_at_fork(after_in_child=_forget_running)


@dataclass(frozen=True, slots=True)
class RunResult:
    """What one prover process did: its output, exit code, wall time and whether we killed it."""

    stdout: str
    stderr: str
    returncode: int
    elapsed: float
    timed_out: bool
    pid: int  # also the process group id, so callers and tests can check the group is gone


def run_on_file(
    argv: Sequence[str], text: str, *, timeout: float, filename: str = "problem.p"
) -> RunResult:
    """Write `text` to `filename` in a fresh temp dir and run `argv + [filename]` there.

    Parameters:
        argv: the prover command (binary first); the problem file name is appended.
        text: the problem file contents.
        timeout: wall-clock seconds before the process group is killed.
        filename: a plain file name (no directories) for the problem file.

    Returns:
        A `RunResult`; `timed_out` is True when the wall-clock cap killed the process group.

    Raises:
        OSError: the binary cannot be started (missing, not executable).
    """
    if os.sep in filename or filename in {"", ".", ".."}:
        raise ValueError(f"filename must be a plain file name, got {filename!r}")
    with tempfile.TemporaryDirectory(prefix="refinery-prover-") as tmp:
        with open(os.path.join(tmp, filename), "w", encoding="utf-8") as fh:
            fh.write(text)
        return _run(list(argv) + [filename], cwd=tmp, timeout=timeout)


def run_on_stdin(argv: Sequence[str], text: str, *, timeout: float) -> RunResult:
    """Run `argv` with `text` on its standard input: no file, no directory (a prover that
    reads its problem from stdin costs one process and nothing else). See `run_on_file`."""
    return _run(list(argv), cwd=None, timeout=timeout, data=text.encode("utf-8"))


def _run(
    argv: list[str], *, cwd: str | None, timeout: float, data: bytes | None = None
) -> RunResult:
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL if data is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        process_group=0,  # own process group, so one killpg reaches every worker
    )
    with _running_lock:
        _running.add(proc.pid)
    try:
        out, err, timed_out = _exchange(proc, data, start + timeout)
    except BaseException:  # e.g. KeyboardInterrupt: still leave no prover behind
        _kill_group(proc)
        raise
    finally:
        with _running_lock:  # out of the set before it is reaped: its group id is then free
            _running.discard(proc.pid)
            interrupted = proc.pid in _interrupted
            _interrupted.discard(proc.pid)
        proc.wait()
    if interrupted:  # what it printed is no answer: nothing may record it as one
        raise KeyboardInterrupt("prover interrupted")
    return RunResult(
        stdout=_decode(out),
        stderr=_decode(err),
        returncode=proc.returncode,
        elapsed=time.monotonic() - start,
        timed_out=timed_out,
        pid=proc.pid,
    )


def _exchange(
    proc: subprocess.Popen[bytes], data: bytes | None, deadline: float
) -> tuple[bytes, bytes, bool]:
    """Write `data` and read both pipes to their end; kill `proc`'s group at `deadline`.

    Returns stdout, stderr and whether the deadline killed it (what it wrote before is kept).
    Not `communicate(timeout=…)`: once the pipes close, its wait polls in sleeps of 1 ms and
    more, which on FOLIO cost a quarter of E's calls about 1 ms each, a third of E's own time;
    here the exit is awaited on a pidfd, woken the moment the prover ends. After a kill, pipes
    still held open (only by a process that left the group) are given up after `_DRAIN_SECONDS`.
    """
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.fileno(), proc.stderr.fileno()
    output = {out: bytearray(), err: bytearray()}
    stdin = proc.stdin.fileno() if proc.stdin is not None else -1
    pending = memoryview(data or b"")
    killed = False
    with selectors.PollSelector() as selector:
        for fd in output:
            selector.register(fd, selectors.EVENT_READ)
        if stdin >= 0:
            selector.register(stdin, selectors.EVENT_WRITE)
        while selector.get_map():
            left = deadline - time.monotonic()
            ready = selector.select(left) if left > 0 else []
            if not ready:
                if killed:
                    break  # an escaped process holds a pipe: give up on it
                killed = True
                _kill_group(proc)
                deadline = time.monotonic() + _DRAIN_SECONDS
                continue
            for key, _ in ready:
                if key.fd == stdin:
                    try:
                        pending = pending[os.write(stdin, pending[:_CHUNK]) :]
                    except BrokenPipeError:  # the prover stopped reading: its answer says why
                        pending = pending[:0]
                    if pending:
                        continue
                    assert proc.stdin is not None
                    proc.stdin.close()  # end of the problem
                elif chunk := os.read(key.fd, _CHUNK):
                    output[key.fd].extend(chunk)
                    continue
                selector.unregister(key.fd)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    if not killed and not _exited_by(proc, deadline):
        killed = True
        _kill_group(proc)
    return bytes(output[out]), bytes(output[err]), killed


def _exited_by(proc: subprocess.Popen[bytes], deadline: float) -> bool:
    """Whether `proc` exits by `deadline`: a blocking poll on its pidfd (Linux), else `wait`."""
    left = max(0.0, deadline - time.monotonic())
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # no pidfd here: the standard wait
        try:
            proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(left * 1000))
    finally:
        os.close(fd)


def kill_running() -> int:
    """Kill the process group of every prover this process is running; returns how many.

    For an interrupted run: each thread waiting on one of those provers raises
    `KeyboardInterrupt` instead of returning its output, so no half answer is ever recorded.
    Safe to call from any thread, and from a signal handler.
    """
    with _running_lock:  # held while killing: a listed group's leader is not reaped yet
        for pgid in _running:
            _interrupted.add(pgid)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
        return len(_running)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    # Only called before `proc` is reaped: its (possibly zombie) leader keeps the group id
    # reserved, so the id cannot have been recycled for someone else's processes.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _decode(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")
