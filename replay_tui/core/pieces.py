"""Compact per-delta records of a call: its argument pieces and its wire tool calls.

A 100,000-delta trace keeps, per delta of each call, the piece of arguments it sent and the
wire tool call as sent (the calls view's raw columns, the client libraries' models). Kept as
Python objects, that is three objects a delta (a ``ToolCall``, its ``Function`` and the
piece, about 140 bytes) for a piece of a few characters: more than the capture's own bytes
of that delta. Here the pieces are joined a block at a time and found again by their ends,
and the tool calls are kept as what they do not share with the deltas around them (the
piece) and a reference to one skeleton of every distinct rest (``index``, ``id``, ``type``,
``name``): about 16 bytes a delta beyond the characters. Both are made again on access.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate, islice
from typing import Any, overload

from .wire import UNSET, Function, ToolCall

__all__ = ["CallArgs", "Pieces", "Skeletons", "WireCalls", "senders"]

_BLOCK = 64
"""Pieces joined into one string (fewer objects; a piece is found again by its ends)."""

_BIG = 4096
"""A piece this long (characters) is kept as its own block: never copied into a join."""

_ONE_BLOCK: array[int] = array("q", [0])
"""``_first`` and ``_base`` of pieces kept as one block (:meth:`Pieces.one_block`), shared
by all of them until a piece is appended (5,000 folded calls: two arrays each otherwise)."""
_NO_PENDING: Any = ()
"""``_pending`` of pieces kept as one block, shared likewise (a tuple: never appended to)."""
_NARROW = 2**31
"""Characters below which the ends of pieces kept as one block fit in four bytes."""


class Pieces(Sequence[str]):
    """Strings appended in order (a call's argument pieces), kept as a few joined blocks and
    the end of each piece in them. ``joined()`` is the whole, without a join per piece."""

    __slots__ = ("_base", "_blocks", "_ends", "_first", "_pending")

    def __init__(self, pieces: Sequence[str] = ()) -> None:
        self._blocks: list[str] = []
        """Joined pieces; block ``b`` holds pieces ``_first[b]`` to ``_first[b + 1]``."""
        self._first: array[int] = array("q")
        self._base: array[int] = array("q")
        """Characters before each block, in the whole."""
        self._ends: array[int] = array("q")
        """Each joined piece's end, in characters of the whole."""
        self._pending: list[str] = []
        """Pieces appended since the last block was joined."""
        for piece in pieces:
            self.append(piece)

    def append(self, piece: str) -> None:
        pending = self._pending
        if pending is _NO_PENDING:  # (kept as one block so far: a list of its own now)
            pending = self._pending = []
        if len(piece) >= _BIG:
            self._flush()
            self._pending = [piece]  # (the list is the block's pieces: one, kept whole)
            self._flush()
            return
        pending.append(piece)
        if len(pending) >= _BLOCK:
            self._flush()

    def _flush(self) -> None:
        pending = self._pending
        if not pending:
            return
        # In this order, for a reader in another thread (a capture being followed): a block
        # is there before its first piece is found in ``_first``, and its pieces' ends
        # before they leave ``_pending``.
        ends = self._ends
        base = ends[-1] if ends else 0
        if self._base is _ONE_BLOCK:  # (kept as one block so far: arrays of its own now)
            self._first, self._base = array("q", [0]), array("q", [0])
        if ends.typecode != "q" and base + sum(map(len, pending)) >= _NARROW:
            ends = self._ends = array("q", ends)
        self._blocks.append(pending[0] if len(pending) == 1 else "".join(pending))
        self._base.append(base)
        self._first.append(len(ends))
        ends.extend(islice(accumulate(map(len, pending), initial=base), 1, None))
        self._pending = []

    @classmethod
    def one_block(cls, pieces: list[str]) -> Pieces:
        """``pieces`` kept as one block, their join (what :meth:`whole` makes of them), made
        at once (a call's first delta and the few that continue it: 5,000 calls)."""
        out = cls()
        if pieces:
            out._blocks.append(pieces[0] if len(pieces) == 1 else "".join(pieces))
            out._first = out._base = _ONE_BLOCK
            out._pending = _NO_PENDING
            ends = accumulate(map(len, pieces))
            out._ends = array("i" if len(out._blocks[0]) < _NARROW else "q", ends)
        return out

    def whole(self) -> str:
        """:meth:`joined`, which then becomes the one block the pieces are cut from: a folded
        run's call, whose frame holds its arguments joined, keeps its characters once, not in
        its blocks too. (Not for pieces another thread reads: their blocks are replaced.)"""
        self._flush()
        blocks = self._blocks
        if len(blocks) <= 1:
            return blocks[0] if blocks else ""
        whole = "".join(blocks)
        self._blocks, self._first, self._base = [whole], array("q", [0]), array("q", [0])
        return whole

    def pack(self) -> None:
        """Join the pieces appended since the last block into one (when no more will come:
        a few pieces pending are a string each)."""
        self._flush()

    def __len__(self) -> int:
        return len(self._ends) + len(self._pending)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        ends = self._ends
        if type(index) is not int:
            if not isinstance(index, slice):
                raise TypeError(f"Pieces indices must be integers or slices, not {type(index)}")
            start, stop, step = index.indices(len(ends) + len(self._pending))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return self._run(start, stop)
        n = len(ends)
        if not 0 <= index < n:
            if index < 0:
                index += n + len(self._pending)
            if index >= n:
                pending = self._pending
                if not 0 <= index - n < len(pending):
                    raise IndexError(index)
                return pending[index - n]
            if index < 0:
                raise IndexError(index)
        first = self._first
        b = bisect_right(first, index) - 1
        block, base = self._blocks[b], self._base[b]
        start = ends[index - 1] - base if index > first[b] else 0
        end = ends[index] - base
        if start == 0 and end == len(block):
            return block  # the whole block (a big piece: not copied)
        return block[start:end]

    def _run(self, a: int, b: int) -> list[str]:
        """Pieces ``a`` to ``b`` (not included), each cut from its block by the pieces' ends
        (a slice of a folded run's pieces: not a look-up per piece)."""
        pending = self._pending  # (read first: see joined)
        ends = self._ends
        n = len(ends)
        out: list[str] = []
        firsts, blocks, bases = self._first, self._blocks, self._base
        k = a
        while k < min(b, n):
            at = bisect_right(firsts, k) - 1
            block, base = blocks[at], bases[at]
            stop = min(b, n, firsts[at + 1] if at + 1 < len(firsts) else n)
            prev = (ends[k - 1] if k > firsts[at] else base) - base
            for end in ends[k:stop]:
                end -= base
                out.append(block[prev:end])
                prev = end
            k = stop
        if b > n:
            out += pending[max(a - n, 0) : b - n]
        return out

    def extend(self, pieces: Iterable[str]) -> None:
        if type(pieces) is list and pieces and max(map(len, pieces)) < _BIG:
            # (none kept whole: a block's worth at a time, joined as appended one by one)
            at, n = 0, len(pieces)
            while at < n:
                pending = self._pending
                take = _BLOCK - len(pending)
                pending += pieces[at : at + take]
                at += take
                if len(pending) >= _BLOCK:
                    self._flush()
            return
        pending = self._pending
        for piece in pieces:
            if len(piece) >= _BIG:
                self.append(piece)
            else:
                pending.append(piece)
                if len(pending) < _BLOCK:
                    continue
                self._flush()
            pending = self._pending

    def __iter__(self) -> Iterator[str]:
        return self.walk(0)

    def walk(self, start: int) -> Iterator[str]:
        """The pieces from piece ``start`` on, in order, each cut from its block as it comes
        (a model reading a folded run one piece at a time: no look-up per piece, no list)."""
        ends = self._ends
        blocks, firsts, bases = self._blocks, self._first, self._base  # (whole() replaces them)
        b0 = bisect_right(firsts, start) - 1 if 0 < start < len(ends) else 0
        for b in range(b0, len(firsts)):
            block = blocks[b]
            first, base = firsts[b], bases[b]
            m = len(ends)  # (before _first's length: see reader)
            last = firsts[b + 1] if b + 1 < len(firsts) else m
            if last <= start:
                continue
            if last - first == 1:
                yield block
                continue
            k = max(first, start)
            begin = ends[k - 1] - base if k > first else 0
            for end in ends[k:last]:
                end -= base
                yield block[begin:end]
                begin = end
        yield from list(self._pending)[max(start - len(ends), 0) :]

    def reader(self) -> Callable[[int], str]:
        """``self[k]`` for a reader going through the pieces mostly in order (the client
        models' walk of a trace's deltas, each call's pieces in one log): the block of the
        last piece read is looked in first, without a search or a check per piece."""
        blocks, firsts, bases, ends = self._blocks, self._first, self._base, self._ends
        lo = hi = base = 0
        block = ""

        def piece(k: int) -> str:
            nonlocal lo, hi, base, block
            if not lo <= k < hi:
                # (in this order, for pieces appended in another thread meanwhile: a piece
                # counted in _ends has its block in _first; a block past the last one
                # counted in _first has no piece counted before it)
                m = len(ends)
                if not 0 <= k < m:
                    return self[k]  # (pending, or not a piece: as a look-up says)
                n = len(firsts)
                b = bisect_right(firsts, k) - 1
                block, base, lo = blocks[b], bases[b], firsts[b]
                hi = firsts[b + 1] if b + 1 < n else m
            return block[(ends[k - 1] - base if k > lo else 0) : ends[k] - base]

        return piece

    def span(self, a: int, b: int) -> str:
        """Pieces ``a`` to ``b`` (not included), joined (one piece of a block of its own, a
        big one, is not copied)."""
        pending = self._pending  # (read first: see joined)
        ends = self._ends
        n = len(ends)
        parts: list[str] = []
        if a < min(b, n):
            parts.append(self._chars(ends[a - 1] if a else 0, ends[min(b, n) - 1]))
        if b > n:
            parts += pending[max(a - n, 0) : b - n]
        return parts[0] if len(parts) == 1 else "".join(parts)

    def span_head(self, a: int, b: int, limit: int) -> str:
        """The first ``limit`` characters of ``span(a, b)``, found by the pieces' ends (a
        call's first 4,000 characters in 2,000 pieces of two: two slices, not 2,000)."""
        pending = self._pending  # (read first: see joined)
        ends = self._ends
        n = len(ends)
        if limit <= 0 or a >= b:
            return ""
        parts: list[str] = []
        size = 0
        if a < min(b, n):
            start = ends[a - 1] if a else 0
            stop = min(ends[min(b, n) - 1], start + limit)
            parts.append(self._chars(start, stop))
            size = stop - start
        k = max(a - n, 0)
        while b > n + k and size < limit and k < len(pending):
            parts.append(pending[k][: limit - size])
            size += len(parts[-1])
            k += 1
        return parts[0] if len(parts) == 1 else "".join(parts)

    def _chars(self, start: int, stop: int) -> str:
        """Characters ``start`` to ``stop`` of the joined blocks."""
        blocks, base = self._blocks, self._base
        out: list[str] = []
        k = max(bisect_right(base, start) - 1, 0)
        while k < len(base) and base[k] < stop:
            block = blocks[k]
            s, e = max(start - base[k], 0), min(stop - base[k], len(block))
            out.append(block if s == 0 and e == len(block) else block[s:e])
            k += 1
        return out[0] if len(out) == 1 else "".join(out)

    def joined(self, count: int | None = None) -> str:
        """The first ``count`` pieces (None: every one), joined (the blocks are; a lone one
        is not copied)."""
        pending = self._pending  # (read first: a flush in another thread replaces it)
        ends = self._ends
        n = len(ends)
        if count is None or count >= n + len(pending):
            if not pending and len(self._blocks) == 1:
                return self._blocks[0]
            return "".join(self._blocks[: len(self._first)]) + "".join(pending)
        if count <= n:
            return self.head(ends[count - 1] if count > 0 else 0)
        return self.head(ends[-1] if n else 0) + "".join(pending[: count - n])

    def head(self, limit: int) -> str:
        """The first ``limit`` characters of :meth:`joined`, without joining the rest."""
        parts: list[str] = []
        size = 0
        if limit <= 0:
            return ""
        for block in (*self._blocks, *self._pending):
            parts.append(block[: limit - size])
            size += len(parts[-1])
            if size >= limit:
                break
        return "".join(parts)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Pieces | list):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content

    def __repr__(self) -> str:
        return f"Pieces({list(self)!r})"


