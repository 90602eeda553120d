"""``?``: every key, what it does, and the id to remap it with (``keymap.toml``)."""

from __future__ import annotations

import textwrap
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..config import keymap_path

__all__ = ["HelpScreen", "binding_rows"]

Section = tuple[str, list[BindingType]]


def binding_rows(
    sections: list[Section], keymap: dict[str, str]
) -> list[tuple[str, str, str, str]]:
    """``(section, keys, description, id)`` for every binding, keymap overrides applied."""
    rows = []
    for title, bindings in sections:
        for b in bindings:
            if not isinstance(b, Binding):
                continue
            keys = keymap.get(b.id, b.key) if b.id else b.key
            rows.append(
                (title, pretty_keys(keys), b.tooltip or b.description or b.action, b.id or "")
            )
    return rows


_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "ctrl+p": "ctrl+p",
    "shift+tab": "shift+tab",
    "pageup": "page up",
    "pagedown": "page down",
}


def pretty_keys(keys: str) -> str:
    """``question_mark,k`` → ``?, k``: keys as the user types them."""
    return ", ".join(_NAMES.get(k.strip(), k.strip()) for k in keys.split(","))


def key_width(rows: list[tuple[str, str, str, str]]) -> int:
    """The key column's width: the longest keys (at most 18 cells) and two spaces."""
    return min(18, max((len(keys) for _, keys, _, _ in rows), default=4)) + 2


def help_text(rows: list[tuple[str, str, str, str]], width: int) -> Content:
    """The key table in ``width`` cells: key, description, binding id in aligned columns.

    The description wraps (at word boundaries) inside its column and never runs into the id;
    when the box is too narrow for three columns, the id goes on a line of its own below."""
    key_w = key_width(rows)
    id_w = max((len(binding_id) for *_, binding_id in rows), default=0) + 2
    desc_w = width - 2 - key_w - id_w
    id_below = desc_w < 24
    if id_below:
        desc_w = max(12, width - 2 - key_w)
    parts: list[tuple[str, str] | str] = []
    current = None
    for title, keys, description, binding_id in rows:
        if title != current:
            parts.append((("\n" if current else "") + title + "\n", "bold $text-primary"))
            current = title
        lines = textwrap.wrap(description, desc_w, break_on_hyphens=False) or [""]
        for k, line in enumerate(lines):
            key_cell = keys if k == 0 else ""
            parts += [("  " + key_cell.ljust(key_w), "bold $text-accent"), line]
            if k == 0 and not id_below:
                parts += [" " * (desc_w - len(line)), (binding_id.rjust(id_w), "$text-muted")]
            parts.append("\n")
        if id_below and binding_id:
            parts += [" " * (2 + key_w), (binding_id, "$text-muted"), "\n"]
    return Content.assemble(*parts)


BADGES = (
    (
        "✗ erasing",
        "a delta erased a tool call's id or name under the old translator"
        ' (assign-always): the agent\'s unknown tool ""',
    ),
    ("⊘ refused", "the fix (accept-identity) refuses a call the stream never gave an id or a name"),
    ("! broken", "another verdict is not ok: a cut stream, a model error, no finish"),
    ("◌ in progress", "still being written: no [DONE] or finish yet"),
    ("✓ clean", "every verdict ok under both behaviors"),
    ("– skipped", "a file that holds no trace (the details say why)"),
    ("·", "not judged yet (a big folder is judged in the background)"),
    ("◆A", "the trace marked for comparing (m)"),
)
"""The marks of the list and the header's counts (which show only the glyph when narrow)."""


def badge_legend(width: int, mark_w: int = 0) -> Content:
    """What each mark in the list and the header means, in ``width`` cells; the meanings
    start ``mark_w`` cells in (the key table's column), or after the longest mark."""
    mark_w = max(mark_w, max(len(mark) for mark, _ in BADGES) + 2)
    text_w = max(16, width - 2 - mark_w)
    parts: list[tuple[str, str] | str] = [("Marks\n", "bold $text-primary")]
    for mark, meaning in BADGES:
        for k, line in enumerate(textwrap.wrap(meaning, text_w, break_on_hyphens=False)):
            parts += [("  " + (mark if k == 0 else "").ljust(mark_w), "bold"), line, "\n"]
    return Content.assemble(*parts, "\n")


def _prose(width: int) -> Content:
    def para(text: str) -> str:
        return "\n".join("  " + line for line in textwrap.wrap(text, max(20, width - 2))) + "\n"

    return Content.assemble(
        ("\nMouse\n", "bold $text-primary"),
        para(
            "Click a trace to open it, a tab to switch view, a row to select it, a collapsed "
            "run in the diff or compare view to expand it, a cell of the clients view to see "
            "it in detail, a count in the header to filter by that badge."
        ),
        ("\nComparing two traces\n", "bold $text-primary"),
        para("m marks the open trace as A (◆A in the list); open another (B) and press 5."),
        ("\nRemapping\n", "bold $text-primary"),
        para(f"Put binding ids and keys in {keymap_path()}, e.g."),
        ('  next-flag = "f"\n  previous-flag = "F"', "$text-success"),
    )


class KeyTable(Static):
    """The table, laid out again whenever its width changes."""

    def __init__(self, rows: list[tuple[str, str, str, str]]) -> None:
        super().__init__(id="help-keys")
        self.rows = rows
        self._width = 0

    def on_resize(self) -> None:
        width = self.content_region.width
        if width and width != self._width:
            self._width = width
            legend = badge_legend(width, key_width(self.rows))
            self.update(legend + help_text(self.rows, width) + _prose(width))


class HelpScreen(ModalScreen[None]):
    """The key reference, laid out for the width of its box."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll {
            width: 120; max-width: 95%; height: 85%; scrollbar-gutter: stable;
            border: round $primary; background: $surface; padding: 0 0 0 1;
            border-title-color: $text-primary; border-subtitle-color: $text-muted;
            scrollbar-size-vertical: 1;
            /* the text keeps a cell from the bar (it ran into it: "call's id▆▆") */
            & > #help-keys { padding: 0 1 0 0; }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close", id="close-help"),
    ]

    AUTO_FOCUS = "#help-scroll"
    """The box has the keys: up, down, page up, page down, home and end scroll it (the app's
    own ``AUTO_FOCUS``, the trace list, is not on this screen: nothing would have them)."""

    def __init__(self, sections: list[Section], keymap: dict[str, str]) -> None:
        super().__init__()
        self.sections = sections
        self.keymap = keymap
        self._rows = binding_rows(sections, keymap)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-scroll") as scroll:
            scroll.border_title = "Keys and marks"
            scroll.border_subtitle = "↑↓ pgup pgdn home end scroll · escape closes"
            yield KeyTable(self._rows)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:  # a click beside the box closes it
            self.dismiss()
