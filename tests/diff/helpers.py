"""Builders for the diff tests: hand-written streams, and traces loaded from bytes or files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from replay_tui.cli.traces import resolve_trace
from replay_tui.core.diff import TraceDiff, diff_traces
from replay_tui.core.trace import Form, Source, Trace, load_trace

DATA = Path(__file__).resolve().parent.parent / "data" / "diff"


def data(name: str) -> str:
    """The address of a trace under ``tests/data/diff`` (``FILE`` or ``FILE.har#N``)."""
    return str(DATA / name)


def load(name: str) -> Trace:
    return resolve_trace(data(name))


def diff_files(a: str, b: str, **kw: Any) -> TraceDiff:
    return diff_traces(load(a), load(b), **kw)


def trace_of(body: bytes, name: str = "t.sse") -> Trace:
    return load_trace(Source(Path(name), name, Form.SSE), body)


def envelope(n: int = 1) -> dict[str, Any]:
    return {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": n, "model": "m"}


def tool_delta(fragment: str, *, first: bool = False, **extra: Any) -> dict[str, Any]:
    """A chunk with one tool-call delta of call 0 (the first one carries id and name)."""
    call: dict[str, Any] = {"index": 0, **extra, "function": {"arguments": fragment}}
    if first:
        call.update(id="call_1", type="function")
        call["function"]["name"] = "get_weather"
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}


def finish(reason: str = "tool_calls") -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}


def sse(events: list[dict[str, Any] | str], n: int = 1, *, done: bool = True) -> bytes:
    """An SSE body; a ``str`` item is written as is (a comment line, say), a dict as data."""
    parts: list[str] = []
    for e in events:
        if isinstance(e, str):
            parts.append(e + "\n\n")
        else:
            body = {**envelope(n), **e}
            parts.append("data: " + json.dumps(body, separators=(",", ":")) + "\n\n")
    if done:
        parts.append("data: [DONE]\n\n")
    return "".join(parts).encode()
