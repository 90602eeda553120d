"""Vercel AI SDK: ``@ai-sdk/openai-compatible`` 3.0.92 and ``@ai-sdk/openai`` 4.0.118.

Both validate every chunk against a zod schema first (a chunk that fails — a tool-call delta
without a ``function`` object, an ``id`` that is not a string, … — is skipped and surfaces as an
``AI_TypeValidationError`` error part), read only ``choices[0]``, and hand tool-call deltas to
``StreamingToolCallTracker`` (``@ai-sdk/provider-utils`` 5.0.81), ported below: a blank
(empty or whitespace) ``id`` or ``name`` counts as absent; deltas are correlated to calls by
id, then index, then name; the first delta of a call fixes its name (a blank name on a new
call drops that delta, its id and arguments with it); a new call without a name throws
``AI_InvalidResponseDataError: Expected 'function.name' to be a string.``; an id already used
or never sent is replaced by ``generateId()``. Calls are emitted only when the stream ends, so
a throw loses every call.

``openai-compatible`` buffers a call's deltas until a ``function.name`` (even ``""``) arrives,
so a name that comes late still works; a call that never gets one throws at the end. It also
reports a stream without a finish reason as an error part. ``@ai-sdk/openai`` has no buffer and
a stricter schema (``index`` and the choice ``index`` required, ``type`` only ``"function"``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..core.wire import UNSET, ToolCall
from .base import (
    AssembledCall,
    Assembler,
    Assembly,
    ClientError,
    Frame,
    PlainCall,
    Policy,
    Quiet,
    Raise,
    function_fields,
    is_number,
    none_if_unset,
    shown_value,
    tool_deltas,
    tool_path,
)

__all__ = [
    "COMPATIBLE_POLICY",
    "OPENAI_POLICY",
    "ArgumentState",
    "ToolCallTracker",
    "usage_ok",
]

GENERATED_ID = "<generateId()>"
NO_NAME = "Expected 'function.name' to be a string."


def _blank(value: Any) -> bool:
    return not isinstance(value, str) or value.strip() == ""


def _non_blank(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _opens_or_blank(piece: str) -> bool:
    """A piece that opens a JSON value or holds only white space (what the tracker's
    resolution of a named delta reads of its arguments)."""
    head = piece.lstrip()[:1]
    return head == "" or head == "{" or head == "["


def starts_with_structured_value(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    stripped = value.lstrip()
    return stripped[:1] in ("{", "[")


class ArgumentState:
    """``StreamingToolCallArgumentState``: has a complete ``{…}``/``[…]`` value arrived?"""

    __slots__ = ("complete", "escaped", "in_string", "kind", "stack")

    def __init__(self, initial: str = "") -> None:
        self.kind = "undetermined"
        self.stack: list[str] = []
        self.in_string = False
        self.escaped = False
        self.complete = False
        self.append(initial)

    def append(self, delta: str) -> int | None:
        """Scan ``delta`` as the library does character by character, jumping over string
        contents and other characters that cannot change the state (a call's arguments can be
        megabytes). Returns where in ``delta`` the value completed (the position after its
        last character), when it completed there (``None``: it did not)."""
        if self.kind == "undetermined" and delta[-1:] in _CLOSERS and _whole_value(delta):
            # a whole JSON object or array at once (an agent loop's 5,000 calls, each opened
            # with its arguments whole): complete at its last character, as the scan finds
            self.kind, self.stack, self.complete = "structured", [], True
            return len(delta)
        i, n = 0, len(delta)
        while i < n:
            if self.kind == "undetermined":
                ch = delta[i]
                i += 1
                if ch.isspace():
                    continue
                if ch not in "{[":
                    self.kind = "other"
                    continue
                self.kind, self.stack = "structured", [ch]
                continue
            if self.kind != "structured" or self.complete:
                return None
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                    i += 1
                    continue
                # the rest of the string, its escapes included, in one step
                i = _STRING_REST.match(delta, i).end()  # type: ignore[union-attr]
                if i == n:
                    return None
                if delta[i] == "\\":  # (the delta's last character: the escape goes on)
                    self.escaped = True
                    return None
                i += 1
                self.in_string = False
                continue
            m = _STRUCTURE.search(delta, i)
            if m is None:
                return None
            ch = m.group()
            i = m.end()
            if ch == '"':
                self.in_string = True
            elif ch in "{[":
                self.stack.append(ch)
            else:
                if not self.stack or self.stack[-1] != ("{" if ch == "}" else "["):
                    self.kind = "other"
                    continue
                self.stack.pop()
                if not self.stack:
                    self.complete = True
                    return i
        return None


_STRING_REST = re.compile(r'[^"\\]*(?:\\[\s\S][^"\\]*)*')
"""A string's characters up to its closing quote (or a last backslash, whose escape the next
delta ends), the escapes jumped over as the library does, one character each."""
_STRUCTURE = re.compile(r'["{}\[\]]')
_CLOSERS = frozenset("}]")
_json_value = msgspec.json.Decoder().decode


def _whole_value(text: str) -> bool:
    """Whether ``text`` is one JSON document (it ends with a bracket: an object or array,
    JSON's white space before it at most)."""
    try:
        _json_value(text)
    except (msgspec.DecodeError, RecursionError, UnicodeEncodeError):  # (a lone surrogate)
        return False
    return True


@dataclass(eq=False)
class _Tracked:
    id: str
    index: Any
    sequence: int
    name: str
    arguments: str
    state: ArgumentState
    generated: bool
    finished: bool = False


@dataclass
class _Delta:
    """The fields of a tool-call delta the tracker reads (``None`` = absent or null)."""

    index: Any = None
    id: Any = None
    type: Any = None
    has_function: bool = False
    name: Any = None
    arguments: Any = None
    at: str = ""
    """The tool call's path in its chunk (``choices[0].delta.tool_calls[1]``)."""
    sent_name: Any = UNSET
    """``function.name`` as sent (``UNSET``: absent), for an explanation."""
    sent_type: Any = UNSET
    line: int | None = None
    """The line of the payload it came from, when known (a folded run's pieces)."""


@dataclass
class ToolCallTracker:
    """A port of ``StreamingToolCallTracker`` from ``@ai-sdk/provider-utils`` 5.0.81."""

    type_validation: str = "none"
    calls: list[_Tracked] = field(default_factory=list)
    by_id: dict[str, list[_Tracked]] = field(default_factory=dict)
    by_index: dict[Any, list[_Tracked]] = field(default_factory=dict)
    used_ids: set[str] = field(default_factory=set)
    generated: int = 0
    stable: bool = False
    """The last delta was dropped as ambiguous, or continued the one call it could: the same
    delta again, with arguments that open no value, resolves the same way."""
    _single: bool = False
    crossed: bool = False
    """A delta of one index was taken by a call of another (a blank-named delta dropped, the
    next of its index continuing whichever call was open): the calls' pieces then depend on
    the order of different indexes' deltas, not only of each index's own."""

    def process(self, d: _Delta) -> None:
        blank_name = isinstance(d.name, str) and d.name.strip() == ""
        wire_id = _non_blank(d.id)
        name = _non_blank(d.name)
        args = d.arguments
        kind, call = self._resolve(
            wire_id,
            d.index,
            name,
            explicit_start=name is not None and starts_with_structured_value(args),
            empty_args=args is None or (isinstance(args, str) and args.strip() == ""),
        )
        self.stable = kind == "ambiguous" or (kind == "existing" and self._single)
        if kind == "ambiguous":
            return
        if kind == "new":
            if blank_name:
                return
            call = self._new(d, wire_id, name)
        else:
            assert call is not None
            if wire_id is not None:
                self._add(self.by_id, wire_id, call)
            if not call.finished and isinstance(args, str):
                call.state.append(args)
                call.arguments += args
        if d.index is not None:
            self._add(self.by_index, d.index, call)
        if call.index != d.index:
            self.crossed = True

    @staticmethod
    def _add(table: dict[Any, list[_Tracked]], key: Any, call: _Tracked) -> None:
        bucket = table.setdefault(key, [])
        if call not in bucket:
            bucket.append(call)

    def _resolve(
        self,
        wire_id: str | None,
        index: Any,
        name: str | None,
        *,
        explicit_start: bool,
        empty_args: bool,
    ) -> tuple[str, _Tracked | None]:
        self._single = False
        indexed = self.by_index.get(index) if index is not None else None
        matching = [c for c in indexed or [] if name is None or c.name == name]
        if wire_id is not None:
            with_id = self.by_id.get(wire_id)
            if with_id is not None:
                if index is not None:
                    both = [c for c in matching if c in with_id]
                    kind, call = self._matching(both, explicit_start)
                    if kind != "new":
                        return kind, call
                    if name is not None:
                        return "new", None
                    if indexed is not None:
                        return "ambiguous", None
                    return self._matching(list(with_id), False)
                if name is not None:
                    return self._matching([c for c in with_id if c.name == name], explicit_start)
                return self._matching(list(with_id), False)
            if matching:
                if explicit_start:
                    return "new", None
                return self._matching(matching, name is not None and empty_args)
            return "new", None
        if indexed is not None:
            return self._matching(matching, explicit_start)
        if name is not None:
            return "new", None
        return self._matching([c for c in self.calls if not c.finished], False)

    def _matching(self, calls: list[_Tracked], explicit_start: bool) -> tuple[str, _Tracked | None]:
        if not calls:
            return "new", None
        if not explicit_start and len(calls) == 1:
            self._single = True
            return "existing", calls[0]
        continuable = [c for c in calls if not c.state.complete]
        if len(continuable) == 1:
            return "existing", continuable[0]
        if len(continuable) > 1 or not explicit_start:
            return "ambiguous", None
        return "new", None

    def _new(self, d: _Delta, wire_id: str | None, name: str | None) -> _Tracked:
        if self.type_validation == "if-present" and d.type is not None and d.type != "function":
            raise Raise(
                "AI_InvalidResponseDataError",
                "Expected 'function' type.",
                layer="StreamingToolCallTracker",
                line=d.line,
                field=f"{d.at}.type",
                value=d.sent_type,
            )
        if name is None:
            raise Raise(
                "AI_InvalidResponseDataError",
                NO_NAME,
                layer="StreamingToolCallTracker",
                line=d.line,
                field=f"{d.at}.function.name",
                value=d.sent_name,
            )
        generated = wire_id is None or wire_id in self.used_ids
        if generated:
            self.generated += 1
            call_id = GENERATED_ID if self.generated == 1 else f"{GENERATED_ID}-{self.generated}"
        else:
            assert wire_id is not None
            call_id = wire_id
        self.used_ids.add(call_id)
        initial = d.arguments if isinstance(d.arguments, str) else ""
        call = _Tracked(
            call_id, d.index, len(self.calls), name, initial, ArgumentState(initial), generated
        )
        self.calls.append(call)
        if wire_id is not None:
            self._add(self.by_id, wire_id, call)
        return call

    def flush(self) -> list[_Tracked]:
        if all(c.index is not None for c in self.calls):
            return sorted(self.calls, key=lambda c: (c.index, c.sequence))
        return list(self.calls)


# --- schema validation (the zod chunk schemas, reduced to what a gateway can get wrong) ------

Problem = tuple[str, str, Any]
"""The first thing a chunk schema rejects: the field's path (``choices[0].delta.tool_calls[0]
.function.name``), what the schema expected there (``string``) and what was sent (``UNSET``:
absent)."""

_STRING, _NUMBER = "string", "number"
_NULLISH = " or null"


def _nullish(value: Any, check: Any) -> bool:
    return value is UNSET or value is None or bool(check(value))


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _in(path: str, problem: Problem | None) -> Problem | None:
    """``problem`` of a value at ``path`` (its own path under it)."""
    if problem is None:
        return None
    inner = problem[0]
    return (f"{path}{inner}" if inner[:1] in ("[", "") else f"{path}.{inner}"), *problem[1:]


def _usage_problem(usage: Any) -> Problem | None:
    if usage is UNSET or usage is None:
        return None
    if not isinstance(usage, dict):
        return "", "object" + _NULLISH, usage
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = usage.get(key, UNSET)
        if not _nullish(value, is_number):
            return key, _NUMBER + _NULLISH, value
    for key in ("prompt_tokens_details", "completion_tokens_details"):
        details = usage.get(key, UNSET)
        if details is UNSET or details is None:
            continue
        if not isinstance(details, dict):
            return key, "object" + _NULLISH, details
        for k, v in details.items():
            if k.endswith("_tokens") and not _nullish(v, is_number):
                return f"{key}.{k}", _NUMBER + _NULLISH, v
    return None


def _content_problem(content: Any, compatible: bool) -> Problem | None:
    if content is UNSET or content is None or isinstance(content, str):
        return None
    if not compatible or not isinstance(content, list):
        return "", ("string or array" if compatible else _STRING) + _NULLISH, content
    for k, part in enumerate(content):
        if not isinstance(part, dict):
            return f"[{k}]", "object", part
        kind = part.get("type", UNSET)
        if not isinstance(kind, str):
            return f"[{k}].type", _STRING, kind
    return None


def _tool_call_problem(tc: Any, compatible: bool) -> Problem | None:
    if not isinstance(tc, dict):
        return "", "object", tc
    index = tc.get("index", UNSET)
    if not (_nullish(index, is_number) if compatible else is_number(index)):
        return "index", _NUMBER + (_NULLISH if compatible else ""), index
    cid = tc.get("id", UNSET)
    if not _nullish(cid, _is_str):
        return "id", _STRING + _NULLISH, cid
    kind = tc.get("type", UNSET)
    if not compatible and not _nullish(kind, lambda t: t == "function"):
        return "type", '"function"' + _NULLISH, kind
    fn = tc.get("function", UNSET)
    if not isinstance(fn, dict):
        return "function", "object", fn
    name, args = fn.get("name", UNSET), fn.get("arguments", UNSET)
    if not _nullish(name, _is_str):
        return "function.name", _STRING + _NULLISH, name
    if not _nullish(args, _is_str):
        return "function.arguments", _STRING + _NULLISH, args
    return None


def _delta_problem(delta: Any, compatible: bool) -> Problem | None:
    if delta is UNSET or delta is None:
        return None
    if not isinstance(delta, dict):
        return "", "object" + _NULLISH, delta
    role = delta.get("role", UNSET)
    roles = ("assistant", "") if compatible else ("assistant",)
    if not _nullish(role, lambda r: r in roles):
        return "role", ('"assistant" or ""' if compatible else '"assistant"') + _NULLISH, role
    found = _content_problem(delta.get("content", UNSET), compatible)
    if found is not None:
        return _in("content", found)
    if not compatible:
        refusal = delta.get("refusal", UNSET)
        if not _nullish(refusal, _is_str):
            return "refusal", _STRING + _NULLISH, refusal
    if compatible:
        for key in ("reasoning_content", "reasoning"):
            value = delta.get(key, UNSET)
            if not _nullish(value, _is_str):
                return key, _STRING + _NULLISH, value
    calls = delta.get("tool_calls", UNSET)
    if calls is UNSET or calls is None:
        return None
    if not isinstance(calls, list):
        return "tool_calls", "array" + _NULLISH, calls
    for k, tc in enumerate(calls):
        found = _tool_call_problem(tc, compatible)
        if found is not None:
            return _in(f"tool_calls[{k}]", found)
    return None


def chunk_problem(value: Any, compatible: bool) -> Problem | None:
    """The first field of ``value`` the provider's chunk schema (its main branch) rejects, in
    the schema's order (``None``: it passes)."""
    if not isinstance(value, dict):
        return "", "object", value
    get = value.get
    if not _nullish(get("id", UNSET), _is_str):
        return "id", _STRING + _NULLISH, get("id", UNSET)
    if not _nullish(get("created", UNSET), is_number):
        return "created", _NUMBER + _NULLISH, get("created", UNSET)
    if not _nullish(get("model", UNSET), _is_str):
        return "model", _STRING + _NULLISH, get("model", UNSET)
    usage = get("usage", UNSET)
    if usage is not UNSET and usage is not None:
        found = _usage_problem(usage)
        if found is not None:
            return _in("usage", found)
    choices = get("choices", UNSET)
    if not isinstance(choices, list):
        return "choices", "array", choices
    for k, choice in enumerate(choices):
        at = f"choices[{k}]"
        if not isinstance(choice, dict):
            return at, "object", choice
        if not compatible:
            index = choice.get("index", UNSET)
            if not is_number(index):
                return f"{at}.index", _NUMBER, index
        reason = choice.get("finish_reason", UNSET)
        if not _nullish(reason, _is_str):
            return f"{at}.finish_reason", _STRING + _NULLISH, reason
        logprobs = choice.get("logprobs", UNSET)
        if not _nullish(logprobs, lambda lp: isinstance(lp, dict)):
            return f"{at}.logprobs", "object" + _NULLISH, logprobs
        found = _delta_problem(choice.get("delta", UNSET), compatible)
        if found is not None:
            return _in(f"{at}.delta", found)
    return None


def usage_ok(usage: Any) -> bool:
    """Whether the schemas accept a chunk's ``usage`` (they check its types, nothing reads
    its values): no :func:`_usage_problem`."""
    return _usage_problem(usage) is None


def chunk_ok(value: Any, compatible: bool) -> bool:
    """Whether ``value`` passes the provider's chunk schema (its main branch): no
    :func:`chunk_problem`."""
    return chunk_problem(value, compatible) is None


def schema_ok(frame: Frame, compatible: bool) -> bool:
    """:func:`chunk_ok` of the frame's payload under both schemas, worked out once a frame."""
    verdict = frame.schema
    if verdict is None:
        raw = frame.raw
        verdict = frame.schema = (chunk_ok(raw, True), chunk_ok(raw, False))
    return verdict[0] if compatible else verdict[1]


def error_chunk(value: Any) -> str | None:
    """The message of a chunk that matches the error schema ``{error: {message: string}}``."""
    if isinstance(value, dict):
        err = value.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])
    return None


