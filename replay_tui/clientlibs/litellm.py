"""LiteLLM 1.110.2: ``litellm.stream_chunk_builder`` (``ChunkProcessor.get_combined_tool_content``).

Calls are keyed by ``(choice index, tool-call index)`` (a missing index counts as 0); a delta
without a ``function`` object is skipped. A truthy ``id``, ``type`` or ``function.name``
overwrites the one before (last non-empty wins); argument fragments are joined per key, and
empty arguments become ``"{}"``. Only a call that ends with both an id and a name is built: any
other is silently dropped.

Before that, ``CustomStreamWrapper.chunk_creator`` rebuilds each chunk's delta as a pydantic
``Delta``; a tool-call delta without an ``index`` gets its position among the chunk's
index-less deltas, and one that ``ChatCompletionDeltaToolCall`` rejects (an ``id``, ``type`` or
``function.name`` that is not a string, an ``index`` that is not an integer, no ``function``)
makes the whole delta empty — the chunk's tool calls are dropped with a logged exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.wire import UNSET, Function, ToolCall
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
    raise_sdk_stream_error,
    sorted_keys,
    tool_deltas,
    tool_path,
)

__all__ = ["POLICY"]


def _truthy(value: Any) -> bool:
    return value is not UNSET and bool(value)


@dataclass
class _Acc:
    index: Any
    id: Any = None
    name: Any = None
    type: Any = None
    arguments: list[str] = field(default_factory=list)
    at: str = ""
    """Where the call's first delta stood in its chunk, and that chunk's line."""
    line: int | None = None


def _str_or_none(value: Any) -> bool:
    return value is UNSET or value is None or isinstance(value, str)


def _valid_delta(call: ToolCall) -> bool:
    """Whether ``ChatCompletionDeltaToolCall(**tool_call)`` (pydantic, lax) accepts the delta."""
    fn = call.function
    if not isinstance(fn, Function) or not _str_or_none(fn.name):
        return False
    if not (fn.arguments is UNSET or fn.arguments is None or isinstance(fn.arguments, str | dict)):
        return False
    if not (_str_or_none(call.id) and _str_or_none(call.type)):
        return False
    index = call.index
    if index is UNSET or index is None or isinstance(index, bool | int):
        return True
    if isinstance(index, float):
        return index.is_integer()
    if isinstance(index, str):
        try:
            return float(index.strip()).is_integer()
        except ValueError:
            return False
    return False


_FIRST = tool_path(0, 0)


class LiteLLMAssembler(Assembler):
    plain = True

    def __init__(self) -> None:
        self.calls: dict[Any, _Acc] = {}

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        index, cid, name, args = call
        acc = self.calls.get(index)
        if acc is None:
            acc = self.calls[index] = _Acc(index, at=_FIRST, line=frame.line)
        acc.id, acc.type, acc.name = cid, "function", name
        if args:
            acc.arguments.append(args)

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame)
        for c, choice in enumerate(choices(frame.chunk)):
            deltas = tool_deltas(choice)
            if not all(_valid_delta(call) for call in deltas):
                continue  # Delta(**…) raised: chunk_creator substitutes an empty Delta()
            missing = 0
            for k, call in enumerate(deltas):
                index = call.index
                if index is UNSET or index is None:
                    index, missing = missing, missing + 1
                elif not isinstance(index, int) or isinstance(index, bool):
                    index = int(float(index)) if not isinstance(index, bool) else int(index)
                fn = call.function
                if not isinstance(fn, Function):
                    continue
                try:
                    acc = self.calls.get(index)
                except TypeError:  # an unhashable index (a JSON array or object)
                    raise Raise(
                        "TypeError",
                        f"unhashable type: '{type(index).__name__}'",
                        field=tool_path(c, k, "index"),
                        value=call.index,
                    ) from None
                if acc is None:
                    acc = self.calls[index] = _Acc(index, at=tool_path(c, k), line=frame.line)
                if _truthy(call.id):
                    acc.id = call.id
                if _truthy(call.type):
                    acc.type = call.type
                if _truthy(fn.name):
                    acc.name = fn.name
                if _truthy(fn.arguments):
                    acc.arguments.append(fn.arguments)

    def finish(self) -> Assembly:
        out = Assembly()
        keys = sorted_keys(self.calls, lambda call: call.index)
        for key in keys:
            acc = self.calls[key]
            args = "".join(map(str, acc.arguments)) or "{}"
            if acc.id and acc.name:
                out.calls.append(AssembledCall(acc.id, acc.name, args, wire_index=acc.index))
            else:
                missing = "id" if not acc.id else "name"
                out.dropped.append(
                    DroppedCall(acc.index, acc.id, acc.name, args, f"no {missing}: not built")
                )
        return out


POLICY = Policy(
    key="litellm",
    library="litellm 1.110.2, stream_chunk_builder",
    rule=(
        "last non-empty id and name win; arguments joined (empty becomes {}); a call without"
        " both an id and a name is silently dropped"
    ),
    assembler=LiteLLMAssembler,
)
