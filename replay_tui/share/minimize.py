"""The smallest capture that still shows the same finding, by delta debugging.

The finding of a trace is its verdict under each behavior and its set of flags by kind and
call (:func:`finding_of`); ``keep`` narrows it to the flags or the verdicts alone. Three passes
of ddmin (Zeller & Hildebrandt), each keeping a candidate only when its finding is unchanged:

1. over the events (the replayed payloads, ``[DONE]`` included) — starting from a first guess
   made of the events that matter to the analysis (each call's first delta, the flagged deltas,
   the last ``finish_reason``, the end), which makes a 100,000-delta capture cheap;
2. over the fields of each remaining payload, level by level (keys of objects, items of
   arrays);
3. over the characters of each remaining string value;

then events again until no single event can be removed: the result is 1-minimal for events.
Candidates are judged by the core's :class:`~replay_tui.core.identity.Analyzer` on payloads
decoded once (an event's decoding is cached), so a test costs the analysis of what is left.

The output is a trace of the same form (a HAR entry becomes a raw SSE body, a ``curl -i``
capture keeps its head), and :func:`minimize` replays the written bytes through the whole
pipeline — framing, decoding, the translator under both behaviors — to prove the finding held.
"""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from ..core.identity import Analysis, Analyzer
from ..core.indexed import Indexed
from ..core.redact import redact_head
from ..core.summary import pattern_shape
from ..core.trace import Form, Source, Trace, load_trace
from ..core.translator import Behavior, index_key
from ..core.verdicts import verdict_of_chunks
from ..core.wire import UNSET, Decoded, decode_payload, describe_value, fast_decoder

__all__ = [
    "KEEP",
    "Budget",
    "Finding",
    "Minimized",
    "finding_of",
    "minimize",
    "output_form",
    "serialize",
]

T = TypeVar("T")
_BATCH = 4096
"""Payloads decoded before the analyzer takes them, judging the whole trace."""
KEEP = ("both", "flags", "verdicts")
_REMEMBERED = 4096
"""Events a candidate may have for its payloads' decodings to be kept for the next ones:
a larger one (a first guess of 50,000 flagged deltas) is judged as the whole trace is, lean
and decoded a batch at a time (its decodings kept were five times the capture)."""
ASSIGN, ACCEPT = Behavior.ASSIGN_ALWAYS, Behavior.ACCEPT_IDENTITY


class Finding(msgspec.Struct, frozen=True):
    """What a minimized trace must still show."""

    verdicts: tuple[str, str] | None
    """``(assign-always, accept-identity)``; ``None`` when only the flags are kept."""
    flags: frozenset[tuple[str, str]] | None
    """``(kind, call)`` of every flag (the call as its JSON text); ``None``: verdicts only."""
    patterns: frozenset[str] | None = None
    """The gateway patterns the continuations follow (``id:null,name:null``): what the vendor
    must recognise; ``None`` when ``--keep`` narrows the finding."""
    shape: frozenset[str] | None = None
    """The kinds of the notes on how identity arrived (:data:`SHAPE_NOTES`): a name that
    came on a call's first delta must not move to a later one."""

    def shows(self, target: Finding) -> bool:
        """Whether a candidate with this finding keeps ``target``'s: the same verdicts and
        flags, and every pattern and note kind it had (a cut may add one: a flagged delta
        moved among a call's first deltas now shows its pattern)."""
        if self.verdicts != target.verdicts or self.flags != target.flags:
            return False
        for mine, theirs in ((self.patterns, target.patterns), (self.shape, target.shape)):
            if theirs is not None and (mine is None or not theirs <= mine):
                return False
        return True

    def describe(self) -> str:
        """One short sentence: the verdicts, the flags in call order, the patterns."""
        parts = []
        if self.verdicts is not None:
            parts.append(f"{self.verdicts[0]} / {self.verdicts[1]}")
        if self.flags is not None:
            by_call: dict[str, list[str]] = {}
            for kind, call in sorted(self.flags, key=lambda kc: (_call_order(kc[1]), kc[0])):
                by_call.setdefault(call, []).append(kind.removeprefix("erased-"))
            said = [f"{' and '.join(fields)} erased on call {c}" for c, fields in by_call.items()]
            parts.append(", ".join(said) if said else "no flag")
        if self.patterns:
            parts.append("continuations send " + " and ".join(sorted(self.patterns)))
        return "; ".join(parts)


