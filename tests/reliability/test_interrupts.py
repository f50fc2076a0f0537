"""Kills and Ctrl-C: whatever signal ends a run, when, nothing of it lives on and nothing is lost.

Each case starts the real `refinery` command in a session of its own (so every process it
starts — fork workers, provers, the temporary Prefect server — is found by session id), sends
SIGINT, SIGTERM or SIGKILL at a moment of the run, and then checks: the exit code, one line on
stderr for Ctrl-C, no process of the session alive, and a re-run in the same state folder
giving exactly what a clean run gives (the caches kept only finished work).
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from commands import REFINERY

BUDGET = "2"  # seconds per prover call: a prover orphaned by SIGKILL ends within it


def session_processes(sid: int) -> list[str]:
    """Live (non-zombie) processes of session `sid`: 'pid state command' each."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")[:120]
        except (OSError, IndexError):
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(f"{stat.parent.name} {fields[0]} {command.decode(errors='replace')}")
    return found


def session_gone(sid: int, within: float) -> list[str]:
    """[] once no process of `sid` is alive, else what still is after `within` seconds."""
    deadline = time.monotonic() + within
    while (left := session_processes(sid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def start(args: list[str], cwd: Path, state: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "REFINERY_STATE_DIR": str(state)}
    return subprocess.Popen(
        [str(REFINERY), *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # session id = pid: everything the run starts is found by it
    )


def finish(proc: subprocess.Popen[str], timeout: float = 600) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise


def verdict_columns(folder: Path) -> list[tuple[str, ...]]:
    """What a check decides, per item: no timings, no cache flags."""
    keep = ("id", "label_z3", "label_eprover", "label", "agreement", "category", "evidence")
    with (folder / "verdicts.csv").open(encoding="utf-8", newline="") as fh:
        return [tuple(row[k] for k in keep) for row in csv.DictReader(fh)]


def interrupt(proc: subprocess.Popen[str], sig: int) -> tuple[int, str, float]:
    """Send `sig`; the exit code, stderr and seconds until the process exited."""
    sent = time.monotonic()
    proc.send_signal(sig)
    _, err = finish(proc, timeout=120)
    return proc.returncode, err, time.monotonic() - sent


# -- check ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def train(shared_data: Path) -> Path:
    return shared_data / "folio_v2" / "reconstructed" / "folio_v2_train.jsonl"


def check_args(source: Path, out: Path, workers: int = 2) -> list[str]:
    options = ["--workers", str(workers), "--budget", BUDGET, "--quiet", "--out", str(out)]
    return ["check", str(source), *options]


@pytest.fixture(scope="module")
def clean_check(train: Path, tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, ...]]:
    """The train split checked once, from nothing, to the end."""
    base = tmp_path_factory.mktemp("clean-check")
    proc = start(check_args(train, base / "out"), base, base / "state")
    _, err = finish(proc)
    assert proc.returncode == 0, err
    return verdict_columns(base / "out")


def workers_started(sid: int) -> bool:
    """True once the run's fork workers are up (three `refinery` processes: parent and two)."""
    return sum("bin/refinery check " in p for p in session_processes(sid)) >= 3


@pytest.mark.parametrize(
    ("sig", "workers", "after", "code"),
    [
        (signal.SIGINT, 2, 0.0, 130),  # as the workers start on their first stories
        # in-process: Z3 runs in this very thread and must neither swallow the signal (its
        # own Ctrl-C handler) nor record its interrupted check as a timeout
        (signal.SIGINT, 1, 3.0, 130),
        (signal.SIGTERM, 2, 1.5, 143),  # with some batches finished and cached
        (signal.SIGKILL, 2, 3.0, -signal.SIGKILL),
    ],
    ids=["sigint", "sigint-in-process", "sigterm", "sigkill"],
)
def test_a_signalled_check_leaves_nothing_behind_and_reruns_like_a_clean_run(
    sig: int,
    workers: int,
    after: float,
    code: int,
    train: Path,
    clean_check: list[tuple[str, ...]],
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    proc = start(check_args(train, tmp_path / "out", workers), tmp_path, state)
    deadline = time.monotonic() + 120
    while workers > 1 and not workers_started(proc.pid):
        assert proc.poll() is None, f"the check ended before its workers started: {finish(proc)}"
        assert time.monotonic() < deadline, "no workers after 120 s"
        time.sleep(0.05)
    time.sleep(after)
    assert proc.poll() is None, "the check finished before the signal: make it longer"
    returncode, err, seconds = interrupt(proc, sig)

    assert returncode == code, err
    if sig == signal.SIGINT:
        assert err == "refinery: interrupted\n"  # one line, no traceback
        assert seconds < 3.0, f"Ctrl-C took {seconds:.1f} s"
    if sig == signal.SIGTERM:
        assert err.splitlines()[-1] == "refinery: terminated"
    # SIGKILL gives no chance to clean up: the workers die with their parent (PDEATHSIG) and
    # their provers with them; only a prover of the parent itself may run on to its own limit
    assert session_gone(proc.pid, within=float(BUDGET) + 5) == []
    assert not (tmp_path / "out" / "verdicts.csv").exists()  # nothing half-written

    again = start(check_args(train, tmp_path / "out"), tmp_path, state)
    _, err = finish(again)
    assert again.returncode == 0, err
    assert verdict_columns(tmp_path / "out") == clean_check


# -- refine -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def validation(shared_data: Path) -> Path:
    return shared_data / "folio_v2" / "reconstructed" / "folio_v2_validation.jsonl"


def refine_args(source: Path, out: Path, *more: str) -> list[str]:
    options = ["--workers", "2", "--budget", BUDGET, "--quiet", "--out", str(out), *more]
    return ["refine", str(source), *options]


@pytest.fixture(scope="module")
def clean_refine(validation: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The validation split refined once, from nothing (in-process: the same steps, sooner)."""
    base = tmp_path_factory.mktemp("clean-refine")
    proc = start(refine_args(validation, base / "out", "--no-prefect"), base, base / "state")
    _, err = finish(proc)
    assert proc.returncode == 0, err
    return refined_split(base / "out")


def refined_split(folder: Path) -> str:
    """The refined split's text, with its run id (which each run has its own) left out."""
    run_id = json.loads((folder / "run.json").read_text(encoding="utf-8"))["run_id"]
    return (folder / "refined.jsonl").read_text(encoding="utf-8").replace(run_id, "RUN")


def server_and_workers(sid: int) -> Iterator[bool]:
    processes = session_processes(sid)
    yield any("uvicorn" in p for p in processes)
    yield sum("bin/refinery refine " in p for p in processes) >= 3


@pytest.mark.parametrize(
    ("sig", "code"),
    [(signal.SIGINT, 130), (signal.SIGKILL, -signal.SIGKILL)],
    ids=["sigint", "sigkill"],
)
def test_a_signalled_refine_stops_its_server_and_workers_and_reruns_like_a_clean_run(
    sig: int, code: int, validation: Path, clean_refine: str, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    proc = start(refine_args(validation, tmp_path / "out"), tmp_path, state)
    deadline = time.monotonic() + 300
    while not all(server_and_workers(proc.pid)):  # the flow is proving in its fork workers
        assert proc.poll() is None, f"the refine ended before its workers started: {finish(proc)}"
        assert time.monotonic() < deadline, "no server and workers after 300 s"
        time.sleep(0.05)
    returncode, err, seconds = interrupt(proc, sig)

    assert returncode == code, err
    if sig == signal.SIGINT:
        assert err == "refinery: interrupted\n"
        assert seconds < 3.0, f"Ctrl-C took {seconds:.1f} s"
    assert session_gone(proc.pid, within=float(BUDGET) + 5) == []  # server and workers too
    assert not (tmp_path / "out").exists()  # the run folder is only ever renamed in complete

    # the flow again after Ctrl-C (the server must take new runs); in-process after the kill
    rerun = [] if sig == signal.SIGINT else ["--no-prefect"]
    again = start(refine_args(validation, tmp_path / "out", *rerun), tmp_path, state)
    _, err = finish(again)
    assert again.returncode == 0, err
    assert refined_split(tmp_path / "out") == clean_refine


def test_a_refine_whose_prefect_server_dies_says_so_in_one_line(
    validation: Path, tmp_path: Path
) -> None:
    # the run's own temporary server killed while the flow proves (an OOM killer, a stray kill)
    proc = start(refine_args(validation, tmp_path / "out"), tmp_path, tmp_path / "state")
    deadline = time.monotonic() + 300
    while not all(server_and_workers(proc.pid)):
        assert proc.poll() is None, f"the refine ended before its workers started: {finish(proc)}"
        assert time.monotonic() < deadline, "no server and workers after 300 s"
        time.sleep(0.05)
    (server,) = [p for p in session_processes(proc.pid) if "uvicorn" in p]
    os.kill(int(server.split()[0]), signal.SIGKILL)
    _, err = finish(proc, timeout=300)

    assert proc.returncode == 2, err
    assert err.startswith("refinery: error: the Prefect API stopped answering during the run (")
    assert err.endswith(
        "); the run did not finish, and its folder and the review queue are as they were: run "
        "it again\n"
    )
    assert err.count("\n") == 1  # no traceback, no Prefect log line
    assert session_gone(proc.pid, within=float(BUDGET) + 5) == []
    assert not (tmp_path / "out").exists() and not (tmp_path / "review").exists()


#: A run whose story fails in one fork worker while others still prove, then a slow clean-up.
_FAILING_STORY = """
import time
from refinery import lifeline
from refinery.parallel import run_stories

def work(batch):
    if batch == [0]:
        raise ValueError("story 0 is bad")
    time.sleep(3)
    return batch

if __name__ == "__main__":
    try:
        with lifeline.signals_raise():
            try:
                for _ in run_stories([0, 1, 2, 3], work, workers=4):
                    pass
            finally:
                time.sleep(1.2)  # e.g. stopping a server: longer than the relay's repeat
    except BaseException as exc:
        print(type(exc).__name__, exc, lifeline.stopping)
"""


def test_stopping_the_workers_of_a_failed_run_is_not_a_signal_to_the_run(tmp_path: Path) -> None:
    """The workers are stopped with SIGTERM; their handlers must not wake the parent's relay
    (an inherited wakeup fd did: the run then ended "terminated", exit 143, its error lost)."""
    script = tmp_path / "failing_story.py"
    script.write_text(_FAILING_STORY, "utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert proc.stdout.strip() == "ValueError story 0 is bad 0", proc.stdout + proc.stderr


#: A run whose workers are stopped while they are still starting: each one's fork hooks (Prefect
#: registers some) are running when its SIGTERM comes, and the handler it inherited raises, as
#: the SIGTERM handler of Prefect's flow engine does.
_STOPPED_WHILE_STARTING = """
import os, signal, time
from concurrent.futures.process import BrokenProcessPool
from refinery.parallel import run_stories

class Stop(Exception):
    pass

def raise_stop(signum, frame):
    raise Stop

def hook():
    os.kill(os.getpid(), signal.SIGTERM)  # the run's _stop, while the worker is being forked
    time.sleep(0.2)

def work(batch):
    return batch

if __name__ == "__main__":
    os.register_at_fork(after_in_child=hook)
    signal.signal(signal.SIGTERM, raise_stop)
    try:
        print(sorted(run_stories([0, 1, 2, 3], work, workers=2)))
    except BrokenProcessPool:
        print("workers stopped")
"""


def test_a_worker_stopped_while_it_starts_stops_quietly(tmp_path: Path) -> None:
    """A worker's signals are held from the fork until its own handlers are set. Before, the
    handler it inherited ran inside its fork hooks: the SIGTERM was lost (the worker went on
    working) and "Exception ignored in …" reached the run's stderr (seen after Ctrl-C in a
    refine under Prefect, whose flow engine handles SIGTERM, while a pool was starting)."""
    script = tmp_path / "stopped_while_starting.py"
    script.write_text(_STOPPED_WHILE_STARTING, "utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert proc.stdout.strip() == "workers stopped", proc.stdout + proc.stderr
    assert proc.stderr == ""
