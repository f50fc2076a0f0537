"""Which LLM the refiner talks to: a configured OpenAI-compatible endpoint, or the embedded model.

`LLMEndpoint` says where it is (picklable: worker processes build their own client from it).
`llm_endpoint(agents, choice=…)` is a context manager: with `llm` among the agents it yields an
`LLMEndpoint` — `choice` (`--llm`) or else `OPENAI_BASE_URL`, with `OPENAI_API_KEY` and
`REFINERY_LLM_MODEL`; or, only when named (`EMBEDDED`), the embedded SmolLM2-135M model served on
127.0.0.1 for the duration of the block and stopped after. That model shows the wiring works; it
is not a useful critic (measured on FOLIO v2 validation: 200 proposed edits, none verified), so
it is never picked silently. Without `llm` it yields None and starts nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from refinery.errors import ConfigError


@dataclass(frozen=True, slots=True)
class LLMEndpoint:
    """Where the LLM backend lives (picklable, so worker processes build their own client)."""

    base_url: str
    api_key: str
    model: str
    cache_path: Path | None = None
    timeout: float = 60.0


#: `--llm embedded`: the embedded demonstration model instead of an endpoint.
EMBEDDED = "embedded"
EMBEDDED_NOTE = (
    "the embedded SmolLM2-135M model demonstrates the LLM wiring; it is not a useful critic "
    "(its edits almost never pass the provers): point --llm or OPENAI_BASE_URL at a capable "
    "endpoint for real critiques"
)


def check_llm_choice(agents: Sequence[str], choice: str = "") -> None:
    """`ConfigError` when the `llm` agent is asked for with no endpoint to talk to."""
    if "llm" in agents and not (choice or os.environ.get("OPENAI_BASE_URL", "").strip()):
        raise ConfigError(
            "the llm agent needs an OpenAI-compatible endpoint: set OPENAI_BASE_URL or pass "
            f"--llm URL (or --llm {EMBEDDED} for the embedded demonstration model)"
        )


@contextmanager
def llm_endpoint(
    agents: Sequence[str], *, cache_path: Path | None = None, choice: str = ""
) -> Iterator[LLMEndpoint | None]:
    """Yield the endpoint the `llm` agent should use (or None when it is not enabled).

    `choice` is a base URL, `EMBEDDED`, or "" for `OPENAI_BASE_URL`; see `check_llm_choice`.
    """
    if "llm" not in agents:
        yield None
        return
    check_llm_choice(agents, choice)
    if choice != EMBEDDED:
        from refinery.agents.llm import llm_settings_from_env

        settings = llm_settings_from_env(base_url=choice)
        assert settings is not None  # check_llm_choice saw a URL
        yield LLMEndpoint(settings.base_url, settings.api_key, settings.model, cache_path)
        return
    from refinery.agents.embedded import serve_embedded

    with serve_embedded() as served:
        yield LLMEndpoint(served.base_url, "not-needed", served.model, cache_path)
