"""The footer: the keys that work where the focus is, each clickable.

Textual's ``Footer`` rebuilds a widget per key whenever the focus moves, which costs a visible
fraction of a second on this screen; this draws the same hints as one line of text.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.command import CommandPalette
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
        self._shown: tuple[tuple[tuple[str, str], ...], tuple[str, str] | None] = ((), None)
        """The hints (key, display and description), and the help's key and display."""

    PALETTE: tuple[tuple[str, str], ...] = (
        ("down", "↑↓\x00Choose"),
        ("enter", "⏎\x00Run"),
        ("escape", "esc\x00Close"),
    )
    """What the line says while the command palette is open over its screen (the screen's
    own keys do nothing then)."""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.app.screen_change_signal.subscribe(self, self._screen_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)
        self.app.screen_change_signal.unsubscribe(self)

    def _palette_open(self) -> bool:
        return self.app.screen is not self.screen and isinstance(self.app.screen, CommandPalette)

    def _screen_changed(self, _screen: Screen[object]) -> None:
        self._bindings_changed(self.screen)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if self._palette_open():
            if self._shown != (self.PALETTE, None):
                self._shown = (self.PALETTE, None)
                self._draw()
            return
        ranked: list[tuple[tuple[int, int], tuple[str, str]]] = []
        seen: set[str] = set()
        nodes: dict[int, int] = {}
        help_key: tuple[str, str] | None = None
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if not binding.show or not active.enabled or binding.action in seen:
                continue
            seen.add(binding.action)
            display = self.app.get_key_display(binding)
            if binding.action == "help":
                help_key = (key, display)
                continue
            node = nodes.setdefault(id(active.node), len(nodes))
            ranked.append(
                (
                    (node, _declared(active.node, binding)),
                    (key, display + "\x00" + binding.description),
                )
            )
        # In the order the bindings are declared: a key remapped in keymap.toml comes where
        # its binding is, not last (where the line had no room left for it).
        hints = [hint for _, hint in sorted(ranked, key=lambda r: r[0])]
        shown = (tuple(hints), help_key)
        if shown == self._shown:
            return
        self._shown = shown
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        # Whole hints only: the ones that do not fit are left out, and the line always ends
        # with where they all are: "? all keys" (the help lists every key), then "^p
        # Commands" when there is room for it (the palette runs every action).
        hints, help_key = self._shown
        ends: list[tuple[str, str, str]] = []
        if help_key is not None:
            ends.append((help_key[0], help_key[1], "all keys"))
        if hints != self.PALETTE:
            ends.append(("ctrl+p", "^p", "Commands"))
        width = self.content_region.width or 10_000
        end_width = sum(len(d) + 1 + len(t) + 2 for _, d, t in ends) - 2
        while len(ends) > 1 and end_width > width:
            dropped = ends.pop()
            end_width -= len(dropped[1]) + 1 + len(dropped[2]) + 2
        room = width - end_width
        parts: list[tuple[str, str] | str] = []
        spans: list[tuple[int, int, str]] = []
        x = 0
        for key, text in hints:
            display, description = text.split("\x00", 1)
            cells = len(display) + 1 + len(description)
            if x + cells + 2 > room:
                continue
            parts += [(display, "bold $text-accent"), " ", description, "  "]
            spans.append((x, x + cells, key))
            x += cells + 2
        for k, (key, display, description) in enumerate(ends):
            cells = len(display) + 1 + len(description)
            parts += [(display, "bold $text-accent"), " ", description]
            if k < len(ends) - 1:
                parts.append("  ")
            spans.append((x, x + cells, key))
            x += cells + 2
        self._spans = spans
        # One docked row as wide as the screen: new hints (each change of focus: `/`, enter)
        # are drawn in its place, without a layout of the screen.
        self.update(Content.assemble(*parts), layout=False)

    def on_click(self, event: events.Click) -> None:
        x = event.x - 1  # padding
        for start, end, key in self._spans:
            if start <= x < end:
                self.app.simulate_key(key)
                return


def _declared(node: object, binding: Binding) -> int:
    """Where ``binding`` comes among its node's bindings as Textual orders them unmapped: by
    key, a base class's first, a key a subclass binds again keeping its place. A remapped
    binding is placed by the key it is declared with."""
    classes = type(node).__mro__
    order: dict[str, int] = {}
    for cls in reversed(classes):
        for declared in cls.__dict__.get("BINDINGS", ()):
            if isinstance(declared, Binding):
                for key in declared.key.split(","):
                    order.setdefault(key.strip(), len(order))
    wanted = binding.id or binding.action
    for cls in classes:
        for declared in cls.__dict__.get("BINDINGS", ()):
            if isinstance(declared, Binding) and (declared.id or declared.action) == wanted:
                return order.get(declared.key.split(",")[0].strip(), len(order))
    return len(order)
