"""Loading a trace in steps, for workers: a first screenful early, then the rest with progress.

A big capture is fed to the core's incremental :class:`TraceBuilder` in slices. After the first
slice a snapshot is taken, so the views can show the beginning of the trace while the rest is
decoded; progress is reported between slices and cancellation is checked there too.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.trace import Source, Trace, TraceBuilder, load_trace

__all__ = ["FIRST_SLICE", "load_in_steps", "read_source"]

FIRST_SLICE = 256 * 1024
"""Bytes decoded before the first snapshot: a few thousand deltas, far more than a screenful."""
STEP = 2 * 1024 * 1024


def read_source(source: Source) -> bytes:
    """The bytes of the stream (the file, or the HAR entry's body). Raises ``OSError``."""
    return source.entry.body if source.entry is not None else source.path.read_bytes()


def load_in_steps(
    source: Source,
    data: bytes,
    *,
    on_partial: Callable[[Trace], None] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    first: int = FIRST_SLICE,
    step: int = STEP,
) -> Trace | None:
    """Decode ``data`` as ``source``; ``None`` when cancelled on the way.

    A capture no bigger than ``first`` is loaded in one go, with no partial snapshot.
    """
    total = len(data)
    if total <= first:
        return load_trace(source, data)
    builder = TraceBuilder(source)
    builder.feed(data[:first])
    if on_partial is not None:
        on_partial(builder.build())
    done = first
    while done < total:
        if cancelled():
            return None
        builder.feed(data[done : done + step])
        done = min(total, done + step)
        if on_progress is not None:
            on_progress(done, total)
    builder.close()
    return builder.build()
