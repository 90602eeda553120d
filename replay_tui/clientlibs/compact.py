"""The stream the client-library models read, built from what the analysis recorded.

Every model reads :class:`~.base.Frame` objects. Building one per payload means decoding every
payload again and running 18 models over 100,000 frames. What a library does with a tool-call
delta depends only on what changes: a call opened, an ``id``, ``name`` or ``type`` sent that
differs from what the call was sent before, a blank value (``null``, ``""``) sent for the first
time since the identity last changed, a non-empty value sent again (which some libraries
double), anything beside the delta (text, a role, a finish reason, an error, a second choice
or delta, a chunk a schema rejects). Every other tool-call payload is *quiet*: an arguments
piece for a call already open. :func:`compact_frames` keeps each payload that changes
something as its own frame and gathers each run of quiet payloads — of one call, or of several
calls interleaved — into one :class:`~.base.Quiet`, which a library reads as one frame per call
with the pieces joined once (the few libraries that care how calls alternate walk its compact
order instead). Text runs fold the same way: consecutive payloads that carry only a piece of
the same text field are one frame.

Nothing is decoded per payload. The deltas and text pieces come from the analysis' event log
(:attr:`Analysis.events <replay_tui.core.identity.EventLog>`, one entry per delta or text
piece, in payload order); whether a payload says anything else is decided once per payload
*shape* — the payload's bytes with its one variable token (the arguments piece, or the text
piece) cut out — and remembered, so a 100,000-delta stream costs a byte search and a dictionary
look-up per payload. A payload whose piece cannot be found exactly once in its bytes is decoded
and judged on its own. ``tests/clients/test_clients_compact.py`` holds this stream to the
payload-by-payload one (:func:`.base.frames`) on every capture and on random streams.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from ..core.wire import UNSET, Function
from .ai_sdk import chunk_ok
from .base import Frame, Quiet, frame_of, frames

if TYPE_CHECKING:
    from ..core.trace import Trace

__all__ = ["compact_frames"]

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.encode
_NEUTRAL = (UNSET, None)
_TEXT_FIELDS = ("content", "reasoning_content")
_CACHE_LIMIT = 4096
"""Payload shapes remembered at most (a gateway that varies a field per payload, a timestamp
or padding, makes every shape new: each is then judged once and forgotten)."""

# the bits of CallState.seen: blank values a call was sent since its identity last changed
_ID_NULL, _ID_EMPTY, _NAME_NULL, _NAME_EMPTY = 1, 2, 4, 8


class _CallState:
    """What the libraries hold of one call's identity, as far as quietness goes."""

    __slots__ = ("index", "seen", "type")

    def __init__(self, index: Any, kind: Any) -> None:
        self.index = index
        self.type = kind
        self.seen = 0


def _blank_bits(cid: Any, name: Any) -> int | None:
    """The seen-bits a delta's ``id`` and ``name`` need (``None``: one of them is not blank)."""
    bits = 0
    if cid is not UNSET:
        if cid is None:
            bits |= _ID_NULL
        elif type(cid) is str and cid == "":
            bits |= _ID_EMPTY
        else:
            return None
    if name is not UNSET:
        if name is None:
            bits |= _NAME_NULL
        elif type(name) is str and name == "":
            bits |= _NAME_EMPTY
        else:
            return None
    return bits


def _quiet_envelope(raw: Any) -> dict[str, Any] | None:
    """The delta of a chunk that says nothing but what its delta carries, else ``None``: one
    choice with index 0, no finish reason, logprobs, usage or error, a delta without role or
    refusal, and a chunk both of the AI SDK's schemas accept."""
    if type(raw) is not dict or "error" in raw or raw.get("usage") is not None:
        return None
    cs = raw.get("choices")
    if type(cs) is not list or len(cs) != 1:
        return None
    choice = cs[0]
    if type(choice) is not dict:
        return None
    index = choice.get("index", UNSET)
    if type(index) is not int or index != 0:
        return None
    if choice.get("finish_reason") is not None or choice.get("logprobs") is not None:
        return None
    delta = choice.get("delta")
    if type(delta) is not dict:
        return None
    for key in ("role", "refusal", "reasoning"):
        if delta.get(key) is not None:
            return None
    if not (chunk_ok(raw, True) and chunk_ok(raw, False)):
        return None
    return delta


def _quiet_tool_payload(data: bytes, args: str) -> bool:
    """One tool-call delta with a ``function`` object and ``args`` as its arguments, and no
    text: nothing else said."""
    try:
        raw = _decode(data)
    except (msgspec.DecodeError, RecursionError):
        return False
    delta = _quiet_envelope(raw)
    if delta is None:
        return False
    if delta.get("content") is not None or delta.get("reasoning_content") is not None:
        return False
    calls = delta.get("tool_calls")
    if type(calls) is not list or len(calls) != 1 or type(calls[0]) is not dict:
        return False
    fn = calls[0].get("function")
    return type(fn) is dict and fn.get("arguments") == args