class CallArgs(Sequence[str]):
    """One call's argument pieces, in a trace's :class:`Pieces` shared by every call (a call
    of a few deltas then costs no block of its own): their numbers there, as a run (the first
    and how many) while they follow one another in the log, as every call's do but calls
    sent side by side (an agent loop's 5,000 calls keep two numbers each, not an array)."""

    __slots__ = ("_at", "_first", "_log", "_n")

    def __init__(self, log: Pieces) -> None:
        self._log = log
        self._first = 0
        self._n = 0
        self._at: array[int] | None = None
        """Each piece's number, once they stopped following one another (else None)."""

    def append(self, piece: str) -> None:
        log = self._log
        k = len(log)
        log.append(piece)
        # (After: a reader in another thread finds it in the log. A run that breaks becomes
        # an array whole, then replaces it: a reader sees one or the other.)
        at = self._at
        if at is not None:
            at.append(k)
        elif self._n == 0:
            self._first = k
            self._n = 1
        elif k == self._first + self._n:
            self._n += 1
        else:
            numbers = array("q", range(self._first, self._first + self._n))
            numbers.append(k)
            self._at = numbers

    def _numbers(self) -> array[int] | range:
        at = self._at
        return range(self._first, self._first + self._n) if at is None else at

    def __len__(self) -> int:
        at = self._at
        return self._n if at is None else len(at)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            log = self._log
            return [log[k] for k in self._numbers()[index]]
        at = self._at
        if at is not None:
            return self._log[at[index]]
        n = self._n  # (read before the first: both only grow, the first once set)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        return self._log[self._first + index]

    def __iter__(self) -> Iterator[str]:
        log = self._log
        for k in self._numbers():
            yield log[k]

    def joined(self, count: int | None = None) -> str:
        """The first ``count`` pieces (None: every one), joined."""
        at = self._numbers()
        n = len(at) if count is None else max(min(count, len(at)), 0)
        if n == 0:
            return ""
        first, last = at[0], at[n - 1]
        if last - first == n - 1:  # one after the other in the log: one span of it
            return self._log.span(first, last + 1)
        log = self._log
        return "".join([log[k] for k in at[:n]])

    def head(self, limit: int) -> str:
        """The first ``limit`` characters of :meth:`joined`, the pieces up to them alone."""
        parts: list[str] = []
        size = 0
        if limit <= 0:
            return ""
        at = self._numbers()
        n = len(at)
        if n and at[n - 1] - at[0] == n - 1:  # one after the other in the log: by its ends
            return self._log.span_head(at[0], at[0] + n, limit)
        for piece in self:
            parts.append(piece[: limit - size])
            size += len(parts[-1])
            if size >= limit:
                break
        return "".join(parts)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CallArgs | Pieces | list):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content

    def __repr__(self) -> str:
        return f"CallArgs({list(self)!r})"


