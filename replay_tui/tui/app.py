"""The replay-tui app: a trace list beside the open trace's calls, diff and raw views.

The app owns the workers that read files (discovery, judging the list, loading the open trace
and the marked one) and routes each trace to the views; each view builds its own model in a
worker of its own. ``make_app`` is the factory the CLI and the tests share.
"""

from __future__ import annotations

import gc
import io
import os
import shlex
import sys
import threading
import time
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.notifications import Notify, SeverityLevel
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, ProgressBar, Static, TabbedContent, TabPane, Tabs
from textual.worker import get_current_worker

from ..browse.judging import (
    FolderJudging,
    Walked,
    collector_paused,
    first_flagged,
    one_stream,
)
from ..core.discovery import (
    Candidate,
    Discovery,
    Skipped,
    address_key,
    classify_candidate,
    split_entry,
)
from ..core.result import Judgement, Listed, only_trace
from ..core.trace import Form, Source, Trace, TraceBuilder, load_trace
from ..core.visible import visible
from ..core.words import plural
from ..live.folder import FolderUpdate
from .bindings import APP_BINDINGS, binding_sections, check_keymap
from .clipboard import copy
from .config import keymap_path, load_keymap
from .listing import SKIPPED, Row, hays_of, pending_hays
from .live_reload import LiveReload
from .loading import first_screen, load_in_steps, with_lines_counted
from .messages import (
    CacheListed,
    DiscoveryDone,
    FolderChanged,
    LinesCounted,
    LoadProgress,
    MarkedLoaded,
    PendingHays,
    TraceAdded,
    TraceOpened,
    TraceRemoved,
    TracesJudged,
    TraceUpdated,
    WatchState,
)
from .store import TraceStore
from .toasts import toast_text
from .widgets.bars import BadgeChip, CountsBar, TraceHeader
from .widgets.calls_view import CallsView, no_flags_text
from .widgets.details import Details
from .widgets.key_hints import KeyHints
from .widgets.line_view import LineView
from .widgets.model_view import ModelShown, ModelView
from .widgets.trace_list import TraceList

if TYPE_CHECKING:
    from textual.command import Provider

    from ..record import Recorder
    from ..scale.judgements import JudgementCache, Shown
    from .recording import RecorderInApp
    from .widgets.clients_view import ClientsPane
    from .widgets.compare_pane import ComparePane
    from .widgets.diff_view import DiffView
    from .widgets.raw_view import RawView

__all__ = ["ReplayApp", "make_app", "run_app"]


def _replay_commands() -> type[Provider]:
    from .commands import ReplayCommands

    return ReplayCommands


VIEWS = ("calls", "diff", "raw", "clients", "compare")
BADGE_CYCLE: tuple[str | None, ...] = (
    None,
    "erasing",
    "refused",
    "broken",
    "in progress",
    "clean",
    SKIPPED,
)


