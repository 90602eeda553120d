"""The bars around the views: counts across the top, the open trace's summary above its tabs."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from ...core.trace import Badge, Trace
from ...core.visible import visible
from ...core.words import plural
from ..cells import cell_len, middle_cut
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

    compact = False
    """Glyph and count only (a narrow terminal); the tooltip says which badge."""

    full_text = ""
    """The chip with its word, to measure whether the bar has room for it."""
    compact_text = ""
    """The chip as shown when :attr:`compact`."""

    def set_count(
        self, count: int, total_pending: int = 0, checking: bool = False, shown: int | None = None
    ) -> None:
        """``shown``: (the all-traces chip) how many of the ``count`` the filter shows."""
        self._count, self._pending, self._checking = count, total_pending, checking
        self._shown = shown
        if self.badge is None:
            text = f"{count:,} trace{'s' if count != 1 else ''}"
            if shown is not None:
                text = f"{shown:,} of {text}"
            if checking:
                text += " · checking…"
            elif total_pending:
                text += f" · judging {total_pending:,}…"
            self.full_text = self.compact_text = text
            if shown is not None:  # "12 of 26" beside "✗ 12 ⊘ 2 …"
                word = f"{count:,} trace{'s' if count != 1 else ''}"
                self.compact_text = text.replace(word, f"{count:,}")
            text = self.compact_text if self.compact else text
        else:
            self.full_text = f"{BADGE_GLYPHS[self.badge]} {count:,} {self.badge}"
            self.compact_text = f"{BADGE_GLYPHS[self.badge]} {count:,}"
            text = self.compact_text if self.compact else self.full_text
        if text != self._text:
            # Counts change many times a second while a big folder is judged: a count of the
            # same width is drawn again in its place, with no new layout of the screen.
            same_width = len(text) == len(self._text)
            self._text = text
            self.update(Content(text), layout=not same_width)
        self.set_class(count == 0 and self.badge is not None, "-zero")

    _count = 0
    _text = ""
    _pending = 0
    _checking = False
    _shown: int | None = None

    def set_compact(self, compact: bool) -> None:
        if compact != self.compact:
            self.compact = compact
            self.set_count(self._count, self._pending, self._checking, self._shown)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.badge))


TITLE_MIN = 16
"""The fewest cells the header's path gives up its middle to (for the watch state's words)."""


class CountsBar(Horizontal):
    """The header: the program, what was opened, counts per badge, and whether it watches."""

    def __init__(self, where: str, watch: bool) -> None:
        super().__init__(id="counts-bar")
        self.where = where
        self.watching = watch
        self._watch_state = Static(
            Content("● watching" if watch else "○ not watching"),
            id="watch-state",
            classes="-on" if watch else "-off",
        )
        """Held, not queried: the watcher's last word may come while the app closes."""
        self._watch_text = "● watching" if watch else "○ not watching"
        self._watch_shown: str | None = None
        self._title = Static(self._title_content(visible(where)), id="app-title")
        self._title_cells = len(f"replay-tui  {visible(where)}")
        self._title_room: tuple[int, bool] = (-1, True)

    @staticmethod
    def _title_content(shown: str, named: bool = True) -> Content:
        if not named:
            return Content.assemble((shown, "bold"))
        return Content.assemble(("replay-tui", "bold"), "  ", shown)

    def compose(self) -> ComposeResult:
        yield self._title
        yield BadgeChip(None)
        for badge in BADGE_ORDER:
            yield BadgeChip(badge.value)
        yield BadgeChip("skipped")
        yield Static(id="bar-spacer")
        yield self._watch_state

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """Chips with their words if the whole line fits, else glyph and count (zeros hidden)."""
        width = self.size.width
        if not width:
            return
        chips = [c for c in self.query(BadgeChip) if not c.has_class("-zero")]
        # (a count of 0 is not shown: app.tcss); the title at most 40% of the line while the
        # rest needs it.
        # rest needs it. Padding (app.tcss): 2 cells a chip and 3 for the title, 1 and 2 when
        # compact.
        title = min(self._title_cells + 3, int(width * 0.4))
        full = title + sum(len(c.full_text) + 2 for c in chips)
        short = title - 1 + sum(len(c.compact_text) + 1 for c in chips)
        said = self._watch_variants()
        # The words of the chips go first when they do not all fit, then the watch state's
        # words ("● watching · last change 12:00:00" → "● watching · 12:00:00" → "● 12:00:00"):
        # never cut mid-word at the edge.
        # (the watch state: its padding and a cell for the title's 40%, which rounds up)
        compact = full + len(said[0]) + 3 > width
        # Narrower still (60 columns), the program's name goes before the watch state's
        # last words: "●" alone beside "replay-tui" said less than "● watching" beside the
        # path. A long path gives up cells too (its middle; TITLE_MIN at least).
        worded = said[:-1] or said
        named = not compact or any(short + len(text) + 2 <= width for text in worded)
        title_cells = self._title_cells if named else len(visible(self.where))
        if not named:
            spare = width - (short - title + 1) - len(worded[-1]) - 2  # the title may have
            smaller = min(title_cells + 3, int(width * 0.4), max(TITLE_MIN, spare))
            short -= title - smaller
            title = smaller
        shown = (
            said[0]
            if not compact
            else next((text for text in said if short + len(text) + 2 <= width), said[-1])
        )
        needed = full + len(shown) + 3 if not compact else short + len(shown) + 2
        if self._watch_shown != shown:
            self._watch_shown = shown
            self._watch_state.update(Content(shown))
        self.set_class(compact, "-compact")
        for chip in self.query(BadgeChip):
            chip.set_compact(compact)
        # What the rest leaves, the title may have; a path still too long is cut in its
        # middle (its start and its end, the folder opened, stay).
        room = title + max(0, width - needed)  # (compact chips: fewer still)
        room = min(room, title_cells + 3)
        if (room, named) == self._title_room:
            return  # (counts change often while a big folder is judged: nothing to redo)
        self._title_room = (room, named)
        self._title.styles.max_width = room
        where = visible(self.where)
        path_room = room - 3 - (len("replay-tui  ") if named else 0)
        if len(where) > path_room:
            where = middle_cut(where, max(path_room, 8))
        self._title.update(self._title_content(where, named))

    def _watch_variants(self) -> list[str]:
        """The watch state, from the whole text to the fewest words that still say it."""
        text = self._watch_text
        head, _, when = text.partition(" · last change ")
        if not when:
            return [text, text[:1]] if text else [text]
        return [text, f"{head} · {when}", f"{head[:1]} {when}", head[:1]]

    def set_watch_state(self, text: str, *, on: bool) -> None:
        """Whether the folder is watched, and when the last change arrived."""
        state = self._watch_state
        state.tooltip = text
        self._watch_text = text
        self._fit()
        state.set_class(on, "-on")
        state.set_class(not on, "-off")

    def set_counts(
        self,
        counts: dict[str, int],
        total: int,
        skipped: int,
        active: str | None,
        checking: bool = False,
        shown: int | None = None,
        pending: int = 0,
    ) -> None:
        """The chips' counts; ``checking``: they are what the judgement cache knew, and the
        files are being checked. ``shown``: traces the filter shows (None: no filter), said
        as "2 of 26 traces"; ``pending``: traces not judged yet (of all of them)."""
        for chip in self.query(BadgeChip):
            if chip.badge is None:
                chip.set_count(total, pending, checking, shown)
            elif chip.badge == "skipped":
                chip.set_count(skipped)
            else:
                chip.set_count(counts.get(chip.badge, 0))
            chip.set_class(chip.badge == active, "-active")
        self._fit()


