"""The details panel: verdicts and what they meant for the harness, flags, notes, metadata.

Everything is built as :class:`~textual.content.Content` from plain strings: trace text is never
parsed as markup, and control characters are escaped (``visible``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...core.discovery import Skipped
from ...core.identity import Note
from ...core.redact import redact_meta
from ...core.trace import Trace
from ...core.translator import Behavior
from ...core.verdicts import describe
from ...core.visible import visible
from ...core.wire import describe_value
from ...core.words import plural
from ..cells import failure_text, line_shown

__all__ = ["Details", "details_text", "hang", "meta_text"]

Part = tuple[str, str] | str

_BEHAVIORS = (
    (Behavior.ASSIGN_ALWAYS, "assign-always", "the old translator"),
    (Behavior.ACCEPT_IDENTITY, "accept-identity", "the fix"),
)


def _verdict_style(verdict: str) -> str:
    if verdict == "ok":
        return "bold $text-success"
    if verdict == "in-progress":
        return "bold $text-accent"
    return "bold $text-error"


NOTES_OF_A_KIND = 10
"""The details show the first this many notes of each kind (and say how many more): a
gateway that repeats one anomaly 200 times gave 200 near-identical notes, which filled the
pane to no one's use and took its wrapping a tenth of a second."""

SHOWN_AT_MOST = 200
"""The flags, and the notes, the details show at most (the rest are said, not shown)."""


def details_text(trace: Trace, *, loading: str | None = None) -> Content:
    """Verdicts in words (what each meant for the harness), then flags and notes."""
    parts: list[Part] = []
    if loading:
        parts += [(loading, "italic $text-accent"), "\n\n"]
    parts.append(("Verdicts\n", "bold $text-primary"))
    for behavior, name, role in _BEHAVIORS:
        outcome = trace.analysis.outcomes[behavior]
        info = describe(outcome.verdict)
        parts += [(f"{name:<16}", "bold"), (f" {outcome.verdict}", _verdict_style(outcome.verdict))]
        parts.append((f"  ({role})\n", "$text-muted"))
        parts.append(("  when  ", "$text-muted"))
        parts.append(visible(info.when) + "\n")
        parts.append(("  means ", "$text-muted"))
        parts.append((visible(info.consequence) + "\n", "" if info.ok else "$text-warning"))
        reason = outcome.finish
        if reason.get("kind") == "error":
            failure = reason.get("failure", {})
            parts.append(("  finish ", "$text-muted"))
            parts.append(failure_text(failure) + "\n")
    flags = trace.analysis.flags
    parts.append((f"\nFlags ({len(flags):,})\n", "bold $text-primary"))
    if not flags:
        parts.append(("  none: assign-always never erased an identity here\n", "$text-muted"))
    # Line numbers with thousands separators, in a column as wide as the longest (and a
    # space): "line 100,007erased id" ran the two together.
    # (a first screen read from the first call on says "…" until the lines before are
    # counted: Trace.lines_known)
    lines = [line_shown(trace, f.line, ",") for f in flags[:SHOWN_AT_MOST]]
    width = max(5, max(map(len, lines), default=0) + 1)
    for f, line in zip(flags[:SHOWN_AT_MOST], lines, strict=True):
        parts += [
            (f"  line {line:<{width}}", "$text-muted"),
            (f"{f.label:<12}", "bold $text-error"),
            visible(
                f" call {describe_value(f.call)}, delta {f.delta:,}, by {describe_value(f.value)}"
            ),
        ]
        if f.repaired_line is not None:
            repaired = line_shown(trace, f.repaired_line, ",")
            parts.append((f"  repaired on line {repaired}", "$text-success"))
        parts.append("\n")
    if len(flags) > SHOWN_AT_MOST:
        unshown = len(flags) - SHOWN_AT_MOST
        parts.append((f"  … {unshown:,} more (n / N walk them all)\n", "$text-muted"))
    notes = trace.notes
    parts.append((f"\nNotes ({len(notes):,})\n", "bold $text-primary"))
    if not notes:
        parts.append(("  none\n", "$text-muted"))
    shown, held = _some_of_each(notes)
    wheres = [
        f"line {line_shown(trace, n.line, ',')}" if n.line is not None else "—" for n in shown
    ]
    width = max((len(w) for w in wheres), default=0) + 1
    for n, where in zip(shown, wheres, strict=True):
        parts += [
            (f"  {where:<{max(width, 10)}}", "$text-muted"),
            (f"{n.kind:<20}", "$text-secondary"),
            visible(n.message) + "\n",
        ]
    if held:  # (they were left out unsaid once)
        more = ", ".join(f"{count:,} more {kind}" for kind, count in held.items())
        parts.append((f"  … {more} (check -v lists them all)\n", "$text-muted"))
    return Content.assemble(*parts).rstrip()