def _quiet_text_payload(data: bytes, text: str, reasoning: bool) -> bool:
    """Only ``text`` in its field (``reasoning_content`` or ``content``), and nothing else said."""
    try:
        raw = _decode(data)
    except (msgspec.DecodeError, RecursionError):
        return False
    delta = _quiet_envelope(raw)
    if delta is None or delta.get("tool_calls") is not None:
        return False
    mine, other = ("reasoning_content", "content") if reasoning else _TEXT_FIELDS
    return delta.get(mine) == text and delta.get(other) is None


class _Shapes:
    """Whether a payload is quiet, decided once per shape (its bytes without its piece)."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[bytes, tuple[int, bool]] = {}

    def tool(self, data: bytes, args: str) -> bool:
        return self._judge(data, _encode(args), lambda: _quiet_tool_payload(data, args))

    def text(self, data: bytes, text: str, reasoning: bool) -> bool:
        token = _encode(text)
        at = data.find(token)
        if at < 0 or data.find(token, at + 1) >= 0:
            return _quiet_text_payload(data, text, reasoning)
        key = (b"r" if reasoning else b"c") + data[:at] + data[at + len(token) :]
        return self._look(key, at, lambda: _quiet_text_payload(data, text, reasoning))

    def _judge(self, data: bytes, token: bytes, judge: Any) -> bool:
        at = data.find(token)
        if at < 0 or data.find(token, at + 1) >= 0:
            return bool(judge())
        return self._look(b"t" + data[:at] + data[at + len(token) :], at, judge)

    def _look(self, key: bytes, at: int, judge: Any) -> bool:
        # Two payloads with the same bytes around their piece, the piece at the same offset,
        # differ only in that piece: they say the same thing, so one judgement serves both.
        known = self._known.get(key)
        if known is not None and known[0] == at:
            return known[1]
        verdict = bool(judge())
        if len(self._known) >= _CACHE_LIMIT:
            self._known.clear()
        self._known[key] = (at, verdict)
        return verdict


def _text_frame(trace: Trace, first: int, reasoning: bool, pieces: list[str]) -> Frame:
    """The first payload of a text run, with the run's pieces joined into its text field."""
    payload = trace.payloads[first]
    decoded = trace.decoded[first]
    assert decoded is not None and decoded.chunk is not None
    chunk = decoded.chunk
    if len(pieces) == 1:
        return Frame(payload.line, chunk, payload.data)
    joined = "".join(pieces)
    field = "reasoning_content" if reasoning else "content"
    choice = chunk.choices[0]  # type: ignore[index]
    delta = msgspec.structs.replace(choice.delta, **{field: joined})  # type: ignore[arg-type]
    chunk = msgspec.structs.replace(chunk, choices=[msgspec.structs.replace(choice, delta=delta)])
    raw = _decode(payload.data)
    raw["choices"][0]["delta"][field] = joined
    frame = Frame(payload.line, chunk, payload.data, count=len(pieces))
    frame._raw = raw
    return frame


def _unusual(trace: Trace) -> Any:
    """Positions of payloads that are not plain typed chunks (decoded while loading)."""
    special = getattr(trace.decoded, "_unusual", None)
    if isinstance(special, dict):
        return special
    return {
        i
        for i, d in enumerate(trace.decoded)
        if d is not None and (d.chunk is None or d.lenient is not None or d.throw is not None)
    }


