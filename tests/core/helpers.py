"""Small builders for hand-written streams in the core tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import settings

from replay_tui.core.discovery import discover
from replay_tui.core.trace import Form, Source, Trace, load_trace
from replay_tui.core.translator import Chunk

ENVELOPE = {"id": "chatcmpl-t", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any
) -> dict[str, Any]:
    """A wire chunk with one choice."""
    choice: dict[str, Any] = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    return {**ENVELOPE, "choices": [choice], **top}


def call(index: Any = 0, **fields: Any) -> dict[str, Any]:
    """A wire tool-call delta; ``name=``/``arguments=`` go inside ``function``."""
    out: dict[str, Any] = {"index": index}
    fn: dict[str, Any] = {}
    for key, value in fields.items():
        if key in ("name", "arguments"):
            fn[key] = value
        else:
            out[key] = value
    if fn:
        out["function"] = fn
    return out


def tools(*calls: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return chunk({"tool_calls": list(calls)}, finish)


def sse(*payloads: Any, done: bool = True) -> bytes:
    """An SSE body: each payload (object or raw string) as one event, then ``[DONE]``."""
    parts = [
        "data: " + (p if isinstance(p, str) else json.dumps(p, separators=(",", ":"))) + "\n\n"
        for p in payloads
    ]
    if done:
        parts.append("data: [DONE]\n\n")
    return "".join(parts).encode()


def trace_of(body: bytes, form: Form = Form.SSE, name: str = "t.sse") -> Trace:
    return load_trace(Source(Path(name), name, form), body)


def examples(n: int) -> int:
    """The examples a property of ``n`` runs under the current hypothesis profile (a fifth
    under ``mutation``: see conftest.py)."""
    if settings.get_current_profile_name() == "mutation":
        return max(20, n // 5)
    return n


def chunks(body: bytes, behavior: str) -> list[Chunk]:
    return [c for _, c in trace_of(body).replay(behavior)]


def write(folder: Path, name: str, data: bytes | str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def only_trace(path: Path) -> Trace:
    found = discover([path])
    assert len(found.sources) == 1, (found.sources, found.skipped)
    return load_trace(found.sources[0])
