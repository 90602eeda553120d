"""The app's key bindings, where each key works, and the user's keymap checked against them.

Every binding has an id (``keymap.toml`` remaps by id); the help, the footer, the command
palette and the keymap check read them from :func:`binding_sections`.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

from .config import node_bindings, resolve_keymap
from .screens.payload import PayloadScreen
from .widgets.calls_view import CallsView
from .widgets.details import Details
from .widgets.line_view import LineView
from .widgets.trace_list import TraceTree

__all__ = ["APP_BINDINGS", "binding_sections", "check_keymap"]

APP_BINDINGS: list[BindingType] = [
    Binding("q", "quit", "Quit", id="quit", tooltip="Leave replay-tui"),
    Binding(
        "question_mark",
        "help",
        "Keys",
        id="help",
        tooltip="This list of keys, and what the marks mean",
    ),
    Binding(
        "n",
        "next_flag",
        "Next flag",
        id="next-flag",
        tooltip="Select the next delta that erased an identity, across the calls",
    ),
    Binding(
        "N",
        "previous_flag",
        "Prev flag",
        id="previous-flag",
        tooltip="Select the previous erasing delta",
    ),
    Binding(
        "slash",
        "filter",
        "Filter",
        priority=True,  # (see check_action)
        id="filter",
        tooltip="Filter the list: name, verdict, model, URL, method; enter or escape keeps it",
    ),
    Binding(
        "v",
        "cycle_badge",
        "Verdict",
        id="verdict-filter",
        tooltip="Show only erasing / refused / broken / in progress / clean traces, then "
        "the files that are not traces, in turn (badges none has are passed over)",
    ),
    Binding(
        "c",
        "copy",
        "Copy",
        id="copy",
        tooltip="Copy the selected delta's payload, chunk pair, line, or the file's path",
    ),
    Binding("1", "show_tab('calls')", "Calls", show=False, id="view-calls", tooltip="Calls view"),
    Binding("2", "show_tab('diff')", "Diff", show=False, id="view-diff", tooltip="Diff view"),
    Binding("3", "show_tab('raw')", "Raw", show=False, id="view-raw", tooltip="Raw view"),
    Binding(
        "4",
        "show_tab('clients')",
        "Clients",
        show=False,
        id="view-clients",
        tooltip="Clients view: what each client library makes of the tool calls",
    ),
    Binding(
        "5",
        "show_tab('compare')",
        "Compare",
        show=False,
        id="view-compare",
        tooltip="Compare view: the marked trace (A) against the open one (B)",
    ),
    Binding(
        "e",
        "export",
        "Export",
        show=False,
        id="export",
        tooltip="Write the open trace's HTML report (into $REPLAY_TUI_EXPORT_DIR, else .)",
    ),
    Binding(
        "m",
        "mark",
        "Mark",
        id="mark-trace",
        tooltip="Mark the open trace as A, to compare another trace with it",
    ),
    Binding(
        "d",
        "toggle_details",
        "Details",
        priority=True,  # (as tab: see check_action)
        id="toggle-details",
        tooltip="Show or hide details",
    ),
    Binding(
        "l",
        "toggle_list",
        "List",
        show=False,
        priority=True,
        id="toggle-list",
        tooltip="Show or hide the list",
    ),
    Binding(
        "escape",
        "escape",
        "Back",
        show=False,
        id="escape",
        tooltip="Leave the filter box (the filter stays); again, clear the filter",
    ),
    Binding(
        "tab",
        "next_pane",
        "Next pane",
        show=False,
        priority=True,
        id="focus-next-pane",
        tooltip="List, view, details, in turn (the panes on screen)",
    ),
    Binding(
        "shift+tab",
        "previous_pane",
        "Previous pane",
        show=False,
        priority=True,
        id="focus-previous-pane",
        tooltip="The other way round",
    ),
    Binding(
        "ctrl+p",
        "command_palette",
        "Commands",
        show=False,
        priority=True,
        id="command-palette",
        tooltip="Every action, and every trace by name",
    ),
]
"""The app's own keys: they work everywhere (the focused widget's come first)."""


def binding_sections() -> list[tuple[str, list[BindingType]]]:
    """Every key binding by where it works: the help lists them, the palette and the keymap
    check read them."""
    from .screens.help import HelpScreen
    from .widgets.clients_view import ClientsMatrix
    from .widgets.compare_view import CompareView
    from .widgets.diff_view import DiffView

    return [
        ("Everywhere", list(APP_BINDINGS)),
        ("Trace list", list(TraceTree.BINDINGS)),
        ("Calls, diff, raw and compare views", list(LineView.BINDINGS)),
        ("Diff view", list(DiffView.BINDINGS)),
        ("Clients view", list(ClientsMatrix.BINDINGS)),
        ("Compare view", list(CompareView.BINDINGS)),
        ("Details", list(Details.BINDINGS)),
        ("Help", list(HelpScreen.BINDINGS)),
        ("Inspect window", list(PayloadScreen.BINDINGS)),
    ]


def check_keymap(keymap: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The keymap as applied and its problems, against the keys that work together in each
    pane: the focused widget's, the screen's and the app's, inherited ones included
    (:func:`~.config.resolve_keymap`)."""
    if not keymap:
        return {}, []  # (only what a keymap binds can clash: no need to read every view's keys)
    from textual.app import App
    from textual.screen import Screen

    from .screens.help import HelpScreen
    from .widgets.clients_view import ClientsMatrix
    from .widgets.compare_view import CompareView
    from .widgets.diff_view import DiffView
    from .widgets.raw_view import RawView

    app_keys = node_bindings(App, APP_BINDINGS) + node_bindings(Screen)
    return resolve_keymap(
        keymap,
        [
            ("the trace list", app_keys + node_bindings(TraceTree)),
            ("the calls view", app_keys + node_bindings(CallsView)),
            ("the raw view", app_keys + node_bindings(RawView)),
            ("the diff view", app_keys + node_bindings(DiffView)),
            ("the clients view", app_keys + node_bindings(ClientsMatrix)),
            ("the compare view", app_keys + node_bindings(CompareView)),
            ("the details", app_keys + node_bindings(Details)),
            ("the help", node_bindings(HelpScreen)),  # a modal screen sees no app keys
            ("the inspect window", node_bindings(PayloadScreen)),
        ],
    )