def _delta_of(call: ToolCall, at: str = "") -> _Delta:
    has_fn, name, args = function_fields(call)
    return _Delta(
        index=none_if_unset(call.index),
        id=none_if_unset(call.id),
        type=none_if_unset(call.type),
        has_function=has_fn,
        name=none_if_unset(name),
        arguments=none_if_unset(args),
        at=at,
        sent_name=name,
        sent_type=call.type,
    )


_FIRST = tool_path(0, 0)


@dataclass
class _Pending:
    id: Any
    arguments: str = ""
    at: str = ""
    """Where its first delta stood in its chunk, and that chunk's line."""
    line: int | None = None
    name: Any = UNSET
    """The last ``function.name`` sent (absent, null or not a string)."""


@dataclass
class AiSdkAssembler(Assembler):
    first_choice = True  # (it reads choices[0] alone)

    compatible: bool = True
    tracker: ToolCallTracker = field(default_factory=ToolCallTracker)
    errors: list[ClientError] = field(default_factory=list)
    finish_reason: Any = None
    pending: dict[Any, _Pending] = field(default_factory=dict)
    forwarded: set[Any] = field(default_factory=set)

    def __post_init__(self) -> None:
        if not self.compatible:
            self.tracker.type_validation = "if-present"

    def error_parts(self) -> list[ClientError]:
        return list(self.errors)

    plain = True

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        # a call at an index no call nor buffer holds, with a non-blank id and name: a new
        # call whatever the id says (a used one is generated anew), released at once by
        # the name buffer
        index, cid, name, args = call
        tracker = self.tracker
        if index in tracker.by_index or index in self.pending or index in self.forwarded:
            self.feed(frame)
            return
        d = _Delta(index, cid, "function", True, name, args, _FIRST, name, "function", frame.line)
        tracker._add(tracker.by_index, index, tracker._new(d, cid, name))
        if self.compatible:
            self.forwarded.add(index)

    ordered = True  # (only for a run of several calls whose deltas name them: see below)

    def feed_quiet(self, run: Quiet) -> None:
        """A run as the other libraries read it, one frame per call; but when its deltas
        name their call and several calls alternate in it, a piece that opens a value may
        start a new call, whose generated id counts the calls made before it: the run is
        then taken stretch by stretch, in the stream's order; so too when one index's
        deltas may continue another index's call (:attr:`ToolCallTracker.crossed`, or an
        index no call was kept for)."""
        frames = run.frames()
        tracker = self.tracker
        if len(frames) == 1 or not (
            tracker.crossed
            # (an index the tracker holds no call for continues whichever call is open)
            or any(part.index not in tracker.by_index for part in run.calls.values())
            or any(f.repeat > 1 and _named(f) and _may_start(f) for f in frames)
        ):
            for frame in frames:
                self._fed(frame)
            return
        of = dict(zip(map(id, run.calls.values()), frames, strict=True))
        for part, at, size in run.runs():
            self._fed(
                _stretch(of[id(part)], part.pieces[at : at + size], part.lines[at : at + size])
            )

    def _fed(self, frame: Frame) -> None:
        try:
            self.feed(frame)
        except Raise as exc:
            if exc.line is None:
                exc.line = frame.line
            raise

    def feed(self, frame: Frame) -> None:
        raw = frame.raw
        if not schema_ok(frame, self.compatible):
            message = error_chunk(raw)
            if message is not None:
                error = _provider_error(raw, message, frame.line)
            else:
                error = _invalid(raw, self.compatible, frame.line)
                if frame.lines is not None:  # one part per payload folded in, at its line
                    n, m, f, v, e = (
                        error.name,
                        error.message,
                        error.field,
                        error.value,
                        error.expected,
                    )
                    self.errors += [
                        ClientError(n, m, k, "throws", "", f, v, e) for k in frame.lines
                    ]
                    self.finish_reason = None
                    return
            self.errors.extend([error] * frame.count)  # one part per payload folded in
            self.finish_reason = None
            return
        if self.compatible and isinstance(raw, dict) and "error" in raw:
            # its schema keeps unknown keys, so a chunk that also carries `error` is an error
            error = _provider_error(raw, str(error_chunk(raw)), frame.line)
            self.errors.extend([error] * frame.count)
            self.finish_reason = None
            return
        chunk = frame.chunk
        cs = chunk.choices if isinstance(chunk.choices, list) else []
        if not cs:
            return
        choice = cs[0]
        if isinstance(choice.finish_reason, str):
            self.finish_reason = choice.finish_reason
        for k, call in enumerate(tool_deltas(choice)):
            d = _delta_of(call, tool_path(0, k))
            d.line = frame.line
            pieces = frame.pieces
            if pieces is not None and (
                len(self.tracker.by_index.get(d.index, ())) > 1
                or (frame.repeat > 1 and d.name is not None)
            ):
                # several calls share the index (which one a piece continues depends on
                # whether the arguments before it were complete), or each delta names its
                # call (a piece that opens a value may start a new one)
                self._pieces(d, pieces, frame.lines)
            else:
                self._process(d)

    def _pieces(self, d: _Delta, pieces: Sequence[str], lines: Sequence[int] | None = None) -> None:
        """A folded run's pieces as the tracker takes them one by one: a piece that opens a
        JSON value, or is blank, may start a call or not, so it is taken alone; the pieces
        after it that do neither resolve as it did once it started no call and was dropped
        or continued the one call it could (:attr:`ToolCallTracker.stable`): taken at once."""
        tracker = self.tracker
        if type(pieces) is not list:  # (kept compact, as joined blocks: read once, in order)
            pieces = list(pieces)
        k, n = 0, len(pieces)
        j = 0  # (the first piece from k on that opens a value or is blank, once looked for)
        bare = d.index is not None and _non_blank(d.id) is None and _non_blank(d.name) is None
        while k < n:
            if bare and self._bare(d.index, pieces, k):
                return
            before = len(tracker.calls)
            d.arguments = pieces[k]
            if lines is not None:
                d.line = lines[k]
            self._process(d)
            k += 1
            if len(tracker.calls) != before or not self._stable(d):
                continue  # (taken one by one: the pieces ahead are not looked at)
            if j < k:  # (else none between k and j opens a value: looked at already)
                j = k
                while j < n and not _opens_or_blank(pieces[j]):
                    j += 1
            if j - k > 1:
                d.arguments = "".join(pieces[k:j])
                self._process(d)
                k = j

    def _bare(self, index: Any, pieces: list[str], k: int) -> bool:
        """``pieces[k:]`` taken at once, as the tracker takes them one by one, when they are
        the pieces of deltas with an index and no id nor name (blank ones count as absent)
        and the index holds calls already (False: not so, nothing taken).

        Such a delta resolves by the calls at its index alone, whatever its arguments say:
        one call there takes it; of several, the one whose arguments are not complete yet
        takes it when it is alone in that, else the delta is dropped as ambiguous. The calls
        at the index stay the same meanwhile, and only the call that takes the pieces
        changes, once: when its arguments complete (the piece that completes them is its
        last; every piece after it is dropped). Several calls at one index (a gateway that
        sends every call at index 0) made this a Python step per piece, 100,000 of them."""
        tracker = self.tracker
        if self.compatible and index not in self.forwarded:
            return False  # (the name buffer's, not the tracker's)
        calls = tracker.by_index.get(index)
        if not calls:
            return False
        # (what the tracker's steps would leave beside the calls is not needed: its stable
        # flag is read by the next step, which sets it again; and a call of another index
        # in this one's list set its crossed flag when it was put there)
        rest = pieces[k:] if k else pieces
        if len(calls) == 1:
            call = calls[0]
        else:
            open_ = [c for c in calls if not c.state.complete]
            if len(open_) != 1:
                return True  # (every piece dropped as ambiguous)
            call = open_[0]
        joined = "".join(rest)
        done = call.state.append(joined)
        if done is not None and len(calls) > 1:
            # complete inside the piece that reaches ``done``: the pieces after it are
            # dropped (no call at the index is open any more)
            size = 0
            for piece in rest:
                size += len(piece)
                if size >= done:
                    break
            joined = joined[:size]
        call.arguments += joined
        return True

    def _stable(self, d: _Delta) -> bool:
        """The last delta's resolution holds for the same delta again (the openai-compatible
        buffer: once the call's name let it through)."""
        if self.compatible and (d.index is not None and d.index not in self.forwarded):
            return False
        return self.tracker.stable

    def _process(self, d: _Delta) -> None:
        if self.compatible:
            self._buffered(d)
        else:
            self.tracker.process(d)

    def _buffered(self, d: _Delta) -> None:
        """openai-compatible: hold a call's deltas until a ``function.name`` arrives."""
        index = d.index
        if index is None or index in self.forwarded:
            self.tracker.process(d)
            return
        pending = self.pending.get(index)
        if pending is None:
            pending = self.pending[index] = _Pending(d.id, at=d.at, line=d.line)
        elif pending.id is None and d.id is not None:
            pending.id = d.id
        pending.name = d.sent_name
        if isinstance(d.arguments, str):
            pending.arguments += d.arguments
        if d.name is not None:
            released = _Delta(index, pending.id, None, True, d.name, pending.arguments, d.at)
            released.line = d.line
            self.tracker.process(released)
            del self.pending[index]
            self.forwarded.add(index)

    def finish(self) -> Assembly:
        # in stream order: a folded run of several calls gives each call's parts in turn
        self.errors.sort(key=_stream_order)
        for index, pending in list(self.pending.items()):
            try:
                self.tracker.process(
                    _Delta(index, pending.id, None, True, None, pending.arguments, pending.at)
                )
            except Raise as exc:  # at the end of the stream, over the call's first delta
                exc.line = None
                exc.field_line = pending.line
                exc.value = pending.name
                raise
        self.pending.clear()
        calls = self.tracker.flush()
        if self.compatible and self.finish_reason is None and not self.errors:
            self.errors.append(
                ClientError(
                    "AI_InvalidResponseDataError",
                    "Response stream ended without a finish reason.",
                    None,
                )
            )
        return Assembly(
            calls=[
                AssembledCall(
                    id=c.id,
                    name=c.name,
                    arguments=c.arguments,
                    wire_index=c.index,
                    id_generated=c.generated,
                )
                for c in calls
            ],
            error_parts=list(self.errors),
        )


