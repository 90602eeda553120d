"""Either behavior's translator output, re-derived from the analysis' record.

The single pass (:class:`~.identity.Analyzer`) records a compact event log and each call's
identity history; this module turns them back into the harness's chunks on demand, one at a
time, with the translator's own chunk builders. Nothing is decoded again, and a view that
shows a window of 40 rows of a 100,000-delta trace makes 40 chunks. A property test holds
this to the translator run over the decoded payloads.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

from .identity import Analysis, CallTrace, EventLog
from .indexed import Indexed
from .pieces import CallArgs
from .translator import (
    STREAM_CLOSED_MESSAGE,
    Behavior,
    Chunk,
    TextBlock,
    ToolBlock,
    arguments_fragment,
    block_start,
    closing_identity,
    done_chunks,
    error_finish,
    text_delta,
    tool_call_delta,
)
from .wire import UNSET

__all__ = ["BehaviorPairs", "ChunkStream", "Joined", "Located", "Pair"]

Located = tuple[int | None, Chunk]
"""A chunk with the line of the payload it came from (``None``: emitted at end of input)."""


class Joined:
    """What stands for a block's whole text (a call's arguments, the text or reasoning) in the
    end chunks a :class:`ChunkStream` keeps: the text is joined again only when the chunk is
    asked for whole, so a 50 MB string is not kept once more per behavior. Equal when they
    stand for the same block's text (the text does not depend on the behavior)."""

    __slots__ = ("key",)

    def __init__(self, key: int | str) -> None:
        self.key = key
        """The call's number in ``Analysis.calls``, or ``"text"`` / ``"reasoning"``."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Joined) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Joined({self.key!r})"


class ChunkStream(Indexed[Located]):
    """The chunks ``behavior`` emits for the analysed stream, each with its payload's line."""

    __slots__ = ("_analysis", "_behavior", "_body", "_end", "_heads")

    def __init__(self, analysis: Analysis, behavior: Behavior | str) -> None:
        self._analysis = analysis
        self._behavior = Behavior(behavior)
        self._body = analysis.event_count
        self._end = _Ends(_end_chunks(analysis, self._behavior))
        self._heads: dict[tuple[int | str, int], str] = {}

    @property
    def body(self) -> int:
        """Chunks before the end (the same kinds, in the same order, under either behavior)."""
        return self._body

    def __len__(self) -> int:
        return self._body + len(self._end)

    def _at(self, k: int) -> Located:
        if k >= self._body:
            line, chunk = self._end[k - self._body]
            return line, _filled(chunk, lambda key: _joined(self._analysis, key))
        events = self._analysis.events
        return events.lines[k], _body_chunk(self._analysis, self._behavior, events.refs[k])

    def line(self, k: int) -> int | None:
        """The payload line of chunk ``k`` (``None``: emitted at end of input)."""
        if k >= self._body:
            return self._end.line(k - self._body)
        return self._analysis.events.lines[k]

    def light(self, k: int) -> Located:
        """Chunk ``k`` with each block's whole text left a :class:`Joined` (cheap to make and
        to compare; the end's few chunks are kept so)."""
        if k >= self._body:
            return self._end[k - self._body]
        return self._at(k)

    def head(self, k: int, limit: int) -> Located:
        """Chunk ``k`` with every string longer than ``limit`` characters cut to its first
        ``limit`` (a block's whole text too): what a view that shows at most ``limit``
        characters of a value draws, without joining or copying a huge one."""
        line, chunk = self.light(k)
        return line, _cut(chunk, limit, lambda key: self._head_text(key, limit))

    def _head_text(self, key: int | str, limit: int) -> str:
        if isinstance(key, int):  # a call's arguments: its first fragments, read at once
            return _joined_head(self._analysis, key, limit)
        found = self._heads.get((key, limit))  # the text: found by walking every event
        if found is None:
            found = self._heads[key, limit] = _joined_head(self._analysis, key, limit)
        return found