def compact_frames(trace: Trace) -> list[Frame | Quiet]:
    """The frames of :func:`.base.frames`, with each run of quiet tool-call payloads gathered
    in a :class:`~.base.Quiet` and each run of text pieces folded into one frame.

    This loop runs once per payload of 100,000-delta captures: the checks are inlined.
    """
    analysis = trace.analysis
    events = analysis.events
    n_events = min(analysis.event_count, len(events))
    if n_events == 0 and (analysis.deltas or analysis.text_blocks):
        return list(frames(trace))  # a lean analysis: no event log to read
    refs, event_lines, texts = events.refs, events.lines, events.texts
    calls = analysis.calls
    order_of = {ct.key: ct.order for ct in calls}
    states: list[_CallState | None] = [None] * len(calls)
    payloads = trace.payloads
    decoded = trace.decoded
    unusual = _unusual(trace)
    table_events = getattr(payloads, "_events", None)
    data_of = getattr(payloads, "data", None)
    line_of = getattr(payloads, "line", None)
    after_of = getattr(payloads, "after_done", None)
    if table_events is None or data_of is None or line_of is None or after_of is None:
        plain = list(payloads)
        table_events = {i: p.event for i, p in enumerate(plain) if p.event is not None}

        def data_of(i: int) -> bytes:
            return plain[i].data

        def line_of(i: int) -> int:
            return plain[i].line

        def after_of(i: int) -> bool:
            return plain[i].after_done

    shapes = _Shapes()
    quiet_tool = shapes.tool
    quiet_text = shapes.text
    out: list[Frame | Quiet] = []
    run: Quiet | None = None
    text_run: tuple[int, bool, list[str]] | None = None
    e = 0
    for i in range(len(payloads)):
        if after_of(i):
            break
        line = line_of(i)
        tool = text = -1
        tools = pieces = 0
        while e < n_events and event_lines[e] <= line:
            ref = refs[e]
            e += 1
            if event_lines[e - 1] < line:
                continue  # (never: every entry is of a payload read before)
            if ref >= 0:
                if not ref & 1:
                    tools += 1
                    tool = ref
            else:
                ref = -ref - 1
                if not ref & 1:
                    pieces += 1
                    text = ref
        if i not in unusual and i not in table_events:
            if tools == 1 and not pieces:
                c = tool >> 33
                st = states[c]
                if st is not None:
                    ct = calls[c]
                    d = ct.calls[(tool >> 1) & 0xFFFFFFFF]
                    fn = d.function
                    if type(fn) is Function and type(fn.arguments) is str:
                        index, kind, cid, name = d.index, d.type, d.id, fn.name
                        bits = _blank_bits(cid, name)
                        if (
                            bits is not None
                            and bits & st.seen == bits
                            and (index is st.index or (type(index) is int and index == st.index))
                            and (kind is UNSET or kind is st.type or _same(kind, st.type))
                            and quiet_tool(data_of(i), fn.arguments)
                        ):
                            if text_run is not None:
                                out.append(_text_frame(trace, *text_run))
                                text_run = None
                            if run is None:
                                run = Quiet(line)
                                out.append(run)
                            run.add(c, index, fn.arguments, line, cid, name)
                            continue
            elif pieces == 1 and not tools:
                piece = texts[text >> 2]
                reasoning = bool(text >> 1 & 1)
                if type(piece) is str and quiet_text(data_of(i), piece, reasoning):
                    run = None
                    if text_run is not None and text_run[1] == reasoning:
                        text_run[2].append(piece)
                        continue
                    if text_run is not None:
                        out.append(_text_frame(trace, *text_run))
                    text_run = (i, reasoning, [piece])
                    continue
        run = None
        if text_run is not None:
            out.append(_text_frame(trace, *text_run))
            text_run = None
        frame, stop = frame_of(payloads[i], decoded[i])
        if frame is not None:
            out.append(frame)
            _follow(frame, states, order_of)
        if stop:
            return out
    if text_run is not None:
        out.append(_text_frame(trace, *text_run))
    return out


def _follow(frame: Frame, states: list[_CallState | None], order_of: dict[Any, int]) -> None:
    """Update what each call's libraries were sent from a frame that said something.

    The blank values a call was sent count only when every library read them: from a chunk
    with one choice and one delta that every schema accepts. Any other identity news, or any
    doubt, starts the call's record of blank values afresh (never wrong: it only makes the
    next blank value a frame of its own).
    """
    from ..core.translator import index_key

    cs = frame.chunk.choices
    if type(cs) is not list:
        return
    single = len(cs) == 1
    for choice in cs:
        delta = choice.delta
        if not delta:
            continue
        tcs = delta.tool_calls
        if type(tcs) is not list:
            continue
        single = single and len(tcs) == 1
        for d in tcs:
            c = order_of.get(index_key(d.index))
            if c is None:
                continue
            st = states[c]
            fn = d.function
            name = fn.name if type(fn) is Function else UNSET
            if st is None:
                # Open for every library: a delta with an index, a function object and a
                # name, in a chunk every schema accepts (the AI SDK drops a call whose first
                # delta has a blank name, and skips a chunk its schema rejects).
                index = d.index
                if not (
                    type(index) is int
                    and type(fn) is Function
                    and type(name) is str
                    and name.strip()
                    and single
                    and _valid(frame)
                ):
                    continue  # not yet: its next delta is a frame of its own too
                states[c] = _CallState(index, d.type)
                continue
            bits = _blank_bits(d.id, name)
            if d.type is not UNSET and not (d.type is st.type or _same(d.type, st.type)):
                # A new type: what the call's blank values meet from now on may differ (a
                # strict openai-node binds the call's name once it is typed "function", and
                # then throws on a blank one), so none of them counts, not even this delta's.
                st.type = d.type
                st.seen = 0
            elif bits is None or type(fn) is not Function or not single or not _valid(frame):
                st.seen = 0
            else:
                st.seen |= bits


def _valid(frame: Frame) -> bool:
    """Every schema accepts the chunk (the AI SDK's two)."""
    raw = frame.raw
    return chunk_ok(raw, True) and chunk_ok(raw, False)


def _same(a: Any, b: Any) -> bool:
    """The same JSON scalar (``1`` and ``true`` differ; nested values never compare equal)."""
    return type(a) is type(b) and type(a) not in (list, dict) and a == b
