"""Loading a trace in steps, for workers: a first screenful early, then the rest with progress.

A big capture is read and fed to the core's incremental :class:`TraceBuilder` in slices. After
the first slice a snapshot is taken, so the views can show the beginning of the trace while the
rest is decoded; progress is reported between slices and cancellation is checked there too.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import pairwise

from ..core.heap import big_blocks_apart
from ..core.trace import (
    CallsAhead,
    Form,
    Source,
    Trace,
    TraceBuilder,
    count_lines,
    load_trace,
    trace_from_event,
)

__all__ = ["FIRST_SLICE", "first_screen", "load_in_steps", "with_lines_counted"]

FIRST_SLICE = 64 * 1024
"""Bytes decoded before the first snapshot: a few hundred deltas, more than a screenful."""
STEP = 1024 * 1024
"""Bytes read and fed at a time after the first screen (no more than the builder frames at
once: a slice is framed without a copy)."""
EARLY_ROWS = 100
"""Deltas a first snapshot shows, when the capture has them: more than a screenful."""
EARLY_STEP = 1024 * 1024
"""Bytes read at a time for the first frame: the calls' first rows are looked for after each
(a slice no bigger than the builder's window is framed without a copy)."""
EARLY_TIME = 0.15
"""Seconds the first frame waits, at most, for the bytes that hold its rows to be decoded."""
AHEAD_LIMIT = 256 * 1024 * 1024
"""Bytes read, at most, looking for the first tool call before the first frame."""


@contextmanager
def _slices(
    source: Source, first: int, step: int, start: int = 0
) -> Iterator[tuple[int, Iterator[bytes]]]:
    """The stream's size and its bytes from ``start`` in slices (``first`` bytes, then
    ``step`` at a time)."""
    if source.entry is not None:
        body = source.entry.body
        cuts = [start, *range(start + first, len(body), step), len(body)]
        yield len(body), (body[a:b] for a, b in pairwise(cuts) if b > a)
        return
    with source.path.open("rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        fh.seek(start)

        def read() -> Iterator[bytes]:
            chunk = fh.read(first)
            while chunk:
                yield chunk
                chunk = fh.read(step)

        yield size, read()


def _whole(source: Source) -> bytes | None:
    """The whole capture read at once (None: not a regular file, whose bytes are read as
    they come)."""
    if source.entry is not None:
        return source.entry.body
    with source.path.open("rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        return fh.read()


def _views(whole: bytes, start: int, step: int) -> Iterator[memoryview]:
    """``whole`` from ``start``, a ``step`` at a time, as views (not copies)."""
    view = memoryview(whole)
    for at in range(start, len(whole), step):
        yield view[at : at + step]


def first_screen(
    source: Source, first: int = FIRST_SLICE, within: float = EARLY_TIME
) -> tuple[Trace, TraceBuilder | None]:
    """The trace of the capture's first bytes, and the builder that read them (None when that
    is all of it: then it is the whole trace, closed): its first ``first`` bytes, and more
    while they hold fewer than :data:`EARLY_ROWS` deltas. Read before the app's first frame,
    which then shows the calls' rows (read after it, they came a frame and the judging's
    start later); the builder reads on from there (:func:`load_in_steps`). Raises
    ``OSError``.

    When the first bytes hold no tool call, the calls are looked for in the bytes that
    follow (a byte search, a :data:`EARLY_STEP` at a time, for at most ``within`` seconds,
    :data:`AHEAD_LIMIT` bytes): found more than a step on (50,000 text deltas, a 50 MB string
    before them), the snapshot is decoded from them on (:meth:`CallsAhead.trace`), the text
    before left for the builder, which has read only the first bytes; found nearer, or not
    found, the builder reads on (a step at a time, until ``within`` seconds). A snapshot
    decoded from the call on has its lines counted from there (:attr:`Trace.lines_known`
    False): :func:`with_lines_counted` counts those before, after the first frame."""
    with _slices(source, first, EARLY_STEP) as (_size, slices):
        head = next(slices, b"")
        if len(head) < first:
            return load_trace(source, head), None
        early = TraceBuilder(source)
        early.feed(head)
        deadline = time.monotonic() + within

        def past() -> bool:
            return time.monotonic() > deadline

        if early.deltas or early.finished:
            return _read_on(early, slices, past, FIRST_SLICE), early
        if source.form in (Form.SSE, Form.JSONL) and source.entry is None:
            ahead = CallsAhead(jsonl=source.form is Form.JSONL)
            ahead.feed(head)
            with source.path.open("rb", buffering=0) as fh:
                fh.seek(len(head))
                found = ahead.read(fh.readinto, past, AHEAD_LIMIT)
            if found and ahead.start is not None and ahead.start >= early.size + EARLY_STEP:
                # The calls' rows, more than a step on: decoded from there, the text before
                # left for the builder.
                snapshot = ahead.trace(source, EARLY_ROWS)
                if snapshot is not None:
                    return snapshot, early
            del ahead
        snapshot = _read_on(early, slices, past, FIRST_SLICE)
    return snapshot, early


def with_lines_counted(first: Trace, head: int = FIRST_SLICE) -> Trace:
    """What takes the place of ``first``, a first screen decoded from the first call on
    before the lines before it were counted (:attr:`Trace.lines_known` False): the same rows
    on the capture's lines, those before counted (a pass over the bytes before, 20 ms for
    20 MB: after the first frame, not before it). When a ``[DONE]`` comes before the call,
    its rows are not replayed: the capture's first ``head`` bytes decoded from the start
    take its place instead (no rows, as the trace decoded from the start has none of them),
    and they do too when the bytes before are no longer there (the file was cut). Raises
    ``OSError``."""
    source = first.source
    with source.path.open("rb", buffering=0) as fh:
        lines = count_lines(fh.readinto, first.skipped, jsonl=source.form is Form.JSONL)
        counted = (
            trace_from_event(source, first.skipped, lines, bytes(first.raw))
            if lines is not None
            else None
        )
        if counted is not None:
            return counted
        fh.seek(0)
        builder = TraceBuilder(source)
        builder.feed(fh.read(head))
    return builder.build()


def _read_on(
    early: TraceBuilder,
    slices: Iterator[bytes] | Iterator[memoryview],
    stop: Callable[[], bool],
    piece: int = 0,
    on_progress: Callable[[int], None] = lambda _done: None,
    whole: bytes | None = None,
) -> Trace:
    """``early``'s snapshot once it holds a screenful of rows: fed ``slices`` while it has
    fewer than :data:`EARLY_ROWS` deltas and its replay goes on, until ``stop()``, ``piece``
    bytes at a time (0: a slice at a time); ``on_progress`` is told the bytes read after each
    doubling."""
    done = early.size
    look_at = 2 * done
    while early.deltas < EARLY_ROWS and not early.finished:
        chunk = next(slices, b"")
        if not chunk or stop():
            break
        # (``piece`` bytes at a time, before the first frame: the rows are often in the first
        # of them, and a whole step decoded is a few thousand deltas the first screen builds;
        # a trace opened from a folder takes whole steps, the flag its judging found among
        # them more often than not)
        size = piece or len(chunk)
        for at in range(0, len(chunk), size):
            part = chunk[at : at + size] if len(chunk) > size else chunk
            if whole is not None:  # (views of it: taken from it, not appended)
                early.feed_from(whole, early.size + len(part))
            else:
                assert not isinstance(part, memoryview)  # (views only of whole)
                early.feed(part)
            done += len(part)
            if early.deltas >= EARLY_ROWS or early.finished:
                break
        if done >= look_at:
            look_at = 2 * done
            on_progress(done)
    return early.build()


class _Cancelled(Exception):
    """The worker was cancelled while the capture was decoding."""


def load_in_steps(
    source: Source,
    *,
    on_partial: Callable[[Trace], None] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    first: int = FIRST_SLICE,
    step: int = STEP,
    follow: Callable[[TraceBuilder, bytes | bytearray], Trace] | None = None,
    shown: int = 0,
    early: TraceBuilder | None = None,
    replace: bool = False,
) -> Trace | None:
    """Read and decode ``source``; ``None`` when cancelled on the way. Raises ``OSError``.

    A capture no bigger than ``first`` is loaded in one go, with no partial snapshot. A bigger
    one is fed to one builder a slice at a time: its first ``first`` bytes (more, a ``step``
    at a time, until they hold :data:`EARLY_ROWS` deltas) make a first screen, sent unless it
    has no more deltas than ``shown`` (a first screen already on screen) and does not
    ``replace`` it (one read from the first call on, :attr:`Trace.skipped`: whatever the
    first snapshot holds, it is the capture's), then the rest, reporting progress from
    inside the decode. ``early``: the builder that read the first screen
    (:func:`first_screen`), read on from where it got to (to a screenful first, when it
    holds fewer rows). Each byte is decoded once,
    and kept once: the first screen's trace and the whole one share the builder's buffer
    (its payloads point into it), as a capture followed while it is written does.
    """
    big_blocks_apart()  # (an open trace's views make and let go huge strings)
    with _slices(source, first, step, early.size if early is not None else 0) as (size, slices):
        if early is None:
            head = next(slices, b"")
            if len(head) < first and follow is None:
                return load_trace(source, head)
            early = TraceBuilder(source)
            early.feed(head)
            del head
        whole: bytes | None = None
        if on_partial is not None and early.size >= first and shown < EARLY_ROWS:
            # A screenful of rows first: read on while the head shows fewer (a 50 MB
            # string first, or 50,000 text deltas before the calls).
            if early.deltas < EARLY_ROWS and not early.finished and follow is None:
                # (read whole first: the snapshot and the whole trace then share it)
                whole = _whole(source)
                if whole is not None and early.feed_from(whole, early.size):
                    slices = _views(whole, early.size, step)  # type: ignore[assignment]
                else:
                    whole = None
            snapshot = _read_on(
                early,
                slices,
                cancelled,
                on_progress=(
                    (lambda d: on_progress(d, size)) if on_progress is not None else lambda _: None
                ),
                whole=whole,
            )
            if snapshot.analysis.deltas > shown or replace:
                on_partial(snapshot)
            del snapshot
        builder = early

        def progress(offset: int) -> None:
            if cancelled():
                raise _Cancelled
            if on_progress is not None:
                on_progress(offset, max(size, builder.size))

        builder.on_progress = progress
        try:
            if whole is None and follow is None:
                whole = _whole(source)
            if whole is not None and builder.feed_from(whole, builder.size):
                # The capture kept as read at once, the rest fed from it a step at a time
                # (not a buffer grown a step at a time: see TraceBuilder.feed_from)
                slices = iter(())
                for end in range(builder.size + step, len(whole) + step, step):
                    if cancelled():
                        return None
                    builder.feed_from(whole, min(end, len(whole)))
            del whole
            for chunk in slices:
                if cancelled():
                    return None
                builder.feed(chunk)
        except _Cancelled:
            return None
        finally:
            builder.on_progress = None
    if cancelled():
        return None
    if follow is not None:
        return follow(builder, builder.raw())
    builder.close()
    if on_progress is not None:
        on_progress(builder.size, max(size, builder.size))
    return builder.build()
