"""`refinery review work` in a real terminal (tmux), killed mid-session, and `apply` afterwards.

The session runs the real command (real Z3 and E for the live feedback) against a copy of the
sample run's queue. tmux drives it with send-keys and reads the screen with capture-pane, so the
single-key prompts, the pre-filled edit line, the caret under a syntax error, the label-change
confirmation and the saved messages are what an annotator sees. The session itself is the one
the browser test plays (`review_workflow`).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from refinery.cli import main
from refinery.review.sheet import read_queue

from review_workflow import (
    ID_203,
    ID_301,
    ID_1201,
    NOTE_203,
    NOTE_1201,
    PREMISE_3,
    TYPO_3,
    WHY_203,
    assert_applied_exactly,
    assert_decided,
    copy_sample,
)

REFINERY = Path(sys.executable).with_name("refinery")


@pytest.fixture
def workspace(sample_run: Path, tmp_path: Path) -> tuple[Path, Path]:
    return copy_sample(sample_run, tmp_path)


def _env() -> dict[str, str]:
    return {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONUNBUFFERED": "1"}


class Tmux:
    """One detached tmux session on a private server socket."""

    def __init__(self, name: str) -> None:
        self.base = ["tmux", "-u", "-L", name, "-f", "/dev/null"]

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            [*self.base, *args], capture_output=True, text=True, env=_env(), check=True
        )
        return done.stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-J", "-S", "-5000", "-t", "work")

    def wait_for(self, text: str, timeout: float = 60.0, after: int = 0) -> str:
        """Wait until `text` is on the screen more than `after` times; return the screen."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if screen.count(text) > after:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def key(self, *keys: str) -> None:
        """Press keys: single characters literally, or tmux key names (C-u, BSpace, End)."""
        for key in keys:
            self("send-keys", "-t", "work", *(["-l", key] if len(key) == 1 else [key]))

    def type(self, text: str) -> None:
        """Type a line and press Enter."""
        self("send-keys", "-t", "work", "-l", text)
        self("send-keys", "-t", "work", "Enter")


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (make test installs it with apt-get where it can)")
    session = Tmux(f"refinery-test-{os.getpid()}-{tmp_path.name}")
    yield session
    subprocess.run([*session.base, "kill-server"], capture_output=True, env=_env())


def test_work_in_a_terminal_then_apply(tmux: Tmux, workspace: tuple[Path, Path]) -> None:
    run, queue = workspace
    command = (
        f"{REFINERY} review work --queue {queue} --reviewer alice --provers z3,eprover; "
        "echo SESSION-ENDED; sleep 600"
    )
    tmux("new-session", "-d", "-s", "work", "-x", "220", "-y", "60", command)

    # 203: one key accepts; the label change must be confirmed and explained
    tmux.wait_for(f"item 1/4 · {ID_203}")
    # the evidence under the labels: the premises that prove the provers' label, False
    tmux.wait_for(f"why: {WHY_203}")
    tmux.key("a")  # no Enter: single-key commands
    tmux.wait_for("label change True → False: confirm? [y/N]>")
    tmux.key("y")
    assert "needed: the label changes True → False: add a note saying why" in tmux.wait_for(
        "note (why)>"
    )
    tmux.type(NOTE_203)
    tmux.wait_for(f"saved: {ID_203} accept_proposal")

    # 301: the draft starts from the original; "p" takes the proposal in, and the edit line
    # comes pre-filled
    tmux.wait_for(f"item 2/4 · {ID_301}")
    tmux.key("p")
    tmux.wait_for("the draft is now the proposal; e edits it, w saves it.")
    tmux.key("e")
    tmux.wait_for("line to edit (0-")
    tmux.type("2")  # premises[2], as the evidence names it
    tmux.wait_for(f"new FOL> {PREMISE_3}")
    tmux.key("BSpace", "Enter")  # a typo made in the pre-filled line: its last ")" deleted
    screen = tmux.wait_for("rejected: premises[2] unchanged.")
    lines = screen.splitlines()
    formula = max(i for i, line in enumerate(lines) if line.strip() == TYPO_3)
    assert "unbalanced parentheses" in lines[formula - 1]
    assert lines[formula + 1].strip() == "^"  # the caret, under the end of the formula
    tmux.key("e")
    tmux.type("premises[2]")
    # the draft kept the proposal's line (the typo line above lost its ")", so this is new)
    tmux.wait_for(f"new FOL> {PREMISE_3}")
    # fix it in place: to the start, two words right, delete ", x"
    tmux.key("C-a", "M-f", "M-f", "C-d", "C-d", "C-d", "Enter")
    screen = tmux.wait_for("premises[2] updated in the draft")
    assert "provers: True (eprover=True, z3=True; agreed)" in screen
    assert "why: proves the conclusion: premises[" in screen  # recomputed for the edit
    tmux.key("w")
    tmux.wait_for(f"saved: {ID_301} edit")

    # 1201: why the provers say Uncertain, the countermodel as a table under its line; then
    # relabel, confirm True → Uncertain, say why
    tmux.wait_for(f"item 3/4 · {ID_1201}")
    screen = tmux.wait_for("why: the conclusion can fail — all premises hold")
    assert re.search(r"^ +centralAviary$", screen, re.M), screen
    assert re.search(r"^ +Bird +✓$", screen, re.M), screen
    tmux.key("l")
    tmux.wait_for("label: [t]rue [f]alse [u]ncertain>")
    tmux.key("u")
    tmux.wait_for("label set to Uncertain")
    tmux.key("w")
    tmux.wait_for("label change True → Uncertain: confirm? [y/N]>")
    tmux.key("y")
    tmux.wait_for("note (why)>", after=1)
    tmux.type(NOTE_1201)
    tmux.wait_for(f"saved: {ID_1201} relabel")

    # 1301: a draft note, then quit: asked first, and "n" stays on the item
    tmux.wait_for("item 4/4 · folio-sample/all/1301")
    tmux.key("n")
    tmux.type("not sure yet")
    tmux.wait_for("note set in the draft.")
    tmux.key("q")
    tmux.wait_for("the draft is not saved; leave it? [y/N]>")
    tmux.key("n")
    tmux.key("q")
    tmux.wait_for("the draft is not saved; leave it? [y/N]>", after=1)
    tmux.key("y")
    tmux.wait_for("SESSION-ENDED")
    assert "3 decision(s) saved" in tmux.screen()

    assert_decided(queue, "alice")
    assert_applied_exactly(run, queue, "alice")


