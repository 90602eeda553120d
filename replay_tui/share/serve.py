"""The TUI in a browser, through textual-serve.

textual-serve answers a page and a websocket, and starts one TUI process per browser tab,
driven over that websocket. What changes from its stock server: the page no longer asks a
font host for Roboto Mono (this tool sends nothing off the machine; the font textual-serve
ships is used instead); the listening port is bound before the page's URLs are made, so
``--port 0`` picks a free port and the printed address is the one that works; the page's
URLs name the address the browser used; and the terminal has the keyboard from the start.

Who may connect: the printed address carries a random token, as Jupyter's does. A request
without it (in the query, or in the cookie the tokened page load sets) is refused, and so is
a request a web page elsewhere makes (a foreign ``Origin``, or on loopback a ``Host`` that is
not this machine's: DNS rebinding). Each tab's TUI process ends when its websocket does, and
at most ``max_sessions`` run at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hmac
import logging
import re
import secrets
import shlex
import signal
import socket
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from replay_tui.core.hosts import is_loopback, listen_error, names_this_machine
from replay_tui.core.visible import visible

__all__ = [
    "DEFAULT_MAX_SESSIONS",
    "OneLine",
    "ServeError",
    "is_loopback",
    "same_origin",
    "serve",
    "tui_command",
]

DEFAULT_MAX_SESSIONS = 8
"""TUI processes (browser tabs) served at once unless ``--max-sessions`` says otherwise."""

_QUIT_GRACE = 2.0
"""Seconds a TUI gets to quit when asked, and again when terminated, before it is killed."""

_BOOT = "import sys; from replay_tui.tui.app import run_app; sys.exit(run_app(sys.argv[1:], True))"
"""What each browser tab runs: the TUI on the paths, live reload on."""

_FONT_LINK = re.compile(r"<link[^>]*//fonts\.googleapis\.com[^>]*>")
_FOCUS = """<script>
// The keys go to the TUI from the start, not after a click (which also selects in it):
// the terminal's input is focused once it exists.
(function () {
  const timer = setInterval(function () {
    const input = document.querySelector("#terminal textarea");
    if (input && document.body.classList.contains("-first-byte")) {
      input.focus({ preventScroll: true });
      clearInterval(timer);
    }
  }, 100);
  setTimeout(function () { clearInterval(timer); }, 30000);
})();
</script>
</body>"""
_FONT_FACE = (
    "<style>@font-face{font-family:'Roboto Mono';"
    "src:url('{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf')}</style>"
)

log = logging.getLogger("replay_tui.serve")

_ENDING: contextvars.ContextVar[list[bool]] = contextvars.ContextVar("_ENDING")
"""Set (a one-element list, shared with the tasks a session starts) once this server ends a
tab's TUI: textual-serve then logs "Application failed to start" for one ended early."""


def _not_ended_by_us(record: logging.LogRecord) -> bool:
    return not _ENDING.get([False])[0]


class ServeError(Exception):
    """The server cannot start (textual-serve missing, address in use…); one line, exit 2."""


def _scheme(request: Any) -> str:
    """The scheme the browser used (``https`` behind a TLS-terminating proxy that says so)."""
    forwarded = request.headers.get("X-Forwarded-Proto", "")
    return "https" if request.secure or forwarded == "https" else "http"


def same_origin(origin: str, scheme: str, host: str) -> bool:
    """Whether a request's ``Origin`` is the page this server serves at ``scheme://host``
    (``host`` as the ``Host`` header names it). ``null`` and anything unparsable are not."""
    from yarl import URL

    try:
        theirs = URL(origin)
        ours = URL(f"{scheme}://{host}")
        return (
            theirs.scheme.lower() == ours.scheme.lower()
            and (theirs.host or "").lower() == (ours.host or "").lower()
            and theirs.port == ours.port
            and bool(ours.host)
        )
    except (ValueError, TypeError):
        return False


def tui_command(paths: Sequence[str]) -> str:
    """The shell command textual-serve runs per browser tab (in this process's folder, so the
    paths stay as given and the TUI shows the same addresses as the command line)."""
    return shlex.join([sys.executable, "-c", _BOOT, *paths])