def _invalid(raw: Any, compatible: bool, line: int | None) -> ClientError:
    """The ``AI_TypeValidationError`` part of a chunk the schema rejects, naming the first
    field it rejects (zod says it in the error's message, after the value)."""
    error = ClientError("AI_TypeValidationError", "Type validation failed", line)
    found = chunk_problem(raw, compatible)
    if found is not None:
        path, expected, got = found
        error.field, error.expected, error.value = path or "(the chunk)", expected, shown_value(got)
    return error


def _provider_error(raw: Any, message: str, line: int | None) -> ClientError:
    """A chunk the error schema matches, surfaced as an error part."""
    err = raw.get("error") if isinstance(raw, dict) else None
    return ClientError("provider error", message, line, field="error", value=shown_value(err))


def _parts(error: ClientError, lines: list[int]) -> list[ClientError]:
    """``error`` as the part of each payload of a folded run, at its line."""
    n, m, f, v, e = error.name, error.message, error.field, error.value, error.expected
    return [ClientError(n, m, line, "throws", "", f, v, e) for line in lines]


def _may_start(frame: Frame) -> bool:
    """A folded frame with a piece that opens a JSON value or is blank (where a delta that
    names its call may start a new one)."""
    return any(_opens_or_blank(p) for p in frame.pieces or ())


