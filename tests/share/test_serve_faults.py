"""``replay-tui serve`` faced with a hostile page, a dropped connection, a crowd of tabs and
malformed requests (issue 29, items 1, 2 and 11): a real server process on 127.0.0.1, real
sockets, the TUI processes it starts counted in /proc."""

from __future__ import annotations

import asyncio
import http.client
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .samples import TRACES

pytest.importorskip("textual_serve")
aiohttp = pytest.importorskip("aiohttp")

_BOOT = "import sys; from replay_tui.cli import main; sys.exit(main())"


@dataclass
class Served:
    proc: subprocess.Popen[str]
    url: str
    port: int
    token: str

    def get(
        self, path: str, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        conn.request("GET", path, headers={"Host": f"127.0.0.1:{self.port}", **(headers or {})})
        response = conn.getresponse()
        body = response.read().decode("utf-8", "replace")
        conn.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body

    def stderr(self) -> str:
        """Everything the server wrote on stderr, once it is stopped."""
        self.stop()
        assert self.proc.stderr is not None
        return self.proc.stderr.read()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(timeout=20)


@pytest.fixture
def serve_proc() -> Iterator[Any]:
    started: list[Served] = []

    def start(*flags: str) -> Served:
        proc = subprocess.Popen(
            [sys.executable, "-c", _BOOT, "serve", str(TRACES), "--port", "0", *flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+)) ", line)
        assert found, line
        served = Served(proc, found.group(1), int(found.group(2)), found.group(3))
        started.append(served)
        return served

    yield start
    for served in started:
        if served.proc.poll() is None:
            served.proc.kill()
            served.proc.wait(timeout=20)


def _children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (the TUIs a server runs), from /proc."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def _wait_children(pid: int, count: int, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while True:
        kids = _children(pid)
        if len(kids) == count or time.monotonic() > deadline:
            return kids
        time.sleep(0.1)


# -- who may connect ------------------------------------------------------------------------


def test_the_printed_address_carries_a_fresh_random_token(serve_proc: Any) -> None:
    one, two = serve_proc(), serve_proc()
    assert len(one.token) >= 40 and one.token != two.token


def test_without_the_token_nothing_is_served(serve_proc: Any) -> None:
    s = serve_proc()
    for path in ("/", "/static/js/textual.js", "/ws", "/download/x", f"/?token={s.token}x"):
        status, _, body = s.get(path)
        assert status == 403, path
        assert "the address `replay-tui serve` printed" in body
    status, _, _ = s.get("/", {"Cookie": f"replay-tui-serve-{s.port}=guess"})
    assert status == 403
    err = s.stderr()
    assert "refused GET / from 127.0.0.1: no token" in err
    assert "refused GET / from 127.0.0.1: a wrong token" in err
    assert s.token not in err  # (nor is the right one ever logged)


def test_the_tokened_page_sets_a_cookie_its_own_requests_use(serve_proc: Any) -> None:
    s = serve_proc()
    status, headers, body = s.get(f"/?token={s.token}")
    assert status == 200 and "textual.js" in body
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"replay-tui-serve-{s.port}={s.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    jar = {"Cookie": f"replay-tui-serve-{s.port}={s.token}"}
    status, _, script = s.get("/static/js/textual.js", jar)
    assert status == 200 and "WebSocket" in script
    assert s.get("/", jar)[0] == 200


def _ws_status(port: int, headers: dict[str, str], path: str = "/ws") -> int:
    """The status a websocket handshake gets (101 when accepted)."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: 127.0.0.1:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version: 13",
            *(f"{k}: {v}" for k, v in headers.items()),
        ]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = sock.recv(200).decode("latin-1")
    return int(head.split()[1])


def test_a_websocket_from_a_page_elsewhere_is_refused(serve_proc: Any) -> None:
    """The browser sends the page's Origin with a websocket, and its cookies if the page is
    on the same site (127.0.0.1, another port): Origin is what tells them apart."""
    s = serve_proc()
    cookie = {"Cookie": f"replay-tui-serve-{s.port}={s.token}"}
    for origin in (
        "http://evil.example",
        f"http://127.0.0.1:{s.port + 1}",
        f"https://127.0.0.1:{s.port}",
        "null",
    ):
        assert _ws_status(s.port, {**cookie, "Origin": origin}) == 403, origin
        assert _ws_status(s.port, {"Origin": origin}, f"/ws?token={s.token}") == 403, origin
    # The page's own websocket is accepted, and its TUI ends with the server.
    assert _ws_status(s.port, {**cookie, "Origin": f"http://127.0.0.1:{s.port}"}) == 101
    assert _ws_status(s.port, {}) == 403  # no token, no cookie
    # The page itself, asked for by a page elsewhere (a form, a fetch), is refused too.
    assert s.get(f"/?token={s.token}", {"Origin": "http://evil.example"})[0] == 403
    assert s.get(f"/?token={s.token}", {"Origin": f"http://127.0.0.1:{s.port}"})[0] == 200
    err = s.stderr()
    assert "refused GET /ws from 127.0.0.1: Origin 'http://evil.example'" in err
    assert "Traceback" not in err


# -- a dropped websocket, a crowd of tabs -----------------------------------------------------


async def _connect(s: Served, session: Any) -> Any:
    return await session.ws_connect(f"ws://127.0.0.1:{s.port}/ws?token={s.token}&width=80")


def test_a_dropped_websocket_ends_its_tui_promptly(serve_proc: Any) -> None:
    """Before: 117 of 118 TUIs still ran 15 s after their connections dropped (30-36 s each).
    Dropped with no close frame, some at once and some after the TUI drew its screen."""
    s = serve_proc("--max-sessions", "12")

    async def drop() -> None:
        async with aiohttp.ClientSession() as session:
            for i in range(10):
                ws = await _connect(s, session)
                if i % 2:
                    msg = await ws.receive(timeout=60)
                    assert msg.type == aiohttp.WSMsgType.BINARY
                ws._response.connection.transport.abort()

    asyncio.run(drop())
    # The bound the issue asks for: well under the 30 s they used to outlive their tab.
    assert _wait_children(s.proc.pid, 0, 15) == []


def test_tabs_over_the_bound_are_refused_saying_why(serve_proc: Any) -> None:
    s = serve_proc("--max-sessions", "2")

    async def crowd() -> tuple[list[Any], str, int, list[int]]:
        async with aiohttp.ClientSession() as session:
            first = [await _connect(s, session) for _ in range(2)]
            for ws in first:
                assert (await ws.receive(timeout=60)).type == aiohttp.WSMsgType.BINARY
            third = await _connect(s, session)
            told = await third.receive(timeout=20)
            closed = await third.receive(timeout=20)
            running = _children(s.proc.pid)
            await first[0].close()
            # A place is free again once a tab is closed.
            again = await _connect(s, session)
            drawn = await again.receive(timeout=60)
            assert drawn.type == aiohttp.WSMsgType.BINARY
            return [told, closed], told.data.decode(), closed.data, running

    (told, closed), text, code, running = asyncio.run(crowd())
    assert told.type == aiohttp.WSMsgType.BINARY and closed.type == aiohttp.WSMsgType.CLOSE
    assert "2 browser tabs already have a TUI (at most 2: --max-sessions)" in text
    assert code == 1013
    assert len(running) == 2
    assert _wait_children(s.proc.pid, 0, 15) == []


def test_max_sessions_must_be_positive() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _BOOT, "serve", str(TRACES), "--max-sessions", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == "replay-tui: --max-sessions 0: expected 1 or more\n"


def test_the_tuis_end_with_the_server(serve_proc: Any) -> None:
    s = serve_proc()

    async def open_tabs() -> None:
        async with aiohttp.ClientSession() as session:
            tabs = [await _connect(s, session) for _ in range(2)]
            for ws in tabs:
                await ws.receive(timeout=60)
            kids = _children(s.proc.pid)
            assert len(kids) == 2
            s.proc.send_signal(signal.SIGINT)
            s.proc.wait(timeout=30)
            for kid in kids:
                assert not Path(f"/proc/{kid}").exists() or _zombie(kid), kid

    asyncio.run(open_tabs())


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


# -- malformed requests ------------------------------------------------------------------------


MALFORMED = [
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n",
    b"GET /\x00 HTTP/1.1\r\n\r\n",
    b"GET / HTTP/1.1\r\nX: " + b"a" * 70_000 + b"\r\n\r\n",
    b"GARBAGE\r\n\r\n",
]


def test_a_malformed_request_is_one_line_not_a_traceback(serve_proc: Any) -> None:
    s = serve_proc()
    for payload in MALFORMED:
        with socket.create_connection(("127.0.0.1", s.port), timeout=20) as sock:
            sock.sendall(payload)
            assert sock.recv(100).startswith(b"HTTP/1.")  # answered (400), not hung up on
    # A websocket request that is not one, and a websocket that sends what is not JSON.
    assert s.get(f"/ws?token={s.token}")[0] == 400

    async def bad_message() -> None:
        async with aiohttp.ClientSession() as session:
            ws = await _connect(s, session)
            await ws.send_str("{not json")
            while (await ws.receive(timeout=60)).type not in (
                aiohttp.WSMsgType.CLOSE,
                aiohttp.WSMsgType.CLOSED,
            ):
                pass

    asyncio.run(bad_message())
    err = s.stderr()
    assert "Traceback" not in err and "File " not in err
    lines = err.splitlines()
    assert all(line.startswith("replay-tui serve: ") for line in lines), lines
    assert any("Invalid character in Content-Length" in line for line in lines)
    assert any("Invalid char in url path" in line for line in lines)
    assert any("LineTooLong" in line for line in lines)
    assert any("a browser tab sent a malformed message" in line for line in lines)
