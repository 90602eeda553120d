"""A Line-API view that owns its model: it is handed a trace and builds what it shows.

The app routes a trace (or a new state of it) to a view with :meth:`ModelView.show_trace`;
the view builds its model — on the spot when the trace is small, in an exclusive thread
worker of its own when it is big, so a newer trace cancels the build of an older one — and
shows it, keeping its place when it is a new state of the trace it already shows.

A view turned to while it builds takes the keyboard at once (Textual's ``loading`` widgets
refuse the focus; this one does not), and the keys of its own typed meanwhile are kept
(:meth:`ModelView.hold_key`, which the app asks) and handed on once the model is shown: `2`
on a 100,000-delta trace, then `G` and `z`, shows the diff expanded at its last row.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from textual import events, on, work
from textual.message import Message
from textual.widgets import TabbedContent, TabPane
from textual.worker import get_current_worker

from ...core.trace import Trace
from .line_view import LineView

__all__ = [
    "SMALL_BYTES",
    "SMALL_DELTAS",
    "STEP_SECONDS",
    "ModelBuilt",
    "ModelShown",
    "ModelView",
    "small",
]

STEP_SECONDS = 0.008
"""How long the screen's thread works at a time on what a view finishes after its first
screen: a key typed meanwhile waits for one slice, not the whole."""

SMALL_DELTAS = 3000
SMALL_BYTES = 512 * 1024

M = TypeVar("M")


def small(trace: Trace) -> bool:
    """Cheap enough to build a view's model on the UI thread (no thread hop, no flash)."""
    return trace.analysis.deltas <= SMALL_DELTAS and len(trace.raw) <= SMALL_BYTES


@dataclass
class ModelBuilt(Message):
    """A view's worker built the model of ``trace`` (a newer one for the same view wins)."""

    view: ModelView[Any]
    trace: Trace
    model: Any
    keep: bool

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ModelBuilt) and message.view is self.view


@dataclass
class ModelShown(Message):
    """A view put a new model on screen (the app notes its first screen)."""

    view: ModelView[Any]

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ModelShown) and message.view is self.view


