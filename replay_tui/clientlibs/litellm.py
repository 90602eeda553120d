"""LiteLLM 1.110.2: ``litellm.stream_chunk_builder`` (``ChunkProcessor.get_combined_tool_content``).

Calls are keyed by ``(choice index, tool-call index)`` (a missing index counts as 0); a delta
without a ``function`` object is skipped. A truthy ``id``, ``type`` or ``function.name``
overwrites the one before (last non-empty wins); argument fragments are joined per key, and
empty arguments become ``"{}"``. Only a call that ends with both an id and a name is built: any
other is silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.wire import UNSET, Function
from .base import (
    AssembledCall,
    Assembler,
    Assembly,
    DroppedCall,
    Frame,
    Policy,
    Raise,
    choices,
    raise_sdk_stream_error,
    tool_deltas,
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


class LiteLLMAssembler(Assembler):
    def __init__(self) -> None:
        self.calls: dict[Any, _Acc] = {}

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame)
        for choice in choices(frame.chunk):
            for call in tool_deltas(choice):
                index = 0 if call.index is UNSET or call.index is None else call.index
                fn = call.function
                if not isinstance(fn, Function):
                    continue
                try:
                    acc = self.calls.get(index)
                except TypeError:  # an unhashable index (a JSON array or object)
                    raise Raise("TypeError", f"unhashable type: '{type(index).__name__}'") from None
                if acc is None:
                    acc = self.calls[index] = _Acc(index)
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
        try:
            keys = sorted(self.calls)
        except TypeError as exc:
            raise Raise("TypeError", str(exc)) from None
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
