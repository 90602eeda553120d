"""Helpers for the recorder tests: a scriptable fake upstream, SSE bodies, sidecar access.

Everything listens on 127.0.0.1 with OS-chosen ports; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from replay_tui.record import Recorder

# Longest any single wait in these tests may take before it counts as a hang.
WAIT = 5.0

# Script steps for the fake upstream.
DIE = "die"  # close the connection abruptly, mid-body
HANG = "hang"  # stop sending (until the connection is closed by the other side)

Step = bytes | float | asyncio.Event | str


def sse(*payloads: str, eol: str = "\n") -> list[bytes]:
    """One SSE event per payload, each `data: ...` followed by a blank line."""
    return [f"data: {p}{eol}{eol}".encode() for p in payloads]


# A DashScope-style stream: the first tool-call delta carries the identity, later ones carry
# `"id":""` and no name; CRLF line ends and a comment line, to prove nothing is normalised.
DASHSCOPE_EVENTS: list[bytes] = [
    b": keep-alive\r\n\r\n",
    *sse(
        '{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant","content":null,'
        '"reasoning_content":""}}]}',
        '{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'
        '"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}',
        '{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"",'
        '"type":"function","function":{"arguments":"{\\"city\\":"}}]}}]}',
        eol="\r\n",
    ),
    *sse(
        '{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"",'
        '"type":"function","function":{"arguments":"\\"Paris\\"}"}}]}}]}',
        '{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],'
        '"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}',
        "[DONE]",
    ),
]

SSE_HEADERS = {"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"}


@dataclass
class Script:
    """What the fake upstream does for one path: a status, headers, then the steps in order."""

    steps: list[Step]
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: dict(SSE_HEADERS))
    delay_headers: float = 0.0  # silence before the status line


@dataclass
class Seen:
    """One request as the fake upstream received it."""

    method: str
    path_qs: str
    headers: dict[str, str]
    header_names: list[str]
    body: bytes


class FakeUpstream:
    """An aiohttp server that plays scripted responses and records what it got and sent."""

    def __init__(self) -> None:
        self.scripts: dict[str, Script] = {}
        self.script_factory: Callable[[Seen], Script] | None = None
        self.seen: list[Seen] = []
        self.sent: dict[str, bytes] = {}  # by request path_qs
        self.broken_off: list[str] = []  # path_qs of responses the other side hung up on
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        seen = Seen(
            method=request.method,
            path_qs=request.raw_path,
            headers=dict(request.headers),
            header_names=[k.lower() for k in request.headers],
            body=body,
        )
        self.seen.append(seen)
        if request.path == "/echo":
            doc = {
                "method": seen.method,
                "path": seen.path_qs,
                "headers": seen.headers,
                "body": body.decode("utf-8", "replace"),
            }
            return web.json_response(doc, headers={"Set-Cookie": "session=upstream-cookie"})
        script = self.scripts.get(request.path)
        if script is None and self.script_factory is not None:
            script = self.script_factory(seen)
        if script is None:
            return web.Response(status=404, text="no script\n")
        if script.delay_headers:
            await asyncio.sleep(script.delay_headers)
        resp = web.StreamResponse(status=script.status)
        for name, value in script.headers.items():
            resp.headers[name] = value
        await resp.prepare(request)
        key = seen.path_qs
        self.sent[key] = b""
        try:
            for step in script.steps:
                if isinstance(step, bytes):
                    await resp.write(step)
                    self.sent[key] += step
                elif isinstance(step, float):
                    await asyncio.sleep(step)
                elif isinstance(step, asyncio.Event):
                    await asyncio.wait_for(step.wait(), WAIT)
                elif step == DIE:
                    # Flush what was written, then drop the connection without ending the body.
                    if request.transport is not None:
                        request.transport.close()
                    return resp
                elif step == HANG:
                    await asyncio.sleep(WAIT * 4)
        except (asyncio.CancelledError, ConnectionError):
            self.broken_off.append(key)
            raise
        await resp.write_eof()
        return resp


RecorderFactory = Callable[..., Awaitable[Recorder]]


def chat_body(model: str = "deepseek-chat", **extra: Any) -> bytes:
    """An OpenAI-style streaming chat request with two tools."""
    doc: dict[str, Any] = {
        "model": model,
        "stream": True,
        "messages": [{"role": "user", "content": "weather in Paris?"}],
        "tools": [
            {"type": "function", "function": {"name": "get_weather", "parameters": {}}},
            {"type": "function", "function": {"name": "get_time", "parameters": {}}},
        ],
    }
    doc.update(extra)
    return json.dumps(doc).encode()


def load_meta(capture: Path) -> dict[str, Any]:
    """The sidecar of a capture file."""
    doc: dict[str, Any] = json.loads(Path(str(capture) + ".meta.json").read_text("utf-8"))
    return doc


def captures(folder: Path, ext: str = ".sse") -> list[Path]:
    """Capture files in a folder, sorted by name."""
    return sorted(p for p in folder.iterdir() if p.name.endswith(ext))


async def wait_until(predicate: Callable[[], bool], timeout: float = WAIT) -> None:
    """Poll until the predicate holds; fail the test after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)
