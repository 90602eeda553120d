"""Either behavior's translator output, re-derived from the analysis' record.

The single pass (:class:`~.identity.Analyzer`) records a compact event log and each call's
identity history; this module turns them back into the harness's chunks on demand, one at a
time, with the translator's own chunk builders. Nothing is decoded again, and a view that
shows a window of 40 rows of a 100,000-delta trace makes 40 chunks. A property test holds
this to the translator run over the decoded payloads.
"""

from __future__ import annotations

import difflib

from .identity import Analysis, EventLog
from .indexed import Indexed
from .translator import (
    STREAM_CLOSED_MESSAGE,
    Behavior,
    Chunk,
    TextBlock,
    ToolBlock,
    arguments_fragment,
    block_start,
    done_chunks,
    error_finish,
    text_delta,
    tool_call_delta,
)
from .wire import UNSET

__all__ = ["BehaviorPairs", "ChunkStream", "Located", "Pair"]

Located = tuple[int | None, Chunk]
"""A chunk with the line of the payload it came from (``None``: emitted at end of input)."""


class ChunkStream(Indexed[Located]):
    """The chunks ``behavior`` emits for the analysed stream, each with its payload's line."""

    __slots__ = ("_analysis", "_behavior", "_body", "_end")

    def __init__(self, analysis: Analysis, behavior: Behavior | str) -> None:
        self._analysis = analysis
        self._behavior = Behavior(behavior)
        self._body = analysis.event_count
        self._end = _end_chunks(analysis, self._behavior)

    @property
    def body(self) -> int:
        """Chunks before the end (the same kinds, in the same order, under either behavior)."""
        return self._body

    def __len__(self) -> int:
        return self._body + len(self._end)

    def _at(self, k: int) -> Located:
        if k >= self._body:
            return self._end[k - self._body]
        events = self._analysis.events
        return events.lines[k], _body_chunk(self._analysis, self._behavior, events.refs[k])


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
    """What ends the stream: the ``[DONE]`` chunks, a failure, or nothing yet."""
    if analysis.done:
        chunks = done_chunks(_blocks(analysis, behavior), analysis.usage, analysis.finish, behavior)
        return [(analysis.end_line, c) for c in chunks]
    outcome = analysis.outcomes[behavior]
    if outcome.verdict == "in-progress":
        return []
    if outcome.position is None:
        return [(None, error_finish("STREAM_CLOSED", STREAM_CLOSED_MESSAGE))]
    return [(analysis.end_line, {"type": "finish", "reason": outcome.finish})]


def _blocks(analysis: Analysis, behavior: Behavior) -> list[ToolBlock | TextBlock]:
    """Every block as the translator holds it at ``[DONE]``, in opening order."""
    blocks: list[ToolBlock | TextBlock] = [
        ToolBlock(ct.block_index, *ct.final(behavior), [ct.arguments]) for ct in analysis.calls
    ]
    if analysis.text_blocks:
        parts: dict[bool, list[str]] = {False: [], True: []}
        texts = analysis.events.texts
        for ref in analysis.events.refs[: analysis.event_count]:
            if ref < 0:
                _, which, reasoning, start = EventLog.decode(ref)
                if not start:
                    parts[bool(reasoning)].append(texts[which])
        for kind, index in analysis.text_blocks.items():
            blocks.append(TextBlock(index, kind, parts[kind == "reasoning"]))
    blocks.sort(key=lambda b: b.index)
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
        kinds_l = [_kind(self.assign[i][1]) for i in left_end]
        kinds_r = [_kind(self.accept[i][1]) for i in right_end]
        self._ends: list[tuple[int | None, int | None]] = []
        matcher = difflib.SequenceMatcher(None, kinds_l, kinds_r, autojunk=False)
        for _, a0, a1, b0, b1 in matcher.get_opcodes():
            la, lb = left_end[a0:a1], right_end[b0:b1]
            for k in range(max(len(la), len(lb))):
                self._ends.append((la[k] if k < len(la) else None, lb[k] if k < len(lb) else None))
        same = bytearray(body + len(self._ends))
        for k in range(body):
            same[k] = self.assign[k][1] == self.accept[k][1]
        for j, (a, b) in enumerate(self._ends):
            same[body + j] = (
                a is not None and b is not None and self.assign[a][1] == self.accept[b][1]
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

    def line(self, row: int) -> int | None:
        """The payload line of a row (``None``: end of input)."""
        left, right = self._at(row)
        side = left or right
        return side[0] if side is not None else None


def _kind(chunk: Chunk) -> tuple[object, object]:
    return chunk["type"], chunk.get("index")
