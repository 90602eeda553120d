"""What a toast says, laid out for the toast: a path longer than a toast's line wraps between
its parts (after a ``/``), never inside a name (Textual wraps a toast only at spaces, and cut a
long path wherever its line ended: ``…/2026-12-0`` / ``1T10…``)."""

from __future__ import annotations

import re

from .cells import cell_len
from .widgets.details import fold

__all__ = ["TOAST_WIDTH", "toast_text", "toast_width"]

TOAST_WIDTH = 60
"""Textual's toast: 60 cells, at most half the screen; its text has 4 cells less (padding,
border, and the cell the rack leaves)."""
_CHROME = 4
_WORD = re.compile(r"\S+")


def toast_width(screen_width: int) -> int:
    """Cells of text on a toast's line on a screen ``screen_width`` wide."""
    return max(10, min(TOAST_WIDTH, screen_width // 2) - _CHROME)


def toast_text(message: str, screen_width: int) -> str:
    """``message`` with each word longer than a toast's line (a path, a URL) broken into
    lines after its separators (``/``, else ``-`` ``_`` ``.``); the rest is left to the toast."""
    width = toast_width(screen_width)

    def broken(word: re.Match[str]) -> str:
        text = word.group()
        return "\n".join(fold(text, width)) if cell_len(text) > width else text

    return _WORD.sub(broken, message)
