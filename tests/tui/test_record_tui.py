"""``replay-tui record … --tui``: the recorder runs inside the TUI, its address and requests shown.

A fake upstream on 127.0.0.1 plays one SSE response; everything listens on loopback with
OS-chosen ports, and every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from replay_tui.cli.record import configure, recorder_from_args
from replay_tui.tui.app import make_app
from replay_tui.tui.recording import RecorderStatus

from .conftest import SIZE, until

WAIT = 5.0
BODY = (
    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1",'
    b'"function":{"name":"f","arguments":""}}]}}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"",'
    b'"function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}\n\n'
    b"data: [DONE]\n\n"
)


@pytest.fixture
async def upstream() -> AsyncIterator[str]:
    """A gateway stand-in on a free loopback port that streams ``BODY``."""

    async def handle(request: web.Request) -> web.StreamResponse:
        await request.read()
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        await resp.write(BODY)
        await resp.write_eof()
        return resp

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    configure(parser)
    return parser.parse_args(list(argv))


async def test_record_tui_shows_the_proxy_address_and_live_request_count(
    upstream: str, tmp_path: Path
) -> None:
    out = tmp_path / "captures"
    args = _args("--upstream", upstream, "--listen", "127.0.0.1:0", "--out", str(out), "--tui")
    recorder = recorder_from_args(args)
    app = make_app([str(out)], recorder=recorder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert recorder.running and out.is_dir()  # started before the screen, folder made
        status = app.query_one(RecorderStatus)
        assert status.status_text == (
            f"● REC  {recorder.url} → {upstream}  ·  0 requests  ·  0 captures in {out}/"
        )
        assert recorder.port != 0
        await until(pilot, lambda: app.discovered)
        said = "\n".join(app.details.copy_text())
        assert (
            f"Waiting for the first capture: point the agent's base URL at {recorder.url}" in said
        )
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as client,
            client.post(f"{recorder.url}/v1/chat/completions", json={"stream": True}) as resp,
        ):
            assert await resp.read() == BODY
        deadline = time.monotonic() + WAIT
        while "1 request " not in status.status_text:
            assert time.monotonic() < deadline, status.status_text
            await pilot.pause(0.01)
        assert "1 request  ·  1 capture in" in status.status_text
        # Narrower than the line: the folder goes, then the upstream, never a word cut
        # ("0 requests · 0 c…"); still narrower, it ends in "…".
        line = f"● REC  {recorder.url} → {upstream}  ·  1 request  ·  1 capture"
        for width, said in [(len(line) + 2, line), (60, f"● REC  {recorder.url}  ·  1 request")]:
            await pilot.resize_terminal(width, 24)
            await until(pilot, lambda w=width: 0 < status.size.width <= w)
            await pilot.pause()
            shown = "".join(s.text for s in status.render_line(0)).strip()
            assert shown.startswith(said), shown
        await pilot.resize_terminal(30, 24)
        await until(pilot, lambda: 0 < status.size.width <= 30)
        await pilot.pause()
        shown = "".join(s.text for s in status.render_line(0)).rstrip()
        assert shown.endswith("…") and shown.lstrip().startswith("● REC")
    # Leaving the app stopped the recorder; the capture is complete on disk.
    assert not recorder.running
    captures = [p for p in out.iterdir() if p.suffix == ".sse"]
    assert len(captures) == 1 and captures[0].read_bytes() == BODY


async def test_record_tui_lists_each_new_capture_as_it_is_written(
    upstream: str, tmp_path: Path
) -> None:
    """As ``record --tui`` runs it: watching the output folder."""
    out = tmp_path / "captures"
    args = _args("--upstream", upstream, "--listen", "127.0.0.1:0", "--out", str(out))
    recorder = recorder_from_args(args)
    app = make_app([str(out)], watch=True, recorder=recorder)
    async with app.run_test(size=SIZE) as pilot:
        deadline = time.monotonic() + WAIT
        while not app.discovered:
            assert time.monotonic() < deadline
            await pilot.pause(0.01)
        assert not app.store.paths
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as client,
            client.post(f"{recorder.url}/v1/chat/completions", json={"stream": True}) as resp,
        ):
            await resp.read()
        while not app.store.paths:
            assert time.monotonic() < deadline, "the capture never appeared in the list"
            await pilot.pause(0.01)
        [address] = app.store.paths
        assert address.endswith(".sse")


async def test_record_tui_upstream_warnings_become_notifications(tmp_path: Path) -> None:
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    port = dead.getsockname()[1]
    dead.close()  # nothing listens there now: the upstream refuses connections
    args = _args(
        "--upstream", f"http://127.0.0.1:{port}", "--listen", "127.0.0.1:0",
        "--out", str(tmp_path / "captures"),
    )  # fmt: skip
    recorder = recorder_from_args(args)
    app = make_app([str(tmp_path / "captures")], recorder=recorder)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as client,
            client.get(f"{recorder.url}/v1/models") as resp,
        ):
            assert resp.status == 502
        deadline = time.monotonic() + WAIT
        while not any("upstream error" in str(n.message) for n in app._notifications):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)


def test_record_tui_port_busy_is_one_line_and_no_screen(tmp_path: Path) -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "replay_tui.cli", "record", "--upstream",
             "http://127.0.0.1:9", "--listen", f"127.0.0.1:{port}",
             "--out", str(tmp_path / "captures"), "--tui"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
    finally:
        busy.close()
    assert result.returncode == 2
    assert result.stdout == ""  # the TUI never took the terminal
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"replay-tui: cannot listen on 127.0.0.1:{port}")
