"""The compare tab: the marked trace (A) and the open one (B), their headline, the view.

:class:`ComparePane` is handed both traces, loaded (the app reads A when its cache let it go);
it says why nothing is compared (nothing marked, the marked trace is the open one, A being
read, B still decoding), or shows its first screen (A, B and each call as analysed) and makes
the comparison between the keys, a slice at a time on the screen's thread, until the view has
its model. It never reads a file.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from contextlib import ExitStack

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from ...core.diff_events import drive
from ...core.trace import Trace, gc_paused
from ...core.translator import Behavior
from ...core.visible import visible
from ..cells import cell_len, fit, middle_fit
from .compare_model import CompareModel, compare_steps
from .compare_view import CompareView, Pending
from .model_view import STEP_SECONDS

__all__ = ["ComparePane", "header_text"]

NOTHING_MARKED = (
    "Mark a trace with m (it becomes A), then open another (B): they are compared here —"
    " the outcome, each call's identity evolution, the payloads."
)
ALONE_TO_COMPARE = (
    "only one trace is listed: name two captures (replay-tui a.sse b.sse) or a folder"
    " to compare one with another."
)
"""What to do when there is no other trace to open."""
ALONE = " Only" + ALONE_TO_COMPARE.removeprefix("only")
"""Said after NOTHING_MARKED when there is no other trace to open."""


# -- the header ------------------------------------------------------------------------------


def _verdict_style(verdict: str) -> str:
    return "bold $text-success" if verdict == "ok" else "bold $text-error"


_SHORT = {Behavior.ACCEPT_IDENTITY: "fix", Behavior.ASSIGN_ALWAYS: "old"}


def _address(trace: Trace, level: int) -> str:
    """The name a side's line gives its trace (at ``level`` 2 and above, its file's name)."""
    address = visible(trace.address)
    return address.rpartition("/")[2] if level >= 2 else address


def _side(label: str, trace: Trace, level: int, cut: int = 0) -> Content:
    """A's or B's line: the address and its verdicts; a higher ``level`` says less (the
    behaviors become fix / old, as in the trace's header, then the address its file's name),
    then the verdicts go on a line of their own, then each on its own. ``cut``: cells to take
    out of the middle of the name (its start and its end stay)."""
    address = _address(trace, level)
    if cut:
        address = middle_fit(address, max(8, cell_len(address) - cut)).rstrip()
    parts: list[tuple[str, str] | str] = [
        (f" {label} ", "bold reverse $text-accent"),
        " ",
        (address, "bold"),
    ]
    for k, behavior in enumerate((Behavior.ACCEPT_IDENTITY, Behavior.ASSIGN_ALWAYS)):
        verdict = trace.verdicts[behavior.value]
        name = behavior.value if level < 1 else _SHORT[behavior]
        lead = "\n    " if level >= 4 or (level == 3 and k == 0) else "   "
        parts += [(f"{lead}{name} ", "$text-muted"), (verdict, _verdict_style(verdict))]
    return Content.assemble(*parts)


def _widest(content: Content) -> int:
    return max(cell_len(line) for line in content.plain.split("\n"))


def header_text(model: CompareModel, width: int = 0, *, compact: bool = False) -> Content:
    """Three lines: A, B (each with its verdicts), then the outcome headline (and between,
    when what A and B asked is known and differs, a warning that says how). In ``width``
    cells (0: any), A's and B's lines say less rather than wrap, a verdict apart from its
    behavior (both at the level the longer needs; the headline wraps).

    ``compact`` (a pane a dozen rows high, at 80x24): three lines whatever the width, the
    rows below are what is read. Each side keeps its verdicts on its line, the middle of a
    long name giving way; the headline is cut with "…" (the first outcome row says it
    whole)."""
    parts = _sides(model.a, model.b, width, compact)
    return _with_outcome(parts, model, width, compact)


def pending_header_text(a: Trace, b: Trace, width: int = 0, *, compact: bool = False) -> Content:
    """:func:`header_text` while the two are compared: A's and B's lines, then that."""
    parts = _sides(a, b, width, compact)
    parts.append(("… comparing the outcomes", "bold $text-muted"))
    return Content.assemble(*parts)


def _sides(a: Trace, b: Trace, width: int, compact: bool) -> list[Content | tuple[str, str] | str]:
    sides = (("A", a), ("B", b))
    level = 0
    top = 2 if compact else 4
    while width and level < top and any(_widest(_side(s, t, level)) > width for s, t in sides):
        level += 1
    parts: list[Content | tuple[str, str] | str] = []
    keep = 0  # compact: the cells both names keep (cut the same, they line up)
    if compact and width:
        names = [cell_len(_address(t, level)) for _, t in sides]
        over = [_side(s, t, level).cell_length - width for s, t in sides]
        if max(over) > 0:
            keep = max(8, min(n - max(o, 0) for n, o in zip(names, over, strict=True)))
    for label, trace in sides:
        cut = max(0, cell_len(_address(trace, level)) - keep) if keep else 0
        side = _side(label, trace, level, cut=cut)
        if compact and width and side.cell_length > width:
            side = side.truncate(width, ellipsis=True)  # (the name at its shortest): cut
        parts += [side, "\n"]
    return parts


def _with_outcome(
    parts: list[Content | tuple[str, str] | str], model: CompareModel, width: int, compact: bool
) -> Content:
    if model.asked:  # two captures of different requests: their differences may be that
        warning = f"⚠ different requests: {'; '.join(model.asked)} ({model.asked_where})"
        warning = visible(warning)
        if compact and width:
            warning = fit(warning, width).rstrip()
        parts += [(warning, "bold $text-warning"), "\n"]
    od = model.outcome
    mark = "✓ " if od.same else "✗ "
    headline = visible(od.headline())
    if compact and width:
        headline = fit(headline, width - cell_len(mark)).rstrip()
    style = "bold $text-success" if od.same else "bold $text-error"
    parts += [(mark, style), (headline, style)]
    return Content.assemble(*parts)


# -- the pane --------------------------------------------------------------------------------


FIRST_SLICE_AFTER = 0.05
"""Seconds from the first screen to the comparison's first slice: the screen is drawn and a
key typed on it is handled first (a slice can hold a step of a tenth of a second: a 50 MB
payload decoded)."""


class ComparePane(Vertical):
    """The header (A, B, the outcome headline) over the three levels; makes the comparison."""

    DEFAULT_CSS = """
    ComparePane {
        height: 100%;
        & > #compare-header {
            height: auto;
            padding: 0 1;
            background: $boost;
        }
        & > CompareView {
            height: 1fr;
            scrollbar-size-vertical: 1;
            scrollbar-size-horizontal: 1;
        }
    }
    """

    COMPACT_BELOW = 20
    """A pane lower than this keeps its header to three lines (at 80x24 it is 13 high)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.header = Static(Content(""), id="compare-header")
        self.view = CompareView(id="compare-view")
        self.pair: tuple[Trace, Trace] | None = None
        """What is shown (or being computed): A and B."""
        self._token = 0
        self._keep = False
        self._steps: Generator[None, None, CompareModel] | None = None
        """The comparison being made, a slice at a time between the keys (``compare``)."""
        self._stage = ""
        self._paused = ExitStack()
        """The cycle collector's pause while a comparison is made (:meth:`_stop`)."""
        self.view.on_demand = self.finish_now

    @property
    def model(self) -> CompareModel | None:
        return self.view.model

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.view

    def on_mount(self) -> None:
        self.header.display = False
        self.show_message(NOTHING_MARKED)

    @property
    def finishing(self) -> bool:
        """The comparison is being made (its first screen shown, the keys working)."""
        return self._steps is not None

    def _show_header(self, model: CompareModel | None = None) -> None:
        model = model or self.model
        width = max(0, self.content_region.width - self.header.styles.gutter.width)
        compact = self.size.height < self.COMPACT_BELOW
        if model is not None:
            self.header.update(header_text(model, width, compact=compact))
        elif self._steps is not None and self.pair is not None:
            self.header.update(pending_header_text(*self.pair, width, compact=compact))

    def on_resize(self) -> None:
        self._show_header()

    def show_message(self, text: str) -> None:
        self.pair = None
        self._token += 1
        self._stop()
        self.header.display = False
        self.view.show_message(text)

    def show(
        self,
        marked: str | None,
        a: Trace | None,
        b: Trace,
        *,
        gone: bool = False,
        partial: bool = False,
        keep_position: bool = False,
        alone: bool = False,
    ) -> None:
        """Compare the marked trace ``a`` with ``b`` (the open one), or say why not
        (``alone``: there is no other trace to open)."""
        if marked is None:
            self.show_message(NOTHING_MARKED + (ALONE if alone else ""))
        elif gone:
            self.show_message(
                f"The marked trace (A) {visible(marked)} was deleted: mark another (m)."
            )
        elif b.address == marked:
            self.show_message(
                f"{visible(marked)} is the marked trace (A): "
                + (
                    ALONE_TO_COMPARE
                    if alone
                    else "open another trace in the list to compare it with"
                    " (shift+tab goes back to the list)."
                )
            )
        elif a is None:
            self.show_message(f"Reading the marked trace {visible(marked)}…")
        elif partial:
            self.show_message(f"Waiting for {visible(b.address)} to finish decoding…")
        else:
            self.compare(a, b, keep_position=keep_position)

    def compare(self, a: Trace, b: Trace, *, keep_position: bool = False) -> None:
        """Compare ``a`` with ``b``, unless that is what is shown already."""
        if self.pair is not None and self.pair[0] is a and self.pair[1] is b:
            return
        self.pair = (a, b)
        self._token += 1
        self._keep = keep_position and self.model is not None
        # Its first screen at once (A, B, the calls as each analysis says them), the
        # comparison made between the keys, STEP_SECONDS at a time on this thread (a thread
        # beside it held the GIL in turns of 5 ms, and every key waited for its turns); a key
        # that needs it whole (n, s, enter) finishes it at once.
        self._stage = "reading both traces' payloads"
        # A new state of the pair on screen (a capture being written) keeps the model shown,
        # its keys working, until the new one is made: its cursor, scroll and unfolded
        # runs then carry over.
        self._stop()
        self._steps = compare_steps(a, b, self.view.behavior, self._progress)
        # The collector paused from the first slice to the last, as one build (paused in
        # each slice only, its passes over the growing heap came between them, 0.1 s and
        # more each on two 100,000-delta traces, in the keys' time).
        self._paused.enter_context(gc_paused())
        if not self._keep:
            self.header.display = True
            self._show_header()
            self.view.show_pending(Pending(a, b, self._stage))
        self._later(self._token, FIRST_SLICE_AFTER)

    def _stop(self) -> None:
        """No comparison is made any more: the collector goes on (if nothing else pauses it)."""
        self._steps = None
        self._paused.close()

    def on_unmount(self) -> None:
        self._stop()

    def _progress(self, stage: str) -> None:
        self._stage = {
            "cutting payloads": "reading both traces' payloads",
            "aligning events": "aligning the payloads",
            "comparing calls": "comparing the calls",
            "comparing outcomes and calls": "comparing the outcomes and the calls' deltas",
        }.get(stage, stage)

    def _next_steps(self, token: int) -> None:
        steps = self._steps
        if steps is None or token != self._token:
            return
        end = time.perf_counter() + STEP_SECONDS
        try:
            while True:  # (a step at least)
                next(steps)
                if time.perf_counter() >= end:
                    break
        except StopIteration as stop:
            self._stop()
            self._ready(stop.value)
            return
        self.view.show_progress(self._stage)
        self._later(token)

    def _later(self, token: int, delay: float = 0.001) -> None:
        """The next slice, once the keys typed meanwhile are handled."""
        self.set_timer(delay, lambda: self._next_steps(token))

    def finish_now(self) -> bool:
        """The comparison made whole at once (a key needs it); whether one was being made."""
        steps = self._steps
        if steps is None:
            return False
        model = drive(steps)
        self._stop()
        self._ready(model)
        return True

    def _ready(self, model: CompareModel) -> None:
        model.behavior = self.view.behavior
        model.layout(calls=False, events=False)
        # The header first: the view is laid out once, at its final height (laid out under
        # a header not yet the model's, it scrolled its first difference to a 2-row view).
        self.header.display = True
        self._show_header(model)
        self.view.show(model, keep_position=self._keep)

    @on(CompareView.BehaviorChanged)
    def _behavior_changed(self, message: CompareView.BehaviorChanged) -> None:
        self._show_header()
        self.notify(f"Comparing under {message.behavior.value}", timeout=2, markup=False)
