"""What every command shares: the exit statuses, the usage error, the one error printer.

A command module raises :class:`UsageError` for a problem with what was asked; the dispatcher
in :mod:`replay_tui.cli` prints it with :func:`error` and exits 2. Trace content and file names
reach the terminal only through :func:`~replay_tui.core.visible.visible`.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from replay_tui.core.visible import visible

__all__ = [
    "EXIT_FINDINGS",
    "EXIT_OK",
    "EXIT_PIPE",
    "EXIT_USAGE",
    "PROG",
    "UsageError",
    "error",
    "logging_to_stderr",
    "until_stopped",
]

PROG = "replay-tui"
EXIT_OK = 0
"""Nothing found (``check``: every trace clean; ``diff``: the same outcome)."""
EXIT_FINDINGS = 1
"""Something found: a trace flagged or not ``ok``, a different outcome."""
EXIT_USAGE = 2
"""A usage error, a path that names nothing, or nothing readable."""
EXIT_PIPE = 141
"""The reader went away (``| head``) before all was written: 128 + SIGPIPE, as a command the
signal stopped; never 0, which a ``set -o pipefail`` CI step would read as "nothing found"."""


class UsageError(Exception):
    """A problem with what was asked: one line on stderr, exit status 2."""


def error(message: str) -> None:
    """The one way a command reports a problem: ``replay-tui: <message>`` on one line."""
    text = visible(message)
    print(f"{PROG}: {text}", file=sys.stderr, flush=True)


@contextmanager
def logging_to_stderr(name: str) -> Iterator[None]:
    """While the block runs, the named logger's lines (INFO and up) as ``replay-tui: …`` on
    stderr: what a server command (``record``, ``upstream``) says as it serves."""
    import logging  # (only the servers log: check's start-up does not pay for it)

    from replay_tui.share.serve import OneLine

    logger = logging.getLogger(name)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{PROG}: %(message)s"))
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    # aiohttp's own lines (a client's malformed request: a bad Content-Length, a header over
    # 8 KB, a body that is not the gzip it says) one line each, not a traceback; a fault of
    # ours keeps its traceback (a bug to report)
    server = logging.getLogger("aiohttp")
    theirs = logging.StreamHandler(sys.stderr)
    theirs.setFormatter(OneLine(f"{PROG}: %(message)s"))
    was = server.propagate
    server.addHandler(theirs)
    server.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
        server.removeHandler(theirs)
        server.propagate = was


async def until_stopped() -> None:
    """Wait until SIGINT or SIGTERM (a server command's Ctrl-C), its handlers removed after.
    Where the loop cannot take them (Windows), Ctrl-C arrives as ``KeyboardInterrupt``."""
    import asyncio
    import signal

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    try:
        await stop.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