class _Ends(Sequence[Located]):
    """The end chunks of a :class:`ChunkStream`, each ``block-end`` kept as a tuple of its
    values and made a chunk again when read: an agent loop's 5,000 calls close 5,000 blocks
    under each behavior, and a view keeps both (two dicts a block, kept, cost more than the
    calls' own record)."""

    __slots__ = ("_items",)

    def __init__(self, chunks: list[Located]) -> None:
        items: list[Any] = []
        for line, chunk in chunks:
            block = chunk.get("block")
            if chunk.get("type") == "block-end" and isinstance(block, dict) and len(chunk) == 3:
                if block.get("type") == "tool-call" and list(block) == _TOOL_END:
                    items.append(
                        (line, chunk["index"], block["id"], block["name"], block["arguments"])
                    )
                    continue
                if list(block) == _TEXT_END:
                    items.append((line, chunk["index"], block["type"], block["text"]))
                    continue
            items.append((line, chunk))
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def line(self, index: int) -> int | None:
        """The line of end chunk ``index`` (no chunk made)."""
        line: int | None = self._items[index][0]
        return line

    def kind(self, index: int) -> tuple[object, object]:
        """The type and the index of end chunk ``index`` (:func:`_kind`; no chunk made)."""
        item = self._items[index]
        if len(item) == 2:
            return _kind(item[1])
        return "block-end", item[1]

    def same(self, index: int, other: _Ends, other_index: int) -> bool:
        """Whether end chunk ``index`` equals ``other``'s ``other_index`` (lines aside)."""
        a, b = self._items[index], other._items[other_index]
        if len(a) != len(b):
            return self[index][1] == other[other_index][1]
        if len(a) == 2:
            return bool(a[1] == b[1])
        return bool(a[1:] == b[1:])

    @overload
    def __getitem__(self, index: int) -> Located: ...

    @overload
    def __getitem__(self, index: slice) -> list[Located]: ...

    def __getitem__(self, index: int | slice) -> Located | list[Located]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        item = self._items[index]
        if len(item) == 5:
            line, at, cid, name, arguments = item
            block: dict[str, Any] = {
                "type": "tool-call",
                "id": cid,
                "name": name,
                "arguments": arguments,
            }
            return line, {"type": "block-end", "index": at, "block": block}
        if len(item) == 4:
            line, at, kind, text = item
            return line, {"type": "block-end", "index": at, "block": {"type": kind, "text": text}}
        return item  # type: ignore[no-any-return]


_TOOL_END = ["type", "id", "name", "arguments"]
_TEXT_END = ["type", "text"]


def _filled(chunk: Chunk, text: Callable[[int | str], str]) -> Chunk:
    """``chunk`` with its block's :class:`Joined` (if any) replaced by ``text(key)``."""
    block = chunk.get("block")
    if chunk.get("type") != "block-end" or not isinstance(block, dict):
        return chunk
    key = "arguments" if "arguments" in block else "text"
    joined = block.get(key)
    if not isinstance(joined, Joined):
        return chunk
    return {**chunk, "block": {**block, key: text(joined.key)}}


def _cut(chunk: Chunk, limit: int, head: Callable[[int | str], str]) -> Chunk:
    """``chunk`` with long strings cut and a :class:`Joined` made its first characters."""
    out: Chunk | None = None
    for key, value in chunk.items():
        if isinstance(value, Joined):
            new: Any = head(value.key)
        elif isinstance(value, str) and len(value) > limit:
            new = value[:limit]
        elif isinstance(value, dict):
            new = _cut(value, limit, head)
        else:
            continue
        if new is not value:
            if out is None:
                out = dict(chunk)
            out[key] = new
    return chunk if out is None else out


def _texts(analysis: Analysis, kind: str) -> Iterator[str]:
    """The text (or reasoning) block's parts, in order."""
    texts = analysis.events.texts
    reasoning = kind == "reasoning"
    for ref in analysis.events.refs[: analysis.event_count]:
        if ref < 0:
            _, which, is_reasoning, start = EventLog.decode(ref)
            if not start and bool(is_reasoning) == reasoning:
                yield texts[which]


def _parts(analysis: Analysis, key: int | str) -> Iterable[str]:
    return analysis.calls[key].args if isinstance(key, int) else _texts(analysis, key)


def _joined(analysis: Analysis, key: int | str) -> str:
    """A block's whole text: a call's arguments, or the text or reasoning."""
    if isinstance(key, int):
        return analysis.calls[key].arguments
    return "".join(_texts(analysis, key))


