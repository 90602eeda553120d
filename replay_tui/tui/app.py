"""The replay-tui app: a trace list beside the open trace's calls, diff and raw views.

The app owns the workers that read files (discovery, judging the list, loading the open trace
and the marked one) and routes each trace to the views; each view builds its own model in a
worker of its own. ``make_app`` is the factory the CLI and the tests share.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Input, ProgressBar, TabbedContent, TabPane
from textual.worker import get_current_worker

from ..core.check import load_all
from ..core.discovery import Skipped, discover
from ..core.identity import Flag
from ..core.trace import Trace, load_trace
from ..core.visible import visible
from .commands import ReplayCommands
from .config import load_keymap
from .live_reload import LiveReload
from .loading import load_in_steps
from .messages import (
    DiscoveryDone,
    LoadProgress,
    MarkedLoaded,
    TraceAdded,
    TraceOpened,
    TraceRemoved,
    TracesJudged,
    TraceUpdated,
)
from .screens.help import HelpScreen
from .store import TraceStore
from .widgets.bars import BadgeChip, CountsBar, TraceHeader, trace_summary
from .widgets.calls_view import CallsView
from .widgets.clients_view import ClientsMatrix, ClientsPane
from .widgets.compare_pane import ComparePane
from .widgets.compare_view import CompareView
from .widgets.details import Details
from .widgets.diff_view import DiffView
from .widgets.key_hints import KeyHints
from .widgets.line_view import LineView
from .widgets.model_view import ModelShown
from .widgets.raw_view import RawView
from .widgets.trace_list import TraceList, TraceTree

if TYPE_CHECKING:
    import logging

    from ..record import Recorder

__all__ = ["ReplayApp", "make_app", "run_app"]

VIEWS = ("calls", "diff", "raw", "clients", "compare")
BADGE_CYCLE: tuple[str | None, ...] = (None, "erasing", "refused", "broken", "in progress", "clean")


class ReplayApp(App[int]):
    """Browse traces, see where tool-call identity was erased."""

    CSS_PATH = "app.tcss"
    TITLE = "replay-tui"
    COMMANDS: ClassVar = App.COMMANDS | {ReplayCommands}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="quit", tooltip="Leave replay-tui"),
        Binding("question_mark", "help", "Keys", id="help", tooltip="This list of keys"),
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
            "slash", "filter", "Filter", id="filter", tooltip="Filter the list: name, verdict, URL"
        ),
        Binding(
            "v",
            "cycle_badge",
            "Verdict filter",
            id="verdict-filter",
            tooltip="Show only erasing / refused / broken / in progress / clean traces, in turn",
        ),
        Binding(
            "c",
            "copy",
            "Copy",
            id="copy",
            tooltip="Copy the selected delta's payload, chunk pair, line or trace address",
        ),
        Binding(
            "1", "show_tab('calls')", "Calls", show=False, id="view-calls", tooltip="Calls view"
        ),
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
            "m",
            "mark",
            "Mark",
            id="mark-trace",
            tooltip="Mark the open trace as A, to compare another trace with it",
        ),
        Binding(
            "d", "toggle_details", "Details", id="toggle-details", tooltip="Show or hide details"
        ),
        Binding(
            "l",
            "toggle_list",
            "List",
            show=False,
            id="toggle-list",
            tooltip="Show or hide the list",
        ),
        Binding(
            "escape", "escape", "Back", show=False, id="escape", tooltip="Leave the filter box"
        ),
        Binding(
            "tab",
            "focus_next",
            "Next pane",
            show=False,
            priority=True,
            id="focus-next-pane",
            tooltip="Filter, list, tabs, view, details, in turn",
        ),
        Binding(
            "shift+tab",
            "focus_previous",
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

    def __init__(
        self,
        paths: Sequence[str],
        *,
        watch: bool = False,
        keymap: dict[str, str] | None = None,
        first_slice: int | None = None,
        recorder: Recorder | None = None,
    ) -> None:
        super().__init__()
        self.recorder = recorder
        """``record --tui``: the recording proxy, run in this app's event loop."""
        self.fatal: str | None = None
        """Why the app exited at once (the recorder could not start), for the CLI to say."""
        self._record_log: tuple[logging.Logger, logging.Handler, bool] | None = None
        self.paths = [str(p) for p in paths] or ["."]
        self.watching = watch
        self.live = LiveReload(self, self.paths) if watch else None
        self.store = TraceStore()
        self.current: Trace | None = None
        self.partial = False
        self.marked: str | None = None
        """The trace marked as A for the compare view (``m``)."""
        self.user_navigated = False
        self.judging = False
        self.discovered = False
        """The paths were scanned and the list filled."""
        self.first_screen: float | None = None
        """Seconds from app start until the first trace's rows were on screen (benchmarks)."""
        self._started = time.perf_counter()
        self._first_slice = first_slice
        self._counts_shown: tuple[dict[str, int], int, int, str | None] | None = None
        self.keymap_overrides = dict(keymap or {})
        if keymap:
            self.set_keymap(keymap)

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The widgets are kept as attributes: handlers reach them without a query, also while
        # late worker messages arrive during shutdown.
        self.counts_bar = CountsBar(", ".join(self.paths), self.watching)
        self.trace_list = TraceList(self.store.summaries, id="trace-list")
        self.trace_header = TraceHeader(Content("Scanning…"), id="trace-header")
        # A total from the start: an indeterminate bar animates (15 fps) even while hidden.
        self.progress_bar = ProgressBar(total=1, id="load-progress", show_eta=False)
        self.tabs = TabbedContent(id="views", initial="calls")
        self.calls_view = CallsView(id="calls-view")
        self.diff_view = DiffView(id="diff-view")
        self.raw_view = RawView(id="raw-view")
        self.clients_pane = ClientsPane(id="clients-pane")
        self.compare_pane = ComparePane(id="compare-pane")
        self.details = Details(id="details")
        yield self.counts_bar
        with Horizontal(id="main"):
            yield self.trace_list
            with Vertical(id="trace-pane"):
                yield self.trace_header
                yield self.progress_bar
                with self.tabs:
                    with TabPane("Calls", id="calls"):
                        yield self.calls_view
                    with TabPane("Diff", id="diff"):
                        yield self.diff_view
                    with TabPane("Raw", id="raw"):
                        yield self.raw_view
                    with TabPane("Clients", id="clients"):
                        yield self.clients_pane
                    with TabPane("Compare", id="compare"):
                        yield self.compare_pane
                yield self.details
        yield KeyHints()

    async def on_load(self) -> None:
        # Before the terminal is taken over: a busy port exits with one line, no broken screen.
        if self.recorder is None:
            return
        import logging

        from ..record import RecorderError
        from .recording import RECORD_LOGGER, ToastHandler

        try:
            await self.recorder.start()
        except RecorderError as exc:
            self.fatal = str(exc)
            self.exit(2)
            return
        logger = logging.getLogger(RECORD_LOGGER)
        handler = ToastHandler(self)
        self._record_log = (logger, handler, logger.propagate)
        logger.addHandler(handler)
        logger.propagate = False  # its lines would tear the screen

    async def on_unmount(self) -> None:
        # Stopping the recorder finalizes the captures still being written.
        if self.recorder is not None:
            await self.recorder.stop()
        if self._record_log is not None:
            logger, handler, propagate = self._record_log
            logger.removeHandler(handler)
            logger.propagate = propagate
            self._record_log = None

    def on_mount(self) -> None:
        if self.recorder is not None and self.fatal is None:
            from .recording import RecorderStatus

            self.mount(RecorderStatus(self.recorder), after="#main")
        self.progress_bar.display = False
        self.details.show_message("Scanning " + visible(", ".join(self.paths)) + " …")
        self._discover(self.paths)

    # -- discovery and judging ---------------------------------------------------------------

    @work(thread=True, exclusive=True, group="discover", description="discover")
    def _discover(self, paths: list[str]) -> None:
        found = self.live.folder.scan() if self.live is not None else discover(paths)
        self.post_message(DiscoveryDone(found))

    @on(DiscoveryDone)
    def _discovered(self, message: DiscoveryDone) -> None:
        found = message.discovery
        self.discovered = True
        self.store.set_sources(found.sources, found.skipped)
        self.trace_list.set_entries(found.sources, found.skipped)
        self._update_counts()
        if self.live is not None:
            self.live.start()
        if not found.sources:
            self.trace_header.update(Content("No traces found"))
            lines = [f"No trace found under {', '.join(self.paths)}."]
            lines += [f"  {s.path}: {s.reason}" for s in found.skipped[:50]]
            self.details.show_message(visible("\n".join(lines), keep_layout=True))
            return
        single = len(self.paths) == 1 and Path(self.paths[0]).is_file() and len(found.sources) == 1
        if single:
            self.trace_list.display = False
            self.user_navigated = True
            self.open_trace(found.sources[0].address)
            self.calls_view.focus()
            return
        self.trace_list.trace_tree.focus()
        self.judging = True
        self._judge([s.address for s in found.sources])

    @work(thread=True, exclusive=True, group="judge", description="judge")
    def _judge(self, addresses: list[str]) -> None:
        worker = get_current_worker()
        batch: list[Trace] = []
        failed: list[Skipped] = []
        last = time.monotonic()
        from ..core.discovery import Discovery

        sources = [self.store.sources[a] for a in addresses if a in self.store.sources]
        load = self.live.folder.load if self.live is not None else load_trace
        for item in load_all(Discovery(sources=sources), load=load):
            if worker.is_cancelled:
                return
            if isinstance(item, Skipped):
                failed.append(item)
            else:
                batch.append(item)
            if time.monotonic() - last > 0.05:
                self.post_message(TracesJudged(batch, failed))
                batch, failed = [], []
                last = time.monotonic()
        self.post_message(TracesJudged(batch, failed, finished=True))

    @on(TracesJudged)
    def _judged(self, message: TracesJudged) -> None:
        for trace in message.traces:
            self.store.put(trace)
        if message.failed:
            self.store.skipped.extend(message.failed)
        self.trace_list.refresh_traces([t.address for t in message.traces])
        if message.finished:
            self.judging = False
        self._update_counts()
        if self.current is None and not self.user_navigated:
            flagged = next((t for t in message.traces if t.analysis.flags), None)
            if flagged is not None:
                self._auto_open(flagged.address)
            elif message.finished:
                self._auto_open(self._fallback_address())
        elif self.current is not None and not self.partial:
            fresh = self.store.get(self.current.address)
            if (
                fresh is not None
                and fresh is not self.current
                and any(t is fresh for t in message.traces)
            ):
                self.show_trace(fresh)

    def _fallback_address(self) -> str | None:
        addresses = self.trace_list.addresses
        for address in addresses:
            summary = self.store.summaries.get(address)
            if summary is not None and summary.badge.value != "clean":
                return address
        return addresses[0] if addresses else None

    def _auto_open(self, address: str | None) -> None:
        if address is None:
            return
        self.trace_list.select(address)
        self.open_trace(address)

    def _update_counts(self) -> None:
        state = (
            self.store.counts(),
            len(self.store.sources),
            len(self.store.skipped),
            self.trace_list.badge_filter,
        )
        if state != self._counts_shown:  # restyling the chips is not free: only on change
            self._counts_shown = state
            self.counts_bar.set_counts(*state)

    def badge_text(self, address: str) -> str:
        summary = self.store.summaries.get(address)
        if summary is None:
            return "not judged yet"
        verdicts = ", ".join(f"{b}: {v}" for b, v in summary.verdicts)
        return f"{summary.badge.value} · {verdicts}"

    # -- opening a trace ---------------------------------------------------------------------

    def open_trace(self, address: str) -> None:
        """Show ``address``: from the cache at once, else load it in a worker."""
        if self.current is not None and self.current.address == address and not self.partial:
            return
        cached = self.store.get(address)
        if cached is not None:
            self.workers.cancel_group(self, "open")
            self._set_progress(None)
            self.show_trace(cached)
            return
        source = self.store.sources.get(address)
        if source is None:
            return
        self.details.show_message(f"Loading {visible(address)} …")
        self.trace_header.update(Content.assemble((visible(address), "bold"), "  loading…"))
        self._load(address)

    def choose_trace(self, address: str) -> None:
        """Open ``address`` and go to its calls (enter, click, the command palette)."""
        self.user_navigated = True
        self.trace_list.select(address)
        self.open_trace(address)
        self.calls_view.focus()

    @work(thread=True, exclusive=True, group="open", description="open")
    def _load(self, address: str) -> None:
        worker = get_current_worker()
        source = self.store.sources[address]
        kwargs: dict[str, int] = {} if self._first_slice is None else {"first": self._first_slice}

        def partial(trace: Trace) -> None:
            shown = threading.Event()
            self.post_message(TraceOpened(trace, partial=True, shown=shown))
            shown.wait(timeout=2.0)

        def progress(done: int, total: int) -> None:
            self.post_message(LoadProgress(address, done, total))

        try:
            trace = load_in_steps(
                source,
                on_partial=partial,
                on_progress=progress,
                cancelled=lambda: worker.is_cancelled,
                **kwargs,
            )
        except OSError as exc:
            self.call_from_thread(self._load_failed, address, exc.strerror or str(exc))
            return
        if trace is not None and not worker.is_cancelled:
            self.post_message(TraceOpened(trace))

    def _load_failed(self, address: str, reason: str) -> None:
        self._set_progress(None)
        self.details.show_message(visible(f"{address}: cannot read: {reason}"))

    @on(LoadProgress)
    def _progress(self, message: LoadProgress) -> None:
        if self.current is None or self.current.address != message.address or not self.partial:
            return
        self._set_progress((message.done, message.total))

    def _set_progress(self, progress: tuple[int, int] | None) -> None:
        bar = self.progress_bar
        bar.display = progress is not None and progress[0] < progress[1]
        if progress is not None:
            bar.update(total=progress[1], progress=progress[0])
            if self.current is not None:
                pct = 100 * progress[0] // max(progress[1], 1)
                self.trace_header.update(
                    trace_summary(
                        self.current, progress=f"decoding… {pct}% of {progress[1]:,} bytes"
                    )
                )

    @on(TraceOpened)
    def _opened(self, message: TraceOpened) -> None:
        if message.shown is not None:
            self.call_after_refresh(message.shown.set)
        trace = message.trace
        if not message.partial:
            self.store.put(trace)
            self.trace_list.refresh_traces([trace.address])
            self._update_counts()
            self._set_progress(None)
        wanted = self.trace_list.selected
        if wanted is not None and wanted != trace.address and self.trace_list.display:
            return
        self.show_trace(trace, partial=message.partial)

    def show_trace(self, trace: Trace, *, partial: bool = False) -> None:
        """Show ``trace`` in every view; the same trace again keeps each view's position."""
        keep = self.current is not None and self.current.address == trace.address
        self.current = trace
        self.partial = partial
        progress = "decoding…" if partial else None
        self.trace_header.update(trace_summary(trace, progress=progress))
        loading = "Decoding the rest of the capture: verdicts are provisional." if partial else None
        self.details.show(trace, loading=loading)
        self.calls_view.show_trace(trace)
        self._refresh_active_view(keep)

    @on(ModelShown)
    def _model_shown(self, message: ModelShown) -> None:
        if message.view is self.calls_view and self.first_screen is None:
            model = self.calls_view.model
            if model is not None and model.total:
                self.call_after_refresh(self._first_screen_painted)

    def _first_screen_painted(self) -> None:
        if self.first_screen is None:
            self.first_screen = time.perf_counter() - self._started

    def _refresh_active_view(self, keep: bool) -> None:
        """Route the open trace to the active view (the others get it when they are shown)."""
        trace = self.current
        if trace is None:
            return
        active = self.tabs.active
        if active == "diff":
            self.diff_view.show_trace(trace)
        elif active == "raw":
            self.raw_view.show_trace(trace)
        elif active == "clients":
            self.clients_pane.show(trace, partial=self.partial, keep_position=keep)
        elif active == "compare":
            self._route_compare(trace, keep)

    def _route_compare(self, trace: Trace, keep: bool) -> None:
        """The compare pane gets both traces loaded: A is read here when the cache let it go."""
        marked = self.marked
        a = self.store.get(marked) if marked else None
        gone = marked is not None and marked not in self.store.sources
        if marked is not None and a is None and not gone:
            self._load_marked(marked)
        self.compare_pane.show(
            marked, a, trace, gone=gone, partial=self.partial, keep_position=keep
        )

    @work(thread=True, exclusive=True, group="marked", description="read the marked trace")
    def _load_marked(self, address: str) -> None:
        source = self.store.sources.get(address)
        if source is None:
            return
        load = self.live.folder.load if self.live is not None else load_trace
        try:
            trace = load(source)
        except OSError as exc:
            self.post_message(MarkedLoaded(address, None, exc.strerror or str(exc)))
            return
        self.post_message(MarkedLoaded(address, trace))

    @on(MarkedLoaded)
    def _marked_loaded(self, message: MarkedLoaded) -> None:
        if message.address != self.marked:
            return
        if message.trace is None:
            self.compare_pane.show_message(
                visible(f"{message.address}: cannot read: {message.error}")
            )
            return
        self.store.put(message.trace)
        if self.tabs.active == "compare":
            self._refresh_active_view(keep=False)

    # -- live changes (posted by the watcher) ------------------------------------------------

    @on(TraceUpdated)
    def _trace_updated(self, message: TraceUpdated) -> None:
        trace = message.trace
        self.store.put(trace)
        self.trace_list.refresh_traces([trace.address])
        self._update_counts()
        if self.current is not None and self.current.address == trace.address:
            self.show_trace(trace)
        elif trace.address == self.marked:  # A changed: the compare view follows it
            self._refresh_active_view(keep=True)

    @on(TraceAdded)
    def _trace_added(self, message: TraceAdded) -> None:
        trace = message.trace
        self.store.put(trace)
        self.trace_list.add_trace(trace.source)
        self._update_counts()
        if self.current is None:
            self._auto_open(trace.address)

    @on(TraceRemoved)
    def _trace_removed(self, message: TraceRemoved) -> None:
        self.store.remove(message.address)
        self.trace_list.remove_trace(message.address)
        self._update_counts()
        if self.current is not None and self.current.address == message.address:
            self.details.show_message(visible(f"{message.address} was deleted."))
            self.trace_header.update(
                Content.assemble((visible(message.address), "bold"), ("  deleted", "$text-error"))
            )

    # -- widget messages ---------------------------------------------------------------------

    @on(TraceList.TraceHighlighted)
    def _list_highlighted(self, message: TraceList.TraceHighlighted) -> None:
        self.user_navigated = True
        self.open_trace(message.address)

    @on(TraceList.TraceChosen)
    def _list_chosen(self, message: TraceList.TraceChosen) -> None:
        self.choose_trace(message.address)

    @on(TraceList.SkippedHighlighted)
    def _list_skipped(self, message: TraceList.SkippedHighlighted) -> None:
        self.details.show_skipped(message.skipped)

    @on(TraceList.FilterChanged)
    def _filter_changed(self, message: TraceList.FilterChanged) -> None:
        self._update_counts()

    @on(BadgeChip.Clicked)
    def _chip_clicked(self, message: BadgeChip.Clicked) -> None:
        badge = message.badge
        if badge == "skipped":
            badge = None
        self.filter_badge(None if badge == self.trace_list.badge_filter else badge)

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, message: TabbedContent.TabActivated) -> None:
        self._refresh_active_view(keep=False)

    @on(LineView.CursorMoved, "#calls-view")
    def _delta_selected(self, message: LineView.CursorMoved) -> None:
        found = self.calls_view.selected_delta()
        trace = self.calls_view.trace
        if found is None or trace is None:
            return
        _, row = found
        payload = trace.payloads[row.position]
        # The raw and diff views keep the lines, and go to them when they show this trace.
        self.raw_view.selected = (payload.line, payload.end_line)
        self.diff_view.selected_line = payload.line
        if self.raw_view.model is not None and self.raw_view.model.trace is trace:
            self.raw_view.select_lines(payload.line, payload.end_line)
        if self.diff_view.model is not None and self.diff_view.model.trace is trace:
            self.diff_view.goto_line(payload.line)

    # -- actions -----------------------------------------------------------------------------

    def filter_badge(self, badge: str | None) -> None:
        self.trace_list.set_filter(badge=badge)
        self._update_counts()
        self.notify(f"Showing {badge or 'all'} traces", timeout=2, markup=False)

    def action_cycle_badge(self) -> None:
        current = self.trace_list.badge_filter
        k = BADGE_CYCLE.index(current) if current in BADGE_CYCLE else 0
        self.filter_badge(BADGE_CYCLE[(k + 1) % len(BADGE_CYCLE)])

    def action_filter(self) -> None:
        if not self.trace_list.display:
            self.trace_list.display = True
        self.query_one("#trace-filter").focus()

    def action_escape(self) -> None:
        focused = self.focused
        if focused is not None and focused.id == "trace-filter":
            self.trace_list.query_one("#trace-filter", Input).value = ""
            self.trace_list.trace_tree.focus()

    def action_show_tab(self, name: str) -> None:
        if name not in VIEWS:
            return
        self.tabs.active = name
        self.query_one(f"#{name}-view").focus()

    def action_toggle_details(self) -> None:
        self.details.display = not self.details.display

    def action_toggle_list(self) -> None:
        self.trace_list.display = not self.trace_list.display

    def action_mark(self) -> None:
        """Mark the open trace (or the one under the list cursor) as A; again to unmark."""
        in_list = self.focused is self.trace_list.trace_tree
        address = self.trace_list.selected if in_list else None
        if address is None and self.current is not None:
            address = self.current.address
        if address is None:
            self.notify("Open a trace to mark it.", severity="warning", timeout=2, markup=False)
            return
        self.marked = None if address == self.marked else address
        self.trace_list.set_marked(self.marked)
        if self.marked is None:
            self.notify(f"Unmarked {visible(address)}", timeout=2, markup=False)
        else:
            self.notify(
                f"Marked {visible(address)} as A: open another trace, then 5 compares them",
                timeout=4,
                markup=False,
            )
        self._refresh_active_view(keep=False)

    def action_toggle_runs(self) -> None:
        self.action_show_tab("diff")
        self.diff_view.action_toggle_all_runs()

    def action_help(self) -> None:
        sections: list[tuple[str, list[BindingType]]] = [
            ("Everywhere", list(self.BINDINGS)),
            ("Trace list", list(TraceTree.BINDINGS)),
            ("Calls, diff and raw views", list(LineView.BINDINGS)),
            ("Diff view", list(DiffView.BINDINGS)),
            ("Clients view", list(ClientsMatrix.BINDINGS)),
            ("Compare view", list(CompareView.BINDINGS)),
            ("Help", list(HelpScreen.BINDINGS)),
        ]
        self.push_screen(HelpScreen(sections, self.keymap_overrides))

    def _flag_stops(self) -> list[tuple[int, int, Flag]]:
        """``(position, row, flag)`` per calls-view row holding a flag, in stream order."""
        model = self.calls_view.model
        if model is None:
            return []
        stops: dict[int, tuple[int, int, Flag]] = {}
        for f in model.trace.analysis.flags:
            row = model.flag_row(f)
            if row is not None and row not in stops:  # one stop per delta, even if it erased both
                stops[row] = (f.position, row, f)
        return sorted(stops.values(), key=lambda s: (s[0], s[1]))

    def _walk_flags(self, forward: bool) -> None:
        stops = self._flag_stops()
        if not stops:
            self.notify("No flags in this trace: nothing was erased.", timeout=3, markup=False)
            return
        view = self.calls_view
        rows = [row for _, row, _ in stops]
        if view.cursor in rows:
            at = (rows.index(view.cursor) + (1 if forward else -1)) % len(stops)
        else:
            found = view.selected_delta()
            key = (found[1].position, view.cursor) if found else (-1, view.cursor)
            later = [k for k, (p, r, _) in enumerate(stops) if (p, r) > key]
            earlier = [k for k, (p, r, _) in enumerate(stops) if (p, r) < key]
            if forward:
                at = later[0] if later else 0
            else:
                at = earlier[-1] if earlier else len(stops) - 1
        _, row, flag = stops[at]
        view.move_cursor(row, center=True)
        found = view.selected_delta()
        label = found[0].labels.get(found[1].delta, flag.label) if found else flag.label
        self.notify(
            f"Flag {at + 1} of {len(stops)}: {label} on line {flag.line}",
            timeout=2,
            markup=False,
        )

    def action_next_flag(self) -> None:
        self._walk_flags(True)

    def action_previous_flag(self) -> None:
        self._walk_flags(False)

    def action_copy(self) -> None:
        focused = self.focused
        got: tuple[str, str] | None = None
        if focused is not None and (
            focused is self.trace_list.trace_tree or focused.id == "trace-filter"
        ):
            if self.trace_list.selected:
                got = (self.trace_list.selected, "the trace address")
        elif focused is not None and focused.id in ("details-main", "details-meta"):
            got = self.details.copy_text()
        else:
            view = self.query_one(f"#{self.tabs.active}-view")
            if isinstance(view, CallsView | DiffView | RawView | ClientsMatrix | CompareView):
                got = view.copy_text()
        if got is None:
            self.notify("Nothing selected to copy.", severity="warning", timeout=2, markup=False)
            return
        text, what = got
        self.copy_to_clipboard(text)
        self.notify(
            f"Copied {what} ({len(text):,} characters)", title="Copied", timeout=3, markup=False
        )


