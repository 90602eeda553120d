"""``?``: every key, what it does, and the id to remap it with (``keymap.toml``)."""

from __future__ import annotations

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
            rows.append((title, _pretty(keys), b.tooltip or b.description or b.action, b.id or ""))
    return rows


_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "ctrl+p": "ctrl+p",
    "shift+tab": "shift+tab",
    "pageup": "page up",
    "pagedown": "page down",
}


def _pretty(keys: str) -> str:
    return ", ".join(_NAMES.get(k.strip(), k.strip()) for k in keys.split(","))


class HelpScreen(ModalScreen[None]):
    """The key reference."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll {
            width: 110; max-width: 95%; height: 85%;
            border: round $primary; background: $surface; padding: 0 2;
            border-title-color: $text-primary; border-subtitle-color: $text-muted;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close", id="close-help"),
    ]

    def __init__(self, sections: list[Section], keymap: dict[str, str]) -> None:
        super().__init__()
        self.sections = sections
        self.keymap = keymap

    def compose(self) -> ComposeResult:
        parts: list[tuple[str, str] | str] = []
        current = None
        for title, keys, description, binding_id in binding_rows(self.sections, self.keymap):
            if title != current:
                parts.append((("\n" if current else "") + title + "\n", "bold $text-primary"))
                current = title
            parts += [
                (f"  {keys:<16}", "bold $text-accent"),
                f"{description:<64}",
                (f"{binding_id}\n", "$text-muted"),
            ]
        parts += [
            ("\nMouse\n", "bold $text-primary"),
            "  Click a trace to open it, a tab to switch view, a row to select it, a collapsed\n"
            "  run in the diff or compare view to expand it, a cell of the clients view to see\n"
            "  it in detail, a count in the header to filter by that badge.\n",
            ("\nComparing two traces\n", "bold $text-primary"),
            "  m marks the open trace as A (◆A in the list); open another (B) and press 5.\n",
            ("\nRemapping\n", "bold $text-primary"),
            f"  Put binding ids and keys in {keymap_path()}, e.g.\n",
            ('  next-flag = "j"\n  previous-flag = "k"', "$text-success"),
        ]
        with VerticalScroll() as scroll:
            scroll.border_title = "Keys"
            scroll.border_subtitle = "escape closes"
            yield Static(Content.assemble(*parts))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:  # a click beside the box closes it
            self.dismiss()
