"""``replay-tui upstream``: a mock OpenAI-compatible provider that streams captures.

Point a gateway at it as if it were the provider: each chat completion request is answered
with a capture — the one its ``X-Replay-Trace: NAME`` header names, else one whose name or
stream ``model`` the request's ``model`` (or Azure deployment) names, else the next in turn —
streamed event by event with the bytes the capture holds (:mod:`.captures`). A request
without ``"stream": true`` gets the completion the stream assembles to. ``GET /v1/models``
lists the captures' models.

Every problem with a request is a 4xx JSON error in OpenAI's shape, never a traceback. Served
on loopback, a request whose ``Host`` names another machine is refused (a web page elsewhere,
DNS-rebound to this port, would otherwise read the captures).

aiohttp, as the recorder: ``await start()`` binds and serves in the running loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

import msgspec
from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError

from replay_tui.core.hosts import foreign_request, is_loopback, listen_error
from replay_tui.core.visible import visible
from replay_tui.record.proxy import RecorderError, parse_listen

from .captures import ServedCapture, capture_named

__all__ = [
    "CHAT_PATHS",
    "DEFAULT_LISTEN",
    "TRACE_HEADER",
    "Served",
    "Upstream",
    "UpstreamError",
    "header_name",
]

log = logging.getLogger("replay_tui.upstream")
log.addHandler(logging.NullHandler())

DEFAULT_LISTEN = "127.0.0.1:8790"
TRACE_HEADER = "X-Replay-Trace"
CHAT_PATHS = (
    "/v1/chat/completions",
    "/chat/completions",
    "/openai/deployments/{deployment}/chat/completions",
)
_MAX_BODY = 64 * 1024 * 1024


class UpstreamError(Exception):
    """A start-up problem (address in use, nothing to serve), with a one-line message."""


@dataclass(slots=True)
class Served:
    """One chat request answered: which capture, chosen how, streamed or not."""

    capture: str
    chosen_by: str
    """``header``, ``name`` (the model named the capture), ``model``, or ``turn``."""
    stream: bool
    model: str | None
    completed: bool
    """The whole capture was written (false: not yet, or the client went away first). The
    entry is made before the first byte is sent, so whoever reads that byte finds it."""


def header_name(name: str) -> str:
    """A capture's name as an ``X-Replay-Trace`` value: what a header cannot carry (control
    characters, non-ASCII) percent-encoded; the upstream takes both forms."""
    return quote(name, safe=" /#:@+!$&'()*,;=[]~")


def _error(
    status: int, message: str, code: str, kind: str = "invalid_request_error"
) -> web.Response:
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return web.json_response(body, status=status)


class Upstream:
    """The mock provider over a list of captures."""

    def __init__(
        self,
        captures: Sequence[ServedCapture],
        *,
        listen: str = DEFAULT_LISTEN,
        timing: bool = False,
        allow_remote: bool = False,
    ) -> None:
        """Validate the configuration; raises :class:`UpstreamError` with a one-line message."""
        if not captures:
            raise UpstreamError("no captures to serve")
        self.captures = list(captures)
        try:
            self.host, self.port = parse_listen(listen)
        except RecorderError as exc:
            raise UpstreamError(str(exc)) from None
        self.local_only = is_loopback(self.host)
        if not self.local_only and not allow_remote:
            raise UpstreamError(
                f"--listen {self.host} can be reached from other machines: add --allow-remote"
                " if that is what you want"
            )
        self.timing = timing
        self.served: list[Served] = []
        """Every chat request answered, in order (``probe`` checks which capture it got)."""
        self._turn = 0
        self._by_model: dict[str, int] = {}
        self._runner: web.AppRunner | None = None

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def base_url(self) -> str:
        """What a gateway is given as the provider's base URL (OpenAI style, with ``/v1``)."""
        return f"http://{self.address}/v1"

    async def start(self) -> None:
        """Bind and serve; raises :class:`UpstreamError` when the address is unavailable."""
        if self._runner is not None:
            raise UpstreamError("upstream already started")
        app = web.Application(client_max_size=_MAX_BODY, middlewares=[self._guard])
        for path in CHAT_PATHS:
            app.router.add_route("*", path, self._chat)
        for path in ("/v1/models", "/models"):
            app.router.add_route("*", path, self._models)
        app.router.add_route("*", "/{tail:.*}", self._unknown)
        runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except (OSError, socket.gaierror) as exc:
            await runner.cleanup()
            reason = listen_error(exc, "another --listen HOST:PORT, or port 0 for a free one")
            raise UpstreamError(f"cannot listen on {self.address}: {reason}") from None
        self._runner = runner
        if runner.addresses:
            self.port = int(runner.addresses[0][1])

    async def stop(self) -> None:
        """Stop serving (streams in flight are cut). Safe to call twice."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def __aenter__(self) -> Upstream:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- requests -----------------------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        why = foreign_request(request, self.local_only)
        if why is not None:
            return _error(
                403, f"this mock provider serves this machine's programs only ({why})",
                "forbidden_host",
            )  # fmt: skip
        try:
            response: web.StreamResponse = await handler(request)
        except web.HTTPException as exc:  # 413 and the like: JSON, not aiohttp's text
            return _error(exc.status, exc.reason, "http_error")
        except RequestPayloadError as exc:  # (a body that is not the gzip it says it is)
            cause = exc.__cause__ if exc.__cause__ is not None else exc
            said = getattr(cause, "message", None) or str(cause)
            return _error(400, f"bad request body: {visible(str(said))}", "invalid_body")
        except Exception as exc:  # a fault of ours: one line, never a traceback
            log.warning("%s %s failed: %s: %s", request.method, visible(request.path),
                        type(exc).__name__, visible(str(exc)))  # fmt: skip
            return _error(500, f"replay-tui upstream failed: {type(exc).__name__}: {exc}",
                          "internal_error", "server_error")  # fmt: skip
        return response

    async def _unknown(self, request: web.Request) -> web.Response:
        return _error(
            404,
            f"replay-tui upstream: no route {request.method} {request.path}; chat completions"
            " are POST /v1/chat/completions, /chat/completions or"
            " /openai/deployments/NAME/chat/completions, the models GET /v1/models",
            "not_found",
        )

    async def _models(self, request: web.Request) -> web.Response:
        if request.method not in ("GET", "HEAD"):
            return _error(405, f"{request.method} {request.path}: use GET", "method_not_allowed")
        data = []
        for model in dict.fromkeys(c.model for c in self.captures if c.model):
            data.append({"id": model, "object": "model", "created": 0, "owned_by": "replay-tui"})
        return web.json_response({"object": "list", "data": data})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        if request.method != "POST":
            return _error(405, f"{request.method} {request.path}: use POST", "method_not_allowed")
        try:
            raw = await request.read()
        except (ConnectionError, ValueError) as exc:
            return _error(400, f"the request body could not be read: {exc}", "bad_body")
        try:
            body = msgspec.json.decode(raw) if raw else None
        except (msgspec.DecodeError, RecursionError, UnicodeDecodeError) as exc:
            return _error(400, f"the request body is not JSON: {exc}", "invalid_json")
        if not isinstance(body, dict):
            return _error(400, "the request body must be a JSON object", "invalid_body")
        stream = body.get("stream", False)
        if not isinstance(stream, bool):
            return _error(400, "'stream' must be true or false", "invalid_stream")
        model = body.get("model")
        if model is not None and not isinstance(model, str):
            return _error(400, "'model' must be a string", "invalid_model")
        if model is None:
            model = request.match_info.get("deployment")
        wanted = request.headers.get(TRACE_HEADER)
        if wanted is not None:
            wanted = wanted.strip()
            capture = capture_named(self.captures, wanted) or capture_named(
                self.captures, unquote(wanted)
            )
            if capture is None:
                return _error(
                    404,
                    f"{TRACE_HEADER}: no capture named {wanted!r}; GET /v1/models lists the"
                    " models, and the upstream's start-up lines list the capture names",
                    "capture_not_found",
                )
            how = "header"
        else:
            capture, how = self._choose(model)
        # What a request says is shown as JSON writes control characters, never interpreted.
        path, name = visible(request.path), visible(capture.name)
        log.info("%s %s -> %s (by %s)", request.method, path, name, how)
        if not stream:
            self.served.append(Served(capture.name, how, False, model, True))
            return web.json_response(capture.completion)
        return await self._stream(request, capture, how, model)

    def _choose(self, model: str | None) -> tuple[ServedCapture, str]:
        if model:
            named = capture_named(self.captures, model)
            if named is not None:
                return named, "name"
            same = [c for c in self.captures if c.model == model]
            if same:
                turn = self._by_model.get(model, 0)
                self._by_model[model] = turn + 1
                return same[turn % len(same)], "model"
        capture = self.captures[self._turn % len(self.captures)]
        self._turn += 1
        return capture, "turn"

    async def _stream(
        self, request: web.Request, capture: ServedCapture, how: str, model: str | None
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            status=200,
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-cache",
                TRACE_HEADER: header_name(capture.name),
            },
        )
        served = Served(capture.name, how, True, model, False)
        self.served.append(served)
        try:
            await response.prepare(request)
            delays = capture.delays() if self.timing else [0.0] * len(capture.events)
            for delay, event in zip(delays, capture.events, strict=True):
                if delay > 0:
                    await asyncio.sleep(delay)
                await response.write(event)
            with contextlib.suppress(ConnectionError):
                await response.write_eof()
            served.completed = True
        except ConnectionError:
            pass
        return response
