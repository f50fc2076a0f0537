"""A misbehaving LLM endpoint: a 200 whose body is not JSON, bytes trickled to outlast the
timeout, an endpoint that keeps failing, and a reply too large to keep. Each runs against a real
HTTP server on 127.0.0.1 started here; every handler stops when the test ends."""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from refinery.agents.llm import (
    BREAKER_AFTER,
    MAX_REPLY_BYTES,
    OpenAICompatibleClient,
    breaker_for,
    reset_breakers,
)
from refinery.agents.llm_agents import llm_critique, llm_refine
from refinery.agents.models import ItemContext
from refinery.labels import Label


class Verdict(BaseModel):
    answer: str


VALID = '{"answer": "yes"}'
ASK = [{"role": "user", "content": "Is it?"}]
OTHER = [{"role": "user", "content": "And this?"}]
TRICKLE_EVERY = 0.5  # seconds between bytes
DEADLINE = 2.0  # the client's per-attempt deadline in the trickle tests


def completion(content: str) -> bytes:
    """A chat-completion body as an OpenAI-compatible server sends it."""
    return json.dumps(
        {
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3},
        }
    ).encode()


def head(status: str, content_type: str, length: int | None) -> bytes:
    lines = [f"HTTP/1.1 {status}", f"Content-Type: {content_type}", "Connection: close"]
    lines += [f"Content-Length: {length}"] if length is not None else []
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


Answer = Callable[["Handler", threading.Event], None]


def send(body: bytes, *, content_type: str = "application/json", length: bool = True) -> Answer:
    """Answer 200 with `body` (with or without Content-Length)."""

    def answer(handler: Handler, stop: threading.Event) -> None:
        handler.wfile.write(head("200 OK", content_type, len(body) if length else None) + body)

    return answer


def status(code: int) -> Answer:
    def answer(handler: Handler, stop: threading.Event) -> None:
        body = b'{"error": {"message": "scripted"}}'
        handler.wfile.write(head(f"{code} Scripted", "application/json", len(body)) + body)

    return answer


def trickle(*, headers_too: bool) -> Answer:
    """One byte every TRICKLE_EVERY seconds: of the body, or of the whole response."""

    def answer(handler: Handler, stop: threading.Event) -> None:
        body = completion(VALID)
        if headers_too:
            data = head("200 OK", "application/json", len(body)) + body
        else:
            handler.wfile.write(head("200 OK", "application/json", len(body)))
            data = body
        for byte in data:
            if stop.wait(TRICKLE_EVERY):
                return
            handler.wfile.write(bytes([byte]))

    return answer


def hang(handler: Handler, stop: threading.Event) -> None:
    """Read the request, never answer (until the test ends)."""
    stop.wait(30)


class Handler(BaseHTTPRequestHandler):
    server: Server

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        endpoint = self.server.endpoint
        with endpoint.lock:
            endpoint.requests += 1
            answer = endpoint.script.pop(0) if len(endpoint.script) > 1 else endpoint.script[0]
        # OSError: the client gave up on us, which is what several tests are about
        with contextlib.suppress(OSError):
            answer(self, endpoint.stop)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class Endpoint:
    """A scripted endpoint: the answers to come (the last repeats) and the requests seen."""

    base_url: str = ""
    script: list[Answer] = field(default_factory=lambda: [send(completion(VALID))])
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)


class Server(ThreadingHTTPServer):
    endpoint: Endpoint


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    state = Endpoint()
    server = Server(("127.0.0.1", 0), Handler)
    server.endpoint = state
    server.daemon_threads = True
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    state.stop.set()  # ends trickling and hanging handlers
    server.shutdown()
    server.server_close()
    reset_breakers()  # a later test may get this port again


def client(endpoint: Endpoint, **options: Any) -> OpenAICompatibleClient:
    settings: dict[str, Any] = {"timeout": 5.0, "max_retries": 3, "backoff": 0.01}
    return OpenAICompatibleClient(endpoint.base_url, "k", "m", **(settings | options))


# --- (a) a 200 whose body is not a chat completion ------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (send(b"<html><body>upstream OK</body></html>", content_type="text/html"), "not JSON"),
        (send(b"Service is up"), "not JSON"),
        (send(b'{"choices": [{"message": {"content": "ye'), "not JSON"),
        (send(b"[" * 200_000 + b"]" * 200_000), "not JSON"),  # nested past the recursion limit
        (send(b""), "not JSON"),
        (send(b'{"error": {"message": "model overloaded"}}'), "not a chat completion"),
        (send(b'{"choices": [{"message": {"content": 42}}]}'), "not a chat completion"),
        (send(b"[1, 2]"), "not a chat completion"),
    ],
)
def test_a_200_that_is_not_a_chat_completion_fails_that_call_only(
    endpoint: Endpoint, answer: Answer, error: str, tmp_path: Path
) -> None:
    endpoint.script = [answer, send(completion(VALID))]
    cache = tmp_path / "llm.sqlite"
    failed = client(endpoint, cache_path=cache).complete_json(ASK, Verdict, purpose="t")
    assert failed.value is None and failed.raw == ""
    assert failed.error is not None
    assert failed.error.startswith(f"transport: unreadable response: {error}"), failed.error
    assert (failed.attempts, endpoint.requests) == (1, 1)  # not retried: it would say the same
    # the same request again reaches the endpoint (the failure was not cached) and works
    again = client(endpoint, cache_path=cache).complete_json(ASK, Verdict, purpose="t")
    assert again.value == Verdict(answer="yes") and not again.cached
    assert endpoint.requests == 2


