"""The temporary Prefect API server of one run, started so that it ends with the run.

Without `PREFECT_API_URL` Prefect starts a temporary server of its own, but in the caller's
process group and tied to nothing: a terminal's Ctrl-C reaches it before the flow can record
the interruption (the flow then retries against a dead server for minutes), and a `kill -9` of
the run leaves it running for good. `temporary_api` starts the same application (Prefect's
`create_app` under uvicorn, as Prefect's own temporary server does) in its own process group,
asks the kernel to stop it when the run's process dies, and stops it when the run ends.

A server that Prefect's settings already name (`PREFECT_API_URL` in the environment or the active
profile, a test harness) is used as it is: nothing is started then.
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

_DRAIN_SECONDS = 10.0  # for Prefect's log and event workers before the server stops
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
        os.environ["PREFECT_API_URL"] = self.api_url  # for the processes the run starts

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
    return _health(api_url) is None


def _health(api_url: str, timeout: float = 1.0) -> str | None:
    """Why the API at `api_url` is not healthy (None: it answered its health check)."""
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=timeout) as resp:
            return None if resp.status == 200 else f"its health check answered {resp.status}"
    except urllib.error.HTTPError as err:
        return f"its health check answered {err.code}"
    except urllib.error.URLError as err:
        if isinstance(err.reason, TimeoutError):
            return f"no answer within {timeout:.0f} s"
        return str(getattr(err.reason, "strerror", None) or err.reason)
    except TimeoutError:
        return f"no answer within {timeout:.0f} s"
    except OSError as err:
        return err.strerror or str(err)


#: How long a server Prefect's settings name has to answer its health check before a run starts.
NAMED_SERVER_SECONDS = 10.0


def check_named_server(api_url: str, deadline: float = NAMED_SERVER_SECONDS) -> None:
    """`ConfigError`, in one line, when the server `PREFECT_API_URL` names does not answer
    within `deadline` seconds: a run against it would wait minutes, then fail."""
    until = time.monotonic() + deadline
    while True:
        left = until - time.monotonic()
        why = _health(api_url.rstrip("/"), timeout=max(left, 0.5))
        if why is None:
            return
        if time.monotonic() >= until:
            raise ConfigError(
                f"PREFECT_API_URL {api_url} does not answer ({why}): start that Prefect server, "
                "or unset PREFECT_API_URL to run on a temporary one"
            )
        time.sleep(0.5)


def _drain() -> None:
    """Let Prefect's background log and event workers send what they hold while the server
    still answers, or they go on retrying against a stopped one (a hang at exit)."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all(timeout=_DRAIN_SECONDS)
    EventsWorker.drain_all(timeout=_DRAIN_SECONDS)


@contextmanager
def temporary_api() -> Iterator[None]:
    """Prefect pointed at a server for the block: the one its settings name (`PREFECT_API_URL`
    in the environment or a profile, a test harness), else a `TemporaryServer` started here,
    named in `PREFECT_API_URL` for the block (so worker processes inherit it) and stopped after.
    """
    from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings

    named = get_current_settings().api.url
    if named:
        check_named_server(named)
        yield
        return
    server = TemporaryServer()
    server.start()
    try:
        timeout = float(os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120"))
        server.ready(timeout)
        with temporary_settings({PREFECT_API_URL: server.api_url}):
            try:
                yield
            finally:
                if not lifeline.stopping:  # an interrupted run stops at once
                    _drain()
    finally:
        os.environ.pop("PREFECT_API_URL", None)
        server.stop()
