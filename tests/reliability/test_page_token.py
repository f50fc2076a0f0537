"""The review page makes a token unless told not to: any user of the machine can reach
127.0.0.1, and without one would decide items in the server owner's name."""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from refinery.review.queue import queue_rows
from refinery.review.sheet import write_queue

from fakes import queue_outcome

REFINERY = Path(sys.executable).parent / "refinery"


def _serve(queue: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [str(REFINERY), "review", "serve", "--queue", str(queue), "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert " at http://" in line, line
    return proc, line.split(" at ", 1)[1].split()[0]


def _status(url: str) -> int:
    """What a browser gets: it follows the redirect that trades the token for a cookie."""
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    try:
        with browser.open(url, timeout=30) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return err.code


def test_serve_makes_a_token_by_default_and_refuses_requests_without_it(tmp_path: Path) -> None:
    queue = tmp_path / "queue.csv"
    write_queue(queue, queue_rows([queue_outcome(1)]))
    proc, url = _serve(queue)
    try:
        base, _, query = url.partition("?")
        assert query.startswith("token=") and len(query) > len("token=") + 16
        assert _status(base) == 401  # another local user, without the printed address
        assert _status(url) == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    proc, url = _serve(queue, "--no-token")  # asked for: open to this machine's users
    try:
        assert "?" not in url and _status(url) == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)
