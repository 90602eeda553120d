"""``enter`` on a delta, a line or a chunk pair: the whole thing, pretty-printed and wrapped.

Table cells and capture lines are cut at the edge of the screen; this shows what was cut.
The text is trace content: control characters are escaped and nothing is parsed as markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ...core.visible import visible
from ..clipboard import copy

__all__ = ["PayloadScreen", "pretty"]


SHOWN = 16 * 1024
"""Characters the window shows, its sections together: two of its screens at 200x60
(wrapping a 5 MB string whole cost seconds for every key, and 256 KB of it a second; ``c``
copies it all)."""
SECTION = 2048
"""Characters each section shows at least, however long the ones before it."""


def pretty(text: str, shown: int = SHOWN) -> str:
    """``text`` as indented JSON when it is JSON, else as it is; control characters escaped.
    Longer than ``shown``: its first ``shown`` characters as they are, and how many more
    there are."""
    if len(text) > shown:
        rest = len(text) - shown
        head = visible(text[:shown], keep_layout=True)
        return f"{head}\n… {rest:,} more characters (c copies them all)"
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return visible(text, keep_layout=True)
    return visible(json.dumps(value, indent=2, ensure_ascii=False), keep_layout=True)


class PayloadScreen(ModalScreen[None]):
    """A payload (or two chunks) in full."""

    DEFAULT_CSS = """
    PayloadScreen {
        align: center middle;
        & > VerticalScroll {
            width: 90%; height: 85%;
            border: round $primary; background: $surface; padding: 0 1;
            border-title-color: $text-primary; border-subtitle-color: $text-muted;
        }
        & Static { width: 100%; }
    }
    """

    AUTO_FOCUS = "#payload-scroll"
    """The box has the keys: up, down, page up, page down, home and end scroll it (else the
    app's own ``AUTO_FOCUS``, not on this screen, would leave them to nothing)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "dismiss", "Close", id="close-payload"),
        Binding("c", "copy", "Copy", id="copy-payload"),
    ]

    def __init__(
        self,
        title: str,
        sections: list[tuple[str, str]],
        copy: str | Callable[[], str],
        *,
        cut: bool = True,
    ) -> None:
        """``sections``: ``(heading, text)`` pairs; ``copy``: what ``c`` copies (as sent), or
        what makes it (a huge value is encoded whole only when copied). ``cut``: cut each
        section to what the window shows (False: the caller cut them, saying how much more
        each value has; the first section is cut all the same)."""
        super().__init__()
        self.cut = cut
        self.title_text = title
        self.sections = sections
        self.copy_text = copy

    def compose(self) -> ComposeResult:
        parts: list[tuple[str, str] | str] = []
        left = SHOWN
        for n, (heading, text) in enumerate(self.sections):
            if heading:
                parts.append((("\n" if n else "") + visible(heading) + "\n", "bold $text-primary"))
            shown = pretty(text, max(SECTION, left) if self.cut or not n else len(text))
            left -= len(shown)
            parts.append(shown + "\n")
        with VerticalScroll(id="payload-scroll") as scroll:
            scroll.border_title = visible(self.title_text)
            scroll.border_subtitle = "↑↓ pgup pgdn home end scroll · c copies · escape closes"
            yield Static(Content.assemble(*parts).rstrip())

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:  # a click beside the box closes it
            self.dismiss()

    def action_copy(self) -> None:
        text = self.copy_text
        copy(self.app, text if isinstance(text, str) else text())