_PIECE = object()
"""In a skeleton's ``function.arguments``: the delta's piece goes here (a string)."""

_SHARED = frozenset((str, int, type(None), type(UNSET)))
"""Types of values a skeleton is shared for: compared exactly by ``==`` within a type
(``1.0``, ``-0.0`` and nested values are kept as sent, in a skeleton of their own)."""


class Skeletons:
    """The distinct rests of a trace's wire tool calls (:class:`WireCalls`), shared."""

    __slots__ = ("_index", "table")

    def __init__(self) -> None:
        self.table: list[ToolCall] = []
        self._index: dict[tuple[Any, ...], int] = {}

    def of(self, call: ToolCall) -> tuple[int, bool]:
        """The skeleton of ``call`` (its number) and whether its arguments are a piece.

        Runs once per delta while a trace loads: the common case (a string piece, every
        other value a string, an int, null or absent) is one tuple and one lookup."""
        fn = call.function
        index, cid, kind = call.index, call.id, call.type
        ti, tc, tk = type(index), type(cid), type(kind)
        shared = _SHARED
        key: tuple[Any, ...] | None = None
        if type(fn) is Function:
            args = fn.arguments
            name = fn.name
            ta, tn = type(args), type(name)
            piece = ta is str
            if ti in shared and tc in shared and tk in shared and tn in shared:
                if piece:
                    key = (index, cid, kind, name, ti, tc, tk, tn)
                elif ta in shared:
                    key = (index, cid, kind, name, ti, tc, tk, tn, args, ta)
        else:
            piece = False
            if ti in shared and tc in shared and tk in shared:
                key = (index, cid, kind, ti, tc, tk, fn is None)
        if key is not None:
            found = self._index.get(key)
            if found is not None:
                return found, piece
        number = len(self.table)
        if piece:
            assert type(fn) is Function
            call = ToolCall(call.index, call.id, call.type, Function(fn.name, _PIECE))
        self.table.append(call)
        if key is not None:
            self._index[key] = number
        return number, piece


