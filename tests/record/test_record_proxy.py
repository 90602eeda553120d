"""The recording proxy end to end: fake upstream <- Recorder <- real aiohttp client, on loopback."""

from __future__ import annotations

import asyncio
import gzip
import json
import re
import zlib
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
import pytest
from record_helpers import (
    DASHSCOPE_EVENTS,
    DIE,
    HANG,
    SSE_HEADERS,
    WAIT,
    FakeUpstream,
    RecorderFactory,
    Script,
    Seen,
    captures,
    chat_body,
    load_meta,
    sse,
    wait_until,
)
from yarl import URL

from replay_tui.record import proxy

CHAT = "/v1/chat/completions"
NAME = re.compile(r"^\d{8}T\d{6}Z-deepseek-chat-\d+\.sse$")


def slow(events: list[bytes], pause: float = 0.03) -> list[bytes | float]:
    """The events with a pause before each one after the first."""
    steps: list[bytes | float] = []
    for i, event in enumerate(events):
        if i:
            steps.append(pause)
        steps.append(event)
    return steps


async def read_until(resp: aiohttp.ClientResponse, needle: bytes) -> bytes:
    """Read the body until `needle` has arrived (bounded)."""
    got = b""
    async with asyncio.timeout(WAIT):
        while needle not in got:
            chunk = await resp.content.readany()
            if not chunk:
                break
            got += chunk
    return got


