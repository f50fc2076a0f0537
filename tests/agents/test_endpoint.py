"""Which endpoint the llm agent talks to: opt-in, named explicitly, never the demo by default."""

from __future__ import annotations

import pytest

from refinery.agents.endpoint import EMBEDDED, check_llm_choice, llm_endpoint
from refinery.errors import ConfigError


def test_without_the_llm_agent_nothing_is_started(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with llm_endpoint(("rules",), choice=EMBEDDED) as endpoint:
        assert endpoint is None


def test_the_llm_agent_needs_a_named_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="needs an OpenAI-compatible endpoint"):
        check_llm_choice(("rules", "llm"))
    with pytest.raises(ConfigError), llm_endpoint(("rules", "llm")):
        pytest.fail("an endpoint was yielded without one being named")
    check_llm_choice(("rules", "llm"), EMBEDDED)  # named: allowed


def test_a_url_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env.example/v1")
    monkeypatch.setenv("REFINERY_LLM_MODEL", "qwen2.5")
    with llm_endpoint(("rules", "llm"), choice="http://127.0.0.1:9/v1") as endpoint:
        assert endpoint is not None
        assert (endpoint.base_url, endpoint.model) == ("http://127.0.0.1:9/v1", "qwen2.5")
    with llm_endpoint(("rules", "llm")) as endpoint:
        assert endpoint is not None and endpoint.base_url == "http://env.example/v1"
