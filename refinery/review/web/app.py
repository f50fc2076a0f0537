"""`refinery review serve`: the review page over one queue, as a local web app (FastAPI).

Secure by default:

- it binds 127.0.0.1 and, unless `--no-token`, makes a token every request must carry (the
  printed address has ``?token=…``; the first visit turns it into an HttpOnly, SameSite=Strict
  cookie and drops it from the address bar): any user of the machine can reach 127.0.0.1, and
  would decide items in the server owner's name; any other address needs the token;
- without a token, a request must name a loopback host (a rebound DNS name is refused);
- every POST carries the page's CSRF token in a header, a JSON body, and no foreign Origin;
- every dataset string is escaped by Jinja2's autoescape, the script writes text only
  (``textContent``), and the Content-Security-Policy allows no inline script at all;
- no endpoint takes a path: the queue (with its lock and conflict log beside it) is fixed at
  start, and the only files served are the page's own script and style sheet.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import uvicorn
from fastapi import FastAPI, Query, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse
from jinja2 import Environment, PackageLoader
from pydantic import BaseModel, Field

from refinery.errors import DataError, RefineryError
from refinery.review.feedback import FeedbackEngine
from refinery.review.journal import history
from refinery.review.record import read_conflicts
from refinery.review.sheet import read_queue
from refinery.review.web.actions import Actions
from refinery.review.web.page import Filters, history_view, page_view

COOKIE = "refinery_token"
_STATIC = {"review.js": "text/javascript", "review.css": "text/css"}
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
_MAX_BODY = 256 * 1024
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


class CheckRequest(BaseModel):
    """The live check: the page's FOL boxes, premises then the conclusion, and the draft label."""

    id: str = Field(max_length=500)
    fol: list[str] = Field(max_length=500)
    label: str = Field(default="", max_length=40)


class UndoRequest(BaseModel):
    """Undo the item's last saved decision (see `Actions.undo`)."""

    id: str = Field(max_length=500)
    seen: str = Field(max_length=64)


class StoryFixRequest(BaseModel):
    """A premise fix for the story's other items (see `Actions.story_fix`)."""

    id: str = Field(max_length=500)
    fol: list[str] = Field(max_length=500)
    reviewer: str = Field(default="", max_length=200)