def serve(
    paths: Sequence[str],
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve the TUI on ``paths`` until interrupted; ``on_ready`` gets the page's URL, token
    included (the only way in)."""
    try:
        from textual_serve.server import Server
    except ImportError:
        raise ServeError("serve needs textual-serve: pip install textual-serve") from None
    _configure_logging()
    server = _make_server(Server, tui_command(paths), host, port, max_sessions)
    try:
        asyncio.run(_run(server, host, port, on_ready))
    except OSError as exc:
        reason = listen_error(exc, _PORT_ADVICE)
        raise ServeError(f"cannot listen on {host}:{port}: {reason}") from None


class OneLine(logging.Formatter):
    """A client's malformed request is one line (what aiohttp refused and why), not a
    traceback; anything else keeps its traceback (a bug to report)."""

    def format(self, record: logging.LogRecord) -> str:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None or not _client_fault(exc):
            return super().format(record)
        # (a copy, so that other handlers of the record still see its traceback)
        quiet = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None})
        return f"{super().format(quiet)}: {_one_line(exc)}"


def _client_fault(exc: BaseException) -> bool:
    from aiohttp import http_exceptions, web
    from aiohttp.web_protocol import RequestPayloadError

    faults = (http_exceptions.HttpProcessingError, web.HTTPClientError, RequestPayloadError)
    return isinstance(exc, faults)


def _one_line(exc: BaseException) -> str:
    """``400 Invalid character in Content-Length`` from aiohttp's multi-line message."""
    cause = exc.__cause__  # (aiohttp's RequestPayloadError: what it says is its cause's)
    if cause is not None and getattr(cause, "message", None):
        exc = cause
    text = getattr(exc, "message", None) or getattr(exc, "text", None) or str(exc)
    first = next((line.strip() for line in str(text).splitlines() if line.strip()), "")
    return visible(f"{type(exc).__name__}: {first.rstrip(':')}"[:200])


def _configure_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine("replay-tui serve: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("textual-serve").addFilter(_not_ended_by_us)


_PORT_ADVICE = "--port picks another, --port 0 a free one"


def _make_server(base: Any, command: str, host: str, port: int, max_sessions: int) -> Any:
    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.app_service import AppService

    local_only = is_loopback(host)
    token = secrets.token_urlsafe(32)

    def refuse(request: web.Request, why: str, text: str) -> web.HTTPForbidden:
        where = visible(f"{request.method} {request.path[:200]}")
        log.warning("refused %s from %s: %s", where, request.remote, visible(why))
        return web.HTTPForbidden(text=f"replay-tui serve: {text}\n")

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        # Served on loopback, a request naming another host is a web page elsewhere that
        # had its name resolve to 127.0.0.1 (DNS rebinding), after the traces.
        if local_only and not names_this_machine(request):
            raise refuse(request, "Host", "this server answers this machine's own addresses")
        # A page elsewhere can point a websocket (or a form) here: the browser says whose
        # page it is in Origin, which that page cannot forge.
        origin = request.headers.get("Origin")
        if origin is not None and not same_origin(origin, _scheme(request), request.host):
            raise refuse(request, f"Origin {origin[:100]!r}", "a page elsewhere cannot use it")
        given = request.query.get("token")
        tokened = given is not None and hmac.compare_digest(given.encode(), token.encode())
        cookie = request.cookies.get(server.cookie_name)
        if not tokened and not (cookie and hmac.compare_digest(cookie.encode(), token.encode())):
            raise refuse(
                request,
                "a wrong token" if given is not None or cookie else "no token",
                "open the address `replay-tui serve` printed (it carries the token)",
            )
        response: web.StreamResponse = await handler(request)
        if tokened and not response.prepared:
            # The page's own requests (script, styles, font, websocket) carry it from here.
            response.set_cookie(
                server.cookie_name, token, httponly=True, samesite="Strict", path="/"
            )
        return response

    class _Tui(AppService):
        """One tab's TUI: run without a shell (so ending it ends the TUI, not a shell), and
        its output drained to the end even once the tab is gone (else it blocks writing,
        and never reads the request to quit)."""

        async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
            env = self._build_environment(width=width, height=height)
            pipe = asyncio.subprocess.PIPE
            process = await asyncio.create_subprocess_exec(
                *shlex.split(self.command), stdin=pipe, stdout=pipe, stderr=pipe, env=env
            )
            self._process, self._stdin = process, process.stdin
            return process

        async def on_data(self, payload: bytes) -> None:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.remote_write_bytes(payload)

        async def on_meta(self, data: bytes) -> None:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await super().on_meta(data)

        async def end(self) -> None:
            """Ask the TUI to quit; terminate it, then kill it, if it does not in time."""
            process, task = self._process, self._task
            if process is not None and process.returncode is None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.send_meta({"type": "quit"}), _QUIT_GRACE)
                for stop in (process.terminate, process.kill):
                    if await _exited(process, _QUIT_GRACE):
                        break
                    with contextlib.suppress(ProcessLookupError):
                        stop()
                await _exited(process, _QUIT_GRACE)
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                self._task = None

    class _Server(base):  # type: ignore[misc]
        public_url: str
        cookie_name = "replay-tui-serve"
        sessions: set[_Tui]

        async def _make_app(self) -> Any:
            app = await super()._make_app()
            app.middlewares.append(guard)
            source = (Path(self.templates_path) / "app_index.html").read_text("utf-8")
            source = _FONT_LINK.sub(_FONT_FACE, source).replace("</body>", _FOCUS)
            aiohttp_jinja2.setup(app, loader=jinja2.DictLoader({"app_index.html": source}))
            return app

        @property
        def token(self) -> str:
            return token

        async def handle_index(self, request: web.Request) -> Any:
            """The page, its script and its websocket at the address the browser used: the
            name it knows this machine by (another machine's, through an SSH tunnel's port),
            not the name this machine gives itself, which the browser may not resolve."""
            public, self.public_url = self.public_url, f"{_scheme(request)}://{request.host}"
            try:  # (no await in textual-serve's handler: no other request runs meanwhile)
                return await super().handle_index(request)
            finally:
                self.public_url = public

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
            """textual-serve's handler, but the TUI ends when the websocket does (at once,
            whichever side ends it), and no more than ``max_sessions`` run at once."""
            websocket = web.WebSocketResponse(heartbeat=15)
            if not websocket.can_prepare(request).ok:
                raise web.HTTPBadRequest(text="replay-tui serve: expected a websocket\n")
            if len(self.sessions) >= max_sessions:
                log.warning("refused a browser tab: %d already open", len(self.sessions))
                await websocket.prepare(request)
                # Binary frames are written to the page's terminal: the tab says why.
                message = (
                    f"\r\n  replay-tui serve: {len(self.sessions)} browser tabs already have a"
                    f" TUI (at most {max_sessions}: --max-sessions).\r\n"
                    "  Close one, then reload this page.\r\n"
                )
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await websocket.send_bytes(message.encode())
                    await websocket.close(code=1013, message=b"too many sessions")
                return websocket
            width = _int(request.query.get("width"), 80)
            height = _int(request.query.get("height"), 24)

            async def close() -> None:  # (the TUI quit: the tab's page says it closed)
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await websocket.close()

            service = _Tui(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=close,
                download_manager=self.download_manager,
            )
            self.sessions.add(service)
            ending = [False]
            _ENDING.set(ending)  # (before start: its tasks get this context)
            try:
                await websocket.prepare(request)
                await service.start(width, height)
                try:
                    await self._process_messages(websocket, service)
                except ConnectionError:
                    pass
                except _MALFORMED as exc:  # (textual-serve asserts, indexes, decodes JSON)
                    log.warning(
                        "a browser tab sent a malformed message (%s): its TUI ends",
                        visible(repr(exc)[:200]),
                    )
            finally:
                # Cancelled on the way (the server stopping), the session stays listed, and
                # the server's end_all ends it.
                ending[0] = True
                await service.end()
                self.sessions.discard(service)
            with contextlib.suppress(ConnectionError, RuntimeError):
                await websocket.close()
            return websocket

        async def end_all(self) -> None:
            await asyncio.gather(*(s.end() for s in list(self.sessions)))

        async def on_startup(self, app: Any) -> None:
            """Quiet: the command line says where it serves."""

    server = _Server(command, host=host, port=port, title="replay-tui")
    server.sessions = set()
    return server


_MALFORMED = (ValueError, TypeError, KeyError, IndexError, AttributeError, AssertionError)


def _int(text: str | None, default: int) -> int:
    try:
        return max(1, min(int(text or ""), 1000))
    except ValueError:
        return default


async def _exited(process: Any, seconds: float) -> bool:
    """Whether ``process`` has exited within ``seconds`` (its return code, not its pipes:
    asyncio's ``wait()`` also waits for those to close)."""
    deadline = time.monotonic() + seconds
    while process.returncode is None and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return process.returncode is not None


async def _run(server: Any, host: str, port: int, on_ready: Callable[[str], None] | None) -> None:
    from aiohttp import web

    app = await server._make_app()
    # On Ctrl+C, open tabs' websockets are cut after a second rather than waited for (their
    # handlers then stop the TUI processes they run).
    runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
        sockets = getattr(site._server, "sockets", None) or []
        bound = next((s.getsockname()[1] for s in sockets), port)
        shown = f"[{host}]" if ":" in host else host
        if host in ("0.0.0.0", "::"):
            shown = socket.gethostname()
        server.public_url = f"http://{shown}:{bound}"
        # Cookies do not tell ports apart: one per server, so two on one machine both work.
        server.cookie_name = f"replay-tui-serve-{bound}"
        if on_ready is not None:
            on_ready(f"{server.public_url}/?token={server.token}")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()
        await server.end_all()
