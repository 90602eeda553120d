"""Hypothesis strategies for what a capture folder can hold.

Wire chunks are generated as plain JSON values that mostly look like ``chat.completion.chunk``
deltas and often do not: identity fields absent / ``null`` / ``""`` / strings / numbers /
objects, ``function`` missing or not an object, odd ``index`` values, non-object payloads.
SSE streams are built from lines (data, comments, ``event``/``id``/``retry`` and random
fields, lines without a colon, blank lines) with mixed line endings, an optional BOM, joined
multi-line ``data`` and truncation anywhere; some are long runs of single-line events, which
is what the framer's fast paths take. HAR documents and chunk logs wrap the same payloads.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import strategies as st

JSON = dict[str, Any]
T = TypeVar("T")


def _once(make: Callable[[], st.SearchStrategy[T]]) -> Callable[[], st.SearchStrategy[T]]:
    """A composite without arguments made into one strategy object, used by every draw.

    A strategy made inside a draw is a new object each time, which hypothesis validates
    again each time: over a run that was a third of the time spent generating examples.
    Everything inside a composite that does not depend on what was drawn is made once here,
    or at module level, for the same reason; the examples drawn are the same.
    """
    strategy = make()
    return lambda: strategy


ABSENT = object()
"""A field left out of the generated object."""

# Strings a hostile or sloppy gateway may put anywhere a string goes.
HOSTILE_TEXT = [
    "",
    "null",
    "call_0",
    "get_weather",
    "\x1b[2J\x1b[H",  # clear screen, cursor home
    "\x1b]52;c;cHduZWQ=\x07",  # OSC 52: write the clipboard
    "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "[bold red]markup[/]",
    "[link=https://evil.example]x[/link]",
    "\x9b31m",  # C1 CSI
    "\u202eevil",  # right-to-left override
    "\ud800",  # a lone surrogate (JSON can carry it as an escape)
    "a\udc00b",
    "\x00\x07\x08",
    "😀" * 3,
]

text = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=12))
numbers = st.one_of(
    st.integers(min_value=-3, max_value=3),
    st.sampled_from([1.0, 0.5, -0.0, 1e300, 2**53 + 1, 10**30, 1e400]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, text)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)

# An identity field (id / function.name) as gateways send it, strings weighted up.
identity_values = st.one_of(
    st.just(ABSENT),
    st.none(),
    st.just(""),
    st.sampled_from(["call_0", "call_1", "get_weather", "read_file", "null"]),
    text,
    numbers,
    json_values,
)
index_values = st.one_of(
    st.integers(min_value=0, max_value=2),
    st.just(ABSENT),
    st.sampled_from([None, -1, 1.0, 1.5, "0", True, [], {}, [0], 10**30, 1e400]),
)
arguments_values = st.one_of(
    st.just(ABSENT),
    st.none(),
    st.sampled_from(["", "{", '"a":1', "}", '{"path":"x"}', "{}{}"]),
    text,
    json_values,
)


def _obj(**fields: Any) -> JSON:
    return {k: v for k, v in fields.items() if v is not ABSENT}


not_objects = st.one_of(st.none(), scalars, st.lists(scalars, max_size=2))
none_or_scalars = st.one_of(st.none(), scalars)


@_once
@st.composite
def functions(draw: st.DrawFn) -> Any:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return ABSENT
    if kind == 1:
        return draw(not_objects)
    return _obj(name=draw(identity_values), arguments=draw(arguments_values))


_types = st.sampled_from(["function", ABSENT, None, 7])


@_once
@st.composite
def tool_calls(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 19)) == 0:  # not an object at all
        return draw(not_objects)
    return _obj(
        index=draw(index_values),
        id=draw(identity_values),
        type=draw(_types),
        function=draw(functions()),
    )


_call_lists = st.lists(tool_calls(), min_size=1, max_size=3)
_no_calls = st.one_of(st.none(), st.just(ABSENT), st.just([]))
_odd_calls = st.one_of(scalars, st.dictionaries(st.text(max_size=3), scalars, max_size=2))
_roles = st.sampled_from([ABSENT, "assistant"])
_contents = st.one_of(st.just(ABSENT), st.none(), text, numbers)
_reasoning = st.one_of(st.just(ABSENT), st.none(), st.just(""), text)


@_once
@st.composite
def deltas(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 24)) == 0:
        return draw(none_or_scalars)
    calls_kind = draw(st.integers(0, 9))
    calls: Any
    if calls_kind < 6:
        calls = draw(_call_lists)
    elif calls_kind == 6:
        calls = draw(_no_calls)
    elif calls_kind == 7:
        calls = draw(_odd_calls)
    else:
        calls = ABSENT
    return _obj(
        role=draw(_roles),
        content=draw(_contents),
        reasoning_content=draw(_reasoning),
        tool_calls=calls,
    )


finish_reasons = st.one_of(
    st.just(ABSENT),
    st.none(),
    st.sampled_from(["stop", "tool_calls", "length", "", "content_filter", "function_call"]),
    text,
    numbers,
)


_choice_indexes = st.sampled_from([0, 1, ABSENT, None])
_maybe_deltas = st.one_of(deltas(), st.just(ABSENT))


@_once
@st.composite
def choices(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 29)) == 0:
        return draw(none_or_scalars)
    return _obj(
        index=draw(_choice_indexes),
        delta=draw(_maybe_deltas),
        finish_reason=draw(finish_reasons),
    )


usage_values = st.one_of(
    st.just(ABSENT),
    st.none(),
    st.builds(
        lambda p, c, t, cached, hit, r: _obj(
            prompt_tokens=p,
            completion_tokens=c,
            total_tokens=t,
            prompt_tokens_details=cached,
            prompt_cache_hit_tokens=hit,
            completion_tokens_details=r,
        ),
        st.one_of(st.just(ABSENT), numbers, st.none()),
        st.one_of(st.just(ABSENT), numbers, st.none()),
        st.one_of(st.just(ABSENT), numbers, st.none()),
        st.one_of(st.just(ABSENT), st.builds(lambda n: {"cached_tokens": n}, numbers)),
        st.one_of(st.just(ABSENT), numbers),
        st.one_of(st.just(ABSENT), st.builds(lambda n: {"reasoning_tokens": n}, numbers)),
    ),
    scalars,
)


_choice_lists = st.lists(choices(), min_size=1, max_size=2)
_no_choices = st.one_of(st.none(), st.just(ABSENT))
_odd_choices = st.one_of(scalars, st.just({"0": {}}))
_errors = st.one_of(st.just(ABSENT), st.none(), json_values)


@_once
@st.composite
def wire_chunks(draw: st.DrawFn) -> Any:
    """A decoded JSON value for one payload: mostly chunk-shaped, sometimes not."""
    kind = draw(st.integers(0, 39))
    if kind == 0:  # not an object: ignored, or a TypeError in the harness (null)
        return draw(not_objects)
    choices_kind = draw(st.integers(0, 19))
    raw_choices: Any
    if choices_kind < 16:
        raw_choices = draw(_choice_lists)
    elif choices_kind == 16:
        raw_choices = []
    elif choices_kind == 17:
        raw_choices = draw(_no_choices)
    else:
        raw_choices = draw(_odd_choices)
    return _obj(
        id="chatcmpl-x",
        choices=raw_choices,
        usage=draw(usage_values),
        error=draw(_errors),
    )


def _json_text(value: Any, *, ascii_only: bool = True) -> str:
    # ensure_ascii keeps lone surrogates as escapes, the way they travel on the wire (without
    # it they become invalid UTF-8 bytes in the stream); the infinities json.dumps writes are
    # not JSON, so they are sent as a huge exponent.
    text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=True)
    return text.replace("-Infinity", "-1e400").replace("Infinity", "1e400")


_broken_payloads = st.sampled_from(["", "{", "}", "[DONE", " [DONE]", "NaN", "{'a':1}", "nul"])


@_once
@st.composite
def payload_texts(draw: st.DrawFn) -> str:
    """The text of one ``data`` payload: a chunk, or something broken, or the sentinel."""
    kind = draw(st.integers(0, 29))
    if kind == 0:
        return "[DONE]"
    if kind == 1:  # truncated JSON
        full = _json_text(draw(wire_chunks()))
        return full[: draw(st.integers(0, max(0, len(full) - 1)))]
    if kind == 2:
        return draw(_broken_payloads)
    if kind == 3:
        return draw(st.text(max_size=20))
    if kind == 4:
        return _json_text(draw(wire_chunks()), ascii_only=False)
    return _json_text(draw(wire_chunks()))


# ---- SSE streams --------------------------------------------------------------------------

line_endings = st.sampled_from([b"\n", b"\r\n", b"\r"])
_data_separators = st.sampled_from([b": ", b":", b":  "])
_comments = st.sampled_from([b"OPENROUTER PROCESSING", b"", b"x"])
_events = st.sampled_from([b"error", b"message", b"", b"\x1b[1m"])
_id_retry = st.sampled_from([b"id: 7", b"retry: 100", b"id", b"retry"])
_field_ends = st.sampled_from([b"", b":", b": v"])
_plain_data = st.sampled_from([b"[DONE]", b"{}", b'{"choices":[]}'])


@_once
@st.composite
def sse_lines(draw: st.DrawFn) -> list[bytes]:
    """One event's worth of lines (without line endings), the last one blank or not."""
    lines: list[bytes] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 19))
        if kind < 10:
            sep = draw(_data_separators)
            payload = draw(payload_texts()).encode("utf-8", "surrogatepass")
            # A payload with line breaks in it would not be one data line: split it instead.
            for part in payload.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
                lines.append(b"data" + sep + part)
        elif kind == 10:
            lines.append(b": " + draw(_comments))
        elif kind == 11:
            lines.append(b"event: " + draw(_events))
        elif kind == 12:
            lines.append(draw(_id_retry))
        elif kind == 13:
            lines.append(b"data")  # a field with no colon: data with an empty value
        elif kind == 14:
            name = draw(st.binary(min_size=1, max_size=6)).replace(b"\r", b"").replace(b"\n", b"")
            lines.append(name + draw(_field_ends))
        else:
            lines.append(b"data: " + draw(_plain_data))
    if draw(st.integers(0, 9)):
        lines.append(b"")
    return lines


