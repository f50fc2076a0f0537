"""The LLM client: the `LLMClient` protocol and its OpenAI-compatible implementation.

This is the only module that talks HTTP (the `openai` SDK, imported lazily so commands that
never call a model stay fast). A call sends chat messages and a pydantic reply model; the
endpoint is asked for JSON constrained by the model's schema, and the reply is parsed as JSON
and validated — model output is never executed. Every failure (timeout, refused connection,
HTTP error, a body that is not a chat completion, empty or malformed reply) comes back as an
`LLMResult` with `error` set, never as an exception. Only transient transport failures
(connection, timeout, 429, 5xx) are retried.

A misbehaving endpoint costs a bounded time: each attempt has a wall-clock deadline from request
to last byte (an endpoint trickling bytes cannot stretch it), a reply body over
`MAX_REPLY_BYTES` is refused, and a per-process `CircuitBreaker` per endpoint stops calling it
after `BREAKER_AFTER` consecutive failed attempts: later calls fail at once with
`EndpointDisabled`'s message, for the rest of the process (a run's workers each hold one).

Replies are cached in SQLite by a hash of everything that determines them (model, messages,
schema, temperature, max_tokens), so re-runs are cheap and, at temperature 0, deterministic.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ValidationError

from refinery.agents.models import LLM_SOURCE
from refinery.config import state_dir
from refinery.errors import LLMTransportError, RefineryError
from refinery.store import JsonStore

DEFAULT_REMOTE_MODEL = "gpt-4o-mini"
ResponseFormat = Literal["json_schema", "json_object"]

#: A reply body larger than this is refused (and never cached): a chat reply is a few KB.
MAX_REPLY_BYTES = 1_000_000
#: Consecutive failed attempts after which an endpoint is disabled: one call's attempts at the
#: default retries, so a blip that a retry rides out never opens the breaker.
BREAKER_AFTER = 4

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LLMResult:
    """One `complete_json` call: the validated reply or why there is none.

    Exactly one of `value` and `error` is set. `raw` is the reply text as received (empty when
    the transport failed). Token counts come from the endpoint's `usage`; a cached result
    reports the counts of the call that filled the cache, with `cached=True` and `attempts=0`.
    """

    value: BaseModel | None
    error: str | None
    raw: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    elapsed: float
    attempts: int

    @property
    def ok(self) -> bool:
        return self.error is None


class LLMClient(Protocol):
    """What the agents need from a model: JSON replies validated into a pydantic model."""

    name: str  # "llm:<model>", recorded as the source of every proposal

    def complete_json(
        self, messages: list[dict[str, str]], reply_model: type[BaseModel], *, purpose: str
    ) -> LLMResult: ...


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """Where a remote OpenAI-compatible endpoint is and which model to ask."""

    base_url: str
    api_key: str
    model: str


def llm_settings_from_env(base_url: str = "") -> LLMSettings | None:
    """Read `OPENAI_BASE_URL` (unless `base_url` is given), `OPENAI_API_KEY`, `REFINERY_LLM_MODEL`.

    Returns None when there is no base URL. Local servers ignore the key, so a missing one
    becomes a placeholder rather than an error.
    """
    base_url = base_url.strip() or os.environ.get("OPENAI_BASE_URL", "").strip()
    if not base_url:
        return None
    return LLMSettings(
        base_url=base_url,
        api_key=os.environ.get("OPENAI_API_KEY", "").strip() or "not-needed",
        model=os.environ.get("REFINERY_LLM_MODEL", "").strip() or DEFAULT_REMOTE_MODEL,
    )


def default_cache_path() -> Path:
    """The reply cache under the state folder."""
    return state_dir() / "cache" / "llm.sqlite"


def request_key(
    model: str,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    temperature: float,
    max_tokens: int,
) -> str:
    """Stable hash of one request: everything that determines the reply."""
    payload = {
        "model": model,
        "messages": messages,
        "schema": schema,
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?```$", re.S)


def parse_reply(raw: str, reply_model: type[BaseModel]) -> tuple[BaseModel | None, str | None]:
    """Parse `raw` as JSON and validate it into `reply_model`: (value, None) or (None, error).

    >>> from pydantic import BaseModel
    >>> class R(BaseModel):
    ...     n: int
    >>> parse_reply('{"n": 1}', R)
    (R(n=1), None)
    >>> parse_reply("", R)
    (None, 'empty reply')
    >>> parse_reply('{"n": "x"}', R)[1]
    'schema: n: Input should be a valid integer, unable to parse string as an integer'
    """
    text = raw.strip()
    # endpoints without schema support often fence their JSON; unwrapping is still only parsing
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text:
        return None, "empty reply"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON: {exc}"
    try:
        return reply_model.model_validate(data), None
    except ValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()[:3]
        )
        more = f" (+{exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
        return None, f"schema: {details}{more}"


def probe(base_url: str, *, timeout: float = 1.0) -> bool:
    """True when an OpenAI-compatible endpoint answers `GET {base_url}/models` with 200."""
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError):
        return False


class _Rejected(RefineryError):
    """The endpoint refused the request for good (a 4xx): no retry."""


class _Unreadable(_Rejected):
    """The endpoint answered with something that is not a chat completion: no retry, a fault."""


class EndpointDisabled(LLMTransportError):
    """The endpoint's circuit breaker is open: no request is sent for the rest of the process."""