async def test_stream_is_relayed_and_captured_byte_for_byte(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    upstream.scripts[CHAT] = Script(list(slow(DASHSCOPE_EVENTS)))
    rec = await make_recorder()
    body = chat_body()
    headers = {
        "Content-Type": "application/json",
        "Authorization": "Bearer sk-test-123",
        "X-Trace": "t-1",
        # X-Hop is named in Connection, so it is hop-by-hop and must not be forwarded.
        "Connection": "keep-alive, X-Hop",
        "X-Hop": "1",
    }
    # encoded=True: the client must send the query exactly so (yarl would unquote %2F).
    target = URL(f"{rec.url}{CHAT}?stream=1&a=%2F", encoded=True)
    skip = ["User-Agent", "Accept-Encoding"]
    async with client.post(target, data=body, headers=headers, skip_auto_headers=skip) as r:
        assert r.status == 200
        assert r.headers["Content-Type"] == SSE_HEADERS["Content-Type"]
        assert r.headers["Cache-Control"] == "no-cache"
        received = await r.read()

    wire = b"".join(DASHSCOPE_EVENTS)
    assert received == wire
    assert upstream.sent[f"{CHAT}?stream=1&a=%2F"] == wire

    # The request reached the upstream as the agent sent it (credentials included: only
    # what is saved is redacted), with Host rewritten and hop-by-hop headers dropped.
    (seen,) = upstream.seen
    assert seen.method == "POST"
    assert seen.path_qs == f"{CHAT}?stream=1&a=%2F"
    assert seen.body == body
    assert seen.headers["Authorization"] == "Bearer sk-test-123"
    assert seen.headers["X-Trace"] == "t-1"
    assert seen.headers["Host"] == f"127.0.0.1:{upstream.port}"
    assert "x-hop" not in seen.header_names
    # Nothing the agent did not send was added (aiohttp's client would add these itself).
    assert "user-agent" not in seen.header_names
    assert "accept-encoding" not in seen.header_names
    assert seen.headers["Accept"] == "*/*"  # sent by the test client: forwarded

    (capture,) = captures(tmp_path / "traces")
    assert NAME.match(capture.name), capture.name
    assert capture.read_bytes() == wire

    meta = load_meta(capture)
    assert meta["replay_tui_meta"] == 1
    assert meta["complete"] is True
    assert meta["incomplete_reason"] is None
    assert meta["finished"] is not None and meta["started"].endswith("Z")
    assert meta["bytes"] == len(wire)
    req = meta["request"]
    assert req["method"] == "POST"
    assert req["url"] == f"{upstream.url}{CHAT}?stream=1&a=%2F"
    assert req["path"] == f"{CHAT}?stream=1&a=%2F"
    assert req["model"] == "deepseek-chat"
    assert req["tools"] == ["get_weather", "get_time"]
    assert req["headers"]["Authorization"] == "[redacted]"
    assert req["headers"]["X-Trace"] == "t-1"
    assert "body" not in req
    assert meta["response"]["status"] == 200
    assert meta["response"]["reason"] == "OK"
    assert meta["response"]["headers"]["Content-Type"] == SSE_HEADERS["Content-Type"]
    assert rec.request_count == 1
    assert rec.capture_count == 1
    assert rec.active_streams == 0


async def test_first_event_reaches_client_and_disk_before_upstream_finishes(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    # The upstream holds the rest of the stream until the test has seen the first event at
    # the client: a buffering proxy would deadlock here and fail on the timeout.
    gate = asyncio.Event()
    first, *rest = DASHSCOPE_EVENTS[1:]
    upstream.scripts[CHAT] = Script([first, gate, *rest])
    started: list[Path] = []
    rec = await make_recorder(on_capture=started.append)

    async with client.post(f"{rec.url}{CHAT}", data=chat_body()) as r:
        got = await read_until(r, first)
        assert got == first
        assert not gate.is_set()

        # While the stream is open: the capture already holds the event, the sidecar exists
        # and says the capture is still being written.
        (capture,) = captures(tmp_path / "traces")
        assert started == [capture]
        assert capture.read_bytes() == first
        meta = load_meta(capture)
        assert meta["complete"] is False
        assert meta["finished"] is None
        assert rec.active_streams == 1

        gate.set()
        got += await r.read()

    assert got == b"".join([first, *rest])
    assert capture.read_bytes() == got
    assert load_meta(capture)["complete"] is True
    assert rec.active_streams == 0


async def test_secrets_never_reach_disk(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    secrets = {
        "Authorization": "Bearer sk-secret-auth",
        "api-key": "secret-azure-key",
        "X-API-KEY": "secret-anthropic-key",
        "Cookie": "sid=secret-cookie",
        "X-Custom-Token": "secret-custom",
        "X-Tenant": "acme",  # not a secret: kept
    }
    upstream.scripts[CHAT] = Script(
        [*DASHSCOPE_EVENTS], headers={**SSE_HEADERS, "Set-Cookie": "sid=secret-set-cookie"}
    )
    rec = await make_recorder(redact=["x-custom-.*"])
    body = chat_body(user="secret-in-body")
    async with client.post(f"{rec.url}{CHAT}?key=secret-query", data=body, headers=secrets) as r:
        await r.read()

    folder = tmp_path / "traces"
    on_disk = b"".join(p.read_bytes() for p in folder.iterdir())
    for needle in (b"secret-", b"sk-"):
        assert needle not in on_disk
    (capture,) = captures(folder)
    meta = load_meta(capture)
    saved = {k.lower(): v for k, v in meta["request"]["headers"].items()}
    for name in ("authorization", "api-key", "x-api-key", "cookie", "x-custom-token"):
        assert saved[name] == "[redacted]"
    assert saved["x-tenant"] == "acme"
    assert meta["response"]["headers"]["Set-Cookie"] == "[redacted]"
    assert "secret" not in meta["request"]["url"]
    assert "body" not in meta["request"]
    # Redaction is about disk only: the upstream got every credential.
    assert upstream.seen[0].headers["X-Custom-Token"] == "secret-custom"


async def test_request_body_saved_only_with_save_bodies(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    upstream.scripts[CHAT] = Script([*DASHSCOPE_EVENTS])
    rec = await make_recorder(save_bodies=True)
    body = chat_body()
    async with client.post(f"{rec.url}{CHAT}", data=body) as r:
        await r.read()
    (capture,) = captures(tmp_path / "traces")
    assert load_meta(capture)["request"]["body"] == body.decode()


async def test_fifty_concurrent_streams_are_kept_apart(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    def stream_for(n: int) -> list[bytes]:
        return sse(*(f'{{"stream":{n},"delta":{k}}}' for k in range(5)), "[DONE]")

    def script(seen: Seen) -> Script:
        n = int(json.loads(seen.body)["model"].removeprefix("m-"))
        # Pauses differ per stream so the chunks of different streams interleave.
        return Script(list(slow(stream_for(n), pause=0.01 + (n % 7) * 0.005)))

    upstream.script_factory = script
    rec = await make_recorder()

    async def one(n: int) -> tuple[int, bytes]:
        async with client.post(f"{rec.url}{CHAT}", data=chat_body(f"m-{n}")) as r:
            return n, await r.read()

    results = await asyncio.wait_for(asyncio.gather(*(one(n) for n in range(50))), WAIT * 2)
    for n, got in results:
        assert got == b"".join(stream_for(n))

    files = captures(tmp_path / "traces")
    assert len(files) == 50
    by_model = {load_meta(p)["request"]["model"]: p for p in files}
    assert len(by_model) == 50
    for n in range(50):
        path = by_model[f"m-{n}"]
        assert f"-m-{n}-" in path.name
        assert path.read_bytes() == b"".join(stream_for(n))
        assert load_meta(path)["complete"] is True
    assert rec.request_count == 50
    assert rec.active_streams == 0


async def test_upstream_dying_mid_stream(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    partial = DASHSCOPE_EVENTS[:3]
    upstream.scripts[CHAT] = Script([*slow(partial), DIE])
    ended: list[tuple[Path, bool, str | None]] = []
    rec = await make_recorder(on_capture_end=lambda p, ok, why: ended.append((p, ok, why)))

    got = b""
    async with client.post(f"{rec.url}{CHAT}", data=chat_body()) as r:
        # The client sees the same truncation it would see without the proxy.
        with pytest.raises(aiohttp.ClientPayloadError):
            async with asyncio.timeout(WAIT):
                while chunk := await r.content.readany():
                    got += chunk
    assert got == b"".join(partial)

    (capture,) = captures(tmp_path / "traces")
    assert capture.read_bytes() == b"".join(partial)
    meta = load_meta(capture)
    assert meta["complete"] is False
    assert meta["incomplete_reason"] == "upstream disconnected mid-stream"
    assert meta["finished"] is not None
    assert ended == [(capture, False, "upstream disconnected mid-stream")]

    # And the proxy keeps serving.
    upstream.scripts["/v1/ok"] = Script([*DASHSCOPE_EVENTS])
    async with client.post(f"{rec.url}/v1/ok", data=chat_body()) as r:
        assert await r.read() == b"".join(DASHSCOPE_EVENTS)
    assert rec.active_streams == 0


async def test_a_stream_the_upstream_ends_without_done_is_kept_and_marked_incomplete(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    """The HTTP response ends cleanly, the stream without [DONE]: the harness reads it as
    STREAM_CLOSED. The sidecar said "complete" while check called it stream-closed."""
    body = DASHSCOPE_EVENTS[:-1]
    assert b"[DONE]" in DASHSCOPE_EVENTS[-1] and not any(b"[DONE]" in e for e in body)
    upstream.scripts[CHAT] = Script([*body])
    rec = await make_recorder()
    async with client.post(f"{rec.url}{CHAT}", data=chat_body()) as r:
        assert await r.read() == b"".join(body)  # relayed as sent, ended as it ended
    (capture,) = captures(tmp_path / "traces")
    await wait_until(lambda: bool(load_meta(capture)["finished"]))
    meta = load_meta(capture)
    assert (meta["complete"], meta["incomplete_reason"]) == (
        False,
        "upstream ended the stream without [DONE]",
    )


async def test_upstream_going_silent_times_out(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    first = DASHSCOPE_EVENTS[1]
    upstream.scripts[CHAT] = Script([first, HANG])
    rec = await make_recorder(read_timeout=0.3)

    got = b""
    async with client.post(f"{rec.url}{CHAT}", data=chat_body()) as r:
        with pytest.raises(aiohttp.ClientPayloadError):
            async with asyncio.timeout(WAIT):
                while chunk := await r.content.readany():
                    got += chunk
    assert got == first
    (capture,) = captures(tmp_path / "traces")
    assert capture.read_bytes() == first
    meta = load_meta(capture)
    assert (meta["complete"], meta["incomplete_reason"]) == (False, "upstream timeout")
    await wait_until(lambda: CHAT in upstream.broken_off)


async def test_upstream_silent_before_headers_is_a_504(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    upstream.scripts[CHAT] = Script([*DASHSCOPE_EVENTS], delay_headers=WAIT)
    upstream.scripts["/v1/ok"] = Script([*DASHSCOPE_EVENTS])
    rec = await make_recorder(read_timeout=0.3)
    async with client.post(f"{rec.url}{CHAT}", data=chat_body()) as r:
        assert r.status == 504
        assert await r.text() == "replay-tui record: upstream timeout\n"
    assert list((tmp_path / "traces").iterdir()) == []
    async with client.post(f"{rec.url}/v1/ok", data=chat_body()) as r:
        assert await r.read() == b"".join(DASHSCOPE_EVENTS)
    assert rec.request_count == 2


async def test_client_disconnecting_mid_stream(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    tmp_path: Path,
) -> None:
    events = sse(*(f'{{"delta":{k}}}' for k in range(200)), "[DONE]")
    upstream.scripts[CHAT] = Script(list(slow(events, pause=0.02)))
    rec = await make_recorder()

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as session:
        r = await session.post(f"{rec.url}{CHAT}", data=chat_body())
        got = await read_until(r, events[1])
        # Hang up: close() drops the connection instead of returning it to the pool.
        r.close()

    (capture,) = captures(tmp_path / "traces")
    await wait_until(
        lambda: load_meta(capture)["complete"] is False and bool(load_meta(capture)["finished"])
    )
    meta = load_meta(capture)
    assert meta["incomplete_reason"] == "client disconnected"
    data = capture.read_bytes()
    # The capture holds at least what the client got, and is a prefix of what was sent.
    assert data.startswith(got) or got.startswith(data)
    assert b"".join(events).startswith(data)
    assert len(data) < len(b"".join(events))
    # The upstream stream was closed too (a real gateway would stop generating).
    await wait_until(lambda: CHAT in upstream.broken_off)
    assert rec.active_streams == 0

    upstream.scripts["/v1/ok"] = Script([*DASHSCOPE_EVENTS])
    async with aiohttp.ClientSession() as session, session.post(f"{rec.url}/v1/ok") as r:
        assert await r.read() == b"".join(DASHSCOPE_EVENTS)


async def test_stop_flushes_and_marks_open_captures(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    gate = asyncio.Event()  # never set: the stream is still open when the recorder stops
    first = DASHSCOPE_EVENTS[1]
    upstream.scripts[CHAT] = Script([first, gate, DASHSCOPE_EVENTS[-1]])
    rec = await make_recorder()

    async with client.post(f"{rec.url}{CHAT}", data=chat_body()) as r:
        await read_until(r, first)
        await asyncio.wait_for(rec.stop(), WAIT)
        with pytest.raises(aiohttp.ClientError):
            async with asyncio.timeout(WAIT):
                while await r.content.readany():
                    pass

    (capture,) = captures(tmp_path / "traces")
    assert capture.read_bytes() == first
    meta = load_meta(capture)
    assert (meta["complete"], meta["incomplete_reason"]) == (False, "recorder stopped")
    assert not rec.running
    await rec.stop()  # idempotent


async def test_non_streaming_passes_through_and_is_saved_only_with_all(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    rec = await make_recorder(out=tmp_path / "plain")
    async with client.get(f"{rec.url}/echo?x=1", headers={"X-Api-Key": "k-1"}) as r:
        doc = await r.json()
    assert doc["method"] == "GET" and doc["path"] == "/echo?x=1"
    assert doc["headers"]["X-Api-Key"] == "k-1"
    assert list((tmp_path / "plain").iterdir()) == []

    rec_all = await make_recorder(out=tmp_path / "all", save_all=True)
    async with client.post(f"{rec_all.url}/echo", data=b'{"model":"qwen-max"}') as r:
        raw = await r.read()
    (saved,) = captures(tmp_path / "all", ".body")
    assert saved.read_bytes() == raw
    assert "-qwen-max-" in saved.name
    meta = load_meta(saved)
    assert meta["complete"] is True
    assert meta["request"]["model"] == "qwen-max"
    assert meta["response"]["headers"]["Set-Cookie"] == "[redacted]"


async def test_compressed_stream_reaches_client_as_sent_and_disk_decoded(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    # gzip with a sync flush per event, as a streaming-aware server would send it.
    comp = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)
    wire = [comp.compress(e) + comp.flush(zlib.Z_SYNC_FLUSH) for e in DASHSCOPE_EVENTS]
    wire.append(comp.flush())
    upstream.scripts[CHAT] = Script(
        list(slow(wire, 0.01)), headers={**SSE_HEADERS, "Content-Encoding": "gzip"}
    )
    rec = await make_recorder()
    headers = {"Accept-Encoding": "gzip"}
    async with client.post(f"{rec.url}{CHAT}", data=chat_body(), headers=headers) as r:
        assert r.headers["Content-Encoding"] == "gzip"
        received = await r.read()
    assert received == b"".join(wire)
    assert gzip.decompress(received) == b"".join(DASHSCOPE_EVENTS)

    (capture,) = captures(tmp_path / "traces")
    assert capture.read_bytes() == b"".join(DASHSCOPE_EVENTS)
    meta = load_meta(capture)
    assert meta["encoding"] == {
        "content_encoding": "gzip",
        "decoded": True,
        "wire_bytes": len(received),
    }
    assert meta["bytes"] == len(b"".join(DASHSCOPE_EVENTS))


async def test_unreachable_upstream_is_a_502_and_the_proxy_keeps_serving(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    rec = await make_recorder(upstream_url=f"http://127.0.0.1:{dead}")
    async with client.post(f"{rec.url}{CHAT}", data=chat_body()) as r:
        assert r.status == 502
        text = await r.text()
        # A plain http:// upstream: no TLS wording (aiohttp's "ssl:default"), the errno's words.
        assert text.startswith(
            f"replay-tui record: upstream error: cannot connect to 127.0.0.1:{dead}: Connection refused"
        ), text
        assert "ssl" not in text.lower() and "tls" not in text.lower()
    assert rec.request_count == 1
    assert list((tmp_path / "traces").iterdir()) == []


async def test_upstream_path_prefix_and_counter_uniqueness(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A frozen clock: every capture gets the same timestamp, so only the counter and the
    # exclusive creation keep names apart.
    frozen = datetime(2026, 11, 30, 10, 15, 2, tzinfo=UTC)
    monkeypatch.setattr(proxy, "utc_now", lambda: frozen)
    upstream.scripts[f"/gw{CHAT}"] = Script([*DASHSCOPE_EVENTS])
    folder = tmp_path / "traces"
    folder.mkdir()
    rec = await make_recorder(upstream_url=f"{upstream.url}/gw/")
    # Files from an earlier run with the same names must not be overwritten.
    async with client.post(f"{rec.url}{CHAT}", data=chat_body()) as r:
        await r.read()
    (first,) = captures(folder)
    assert first.name == "20261130T101502Z-deepseek-chat-1.sse"
    stem = "20261130T101502Z-deepseek-chat"
    (folder / f"{stem}-2.sse").write_bytes(b"earlier run\n")
    async with client.post(f"{rec.url}{CHAT}", data=chat_body()) as r:
        await r.read()
    names = [p.name for p in captures(folder)]
    assert names == [f"{stem}-1.sse", f"{stem}-2.sse", f"{stem}-3.sse"]
    assert (folder / f"{stem}-2.sse").read_bytes() == b"earlier run\n"
    assert upstream.seen[0].path_qs == f"/gw{CHAT}"


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        (
            {"Origin": "http://evil.example"},
            "a page elsewhere sent it (Origin http://evil.example)",
        ),
        ({"Origin": "null"}, "a page elsewhere sent it (Origin null)"),
        ({"Host": "evil.example"}, "the Host header names another machine"),
    ],
)
async def test_a_page_elsewhere_cannot_use_the_recorder(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    headers: dict[str, str],
    why: str,
) -> None:
    """A plain-text POST from a page on another site needs no preflight, and the recorder
    adds --upstream's credentials to what it forwards: it was the gateway, as the user, for
    any page the user visited (a fault hunt's finding). Refused, never forwarded; a page of
    this machine (a dev server on localhost) and a program (no Origin) are served."""
    upstream.scripts[CHAT] = Script(list(DASHSCOPE_EVENTS))
    host, port = upstream.url.removeprefix("http://").split(":")
    rec = await make_recorder(upstream_url=f"http://alice:s3cret@{host}:{port}")
    plain = {"Content-Type": "text/plain", **headers}
    async with client.post(f"{rec.url}{CHAT}", data=chat_body(), headers=plain) as r:
        assert r.status == 403
        assert (await r.text()) == (
            f"replay-tui record: this recorder serves this machine's programs ({why})\n"
        )
    assert upstream.seen == [] and captures(rec.out_dir) == []
    for ok in ({}, {"Origin": "http://localhost:3000"}, {"Origin": "http://127.0.0.1:5173"}):
        async with client.post(f"{rec.url}{CHAT}", data=chat_body(), headers=ok) as r:
            assert r.status == 200
            await r.read()
    assert len(upstream.seen) == 3
    assert upstream.seen[0].headers["Authorization"].startswith("Basic ")


def test_listening_beyond_loopback_needs_allow_remote(tmp_path: Path) -> None:
    with pytest.raises(proxy.RecorderError, match="add --allow-remote"):
        proxy.Recorder("http://127.0.0.1:9", tmp_path, listen="0.0.0.0:0")
    recorder = proxy.Recorder("http://127.0.0.1:9", tmp_path, listen="0.0.0.0:0", allow_remote=True)
    assert not recorder.local_only


async def test_a_compressed_request_body_is_forwarded_as_sent(
    upstream: FakeUpstream,
    make_recorder: RecorderFactory,
    client: aiohttp.ClientSession,
    tmp_path: Path,
) -> None:
    """An agent that gzips its request: the body went out unzipped and still marked gzip (a
    real gateway failed on it), and a body that was not gzip made aiohttp's own 500 and a
    traceback (a fault hunt's finding). Forwarded byte for byte; the recorder reads the
    model from it unzipped."""
    upstream.scripts[CHAT] = Script(list(DASHSCOPE_EVENTS))
    rec = await make_recorder()
    wire = gzip.compress(chat_body())
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    async with client.post(f"{rec.url}{CHAT}", data=wire, headers=headers) as r:
        assert r.status == 200
        await r.read()
    (seen,) = upstream.seen
    assert seen.body == wire and seen.headers["Content-Encoding"] == "gzip"
    (capture,) = captures(rec.out_dir)
    assert NAME.match(capture.name), capture.name  # (the model, read from the body unzipped)
    # not gzip at all: forwarded as sent, the gateway's to judge
    async with client.post(f"{rec.url}{CHAT}", data=b"xx", headers=headers) as r:
        assert r.status == 200
        await r.read()
    assert upstream.seen[1].body == b"xx"