_run_endings = st.sampled_from([b"\n", b"\n", b"\r\n", b"\r"])
_run_prefixes = st.sampled_from([b"data: ", b"data: ", b"data:"])


def _uniform_runs(eol: bytes | None) -> st.SearchStrategy[bytes]:
    @st.composite
    def run(draw: st.DrawFn) -> bytes:
        count = draw(st.integers(64, 110))
        pool = [_json_text(draw(wire_chunks())).encode() for _ in range(draw(st.integers(1, 3)))]
        events = [pool[i % len(pool)] for i in range(count)]
        if draw(st.booleans()):
            events[draw(st.integers(0, count - 1))] = b"[DONE]"
        ending = draw(_run_endings) if eol is None else eol
        prefix = draw(_run_prefixes)
        return b"".join(prefix + e + ending + ending for e in events)

    return run()


_UNIFORM_RUNS = {eol: _uniform_runs(eol) for eol in (None, b"\n", b"\r\n", b"\r")}


def uniform_run(eol: bytes | None = None) -> st.SearchStrategy[bytes]:
    """At least 64 single-line ``data:`` events (``data: `` or ``data:``), each line ending
    ``eol`` (None: LF, CRLF or CR, drawn): the framer's fastest path."""
    return _UNIFORM_RUNS[eol]


