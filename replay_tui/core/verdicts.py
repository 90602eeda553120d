"""Verdicts and what each meant for the harness (SPEC §3.2), in words."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

__all__ = ["VERDICTS", "VerdictInfo", "describe", "verdict_of_chunks", "verdict_of_code"]


class VerdictInfo(msgspec.Struct):
    name: str
    when: str
    consequence: str
    ok: bool = False


VERDICTS: dict[str, VerdictInfo] = {
    v.name: v
    for v in (
        VerdictInfo(
            "ok",
            "finish is stop / tool-calls / max-tokens and every tool call closes with a"
            " non-empty id and name",
            "works",
            ok=True,
        ),
        VerdictInfo(
            "unidentified-call",
            "a tool call closes with an id or name that is not a non-empty string",
            'the tool registry refuses it as unknown tool ""; a recorded empty callId makes'
            " the saved session unloadable (SessionPersistenceCorruptionError)",
        ),
        VerdictInfo(
            "malformed-tool-call",
            "a tool call never got an id or a name: finish error MALFORMED_TOOL_CALL",
            "the attempt is refused and retried (retryable code)",
        ),
        VerdictInfo(
            "empty-response",
            "the model stopped with nothing opened: finish error EMPTY_RESPONSE",
            "retried",
        ),
        VerdictInfo(
            "malformed-response",
            "a payload is not valid JSON: finish error MALFORMED_RESPONSE",
            "request error",
        ),
        VerdictInfo(
            "stream-closed",
            "the stream ended before [DONE]: finish error STREAM_CLOSED",
            "request error",
        ),
        VerdictInfo(
            "model-error",
            "any other error finish (CONTENT_FILTER, a TypeError the harness throws, …)",
            "request error",
        ),
        VerdictInfo(
            "in-progress",
            "the capture is still being written: no [DONE] yet",
            "not judged yet",
        ),
    )
}


def describe(verdict: str) -> VerdictInfo:
    """The description of ``verdict`` (unknown names get a neutral one)."""
    return VERDICTS.get(verdict, VerdictInfo(verdict, verdict, "unknown"))


_CODES = {
    "MALFORMED_TOOL_CALL": "malformed-tool-call",
    "EMPTY_RESPONSE": "empty-response",
    "MALFORMED_RESPONSE": "malformed-response",
    "STREAM_CLOSED": "stream-closed",
}


def verdict_of_chunks(chunks: Iterable[Mapping[str, Any]]) -> str:
    """The verdict (SPEC §3.2) of a translator output stream, read from its chunks alone."""
    finish: Mapping[str, Any] | None = None
    unidentified = False
    for c in chunks:
        if c.get("type") == "block-end":
            block = c.get("block") or {}
            if block.get("type") == "tool-call":
                for key in ("id", "name"):
                    value = block.get(key)
                    if not (isinstance(value, str) and value):
                        unidentified = True
        elif c.get("type") == "finish":
            finish = c.get("reason")
    if unidentified:
        return "unidentified-call"
    if finish is None:
        return "in-progress"
    if finish.get("kind") in ("stop", "tool-calls", "max-tokens"):
        return "ok"
    return verdict_of_code(str((finish.get("failure") or {}).get("code", "")))


def verdict_of_code(code: str) -> str:
    """The verdict of an error finish with this ``code``."""
    return _CODES.get(code, "model-error")