class CircuitBreaker:
    """Counts consecutive failed attempts on one endpoint; after `threshold` it stays open.

    Thread-safe. A failure is an attempt that got no usable reply (timeout, connection, 429,
    5xx, a body that is not a chat completion, one too large); any usable reply, or a 4xx
    (the endpoint is alive and answering), resets the count. Opening is logged once.
    """

    def __init__(self, endpoint: str, threshold: int = BREAKER_AFTER) -> None:
        self.endpoint = endpoint
        self.threshold = threshold
        self.failures = 0
        self.reason: str | None = None  # set when open: the message later calls fail with
        self._lock = threading.Lock()

    def check(self) -> None:
        """Raise `EndpointDisabled` when the breaker is open."""
        if self.reason is not None:
            raise EndpointDisabled(self.reason)

    def failed(self, error: str) -> None:
        with self._lock:
            if self.reason is not None:
                return
            self.failures += 1
            if self.failures >= self.threshold:
                self.reason = (
                    f"transport: endpoint disabled for this run after {self.failures} "
                    f"consecutive failures (last: {error[:200]})"
                )
                _log.warning("LLM endpoint %s: %s", self.endpoint, self.reason)

    def succeeded(self) -> None:
        with self._lock:
            if self.reason is None:
                self.failures = 0


_BREAKERS: dict[str, CircuitBreaker] = {}
_BREAKERS_LOCK = threading.Lock()


def breaker_for(base_url: str) -> CircuitBreaker:
    """The process-wide breaker of `base_url`, shared by every client built for it.

    Shared because a run builds a client per batch: a breaker per client would forget.
    """
    key = base_url.rstrip("/")
    with _BREAKERS_LOCK:
        return _BREAKERS.setdefault(key, CircuitBreaker(key))


def reset_breakers() -> None:
    """Close every endpoint's breaker (a new run in a long-lived process starts trusting)."""
    with _BREAKERS_LOCK:
        _BREAKERS.clear()