def test_the_agents_record_a_non_json_endpoint_and_go_on(endpoint: Endpoint) -> None:
    endpoint.script = [send(b"<html>502 Bad Gateway</html>", content_type="text/html")]
    findings = ItemContext(
        item_id="t/1",
        story_id="s",
        fol={"premises[0]": "Cat(tom)", "conclusion": "Mammal(tom)"},
        nl={"premises[0]": "Tom is a cat.", "conclusion": "Tom is a mammal."},
        gold=Label.TRUE,
    )
    llm = client(endpoint)
    diagnoses, critique = llm_critique(findings, llm)
    edits, refine = llm_refine(findings, diagnoses, llm)
    assert (diagnoses, edits) == ([], [])
    for record in (critique, refine):
        assert record.error is not None
        assert record.error.startswith("transport: unreadable response: not JSON: b'<html>502")
        assert (record.attempts, record.kept) == (1, 0)


# --- (b) an endpoint that trickles bytes to outlast a per-read timeout ----------------------------


@pytest.mark.parametrize("headers_too", [False, True], ids=["body", "whole-response"])
def test_a_trickling_endpoint_fails_at_the_deadline(endpoint: Endpoint, headers_too: bool) -> None:
    # every byte arrives well inside a per-read timeout of DEADLINE, so only a total deadline
    # stops it; the whole reply would take over 100 s
    endpoint.script = [trickle(headers_too=headers_too)]
    start = time.monotonic()
    result = client(endpoint, timeout=DEADLINE, max_retries=0).complete_json(
        ASK, Verdict, purpose="t"
    )
    elapsed = time.monotonic() - start
    assert (result.value, result.error, result.attempts) == (None, "timeout", 1)
    assert endpoint.requests == 1
    assert elapsed < 10  # loose: only that it did not wait for the trickle


# --- (c) the circuit breaker ----------------------------------------------------------------------


