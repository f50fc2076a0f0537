"""Shell completion: the script `refinery completion bash` prints, sourced in a real bash.

The completion function is called as bash calls it on Tab (COMP_WORDS, COMP_CWORD), so this
covers the script, the `_REFINERY_COMPLETE` protocol in `refinery.cli.main` and the completers
of the comma-separated options.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from commands import REFINERY, run

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="no bash on this machine")


def complete(words: list[str], cwd: Path) -> list[str]:
    """What Tab offers after `words` (the last one is the word being completed)."""
    script = run("completion", "bash", cwd=cwd).stdout
    assert "_refinery_completion" in script
    line = (
        f"{script}\n"
        f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); "
        f"COMP_CWORD={len(words) - 1}; _refinery_completion refinery; "
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    assert BASH is not None
    proc = subprocess.run(
        [BASH, "--norc", "-c", line],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PATH": f"{REFINERY.parent}{os.pathsep}{os.environ['PATH']}"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return [w for w in proc.stdout.splitlines() if w]


def test_tab_completes_commands_options_and_their_values(tmp_path: Path) -> None:
    assert complete(["refinery", "re"], tmp_path) == ["refine", "review", "rescore"]
    assert complete(["refinery", "review", "ag"], tmp_path) == ["agreement"]
    options = complete(["refinery", "check", "--no-"], tmp_path)
    assert options == ["--no-cache", "--no-evidence"]
    # comma-separated values complete their last name, keeping what is typed
    assert complete(["refinery", "check", "--provers", "z3,e"], tmp_path) == ["z3,eprover"]
    assert "z3,tptp" in complete(["refinery", "check", "--provers", "z3,"], tmp_path)
    assert "z3,z3" not in complete(["refinery", "check", "--provers", "z3,"], tmp_path)
    assert complete(["refinery", "check", "--fail-on", "parse_error,label_m"], tmp_path) == [
        "parse_error,label_mismatch"
    ]
    assert complete(["refinery", "completion", ""], tmp_path) == ["bash", "zsh", "fish"]


def test_paths_are_left_to_the_shell_s_own_file_completion(tmp_path: Path) -> None:
    """For a path the script hands over to bash (`compopt -o default`), which lists files."""
    for words in ("refinery check folio_", "refinery refine --review q", "refinery lint f"):
        proc = run(
            cwd=tmp_path,
            env={
                "_REFINERY_COMPLETE": "bash_complete",
                "COMP_WORDS": words,
                "COMP_CWORD": str(len(words.split()) - 1),
            },
        )
        assert proc.returncode == 0
        assert proc.stdout.split() == [f"file,{words.split()[-1]}"], words


def test_every_shell_gets_a_script_and_an_unknown_one_is_a_usage_error(tmp_path: Path) -> None:
    for shell in ("bash", "zsh", "fish"):
        proc = run("completion", shell, cwd=tmp_path)
        assert proc.returncode == 0 and "_REFINERY_COMPLETE" in proc.stdout, shell
    proc = run("completion", "tcsh", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "refinery completion: error: Invalid value for '{bash|zsh|fish}': 'tcsh' is not one of "
        "'bash', 'zsh', 'fish'."
    ]
