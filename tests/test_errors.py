"""The error hierarchy: every exception the project defines derives from `RefineryError`."""

from __future__ import annotations

import importlib
import inspect
import pickle
from pathlib import Path

import pytest

from refinery.errors import LLMTransportError, RefineryError

REPO = Path(__file__).resolve().parent.parent


def _project_exceptions() -> list[type[BaseException]]:
    found = []
    for package in ("refinery", "vampire"):
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            module = importlib.import_module(".".join(p for p in parts if p != "__init__"))
            found += [
                cls
                for _, cls in inspect.getmembers(module, inspect.isclass)
                # warnings are said, not raised: they keep Python's Warning hierarchy; a signal
                # turned into an exception unwinds like Ctrl-C, so it is a KeyboardInterrupt
                if issubclass(cls, BaseException)
                and not issubclass(cls, (Warning, KeyboardInterrupt))
                and cls.__module__ == module.__name__
            ]
    return found


def test_every_project_exception_is_a_refinery_error() -> None:
    found = _project_exceptions()
    assert len(found) >= 10  # measured: 13 when this test was written
    assert [c.__qualname__ for c in found if not issubclass(c, RefineryError)] == []


def test_transport_errors_retry_and_survive_a_worker_process() -> None:
    from refinery.agents.embedded import EmbeddedServerError
    from refinery.pipeline import retry_on_llm_transport

    class State:
        def __init__(self, exc: BaseException) -> None:
            self.exc = exc

        def result(self) -> None:
            raise self.exc

    assert issubclass(EmbeddedServerError, LLMTransportError)
    assert retry_on_llm_transport(None, None, State(LLMTransportError("timeout")))
    assert retry_on_llm_transport(None, None, State(EmbeddedServerError("died")))
    assert not retry_on_llm_transport(None, None, State(ValueError("bad data")))
    assert not retry_on_llm_transport(None, None, State(RefineryError("misconfigured")))
    # a process pool sends exceptions back pickled
    again = pickle.loads(pickle.dumps(LLMTransportError("transport: HTTP 503")))
    assert isinstance(again, LLMTransportError) and str(again) == "transport: HTTP 503"


@pytest.mark.parametrize("builtin", [ValueError, ConnectionError])
def test_errors_are_also_the_builtin_they_refine(builtin: type[Exception]) -> None:
    from refinery.datasets.proofwriter import ProofWriterError

    cls = {ValueError: ProofWriterError, ConnectionError: LLMTransportError}[builtin]
    assert issubclass(cls, builtin) and issubclass(cls, RefineryError)