@_once
@st.composite
def sse_streams(draw: st.DrawFn) -> bytes:
    """An SSE body, well framed or not."""
    uniform_eol = draw(st.integers(0, 3))  # 0: mixed endings; else one ending for all
    fixed = [b"\n", b"\n", b"\r\n", b"\r"][uniform_eol]
    parts: list[bytes] = []
    if draw(st.integers(0, 7)) == 0:
        parts.append(b"\xef\xbb\xbf")
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.integers(0, 14))
        if kind == 0:
            parts.append(draw(uniform_run(None if uniform_eol == 0 else fixed)))
            continue
        if kind == 1:
            parts.append(draw(st.binary(max_size=8)))  # garbage, possibly invalid UTF-8
            continue
        for line in draw(sse_lines()):
            parts.append(line + (draw(line_endings) if uniform_eol == 0 else fixed))
    body = b"".join(parts)
    if draw(st.integers(0, 3)) == 0:
        body = body[: draw(st.integers(0, len(body)))]  # truncated anywhere
    return body


@st.composite
def splits(draw: st.DrawFn, data: bytes) -> list[bytes]:
    """``data`` cut into consecutive pieces at arbitrary points (empty pieces included)."""
    if not data:
        return [b""] * draw(st.integers(0, 2))
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=8)))
    pieces = []
    last = 0
    for c in [*cuts, len(data)]:
        pieces.append(data[last:c])
        last = c
    return pieces


# ---- other trace forms ----------------------------------------------------------------------


