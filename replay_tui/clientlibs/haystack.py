"""Haystack 3.4.1: ``OpenAIChatGenerator`` streaming, ``_convert_streaming_chunks_to_chat_message``.

Only ``choices[0]`` is read. A chunk with tool calls becomes a ``StreamingChunk``, which refuses
(``ValueError``) to carry non-empty text content beside tool calls, or tool calls whose first
index is missing. Calls are keyed by index: an ``id`` that is not ``null`` is *assigned*, so a
continuation's ``id: ""`` erases it; names and arguments that are not ``null`` are concatenated
(a repeated name doubles). At the end arguments are ``json.loads``-ed: a call whose arguments
do not parse is skipped with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.wire import UNSET, Function, js_string
from .base import (
    AssembledCall,
    Assembler,
    Assembly,
    DroppedCall,
    Frame,
    PlainCall,
    Policy,
    Raise,
    choices,
    handed_over,
    loads,
    raise_sdk_stream_error,
    sorted_keys,
    tool_deltas,
    tool_path,
)

__all__ = ["POLICY"]


@dataclass
class _Call:
    index: Any
    id: Any = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    at: str = ""
    """Where the call's first delta stood in its chunk, and that chunk's line, and the
    ``index`` it sent (absent or null: ``index`` is ``None`` either way)."""
    line: int | None = None
    sent: Any = UNSET


_FIRST = tool_path(0, 0)


class HaystackAssembler(Assembler):
    first_choice = True  # (it reads choices[0] alone)

    def __init__(self) -> None:
        self.calls: dict[Any, _Call] = {}

    plain = True

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        index, cid, name, args = call
        found = self.calls.get(index)
        if found is None:
            found = self.calls[index] = _Call(index, at=_FIRST, line=frame.line)
            found.sent = index
        found.id = cid
        found.name += name
        if args:
            found.arguments.append(args)

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame)
        cs = choices(frame.chunk)
        if not cs or not cs[0].delta:
            return
        delta = cs[0].delta
        deltas = tool_deltas(cs[0])
        if not deltas:
            return
        content = delta.content
        if isinstance(content, str) and content:
            raise Raise(
                "ValueError",
                "Only one of `content`, `tool_call`, `tool_call_result` or `reasoning` may be"
                " set in a StreamingChunk.",
                field="choices[0].delta.content",
                value=content,
            )
        if deltas[0].index is UNSET or deltas[0].index is None:
            raise Raise(
                "ValueError",
                "If `tool_call`, `tool_call_result` or `reasoning` is set, `index` must also be"
                " set.",
                field=tool_path(0, 0, "index"),
                value=deltas[0].index,
            )
        for k, d in enumerate(deltas):
            fn = d.function
            name = fn.name if isinstance(fn, Function) else UNSET
            args = fn.arguments if isinstance(fn, Function) else UNSET
            index = None if d.index is UNSET else d.index
            key = index if isinstance(index, int | float | str | None) else repr(index)
            call = self.calls.get(key)
            if call is None:
                call = self.calls[key] = _Call(index, at=tool_path(0, k), line=frame.line)
                call.sent = d.index
            if d.id is not UNSET and d.id is not None:
                call.id = d.id
            if name is not UNSET and name is not None:
                call.name += js_string(name) * frame.repeat
            if args is not UNSET and args is not None and args != "":
                call.arguments.append(js_string(args))

    def finish(self) -> Assembly:
        out = Assembly()
        keys = sorted_keys(self.calls, lambda call: call.sent)
        for key in keys:
            call = self.calls[key]
            args = "".join(call.arguments)
            call.arguments.clear()  # (its pieces: the join is what is kept)
            try:
                parsed = loads(args) if args else {}
            except ValueError:
                out.dropped.append(
                    DroppedCall(
                        call.index,
                        call.id,
                        call.name,
                        args,
                        "arguments are not valid JSON: skipped with a warning",
                    )
                )
                continue
            out.calls.append(
                handed_over(
                    AssembledCall(
                        call.id,
                        call.name,
                        args,
                        wire_index=UNSET if call.index is None else call.index,
                        parsed=parsed,
                    )
                )
            )
        return out


POLICY = Policy(
    key="haystack",
    library="haystack-ai 3.4.1, OpenAIChatGenerator (streaming)",
    rule=(
        'an id that is not null is assigned ("" erases it); names and arguments concatenate'
        " (a repeated name doubles); a call whose arguments are not JSON is skipped"
    ),
    assembler=HaystackAssembler,
)