class ReplayApp(App[int]):
    """Browse traces, see where tool-call identity was erased.

    With ``recorder`` (``record --tui``), the app starts it before taking the terminal, shows
    its address and request count on a line at the bottom, and stops it on exit. With
    ``compare`` (two addresses), the first is marked as A and the second opened beside it in
    the compare view once both are listed."""

    CSS_PATH = "app.tcss"
    TITLE = "replay-tui"
    COMMANDS: ClassVar = {_replay_commands}  # (imported when the palette opens)
    AUTO_FOCUS = "#trace-tree"
    """Never the filter box: keys typed before discovery ends are commands, not filter text."""
    # Classes on the screen by its size, for app.tcss (Textual declares them ClassVar).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-medium"), (40, "-tall")]  # noqa: RUF012

    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS

    SHOW_CACHED_FROM = 2_000
    """Files known to the judgement cache from which a re-opened folder is shown from it while
    the files are checked (fewer are walked and checked in a few milliseconds: shown once)."""

    OPEN_AFTER = 0.1
    """Seconds the list's cursor rests on a trace before the trace is opened: a move is on
    screen in its own frame, and a run of moves (a key held, page down three times) opens
    only the trace it ends on. Opening one lays out the header, the details and the views
    again: done on each move, the next key waited for it (↓ 13–79 ms, page down 27–167 ms,
    while a big folder was judged)."""

    SAY_LOADING_AFTER = 0.25
    """Seconds a trace takes to load before the header and details say it is loading (a small
    capture is read before that: it replaces the one shown, with no frame between)."""

    KEYS_QUIET = 0.3
    """Seconds after a key within which the judging's results wait to be taken in (and a big
    list's rebuild): each is a frame of work of 10–100 ms, which the next key waited for."""

    INTAKE_STEP = 2_000
    """Files of the judging's results taken in a frame at most (the rest in the next ones):
    about 10 ms of the UI thread's time on an idle machine."""

    KEYS_QUIET_AT_MOST = 5.0
    """Seconds the results wait for the keys at most (a key held down, typing on and on)."""

    def __init__(
        self,
        paths: Sequence[str],
        *,
        watch: bool = False,
        keymap: dict[str, str] | None = None,
        first_slice: int | None = None,
        recorder: Recorder | None = None,
        jobs: int | None = None,
        cache: bool = True,
        compare: tuple[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.jobs = jobs
        """Processes that judge the list (None: one per core)."""
        self.use_cache = cache
        """Judgements are kept in, and read from, the judgement cache (``--no-cache``: not)."""
        self.recorder = recorder
        self._compare_wanted = compare
        """``--compare A B`` (and ``probe --tui``): once both are listed, A is marked and B
        opened in the compare view."""
        """``record --tui``: the recording proxy, run in this app's event loop."""
        self.fatal: str | None = None
        """Why the app exited at once (the recorder could not start), for the CLI to say."""
        self._recording: RecorderInApp | None = None
        """The recorder's start and stop (``record --tui``)."""
        self.paths = [str(p) for p in paths] or ["."]
        self.watching = watch
        self.live = LiveReload(self, self.paths) if watch else None
        self.store = TraceStore()
        self.folder_judging = FolderJudging(
            self.paths,
            use_cache=cache,
            jobs=jobs,
            live=self.live.folder if self.live is not None else None,
        )
        """The walk, the judgement cache and the judging, run in the app's workers."""
        self.current: Trace | None = None
        self.partial = False
        self._loading: str | None = None
        """The trace being read to be shown (the header and details say "loading…" of it)."""
        self._open_due: str | None = None
        """The trace the list's cursor rests on, opened once it has rested
        :attr:`OPEN_AFTER` s (None: nothing to open)."""
        self._open_timer: Timer | None = None
        self._last_key = 0.0
        """When the last key came (``time.monotonic``)."""
        self.marked: str | None = None
        """The trace marked as A for the compare view (``m``)."""
        self._roots_gone_said = False
        """The details say a watched root was deleted (to be corrected once it is back)."""
        self.not_a_trace: Skipped | None = None
        """The list's cursor is on this file, which holds no trace: the header, the views and
        the details say so (the open trace, :attr:`current`, comes back with a trace)."""
        self.user_navigated = False
        self._chosen_unlisted: str | None = None
        """A trace chosen before the folder's walk listed it (the command palette, a script):
        opened once the walk has, not dropped."""
        self.judging = False
        self.checking = False
        """What the judgement cache knew is on screen while the walk checks the files."""
        self.discovered = False
        """The paths were scanned and the list filled."""
        self.collect_after_start = False
        """The collector was paused for the start-up (by the CLI: :func:`run_app`): turned
        on again when the discovery starts."""
        self._unfrozen_at: int | None = None
        """The collector's full passes when the objects frozen were given back to it (None:
        none were, or it has made one since): see :meth:`_freeze_heap`."""
        self._froze = False
        """This app froze objects (:meth:`_freeze_heap`) and has not given them back."""
        self.first_screen: float | None = None
        """Seconds from app start until the first trace's rows were on screen (benchmarks)."""
        self._started = time.perf_counter()
        self._first_slice = first_slice
        self._early_deltas = 0
        self._early_skipped = False
        self._early: str | None = None
        """The file named alone whose first rows were read before the walk (see
        :meth:`_show_named_at_once`)."""
        self._early_builder: TraceBuilder | None = None
        """What read those rows, to read on from where it got to (None: it read it all)."""
        self._uncounted: Trace | None = None
        """Those rows, read from the first call on, their lines not counted yet (None: they
        are, or were counted): the walk's worker counts them first."""
        self._counts_shown: (
            tuple[dict[str, int], int, int, str | None, bool, int | None, int] | None
        ) = None
        applied, problems = check_keymap(dict(keymap or {}))
        self.keymap_overrides = applied
        """The user's keymap as applied: what the help, the footer and the palette show."""
        self.keymap_problems = [f"{keymap_path()}: {p}" for p in problems]
        """What is wrong with the user's keymap: shown once, when the app starts."""
        if applied:
            self.set_keymap(applied)

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The widgets are kept as attributes: handlers reach them without a query, also while
        # late worker messages arrive during shutdown.
        self.counts_bar = CountsBar(", ".join(self.paths), self.watching)
        self.trace_list = TraceList(self.store.judgements, self.store.by_badge, id="trace-list")
        self.trace_header = TraceHeader(Content("Scanning…"), id="trace-header")
        self._progress_bar: ProgressBar | None = None
        """The decoding's progress, under the header: made when first shown (see
        :meth:`_shown_progress_bar`)."""
        self.tabs = TabbedContent(id="views", initial="calls")
        self.calls_view = CallsView(id="calls-view")
        self.details = Details(id="details")
        self._unopened = {"diff", "raw", "clients", "compare"}
        """The views whose tab was never shown: made and mounted when it first is (a fifth of
        what starting the app costs went on building views most sessions never open, and
        their modules are imported then too)."""
        self.not_a_trace_note = Static(id="not-a-trace")
        """In the views' place while the cursor is on a file that is not a trace."""
        yield self.counts_bar
        with Horizontal(id="main"):
            yield self.trace_list
            with Vertical(id="trace-pane"):
                yield self.trace_header
                with self.tabs:
                    with TabPane("Calls", id="calls"):
                        yield self.calls_view
                    with TabPane("Diff", id="diff"):
                        pass  # mounted when first shown: _open_view
                    with TabPane("Raw", id="raw"):
                        pass  # mounted when first shown: _open_view
                    with TabPane("Clients", id="clients"):
                        pass  # mounted when first shown: _open_view
                    with TabPane("Compare", id="compare"):
                        pass  # mounted when first shown: _open_view
                yield self.not_a_trace_note
                yield self.details
        yield KeyHints()

    # The views of the tabs not shown at start: made when first wanted (see _unopened).

    _selected_lines: tuple[int, int] | None = None
    """The lines of the delta the calls select, for the raw and diff views made after it was
    selected (see :meth:`_follow_selected_delta`)."""

    @cached_property
    def diff_view(self) -> DiffView:
        from .widgets.diff_view import DiffView

        view = DiffView(id="diff-view")
        if self._selected_lines is not None:
            view.selected_line = self._selected_lines[0]
        return view

    @cached_property
    def raw_view(self) -> RawView:
        from .widgets.raw_view import RawView

        view = RawView(id="raw-view")
        view.selected = self._selected_lines
        return view

    @cached_property
    def clients_pane(self) -> ClientsPane:
        from .widgets.clients_view import ClientsPane

        return ClientsPane(id="clients-pane")

    @cached_property
    def compare_pane(self) -> ComparePane:
        from .widgets.compare_pane import ComparePane

        return ComparePane(id="compare-pane")

    async def on_load(self) -> None:
        # Before the terminal is taken over: a busy port exits with one line, no broken screen.
        if self.recorder is None:
            return
        from .recording import RecorderInApp

        self._recording = RecorderInApp(self, self.recorder)
        self.fatal = await self._recording.start()
        if self.fatal is not None:
            self.exit(2)

    async def on_unmount(self) -> None:
        if self._recording is not None:
            await self._recording.stop()

    def on_mount(self) -> None:
        if self.recorder is not None and self.fatal is None:
            from .recording import RecorderStatus

            self.mount(RecorderStatus(self.recorder), after="#main")
        if self.keymap_problems:  # one toast: several would hide each other (and the view)
            problems = self.keymap_problems
            head = "keymap: " if len(problems) == 1 else f"keymap, {len(problems)} problems:\n"
            self.notify(
                visible(head + "\n".join(problems), keep_layout=True),
                severity="warning",
                timeout=10,
                markup=False,
            )
        self.not_a_trace_note.display = False
        self.trace_list.trace_tree.focus_when_chosen = self.calls_view  # (as choose_trace)
        self.trace_list.keys_wait = self.keys_wait  # (a big list's rebuild waits for keys)
        self.details.show_message("Scanning " + visible(", ".join(self.paths)) + " …")
        if self._show_named_at_once():  # the walk after its first frame
            self.call_after_refresh(self._discover, self.paths)
        else:
            self._discover(self.paths)

    def _show_named_at_once(self) -> bool:
        """One file named that holds one stream: its first rows are read here, so that the
        app's first frame shows them (the walk, the judging and the rest of the decoding come
        after it: each frame before the rows cost a tenth of a second or more). Whether it
        was."""
        name, entry = split_entry(self.paths[0])
        if len(self.paths) != 1 or entry is not None or not Path(name).is_file():
            return False
        item = Candidate(name, Path(name).as_posix())
        if not one_stream(item):
            return False
        found = Discovery()
        classify_candidate(item, found)
        kwargs: dict[str, int] = {} if self._first_slice is None else {"first": self._first_slice}
        try:
            trace, builder = first_screen(found.sources[0], **kwargs)
        except OSError:
            return False  # the walk says so
        whole = builder is None
        self._early = trace.address
        self._early_builder = builder
        self._early_deltas = trace.analysis.deltas
        # (read from the first call on: replaced by the trace decoded from the start, once
        # that holds a screenful or ends)
        self._early_skipped = bool(trace.skipped)
        self.trace_list.display = False
        self.user_navigated = True
        if whole:
            self.store.put(trace)
        self.show_trace(trace, partial=not whole)
        # (read from the first call on: its lines are said "…" until the walk's worker has
        # counted those before it)
        self._uncounted = None if trace.lines_known else trace
        return True

    def _count_lines(self, first: Trace) -> None:
        """The lines before ``first``'s call, counted once its rows are on screen (in a
        worker: before the first frame, they were a pass over every byte before them, 20 ms
        of a 20 MB text, a tenth of a bare app's start); the same rows on the capture's lines
        take its place."""
        try:
            counted = with_lines_counted(first)
        except OSError:
            return  # (the loader, reading the same file, says why)
        self.post_message(LinesCounted(first, counted))

    @on(LinesCounted)
    def _lines_counted(self, message: LinesCounted) -> None:
        if self.current is message.first:  # (else the trace read from the start came first)
            self.show_trace(message.counted, partial=True)

    # -- discovery and judging ---------------------------------------------------------------

    @work(thread=True, exclusive=True, group="discover", description="discover")
    def _discover(self, paths: list[str]) -> None:
        if self.collect_after_start:  # (a file named alone: after the frame with its rows)
            self.collect_after_start = False
            # What the start-up made (Textual's modules, the app: some 60,000 objects, none
            # garbage) is left out of the collector's passes: back on, its first pass went
            # over all of it, 50-100 ms of the screen's thread as the list came.
            gc.freeze()
            gc.enable()
        first, self._uncounted = self._uncounted, None
        if first is not None:
            # The lines before the rows on screen first: the walk, the judging and the
            # decoding from the start after (in a worker of its own, it took the interpreter
            # in turns with them, and its lines came after the whole trace's).
            self._count_lines(first)
        with collector_paused():
            self._walk_and_sort(paths)

    def _walk_and_sort(self, paths: list[str]) -> None:
        judging = self.folder_judging

        def show_cached(cached: Shown) -> None:
            # (no hays: the filter makes what it reads when first typed into, and the walk's
            # list, which follows in a second or two, brings them)
            message = CacheListed(cached, threading.Event())
            self.post_message(message)
            # The walk that checks the files once the list is drawn: walked meanwhile, its
            # stat of every file and the list's making took turns at the interpreter, and
            # the badges of a re-opened folder of 115,000 traces (a mix with HAR files) came
            # 0.8 s after the cache was read, for 0.35 s of the screen's work (issue 33).
            assert message.shown is not None
            message.shown.wait(timeout=1.0)

        def show(walked: Walked) -> None:
            done = DiscoveryDone(walked)
            if walked.cache is not None:
                done.hays = hays_of(walked.judged, walked.single)
            done.shown = threading.Event()
            self.post_message(done)
            # The live folder learns where the files are once the list is drawn, not
            # while it is (the interpreter is shared: 100,000 files cost it 0.2 s or more).
            done.shown.wait(timeout=1.0)

        walked = judging.walk_and_sort(show_cached, self.SHOW_CACHED_FROM, show)
        if len(walked.todo) >= TraceList.REBUILD_NOW_BELOW:
            self.post_message(PendingHays(pending_hays(c.address for c in walked.todo)))
        problem = judging.save_cache(walked)
        if problem is not None:
            self.call_from_thread(self._say_cache_problem, problem)

    @on(PendingHays)
    def _pending_hays(self, message: PendingHays) -> None:
        self.trace_list.listing.add_pending_hays(message.hays)

    @on(CacheListed)
    def _listed_from_cache(self, message: CacheListed) -> None:
        if message.shown is not None:
            self.call_after_refresh(message.shown.set)
        if self.discovered:
            return  # the walk came first (a small folder): it has the last word already
        self.checking = True
        cached = message.cached
        self.trace_header.show_text(Content("Checking the files…"))
        self.details.show_message(
            f"Checking {len(cached.files):,} files under {visible(', '.join(self.paths))}:"
            " the badges are those of the last time until then …"
        )
        # The list and the store as the worker made them: one rebuild, no file put in place
        # one by one (a re-opened mix of 115,000 traces was a third of a second of this
        # thread's, the badges waiting; issue 33).
        self.store.set_listed(cached.paths, cached.skipped, cached.judgements, cached.by_badge)
        self.trace_list.set_listed(cached.items, cached.skipped, cached.became)
        self._update_counts()
        self._compare_when_listed()
        self._cache_listed = True
        if self.focused is not self.trace_list.filter_input:
            self.trace_list.trace_tree.focus()

    _cache_listed = False
    """What the judgement cache knew is listed, until the walk has checked the files."""

    def _as_cache_listed(self, walked: Walked) -> bool:
        """The walk found the files the judgement cache listed, in its order, each as the cache
        knew it (nothing to judge, no file that is not a trace): what is on screen stands."""
        listed, self._cache_listed = self._cache_listed, False
        return listed and walked.as_shown and not walked.todo and not walked.skipped

    @on(DiscoveryDone)
    def _discovered(self, message: DiscoveryDone) -> None:
        walked = message.walked
        if message.shown is not None:
            self.call_after_refresh(message.shown.set)
        self.discovered = True
        if self.checking and self._as_cache_listed(walked):
            # Every file as the cache knew it: the list, the store and the badges on screen
            # are what the walk found (listing them again resolved every HAR file into its
            # entries, judged every trace into the store and rebuilt the list, a third of a
            # second of the screen's thread for 115,000 traces, the keys waiting).
            self.checking = False
            self.trace_list.listing.judged((), message.hays)  # (what the filter reads)
            self._update_counts()
        else:
            if self.checking:  # what the cache showed makes way for what the walk found
                self.checking = False
                self.store.forget_judgements()
            files = [name for name, _ in map(split_entry, self.paths) if Path(name).is_file()]
            self.trace_list.file_roots = tuple(p.rstrip("/").rpartition("/")[0] for p in files)
            self._show_listing(
                [(c.address, c.path) for c in walked.files],
                walked.skipped,
                walked.judged,
                walked.single,
                message.hays,
            )
        if self.live is not None:
            # The watcher once the list is judged (see LiveReload.watch).
            self.live.start(watch=not walked.todo)
        if not self.store.paths:
            self._say_no_traces()
            return
        named = walked.named or (not walked.todo and walked.cache is None and walked.judged)
        if named and len(self.store.paths) == 1:
            # One file named (or one HAR entry, FILE.har#N): shown directly, the list hidden.
            self.trace_list.display = False
            self.user_navigated = True
            address = next(iter(self.store.paths))
            if self._early == address:  # its first rows are shown: read on once painted
                self.call_after_refresh(self.open_trace, address)
            else:
                self.open_trace(address)
            # The open view (a view key pressed while the file was read stays pressed:
            # focusing the calls would show the calls tab again).
            self._view_widget().focus()
            return
        if self.focused is not self.trace_list.filter_input:
            # (a filter typed while the folder was being walked keeps its keys)
            self.trace_list.trace_tree.focus()
        if walked.todo:
            self.judging = True
            # Once the list is drawn: starting the pool takes the interpreter a moment.
            self.call_after_refresh(self._judge, walked.todo, walked.cache)
        chosen, self._chosen_unlisted = self._chosen_unlisted, None
        if chosen is not None and chosen in self.store.paths and self.current is None:
            self.trace_list.select(chosen)
            self.open_trace(chosen)
            return
        if self.current is not None or self.user_navigated or self.trace_list.selected:
            return  # chosen in what the cache showed: the user's choice stays
        flagged = (first_flagged(walked.judged), first_flagged(walked.single))
        first = min((a for a in flagged if a is not None), key=address_key, default=None)
        if first is None and not walked.todo:
            first = self._fallback_address()
        self._auto_open(first)

    def _show_listing(
        self,
        files: list[tuple[str, str]],
        skipped: list[Skipped],
        judged: list[tuple[str, Listed]],
        single: list[tuple[str, Judgement]],
        hays: dict[str, str],
    ) -> None:
        """The list's whole content: the files listed (address and path, in list order), the
        paths that are no trace, and what is known of them already (see
        :class:`DiscoveryDone`); in one rebuild."""
        self.store.set_files(files, skipped)
        results, addresses = self._into_store(judged)
        self.store.judge_all(single)
        addresses += [address for address, _ in single]
        self.trace_list.set_entries(
            [address for address, _ in files], skipped, results, addresses, hays
        )
        self._update_counts()
        self._compare_when_listed()  # (known from the judgement cache already)

    def _say_no_traces(self) -> None:
        self.trace_header.show_text(Content("No traces found"))
        # (named in quotes: "under .." read as the parent folder)
        where = ", ".join("the current folder (.)" if p == "." else f"'{p}'" for p in self.paths)
        lines = [f"No trace found under {where}."]
        lines += [f"  {s.path}: {s.reason}" for s in self.store.skipped[:50]]
        lines += ["", *self._next_steps()]
        self.details.show_message(visible("\n".join(lines), keep_layout=True))

    def _next_steps(self) -> list[str]:
        """What to do about a folder with no trace in it: where captures come from."""
        if self.recorder is not None:
            return [
                f"Waiting for the first capture: point the agent's base URL at"
                f" {self.recorder.url}; each streamed response appears here as it is written."
            ]
        folder = next((p for p in self.paths if os.path.isdir(p)), None)
        steps = [
            "A trace is a saved streaming /chat/completions response: raw SSE (.sse),"
            " `curl -i` output, a HAR export (.har) or a JSONL chunk log (.jsonl).",
        ]
        if folder is not None:
            out = shlex.quote(folder)
            steps.append(
                "To capture some, put the recorder between the agent and its gateway:"
                f"\n  replay-tui record --upstream https://GATEWAY --out {out} --tui"
            )
            if self.watching:
                steps.append("This folder is watched: captures written into it appear at once.")
        steps.append("Or open another folder: replay-tui PATH")
        return steps

    def _resolve(
        self, judged: list[tuple[str, Listed]], hays: dict[str, str] | None = None
    ) -> None:
        """Judged files into the store and the list."""
        results, single = self._into_store(judged)
        if results or single:
            self.trace_list.resolve(results, single, hays)
        self._compare_when_listed()

    def _compare_when_listed(self) -> None:
        wanted = self._compare_wanted
        if wanted is None or not all(a in self.store.judgements for a in wanted):
            return
        self._compare_wanted = None
        a, b = wanted
        self.marked = a
        self.trace_list.set_marked(a)
        self.choose_trace(b)
        self.call_later(self.run_action, "show_tab('compare')")

    def _into_store(
        self, judged: list[tuple[str, Listed]]
    ) -> tuple[list[tuple[str, list[str], list[Skipped]]], list[str]]:
        """Judged files into the store (100,000 from the cache in one go: the common case, a
        file that is one trace, is a store update and nothing more). Returns what the list
        is told: the files that became other items (``(address, traces, skipped)``), and
        those that are one trace each."""
        results = []
        single: list[str] = []
        store = self.store
        for address, listed in judged:
            only = only_trace(address, listed)
            if only is not None:
                store.judge(address, only)
                single.append(address)
                continue
            traces, skipped = store.resolve(address, listed)
            results.append((address, traces, skipped))
        return results, single

    @work(thread=True, exclusive=True, group="judge", description="judge")
    def _judge(self, files: list[Candidate], cache: JudgementCache | None) -> None:
        """Judge the files the cache did not know (``cache``: sorted out already)."""
        worker = get_current_worker()
        taken = threading.Event()
        taken.set()
        # The collector paused while the judging goes on: 100,000 judgements (and what the
        # list and the filter keep of them) make the heap grow by a quarter again and again,
        # and each time the collector went over all of it, every thread stopped with it (a
        # tenth of a second, more on a busy machine: keys waited, and the pool for work).
        with collector_paused():
            for batch in self.folder_judging.judge_in_batches(
                files, cache, cancelled=lambda: worker.is_cancelled, taken=taken.is_set
            ):
                # The last batch comes whether or not the one before was taken in: it waits
                # for it here (taken first, it said the judging was done while the one before
                # still waited for the keys: its results came after, out of order).
                while not taken.wait(0.05):
                    if worker.is_cancelled:
                        return
                taken.clear()
                hays = hays_of(batch.judged)
                self.post_message(
                    TracesJudged(batch.judged, batch.traces, hays, batch.finished, taken=taken)
                )
        if worker.is_cancelled:
            return
        if cache is not None and cache.problem is not None:
            self.call_from_thread(self._say_cache_problem, cache.problem)

    def _say_cache_problem(self, problem: str) -> None:
        self.notify(
            visible(f"judgement cache not used: {problem}"), severity="warning", markup=False
        )

    def keys_wait(self, since: float) -> float:
        """Seconds a step of work that can wait (the judging's results taken in, a big list's
        rebuild), due since ``since`` (``time.monotonic``), waits for the keys: until
        :attr:`KEYS_QUIET` s after the last one, :attr:`KEYS_QUIET_AT_MOST` s at most (0: go
        on now)."""
        now = time.monotonic()
        if now - since >= self.KEYS_QUIET_AT_MOST:
            return 0.0
        return max(0.0, self._last_key + self.KEYS_QUIET - now)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self._last_key = time.monotonic()
        await super().on_event(event)

    @on(TracesJudged)
    def _judged(self, message: TracesJudged) -> None:
        self._take_judged(message, time.monotonic())

    def _take_judged(self, message: TracesJudged, since: float) -> None:
        """Take a batch of results in, once the keys let it (the pool judges on meanwhile:
        the next batch grows until this one is taken)."""
        wait = self.keys_wait(since)
        if wait > 0:
            self.set_timer(wait, lambda: self._take_judged(message, since))
            return
        judged = message.judged
        if len(judged) > self.INTAKE_STEP:
            # A big batch (what the keys held back) a step a frame: a key waits for one.
            head = TracesJudged(judged[: self.INTAKE_STEP], [], message.hays)
            rest = TracesJudged(
                judged[self.INTAKE_STEP :],
                message.traces,
                message.hays,
                message.finished,
                taken=message.taken,
            )
            self._take_judged(head, since)
            self.call_after_refresh(self._take_judged, rest, since)
            return
        if message.taken is not None:  # the next batch once this one is drawn
            self.call_after_refresh(message.taken.set)
        self._resolve(message.judged, message.hays)
        for trace in message.traces:
            self.store.put(trace)
        if message.finished:
            self.judging = False
            if self.live is not None:
                self.live.watch()
        self._update_counts()
        if message.finished and not self.store.paths:
            self._say_no_traces()
            return
        if self.current is None and not self.user_navigated and self.trace_list.selected is None:
            # Nothing open nor opening yet: the first flagged trace, else (at the end) the
            # first that is not clean.
            flagged = first_flagged(message.judged)
            if flagged is not None:
                self._auto_open(flagged)
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
            judgement = self.store.judgements.get(address)
            if judgement is not None and judgement.badge.value != "clean":
                return address
        return addresses[0] if addresses else None

    def _auto_open(self, address: str | None) -> None:
        if address is None:
            return
        self.trace_list.select(address)
        self.open_trace(address)

    def badge_counts(self) -> dict[str, int]:
        """Traces per badge as the header counts them: among those the text filter shows,
        if there is one (what clicking a count, or ``v``, then shows), else all of them."""
        counts = self.trace_list.listing.text_counts()
        if counts is None:
            counts = {**self.store.counts(), SKIPPED: len(self.store.skipped)}
        return counts

    def _update_counts(self) -> None:
        trace_list = self.trace_list
        everything = self.store.counts()
        matching = trace_list.listing.text_counts()
        # Filtered by text, the files that are not traces it matches: what clicking shows.
        skipped = len(self.store.skipped) if matching is None else matching.get(SKIPPED, 0)
        state = (
            everything if matching is None else matching,
            len(self.store.paths),
            skipped,
            trace_list.badge_filter,
            self.checking,
            trace_list.listing.shown if trace_list.filtering else None,
            everything.get("pending", 0),
        )
        if state != self._counts_shown:  # restyling the chips is not free: only on change
            self._counts_shown = state
            self.counts_bar.set_counts(*state)

    def badge_text(self, address: str) -> str:
        judgement = self.store.judgements.get(address)
        if judgement is None:
            return "not judged yet"
        verdicts = ", ".join(f"{b}: {v}" for b, v in judgement.verdicts)
        return f"{judgement.badge.value} · {verdicts}"

    # -- opening a trace ---------------------------------------------------------------------

    def open_trace(self, address: str) -> None:
        """Show ``address``: from the cache at once, else load it in a worker."""
        if self.not_a_trace is not None:
            self._show_views()
            current = self.current
            if current is not None and current.address == address and not self.partial:
                self.show_trace(current)  # the header and details say what it is again
                return
        current = self.current
        if current is not None and current.address == address and not self.partial:
            if self._loading not in (None, address):
                # Back on the open trace while another was loading (↓ then a choice of this
                # one, in one burst): that load is dropped, and the header and details,
                # which said "loading…" of it, say this one again.
                self.workers.cancel_group(self, "open")
                self._loading = None
                self._set_progress(None)
                self._headed_by(current)
            return
        cached = self.store.get(address)
        if cached is not None:
            self.workers.cancel_group(self, "open")
            self._loading = None
            self._set_progress(None)
            self.show_trace(cached)
            return
        if address not in self.store.paths:
            return
        early = self._early == address and current is not None and current.address == address
        builder = self._early_builder if early else None
        self._early = None
        self._early_builder = None
        if not early:  # (else its first rows are on screen and say "decoding…")
            # The header says so at once (a line drawn in its place); the details (laid out
            # again, twice: their columns change) only if it takes a while: a small capture
            # is read before, and replaces the trace shown in one frame.
            self.trace_header.show_text(Content.assemble((visible(address), "bold"), "  loading…"))
            self.set_timer(self.SAY_LOADING_AFTER, lambda: self._say_loading(address))
        self._loading = address
        self._load(address, early=early, builder=builder)

    def _say_loading(self, address: str) -> None:
        if self._loading == address and self.not_a_trace is None:
            self.details.show_message(f"Loading {visible(address)} …")

    def choose_trace(self, address: str) -> None:
        """Open ``address`` and go to its calls (enter, click, the command palette)."""
        self._no_open_due()
        self.user_navigated = True
        if not self.discovered and address not in self.store.paths:
            self._chosen_unlisted = address
        self.trace_list.select(address)
        self.open_trace(address)
        self.calls_view.focus()

    @work(thread=True, exclusive=True, group="open", description="open")
    def _load(self, address: str, early: bool = False, builder: TraceBuilder | None = None) -> None:
        worker = get_current_worker()
        source = self.store.source(address)
        if source is None:
            self.call_from_thread(self._load_failed, address, "no longer holds this trace")
            return
        kwargs: dict[str, int] = {} if self._first_slice is None else {"first": self._first_slice}

        def partial(trace: Trace) -> None:
            shown = threading.Event()
            self.post_message(TraceOpened(trace, partial=True, shown=shown))
            shown.wait(timeout=2.0)

        def progress(done: int, total: int) -> None:
            self.post_message(LoadProgress(address, done, total))

        follow = self._follower(source)
        try:
            trace = load_in_steps(
                source,
                on_partial=partial,
                shown=0 if not early or self._early_skipped else self._early_deltas,
                early=builder,
                replace=early and self._early_skipped,
                on_progress=progress,
                follow=follow,
                cancelled=lambda: worker.is_cancelled,
                **kwargs,
            )
        except OSError as exc:
            self.call_from_thread(self._load_failed, address, exc.strerror or str(exc))
            return
        finally:
            if follow is not None and self.live is not None:
                self.live.folder.expect(address, reading=False)  # (handed over, or not)
        if trace is not None and not worker.is_cancelled:
            self.post_message(TraceOpened(trace))

    def _follower(
        self, source: Source
    ) -> Callable[[TraceBuilder, bytes | bytearray], Trace] | None:
        """Watching: the live folder follows the trace on from the loader's builder, so what
        is appended to the open trace costs what was appended (a HAR entry: read again)."""
        if self.live is None or source.form is Form.HAR:
            return None
        self.live.folder.expect(source.address)
        return self.live.folder.adopt

    def _load_failed(self, address: str, reason: str) -> None:
        if self._loading == address:
            self._loading = None
        self._set_progress(None)
        self.details.show_message(visible(f"{address}: cannot read: {reason}"))

    @on(LoadProgress)
    def _progress(self, message: LoadProgress) -> None:
        if self.current is None or self.current.address != message.address or not self.partial:
            return
        self._set_progress((message.done, message.total))

    def _shown_progress_bar(self) -> ProgressBar:
        """The progress bar, mounted under the header the first time it is shown (three
        widgets fewer to make and style before the first frame: most traces need none)."""
        if self._progress_bar is None:
            # A total from the start: an indeterminate bar animates (15 fps) even while hidden.
            self._progress_bar = ProgressBar(total=1, id="load-progress", show_eta=False)
            pane = self.query_one("#trace-pane", Vertical)
            pane.mount(self._progress_bar, after=self.trace_header)
        return self._progress_bar

    def _set_progress(self, progress: tuple[int, int] | None) -> None:
        shown = progress is not None and progress[0] < progress[1]
        if shown or self._progress_bar is not None:
            bar = self._shown_progress_bar()
            bar.display = shown and self.not_a_trace is None
            if progress is not None:
                bar.update(total=progress[1], progress=progress[0])
        if progress is not None and self.current is not None and self.not_a_trace is None:
            pct = 100 * progress[0] // max(progress[1], 1)
            self.trace_header.show_trace(
                self.current, progress=f"decoding… {pct}% of {progress[1]:,} bytes"
            )

    @on(TraceOpened)
    def _opened(self, message: TraceOpened) -> None:
        if message.shown is not None:
            self.call_after_refresh(message.shown.set)
        trace = message.trace
        was_loading = self._loading == trace.address
        if not message.partial:
            if was_loading:
                self._loading = None
            before = self.store.judgements.get(trace.address)
            if self.store.put(trace) != before:  # the list's row, counts and filter follow;
                self.trace_list.refresh_traces([trace.address])  # as judged, they stand
                self._update_counts()
            self._set_progress(None)
        wanted = self.trace_list.selected
        if wanted is not None and wanted != trace.address and self.trace_list.display:
            if was_loading and self.current is not None:
                self._headed_by(self.current)  # (they said "loading…" of this one)
            return
        self.show_trace(trace, partial=message.partial)

    def _headed_by(self, trace: Trace) -> None:
        """The header and details say ``trace`` again, the open one (they said "loading…" of
        another), unless they say what the cursor is on: a file that is not a trace."""
        if self.not_a_trace is None:
            if not self.trace_header.shows(trace):
                self.trace_header.show_trace(trace)
            if not self.details.shows(trace):  # (laid out again: only if they said another)
                self.details.show(trace)

    def show_trace(self, trace: Trace, *, partial: bool = False) -> None:
        """Show ``trace`` in every view; the same trace again keeps each view's position."""
        previous = self.current
        keep = previous is not None and previous.address == trace.address
        if keep and previous is not None and (self.partial or previous.in_progress):
            # Decoding in steps, or a capture still being written (record --tui's first
            # capture): the first flag may arrive later; the eye goes to it then (a
            # 20,000-delta trace flagged at delta 10,003 opens on that row).
            keep = bool(previous.analysis.flags) or not trace.analysis.flags
        if (previous is None or previous.address != trace.address) and self._froze:
            self._froze = False
            gc.unfreeze()  # (what was frozen for the last trace: collected as any garbage)
            self._unfrozen_at = gc.get_stats()[2]["collections"]
        self.current = trace
        self.partial = partial
        self.trace_list.show_open(trace.address)
        progress = "decoding…" if partial else None
        if self.not_a_trace is None:  # (else they say what the cursor is on: no trace)
            self.trace_header.show_trace(trace, progress=progress)
            loading = (
                None
                if not partial
                else f"Decoding the {trace.skipped:,} bytes before the first tool call: block"
                " numbers and the text follow; verdicts are provisional."
                if trace.skipped
                else "Decoding the rest of the capture: verdicts are provisional."
            )
            self.details.show(trace, loading=loading)
        self.calls_view.show_trace(trace, keep=keep)
        self._refresh_active_view(keep)

    @on(ModelShown)
    def _model_shown(self, message: ModelShown) -> None:
        if not self.partial:
            self.call_after_refresh(self._freeze_heap)
        if message.view is not self.calls_view:
            return
        if self.first_screen is None:
            model = self.calls_view.model
            if model is not None and model.total:
                self.call_after_refresh(self._first_screen_painted)
        # The calls keep their cursor when their trace changes; the delta under it may now
        # be on other lines (the file rewritten): the raw and diff views go to those.
        self._follow_selected_delta(unless_there=True)

    def _freeze_heap(self) -> None:
        """The objects made so far (the open trace's analysis, the views' models: hundreds of
        thousands of lists and records, none garbage) are left out of the cycle collector's
        full passes from now on (``gc.freeze``, a constant-time move): a full pass over them
        cost 50-150 ms of the screen's thread (5,000 calls), and came when it came, in the
        middle of a key, a view's first paint or an appended delta's. They are still freed by
        reference counting; a trace opened in their place gives them back to the collector
        (:meth:`show_trace`), and they are frozen again once it has made a full pass over
        them (what only it frees, cycles, is not kept for the session)."""
        if self.partial or gc.get_stats()[2]["collections"] == self._unfrozen_at:
            return
        self._unfrozen_at = None
        self._froze = True
        gc.freeze()

    def _first_screen_painted(self) -> None:
        if self.first_screen is None:
            self.first_screen = time.perf_counter() - self._started

    async def _open_view(self, name: str) -> None:
        """Mount the view of tab ``name`` if it never was shown (once mounted, it stays)."""
        if name in self._unopened:
            self._unopened.discard(name)
            # Only the view asked for is made (each imports its modules: the compare pane's
            # and the clients' cost a visit to the raw view 50 ms of CPU).
            views: dict[str, Callable[[], Widget]] = {
                "diff": lambda: self.diff_view,
                "raw": lambda: self.raw_view,
                "clients": lambda: self.clients_pane,
                "compare": lambda: self.compare_pane,
            }
            await self.tabs.get_pane(name).mount(views[name]())

    def _refresh_active_view(self, keep: bool) -> None:
        """Route the open trace to the active view (the others get it when they are shown)."""
        trace = self.current
        active = self.tabs.active
        if trace is None or active in self._unopened:
            return  # (a view being opened gets the trace when it is mounted: _tab_activated)
        if trace.skipped and active != "calls":
            # Read from the first call on: the other views show block numbers and the text
            # before, unknown yet; they get the trace decoded from the start, a moment later.
            return
        if active == "diff":
            self.diff_view.show_trace(trace)
        elif active == "raw":
            self.raw_view.show_trace(trace)
        elif active == "clients":
            self.clients_pane.show(trace, partial=self.partial, keep_position=keep)
        elif active == "compare":
            self._route_compare(trace, keep)

    @property
    def _alone(self) -> bool:
        """Only one trace is listed: there is no other to compare the marked one with."""
        return len(self.store.paths) < 2

    def _route_compare(self, trace: Trace, keep: bool) -> None:
        """The compare pane gets both traces loaded: A is read here when the cache let it go."""
        marked = self.marked
        a = self.store.get(marked) if marked else None
        gone = marked is not None and marked not in self.store.paths
        if marked is not None and a is None and not gone:
            self._load_marked(marked)
        self.compare_pane.show(
            marked,
            a,
            trace,
            gone=gone,
            partial=self.partial,
            keep_position=keep,
            alone=self._alone,
        )

    @work(thread=True, exclusive=True, group="marked", description="read the marked trace")
    def _load_marked(self, address: str) -> None:
        source = self.store.source(address)
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
        self._apply_folder(FolderUpdate(updated=[message.trace]))

    @on(TraceAdded)
    def _trace_added(self, message: TraceAdded) -> None:
        self._apply_folder(FolderUpdate(added=[message.trace]))

    @on(TraceRemoved)
    def _trace_removed(self, message: TraceRemoved) -> None:
        self._apply_folder(FolderUpdate(removed=[message.address]))

    @on(FolderChanged)
    def _folder_changed(self, message: FolderChanged) -> None:
        update = message.update
        if update.skipped or update.unskipped:
            assert self.live is not None
            self.store.skipped = list(self.live.folder.skipped.values())
            self.trace_list.set_skipped(self.store.skipped)
        for problem in update.problems:
            self.notify(visible(problem), severity="warning", timeout=4, markup=False)
        self._apply_folder(update)
        if message.gone_roots:
            roots = ", ".join(visible(r) for r in message.gone_roots)
            self.trace_list.say_empty(f"{roots} was deleted: waiting for it to come back")
            if self.current is not None and self.current.address not in self.store.paths:
                self.details.show_message(f"{roots} was deleted.")
                self._roots_gone_said = True
        else:
            self.trace_list.say_empty(None)
            current = self.current  # the root is back, and not the open trace with it:
            if self._roots_gone_said and current and current.address not in self.store.paths:
                self.details.show_message(visible(f"{current.address} was deleted."))
            self._roots_gone_said = False

    @on(WatchState)
    def _watch_state(self, message: WatchState) -> None:
        self.counts_bar.set_watch_state(message.text, on=True)

    # -- what the palette asks of the app (commands.PaletteHost) ------------------------------

    def binding_sections(self) -> list[tuple[str, list[BindingType]]]:
        return binding_sections()

    def trace_addresses(self) -> list[str]:
        return self.trace_list.addresses

    def run_binding(self, binding: Binding, section: str) -> None:
        """Run ``binding``'s action where it lives: on the app, or on the open view."""
        target: LineView | None = None
        if section == "Compare view":
            self.call_later(self._run_in_view, "compare", binding.action)
            return
        if section != "Everywhere":
            view = self.query_one(f"#{self.tabs.active}-view")
            if not isinstance(view, LineView) or not hasattr(view, f"action_{binding.action}"):
                if section != "Diff view":
                    self.notify("Nothing here to do that on.", timeout=2, markup=False)
                    return
                self.call_later(self._run_in_view, "diff", binding.action)
                return
            target = view
        self.call_later(self.run_action, binding.action, target)

    async def _run_in_view(self, name: str, action: str) -> None:
        """Run ``action`` on the view of tab ``name``, shown first."""
        await self.action_show_tab(name)
        await self.run_action(action, self._view_widget())

    def _apply_folder(self, update: FolderUpdate) -> None:
        """Traces added, changed, renamed and removed: the store, the list (redrawn once) and
        the open views follow; the selection and every view's position stay."""
        for trace in [*update.added, *update.updated, *(t for _, t in update.renamed)]:
            self.store.put(trace)
        for address in update.removed:
            self.store.forget(address)
        for old, _ in update.renamed:
            self.store.forget(old)
        self.trace_list.apply_changes(
            [t.address for t in update.added],
            update.removed,
            [(old, t.address) for old, t in update.renamed],
        )
        if update.updated:
            self.trace_list.refresh_traces([t.address for t in update.updated])
        self._update_counts()
        current = self.current
        # Added under the open trace's address: its file, emptied (or broken) while open, holds
        # a trace again, and not necessarily the one it held: shown as a change of it would be.
        for trace in [*update.updated, *update.added]:
            if current is not None and current.address == trace.address:
                self.show_trace(trace)
            elif trace.address == self.marked:  # A changed: the compare view follows it
                self._refresh_active_view(keep=True)
        for old, trace in update.renamed:
            if self.marked == old:
                self.marked = trace.address
            if current is not None and current.address == old:
                self.current = None  # the same capture under its new name: shown afresh
                self.show_trace(trace)
        if self.marked in update.removed and self.tabs.active == "compare":
            self._refresh_active_view(keep=True)  # A deleted: the compare view says so now
        now_skipped = self.trace_list.listing.skipped
        if current is not None and current.address in update.removed:
            address = current.address
            skipped = now_skipped.get(address)
            if skipped is not None and self.trace_list.selected == address:
                self.show_not_a_trace(skipped)  # emptied, or no trace any more: say why
                return
            what = "deleted" if skipped is None else f"no longer a trace: {skipped.reason}"
            verb = "was" if skipped is None else "is"
            self.details.show_message(visible(f"{address} {verb} {what}."))
            self.trace_header.show_text(
                Content.assemble((visible(address), "bold"), (f"  {visible(what)}", "$text-error"))
            )
        if self.current is None and update.added:
            self._auto_open(update.added[0].address)

    # -- widget messages ---------------------------------------------------------------------

    @on(TraceList.TraceHighlighted)
    def _list_highlighted(self, message: TraceList.TraceHighlighted) -> None:
        self.user_navigated = True
        if message.address != self.trace_list.selected:
            return  # the cursor has gone on (or been taken back) since: not this one
        self._open_soon(message.address)

    def _open_soon(self, address: str) -> None:
        """Open ``address`` once the cursor has rested on it :attr:`OPEN_AFTER` s (a move
        meanwhile puts it off again, and the trace it ends on is the one opened)."""
        self._open_due = address
        if self._open_timer is not None:
            self._open_timer.stop()
        self._open_timer = self.set_timer(self.OPEN_AFTER, self._open_when_due)

    def _no_open_due(self) -> None:
        """What the cursor rested on is not to be opened after all (a choice, a file that is
        not a trace, a trace opened by other means)."""
        self._open_due = None
        if self._open_timer is not None:
            self._open_timer.stop()
            self._open_timer = None

    def _open_when_due(self) -> None:
        self._open_timer = None
        address, self._open_due = self._open_due, None
        # Read from the cursor itself: the list's ``selected`` follows it by a message, which
        # a key typed as the time ran out (its frame drawn first) has not reached yet.
        row = self.trace_list.trace_tree.cursor_row
        if address is not None and row is not None and row.key == address:
            self.open_trace(address)

    @property
    def opening(self) -> bool:
        """A trace the list's cursor is on waits to be opened (see :attr:`OPEN_AFTER`)."""
        return self._open_due is not None

    @on(TraceList.TraceChosen)
    def _list_chosen(self, message: TraceList.TraceChosen) -> None:
        self.choose_trace(message.address)

    @on(TraceList.SkippedHighlighted)
    def _list_skipped(self, message: TraceList.SkippedHighlighted) -> None:
        self._no_open_due()
        self.show_not_a_trace(message.skipped)

    def show_not_a_trace(self, skipped: Skipped) -> None:
        """The cursor is on a file that holds no trace: the header, the views and the details
        all say so (not the trace open before, which comes back when a trace is chosen)."""
        self.not_a_trace = skipped
        name = visible(skipped.path)
        reason = visible(skipped.reason)
        # Said once: most reasons say "not a trace" themselves ("binary file, not a trace").
        before, said, after = reason.partition("not a trace")
        if not said:
            before, said, after = "", "not a trace: ", reason
        self.trace_header.show_text(
            Content.assemble((name, "bold"), "  ", before, (said, "$text-warning"), after)
        )
        self.not_a_trace_note.update(
            Content.assemble(
                (f"Nothing to show: {name} is not a trace.\n\n", "$text-muted"),
                (
                    "Calls, diff, raw capture, clients and compare are views of a trace: "
                    "move to one to see them. The details below say why this file is "
                    "not one.",
                    "$text-muted",
                ),
            )
        )
        focus_in_views = self._focus_within(self.tabs)
        self.tabs.display = False
        if self._progress_bar is not None:
            self._progress_bar.display = False
        self.not_a_trace_note.display = True
        if focus_in_views:
            self.trace_list.trace_tree.focus()
        self.details.show_skipped(skipped)

    def _show_views(self) -> None:
        """Back from a file that is not a trace: the views in their place again."""
        self.not_a_trace = None
        self.not_a_trace_note.display = False
        self.tabs.display = True

    def _back_to_the_open_trace(self) -> None:
        """Away from a file that is not a trace, without choosing a trace: the open one is
        shown again (header, views, details)."""
        if self.not_a_trace is None:
            return
        self._show_views()
        if self.current is not None:
            self.show_trace(self.current)
        else:
            self.trace_header.show_text(Content(""))

    def _said_not_a_trace(self, what: str, skipped: Skipped | None = None) -> bool:
        """On a file that is not a trace (``skipped``, else the one shown), say that ``what``
        has nothing to act on (True)."""
        skipped = skipped or self.not_a_trace
        if skipped is None:
            return False
        name = visible(skipped.path)
        self.notify(f"{name} is not a trace: nothing to {what}.", timeout=3, markup=False)
        return True

    def _list_row(self) -> Row | None:
        """With the focus in the list, the row under its cursor (None: the list has no focus).

        Read from the cursor itself. The list's ``selected`` and the app's ``not_a_trace``
        follow it by messages, a step behind keys typed faster than messages are handled:
        ↓ ↓ m would mark the trace the moves left."""
        if self.focused is not self.trace_list.trace_tree:
            return None
        return self.trace_list.trace_tree.cursor_row

    @on(TraceList.FilterChanged)
    def _filter_changed(self, message: TraceList.FilterChanged) -> None:
        self._update_counts()
        skipped = self.not_a_trace
        listing = self.trace_list.listing
        if skipped is not None and (
            skipped.path not in listing.skipped or listing.row_of(skipped.path) is None
        ):
            # The file is no longer listed as no trace (a filter hides those files; it was
            # rewritten as a trace): the views are the open trace's again.
            self._back_to_the_open_trace()

    @on(BadgeChip.Clicked)
    def _chip_clicked(self, message: BadgeChip.Clicked) -> None:
        badge = message.badge
        self.filter_badge(None if badge == self.trace_list.badge_filter else badge)

    @on(TabbedContent.TabActivated)
    async def _tab_activated(self, message: TabbedContent.TabActivated) -> None:
        await self._open_view(self.tabs.active)
        self._refresh_active_view(keep=False)
        if isinstance(self.focused, Tabs):  # a clicked tab: the keys go to its view
            self._view_widget().focus()

    @on(LineView.CursorMoved, "#calls-view")
    def _delta_selected(self, message: LineView.CursorMoved) -> None:
        self._follow_selected_delta()

    def _follow_selected_delta(self, *, unless_there: bool = False) -> None:
        """The raw and diff views go to the lines of the delta the calls select (keeping
        them, and going there when they show this trace); ``unless_there``: not if the raw
        view has those lines already."""
        found = self.calls_view.selected_delta()
        trace = self.calls_view.trace
        if found is None or trace is None:
            return
        _, row = found
        payload = trace.payloads[row.position]
        lines = (payload.line, payload.end_line)
        # (views not made yet are given the lines when they are: made here, they were 3.5 ms
        # of every launch before the first frame, their modules imported)
        made = self.__dict__
        raw = self.raw_view.selected if "raw_view" in made else self._selected_lines
        if unless_there and raw == lines:
            return
        self._selected_lines = lines
        if "raw_view" in made:
            self.raw_view.selected = lines
            if self.raw_view.model is not None and self.raw_view.model.trace is trace:
                self.raw_view.select_lines(*lines)
        if "diff_view" in made:
            self.diff_view.selected_line = payload.line
            if self.diff_view.model is not None and self.diff_view.model.trace is trace:
                self.diff_view.goto_line(payload.line)

    # -- actions -----------------------------------------------------------------------------

    def filter_badge(self, badge: str | None) -> None:
        self.trace_list.set_filter(badge=badge)
        if self.focused is not self.trace_list.filter_input:
            self.trace_list.land_cursor()
        self._update_counts()
        total, shown = len(self.store.paths), self.trace_list.listing.shown
        if badge == SKIPPED:
            files = self.trace_list.listing.shown_skipped
            said = f"Showing the files that are not traces: {files:,}"
        elif badge is not None:
            said = f"Showing {badge} traces: {shown:,} of {plural(total, 'trace')}"
        elif self.trace_list.filtering:  # (the text filter stays)
            said = f"Showing every verdict: {shown:,} of {plural(total, 'trace')}"
        else:
            said = f"Showing all {plural(total, 'trace')}"
        self.notify(said, timeout=2, markup=False)  # as the header counts them

    def action_cycle_badge(self) -> None:
        """The next badge some trace has (a badge with a count of 0 would show an empty list)."""
        counts = self.badge_counts()
        current = self.trace_list.badge_filter
        k = BADGE_CYCLE.index(current) if current in BADGE_CYCLE else 0
        for step in range(1, len(BADGE_CYCLE) + 1):
            badge = BADGE_CYCLE[(k + step) % len(BADGE_CYCLE)]
            if badge is None or counts.get(badge, 0) > 0:
                self.filter_badge(badge)
                return

    def action_filter(self) -> None:
        if not self.trace_list.display:  # (set again, it lays the screen out again)
            self.trace_list.display = True
        self._focus_now(self.trace_list.filter_input)  # the keys after / are the filter's

    def action_escape(self) -> None:
        """Leave the filter box keeping the filter; from elsewhere, clear the filter."""
        focused = self.focused
        if focused is self.trace_list.filter_input:
            self.trace_list.leave_filter()
        elif self.trace_list.text_filter:
            self.trace_list.filter_input.value = ""  # Input.Changed refilters
            self.notify("Filter cleared", timeout=2, markup=False)
        elif self.trace_list.badge_filter is not None:
            self.filter_badge(None)

    async def action_show_tab(self, name: str) -> None:
        if name not in VIEWS:
            return
        await self._open_view(name)
        self.tabs.active = name
        if self.not_a_trace is not None:  # remembered for the next trace; nothing shown now
            self._said_not_a_trace(f"show in the {name} view")
            return
        # The view has the open trace now (not when the tab's message comes round): an action
        # run on it next (the palette's) acts on this trace's rows.
        self._refresh_active_view(keep=False)
        self._focus_now(self._view_widget())

    def on_key(self, event: events.Key) -> None:
        # A key of the view in sight typed while it builds its model waits for it (before
        # the bindings, which would hand it to nothing: issue 31).
        focused = self.screen.focused
        if isinstance(focused, ModelView) and focused.hold_key(event):
            event.prevent_default()
            event.stop()

    def _focus_now(self, widget: Widget) -> None:
        """Focus ``widget`` before the next key is handed on (``Widget.focus`` waits for the
        keys already queued, which then go to the widget focused before)."""
        self.screen.set_focus(widget)

    def _view_widget(self) -> Widget:
        return self.query_one(f"#{self.tabs.active}-view")

    def _panes(self) -> list[Widget]:
        """The panes tab visits, in order: the list, the open view's parts, the details."""
        panes: list[Widget] = []
        if self.trace_list.display:
            panes.append(self.trace_list.trace_tree)
        pane = self.tabs.get_pane(self.tabs.active) if self.tabs.active else None
        if pane is not None and self.tabs.display:
            panes += [w for w in pane.query("*") if w.focusable]
        if self.details.display:
            panes.append(self.details)
        return panes

    def _cycle_panes(self, step: int) -> None:
        panes = self._panes()
        if not panes:
            return
        at = next((k for k, pane in enumerate(panes) if self._focus_within(pane)), -1)
        if at < 0 and step < 0:
            at = 0
        self._focus_now(panes[(at + step) % len(panes)])

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Tab and shift+tab are the app's (priority: the views must not take them) on its
        # own screen only: over a window (the help, the palette) they are that window's.
        if action in ("next_pane", "previous_pane"):
            return self.screen is self.screen_stack[0]
        # `/` is the app's before any widget's, so that the letters typed right after it go
        # into the box: a key is handed to the widget focused when the app takes it from
        # the terminal, and letters handed to the list are not typed. (A binding is found
        # when its key comes back up to the app, among the bindings of the focus then: the
        # actions below move the focus at once, and the keys after them act where they put
        # it.) In the box, or over a window, `/` is typed, or theirs.
        # `d` and `l` show or hide a pane tab goes to: they are the app's first, as tab is,
        # or `d tab` typed at once would run tab (a priority key) before `d`.
        if action in ("filter", "toggle_details", "toggle_list"):
            return self.screen is self.screen_stack[0] and not isinstance(self.focused, Input)
        return True

    def action_next_pane(self) -> None:
        self._cycle_panes(1)

    def action_previous_pane(self) -> None:
        self._cycle_panes(-1)

    def _focus_within(self, widget: Widget) -> bool:
        focused = self.focused
        return focused is not None and widget in focused.ancestors_with_self

    def action_toggle_details(self) -> None:
        self.details.display = not self.details.display
        if not self.details.display and self._focus_within(self.details):
            self._focus_now(self._view_widget())

    def action_toggle_list(self) -> None:
        """Hide the list (focus goes to the view) or show it (focus goes to it)."""
        shown = not self.trace_list.display
        self.trace_list.display = shown
        if not shown and self.not_a_trace is not None:
            # The list's cursor out of sight: what is shown is the open trace, and the cursor
            # goes to it (shown again, the list and the header name the same file).
            self._back_to_the_open_trace()
            if self.current is not None:
                self.trace_list.select(self.current.address)
        if shown:
            self._focus_now(self.trace_list.trace_tree)
        elif self._focus_within(self.trace_list):
            self._focus_now(self._view_widget())

    def action_mark(self) -> None:
        """Mark the trace under the list cursor (in the list) or the open one as A; again to
        unmark. On a folder row, the trace the cursor was last on."""
        row = self._list_row()
        address = row.key if row is not None and row.kind == "trace" else None
        if address is None:
            if self._said_not_a_trace("mark", row.skipped if row is not None else None):
                return
            if row is not None:
                address = self.trace_list.selected
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
            from .widgets.compare_pane import ALONE_TO_COMPARE

            then = ALONE_TO_COMPARE if self._alone else "open another trace, then 5 compares them"
            self.notify(f"Marked {visible(address)} as A: {then}", timeout=4, markup=False)
        self._refresh_active_view(keep=False)

    def action_export(self) -> None:
        """Write the open trace's report (``replay_tui.share``) and say where it went."""
        if self._said_not_a_trace("export"):
            return
        if self.current is None or self.partial:
            self.notify("Open a trace to export it.", severity="warning", timeout=2, markup=False)
            return
        self._export(self.current)

    @work(thread=True, group="export", description="export")
    def _export(self, trace: Trace) -> None:
        from ..share import deliver_notice, export_notice

        if self.is_web:  # served: the report goes to the person at the browser
            message, ok = deliver_notice(trace, self._deliver_text)
        else:
            message, ok = export_notice(trace)
        severity = "information" if ok else "error"
        self.call_from_thread(self.notify, message, severity=severity, timeout=8, markup=False)

    def _deliver_text(self, text: io.StringIO, *, save_filename: str, mime_type: str) -> None:
        """``deliver_text`` (a download in the browser) on the app's thread, from the export
        worker."""
        self.call_from_thread(
            lambda: self.deliver_text(text, save_filename=save_filename, mime_type=mime_type)
        )

    async def action_toggle_runs(self) -> None:
        await self.action_show_tab("diff")
        self.diff_view.action_toggle_all_runs()

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        self.push_screen(HelpScreen(binding_sections(), self.keymap_overrides))

    def _walk_flags(self, forward: bool) -> None:
        view = self.calls_view
        model = view.model
        found = view.selected_delta()
        position = found[1].position if found else None
        step = model.walk_flags(view.cursor, position, forward) if model is not None else None
        if step is None:
            self.notify(no_flags_text(self.current), timeout=5, markup=False)
            return
        row, said = step
        view.move_cursor(row, center=True)
        self.notify(said, timeout=2, markup=False)

    def action_next_flag(self) -> None:
        if not self._said_not_a_trace("walk the flags of"):
            self._walk_flags(True)

    def action_previous_flag(self) -> None:
        if not self._said_not_a_trace("walk the flags of"):
            self._walk_flags(False)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast: a long path in it wraps between its parts (:mod:`.toasts`)."""
        if not markup:
            message = toast_text(message, self.size.width)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def on_notify(self, event: Notify) -> None:
        """A message said again (n pressed three times on a trace with no flags) replaces the
        one on screen instead of piling up over the details (after Textual's ``_on_notify``
        has added the new one)."""
        new = event.notification
        said = (new.message, new.title, new.severity)
        for old in list(self._notifications):
            if old is not new and (old.message, old.title, old.severity) == said:
                self._unnotify(old)

    def action_copy(self) -> None:
        focused = self.focused
        got: tuple[str, str] | None = None
        if focused is not None and (
            focused is self.trace_list.trace_tree or focused.id == "trace-filter"
        ):
            row = self._list_row()
            skipped = (row.skipped if row is not None else None) or self.not_a_trace
            if row is not None and row.kind == "trace":
                got = (self._path_of(row.key), "the trace's path")
            elif skipped is not None:
                got = (self._path_of(skipped.path, skipped), "the file's path")
            elif self.trace_list.selected:
                got = (self._path_of(self.trace_list.selected), "the trace's path")
        elif focused is self.details:
            got = self.details.copy_text()
        else:
            from .widgets.clients_view import ClientsMatrix
            from .widgets.compare_view import CompareView
            from .widgets.diff_view import DiffView
            from .widgets.raw_view import RawView

            view = self.query_one(f"#{self.tabs.active}-view")
            if isinstance(view, CallsView | DiffView | RawView | ClientsMatrix | CompareView):
                got = view.copy_text()
        if got is None:
            self.notify("Nothing selected to copy.", severity="warning", timeout=2, markup=False)
            return
        text, what = got
        copy(self, text, what)

    def _path_of(self, address: str, skipped: Skipped | None = None) -> str:
        """A listed file as a shell started where replay-tui was names it (see
        :meth:`TraceStore.shell_path`)."""
        return self.store.shell_path(address, skipped, self.paths)


make_app = ReplayApp
"""The app over ``paths``, as the CLI runs it and the tests drive it (see :class:`ReplayApp`)."""


def run_app(
    paths: list[str],
    watch: bool,
    recorder: Recorder | None = None,
    *,
    jobs: int | None = None,
    cache: bool = True,
    compare: tuple[str, str] | None = None,
) -> int:
    """Run the TUI (called by the CLI); returns the exit status."""
    paused = not gc.isenabled()  # (cli/tui.py pauses the collector before Textual's import)
    keymap, problem = load_keymap()
    app = make_app(
        paths,
        watch=watch,
        keymap=keymap,
        recorder=recorder,
        jobs=jobs,
        cache=cache,
        compare=compare,
    )
    # Said once: on stderr (still there when the screen closes) and as a toast (on mount).
    if problem:
        app.keymap_problems.insert(0, problem)
    for line in app.keymap_problems:
        print(f"replay-tui: {visible(line)}", file=sys.stderr)
    app.collect_after_start = paused
    result = app.run()
    if app.fatal is not None:
        print(f"replay-tui: {visible(app.fatal)}", file=sys.stderr)
        return 2
    if recorder is not None:
        print(
            f"replay-tui: recorder stopped; {plural(recorder.request_count, 'request')}, "
            f"{plural(recorder.capture_count, 'capture')} in {visible(str(recorder.out_dir))}/",
            file=sys.stderr,
        )
    # An unhandled error has been shown by Textual, and its status is not 0.
    return result if isinstance(result, int) else (app.return_code or 0)
