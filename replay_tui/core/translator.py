"""A port of the harness's DeepSeek SSE translator, under either identity behavior.

It turns decoded wire chunks into the harness's StreamChunk protocol (SPEC §3.1), chunk for
chunk and field for field, so that its output can be compared with what the harness emitted
(``tests/data/corpus/expected``). The two behaviors differ only in how a tool call's ``id``
and ``function.name`` are taken from a delta:

- ``accept-identity`` (the fix): only a non-empty string is taken; a call still lacking
  ``id`` or ``name`` at ``[DONE]`` is refused with ``MALFORMED_TOOL_CALL``.
- ``assign-always`` (the old code): any delta carrying the key assigns it, whatever its value.

Chunks are plain dicts in the harness's field order, ready for JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import StrEnum
from typing import Any

import msgspec

from .wire import UNSET, Decoded, WireChunk, js_string

__all__ = [
    "Behavior",
    "Chunk",
    "Translator",
    "error_finish",
    "index_key",
    "is_identity",
    "js_head",
    "replay",
    "usage_chunk",
]

Chunk = dict[str, Any]


class Behavior(StrEnum):
    ACCEPT_IDENTITY = "accept-identity"
    ASSIGN_ALWAYS = "assign-always"


STREAM_CLOSED_MESSAGE = "SSE stream ended without [DONE]"
EMPTY_RESPONSE_MESSAGE = "model returned a completed response with no content"


def is_identity(value: Any) -> bool:
    """Whether a raw ``id``/``name`` value establishes identity under accept-identity."""
    return type(value) is str and value != ""


def index_key(value: Any) -> Any:
    """The key a wire ``tool_calls[].index`` opens a block under.

    The harness keys blocks by the raw value (absent included), JavaScript-style: ``1`` and
    ``1.0`` are the same number, ``true`` is not ``1``, ``"0"`` is not ``0``.
    """
    t = type(value)
    if t is int:
        return value
    if t is float and value.is_integer():
        return int(value)
    if t is bool or t is str:
        return (t.__name__, value)
    if value is UNSET or value is None or t is float:
        return value
    return ("json", js_string(value))


def error_reason(code: str, message: str) -> dict[str, Any]:
    """The ``reason`` of an error ``finish`` chunk."""
    return {"kind": "error", "failure": {"message": message, "code": code}}


def error_finish(code: str, message: str) -> Chunk:
    return {"type": "finish", "reason": error_reason(code, message)}


def finish_reason(reason: str | None, any_block: bool) -> dict[str, Any]:
    """The ``finish`` chunk's reason at ``[DONE]``, from the last string ``finish_reason``."""
    if reason is None or reason == "stop":
        if not any_block:
            return error_reason("EMPTY_RESPONSE", EMPTY_RESPONSE_MESSAGE)
        return {"kind": "stop"}
    if reason == "tool_calls":
        return {"kind": "tool-calls"}
    if reason == "length":
        return {"kind": "max-tokens"}
    return error_reason(reason.upper(), f"model stopped: {reason}")


def _count(value: Any) -> int | float | None:
    """A token count as JavaScript arithmetic would see it, or None when it is no number."""
    if type(value) is int:
        return value
    if type(value) is float:
        return int(value) if value.is_integer() else value
    return None


def usage_chunk(usage: Any) -> Chunk:
    """The ``usage`` chunk for the latest truthy wire ``usage`` value."""
    u = usage if isinstance(usage, dict) else {}
    prompt = _count(u.get("prompt_tokens"))
    completion = _count(u.get("completion_tokens"))
    details = u.get("prompt_tokens_details")
    cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else None
    if cached is None:
        cached = _count(u.get("prompt_cache_hit_tokens"))
    out: dict[str, Any] = {
        "inputTokens": (prompt or 0) - (cached or 0),
        "outputTokens": completion if completion is not None else 0,
    }
    if type(prompt) is int and type(completion) is int and prompt >= 0 and completion >= 0:
        total = prompt + completion
        wire_total = u.get("total_tokens")
        if wire_total is None or _count(wire_total) == total:
            out["totalTokens"] = total
    if cached is not None:
        out["cacheReadTokens"] = cached
    cdetails = u.get("completion_tokens_details")
    if isinstance(cdetails, dict):
        reasoning = _count(cdetails.get("reasoning_tokens"))
        if reasoning is not None:
            out["reasoningTokens"] = reasoning
    return {"type": "usage", "usage": out}