def _call_order(call: str) -> tuple[int, float, str]:
    """Calls in wire-index order (``2`` before ``10``), odd indices after."""
    try:
        return 0, float(call), call
    except ValueError:
        return 1, 0.0, call


def finding_of(analysis: Analysis, keep: str = "both") -> Finding:
    """The finding of an analysis (``keep``: ``both``, ``flags`` or ``verdicts``)."""
    verdicts = (analysis.outcomes[ASSIGN].verdict, analysis.outcomes[ACCEPT].verdict)
    flags = frozenset((f.kind, _call_key(f.call)) for f in analysis.flags)
    patterns = frozenset(
        pattern_shape(n.message) for n in analysis.notes if n.kind == "gateway-pattern"
    )
    shape = frozenset(n.kind for n in analysis.notes if n.kind in SHAPE_NOTES)
    both = keep == "both"
    return Finding(
        verdicts if keep in ("both", "verdicts") else None,
        flags if keep in ("both", "flags") else None,
        patterns if both else None,
        shape if both else None,
    )


SHAPE_NOTES = frozenset(
    ("late-identity", "index-reused", "identity-changed", "name-string-null", "error-object")
)
"""Notes a minimized trace keeps the kinds of (with ``--keep`` left at both)."""


def _call_key(call: Any) -> str:
    return describe_value(index_key(call) if call is not UNSET else UNSET)


class Budget:
    """Bounds a run: a deadline, and a progress callback called at most every ``every`` s."""

    def __init__(
        self,
        seconds: float | None = None,
        on_progress: Callable[[str], None] | None = None,
        every: float = 0.5,
    ) -> None:
        self.start = time.monotonic()
        self.deadline = None if seconds is None else self.start + seconds
        self.on_progress = on_progress
        self.every = every
        self._shown = self.start  # quiet for the first ``every`` seconds
        self.tests = 0
        self.phase = ""
        self.size = 0

    @property
    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def tick(self) -> None:
        self.tests += 1
        if self.on_progress is None:
            return
        now = time.monotonic()
        if now - self._shown >= self.every:
            self._shown = now
            self.on_progress(f"{self.phase}: {self.size:,} left after {self.tests:,} tests")


class _OutOfTime(Exception):
    """The budget ran out; ``best`` is the smallest candidate found so far (it holds), in the
    terms of the pass that raised it, each pass above translating it into its own."""

    def __init__(self, best: Any = None) -> None:
        super().__init__()
        self.best = best


def ddmin(items: Sequence[T], holds: Callable[[list[T]], bool], budget: Budget) -> list[T]:
    """A 1-minimal subsequence of ``items`` for which ``holds`` is true (``holds(items)`` is).

    The empty list is tried first; then Zeller's ddmin with complements. Raises
    :class:`_OutOfTime` when the budget runs out, with the smallest subsequence found so far.
    """
    current = list(items)
    try:
        return _ddmin(current, holds, budget)
    except _OutOfTime as stop:
        raise _OutOfTime(stop.best if stop.best is not None else current) from None


def _ddmin(current: list[T], holds: Callable[[list[T]], bool], budget: Budget) -> list[T]:
    if not current:
        return current
    budget.size = len(current)
    if _test(holds, [], budget):
        return []
    n = 2
    while len(current) >= 2:
        chunks = _split(current, n)
        reduced = False
        for k, chunk in enumerate(chunks):
            if len(chunks) > 2 and _test(holds, chunk, budget, current):
                current, n, reduced = chunk, 2, True
                break
            complement = [x for j, c in enumerate(chunks) if j != k for x in c]
            if _test(holds, complement, budget, current):
                current, n, reduced = complement, max(n - 1, 2), True
                break
        budget.size = len(current)
        if not reduced:
            if n >= len(current):
                break
            n = min(len(current), 2 * n)
    return current


