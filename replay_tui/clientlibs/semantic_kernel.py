"""Semantic Kernel (Python) 1.45.0: ``OpenAIChatCompletion`` streaming, contents summed.

Each tool-call delta that has a ``function`` object becomes a ``FunctionCallContent(id, index,
name, arguments)``; summing the streamed messages adds each new item to the first earlier item
it can be added to. ``FunctionCallContent.__add__`` refuses a different ``index`` or two
different non-empty ids — the delta then stays a separate call — and otherwise keeps the
first non-empty ``id`` and ``name`` and concatenates arguments (``""``, ``"{}"`` and ``None``
count as empty; two empties give ``"{}"``). A call never identified keeps ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.pieces import Pieces
from ..core.wire import UNSET, Function, js_string
from .base import (
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
)

__all__ = ["POLICY"]

EMPTY = ("", "{}", None)


@dataclass
class _Item:
    id: Any
    index: Any
    name: Any
    arguments: Any


def combine_arguments(a: Any, b: Any) -> Any:
    """``FunctionCallContent.combine_arguments`` for string arguments."""
    if a in EMPTY and b in EMPTY:
        return "{}"
    if a in EMPTY:
        return b or "{}"
    if b in EMPTY:
        return a or "{}"
    return (a or "") + (b or "")


def combine_all(a: Any, pieces: Sequence[str], k: int = 0) -> Any:
    """:func:`combine_arguments` of ``a`` with each piece in turn from the ``k``-th, in one
    step once the sum is longer than ``"{}"`` (it only grows, so it is never empty again: the
    pieces that count as empty drop out, the others are appended)."""
    while k < len(pieces) and not (isinstance(a, str) and len(a) > 2):
        a = combine_arguments(a, pieces[k])
        k += 1
    if k == len(pieces):
        return a
    if isinstance(pieces, Pieces):  # (a folded run's, kept compact: joined by its blocks)
        rest = pieces.span(k, len(pieces))
        if "{}" not in rest:  # (no piece is "{}"; a piece "" adds nothing)
            return a + rest
    return a + "".join(p for p in pieces[k:] if p not in EMPTY)


class SemanticKernelAssembler(Assembler):
    plain = True

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        index, cid, name, args = call
        if self.first or index in self.by_index:
            self.feed(frame)  # (the first message, or an item at the index to add to)
            return
        pieces = frame.pieces
        if pieces is not None:
            # (the call's first delta and the continuations it took: their pieces joined are
            # ``args``; none of them is "{}" when the join holds none, and the pieces that
            # are "" add nothing, unless all are)
            args = (args or "{}") if "{}" not in args else combine_all(pieces[0], pieces, 1)
        self._append(_Item(cid, index, name, args))

    def __init__(self) -> None:
        self.items: list[_Item] = []
        self.first = True
        self.by_index: dict[Any, list[int]] = {}
        """Positions in ``items`` by index (Python equality: ``0``, ``0.0`` and ``False`` are
        one key, as ``!=`` has them)."""

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame)
        if not choices(frame.chunk):
            return  # no choice, no streamed message to add
        new: list[_Item] = []
        for c, choice in enumerate(choices(frame.chunk)):
            for k, d in enumerate(tool_deltas(choice)):
                fn = d.function
                if not isinstance(fn, Function):
                    continue
                for fld, v in (("id", d.id), ("function.name", fn.name)):
                    if not (v is UNSET or v is None or isinstance(v, str)):
                        raise Raise(
                            "ValidationError",
                            "1 validation error for FunctionCallContent",
                            layer="FunctionCallContent: id and name must be strings",
                            field=tool_path(c, k, fld),
                            value=v,
                            expected="string or null",
                        )
                new.append(
                    _Item(
                        None if d.id is UNSET else d.id,
                        None if d.index is UNSET else d.index,
                        None if fn.name is UNSET else fn.name,
                        _args(fn.arguments),
                    )
                )
        if self.first:
            # the first streamed message is the start of the sum: its items are kept as they are
            self.first = False
            if len(new) == 1 and frame.pieces is not None:
                new[0].arguments = combine_all(frame.pieces[0], frame.pieces, 1)
            for item in new:
                self._append(item)
            return
        # a quiet run's frame (one delta): each payload's piece combined in turn
        pieces = frame.pieces if len(new) == 1 else None
        for other in new:
            for i in self._candidates(other.index):
                item = self.items[i]
                if item.id and other.id and item.id != other.id:
                    continue
                if item.index != other.index:
                    continue
                self.items[i] = _Item(
                    item.id or other.id,
                    item.index or other.index,
                    item.name or other.name,
                    combine_arguments(item.arguments, other.arguments)
                    if pieces is None
                    else combine_all(item.arguments, pieces),
                )
                break
            else:
                if pieces is not None:
                    other.arguments = combine_all(pieces[0], pieces, 1)
                self._append(other)

    def _append(self, item: _Item) -> None:
        key = _hashed(item.index)
        if key is not None:
            self.by_index.setdefault(key, []).append(len(self.items))
        self.items.append(item)

    def _candidates(self, index: Any) -> Iterable[int]:
        """Where an item with ``index`` may be, in order (5,000 calls: each looked up once per
        delta, not scanned)."""
        key = _hashed(index)
        if key is None:
            return range(len(self.items))
        return self.by_index.get(key, ())

    def finish(self) -> Assembly:
        return Assembly(
            calls=[
                AssembledCall(
                    i.id, i.name, i.arguments, wire_index=UNSET if i.index is None else i.index
                )
                for i in self.items
            ]
        )


def _hashed(index: Any) -> Any:
    """``index`` as a key of ``by_index`` (``None``: scan, for an index that is unhashable or
    NaN; ``UNSET`` stands for the JSON null)."""
    if index is None:
        return UNSET
    if isinstance(index, list | dict) or index != index:
        return None
    return index


def _args(value: Any) -> Any:
    if value is UNSET or value is None:
        return None
    return value if isinstance(value, str) else js_string(value)


POLICY = Policy(
    key="semantic-kernel",
    library="semantic-kernel 1.45.0 (Python), OpenAIChatCompletion streaming",
    rule=(
        "first non-empty id and name win; arguments concatenate; a different non-empty id at"
        " the same index becomes a separate call"
    ),
    assembler=SemanticKernelAssembler,
)