def _some_of_each(notes: Sequence[Note]) -> tuple[list[Note], dict[str, int]]:
    """The notes the details show, in their order (the first :data:`NOTES_OF_A_KIND` of each
    kind, :data:`SHOWN_AT_MOST` in all), and how many of each kind are left out."""
    shown: list[Note] = []
    seen: dict[str, int] = {}
    held: dict[str, int] = {}
    for note in notes:
        had = seen.get(note.kind, 0)
        if had < NOTES_OF_A_KIND and len(shown) < SHOWN_AT_MOST:
            shown.append(note)
            seen[note.kind] = had + 1
        else:
            held[note.kind] = held.get(note.kind, 0) + 1
    return shown, held


_COLUMN_GAP = re.compile(r" {2,}")
_LABEL = re.compile(r" +[a-z]{1,8} ")


def hang(content: Content, width: int) -> Content:
    """``content`` with each line longer than ``width`` wrapped under its value: a hanging
    indent at the end of the line's last gap of two spaces or more in its first half (after
    ``  when  ``, or a note's kind), else after an indented line's first word (``  means``),
    so a wrapped text never runs back under its label."""
    if width < 20:
        return content
    out: list[Content] = []
    for line in content.split("\n"):
        if line.cell_length <= width:
            out.append(line)
            continue
        plain = line.plain
        half = width // 2
        gaps = [m.end() for m in _COLUMN_GAP.finditer(plain, 0, half) if m.start()]
        if not gaps:  # a note's kind that fills its column: its gap ends just past the half
            half += 2
            gaps = [m.end() for m in _COLUMN_GAP.finditer(plain, 0, half) if m.start()]
        lead = len(plain) - len(plain.lstrip(" "))
        label = _LABEL.match(plain) if lead else None  # "  means the …": after the word
        at = gaps[-1] if gaps and gaps[-1] < len(plain) else label.end() if label else lead
        if at > half or at >= len(plain):
            out.append(line)
            continue
        head, rest = line[:at], line[at:]
        pieces = rest.wrap(width - at)
        out.append(head + pieces[0])
        out += [Content(" " * at) + piece for piece in pieces[1:]]
    return Content("\n").join(out)


_BREAK_AFTER = (re.compile(r"[/?&]+|\s+"), re.compile(r"[=,;:_.-]+"))
"""Where a long value may wrap: after a path or query separator, else after punctuation."""


