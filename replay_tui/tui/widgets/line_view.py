"""A Line-API table with a cursor: the base of the calls, diff and raw views.

Only the rows on screen are rendered (``render_line``), each once until something changes
(an LRU cache of strips), so a 100,000-row trace costs what a screenful costs. Subclasses say
how many rows there are and how to render one; this class does the cursor, the keys, the
mouse and the scrolling — sideways too, by a useful step (a column, or a third of the view),
with the row headers (the first ``sticky`` cells of a table row) kept in place, and down,
with the column headings (the first ``fixed_rows`` rows) kept at the top.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events, on
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

__all__ = ["LineView", "Row"]

Row = tuple[list[Segment], Style]
"""A rendered row: its segments and the style that fills the rest of the line."""


def _word_cut(whole: Strip, edge: int) -> bool:
    """Whether the cells either side of ``edge`` both hold more than a blank: a word or a
    value cut in two. Read off the segments (a crop of the row on every line drawn cost an
    eighth more CPU to draw)."""
    x = 0
    around: list[str] = []
    for seg in whole:
        text = seg.text
        width = seg.cell_length
        if x + width > edge - 1:
            if width != len(text):  # wide characters: cell-exact, rarely
                cut = whole.crop(edge - 1, edge + 1)
                around = ["".join(s.text for s in cut)]
                break
            around.append(text[max(0, edge - 1 - x) : edge + 1 - x])
            if sum(map(len, around)) >= 2:
                break
        x += width
    pair = "".join(around)
    return len(pair) >= 2 and not pair[0].isspace() and not pair[1].isspace()


class LineView(ScrollView, can_focus=True):
    """A scrolling list of rendered rows with a selectable cursor row."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "line-view--cursor",
        "line-view--mark",
        "line-view--more",
    }

    DEFAULT_CSS = """
    LineView {
        background: $surface;
        & > .line-view--cursor { background: $primary 15%; }
        &:focus > .line-view--cursor { background: $primary 40%; text-style: bold; }
        & > .line-view--mark { color: $text-accent; text-style: bold; }
        & > .line-view--more { color: $text-muted; }
    }
    """

    SCROLLS_INSIDE: ClassVar[bool] = False
    """Rows are rendered already scrolled sideways (``render_row`` reads ``scroll_x``)."""

    MARK_LEFT_CUT: ClassVar[bool] = False
    """Scrolled sideways, a row whose start is out of view says so with "…" in its first
    scrolled cell (lines of text, cut anywhere; a table's columns say it themselves)."""

    CURSOR_MARK: ClassVar[str] = ""
    """Drawn over the first cell of the cursor row (one cell wide; "" for none): where row
    fills carry meaning (a flagged row is red), the cursor is told apart by more than a tint."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="cursor-up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="cursor-down"),
        Binding("pageup", "page_up", "Page up", show=False, id="page-up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="page-down"),
        Binding("home,g", "first", "First row", show=False, id="first-row"),
        Binding("end,G", "last", "Last row", show=False, id="last-row"),
        Binding("enter", "inspect", "Inspect", id="inspect", tooltip="The selected row in full"),
        Binding(
            "left",
            "scroll_left",
            "Scroll left",
            show=False,
            id="scroll-left",
            tooltip="Sideways, a column or a third of the view (compare: back to A)",
        ),
        Binding(
            "right",
            "scroll_right",
            "Scroll right",
            show=False,
            id="scroll-right",
            tooltip="Sideways, a column or a third of the view (compare: to B, when off-screen)",
        ),
    ]

    cursor: reactive[int] = reactive(-1, always_update=True, init=False)
    """The selected row, or -1."""

    class CursorMoved(Message):
        """The user moved the cursor (not sent when the view moves it itself)."""

        def __init__(self, view: LineView, index: int) -> None:
            super().__init__()
            self.view = view
            self.index = index

        @property
        def control(self) -> LineView:
            return self.view

        def can_replace(self, message: Message) -> bool:
            # Whoever listens wants where the cursor is now, not where it passed through.
            return isinstance(message, LineView.CursorMoved) and message.view is self.view

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._cache: LRUCache[int, Row] = LRUCache(1024)
        self._row_count = 0
        self._base: Style | None = None  # self.rich_style, which is costly to compute per line
        self._piece_styles: dict[str, Style] = {}
        self.sticky = 0
        """Cells at the left of a table row that stay put while the rest scrolls sideways."""
        self.fixed_rows = 0
        """Rows at the top (a table's headings) that stay put while the rest scrolls down."""
        self._centred: int | None = None
        """The row the view itself centred and the user has not moved away from since."""
        self._pending_row: tuple[int, bool] | None = None
        """A row to bring into view (and whether centred) once the view has a height."""
        self.painted = 0.0
        """When (``time.perf_counter``) the screen was last drawn after a new model was put on
        it (:meth:`note_painted`): a model's first paint, as a benchmark reads it."""
        self._squeezed: tuple[int, int] | None = None
        """``(top before, top after)`` of a scroll a resize made to keep the cursor in a view
        too low for it (a layout on its way, a terminal made smaller): nothing having moved
        since, the view goes back when it has room again."""

    # -- what subclasses provide ------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return self._row_count

    def render_row(self, index: int) -> Row:
        """The full (unscrolled, uncropped) row ``index``."""
        raise NotImplementedError

    def is_selectable(self, index: int) -> bool:
        """Whether the cursor may rest on row ``index``."""
        return True

    def is_table_row(self, index: int) -> bool:
        """Whether row ``index`` keeps its first ``sticky`` cells in place when scrolled."""
        return True

    def row_sticky(self, index: int) -> int:
        """Cells at the left of row ``index`` that stay put while the rest scrolls sideways:
        a table row's headers (``sticky``), a labelled line's label, a title all of it."""
        return self.sticky if self.is_table_row(index) else 0

    def is_prose(self, index: int) -> bool:
        """Whether row ``index`` is a line of words (a title) rather than columns: cut
        anywhere, even between words, it ends in "…" (its last words are not a column)."""
        return False

    def row_scroll(self, index: int, scroll_x: int, length: int) -> int:
        """How far row ``index`` (``length`` cells) goes sideways when the view is scrolled
        ``scroll_x``: as far (a subclass may keep a row that fits where it is)."""
        return scroll_x

    def up_to_its_end(self, scroll_x: int, length: int) -> int:
        """For :meth:`row_scroll`: a row (``length`` cells) that follows a sideways scroll
        only as far as its end, so one that fits stays whole while the table beside it
        scrolls (a note under a long line, the lines under a call's table)."""
        room = self.scrollable_content_region.width or self.size.width
        return min(scroll_x, max(0, length - room))

    def cursor_mark_x(self) -> int:
        """The cell of a row the cursor mark is drawn over."""
        return 0

    def column_stops(self) -> list[int]:
        """Content x of the columns sideways scrolling stops at (none: steps of a third)."""
        return []

    # -- content changes ---------------------------------------------------------------------

    def set_shape(self, rows: int, width: int) -> None:
        """The content changed: ``rows`` rows, the widest ``width`` cells."""
        self._row_count = rows
        self._cache.clear()
        self.virtual_size = Size(width, rows)
        if self.cursor >= rows:
            self.set_reactive(LineView.cursor, rows - 1)
        self.refresh()

    def note_painted(self) -> None:
        """Note when the screen is next drawn (:attr:`painted`): a new model was shown."""
        self.call_after_refresh(self._stamp_painted)

    def _stamp_painted(self) -> None:
        self.painted = time.perf_counter()

    def invalidate(self) -> None:
        """Rows must be rendered again (a style or selection they show changed)."""
        self._cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._piece_styles.clear()
        self._base = None

    # -- rendering ---------------------------------------------------------------------------

    def row_at(self, y: int) -> int:
        """The row shown on line ``y`` of the view (the fixed rows first)."""
        return y if y < self.fixed_rows else int(self.scroll_offset.y) + y

    def render_line(self, y: int) -> Strip:
        scroll_x = self.scroll_offset.x
        index = self.row_at(y)
        width = self.size.width
        base = self._base
        if base is None:
            base = self._base = self.rich_style
        if index < 0 or index >= self._row_count:
            return Strip.blank(width, base)
        row = self._cache.get(index)
        if row is None:
            row = self.render_row(index)
            self._cache[index] = row
        segments, fill = row
        under = base + fill
        if index == self.cursor:
            under += self.cursor_style(fill)
        strip = Strip([Segment(t, under + s if s else under) for t, s, _ in segments])
        if index == self.cursor and self.CURSOR_MARK:
            x = self.cursor_mark_x()
            mark = Segment(self.CURSOR_MARK, under + self.piece_style("line-view--mark"))
            strip = Strip.join([strip.crop(0, x), Strip([mark]), strip.crop(x + 1)])
        if self.SCROLLS_INSIDE:
            return strip.crop_extend(0, width, under)
        sticky = min(self.row_sticky(index), width)
        if scroll_x:
            scroll_x = self.row_scroll(index, scroll_x, strip.cell_length)
        if sticky and scroll_x:
            head = strip.crop_extend(0, sticky, under)
            tail = strip.crop_extend(sticky + scroll_x, scroll_x + width, under)
            shown = Strip.join([head, tail]).crop_extend(0, width, under)
        else:
            shown = strip.crop_extend(scroll_x, scroll_x + width, under)
        if self.MARK_LEFT_CUT and scroll_x and strip.cell_length > sticky:
            more = Segment("…", under + self.piece_style("line-view--more"))
            shown = Strip.join([shown.crop(0, sticky), Strip([more]), shown.crop(sticky + 1)])
        return self._said_cut(shown, strip, scroll_x, under, prose=self.is_prose(index))

    def _said_cut(
        self, shown: Strip, whole: Strip, scroll_x: int, under: Style, *, prose: bool = False
    ) -> Strip:
        """``shown`` with "…" in its last visible cell when the right edge cuts a word or a
        value in two: a cut word does not pass for a whole one ("✗ an e"), and → shows the
        rest. A row cut between words, where a column ends, is left whole: "…" would hide
        the column's last character. (The line is as wide as the view; a vertical scrollbar
        covers its last cell.)"""
        if whole.cell_length <= scroll_x + 1:
            return shown
        room = min(shown.cell_length, self.scrollable_content_region.width or shown.cell_length)
        edge = scroll_x + room
        if whole.cell_length <= edge or room < 2 or not (prose or _word_cut(whole, edge)):
            return shown
        more = Segment("…", under + self.piece_style("line-view--more"))
        return Strip.join([shown.crop(0, room - 1), Strip([more]), shown.crop(room)])

    def piece_style(self, name: str) -> Style:
        """The text style of component ``name`` ("" for none), to lay over a row's fill.

        Colours with an alpha (``$text-muted`` is the foreground at 60%) are blended over the
        widget's background: a partial style alone would paint them at full strength, so a
        "dimmed" line would come out brighter than normal text."""
        if not name:
            return Style()
        style = self._piece_styles.get(name)
        if style is None:
            full = self.get_component_rich_style(name)
            partial = self.get_component_rich_style(name, partial=True)
            style = partial.without_color + Style(
                color=full.color if partial.color is not None else None,
                bgcolor=full.bgcolor if partial.bgcolor is not None else None,
            )
            self._piece_styles[name] = style
        return style

    def cursor_style(self, fill: Style) -> Style:
        """The cursor over a row whose own fill is ``fill`` (subclasses keep meaningful fills)."""
        return self.fill_style("line-view--cursor")

    def fill_style(self, name: str) -> Style:
        """The background of component ``name``, blended over this widget's (for row fills)."""
        full = self.get_component_rich_style(name)
        partial = self.get_component_rich_style(name, partial=True)
        return Style(bgcolor=full.bgcolor, bold=partial.bold, italic=partial.italic)

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh()

    # -- cursor movement ---------------------------------------------------------------------

    def _step(self, start: int, direction: int) -> int:
        """The nearest selectable row from ``start`` going ``direction`` (``start`` if none)."""
        index = start
        while 0 <= index + direction < self._row_count:
            index += direction
            if self.is_selectable(index):
                return index
        return start

    def move_cursor(self, index: int, *, user: bool = True, center: bool = False) -> None:
        """Select row ``index`` and bring it into view."""
        if self._row_count == 0:
            return
        index = max(0, min(index, self._row_count - 1))
        if not self.is_selectable(index):
            forward = self._step(index, 1)
            index = forward if forward != index else self._step(index, -1)
            if not self.is_selectable(index):
                return  # nothing to select (a trace without tool calls): no cursor
        if user:
            self._centred = None
            self.at_end = False  # (a move of its own: see action_last)
        self.cursor = index
        self.scroll_to_row(index, center=center)
        if user:
            self.post_message(self.CursorMoved(self, index))

    def scroll_to_row(self, index: int, *, center: bool = False) -> None:
        height = self.scrollable_content_region.height or self.size.height
        if height <= 0:
            # Not laid out yet (a tab not shown, a view just mounted): where the row lands
            # depends on the height, so it is brought into view once the view has one.
            self._pending_row = (index, center)
            return
        self._pending_row = None
        top = int(self.scroll_offset.y)
        # force: right after set_shape the scrollbars are not laid out yet, and Textual would
        # ignore the scroll (a 20,000-delta trace opened on row 1, not on its first flag).
        if center:
            self._centred = index
            y = self._centred_top(index, height)
            # Shown before the first layout, the height may not be the final one yet: centre
            # again once laid out, so where the eye lands does not depend on timing.
            self.call_after_refresh(self._recenter, index)
        elif index < top + self.fixed_rows:  # above, or under the fixed rows
            fixed = self.fixed_rows
            y = max(0, self._headed_top(index, height - fixed) - fixed)
        elif index >= top + height:
            y = index - height + 1
        else:
            return
        self.scroll_to(y=y, animate=False, immediate=True, force=True)

    @on(events.Resize)
    def _scroll_when_sized(self) -> None:
        pending, self._pending_row = self._pending_row, None
        if pending is not None:
            index, center = pending
            if index == self.cursor:  # (else the cursor has moved on since)
                self.scroll_to_row(index, center=center)
        elif 0 <= self.cursor < self._row_count:
            # Smaller now: the selected row stays in view (what the panes beside it show).
            top = int(self.scroll_offset.y)
            squeezed, self._squeezed = self._squeezed, None
            if squeezed is not None and squeezed[1] == top and squeezed[0] < top:
                self.scroll_to(y=squeezed[0], animate=False, immediate=True, force=True)
                top = squeezed[0]
            self.scroll_to_row(self.cursor)
            after = int(self.scroll_offset.y)
            if after != top:
                self._squeezed = (top, after)

    def _centred_top(self, index: int, height: int) -> int:
        """The top row that shows ``index`` a third of the way down: from the first row when
        it is on the first screen (what comes before it, headings included, stays in view)."""
        if index < height:
            return 0
        fixed = self.fixed_rows
        return min(index - height // 3, max(0, self._headed_top(index, height - fixed) - fixed))

    def _headed_top(self, index: int, height: int) -> int:
        """The top row that shows ``index`` with the rows that head it: the rows right above it
        that cannot be selected (a table's headings, a section's title), as many as fit."""
        top, first = index, self.fixed_rows
        while top > first and not self.is_selectable(top - 1) and index - top + 1 < height:
            top -= 1
        return top

    def _recenter(self, index: int) -> None:
        if self.cursor == index:
            height = self.scrollable_content_region.height or self.size.height
            y = self._centred_top(index, height)
            if y != int(self.scroll_offset.y):
                self.scroll_to(y=y, animate=False, immediate=True, force=True)

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        # Textual moves a scrollbar's thumb only while the bar is shown: a scroll made before
        # the bar appeared (the forced one right after set_shape) would leave the thumb at the
        # top while the rows are scrolled.
        if shown:
            self.vertical_scrollbar.position = self.scroll_y

    def watch_show_horizontal_scrollbar(self, shown: bool) -> None:
        if shown:
            self.horizontal_scrollbar.position = self.scroll_x
            # The bar takes a row from the view: a row centred before it came is centred again
            # for the new height (else where the eye lands depends on when the bar appeared).
            if self._centred is not None and self._centred == self.cursor:
                self.call_after_refresh(self._recenter, self.cursor)

    def action_cursor_up(self) -> None:
        self.move_cursor(self._step(max(self.cursor, 0), -1))

    def action_cursor_down(self) -> None:
        self.move_cursor(self._step(self.cursor, 1) if self.cursor >= 0 else 0)

    def action_page_up(self) -> None:
        height = max(1, self.scrollable_content_region.height - 1)
        self.move_cursor(max(0, self.cursor - height))

    def action_page_down(self) -> None:
        height = max(1, self.scrollable_content_region.height - 1)
        self.move_cursor(min(self._row_count - 1, max(self.cursor, 0) + height))

    def action_scroll_left(self) -> None:
        self._scroll_sideways(-1)

    def action_scroll_right(self) -> None:
        self._scroll_sideways(1)

    def sideways_step(self) -> int:
        """Cells one ``←``/``→`` moves where there are no column stops: a third of the view."""
        room = (self.scrollable_content_region.width or self.size.width) - self.sticky
        return max(8, room // 3)

    def _scroll_sideways(self, direction: int) -> None:
        """One column (or a third of the view) left or right; the sticky cells stay."""
        x = int(self.scroll_offset.x)
        step = self.sideways_step()
        offsets = [s - self.sticky for s in self.column_stops() if s >= self.sticky]
        if direction > 0:
            target = next((o for o in offsets if o > x), x + step)
            target = min(target, int(self.max_scroll_x))
        else:
            target = next((o for o in reversed(offsets) if o < x), x - step)
            target = max(target, 0)
        self.scroll_to(x=target, animate=False, immediate=True)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self._row_count - 1)
        self.at_end = True

    at_end = False
    """The cursor was sent to the last row (``G``, ``end``) and has not moved since: as the
    rows grow (the capture still decoding, or written on), it goes on to the new last row
    (:class:`~.model_view.ModelView`), as ``G`` means."""

    def action_inspect(self) -> None:
        """Show the selected row in full (subclasses say what that is)."""

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.row_at(offset.y)
        if 0 <= index < self._row_count and self.is_selectable(index):
            self._centred = None
            self.at_end = False
            self.cursor = index
            self.post_message(self.CursorMoved(self, index))
            self.on_row_clicked(index)

    def on_row_clicked(self, index: int) -> None:
        """A click landed on row ``index`` (subclasses: toggle, open…)."""