def _truthy(value: Any) -> bool:
    """JavaScript truthiness of a decoded JSON value."""
    if value is UNSET or value is None or value is False:
        return False
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        return bool(value)
    return True


def js_head(text: str, units: int = 120) -> str:
    """``text.slice(0, units)`` in JavaScript's UTF-16 units, never splitting a pair."""
    if len(text) <= units // 2 or text.isascii():
        return text[:units]
    used = 0
    for i, ch in enumerate(text):
        used += 2 if ord(ch) > 0xFFFF else 1
        if used > units:
            return text[:i]
    return text


class _ToolBlock(msgspec.Struct):
    index: int
    id: Any = UNSET
    name: Any = UNSET
    args: list[str] = msgspec.field(default_factory=list)


class _TextBlock(msgspec.Struct):
    index: int
    kind: str
    parts: list[str] = msgspec.field(default_factory=list)


class Translator:
    """The harness translator's state for one response.

    Feed it decoded payloads in order with :meth:`chunk`, then :meth:`done` at ``[DONE]`` or
    :meth:`closed` at end of input. Each call returns the chunks it emits; after a ``finish``
    chunk the translator is finished and accepts nothing more.
    """

    def __init__(self, behavior: Behavior | str = Behavior.ACCEPT_IDENTITY) -> None:
        self.behavior = Behavior(behavior)
        self._accept = self.behavior is Behavior.ACCEPT_IDENTITY
        self._order: list[_ToolBlock | _TextBlock] = []
        self._tools: dict[Any, _ToolBlock] = {}
        self._text: _TextBlock | None = None
        self._reasoning: _TextBlock | None = None
        self._usage: Any = UNSET
        self._finish: str | None = None
        self.finished = False

    def _open(self, kind: str) -> tuple[int, Chunk]:
        index = len(self._order)
        return index, {"type": "block-start", "index": index, "blockType": kind}

    def payload(self, decoded: Decoded, text: str | None = None) -> list[Chunk]:
        """Translate one decoded payload (``text`` is its source, for error messages)."""
        if decoded.malformed is not None:
            return self._fail(
                "MALFORMED_RESPONSE",
                "malformed SSE payload: " + js_head(text or decoded.text or ""),
            )
        if decoded.chunk is None:
            return []  # valid JSON that is not an object: ignored
        out = self.chunk(decoded.chunk)
        if decoded.throw is not None:
            out.extend(self._fail("UNKNOWN", decoded.throw))
        return out

    def chunk(self, wire: WireChunk) -> list[Chunk]:
        """Translate one wire chunk."""
        out: list[Chunk] = []
        choices = wire.choices
        if choices:
            for choice in choices:
                delta = choice.delta
                if delta:
                    self._delta(delta.reasoning_content, delta.content, delta.tool_calls, out)
                reason = choice.finish_reason
                if type(reason) is str:
                    self._finish = reason
        if _truthy(wire.usage):
            self._usage = wire.usage
        return out

    def _text_delta(
        self, block: _TextBlock | None, kind: str, text: str, out: list[Chunk]
    ) -> _TextBlock:
        """A non-empty ``text`` for the text or reasoning block, opened on first use."""
        if block is None:
            index, start = self._open(kind)
            block = _TextBlock(index, kind)
            self._order.append(block)
            out.append(start)
        block.parts.append(text)
        out.append({"type": f"{kind}-delta", "index": block.index, "text": text})
        return block

    def _delta(self, reasoning: Any, content: Any, calls: Any, out: list[Chunk]) -> None:
        if type(reasoning) is str and reasoning:
            self._reasoning = self._text_delta(self._reasoning, "reasoning", reasoning, out)
        if type(content) is str and content:
            self._text = self._text_delta(self._text, "text", content, out)
        if not calls:
            return
        for call in calls:
            key = index_key(call.index)
            tool = self._tools.get(key)
            if tool is None:
                index, start = self._open("tool-call")
                tool = self._tools[key] = _ToolBlock(index)
                self._order.append(tool)
                out.append(start)
            fn = call.function
            name: Any = UNSET
            args: Any = UNSET
            if fn:
                name = fn.name
                args = fn.arguments
            if self._accept:
                if type(call.id) is str and call.id:
                    tool.id = call.id
                if type(name) is str and name:
                    tool.name = name
            else:
                if call.id is not UNSET:
                    tool.id = call.id
                if name is not UNSET:
                    tool.name = name
            fragment = "" if args is UNSET or args is None else args
            tool.args.append(js_string(fragment))
            tid = tool.id
            chunk: Chunk = {
                "type": "tool-call-delta",
                "index": tool.index,
                "id": "" if tid is UNSET or tid is None else tid,
            }
            if tool.name is not UNSET:
                chunk["name"] = tool.name
            chunk["argumentsDelta"] = fragment
            out.append(chunk)

    def done(self) -> list[Chunk]:
        """The stream reached ``[DONE]``: close blocks, report usage, finish."""
        if self.finished:
            return []
        self.finished = True
        out: list[Chunk] = []
        if self._accept:
            for block in self._order:
                if isinstance(block, _ToolBlock):
                    missing = "id" if block.id is UNSET else "name" if block.name is UNSET else None
                    if missing is not None:
                        if self._usage is not UNSET:
                            out.append(usage_chunk(self._usage))
                        out.append(
                            error_finish(
                                "MALFORMED_TOOL_CALL",
                                f"model streamed a tool call with no {missing}",
                            )
                        )
                        return out
        for block in self._order:
            if isinstance(block, _ToolBlock):
                tid, name = block.id, block.name
                out.append(
                    {
                        "type": "block-end",
                        "index": block.index,
                        "block": {
                            "type": "tool-call",
                            "id": "" if tid is UNSET or tid is None else tid,
                            "name": "" if name is UNSET or name is None else name,
                            "arguments": "".join(block.args),
                        },
                    }
                )
            else:
                out.append(
                    {
                        "type": "block-end",
                        "index": block.index,
                        "block": {"type": block.kind, "text": "".join(block.parts)},
                    }
                )
        if self._usage is not UNSET:
            out.append(usage_chunk(self._usage))
        out.append({"type": "finish", "reason": finish_reason(self._finish, bool(self._order))})
        return out

    def closed(self) -> list[Chunk]:
        """Input ended before ``[DONE]``."""
        return self._fail("STREAM_CLOSED", STREAM_CLOSED_MESSAGE)

    def _fail(self, code: str, message: str) -> list[Chunk]:
        if self.finished:
            return []
        self.finished = True
        return [error_finish(code, message)]


def replay(
    items: Iterable[tuple[bytes, Decoded | None]],
    behavior: Behavior | str = Behavior.ACCEPT_IDENTITY,
) -> Iterator[tuple[int, Chunk]]:
    """Replay a stream, yielding ``(item position, chunk)`` pairs.

    ``items`` are the stream's payloads in order, each as its raw bytes and its decoding
    (``None`` for the ``[DONE]`` sentinel). Replay stops at ``[DONE]`` or at the first
    failure; when the items run out first, the stream was closed without ``[DONE]``. The
    position of the chunks emitted at end of input is the number of items.
    """
    tr = Translator(behavior)
    count = 0
    for position, (data, decoded) in enumerate(items):
        count = position + 1
        if decoded is None:
            for c in tr.done():
                yield position, c
            return
        text = data.decode("utf-8", "replace") if decoded.malformed is not None else None
        for c in tr.payload(decoded, text):
            yield position, c
        if tr.finished:
            return
    for c in tr.closed():
        yield count, c
