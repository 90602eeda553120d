"""The stream the client-library models read, built from what the analysis recorded.

Every model reads :class:`~.base.Frame` objects. Building one per payload means decoding every
payload again and running 18 models over 100,000 frames. What a library does with a tool-call
delta depends only on what changes: a call opened, an ``id``, ``name`` or ``type`` sent that
differs from what the call was sent before, a blank value (``null``, ``""``) sent for the first
time since the identity last changed, a non-empty value sent again (which some libraries
double), anything beside the delta (a non-empty text, a role other than the one every library
holds, a finish reason, an error, a chunk a schema rejects for anything but that role).
Every other tool-call payload is *quiet*: an arguments piece for a call already open (an
empty text beside it says nothing, see :func:`_silent_text`; nor does a Go gateway's
``"role": ""`` re-sent on every chunk, which ``@ai-sdk/openai`` refuses in each: that model
reads none of the call, and a folded run carries the role, refused for it, one error part a
payload). A
payload of several quiet deltas — several choices (n=2 and more), or several deltas side by
side in one choice's ``tool_calls`` — is quiet too: its deltas join the run in payload
order, as the libraries that mix the choices read them, and the libraries that read one
choice (or its first delta) read the run's view of it (:meth:`.base.Quiet.view`).
:func:`compact_frames` keeps each payload that changes something as its own frame and
gathers each run of quiet payloads — of one call, or of several calls interleaved — into one
:class:`~.base.Quiet`, which a library reads as one frame per call with the pieces joined
once (the few libraries that care how calls alternate walk its compact order instead). Text
runs fold the same way: consecutive payloads that carry only a piece of the same text field
are one frame.

Nothing is decoded per payload. The deltas and text pieces come from the analysis' event log
(:attr:`Analysis.events <replay_tui.core.identity.EventLog>`, one entry per delta or text
piece, in payload order); whether a payload says anything else is decided once per payload
*shape* — the payload's bytes with its one variable token (the arguments piece, or the text
piece) cut out — and remembered, so a 100,000-delta stream costs a byte search and a dictionary
look-up per payload. A payload whose piece cannot be found exactly once in its bytes, or of a
shape not seen (a usage that counts up, a chunk id per payload), is judged on its own by one
typed decode into a narrow struct: what no library reads (usage values, the chunk's id and
created, unknown fields, an SSE event other than ``error``, the choice's index but for the one
library that reads choice 0 alone) does not make a payload say something. When shapes keep
coming new (a field that differs on every payload: llama.cpp's timings, a ``created`` that
counts up), the payloads after a quiet one of a call, its next deltas with the same identity
fields, are decoded a span at a time in one typed decode (a *typed streak*, :func:`_streak`).
``tests/clients/test_clients_compact.py`` and ``tests/clients/test_clients_events.py`` hold this
stream to the payload-by-payload one (:func:`.base.frames`) on every capture and on random
streams.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, compress, count, islice, repeat
from itertools import cycle as cycle_of
from operator import add, and_, attrgetter, eq, gt, lt, ne, xor
from typing import TYPE_CHECKING, Any, Literal

import msgspec
from msgspec import UnsetType

from ..core import jsontext
from ..core.pieces import _BIG as _BIG_PIECE
from ..core.pieces import _BLOCK, Pieces, WireCalls, senders
from ..core.sse import PayloadTable
from ..core.trace import _decoded
from ..core.translator import index_key
from ..core.wire import UNSET, Function, ToolCall, fast_decoder, parse_json
from .ai_sdk import chunk_ok, chunk_problem, schema_ok, usage_ok
from .base import FREE, Frame, Marks, MergedRaw, Quiet, QuietCall, frame_of, frames

if TYPE_CHECKING:
    from ..core.trace import Trace

__all__ = ["compact_frames"]

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.encode
_token = jsontext.string
"""A piece as its JSON string's bytes: msgspec's, or a lone surrogate as JavaScript writes it."""


_NEUTRAL = (UNSET, None)
_TEXT_FIELDS = ("content", "reasoning_content")
_CACHE_LIMIT = 4096
"""Payload shapes remembered at most (a gateway that varies a field per payload, a timestamp
or padding, makes every shape new: each is then judged once and forgotten)."""

_MISSES, _RETRY = 64, 4096
"""After this many new tool-call shapes in a row, payloads are judged without the shape table,
until this many more were (then the table is tried again)."""

_HUGE_PIECE = 1 << 20
"""A text piece this long (a 50 MB content string) is judged by one typed decode of its
payload where it lies in the capture (:func:`_in_place`), not by its shape: copying the
payload out, encoding the piece and searching for it cost a tenth of a second a 50 MB piece,
and twice its size in memory."""

_NO_ENTRY = -(1 << 62)
"""A payload with no event-log entry, or several (text refs are negative, tool refs not)."""

# the bits of CallState.seen: blank values a call was sent since its identity last changed
_ID_NULL, _ID_EMPTY, _NAME_NULL, _NAME_EMPTY = 1, 2, 4, 8
_ID_BITS, _NAME_BITS = _ID_NULL | _ID_EMPTY, _NAME_NULL | _NAME_EMPTY
_NOPREV: Any = object()
"""A call's last delta not read alike by every library: nothing repeats it."""


class _CallState:
    """What the libraries hold of one call's identity, as far as quietness goes."""

    __slots__ = (
        "bound",
        "dead",
        "index",
        "named",
        "pair",
        "prev_id",
        "prev_name",
        "schema",
        "seen",
        "shape",
        "shape2",
        "type",
        "typed",
        "verdict",
    )

    def __init__(self, index: Any, kind: Any) -> None:
        self.index = index
        self.type = kind
        self.seen = 0
        self.named = False
        """The call was sent a non-empty name."""
        self.typed = False
        """A delta of the call sent ``type: "function"`` (before it opened too): until then a
        strict openai-node cannot bind the call's name (it binds it once it holds that type
        and a name), and a blank name says nothing to it."""
        self.bound = False
        """A strict openai-node has bound the call's name: a delta with a function object came
        while the call was typed ``function`` and named. Until then, once the call was
        typed ``function`` (:attr:`typed`), a blank name a frame sends is not counted as
        sent: the binding that frame may make turns the same blank on the next delta into a
        throw."""
        self.shape: tuple[bytes, bytes, int, _Said] | None = None
        """The call's last quiet payload shape: its bytes before and after the arguments
        token, the token's place, and what the schemas said of it with its choice's index."""
        self.shape2: tuple[bytes, bytes, int, _Said] | None = None
        """The one before it."""
        self.prev_id: Any = _NOPREV
        """The raw ``id`` of the call's last delta, when it was alone in its chunk (``None``
        otherwise): the same non-blank string again is a repeat, which each library takes,
        or skips, as it did that one."""
        self.prev_name: Any = _NOPREV
        self.schema: tuple[bool, bool] = (True, True)
        """What the AI SDK's two schemas said of the chunk of the call's last delta."""
        self.pair: tuple[Any, Any, Any, tuple[bool, bool]] | None = None
        """The key of the call's last run part with a repeat (:attr:`.base.QuietCall.pair`)."""
        self.verdict: tuple[bool, bool] = _BOTH
        """Which of the AI SDK's two schemas read the call's deltas: both, unless a schema
        refused every chunk of the call it was sent for the chunk's role (a Go gateway's
        ``"role": ""``, which ``@ai-sdk/openai`` refuses): that model reads none of the call,
        each payload an error part. A quiet delta is one the same schemas read."""
        self.dead = False
        """A schema that read none of the call's deltas read one: it meets the call anew,
        which no folding models; every delta of it is then a frame of its own."""


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


def _quiet_envelope(
    raw: Any, checked: bool = False, any_choice: bool = False, role: bool = False
) -> dict[str, Any] | None:
    """The delta of a chunk that says nothing but what its delta carries, else ``None``: one
    choice (with index 0; ``any_choice``: any integer index), no finish reason or error,
    usage and logprobs of the types the AI SDK accepts (their values no library reads), a delta
    without role (``role``: or with a string one, which the caller judges) or refusal, and a
    chunk both of the AI SDK's schemas accept (``checked``: known already)."""
    if type(raw) is not dict or "error" in raw or not usage_ok(raw.get("usage", UNSET)):
        return None
    cs = raw.get("choices")
    if type(cs) is not list or len(cs) != 1:
        return None
    choice = cs[0]
    if type(choice) is not dict:
        return None
    index = choice.get("index", UNSET)
    if type(index) is not int or (index != 0 and not any_choice):
        return None
    if choice.get("finish_reason") is not None:
        return None
    logprobs = choice.get("logprobs")
    if logprobs is not None and type(logprobs) is not dict:  # (its values no library reads)
        return None
    delta = choice.get("delta")
    if type(delta) is not dict:
        return None
    for key in ("refusal", "reasoning"):
        if delta.get(key) is not None:
            return None
    sent = delta.get("role")
    if sent is not None and not (role and type(sent) is str):
        return None
    if not checked and not (chunk_ok(raw, True) and chunk_ok(raw, False)):
        return None
    return delta


# The shape of a quiet tool-call payload as typed structs: what decodes here is a chunk both
# of the AI SDK's schemas accept (each field a type chunk_ok allows, narrower where a quiet
# payload is: no finish reason, role or text) — checked in one typed decode instead of
# walking the JSON twice. What no library reads is skipped or typed only as far as a schema
# checks it: unknown fields, the chunk's id, created and model, usage (its values), the
# choice's index (every model but one mixes choices; see Quiet.zero_frames).


class _QFunction(msgspec.Struct, gc=False):
    arguments: str
    name: str | UnsetType | None = UNSET


class _QCall(msgspec.Struct, gc=False):
    index: int
    function: _QFunction
    id: str | UnsetType | None = UNSET
    type: Literal["function"] | UnsetType | None = UNSET


class _QDelta(msgspec.Struct, gc=False):
    tool_calls: list[_QCall]
    role: Literal["assistant"] | UnsetType | None = UNSET
    """(A role re-sent on every delta, as LM Studio and Ollama do: see :data:`_Said`.)"""
    content: Literal[""] | UnsetType | None = UNSET
    """(An empty text beside a call, as DeepSeek-R1 through OpenRouter sends on every delta,
    says nothing to any library: see :func:`_silent_text`.)"""
    refusal: UnsetType | None = UNSET
    reasoning_content: Literal[""] | UnsetType | None = UNSET
    reasoning: UnsetType | None = UNSET


class _QChoice(msgspec.Struct, gc=False):
    index: int
    delta: _QDelta
    finish_reason: UnsetType | None = UNSET
    logprobs: dict[str, Any] | UnsetType | None = UNSET
    """(Its values no library reads; the AI SDK's schemas ask for an object or null.)"""


_Count = int | float | UnsetType | None


class _QUsage(msgspec.Struct, gc=False):
    prompt_tokens: _Count = UNSET
    completion_tokens: _Count = UNSET
    total_tokens: _Count = UNSET
    prompt_tokens_details: dict[str, int | float | None] | UnsetType | None = UNSET
    completion_tokens_details: dict[str, int | float | None] | UnsetType | None = UNSET
    """(Details of any other value are judged by the AI SDK's own check, on the plain JSON.)"""


class _QChunk(msgspec.Struct, gc=False):
    choices: list[_QChoice]
    id: str | UnsetType | None = UNSET
    created: int | float | UnsetType | None = UNSET
    model: str | UnsetType | None = UNSET
    usage: _QUsage | UnsetType | None = UNSET
    error: UnsetType = UNSET


_quiet_shape = msgspec.json.Decoder(_QChunk).decode


def _quiet_typed(data: bytes) -> _QChunk | None:
    """The payload as a one-choice, one-delta quiet chunk (``None``: it is not one); its
    choice's index may be any integer."""
    try:
        chunk = _quiet_shape(data)
    except (msgspec.DecodeError, RecursionError):  # (ValidationError is a DecodeError)
        return None
    cs = chunk.choices
    if len(cs) != 1 or len(cs[0].delta.tool_calls) != 1:
        return None
    return chunk


