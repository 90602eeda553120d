"""What every client-library policy shares: the stream it reads and what it hands back.

A policy replays a trace's chunks the way one client library assembles streamed tool calls,
and returns an :class:`Assembly`: the calls the application would receive, the error the
library would raise instead, the calls it would silently drop, and any non-fatal error parts
it would surface in the stream. Policies never judge; :func:`~.assess.assess` compares an
assembly with what the stream meant.

Policies read the same decoded chunks the harness does (:class:`~replay_tui.core.wire.WireChunk`,
where an absent field is ``UNSET`` and ``null`` is ``None``), so ``type: null`` and a missing
``function`` stay visible to the libraries that trip on them. A library that validates the raw
JSON against a schema (the Vercel AI SDK) reads :attr:`Frame.raw`, decoded on demand.

A policy that stops says why as the library would (:class:`Raise`: its error's name, message
and layer) and names the field that triggered it: its path in the chunk
(:func:`tool_path`), what it held and, when the throw comes later (at the end of the stream),
the line of the payload that sent it; :class:`ClientError` carries them to the views.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from ..core.pieces import Pieces
from ..core.wire import (
    UNSET,
    Choice,
    Delta,
    Function,
    ToolCall,
    WireChunk,
    describe_value,
    parse_json,
)
from ..core.words import cut_text

if TYPE_CHECKING:
    from ..core.sse import Payload
    from ..core.trace import Trace
    from ..core.wire import Decoded

__all__ = [
    "FREE",
    "UNSAID",
    "AssembledCall",
    "Assembler",
    "Assembly",
    "ClientError",
    "DroppedCall",
    "Frame",
    "Marks",
    "MergedRaw",
    "PlainCall",
    "Policy",
    "Quiet",
    "QuietCall",
    "Raise",
    "choices",
    "frame_of",
    "frames",
    "function_fields",
    "handed_over",
    "is_number",
    "js_truthy",
    "none_if_unset",
    "plain_call",
    "raise_sdk_stream_error",
    "shown_value",
    "span_of",
    "times",
    "tool_deltas",
    "tool_path",
    "unlike",
]


@dataclass(slots=True)
class Frame:
    """One replayed chunk, as a client library receives it."""

    line: int
    """1-based line of the payload in the capture."""
    chunk: WireChunk
    data: bytes
    event: str | None = None
    """The SSE ``event:`` field of the payload, when it had one."""
    count: int = 1
    """How many payloads this frame stands for (see :mod:`.compact`)."""
    pieces: Sequence[str] | None = None
    """For a folded run of continuations: each payload's ``arguments`` piece, in order
    (kept compact, :class:`~replay_tui.core.pieces.Pieces`, by the folded stream)."""
    lines: Sequence[int] | None = None
    """For a folded quiet run: each payload's line, in order (shared with the run)."""
    id_nulls: int = 0
    """For a folded run: how many of its payloads sent ``id: null`` (the frame's own delta
    carries none: a quiet continuation's identity is left out, see :class:`Quiet`)."""
    name_nulls: int = 0
    repeat: int = 1
    """How many payloads sent this delta's ``id``, ``name`` and ``type`` as they are: a folded
    run of repeats (:class:`QuietCall` with a :attr:`~QuietCall.pair`) sends them ``count``
    times. A library that concatenates an identity string adds it that many times; one that
    keeps the last or first value reads it once."""
    schema: tuple[bool, bool] | None = None
    """Whether the AI SDK's two chunk schemas (openai-compatible, openai) accept the payload,
    once someone asked (:func:`.ai_sdk.chunk_ok`): :mod:`.compact` asks for every frame with a
    tool call, and both AI SDK models read it."""
    _raw: Any = UNSET
    _plain: Any = UNSET
    """:func:`plain_call` of the frame, once a library asked."""

    @property
    def raw(self) -> Any:
        """The payload as plain JSON (dicts and lists), decoded on first use (a folded call's,
        :class:`MergedRaw`, decoded at each use)."""
        raw = self._raw
        if raw is UNSET:
            try:  # (msgspec, else what it refuses and JSON.parse takes: a lone surrogate)
                raw = self._raw = parse_json(self.data)
            except ValueError:
                raw = self._raw = None
        elif type(raw) is MergedRaw:
            return raw.value()
        return raw


