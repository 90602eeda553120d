"""LangChain.js: ``@langchain/openai`` 1.6.0 ``ChatOpenAI`` streaming, ``@langchain/core`` 1.4.0.

Each chunk's ``choices[0].delta`` becomes an ``AIMessageChunk`` when its role (or the last role
seen) is ``assistant``, its tool-call deltas ``tool_call_chunks`` ``{name, args, id, index}``.
Chunks are summed with ``concat`` (``_mergeLists``): a chunk merges into an earlier one at the
same index unless both carry different non-empty ids (then it is appended), or — without an
index — into one with the same id; merging keeps the last truthy ``id`` and ``name``, appends
``args`` and throws when a field changes JSON type. At the end ``collapseToolCallChunks``
groups the chunks again by id and index, takes the first chunk's name, the first truthy id,
and parses the trimmed joined arguments with ``parsePartialJson``: a call without an id, or
whose arguments are not an object, is an ``invalid_tool_call``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ..core.wire import UNSET, js_string
from .base import (
    AssembledCall,
    Assembler,
    Assembly,
    Frame,
    Policy,
    Raise,
    is_number,
    js_truthy,
    raise_sdk_stream_error,
    tool_path,
)

__all__ = ["POLICY", "parse_partial_json_js"]


class _Partial(Exception):
    pass


_WS = re.compile(r"\s*")
_STRING_RUN = re.compile(r'[^"\\]*')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "b": "\b", "f": "\f", "/": "/"}


def _js_number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() and not math.isinf(value) else value


def parse_partial_json_js(s: Any) -> Any:
    """A port of ``parsePartialJson`` (``@langchain/core`` ``utils/json``): ``None`` when it
    cannot parse (JavaScript ``null``)."""
    if s is None or s is UNSET:
        return None
    try:
        return json.loads(s)
    except ValueError:
        pass
    buffer = s.strip()
    if not buffer:
        return None
    pos = 0
    n = len(buffer)

    def ws() -> None:
        nonlocal pos
        m = _WS.match(buffer, pos)
        pos = m.end() if m else pos

    def string() -> str:
        nonlocal pos
        if buffer[pos] != '"':
            raise _Partial
        pos += 1
        out: list[str] = []
        while pos < n:
            m = _STRING_RUN.match(buffer, pos)
            if m and m.end() > pos:
                out.append(m.group())
                pos = m.end()
                continue
            ch = buffer[pos]
            if ch == '"':
                pos += 1
                return "".join(out)
            # a backslash
            if pos + 1 >= n:
                out.append("\\")
                pos += 1
                break
            esc = buffer[pos + 1]
            if esc in _ESCAPES:
                out.append(_ESCAPES[esc])
                pos += 2
            elif esc == "u":
                hexa = buffer[pos + 2 : pos + 6]
                if not re.fullmatch(r"[0-9A-Fa-f]{0,4}", hexa):
                    raise _Partial
                out.append(chr(int(hexa, 16)) if len(hexa) == 4 else "u" + hexa)
                pos += 2 + len(hexa)
            else:
                raise _Partial
        return "".join(out)

    def number() -> float | int:
        nonlocal pos
        m = re.compile(r"-?(0|[1-9][0-9]*)?(\.[0-9]*)?([eE][+-]?[0-9]*)?").match(buffer, pos)
        assert m is not None
        text = m.group()
        if m.group(1) == "0" and m.end() < n and buffer[m.end()].isdigit():
            raise _Partial
        pos = m.end()
        if text == "-":
            return -0.0
        lead = re.match(r"-?\d+(\.\d*)?([eE][+-]?\d+)?", text)
        if lead is None:
            raise _Partial
        return _js_number(lead.group())

    def value() -> Any:
        nonlocal pos
        ws()
        if pos >= n:
            raise _Partial
        ch = buffer[pos]
        if ch == "{":
            return obj()
        if ch == "[":
            return arr()
        if ch == '"':
            return string()
        for word, result in (("null", None), ("true", True), ("false", False)):
            if word.startswith(buffer[pos : pos + len(word)]):
                pos += min(len(word), n - pos)
                return result
        if ch == "-" or ch.isdigit():
            return number()
        raise _Partial

    def arr() -> list[Any]:
        nonlocal pos
        out: list[Any] = []
        pos += 1
        ws()
        if pos >= n:
            return out
        if buffer[pos] == "]":
            pos += 1
            return out
        while pos < n:
            ws()
            if pos >= n:
                return out
            out.append(value())
            ws()
            if pos >= n:
                return out
            if buffer[pos] == "]":
                pos += 1
                return out
            if buffer[pos] != ",":
                raise _Partial
            pos += 1
        return out

    def obj() -> dict[str, Any]:
        nonlocal pos
        out: dict[str, Any] = {}
        pos += 1
        ws()
        if pos >= n:
            return out
        if buffer[pos] == "}":
            pos += 1
            return out
        while pos < n:
            ws()
            if pos >= n:
                return out
            key = string()
            ws()
            if pos >= n:
                return out
            if buffer[pos] != ":":
                raise _Partial
            pos += 1
            ws()
            if pos >= n:
                return out
            out[key] = value()
            ws()
            if pos >= n:
                return out
            if buffer[pos] == "}":
                pos += 1
                return out
            if buffer[pos] != ",":
                raise _Partial
            pos += 1
        return out

    try:
        result = value()
        ws()
        if pos < n:
            raise _Partial
        return result
    except (_Partial, IndexError, RecursionError, ValueError):
        return None


def _js_type(value: Any) -> str:
    if isinstance(value, str):
        return "string"
    if is_number(value):
        return "number"
    if isinstance(value, bool):
        return "boolean"
    return "object"


def _has_index(item: dict[str, Any]) -> bool:
    return isinstance(item.get("index"), str) or is_number(item.get("index"))


def _has_id(item: dict[str, Any]) -> bool:
    cid = item.get("id")
    return cid is not None and cid != ""


def _same(a: Any, b: Any) -> bool:
    """JavaScript ``===`` on decoded JSON scalars."""
    return _js_type(a) == _js_type(b) and a == b


def _merge_target(merged: list[dict[str, Any]], item: dict[str, Any]) -> int:
    item_index, item_id = _has_index(item), _has_id(item)
    if not item_index and not item_id:
        return -1
    for k, left in enumerate(merged):
        left_index, left_id = _has_index(left), _has_id(left)
        if item_index and left_index:
            if not _same(left["index"], item["index"]):
                continue
            if left_id and item_id:
                if _same(left["id"], item["id"]):
                    return k
                continue
            return k
        if (
            not item_index
            and not left_index
            and item_id
            and left_id
            and _same(left["id"], item["id"])
        ):
            return k
    return -1


_WIRE_FIELD = {"name": "function.name", "args": "function.arguments"}
"""A tool-call chunk's key, as the field of the delta it came from."""


