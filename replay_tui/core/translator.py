"""A port of the harness's DeepSeek SSE translator, under either identity behavior.

It turns decoded wire chunks into the harness's StreamChunk protocol, chunk for chunk and
field for field, so that its output can be compared with what the harness emitted
(``tests/data/corpus/expected``). The two behaviors differ only in how a tool call's ``id``
and ``function.name`` are taken from a delta, and :func:`takes_identity` is the one statement
of that rule:

- ``accept-identity`` (the fix): only a non-empty string is taken; a call still lacking
  ``id`` or ``name`` at ``[DONE]`` is refused with ``MALFORMED_TOOL_CALL``.
- ``assign-always`` (the old code): any delta carrying the key assigns it, whatever its value.

What the product runs is made of these pieces: the single pass (:mod:`.identity`) applies
:func:`takes_identity` to each change of identity and ends with :func:`done_chunks`, and the
chunk streams the views show (:mod:`.stream`) are built with the chunk builders here. The
:class:`Translator` applies the same pieces delta by delta, with no fast path: the tests
replay every generated and golden stream through it and hold the single pass to its output.

Chunks are plain dicts in the harness's field order, ready for JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import StrEnum
from typing import Any

import msgspec

from .wire import UNSET, Decoded, ToolCall, WireChunk, js_string

__all__ = [
    "Behavior",
    "Chunk",
    "TextBlock",
    "ToolBlock",
    "Translator",
    "block_start",
    "done_chunks",
    "done_end",
    "error_finish",
    "index_key",
    "is_identity",
    "js_head",
    "missing_identity",
    "refusal_message",
    "replay",
    "takes_identity",
    "text_delta",
    "tool_call_delta",
    "truthy",
    "usage_chunk",
]

Chunk = dict[str, Any]


class Behavior(StrEnum):
    ACCEPT_IDENTITY = "accept-identity"
    ASSIGN_ALWAYS = "assign-always"


STREAM_CLOSED_MESSAGE = "SSE stream ended without [DONE]"
EMPTY_RESPONSE_MESSAGE = "model returned a completed response with no content"


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


def truthy(value: Any) -> bool:
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


def takes_identity(behavior: Behavior, value: Any) -> bool:
    """The identity rule: whether a delta whose ``id`` or ``function.name`` is ``value``
    (``UNSET`` when the key is absent) sets that field of its call under ``behavior``.

    This is the one place the two behaviors differ. The translator below applies it delta
    by delta; the identity analysis (:class:`~.identity.Analyzer`) applies it to every change
    of a call's ``id`` or ``name``, and the tests hold the two to each other on every run.
    """
    if behavior is Behavior.ACCEPT_IDENTITY:
        return is_identity(value)
    return value is not UNSET


def is_identity(value: Any) -> bool:
    """Whether ``value`` identifies a tool call (a non-empty string): what the fix takes,
    and what a closed call needs for its verdict to be ``ok``."""
    return type(value) is str and value != ""


def missing_identity(cid: Any, name: Any) -> str | None:
    """What an accept-identity call still lacks at ``[DONE]`` (``id`` is checked first)."""
    return "id" if cid is UNSET else "name" if name is UNSET else None


def refusal_message(missing: str) -> str:
    """The message of the ``MALFORMED_TOOL_CALL`` refusal for a call lacking ``missing``."""
    return f"model streamed a tool call with no {missing}"


def closing_identity(value: Any) -> Any:
    """How an ``id``/``name`` in force shows in the output: none (or ``null``) is ``""``."""
    return "" if value is UNSET or value is None else value


def block_start(index: int, kind: str) -> Chunk:
    return {"type": "block-start", "index": index, "blockType": kind}


def text_delta(kind: str, index: int, text: str) -> Chunk:
    """A ``text-delta`` or ``reasoning-delta`` chunk."""
    return {"type": f"{kind}-delta", "index": index, "text": text}


def tool_call_delta(index: int, tid: Any, name: Any, fragment: Any) -> Chunk:
    """A ``tool-call-delta`` chunk: the identity in force after the delta, its arguments."""
    chunk: Chunk = {"type": "tool-call-delta", "index": index, "id": closing_identity(tid)}
    if name is not UNSET:
        chunk["name"] = name
    chunk["argumentsDelta"] = fragment
    return chunk


def arguments_fragment(args: Any) -> Any:
    """A delta's ``function.arguments`` as the output carries it (absent or null: ``""``)."""
    return "" if args is UNSET or args is None else args


class ToolBlock(msgspec.Struct):
    """A tool-call block: its identity in force and its argument fragments."""

    index: int
    id: Any = UNSET
    name: Any = UNSET
    args: list[str] = msgspec.field(default_factory=list)


class TextBlock(msgspec.Struct):
    """A text or reasoning block (``kind``) and its parts."""

    index: int
    kind: str
    parts: list[str] = msgspec.field(default_factory=list)


