"""Synthetic large traces for the benchmark: realistic chunk envelopes, many deltas.

The shape is the DashScope one (continuations repeat ``id: ""``), so every delta exercises the
identity logic and the trace is flagged, as the traces people open the tool for are.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["write_big_trace"]


def write_big_trace(path: Path, deltas: int = 100_000, calls: int = 4) -> Path:
    """Write an SSE trace with ``deltas`` tool-call deltas spread over ``calls`` calls."""
    base = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1770764938,
        "model": "qwen3-max",
    }
    per_call = max(1, deltas // calls)
    out: list[str] = []
    n = 0
    for c in range(calls):
        for k in range(per_call if c < calls - 1 else deltas - per_call * (calls - 1)):
            if k == 0:
                tc = {
                    "index": c,
                    "id": f"call_{c:024x}",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": ""},
                }
            else:
                tc = {
                    "index": c,
                    "id": "",
                    "type": "function",
                    "function": {"arguments": '{"path": "src/' if k == 1 else f"part{k}/"},
                }
            chunk = {
                **base,
                "choices": [{"index": 0, "delta": {"tool_calls": [tc]}, "finish_reason": None}],
                "usage": None,
            }
            out.append("data: " + json.dumps(chunk, separators=(",", ":")) + "\n\n")
            n += 1
    finish = {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    out.append("data: " + json.dumps(finish, separators=(",", ":")) + "\n\n")
    usage = {
        **base,
        "choices": [],
        "usage": {"prompt_tokens": 1200, "completion_tokens": n, "total_tokens": 1200 + n},
    }
    out.append("data: " + json.dumps(usage, separators=(",", ":")) + "\n\ndata: [DONE]\n\n")
    path.write_text("".join(out))
    return path
