"""The bars around the views: counts across the top, the open trace's summary above its tabs."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from ...core.trace import Trace
from ...core.visible import visible
from ..store import BADGE_ORDER
from .trace_list import BADGE_GLYPHS

__all__ = ["BadgeChip", "CountsBar", "TraceHeader", "trace_summary"]


class BadgeChip(Static):
    """A count per badge; clicking it filters the list by that badge."""

    class Clicked(Message):
        def __init__(self, badge: str | None) -> None:
            super().__init__()
            self.badge = badge

    def __init__(self, badge: str | None) -> None:
        slug = (badge or "all").replace(" ", "-")
        super().__init__(id=f"chip-{slug}", classes=f"chip chip-{slug}")
        self.badge = badge
        self.tooltip = f"Show only {badge} traces" if badge else "Show all traces"

    def set_count(self, count: int, total_pending: int = 0) -> None:
        if self.badge is None:
            text = f"{count:,} trace{'s' if count != 1 else ''}"
            if total_pending:
                text += f" · judging {total_pending:,}…"
        else:
            text = f"{BADGE_GLYPHS[self.badge]} {count:,} {self.badge}"
        self.update(Content(text))
        self.set_class(count == 0 and self.badge is not None, "-zero")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.badge))


class CountsBar(Horizontal):
    """The header: the program, what was opened, counts per badge, and whether it watches."""

    def __init__(self, where: str, watch: bool) -> None:
        super().__init__(id="counts-bar")
        self.where = where
        self.watching = watch

    def compose(self) -> ComposeResult:
        yield Static(
            Content.assemble(("replay-tui", "bold"), "  ", visible(self.where)), id="app-title"
        )
        yield BadgeChip(None)
        for badge in BADGE_ORDER:
            yield BadgeChip(badge.value)
        yield BadgeChip("skipped")
        yield Static(id="bar-spacer")
        watching = "● watching" if self.watching else "○ not watching"
        yield Static(
            Content(watching), id="watch-state", classes="-on" if self.watching else "-off"
        )

    def set_watch_state(self, text: str, *, on: bool) -> None:
        """Whether the folder is watched, and when the last change arrived."""
        state = self.query_one("#watch-state", Static)
        state.update(Content(text))
        state.set_class(on, "-on")
        state.set_class(not on, "-off")

    def set_counts(
        self, counts: dict[str, int], total: int, skipped: int, active: str | None
    ) -> None:
        for chip in self.query(BadgeChip):
            if chip.badge is None:
                chip.set_count(total, counts.get("pending", 0))
            elif chip.badge == "skipped":
                chip.set_count(skipped)
            else:
                chip.set_count(counts.get(chip.badge, 0))
            chip.set_class(chip.badge == active, "-active")


def trace_summary(trace: Trace, *, progress: str | None = None) -> Content:
    """One line: address, badge, the verdict under each behavior, flag and call counts."""
    badge = trace.badge.value if progress is None else "in progress"
    style = {
        "erasing": "bold $text-error",
        "refused": "bold $text-warning",
        "broken": "bold $text-secondary",
        "in progress": "bold $text-accent",
        "clean": "bold $text-success",
    }.get(badge, "bold")
    v = trace.verdicts
    a = trace.analysis
    parts: list[tuple[str, str] | str] = [
        (visible(trace.address), "bold"),
        "  ",
        (f" {BADGE_GLYPHS.get(badge, '')} {badge} ", style + " reverse"),
        ("   assign-always ", "$text-muted"),
        (
            v["assign-always"],
            "bold $text-success" if v["assign-always"] == "ok" else "bold $text-error",
        ),
        ("  accept-identity ", "$text-muted"),
        (
            v["accept-identity"],
            "bold $text-success" if v["accept-identity"] == "ok" else "bold $text-error",
        ),
        (
            f"   {_count(len(a.flags), 'flag')} · {_count(len(a.calls), 'call')}"
            f" · {_count(a.deltas, 'delta')}",
            "$text-muted",
        ),
    ]
    if progress:
        parts.append((f"   {progress}", "italic $text-accent"))
    return Content.assemble(*parts)


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' if n != 1 else ''}"


class TraceHeader(Static):
    """The open trace's one-line summary."""
