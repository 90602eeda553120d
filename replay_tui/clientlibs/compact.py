"""The stream the client-library models read, built from the analysis' per-call arrays.

Every model reads :class:`~.base.Frame` objects. Building one per payload means decoding every
payload again (the analysis keeps only each call's wire deltas) and running 16 models over
100,000 frames. Almost all of those frames are *plain continuations*: one choice, one tool-call
delta whose identity fields repeat the previous delta's exactly with values no library reacts
to twice (absent, ``null`` or ``""``), a string ``arguments`` piece, and nothing else — no
text, no finish reason, no error. Every modelled library handles a run of such deltas exactly
as it handles one delta carrying their concatenated arguments, so :func:`compact_frames` folds
each run into one frame (``Frame.count`` payloads, ``Frame.pieces`` the pieces, for the few
models that must see them one by one). The fold is shared by all the models: one pass for all.

The deltas themselves come from :attr:`Analysis.calls <replay_tui.core.identity.CallTrace>`
(``positions``, ``lines``, ``calls``); a payload is only decoded into a small envelope (its
non-tool-call fields, tool calls skipped) to tell whether it is plain. Anything else — a
payload with several deltas, text, a finish reason, an ``error``, an SSE ``event`` — takes the
ordinary path (:func:`.base.frames`). ``tests/clients/test_clients_compact.py`` holds the two
paths to the same outcomes.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET, UnsetType

from ..core.wire import Function, ToolCall, fast_decoder
from .base import Frame, frame_of

if TYPE_CHECKING:
    from ..core.identity import CallTrace
    from ..core.trace import Trace

__all__ = ["compact_frames"]


class _Fn(msgspec.Struct, gc=False):
    """A ``function`` object (its fields are read from the analysis, not here)."""


class _Call(msgspec.Struct, gc=False):
    function: _Fn | UnsetType | None = UNSET


class _Delta(msgspec.Struct, gc=False):
    role: Any = UNSET
    content: Any = UNSET
    refusal: Any = UNSET
    reasoning_content: Any = UNSET
    reasoning: Any = UNSET
    tool_calls: list[_Call] | UnsetType | None = UNSET


class _Choice(msgspec.Struct, gc=False):
    index: Any = UNSET
    delta: _Delta | UnsetType | None = UNSET
    finish_reason: Any = UNSET
    logprobs: Any = UNSET


class _Envelope(msgspec.Struct, gc=False):
    """What the models and schemas read of a chunk besides its tool calls.

    Its shape constraints are the wire chunk's (``choices`` a list of objects, ``delta`` and
    ``function`` objects or null, ``tool_calls`` a list), so a payload that decodes here also
    decodes on the harness's fast path: never a lenient or throwing one.
    """

    choices: list[_Choice] | UnsetType | None = UNSET
    id: Any = UNSET
    object: Any = UNSET
    created: Any = UNSET
    model: Any = UNSET
    usage: Any = UNSET
    error: Any = UNSET
    system_fingerprint: Any = UNSET


_envelope = msgspec.json.Decoder(_Envelope).decode
_NEUTRAL = (UNSET, None)


def _plain(env: _Envelope) -> bool:
    """One choice, one tool-call delta with a ``function`` object, and nothing else said."""
    if env.error is not UNSET:
        return False
    choices = env.choices
    if type(choices) is not list or len(choices) != 1:
        return False
    choice = choices[0]
    delta = choice.delta
    if choice.finish_reason not in _NEUTRAL or type(delta) is not _Delta:
        return False
    calls = delta.tool_calls
    return (
        type(calls) is list
        and len(calls) == 1
        and type(calls[0].function) is _Fn
        and delta.content in _NEUTRAL
        and delta.reasoning_content in _NEUTRAL
        and delta.reasoning in _NEUTRAL
        and delta.refusal in _NEUTRAL
    )


def _same(a: Any, b: Any) -> bool:
    """The same JSON value (``1`` and ``true`` differ; nested values never compare equal)."""
    return a is b or (type(a) is type(b) and type(a) not in (list, dict) and a == b)


_encode = msgspec.json.encode


class _Run:
    __slots__ = ("call", "env", "first", "last", "pieces", "prefix", "suffix", "trace_call")

    def __init__(
        self, position: int, trace_call: CallTrace, call: ToolCall, env: _Envelope, data: bytes
    ):
        self.first = self.last = position
        self.trace_call = trace_call
        self.call = call
        self.env = env
        fn = call.function
        assert isinstance(fn, Function)
        self.pieces: list[str] = [fn.arguments]
        # The payload's bytes around its arguments token, when that token is found once as
        # the canonical encoding: a next payload that is the same bytes around its own
        # arguments is the same chunk with other arguments, and joins without a decode.
        self.prefix: bytes | None = None
        self.suffix = b""
        token = _encode(fn.arguments)
        at = data.find(token)
        if at >= 0 and data.find(token, at + 1) < 0:
            self.prefix, self.suffix = data[:at], data[at + len(token) :]


def _run_frame(trace: Trace, run: _Run) -> Frame:
    payload = trace.payloads[run.first]
    data = payload.data
    if len(run.pieces) == 1:
        return Frame(payload.line, fast_decoder()(data), data)
    joined = "".join(run.pieces)
    chunk = fast_decoder()(data)
    choice = chunk.choices[0]
    old = choice.delta.tool_calls[0]
    new = msgspec.structs.replace(
        old, function=msgspec.structs.replace(old.function, arguments=joined)
    )
    delta = msgspec.structs.replace(choice.delta, tool_calls=[new])
    chunk = msgspec.structs.replace(chunk, choices=[msgspec.structs.replace(choice, delta=delta)])
    raw = msgspec.json.decode(data)
    raw["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = joined
    frame = Frame(payload.line, chunk, data, count=len(run.pieces), pieces=run.pieces)
    frame._raw = raw
    return frame


def compact_frames(trace: Trace) -> list[Frame]:
    """The frames of :func:`.base.frames`, with each run of plain continuations folded in one.

    This loop runs once per payload of 100,000-delta captures: the checks are inlined.
    """
    # which call's which delta each payload carries (built at C speed: 100,000 entries)
    owner: dict[int, CallTrace] = {}
    delta_of: dict[int, int] = {}
    shared: set[int] = set()  # a payload carrying several deltas is not folded
    for each in trace.analysis.calls:
        positions = each.positions
        mine = dict(zip(positions, range(len(positions)), strict=True))
        if len(mine) < len(positions):
            shared.update(p for p, n in Counter(positions).items() if n > 1)
        shared.update(owner.keys() & mine.keys())
        owner.update(dict.fromkeys(positions, each))
        delta_of.update(mine)
    owner_get = owner.get
    payloads = trace.payloads
    decoded = trace.decoded
    out: list[Frame] = []
    run: _Run | None = None
    last_env: _Envelope | None = None
    last_plain = False
    for i, payload in enumerate(payloads):
        if payload.after_done:
            break
        ct = owner_get(i)
        if ct is not None and payload.event is None and i not in shared:
            k = delta_of[i]
            call = ct.calls[k]
            fn = call.function
            cid = call.id
            data = payload.data
            if (
                run is not None
                and run.prefix is not None
                and run.last == i - 1
                and run.trace_call is ct
                and type(fn) is Function
                and type(fn.arguments) is str
                and ct.lines[k] == payload.line
                and data.startswith(run.prefix)
                and data.endswith(run.suffix)
                and data[len(run.prefix) : len(data) - len(run.suffix)] == _encode(fn.arguments)
            ):
                # the previous payload's bytes with other arguments: the same plain chunk
                run.last = i
                run.pieces.append(fn.arguments)
                continue
            if (
                type(fn) is Function
                and type(fn.arguments) is str
                and (cid is UNSET or cid is None or cid == "")
                and (fn.name is UNSET or fn.name is None or fn.name == "")
                and call.index is not UNSET  # LangChain appends each index-less delta
                and call.index is not None
                and ct.lines[k] == payload.line
            ):
                try:
                    env: _Envelope | None = _envelope(data)
                except (msgspec.DecodeError, RecursionError):
                    env = None
                if env is not None:
                    same_env = env == last_env
                    if not same_env:
                        last_env, last_plain = env, _plain(env)
                    if last_plain:
                        if run is not None and run.last == i - 1 and run.trace_call is ct:
                            # the previous payload was this run's: last_env is its envelope
                            before = run.call
                            bfn = before.function
                            index, kind, name = call.index, call.type, fn.name
                            if (
                                same_env
                                and (index is before.index or _same(index, before.index))
                                and (cid is before.id or _same(cid, before.id))
                                and (kind is before.type or _same(kind, before.type))
                                and (name is bfn.name or _same(name, bfn.name))  # type: ignore[union-attr]
                            ):
                                run.last = i
                                run.pieces.append(fn.arguments)
                                continue
                        if run is not None:
                            out.append(_run_frame(trace, run))
                        run = _Run(i, ct, call, env, data)
                        continue
        if run is not None:
            out.append(_run_frame(trace, run))
            run = None
        frame, stop = frame_of(payload, decoded[i])
        if frame is not None:
            out.append(frame)
        if stop:
            return out
    if run is not None:
        out.append(_run_frame(trace, run))
    return out
