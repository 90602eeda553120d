"""openai-node 7.59.0: ``ChatCompletionStream`` (``client.chat.completions.stream()``).

``#accumulateChatCompletion`` (``src/lib/ChatCompletionStream.ts``) keys calls by the wire
``index``, which must be a safe integer in ``[0, 128)`` or it throws. ``id`` and ``type`` are
taken when truthy (last non-empty wins), ``function.name`` likewise, arguments are appended
when not ``null``. When the index moves on, or a ``finish_reason`` arrives, the finished call's
"done" event throws if it never got a ``type``; the final completion throws for a missing
``type``/``name``/``arguments`` and invents ``call_<uuid>`` for a missing id.

With a strict (or auto-parseable) tool in the request, the first call's ``type`` and non-empty
name are bound: any later delta whose ``type`` or ``function.name`` is present and differs —
``null`` and ``""`` included — throws ``changed tool call identity``, and a finished call's
arguments must parse as JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..core.wire import UNSET, Function, js_string
from .base import (
    FREE,
    AssembledCall,
    Assembler,
    Assembly,
    Frame,
    Marks,
    Policy,
    Quiet,
    QuietCall,
    Raise,
    is_number,
    js_truthy,
    raise_sdk_stream_error,
    span_of,
    tool_deltas,
    tool_path,
)

__all__ = ["POLICY", "STRICT_POLICY"]

MAX_STREAM_TOOL_CALLS = 128
CHANGED = "Chat completion stream contains a changed tool call identity"
GENERATED_ID = "call_<uuid4>"


@dataclass(slots=True)
class _Snapshot:
    id: Any = UNSET
    type: Any = UNSET
    has_function: bool = False
    name: Any = UNSET
    arguments: str = ""
    at: str = "choices[0].delta.tool_calls[0]"
    """Where the call's first delta stood in its chunk, and that chunk's line (what an
    explanation of a throw over the call as a whole points at)."""
    line: int | None = None


@dataclass(slots=True)
class _Bound:
    type: str
    name: str


def _safe_index(value: Any) -> int | None:
    if not is_number(value) or value != value or int(value) != value:
        return None
    index = int(value)
    return index if 0 <= index < MAX_STREAM_TOOL_CALLS else None


def _raw_choices(frame: Frame) -> list[dict[str, Any]]:
    raw = frame.raw
    cs = raw.get("choices") if isinstance(raw, dict) else None
    return [c for c in cs if isinstance(c, dict)] if isinstance(cs, list) else []


@dataclass
class OpenAINodeAssembler(Assembler):
    strict: bool = False
    calls: dict[int, _Snapshot] = field(default_factory=dict)
    bound: dict[int, _Bound] = field(default_factory=dict)
    current: int | None = None
    finished: bool = False
    done: set[int] = field(default_factory=set)
    chunks: int = 0
    choice: Any = None
    """The first choice's ``index`` (the snapshot's choice 0), once a choice arrived."""
    finish_reason: bool = False
    role: bool = False

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame, node=True)
        chunk = frame.chunk
        if not isinstance(chunk.choices, list):
            raise Raise(
                "TypeError", "chunk.choices is not iterable", field="choices", value=chunk.choices
            )
        self.chunks += 1
        if chunk.choices and not self.role:
            # the role is not a field of the wire chunk: read it from the JSON until it came
            for raw in _raw_choices(frame):
                if isinstance(raw.get("delta"), dict) and js_truthy(raw["delta"].get("role")):
                    self.role = True
        for c, choice in enumerate(chunk.choices):
            if self.choice is None:
                self.choice = 0
            if js_truthy(choice.finish_reason):
                self.finished = True
                self.finish_reason = True
            deltas = tool_deltas(choice)
            touched: list[int] = []
            for k, call in enumerate(deltas):
                index = _safe_index(call.index)
                at = tool_path(c, k)
                if index is None:
                    shown = "undefined" if call.index is UNSET else js_string(call.index)
                    raise Raise(
                        "Error",
                        f"Chat completion stream contains an invalid tool call index: {shown}",
                        field=f"{at}.index",
                        value=call.index,
                    )
                snap = self.calls.get(index)
                if snap is None:
                    snap = self.calls[index] = _Snapshot(at=at, line=frame.line)
                fn = call.function
                name = fn.name if isinstance(fn, Function) else UNSET
                bound = self.bound.get(index)
                if bound is not None:
                    if call.type is not UNSET and call.type != bound.type:
                        raise Raise(
                            "Error",
                            CHANGED,
                            layer="ChatCompletionStream, strict tool",
                            field=f"{at}.type",
                            value=call.type,
                        )
                    if name is not UNSET and name != bound.name:
                        raise Raise(
                            "Error",
                            CHANGED,
                            layer="ChatCompletionStream, strict tool",
                            field=f"{at}.function.name",
                            value=name,
                        )
                if js_truthy(call.id):
                    snap.id = call.id
                if js_truthy(call.type):
                    snap.type = call.type
                if isinstance(fn, Function):
                    if not snap.has_function:
                        snap.has_function = True
                        snap.name = "" if name is UNSET or name is None else name
                    if js_truthy(name):
                        snap.name = name
                    if (
                        self.strict
                        and bound is None
                        and snap.type == "function"
                        and isinstance(snap.name, str)
                        and snap.name
                    ):
                        self.bound[index] = _Bound("function", snap.name)
                    if fn.arguments is not UNSET and fn.arguments is not None:
                        snap.arguments += js_string(fn.arguments)
                touched.append(index)
            self._done_events(touched)

    def _done_events(self, touched: list[int]) -> None:
        """A chunk's done events once its pieces are added: a finish reason closes the current
        call, a new index (in the order ``touched``) the previous one."""
        if self.finished and self.current is not None:
            self._done(self.current)
        for index in touched:
            if self.current != index and self.current is not None:
                self._done(self.current)
            self.current = index

    ordered = True  # a call is done (strict: its arguments parsed) when another one starts

    def feed_quiet(self, run: Quiet) -> None:
        # a quiet delta adds its piece and nothing else (its name is blank or absent, its type
        # the one in force, or its id, name and type the same as the call's delta before):
        # what remains are the done events of each change of call, and a strict tool's
        # check of a repeated identity, made by the first delta of the call in the run
        throws = {
            id(p)
            for p in run.calls.values()
            if p.pair is not None
            and self._changes_bound(p.index, p.pair[2], UNSET if p.pair[1] is FREE else p.pair[1])
        }
        for part in run.calls.values():
            snap = self.calls.get(part.index)
            if snap is None:
                snap = self.calls[part.index] = _Snapshot(line=part.lines[0])
            if part.pair is not None:
                cid, name, kind = part.last_id, part.last_name, part.pair[2]
                if js_truthy(cid):
                    snap.id = cid
                if js_truthy(kind):
                    snap.type = kind
                if not snap.has_function:
                    snap.has_function = True
                    snap.name = "" if name is UNSET or name is None else name
                if js_truthy(name):
                    snap.name = name
            if not snap.has_function:
                snap.has_function = True
                snap.name = ""
            if (
                self.strict
                and part.index not in self.bound
                and snap.type == "function"
                and isinstance(snap.name, str)
                and snap.name
            ):
                self.bound[part.index] = _Bound("function", snap.name)
        if self.choice is None:
            self.choice = 0
        if not self.strict and not self.finished and not throws:
            # a done event only checks that the call left is typed: one check per call
            left = {id(p): p for p in run.stretches[:-1]}
            typed = all(js_truthy(self.calls[p.index].type) for p in left.values())
            if typed and (self.current is None or js_truthy(self.calls[self.current].type)):
                for part in run.calls.values():
                    self.calls[part.index].arguments += part.pieces.joined()
                self.chunks += sum(run.sizes)
                self.current = run.stretches[-1].index
                return
        joined = run.joined
        if joined is not None:
            self._joined(run, joined, throws)
            return
        for part, at, size in run.runs():
            if id(part) in throws:
                raise self._changed(part, at)
            self._stretch(part, at, size)

    def _changed(self, part: QuietCall, at: int) -> Raise:
        """The strict tool's error at ``part``'s piece ``at`` of a run: the call's type or
        name sent there is not the one bound (:attr:`QuietCall.pair`)."""
        assert part.pair is not None
        kind, name = part.pair[2], part.pair[1]
        typed = kind is not UNSET and kind != self.bound[part.index].type
        return Raise(
            "Error",
            CHANGED,
            layer="ChatCompletionStream, strict tool",
            line=part.lines[at],
            field=tool_path(0, 0, "type" if typed else "function.name"),
            value=kind if typed else name,
        )

    def _joined(self, run: Quiet, joined: Marks, throws: set[int]) -> None:
        """:meth:`feed_quiet`'s walk of a run some of whose payloads held several deltas in
        one choice (:attr:`Quiet.joined`): a chunk's pieces are all added before its done
        events, as :meth:`feed` does."""
        touched: list[int] = []
        line = run.line

        def events() -> None:
            if not touched:
                return
            try:
                self._done_events(touched)
            except Raise as exc:
                exc.line = line
                raise
            touched.clear()

        for s, (part, at, size) in enumerate(run.runs()):
            index = part.index
            pieces, lines = part.pieces, part.lines
            if s not in joined:
                events()  # (the chunk before is complete)
                line = lines[at]
            if id(part) in throws:
                raise self._changed(part, at)
            snap = self.calls[index]
            self.chunks += size
            snap.arguments += pieces[at]
            touched.append(index)
            if size == 1:
                continue
            events()
            last = at + size - 1
            if size > 2:  # (one chunk each, of the call in force: one done event at most)
                snap.arguments += pieces[at + 1]
                line = lines[at + 1]
                touched.append(index)
                events()
                snap.arguments += span_of(pieces, at + 2, last)
            snap.arguments += pieces[last]
            line = lines[last]
            touched.append(index)
        events()

    def _changes_bound(self, index: Any, kind: Any, name: Any) -> bool:
        """A strict tool's check: a delta of a call whose identity is bound sends a type or a
        name that is present and different."""
        bound = self.bound.get(index)
        return bound is not None and (
            (kind is not UNSET and kind != bound.type) or (name is not UNSET and name != bound.name)
        )

    def _stretch(self, part: QuietCall, at: int, size: int) -> None:
        """``size`` quiet payloads of one call, as :meth:`feed` takes them one by one."""
        index = part.index
        pieces, lines = part.pieces, part.lines
        snap = self.calls[index]
        self.chunks += size
        snap.arguments += pieces[at]
        try:
            if self.finished and self.current is not None:
                self._done(self.current)
            if self.current != index and self.current is not None:
                self._done(self.current)
            self.current = index
            if size > 1 and self.finished:
                at += 1
                size -= 1
                snap.arguments += pieces[at]
                self._done(index)
        except Raise as exc:
            exc.line = lines[at]
            raise
        if size > 1:
            snap.arguments += span_of(pieces, at + 1, at + size)

    def _done(self, index: int) -> None:
        if index in self.done:
            return
        snap = self.calls[index]
        if not js_truthy(snap.type):
            raise Raise(
                "Error",
                "tool call snapshot missing `type`",
                field=f"{snap.at}.type",
                value=snap.type,
                field_line=snap.line,
            )
        if self.strict and snap.type == "function":
            try:
                json.loads(snap.arguments)
            except ValueError:
                # parser.mjs throws a SyntaxError; the stream re-throws it as an OpenAIError
                # (name "Error") with the same message, as recorded
                raise Raise(
                    "Error",
                    "Error reading response: invalid structured output JSON.",
                    layer="strict tool arguments parsed when the call is done",
                    field=f"{snap.at}.function.arguments",
                    value=snap.arguments,
                    expected="complete JSON",
                    field_line=snap.line,
                ) from None
        if self.finished:
            self.done.add(index)

    def finish(self) -> Assembly:
        if not self.chunks:
            raise Raise("Error", "request ended without sending any chunks")
        if self.choice is not None:
            # finalizeChatCompletion, per choice, before its tool calls
            if not self.finish_reason:
                raise Raise(
                    "Error", "missing finish_reason for choice 0", layer="finalChatCompletion"
                )
            if not self.role:
                raise Raise("Error", "missing role for choice 0", layer="finalChatCompletion")
        out = Assembly()
        for index in sorted(self.calls):
            snap = self.calls[index]
            if snap.type is UNSET or snap.type is None:
                raise Raise(
                    "Error",
                    f"missing choices[0].tool_calls[{index}].type",
                    field=f"{snap.at}.type",
                    value=snap.type,
                    field_line=snap.line,
                )
            if not snap.has_function or snap.name is None:
                raise Raise(
                    "Error",
                    f"missing choices[0].tool_calls[{index}].function.name",
                    field=f"{snap.at}.function" + (".name" if snap.has_function else ""),
                    value=snap.name,
                    field_line=snap.line,
                )
            generated = not js_truthy(snap.id)
            out.calls.append(
                AssembledCall(
                    id=GENERATED_ID if generated else snap.id,
                    name=snap.name,
                    arguments=snap.arguments,
                    wire_index=index,
                    id_generated=generated,
                )
            )
        if self.strict:
            # finalChatCompletion() → parseChatCompletion (lib/parser.mjs): every tool call of
            # the final message must be a `function` or `custom` one
            for index in sorted(self.calls):
                kind = self.calls[index].type
                if kind not in ("function", "custom"):
                    snap = self.calls[index]
                    raise Raise(
                        "Error",
                        "Currently only `function` and `custom` tool calls are supported;"
                        f" Received `{js_string(kind)}`",
                        layer="parseChatCompletion",
                        field=f"{snap.at}.type",
                        value=kind,
                        field_line=snap.line,
                    )
        return out


POLICY = Policy(
    key="openai-node",
    library="openai 7.59.0 (Node), ChatCompletionStream",
    rule=(
        "last non-empty id and name win; arguments appended unless null; a call never typed"
        " throws; a missing id becomes call_<uuid>"
    ),
    assembler=OpenAINodeAssembler,
)

STRICT_POLICY = Policy(
    key="openai-node-strict",
    library="openai 7.59.0 (Node), ChatCompletionStream with a strict function tool",
    rule=(
        "as openai-node, but once a call has its type and name, a later delta whose type or"
        ' name is present and different (null and "" included) throws \'changed tool call'
        " identity'; finished arguments must parse as JSON"
    ),
    assembler=lambda: OpenAINodeAssembler(strict=True),
)
