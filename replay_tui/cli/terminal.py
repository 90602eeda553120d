"""Terminals: the TUI's precondition (one on both ends), and whether output goes to one."""

from __future__ import annotations

import sys

from .errors import UsageError

__all__ = ["is_tty", "require_terminal"]


def require_terminal() -> None:
    """Raise :class:`UsageError` unless stdin and stdout are both a terminal.

    Without one, the TUI would wait for keys that never come (under CI, a pipe, ``nohup``).
    """
    ends = [name for name, f in (("stdin", sys.stdin), ("stdout", sys.stdout)) if not is_tty(f)]
    if ends:
        raise UsageError(
            f"the TUI needs a terminal ({' and '.join(ends)} {'is' if len(ends) == 1 else 'are'}"
            " not one); 'replay-tui check PATH' prints a report instead"
        )


def is_tty(stream: object) -> bool:
    """Whether ``stream`` is a terminal (``False`` for anything without ``isatty``)."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):
        return False