_BADGE_STYLES = {
    "erasing": "bold $text-error",
    "refused": "bold $text-warning",
    "broken": "bold $text-secondary",
    "in progress": "bold $text-accent",
    "clean": "bold $text-success",
}

SUMMARY_LEVELS = 7
"""How many ways ``trace_summary`` can say it, from the fullest (0) to the shortest."""
MIN_NAME = 12
"""The fewest cells a file's name is cut to in the header."""
VERDICT_NAME = 20
"""The fewest cells of a name cut to keep the verdict its badge is about."""


def trace_summary(
    trace: Trace, *, progress: str | None = None, level: int = 0, cut: int = 0
) -> Content:
    """One line: address, badge, the verdict under each behavior, flag and call counts.

    A higher ``level`` says less, whole words dropped rather than cut: first the call and
    delta counts, then the folder of the address, then the behaviors' names become the
    calls view's ``old`` / ``fix``, then the flag count goes while both verdicts stay (the
    calls view counts each call's flags, and whether the fix takes the stream is what the
    header is read for: at 100 columns beside the list it said "old unidentified-call   1
    flag", not "fix ok"), then only the verdict the badge is about stays (erasing: the old
    behavior's; refused, broken: the fix's, or ``both`` when the two agree; none for clean),
    with the flag count back, then that verdict goes too (the badge and the flag count stay;
    the details pane has everything). ``cut``: cells to take out of the middle of the file's
    name when even that is too long (its start and its end stay).

    While the capture is still being decoded (``progress``), the badge says ``decoding`` and
    no verdict is shown: those of the part decoded so far would say "in-progress", which is
    what a capture still being *written* is called (the details say they are provisional),
    and the counts say they are "so far"."""
    decoding = progress is not None
    badge = "decoding" if decoding else trace.badge.value
    looks = "in progress" if decoding else badge  # (decoding looks like a capture growing)
    glyph, style = BADGE_GLYPHS.get(looks, ""), _BADGE_STYLES.get(looks, "bold")
    v = trace.verdicts
    a = trace.analysis
    address = visible(trace.address)
    if level >= 2:
        address = address.rpartition("/")[2]
    if cut:
        address = middle_cut(address, max(MIN_NAME, cell_len(address) - cut))
    parts: list[tuple[str, str] | str] = [
        (address, "bold"),
        "  ",
        (f" {glyph} {badge} ", style + " reverse"),
    ]
    same = v["assign-always"] == v["accept-identity"]
    if level == 4 and same:  # ("both malformed-response   0 flags": shorter, and says it)
        level = 5
    if level < 6 and not decoding:
        for behavior, short in (("assign-always", "old"), ("accept-identity", "fix")):
            if level == 5 and behavior != _BADGE_BEHAVIOR.get(trace.badge):
                continue
            if level == 5 and same:
                short = "both"  # "fix model-error" alone read as if the old behavior differed
            verdict = v[behavior]
            parts += [
                (f"  {behavior if level < 3 else short} ", "$text-muted"),
                (verdict, "bold $text-success" if verdict == "ok" else "bold $text-error"),
            ]
    counts = plural(len(a.flags), "flag")
    if level < 1:
        counts += f" · {plural(len(a.calls), 'call')} · {plural(a.deltas, 'delta')}"
    if decoding:  # of the part decoded: not final
        counts += " so far"
    if level != 4 or decoding:
        parts.append((f"   {counts}", "$text-muted"))
    if progress:
        parts.append((f"   {progress}", "italic $text-accent"))
    return Content.assemble(*parts)


