"""The footer: the keys that work where the focus is, each clickable.

Textual's ``Footer`` rebuilds a widget per key whenever the focus moves, which costs a visible
fraction of a second on this screen; this draws the same hints as one line of text.
"""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

__all__ = ["KeyHints"]


class KeyHints(Static):
    """One line of ``key description`` hints for the focused widget and its ancestors."""

    DEFAULT_CSS = """
    KeyHints {
        dock: bottom;
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    def __init__(self) -> None:
        super().__init__(id="key-hints")
        self._spans: list[tuple[int, int, str]] = []
        self._shown: tuple[tuple[str, str], ...] = ()

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        hints: list[tuple[str, str]] = []
        seen: set[str] = set()
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if not binding.show or not active.enabled or binding.action in seen:
                continue
            seen.add(binding.action)
            hints.append((key, self.app.get_key_display(binding) + "\x00" + binding.description))
        shown = tuple(hints)
        if shown == self._shown:
            return
        self._shown = shown
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        # Whole hints only: the ones that do not fit are left out (``?`` lists every key),
        # and "^p Commands" always ends the line.
        room = (self.content_region.width or 10_000) - len("^p Commands")
        parts: list[tuple[str, str] | str] = []
        spans: list[tuple[int, int, str]] = []
        x = 0
        for key, text in self._shown:
            display, description = text.split("\x00", 1)
            width = len(display) + 1 + len(description)
            if x + width + 2 > room:
                continue
            parts += [(display, "bold $text-accent"), " ", description, "  "]
            spans.append((x, x + width, key))
            x += width + 2
        parts += [("^p", "bold $text-accent"), " Commands"]
        spans.append((x, x + 11, "ctrl+p"))
        self._spans = spans
        self.update(Content.assemble(*parts))

    def on_click(self, event: events.Click) -> None:
        x = event.x - 1  # padding
        for start, end, key in self._spans:
            if start <= x < end:
                self.app.simulate_key(key)
                return