_BOTH = (True, True)

_Place = tuple[bool, bool, bool, bool]
"""Where a delta of a payload of several is: not in ``choices[0]`` (a library that reads
that choice alone skips it), not in the first choice of index 0 (the Agents SDK for JS skips
it), not its choice's first tool-call delta (LlamaIndex skips it), and in the same choice as
the delta before it (openai-node's events follow the chunk: see :attr:`.base.Quiet.joined`).
"""

_Said = tuple[tuple[bool, bool], int, Any, bool]
"""What a quiet tool-call payload's shape says: whether the AI SDK's two schemas accept it,
its choice's index, the role its delta re-sends (``None``: none; quiet only while every
library holds that role: see ``role`` in :func:`compact_frames`), and whether each schema
that refuses it refuses it for that role alone (a Go gateway's ``"role": ""``: a folded
frame carrying the role is refused the same, :attr:`.base.QuietCall.role`)."""

_ROLE_PATH = "choices[0].delta.role"
"""Where a chunk schema refuses a payload's role (:func:`.ai_sdk.chunk_problem`)."""


def _problems(raw: Any) -> tuple[Any, Any]:
    """What each of the AI SDK's two chunk schemas (openai-compatible, openai) refuses first
    in ``raw`` (:func:`.ai_sdk.chunk_problem`; ``None``: it accepts it)."""
    return chunk_problem(raw, True), chunk_problem(raw, False)


def _by_role(problems: tuple[Any, Any]) -> bool:
    """A schema refuses the chunk (``problems``: :func:`_problems`), and every one that does
    refuses its ``choices[0]``'s role first."""
    return any(problems) and all(p is None or p[0] == _ROLE_PATH for p in problems)


def _quiet_tool_payload(data: bytes, args: str) -> _Said | None:
    """One tool-call delta with a ``function`` object and ``args`` as its arguments, and no
    text: nothing else said. Returns whether the AI SDK's two schemas (openai-compatible,
    openai) accept the chunk, and the choice's index; or ``None`` when it says something else
    — or when a schema rejects something beside the delta's ``index``, ``id``, ``type``,
    ``name`` and ``arguments`` (what a folded frame keeps)."""
    typed = _quiet_typed(data)
    if typed is not None:
        choice = typed.choices[0]
        if choice.delta.tool_calls[0].function.arguments != args:
            return None
        role = choice.delta.role
        return _BOTH, choice.index, None if role is UNSET else role, False
    try:
        raw = parse_json(data)
    except ValueError:
        return None
    delta = _quiet_envelope(raw, checked=True, any_choice=True, role=True)
    if delta is None:
        return None
    if not _silent_text(delta):
        return None
    calls = delta.get("tool_calls")
    if type(calls) is not list or len(calls) != 1 or type(calls[0]) is not dict:
        return None
    tc = calls[0]
    fn = tc.get("function")
    if type(fn) is not dict or fn.get("arguments") != args:
        return None
    problems = _problems(raw)
    schema = _BOTH if problems == (None, None) else (problems[0] is None, problems[1] is None)
    choice_index: int = raw["choices"][0]["index"]
    role = delta.get("role")
    by_role = _by_role(problems)
    if schema != _BOTH and not by_role:
        # refused for what a folded frame keeps of its delta (its index, id, type, name and
        # arguments), the same way: the frame is
        bare = {k: tc[k] for k in ("index", "id", "type") if k in tc}
        bare["function"] = {k: fn[k] for k in ("name", "arguments") if k in fn}
        kept = {"choices": [{"index": 0, "delta": {"tool_calls": [bare]}}]}
        if _problems(kept) != problems:
            return None
    return schema, choice_index, role, by_role


def _silent_text(delta: dict[str, Any]) -> bool:
    """The delta's ``content`` and ``reasoning_content`` are absent, ``null`` or ``""``.

    Beside a tool call an empty text says nothing to any library modelled, as to the
    analysis (which opens no text block for it): openai-python, openai-node, LiteLLM,
    LlamaIndex, Semantic Kernel and the Agents SDK for JS do not read a delta's text here;
    LangChain JS skips a chunk only for a text that is not a string; pydantic-ai starts a
    text part, and Haystack refuses a text beside a call, only for a non-empty one; the
    AI SDK's schemas accept any string; the Agents SDK (Python) counts ``""`` as output
    only on a chunk with a finish reason, which is never quiet."""
    for key in _TEXT_FIELDS:
        value = delta.get(key)
        if value is not None and not (type(value) is str and value == ""):
            return False
    return True


class _QTextDelta(msgspec.Struct, gc=False):
    content: str | UnsetType | None = UNSET
    reasoning_content: str | UnsetType | None = UNSET
    tool_calls: UnsetType | None = UNSET
    role: Literal["assistant"] | UnsetType | None = UNSET
    refusal: UnsetType | None = UNSET
    reasoning: UnsetType | None = UNSET


class _QTextChoice(msgspec.Struct, gc=False):
    index: int
    delta: _QTextDelta
    finish_reason: UnsetType | None = UNSET
    logprobs: dict[str, Any] | UnsetType | None = UNSET
    """(Its values no library reads; the AI SDK's schemas ask for an object or null.)"""


class _QTextChunk(msgspec.Struct, gc=False):
    """A text payload that says nothing but its text, typed as :class:`_QChunk` is: a chunk
    both of the AI SDK's schemas accept."""

    choices: list[_QTextChoice]
    id: str | UnsetType | None = UNSET
    created: int | float | UnsetType | None = UNSET
    model: str | UnsetType | None = UNSET
    usage: _QUsage | UnsetType | None = UNSET
    error: UnsetType = UNSET


_quiet_text_shape = msgspec.json.Decoder(_QTextChunk).decode


def _bytes_of(raw: Any, starts: Any, ends: Any, skips: Any, p: int, m: int) -> list[bytes]:
    """Payloads ``p`` to ``p + m - 1``, each's bytes where it lies in the capture (``skips``:
    theirs alone, in order), by C loops: no step of Python each."""
    return list(
        map(raw.__getitem__, map(slice, map(add, starts[p : p + m], skips), ends[p : p + m]))
    )


def _in_place(i: int, raw: Any, starts: Any, ends: Any, skips: Any, data_of: Any) -> Any:
    """Payload ``i``'s bytes where they lie in the capture (a view, not a copy), or its own
    bytes when it keeps some (or the table has no places, or the capture is a buffer that a
    live reload may grow: a view of it would stop it from growing)."""
    if skips[i] >= 0:
        if type(raw) is bytes:
            return memoryview(raw)[starts[i] + skips[i] : ends[i]]
        if type(raw) is bytearray:  # (one copy: the table's data() makes two, of 50 MB)
            return raw[starts[i] + skips[i] : ends[i]]
    return data_of(i)


_TextSaid = tuple[int, Any, tuple[bool, bool]]
"""What a text payload says (:func:`_quiet_text_payload`): 0, something; 1, only its text;
2, only its text and a role again (quiet while every library holds it); the role; what the
AI SDK's two schemas say of it (both accept it, or one refuses it for that role alone: a
folded frame of such payloads, the first of them with the run's text, is refused the same,
one error part per payload)."""

_SAYS: _TextSaid = (0, None, _BOTH)


def _quiet_text_payload(data: bytes | memoryview, text: str, reasoning: bool) -> _TextSaid:
    """Only ``text`` in its field (``reasoning_content`` or ``content``), the other absent,
    ``null`` or ``""`` (which says nothing to any library, see :func:`_silent_text`), and
    nothing else said (1), or nothing else but a role again (2); 0: it says something."""
    try:
        typed = _quiet_text_shape(data)
    except (msgspec.DecodeError, RecursionError):
        typed = None
    if typed is not None and len(typed.choices) == 1:
        d = typed.choices[0].delta
        mine, other = (
            (d.reasoning_content, d.content) if reasoning else (d.content, d.reasoning_content)
        )
        if mine != text or not (other is None or other is UNSET or other == ""):
            return _SAYS
        if d.role is None or d.role is UNSET:
            return 1, None, _BOTH
        return 2, d.role, _BOTH
    try:
        raw = parse_json(data)
    except ValueError:
        return _SAYS
    delta = _quiet_envelope(raw, checked=True, any_choice=True, role=True)
    if delta is None or delta.get("tool_calls") is not None:
        return _SAYS
    mine, other = ("reasoning_content", "content") if reasoning else _TEXT_FIELDS
    if delta.get(mine) != text or not (delta.get(other) is None or delta.get(other) == ""):
        return _SAYS
    problems = _problems(raw)
    role = delta.get("role")
    if problems == (None, None):
        return (1, None, _BOTH) if role is None else (2, role, _BOTH)
    if role is None or not _by_role(problems):
        return _SAYS
    return 2, role, (problems[0] is None, problems[1] is None)


class _TextShapes:
    """Whether a text payload is quiet, decided once per shape (its bytes without its piece)."""

    __slots__ = ("_known", "_misses")

    def __init__(self) -> None:
        self._known: dict[bytes, tuple[int, _TextSaid]] = {}
        self._misses = 0
        """New shapes in a row (see ``misses`` in :func:`compact_frames`)."""

    def text(self, data: bytes, text: str, reasoning: bool) -> _TextSaid:
        """:func:`_quiet_text_payload`'s answer."""
        if self._misses >= _MISSES:  # every shape new (a usage that counts up): no table
            self._misses = 0 if self._misses >= _RETRY else self._misses + 1
            return _quiet_text_payload(data, text, reasoning)
        token = _token(text)
        at = data.find(token)
        if at < 0 or data.find(token, at + 1) >= 0:
            return _quiet_text_payload(data, text, reasoning)
        key = (b"r" if reasoning else b"c") + data[:at] + data[at + len(token) :]
        known = self._known.get(key)
        if known is None or known[0] != at:
            self._misses += 1
            if len(self._known) >= _CACHE_LIMIT:
                self._known.clear()
            known = self._known[key] = (at, _quiet_text_payload(data, text, reasoning))
        else:
            self._misses = 0
        return known[1]


def _text_frame(
    trace: Trace,
    first: int,
    reasoning: bool,
    pieces: list[str],
    schema: tuple[bool, bool] = _BOTH,
    lines: array[int] | None = None,
) -> Frame:
    """The first payload of a text run, with the run's pieces joined into its text field;
    ``lines``: each payload's, when an AI SDK schema refuses them (``schema``) for their role
    (the frame is refused for it too, an error part per payload)."""
    huge = len(pieces) == 1 and len(pieces[0]) >= _HUGE_PIECE
    payloads = trace.payloads
    if huge and isinstance(payloads, PayloadTable):
        # (a huge piece: the frame holds the analysis' string in its chunk and in its JSON,
        # not the payload's bytes, and the payload is read where it lies, decoded once at a
        # time: not four copies of a 50 MB text at once)
        cols = payloads.columns()
        line = cols.lines[first]
        data: Any = _in_place(first, cols.raw, cols.start, cols.end, cols.skip, payloads.data)
        # (decoded from those bytes, as trace.decoded does: not from a copy of its own)
        decoded = _decoded(data, False, fast_decoder())
    else:
        payload = payloads[first]
        line, data = payload.line, payload.data
        decoded = trace.decoded[first]
    assert decoded is not None and decoded.chunk is not None
    chunk = decoded.chunk
    del decoded
    if len(pieces) == 1 and not huge:
        return Frame(line, chunk, data)
    joined = pieces[0] if huge else "".join(pieces)
    field = "reasoning_content" if reasoning else "content"
    choice = chunk.choices[0]  # type: ignore[index]
    delta = msgspec.structs.replace(choice.delta, **{field: joined})  # type: ignore[type-var]
    chunk = msgspec.structs.replace(chunk, choices=[msgspec.structs.replace(choice, delta=delta)])
    del choice, delta
    raw = _decode(data)
    raw["choices"][0]["delta"][field] = joined
    frame = Frame(line, chunk, b"" if huge else data, count=len(pieces), lines=lines)
    frame._raw = raw
    frame.schema = schema
    return frame


