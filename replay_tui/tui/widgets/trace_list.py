"""The trace list: folders and files, a badge per trace, a text and verdict filter.

Files are listed as soon as the walk finds them and show ``pending`` until judged; badges
then fill in. The list is virtual (a :class:`~textual.scroll_view.ScrollView` drawing only the
rows on screen from a :class:`~replay_tui.tui.listing.Listing`), so a folder of 100,000
captures lists at once and filters as fast as it is typed. Adding, replacing or removing
traces (live reload) keeps the selection and the scroll position.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import ClassVar, Literal

from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Static

from ...core.discovery import Skipped
from ...core.result import Judgement
from ...core.visible import visible
from ..cells import cell_len, middle_cut, middle_split
from ..listing import SKIPPED, Listing, Row

__all__ = ["BADGE_GLYPHS", "TraceList", "TraceTree", "cut_middle"]

BADGE_GLYPHS: dict[str, str] = {
    "erasing": "✗",
    "refused": "⊘",
    "broken": "!",
    "in progress": "◌",
    "clean": "✓",
    "pending": "·",
    "skipped": "–",
}
BADGE_WIDTH = 15
"""Cells of a badge and its word (the longest, ``◌ in progress``, then two spaces: one
read as part of the name)."""


def cut_middle(text: Text, width: int) -> Text:
    """``text`` in ``width`` cells, cut in its middle with "…" when longer (see
    :func:`~replay_tui.tui.cells.middle_cut`), each part keeping its style."""
    if text.cell_len <= width:
        return text
    if width <= 1:
        return Text("…"[:width], text.style)
    start, end = middle_split(text.plain, width)
    cut = text[:start]
    cut.append("…")
    cut.append_text(text[end:])
    return cut


_LABEL_COMPONENTS = (
    "trace-tree--erasing",
    "trace-tree--refused",
    "trace-tree--broken",
    "trace-tree--in-progress",
    "trace-tree--clean",
    "trace-tree--pending",
    "trace-tree--skipped",
    "trace-tree--count",
    "trace-tree--alarm",
    "trace-tree--marked",
    "trace-tree--folder",
)
"""The component classes a row's label is made with (the cursor's is laid over it)."""


class TraceTree(ScrollView, can_focus=True):
    """The list itself, virtual: only the rows on screen are drawn, from the
    :class:`~replay_tui.tui.listing.Listing`, so 100,000 traces cost no widget each."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {*_LABEL_COMPONENTS, "trace-tree--cursor"}

    DEFAULT_CSS = """
    TraceTree {
        background: $surface;
        color: $foreground;
        scrollbar-gutter: stable;
        overflow-x: hidden;
        & > .trace-tree--erasing { color: $text-error; text-style: bold; }
        & > .trace-tree--refused { color: $text-warning; text-style: bold; }
        & > .trace-tree--broken { color: $text-secondary; text-style: bold; }
        & > .trace-tree--in-progress { color: $text-accent; text-style: bold; }
        & > .trace-tree--clean { color: $text-success; }
        & > .trace-tree--pending { color: $text-disabled; }
        & > .trace-tree--skipped { color: $text-disabled; text-style: italic; }
        & > .trace-tree--count { color: $text-muted; }
        & > .trace-tree--alarm { color: $text-error; }
        & > .trace-tree--marked { color: $text-accent; text-style: bold; }
        & > .trace-tree--folder { }
        & > .trace-tree--cursor {
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .trace-tree--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open", id="open-trace"),
        Binding("space", "toggle_node", "Fold", show=False, id="toggle-folder"),
        Binding("up,k", "cursor_up", "Up", show=False, id="list-up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="list-down"),
        Binding("pageup", "page_up", "Page up", show=False, id="list-page-up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="list-page-down"),
        Binding("home", "first", "First", show=False, id="list-first"),
        Binding("end", "last", "Last", show=False, id="list-last"),
        Binding("left", "fold", "Fold", show=False, id="list-fold"),
        Binding("right", "unfold", "Unfold", show=False, id="list-unfold"),
    ]

    class Moved(Message):
        """The user moved the cursor onto ``row``."""

        def __init__(self, row: Row) -> None:
            super().__init__()
            self.row = row

    class Chosen(Message):
        """The user chose ``row`` (enter, click)."""

        def __init__(self, row: Row) -> None:
            super().__init__()
            self.row = row

    def __init__(self, listing: Listing, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.listing = listing
        self._cursor = -1
        self.at: tuple[str, str] | None = None
        """What the cursor was put on, ``(kind, key)`` of its row: the same thing after the
        items change and the rows are rebuilt (where the row number may not be)."""
        self.marked: str | None = None
        """The trace marked as A for the compare view."""
        self.focus_when_chosen: Widget | None = None
        """Where the focus goes when enter chooses a trace (the app's calls view)."""
        self._strips: dict[tuple[object, ...], Strip] = {}
        """Rows as drawn, by what they show and how they are styled."""
        self._labels: dict[tuple[object, ...], Strip] = {}
        """Rows' labels as laid out, by what they show (before the focus's and the cursor's
        styles) and the component styles they were made with (:meth:`_palette`)."""
        self._palettes: dict[tuple[Style, ...], int] = {}
        self._palette_now: int | None = None

    compact = False
    """Badges as glyphs only (a narrow list): ``✗ name`` instead of ``✗ erasing    name``."""

    # -- what the list shows -----------------------------------------------------------------

    def badge_of(self, address: str) -> str:
        return self.listing.badge_of(address)

    @property
    def cursor(self) -> int:
        """The row under the cursor (-1: none)."""
        return self._cursor

    @cursor.setter
    def cursor(self, n: int) -> None:
        self._cursor = n
        if 0 <= n < len(self.listing.rows):
            row = self.listing.row(n)
            self.at = (row.kind, row.key)
        else:
            self.at = None

    @property
    def cursor_row(self) -> Row | None:
        """What the cursor is on (None: nothing)."""
        if 0 <= self.cursor < len(self.listing.rows):
            return self.listing.row(self.cursor)
        return None

    @property
    def line_count(self) -> int:
        return len(self.listing.rows)

    def lines(self) -> list[str]:
        """Every row as plain text, top to bottom (what scrolling through would show)."""
        return [self.label(n).plain for n in range(len(self.listing.rows))]

    def label_of(self, key: str) -> Text | None:
        """The row showing the trace (or folder) ``key`` as text; None: it has no row now."""
        n = self.listing.row_of(key)
        if n is None:
            n = self.listing.folder_row(key)
        return self.label(n) if n is not None else None

    def rows_changed(self) -> None:
        """The listing's rows were rebuilt: a new virtual size, every line redrawn."""
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.listing.rows))
        if self.cursor >= len(self.listing.rows):
            self.cursor = len(self.listing.rows) - 1
        self.refresh()

    def shows_any(self, addresses: Sequence[str]) -> bool:
        """Whether a row on screen shows one of the traces ``addresses``."""
        rows, items = self.listing.rows, self.listing.shown_items
        top = self.scroll_offset.y
        on_screen = [rows[n] for n in range(top, min(top + self.size.height, len(rows)))]
        keys = {items[i] for i in on_screen if i >= 0}
        return not keys.isdisjoint(addresses)

    def _s(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def label(self, n: int) -> Text:
        """Row ``n`` as a line of text, cut to the width (0 before the first layout: uncut)."""
        return self._label(self.listing.row(n))

    def _label(self, row: Row) -> Text:
        head = Text("  " * row.depth)
        tail = Text()
        if row.kind == "trace":
            badge = self.badge_of(row.key)
            glyph = BADGE_GLYPHS.get(badge, "?")
            head.append(
                f"{glyph} " if self.compact else f"{glyph} {badge}".ljust(BADGE_WIDTH),
                self._s("trace-tree--" + badge.replace(" ", "-")),
            )
            if row.key == self.marked:
                head.append("◆A ", self._s("trace-tree--marked"))
            name = Text(visible(row.name))
        elif row.kind == "skipped":
            head.append(
                "– " if self.compact else "– skipped".ljust(BADGE_WIDTH),
                self._s("trace-tree--skipped"),
            )
            name = Text(visible(row.name), self._s("trace-tree--skipped"))
        else:
            folder = row.folder
            assert folder is not None
            head.append("▸ " if folder.collapsed else "▾ ")
            name = Text(
                visible(row.name) + ("" if folder.is_file else "/"),
                self._s("trace-tree--folder"),
            )
            if folder.count:  # (a folder of files that are not traces counts none)
                tail.append(f"  {folder.count:,}", self._s("trace-tree--count"))
            if folder.erasing:
                alarm = (
                    f" {folder.erasing:,}✗" if self.compact else f" · {folder.erasing:,} erasing"
                )
                tail.append(alarm, self._s("trace-tree--alarm"))
        room = self.scrollable_content_region.width - head.cell_len
        if room > 0 and name.cell_len + tail.cell_len > room:
            # A name that does not fit is cut with "…" (the counts go first): in its middle,
            # keeping its end, where copies of a capture differ ("bedrock-par…term-17.sse").
            if name.cell_len + min(tail.cell_len, 4) > room:
                tail = Text()
            if name.cell_len + tail.cell_len > room:
                fit = max(1, room - tail.cell_len)
                if row.kind == "trace" and "#" in row.key and row.name.startswith("#"):
                    # A HAR entry: "#4 14:22:09 POST /v1/…", told apart by its start.
                    name.truncate(fit, overflow="ellipsis")
                else:
                    name = cut_middle(name, fit)
        return Text.assemble(head, name, tail)

    def render_line(self, y: int) -> Strip:
        n = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if not 0 <= n < len(self.listing.rows):
            return Strip.blank(width, base)
        row = self.listing.row(n)
        folder = row.folder
        # A row drawn again as it was is not made again: a frame draws every row on screen
        # (a rebuild, a batch's badges), most of them unchanged.
        what = (
            row.kind,
            row.key,
            row.name,
            row.depth,
            self.badge_of(row.key) if row.kind == "trace" else "",
            (folder.count, folder.erasing, folder.collapsed, folder.is_file) if folder else None,
            row.key == self.marked,
            self.compact,
            width,
        )
        palette = self._palette()
        cursor = self._s("trace-tree--cursor") if n == self.cursor else None
        key = (what, base, cursor, palette)
        strip = self._strips.get(key)
        if strip is not None:
            return strip
        # The label as laid out, apart from the styles the focus and the cursor give it: a
        # change of focus (`/`, enter) styles the rows on screen again, it does not make them.
        label = self._labels.get((what, palette))
        if label is None:
            text = self._label(row)
            label = Strip(list(text.render(self.app.console)), text.cell_len)
            label = label.extend_cell_length(width).crop(0, width)
            if len(self._labels) >= 1024:
                self._labels.clear()
            self._labels[what, palette] = label
        strip = label.apply_style(base if cursor is None else base + cursor)
        if len(self._strips) >= 1024:
            self._strips.clear()
        self._strips[key] = strip
        return strip

    def on_mount(self) -> None:
        # The scrollbar Textual makes once the rows overflow is given no styles until the
        # list's own are applied again, which a change of focus does: the first `/` set its
        # rules for the first time, its width among them, and that laid the whole screen out
        # again and drew every widget (issue 33: the first filter key after `/`, 108-128 ms
        # on 100,000 captures while they were judged). Styled now, before it shows, the
        # first `/` restyles the list as every later one does.
        self.app.stylesheet.apply(self.vertical_scrollbar)

    def _palette(self) -> int:
        """The component styles the rows' labels are made with (all but the cursor's), as a
        number: labels made with others (another theme's colours) are not used. Looked at
        once a render of the list. A change of focus styles the list again but changes none
        of them (only the cursor's): the rows on screen were made again for every `/` and
        enter (their labels were thrown away with the styles), and are now only styled
        again."""
        if self._palette_now is None:
            styles = tuple(self._s(name) for name in _LABEL_COMPONENTS)
            found = self._palettes.get(styles)
            if found is None:
                if len(self._palettes) >= 16:
                    self._palettes.clear()
                    self._strips.clear()
                    self._labels.clear()
                found = self._palettes[styles] = len(self._palettes)
            self._palette_now = found
        return self._palette_now

    def render_lines(self, crop: Region) -> list[Strip]:
        self._palette_now = None  # (the styles may have changed since the last render)
        return super().render_lines(crop)

    def on_resize(self) -> None:
        # Labels are cut to the width: a new width means new labels.
        self.rows_changed()

    # -- the cursor --------------------------------------------------------------------------

    def move_to(self, n: int, *, announce: bool = True) -> None:
        """Put the cursor on row ``n`` (clamped) and scroll it into view; ``announce``: tell
        the list (a move by the user, not by the program)."""
        count = len(self.listing.rows)
        if count == 0:
            self.cursor = -1
            self.refresh()
            return
        n = max(0, min(n, count - 1))
        old, self.cursor = self.cursor, n
        self._refresh_row(old)
        self._refresh_row(n)
        self.scroll_to_show(n)
        if announce:
            self.post_message(self.Moved(self.listing.row(n)))

    def scroll_to_show(self, n: int, *, center: bool = False) -> None:
        self.scroll_to_region(
            Region(0, n, max(1, self.scrollable_content_region.width), 1),
            animate=False,
            center=center,
            force=True,
        )

    def _refresh_row(self, n: int) -> None:
        if n >= 0:
            self.refresh(Region(0, n - self.scroll_offset.y, self.size.width, 1))

    def action_cursor_up(self) -> None:
        self.move_to(self.cursor - 1 if self.cursor > 0 else 0)

    def action_cursor_down(self) -> None:
        self.move_to(self.cursor + 1)

    def action_page_up(self) -> None:
        self.move_to(self.cursor - max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self.move_to(self.cursor + max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(len(self.listing.rows) - 1)

    def action_select_cursor(self) -> None:
        row = self.cursor_row
        if row is None:
            return
        if row.kind == "folder":
            self.toggle(row.key)
        else:
            self.post_message(self.Chosen(row))
            if row.kind == "trace" and self.focus_when_chosen is not None:
                # At once, not when the choice comes round to the app: the keys typed
                # right after enter (↓ in one burst) are the view's.
                self.screen.set_focus(self.focus_when_chosen)

    def action_toggle_node(self) -> None:
        row = self.cursor_row
        if row is not None and row.kind == "folder":
            self.toggle(row.key)

    def action_fold(self) -> None:
        """Fold the folder under the cursor, or go to the folder a trace is in."""
        row = self.cursor_row
        if row is None:
            return
        if row.kind == "folder" and row.folder is not None and not row.folder.collapsed:
            self.toggle(row.key)
            return
        for n in range(self.cursor - 1, -1, -1):
            above = self.listing.row(n)
            if above.kind == "folder" and above.depth < row.depth:
                self.move_to(n)
                return

    def action_unfold(self) -> None:
        row = self.cursor_row
        if row is not None and row.folder is not None and row.folder.collapsed:
            self.toggle(row.key)

    def toggle(self, key: str) -> None:
        """Fold or unfold a folder; the cursor stays on it."""
        collapsed = self.listing.collapsed
        if key in collapsed:
            collapsed.discard(key)
        else:
            collapsed.add(key)
        self.listing.build()
        self.rows_changed()
        n = self.listing.folder_row(key)
        if n is not None:
            self.move_to(n, announce=False)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        n = self.scroll_offset.y + offset.y
        if not 0 <= n < len(self.listing.rows):
            return
        self.focus()
        self.move_to(n, announce=False)
        row = self.listing.row(n)
        if row.kind == "folder":
            self.toggle(row.key)
        elif row.kind == "trace":
            self.post_message(self.Chosen(row))
        else:
            self.post_message(self.Moved(row))


class FilterBox(Input):
    """The list's filter box. Its hint says how to leave it: the filter stays (`escape` does
    the same; from the list, `escape` clears it)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Keep filter"),
        # (the app's escape, said in the footer here: the filter stays, and a second escape,
        # from the list, clears it)
        Binding("escape", "app.escape", "Leave (esc again: clear)", id="filter-escape"),
    ]

    def __init__(self, *, placeholder: str, id: str) -> None:
        super().__init__(placeholder=placeholder, id=id)
        self.on_leave: Callable[[], None] | None = None
        """What leaving the box does (the list's: focus it, its cursor on a match), done as
        enter is pressed, before the keys typed after it are taken: `/late ⏎ ⏎` opens."""

    async def action_submit(self) -> None:
        if self.on_leave is not None:
            self.on_leave()
        await super().action_submit()


class TraceList(Vertical):
    """The list pane: the filter box and the list."""

    DEFAULT_CSS = """
    TraceList {
        & > Input { border: none; height: 1; padding: 0 1; margin: 0 0 1 0; background: $boost; }
        & > Input:focus { border: none; background: $primary 30%; }
        & > #list-empty { height: auto; padding: 0 1; color: $text-muted; display: none; }
        & > #list-empty.-shown { display: block; }
        & > TraceTree { height: 1fr; }
    }
    """

    COMPACT_BELOW = 50
    """A list narrower than this shows badges as glyphs only: the words (which the header
    and the help say too) would take the room that tells names apart (at 120 columns the
    list is 42 wide: with the words, a name had 24 cells; recorded captures differ at their
    end, bundled ones in their middle)."""

    REBUILD_NOW_BELOW = 5000
    """A list with fewer items is rebuilt at once when judgements arrive; a bigger one at most
    every :meth:`rebuild_every` seconds (its badges on screen are redrawn at once)."""

    def rebuild_every(self) -> float:
        """Seconds between rebuilds while judgements arrive: a rebuild costs ~0.5 µs per item,
        so a list of 100,000 (50 ms) waits longer (2.5 s) than one of 10,000 (5 ms; 0.3 s),
        keeping the UI thread's share of the judging small (its badges on screen are drawn
        as they come; the folders' counts and a HAR file's entries come with the rebuild)."""
        n = len(self.listing.items)
        return 0.3 if n < 20_000 else min(3.0, n / 40_000)

    class TraceHighlighted(Message):
        """The cursor is on a trace (open it for preview)."""

        def __init__(self, address: str) -> None:
            super().__init__()
            self.address = address

    class TraceChosen(Message):
        """A trace was chosen (enter or click): open it and go to it."""

        def __init__(self, address: str) -> None:
            super().__init__()
            self.address = address

    class SkippedHighlighted(Message):
        """The cursor is on a file that is not a trace."""

        def __init__(self, skipped: Skipped) -> None:
            super().__init__()
            self.skipped = skipped

    class FilterChanged(Message):
        def __init__(self, visible_traces: int) -> None:
            super().__init__()
            self.visible_traces = visible_traces

    def __init__(
        self,
        judgements: Mapping[str, Judgement],
        by_badge: Mapping[str, set[str]] | None = None,
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.listing = Listing(judgements, by_badge or {})
        self.trace_tree = TraceTree(self.listing, id="trace-tree")
        self.filter_input = FilterBox(
            placeholder="/ filter: name, verdict, model, URL", id="trace-filter"
        )
        self.filter_input.on_leave = self.leave_filter
        self.empty_note = Static(id="list-empty")
        """Why the list is empty (kept: late worker messages reach it during shutdown too)."""
        self.selected: str | None = None
        self.open_address: str | None = None
        """The trace the views show (the app's), said under the filter when it hides it."""
        self._empty_reason: str | None = None
        self._empty_said = ""
        """What :attr:`empty_note` says."""
        self._entered = False
        self._rebuild_due = False
        self._rebuild_due_since = 0.0
        self._rebuild_timer: Timer | None = None
        self.keys_wait: Callable[[float], float] = lambda since: 0.0
        """How long a rebuild due since then (``time.monotonic``) waits for the keys being
        typed (the app's: a big list's rebuild is a frame of 50 ms or more)."""

    @property
    def text_filter(self) -> str:
        return self.listing.text

    @property
    def badge_filter(self) -> str | None:
        return self.listing.badge

    @property
    def file_roots(self) -> tuple[str, ...]:
        """Folders of the files named on the command line: left out of the list, so that
        ``/tmp/rt/x.har`` lists ``x.har`` and its entries, not ``tmp/ → rt/ → x.har``."""
        return self.listing.file_roots

    @file_roots.setter
    def file_roots(self, roots: tuple[str, ...]) -> None:
        self.listing.file_roots = roots

    def compose(self) -> ComposeResult:
        yield self.filter_input
        yield self.empty_note
        yield self.trace_tree

    def on_resize(self) -> None:
        # The placeholder says what the filter reads when there is room, else just the key.
        wide = self.size.width >= 40
        self.filter_input.placeholder = (
            "/ filter: name, verdict, model, URL" if wide else "/ to filter"
        )
        compact = self.size.width < self.COMPACT_BELOW
        if compact != self.trace_tree.compact:
            self.trace_tree.compact = compact
            self.trace_tree.refresh()
        self._show_empty(self.listing.shown)  # (its lines are cut to the width)

    @property
    def filtering(self) -> bool:
        """A text or verdict filter is in force."""
        return self.listing.filtering

    def show_open(self, address: str | None) -> None:
        """The views show ``address``: said under the filter box while the filter hides it."""
        if address != self.open_address:
            self.open_address = address
            self._show_empty(self.listing.shown)

    def _show_empty(self, shown: int) -> None:
        """Say why the list is empty (nothing matches the filter, nothing was found), and
        which trace the views show when the filter hides it: filtering never changes the
        open trace, and the list must not pass for what is open."""
        note = self.empty_note
        lines = []
        has_traces = len(self.listing.items) > len(self.listing.skipped)
        needle = self.text_filter.strip()
        if self.badge_filter == SKIPPED:
            if not self.listing.shown_skipped:
                lines.append(
                    f"no file that is not a trace matches `{needle}`"
                    if needle
                    else "every file here is a trace"
                )
        elif shown == 0 and has_traces and self.filtering:
            what = f"{self.badge_filter} trace" if self.badge_filter else "trace"
            said = f"no {what} matches `{needle}`" if needle else f"no {what} here"
            n = self.listing.shown_skipped  # (the rows below match: they are no traces)
            if n == 1:
                said += "; 1 file that is not a trace"
            elif n:
                said += f"; {n:,} files that are not traces"
            lines.append(said)
        elif not has_traces and self._entered:
            lines.append(self._empty_reason or "no trace found")
        opened = self.open_address
        gone = opened is not None and not self.listing.has(opened)
        if opened is not None and (self.filtering or gone) and self.listing.row_of(opened) is None:
            name = visible(opened).rpartition("/")[2]
            why = "(deleted)" if gone else "(filtered out)"
            said = f"open: {name} {why}"
            room = self.size.width - 2  # (the note's padding)
            if room > 0 and cell_len(said) > room:  # one name per line, cut in its middle
                said = f"open: {middle_cut(name, max(room - 6, 8))}\n{why}"
            lines.append(said)
        text = "\n".join(lines)
        if text != self._empty_said:  # (an update lays the screen out again: each rebuild)
            self._empty_said = text
            note.update(Content(text))
            note.set_class(bool(text), "-shown")

    # -- content -----------------------------------------------------------------------------

    def set_entries(
        self,
        addresses: Sequence[str],
        skipped: Sequence[Skipped],
        results: Sequence[tuple[str, Sequence[str], Sequence[Skipped]]] = (),
        judged: Sequence[str] = (),
        hays: Mapping[str, str] | None = None,
    ) -> None:
        """The list's content: traces (or files not judged yet) in list order, and the files
        that hold no trace; those judged already (see :meth:`resolve`) are shown judged by
        the same, single, rebuild (a folder re-opened from the judgement cache)."""
        self.listing.set_items(addresses, skipped)
        self._entered = True
        self._resolved(results, judged, hays)
        self.rebuild()

    def set_listed(
        self, items: Sequence[str], skipped: Sequence[Skipped], became: Mapping[str, Sequence[str]]
    ) -> None:
        """The list's content as the judgement cache knew it: the items in list order (a HAR
        file's entries in its place, the files that hold no trace among them), and what each
        file that is not one trace under its own address ``became`` (as :meth:`set_entries`
        with its results, without a file put in its place one by one)."""
        self.listing.set_items(items, skipped, among=True)
        self._entered = True
        traces = became.get(self.selected) if self.selected is not None else None
        if traces and self.selected not in traces:
            self.selected = traces[0]
        self.rebuild()

    def set_skipped(self, skipped: Sequence[Skipped]) -> None:
        """The files that are not traces changed (live reload)."""
        self.listing.set_skipped(skipped)
        self.rebuild()

    def say_empty(self, reason: str | None) -> None:
        """Why the list is empty when it is (a watched folder was deleted); None: the default."""
        if reason != self._empty_reason:
            self._empty_reason = reason
            self._show_empty(self.listing.shown)

    def apply_changes(
        self,
        added: Sequence[str],
        removed: Sequence[str],
        renamed: Sequence[tuple[str, str]] = (),
    ) -> None:
        """A batch of live changes, with one rebuild: a burst of 200 new captures into a
        3,000-trace folder redraws the list once, not 200 times. A renamed trace keeps the
        selection if it had it."""
        index, skipped = self.listing.index, self.listing.skipped
        # A trace whose file now holds none (emptied, overwritten with something else) keeps
        # its row: the file is listed as not a trace (set_skipped came first).
        gone = [
            a for a in [*removed, *(old for old, _ in renamed)] if a in index and a not in skipped
        ]
        fresh = [a for a in [*added, *(new for _, new in renamed)] if a not in index]
        refreshed = [a for a in added if a in index]
        for old, new in renamed:
            if self.selected == old:
                self.selected = new
        if self.selected in gone:
            self.selected = None
        if not gone and not fresh:
            if refreshed:
                self.refresh_traces(refreshed)
            return
        self.listing.remove(gone)
        self.listing.add(fresh)
        self.listing.judged(refreshed)
        self.rebuild()

    def resolve(
        self,
        results: Sequence[tuple[str, Sequence[str], Sequence[Skipped]]],
        judged: Sequence[str] = (),
        hays: Mapping[str, str] | None = None,
    ) -> None:
        """Listed files were judged: each ``(address, traces, skipped)`` puts the traces it
        holds (a HAR file: its entries), or why it holds none, in its place; ``judged``: files
        that turned out to be one trace each (their rows stay). ``hays``: what the filter
        reads of them, if made already."""
        self._resolved(results, judged, hays)
        self._rebuild_soon(() if results else judged)

    def _resolved(
        self,
        results: Sequence[tuple[str, Sequence[str], Sequence[Skipped]]],
        judged: Sequence[str],
        hays: Mapping[str, str] | None,
    ) -> None:
        addresses = list(judged)
        self.listing.replace_all(results)
        for address, traces, _ in results:
            addresses += traces
            if self.selected == address and traces and address not in traces:
                self.selected = traces[0]
        self.listing.judged(addresses, hays)

    def refresh_traces(self, addresses: Sequence[str]) -> None:
        """Judgements of these traces changed: their rows are redrawn, the counts and the
        filter follow."""
        self.listing.judged(addresses)
        self._rebuild_soon()

    def _rebuild_soon(self, judged: Sequence[str] = ()) -> None:
        """``judged``: the only traces whose badges changed, if that is all that did (their
        rows are drawn again only if on screen: a big folder's judging is mostly of rows
        out of sight, and drawing the list's screenful again for each batch would cost the
        UI thread a frame's work each time)."""
        if len(self.listing.items) < self.REBUILD_NOW_BELOW:
            self.rebuild()
            return
        if not judged or self.trace_tree.shows_any(judged):
            self.trace_tree.refresh()  # badges on screen now; counts and order with the rebuild
        if not self._rebuild_due:
            self._rebuild_due_since = time.monotonic()
        self._rebuild_due = True
        # One timer at a time: a rebuild meanwhile (a filter key) left its timer running, and
        # the next batch set another; ten keys made the list rebuild every quarter second.
        if self._rebuild_timer is None:
            self._rebuild_timer = self.set_timer(self.rebuild_every(), self._rebuild_when_due)

    @property
    def rebuild_pending(self) -> bool:
        """Judgements came in that the rows (their counts and order) do not show yet: a
        rebuild is due (a big list's, at most every :meth:`rebuild_every` seconds)."""
        return self._rebuild_due

    def _rebuild_when_due(self) -> None:
        self._rebuild_timer = None
        if not self._rebuild_due:
            return
        wait = self.keys_wait(self._rebuild_due_since)
        if wait > 0:
            self._rebuild_timer = self.set_timer(wait, self._rebuild_when_due)
            return
        self.rebuild()

    def set_marked(self, address: str | None) -> None:
        """Show ``address`` (or nothing) as the trace marked for comparison."""
        self.trace_tree.marked = address
        self.trace_tree.refresh()

    @property
    def addresses(self) -> list[str]:
        """Traces in list order (all of them, filtered or not)."""
        return self.listing.traces

    def visible_addresses(self) -> list[str]:
        return self.listing.visible()

    # -- filtering ---------------------------------------------------------------------------

    def set_filter(
        self, text: str | None = None, badge: str | Literal[False] | None = False
    ) -> None:
        """Filter by ``text`` and/or by ``badge`` (``None`` clears it; ``False`` leaves it)."""
        if text is not None:
            self.listing.text = text
        if badge is not False:
            self.listing.badge = badge
        self.rebuild()

    # -- the rows ----------------------------------------------------------------------------

    def rebuild(self) -> None:
        """Rebuild the rows for the filter; the cursor stays on its row (a trace, a folder, a
        file that is not a trace) if still listed, else on the open trace if listed.

        Quietly: a rebuild never announces a move, so filtering never opens another trace.
        (A trace that finishes loading rebuilds the list: the cursor may have gone on since,
        and must not be pulled back to it.)"""
        self._rebuild_due = False
        tree, listing = self.trace_tree, self.listing
        here = tree.at  # (the items may have changed already: the row numbers are stale)
        listing.build()
        tree.rows_changed()
        n = None
        if here is not None:
            kind, key = here
            n = listing.folder_row(key) if kind == "folder" else listing.row_of(key)
        keep = self.selected
        if n is None and keep is not None:
            n = listing.row_of(keep)
        if n is not None:
            tree.cursor = n
            self.call_after_refresh(self._show_cursor)
        elif keep is not None:
            tree.cursor = -1
        self._show_empty(self.listing.shown)
        self.post_message(self.FilterChanged(self.listing.shown))

    def _show_cursor(self) -> None:
        tree = self.trace_tree
        if tree.cursor < 0:
            return
        top = tree.scroll_offset.y
        height = tree.scrollable_content_region.height
        if not top <= tree.cursor < top + height:
            tree.scroll_to_show(tree.cursor, center=True)

    def select(self, address: str, *, focus: bool = False) -> None:
        """Put the cursor on ``address`` (quietly: no highlight message)."""
        self.selected = address
        n = self.listing.row_of(address)
        if n is not None:
            self._cursor_to(n)
        if focus:
            self.trace_tree.focus()

    def land_cursor(self) -> None:
        """The cursor on a row the list shows, so that down and enter do the obvious thing
        once the filter is left (escape, enter) or changed by a key (``v``, a count): on the
        selected trace (the open one) if it is shown, else on the first trace shown (the first
        file shown when they are all files that are not traces), quietly (the open trace
        stays open until enter or a move). Never on a hidden row: down from there would land
        on the first row, a folder, and enter would fold it."""
        listing = self.listing
        if self.selected is not None and listing.row_of(self.selected) is not None:
            return  # (the rebuild put the cursor on it)
        rows, items, skipped = listing.rows, listing.shown_items, listing.skipped
        first = next((items[i] for i in rows if i >= 0 and items[i] not in skipped), None)
        if first is not None:
            self.select(first)
        elif (n := next((n for n, i in enumerate(rows) if i >= 0), None)) is not None:
            self._cursor_to(n)  # only files that are not traces shown: the first of them

    def _cursor_to(self, n: int) -> None:
        """The cursor on row ``n``, quietly, brought into view once drawn."""
        self.trace_tree.cursor = n
        self.trace_tree.refresh()
        self.call_after_refresh(self._show_cursor)

    # -- events ------------------------------------------------------------------------------

    @on(TraceTree.Moved)
    def _moved(self, event: TraceTree.Moved) -> None:
        event.stop()
        row = event.row
        if row.kind == "trace":
            self.selected = row.key
            self.post_message(self.TraceHighlighted(row.key))
        elif row.kind == "skipped" and row.skipped is not None:
            self.post_message(self.SkippedHighlighted(row.skipped))

    @on(TraceTree.Chosen)
    def _chosen(self, event: TraceTree.Chosen) -> None:
        event.stop()
        row = event.row
        if row.kind == "trace":
            self.selected = row.key
            self.post_message(self.TraceChosen(row.key))
        elif row.kind == "skipped" and row.skipped is not None:
            # (the cursor may have been put on it quietly: a filter that shows only such
            # files) enter says why it is not a trace, as a move onto it does
            self.post_message(self.SkippedHighlighted(row.skipped))

    @on(Input.Changed, "#trace-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if len(self.listing.items) < self.REBUILD_NOW_BELOW:
            self.set_filter(text=event.value)
            return
        # A big list: the key is on screen first, the rows it filters a frame later (keys
        # typed meanwhile make one rebuild, for the text as it then is).
        self._typed = event.value
        if not self._filter_due:
            self._filter_due = True
            self.call_after_refresh(self._filter_typed)

    _typed = ""
    _filter_due = False

    def _filter_typed(self) -> None:
        self._filter_due = False
        self._match_step(self.listing.match_in_steps(self._typed), self._typed)

    def _match_step(self, steps: Generator[None, None, str], text: str) -> None:
        """The filter ``text`` matched a step a frame, the keys typed and their frames
        before each (see :meth:`~replay_tui.tui.listing.Listing.match_in_steps`), then the
        rows. (Steps run back to back took turns with each hop of a key on its way to the
        screen, the key to the app, the app to the box, the box to the frame: a key waited
        for four steps, most of a second on a busy machine.)"""
        try:
            next(steps)
        except StopIteration as end:
            if end.value == "done":
                self.rebuild()
            elif end.value == "lost":  # (the items changed under it: a live change; rare)
                self.set_filter(text=text)
            return
        self.call_after_refresh(self._match_step, steps, text)

    @on(Input.Submitted, "#trace-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()  # (left already: leave_filter, as enter was pressed)

    def leave_filter(self) -> None:
        """Enter (or escape) in the box: the filter stays, the list has the focus at once, and
        the cursor is on the open trace if it is shown, else on the first match (the open
        trace stays open)."""
        self.screen.set_focus(self.trace_tree)
        self.land_cursor()