_blank_or_done = st.sampled_from(["", "  ", "[DONE]", "data: [DONE]", "\t"])
_text_eols = st.sampled_from(["\n", "\r\n"])


@_once
@st.composite
def jsonl_logs(draw: st.DrawFn) -> bytes:
    """A chunk log: one payload per line, blank lines, ``[DONE]``, ``data:`` prefixes."""
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            lines.append(draw(_blank_or_done))
        elif kind == 1:
            lines.append("data: " + draw(payload_texts()))
        else:
            lines.append(draw(payload_texts()).replace("\n", " ").replace("\r", " "))
    eol = draw(_text_eols)
    body = eol.join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        body += eol.encode()
    if draw(st.integers(0, 7)) == 0:
        body = b"\xef\xbb\xbf" + body
    return body


_byte_eols = st.sampled_from([b"\r\n", b"\n"])
_status_lines = st.sampled_from([b"HTTP/1.1 200 OK", b"HTTP/2 200", b"HTTP/1.1 429 Too Many"])
_headers = st.lists(
    st.tuples(st.sampled_from([b"content-type", b"x-a", b""]), st.binary(max_size=6)).map(
        lambda t: (t[0], t[1].replace(b"\r", b"").replace(b"\n", b""))
    ),
    max_size=3,
)


@_once
@st.composite
def http_captures(draw: st.DrawFn) -> bytes:
    """A ``curl -i`` capture: status line(s), headers, blank line, SSE body."""
    eol = draw(_byte_eols)
    head = b""
    if draw(st.integers(0, 4)) == 0:
        head += b"HTTP/1.1 100 Continue" + eol + eol
    head += draw(_status_lines)
    head += eol
    for name, value in draw(_headers):
        head += name + b": " + value + eol
    head += eol
    body = head + draw(sse_streams())
    if draw(st.integers(0, 5)) == 0:
        body = body[: draw(st.integers(0, len(body)))]
    return body


_odd_entries = st.one_of(scalars, st.just({}), st.just({"response": 5}))
_mime_types = st.sampled_from(
    ["text/event-stream", "text/event-stream; charset=utf-8", "application/json", ""]
)
_bad_base64 = st.sampled_from(["not base64!", "QQ", "\u00e9"])
_odd_sizes = st.sampled_from([None, -1, 1.5, "7"])
_request_bodies = st.sampled_from(
    [
        '{"model":"m","tools":[{"function":{"name":"get_weather"}}]}',
        '{"model":7,"tools":{"a":1}}',
        "{",
        "[]",
        '{"tools":[null,{"function":5}]}',
    ]
)
_statuses = st.sampled_from([200, 200.0, 0, 999])
_odd_documents = st.one_of(scalars, st.just({}), st.just({"log": None}))


@_once
@st.composite
def har_documents(draw: st.DrawFn) -> bytes:
    """A HAR export: SSE and non-SSE entries, base64 bodies, missing bodies, wrong shapes."""
    entries: list[Any] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 11))
        if kind == 0:
            entries.append(draw(_odd_entries))
            continue
        body = draw(sse_streams())
        content: JSON = {"mimeType": draw(_mime_types)}
        text_kind = draw(st.integers(0, 5))
        if text_kind == 0:
            pass  # the exporter dropped the body
        elif text_kind == 1:
            content["text"] = base64.b64encode(body).decode()
            content["encoding"] = "base64"
        elif text_kind == 2:
            content["text"] = draw(_bad_base64)
            content["encoding"] = "base64"
        else:
            content["text"] = body.decode("utf-8", "replace")
        if draw(st.integers(0, 9)) == 0:
            content["size"] = draw(_odd_sizes)
        request: JSON = {"method": "POST", "url": "https://gw.example/v1/chat/completions"}
        if draw(st.booleans()):
            request["postData"] = {"mimeType": "application/json", "text": draw(_request_bodies)}
        entries.append(
            {
                "startedDateTime": "2026-09-01T00:00:00Z",
                "request": request,
                "response": {
                    "status": draw(_statuses),
                    "statusText": "",
                    "headers": [],
                    "content": content,
                },
            }
        )
    doc: Any = {"log": {"version": "1.2", "entries": entries}}
    shape = draw(st.integers(0, 14))
    if shape == 0:
        doc = {"log": {"entries": {"0": entries}}}
    elif shape == 1:
        doc = draw(_odd_documents)
    data = json.dumps(doc, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        data = data[: draw(st.integers(0, len(data)))]  # truncated export
    return data
