"""Verdicts and what each meant for the harness, in words: the one place that says what a
verdict is (:func:`verdict_of_chunks`), what a call that closes without identity costs
(:func:`consequence`) and when a trace is clean (:func:`is_clean`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from .translator import is_identity

__all__ = [
    "VERDICTS",
    "VerdictInfo",
    "consequence",
    "describe",
    "is_clean",
    "unidentified",
    "verdict",
    "verdict_of_chunks",
]


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
_WORKS = ("stop", "tool-calls", "max-tokens")


def verdict(finish: Mapping[str, Any] | None, closed: Iterable[tuple[Any, Any]]) -> str:
    """The verdict of a response that ends with ``finish`` (the ``finish`` chunk's reason;
    ``None``: not yet) after closing tool calls with these ``(id, name)``: the table of
    :data:`VERDICTS` read in order (a call closing without identity outranks the finish)."""
    for cid, name in closed:
        if not (is_identity(cid) and is_identity(name)):
            return "unidentified-call"
    if finish is None:
        return "in-progress"
    if finish.get("kind") in _WORKS:
        return "ok"
    code = (finish.get("failure") or {}).get("code")
    return _CODES.get(code, "model-error") if type(code) is str else "model-error"


def verdict_of_chunks(chunks: Iterable[Mapping[str, Any]]) -> str:
    """The :func:`verdict` of a translator output stream, read from its chunks alone."""
    finish: Mapping[str, Any] | None = None
    closed: list[tuple[Any, Any]] = []
    for c in chunks:
        kind = c.get("type")
        if kind == "block-end":
            block = c.get("block") or {}
            if block.get("type") == "tool-call":
                closed.append((block.get("id"), block.get("name")))
        elif kind == "finish":
            finish = c.get("reason")
    return verdict(finish, closed)


def unidentified(cid: Any, name: Any) -> list[str]:
    """The fields (``id``, ``name``) a call closing with this identity lacks: none when it
    is identified."""
    return [f for f, v in (("id", cid), ("name", name)) if not is_identity(v)]


def consequence(field: str, closed: str) -> str:
    """What the harness does with a call that closes with ``field`` not identifying it
    (``closed``: how the value it closed with is shown)."""
    if field == "name":
        return f"the registry refuses it: unknown tool {closed}"
    if closed == '""':
        return "an empty callId: the saved session will not load"
    # null, a number, an object: not empty, and no more a callId the session can load
    return f"callId {closed} is not a string: the saved session will not load"


def is_clean(flag_count: int, verdicts: Iterable[str]) -> bool:
    """A trace with no erasure flagged and every verdict ``ok``."""
    return not flag_count and all(v == "ok" for v in verdicts)