class DecideRequest(BaseModel):
    """A decision as the page sends it (see `Actions.decide`)."""

    id: str = Field(max_length=500)
    decision: str = Field(max_length=40)
    fol: list[str] = Field(default_factory=list, max_length=500)
    label: str = Field(default="", max_length=40)
    note: str = Field(default="", max_length=20_000)
    reviewer: str = Field(default="", max_length=200)
    seen: str = Field(max_length=64)
    confirm: str = Field(default="", max_length=100)


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address, IPv6 maybe in brackets) is this machine only."""
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _same(supplied: str | None, expected: str) -> bool:
    return secrets.compare_digest((supplied or "").encode(), expected.encode())


def create_app(
    queue: Path, engine: FeedbackEngine, *, reviewer: str, token: str | None = None
) -> FastAPI:
    """The review page's app over `queue`; `token`, when given, is required on every request."""
    actions = Actions(queue, engine, reviewer)
    csrf = secrets.token_urlsafe(32)
    templates = Environment(
        loader=PackageLoader("refinery.review.web", "templates"), autoescape=True
    )
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(_BodyLimit, limit=_MAX_BODY)  # inside `guard`, which is added after

    @app.middleware("http")
    async def guard(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        refusal = _refusal(request, token, csrf)
        if refusal is not None:
            response: Response = refusal
        elif token and "token" in request.query_params:
            # keep the token out of the address bar, history and logs: a cookie from here on
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            response = RedirectResponse(
                request.url.path + ("?" + urlencode(rest) if rest else ""), status_code=303
            )
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        else:
            response = await call_next(request)
        response.headers.update(_HEADERS)
        return response

    @app.exception_handler(RefineryError)
    async def refinery_error(request: Request, error: RefineryError) -> JSONResponse:
        # e.g. the queue is locked by another writer for too long: say so, change nothing
        return JSONResponse({"status": "refused", "problems": [str(error)]}, status_code=503)

    @app.exception_handler(ValueError)
    @app.exception_handler(DataError)  # a RefineryError too, but about the file, not a lock
    async def unreadable(request: Request, error: ValueError) -> PlainTextResponse:
        # e.g. a spreadsheet saved the queue without its id column: say so, write nothing
        return PlainTextResponse(f"the queue cannot be read: {error}", status_code=500)

    @app.get("/", response_class=HTMLResponse)
    def page(
        item: str = Query("", alias="id", max_length=500),
        reason: str = Query("", max_length=200),
        reviewer_filter: str = Query("", alias="reviewer", max_length=200),
        search: str = Query("", alias="q", max_length=200),
    ) -> HTMLResponse:
        filters = Filters(reason, reviewer_filter, search)
        view = page_view(read_queue(queue), filters, item, read_conflicts(queue))
        shown = view["item"]
        if shown is not None:
            shown["history"] = history_view(history(queue, shown["id"]))
        data: dict[str, Any] = {"reviewer": reviewer, "empty": shown is None}
        if shown is not None:
            keys = ("id", "seen", "gold", "suggested", "prev_url", "next_url", "next_open_url")
            data |= {k: shown[k] for k in (*keys, "draft_label", "note", "has_proposal")}
            data["decided"] = bool(shown["decision"]["decision"])
            data["proposed_fol"] = shown["proposed_fol"]
            data["story_open"] = shown["story_open"]
            data["evidence"] = shown["evidence"]
            data["evidence_models"] = shown["evidence_models"]
            data["original"] = [f["original"] for f in shown["formulas"]]
        html = templates.get_template("page.html").render(
            view=view, queue=queue.name, csrf=csrf, data=data
        )
        return HTMLResponse(html)

    @app.get("/static/{name}")
    def static(name: str) -> Response:
        if name not in _STATIC:  # an allow-list: no path reaches the file system
            return PlainTextResponse("not found", status_code=404)
        text = (resources.files("refinery.review.web") / "static" / name).read_text("utf-8")
        return Response(text, media_type=_STATIC[name])

    @app.post("/api/check")
    def check(body: CheckRequest) -> JSONResponse:
        status, reply = actions.check(body.id, body.fol, body.label)
        return JSONResponse(reply, status_code=status)

    @app.post("/api/decide")
    def decide(body: DecideRequest) -> JSONResponse:
        status, reply = actions.decide(
            body.id,
            body.decision,
            fol=body.fol,
            label=body.label,
            note=body.note,
            reviewer=body.reviewer,
            seen=body.seen,
            confirm=body.confirm,
        )
        return JSONResponse(reply, status_code=status)

    @app.post("/api/undo")
    def undo(body: UndoRequest) -> JSONResponse:
        status, reply = actions.undo(body.id, body.seen)
        return JSONResponse(reply, status_code=status)

    @app.post("/api/story-fix")
    def story_fix(body: StoryFixRequest) -> JSONResponse:
        status, reply = actions.story_fix(body.id, body.fol, body.reviewer)
        return JSONResponse(reply, status_code=status)

    return app


# the ASGI interface, as `_BodyLimit` speaks it (FastAPI's own types are Starlette's)
Message = MutableMapping[str, Any]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _BodyLimit:
    """Refuse a request body over `limit` bytes however it is sent: a Content-Length over it
    at once, a chunked body as soon as the bytes that arrived pass it (never read further)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        too_large = PlainTextResponse("request too large", status_code=413)
        declared = dict(scope.get("headers") or []).get(b"content-length", b"0")
        if int(declared or 0) > self.limit:
            await too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await too_large(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body, given = b"".join(chunks), False

        async def replay() -> Message:
            nonlocal given
            if given:
                return await receive()
            given = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _refusal(request: Request, token: str | None, csrf: str) -> Response | None:
    """Why `request` is refused, as the response to send; None when it may go on."""
    if token:
        supplied = (
            request.query_params.get("token")
            or request.headers.get("x-refinery-token")
            or request.cookies.get(COOKIE)
        )
        if not _same(supplied, token):
            return PlainTextResponse(
                "a token is required: open the address `refinery review serve` printed",
                status_code=401,
            )
    elif not is_loopback(urlsplit(f"//{request.headers.get('host', '')}").hostname or ""):
        return PlainTextResponse("this page answers on 127.0.0.1 only", status_code=403)
    if request.method != "GET":
        origin = request.headers.get("origin")
        if origin and urlsplit(origin).netloc != request.headers.get("host"):
            return PlainTextResponse("cross-site request refused", status_code=403)
        if not _same(request.headers.get("x-csrf-token"), csrf):
            return PlainTextResponse("missing or wrong CSRF token: reload the page", 403)
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return PlainTextResponse("send JSON", status_code=415)
    return None


def serve(
    queue: Path,
    engine: FeedbackEngine,
    *,
    reviewer: str,
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve the review page until interrupted; `announce` gets the address to open.

    Raises `RefineryError` for a non-loopback `host` without a token, or a port in use.
    """
    if not token and not is_loopback(host):
        raise RefineryError(f"--host {host} lets other machines reach the queue: drop --no-token")
    app = create_app(queue, engine, reviewer=reviewer, token=token)
    try:
        # bound here, not by uvicorn, so that port 0 (any free port) can be announced
        sock = socket.create_server((host.strip("[]"), port))
    except OSError as error:
        raise RefineryError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    bound = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    url = f"http://{shown}:{bound}/" + ("?" + urlencode({"token": token}) if token else "")
    config = uvicorn.Config(app, log_level="warning", access_log=False, server_header=False)
    announce(f"reviewing {queue} at {url} (Ctrl-C stops)")
    uvicorn.Server(config).run(sockets=[sock])