def make_app(
    paths: Sequence[str],
    *,
    watch: bool = False,
    keymap: dict[str, str] | None = None,
    recorder: Recorder | None = None,
) -> ReplayApp:
    """The app over ``paths``, as the CLI runs it and the tests drive it.

    With ``recorder`` (``record --tui``), the app starts it before taking the terminal, shows
    its address and request count on a line at the bottom, and stops it on exit."""
    return ReplayApp(paths, watch=watch, keymap=keymap, recorder=recorder)


def run_app(paths: list[str], watch: bool, recorder: Recorder | None = None) -> int:
    """Run the TUI (called by the CLI); returns the exit status."""
    keymap, problem = load_keymap()
    app = make_app(paths, watch=watch, keymap=keymap, recorder=recorder)
    if problem:
        app.call_later(app.notify, visible(problem), severity="warning", markup=False)
    result = app.run()
    if app.fatal is not None:
        print(f"replay-tui: {visible(app.fatal)}", file=sys.stderr)
        return 2
    if recorder is not None:
        print(
            f"replay-tui: recorder stopped; {recorder.request_count:,} requests, "
            f"{recorder.capture_count:,} captures in {visible(str(recorder.out_dir))}/",
            file=sys.stderr,
        )
    return result if isinstance(result, int) else 0
