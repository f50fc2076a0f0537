"""Running the installed `refinery` command as users run it: a subprocess of the entry point."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REFINERY = Path(sys.executable).parent / "refinery"


def run(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 600,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """`refinery ARGS` in `cwd`, with `env` over this process's environment and `input` on its
    standard input (none: this process's); text output."""
    return subprocess.run(
        [str(REFINERY), *args],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