def _finishes(frame: Frame) -> bool:
    """Whether the frame's chunk says a finish reason (in any choice)."""
    cs = frame.chunk.choices
    if type(cs) is not list:
        return False
    for c in cs:
        reason = getattr(c, "finish_reason", None)
        if not (reason is UNSET or reason is None):
            return True
    return False


def _musing(data: bytes) -> tuple[bytes, str, list[str]] | None:
    """A payload of one choice whose delta holds a ``reasoning`` text and no tool call, no
    text the harness reads (``content`` and ``reasoning_content`` absent, null or ``""``),
    no finish reason: its shape (the JSON with every reasoning text blanked), its text and
    its ``reasoning_details``' texts. Such payloads in a row, of one shape, are one frame to
    every library (their texts joined, as each library joins them): OpenRouter sends 30,000
    before the calls, and each was a frame every library judged."""
    if b'"reasoning"' not in data:  # (most payloads that say something: not decoded again)
        return None
    try:
        raw = _decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    if type(raw) is not dict:
        return None
    choices = raw.get("choices")
    if type(choices) is not list or len(choices) != 1 or type(choices[0]) is not dict:
        return None
    choice = choices[0]
    delta = choice.get("delta")
    if type(delta) is not dict or choice.get("finish_reason") is not None:
        return None
    text = delta.get("reasoning")
    if type(text) is not str or not text or delta.get("tool_calls") is not None:
        return None
    if delta.get("content") not in (None, "") or delta.get("reasoning_content") is not None:
        return None
    texts: list[str] = []
    details = delta.get("reasoning_details")
    if details is not None:
        if type(details) is not list:
            return None
        for item in details:
            if type(item) is not dict or type(item.get("text")) is not str:
                return None
            texts.append(item["text"])
            item["text"] = ""
    delta["reasoning"] = ""
    return _encode(raw), text, texts


def _musing_frame(first: Frame, texts: list[str], details: list[list[str]]) -> Frame:
    """The first payload of a run of reasoning (:func:`_musing`), its texts joined."""
    raw = _decode(first.data)
    delta = raw["choices"][0]["delta"]
    delta["reasoning"] = "".join(texts)
    for k, item in enumerate(delta.get("reasoning_details") or ()):
        item["text"] = "".join(d[k] for d in details)
    frame = Frame(first.line, first.chunk, first.data, first.event, count=len(texts))
    frame._raw = raw
    return frame


def _unusual(trace: Trace) -> Any:
    """Positions of payloads that are not plain typed chunks (decoded while loading)."""
    special = getattr(trace.decoded, "_unusual", None)
    if isinstance(special, dict):
        # (what the fallback parser decoded to a plain chunk is one: a lone surrogate escape
        # msgspec refuses, a gateway in JavaScript cutting an emoji between two deltas, one
        # payload in four; each a frame, 18 libraries read 24,000 frames)
        return {
            i
            for i, d in special.items()
            if d is None or d.chunk is None or d.lenient is not None or d.throw is not None
        }
    return {
        i
        for i, d in enumerate(trace.decoded)
        if d is not None and (d.chunk is None or d.lenient is not None or d.throw is not None)
    }


def _columns(trace: Trace) -> tuple[int, Any, Any, dict[int, str]]:
    """``(payloads replayed, their lines, data of payload i, SSE events by payload)``: read
    straight from the compact table, with no payload object made per payload."""
    payloads = trace.payloads
    if isinstance(payloads, PayloadTable):
        cols = payloads.columns()
        n = len(payloads)
        stop = cols.after.find(1, 0, n)
        return (n if stop < 0 else stop), cols.lines, payloads.data, cols.events
    plain = list(payloads)
    n = next((i for i, p in enumerate(plain) if p.after_done), len(plain))
    return (
        n,
        [p.line for p in plain],
        lambda i: plain[i].data,
        {i: p.event for i, p in enumerate(plain) if p.event is not None},
    )


def _places(trace: Trace) -> tuple[Any, Any, Any, Any]:
    """``(capture bytes, start, end, skip of each payload)`` read from the compact table, to
    compare a payload with a shape in place (``skip`` -1: the payload keeps bytes of its
    own); ``(None, None, None, a skip of -1 for every payload)`` when the table has none."""
    payloads = trace.payloads
    if isinstance(payloads, PayloadTable):
        cols = payloads.columns()
        return cols.raw, cols.start, cols.end, cols.skip
    return None, None, None, _NoPlaces()


class _NoPlaces:
    def __getitem__(self, index: int) -> int:
        return -1


_ENTRIES = 4096
"""Entries of the event log read into lists at a time (:func:`_entries`)."""


_FLIPPED = bytes([1, 0]) + bytes(254)


def _entries(events: Any, count: int) -> Iterator[tuple[list[int], list[int]]]:
    """The event log's entries that are a delta or a text piece (not a block's start), as
    ``(refs, lines)``, about :data:`_ENTRIES` at a time, a line's entries never cut apart:
    lists, read by position once per payload (an array makes an int on each read: the loop
    was a tenth slower), a window at a time (100,000 entries' numbers as lists were half the
    size of paired-calls' capture while the frames were made). Windows left empty are not
    given."""
    refs_of, lines_of = events.refs, events.lines
    a = 0
    while a < count:
        b = min(a + _ENTRIES, count)
        while b < count and lines_of[b] == lines_of[b - 1]:
            b += 1
        refs, lines = refs_of[a:b], lines_of[a:b]
        a = b
        # a block's start: its bit 0 set, in a tool ref (r) as in a text one (-r - 1, whose
        # bit 0 is r's flipped)
        start = bytes(map(xor, map(and_, refs, repeat(1)), map(lt, refs, repeat(0))))
        if start.count(1) == 0:
            yield refs.tolist(), lines.tolist()
        elif start.count(0):
            keep = start.translate(_FLIPPED)
            yield list(compress(refs, keep)), list(compress(lines, keep))


_SPAN = 64
"""Payloads a streak (:func:`_streak`) reads at first; each span after a whole one is four
times longer (a streak that ends soon costs little more than its payloads)."""

_STREAK, _COOL, _COOLEST = 8, 16, 1024
"""A streak of fewer payloads than ``_STREAK`` was not worth its try: none is tried for the
next ``_COOL`` payloads, twice as many after each such streak in a row, at most
``_COOLEST`` (payloads of one shape two or three in a row: a try per few payloads, not per
payload)."""


def _agree(a: Iterable[Any], b: Iterable[Any], m: int) -> int:
    """How many of the first ``m`` items of ``a`` and ``b`` are equal, before one is not."""
    return next(compress(count(), map(ne, a, b)), m)


def _streak(
    i: int,
    e: int,
    entry: int,
    refs: list[int],
    event_lines: list[int],
    lines: Any,
    halts: list[int],
    n: int,
    plain: list[ToolCall],
    shape: tuple[bytes, bytes, int, _Said] | _Typed | None,
    raw: Any,
    starts: Any,
    ends: Any,
    skips: Any,
) -> list[str]:
    """The arguments of the payloads right after payload ``i`` that are payload ``i`` again
    but for their arguments piece, a whole streak checked at once (C loops over slices, not
    a step of Python per payload).

    Payload ``i`` is one quiet tool-call delta of a call, alone in its payload, whose bytes
    matched that call's last quiet ``shape`` in place (its bytes before and after the
    arguments token), and :func:`compact_frames` just took it. A payload after it is the
    same again when it holds the call's next delta alone (the event log's entry ``e`` on,
    one per payload, on its line), is not one of ``halts`` (unusual, or an SSE ``error``),
    and its bytes where they lie in the capture are ``shape``'s around its own arguments'
    token: then it is payload ``i``'s JSON with another string in the arguments' place, a
    tool call with the same ``index``, ``id``, ``type`` and ``name`` and nothing else said
    otherwise, so the loop would take it as it took payload ``i``, in the same state (a
    quiet delta with no repeat leaves the call's state as it found it). The streak stops
    at the first payload that is not (the loop judges it), at the event log's window, and
    at ``plain``'s end (the call's deltas as a plain list).

    ``shape`` a :class:`_Typed`: payload ``i`` was judged by its typed decode (its shape
    new: a field no library reads, ``created``, a usage or timings, differs from payload to
    payload), and a payload after it is the same again when its delta's ``index``, ``id``,
    ``type`` and ``name`` are payload ``i``'s and it decodes as a quiet chunk (``_QChunk``:
    every field a type both AI SDK schemas accept, no text, finish reason or error) whose one
    delta is its call's next, in a choice of payload ``i``'s index, with no role (or the role
    ``"assistant"`` when every library holds it): the whole span decoded at once."""
    if raw is None or shape is None:
        return []
    h = bisect_right(halts, i)
    k = (entry >> 1 & 0xFFFFFFFF) + 1  # the call's next delta
    limit = min(
        (halts[h] if h < len(halts) else n) - i - 1, len(refs) - e, len(plain) - k
    )  # fmt: skip
    typed = type(shape) is _Typed
    if typed:
        identity = _IDENTITY(plain[k - 1])  # (payload i's: a function object, quiet)
    else:
        pre, suf = shape[0], shape[1]  # type: ignore[index]
        if limit <= 0 or not _again(i + 1, plain[k], pre, suf, raw, starts, ends, skips):
            return []  # (the next payload is not: a span of them is not read to find it out)
    got: list[str] = []
    a, span = 0, _SPAN
    while a < limit:
        whole = m = min(span, limit - a)
        p, x, d = i + 1 + a, e + a, k + a  # its first payload, entry, delta
        # the call's next m deltas, in order: the entries between hold them all when the
        # last is the m-th (each delta of a call has one entry, in order)
        if refs[x + m - 1] != entry + 2 * (a + m):
            m = _agree(refs[x : x + m], range(entry + 2 * (a + 1), entry + 2 * (a + m + 1), 2), m)
        # one a payload, on its line
        if event_lines[x : x + m] != lines[p : p + m].tolist():
            m = _agree(event_lines[x : x + m], lines[p : p + m], m)
        if m and x + m < len(event_lines) and event_lines[x + m] == lines[p + m - 1]:
            m -= 1  # (its last payload holds more than that delta)
        sk = skips[p : p + m]
        if m and min(sk) < 0:  # (a payload that keeps bytes of its own)
            m = _agree(map(gt, sk, repeat(-1)), repeat(True), m)
        try:
            pieces = list(map(_ARGUMENTS, plain[d : d + m]))
        except AttributeError:  # (no function object: not the same again)
            break
        if m and set(map(type, pieces)) != _STR:
            m = _agree(map(type, pieces), repeat(str), m)
            del pieces[m:]
        if typed:
            idents = list(map(_IDENTITY, plain[d : d + m]))
            if idents != [identity] * m:
                m = _agree(idents, repeat(identity), m)
            m = _typed_again(_bytes_of(raw, starts, ends, sk, p, m), shape, m)  # type: ignore[arg-type]
            del pieces[m:]
        else:
            try:
                tokens = list(map(_encode, pieces))
            except UnicodeEncodeError:  # (a lone surrogate: the loop judges it)
                break
            found = _bytes_of(raw, starts, ends, sk, p, m)
            meant = [pre + t + suf for t in tokens]
            if found != meant:
                m = _written_otherwise(found, meant, pieces, pre, suf, m)
                del pieces[m:]
        got += pieces
        a += m
        if m < whole:
            break
        span *= 4
    return got


_STR = {str}

_IDENTITY = attrgetter("index", "id", "type", "function.name")
"""A wire tool call's identity fields (C, not a step of Python per delta)."""


class _Typed:
    """What a typed streak (:func:`_streak`) asks of each payload: its choice's index, and
    whether a role ``"assistant"`` says nothing (every library holds it)."""

    __slots__ = ("any_role", "choice")

    def __init__(self, choice: int, any_role: bool) -> None:
        self.choice = choice
        self.any_role = any_role


_quiet_shapes = msgspec.json.Decoder(list[_QChunk]).decode


