"""Run one prover process on one problem file, safely; stdlib only.

This module owns the process plumbing: each call gets a fresh temporary directory holding the
problem file, the prover starts from an argv list (never a shell string) in its own session, and
a wall-clock cap backs up the prover's own time limit. When the cap is hit the whole process
group is killed (provers such as E's scheduler and Vampire's portfolio fork workers), so no
prover process outlives its budget. Output is decoded with `errors="replace"`: a prover's bytes
can never make this module raise.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

# After a kill, how long to wait for the pipes to close. Only a process that left the group
# (setsid) can hold them open longer, and nothing here can reach it anyway.
_DRAIN_SECONDS = 5.0


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


def _run(argv: list[str], *, cwd: str, timeout: float) -> RunResult:
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # own process group, so one killpg reaches every worker
    )
    timed_out = False
    out: bytes | None
    err: bytes | None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        out, err = _drain(proc)
    except BaseException:  # e.g. KeyboardInterrupt: still leave no prover behind
        _kill_group(proc)
        proc.wait()
        raise
    return RunResult(
        stdout=_decode(out),
        stderr=_decode(err),
        returncode=proc.returncode,
        elapsed=time.monotonic() - start,
        timed_out=timed_out,
        pid=proc.pid,
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    # Only called before `proc` is reaped: its (possibly zombie) leader keeps the group id
    # reserved, so the id cannot have been recycled for someone else's processes.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _drain(proc: subprocess.Popen[bytes]) -> tuple[bytes | None, bytes | None]:
    """Collect what a killed group wrote; give up on pipes held open by an escaped process."""
    try:
        return proc.communicate(timeout=_DRAIN_SECONDS)
    except subprocess.TimeoutExpired as exc:
        proc.wait()
        return exc.output, exc.stderr


def _decode(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")
