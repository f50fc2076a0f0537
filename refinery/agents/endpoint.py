"""Which LLM the refiner talks to: a configured OpenAI-compatible endpoint, else the embedded model.

`LLMEndpoint` says where it is (picklable: worker processes build their own client from it).
`llm_endpoint(agents)` is a context manager: with `llm` among the agents it yields an
`LLMEndpoint` — from `OPENAI_BASE_URL` / `OPENAI_API_KEY` / `REFINERY_LLM_MODEL` when set, else
the embedded SmolLM2 model served on 127.0.0.1 for the duration of the block and stopped after.
Without `llm` it yields None and starts nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class LLMEndpoint:
    """Where the LLM backend lives (picklable, so worker processes build their own client)."""

    base_url: str
    api_key: str
    model: str
    cache_path: Path | None = None
    timeout: float = 60.0


@contextmanager
def llm_endpoint(
    agents: Sequence[str], *, cache_path: Path | None = None
) -> Iterator[LLMEndpoint | None]:
    """Yield the endpoint the `llm` agent should use (or None when it is not enabled)."""
    if "llm" not in agents:
        yield None
        return
    from refinery.agents.llm import llm_settings_from_env

    settings = llm_settings_from_env()
    if settings is not None:
        yield LLMEndpoint(settings.base_url, settings.api_key, settings.model, cache_path)
        return
    from refinery.agents.embedded import serve_embedded

    with serve_embedded() as served:
        yield LLMEndpoint(served.base_url, "not-needed", served.model, cache_path)