def _joined_head(analysis: Analysis, key: int | str, limit: int) -> str:
    """The first ``limit`` characters of :func:`_joined` (the parts up to them alone)."""
    if isinstance(key, int) and isinstance(args := analysis.calls[key].args, CallArgs):
        return args.head(limit)
    parts: list[str] = []
    size = 0
    for part in _parts(analysis, key):
        parts.append(part[: limit - size])
        size += len(parts[-1])
        if size >= limit:
            break
    return "".join(parts)


def _body_chunk(analysis: Analysis, behavior: Behavior, ref: int) -> Chunk:
    tool, which, detail, start = EventLog.decode(ref)
    if tool:
        ct = analysis.calls[which]
        if start:
            return block_start(ct.block_index, "tool-call")
        tid, name = ct.identity(behavior, detail)
        fn = ct.calls[detail].function
        return tool_call_delta(
            ct.block_index, tid, name, arguments_fragment(fn.arguments if fn else UNSET)
        )
    kind = "reasoning" if detail else "text"
    index = analysis.text_blocks[kind]
    if start:
        return block_start(index, kind)
    return text_delta(kind, index, analysis.events.texts[which])


def _end_chunks(analysis: Analysis, behavior: Behavior) -> list[Located]:
    """What ends the stream: the ``[DONE]`` chunks, a failure, or nothing yet. A block's
    whole text is a :class:`Joined` (see :meth:`ChunkStream.light`)."""
    if analysis.done:
        blocks = _blocks(analysis, behavior)
        chunks = done_chunks([b for _, b in blocks], analysis.usage, analysis.finish, behavior)
        keys = {b.index: (c if isinstance(b, ToolBlock) else b.kind) for c, b in blocks}
        for chunk in chunks:
            block = chunk.get("block")
            if chunk["type"] == "block-end" and isinstance(block, dict):
                block["arguments" if "arguments" in block else "text"] = Joined(
                    keys[chunk["index"]]
                )
        return [(analysis.end_line, c) for c in chunks]
    outcome = analysis.outcomes[behavior]
    if outcome.verdict == "in-progress":
        return []
    if outcome.position is None:
        return [(None, error_finish("STREAM_CLOSED", STREAM_CLOSED_MESSAGE))]
    return [(analysis.end_line, {"type": "finish", "reason": outcome.finish})]


def _blocks(analysis: Analysis, behavior: Behavior) -> list[tuple[int, ToolBlock | TextBlock]]:
    """Every block as the translator holds it at ``[DONE]``, in opening order, without its
    text (see :func:`_end_chunks`), each beside its call's number (text: -1)."""
    blocks: list[tuple[int, ToolBlock | TextBlock]] = [
        (c, ToolBlock(ct.block_index, *ct.final(behavior), []))
        for c, ct in enumerate(analysis.calls)
    ]
    for kind, index in analysis.text_blocks.items():
        blocks.append((-1, TextBlock(index, kind, [])))
    blocks.sort(key=lambda b: b[1].index)
    return blocks


Pair = tuple[Located | None, Located | None]
"""One row of the two behaviors side by side: assign-always, accept-identity (None: a gap)."""