def test_the_breaker_opens_after_consecutive_failures_for_every_client(
    endpoint: Endpoint, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "llm.sqlite"
    endpoint.script = [send(completion(VALID)), status(503)]
    assert client(endpoint, cache_path=cache).complete_json(ASK, Verdict, purpose="t").ok
    llm = client(endpoint, cache_path=cache, max_retries=0)
    with caplog.at_level(logging.WARNING, logger="refinery.agents.llm"):
        for n in range(BREAKER_AFTER):
            failed = llm.complete_json([{"role": "user", "content": f"q{n}"}], Verdict, purpose="t")
            assert failed.error is not None and failed.error.startswith("transport: HTTP 503")
        assert endpoint.requests == 1 + BREAKER_AFTER
        disabled = llm.complete_json(OTHER, Verdict, purpose="t")
        # a run builds a client per batch: a new one for the same endpoint is disabled too
        fresh = client(endpoint, cache_path=cache).complete_json(OTHER, Verdict, purpose="t")
    assert endpoint.requests == 1 + BREAKER_AFTER  # no request after the breaker opened
    reason = (
        f"transport: endpoint disabled for this run after {BREAKER_AFTER} consecutive failures "
        "(last: transport: HTTP 503: "
    )
    for result in (disabled, fresh):
        assert result.value is None and result.error is not None
        assert result.error.startswith(reason), result.error
        assert (result.attempts, result.cached) == (0, False)
    warnings = [r.getMessage() for r in caplog.records if r.name == "refinery.agents.llm"]
    assert len(warnings) == 1 and reason in warnings[0]  # said once, not once per call
    # what was cached before still answers: the cache needs no endpoint
    cached = client(endpoint, cache_path=cache).complete_json(ASK, Verdict, purpose="t")
    assert cached.value == Verdict(answer="yes") and cached.cached


def test_a_hanging_endpoint_costs_one_call_not_every_item(endpoint: Endpoint) -> None:
    endpoint.script = [hang]
    llm = client(endpoint, timeout=0.5)  # default retries: BREAKER_AFTER attempts in one call
    first = llm.complete_json(ASK, Verdict, purpose="critique")
    assert (first.error, first.attempts) == ("timeout", BREAKER_AFTER)
    rest = [llm.complete_json(OTHER, Verdict, purpose="refine") for _ in range(5)]
    assert endpoint.requests == BREAKER_AFTER
    assert all(r.attempts == 0 and r.elapsed < 0.5 for r in rest)
    assert all((r.error or "").startswith("transport: endpoint disabled") for r in rest)


def test_a_failure_a_retry_rides_out_does_not_open_the_breaker(endpoint: Endpoint) -> None:
    endpoint.script = [status(503)] * (BREAKER_AFTER - 1) + [send(completion(VALID))]
    result = client(endpoint).complete_json(ASK, Verdict, purpose="t")
    assert result.value == Verdict(answer="yes") and result.attempts == BREAKER_AFTER
    breaker = breaker_for(endpoint.base_url)
    assert (breaker.failures, breaker.reason) == (0, None)


# --- (d) a reply too large to keep ----------------------------------------------------------------


def _cache_rows(cache: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(cache) as conn:
        return list(conn.execute("SELECT key, length(value) FROM replies"))


def _on_disk(cache: Path) -> int:
    return sum(p.stat().st_size for p in cache.parent.glob(cache.name + "*"))


@pytest.mark.parametrize("length", [True, False], ids=["content-length", "streamed"])
def test_a_5mb_reply_is_refused_and_never_cached(
    endpoint: Endpoint, tmp_path: Path, length: bool
) -> None:
    huge = completion("y" * 5_000_000)
    endpoint.script = [send(completion(VALID)), send(huge, length=length), send(completion(VALID))]
    cache = tmp_path / "llm.sqlite"
    assert client(endpoint, cache_path=cache).complete_json(ASK, Verdict, purpose="t").ok
    before = _on_disk(cache)
    refused = client(endpoint, cache_path=cache).complete_json(OTHER, Verdict, purpose="t")
    assert refused.value is None and refused.raw == ""
    assert refused.error is not None
    assert refused.error.startswith(f"transport: reply over the {MAX_REPLY_BYTES}-byte limit")
    assert (refused.attempts, endpoint.requests) == (1, 2)  # not retried
    assert len(_cache_rows(cache)) == 1  # only the first, small reply
    assert _on_disk(cache) - before < 100_000  # not a trace of 5 MB
    # the request was not cached as a failure either: asked again, it reaches the endpoint
    again = client(endpoint, cache_path=cache).complete_json(OTHER, Verdict, purpose="t")
    assert again.value == Verdict(answer="yes") and endpoint.requests == 3
    assert max(size for _, size in _cache_rows(cache)) < 1_000


# --- (f) an outcome whose LLM call got no reply is not cached --------------------------------------


def test_an_outcome_the_endpoint_failed_is_not_cached_and_is_retried_next_run(
    endpoint: Endpoint, tmp_path: Path
) -> None:
    """A down endpoint (here a 502 page) must not be remembered as the item's outcome: the
    next run, with the endpoint back, asks it again. An outcome without LLM calls is cached."""
    from refinery.agents.endpoint import LLMEndpoint
    from refinery.check import check_items
    from refinery.prove.verdict import Budget
    from refinery.repair import RepairConfig, cacheable
    from refinery.repair.batches import repair_items
    from vampire.registry import build_provers

    from fakes import make_item

    items = [
        make_item(1, ["Cat(tom)"], "Dog(tom)", "True"),  # no rule settles it: the LLM is asked
        make_item(2, ["∀x (Dog(x) → Animal(x)", "Dog(rex)"], "Animal(rex)", "True"),  # rules
    ]
    rows = check_items(items, prover_factory=build_provers, prover_names=["z3"], budget=Budget())
    llm = LLMEndpoint(endpoint.base_url, "k", "m", cache_path=tmp_path / "llm.sqlite", timeout=5)
    store = tmp_path / "outcomes.sqlite"
    options: dict[str, Any] = {
        "prover_factory": build_provers,
        "prover_names": ["z3"],
        "budget": Budget(),
        "config": RepairConfig(agents=("rules", "llm"), llm=llm),
        "outcome_cache": store,
    }
    endpoint.script = [send(b"<html>502 Bad Gateway</html>", content_type="text/html")]
    first = repair_items(items, rows, **options)
    failed = [o.to_dict() for o in first]
    assert [cacheable(o) for o in failed] == [False, True]
    calls = [c for r in failed[0]["audit"]["rounds"] for c in r["llm_calls"]]
    assert calls and all(c["error"] and not c["raw"] for c in calls)
    with contextlib.closing(sqlite3.connect(store)) as conn:
        stored = conn.execute("SELECT count(*) FROM outcomes").fetchone()[0]
    assert stored == 1  # only the rules' outcome

    endpoint.script = [send(completion('{"diagnoses": []}'))]
    asked = endpoint.requests
    repair_items(items, rows, **options)
    assert endpoint.requests > asked  # the failed item went back to the endpoint
