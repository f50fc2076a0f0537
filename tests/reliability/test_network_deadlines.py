"""No network call waits for ever: a Prefect API or a Hub endpoint that takes the connection and
never answers, or a port where nothing listens, ends in one line within a deadline."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import commands
import pytest

from refinery import publish
from refinery.errors import ConfigError, RefineryError
from refinery.runs import load_run

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "raw" / "sample" / "folio_sample.jsonl"


@pytest.fixture
def silent() -> Iterator[str]:
    """A server that takes every connection (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def dead_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"  # closed again: nothing listens


def test_a_named_prefect_api_that_never_answers_is_refused_within_its_deadline(
    silent: str,
) -> None:
    from flows.server import check_named_server

    started = time.monotonic()
    with pytest.raises(ConfigError) as err:
        check_named_server(f"{silent}/api", deadline=2)
    assert time.monotonic() - started < 10
    assert str(err.value) == (
        f"PREFECT_API_URL {silent}/api does not answer (no answer within 2 s): start that "
        "Prefect server, or unset PREFECT_API_URL to run on a temporary one"
    )


def test_refine_against_a_dead_prefect_api_is_one_line_and_exit_2(tmp_path: Path) -> None:
    api = f"{dead_port()}/api"
    done = commands.run(
        "refine",
        str(SAMPLE),
        "--agents",
        "rules",
        "--quiet",
        cwd=tmp_path,
        env={"PREFECT_API_URL": api, "REFINERY_STATE_DIR": str(tmp_path / "state")},
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"refinery: error: PREFECT_API_URL {api} does not answer (Connection refused): start "
        "that Prefect server, or unset PREFECT_API_URL to run on a temporary one"
    )
    assert not (tmp_path / "data" / "refined").exists() and not (tmp_path / "review").exists()


def test_a_push_to_a_hub_that_never_answers_fails_within_the_deadline(
    sample_run: Path, tmp_path: Path, silent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import HfApi

    monkeypatch.setattr(publish.hub, "HUB_SECONDS", 1.0)
    out = tmp_path / "pub"
    publish.build(load_run(sample_run), out, repo_id="fol-refinery/sample")
    publish.hub.bounded_hub()
    api = HfApi(endpoint=silent, token="hf_not_a_token")
    started = time.monotonic()
    with pytest.raises(RefineryError, match="failed while creating the repository: .*Timeout"):
        publish.push(api, publish.plan_push(out))
    assert time.monotonic() - started < 30  # the client retries a few times, each bounded


def test_an_api_lost_after_the_run_is_in_place_is_a_warning_not_a_failure(
    sample_run: Path, tmp_path: Path
) -> None:
    import httpx

    from refinery.cli.refine import APILostAfterRun, _refuse_api_loss
    from refinery.pipeline import RefineSettings

    lost = RuntimeError("task failed")
    lost.__cause__ = httpx.ConnectError("[Errno 111] Connection refused")
    complete = RefineSettings(source=str(SAMPLE), out_dir=str(sample_run))
    with pytest.raises(APILostAfterRun, match=f"the run is complete in {sample_run}, but Prefect"):
        _refuse_api_loss(lost, complete)
    unfinished = RefineSettings(source=str(SAMPLE), out_dir=str(tmp_path / "never"))
    with pytest.raises(RefineryError, match="the run did not finish") as err:
        _refuse_api_loss(lost, unfinished)
    assert not isinstance(err.value, APILostAfterRun)
    _refuse_api_loss(RuntimeError("a crash, not the API"), unfinished)  # not ours to reword
