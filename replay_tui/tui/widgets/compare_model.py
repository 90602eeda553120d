"""What the compare view shows: two traces' diff laid out as display rows.

A :class:`~replay_tui.core.diff.TraceDiff` has three levels; the model flattens them into one
list of ``(kind, x, y)`` rows — section headings, outcome differences, each call's differences
and delta rows, event rows (a split or merged row takes one line per payload, a changed row a
second line for its differing fields) — with runs of identical rows folded unless expanded.
Laying out 100,000-row diffs costs tens of milliseconds, so folding and unfolding re-lays only
the level that changed; the first layout, with every call's rows, is built a step at a time
(:func:`compare_steps`), between the keys. The
display rows are kept in three arrays (:class:`Entries`), nine bytes a row: two 100,000-delta
captures that differ everywhere lay out 300,000 of them.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field

from ...core.diff import EventRows, OutcomeDiff, TraceDiff, diff_steps
from ...core.diff_events import drive
from ...core.indexed import Indexed
from ...core.request import ask_of, known_from, request_differences
from ...core.trace import Trace, gc_paused
from ...core.translator import Behavior

__all__ = [
    "CompareModel",
    "Display",
    "Entries",
    "build_compare_model",
    "compare_steps",
    "model_steps",
    "nearest",
]

MIN_RUN = 3
"""Identical rows in a run of at least this many collapse."""

# Display row kinds: each display row is ``(kind, x, y)``.
SECTION, BLANK, NOTE = 0, 1, 2
OUT_HEAD, OUT_DIFF, OUT_SAME = 3, 4, 5
CALL_TITLE, CALL_DIFF, CALL_HEAD, CALL_ROW, CALL_RUN = 6, 7, 8, 9, 10
EV_HEAD, EV_ROW, EV_FIELDS, EV_RUN = 11, 12, 13, 14
Entry = tuple[int, int, int]


class Entries(Indexed[Entry]):
    """Display rows ``(kind, x, y)``, kept in arrays; an entry is made when read."""

    __slots__ = ("_kind", "_x", "_y")

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self._kind = array("b")
        self._x = array("i")
        self._y = array("i")
        self.extend(entries)

    def append(self, entry: Entry) -> None:
        kind, x, y = entry
        self._kind.append(kind)
        self._x.append(x)
        self._y.append(y)

    def extend(self, entries: Iterable[Entry]) -> None:
        for entry in entries:
            self.append(entry)

    def __iadd__(self, entries: Iterable[Entry]) -> Entries:
        self.extend(entries)
        return self

    def __len__(self) -> int:
        return len(self._kind)

    def _at(self, index: int) -> Entry:
        return self._kind[index], self._x[index], self._y[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Indexed | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} rows)"


class Display(Indexed[Entry]):
    """The display rows: the outcome's, the calls' and the events' entries one after the
    other, read where they are (not copied into one)."""

    __slots__ = ("_parts",)

    def __init__(self, *parts: Entries) -> None:
        self._parts = parts

    def __len__(self) -> int:
        return sum(map(len, self._parts))

    def _at(self, index: int) -> Entry:
        for part in self._parts:
            if index < len(part):
                return part._at(index)
            index -= len(part)
        raise IndexError(index)

    def __repr__(self) -> str:
        return f"Display({len(self)} rows)"


EVENTS = -1
"""The key of the events section in ``CompareModel.expanded`` (calls use their number)."""


@dataclass(slots=True)
class CompareModel:
    """Two traces compared, laid out as display rows for the chosen behavior."""

    diff: TraceDiff
    behavior: Behavior = Behavior.ACCEPT_IDENTITY
    call_runs: list[list[tuple[int, int]]] = field(default_factory=list)
    event_runs: list[tuple[int, int]] = field(default_factory=list)
    expanded: set[tuple[int, int]] = field(default_factory=set)
    """Expanded runs: ``(call number, run)``, or ``(EVENTS, run)``."""
    display: Display = field(default_factory=Display)
    sections: list[int] = field(default_factory=list)
    """Display row of each section heading."""
    delta_w: int = 3
    line_w: int = 4
    """Widths of the delta and line columns of the call rows."""
    changed_rows: list[int] = field(default_factory=list)
    """Per call, how many of its delta rows differ."""
    events_differ: int = 0
    """How many event rows differ."""
    asked: list[str] = field(default_factory=list)
    """How A's and B's requests differ (:func:`~replay_tui.core.request.request_differences`)."""
    asked_where: str = ""
    """Where what they asked is known from ("both HAR entries")."""
    _calls_part: Entries = field(default_factory=Entries)
    _events_part: Entries = field(default_factory=Entries)

    @property
    def a(self) -> Trace:
        return self.diff.a

    @property
    def b(self) -> Trace:
        return self.diff.b

    @property
    def outcome(self) -> OutcomeDiff:
        return self.diff.outcome(self.behavior)

    @property
    def event_rows(self) -> EventRows:
        return self.diff.events.rows

    def layout(self, *, calls: bool = True, events: bool = True) -> None:
        """Recompute the display rows (only the parts that changed)."""
        if calls:
            self._calls_part = self._lay_calls()
        if events:
            self._events_part = self._lay_events()
        outcome = self._lay_outcome()
        self.sections = [0, len(outcome), len(outcome) + len(self._calls_part)]
        self.display = Display(outcome, self._calls_part, self._events_part)

    def _lay_outcome(self) -> Entries:
        od = self.outcome
        out = Entries([(SECTION, 0, 0)])
        if od.same:
            out.append((OUT_SAME, 0, 0))
        else:
            out.append((OUT_HEAD, 0, 0))
            out += ((OUT_DIFF, k, 0) for k in range(len(od.differences)))
        out.append((BLANK, 0, 0))
        return out

    def _lay_calls(self) -> Entries:
        calls: Entries = drive(self._lay_calls_steps())
        return calls

    def _lay_calls_steps(self) -> Generator[None, None, Entries]:
        """The calls' display rows, a ``yield`` every :data:`STEP_CALLS` calls."""
        out = Entries([(SECTION, 1, 0)])
        calls = self.diff.calls
        if not calls:
            out.append((NOTE, 0, 0))
        for c, cd in enumerate(calls):
            if c % STEP_CALLS == STEP_CALLS - 1:
                yield
            out.append((CALL_TITLE, c, 0))
            out += ((CALL_DIFF, c, k) for k in range(len(cd.differences)))
            out.append((CALL_HEAD, c, 0))
            runs = {start: (k, end) for k, (start, end) in enumerate(self.call_runs[c])}
            rows = cd.rows
            i = 0
            while i < len(rows):
                run = runs.get(i)
                if run is not None and (c, run[0]) not in self.expanded:
                    out.append((CALL_RUN, c, run[0]))
                    i = run[1]
                    continue
                out.append((CALL_ROW, c, i))
                i += 1
                if i % ROWS_A_STEP == 0:
                    yield
            out.append((BLANK, 0, 0))
        return out

    def _lay_events(self) -> Entries:
        out = Entries([(SECTION, 2, 0), (EV_HEAD, 0, 0)])
        events = self.diff.events
        runs = {start: (k, end) for k, (start, end) in enumerate(self.event_runs)}
        i = 0
        while i < len(events.rows):
            run = runs.get(i)
            if run is not None and (EVENTS, run[0]) not in self.expanded:
                out.append((EV_RUN, run[0], 0))
                i = run[1]
                continue
            out += ((EV_ROW, i, sub) for sub in range(events.height(i)))
            if events.status(i) == "changed":
                out.append((EV_FIELDS, i, 0))
            i += 1
        return out

    def run_at(self, entry: Entry) -> tuple[int, int] | None:
        """The ``expanded`` key of the run a display row is, or belongs to (``None``: none)."""
        kind, x, y = entry
        if kind == CALL_RUN:
            return x, y
        if kind == EV_RUN:
            return EVENTS, x
        if kind == CALL_ROW:
            for k, (s, e) in enumerate(self.call_runs[x]):
                if s <= y < e:
                    return x, k
        if kind == EV_ROW:
            for k, (s, e) in enumerate(self.event_runs):
                if s <= x < e:
                    return EVENTS, k
        return None

    def is_difference(self, entry: Entry) -> bool:
        """Rows ``n`` / ``N`` stop at."""
        kind, x, y = entry
        if kind in (OUT_DIFF, CALL_DIFF):
            return True
        if kind == CALL_ROW:
            return self.diff.calls[x].rows[y].changed
        if kind == EV_ROW:
            return y == 0 and self.diff.events.status(x) != "same"
        return False


