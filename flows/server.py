"""The temporary Prefect API server of one run, started so that it ends with the run.

Without `PREFECT_API_URL` Prefect starts a temporary server of its own, but in the caller's
process group and tied to nothing: a terminal's Ctrl-C reaches it before the flow can record
the interruption (the flow then retries against a dead server for minutes), and a `kill -9` of
the run leaves it running for good. `temporary_api` starts the same application (Prefect's
`create_app` under uvicorn, as Prefect's own temporary server does) in its own process group,
asks the kernel to stop it when the run's process dies, and stops it when the run ends.

Starting it costs no Prefect import here: the server boots while the caller imports the flow.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from refinery import lifeline
from refinery.errors import ConfigError

_START_ATTEMPTS = 3  # a port taken between our probe and uvicorn's bind: try another


class TemporaryServer:
    """One uvicorn process serving Prefect's API on 127.0.0.1, for one run."""

    def __init__(self) -> None:
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def start(self) -> None:
        """Start the process (no waiting: see `ready`)."""
        self.port = _free_port()
        env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
        # what Prefect's own temporary server runs with: no UI, marked as temporary
        env |= {"PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1"}
        env |= {"PREFECT__SERVER_FINAL": "1"}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--app-dir",
                _site_packages(),
                "--factory",
                "prefect.server.api.server:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "error",
                "--lifespan",
                "on",
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            process_group=0,  # a terminal's Ctrl-C is for the run, which then stops us
            preexec_fn=_die_with_parent,  # once per run: the cost of a full fork is nothing here
        )
        os.environ["PREFECT_API_URL"] = self.api_url  # for a Prefect imported from here on

    def ready(self, timeout: float) -> None:
        """Wait until the API answers its health check; `ConfigError` if it never does."""
        deadline = time.monotonic() + timeout
        for attempt in range(_START_ATTEMPTS):
            if attempt:  # it exited: most likely its port was taken meanwhile
                self.start()
            assert self.process is not None
            while self.process.poll() is None and time.monotonic() < deadline:
                if _healthy(self.api_url):
                    return
                time.sleep(0.1)
            if self.process.poll() is None:  # still starting at the deadline
                self.stop()
                raise ConfigError(
                    f"the temporary Prefect server did not start within {timeout:.0f} s "
                    "(PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS); or set PREFECT_API_URL"
                )
        code = self.process.poll() if self.process else None
        self.stop()
        raise ConfigError(
            f"the temporary Prefect server exited (code {code}) {_START_ATTEMPTS} times; its "
            "messages are above. Set PREFECT_API_URL to use a server that runs"
        )

    def stop(self) -> None:
        """Stop the server (politely, then not); safe to call twice."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _die_with_parent() -> None:
    lifeline.die_with_parent(signal.SIGTERM)


def _site_packages() -> str:
    """Where `prefect` is installed, found without importing it."""
    spec = importlib.util.find_spec("prefect")
    if spec is None or spec.origin is None:
        raise ConfigError("prefect is not installed: run `make run` once to set up .venv")
    return str(Path(spec.origin).parent.parent)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(api_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=1.0) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def temporary_api() -> Iterator[TemporaryServer | None]:
    """A started `TemporaryServer` named in `PREFECT_API_URL` for the block, then stopped.

    Yields None (and starts nothing) when `PREFECT_API_URL` already names a server. The caller
    enters `api_settings(server)` once it has imported Prefect, before the flow runs.
    """
    if os.environ.get("PREFECT_API_URL"):
        yield None
        return
    server = TemporaryServer()
    server.start()
    try:
        yield server
    finally:
        os.environ.pop("PREFECT_API_URL", None)
        server.stop()


@contextmanager
def api_settings(server: TemporaryServer | None) -> Iterator[None]:
    """Wait for `server`, then point Prefect's settings at it (they may predate the server)."""
    if server is None:
        yield
        return
    from prefect.settings import PREFECT_API_URL, temporary_settings

    timeout = float(os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120"))
    server.ready(timeout)
    with temporary_settings({PREFECT_API_URL: server.api_url}):
        yield