def _test(
    holds: Callable[[list[T]], bool], candidate: list[T], budget: Budget, best: Any = None
) -> bool:
    """``holds(candidate)``, counted; out of time: :class:`_OutOfTime` with ``best``."""
    if budget.expired:
        raise _OutOfTime(best)
    budget.tick()
    return holds(candidate)


def _split(items: list[T], n: int) -> list[list[T]]:
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for k in range(n):
        end = start + size + (1 if k < extra else 0)
        if end > start:
            out.append(items[start:end])
        start = end
    return out


# -- the trace as a list of events --------------------------------------------------------------


def _decode(data: bytes) -> Decoded | None:
    if data == b"[DONE]":
        return None
    try:
        return Decoded(fast_decoder()(data))
    except Exception:  # the lenient path, as TraceBuilder takes it
        return decode_payload(data)


class _Judge:
    """Judges candidate event lists of one trace, with each payload decoded once."""

    def __init__(self, form: Form, keep: str, target: Finding) -> None:
        self.implied_done = form is Form.JSONL
        self.keep = keep
        self.target = target
        self._decoded: dict[bytes, Decoded | None] = {}

    def finding(self, events: Sequence[bytes], *, remember: bool = True) -> Finding:
        """``remember``: keep each payload's decoding for the next candidates (not for the
        whole trace: every payload decoded at once is larger than the capture; its analysis
        is then lean, as ``check``'s: the finding without the per-delta record)."""
        remember = remember and len(events) <= _REMEMBERED
        analyzer = Analyzer(record=remember)
        cache = self._decoded
        batch = []
        for k, data in enumerate(events, 1):
            d = cache.get(data, UNSET)
            if d is UNSET:
                d = _decode(data)
                if remember:
                    cache[data] = d
            batch.append((k, d))
            if not remember and len(batch) >= _BATCH:
                analyzer.feed(batch)
                batch = []
        analyzer.feed(batch)
        if self.implied_done and not analyzer.finished:
            analyzer.payload(len(events) + 1, None)
        return finding_of(analyzer.result(), self.keep)

    def holds(self, events: Sequence[bytes], *, remember: bool = True) -> bool:
        if not events:
            return False  # an empty file is not a trace
        return self.finding(events, remember=remember).shows(self.target)


# -- payload structure ----------------------------------------------------------------------------


def _dump(value: Any) -> bytes:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: keep it as a \u escape
        return json.dumps(value, separators=(",", ":")).encode("ascii")


def _shrink_payload(events: list[bytes], k: int, judge: _Judge, budget: Budget) -> list[bytes]:
    """Shrink event ``k``'s JSON: its fields level by level, then its strings."""
    try:
        root = json.loads(events[k])
    except (ValueError, RecursionError, UnicodeDecodeError):
        return events  # not JSON (a malformed payload is the finding itself): kept whole
    if not isinstance(root, dict | list):
        return events

    def holds_with(value: Any) -> bool:
        try:
            data = _dump(value)
        except (ValueError, RecursionError):
            return False
        return judge.holds([*events[:k], data, *events[k + 1 :]])

    if not holds_with(root):  # re-encoding alone changes it (duplicate keys…): leave it be
        return events
    try:
        root = _shrink_value(root, holds_with, budget)
    except _OutOfTime as stop:  # the payload as far as it was shrunk
        raise _OutOfTime([*events[:k], _dump(stop.best), *events[k + 1 :]]) from None
    return [*events[:k], _dump(root), *events[k + 1 :]]