def _typed_again(found: list[bytes], typed: _Typed, m: int) -> int:
    """How many of the first ``m`` payloads ``found`` (each a chunk the analysis decoded),
    in order, are quiet chunks of one tool-call delta in a choice of ``typed``'s index,
    before one is not: all decoded at once, one at a time only to find the first that does
    not decode. (Their arguments are the pieces the analysis read from the same bytes.)"""
    try:
        chunks = _quiet_shapes(b"[" + b",".join(found[:m]) + b"]")
    except (msgspec.DecodeError, RecursionError):
        chunks = []
        for f in found[:m]:
            try:
                chunks.append(_quiet_shape(f))
            except (msgspec.DecodeError, RecursionError):
                break
    choice, any_role = typed.choice, typed.any_role
    j = 0
    for chunk in chunks:
        cs = chunk.choices
        if len(cs) != 1 or cs[0].index != choice:
            break
        delta = cs[0].delta
        if len(delta.tool_calls) != 1:
            break
        if not (any_role or delta.role is UNSET or delta.role is None):
            break
        j += 1
    return j


_ARGUMENTS = attrgetter("function.arguments")
"""A wire tool call's arguments (C, not a step of Python per delta)."""


def _interleaved(cols: list[list[Any]], m: int) -> list[Any]:
    """The items of a cycle's places (``cols[k]``: place ``k``'s, turn after turn) in the
    order they came: turn by turn, each turn's places in order; ``m`` of them."""
    full = min(map(len, cols))
    out = list(chain.from_iterable(zip(*cols)))  # noqa: B905  (the last turn may be cut)
    out += [col[full] for col in cols if len(col) > full]
    del out[m:]
    return out


_TRAIL = 63
"""A cycle is at most this many payloads long (:func:`_cycle`; a ring of 64)."""


def _cycle(
    i: int,
    e: int,
    trail: list[Any],
    refs: list[int],
    event_lines: list[int],
    lines: Any,
    halts: list[int],
    n: int,
    deltas_of: list[list[ToolCall] | None],
    raw: Any,
    starts: Any,
    ends: Any,
    skips: Any,
) -> tuple[list[str], list[Any]] | None:
    """:func:`_streak` for payloads that come back in a cycle: several calls in turn, each a
    delta of its own in the same shape every turn (parallel calls interleaved), or one call
    whose payloads alternate two shapes (two choices in turn, an ``id`` sent and not).

    ``trail`` holds the payloads just taken (quiet, alone in their payload, in the run's
    stretch of their call, no repeat, matched in place): the cycle is the last of them back
    to the one before of payload ``i``'s call and shape, every payload between taken so. The
    payloads after ``i`` that are the cycle's again but for their pieces — the same calls'
    next deltas in the same order, one entry each on its line, none a halt, their bytes
    their place's shape around their token (and, for one call's two shapes, not the other
    one, which the loop tries first) — are taken: their pieces, and the cycle's records."""
    me = trail[i & _TRAIL]
    c, shape = me[1], me[2]
    period = 0
    for back in range(1, _TRAIL):
        got = trail[(i - back) & _TRAIL]
        if got is None or got[0] != i - back:
            return None  # (a payload between not taken so)
        if got[1] == c and got[2] is shape:
            period = back
            break
    if period < 2:
        return None
    cycle = [trail[(i - period + 1 + k) & _TRAIL] for k in range(period)]
    calls = [r[1] for r in cycle]
    if not (len(set(calls)) == 1 or all(calls[k] != calls[k - 1] for k in range(period))):
        return None  # (each payload a stretch of its own, or all one call's: nothing between)
    # per place, the shape the loop tries first: that of its call's payload before, which is
    # its own, or the other of two the call's payloads take in turn
    firsts: list[Any] = []
    for k in range(period):
        ours = [cycle[(k - b) % period] for b in range(1, period + 1)]
        before, *_ = (r for r in ours if r[1] == calls[k])
        if before[2] is cycle[k][2]:
            firsts.append(None)
            continue
        again, *_ = (r for r in ours[ours.index(before) + 1 :] + ours if r[1] == calls[k])
        if again[2] is not cycle[k][2]:
            return None  # (three shapes: the loop finds some by their table, not in place)
        firsts.append(before[2])
    x = e  # the entry of payload i + 1
    if x < period:
        return None
    h = bisect_right(halts, i)
    m = min((halts[h] if h < len(halts) else n) - i - 1, len(refs) - x, _SPAN * 16)
    if m <= 0:
        return None
    # each payload the next delta of the call of its place in the cycle
    steps = [2 * calls.count(k) for k in calls]
    want = list(map(add, refs[x - period : x - period + m], cycle_of(steps)))
    got_refs = refs[x : x + m]
    if got_refs != want:
        m = _agree(got_refs, want, m)
    payload_lines = lines[i + 1 : i + m + 1].tolist()
    if event_lines[x : x + m] != payload_lines:
        m = _agree(event_lines[x : x + m], payload_lines, m)
    if m and x + m < len(event_lines) and event_lines[x + m] == payload_lines[m - 1]:
        m -= 1  # (its last payload holds more than that delta)
    sk = skips[i + 1 : i + m + 1]
    if m and min(sk) < 0:
        m = _agree(map(gt, sk, repeat(-1)), repeat(True), m)
    if not m:
        return None
    # each place's deltas, a call's every turn (its places' in turn), the places interleaved
    cols = []
    for k in range(min(period, m)):
        r = refs[x + k]
        plain = deltas_of[r >> 33]
        if plain is None:  # (deltas kept compact)
            return None
        step = calls.count(calls[k])
        d = r >> 1 & 0xFFFFFFFF
        try:
            cols.append(
                list(map(_ARGUMENTS, plain[d : d + step * len(range(k, m, period)) : step]))
            )
        except AttributeError:  # (no function object)
            return None
    pieces = _interleaved(cols, m)
    if set(map(type, pieces)) != _STR:
        m = _agree(map(type, pieces), repeat(str), m)
        del pieces[m:]
    try:
        tokens = list(map(_encode, pieces))
    except UnicodeEncodeError:  # (a lone surrogate: the loop judges it)
        return None
    pres, sufs = [r[2][0] for r in cycle], [r[2][1] for r in cycle]
    meant = list(map(b"".join, zip(cycle_of(pres), tokens, cycle_of(sufs))))
    found = _bytes_of(raw, starts, ends, sk, i + 1, m)
    if found != meant:
        m = _agree(found, meant, m)
    if any(firsts):  # (the shape the loop tries first must not be it: no JSON has a NUL)
        opres = [b"\0" if f is None else f[0] for f in firsts]
        osufs = [b"" if f is None else f[1] for f in firsts]
        other = map(b"".join, zip(cycle_of(opres), tokens, cycle_of(osufs)))
        m = min(m, next(compress(count(), map(eq, found, other)), m))
    return (pieces[:m], cycle) if m else None


def _cycle_more(
    run: Quiet,
    states: list[_CallState | None],
    pieces: list[str],
    cycle: list[Any],
    lines: Any,
) -> QuietCall:
    """What the loop adds to ``run`` for the payloads of a :func:`_cycle`, as it added the
    cycle's: a stretch a payload (calls in turn), or the pieces to the one call's stretch;
    each call's pieces, lines, blank ``id`` and ``name``, choices; and each call's state as
    its last payload leaves it (its shape and the other, swapped as the loop swaps them).
    Returns the run's last stretch."""
    m = len(pieces)
    period = len(cycle)
    lines = lines.tolist()
    calls = [r[1] for r in cycle]
    last = cycle[(m - 1) % period]
    if len(set(calls)) == 1:
        run.sizes[-1] += m
    else:
        run.stretches.extend(islice(cycle_of([r[6] for r in cycle]), m))
        run.sizes.extend(repeat(1, m))
        run._last = last[1]
    for c in dict.fromkeys(calls):
        places = [k for k in range(period) if calls[k] == c]
        if len(places) == 1:
            at: Sequence[int] = range(places[0], m, period)
            mine, mine_lines = pieces[places[0] :: period], lines[places[0] :: period]
        else:  # (its places' in turn)
            total = sum(len(range(k, m, period)) for k in places)
            at = _interleaved([list(range(k, m, period)) for k in places], total)
            mine = _interleaved([pieces[k::period] for k in places], total)
            mine_lines = _interleaved([lines[k::period] for k in places], total)
        if not mine:
            continue
        part: QuietCall = cycle[places[0]][6]
        before = len(part.lines)
        part.pieces.extend(mine)
        part.lines.extend(mine_lines)
        final = cycle[at[-1] % period]
        part.last_id, part.last_name = final[4], final[5]
        for k in places:
            taken = len(range(k, m, period))
            if cycle[k][4] is None:
                part.id_nulls += taken
            if cycle[k][5] is None:
                part.name_nulls += taken
        chosen = [cycle[k][3] != 0 for k in places]
        if any(chosen):
            if part.others is None:
                part.others = array("q")
            if all(chosen):
                part.others.extend(range(before, before + len(mine)))
            else:
                part.others.extend(
                    before + t for t, j in enumerate(at) if cycle[j % period][3] != 0
                )
        st = states[c]
        assert st is not None
        st.prev_id, st.prev_name = final[4], final[5]
        if final[2] is not st.shape:  # (its two shapes: the loop swaps them at each payload)
            assert final[2] is st.shape2
            st.shape, st.shape2 = st.shape2, st.shape
    part = last[6]
    assert isinstance(part, QuietCall)
    return part


def _written_otherwise(
    found: list[bytes], meant: list[bytes], pieces: list[str], pre: bytes, suf: bytes, m: int
) -> int:
    """How many of the first ``m`` payloads ``found`` are ``meant``, or ``pre`` and ``suf``
    around another JSON text of their piece (a gateway that escapes what msgspec writes raw,
    ``"\\u00e9"`` for ``"é"``: the same chunk, which the loop judges by decoding it, and
    finds as it found the shape's)."""
    j = _agree(found, meant, m)
    lp, ls = len(pre), len(suf)
    while j < m:
        f = found[j]
        if not (len(f) > lp + ls and f.startswith(pre) and f.endswith(suf)):
            break
        try:
            piece = _decode(f[lp : len(f) - ls])
        except (msgspec.DecodeError, RecursionError):
            break
        if type(piece) is not str or piece != pieces[j]:
            break
        j += 1 + _agree(islice(found, j + 1, None), islice(meant, j + 1, None), m - j - 1)
    return j


def _again(
    p: int, call: ToolCall, pre: bytes, suf: bytes, raw: Any, starts: Any, ends: Any, skips: Any
) -> bool:
    """Whether payload ``p`` lies in the capture as ``pre``, the token of ``call``'s
    arguments (a string) and ``suf`` (what a streak checks of each of its payloads, for one)."""
    fn = call.function
    piece = fn.arguments if type(fn) is Function else None
    if type(piece) is not str or skips[p] < 0:
        return False
    try:
        token = _encode(piece)
    except UnicodeEncodeError:
        return False
    s = starts[p] + skips[p]
    return bool(
        ends[p] - s == len(pre) + len(token) + len(suf)
        and raw.startswith(pre, s)
        and raw.startswith(token, s + len(pre))
        and raw.endswith(suf, s, ends[p])
    )


def _cooled(i: int, taken: int, cool: int, wait: int) -> tuple[int, int]:
    """After a try at payload ``i`` that took ``taken`` payloads (a streak, a cycle): the
    payload before which none is tried again, and how long the next miss waits
    (:data:`_STREAK`)."""
    if taken < _STREAK:
        return i + wait, min(2 * wait, _COOLEST)
    return cool, _COOL


def _skip(numbers: Iterator[int], m: int) -> None:
    """Take ``m`` numbers off ``numbers``."""
    next(islice(numbers, m - 1, m), None)


