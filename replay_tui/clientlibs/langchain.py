"""LangChain: langchain-openai 1.7.4 ``ChatOpenAI.stream`` summed into one ``AIMessageChunk``
(langchain-core 1.8.3).

langchain-openai turns each raw tool-call delta into a ``tool_call_chunk`` from
``rtc["function"].get(...)`` on the SDK's ``model_dump()`` (so a delta without a ``function``
object raises ``AttributeError``). ``AIMessageChunk.__add__`` merges the chunk lists with
``merge_lists``: an entry joins the first earlier entry with the same integer ``index`` whose id
is compatible (either is ``None``/``""`` or they are equal), otherwise it becomes a separate
call. ``merge_dicts`` then skips ``None``, keeps an equal ``id`` once and concatenates every
other string — a repeated ``name`` doubles. At the end ``init_tool_calls`` parses arguments with
``parse_partial_json``: a dict becomes a call (name ``None`` → ``""``), anything else an
``invalid_tool_call``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.wire import UNSET, Function
from .base import (
    AssembledCall,
    Assembler,
    Assembly,
    Frame,
    PlainCall,
    Policy,
    Raise,
    choices,
    handed_over,
    loads,
    none_if_unset,
    raise_sdk_stream_error,
    times,
    tool_deltas,
    tool_path,
)

__all__ = ["POLICY", "parse_partial_json"]


def parse_partial_json(s: str) -> Any:
    """A port of ``langchain_core.utils.json.parse_partial_json`` (MIT, LangChain).

    The library walks ``s`` character by character; this port jumps from one character that
    matters to the next (a call's arguments can be megabytes), and keeps the positions where it
    wrote a two-character ``\\n`` for a raw newline, so that trimming after a failed parse
    removes the same characters the library's list of characters does.
    """
    try:
        return loads(s, strict=False)
    except json.JSONDecodeError:
        pass
    parts: list[str] = []
    size = 0
    newlines: set[int] = set()  # where a raw newline inside a string became "\\n"
    stack: list[str] = []
    inside = False
    escaped = False
    i, n = 0, len(s)
    while i < n:
        m = (_IN_STRING if inside else _OUTSIDE).search(s, i)
        stop = n if m is None else m.start()
        if stop > i:
            parts.append(s[i:stop])
            size += stop - i
            if inside:
                escaped = False
        if m is None:
            break
        char = m.group()
        i = stop + 1
        if inside:
            if char == '"' and not escaped:
                inside = False
            elif char == "\n" and not escaped:
                newlines.add(size)
                parts.append("\\n")
                size += 2
                continue
            elif char == "\\":
                escaped = not escaped
            else:
                escaped = False
        elif char == '"':
            inside = True
            escaped = False
        elif char == "{":
            stack.append("}")
        elif char == "[":
            stack.append("]")
        elif stack and stack[-1] == char:
            stack.pop()
        else:
            return None
        parts.append(char)
        size += 1
    text = "".join(parts)
    if inside:
        if escaped:
            text = text[:-1]
        text += '"'
    closers = "".join(reversed(stack))
    while text:
        try:
            return json.loads(text + closers, strict=False)
        except json.JSONDecodeError as e:
            if e.pos < len(text):
                cut = e.pos - 1 if e.pos - 1 in newlines else e.pos
            else:
                cut = len(text) - (2 if len(text) - 2 in newlines else 1)
            text = text[:cut]
    return json.loads(s, strict=False)


_IN_STRING = re.compile(r'["\\\n]')
_OUTSIDE = re.compile(r'["{}\[\]]')


_WIRE_FIELD = {"name": "function.name", "args": "function.arguments"}
"""A tool-call chunk's key, as the field of the delta it came from."""


def _merge_into(left: dict[str, Any], right: dict[str, Any]) -> None:
    """``merge_dicts`` for the keys a tool-call chunk has (name, args, id, index)."""
    for key, rv in right.items():
        if key not in left or (rv is not None and left[key] is None):
            left[key] = rv
        elif rv is None:
            continue
        elif type(left[key]) is not type(rv):
            raise Raise(
                "TypeError",
                f'additional_kwargs["{key}"] already exists in this message, but with a'
                " different type.",
                field=_WIRE_FIELD.get(key, key),  # (the caller puts the delta's path before it)
                value=rv,
            )
        elif isinstance(rv, str):
            if key == "id" and left[key] == rv:
                continue
            left[key] = left[key] + rv
        elif left[key] == rv:
            continue
        elif isinstance(rv, int) and not isinstance(rv, bool):
            left[key] = left[key] + rv
        else:
            raise Raise(
                "TypeError",
                f"Additional kwargs key {key} already exists in left dict",
                field=_WIRE_FIELD.get(key, key),
                value=rv,
            )


def _mergeable(e: dict[str, Any]) -> bool:
    index = e.get("index")
    return (isinstance(index, int) and not isinstance(index, bool)) or (
        isinstance(index, str) and index.startswith("lc_")
    )


def _blank_id(value: Any) -> bool:
    return value is None or value == ""


class LangChainAssembler(Assembler):
    first_choice = True  # (it reads choices[0] alone)

    def __init__(self) -> None:
        self.merged: list[dict[str, Any]] = []
        self.first = True
        self.by_index: dict[Any, list[dict[str, Any]]] = {}
        """The merged entries by index, in order (what the scan of ``merged`` would meet
        first: 5,000 calls, each looked up once per delta)"""

    def _append(self, entry: dict[str, Any]) -> None:
        self.merged.append(entry)
        index = entry.get("index")
        try:
            if index == index:  # (NaN equals nothing: never looked up)
                self.by_index.setdefault(index, []).append(entry)
        except TypeError:  # an unhashable index equals no mergeable one
            pass

    plain = True

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        index, cid, name, args = call
        if self.first or index in self.by_index:
            self.feed(frame)  # (the first message, or a call to merge into)
            return
        self._append({"name": name, "args": args, "id": cid, "index": index})

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame)
        cs = choices(frame.chunk)
        if not cs or not cs[0].delta:
            return
        entries: list[dict[str, Any]] = []
        for k, call in enumerate(tool_deltas(cs[0])):
            fn = call.function
            if not isinstance(fn, Function):
                raise Raise(
                    "AttributeError",
                    "'NoneType' object has no attribute 'get'",
                    field=tool_path(0, k, "function"),
                    value=fn,
                )
            for fld, value in (("id", call.id), ("name", fn.name), ("args", fn.arguments)):
                # the chunk's tool_call_chunks are validated by pydantic: str or None
                if value is not UNSET and value is not None and not isinstance(value, str):
                    raise Raise(
                        "ValidationError",
                        "1 validation error for AIMessageChunk",
                        layer=f"AIMessageChunk: tool_call_chunks {fld} must be a string",
                        field=tool_path(0, k, _WIRE_FIELD.get(fld, fld)),
                        value=value,
                        expected="string or null",
                    )
            entries.append(
                {
                    "name": times(none_if_unset(fn.name), frame),
                    "args": none_if_unset(fn.arguments),
                    "id": none_if_unset(call.id),
                    "index": none_if_unset(call.index),
                }
            )
        if self.first:
            # the first message of the sum keeps its own list as it is
            self.first = False
            for e in entries:
                self._append(dict(e))
            return
        for k, e in enumerate(entries):
            if _mergeable(e):
                for left in self.by_index.get(e["index"], ()):
                    if _blank_id(left.get("id")) or _blank_id(e["id"]) or left.get("id") == e["id"]:
                        try:
                            _merge_into(left, e)
                        except Raise as exc:
                            exc.field = tool_path(0, k, exc.field)
                            raise
                        break
                else:
                    self._append(dict(e))
            else:
                self._append(dict(e))

    def finish(self) -> Assembly:
        out = Assembly()
        for chunk in self.merged:
            args = chunk.pop("args", None)  # (held here alone: let go once parsed, below)
            try:
                parsed = parse_partial_json(args) if args else {}
                valid = isinstance(parsed, dict)
            except Exception:
                parsed, valid = UNSET, False
            if valid:
                args = None  # (5 MB of arguments not held beside their parse and its dump)
                out.calls.append(
                    handed_over(
                        AssembledCall(
                            id=chunk.get("id"),
                            name=chunk.get("name") or "",
                            arguments=json.dumps(parsed),
                            wire_index=_wire(chunk.get("index")),
                            parsed=parsed,
                        )
                    )
                )
            else:
                out.calls.append(
                    AssembledCall(
                        id=chunk.get("id"),
                        name=chunk.get("name"),
                        arguments=args,
                        wire_index=_wire(chunk.get("index")),
                        invalid=True,
                    )
                )
        return out


def _wire(index: Any) -> Any:
    return UNSET if index is None else index


POLICY = Policy(
    key="langchain",
    library="langchain-openai 1.7.4 with langchain-core 1.8.3, AIMessageChunk sum",
    rule=(
        "same index and compatible id merge; a different non-empty id at the same index becomes"
        " a separate call; equal ids are kept once, other strings concatenate (a repeated name"
        " doubles); null is skipped; a delta without function raises AttributeError"
    ),
    assembler=LangChainAssembler,
)
