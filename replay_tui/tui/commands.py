"""Command-palette entries: the main actions, and every trace by name."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from ..core.visible import visible
from .widgets.line_view import LineView

if TYPE_CHECKING:
    from .app import ReplayApp

__all__ = ["ReplayCommands"]

Command = tuple[str, str, Callable[[], object]]


class ReplayCommands(Provider):
    """The app's actions and its traces, for ``ctrl+p``."""

    @property
    def _app(self) -> ReplayApp:
        return self.app  # type: ignore[return-value]

    def _actions(self) -> list[Command]:
        app = self._app
        out: list[Command] = [
            (
                "Next flag",
                "Select the next delta that erased an identity (n)",
                app.action_next_flag,
            ),
            ("Previous flag", "Select the previous erasing delta (N)", app.action_previous_flag),
            (
                "Show calls",
                "Each tool call's identity, delta by delta (1)",
                lambda: app.action_show_tab("calls"),
            ),
            (
                "Show diff",
                "assign-always and accept-identity chunks side by side (2)",
                lambda: app.action_show_tab("diff"),
            ),
            (
                "Show raw capture",
                "The file with line numbers (3)",
                lambda: app.action_show_tab("raw"),
            ),
            (
                "Show clients",
                "What each client library makes of the tool calls (4)",
                lambda: app.action_show_tab("clients"),
            ),
            (
                "Mark trace for comparison",
                "Mark the open trace as A; open another and compare them (m)",
                app.action_mark,
            ),
            (
                "Compare with the marked trace",
                "The marked trace (A) against the open one (B): outcome, calls, events (5)",
                lambda: app.action_show_tab("compare"),
            ),
            (
                "Compare under the other behavior",
                "Toggle accept-identity / assign-always in the compare view (b)",
                app.compare_pane.view.action_toggle_behavior,
            ),
            ("Copy selection", "Copy the selected delta, chunk pair or line (c)", app.action_copy),
            (
                "Inspect selection",
                "The selected delta's payload, chunk pair or line in full (enter)",
                self._inspect,
            ),
            ("Filter traces", "Filter the list by name, verdict or URL (/)", app.action_filter),
            (
                "Toggle details",
                "Show or hide the verdicts, notes and metadata (d)",
                app.action_toggle_details,
            ),
            ("Toggle trace list", "Show or hide the list of traces (l)", app.action_toggle_list),
            ("Expand or collapse identical chunks", "In the diff view (z)", app.action_toggle_runs),
            ("Keys", "Every key binding and its id (?)", app.action_help),
            ("Show all traces", "Clear the verdict filter", lambda: app.filter_badge(None)),
        ]
        for badge in ("erasing", "refused", "broken", "in progress", "clean"):
            out.append(
                (
                    f"Show only {badge} traces",
                    f"Filter the list by the {badge} badge",
                    partial(app.filter_badge, badge),
                )
            )
        return out

    def _inspect(self) -> None:
        view = self._app.query_one(f"#{self._app.tabs.active}-view")
        if isinstance(view, LineView):
            view.action_inspect()

    def _traces(self) -> list[Command]:
        app = self._app
        return [
            (
                f"Open {visible(address)}",
                escape(visible(app.badge_text(address))),
                partial(app.choose_trace, address),
            )
            for address in app.store.sources
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
