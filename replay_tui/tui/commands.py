"""Command-palette entries, generated from the key bindings, and every trace by name.

Each action is listed once, under a name that says what it does, with the key that runs it
now (the user's keymap applied), so the palette also teaches the keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Protocol

from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from ..core.visible import visible
from .screens.help import pretty_keys

__all__ = ["PALETTE_NAMES", "PaletteHost", "ReplayCommands"]

Command = tuple[str, str, Callable[[], object]]

PALETTE_NAMES: dict[str, str] = {
    "next-flag": "Next flag",
    "previous-flag": "Previous flag",
    "view-calls": "Show calls",
    "view-diff": "Show diff",
    "view-raw": "Show raw capture",
    "view-clients": "Show clients",
    "mark-trace": "Mark trace for comparison",
    "view-compare": "Compare with the marked trace",
    "copy": "Copy selection",
    "inspect": "Inspect selection",
    "filter": "Filter traces",
    "verdict-filter": "Next verdict filter",
    "toggle-details": "Toggle details",
    "toggle-list": "Toggle trace list",
    "toggle-all-runs": "Expand or collapse identical chunks",
    "compare-behavior": "Compare under the other behavior",
    "compare-next-difference": "Next difference (compare)",
    "compare-previous-difference": "Previous difference (compare)",
    "compare-next-section": "Next level: outcome, calls, events (compare)",
    "export": "Export report",
    "help": "Keys",
    "quit": "Quit",
}
"""Binding id → palette name: the actions worth running from the palette, in this order.
Keys that only move (cursor, scroll, panes) are left to the keyboard."""


class PaletteHost(Protocol):
    """What the palette needs of the app (so this module does not import it)."""

    keymap_overrides: dict[str, str]

    def binding_sections(self) -> list[tuple[str, list[BindingType]]]: ...

    def run_binding(self, binding: Binding, section: str) -> None: ...

    def filter_badge(self, badge: str | None) -> None: ...

    def action_change_theme(self) -> None: ...

    def trace_addresses(self) -> Iterable[str]: ...

    def badge_text(self, address: str) -> str: ...

    def choose_trace(self, address: str) -> None: ...


class ReplayCommands(Provider):
    """The app's actions and its traces, for ``ctrl+p``."""

    @property
    def _app(self) -> PaletteHost:
        return self.app  # type: ignore[return-value]

    def _bindings(self) -> dict[str, tuple[Binding, str]]:
        """Binding id → (binding, the section it belongs to), for the ids the palette lists."""
        found: dict[str, tuple[Binding, str]] = {}
        for title, bindings in self._app.binding_sections():
            for b in bindings:
                if isinstance(b, Binding) and b.id in PALETTE_NAMES and b.id not in found:
                    found[b.id] = (b, title)
        return found

    def _actions(self) -> list[Command]:
        app = self._app
        bindings = self._bindings()
        out: list[Command] = []
        for binding_id, name in PALETTE_NAMES.items():
            if binding_id not in bindings:
                continue
            binding, section = bindings[binding_id]
            keys = app.keymap_overrides.get(binding_id, binding.key)
            help_text = binding.tooltip or binding.description
            run = partial(app.run_binding, binding, section)
            out.append((name, f"{help_text} ({pretty_keys(keys)})", run))
        out.append(("Show all traces", "Clear the verdict filter", lambda: app.filter_badge(None)))
        for badge in ("erasing", "refused", "broken", "in progress", "clean"):
            out.append(
                (
                    f"Show only {badge} traces",
                    f"Filter the list by the {badge} badge",
                    partial(app.filter_badge, badge),
                )
            )
        out.append(("Change theme", "Pick the colours", app.action_change_theme))
        return out

    def _traces(self) -> list[Command]:
        app = self._app
        return [
            (
                f"Open {visible(address)}",
                escape(visible(app.badge_text(address))),
                partial(app.choose_trace, address),
            )
            for address in app.trace_addresses()
        ]

    async def discover(self) -> Hits:
        for name, help_text, command in self._actions():
            yield DiscoveryHit(Content(name), command, text=name, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, command in [*self._actions(), *self._traces()]:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, Content(name), command, text=name, help=help_text)
