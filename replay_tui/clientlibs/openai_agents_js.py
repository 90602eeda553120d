"""OpenAI Agents SDK for JavaScript: ``@openai/agents`` 0.20.0 (``@openai/agents-openai``
``OpenAIChatCompletionsModel``, ``convertChatCompletionsStreamToResponses``).

Reads ``choices`` with ``index`` 0. Tool-call deltas are keyed by their ``index`` as a
JavaScript object key (a missing index is the key ``"undefined"``, so such deltas form a call
of their own); a new key starts ``{name: "", arguments: "", callId: ""}``. ``arguments`` and
``name`` are appended whenever truthy (a repeated name doubles; a ``"null"`` string is
appended); the first truthy ``id`` is the call id and later ones are ignored. At the end the
calls are listed in object-key order (integer keys ascending, then the others as they came),
and arguments starting ``{}{`` lose the ``{}``. A delta of ``type: "custom"`` is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.wire import UNSET, js_string
from .base import (
    AssembledCall,
    Assembler,
    Assembly,
    Frame,
    PlainCall,
    Policy,
    js_truthy,
    raise_sdk_stream_error,
)

__all__ = ["POLICY"]


@dataclass
class _Call:
    wire_index: Any
    name: str = ""
    arguments: str = ""
    call_id: Any = ""


def _key(index: Any) -> str:
    """The JavaScript property key an index value becomes."""
    if index is UNSET:
        return "undefined"
    return js_string(index)


def _is_array_index(key: str) -> bool:
    return key.isdigit() and (key == "0" or not key.startswith("0")) and int(key) < 2**32 - 1


class AgentsJsAssembler(Assembler):
    choice_zero = True

    def __init__(self) -> None:
        self.calls: dict[str, _Call] = {}
        self.ignored: set[str] = set()

    plain = True

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        index, cid, name, args = call
        key = _key(index)
        if key in self.ignored:
            return
        found = self.calls.get(key)
        if found is None:
            found = self.calls[key] = _Call(index)
        found.arguments += args
        found.name += name
        if not js_truthy(found.call_id):
            found.call_id = cid

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame, node=True)
        raw = frame.raw
        cs = raw.get("choices") if isinstance(raw, dict) else None
        if not isinstance(cs, list):
            return
        choice = next((c for c in cs if isinstance(c, dict) and c.get("index") == 0), None)
        if choice is None or not isinstance(choice.get("delta"), dict):
            return
        calls = choice["delta"].get("tool_calls")
        if not js_truthy(calls) or not isinstance(calls, list):
            return
        for tc in calls:
            if not isinstance(tc, dict):
                continue
            key = _key(tc.get("index", UNSET))
            if key in self.ignored:
                continue
            if tc.get("type") == "custom":
                self.ignored.add(key)
                continue
            call = self.calls.get(key)
            if call is None:
                call = self.calls[key] = _Call(tc.get("index", UNSET))
            fn = tc.get("function")
            fn = fn if isinstance(fn, dict) else {}
            args, name = fn.get("arguments"), fn.get("name")
            if js_truthy(args):
                call.arguments += js_string(args)
            if js_truthy(name):
                call.name += js_string(name) * frame.repeat
            cid = tc.get("id")
            if js_truthy(cid) and not js_truthy(call.call_id):
                call.call_id = cid

    def finish(self) -> Assembly:
        keys = list(self.calls)
        ordered = sorted((k for k in keys if _is_array_index(k)), key=int) + [
            k for k in keys if not _is_array_index(k)
        ]
        out = Assembly()
        for key in ordered:
            call = self.calls[key]
            args = call.arguments[2:] if call.arguments.startswith("{}{") else call.arguments
            out.calls.append(
                AssembledCall(call.call_id, call.name, args, wire_index=call.wire_index)
            )
        return out


POLICY = Policy(
    key="openai-agents-js",
    library="@openai/agents 0.20.0 (JavaScript), Chat Completions stream converter",
    rule=(
        "first truthy id wins; names and arguments appended when truthy (a repeated name"
        " doubles); deltas without an index form a call of their own"
    ),
    assembler=AgentsJsAssembler,
)