def _shrink_value(root: Any, holds: Callable[[Any], bool], budget: Budget) -> Any:
    """Breadth-first over the containers of ``root``: ddmin their members, then strings."""
    paths: list[tuple[Any, ...]] = [()]
    strings: list[tuple[Any, ...]] = []
    try:
        while paths:
            path = paths.pop(0)
            node = _get(root, path)
            if isinstance(node, dict | list):
                root = _shrink_members(root, path, holds, budget)
                node = _get(root, path)
                members = list(node) if isinstance(node, dict) else range(len(node))
                paths.extend((*path, m) for m in members)
            elif isinstance(node, str) and node:
                strings.append(path)
        for path in strings:
            root = _shrink_string(root, path, holds, budget)
    except _OutOfTime as stop:  # ``stop.best``: the whole value as far as it was shrunk
        raise _OutOfTime(stop.best if stop.best is not None else root) from None
    return root


def _shrink_members(
    root: Any, path: tuple[Any, ...], holds: Callable[[Any], bool], budget: Budget
) -> Any:
    """``root`` with the container at ``path`` cut to a 1-minimal set of its members."""
    node = _get(root, path)
    if isinstance(node, dict):

        def keep_keys(chosen: list[Any]) -> bool:
            return holds(_set(root, path, {k: node[k] for k in chosen}))

        try:
            kept = ddmin(list(node), keep_keys, budget)
        except _OutOfTime as stop:
            raise _OutOfTime(_set(root, path, {k: node[k] for k in stop.best})) from None
        return _set(root, path, {k: node[k] for k in kept})

    def keep_items(chosen: list[Any]) -> bool:
        return holds(_set(root, path, [node[i] for i in chosen]))

    try:
        kept = ddmin(list(range(len(node))), keep_items, budget)
    except _OutOfTime as stop:
        raise _OutOfTime(_set(root, path, [node[i] for i in stop.best])) from None
    return _set(root, path, [node[i] for i in kept])


def _shrink_string(
    root: Any, path: tuple[Any, ...], holds: Callable[[Any], bool], budget: Budget
) -> Any:
    def keep_chars(chosen: list[str]) -> bool:
        return holds(_set(root, path, "".join(chosen)))

    try:
        chars = ddmin(list(_get(root, path)), keep_chars, budget)
    except _OutOfTime as stop:
        raise _OutOfTime(_set(root, path, "".join(stop.best))) from None
    return _set(root, path, "".join(chars))


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        root = root[step]
    return root


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of ``root`` with ``value`` at ``path`` (copies only the containers on the path)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy: Any = dict(root) if isinstance(root, dict) else list(root)
    copy[head] = _set(root[head], rest, value)
    return copy


# -- the whole run --------------------------------------------------------------------------------


class Minimized(msgspec.Struct):
    """What :func:`minimize` produced and proved."""

    data: bytes
    form: Form
    finding: Finding
    events_before: int
    events_after: int
    bytes_before: int
    bytes_after: int
    tests: int
    seconds: float
    one_minimal: bool
    """Removing any one event of the output was tried and changed the finding."""
    complete: bool
    """False when the budget ran out: the output keeps the finding but may not be minimal."""
    verified: bool
    """The written bytes, replayed from scratch, show the same finding."""

    def summary(self) -> str:
        """``57 events → 3; 41 KB → 612 B`` and how it was established."""
        text = (
            f"{self.events_before:,} events → {self.events_after:,};"
            f" {human_size(self.bytes_before)} → {human_size(self.bytes_after)}"
        )
        return text


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    for unit in ("KB", "MB", "GB"):
        n_f = n / 1024
        if n_f < 1024 or unit == "GB":
            return f"{n_f:.1f} {unit}" if n_f < 10 else f"{n_f:,.0f} {unit}"
        n = int(n_f)
    raise AssertionError("unreachable")


SUFFIX = {Form.SSE: ".sse", Form.HTTP: ".txt", Form.JSONL: ".jsonl"}
"""The file extension of a minimized trace of each output form."""


def minimized_name(address: str, form: Form) -> str:
    """``NAME.min.EXT`` (``captures.har#3`` → ``captures.3.min.sse``)."""
    path_text, _, entry = address.partition("#")
    stem = Path(path_text).stem + (f".{entry}" if entry else "")
    return f"{stem}.min{SUFFIX[output_form(form)]}"


def output_form(form: Form) -> Form:
    """The form a minimized trace is written in: HAR entries become raw SSE bodies."""
    return Form.SSE if form is Form.HAR else form


