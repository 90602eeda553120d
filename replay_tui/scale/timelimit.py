"""A time limit on one piece of work, for ``check``'s per-file limit (``--file-time-limit``).

A file that cannot be judged in time (a read that never returns — a pipe swapped in after
the walk listed a file, a stalled network mount — or a capture too large for the machine) must
not stop a scan of a hundred thousand: it becomes one skipped entry, and the scan goes on.

The limit is a real-time interval timer (``SIGALRM``): its handler raises :class:`TimeUp` in
the middle of whatever the work is doing, a blocking system call included (Python retries an
interrupted call only when the handler returns). Timers are per process and signals go to
the main thread, so a limit is set only there (``check`` in its own process, and the pool's
worker processes); elsewhere (a thread of the TUI) the work runs unbounded. The handler,
once installed, stays: it does nothing unless a limit is running.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["DEFAULT_FILE_SECONDS", "TimeUp", "over_limit", "within"]

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_FILE_SECONDS = 120.0
"""``check``'s default per-file limit: four times what the largest file read (1 GiB) takes
on a contended 2-core machine (about 30 s), so that only a read that does not progress
meets it."""


class TimeUp(BaseException):
    """The time limit ran out. A ``BaseException``, as ``KeyboardInterrupt`` is: the work's own
    ``except Exception`` (which turns a bad file into a skipped entry) lets it through."""


def over_limit(seconds: float) -> str:
    """The reason given for a file over the limit."""
    return (
        f"not judged: still reading or judging after {seconds:g} s (check's per-file time"
        " limit; --file-time-limit SECONDS raises it)"
    )


_armed = False
_installed = False


def _alarm(signum: int, frame: Any) -> None:
    if _armed:
        raise TimeUp


def usable() -> bool:
    """Whether a limit can be set here (the main thread of a platform with ``setitimer``)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def within(seconds: float | None, fn: Callable[[T], R], item: T, late: Callable[[T, str], R]) -> R:
    """``fn(item)``, or ``late(item, reason)`` when it takes more than ``seconds`` (``None``,
    or where no limit can be set: no limit)."""
    global _armed, _installed
    if seconds is None or seconds <= 0 or not usable():
        return fn(item)
    if not _installed:  # once per process: a scan of 100,000 files sets only the timer each
        signal.signal(signal.SIGALRM, _alarm)
        _installed = True
    try:
        _armed = True
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return fn(item)
        finally:
            _armed = False  # first: an alarm from here on is ignored
            signal.setitimer(signal.ITIMER_REAL, 0)
    except TimeUp:
        return late(item, over_limit(seconds))