class BehaviorPairs(Indexed[Pair]):
    """Both behaviors' chunk streams of one trace, aligned row by row.

    Until the end of the stream both behaviors emit the same kinds of chunk in the same order,
    so body rows pair chunk ``k`` with chunk ``k``; only the end (the fix refuses a call and
    closes no block) is aligned by kind, leaving gaps. What is kept is one byte per row (do the
    two sides differ?) and the few end rows; the chunks are made again when a row is shown.
    """

    __slots__ = ("_ends", "accept", "assign", "same")

    def __init__(self, analysis: Analysis) -> None:
        self.assign = ChunkStream(analysis, Behavior.ASSIGN_ALWAYS)
        self.accept = ChunkStream(analysis, Behavior.ACCEPT_IDENTITY)
        body = self.assign.body
        left_end = list(range(body, len(self.assign)))
        right_end = list(range(body, len(self.accept)))
        ends_l, ends_r = self.assign._end, self.accept._end
        kinds_l = [ends_l.kind(i - body) for i in left_end]
        kinds_r = [ends_r.kind(i - body) for i in right_end]
        self._ends: list[tuple[int | None, int | None]] = []
        if kinds_l == kinds_r:  # (an agent loop's 5,000 calls: no alignment to look for)
            spans = [(0, len(kinds_l), 0, len(kinds_r))]
        else:
            matcher = difflib.SequenceMatcher(None, kinds_l, kinds_r, autojunk=False)
            spans = [op[1:] for op in matcher.get_opcodes()]
        for a0, a1, b0, b1 in spans:
            la, lb = left_end[a0:a1], right_end[b0:b1]
            for k in range(max(len(la), len(lb))):
                self._ends.append((la[k] if k < len(la) else None, lb[k] if k < len(lb) else None))
        same = bytearray(b"\x01" * body + bytes(len(self._ends)))
        # Body rows differ only where a call's delta carries another identity under each:
        # the events of the calls that have such a delta are looked at, no other.
        differs = {c: d for c, ct in enumerate(analysis.calls) if 1 in (d := _differing(ct))}
        if differs:
            for k, ref in enumerate(analysis.events.refs[:body]):
                if ref >= 0 and not ref & 1:
                    of = differs.get(ref >> 33)
                    if of is not None and of[(ref >> 1) & 0xFFFFFFFF]:
                        same[k] = 0
        for j, (a, b) in enumerate(self._ends):
            same[body + j] = (
                a is not None and b is not None and ends_l.same(a - body, ends_r, b - body)
            )
        self.same = same

    def __len__(self) -> int:
        return len(self.same)

    def _at(self, row: int) -> Pair:
        body = self.assign.body
        if row < body:
            return self.assign[row], self.accept[row]
        a, b = self._ends[row - body]
        return (
            self.assign[a] if a is not None else None,
            self.accept[b] if b is not None else None,
        )

    def light(self, row: int) -> Pair:
        """Row ``row`` with each block's whole text left a :class:`Joined`
        (:meth:`ChunkStream.light`)."""
        return self._sides(row, lambda s, k: s.light(k))

    def head(self, row: int, limit: int) -> Pair:
        """Row ``row`` with strings cut to ``limit`` characters (:meth:`ChunkStream.head`)."""
        return self._sides(row, lambda s, k: s.head(k, limit))

    def _sides(self, row: int, side: Callable[[ChunkStream, int], Located]) -> Pair:
        body = self.assign.body
        if row < body:
            return side(self.assign, row), side(self.accept, row)
        a, b = self._ends[row - body]
        return (
            side(self.assign, a) if a is not None else None,
            side(self.accept, b) if b is not None else None,
        )

    def line(self, row: int) -> int | None:
        """The payload line of a row (``None``: end of input)."""
        if row < self.assign.body:
            return self.assign.line(row)
        a, b = self._ends[row - self.assign.body]
        return (
            self.assign.line(a) if a is not None else self.accept.line(b) if b is not None else None
        )


def _differing(ct: CallTrace) -> bytearray:
    """Per delta of ``ct``: do its ``tool-call-delta`` chunks differ between the behaviors
    (the identity in force, as :func:`tool_call_delta` writes it)? Read from the identity
    histories, one step per change, not per delta."""
    n = len(ct.calls)
    out = bytearray(n)
    history = ct.history
    assign, accept = Behavior.ASSIGN_ALWAYS, Behavior.ACCEPT_IDENTITY
    lines = [history[b, f] for b in (assign, accept) for f in ("id", "name")]
    if n and all(len(t.at) == 0 or (len(t.at) == 1 and t.at[0] == 0) for t in lines):
        # Each field set once, on the first delta, or never (an agent loop's 5,000 calls):
        # what is in force on the first delta is in force on every one.
        ida, na, idb, nb = (t.values[0] if len(t.at) else UNSET for t in lines)
        if na != nb or closing_identity(ida) != closing_identity(idb):
            out[:] = b"\x01" * n
        return out
    points = sorted({0}.union(*(t.at for t in lines)))
    for i, start in enumerate(points):
        if start >= n:
            break
        end = min(points[i + 1], n) if i + 1 < len(points) else n
        ida, na = ct.identity(assign, start)
        idb, nb = ct.identity(accept, start)
        if na != nb or closing_identity(ida) != closing_identity(idb):
            out[start:end] = b"\x01" * (end - start)
    return out


def _kind(chunk: Chunk) -> tuple[object, object]:
    return chunk["type"], chunk.get("index")