def build_compare_model(diff: TraceDiff, behavior: Behavior) -> CompareModel:
    """Lay out ``diff`` (pure, but slow for big traces: :func:`model_steps` slices it)."""
    with gc_paused():  # one pause, not one per call's rows (5,000 calls: the collector ran
        model: CompareModel = drive(model_steps(diff, behavior))  # as often as each pause
    return model  # ended, a third of the time)


ROWS_A_STEP = 8192
"""A call's rows laid out between two ``yield`` of the layout's steps."""
STEP_CALLS = 64
"""Calls whose rows are laid out between two ``yield`` of :func:`model_steps`."""


def compare_steps(
    a: Trace, b: Trace, behavior: Behavior, progress: Callable[[str], None] | None = None
) -> Generator[None, None, CompareModel]:
    """The compare view's model of ``a`` against ``b``, a few milliseconds a step (a
    ``yield`` between them; whoever drives it pauses the collector around each slice): what
    :func:`~replay_tui.core.diff.diff_traces` then :func:`build_compare_model` make at once."""
    diff = yield from diff_steps(a, b, progress=progress)
    if progress:
        progress("comparing outcomes and calls")
    model = yield from model_steps(diff, behavior)
    return model


def model_steps(diff: TraceDiff, behavior: Behavior) -> Generator[None, None, CompareModel]:
    """:func:`build_compare_model` a step at a time."""
    for streams in diff.streams:  # (each call's arguments, which the outcomes compare)
        for k in range(len(streams.trace.analysis.calls)):
            streams.arguments(k)
            if k % STEP_CALLS == STEP_CALLS - 1:
                yield
    for b in Behavior:
        diff.outcome(b)
        yield
    model = CompareModel(diff, behavior)
    ask_a, ask_b = (ask_of(t.source.entry, t.source.sidecar) for t in (diff.a, diff.b))
    model.asked = request_differences(ask_a, ask_b)
    model.asked_where = known_from(ask_a, ask_b)
    yield
    call_runs = model.call_runs
    # (calls whose runs are alike share one list of them, never changed: an agent loop's
    # 5,000 calls of as many deltas each)
    alike: dict[tuple[tuple[int, int], ...], list[tuple[int, int]]] = {}
    for k, cd in enumerate(diff.calls):
        yield from cd.rows_steps()
        runs = cd.rows.same_runs(MIN_RUN)
        call_runs.append(alike.setdefault(tuple(runs), runs) if len(runs) <= 4 else runs)
        if k % STEP_CALLS == STEP_CALLS - 1:
            yield
    model.event_runs = yield from diff.events.same_runs_steps(MIN_RUN)
    yield
    model.changed_rows = [cd.changed_count for cd in diff.calls]
    model.events_differ = diff.events.changed_count
    every = [c for t in (diff.a, diff.b) for c in t.analysis.calls]
    deltas = max((len(c.calls) for c in every), default=0)
    # (the last delta's line, not its tool call made again: 10,000 calls' took 60 ms)
    lines = max((c.lines[-1] for c in every if len(c.calls)), default=0)
    model.delta_w = max(3, len(f"{deltas:,}"))
    model.line_w = max(4, len(str(lines)))
    yield
    model._calls_part = yield from model._lay_calls_steps()
    yield
    model.layout(calls=False)
    return model


def nearest(model: CompareModel, entry: Entry) -> int:
    """The display row showing ``entry`` after a relayout (or the run now holding it)."""
    kind, x, y = entry
    for i, e in enumerate(model.display):
        if e == entry:
            return i
        if kind == CALL_RUN and e[0] == CALL_ROW and e[1] == x and e[2] == model.call_runs[x][y][0]:
            return i
        if kind == EV_RUN and e[0] == EV_ROW and e[1] == model.event_runs[x][0] and e[2] == 0:
            return i
        if kind == CALL_ROW and e[0] == CALL_RUN and e[1] == x:
            s, end = model.call_runs[x][e[2]]
            if s <= y < end:
                return i
        if kind == EV_ROW and e[0] == EV_RUN:
            s, end = model.event_runs[e[1]]
            if s <= x < end:
                return i
    return 0