def _more(part: QuietCall, pieces: list[str], lines: Any, cid: Any, name: Any, choice: int) -> None:
    """:meth:`.base.Quiet.add` of the pieces of a streak (:func:`_streak`) to ``part``, the
    stretch its call's last payload went to: their lines, the blank ``id`` and ``name``
    they each sent (as that payload did), and their choice's index."""
    before = len(part.pieces)
    part.pieces.extend(pieces)
    part.lines.extend(lines)
    m = len(pieces)
    if cid is None:
        part.id_nulls += m
    if name is None:
        part.name_nulls += m
    if choice:
        if part.others is None:
            part.others = array("q")
        part.others.extend(range(before, before + m))


def _many_streak(
    i: int,
    e: int,
    first: int,
    many: tuple[list[tuple[int, Any, str, Any, Any]], tuple[_Place, ...]],
    refs: list[int],
    event_lines: list[int],
    lines: Any,
    halts: list[int],
    n: int,
    deltas_of: list[list[ToolCall] | None],
    segments: tuple[bytes, ...],
    raw: Any,
    starts: Any,
    ends: Any,
    skips: Any,
) -> list[list[str]]:
    """:func:`_streak` for a payload of several quiet deltas of distinct calls (``many``, as
    :func:`_quiet_many` found them; its entries ``first`` to ``e``), whose bytes matched the
    payload before's in place (``segments``: its bytes around the arguments' tokens): the
    payloads after it that are it again but for their pieces — the same calls' next deltas,
    one entry each, in the same order, on the payload's line, and its bytes ``segments``
    around their tokens. Their pieces, per delta of the payload (empty: none)."""
    if raw is None:
        return []
    calls = [g[0] for g in many[0]]
    count = len(calls)
    plains = [deltas_of[c] for c in calls]
    if count < 2 or len(set(calls)) < count or len(segments) != count + 1:
        return []
    base = refs[first:e]
    h = bisect_right(halts, i)
    limit = min((halts[h] if h < len(halts) else n) - i - 1, (len(refs) - e) // count)
    nexts = [(r >> 1 & 0xFFFFFFFF) + 1 for r in base]  # each call's next delta
    for plain, k in zip(plains, nexts, strict=True):
        if plain is None:
            return []
        limit = min(limit, len(plain) - k)
    if limit <= 0:
        return []
    m = min(limit, _SPAN * 16)
    # the calls' next deltas, in the payload's order, a payload's entries on its line
    want = list(
        chain.from_iterable(zip(*(range(r + 2, r + 2 * m + 1, 2) for r in base), strict=True))
    )
    got = refs[e : e + m * count]
    if got != want:
        m = _agree(got, want, m * count) // count
    payload_lines = lines[i + 1 : i + m + 1].tolist()
    got = event_lines[e : e + m * count]
    want = list(chain.from_iterable(zip(*(payload_lines,) * count, strict=True)))
    if got != want:
        m = _agree(got, want, m * count) // count
    x = e + m * count
    if m and x < len(event_lines) and event_lines[x] == payload_lines[m - 1]:
        m -= 1  # (its last payload holds more than those deltas)
    sk = skips[i + 1 : i + m + 1]
    if m and min(sk) < 0:
        m = _agree(map(gt, sk, repeat(-1)), repeat(True), m)
    if not m:
        return []
    try:
        pieces = [
            list(map(_ARGUMENTS, plain[k : k + m]))  # type: ignore[index]
            for plain, k in zip(plains, nexts, strict=True)
        ]
    except AttributeError:  # (no function object: not the same again)
        return []
    for each in pieces:
        if set(map(type, each)) != _STR:
            m = min(m, _agree(map(type, each), repeat(str), m))
    try:
        tokens = [list(map(_encode, each[:m])) for each in pieces]
    except UnicodeEncodeError:  # (a lone surrogate: the loop judges it)
        return []
    columns: list[Iterable[bytes]] = [repeat(segments[0])]
    for toks, segment in zip(tokens, segments[1:], strict=True):
        columns += [toks, repeat(segment)]
    meant = list(map(b"".join, zip(*columns)))  # noqa: B905  (the tokens' lists end it)
    found = _bytes_of(raw, starts, ends, sk, i + 1, m)
    if found != meant:
        m = _agree(found, meant, m)
    return [each[:m] for each in pieces] if m else []


def _many_more(
    run: Quiet,
    many: tuple[list[tuple[int, Any, str, Any, Any]], tuple[_Place, ...]],
    pieces: list[list[str]],
    lines: Any,
) -> None:
    """What the loop adds to ``run`` for the payloads of a :func:`_many_streak`, as it added
    the payload before (``many``): a stretch per delta (the calls are distinct, and the run's
    last stretch is the payload's last call's), its piece and line, its blank ``id`` and
    ``name``, its places, and the marks of the stretches that came in the choice of the one
    before."""
    m = len(pieces[0])
    parts = [run.calls[g[0]] for g in many[0]]
    count = len(parts)
    at = len(run.sizes)
    run.stretches.extend(parts * m)
    run.sizes.extend(repeat(1, count * m))
    pattern = bytes(place[3] for place in many[1])
    if 1 in pattern:
        if run.joined is None:
            run.joined = Marks()
        flags = run.joined._flags
        if len(flags) < at:
            flags.extend(bytes(at - len(flags)))
        del flags[at:]  # (none was marked past the run's stretches)
        flags += pattern * (m - 1) + pattern.rstrip(b"\0")
    for part, (_c, _index, _piece, cid, name), (later, other, tail, _j), each in zip(
        parts, many[0], many[1], pieces, strict=True
    ):
        before = len(part.lines)
        _more(part, each, lines, cid, name, other)
        part.last_id, part.last_name = cid, name
        if later:
            if part.later is None:
                part.later = array("q")
            part.later.extend(range(before, before + m))
        if tail:
            if part.tails is None:
                part.tails = array("q")
            part.tails.extend(range(before, before + m))


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
    entries = _entries(events, n_events)
    refs, event_lines = next(entries, ([], []))
    n_events = len(refs)
    more = n_events > 0
    """Entries (their windows) are left after ``refs``: read when it is."""
    texts = events.texts
    calls = analysis.calls
    sent = senders([ct.calls for ct in calls])
    deltas_of = [None if isinstance(ct.calls, WireCalls) else ct.calls for ct in calls]
    """Per call: its deltas' tool calls when they are a plain list (read inline), else None
    (read without making each again: sent)."""
    order_of = {ct.key: ct.order for ct in calls}
    states: list[_CallState | None] = [None] * len(calls)
    payloads = trace.payloads
    decoded = trace.decoded
    unusual = _unusual(trace)
    n, lines, data_of, sse_events = _columns(trace)
    # the one SSE event a library reads (openai-node and the libraries on it throw): others fold
    errors = {i for i, event in sse_events.items() if event == "error"}
    raw, starts, ends, skips = _places(trace)
    # Whether a payload is quiet, decided once per shape: two payloads with the same bytes
    # around their piece, the piece at the same offset, differ only in that piece, so they say
    # the same thing (a gateway that varies a field per payload makes each shape new: each is
    # then judged on its own, and the table is emptied when it is full)
    tool_shapes: dict[bytes, tuple[int, _Said | None]] = {}
    misses = 0
    """New shapes in a row (no payload of a shape seen between them): past _MISSES (a usage
    that counts up, an id per payload) each payload is judged on its own, without making and
    remembering its shape."""
    quiet_text = _TextShapes().text
    many_shapes: dict[tuple[bytes, ...], tuple[_Place, ...] | None] = {}
    """The payloads of several choices judged, by their bytes around the arguments tokens."""
    role: str | None = None
    """The role every library holds (``None``: none, or not one alike): a frame's choices[0]
    sent it, and no other role came since (LangChain JS reads the last role choices[0] sent,
    openai-node any truthy role once; the AI SDK's schemas judge it in each chunk, no other
    model reads it). A delta that re-sends it then says nothing new: ``"assistant"`` (LM
    Studio, Ollama), or a Go gateway's ``""`` on every chunk — while LangChain JS holds ``""``
    it reads no tool call, and the AI SDK's schema that refuses that role makes each payload
    an error part, which a folded frame carrying it makes too."""
    typed_early: set[int] = set()
    """Calls a delta sent ``type: "function"`` before they opened (see _CallState.typed)."""
    many_last: list[Any] = [None, 0, False]
    """The last of them found quiet: ``(its bytes around the tokens, what it says)``; how
    many shapes in a row were new; whether the payload just judged was that one in place."""
    encode = _encode
    out: list[Frame | Quiet] = []
    run: Quiet | None = None
    text_run: tuple[int, bool, list[str], tuple[bool, bool], array[int] | None] | None = None
    """A text run: its first payload, whether it is reasoning, its pieces, what the AI SDK's
    schemas say of each (:data:`_TextSaid`), and its lines when one refuses them."""
    held: tuple[int, int, list[str]] | None = None
    """A call's first delta, just appended, taking the continuations right after it."""
    finished = False
    """A frame said a finish reason: a call opened after it takes no continuation into its
    frame (a strict openai-node ends the call at each chunk after a finish reason)."""
    silent: list[tuple[int, bytes, list[str], list[list[str]]]] = []
    """Runs of payloads of reasoning the harness does not read (``reasoning``, OpenRouter's):
    the frame each starts with (its place in ``out``), their shape, their texts."""
    part = QuietCall(None)  # the run's last stretch
    sizes: array[int] = array("q")
    halts = sorted(unusual | errors)
    """The payloads a streak stops before (:func:`_streak`)."""
    cool, wait = 0, _COOL
    """No streak is tried before payload ``cool``; ``wait``: how long the next miss waits."""
    trail: list[Any] = [None] * (_TRAIL + 1)
    """The last quiet payloads of one delta taken in a run's call's stretch as they came
    (:func:`_cycle`), by their number modulo the ring's size."""
    cycle_cool, cycle_wait = 0, _COOL
    e = 0
    numbers = iter(range(n))
    """(A streak takes its payloads off it: the loop goes on after them.)"""
    for i in numbers:
        line = lines[i]
        entry = _NO_ENTRY
        if e == n_events and more:  # the next window of entries
            got = next(entries, None)
            if got is None:
                more = False
            else:
                refs, event_lines = got
                e, n_events = 0, len(refs)
        if e < n_events and event_lines[e] == line:
            entry = refs[e]
            e += 1
            if e < n_events and event_lines[e] == line:
                # several deltas or pieces in one payload: quiet when it is several choices,
                # each a quiet delta (n=2 and more), else a frame of its own
                entry = _NO_ENTRY
                first = e - 1
                while e < n_events and event_lines[e] == line:
                    e += 1
                many = (
                    None
                    if i in unusual or i in errors
                    else _quiet_many(
                        refs[first:e],
                        states,
                        sent,
                        deltas_of,
                        _Bytes(i, data_of, raw, starts, ends, skips),
                        many_shapes,
                        many_last,
                    )
                )
                if many is not None:
                    if held is not None:
                        _absorb(out, held)
                        held = None
                    if text_run is not None:
                        out.append(_text_frame(trace, *text_run))
                        text_run = None
                    if run is not None:
                        # (the payload's deltas in one run: see Quiet.joined)
                        in_run = run.calls
                        for g in many[0]:
                            found = in_run.get(g[0])
                            if found is not None and found.pair is not None:
                                run = None
                                break
                    for (c, index, piece, cid, name), (later, other, tail, joined) in zip(
                        *many, strict=True
                    ):
                        # (the delta before, as a library reading one choice saw it, may be
                        # another: nothing repeats these)
                        st = states[c]
                        assert st is not None
                        st.prev_id = st.prev_name = _NOPREV
                        if run is not None and c != run._last:
                            # another call of the run (parallel calls: every delta)
                            found = run.calls.get(c)
                            if found is not None:  # (its pair is None: checked above)
                                part = found
                                run.stretches.append(part)
                                sizes.append(0)
                                run._last = c
                                if joined:
                                    if run.joined is None:
                                        run.joined = Marks()
                                    # (Marks.add, inlined: the stretch just added)
                                    flags = run.joined._flags
                                    k = len(sizes) - 1
                                    if k >= len(flags):
                                        if k > len(flags):
                                            flags.extend(bytes(k - len(flags)))
                                        flags.append(1)
                                    else:
                                        flags[k] = 1
                        if run is not None and c == run._last and part.pair is None:
                            # (Quiet.add, inlined for the common case)
                            sizes[-1] += 1
                            pend = part.pieces._pending  # (Pieces.append, inlined)
                            if len(piece) < _BIG_PIECE:
                                pend.append(piece)
                                if len(pend) >= _BLOCK:
                                    part.pieces.pack()
                            else:
                                part.pieces.append(piece)
                            part_lines = part.lines
                            part_lines.append(line)
                            part.last_id = cid
                            part.last_name = name
                            part.id_nulls += cid is None
                            part.name_nulls += name is None
                            if other or later or tail:
                                # (QuietCall.elsewhere, behind and tail, inlined: the piece
                                # just added is the call's last line's)
                                k = len(part_lines) - 1
                                if other:
                                    if part.others is None:
                                        part.others = array("q")
                                    part.others.append(k)
                                if later:
                                    if part.later is None:
                                        part.later = array("q")
                                    part.later.append(k)
                                if tail:
                                    if part.tails is None:
                                        part.tails = array("q")
                                    part.tails.append(k)
                            continue
                        if run is None or not run.fits(c, None):
                            run = Quiet(line)
                            out.append(run)
                            sizes = run.sizes
                            joined = False
                        run.add(c, index, piece, line, cid, name, None, other, later, tail, joined)
                        part = run.stretches[-1]
                    if many_last[2] and i >= cool and run is not None:
                        # (the payload before's shape again, in place: the next may be too)
                        taken = _many_streak(
                            i, e, first, many, refs, event_lines, lines, halts, n, deltas_of,
                            many_last[0][0], raw, starts, ends, skips,
                        )  # fmt: skip
                        if taken:
                            _many_more(run, many, taken, lines[i + 1 : i + len(taken[0]) + 1])
                            m = len(taken[0])
                            _skip(numbers, m)
                            e += m * len(taken)
                        cool, wait = _cooled(i, len(taken[0]) if taken else 0, cool, wait)
                    continue
        if entry >= 0 and i not in unusual and i not in errors:
            # one tool-call delta: quiet when it says nothing new to any library
            c = entry >> 33
            st = states[c]
            if st is not None:
                plain = deltas_of[c]
                if plain is None:
                    d, args = sent(c, (entry >> 1) & 0xFFFFFFFF)
                    fn = d.function
                else:
                    d = plain[(entry >> 1) & 0xFFFFFFFF]
                    fn = d.function
                    args = fn.arguments if type(fn) is Function else None
                if type(fn) is Function and type(args) is str:
                    cid, name, index, kind = d.id, fn.name, d.index, d.type
                    # per field: a blank value the call was sent already (its seen-bit), or
                    # the non-blank string the call's delta before sent (a repeat)
                    fits = not st.dead
                    bits = 0
                    rid = rname = FREE
                    seen = st.seen
                    if cid is UNSET:
                        pass
                    elif cid is None or (type(cid) is str and cid == ""):
                        b = _ID_NULL if cid is None else _ID_EMPTY
                        if seen & b:
                            bits = b
                        elif type(cid) is type(st.prev_id) and cid == st.prev_id:
                            rid = cid  # the same blank again, right after it
                        else:
                            fits = False
                    elif type(cid) is str and type(st.prev_id) is str and cid == st.prev_id:
                        rid = cid
                    else:
                        fits = False
                    if name is UNSET:
                        pass
                    elif name is None or (type(name) is str and name == ""):
                        b = _NAME_NULL if name is None else _NAME_EMPTY
                        if seen & b:
                            bits |= b
                        elif type(name) is type(st.prev_name) and name == st.prev_name:
                            rname = name
                        else:
                            fits = False
                    elif type(name) is str and type(st.prev_name) is str and name == st.prev_name:
                        rname = name
                    else:
                        fits = False
                    quiet = False
                    again = False  # (the call's last quiet shape, matched in place)
                    swapped = False  # (the one before it, matched in place)
                    pair = None
                    if fits and (rid is not FREE or rname is not FREE):
                        pair = st.pair
                        if (
                            pair is None
                            or pair[0] is not rid
                            or pair[1] is not rname
                            or pair[2] is not kind
                        ):
                            pair = st.pair = (rid, rname, kind, st.schema)
                    if (
                        fits
                        and (index is st.index or (type(index) is int and index == st.index))
                        and (
                            kind is UNSET
                            or (
                                (
                                    kind is st.type
                                    or (
                                        type(kind) is str
                                        and type(st.type) is str
                                        and kind == st.type
                                    )
                                    or _same(kind, st.type)
                                )
                                # (a delta the Agents SDK for JS ignores, with its call after
                                # it: said to it alone when its choice 0 had not said it)
                                and kind != "custom"
                            )
                        )
                    ):
                        # the payload's shape: its bytes without its arguments token
                        try:
                            token = encode(args)
                        except UnicodeEncodeError:  # (a lone surrogate, as JS writes it)
                            token = _token(args)
                        said = None  # (what the schemas say of it, its choice's index)
                        sh = st.shape
                        if sh is not None and (skip := skips[i]) >= 0:
                            # the call's last quiet shape, its bytes read in place: the same
                            # bytes before and after the piece (no copy, no search)
                            s = starts[i] + skip
                            pre, suf, lp = sh[0], sh[1], sh[2]
                            if (
                                ends[i] - s == lp + len(token) + len(suf)
                                and raw.startswith(token, s + lp)
                                and raw.startswith(pre, s)
                                and raw.endswith(suf, s, ends[i])
                            ):
                                said = sh[3]
                                misses = 0
                                again = True
                            elif (sh2 := st.shape2) is not None:
                                # the one before it (shapes that alternate: id null and "",
                                # two choices)
                                pre, suf, lp = sh2[0], sh2[1], sh2[2]
                                if (
                                    ends[i] - s == lp + len(token) + len(suf)
                                    and raw.startswith(token, s + lp)
                                    and raw.startswith(pre, s)
                                    and raw.endswith(suf, s, ends[i])
                                ):
                                    said = sh2[3]
                                    misses = 0
                                    st.shape, st.shape2 = sh2, sh
                                    swapped = True
                        if said is None:
                            data = data_of(i)
                            at = data.find(token) if misses < _MISSES else -1
                            if at >= 0 and data.find(token, at + 1) < 0:
                                key = data[:at] + data[at + len(token) :]
                                known = tool_shapes.get(key)
                                if known is None or known[0] != at:
                                    misses += 1
                                    if len(tool_shapes) >= _CACHE_LIMIT:
                                        tool_shapes.clear()
                                    known = tool_shapes[key] = (
                                        at,
                                        _quiet_tool_payload(data, args),
                                    )
                                else:
                                    misses = 0
                                said = known[1]
                                if said is not None and starts is not None:
                                    st.shape2 = st.shape
                                    st.shape = (data[:at], data[at + len(token) :], at, said)
                            else:
                                if misses >= _MISSES:  # (and now and then the table again)
                                    misses = 0 if misses >= _RETRY else misses + 1
                                said = _quiet_tool_payload(data, args)
                        # what the chunk schemas say of it is what they said of the call's
                        # delta before (a blank value: the schemas that read the call accept
                        # it, the others refuse it for its role, which a folded frame keeps);
                        # its role, if any, the one every library holds
                        # (the verdicts are _BOTH itself where both schemas accept)
                        quiet = (
                            said is not None
                            and (
                                (said[0] is st.verdict or said[0] == st.verdict)
                                and (said[0] is _BOTH or said[3])
                                if pair is None
                                else said[0] == pair[3] and not said[3]
                            )
                            and (said[2] is None or said[2] == role)
                        )
                    if quiet:
                        st.prev_id, st.prev_name = cid, name
                        if pair is None:
                            st.schema = said[0]  # type: ignore[index]
                        else:  # a blank of the field repeated may be news again after it
                            if type(rid) is str and rid:
                                st.seen &= ~_ID_BITS
                            if type(rname) is str and rname:
                                st.seen &= ~_NAME_BITS
                        choice = said[1]  # type: ignore[index]
                        # what a streak after it compares: its shape matched in place, or
                        # (a shape seen nowhere else: a field no library reads differs on
                        # every payload) each payload's typed decode, a span at a time
                        streaky: tuple[bytes, bytes, int, _Said] | _Typed | None = (
                            st.shape
                            if again
                            else _Typed(choice, role == "assistant")
                            if misses >= _MISSES and said[0] is _BOTH  # type: ignore[index]
                            else None
                        )
                        if held is not None:
                            if held[0] == c and not bits and pair is None and choice == 0:
                                held[2].append(args)  # more arguments for a new call
                                if streaky is not None and plain is not None and i >= cool:
                                    streak = _streak(
                                        i, e, entry, refs, event_lines, lines, halts, n, plain,
                                        streaky, raw, starts, ends, skips,
                                    )  # fmt: skip
                                    if streak:
                                        m = len(streak)
                                        held[2].extend(streak)
                                        _skip(numbers, m)
                                        e += m
                                        last = plain[(entry >> 1 & 0xFFFFFFFF) + m]
                                        st.prev_id, st.prev_name = last.id, name
                                    cool, wait = _cooled(i, len(streak), cool, wait)
                                continue
                            _absorb(out, held)
                            held = None
                        if text_run is not None:
                            out.append(_text_frame(trace, *text_run))
                            text_run = None
                        if run is not None and c != run._last:
                            # another call of the run (interleaved calls: every payload)
                            found = run.calls.get(c)
                            if found is not None and found.pair is pair:
                                part = found
                                run.stretches.append(part)
                                sizes.append(0)
                                run._last = c
                        inline = False
                        if run is not None and c == run._last and part.pair is pair:
                            # (Quiet.add, inlined for the common case)
                            sizes[-1] += 1
                            pend = part.pieces._pending  # (Pieces.append, inlined)
                            if len(args) < _BIG_PIECE:
                                pend.append(args)
                                if len(pend) >= _BLOCK:
                                    part.pieces.pack()
                            else:
                                part.pieces.append(args)
                            part.lines.append(line)
                            part.last_id = cid
                            part.last_name = name
                            part.id_nulls += cid is None
                            part.name_nulls += name is None
                            if choice:
                                part.elsewhere()
                            inline = pair is None
                        else:
                            if run is None or not run.fits(c, pair):
                                run = Quiet(line)
                                out.append(run)
                                sizes = run.sizes
                            run.add(c, index, args, line, cid, name, pair, choice)
                            part = run.stretches[-1]
                            if said[3] and pair is None:  # type: ignore[index]
                                # (each of its payloads refused for the role: the frame too)
                                part.role, part.schema = said[2], said[0]  # type: ignore[index]
                        if streaky is not None and plain is not None and i >= cool:
                            # (the run's last stretch is the call's: the streak joins it, as
                            # the payload did, a repeat or not)
                            streak = _streak(
                                i, e, entry, refs, event_lines, lines, halts, n, plain,
                                streaky, raw, starts, ends, skips,
                            )  # fmt: skip
                            if streak:
                                m = len(streak)
                                _more(part, streak, lines[i + 1 : i + m + 1], cid, name, choice)
                                sizes[-1] += m
                                _skip(numbers, m)
                                e += m
                                last = plain[(entry >> 1 & 0xFFFFFFFF) + m]
                                st.prev_id, st.prev_name = last.id, name
                                part.last_id, part.last_name = last.id, name
                            cool, wait = _cooled(i, len(streak), cool, wait)
                            if streak:
                                continue
                        if (
                            inline
                            and (again or swapped)
                            and i + _TRAIL >= cycle_cool
                            and plain is not None
                        ):
                            # what the payload was, for a cycle of payloads after it (kept
                            # from a cycle's length before it may be tried on)
                            trail[i & _TRAIL] = (i, c, st.shape, choice, cid, name, part)
                            if i >= cycle_cool:
                                cycle = _cycle(
                                    i, e, trail, refs, event_lines, lines, halts, n, deltas_of,
                                    raw, starts, ends, skips,
                                )  # fmt: skip
                                if cycle is not None:
                                    m = len(cycle[0])
                                    part = _cycle_more(
                                        run, states, *cycle, lines[i + 1 : i + m + 1]
                                    )
                                    _skip(numbers, m)
                                    e += m
                                cycle_cool, cycle_wait = _cooled(
                                    i, len(cycle[0]) if cycle else 0, cycle_cool, cycle_wait
                                )
                        continue
        elif entry != _NO_ENTRY and i not in unusual and i not in errors:
            # one text piece: folded into the text run before it when nothing else is said
            ref = -entry - 1
            piece = texts[ref >> 2]
            reasoning = bool(ref >> 1 & 1)
            if type(piece) is not str:
                said_text = _SAYS
            elif len(piece) >= _HUGE_PIECE:
                # (its shape would not come again: judged in place, the payload not copied
                # out of the capture nor searched for its piece)
                said_text = _quiet_text_payload(
                    _in_place(i, raw, starts, ends, skips, data_of), piece, reasoning
                )
            else:
                said_text = quiet_text(data_of(i), piece, reasoning)
            code = said_text[0]
            if code == 1 or (code == 2 and said_text[1] == role):
                run = None
                if held is not None:
                    _absorb(out, held)
                    held = None
                verdict = said_text[2]
                if (
                    text_run is not None
                    and text_run[1] == reasoning
                    and (text_run[3] is verdict or text_run[3] == verdict)
                ):
                    text_run[2].append(piece)
                    if text_run[4] is not None:
                        text_run[4].append(line)
                    continue
                if text_run is not None:
                    out.append(_text_frame(trace, *text_run))
                refused = None if verdict == _BOTH else array("q", [line])
                text_run = (i, reasoning, [piece], verdict, refused)
                continue
        # a payload that says something: a frame of its own, as the libraries read it
        run = None
        musing = None
        if entry == _NO_ENTRY and i not in unusual and i not in errors:
            musing = _musing(data_of(i))
            if (
                musing is not None
                and silent
                and silent[-1][0] == len(out) - 1
                and held is None
                and text_run is None
                and silent[-1][1] == musing[0]
            ):
                # the run of reasoning the harness does not read, before it, goes on
                silent[-1][2].append(musing[1])
                silent[-1][3].append(musing[2])
                continue
        if held is not None:
            _absorb(out, held)
            held = None
        if text_run is not None:
            out.append(_text_frame(trace, *text_run))
            text_run = None
        frame, stop = frame_of(payloads[i], decoded[i])
        if frame is not None:
            out.append(frame)
            if musing is not None and not stop:
                silent.append((len(out) - 1, musing[0], [musing[1]], [musing[2]]))
            if b'"role"' in frame.data:
                was = role
                role = _held_role(frame, role)
                if role == "assistant" and was != "assistant":
                    # LangChain JS reads a call's deltas only once choices[0] sent that role:
                    # what it holds of each call starts here (a blank sent before is new to
                    # it, a delta before is no delta it can repeat)
                    for st in states:
                        if st is not None:
                            st.seen = 0
                            st.prev_id = st.prev_name = _NOPREV
            cs = frame.chunk.choices
            valid = (
                type(cs) is list
                and any(c.delta and c.delta.tool_calls for c in cs)
                and _valid(frame)
            )
            opened = _follow(frame, states, order_of, valid, typed_early)
            if not finished:
                finished = _finishes(frame)
            if (
                opened is not None
                and not finished
                and entry >= 0
                and entry >> 33 == opened
                and not (entry >> 1) & 0xFFFFFFFF
                and valid
                and _clean_head(frame)
            ):
                held = (opened, len(out) - 1, [_head_arguments(frame)])
        if stop:
            break
    if held is not None:
        _absorb(out, held)
    if text_run is not None:
        out.append(_text_frame(trace, *text_run))
    for at, _key, texts, details in silent:
        if len(texts) > 1:
            out[at] = _musing_frame(out[at], texts, details)  # type: ignore[arg-type]
    for item in out:  # (each run's last pieces, pending, one block: not a string each)
        if type(item) is Quiet:
            for call in item.calls.values():
                call.pieces.pack()
    return out


def _quiet_many(
    refs: Any,
    states: list[_CallState | None],
    sent: Callable[[int, int], tuple[ToolCall, Any]],  # (delta k of call c: senders)
    deltas_of: list[list[ToolCall] | None],  # (per call: its deltas as a plain list, if so)
    data: _Bytes,
    table: dict[tuple[bytes, ...], tuple[_Place, ...] | None],
    last: list[Any],
) -> tuple[list[tuple[int, Any, str, Any, Any]], tuple[_Place, ...]] | None:
    """A payload of several tool-call deltas — in several choices, or side by side in one —
    each quiet on its own, and nothing else said: ``(deltas, places)``, each delta as
    ``(call, index, arguments, id, name)`` in payload order and its place as :data:`_Place`;
    ``None`` when it says something.

    Each delta's ``id`` and ``name`` must be absent or a blank value its call was sent
    already (no repeat: the delta before, for a library that reads one choice, may be
    another), its index the call's and its type absent or the one in force. Read one after
    another they are what a library that mixes the choices reads from the payload (it walks
    its choices and their deltas in order and keeps no state per chunk that a quiet delta
    touches, but openai-node's done events: see :attr:`.base.Quiet.joined`); a library that
    reads one choice, or its first delta, reads the pieces of it (see
    :meth:`.base.Quiet.view`)."""
    got = []
    pieces = []
    for r in refs:
        if r < 0 or r & 1:
            return None
        c = r >> 33
        st = states[c]
        if st is None or st.dead or st.verdict != _BOTH:
            return None  # (a payload of several deltas is quiet only where both schemas read)
        plain = deltas_of[c]
        if plain is None:
            d, args = sent(c, (r >> 1) & 0xFFFFFFFF)
            fn = d.function
            if type(fn) is not Function:
                return None
        else:  # (read inline: a payload of two calls' deltas, 50,000 payloads)
            d = plain[(r >> 1) & 0xFFFFFFFF]
            fn = d.function
            if type(fn) is not Function:
                return None
            args = fn.arguments
        if type(args) is not str:
            return None
        cid, name, index, kind = d.id, fn.name, d.index, d.type
        if not (type(index) is int and index == st.index):
            return None
        if cid is not UNSET:
            if cid is None:
                need = _ID_NULL
            elif type(cid) is str and cid == "":
                need = _ID_EMPTY
            else:
                return None
            if not st.seen & need:
                return None
        if name is not UNSET:
            if name is None:
                need = _NAME_NULL
            elif type(name) is str and name == "":
                need = _NAME_EMPTY
            else:
                return None
            if not st.seen & need:
                return None
        if kind is not UNSET and (not _same(kind, st.type) or kind == "custom"):
            return None
        got.append((c, index, args, cid, name))
        pieces.append(args)
    said = _many_said(data, pieces, table, last)
    if said is None:
        return None
    return got, said


_SENTINELS = [_encode(f"\x00replay-tui {k}") for k in range(64)]


class _Bytes:
    """A payload's bytes, compared where they lie in the capture when they lie there whole
    (no copy: a payload of two calls' deltas, 50,000 payloads), copied out when searched."""

    __slots__ = ("_data", "_data_of", "_i", "buffer", "start", "stop")

    def __init__(
        self, i: int, data_of: Callable[[int], bytes], raw: Any, starts: Any, ends: Any, skips: Any
    ) -> None:
        self._i = i
        self._data_of = data_of
        self._data: bytes | None = None
        skip = skips[i]
        if skip >= 0 and raw is not None:
            self.buffer: bytes | bytearray = raw
            self.start: int = starts[i] + skip
            self.stop: int = ends[i]
        else:
            self.buffer = self._data = data_of(i)
            self.start, self.stop = 0, len(self._data)

    def data(self) -> bytes:
        """The payload's bytes, as :func:`_columns`' ``data_of`` gives them."""
        if self._data is None:
            self._data = self._data_of(self._i)
        return self._data


def _many_said(
    payload: _Bytes,
    pieces: list[str],
    table: dict[tuple[bytes, ...], tuple[_Place, ...] | None],
    last: list[Any],
) -> tuple[_Place, ...] | None:
    """What a payload of several choices says (:func:`_quiet_many_payload`), judged once per
    shape: its bytes around each piece's token, found in order. A shape is judged on a copy
    with a token of its own in each place, so that a token found where no arguments are (a
    piece ``""`` beside an ``id: ""``) makes it say something, never a wrong shape. Those
    bytes with any JSON strings in those places are the same chunk with other arguments:
    ``last`` holds the last shape found quiet, compared in place first (no copy, no search),
    and how many shapes in a row were new: past :data:`_MISSES` (a field that changes on
    every payload, a ``created`` that counts up) a payload is judged by one typed decode with
    its own pieces, without the table, until :data:`_RETRY` more were."""
    last[2] = False
    if len(pieces) > len(_SENTINELS):
        return None
    misses = last[1]
    if misses >= _MISSES:
        last[1] = 0 if misses >= _RETRY else misses + 1
        return _quiet_many_payload(payload.data(), len(pieces), pieces)
    tokens = [_token(piece) for piece in pieces]
    known = last[0]
    if known is not None and len(known[0]) == len(tokens) + 1:
        # (compared where the payload lies: the same bytes around the same tokens)
        segments = known[0]
        buffer, at, stop = payload.buffer, payload.start, payload.stop
        for segment, token in zip(segments, tokens, strict=False):
            if not buffer.startswith(segment, at):
                break
            at += len(segment)
            if not buffer.startswith(token, at):
                break
            at += len(token)
        else:
            end = segments[-1]
            if stop - at == len(end) and buffer.startswith(end, at):
                said: tuple[_Place, ...] | None = known[1]
                last[1] = 0
                last[2] = True
                return said
    data = payload.data()
    segments = []
    at = 0
    for token in tokens:
        found = data.find(token, at)
        if found < 0:  # (an escape msgspec does not make: judged as a frame)
            return None
        segments.append(data[at:found])
        at = found + len(token)
    segments.append(data[at:])
    key = tuple(segments)
    if key in table:
        said = table[key]
        last[1] = 0
    else:
        last[1] = misses + 1
        if len(table) >= _CACHE_LIMIT:
            table.clear()
        marks = _SENTINELS[: len(pieces)]
        probe = b"".join(p for pair in zip(segments[:-1], marks, strict=True) for p in pair)
        probe += segments[-1]
        said = table[key] = _quiet_many_payload(probe, len(pieces))
    if said is not None:
        last[0] = (key, said)
    return said


def _quiet_many_payload(
    data: bytes, count: int, pieces: list[str] | None = None
) -> tuple[_Place, ...] | None:
    """``data`` (with the sentinel tokens as its pieces) is ``count`` tool-call deltas, in one
    or several choices, whose arguments are the sentinels in order (``pieces``: those), and
    a chunk that says nothing else (:class:`_QChunk`: both of the AI SDK's schemas accept it);
    per delta, its place (:data:`_Place`)."""
    try:
        chunk = _quiet_shape(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    cs = chunk.choices
    if len(cs) == 1:  # (several deltas side by side in one choice: read in one step)
        delta = cs[0].delta
        tcs = delta.tool_calls
        if len(tcs) != count or not (delta.role is UNSET or delta.role is None):
            return None
        if pieces is None:
            if [_encode(tc.function.arguments) for tc in tcs] != _SENTINELS[:count]:
                return None
        elif [tc.function.arguments for tc in tcs] != pieces:
            return None
        other = cs[0].index != 0  # (the choice of index 0 is not in the payload)
        return ((False, other, False, False),) + ((False, other, True, True),) * (count - 1)
    zero = next((k for k, choice in enumerate(cs) if choice.index == 0), -1)
    out: list[_Place] = []
    for k, choice in enumerate(cs):
        tcs = choice.delta.tool_calls
        if not tcs:
            return None
        if choice.delta.role is not UNSET and choice.delta.role is not None:
            return None  # (a role: each reads its own choices' roles)
        for j, tc in enumerate(tcs):
            at = len(out)
            if at >= count:
                return None
            if pieces is None:
                if _encode(tc.function.arguments) != _SENTINELS[at]:
                    return None
            elif tc.function.arguments != pieces[at]:
                return None
            out.append((k != 0, k != zero, j != 0, j != 0))
    if len(out) != count:
        return None
    return tuple(out)


def _held_role(frame: Frame, before: str | None) -> str | None:
    """The role every library holds after ``frame`` (``before``: the one they held before
    it): the role its choices[0] sent, if it sent one (``null`` or absent: as before), when
    it is a string and every other choice's role is absent, ``null`` or that one; else
    ``None`` (not one read alike: a role any delta re-sends is then news)."""
    raw = frame.raw
    cs = raw.get("choices") if type(raw) is dict else None
    if type(cs) is not list or not cs:
        return before
    held = before
    for k, choice in enumerate(cs):
        delta = choice.get("delta") if type(choice) is dict else None
        sent = delta.get("role") if type(delta) is dict else None
        if sent is None:
            continue
        if type(sent) is not str:
            return None
        if k == 0:
            held = sent
        elif sent != held:
            return None
    return held


def _head_arguments(frame: Frame) -> str:
    fn = frame.chunk.choices[0].delta.tool_calls[0].function  # type: ignore[index, union-attr]
    assert type(fn) is Function and type(fn.arguments) is str
    return fn.arguments


def _clean_head(frame: Frame) -> bool:
    """A call's first delta that opens it the same way with more arguments in it: alone in
    a chunk that says nothing else, with a non-empty string id and name, a type absent or
    ``"function"`` and string arguments. The identity-less continuations that follow it at
    once are then its arguments, for every library (no library has seen the index before)."""
    delta = _quiet_envelope(frame.raw, checked=True)
    if delta is None or not _silent_text(delta):
        return False
    calls = delta.get("tool_calls")
    if type(calls) is not list or len(calls) != 1 or type(calls[0]) is not dict:
        return False
    tc = calls[0]
    fn = tc.get("function")
    if type(fn) is not dict:
        return False
    cid, name, args = tc.get("id"), fn.get("name"), fn.get("arguments")
    return (
        type(cid) is str
        and cid.strip() != ""
        and type(name) is str
        and name.strip() != ""
        and tc.get("type", "function") == "function"
        and type(args) is str
    )


def _absorb(out: list[Frame | Quiet], held: tuple[int, int, list[str]]) -> None:
    """The held first delta of a call, with the arguments of the continuations it took."""
    _, at, taken = held
    if len(taken) == 1:
        return
    frame = out[at]
    assert isinstance(frame, Frame)
    # (its pieces one block, which is the joined arguments: not a string each, nor a copy)
    pieces = Pieces.one_block(taken)
    joined = pieces.whole()
    chunk = frame.chunk
    choice = chunk.choices[0]  # type: ignore[index]
    old = choice.delta.tool_calls[0]  # type: ignore[union-attr, index]
    new = msgspec.structs.replace(
        old,
        function=msgspec.structs.replace(old.function, arguments=joined),  # type: ignore[type-var]
    )
    delta = msgspec.structs.replace(choice.delta, tool_calls=[new])  # type: ignore[type-var]
    chunk = msgspec.structs.replace(chunk, choices=[msgspec.structs.replace(choice, delta=delta)])
    merged = Frame(frame.line, chunk, b"", frame.event, count=len(pieces), pieces=pieces)
    if type(frame._raw) is dict and frame.data:
        # (its JSON, decoded when its head was judged, made again when a library reads it,
        # from the payload's bytes: not kept, for 5,000 calls, while the libraries run)
        merged._raw = MergedRaw(frame.data, joined)
    else:
        raw = frame._raw if type(frame._raw) is dict else _decode(frame.data)
        raw["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = joined
        merged._raw = raw  # (its JSON made: no library reads the payload's bytes again)
    merged.schema = frame.schema  # (the schemas ask only that arguments be a string)
    out[at] = merged


def _follow(
    frame: Frame,
    states: list[_CallState | None],
    order_of: dict[Any, int],
    valid: bool,
    typed: set[int],
) -> int | None:
    """Update what each call's libraries were sent from a frame that said something.

    The blank values a call was sent count only when every library read them: from a chunk
    with one choice and one delta that every schema accepts. Any other identity news, or any
    doubt, starts the call's record of blank values afresh (never wrong: it only makes the
    next blank value a frame of its own). A blank name counts only once a strict openai-node
    has bound the call's name, or while it cannot (no delta of the call sent the type
    ``"function"``; ``typed``: the calls not opened yet that one did).

    A schema of the AI SDK that refuses the chunk for its role alone (``by_role``: a Go
    gateway's ``"role": ""``) reads none of its deltas: a call such a chunk opens is open for
    the other libraries, that schema reading none of it (:attr:`_CallState.verdict`); the
    blank values such a chunk sends count for the libraries that read the call. A schema
    that stops reading a call (refuses a chunk of it for its role) reads none of it again
    for what the folding knows; one that starts reading a call it read none of meets it
    anew, which the folding does not model: the call's deltas are then frames of their own.
    """
    cs = frame.chunk.choices
    opened = None
    if type(cs) is not list:
        return opened
    verdict: tuple[bool, bool] | None = None
    by_role = False
    single = len(cs) == 1
    # several choices, each one delta: a blank value in choices[0] is read by every library
    # (the ones that read choices[0] alone, the ones that mix the choices; the Agents SDK for
    # JS, reading the choice of index 0, takes no blank value), one in a later choice is not
    # (and one choice or more holding several deltas: a blank value in a later delta of
    # choices[0] is read by every library but LlamaIndex, which reads the first delta of a
    # chunk alone and to which a quiet delta's blank values say nothing: see Quiet.view)
    counts = [_delta_count(choice) for choice in cs]
    many = valid and all(counts) and sum(counts) > 1
    for position, choice in enumerate(cs):
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
            if verdict is None:
                verdict = (schema_ok(frame, True), schema_ok(frame, False))
                if verdict == _BOTH:
                    verdict = _BOTH  # (the one object: compared by identity first)
                by_role = not valid and _refused_by_role(frame)
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
                    and (valid or by_role)
                    and (single or _opens_everywhere(cs, c, order_of))
                ):
                    if _is_function(d.type):
                        typed.add(c)
                    continue  # not yet: its next delta is a frame of its own too
                st = states[c] = _CallState(index, d.type)
                st.typed = _is_function(d.type) or c in typed
                st.prev_id, st.prev_name = (d.id, name) if single else (_NOPREV, _NOPREV)
                st.named = True
                st.bound = d.type == "function"
                st.schema = st.verdict = verdict
                opened = c
                continue
            if verdict != st.verdict:
                if (verdict[0] and not st.verdict[0]) or (verdict[1] and not st.verdict[1]):
                    st.dead = True  # (a schema that read none of the call reads it now)
                elif by_role:  # a schema stops reading the call: what it holds says nothing
                    st.verdict = verdict
                    st.seen = 0
                    st.prev_id = st.prev_name = _NOPREV
            # every library that reads the call read this chunk
            read = verdict == st.verdict and (valid or by_role)
            clean = single and type(fn) is Function
            prev_id, prev_name = st.prev_id, st.prev_name
            st.pair = None
            if _is_function(d.type):
                st.typed = True
            if clean:
                st.prev_id, st.prev_name = d.id, name
                st.schema = verdict
            else:
                st.prev_id = st.prev_name = _NOPREV
            if d.type is not UNSET and not (d.type is st.type or _same(d.type, st.type)):
                # A new type: what the call's blank values meet from now on may differ (a
                # strict openai-node binds the call's name once it is typed "function", and
                # then throws on a blank one), so none of them counts, not even this delta's.
                st.type = d.type
                st.seen = 0
                st.prev_id = st.prev_name = _NOPREV  # (and no repeat of what it sent counts)
            elif many and type(fn) is Function:
                seen = _seen_after(st.seen, d.id, _NOPREV, name, _NOPREV)
                # (a blank value a later choice sent is not counted: choices[0] alone did not
                # read it; any other value starts afresh)
                st.seen = seen if position == 0 else seen & st.seen
                if st.typed and not st.bound:
                    st.seen &= ~_NAME_BITS
            elif not clean or not read:
                st.seen = 0
            else:
                st.seen = _seen_after(st.seen, d.id, prev_id, name, prev_name)
                if st.typed and not st.bound:
                    st.seen &= ~_NAME_BITS
            if type(fn) is Function:
                st.named = st.named or (type(name) is str and name != "")
                st.bound = st.bound or (st.type == "function" and st.named)
    return opened


def _is_function(kind: Any) -> bool:
    return type(kind) is str and kind == "function"


def _delta_count(choice: Any) -> int:
    """How many tool-call deltas the choice holds (0: none, or no list)."""
    delta = choice.delta
    tcs = delta.tool_calls if delta else None
    return len(tcs) if type(tcs) is list else 0


def _opens_everywhere(cs: list[Any], c: int, order_of: dict[Any, int]) -> bool:
    """A chunk of several tool-call deltas (in one choice or several) opens call ``c`` for
    every library: ``choices[0]`` holds a delta of it (what the libraries that read that
    choice alone see; LlamaIndex, reading its first delta alone, opens a call at any new
    index), and every delta of it has an integer index, a function object with a name that
    is not blank, and the same ``type`` (what the call's type is then, whichever of them a
    library reads last)."""
    kinds = []
    for k, choice in enumerate(cs):
        delta = choice.delta
        tcs = delta.tool_calls if delta else None
        if type(tcs) is not list or not tcs:
            return False
        for d in tcs:
            if order_of.get(index_key(d.index)) != c:
                continue
            fn = d.function
            if not (
                type(d.index) is int
                and type(fn) is Function
                and type(fn.name) is str
                and fn.name.strip()
            ):
                return False
            kinds.append(d.type)
        if k == 0 and not kinds:
            return False
    return all(_same(kind, kinds[0]) for kind in kinds)


def _seen_after(seen: int, cid: Any, prev_id: Any, name: Any, prev_name: Any) -> int:
    """The seen-bits after a delta every library read: its blank values added; a field that
    repeats the string the delta before sent forgets its own blanks (one of them after it may
    be news again); any other value starts afresh (never wrong: it only makes the next blank
    value a frame of its own)."""
    add = 0
    for value, prev, null, empty in (
        (cid, prev_id, _ID_NULL, _ID_EMPTY),
        (name, prev_name, _NAME_NULL, _NAME_EMPTY),
    ):
        if value is UNSET:
            continue
        if value is None:
            add |= null
        elif type(value) is str and value == "":
            add |= empty
        elif type(value) is str and type(prev) is str and value == prev:
            seen &= ~(null | empty)
        else:
            return 0
    return seen | add


def _refused_by_role(frame: Frame) -> bool:
    """Every AI SDK schema that refuses the chunk (one does) refuses its ``choices[0]``'s
    role, the first thing it refuses (:func:`.ai_sdk.chunk_problem`)."""
    return _by_role(_problems(frame.raw))


def _valid(frame: Frame) -> bool:
    """Every schema accepts the chunk (the AI SDK's two)."""
    if frame.schema is None and frame.data and _quiet_typed(frame.data) is not None:
        frame.schema = (True, True)  # (a quiet shape is a chunk both accept)
    return schema_ok(frame, True) and schema_ok(frame, False)


def _alike(a: Any, b: Any) -> bool:
    """The same raw identity value: absent, null, or equal strings."""
    return a is b or (type(a) is str and type(b) is str and a == b)


def _same(a: Any, b: Any) -> bool:
    """The same JSON scalar (``1`` and ``true`` differ; nested values never compare equal)."""
    return type(a) is type(b) and type(a) not in (list, dict) and a == b