def test_a_killed_session_keeps_every_finished_decision(workspace: tuple[Path, Path]) -> None:
    _, queue = workspace
    original = queue.read_bytes()
    proc = subprocess.Popen(
        [str(REFINERY), "review", "work", "--queue", str(queue), "--reviewer", "bob"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=_env(),
        text=True,
    )
    assert proc.stdin is not None

    def decided() -> dict[str, str]:
        return {r.id: r.decision for r in read_queue(queue) if r.decision}

    def wait_until(count: int) -> None:
        deadline = time.monotonic() + 60
        while len(decided()) < count:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the decision never reached the file"
            time.sleep(0.05)

    try:
        # 203: accept, confirm the label change, say why (one answer per line from a pipe)
        proc.stdin.write(f"a\ny\n{NOTE_203}\n")
        proc.stdin.flush()
        wait_until(1)
        proc.stdin.write("s\n")  # 301: skip (a decision too)
        proc.stdin.flush()
        wait_until(2)
        proc.stdin.write("e\n1\n")  # 1201: half-way through an edit ...
        proc.stdin.flush()
        time.sleep(0.5)
        proc.send_signal(signal.SIGKILL)  # ... and the process dies
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert decided() == {
        "folio-sample/all/203": "accept_proposal",
        "folio-sample/all/301": "skip",
    }
    rows = read_queue(queue)
    assert len(rows) == 4 and {r.reviewer for r in rows if r.decision} == {"bob"}
    data = queue.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.endswith(b"\r\n") and data != original
    assert [p.name for p in queue.parent.iterdir() if p.name.startswith(".")] == []  # no temp file


def test_apply_refuses_with_every_bad_row_and_writes_nothing(
    workspace: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from refinery.review.record import save_decision

    run, queue = workspace
    save_decision(queue, "folio-sample/all/203", {"decision": "accept_proposal"})
    save_decision(queue, "folio-sample/all/1201", {"decision": "relabel", "final_label": "Maybe"})
    save_decision(queue, "folio-sample/all/1301", {"decision": "keep_original"})
    assert main(["review", "apply", "--queue", str(queue), "--run", str(run)]) == 2
    err = capsys.readouterr().err
    assert "3 problem(s)" in err and "nothing applied" in err
    assert (
        "folio-sample/all/203: accept_proposal changes the label True → False: confirm it by "
        "writing False in final_label, and add a note saying why" in err
    )
    assert "folio-sample/all/1201: final_label 'Maybe' is not one of True, False, Uncertain" in err
    assert "folio-sample/all/1301: final label True contradicts the provers" in err
    assert [p.name for p in run.parent.iterdir()] == [run.name]


def test_review_commands_import_neither_prefect_nor_great_expectations(
    workspace: tuple[Path, Path],
) -> None:
    _, queue = workspace
    probe = (
        "import sys\n"
        "from refinery.cli import main\n"
        f"main(['review', 'status', '--queue', {str(queue)!r}])\n"
        "main(['review', 'check', '--queue', " + repr(str(queue)) + "])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'prefect', 'great_expectations', 'pandas', 'datasets', 'fastapi', 'uvicorn'})\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=_env(), check=True
    )
    assert "4 items, 0 decided, 4 left" in done.stdout
    assert "HEAVY []" in done.stdout