def fold(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken after a separator (``/ ? & = - _
    .`` or a space) where there is one: a path or URL wraps between its parts, not inside
    them. A part longer than the line is cut (nothing else can be done with it)."""
    if width <= 0 or len(text) <= width:
        return [text]
    lines: list[str] = []
    while len(text) > width:
        cut = 0
        for pattern in _BREAK_AFTER:
            for m in pattern.finditer(text, 0, width + 1):
                if 0 < m.end() <= width:
                    cut = m.end()
            if cut > width // 3:  # a break this late is good enough
                break
        if cut == 0:
            cut = width
        lines.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text:
        lines.append(text)
    return lines


_SO_FAR = frozenset({"size", "lines", "payloads", "comments"})
"""The counts of the metadata that grow as the capture is decoded."""


def meta_text(trace: Trace, width: int = 0, *, decoding: bool = False) -> Content:
    """The metadata table: form, file, HAR request, HTTP status and headers, sizes, counts.

    With ``width``, long values (paths, URLs) wrap between their parts, under their column.
    ``decoding``: the trace is the first part of one still decoded, whose counts say "so
    far" (the size, the lines, the payloads read until then: 20,847,472 of 20,864,216
    bytes said as the file's size)."""
    parts: list[Part] = [("Metadata\n", "bold $text-primary")]
    key_w = min(22, max([len(k) for k, _ in trace.meta] + [len("tool calls")]) + 2)
    a = trace.analysis
    # Credentials are not shown either (a screen is shared, screenshotted, copied with c).
    rows = [(k, redact_meta(k, v)) for k, v in trace.meta]
    if decoding:
        rows = [(k, f"{v} so far" if k in _SO_FAR and v[:1].isdigit() else v) for k, v in rows]
    rows.append(
        (
            "tool calls",
            f"{len(a.calls):,} ({plural(a.deltas, 'delta')}, "
            + ("… blocks)" if trace.skipped else f"{plural(a.blocks, 'block')})"),
        )
    )
    for key, value in rows:
        lines = fold(visible(value), width - key_w) if width else [visible(value)]
        shown_key = visible(key)
        if len(shown_key) >= key_w:  # a long key (a header's name) has its own line
            parts += [(shown_key, "$text-muted"), "\n"]
            shown_key = ""
        parts += [(f"{shown_key:<{key_w}}", "$text-muted"), lines[0] + "\n"]
        parts += [" " * key_w + line + "\n" for line in lines[1:]]
    return Content.assemble(*parts).rstrip()


def skipped_text(skipped: Skipped) -> Content:
    where = f"{skipped.path}: line {skipped.line}" if skipped.line is not None else skipped.path
    return Content.assemble(
        ("Not a trace\n", "bold $text-primary"),
        (visible(where), "bold"),
        "\n",
        visible(skipped.reason),
        (
            "\n\nEvery file that is not a trace is listed once, with the reason.",
            "$text-muted",
        ),
    )


def _lengths(content: Content) -> list[int]:
    return [line.cell_length for line in content.split("\n")]


def _rows(lengths: list[int], width: int, indent: int) -> int:
    """About how many rows lines of ``lengths`` take in ``width`` cells, wrapped under a
    hanging ``indent`` (what choosing the columns' widths needs, not an exact count)."""
    room = max(1, width - indent)
    return sum(1 if n <= width else 1 + -(-(n - width) // room) for n in lengths)


class Verdicts(Static):
    """The verdicts column: tells the pane its width, which the hanging indent needs."""

    def on_resize(self) -> None:
        details = next((a for a in self.ancestors if isinstance(a, Details)), None)
        if details is not None:
            details._verdicts_resized(self.content_region.width)


class Metadata(Static):
    """The metadata column: tells the pane its width, which the wrapping of values needs."""

    def on_resize(self) -> None:
        details = next((a for a in self.ancestors if isinstance(a, Details)), None)
        if details is not None:
            details._metadata_resized(self.content_region.width)


class Details(VerticalScroll, can_focus=True):
    """One scrollable pane: verdicts, flags and notes beside the metadata (below it when narrow)."""

    DEFAULT_CSS = """
    Details {
        height: auto;
        padding: 0 1;
        background: $surface;
        scrollbar-size-vertical: 1;
        & > #details-columns { height: auto; }
        & #details-verdicts { width: 3fr; height: auto; padding: 0 1 0 0; }
        & #details-metadata {
            width: 2fr; height: auto; padding: 0 0 0 1; border-left: vkey $foreground 10%;
        }
        &.-stacked > #details-columns { layout: vertical; }
        &.-stacked #details-verdicts { width: 1fr; padding: 0; }
        &.-stacked #details-metadata {
            width: 1fr; padding: 1 0 0 0; border-left: none; border-top: hkey $foreground 10%;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "scroll_up", "Scroll", key_display="↑↓", id="details-up"),
        Binding("down,j", "scroll_down", "Scroll", show=False, id="details-down"),
    ]

    STACK_BELOW = 90
    """Narrower than this, the metadata goes below the verdicts instead of beside them."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="details-columns"):
            yield Verdicts(id="details-verdicts")
            yield Metadata(id="details-metadata")

    _main = Content("")
    _meta = Content("")

    _trace: Trace | None = None
    _meta_width = 0

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._fr_widths = {}

    _lines: tuple[list[int], list[int]] = ([], [])
    """The length of each line of the verdicts column and of the metadata, unwrapped."""

    def on_resize(self) -> None:
        self.set_class(self.size.width < self.STACK_BELOW, "-stacked")
        self._fit_columns()

    def _fit_columns(self) -> tuple[str, str]:
        """Side by side, the columns share the width so that the taller is as low as it can
        be (the pane shows both at once): a column that needs less than 3:2 gives the rest
        away (at 200 columns the metadata wrapped beside 70 free columns of verdicts)."""
        verdicts = self.query_one("#details-verdicts", Static)
        metadata = self.query_one("#details-metadata", Static)
        width = self.scrollable_content_region.width - 3  # the gap, the rule
        sizes = ("3fr", "2fr")
        if self.has_class("-stacked") or not metadata.display:
            sizes = ("1fr", "1fr")
        elif width > 20:
            main, meta = self._lines
            best = min(
                range(width * 2 // 5, width * 3 // 5 + 1),
                key=lambda w: (max(_rows(main, w, 9), _rows(meta, width - w, 16)), -w),
            )
            if best < width * 3 // 5:  # (else 3:2, as laid out by the stylesheet)
                sizes = (str(best + 1), "1fr")  # (the verdicts' padding: 1 on the right)
        if (str(verdicts.styles.width), str(metadata.styles.width)) != sizes:
            verdicts.styles.width, metadata.styles.width = sizes
        return sizes

    def _widths_for(self, sizes: tuple[str, str]) -> tuple[int, int] | None:
        """The widths of the verdicts' and the metadata's text once the columns are laid out
        at ``sizes`` (None: not known before)."""
        width = self.scrollable_content_region.width
        if width <= 0:
            return None
        if self.has_class("-stacked"):
            return width, width
        verdicts = sizes[0]
        if verdicts.isdigit():  # its padding (1), the metadata's padding and rule (2)
            return int(verdicts) - 1, width - int(verdicts) - 2
        seen = self._fr_widths.get(width)
        return seen if seen is not None and 0 not in seen else None

    _fr_widths: dict[int, tuple[int, int]]

    def _seen_width(self, column: int, width: int) -> None:
        """A column was laid out ``width`` wide: remembered for the columns at 3:2 (as
        Textual divides the pane), for :meth:`_widths_for`."""
        verdicts = self.query_one("#details-verdicts", Static)
        if self.has_class("-stacked") or str(verdicts.styles.width) != "3fr":
            return
        pane = self.scrollable_content_region.width
        widths = list(self._fr_widths.get(pane, (0, 0)))
        widths[column] = width
        self._fr_widths[pane] = (widths[0], widths[1])

    def _metadata_resized(self, width: int) -> None:
        self._seen_width(1, width)
        if width != self._meta_width:
            self._meta_width = width
            if self._trace is not None:
                self._set(self._main, meta_text(self._trace, width, decoding=self._loading))

    _verdicts_width = 0

    def _verdicts_resized(self, width: int) -> None:
        self._seen_width(0, width)
        if width != self._verdicts_width:
            self._verdicts_width = width
            self.query_one("#details-verdicts", Static).update(hang(self._main, width))

    def _set(self, main: Content, meta: Content | None) -> None:
        """Show ``main`` and ``meta`` (None: the trace's metadata, wrapped to the width its
        column is given for it: the columns are fitted first, and each text made for its
        width, so that a trace shown in place of another is laid out once, not again as
        each column learns its new width)."""
        trace = self._trace
        unwrapped = meta_text(trace, decoding=self._loading) if trace is not None else meta
        assert unwrapped is not None
        metadata = self.query_one("#details-metadata", Static)
        metadata.display = bool(unwrapped.plain)
        self._lines = (_lengths(main), _lengths(unwrapped))
        sizes = self._fit_columns()
        if meta is None:
            assert trace is not None
            widths = self._widths_for(sizes)
            if widths is not None:
                self._verdicts_width, self._meta_width = widths
            meta = meta_text(trace, self._meta_width, decoding=self._loading)
        self._main, self._meta = main, meta
        self.query_one("#details-verdicts", Static).update(hang(main, self._verdicts_width))
        metadata.update(meta)

    def shows(self, trace: Trace) -> bool:
        """Whether the pane says what ``trace`` is (and nothing of its loading)."""
        return self._trace is trace and not self._loading

    _loading = False

    def show(self, trace: Trace, *, loading: str | None = None) -> None:
        self._loading = bool(loading)
        self._trace = trace
        self._set(details_text(trace, loading=loading), None)

    def show_skipped(self, skipped: Skipped) -> None:
        self._trace = None
        self._set(skipped_text(skipped), Content(""))

    def show_message(self, text: str) -> None:
        self._trace = None
        self._set(Content(text), Content(""))

    def copy_text(self) -> tuple[str, str]:
        return f"{self._main.plain}\n\n{self._meta.plain}".strip(), "the details"