class WireCalls(Sequence[ToolCall]):
    """A call's deltas' wire tool calls, as sent: each made again on access from its
    skeleton (:class:`Skeletons`) and its piece of arguments (the call's :class:`Pieces`)."""

    __slots__ = ("_args", "_refs", "_skeletons")

    def __init__(self, skeletons: Skeletons, args: CallArgs) -> None:
        self._skeletons = skeletons
        self._args = args
        self._refs: array[int] = array("q")
        """Per delta: ``skeleton << 32 | piece`` (the piece's number in ``args``)."""

    def append(self, call: ToolCall) -> None:
        """Record the next delta's ``call``; its piece must be appended to ``args`` after
        (or never, when its arguments are not a string)."""
        number, _ = self._skeletons.of(call)
        self._refs.append(number << 32 | len(self._args))

    def __len__(self) -> int:
        return len(self._refs)

    @overload
    def __getitem__(self, index: int) -> ToolCall: ...

    @overload
    def __getitem__(self, index: slice) -> list[ToolCall]: ...

    def __getitem__(self, index: int | slice) -> ToolCall | list[ToolCall]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        ref = self._refs[index]
        call = self._skeletons.table[ref >> 32]
        fn = call.function
        if type(fn) is Function and fn.arguments is _PIECE:
            piece = self._args[ref & 0xFFFFFFFF]
            return ToolCall(call.index, call.id, call.type, Function(fn.name, piece))
        return call

    def __iter__(self) -> Iterator[ToolCall]:
        for k in range(len(self._refs)):
            yield self[k]

    def sent(self, index: int) -> tuple[ToolCall, Any]:
        """Delta ``index`` as ``(tool call, arguments)`` without making its tool call again:
        the call is its skeleton (whose ``function.arguments`` is a placeholder, not to be
        read) when the arguments are a piece, else the call as sent."""
        ref = self._refs[index]
        call = self._skeletons.table[ref >> 32]
        fn = call.function
        if type(fn) is Function:
            args = fn.arguments
            if args is _PIECE:
                return call, self._args[ref & 0xFFFFFFFF]
            return call, args
        return call, UNSET

    def identities(self) -> Iterator[tuple[Any, Any]]:
        """Each delta's ``(id, function name)`` as sent (``UNSET`` where absent), read from
        its skeleton: its tool call is not made again (a 25,000-delta call's identity line
        took a tenth of a second)."""
        table = self._skeletons.table
        for ref in self._refs:
            call = table[ref >> 32]
            fn = call.function
            yield call.id, (fn.name if fn else UNSET)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WireCalls | list):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content