class MergedRaw:
    """The JSON of a call's first payload with the arguments of the continuations folded into
    it (:func:`.compact.compact_frames`), made again when read rather than kept: the payload's
    bytes, which decoded as JSON before, and the joined arguments. Kept made, 5,000 calls'
    JSON would be a quarter of an agent loop's capture while the libraries run, for the few
    that read a frame's JSON (the others read the frame's plain call)."""

    __slots__ = ("arguments", "data")

    def __init__(self, data: bytes, arguments: str) -> None:
        self.data = data
        self.arguments = arguments

    def value(self) -> Any:
        """The JSON, the first tool call's ``function.arguments`` the joined arguments."""
        raw = parse_json(self.data)
        raw["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = self.arguments
        return raw


_loads = msgspec.json.Decoder().decode


def loads(text: str, *, strict: bool = True) -> Any:
    """``json.loads(text, strict=strict)``, as a Python library parses arguments: by msgspec,
    which reads every document it takes as Python's json does (the same values, of the same
    types), else by json — what msgspec refuses and json may take (``NaN``, ``Infinity``, a
    number past a float's range, a lone surrogate escape, a control character in a string
    when not ``strict``), and json's own error for what is no JSON. An agent loop's 5,000
    calls are parsed by several libraries each."""
    try:
        return _loads(text)
    except (msgspec.DecodeError, RecursionError, UnicodeEncodeError):  # (a lone surrogate)
        return json.loads(text, strict=strict)


PlainCall = tuple[int, str, str, str]
"""``(index, id, name, arguments)`` of a frame's one plain tool-call delta (:func:`plain_call`)."""

_PLAIN_CHUNK = frozenset(("id", "object", "created", "model", "system_fingerprint", "choices"))
_PLAIN_CHOICE = frozenset(("index", "delta", "finish_reason", "logprobs"))
_PLAIN_CALL = frozenset(("index", "id", "type", "function"))
_PLAIN_FUNCTION = frozenset(("name", "arguments"))


def plain_call(frame: Frame) -> PlainCall | None:
    """The frame's tool-call delta when the frame says nothing else, in the plainest way a
    call is sent (what an agent loop's 5,000 calls each open with): one choice, of index 0,
    no finish reason, a delta holding only ``tool_calls``, one delta in it with an index
    that is a number from 0, a non-blank string ``id``, ``type: "function"`` and a
    ``function`` of a non-blank string ``name`` and string ``arguments``; no usage, error or
    SSE event; a chunk both of the AI SDK's schemas accept; nothing else in the JSON but the
    chunk's ``id``, ``object``, ``created``, ``model`` and ``system_fingerprint`` (what no
    library reads); one payload's, not a run of repeats (``None``: any other frame).

    A library may take such a frame by a shortcut of its own (:meth:`Assembler.feed_plain`);
    worked out once per frame for every library."""
    found = frame._plain
    if found is UNSET:
        found = frame._plain = _plain_of(frame)
    return found  # type: ignore[no-any-return]


def _plain_of(frame: Frame) -> PlainCall | None:
    if frame.schema != (True, True) or frame.event is not None or frame.repeat != 1:
        return None
    if frame.id_nulls or frame.name_nulls:
        return None
    chunk = frame.chunk
    if chunk.error is not UNSET or not (chunk.usage is UNSET or chunk.usage is None):
        return None
    cs = chunk.choices
    if type(cs) is not list or len(cs) != 1:
        return None
    choice = cs[0]
    delta = choice.delta
    reason = choice.finish_reason
    if not (reason is UNSET or reason is None) or type(delta) is not Delta:
        return None
    if not (delta.content is UNSET or delta.content is None):
        return None
    if not (delta.reasoning_content is UNSET or delta.reasoning_content is None):
        return None
    tcs = delta.tool_calls
    if type(tcs) is not list or len(tcs) != 1:
        return None
    tc = tcs[0]
    fn = tc.function
    index, cid, kind = tc.index, tc.id, tc.type
    if type(fn) is not Function or type(index) is not int or index < 0:
        return None
    name, args = fn.name, fn.arguments
    if not (type(cid) is str and cid.strip() and type(name) is str and name.strip()):
        return None
    if not (type(kind) is str and kind == "function" and type(args) is str):
        return None
    raw = frame.raw  # (what the libraries that read the JSON read: nothing else in it)
    if type(raw) is not dict or not _PLAIN_CHUNK.issuperset(raw):
        return None
    rcs = raw.get("choices")
    if type(rcs) is not list or len(rcs) != 1 or type(rcs[0]) is not dict:
        return None
    rc = rcs[0]
    rindex = rc.get("index")
    if not _PLAIN_CHOICE.issuperset(rc) or type(rindex) is not int or rindex != 0:
        return None
    if rc.get("finish_reason") is not None or rc.get("logprobs") is not None:
        return None
    rdelta = rc.get("delta")
    if type(rdelta) is not dict or len(rdelta) != 1:
        return None
    rtcs = rdelta.get("tool_calls")
    if type(rtcs) is not list or len(rtcs) != 1 or type(rtcs[0]) is not dict:
        return None
    rtc = rtcs[0]
    rfn = rtc.get("function")
    if len(rtc) != 4 or not _PLAIN_CALL.issuperset(rtc) or type(rfn) is not dict:
        return None
    if len(rfn) != 2 or not _PLAIN_FUNCTION.issuperset(rfn):
        return None
    return index, cid, name, args


def frames(trace: Trace) -> list[Frame]:
    """The chunks a client library would read from ``trace``, one frame per payload.

    Exactly the payloads the harness replays: up to ``[DONE]`` (or the end of the capture), and
    no further than a payload the harness cannot parse or walk, so that the libraries see the
    same deltas as the "what the stream meant" analysis they are compared with. Valid JSON that
    is not an object is skipped, as the harness skips it. :func:`.compact.compact_frames` is the
    same stream with runs of plain continuations folded (what :func:`.assess.assess` reads).
    """
    out: list[Frame] = []
    for payload, decoded in zip(trace.payloads, trace.decoded, strict=True):
        if payload.after_done:
            break
        frame, stop = frame_of(payload, decoded)
        if frame is not None:
            out.append(frame)
        if stop:
            break
    return out


def frame_of(payload: Payload, decoded: Decoded | None) -> tuple[Frame | None, bool]:
    """One payload as a frame (``None``: the libraries skip it), and whether the stream stops."""
    if decoded is None or decoded.malformed is not None:
        return None, True
    if decoded.chunk is None:
        return None, False
    event = getattr(payload, "event", None)
    return Frame(payload.line, decoded.chunk, payload.data, event), decoded.throw is not None


def choices(chunk: WireChunk) -> list[Choice]:
    c = chunk.choices
    return c if isinstance(c, list) else []


def tool_deltas(choice: Choice) -> list[ToolCall]:
    """The tool-call deltas of one choice (none when the delta or its list is absent/null)."""
    delta = choice.delta
    if not delta:
        return []
    calls = delta.tool_calls
    return calls if isinstance(calls, list) else []


def is_number(value: Any) -> bool:
    """A JSON number (``true`` is not one, although Python says ``bool`` is an ``int``)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a decoded JSON value (absent counts as ``undefined``)."""
    if value is UNSET or value is None or value is False:
        return False
    if is_number(value):
        return bool(value) and value == value  # 0 and NaN are falsy
    if isinstance(value, str):
        return value != ""
    return True


@dataclass(slots=True)
class AssembledCall:
    """One tool call as a library hands it to the application."""

    id: Any
    """The id as the library exposes it: a string, ``None``, or a generated placeholder."""
    name: Any
    arguments: Any
    """The arguments as the library exposes them, as text (``None`` when it has none)."""
    wire_index: Any = UNSET
    """The wire ``tool_calls[].index`` the library filed the call under (``UNSET``: none)."""
    id_generated: bool = False
    """The library made the id up (the stream sent none it would use)."""
    parsed: Any = UNSET
    """For libraries that hand over parsed arguments: that object (``UNSET`` otherwise)."""
    invalid: bool = False
    """Set aside as invalid rather than handed over as a call (LangChain ``invalid_tool_calls``)."""


_SHARING: ContextVar[Callable[[AssembledCall], None] | None] = ContextVar("_SHARING", default=None)
"""While :func:`.assess.assess_frames` runs a library: what replaces a call's long strings by
the equal ones the assessment already keeps (:func:`handed_over`)."""


def handed_over(call: AssembledCall) -> AssembledCall:
    """``call``, as a library's :meth:`Assembler.finish` hands it over: during an assessment,
    its long strings (arguments, their parse) replaced at once by the equal ones already kept
    (the meant call's), so that a library parsing 8 calls of 1 MB does not hold its own copy
    of each, and of each parse, until its last call is made. The same values either way."""
    share = _SHARING.get()
    if share is not None:
        share(call)
    return call


SHOWN_VALUE = 200
"""Characters of an offending value a :class:`ClientError` keeps (a gateway may send a 5 MB
name: what is said of it is its start and how much more there is)."""


SHOWN_MESSAGE = 2000
"""Characters of an error's message its outcome says (:meth:`ClientError.said`)."""


def shown_value(value: Any, limit: int = SHOWN_VALUE) -> str:
    """A decoded JSON value as an explanation shows it: ``absent``, ``null``, ``""`` and ``7``
    kept apart as :func:`~replay_tui.core.wire.describe_value` does, cut after ``limit``
    characters (a long string is cut before it is encoded)."""
    if isinstance(value, str) and len(value) > limit:
        return describe_value(value[:limit])[:-1] + f'…" ({len(value) - limit:,} more characters)'
    return cut_text(describe_value(value), limit)


def tool_path(choice: int, call: int | None = None, rest: str = "") -> str:
    """The path of a field in a chunk, as an explanation names it: ``choices[0]``,
    ``choices[0].delta.tool_calls[1]``, ``choices[0].delta.tool_calls[1].function.name``
    (positions in the lists, as sent)."""
    path = f"choices[{choice}]" if call is None else f"choices[{choice}].delta.tool_calls[{call}]"
    return f"{path}.{rest}" if rest else path


@dataclass(slots=True)
class ClientError:
    """An error a library raises (or surfaces as a stream part)."""

    name: str
    """The error's class name as its language reports it (``AssertionError``, ``Error``)."""
    message: str
    line: int | None
    """Line of the payload being handled when it happened (``None``: at the end of the stream)."""
    verb: str = "throws"
    """How the outcome says it: ``throws`` for a library, ``refuses`` for a harness design."""
    layer: str = ""
    """Which of the library's layers failed (``ChoiceDeltaToolCall``, ``parseChatCompletion``…),
    when the modelled source names one: the outcome says it in parentheses."""
    field: str = ""
    """The field that triggered it, as a path into the chunk
    (``choices[0].delta.tool_calls[0].type``; ``""``: no one field did, e.g. no chunk came)."""
    value: str = ""
    """What that field held, as :func:`shown_value` says it (``"FUNCTION"``, ``null``,
    ``absent``): cut, never markup, to be made visible where it is shown."""
    expected: str = ""
    """What the library's check wanted there, when it says (``string``, ``"function"``)."""
    field_line: int | None = None
    """The line of the payload that sent the field, when it is not :attr:`line` (a throw at the
    end of the stream, over a value a payload sent earlier)."""

    def __str__(self) -> str:
        return self._said(self.message)

    def said(self) -> str:
        """:func:`str`, its message cut after :data:`SHOWN_MESSAGE` characters with how many
        more there are: what an outcome says (an error chunk's 5 MB message, in a dozen
        libraries' outcomes, would be a copy in each)."""
        return self._said(cut_text(self.message, SHOWN_MESSAGE))

    def _said(self, message: str) -> str:
        text = f"{self.name}: {message}" if message else self.name
        return f"{text} ({self.layer})" if self.layer else text

    def cause(self) -> str:
        """The field that triggered it, in words (``""`` when no field did):
        ``choices[0].delta.tool_calls[0].type = "FUNCTION"``,
        ``choices[0].delta.tool_calls[0].function.name: expected string, got null``."""
        if not self.field:
            return ""
        if not self.value:  # (a field whose value is not said)
            return self.field
        if self.expected:
            return f"{self.field}: expected {self.expected}, got {self.value}"
        if self.value == "absent":
            return f"{self.field} is absent"
        return f"{self.field} = {self.value}"

    def explained(self) -> str:
        """:meth:`cause` with the line of the payload that sent the field
        (``line 14: choices[0].delta.tool_calls[0].type = "FUNCTION"``; ``""``: no field)."""
        cause = self.cause()
        if not cause or self.where is None:
            return cause
        return f"line {self.where}: {cause}"

    @property
    def where(self) -> int | None:
        """The line of the payload the field was read from (``None``: none is known)."""
        return self.line if self.field_line is None else self.field_line


UNSAID: Any = object()
"""A :class:`Raise`'s ``value`` when the field is named without its value."""


class Raise(Exception):
    """Raised inside a policy to stop the replay the way the library would stop.

    ``field`` and ``value`` name what triggered it (:attr:`ClientError.field`); a raiser deep
    in a library's helpers that does not know the path is named by its caller with :meth:`at`.
    """

    def __init__(
        self,
        name: str,
        message: str = "",
        verb: str = "throws",
        layer: str = "",
        line: int | None = None,
        *,
        field: str = "",
        value: Any = UNSET,
        expected: str = "",
        field_line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.name = name
        self.message = message
        self.verb = verb
        self.layer = layer
        self.line = line
        """The payload's line, when the raiser knows it better than the frame being fed (a
        payload inside a :class:`Quiet` run)."""
        self.field = field
        self.value = value
        self.expected = expected
        self.field_line = field_line

    def at(
        self, field: str, value: Any = UNSET, expected: str = "", field_line: int | None = None
    ) -> Raise:
        """Name the field (and its value) when the raiser did not; returns the exception."""
        if not self.field:
            self.field, self.value, self.expected = field, value, expected
            if self.field_line is None:
                self.field_line = field_line
        return self

    def error(self, line: int | None) -> ClientError:
        """What the library raised, at ``line`` unless the raiser knew better."""
        return ClientError(
            self.name,
            self.message,
            line if self.line is None else self.line,
            self.verb,
            self.layer,
            self.field,
            shown_value(self.value) if self.field and self.value is not UNSAID else "",
            self.expected,
            self.field_line,
        )


FREE: Any = object()
"""In :attr:`QuietCall.pair`: the field is absent, or a blank value the call was sent
already, in each delta (not one repeated)."""


class QuietCall:
    """One call's part of a :class:`Quiet` run: its pieces, in order."""

    __slots__ = (
        "_starts",
        "id_nulls",
        "index",
        "last_id",
        "last_name",
        "later",
        "lines",
        "name_nulls",
        "others",
        "pair",
        "pieces",
        "role",
        "schema",
        "tails",
    )

    def __init__(
        self, index: Any, pair: tuple[Any, Any, Any, tuple[bool, bool]] | None = None
    ) -> None:
        self.index = index
        self.pair = pair
        """``None``: every delta's ``id`` and ``name`` are blank or absent, values the call was
        sent already. Else ``(id, name, type, schemas)``: the ``id`` or ``name`` every delta
        re-sends, the same as the call's delta before it (a gateway that repeats the name on
        every chunk, LiteLLM's ``name: "null"``), or :data:`FREE` for a field that is blank
        or absent there as above; the raw ``type`` every delta sent; what the AI SDK's two
        chunk schemas say of each (:attr:`Frame.schema`). A repeat is seen only by a library
        that concatenates the value (:attr:`Frame.repeat`)."""
        self._starts: list[int] | None = None
        """The wire index every one of these deltas sent (the call's own)."""
        self.pieces = Pieces()
        """Each payload's piece, in order: a few joined blocks and each piece's end, not a
        string per piece (two calls streamed side by side, 100,000 pieces of a few characters:
        about a third of the capture's size as strings)."""
        self.lines: array[int] = array("q")
        """Each payload's line, in order."""
        self.id_nulls = 0
        """How many sent ``id: null``."""
        self.name_nulls = 0
        self.last_id: Any = UNSET
        """The last payload's ``id`` (absent, ``null`` or ``""``): a library that keeps the
        last blank value (Semantic Kernel's ``a or b``) ends with it."""
        self.last_name: Any = UNSET
        self.others: array[int] | None = None
        """Positions of the pieces a library that reads the choice whose index is 0 does not
        read (``None``: it reads them all): their choice had another index, or came after
        the payload's first choice of index 0."""
        self.later: array[int] | None = None
        """Positions of the pieces whose choice was not the payload's first (``None``: none
        was): a library that reads ``choices[0]`` alone skips them."""
        self.tails: array[int] | None = None
        """Positions of the pieces whose delta was not the first of its choice's
        ``tool_calls`` (``None``: none was): a library that reads a chunk's first tool-call
        delta alone (LlamaIndex) skips them."""
        self.role: Any = UNSET
        """The role every payload of a :attr:`pair`-less part re-sent, when an AI SDK schema
        refuses it for that role (``UNSET``: none did; a Go gateway's ``"role": ""``, which
        ``@ai-sdk/openai`` refuses): the folded frame carries it, and is refused for it."""
        self.schema: tuple[bool, bool] = (True, True)
        """What the AI SDK's two chunk schemas say of each payload of a :attr:`pair`-less
        part (:attr:`Frame.schema`): both accept, but for a schema that refuses the
        :attr:`role`."""

    def elsewhere(self) -> None:
        """The piece just added is not read by a library that reads choice 0 alone."""
        if self.others is None:
            self.others = array("q")
        self.others.append(len(self.pieces) - 1)

    def behind(self) -> None:
        """The piece just added came in a choice after its payload's first."""
        if self.later is None:
            self.later = array("q")
        self.later.append(len(self.pieces) - 1)

    def tail(self) -> None:
        """The piece just added was not its choice's first tool-call delta."""
        if self.tails is None:
            self.tails = array("q")
        self.tails.append(len(self.pieces) - 1)

    def starts(self) -> list[int]:
        """Positions of the pieces that open a JSON object or array (after white space):
        where the AI SDK, reading a delta that names its call, may start a new one."""
        if self._starts is None:
            self._starts = [k for k, p in enumerate(self.pieces) if p.lstrip()[:1] in _OPENERS]
        return self._starts


_OPENERS = ("{", "[")


class Quiet:
    """A run of consecutive *quiet* tool-call payloads, of one call or of several interleaved.

    A payload is quiet when it carries nothing a library reacts to but an arguments piece: one
    choice holding one tool-call delta of a call already opened, with the call's own index, a
    ``type`` that is absent or the one in force, an ``id`` and a ``name`` that are absent or a
    blank value (``null``, ``""``) the call was already sent since its identity last changed,
    and nothing else said (no text, role, finish reason or error; a chunk every schema accepts,
    its usage included; no ``event: error``). What no library reads does not count: the
    chunk's ``id``, ``created``, usage values, unknown fields, an SSE event of another name.
    The choice's index counts for one library only: every model mixes the choices of a stream
    under their tool-call indexes, but the Agents SDK for JavaScript reads choice 0 alone
    (:meth:`zero_frames`). :mod:`.compact` decides it once per distinct payload shape.

    A library reads a run as one frame per call (:meth:`frames`: the call's last delta with
    every piece joined; its blank identity was news to no library), so a 100,000-delta call
    costs each library one step; the few libraries whose result depends on how calls
    alternate (:attr:`Assembler.ordered`) walk its :attr:`stretches` instead: one step per
    change of call, not per payload.
    """

    __slots__ = ("_frames", "_last", "_views", "calls", "joined", "line", "sizes", "stretches")

    def __init__(self, line: int) -> None:
        self.line = line
        """Line of the run's first payload."""
        self.stretches: list[QuietCall] = []
        """The run as stretches of consecutive payloads of one call, in stream order."""
        self.sizes: array[int] = array("q")
        """How many payloads each stretch holds."""
        self.calls: dict[int, QuietCall] = {}
        """Each call's part, by its order in the analysis, in order of first appearance."""
        self._last = -1
        self._frames: list[Frame] | None = None
        self._views: dict[str, Quiet] | None = None
        self.joined: Marks | None = None
        """Positions of the stretches whose first piece came in the same choice as the piece
        before it (several tool-call deltas in one choice, of different calls): a library
        whose events follow a chunk's deltas (openai-node's done events) reads them as one
        chunk. ``None``: none did. (Kept in :meth:`view` ``"all"`` only, which is the run.)"""

    def fits(self, call: int, pair: tuple[Any, Any, Any, tuple[bool, bool]] | None) -> bool:
        """Whether a quiet delta of ``call`` sending ``pair`` (see :attr:`QuietCall.pair`) may
        join the run: the call's part of it, if it has one, sends the same."""
        found = self.calls.get(call)
        return found is None or found.pair == pair

    def add(
        self,
        call: int,
        index: Any,
        piece: str,
        line: int,
        cid: Any,
        name: Any,
        pair: tuple[Any, Any, Any, tuple[bool, bool]] | None = None,
        choice: int = 0,
        later: bool = False,
        tail: bool = False,
        joined: bool = False,
    ) -> None:
        """Add one payload's piece of ``call``: ``choice`` (truthy) a piece the libraries that
        read choice 0 alone skip, ``later`` one the libraries that read ``choices[0]`` skip,
        ``tail`` one the libraries that read a choice's first tool-call delta skip; ``joined``:
        it came in the same choice as the piece added before it."""
        if call == self._last:
            part = self.stretches[-1]
            self.sizes[-1] += 1
        else:
            found = self.calls.get(call)
            part = self.calls[call] = QuietCall(index, pair) if found is None else found
            self.stretches.append(part)
            self.sizes.append(1)
            self._last = call
            if joined:
                if self.joined is None:
                    self.joined = Marks()
                self.joined.add(len(self.stretches) - 1)
        part.pieces.append(piece)
        part.lines.append(line)
        part.last_id = cid
        part.last_name = name
        if cid is None:
            part.id_nulls += 1
        if name is None:
            part.name_nulls += 1
        if choice:
            part.elsewhere()
        if later:
            part.behind()
        if tail:
            part.tail()

    def runs(self) -> Iterator[tuple[QuietCall, int, int]]:
        """The stretches as ``(call, first piece, how many)``: ``call.pieces[first]`` on."""
        taken = dict.fromkeys(map(id, self.calls.values()), 0)
        for part, size in zip(self.stretches, self.sizes, strict=True):
            key = id(part)
            at = taken[key]
            taken[key] = at + size
            yield part, at, size

    def frames(self) -> list[Frame]:
        """One frame per call: a delta with only the call's index and its pieces joined (made
        once, shared by every library)."""
        if self._frames is None:
            self._frames = [_quiet_frame(part) for part in self.calls.values()]
        return self._frames

    def zero_frames(self) -> list[Frame]:
        """:meth:`frames` for a library that reads choice 0 alone (:meth:`view`)."""
        return self.view("zero").frames()

    def view(self, reads: str) -> Quiet:
        """The run as a library that reads some of a payload's choices sees it: ``"all"``
        (the run itself), ``"zero"`` (the choice whose index is 0: the pieces of
        :attr:`QuietCall.others` left out), ``"first"`` (``choices[0]``: the pieces of
        :attr:`QuietCall.later` left out) or ``"head"`` (``choices[0]``'s first tool-call
        delta: the pieces of :attr:`QuietCall.later` and :attr:`QuietCall.tails` left out).
        Each call keeps the pieces read, in order; the calls come in the order their first
        piece read came. Made once per run and reading; an empty run when no piece is read."""
        attrs = (
            ("others",)
            if reads == "zero"
            else ("later",)
            if reads == "first"
            else ("later", "tails")
            if reads == "head"
            else ()
        )
        if all(getattr(p, a) is None for p in self.calls.values() for a in attrs):
            return self
        if self._views is None:
            self._views = {}
        found = self._views.get(reads)
        if found is not None:
            return found
        out = Quiet(self.line)
        skips = {
            id(p): frozenset(k for a in attrs for k in getattr(p, a) or ())
            for p in self.calls.values()
        }
        subs: dict[int, QuietCall] = {}
        stretches, sizes = out.stretches, out.sizes
        last = -1
        for part, first, size in self.runs():
            key = id(part)
            skip = skips[key]
            if skip:
                kept = [k for k in range(first, first + size) if k not in skip]
                if not kept:
                    continue
                size, first = len(kept), kept[0]
            sub = subs.get(key)
            if sub is None:
                sub = subs[key] = QuietCall(part.index, part.pair)
                sub.role, sub.schema = part.role, part.schema
                out.calls[len(out.calls)] = sub
                if not stretches:
                    out.line = part.lines[first]
            if key != last:
                stretches.append(sub)
                sizes.append(0)
                last = key
            sizes[-1] += size
        parts = {id(p): p for p in self.calls.values()}
        for key, sub in subs.items():
            part = parts[key]
            sub.last_id, sub.last_name = part.last_id, part.last_name
            skip = skips[key]
            if skip:  # (the nulls of the pieces read are not counted apart)
                # each call's pieces read, in one pass (its stretches cover them in order)
                sub.pieces.extend([p for k, p in enumerate(part.pieces) if k not in skip])
                sub.lines = array("q", [n for k, n in enumerate(part.lines) if k not in skip])
                sub.id_nulls = int(sub.last_id is None)
                sub.name_nulls = int(sub.last_name is None)
            else:  # (every piece read: the call's own, shared)
                sub.pieces, sub.lines = part.pieces, part.lines
                sub.id_nulls, sub.name_nulls = part.id_nulls, part.name_nulls
        out._last = len(out.calls) - 1 if stretches else -1
        self._views[reads] = out
        return out


class Marks:
    """Positions marked (``k in marks``), as a set of them says, in a byte per position up to
    the last marked: two calls streamed side by side mark every stretch of their run, 50,000
    positions (a set of them was a sixth of the capture's size)."""

    __slots__ = ("_flags",)

    def __init__(self, marked: Iterable[int] = ()) -> None:
        self._flags = bytearray()
        for k in marked:
            self.add(k)

    def add(self, k: int) -> None:
        flags = self._flags
        if k >= len(flags):
            flags.extend(bytes(k + 1 - len(flags)))
        flags[k] = 1

    def __contains__(self, k: object) -> bool:
        flags = self._flags
        return type(k) is int and 0 <= k < len(flags) and flags[k] == 1

    def __iter__(self) -> Iterator[int]:
        return (k for k, flag in enumerate(self._flags) if flag)

    def __len__(self) -> int:
        return self._flags.count(1)

    def __bool__(self) -> bool:
        return 1 in self._flags

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Marks | set | frozenset):
            return set(self) == set(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content

    def __repr__(self) -> str:
        return f"Marks({sorted(self)!r})"


def _quiet_frame(part: QuietCall) -> Frame:
    """The frame a library reads for one call's part of a quiet run: the last payload's delta
    (its blank ``id`` and ``name``, which the call was sent already) with every piece."""
    joined = part.pieces.whole()
    cid, name = part.last_id, part.last_name
    pair = part.pair
    kind: Any = UNSET if pair is None else pair[2]
    id_nulls = part.id_nulls - (cid is None)  # (the frame's own delta carries the last one)
    name_nulls = part.name_nulls - (name is None)
    call = ToolCall(
        index=part.index, id=cid, type=kind, function=Function(name=name, arguments=joined)
    )
    chunk = WireChunk(choices=[Choice(delta=Delta(tool_calls=[call]))])
    frame = Frame(
        part.lines[0],
        chunk,
        b"",
        count=len(part.pieces),
        pieces=part.pieces,
        lines=part.lines,
        id_nulls=id_nulls,
        name_nulls=name_nulls,
        repeat=1 if part.pair is None else len(part.pieces),
        schema=part.schema if part.pair is None else part.pair[3],
    )
    raw_call: dict[str, Any] = {"index": part.index}
    fn: dict[str, Any] = {"arguments": joined}
    if cid is not UNSET:
        raw_call["id"] = cid
    if kind is not UNSET:
        raw_call["type"] = kind
    if name is not UNSET:
        fn["name"] = name
    raw_call["function"] = fn
    raw_delta: dict[str, Any] = {"tool_calls": [raw_call]}
    if part.role is not UNSET:  # (what a schema refused each payload for: it refuses this)
        raw_delta = {"role": part.role, "tool_calls": [raw_call]}
    frame._raw = {"choices": [{"index": 0, "delta": raw_delta}]}
    return frame


@dataclass(slots=True)
class DroppedCall:
    """A call the library assembled and then left out of what it hands over."""

    wire_index: Any
    id: Any
    name: Any
    arguments: Any
    reason: str


@dataclass(slots=True)
class Assembly:
    """What one library makes of one stream."""

    calls: list[AssembledCall] = field(default_factory=list)
    """What the application receives, in the library's order (empty when it raised)."""
    raised: ClientError | None = None
    """The error that ends the stream for the application, if any."""
    error_parts: list[ClientError] = field(default_factory=list)
    """Errors surfaced inside the stream without ending it (AI SDK ``error`` parts)."""
    dropped: list[DroppedCall] = field(default_factory=list)


class Assembler(ABC):
    """The state of one library reading one stream.

    Subclasses implement :meth:`feed` (one chunk) and :meth:`finish` (end of stream); to stop
    the way the library stops, they raise :class:`Raise`.
    """

    @abstractmethod
    def feed(self, frame: Frame) -> None:
        """Take the next chunk."""

    @abstractmethod
    def finish(self) -> Assembly:
        """The stream ended: what the application receives."""

    choice_zero = False
    """Whether the library reads only the choice whose index is 0 (it reads a :class:`Quiet`
    run's :meth:`~Quiet.view` ``"zero"``)."""

    first_choice = False
    """Whether the library reads only a chunk's first choice, ``choices[0]`` (it reads a
    :class:`Quiet` run's :meth:`~Quiet.view` ``"first"``)."""

    first_delta = False
    """Whether the library reads only the first tool-call delta of ``choices[0]`` (it reads
    a :class:`Quiet` run's :meth:`~Quiet.view` ``"head"``)."""

    ordered = False
    """Whether the result depends on how the calls of a :class:`Quiet` run alternate (a new
    call at each change of index, a call finished when another starts): such a library
    implements :meth:`feed_quiet`; the others read the run's :meth:`Quiet.frames`."""

    def feed_quiet(self, run: Quiet) -> None:
        """Take a run of quiet payloads (only called when :attr:`ordered`)."""
        raise NotImplementedError

    plain = False
    """Whether the library takes a frame of one plain call (:func:`plain_call`) by a
    shortcut of its own, :meth:`feed_plain`."""

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        """Take a frame of one plain call (only called when :attr:`plain`): what
        :meth:`feed` does with it, without reading the frame again (an agent loop's 5,000
        calls, 18 libraries). Falls back to :meth:`feed` where the library's state makes
        the call anything but a plain step."""
        self.feed(frame)

    def error_parts(self) -> list[ClientError]:
        """Non-fatal errors surfaced so far (only some libraries have them)."""
        return []


_PLAIN = True
"""Whether the libraries take plain calls by their shortcuts (tests turn it off to hold
each shortcut to the library's own steps)."""


@dataclass(frozen=True, slots=True)
class Policy:
    """One library's way of assembling streamed tool calls (stateless; safe to share)."""

    key: str
    """Stable identifier, used in JSON (``openai-python``)."""
    library: str
    """What is modelled, with its version."""
    rule: str
    """The assembly rule in a sentence or two, for help texts and the TUI."""
    assembler: Callable[[], Assembler]
    kind: str = "library"
    """``library``, or ``alternative`` for a design the seed record rejected."""

    def run(self, stream: Sequence[Frame | Quiet]) -> Assembly:
        """Replay ``stream`` through a fresh assembler of this policy."""
        state = self.assembler()
        ordered = state.ordered
        plain = state.plain and _PLAIN
        reads = (
            "zero"
            if state.choice_zero
            else "head"
            if state.first_delta
            else "first"
            if state.first_choice
            else "all"
        )
        line: int | None = None
        try:
            for item in stream:
                if type(item) is Quiet:
                    if reads != "all":
                        item = item.view(reads)
                        if not item.stretches:
                            continue
                    if ordered:
                        line = item.line
                        state.feed_quiet(item)
                        continue
                    for frame in item.frames():
                        line = frame.line
                        state.feed(frame)
                    continue
                assert isinstance(item, Frame)
                line = item.line
                if plain:
                    call = item._plain
                    if call is UNSET:
                        call = plain_call(item)
                    if call is not None:
                        state.feed_plain(item, call)
                        continue
                state.feed(item)
            line = None
            return state.finish()
        except Raise as exc:
            return Assembly(
                raised=exc.error(line),
                error_parts=state.error_parts(),
            )


def raise_sdk_stream_error(frame: Frame, *, node: bool = False) -> None:
    """What the official OpenAI SDKs do before any assembly: a chunk carrying an ``error``
    (truthy, or any payload of an ``event: error`` for Node) raises ``APIError``.

    Every Python library modelled here reads an OpenAI-compatible stream through openai-python,
    so they all stop there.
    """
    err = frame.chunk.error
    hit = (frame.event == "error" or js_truthy(err)) if node else (err is not UNSET and bool(err))
    if not hit:
        return
    message = err.get("message") if isinstance(err, dict) else None
    if not isinstance(message, str) or not message:
        message = "An error occurred during streaming"
    if err is UNSET or (node and not js_truthy(err)):  # Node: an `event: error` payload
        raise Raise("APIError", message, field="event", value="error")
    raise Raise("APIError", message, field="error", value=err)


def unlike(keys: Sequence[Any]) -> int:
    """Position of the first key whose type differs from the first key's (what makes a sort
    of them fail in Python: ``None`` or a string beside numbers); 0 when none does."""
    number = (int, float)
    first = keys[0] if keys else None
    for k, key in enumerate(keys):
        same = type(key) is type(first) or (isinstance(key, number) and isinstance(first, number))
        if not same:
            return k
    return 0


def sorted_keys(calls: dict[Any, Any], sent: Callable[[Any], Any]) -> list[Any]:
    """``calls``' keys in order, as a library's ``sorted`` puts them; where Python cannot order
    them (``None`` or a string beside numbers), the ``TypeError`` it raises, naming the first
    unlike call's index (``sent(call)``: as the library holds it) and its line."""
    try:
        return sorted(calls)
    except TypeError as exc:
        odd = calls[list(calls)[unlike(list(calls))]]
        raise Raise(
            "TypeError", str(exc), field=f"{odd.at}.index", value=sent(odd), field_line=odd.line
        ) from None


def function_fields(call: ToolCall) -> tuple[bool, Any, Any]:
    """``(has a function object, function.name, function.arguments)``; absent fields ``UNSET``."""
    fn = call.function
    if isinstance(fn, Function):
        return True, fn.name, fn.arguments
    return False, UNSET, UNSET


def times(value: Any, frame: Frame) -> Any:
    """An identity string as a library that concatenates it holds it after the frame's
    payloads (:attr:`Frame.repeat`): the value that many times over."""
    n = frame.repeat
    return value * n if n > 1 and type(value) is str else value


def span_of(pieces: Sequence[str], a: int, b: int) -> str:
    """``"".join(pieces[a:b])``: of a folded run's pieces, kept as joined blocks, cut from
    the blocks, not made one by one and joined again."""
    if type(pieces) is Pieces:
        return pieces.span(a, min(b, len(pieces)))
    return "".join(pieces[a:b])


def none_if_unset(value: Any) -> Any:
    """How an SDK object built without validation reads a field the JSON lacked: ``None``."""
    return None if value is UNSET else value
