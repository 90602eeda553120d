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
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from ..core.wire import UNSET, Choice, Function, ToolCall, WireChunk

if TYPE_CHECKING:
    from ..core.sse import Payload
    from ..core.trace import Trace
    from ..core.wire import Decoded

__all__ = [
    "AssembledCall",
    "Assembler",
    "Assembly",
    "ClientError",
    "DroppedCall",
    "Frame",
    "Policy",
    "Raise",
    "choices",
    "frame_of",
    "frames",
    "function_fields",
    "is_number",
    "js_truthy",
    "none_if_unset",
    "raise_sdk_stream_error",
    "tool_deltas",
]

_raw_decoder = msgspec.json.Decoder()


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
    pieces: list[str] | None = None
    """For a folded run of continuations: each payload's ``arguments`` piece, in order."""
    _raw: Any = UNSET

    @property
    def raw(self) -> Any:
        """The payload as plain JSON (dicts and lists), decoded on first use."""
        if self._raw is UNSET:
            try:
                self._raw = _raw_decoder.decode(self.data)
            except (msgspec.DecodeError, RecursionError):
                self._raw = None
        return self._raw


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

    def __str__(self) -> str:
        text = f"{self.name}: {self.message}" if self.message else self.name
        return f"{text} ({self.layer})" if self.layer else text


class Raise(Exception):
    """Raised inside a policy to stop the replay the way the library would stop."""

    def __init__(self, name: str, message: str = "", verb: str = "throws", layer: str = "") -> None:
        super().__init__(message)
        self.name = name
        self.message = message
        self.verb = verb
        self.layer = layer


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

    def error_parts(self) -> list[ClientError]:
        """Non-fatal errors surfaced so far (only some libraries have them)."""
        return []


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

    def run(self, stream: Sequence[Frame]) -> Assembly:
        """Replay ``stream`` through a fresh assembler of this policy."""
        state = self.assembler()
        line: int | None = None
        try:
            for frame in stream:
                line = frame.line
                state.feed(frame)
            line = None
            return state.finish()
        except Raise as exc:
            return Assembly(
                raised=ClientError(exc.name, exc.message, line, exc.verb, exc.layer),
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
    raise Raise("APIError", message)


def function_fields(call: ToolCall) -> tuple[bool, Any, Any]:
    """``(has a function object, function.name, function.arguments)``; absent fields ``UNSET``."""
    fn = call.function
    if isinstance(fn, Function):
        return True, fn.name, fn.arguments
    return False, UNSET, UNSET


def none_if_unset(value: Any) -> Any:
    """How an SDK object built without validation reads a field the JSON lacked: ``None``."""
    return None if value is UNSET else value