class ModelView(LineView, Generic[M]):
    """A view that builds its model from the trace it is given (see the module docstring)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: M | None = None
        self.source: Trace | None = None
        """The trace this view shows (or is building the model of)."""
        self._building = False
        """A worker is building a model whose message will come."""
        self._queued: Trace | None = None
        """A newer state of the trace being built, built when that build is done."""
        self._held: list[tuple[str, str | None]] = []
        """The keys of this view typed while it built its model (key, character)."""
        self._rest: Iterator[None] | None = None
        """What is left to do once the model is on screen (:meth:`rest`), a step at a time."""

    # -- the keyboard while the model is built ------------------------------------------------

    @property
    def focusable(self) -> bool:
        # As Textual's, but not refused while loading: the view turned to holds the keys.
        return self.allow_focus() and self.visible and not self.is_disabled

    def hold_key(self, event: events.Key) -> bool:
        """Keep ``event`` for later when this view, focused, is building the model it will
        show and the key is one of its own bindings (the app's keys work at once). Whether
        it was kept."""
        if not self.loading or self.screen.focused is not self or not self._binds(event.key):
            return False
        self._held.append((event.key, event.character))
        return True

    def _binds(self, key: str) -> bool:
        bindings = self._bindings.copy()
        keymap: dict[str, str] = getattr(self.app, "keymap_overrides", None) or {}
        if keymap:
            bindings.apply_keymap(keymap)
        return key in bindings.key_to_bindings

    def on_blur(self) -> None:
        self._held.clear()  # left for another pane: what was typed for this view is dropped

    def _hand_on_the_held_keys(self) -> None:
        held, self._held = self._held, []
        if not held or self.screen.focused is not self:  # (left: blurred, dropped)
            return
        for key, character in held:  # as typed: the app routes them to the focused view
            self.app.post_message(events.Key(key, character))

    # -- what subclasses provide ------------------------------------------------------------

    @staticmethod
    def build(trace: Trace) -> M:
        """The model of ``trace`` (pure: it runs in a worker thread)."""
        raise NotImplementedError

    def build_from(self, trace: Trace, previous: M | None) -> M:
        """The model of ``trace``, given the model of an earlier state of the same trace
        (``previous``) whose unchanged parts it may take over (pure: a worker runs it)."""
        return self.build(trace)

    def at_once(self, trace: Trace) -> bool:
        """Whether the model of ``trace`` is cheap enough to build on the screen's thread (no
        worker: a thread hop, a loading indicator drawn meanwhile, the two taking turns at
        the interpreter, cost more than a build of a few tens of milliseconds)."""
        return small(trace)

    def show(self, model: M, *, keep_position: bool = False) -> None:
        """Put ``model`` on screen; with ``keep_position`` the cursor and scroll stay."""
        raise NotImplementedError

    def rest(self, model: M) -> Iterator[None] | None:
        """What is left of ``model`` to build once it is on screen (measuring every row,
        indexing every line), each ``yield`` a few milliseconds' step: the screen's thread
        does it in slices of :data:`STEP_SECONDS` between the keys (a thread beside it
        holds the GIL in turns of 5 ms, and every screen update waited for its turns).
        None: nothing is left."""
        return None

    @property
    def finishing(self) -> bool:
        """The model is on screen and the rest of it is being built (:meth:`rest`)."""
        return self._rest is not None

    def _finish(self, model: M) -> None:
        """Build the rest of ``model`` (:meth:`rest`), once its first screen is drawn."""
        self._rest = self.rest(model)
        if self._rest is not None:
            self.call_after_refresh(self._next_steps, self._rest)

    def _next_steps(self, steps: Iterator[None]) -> None:
        if steps is not self._rest:  # a newer model's, or stopped
            return
        end = time.perf_counter() + STEP_SECONDS
        for _ in steps:
            if time.perf_counter() >= end:
                self.set_timer(0.001, lambda: self._next_steps(steps))
                return
        self._rest = None

    # -- routing -------------------------------------------------------------------------

    def show_trace(self, trace: Trace, *, keep: bool | None = None) -> None:
        """Show ``trace``; a new state of the shown trace keeps the cursor and the scroll
        (unless ``keep`` says otherwise: the app knows when the eye must move)."""
        if trace is self.source:
            return
        if keep is None:
            keep = self.source is not None and self.source.address == trace.address
        self.source = trace
        if self.at_once(trace):
            self.workers.cancel_group(self, "model")
            self._building, self._queued = False, None
            self.loading = False
            self._show_built(trace, self.build_from(trace, self.model if keep else None), keep)
            return
        if not keep or self.model is None:
            self.loading = True
        if keep and self._building:
            # A capture being written: one build at a time, the newest state next (each
            # build started anew would cancel the last, which runs on to its end all the
            # same: a pile of threads, each from the stale model, none shown).
            self._queued = trace
            return
        self._queued = None
        self._building = True
        self._build(trace, keep, self.model if keep else None)

    @work(thread=True, exclusive=True, group="model", description="build a view's model")
    def _build(self, trace: Trace, keep: bool, previous: M | None) -> None:
        model = self.build_from(trace, previous)
        if not get_current_worker().is_cancelled:
            self.post_message(ModelBuilt(self, trace, model, keep))

    @on(ModelBuilt)
    def _built(self, message: ModelBuilt) -> None:
        message.stop()
        if message.view is not self:
            return
        self._building = False
        queued, self._queued = self._queued, None
        if queued is not None and queued is self.source:
            self._building = True  # on from the model just made (what did not change stays)
            self._build(queued, True, message.model)
        self._show_built(message.trace, message.model, message.keep)

    def _show_built(self, trace: Trace, model: M, keep: bool) -> None:
        if trace is not self.source:  # a newer trace was routed here meanwhile
            return
        self.loading = False
        self._rest = None  # (the last model's rest, if any, is not built)
        at_end = keep and self.at_end
        self.show(model, keep_position=keep)
        if at_end:  # (G typed while the capture decoded: the end, not where it was then)
            self.move_cursor(self.row_count - 1)
            self.at_end = True
        self.note_painted()
        self._finish(model)
        self.post_message(ModelShown(self))
        if self.screen.focused is self:
            self.screen.refresh_bindings()  # (the footer: the view's keys work now)
        self._hand_on_the_held_keys()
        self.call_after_refresh(self._take_the_keys)

    def _take_the_keys(self) -> None:
        """A view that appears after a slow build takes the keyboard if nothing on screen has
        it: focus left on a view of a hidden tab (the calls, focused as the capture finished
        decoding while this view was built) sent every key to nothing."""
        focused = self.app.focused
        pane = next((a for a in self.ancestors if isinstance(a, TabPane)), None)
        tabs = next((a for a in self.ancestors if isinstance(a, TabbedContent)), None)
        if pane is not None and tabs is not None and tabs.active != pane.id:
            return  # another tab was chosen meanwhile (2 typed while the file was read)
        if self.is_on_screen and (focused is None or not focused.is_on_screen):
            # At once, not as ``focus()`` does, after the messages queued: a view key typed
            # before this ran (2 at launch) had its tab shown first, and then this focus
            # brought this view's tab back over it.
            self.screen.set_focus(self)