_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:[^\r\n]*(\r\n|\r|\n)")


def serialize(events: Sequence[bytes], form: Form, head: bytes = b"") -> bytes:
    """A capture of ``form`` holding ``events`` (payloads, ``[DONE]`` included).

    Written an event at a time into one buffer: a minimization out of time may keep the
    whole trace, whose events (each read from the capture when asked for) and their lines
    held at once beside the join were twice the capture."""
    out = io.BytesIO()
    write = out.write
    if form is Form.HTTP:
        # The body changed length: a stale Content-Length would mislead whoever reads it.
        write(_CONTENT_LENGTH.sub(b"", head))
    if form is Form.JSONL:
        for e in events:
            write(e)
            write(b"\n")
        return out.getvalue()
    for e in events:
        for part in e.split(b"\n"):
            write(b"data: ")
            write(part)
            write(b"\n")
        write(b"\n")
    return out.getvalue()


class _Events(Indexed[bytes]):
    """The replayed payloads' data, ``[DONE]`` included (what comes after it is not part of
    it), each read from the capture when asked for: the whole trace is not copied to be cut
    down to a few events."""

    __slots__ = ("_count", "_payloads")

    def __init__(self, trace: Trace) -> None:
        payloads = trace.payloads
        count = 0
        for p in payloads:
            if p.after_done:
                break
            count += 1
        self._payloads = payloads
        self._count = count

    def __len__(self) -> int:
        return self._count

    def _at(self, index: int) -> bytes:
        return self._payloads[index].data


class _Picked(Indexed[bytes]):
    """The events at ``chosen`` positions of ``events``, each read when asked for: a candidate
    of 50,000 flagged deltas is not a list of their copies (0.8x the capture, at the report's
    peak)."""

    __slots__ = ("_chosen", "_events")

    def __init__(self, events: Sequence[bytes], chosen: Sequence[int]) -> None:
        self._events = events
        self._chosen = chosen

    def __len__(self) -> int:
        return len(self._chosen)

    def _at(self, index: int) -> bytes:
        return self._events[self._chosen[index]]


def _events(trace: Trace) -> Sequence[bytes]:
    """The replayed payloads, ``[DONE]`` included (:class:`_Events`)."""
    return _Events(trace)


def _head(trace: Trace) -> bytes:
    """A ``curl -i`` capture's status line and headers, credentials blanked (it is shared)."""
    if trace.source.form is not Form.HTTP or trace.head is None:
        return b""
    return redact_head(bytes(trace.raw[: trace.head.body_offset]))


def load_bytes(data: bytes, form: Form, name: str = "minimized") -> Trace:
    """Frame, decode and analyse ``data`` as a trace of ``form`` (no file involved)."""
    return load_trace(Source(Path(name), name, form), data, keep_decoded=True)


def verify(data: bytes, form: Form, target: Finding, keep: str) -> bool:
    """Whether ``data``, replayed from scratch, shows ``target`` — by the analysis and by the
    translator's own chunks under each behavior."""
    trace = load_trace(Source(Path("minimized"), "minimized", form), data)  # decoded lazily
    if not finding_of(trace.analysis, keep).shows(target):
        return False
    if target.verdicts is not None:
        for b, want in zip((ASSIGN, ACCEPT), target.verdicts, strict=True):
            if verdict_of_chunks(c for _, c in trace.replay(b)) != want:
                return False
    return True


