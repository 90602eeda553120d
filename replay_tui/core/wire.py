"""Wire types of a streamed ``chat.completion.chunk`` and how a payload becomes one.

The whole product rests on one distinction: a field that is absent (``msgspec.UNSET``), a
field that is ``null`` (``None``), an empty string, and a value of some other JSON type are
four different things a gateway can send. Identity fields are therefore typed ``Any`` with an
``UNSET`` default: msgspec keeps the value exactly as sent.

Decoding has two paths. The typed path (msgspec Structs) takes every well-shaped chunk at
full speed. A payload the typed decoder rejects goes through the lenient path, which walks the
plain JSON the way the harness's JavaScript does: property reads on non-objects give
``undefined``, a ``null`` choice or tool call throws a ``TypeError``, a non-array where an array
is iterated throws. The lenient path builds the same Structs, cut at the point where the
harness would throw, plus the message of that throw, so the translator needs no second code
path.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from .jsonparse import DeepJsonError, parse_deep
from .jsontext import dumps

__all__ = [
    "UNSET",
    "Choice",
    "Decoded",
    "Delta",
    "Function",
    "ToolCall",
    "WireChunk",
    "decode_payload",
    "describe_value",
    "js_string",
    "json_place",
    "parse_json",
]


class Function(msgspec.Struct, omit_defaults=True, gc=False):
    name: Any = UNSET
    arguments: Any = UNSET


class ToolCall(msgspec.Struct, omit_defaults=True, gc=False):
    index: Any = UNSET
    id: Any = UNSET
    type: Any = UNSET
    function: Function | UnsetType | None = UNSET


class Delta(msgspec.Struct, omit_defaults=True, gc=False):
    content: Any = UNSET
    reasoning_content: Any = UNSET
    tool_calls: list[ToolCall] | UnsetType | None = UNSET


class Choice(msgspec.Struct, omit_defaults=True, gc=False):
    delta: Delta | UnsetType | None = UNSET
    finish_reason: Any = UNSET


class WireChunk(msgspec.Struct, omit_defaults=True, gc=False):
    choices: list[Choice] | UnsetType | None = UNSET
    usage: Any = UNSET
    error: Any = UNSET
    model: Any = UNSET
    """The chunk's ``model``: not replayed, but what the trace list filters and summaries
    group by."""


_typed = msgspec.json.Decoder(WireChunk)
_untyped = msgspec.json.Decoder()


class Decoded(msgspec.Struct, gc=False):
    """What one payload means to the harness.

    Exactly one of these holds: ``chunk`` is a chunk to translate (``throw`` then says whether
    the harness throws after walking it); ``ignored`` is a valid JSON payload that is not an
    object; ``malformed`` is the reason the payload is not JSON at all.
    """

    chunk: WireChunk | None = None
    throw: str | None = None
    """A TypeError the harness raises after walking ``chunk`` (a shape it cannot walk)."""
    ignored: str | None = None
    """Why a valid payload is ignored (it is not a JSON object)."""
    malformed: str | None = None
    """Why the payload is not valid JSON (the decoder's message, with its position)."""
    malformed_at: tuple[int, int] | None = None
    """Where in the payload the decoder stopped (1-based line and column), when it says: the
    end of :attr:`malformed` reads ``at line L, column C`` with these."""
    lenient: str | None = None
    """Why the typed decoder refused this payload (its error path), when the lenient path ran."""
    text: str | None = None
    """The payload as text, kept only when it is malformed (the failure message quotes it)."""


def fast_decoder() -> Any:
    """The typed decoder's ``decode``: the fast path for well-shaped chunks.

    It raises on anything else; :func:`decode_payload` then says what the payload means.
    """
    return _typed.decode


def decode_payload(data: bytes) -> Decoded:
    """Decode one SSE payload the way the harness's ``JSON.parse`` + walk would see it."""
    try:
        return Decoded(chunk=_typed.decode(data))
    except msgspec.ValidationError as exc:
        reason = str(exc)
        try:
            value = _untyped.decode(data)
        except (msgspec.DecodeError, RecursionError):
            value = _parse_fallback(data)
            if isinstance(value, Decoded):
                return value
        return _lenient(value, reason)
    except (msgspec.DecodeError, RecursionError):
        value = _parse_fallback(data)
        if isinstance(value, Decoded):
            return value
        if isinstance(value, dict):
            try:
                return Decoded(chunk=msgspec.convert(value, WireChunk))
            except (msgspec.ValidationError, RecursionError, UnicodeEncodeError) as exc:
                # convert raises UnicodeEncodeError on a lone surrogate where a str does not go
                return _lenient(value, str(exc))
        return _lenient(value, "not an object")


def parse_json(data: bytes | memoryview) -> Any:
    """``data`` as plain JSON, read as ``JSON.parse`` reads it: by msgspec, else (what msgspec
    refuses: a lone surrogate escape, bytes that are not UTF-8, nesting past its limit) as
    :func:`decode_payload` reads it. Raises ``ValueError`` with the reason when it is not
    JSON."""
    try:
        return _untyped.decode(data)
    except (msgspec.DecodeError, RecursionError):
        value = _parse_fallback(bytes(data))
        if isinstance(value, Decoded):
            raise ValueError(value.malformed) from None
        return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_json_parse = json.JSONDecoder(parse_constant=_reject_constant).decode


def _parse_fallback(data: bytes) -> Any:
    """Parse what msgspec refused but ``JSON.parse`` may accept.

    ``JSON.parse`` runs on text the harness decoded with replacement characters, takes lone
    surrogate escapes, and has no nesting limit worth the name; msgspec is stricter on all
    three. Returns the value, or a ``Decoded`` saying the payload is malformed.
    """
    text = data.decode("utf-8", "replace")
    try:
        if text.startswith("\ufeff"):  # (json.loads' own words for it)
            return json.loads(text, parse_constant=_reject_constant)
        return _json_parse(text)  # (one decoder: json.loads with an option made one a call)
    except RecursionError:
        try:
            return parse_deep(text)
        except DeepJsonError as exc:
            return Decoded(malformed=str(exc), text=text)
    except ValueError as exc:
        # msgspec's own message is terser; prefer the position-bearing stdlib one.
        at = (exc.lineno, exc.colno) if isinstance(exc, json.JSONDecodeError) else None
        return Decoded(malformed=_json_error_message(exc), malformed_at=at, text=text)


def json_place(line: int, column: int) -> str:
    """A place in JSON text as the product writes it, after the decoder's message."""
    return f" at line {line}, column {column}"


def _json_error_message(exc: ValueError) -> str:
    """``json``'s message with the place as the product writes it (:func:`json_place`).

    Some of the stdlib's messages already end in "at" ("Invalid control character at",
    "Unterminated string starting at"): the place follows them without a second one.
    """
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg.removesuffix(" at") + json_place(exc.lineno, exc.colno)
    return str(exc)


def _lenient(value: Any, reason: str) -> Decoded:
    """Walk plain JSON as the harness does; see the module docstring."""

    def thrown(chunk: WireChunk, message: str) -> Decoded:
        # The harness throws mid-walk: what it walked so far stays, usage (read after the
        # choices) is never reached.
        chunk.usage = UNSET
        return Decoded(chunk=chunk, throw=message, lenient=reason)

    if value is None:
        return thrown(WireChunk(), "Cannot read properties of null (reading 'choices')")
    if not isinstance(value, dict):
        return Decoded(ignored=f"payload is a JSON {js_type(value)}, not an object")
    chunk = WireChunk(
        usage=value.get("usage", UNSET),
        error=value.get("error", UNSET),
        model=value.get("model", UNSET),
    )
    raw_choices = value.get("choices", UNSET)
    if raw_choices is UNSET or raw_choices is None:
        chunk.choices = raw_choices
        return Decoded(chunk=chunk, lenient=reason)
    if not isinstance(raw_choices, list):
        return thrown(chunk, "chunk.choices is not iterable")
    choices: list[Choice] = []
    chunk.choices = choices
    for raw_choice in raw_choices:
        if raw_choice is None:
            return thrown(chunk, "Cannot read properties of null (reading 'delta')")
        choice = Choice()
        choices.append(choice)
        if not isinstance(raw_choice, dict):
            continue  # property reads on a non-object give undefined
        raw_delta = raw_choice.get("delta", UNSET)
        delta = Delta()
        choice.delta = delta
        if isinstance(raw_delta, dict):
            delta.content = raw_delta.get("content", UNSET)
            delta.reasoning_content = raw_delta.get("reasoning_content", UNSET)
            raw_calls = raw_delta.get("tool_calls", UNSET)
            if raw_calls is UNSET or raw_calls is None:
                delta.tool_calls = raw_calls
            elif not isinstance(raw_calls, list):
                return thrown(chunk, "delta.tool_calls is not iterable")
            else:
                calls: list[ToolCall] = []
                delta.tool_calls = calls
                for raw_call in raw_calls:
                    if raw_call is None:
                        return thrown(chunk, "Cannot read properties of null (reading 'index')")
                    calls.append(_tool_call(raw_call))
        choice.finish_reason = raw_choice.get("finish_reason", UNSET)
    return Decoded(chunk=chunk, lenient=reason)


def _tool_call(raw: Any) -> ToolCall:
    if not isinstance(raw, dict):
        return ToolCall()  # property reads on a non-object give undefined
    call = ToolCall(
        index=raw.get("index", UNSET), id=raw.get("id", UNSET), type=raw.get("type", UNSET)
    )
    fn = raw.get("function", UNSET)
    if isinstance(fn, dict):
        call.function = Function(name=fn.get("name", UNSET), arguments=fn.get("arguments", UNSET))
    elif fn is None:
        call.function = None
    return call


def js_type(value: Any) -> str:
    """The JSON type name of a decoded value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def js_string(value: Any) -> str:
    """``String(value)`` as JavaScript computes it, for values concatenated into strings."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, list):
        return _js_join(value)
    return "[object Object]"


def _js_join(value: list[Any]) -> str:
    """``Array.prototype.join`` of nested arrays, with a stack: arrays may nest 100,000 deep."""
    done: list[list[str]] = [[]]  # the parts joined so far, per open array
    stack = [iter(_innermost(value))]
    while stack:
        for v in stack[-1]:
            if isinstance(v, list):
                stack.append(iter(_innermost(v)))
                done.append([])
                break
            done[-1].append("" if v is None else js_string(v))
        else:
            stack.pop()
            joined = ",".join(done.pop())
            if not done:
                return joined
            done[-1].append(joined)
    raise AssertionError("unreachable")


def _innermost(value: list[Any]) -> list[Any]:
    """A list of one list joins as that list does; a chain of them (a deep payload), as the
    last of the chain."""
    while len(value) == 1 and isinstance(value[0], list):
        value = value[0]
    return value


def describe_value(value: Any) -> str:
    """A short, unambiguous rendering of a raw identity value: absent, null, "" and 7 differ."""
    if value is UNSET:
        return "absent"
    if value is None:
        return "null"
    return dumps(value)  # lone surrogates and deep nesting included
