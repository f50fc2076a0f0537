"""Shared pytest fixtures and options.

`--update-golden` rewrites the golden files under tests/golden/ instead of comparing with them.
`sample_run` is a real run folder of the shipped sample; `prefect_harness` is Prefect's test
harness (a temporary API and database), started once per session. `vampire_path` is a real
Vampire binary ($VAMPIRE_PATH, else ../shared/bin/vampire); tests that need it skip, saying
so, when there is none.
`shared_data` is the ../shared/data folder of public datasets; tests that need it skip with a
clear message when it is absent (e.g. in a bare clone).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
# read once, at collection: some tests clear VAMPIRE_PATH to control which binary is found
VAMPIRE = Path(os.environ.get("VAMPIRE_PATH") or REPO.parent / "shared" / "bin" / "vampire")
# The suite's flow runs never reach a user's Prefect: not the server `prefect server start`
# serves from the project's PREFECT_HOME (which `make` exports), nor one PREFECT_API_URL names.
_PREFECT_HOME = tempfile.mkdtemp(prefix="refinery-tests-prefect-")
os.environ["PREFECT_HOME"] = _PREFECT_HOME
os.environ.pop("PREFECT_API_URL", None)
atexit.register(shutil.rmtree, _PREFECT_HOME, True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/ files from the current output instead of comparing",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def _shared_data_dir() -> Path:
    env = os.environ.get("REFINERY_SHARED_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The public datasets folder (../shared/data); skips the test when it is absent."""
    path = _shared_data_dir()
    if not path.is_dir():
        pytest.skip(
            f"public datasets not found at {path} (set REFINERY_SHARED_DATA to point at them)"
        )
    return path


@pytest.fixture(scope="session")
def slice_of_proofwriter(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 30 theories of ProofWriter's meta-test, with one malformed row among them (the
    eighth line); skips the test when meta-test is absent."""
    source = shared_data / "proofwriter" / "meta-test.jsonl"
    if not source.is_file():
        pytest.skip(f"ProofWriter meta-test not found at {source}")
    lines = source.read_text(encoding="utf-8").splitlines()[:30]
    lines.insert(7, '{"id": "broken"')
    path = tmp_path_factory.mktemp("pw") / "meta-test.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _isolated_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keep caches written by tests out of the working tree's .state/ folder."""
    monkeypatch.setenv("REFINERY_STATE_DIR", str(tmp_path_factory.getbasetemp() / "state"))


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Nothing reaches the network or the user's Hugging Face cache; returns a cache dir."""
    import datasets

    home = tmp_path / "hf-home"
    for name, value in (("HF_DATASETS_OFFLINE", "1"), ("HF_HUB_OFFLINE", "1")):
        monkeypatch.setenv(name, value)
        monkeypatch.setattr(datasets.config, name, True, raising=False)
    monkeypatch.setenv("HF_HOME", str(home))
    return tmp_path / "hf-cache"


@pytest.fixture(scope="session")
def sample_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run folder of the shipped sample (rules only), built once per session.

    Read-only: a test that changes it copies it first (`shutil.copytree`). Its review queue is
    three folders up: `<base>/review.csv` beside `<base>/folio-sample/all/<run_id>`.
    """
    from runs import make_run

    base = tmp_path_factory.mktemp("sample-run")
    out = base / "folio-sample" / "all" / "20260101-000000"
    make_run(out, review_path=base / "review.csv", state_dir=base / "state", run_id=out.name)
    return out


@pytest.fixture(scope="session")
def prefect_harness() -> Iterator[None]:
    """Prefect's test harness, with the product's Prefect environment (no telemetry)."""
    from refinery.config import prefect_environment

    prefect_environment()  # also creates PREFECT_HOME: the temporary server needs it
    from prefect.testing.utilities import prefect_test_harness

    # a fresh PREFECT_HOME registers blocks and migrates on the first start: slow on two cores,
    # so the harness waits as long as the product does (refinery.config.prefect_environment)
    with prefect_test_harness(server_startup_timeout=None):
        yield


@pytest.fixture(scope="session")
def vampire_path() -> str:
    """A real Vampire binary; skips the test when there is none."""
    if not (VAMPIRE.is_file() and os.access(VAMPIRE, os.X_OK)):
        pytest.skip(f"Vampire not found at {VAMPIRE} (set VAMPIRE_PATH to a Vampire binary)")
    return str(VAMPIRE)
