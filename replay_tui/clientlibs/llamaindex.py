"""LlamaIndex: llama-index-llms-openai 0.8.3, ``OpenAI.stream_chat`` with ``update_tool_calls``.

Only ``choices[0]`` is read, and of each chunk's tool-call list only the *first* delta. A delta
whose index differs from the last call's starts a new call (so interleaved parallel calls are
split); otherwise ``id``, ``function.name`` and ``function.arguments`` are *concatenated*
(``+= value or ""``), after asserting that both the call and the delta have a ``function``
object (``AssertionError`` otherwise). ``get_tool_calls_from_response`` hands over
``tool_id = id or ""`` and ``tool_name = name or ""``; a call whose first delta had no function
is left out.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Any

from ..core.pieces import Pieces
from ..core.wire import UNSET, ToolCall, js_string
from .base import (
    UNSAID,
    AssembledCall,
    Assembler,
    Assembly,
    DroppedCall,
    Frame,
    Policy,
    Quiet,
    QuietCall,
    Raise,
    choices,
    function_fields,
    none_if_unset,
    raise_sdk_stream_error,
    tool_deltas,
    tool_path,
)

__all__ = ["POLICY"]


def _read(run: Quiet) -> tuple[Iterable[tuple[QuietCall, int]], dict[int, _Part]]:
    """The run as LlamaIndex reads it: its stretches as ``(call, pieces read)``, a stretch of
    pieces it does not read (of :attr:`~.base.QuietCall.later` or
    :attr:`~.base.QuietCall.tails`: not ``choices[0]``'s first tool-call delta) left out and
    the stretches of one call that then follow one another joined; and per call (by ``id``)
    the pieces and lines it reads (the call's own when it reads them all) and where it is.

    Each stretch read is a step of :meth:`LlamaIndexAssembler.feed_quiet`; which pieces of a
    stretch are read is found in a byte per piece (one mask per call), not by walking lists of
    positions."""
    parts = run.calls.values()
    if all(p.later is None and p.tails is None for p in parts):
        stretches = zip(run.stretches, run.sizes, strict=True)
        return stretches, {id(p): _Part(p.pieces, p.lines) for p in parts}
    masks: dict[int, bytearray | None] = {}
    reading: dict[int, _Part] = {}
    for part in parts:
        if part.later is None and part.tails is None:
            masks[id(part)] = None
            reading[id(part)] = _Part(part.pieces, part.lines)
            continue
        read = bytearray(b"\x01") * len(part.pieces)
        for k in part.later or ():
            read[k] = 0
        for k in part.tails or ():
            read[k] = 0
        masks[id(part)] = read
        reading[id(part)] = _Part(
            list(compress(part.pieces, read)), array("q", compress(part.lines, read))
        )
    return _stretches(run, masks), reading


def _stretches(run: Quiet, masks: dict[int, bytearray | None]) -> Iterator[tuple[QuietCall, int]]:
    """The stretches :func:`_read` says, one at a time (46,000 of them in four calls batched
    in rotating pairs: not held at once)."""
    walked = dict.fromkeys(masks, 0)
    held: tuple[QuietCall, int] | None = None  # the last stretch, until another follows
    for part, size in zip(run.stretches, run.sizes, strict=True):
        key = id(part)
        mask = masks[key]
        if mask is not None:
            at = walked[key]
            walked[key] = at + size
            size = mask[at] if size == 1 else mask.count(1, at, at + size)
            if not size:
                continue
        if held is not None and part is held[0]:
            held = (part, held[1] + size)
        else:
            if held is not None:
                yield held
            held = (part, size)
    if held is not None:
        yield held


class _Part:
    """One call's pieces and lines as LlamaIndex reads them, and how far it has read them:
    a folded run's :class:`~replay_tui.core.pieces.Pieces` is read one piece at a time by
    walking its blocks (:meth:`~replay_tui.core.pieces.Pieces.walk`), not by a look-up per
    piece (interleaved calls: a step per piece, 100,000 of them)."""

    __slots__ = ("at", "lines", "pieces", "walker")

    def __init__(self, pieces: Sequence[str], lines: Sequence[int]) -> None:
        self.pieces = pieces
        self.lines = lines
        self.at = 0
        """The next piece to read."""
        self.walker: Iterator[str] | None = None
        """The pieces from :attr:`at` on (``None``: to be made there when one is read)."""

    def take(self, size: int) -> str:
        """The next ``size`` pieces, joined."""
        at = self.at
        self.at = at + size
        pieces = self.pieces
        if type(pieces) is not Pieces:
            return pieces[at] if size == 1 else "".join(pieces[at : at + size])
        if size == 1:
            walker = self.walker
            if walker is None:
                walker = self.walker = pieces.walk(at)
            return next(walker)
        self.walker = None  # (cut from the blocks at once: the walk starts again after them)
        return pieces.span(at, at + size)


def _text(value: Any) -> str:
    return "" if value is UNSET or value is None or value == "" else js_string(value)


def _py_type(value: Any) -> str:
    return {bool: "bool", int: "int", float: "float", list: "list", dict: "dict"}.get(
        type(value), "str"
    )


def _cat(acc: Any, value: Any) -> Any:
    """``acc += value or ""`` in Python: a falsy value adds nothing; a number, list or object
    beside a string raises ``TypeError``."""
    acc = None if acc is UNSET else acc
    value = "" if value is UNSET or not value else value
    if acc is None:
        acc = ""
    if isinstance(acc, str) and isinstance(value, str):
        return acc + value
    if value == "":
        return acc
    if isinstance(acc, int | float) and isinstance(value, int | float):
        return acc + value
    if acc == "":
        raise Raise("TypeError", f'can only concatenate str (not "{_py_type(value)}") to str')
    raise Raise(
        "TypeError",
        f"unsupported operand type(s) for +=: '{_py_type(acc)}' and '{_py_type(value)}'"
        if not isinstance(acc, str)
        else f'can only concatenate str (not "{_py_type(value)}") to str',
    )


@dataclass(slots=True)
class _Call:
    index: Any
    has_function: bool
    id: Any
    name: Any
    arguments: Any
    line: int | None = None
    """The line of the call's first delta."""


class LlamaIndexAssembler(Assembler):
    # It reads choices[0] alone, and the first tool-call delta of it: a quiet run is read
    # here whole, its pieces of a later choice or a later delta left out as it walks them
    # (:meth:`_read`), not through the run's view "head" made first (two calls' deltas side
    # by side in every chunk, 100,000 stretches: the view was two thirds of its time).

    ordered = True  # a change of index between chunks starts a new call

    def __init__(self) -> None:
        self.calls: list[_Call] = []

    def feed_quiet(self, run: Quiet) -> None:
        # each stretch of one call's payloads read: the first opens a call when the last
        # chunk's index was another; the rest (and all of them otherwise) are appended at
        # once. A quiet delta's id and name are blank or absent: they add nothing ("" or None
        # opens a call whose id reads "" either way); or they repeat the same values, which
        # are concatenated as many times.
        calls = self.calls
        opened = calls.append
        last = calls[-1].index if calls else UNSET
        stretches, reading = _read(run)
        for part, size in stretches:
            read = reading[id(part)]
            index = part.index
            pair = part.pair
            if last != index or not calls:
                line = read.lines[read.at]
                if pair is None:
                    opened(_Call(index, True, None, None, read.take(1), line))
                else:
                    cid, name = none_if_unset(part.last_id), none_if_unset(part.last_name)
                    opened(_Call(index, True, cid, name, read.take(1), line))
                last = index
                if size == 1:
                    continue
                size -= 1
            t = calls[-1]
            line = read.lines[read.at]
            if not t.has_function:
                raise Raise(
                    "AssertionError",
                    layer="OpenAI.stream_chat: a tool-call delta has function",
                    line=line,
                    field=tool_path(0, 0, "function"),
                    value=UNSAID,  # (the call's first delta had none: this one has one)
                    field_line=t.line,
                )
            fld = "function.arguments"
            try:
                t.arguments = _cat(t.arguments, read.take(size))
                if pair is not None:
                    fld = "function.name"
                    t.name = _cat(t.name, _text(part.last_name) * size)
                    fld = "id"
                    t.id = _cat(t.id, _text(part.last_id) * size)
            except Raise as exc:
                exc.line = line
                raise exc.at(tool_path(0, 0, fld), UNSAID) from None

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame)
        cs = choices(frame.chunk)
        if not cs or not cs[0].delta:
            return
        deltas = tool_deltas(cs[0])
        if deltas:
            self._update(deltas[0], frame.line)

    def _update(self, d: ToolCall, line: int) -> None:
        has_fn, name, args = function_fields(d)
        index = None if d.index is UNSET else d.index
        if not self.calls or self.calls[-1].index != index:
            self.calls.append(
                _Call(
                    index,
                    has_fn,
                    none_if_unset(d.id),
                    none_if_unset(name),
                    none_if_unset(args),
                    line,
                )
            )
            return
        t = self.calls[-1]
        if not t.has_function or not has_fn:
            raise Raise(
                "AssertionError",
                layer="OpenAI.stream_chat: a tool-call delta has function",
                field=tool_path(0, 0, "function"),
                value=d.function if not has_fn else UNSAID,
                field_line=None if not has_fn else t.line,
            )
        for fld, value in (("function.arguments", args), ("function.name", name), ("id", d.id)):
            try:
                if fld == "id":
                    t.id = _cat(t.id, value)
                elif fld == "function.name":
                    t.name = _cat(t.name, value)
                else:
                    t.arguments = _cat(t.arguments, value)
            except Raise as exc:
                raise exc.at(tool_path(0, 0, fld), value) from None

    def finish(self) -> Assembly:
        out = Assembly()
        handed = out.calls
        # (each let go as it is handed over: 46,000 calls, not held twice)
        calls, self.calls = self.calls, []
        calls.reverse()
        while calls:
            t = calls.pop()
            tid, name = t.id, t.name
            if not t.has_function:
                out.dropped.append(DroppedCall(t.index, tid, None, None, "no function object"))
                continue
            if not ((tid is None or type(tid) is str) and (name is None or type(name) is str)):
                # the message's blocks are pydantic models: ToolCallBlock wants strings
                named = tid is None or type(tid) is str
                raise Raise(
                    "ValidationError",
                    "1 validation error for ToolCallBlock",
                    layer="ToolCallBlock: tool_call_id and tool_name must be strings",
                    field=tool_path(0, 0, "function.name" if named else "id"),
                    value=name if named else tid,
                    expected="string",
                    field_line=t.line,
                )
            handed.append(
                AssembledCall(
                    tid or "", name or "", t.arguments or "", UNSET if t.index is None else t.index
                )
            )
        return out


POLICY = Policy(
    key="llamaindex",
    library="llama-index-llms-openai 0.8.3, OpenAI.stream_chat",
    rule=(
        "concatenates id, name and arguments (a repeated id or name doubles); reads only the"
        " first tool-call delta of a chunk; a delta without function fails an assertion"
    ),
    assembler=LlamaIndexAssembler,
)