def minimize(
    trace: Trace,
    *,
    keep: str = "both",
    seconds: float | None = 60.0,
    on_progress: Callable[[str], None] | None = None,
) -> Minimized:
    """Shrink ``trace`` while its finding holds (see the module docstring)."""
    if keep not in KEEP:
        raise ValueError(f"keep must be one of {', '.join(KEEP)}")
    budget = Budget(seconds, on_progress)
    form = output_form(trace.source.form)
    target = finding_of(trace.analysis, keep)
    judge = _Judge(form, keep, target)
    whole = _events(trace)
    events: Sequence[bytes] = whole
    head = _head(trace)
    complete = True
    budget.phase, budget.size = "events", len(whole)
    try:
        if judge.holds(whole, remember=False):
            kept = _events_pass(whole, trace, judge, budget)
            budget.phase = "fields"
            for k in range(len(kept)):
                kept = _shrink_payload(kept, k, judge, budget)
            budget.phase = "events again"
            events = _one_minimal(kept, judge, budget)
        else:
            complete = False  # the trace's own finding depends on what is not replayed
    except _OutOfTime as stop:  # keep the smallest capture found so far: it holds
        complete = False
        if stop.best is not None:
            events = stop.best
    data = serialize(events, form, head)
    one_minimal = complete and all(
        not judge.holds([*events[:k], *events[k + 1 :]]) for k in range(len(events))
    )
    verified = verify(data, form, target, keep)
    return Minimized(
        data=data,
        form=form,
        finding=target,
        events_before=len(trace.payloads),
        events_after=len(events),
        bytes_before=len(trace.raw),
        bytes_after=len(data),
        tests=budget.tests,
        seconds=time.monotonic() - budget.start,
        one_minimal=one_minimal,
        complete=complete,
        verified=verified,
    )


def _events_pass(
    events: Sequence[bytes], trace: Trace, judge: _Judge, budget: Budget
) -> list[bytes]:
    indices = list(range(len(events)))
    guess = _first_guess(trace, len(events))
    if guess is not None and len(guess) < len(indices):
        budget.tick()
        if judge.holds(_Picked(events, guess)):
            indices = guess
    try:
        kept = ddmin(indices, lambda chosen: judge.holds(_Picked(events, chosen)), budget)
    except _OutOfTime as stop:
        raise _OutOfTime(_Picked(events, stop.best)) from None
    return [events[i] for i in kept]


def _first_guess(trace: Trace, count: int) -> list[int] | None:
    """Events the analysis points at: each call's first delta, flagged and identity-setting
    deltas, the last finish_reason and the end of the stream."""
    a = trace.analysis
    keep: set[int] = set()
    # The payloads the notes on how identity arrived were written on (a second choice's
    # call on the same index, a new id: each a note the finding keeps).
    noted = {n.line for n in a.notes if n.kind in SHAPE_NOTES and n.line is not None}
    for ct in a.calls:
        keep.add(ct.positions[0])
        if noted:
            keep.update(p for p, line in zip(ct.positions, ct.lines, strict=True) if line in noted)
        for f in ct.flags:
            keep.add(f.position)
            if f.repaired_line is not None:
                keep.update(
                    p
                    for p, line in zip(ct.positions, ct.lines, strict=True)
                    if line == f.repaired_line
                )
        for n in (ct.id_first_delta, ct.name_first_delta):
            if n:
                keep.add(ct.positions[n - 1])
    for o in a.outcomes.values():
        if o.position is not None:
            keep.add(o.position)
    decoded = trace.decoded
    for k in range(count - 1, -1, -1):  # the last finish_reason, and the first text/reasoning
        d = decoded[k]
        chunk = d.chunk if d is not None else None
        if (
            chunk
            and chunk.choices
            and any(type(c.finish_reason) is str for c in chunk.choices if c)
        ):
            keep.add(k)
            break
    for k in range(count):
        d = decoded[k]
        chunk = d.chunk if d is not None else None
        if (
            chunk
            and chunk.choices
            and any(
                c and c.delta and (c.delta.content or c.delta.reasoning_content)
                for c in chunk.choices
            )
        ):
            keep.add(k)
            break
    guess = sorted(k for k in keep if 0 <= k < count)
    return guess or None


def _one_minimal(events: list[bytes], judge: _Judge, budget: Budget) -> list[bytes]:
    """Remove single events while one can go (the passes before may have made one redundant)."""
    k = 0
    while k < len(events):
        candidate = [*events[:k], *events[k + 1 :]]
        if _test(judge.holds, candidate, budget, events):
            events = candidate
            k = 0
            continue
        k += 1
    return events