def _count(value: Any) -> int:
    """A token count from `usage`, or 0 when the endpoint sent something else."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def read_completion(body: bytes) -> dict[str, Any]:
    """The cacheable reply of a chat-completion body, or `_Unreadable` when it is not one.

    >>> read_completion(b'{"choices": [{"message": {"content": "hi"}}]}')["raw"]
    'hi'
    >>> read_completion(b"<html>OK</html>")
    Traceback (most recent call last):
    ...
    refinery.agents.llm._Unreadable: transport: unreadable response: not JSON: b'<html>OK</html>'
    """
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: absurdly nested JSON
        raise _Unreadable(f"transport: unreadable response: not JSON: {body[:80]!r}") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else {}
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    finish = first.get("finish_reason") if isinstance(first, dict) else None
    if not isinstance(choices, list) or not isinstance(content, str | None):
        raise _Unreadable(f"transport: unreadable response: not a chat completion: {body[:80]!r}")
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return {
        "raw": content or "",
        "finish_reason": finish if isinstance(finish, str) else None,
        "prompt_tokens": _count(usage.get("prompt_tokens")),
        "completion_tokens": _count(usage.get("completion_tokens")),
    }


class OpenAICompatibleClient:
    """`LLMClient` over any OpenAI-compatible chat-completions endpoint.

    Parameters
    ----------
    base_url, api_key, model:
        The endpoint (e.g. ``http://127.0.0.1:8080/v1``), its key, and the model name.
    timeout:
        Seconds per HTTP attempt, from sending the request to the reply's last byte (a
        wall-clock deadline, not a per-read timeout); an attempt past it fails with
        ``"timeout"``.
    max_retries, backoff:
        Retries after the first attempt, for transient transport errors only, sleeping
        ``backoff * 2**k`` seconds before retry ``k``.
    cache_path:
        SQLite reply cache, or None for no cache.
    temperature, max_tokens:
        Sampling settings sent with every request (and part of the cache key).
    response_format:
        ``"json_schema"`` (the reply model's schema, enforced by the server where supported,
        e.g. by llama.cpp's grammar) or ``"json_object"`` for endpoints that reject schemas.
    gate:
        Entered around every HTTP attempt, never around a cache hit: a concurrency limit
        shared by every worker of a cluster run (None: no limit).
    max_reply_bytes:
        A reply body over this many bytes is refused, not retried and not cached.
    breaker:
        Disables the endpoint after consecutive failed attempts; None: the process-wide
        breaker of `base_url` (`breaker_for`), which every client of that endpoint shares.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        *,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        cache_path: Path | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        response_format: ResponseFormat = "json_schema",
        gate: Callable[[], AbstractContextManager[Any]] | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.name = f"{LLM_SOURCE}{model}"
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.response_format: ResponseFormat = response_format
        # replies whose transport succeeded (whatever the text): raw text, finish reason, tokens
        self.cache = JsonStore(cache_path, "replies")
        self._api_key = api_key
        self._sdk: Any = None
        self._gate = gate or nullcontext
        self.max_reply_bytes = max_reply_bytes
        self.breaker = breaker or breaker_for(base_url)

    def _client(self) -> Any:
        if self._sdk is None:
            import openai  # lazily: importing the SDK costs more than most commands

            # the SDK's own retries are off: ours retry only transport failures, and count them
            self._sdk = openai.OpenAI(
                base_url=self.base_url, api_key=self._api_key, timeout=self.timeout, max_retries=0
            )
        return self._sdk

    def _format(self, reply_model: type[BaseModel], schema: dict[str, Any]) -> dict[str, Any]:
        if self.response_format == "json_object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {"name": reply_model.__name__[:64], "schema": schema, "strict": True},
        }

    def _attempt(
        self, messages: list[dict[str, str]], response_format: dict[str, Any]
    ) -> dict[str, Any]:
        """One HTTP request under the deadline; the cacheable reply, or raises.

        Raises `LLMTransportError` (worth a retry), `_Rejected` or `_Unreadable` (not). The
        request runs on a daemon thread so that the deadline holds even while headers trickle
        in; past it the thread is abandoned, and stops at its next chunk of body.
        """
        sdk = self._client()  # built here: the worker thread must not race to build it
        deadline = time.monotonic() + self.timeout
        box: list[dict[str, Any] | BaseException] = []

        def fetch() -> None:
            try:
                box.append(self._fetch(sdk, messages, response_format, deadline))
            except BaseException as exc:  # handed to the caller's thread, which raises it
                box.append(exc)

        worker = threading.Thread(target=fetch, name="llm-request", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if not box:
            raise LLMTransportError("timeout")
        outcome = box[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def _fetch(
        self,
        sdk: Any,
        messages: list[dict[str, str]],
        response_format: dict[str, Any],
        deadline: float,
    ) -> dict[str, Any]:
        """Send the request, read the body in chunks against deadline and size cap, parse it."""
        import httpx
        import openai

        try:
            with sdk.chat.completions.with_streaming_response.create(
                model=self.model,
                messages=messages,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                response_format=response_format,
            ) as response:
                body = self._read_body(response, deadline)
        except (openai.APITimeoutError, httpx.TimeoutException) as exc:
            raise LLMTransportError("timeout") from exc
        except (openai.APIConnectionError, httpx.TransportError) as exc:
            raise LLMTransportError(f"transport: connection error: {exc}") from exc
        except openai.APIStatusError as exc:
            error = f"transport: HTTP {exc.status_code}: {str(exc.message)[:300]}"
            if exc.status_code == 429 or exc.status_code >= 500:
                raise LLMTransportError(error) from exc
            raise _Rejected(error) from exc
        # the body is read raw (never parsed by the SDK): `read_completion` judges it
        return read_completion(body)

    def _read_body(self, response: Any, deadline: float) -> bytes:
        """The whole body, or `_Unreadable` past `max_reply_bytes`, "timeout" past `deadline`."""
        limit = self.max_reply_bytes
        too_big = f"transport: reply over the {limit}-byte limit"
        declared = str(response.headers.get("content-length", ""))
        if declared.isdigit() and int(declared) > limit:
            raise _Unreadable(f"{too_big} (Content-Length {declared})")
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > limit:
                raise _Unreadable(too_big)
            if time.monotonic() > deadline:
                raise LLMTransportError("timeout")
            chunks.append(chunk)
        return b"".join(chunks)

    def complete_json(
        self, messages: list[dict[str, str]], reply_model: type[BaseModel], *, purpose: str
    ) -> LLMResult:
        """Ask for a JSON reply matching `reply_model`; never raises on a bad reply or transport.

        `purpose` names the call for callers' records (e.g. "critique"); it does not change the
        request, so it is not part of the cache key.
        """
        start = time.perf_counter()
        schema = reply_model.model_json_schema()
        key = request_key(self.model, messages, schema, self.temperature, self.max_tokens)
        reply = self.cache.get(key)
        attempts = 0
        if reply is None:
            response_format = self._format(reply_model, schema)
            error: str | None = None
            while True:
                try:
                    self.breaker.check()
                except EndpointDisabled as exc:
                    error = str(exc)
                    break
                attempts += 1
                try:
                    with self._gate():
                        reply = self._attempt(messages, response_format)
                    self.breaker.succeeded()
                    break
                except LLMTransportError as exc:
                    error = str(exc)
                    self.breaker.failed(error)
                    if attempts > self.max_retries or self.breaker.reason is not None:
                        break
                    time.sleep(self.backoff * 2 ** (attempts - 1))
                except _Unreadable as exc:
                    error = str(exc)
                    self.breaker.failed(error)
                    break
                except _Rejected as exc:
                    error = str(exc)
                    self.breaker.succeeded()  # a 4xx: the endpoint is alive and answering
                    break
            if reply is None:
                return LLMResult(
                    value=None,
                    error=error,
                    raw="",
                    prompt_tokens=0,
                    completion_tokens=0,
                    cached=False,
                    elapsed=time.perf_counter() - start,
                    attempts=attempts,
                )
            self.cache.put(key, reply)
        value, error = parse_reply(reply["raw"], reply_model)
        if error is not None and reply.get("finish_reason") == "length":
            error += f" (reply cut at max_tokens={self.max_tokens})"
        return LLMResult(
            value=value,
            error=error,
            raw=reply["raw"],
            prompt_tokens=reply["prompt_tokens"],
            completion_tokens=reply["completion_tokens"],
            cached=attempts == 0,
            elapsed=time.perf_counter() - start,
            attempts=attempts,
        )

    def close(self) -> None:
        """Release the HTTP connection pool and the cache file."""
        if self._sdk is not None:
            self._sdk.close()
            self._sdk = None
        self.cache.close()
