"""The trace list: a tree of folders and files, a badge per trace, a text and verdict filter.

Entries are listed as soon as discovery finds them and show ``pending`` until a background
worker has judged them; badges then fill in node by node, without rebuilding the tree. Adding,
replacing or removing one trace (live reload) keeps the selection and the scroll position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal
from urllib.parse import urlsplit

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static, Tree
from textual.widgets.tree import TreeNode

from ...core.discovery import Skipped
from ...core.trace import Source
from ...core.visible import visible
from ..store import Summary

__all__ = ["BADGE_GLYPHS", "Entry", "TraceList", "TraceTree"]

BADGE_GLYPHS: dict[str, str] = {
    "erasing": "✗",
    "refused": "⊘",
    "broken": "!",
    "in progress": "◌",
    "clean": "✓",
    "pending": "·",
    "skipped": "–",
}
BADGE_WIDTH = 14
"""Cells of a badge and its word (the longest, ``◌ in progress``, then one space)."""


@dataclass(slots=True)
class Entry:
    """What a node of the tree stands for."""

    kind: Literal["folder", "file", "trace", "skipped"]
    key: str
    """Trace address, or the path of a folder, file or skipped file."""
    name: str
    source: Source | None = None
    skipped: Skipped | None = None
    traces: list[str] = field(default_factory=list)
    """For folders and files: the addresses of the traces below."""


def _har_label(source: Source) -> str:
    entry = source.entry
    if entry is None:
        return source.address.rpartition("/")[2]
    parts = urlsplit(entry.url)
    where = parts.path or entry.url
    if parts.query:
        where += "?" + parts.query
    started = entry.started
    time = started[11:19] if len(started) >= 19 and started[10] in "T " else started
    return f"#{entry.number} {time} {entry.method} {where}".replace("  ", " ")


class TraceTree(Tree[Entry]):
    """The tree itself; labels are drawn from node data, so a badge change is one refresh."""

    COMPONENT_CLASSES: ClassVar[set[str]] = Tree.COMPONENT_CLASSES | {
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
    }

    DEFAULT_CSS = """
    TraceTree {
        background: $surface;
        scrollbar-gutter: stable;
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
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open", id="open-trace"),
        Binding("space", "toggle_node", "Fold", show=False, id="toggle-folder"),
        Binding("up,k", "cursor_up", "Up", show=False, id="list-up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="list-down"),
    ]

    def __init__(self, summaries: dict[str, Summary], *, id: str | None = None) -> None:
        super().__init__("traces", id=id)
        self.show_root = False
        self.guide_depth = 3
        self.summaries = summaries
        self.marked: str | None = None
        """The trace marked as A for the compare view."""

    def _s(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def badge_of(self, address: str) -> str:
        summary = self.summaries.get(address)
        return summary.badge.value if summary is not None else "pending"

    compact = False
    """Badges as glyphs only (a narrow list): ``✗ name`` instead of ``✗ erasing    name``."""

    def render_label(self, node: TreeNode[Entry], base_style: Style, style: Style) -> Text:
        entry = node.data
        if entry is None:
            return super().render_label(node, base_style, style)
        head = Text()
        tail = Text()
        if entry.kind == "trace":
            badge = self.badge_of(entry.key)
            glyph = BADGE_GLYPHS.get(badge, "?")
            head.append(
                f"{glyph} " if self.compact else f"{glyph} {badge}".ljust(BADGE_WIDTH),
                self._s("trace-tree--" + badge.replace(" ", "-")),
            )
            if entry.key == self.marked:
                head.append("◆A ", self._s("trace-tree--marked"))
            name = Text(visible(entry.name), style)
        elif entry.kind == "skipped":
            head.append(
                "– " if self.compact else "– skipped".ljust(BADGE_WIDTH),
                self._s("trace-tree--skipped"),
            )
            name = Text(visible(entry.name), self._s("trace-tree--skipped"))
        else:
            icon = ("▾ " if node.is_expanded else "▸ ") if node.allow_expand else "  "
            head.append(icon, base_style)
            name = Text(visible(entry.name) + ("/" if entry.kind == "folder" else ""), style)
            flagged = sum(1 for a in entry.traces if self.badge_of(a) == "erasing")
            tail.append(f"  {len(entry.traces):,}", self._s("trace-tree--count"))
            if flagged:
                alarm = f" {flagged:,}✗" if self.compact else f" · {flagged:,} erasing"
                tail.append(alarm, self._s("trace-tree--alarm"))
        room = self._room(node) - head.cell_len
        if room > 0 and name.cell_len + tail.cell_len > room:
            # A name that does not fit is cut with "…" (the counts go first, then the name's end).
            if name.cell_len + min(tail.cell_len, 4) > room:
                tail = Text()
            if name.cell_len + tail.cell_len > room:
                name.truncate(max(1, room - tail.cell_len), overflow="ellipsis")
        return Text.assemble(head, name, tail)

    def _room(self, node: TreeNode[Entry]) -> int:
        """Cells left for ``node``'s label beside its guides (0 before the first layout)."""
        width = self.scrollable_content_region.width  # the scrollbar's gutter is kept
        if width <= 0:
            return 0
        depth = 0
        parent = node.parent
        while parent is not None and parent is not self.root:
            depth += 1
            parent = parent.parent
        return width - depth * self.guide_depth

    def on_resize(self) -> None:
        # Labels are cut to the width: a new width means new labels (and a new virtual width).
        self._clear_line_cache()
        self.refresh()


class TraceList(Vertical):
    """The list pane: the filter box and the tree."""

    DEFAULT_CSS = """
    TraceList {
        & > Input { border: none; height: 1; padding: 0 1; margin: 0 0 1 0; background: $boost; }
        & > Input:focus { border: none; background: $primary 30%; }
        & > #list-empty { height: auto; padding: 0 1; color: $text-muted; display: none; }
        & > #list-empty.-shown { display: block; }
        & > TraceTree { height: 1fr; }
    }
    """

    COMPACT_BELOW = 36
    """A list narrower than this shows badges as glyphs only."""

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

    def __init__(self, summaries: dict[str, Summary], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.summaries = summaries
        self.trace_tree = TraceTree(summaries, id="trace-tree")
        self.filter_input = Input(
            placeholder="/ filter: name, verdict, model, URL", id="trace-filter"
        )
        self._sources: list[Source] = []
        self._skipped: list[Skipped] = []
        self._node_of: dict[str, TreeNode[Entry]] = {}
        self.text_filter = ""
        self.badge_filter: str | None = None
        self.selected: str | None = None
        self._empty_reason: str | None = None
        self._entered = False
        self.file_roots: tuple[str, ...] = ()
        """Folders of the files named on the command line: left out of the tree, so that
        ``/tmp/rt/x.har`` lists ``x.har`` and its entries, not ``tmp/ → rt/ → x.har``."""

    def compose(self) -> ComposeResult:
        yield self.filter_input
        yield Static(id="list-empty")
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
            self.trace_tree.on_resize()

    @property
    def filtering(self) -> bool:
        """A text or verdict filter is in force."""
        return bool(self.text_filter.strip()) or self.badge_filter is not None

    def _show_empty(self, shown: int) -> None:
        """Say why the list is empty: nothing matches the filter, or nothing was found."""
        note = self.query_one("#list-empty", Static)
        text = ""
        if shown == 0 and self._sources and self.filtering:
            needle = self.text_filter.strip()
            what = f"{self.badge_filter} trace" if self.badge_filter else "trace"
            text = f"no {what} matches `{needle}`" if needle else f"no {what} here"
        elif not self._sources and self._entered:
            text = self._empty_reason or "no trace found"
        note.update(Content(text))
        note.set_class(bool(text), "-shown")

    # -- content -----------------------------------------------------------------------------

    def set_entries(self, sources: list[Source], skipped: list[Skipped]) -> None:
        self._sources = list(sources)
        self._skipped = list(skipped)
        self._entered = True
        self.rebuild()

    def set_skipped(self, skipped: list[Skipped]) -> None:
        """The files that are not traces changed (live reload)."""
        self._skipped = sorted(skipped, key=lambda s: _sort_key(s.path))
        self.rebuild()

    def say_empty(self, reason: str | None) -> None:
        """Why the list is empty when it is (a watched folder was deleted); None: the default."""
        if reason != self._empty_reason:
            self._empty_reason = reason
            self._show_empty(len(self._sources))

    def apply_changes(
        self,
        added: Sequence[Source],
        removed: Sequence[str],
        renamed: Sequence[tuple[str, Source]] = (),
    ) -> None:
        """A batch of live changes, with one rebuild: a burst of 200 new captures into a
        3,000-trace folder redraws the list once, not 200 times. A renamed trace keeps the
        selection if it had it."""
        gone = set(removed) | {old for old, _ in renamed}
        known = {s.address for s in self._sources}
        fresh = [s for s in added if s.address not in known]
        fresh += [s for _, s in renamed]
        refreshed = [s.address for s in added if s.address in known]
        if not gone and not fresh:
            if refreshed:
                self.refresh_traces(refreshed)
            return
        self._sources = [s for s in self._sources if s.address not in gone] + fresh
        self._sources.sort(key=lambda s: _sort_key(s.address))
        for old, source in renamed:
            if self.selected == old:
                self.selected = source.address
        if self.selected in gone:
            self.selected = None
        self.rebuild()

    def refresh_traces(self, addresses: list[str]) -> None:
        """Summaries of these traces changed: redraw their rows (and rebuild if filtered)."""
        if self.badge_filter is not None or self.text_filter:
            self.rebuild()
            return
        seen: set[int] = set()
        for address in addresses:
            node: TreeNode[Entry] | None = self._node_of.get(address)
            while node is not None and id(node) not in seen:
                seen.add(id(node))
                node.refresh()
                node = node.parent

    def set_marked(self, address: str | None) -> None:
        """Show ``address`` (or nothing) as the trace marked for comparison."""
        old, self.trace_tree.marked = self.trace_tree.marked, address
        self.refresh_traces([a for a in (old, address) if a is not None])

    @property
    def addresses(self) -> list[str]:
        """Traces in list order (all of them, filtered or not)."""
        return [s.address for s in self._sources]

    def visible_addresses(self) -> list[str]:
        return [s.address for s in self._sources if self._match(s)]

    # -- filtering ---------------------------------------------------------------------------

    def set_filter(
        self, text: str | None = None, badge: str | Literal[False] | None = False
    ) -> None:
        """Filter by ``text`` and/or by ``badge`` (``None`` clears it; ``False`` leaves it)."""
        if text is not None:
            self.text_filter = text
        if badge is not False:
            self.badge_filter = badge
        self.rebuild()

    def _match(self, source: Source) -> bool:
        summary = self.summaries.get(source.address)
        badge = summary.badge.value if summary is not None else "pending"
        if self.badge_filter is not None and badge != self.badge_filter:
            return False
        needle = self.text_filter.strip().lower()
        if not needle:
            return True
        hay = [source.address, badge]
        if summary is not None:
            hay += [v for _, v in summary.verdicts]
            hay += summary.models
        if source.entry is not None:
            hay += [source.entry.method, source.entry.url, source.entry.model or ""]
        text = " ".join(hay).lower()
        return all(word in text for word in needle.split())

    # -- the tree ----------------------------------------------------------------------------

    def rebuild(self) -> None:
        """Rebuild the tree for the filter; the cursor stays on its trace (if still listed).

        Quietly: a rebuild never highlights a node, so filtering never opens another trace."""
        with self.prevent(Tree.NodeHighlighted):
            self._rebuild()

    def _rebuild(self) -> None:
        tree = self.trace_tree
        keep = self.selected
        scroll_y = tree.scroll_y
        tree.cursor_line = -1
        tree.clear()
        self._node_of = {}
        folders: dict[str, TreeNode[Entry]] = {}
        shown = 0

        def folder(path: str) -> TreeNode[Entry]:
            if not path:
                return tree.root
            node = folders.get(path)
            if node is None:
                parent_path, _, name = path.rpartition("/")
                parent = folder(parent_path)
                node = parent.add(Text(visible(name)), Entry("folder", path, name), expand=True)
                folders[path] = node
            return node

        for source in self._sources:
            if not self._match(source):
                continue
            shown += 1
            file_part, hash_, _ = source.address.partition("#")
            dir_path, _, name = file_part.rpartition("/")
            if dir_path in self.file_roots:
                dir_path = ""
            parent = folder(dir_path)
            if hash_:
                key = "file:" + file_part
                file_node = folders.get(key)
                if file_node is None:
                    file_node = parent.add(
                        Text(visible(name)), Entry("file", file_part, name), expand=True
                    )
                    folders[key] = file_node
                parent, name = file_node, _har_label(source)
            self._count(parent, source.address)
            node = parent.add_leaf(
                Text(visible(name)), Entry("trace", source.address, name, source=source)
            )
            self._node_of[source.address] = node
        if self.badge_filter is None and not self.text_filter.strip():
            for skipped in self._skipped:
                dir_path, _, name = skipped.path.rstrip("/").rpartition("/")
                parent = folder(dir_path) if dir_path else tree.root
                parent.add_leaf(
                    Text(visible(name)), Entry("skipped", skipped.path, name, skipped=skipped)
                )
        if keep is not None and keep in self._node_of:
            self._restore(self._node_of[keep], scroll_y)
        self._show_empty(shown)
        self.post_message(self.FilterChanged(shown))

    def _restore(self, node: TreeNode[Entry], scroll_y: float) -> None:
        def restore() -> None:
            self.trace_tree.scroll_to(y=scroll_y, animate=False)
            with self.prevent(Tree.NodeHighlighted):
                self.trace_tree.move_cursor(node, animate=False)

        self.call_after_refresh(restore)

    @staticmethod
    def _count(node: TreeNode[Entry], address: str) -> None:
        current: TreeNode[Entry] | None = node
        while current is not None:
            if current.data is not None:
                current.data.traces.append(address)
            current = current.parent

    def select(self, address: str, *, focus: bool = False) -> None:
        """Put the cursor on ``address`` (quietly: no highlight message)."""
        self.selected = address
        node = self._node_of.get(address)
        if node is None:
            return

        def move() -> None:
            with self.prevent(Tree.NodeHighlighted):
                self.trace_tree.move_cursor(node, animate=False)
            self.trace_tree.scroll_to_node(node, animate=False)

        self.call_after_refresh(move)
        if focus:
            self.trace_tree.focus()

    # -- events ------------------------------------------------------------------------------

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[Entry]) -> None:
        event.stop()
        entry = event.node.data
        if entry is None:
            return
        if entry.kind == "trace":
            self.selected = entry.key
            self.post_message(self.TraceHighlighted(entry.key))
        elif entry.kind == "skipped" and entry.skipped is not None:
            self.post_message(self.SkippedHighlighted(entry.skipped))

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[Entry]) -> None:
        event.stop()
        entry = event.node.data
        if entry is not None and entry.kind == "trace":
            self.selected = entry.key
            self.post_message(self.TraceChosen(entry.key))

    @on(Input.Changed, "#trace-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.set_filter(text=event.value)

    @on(Input.Submitted, "#trace-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        # Enter keeps the filter and goes to the list; the open trace stays open (the cursor
        # lands on the first match only when the open trace is filtered out).
        event.stop()
        self.trace_tree.focus()
        visible_traces = self.visible_addresses()
        if visible_traces and self.selected not in visible_traces:
            self.select(visible_traces[0])


def _sort_key(address: str) -> tuple[str, ...]:
    return tuple(address.split("/"))
