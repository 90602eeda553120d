"""Sample traces the sharing tests (and the browser tests) use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "traces"
CORPUS = ROOT / "tests" / "data" / "corpus"
QWEN = TRACES / "dashscope" / "qwen3-max-id-empty.sse"

HOSTILE_NAME = "<script>alert(1)</script>"
HOSTILE_ID = '"><img src=x onerror=alert(2)>'
HOSTILE_ARGS = (
    "```\n| x | [click](http://evil.example) www.evil.example ![i](http://evil.example/i.png) `"
)


def hostile_sse() -> bytes:
    """A DashScope-style erasure whose name, id and arguments try to escape their cell."""

    def data(delta_call: dict[str, Any], finish: str | None = None) -> bytes:
        chunk = {
            "choices": [
                {"index": 0, "delta": {"tool_calls": [delta_call]}, "finish_reason": finish}
            ]
        }
        return b"data: " + json.dumps(chunk).encode() + b"\n\n"

    return (
        data({"index": 0, "id": HOSTILE_ID, "function": {"name": HOSTILE_NAME, "arguments": ""}})
        + data({"index": 0, "id": "", "function": {"arguments": HOSTILE_ARGS}})
        + data({"index": 0, "id": "", "function": {"arguments": "</details>"}}, "tool_calls")
        + b"data: [DONE]\n\n"
    )


def gemini_like_sse(calls: int = 15) -> bytes:
    """The shape of a ``gemini-2.5-flash-lite`` stream through an OpenAI-compatible gateway:
    every call on index 0 with ``id: ""`` (never identified), then a 502 error object."""
    out = b""
    for k in range(calls):
        call = {"index": 0, "id": "", "function": {"name": f"tool_{k}", "arguments": "{}"}}
        chunk = {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}
        out += b"data: " + json.dumps(chunk).encode() + b"\n\n"
    error = {"error": {"code": 502, "message": "Bad gateway"}, "choices": []}
    out += b"data: " + json.dumps(error).encode() + b"\n\n"
    finish = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    out += b"data: " + json.dumps(finish).encode() + b"\n\ndata: [DONE]\n\n"
    return out


def azure_filtered_sse() -> bytes:
    """An Azure-style stream whose ``content_filter_results`` come before the delta, so the
    erasing ``"id":null`` of the continuation stands past column 360."""
    filters = {
        k: {"filtered": False, "severity": "safe"} for k in ("hate", "self_harm", "sexual")
    } | {
        k: {"filtered": False, "detected": False}
        for k in ("jailbreak", "protected_material_code", "protected_material_text", "profanity")
    }

    def data(call: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"content_filter_results": filters, "index": 0, "finish_reason": finish}
        choice["delta"] = {"tool_calls": [call]}
        text = json.dumps({"choices": [choice]}, separators=(",", ":"))
        return b"data: " + text.encode() + b"\n\n"

    return (
        data({"index": 0, "id": "call_az1", "function": {"name": "get_weather", "arguments": ""}})
        + data({"index": 0, "id": None, "function": {"arguments": '{"city":"Paris"}'}})
        + data({"index": 0, "function": {"arguments": ""}}, "tool_calls")
        + b"data: [DONE]\n\n"
    )
