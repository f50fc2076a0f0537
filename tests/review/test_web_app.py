"""The review page's server without a browser: its replies (real Z3 and E), its security rules,
and the page's view of an item. The browser itself is driven in test_web_browser.py."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from refinery.errors import RefineryError
from refinery.prove.verdict import Budget
from refinery.review.feedback import FeedbackEngine
from refinery.review.queue import QueueRow
from refinery.review.record import decision_version
from refinery.review.sheet import read_queue, write_rows
from refinery.review.web.actions import Actions
from refinery.review.web.app import create_app, serve
from refinery.review.web.page import OPEN, Filters, page_view
from vampire.registry import build_provers

from review_workflow import (
    FIXED_1,
    ID_203,
    ID_301,
    ID_1201,
    ID_1301,
    NOTE_203,
    PREMISE_3,
    TYPO_3,
    WHY_203,
)

LOCAL = "http://127.0.0.1:8765"
HOSTILE = '"><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> FeedbackEngine:
    cache = tmp_path_factory.mktemp("review-web") / "verdicts.sqlite"
    return FeedbackEngine(build_provers(["z3", "eprover"]), Budget(seconds=5), cache)


@pytest.fixture
def queue(sample_run: Path, tmp_path: Path) -> Path:
    path = tmp_path / "review.csv"
    shutil.copyfile(sample_run.parent.parent.parent / "review.csv", path)
    return path


def client(queue: Path, engine: FeedbackEngine, token: str | None = None) -> TestClient:
    return TestClient(create_app(queue, engine, reviewer="ann", token=token), base_url=LOCAL)


def csrf_of(page: str) -> str:
    marker = '<meta name="csrf-token" content="'
    return page.split(marker, 1)[1].split('"', 1)[0]


def row(queue: Path, item_id: str) -> QueueRow:
    return next(r for r in read_queue(queue) if r.id == item_id)


# --- what the requests do (real provers) ----------------------------------------------------


@pytest.mark.prover
def test_live_check_points_at_the_typo_then_gives_both_provers_label(
    queue: Path, engine: FeedbackEngine
) -> None:
    actions = Actions(queue, engine, "ann")
    fol = row(queue, ID_301).proposed_fol.split("\n")
    fol[2] = TYPO_3
    status, reply = actions.check(ID_301, fol)
    assert status == 200 and not reply["parses"] and not reply["clean"]
    [error] = reply["errors"]
    assert (error["index"], error["line"], error["column"]) == (2, 1, len(TYPO_3) + 1)
    assert "unbalanced parentheses" in error["message"] and error["source"] == TYPO_3
    fol[2] = "MissConnection(passengers) -> Compensated(passengers)"
    status, reply = actions.check(ID_301, fol)
    assert status == 200 and reply["clean"] and reply["errors"] == []
    assert (reply["label"], reply["labels"]) == ("True", {"eprover": "True", "z3": "True"})
    assert reply["evidence"].startswith("proves the conclusion: premises[")
    assert reply["canonical"][2] == "MissConnection(passengers) → Compensated(passengers)"
    # the proposal as it stands: lint errors, marked on premises[2]
    status, reply = actions.check(ID_301, row(queue, ID_301).proposed_fol.split("\n"))
    assert {(i["index"], i["kind"]) for i in reply["lint"] if i["severity"] == "error"} == {
        (2, "arity_conflict"),
        (2, "free_variable"),
    }
    assert reply["label"] == ""


@pytest.mark.prover
def test_a_label_change_is_saved_only_confirmed_and_explained(
    queue: Path, engine: FeedbackEngine
) -> None:
    actions = Actions(queue, engine, "ann")
    seen = decision_version(row(queue, ID_203))
    before = queue.read_bytes()

    def accept(note: str = "", confirm: str = "") -> tuple[int, dict[str, Any]]:
        return actions.decide(
            ID_203,
            "accept_proposal",
            fol=[],
            label="",
            note=note,
            reviewer="",
            seen=seen,
            confirm=confirm,
        )

    status, reply = accept()
    assert status == 428 and reply["change"] == "True → False" and reply["needs_note"]
    assert accept(confirm="True → False")[0] == 428  # confirmed, but not explained
    assert accept(note=NOTE_203)[0] == 428  # explained, but not confirmed
    assert accept(note=NOTE_203, confirm="True → Uncertain")[0] == 428  # not this change
    assert queue.read_bytes() == before
    status, reply = accept(note=NOTE_203, confirm="True → False")
    assert (status, reply["status"]) == (200, "saved")
    saved = row(queue, ID_203)
    assert (saved.decision, saved.final_label, saved.note, saved.reviewer) == (
        "accept_proposal",
        "False",
        NOTE_203,
        "ann",
    )


@pytest.mark.prover
def test_a_draft_that_does_not_parse_is_refused_and_nothing_written(
    queue: Path, engine: FeedbackEngine
) -> None:
    actions = Actions(queue, engine, "ann")
    before = queue.read_bytes()
    fol = row(queue, ID_301).proposed_fol.split("\n")
    fol[2] = TYPO_3
    status, reply = actions.decide(
        ID_301, "draft", fol=fol, label="", note="", reviewer="", seen="x"
    )
    assert status == 422 and reply["decision"] == "edit"
    assert reply["problems"][0].startswith("the final FOL does not parse")
    unchanged = row(queue, ID_301).proposed_fol.split("\n")
    status, reply = actions.decide(
        ID_301, "draft", fol=unchanged, label="", note="", reviewer="", seen="x"
    )
    assert status == 422 and "lint errors" in reply["problems"][0]
    assert (
        actions.decide(ID_301, "delete", fol=[], label="", note="", reviewer="", seen="")[0] == 422
    )
    assert actions.decide("nope", "skip", fol=[], label="", note="", reviewer="", seen="")[0] == 404
    assert actions.check("nope", ["P(a)", "Q(a)"])[0] == 404
    assert actions.check(ID_301, ["P(a)"])[0] == 422
    assert queue.read_bytes() == before


@pytest.mark.prover
def test_a_decision_made_meanwhile_is_a_conflict(queue: Path, engine: FeedbackEngine) -> None:
    actions = Actions(queue, engine, "ann")
    seen = decision_version(row(queue, ID_1201))

    def decide(
        who: str, decision: str, label: str = "", note: str = "", confirm: str = ""
    ) -> tuple[int, dict[str, Any]]:
        return actions.decide(
            ID_1201,
            decision,
            fol=[],
            label=label,
            note=note,
            reviewer=who,
            seen=seen,
            confirm=confirm,
        )

    assert decide("ann", "skip")[0] == 200
    assert decide("bob", "skip")[0] == 200  # the same decision: nothing to settle
    status, reply = decide("bob", "relabel", "Uncertain", "x", "True → Uncertain")
    assert status == 409 and reply["status"] == "conflict"
    assert reply["kept"]["reviewer"] == "ann" and reply["refused"]["reviewer"] == "bob"
    assert row(queue, ID_1201).flag == "merge_conflict"


# --- the page's view ------------------------------------------------------------------------


def test_the_view_starts_from_the_original_and_walks_the_filtered_items(queue: Path) -> None:
    rows = read_queue(queue)
    view = page_view(rows, Filters(), ID_301)
    item = view["item"]
    assert item["position"] == 2 and item["count"] == 4
    assert [f["draft"] for f in item["formulas"]] == [f["original"] for f in item["formulas"]]
    assert item["proposed_fol"][0] == FIXED_1 != item["formulas"][0]["draft"]
    assert [f["draft"] for f in item["formulas"]][2] == PREMISE_3
    assert item["formulas"][0]["proposal"][-1] == ("ins", ")")
    assert item["critique"][0].startswith("premises[0]: unbalanced_parentheses")
    # one numbering: each formula is named by the address the critique uses
    assert [f["name"] for f in item["formulas"]][:2] == ["premises[0]", "premises[1]"]
    assert item["formulas"][-1]["name"] == "conclusion"
    assert len(item["critique"]) == 3  # "; expected one of: …" stays inside its finding
    assert view["progress"]["by_reason"] == [
        {"reason": "label_mismatch", "decided": 0, "total": 3},
        {"reason": "lint_error", "decided": 0, "total": 1},
    ]
    assert page_view(rows, Filters(reason="lint_error"))["item"]["id"] == ID_301
    assert page_view(rows, Filters(reviewer="nobody"))["item"] is None
    assert page_view(rows, Filters(reviewer=OPEN))["shown"] == 4
    # a search: every word, any case, in the id, sentences, formulas, critique or note
    found = page_view(rows, Filters(text="1301"))
    assert (found["shown"], found["item"]["id"]) == (1, ID_1301)
    words = page_view(rows, Filters(text="PASSENGERS compensated"))
    both = [
        r.id
        for r in rows
        if {"passengers", "compensated"}
        <= set(r.original_fol.casefold().replace("(", " ").replace(")", " ").split())
    ]
    assert words["shown"] == len(both) >= 1 and words["item"]["id"] in both
    assert page_view(rows, Filters(text="passengers nowhere-at-all"))["shown"] == 0
    assert Filters(text="a b").url(ID_301) == "/?q=a+b&id=" + ID_301.replace("/", "%2F")


@pytest.mark.prover
def test_the_live_evidence_explains_the_provers_label_against_the_drafts(
    queue: Path, engine: FeedbackEngine
) -> None:
    actions = Actions(queue, engine, "ann")
    fol = row(queue, ID_1201).original_fol.split("\n")
    status, reply = actions.check(ID_1201, fol)  # the draft keeps the gold label, True
    assert status == 200 and reply["label"] == "Uncertain"
    assert reply["evidence"].startswith("the conclusion can fail: domain {")
    # the countermodel comes as a table too: kiwi is a bird that does not fly there
    [model] = reply["models"]
    assert model is not None and model["elements"] == ["centralAviary"]
    assert {r["name"]: r["cells"] for r in model["unary"]}["Bird"] == ["✓"]
    # relabelled Uncertain, as the provers say: nothing left to explain
    assert actions.check(ID_1201, fol, "Uncertain")[1]["evidence"] == ""


def test_the_rows_evidence_shows_and_findings_when_a_row_has_them(queue: Path) -> None:
    rows = read_queue(queue)
    item = page_view(rows, Filters())["item"]
    assert item["id"] == ID_203 and item["evidence"] == [WHY_203] and item["optional"] == {}
    rows[0] = rows[0].replace(findings=HOSTILE)
    assert page_view(rows, Filters())["item"]["optional"] == {"findings": HOSTILE}


# --- security -------------------------------------------------------------------------------


def hostile_queue(tmp_path: Path) -> Path:
    path = tmp_path / "hostile.csv"
    hostile = QueueRow.from_cells(
        {
            "id": "folio-v2/validation/1",
            "reason": f"label_mismatch{HOSTILE}",
            "nl_premises": f"All dogs bark.{HOSTILE}\nRex is a dog.",
            "original_fol": f"∀x (Dog(x) → Bark(x))\nDog(rex) {HOSTILE}\nBark(rex)",
            "conclusion": '=HYPERLINK("http://evil.example","x")',
            "gold_label": "True",
            "critique": f"label: {HOSTILE}",
            "evidence": f"proves the conclusion: {HOSTILE}",
        }
    )
    write_rows(path, [hostile])
    return path


def test_every_dataset_string_is_escaped(tmp_path: Path, engine: FeedbackEngine) -> None:
    page = client(hostile_queue(tmp_path), engine).get("/").text
    assert "<img" not in page and "window.__pwned=2</script>" not in page
    assert page.count("&lt;script&gt;window.__pwned=2&lt;/script&gt;") >= 5
    assert "=HYPERLINK(&#34;http://evil.example&#34;,&#34;x&#34;)" in page
    # the data handed to the script: JSON with <, > and & escaped, parsed back intact
    data = page.split('<script type="application/json" id="item-data">', 1)[1]
    data = data.split("</script>", 1)[0]
    assert "<" not in data
    assert json.loads(data)["original"][1] == f"Dog(rex) {HOSTILE}"


def test_posts_need_the_pages_csrf_token_json_and_no_foreign_origin(
    queue: Path, engine: FeedbackEngine
) -> None:
    web = client(queue, engine)
    token = csrf_of(web.get("/").text)
    body = {"id": ID_203, "decision": "skip", "seen": decision_version(row(queue, ID_203))}
    before = queue.read_bytes()
    assert web.post("/api/decide", json=body).status_code == 403
    assert web.post("/api/decide", json=body, headers={"X-CSRF-Token": "guess"}).status_code == 403
    foreign = {"X-CSRF-Token": token, "Origin": "http://evil.example"}
    assert web.post("/api/decide", json=body, headers=foreign).status_code == 403
    form = web.post(
        "/api/decide", data={"id": ID_203}, headers={"X-CSRF-Token": token}
    )  # a form post
    assert form.status_code == 415
    assert queue.read_bytes() == before
    ok = web.post("/api/decide", json=body, headers={"X-CSRF-Token": token, "Origin": LOCAL})
    assert ok.status_code == 200 and row(queue, ID_203).decision == "skip"
    missing = web.post("/api/decide", json={"id": ID_203}, headers={"X-CSRF-Token": token})
    assert missing.status_code == 422  # no decision, no seen: FastAPI says which fields


def test_a_chunked_body_over_the_limit_is_refused_without_being_read(
    queue: Path, engine: FeedbackEngine
) -> None:
    web = client(queue, engine)
    headers = {"X-CSRF-Token": csrf_of(web.get("/").text), "Content-Type": "application/json"}
    sent = 0

    def chunks(total: int) -> Iterator[bytes]:  # no Content-Length: sent chunked
        nonlocal sent
        piece = b" " * 65536
        while sent < total:
            sent += len(piece)
            yield piece

    before = queue.read_bytes()
    big = web.post("/api/check", content=chunks(20 * 1024 * 1024), headers=headers)
    assert big.status_code == 413 and big.text == "request too large"
    assert queue.read_bytes() == before
    # a chunked body within the limit still reaches the page's handler
    seen = decision_version(row(queue, ID_203))
    small = json.dumps({"id": ID_203, "decision": "skip", "seen": seen}).encode()
    ok = web.post("/api/decide", content=iter([small[:10], small[10:]]), headers=headers)
    assert ok.status_code == 200 and row(queue, ID_203).decision == "skip"


def test_with_a_token_every_request_needs_it(queue: Path, engine: FeedbackEngine) -> None:
    web = client(queue, engine, token="s3cret-token")
    assert web.get("/").status_code == 401
    assert web.get("/static/review.js").status_code == 401
    assert web.get("/?token=wrong").status_code == 401
    first = web.get("/?token=s3cret-token&id=x", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/?id=x"
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("samesite", "SameSite")
    assert web.get("/").status_code == 200  # the client now sends the cookie
    other = TestClient(
        create_app(queue, engine, reviewer="x", token="s3cret-token"), base_url="http://192.0.2.1"
    )
    assert other.get("/", headers={"X-Refinery-Token": "s3cret-token"}).status_code == 200


def test_without_a_token_only_loopback_hosts_are_answered(
    queue: Path, engine: FeedbackEngine
) -> None:
    app = create_app(queue, engine, reviewer="ann")
    for base in (LOCAL, "http://localhost:1", "http://[::1]:1"):
        assert TestClient(app, base_url=base).get("/").status_code == 200
    rebound = TestClient(app, base_url="http://evil.example:8765")
    assert rebound.get("/").status_code == 403  # a DNS name rebound to 127.0.0.1


def test_no_request_reaches_a_path_outside_the_page(queue: Path, engine: FeedbackEngine) -> None:
    web = client(queue, engine)
    assert web.get("/static/review.js").headers["content-type"].startswith("text/javascript")
    for path in (
        "/static/../app.py",
        "/static/%2e%2e%2fapp.py",
        "/static/..%2F..%2Fqueue.py",
        "/static/page.html",
        "/etc/passwd",
        "/api/check",
    ):
        assert web.get(path).status_code in (404, 405), path
    headers = web.get("/").headers
    policy = headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe" not in policy
    assert headers["x-content-type-options"] == "nosniff"


def test_serving_beyond_this_machine_needs_a_token(queue: Path, engine: FeedbackEngine) -> None:
    with pytest.raises(RefineryError, match="drop --no-token"):
        serve(queue, engine, reviewer="ann", host="0.0.0.0", port=0)


def test_a_queue_that_cannot_be_read_gets_a_clear_error(
    queue: Path, engine: FeedbackEngine
) -> None:
    web = client(queue, engine)
    token = csrf_of(web.get("/").text)
    queue.write_text("ident,decision\r\nx,skip\r\n", encoding="utf-8")  # a broken re-save
    before = queue.read_bytes()
    page = web.get("/")
    assert page.status_code == 500 and "the queue cannot be read" in page.text
    assert "no 'id' column" in page.text
    body = {"id": "x", "decision": "skip", "seen": ""}
    reply = web.post("/api/decide", json=body, headers={"X-CSRF-Token": token})
    assert reply.status_code == 500 and queue.read_bytes() == before