_BADGE_BEHAVIOR = {
    Badge.ERASING: "assign-always",
    Badge.REFUSED: "accept-identity",
    Badge.BROKEN: "accept-identity",
}
"""The behavior whose verdict a badge is about (what the header keeps when short of room)."""


class TraceHeader(Static):
    """The open trace's one-line summary, said as fully as the width allows.

    One row as wide as its pane (the stylesheet's ``height: 1``): what it says never changes
    its size, so it is drawn again without a layout of the screen (each move in the list
    said "loading…" here, then the trace: two layouts of every widget, the most of a move's
    frame)."""

    DEFAULT_CSS = """
    TraceHeader { height: 1; }
    """

    def __init__(self, content: Content, *, id: str | None = None) -> None:
        super().__init__(content, id=id)
        self._trace: Trace | None = None
        self._progress: str | None = None

    def show_trace(self, trace: Trace, *, progress: str | None = None) -> None:
        self._trace, self._progress = trace, progress
        self._fit()

    def shows(self, trace: Trace) -> bool:
        """Whether the line is ``trace``'s summary (and says nothing of its progress)."""
        return self._trace is trace and self._progress is None

    def show_text(self, content: Content) -> None:
        """A line that is not a trace's summary (loading, deleted, nothing found)."""
        self._trace = None
        self.update(content, layout=False)

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        if self._trace is None:
            return
        room = self.content_region.width or 10_000
        for level in range(SUMMARY_LEVELS):
            summary = trace_summary(self._trace, progress=self._progress, level=level)
            if summary.cell_length <= room:
                break
            if level == SUMMARY_LEVELS - 2:
                # The verdict the badge is about is worth the middle of a long name, down to
                # VERDICT_NAME cells ("zen-null-id…ter-done.sse  ✗ erasing  old …").
                name = cell_len(visible(self._trace.address).rpartition("/")[2])  # (as said)
                cut = summary.cell_length - room
                if name - cut >= VERDICT_NAME:
                    summary = trace_summary(
                        self._trace, progress=self._progress, level=level, cut=cut
                    )
                    break
        else:  # the shortest is too long: the name gives way, the badge and count stay
            cut = summary.cell_length - room
            summary = trace_summary(self._trace, progress=self._progress, level=level, cut=cut)
        self.update(summary, layout=False)
