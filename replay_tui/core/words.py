"""How a count is worded, and a long text cut, in every output (command line, TUI, reports)."""

from __future__ import annotations

__all__ = ["cut_text", "plural"]


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 trace``, ``1,204 traces``, ``2 entries`` (``many`` for irregular plurals)."""
    word = noun if count == 1 else many or noun + "s"
    return f"{count:,} {word}"


def cut_text(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and how many more there are."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"