def senders(wires: Sequence[Any]) -> Callable[[int, int], tuple[ToolCall, Any]]:
    """``sent(c, k)``: delta ``k`` of call ``c`` (``wires[c]``, a :class:`WireCalls` or a
    plain list of tool calls) as ``(its wire tool call, its arguments)``, as
    :meth:`WireCalls.sent` gives it (its tool call not made again), for a reader going
    through a trace's deltas mostly in order: each piece read from the trace's log by one
    :meth:`Pieces.reader` per log, not through the call's :class:`CallArgs` and a search; one
    function for every call (5,000 calls: not an object each)."""
    readers: dict[int, Callable[[int], str]] = {}
    placeholder = _PIECE

    def sent(c: int, k: int) -> tuple[ToolCall, Any]:
        wire = wires[c]
        if type(wire) is not WireCalls:
            d = wire[k]
            fn = d.function
            return d, (fn.arguments if type(fn) is Function else UNSET)
        ref = wire._refs[k]
        call = wire._skeletons.table[ref >> 32]
        fn = call.function
        if type(fn) is not Function:
            return call, UNSET
        arguments = fn.arguments
        if arguments is not placeholder:
            return call, arguments
        args = wire._args
        log = args._log
        read = readers.get(id(log))
        if read is None:
            read = readers[id(log)] = log.reader()
        n = ref & 0xFFFFFFFF
        at = args._at  # (then the run's first and length: see CallArgs.__getitem__)
        if at is not None:
            return call, read(at[n])
        if n < args._n:
            return call, read(args._first + n)
        return wire.sent(k)

    return sent
