"""`refinery review work` in a real terminal (tmux), killed mid-session, and `apply` afterwards.

The session runs the real command (real Z3 and E for the live feedback) against a copy of the
sample run's queue. tmux drives it with send-keys and reads the screen with capture-pane, so the
prompts, the caret under a syntax error and the saved messages are what an annotator sees.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from refinery.cli import main
from refinery.review.queue import read_queue
from refinery.runs import load_run, run_folders

REFINERY = Path(sys.executable).with_name("refinery")
TYPO = "∀x (Train(x) ∧ Delayed(x) → MissConnection(passengers)"  # the missing ")" again
FIXED_1 = "∀x (Train(x) ∧ Delayed(x) → MissConnection(passengers))"
FIXED_3 = "MissConnection(passengers) → Compensated(passengers)"
NOTE = "No bird here flies, so nothing settles kiwi: Uncertain ∀∃¬."


@pytest.fixture
def workspace(sample_run: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the sample run (in its dataset/split folder) and of its review queue."""
    run = tmp_path / "refined" / "folio-sample" / "all" / sample_run.name
    shutil.copytree(sample_run, run)
    queue = tmp_path / "queue.csv"
    shutil.copy(sample_run.parent.parent.parent / "review.csv", queue)
    return run, queue


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

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def type(self, text: str) -> None:
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

    tmux.wait_for("item 1/4 · folio-sample/all/203")
    # the evidence under the labels: the premises that prove the provers' label, False
    tmux.wait_for("why: proves its negation: premises[0], premises[1], premises[2] (eprover, z3)")
    tmux.type("a")  # accept: the suggested label False
    tmux.wait_for("saved: folio-sample/all/203 accept_proposal")

    tmux.wait_for("item 2/4 · folio-sample/all/301")
    tmux.type("e")
    tmux.wait_for("line to edit")
    tmux.type("1")
    tmux.wait_for("new FOL>")
    tmux.type(TYPO)
    screen = tmux.wait_for("rejected: line 1 unchanged.")
    lines = screen.splitlines()
    formula = next(i for i, line in enumerate(lines) if line.strip() == TYPO)
    assert "unbalanced parentheses" in lines[formula - 1]
    assert lines[formula + 1].strip() == "^"  # the caret, under the end of the formula
    for key in ("e", "1", FIXED_1):  # keys typed ahead wait in the terminal for their prompt
        tmux.type(key)
    screen = tmux.wait_for("line 1 updated in the draft")
    assert "error: free_variable" in screen  # premise 3 still has the stray x: lint says so
    for key in ("e", "3", FIXED_3):
        tmux.type(key)
    tmux.wait_for("line 3 updated in the draft")
    assert "provers: True (eprover=True, z3=True; agreed)" in tmux.screen()
    assert "why: proves the conclusion: premises[" in tmux.screen()  # recomputed for the edit
    tmux.type("w")
    tmux.wait_for("saved: folio-sample/all/301 edit")

    tmux.wait_for("item 3/4 · folio-sample/all/901")
    tmux.type("l")
    tmux.type("uncertain")
    tmux.wait_for("label set to Uncertain")
    tmux.type("n")
    tmux.type(NOTE)
    tmux.wait_for("note set.")
    tmux.type("w")
    tmux.wait_for("saved: folio-sample/all/901 relabel")

    tmux.wait_for("item 4/4 · folio-sample/all/1101")
    tmux.type("q")
    tmux.wait_for("SESSION-ENDED")
    assert "3 decision(s) saved" in tmux.screen()

    rows = {r["id"]: r for r in read_queue(queue)}
    assert rows["folio-sample/all/203"]["decision"] == "accept_proposal"
    edit = rows["folio-sample/all/301"]
    assert edit["decision"] == "edit" and edit["reviewer"] == "alice"
    assert edit["final_fol"].split("\n") == [
        FIXED_1,
        "Train(the815) ∧ Delayed(the815)",
        FIXED_3,
        "Compensated(passengers)",
    ]
    relabel = rows["folio-sample/all/901"]
    assert (relabel["decision"], relabel["final_label"], relabel["note"]) == (
        "relabel",
        "Uncertain",
        NOTE,
    )
    assert all(r["decided_at"] for r in (edit, relabel))
    assert rows["folio-sample/all/1101"]["decision"] == ""

    # apply: a new version with exactly those three changes
    assert main(["review", "apply", "--queue", str(queue), "--run", str(run)]) == 0
    before = {r["id"]: r for r in load_run(run).refined_rows()}
    [_, new_dir] = run_folders(run.parent)
    new = load_run(new_dir)
    assert new.meta["kind"] == "review" and new.meta["parent"] == run.name
    after = {r["id"]: r for r in new.refined_rows()}
    assert list(after) == list(before)
    changed = {}
    for item_id, row in after.items():
        diff = {k for k in row if row[k] != before[item_id].get(k)} - {"run_id"}
        if diff:
            changed[item_id] = diff
    review_columns = {"status", "review_decision", "reviewer", "reviewed_at"}
    assert changed == {
        "folio-sample/all/203": {"label", *review_columns},
        "folio-sample/all/301": {"premises-FOL", "prover_label", *review_columns},
        "folio-sample/all/901": {"label", "review_note", *review_columns},
    }
    assert after["folio-sample/all/203"]["label"] == "False"
    assert after["folio-sample/all/203"]["original_label"] == "True"
    assert (
        after["folio-sample/all/301"]["premises-FOL"].split("\n")
        == edit["final_fol"].split("\n")[:-1]
    )
    assert after["folio-sample/all/901"]["label"] == "Uncertain"
    assert after["folio-sample/all/901"]["review_note"] == NOTE
    assert {after[i]["status"] for i in changed} == {"reviewed"}
    assert {after[i]["reviewer"] for i in changed} == {"alice"}
    assert after["folio-sample/all/1101"]["status"] == "needs_review"
    report = (new_dir / "report.md").read_text(encoding="utf-8")
    assert "## Review round (3 decisions)" in report
    assert "| folio-sample/all/901 | relabel | alice | True → Uncertain | 0 |" in report
    audit = {
        json.loads(line)["id"]: json.loads(line)
        for line in (new_dir / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    }
    assert [e["where"] for e in audit["folio-sample/all/301"]["edits"]] == [
        "premises[0]",
        "premises[2]",
    ]


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
        return {r["id"]: r["decision"] for r in read_queue(queue) if r["decision"]}

    def wait_until(count: int) -> None:
        deadline = time.monotonic() + 60
        while len(decided()) < count:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the decision never reached the file"
            time.sleep(0.05)

    try:
        proc.stdin.write("a\n")  # 203: accept
        proc.stdin.flush()
        wait_until(1)
        proc.stdin.write("s\n")  # 301: skip (a decision too)
        proc.stdin.flush()
        wait_until(2)
        proc.stdin.write("e\n1\n")  # 901: half-way through an edit ...
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
    assert len(rows) == 4 and {r["reviewer"] for r in rows if r["decision"]} == {"bob"}
    data = queue.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and data.endswith(b"\r\n") and data != original
    assert [p.name for p in queue.parent.iterdir() if p.name.startswith(".")] == []


def test_apply_refuses_with_every_bad_row_and_writes_nothing(
    workspace: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from refinery.review.queue import save_decision

    run, queue = workspace
    save_decision(queue, "folio-sample/all/203", {"decision": "accept_proposal"})
    save_decision(queue, "folio-sample/all/901", {"decision": "relabel", "final_label": "Maybe"})
    save_decision(queue, "folio-sample/all/1101", {"decision": "keep_original"})
    assert main(["review", "apply", "--queue", str(queue), "--run", str(run)]) == 2
    err = capsys.readouterr().err
    assert "2 problem(s)" in err and "nothing applied" in err
    assert "folio-sample/all/901: final_label 'Maybe' is not one of True, False, Uncertain" in err
    assert "folio-sample/all/1101: final label True contradicts the provers" in err
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
        "{'prefect', 'great_expectations', 'pandas', 'datasets'})\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=_env(), check=True
    )
    assert "4 items, 0 decided, 4 left" in done.stdout
    assert "HEAVY []" in done.stdout
