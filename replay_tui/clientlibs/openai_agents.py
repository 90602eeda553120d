"""OpenAI Agents SDK 0.24.0 (Python): ``ChatCmplStreamHandler`` for Chat Completions models.

Calls are keyed by the wire ``index``; a non-empty ``function.name`` and a non-empty ``id``
overwrite the one before (last non-empty wins) and arguments are appended; a call of type
``custom`` is ignored. A call that never got an id or a name reaches the run with ``""``.

With ``buffer_streamed_tool_calls=True`` (``openai-agents-buffered``), deltas whose ``type`` is
absent, ``null`` or ``"function"`` are held back and re-emitted as one delta per call when the
stream ends; a held call without an id or a name then raises ``ModelBehaviorError``, and so
does ``finish_reason: "tool_calls"`` arriving with no tool-call delta at all. A delta of any
other type passes straight through (and its index with it from then on).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.wire import UNSET, Function, ToolCall
from .base import (
    UNSAID,
    AssembledCall,
    Assembler,
    Assembly,
    Frame,
    PlainCall,
    Policy,
    Raise,
    choices,
    raise_sdk_stream_error,
    tool_deltas,
    tool_path,
    unlike,
)

__all__ = ["BUFFERED_POLICY", "POLICY"]


@dataclass
class _Call:
    index: Any
    call_id: str = ""
    name: str = ""
    arguments: str = ""
    at: str = "choices[0].delta.tool_calls[0]"
    """Where the call's first delta stood in its chunk, and that chunk's line; then where its
    id was last taken from."""
    line: int | None = None
    id_at: tuple[str, int | None] | None = None


_FIRST = tool_path(0, 0)


def _key(index: Any) -> Any:
    if index is UNSET:
        return None
    return index if isinstance(index, int | float | str) else repr(index)


@dataclass
class AgentsAssembler(Assembler):
    buffered: bool = False
    calls: dict[Any, _Call] = field(default_factory=dict)
    ignored: set[Any] = field(default_factory=set)
    held: dict[Any, _Call] = field(default_factory=dict)
    passthrough: set[Any] = field(default_factory=set)
    saw_passthrough: bool = False
    at: str = "choices[0].delta.tool_calls[0]"
    """The delta being read: its path in its chunk, and the chunk's line."""
    line: int | None = None

    plain = True

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        index, cid, name, args = call
        self.line = line = frame.line
        self.at = at = _FIRST
        if self.buffered:
            if index in self.passthrough:
                self.feed(frame)
                return
            found = self.held.get(index)
            if found is None:
                found = self.held[index] = _Call(index, at=at, line=line)
        else:
            if index in self.ignored:
                return
            found = self.calls.get(index)
            if found is None:
                found = self.calls[index] = _Call(index, at=at, line=line)
        found.call_id, found.id_at, found.name = cid, (at, line), name
        if args:
            found.arguments += args

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame)
        self.line = frame.line
        for c, choice in enumerate(choices(frame.chunk)):
            deltas = tool_deltas(choice)
            if not self.buffered:
                for k, call in enumerate(deltas):
                    self.at = tool_path(c, k)
                    self._handle(call.index, call.type, call.id, call.function)
                continue
            remaining: list[ToolCall] = []
            for k, call in enumerate(deltas):
                key = _key(call.index)
                self.at = tool_path(c, k)
                if key in self.passthrough:
                    self.saw_passthrough = True
                    remaining.append(call)
                elif call.type is UNSET or call.type is None or call.type == "function":
                    self._hold(call)
                else:
                    self.passthrough.add(key)
                    self.saw_passthrough = True
                    remaining.append(call)
            delta = choice.delta
            output = bool(remaining) or bool(
                delta
                and (
                    (delta.content is not UNSET and delta.content is not None)
                    or (isinstance(delta.reasoning_content, str) and delta.reasoning_content)
                )
            )
            if (
                choice.finish_reason == "tool_calls"
                and not self.held
                and not self.saw_passthrough
                and not output
            ):
                raise Raise(
                    "ModelBehaviorError",
                    "Chat Completions stream finished with finish_reason='tool_calls' but did not"
                    " include any streamed tool call deltas.",
                    field=f"choices[{c}].finish_reason",
                    value=choice.finish_reason,
                )
            for call in remaining:
                self._handle(call.index, call.type, call.id, call.function)

    def _hold(self, call: ToolCall) -> None:
        held = self.held.get(_key(call.index))
        if held is None:
            held = self.held[_key(call.index)] = _Call(call.index, at=self.at, line=self.line)
        if _truthy(call.id):
            held.call_id = call.id
            held.id_at = self.at, self.line
        fn = call.function
        if isinstance(fn, Function):
            if isinstance(fn.name, str) and fn.name:
                held.name = fn.name
            if isinstance(fn.arguments, str) and fn.arguments:
                held.arguments += fn.arguments

    def _handle(self, index: Any, type_: Any, call_id: Any, fn: Any) -> None:
        key = _key(index)
        if key in self.ignored:
            return
        if type_ == "custom":
            self.ignored.add(key)
            return
        call = self.calls.get(key)
        if call is None:
            call = self.calls[key] = _Call(index, at=self.at, line=self.line)
        if isinstance(fn, Function):
            if isinstance(fn.arguments, str):
                call.arguments += fn.arguments
            if isinstance(fn.name, str) and fn.name:
                call.name = fn.name
        if _truthy(call_id):
            call.call_id = call_id
            call.id_at = self.at, self.line

    def finish(self) -> Assembly:
        if self.held:
            try:  # sorted(buffered_calls.items()): the keys are the wire indexes as sent
                keys = sorted(self.held)
            except TypeError as exc:
                odd = self.held[list(self.held)[unlike(list(self.held))]]
                raise Raise(
                    "TypeError",
                    str(exc),
                    layer="buffered tool calls, sorted",
                    field=f"{odd.at}.index",
                    value=odd.index,
                    field_line=odd.line,
                ) from None
            for key in keys:
                held = self.held[key]
                if not held.call_id:
                    raise Raise(
                        "ModelBehaviorError",
                        "Buffered Chat Completions tool call stream ended without a tool call id.",
                        field=f"{held.at}.id",
                        value=UNSAID,  # (no delta of the call sent a non-empty one)
                        field_line=held.line,
                    )
                if not held.name:
                    raise Raise(
                        "ModelBehaviorError",
                        "Buffered Chat Completions tool call stream ended without a function name.",
                        field=f"{held.at}.function.name",
                        value=UNSAID,
                        field_line=held.line,
                    )
                if not _pydantic_ok(held.index, held.call_id, held.name):
                    index_ok = _index_ok(held.index)
                    at, line = (held.id_at or (held.at, None)) if index_ok else (held.at, held.line)
                    raise Raise(
                        "ValidationError",
                        "1 validation error for ChoiceDeltaToolCall",
                        layer="ChoiceDeltaToolCall: index must be an integer, id a string",
                        field=f"{at}.id" if index_ok else f"{at}.index",
                        value=held.call_id if index_ok else held.index,
                        field_line=line,
                    )
            for key in keys:
                held = self.held[key]
                self.at, self.line = held.at, held.line
                self._handle(
                    held.index,
                    "function",
                    held.call_id,
                    Function(name=held.name, arguments=held.arguments),
                )
                handed = self.calls.get(_key(held.index))
                if handed is not None:
                    handed.id_at = held.id_at
        for c in self.calls.values():
            if not (isinstance(c.call_id, str) and isinstance(c.name, str)):
                # (a name is only ever taken when it is a string: the id is the one)
                raise Raise(
                    "ValidationError",
                    "1 validation error for ResponseFunctionToolCall",
                    layer="ResponseFunctionToolCall: call_id and name must be strings",
                    field=f"{(c.id_at or (c.at, c.line))[0]}.id",
                    value=c.call_id,
                    expected="string",
                    field_line=(c.id_at or (c.at, c.line))[1],
                )
        return Assembly(
            calls=[
                AssembledCall(c.call_id, c.name, c.arguments, wire_index=c.index)
                for c in self.calls.values()
            ]
        )


def _truthy(value: Any) -> bool:
    return value is not UNSET and bool(value)


def _index_ok(index: Any) -> bool:
    return (isinstance(index, int) and not isinstance(index, bool)) or (
        isinstance(index, float) and index.is_integer()
    )


def _pydantic_ok(index: Any, call_id: Any, name: Any) -> bool:
    """``ChoiceDeltaToolCall(index=…, id=…, function=…)`` (pydantic, lax) accepts them."""
    return _index_ok(index) and isinstance(call_id, str) and isinstance(name, str)


POLICY = Policy(
    key="openai-agents",
    library="openai-agents 0.24.0 (Python), ChatCmplStreamHandler",
    rule='last non-empty id and name win; arguments appended; a call never identified gets ""',
    assembler=AgentsAssembler,
)

BUFFERED_POLICY = Policy(
    key="openai-agents-buffered",
    library="openai-agents 0.24.0 (Python), buffer_streamed_tool_calls=True",
    rule=(
        "as openai-agents, but calls are held until the stream ends and a call without an id"
        " or a name raises ModelBehaviorError"
    ),
    assembler=lambda: AgentsAssembler(buffered=True),
)
