"""The TUI in a browser, through textual-serve.

textual-serve answers a page and a websocket, and starts one TUI process per browser tab,
driven over that websocket. What changes from its stock server: the page no longer asks a
font host for Roboto Mono (this tool sends nothing off the machine; the font textual-serve
ships is used instead); the listening port is bound before the page's URLs are made, so
``--port 0`` picks a free port and the printed address is the one that works; the page's
URLs name the address the browser used; and the terminal has the keyboard from the start.

Anyone who can reach the port can browse the traces: it listens on loopback unless told
otherwise (the command line asks for an explicit flag and warns).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import shlex
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["ServeError", "is_loopback", "serve", "tui_command"]

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


class ServeError(Exception):
    """The server cannot start (textual-serve missing, address in use…); one line, exit 2."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _names_this_machine(request: Any) -> bool:
    """Whether a request's ``Host`` names one of this machine's loopback addresses: what a
    browser on this machine, or at the end of an SSH tunnel, sends."""
    try:
        name = request.url.host  # (aiohttp's parse of the Host header: [::1]:8000 is ::1)
    except ValueError:  # a Host that is no host
        return False
    return bool(name) and is_loopback(name)


def tui_command(paths: Sequence[str]) -> str:
    """The shell command textual-serve runs per browser tab (in this process's folder, so the
    paths stay as given and the TUI shows the same addresses as the command line)."""
    return shlex.join([sys.executable, "-c", _BOOT, *paths])


def serve(
    paths: Sequence[str],
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve the TUI on ``paths`` until interrupted; ``on_ready`` gets the page's URL."""
    try:
        from textual_serve.server import Server
    except ImportError:
        raise ServeError("serve needs textual-serve: pip install textual-serve") from None
    server = _make_server(Server, tui_command(paths), host, port)
    logging.basicConfig(level=logging.WARNING, format="replay-tui serve: %(message)s")
    try:
        asyncio.run(_run(server, host, port, on_ready))
    except OSError as exc:
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def _make_server(base: Any, command: str, host: str, port: int) -> Any:
    import aiohttp_jinja2
    import jinja2
    from aiohttp import web

    local_only = is_loopback(host)

    @web.middleware
    async def this_machine_only(request: web.Request, handler: Any) -> web.StreamResponse:
        # Served on loopback, a request naming another host is a web page elsewhere that
        # had its name resolve to 127.0.0.1 (DNS rebinding), after the traces.
        if local_only and not _names_this_machine(request):
            raise web.HTTPForbidden(text="replay-tui serve answers this machine's own addresses\n")
        response: web.StreamResponse = await handler(request)
        return response

    class _Server(base):  # type: ignore[misc]
        public_url: str

        async def _make_app(self) -> Any:
            app = await super()._make_app()
            app.middlewares.append(this_machine_only)
            source = (Path(self.templates_path) / "app_index.html").read_text("utf-8")
            source = _FONT_LINK.sub(_FONT_FACE, source).replace("</body>", _FOCUS)
            aiohttp_jinja2.setup(app, loader=jinja2.DictLoader({"app_index.html": source}))
            return app

        async def handle_index(self, request: web.Request) -> Any:
            """The page, its script and its websocket at the address the browser used: the
            name it knows this machine by (another machine's, through an SSH tunnel's port),
            not the name this machine gives itself, which the browser may not resolve."""
            forwarded = request.headers.get("X-Forwarded-Proto", "")
            scheme = "https" if request.secure or forwarded == "https" else "http"
            public, self.public_url = self.public_url, f"{scheme}://{request.host}"
            try:  # (no await in textual-serve's handler: no other request runs meanwhile)
                return await super().handle_index(request)
            finally:
                self.public_url = public

        async def on_startup(self, app: Any) -> None:
            """Quiet: the command line says where it serves."""

    return _Server(command, host=host, port=port, title="replay-tui")


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
        if on_ready is not None:
            on_ready(server.public_url + "/")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()
