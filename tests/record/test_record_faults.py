"""``replay-tui record`` faced with a full disk, credentials under every name, and an upstream
URL with a password (issue 29, items 5, 6 and 7): the recorder a real process, the upstream a
real server, both on 127.0.0.1; the full disk a 1 MB tmpfs."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from record_helpers import DASHSCOPE_EVENTS, SSE_HEADERS, WAIT, FakeUpstream, Script, sse
from yarl import URL

from replay_tui.core.discovery import discover
from replay_tui.core.trace import load_trace

REPO = Path(__file__).resolve().parents[2]
CHAT = "/v1/chat/completions"


@dataclass
class Running:
    proc: asyncio.subprocess.Process
    url: str
    log: list[str]

    async def stop(self) -> str:
        """Ctrl-C, then everything it said on stderr."""
        assert self.proc.stderr is not None
        self.proc.send_signal(signal.SIGINT)
        rest = await asyncio.wait_for(self.proc.stderr.read(), WAIT * 2)
        await asyncio.wait_for(self.proc.wait(), WAIT * 2)
        return "".join(self.log) + rest.decode()


@pytest.fixture
async def recorder(tmp_path: Path) -> AsyncIterator[object]:
    started: list[Running] = []

    async def start(upstream: str, out: Path, *flags: str) -> Running:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "replay_tui.record",
            "--upstream",
            upstream,
            "--listen",
            "127.0.0.1:0",
            "--out",
            str(out),
            *flags,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            cwd=tmp_path,
        )
        assert proc.stderr is not None
        log: list[str] = []
        while True:
            raw = await asyncio.wait_for(proc.stderr.readline(), WAIT * 4)
            if not raw:
                raise AssertionError("recorder exited early:\n" + "".join(log))
            log.append(raw.decode())
            found = re.search(r"recording on (http://127\.0\.0\.1:\d+) ", log[-1])
            if found:
                running = Running(proc, found.group(1), log)
                started.append(running)
                return running

    yield start
    for running in started:
        if running.proc.returncode is None:
            running.proc.kill()
            await running.proc.wait()


def _on_disk(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


# -- 7: a password in --upstream ----------------------------------------------------------------


async def test_upstream_userinfo_goes_as_basic_auth_and_is_never_printed(
    upstream: FakeUpstream, recorder: object, tmp_path: Path
) -> None:
    """Before: the password was printed, then dropped (the upstream got no Authorization)."""
    upstream.scripts[CHAT] = Script([*DASHSCOPE_EVENTS])
    upstream.scripts["/v1/own"] = Script([*DASHSCOPE_EVENTS])
    out = tmp_path / "traces"
    password = "pa55:w0rd-Zq9"  # a colon in it, percent-encoded in the URL
    url = f"http://al%C3%AFce:{password.replace(':', '%3A')}@127.0.0.1:{upstream.port}"
    rec = await recorder(url, out)  # type: ignore[operator]
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as session:
        async with session.post(f"{rec.url}{CHAT}", data=b'{"model":"m"}') as r:
            assert await r.read() == b"".join(DASHSCOPE_EVENTS)
        # An agent that sends its own Authorization keeps it (as with curl -H).
        own = {"Authorization": "Bearer agent-own-token-1234"}
        async with session.post(f"{rec.url}/v1/own", data=b"{}", headers=own) as r:
            await r.read()
    err = await rec.stop()

    expected = "Basic " + base64.b64encode("alïce:pa55:w0rd-Zq9".encode()).decode()
    assert upstream.seen[0].headers["Authorization"] == expected
    assert upstream.seen[1].headers["Authorization"] == "Bearer agent-own-token-1234"
    assert f"-> http://al%C3%AFce@127.0.0.1:{upstream.port};" in err
    on_disk = _on_disk(out)
    for leak in ("pa55", "w0rd", "%3A", base64.b64encode(b"pa55").decode()[:4]):
        assert leak not in err, leak
        assert leak.encode() not in on_disk, leak
    assert b"agent-own-token" not in on_disk


def test_a_bad_upstream_url_does_not_echo_its_password(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "replay_tui.record", "--upstream", "http://u:hunter2@h/?x=1"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 2
    assert "hunter2" not in done.stderr and "must not have a query" in done.stderr
    assert "http://u:[redacted]@h/?x=1" in done.stderr


# -- 6: credentials under other names ---------------------------------------------------------

REQUEST_SECRETS = {
    "Ocp-Apim-Subscription-Key": "apim-0c5d2e1f",
    "X-Amz-Security-Token": "FwoGZXIvYXdzEXAMPLESESSION",
    "X-Auth-Token": "gAAAAABopenstack",
    "X-Forwarded-Auth": "Bearer sk-fwd-0123456789abcdef01",
    "X-Goog-Api-Key": "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "Cookie": "__Secure-next-auth.session-token=cookieval",
    "X-Anything": "Bearer sk-proj-AbCdEfGhIjKlMnOpQrStUvWx",  # by shape, not by name
}
QUERY = (
    "?x-goog-api-key=qgoogkey&sig=qazuresig&X-Amz-Signature=qamzsig"
    "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261130&alt=sse"
    "&code=qazfunckey"  # (Azure Functions' function key: a parameter named code alone)
)
MATRIX = "/v1;key=matrixkey/chat/completions"
RESPONSE_SECRETS = {
    "Location": "https://gw.example/next?api_key=sk-proj-LoCaTiOnKeY0123456789ab&n=1",
    "Set-Cookie": "session=respcookie; HttpOnly",
    "X-Amz-Security-Token": "respamztoken",
}
LEAKS = [
    *(v.split()[-1].split("=")[-1] for v in REQUEST_SECRETS.values()),
    "qgoogkey",
    "qazuresig",
    "qamzsig",
    "qazfunckey",
    "AKIAIOSFODNN7EXAMPLE",
    "matrixkey",
    "LoCaTiOnKeY",
    "respcookie",
    "respamztoken",
]


async def test_credentials_under_any_name_never_reach_disk_or_stderr(
    upstream: FakeUpstream, recorder: object, tmp_path: Path
) -> None:
    upstream.script_factory = lambda seen: Script(
        [*DASHSCOPE_EVENTS], headers={**SSE_HEADERS, **RESPONSE_SECRETS}
    )
    out = tmp_path / "traces"
    rec = await recorder(upstream.url, out)  # type: ignore[operator]
    timeout = aiohttp.ClientTimeout(total=WAIT)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.post(
            URL(f"{rec.url}{MATRIX}{QUERY}", encoded=True),
            data=b'{"model":"m"}',
            headers=REQUEST_SECRETS,
        ) as r,
    ):
        assert await r.read() == b"".join(DASHSCOPE_EVENTS)
        assert r.headers["Location"] == RESPONSE_SECRETS["Location"]  # the agent's, whole
    err = await rec.stop()
    on_disk = _on_disk(out)
    for leak in LEAKS:
        assert leak.encode() not in on_disk, leak
        assert leak not in err, leak
    # Redaction is about disk only: the gateway received every credential.
    seen = upstream.seen[0]
    assert seen.path_qs == MATRIX + QUERY
    for name, value in REQUEST_SECRETS.items():
        assert seen.headers[name] == value
    (sidecar,) = out.glob("*.meta.json")
    meta = json.loads(sidecar.read_text())
    assert meta["response"]["headers"]["Location"] == (
        "https://gw.example/next?api_key=[redacted]&n=1"
    )
    assert meta["request"]["headers"]["X-Anything"] == "Bearer [redacted]"
    assert "alt=sse" in meta["request"]["url"]


# -- 5: a full disk -----------------------------------------------------------------------------


async def test_a_full_disk_is_said_and_the_client_gets_every_byte(
    upstream: FakeUpstream, recorder: object, small_disk: Path
) -> None:
    """Before: the capture stopped at the disk's size with its sidecar still "unfinished",
    stderr blamed the upstream ("without [DONE]"), and the next request left a 0-byte
    capture with no sidecar."""
    filler = "x" * 4000
    events = sse(*(f'{{"choices":[],"pad":"{filler}","n":{i}}}' for i in range(500)), "[DONE]")
    upstream.scripts[CHAT] = Script(events)  # 2 MB: twice the disk
    rec = await recorder(upstream.url, small_disk)  # type: ignore[operator]
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT * 4)) as session:
        async with session.post(f"{rec.url}{CHAT}", data=b'{"model":"big"}') as r:
            assert await r.read() == b"".join(events)
        # The disk is full now: the next stream is relayed whole, and leaves no empty file.
        async with session.post(f"{rec.url}{CHAT}", data=b'{"model":"next"}') as r:
            assert await r.read() == b"".join(events)
    err = await rec.stop()

    assert "Traceback" not in err
    assert "without [DONE]" not in err
    assert re.search(r"big-1\.sse: write failed: no space left on device", err), err
    assert (
        f"cannot create a capture in {small_disk} (write failed: no space left on device);"
        " relaying anyway" in err
    ), err
    files = sorted(p.name for p in small_disk.iterdir())
    captures_ = [p for p in small_disk.iterdir() if p.name.endswith(".sse")]
    for capture in captures_:
        sidecar = capture.with_name(capture.name + ".meta.json")
        assert sidecar.exists(), files  # no capture without its sidecar
        meta = json.loads(sidecar.read_text())
        assert meta["finished"] is not None, meta
        assert (meta["complete"], meta["incomplete_reason"]) == (
            False,
            "write failed: no space left on device",
        )
        assert meta["bytes"] == capture.stat().st_size
        # What was kept is what was sent, from the start.
        assert b"".join(events).startswith(capture.read_bytes())
    (big,) = captures_  # the disk had no room for the next one: nothing of it is left
    assert big.name.endswith("big-1.sse") and big.stat().st_size > 500_000
    # What the TUI shows for it (its metadata's "recording" row).
    (source,) = discover([big]).sources
    assert ("recording", "incomplete: write failed: no space left on device") in load_trace(
        source
    ).meta
    assert not [n for n in files if n.startswith(".")], files  # no temporary file left
