"""How a count is worded, in every output (command line, TUI, reports)."""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 trace``, ``1,204 traces``, ``2 entries`` (``many`` for irregular plurals)."""
    word = noun if count == 1 else many or noun + "s"
    return f"{count:,} {word}"
