"""pydantic-ai 2.68.0 (pydantic-ai-slim): ``ModelResponsePartsManager.handle_tool_call_delta``.

The OpenAI chat stream reads ``choices[0]`` and hands each tool-call delta to the parts manager
keyed by its wire ``index`` (``vendor_part_id``). A call stays an incomplete
``ToolCallPartDelta`` until some delta carries a ``function.name`` that is not ``null``; from
then on every non-empty name is *appended* (a repeated name doubles), arguments are appended,
and a non-empty ``id`` replaces the one before. A call that never got an id is given a generated
``pyd_ai_…`` id; one that never got a name is not a part at all and is dropped from the
response. A delta without an index and without a name continues the latest tool-call part.
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
    PlainCall,
    Policy,
    Raise,
    choices,
    raise_sdk_stream_error,
    times,
    tool_deltas,
    tool_path,
)

__all__ = ["POLICY"]

GENERATED_ID = "pyd_ai_<uuid4 hex>"


@dataclass
class _Part:
    index: Any
    name: Any = None
    id: Any = None
    args: list[str] = field(default_factory=list)
    dict_args: dict[str, Any] | None = None


class PydanticAIAssembler(Assembler):
    first_choice = True  # (it reads choices[0] alone)

    def __init__(self) -> None:
        self.parts: list[_Part | None] = []  # None stands for a text part
        self.by_index: dict[Any, _Part] = {}

    plain = True

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        index, cid, name, args = call
        if index in self.by_index:
            self.feed(frame)  # (a part to add to)
            return
        part = _Part(index, name=name, id=cid)
        part.args.append(args)
        self.parts.append(part)
        self.by_index[index] = part

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame)
        cs = choices(frame.chunk)
        if not cs or not cs[0].delta:
            return
        delta = cs[0].delta
        content = delta.content
        if isinstance(content, str) and content and (not self.parts or self.parts[-1] is not None):
            self.parts.append(None)
        for k, call in enumerate(tool_deltas(cs[0])):
            fn = call.function
            name = fn.name if isinstance(fn, Function) and fn.name is not UNSET else None
            args = fn.arguments if isinstance(fn, Function) and fn.arguments is not UNSET else None
            cid = None if call.id is UNSET else call.id
            index = None if call.index is UNSET else call.index
            part: _Part | None = None
            if index is None:
                if name is None and self.parts and self.parts[-1] is not None:
                    part = self.parts[-1]
            else:
                part = self.by_index.get(_hashable(index))
            if part is None:
                part = _Part(index, name=name, id=cid if cid else None)
                self._args(part, args)
                self.parts.append(part)
                if index is not None:
                    self.by_index[_hashable(index)] = part
                continue
            if name:
                try:  # (the SDK builds its chunks without validation: a name may be a number)
                    part.name = (part.name or "") + times(name, frame)
                except TypeError as exc:
                    raise Raise(
                        "TypeError",
                        str(exc),
                        layer="ModelResponsePartsManager: tool_name appended",
                        field=tool_path(0, k, "function.name"),
                        value=name,
                    ) from None
            self._args(part, args)
            if cid:
                part.id = cid

    @staticmethod
    def _args(part: _Part, args: Any) -> None:
        if isinstance(args, str):
            part.args.append(args)
        elif isinstance(args, dict):
            part.dict_args = {**(part.dict_args or {}), **args}

    def finish(self) -> Assembly:
        out = Assembly()
        for part in self.parts:
            if part is None:
                continue
            args = "".join(part.args)
            if part.name is None:
                out.dropped.append(
                    DroppedCall(part.index, part.id, None, args, "never named: not a part")
                )
                continue
            out.calls.append(
                AssembledCall(
                    id=part.id or GENERATED_ID,
                    name=part.name,
                    arguments=args,
                    wire_index=UNSET if part.index is None else part.index,
                    id_generated=not part.id,
                )
            )
        return out


def _hashable(value: Any) -> Any:
    return value if isinstance(value, int | float | str | bool) else repr(value)


POLICY = Policy(
    key="pydantic-ai",
    library="pydantic-ai-slim 2.68.0, OpenAIChatModel streaming (parts manager)",
    rule=(
        "last non-empty id wins; non-empty names are appended (a repeated name doubles);"
        " a call never named is dropped; a call never given an id gets pyd_ai_…"
    ),
    assembler=PydanticAIAssembler,
)