def _named(frame: Frame) -> bool:
    """The folded frame's delta sends a name (its deltas name their call)."""
    cs = frame.chunk.choices
    if not isinstance(cs, list) or not cs:
        return False
    calls = tool_deltas(cs[0])
    return bool(calls) and _delta_of(calls[0]).name is not None


def _stretch(frame: Frame, pieces: Sequence[str], lines: Sequence[int]) -> Frame:
    """``frame`` (a folded run's, of one call) for a stretch of its payloads only."""
    choice = frame.chunk.choices[0]  # type: ignore[index]
    call = choice.delta.tool_calls[0]  # type: ignore[union-attr, index]
    fn = msgspec.structs.replace(call.function, arguments="".join(pieces))  # type: ignore[type-var]
    delta = msgspec.structs.replace(
        choice.delta, tool_calls=[msgspec.structs.replace(call, function=fn)]
    )  # type: ignore[type-var]
    chunk = msgspec.structs.replace(
        frame.chunk, choices=[msgspec.structs.replace(choice, delta=delta)]
    )
    out = Frame(
        lines[0],
        chunk,
        b"",
        count=len(pieces),
        pieces=pieces,
        lines=lines[: len(pieces)],
        repeat=len(pieces) if frame.repeat > 1 else 1,
        schema=frame.schema,
    )
    out._raw = frame._raw
    return out


def _stream_order(error: ClientError) -> tuple[bool, int]:
    return error.line is None, error.line or 0


COMPATIBLE_POLICY = Policy(
    key="ai-sdk-openai-compatible",
    library="@ai-sdk/openai-compatible 3.0.92 with @ai-sdk/provider-utils 5.0.81",
    rule=(
        "first non-blank id and name win (blank = absent); deltas wait for a name; a call"
        " whose first name is blank is dropped; a call never named throws"
        " AI_InvalidResponseDataError; a missing or reused id is generated; chunks failing the"
        " schema become error parts"
    ),
    assembler=lambda: AiSdkAssembler(compatible=True),
)

OPENAI_POLICY = Policy(
    key="ai-sdk-openai",
    library="@ai-sdk/openai 4.0.118 (chat) with @ai-sdk/provider-utils 5.0.81",
    rule=(
        "as ai-sdk-openai-compatible without the name buffer: a call whose first delta has no"
        ' name throws at once; the schema also requires index and type "function"'
    ),
    assembler=lambda: AiSdkAssembler(compatible=False),
)