def _merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """``_mergeDicts`` for a tool-call chunk's keys."""
    merged = dict(left)
    for key, value in right.items():
        if merged.get(key) is None:
            merged[key] = value
        elif value is None:
            continue
        elif _js_type(merged[key]) != _js_type(value):
            raise Raise(
                "Error",
                f"field[{key}] already exists in the message chunk, but with a different type.",
                layer="AIMessageChunk.concat (_mergeDicts)",
                field=_WIRE_FIELD.get(key, key),  # (the caller puts the delta's path before it)
                value=value,
            )
        elif isinstance(value, str):
            if key == "type" or key == "index":
                continue
            if key in ("id", "name"):
                if value:
                    merged[key] = value
            else:
                merged[key] += value
        elif is_number(value) and key != "index":
            merged[key] = merged[key] + value
    return merged


class LangChainJsAssembler(Assembler):
    first_choice = True  # (it reads choices[0] alone)

    def __init__(self) -> None:
        self.chunks: list[dict[str, Any]] = []
        self.role: Any = None

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame, node=True)
        raw = frame.raw
        cs = raw.get("choices") if isinstance(raw, dict) else None
        choice = cs[0] if isinstance(cs, list) and cs else None
        if not isinstance(choice, dict) or not choice.get("delta"):
            return
        delta = choice["delta"]
        if not isinstance(delta, dict):
            return
        role = delta.get("role") if delta.get("role") is not None else self.role
        if delta.get("role") is not None:
            self.role = delta.get("role")
        calls = delta.get("tool_calls")
        if role != "assistant" or not isinstance(calls, list):
            return
        content = delta.get("content")
        if content is not None and not isinstance(content, str):
            return  # "Received non-string content": the chunk is skipped
        for k, tc in enumerate(calls):
            tc = tc if isinstance(tc, dict) else {}
            fn = tc.get("function")
            fn = fn if isinstance(fn, dict) else {}
            item = {
                "name": fn.get("name"),
                "args": fn.get("arguments"),
                "id": tc.get("id"),
                "index": tc.get("index"),
                "type": "tool_call_chunk",
            }
            target = _merge_target(self.chunks, item)
            if target >= 0:
                try:
                    self.chunks[target] = _merge(self.chunks[target], item)
                except Raise as exc:
                    exc.field = f"{tool_path(0, k)}.{exc.field}"
                    raise
            else:
                self.chunks.append(item)

    def finish(self) -> Assembly:
        groups: list[list[dict[str, Any]]] = []
        for chunk in self.chunks:
            cid, index = chunk.get("id"), chunk.get("index")
            found = None
            for group in groups:
                match = group[0]
                if js_truthy(cid) and index is not None:
                    hit = _same(cid, match.get("id")) and _same(index, match.get("index"))
                elif js_truthy(cid):
                    hit = _same(cid, match.get("id"))
                elif index is not None:
                    hit = _same(index, match.get("index"))
                else:
                    hit = False
                if hit:
                    found = group
                    break
            if found is None:
                groups.append([chunk])
            else:
                found.append(chunk)
        out = Assembly()
        for group in groups:
            name = group[0].get("name")
            name = "" if name is None else name
            joined = "".join(
                js_string(c["args"]) if js_truthy(c.get("args")) else "" for c in group
            ).strip()
            args = joined or "{}"
            cid = next((c["id"] for c in group if js_truthy(c.get("id"))), group[0].get("id"))
            parsed = parse_partial_json_js(args)
            index = group[0].get("index")
            wire = UNSET if index is None else index
            if js_truthy(cid) and isinstance(parsed, dict):
                text = json.dumps(parsed, separators=(",", ":"), ensure_ascii=False)
                out.calls.append(AssembledCall(cid, name, text, wire_index=wire, parsed=parsed))
            else:
                out.calls.append(AssembledCall(cid, name, args, wire_index=wire, invalid=True))
        return out


POLICY = Policy(
    key="langchain-js",
    library="@langchain/openai 1.6.0 with @langchain/core 1.4.0 (ChatOpenAI stream, concat)",
    rule=(
        "chunks merge by index unless their non-empty ids differ (a changed id is a new call);"
        " last truthy id and name win; arguments appended and parsed at the end; a call with"
        " no id is set aside as invalid"
    ),
    assembler=LangChainJsAssembler,
)