def done_end(
    behavior: Behavior, calls: Iterable[tuple[Any, Any]], finish: str | None, any_block: bool
) -> tuple[list[tuple[Any, Any]] | None, dict[str, Any]]:
    """How the response ends at ``[DONE]`` under ``behavior``, given the ``(id, name)`` in
    force for each tool call in opening order: what each call closes with (``None``: the fix
    refuses a call lacking identity, and no block closes) and the ``finish`` chunk's reason.
    ``any_block``: some block opened at all."""
    calls = list(calls)
    if behavior is Behavior.ACCEPT_IDENTITY:
        for cid, name in calls:
            missing = missing_identity(cid, name)
            if missing is not None:
                return None, error_reason("MALFORMED_TOOL_CALL", refusal_message(missing))
    closed = [(closing_identity(cid), closing_identity(name)) for cid, name in calls]
    return closed, finish_reason(finish, any_block)


def done_chunks(
    blocks: Iterable[ToolBlock | TextBlock],
    usage: Any,
    finish: str | None,
    behavior: Behavior,
) -> list[Chunk]:
    """What the harness emits at ``[DONE]``: every block closed in opening order, the usage,
    the finish — or, under accept-identity with a call lacking identity, the refusal."""
    blocks = list(blocks)
    tools = [(b.id, b.name) for b in blocks if isinstance(b, ToolBlock)]
    closed, reason = done_end(behavior, tools, finish, bool(blocks))
    out: list[Chunk] = []
    if closed is not None:
        identities = iter(closed)
        for block in blocks:
            if isinstance(block, ToolBlock):
                cid, name = next(identities)
                end: dict[str, Any] = {
                    "type": "tool-call",
                    "id": cid,
                    "name": name,
                    "arguments": "".join(block.args),
                }
            else:
                end = {"type": block.kind, "text": "".join(block.parts)}
            out.append({"type": "block-end", "index": block.index, "block": end})
    if usage is not UNSET:
        out.append(usage_chunk(usage))
    out.append({"type": "finish", "reason": reason})
    return out


class Translator:
    """The harness translator's state for one response.

    Feed it decoded payloads in order with :meth:`chunk`, then :meth:`done` at ``[DONE]`` or
    :meth:`closed` at end of input. Each call returns the chunks it emits; after a ``finish``
    chunk the translator is finished and accepts nothing more.
    """

    def __init__(self, behavior: Behavior | str = Behavior.ACCEPT_IDENTITY) -> None:
        self.behavior = Behavior(behavior)
        self._order: list[ToolBlock | TextBlock] = []
        self._tools: dict[Any, ToolBlock] = {}
        self._text: TextBlock | None = None
        self._reasoning: TextBlock | None = None
        self._usage: Any = UNSET
        self._finish: str | None = None
        self.finished = False

    def payload(self, decoded: Decoded) -> list[Chunk]:
        """Translate one decoded payload."""
        if decoded.malformed is not None:
            text = decoded.text or ""  # a malformed payload keeps its text
            return self._fail("MALFORMED_RESPONSE", "malformed SSE payload: " + js_head(text))
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
        if truthy(wire.usage):
            self._usage = wire.usage
        return out

    def text(self, kind: str, text: str, out: list[Chunk]) -> None:
        """A non-empty ``text`` for the text or reasoning block (``kind``), opened on first use."""
        block = self._reasoning if kind == "reasoning" else self._text
        if block is None:
            block = TextBlock(len(self._order), kind)
            self._order.append(block)
            out.append(block_start(block.index, kind))
            if kind == "reasoning":
                self._reasoning = block
            else:
                self._text = block
        block.parts.append(text)
        out.append(text_delta(kind, block.index, text))

    def tool_call(self, call: ToolCall, out: list[Chunk]) -> None:
        """One wire tool-call delta: open its block on first use, apply the identity rule."""
        key = index_key(call.index)
        tool = self._tools.get(key)
        if tool is None:
            tool = self._tools[key] = ToolBlock(len(self._order))
            self._order.append(tool)
            out.append(block_start(tool.index, "tool-call"))
        fn = call.function
        name: Any = UNSET
        args: Any = UNSET
        if fn:
            name = fn.name
            args = fn.arguments
        if takes_identity(self.behavior, call.id):
            tool.id = call.id
        if takes_identity(self.behavior, name):
            tool.name = name
        fragment = arguments_fragment(args)
        tool.args.append(js_string(fragment))
        out.append(tool_call_delta(tool.index, tool.id, tool.name, fragment))

    def _delta(self, reasoning: Any, content: Any, calls: Any, out: list[Chunk]) -> None:
        if type(reasoning) is str and reasoning:
            self.text("reasoning", reasoning, out)
        if type(content) is str and content:
            self.text("text", content, out)
        if calls:
            for call in calls:
                self.tool_call(call, out)

    def done(self) -> list[Chunk]:
        """The stream reached ``[DONE]``: close blocks, report usage, finish."""
        if self.finished:
            return []
        self.finished = True
        return done_chunks(self._order, self._usage, self._finish, self.behavior)

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
    for position, (_, decoded) in enumerate(items):
        count = position + 1
        if decoded is None:
            for c in tr.done():
                yield position, c
            return
        for c in tr.payload(decoded):
            yield position, c
        if tr.finished:
            return
    for c in tr.closed():
        yield count, c
