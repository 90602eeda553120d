"""Verdicts and what each meant for the harness (SPEC §3.2), in words."""

from __future__ import annotations

import msgspec

__all__ = ["VERDICTS", "VerdictInfo", "describe"]


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
