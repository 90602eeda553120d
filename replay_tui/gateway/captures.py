"""A capture as the mock provider serves it: its events' bytes, their timing, its completion.

The events are the capture's own bytes, cut at the blank lines that end them (so each is
written to the wire whole, and a final event with no blank line after it stays cut off, as it
was captured). Only a form that is not a wire form is re-framed into one: a ``curl -i``
capture loses its head, a HAR entry is its decoded response body, and a chunk log's lines
become ``data:`` events (with the ``[DONE]`` a chunk log implies, when it has none).

Timing (``upstream --timing``) comes from what the capture kept: a HAR entry's ``timings``
(``wait`` before the first event, ``receive`` spread evenly over the rest) or its ``time``,
and a recorder sidecar's ``started``/``finished`` (spread evenly). Neither records when each
event arrived, so the spread is even; a capture with neither is served at once.

Pure Python (no aiohttp): the server and the tests read the same records.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from replay_tui.core.discovery import Skipped, discover, split_entry
from replay_tui.core.trace import Form, Source, Trace, load_trace
from replay_tui.core.wire import parse_json

__all__ = [
    "ServedCapture",
    "Timing",
    "assemble_completion",
    "capture_named",
    "load_captures",
    "split_events",
]

_LINE_END = re.compile(rb"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class Timing:
    """When to send the events: ``first`` seconds before the first, the others evenly over
    ``spread`` seconds after it."""

    first: float
    spread: float
    source: str
    """Where the figures come from (``HAR timings``, ``HAR time``, ``recorder sidecar``)."""


@dataclass(slots=True)
class ServedCapture:
    """One capture, ready to be streamed."""

    name: str
    """Its address under the folder served (``dashscope/qwen3-max-id-empty.sse``,
    ``captures/export.har#4``): what ``X-Replay-Trace`` and a request's ``model`` name."""
    model: str | None
    """The model the stream names (its first chunk's ``model``), if any."""
    events: list[bytes]
    """The bytes to write, one item per event (with the blank line that ends it)."""
    completion: dict[str, Any]
    """The non-streaming answer: the chat completion the stream assembles to."""
    timing: Timing | None = None
    reframed: str | None = None
    """How the capture was re-framed for the wire, when it was (said at start-up)."""
    tools: list[str] = field(default_factory=list)
    """The names of the tools the stream calls, in order of appearance."""
    source: Source | None = None
    """Where it was read from (``probe`` judges it again from there)."""

    @property
    def body(self) -> bytes:
        return b"".join(self.events)

    def delays(self) -> list[float]:
        """Seconds to wait before each event (all 0 without timing)."""
        if self.timing is None or not self.events:
            return [0.0] * len(self.events)
        rest = len(self.events) - 1
        between = self.timing.spread / rest if rest else 0.0
        return [self.timing.first] + [between] * rest


def split_events(body: bytes) -> list[bytes]:
    """``body`` cut after each blank line (CRLF, LF or CR line ends), bytes kept as they are.

    Joined, the pieces are ``body`` again; a last piece with no blank line after it is what
    the capture ended with (an event cut off, or nothing but whitespace-free bytes).
    """
    events: list[bytes] = []
    start = 0
    line_start = 0
    for match in _LINE_END.finditer(body):
        if match.start() == line_start and line_start != start:
            # An empty line that follows at least one line: the event ends with it.
            events.append(body[start : match.end()])
            start = match.end()
        elif match.start() == line_start == start:
            # A blank line with no event before it (a stray line end): keep it with the next.
            pass
        line_start = match.end()
    if start < len(body):
        events.append(body[start:])
    return events


def _wire_body(trace: Trace) -> tuple[bytes, str | None]:
    """The bytes a provider would have sent for ``trace``, and how they were re-framed."""
    raw = bytes(trace.raw)
    form = trace.source.form
    if form is Form.HTTP and trace.head is not None:
        return raw[trace.head.body_offset :], "the curl -i head removed"
    if form is Form.JSONL:
        lines = [line.strip() for line in _LINE_END.split(raw)]
        payloads = [line for line in lines if line]
        out = b"".join(b"data: " + p + b"\n\n" for p in payloads)
        if trace.implied_done:
            return out + b"data: [DONE]\n\n", "chunk log lines as data: events, [DONE] added"
        return out, "chunk log lines as data: events"
    return raw, None


def load_captures(
    paths: Sequence[str | Path],
) -> tuple[list[ServedCapture], list[Skipped]]:
    """Every trace under ``paths`` as a capture to serve, and what was not a trace.

    Raises ``OSError`` only for nothing; a file that cannot be read is one :class:`Skipped`.
    """
    found = discover([str(p) for p in paths])
    skipped = list(found.skipped)
    out: list[ServedCapture] = []
    har_docs: dict[Path, Any] = {}
    for source in found.sources:
        try:
            trace = load_trace(source, keep_decoded=True)
        except OSError as exc:
            skipped.append(Skipped(source.address, f"cannot read: {exc.strerror or exc}"))
            continue
        body, reframed = _wire_body(trace)
        completion = assemble_completion(trace)
        tools = [
            call["function"]["name"]
            for call in completion["choices"][0]["message"].get("tool_calls", [])
            if isinstance(call["function"].get("name"), str) and call["function"]["name"]
        ]
        out.append(
            ServedCapture(
                name=source.address,
                model=trace.analysis.model,
                events=split_events(body),
                completion=completion,
                timing=_timing(source, har_docs),
                reframed=reframed,
                tools=list(dict.fromkeys(tools)),
                source=source,
            )
        )
    # Two folders may hold captures of the same address: the later ones are named by their
    # path as found, so a header or a model names each one.
    seen: set[str] = set()
    for capture in out:
        if capture.name in seen and capture.source is not None:
            entry = capture.source.entry
            capture.name = str(capture.source.path) + (f"#{entry.number}" if entry else "")
        seen.add(capture.name)
    return out, skipped


# --- timing ----------------------------------------------------------------------------------


def _seconds(value: Any) -> float | None:
    """A HAR duration in milliseconds as seconds; ``-1`` (not applicable) and junk as None."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value) / 1000.0


def _timing(source: Source, har_docs: dict[Path, Any]) -> Timing | None:
    if source.entry is not None:
        return _har_timing(source, har_docs)
    side = source.sidecar
    if isinstance(side, dict):
        started, finished = _instant(side.get("started")), _instant(side.get("finished"))
        if started is not None and finished is not None and finished >= started:
            return Timing(0.0, (finished - started).total_seconds(), "recorder sidecar")
    return None


def _instant(text: Any) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _har_timing(source: Source, har_docs: dict[Path, Any]) -> Timing | None:
    entry = source.entry
    assert entry is not None
    if source.path not in har_docs:
        try:
            har_docs[source.path] = msgspec.json.decode(source.path.read_bytes())
        except (OSError, msgspec.DecodeError, RecursionError):
            har_docs[source.path] = None
    doc = har_docs[source.path]
    try:
        raw = doc["log"]["entries"][entry.number - 1]
    except (TypeError, KeyError, IndexError):
        return None
    if not isinstance(raw, dict):
        return None
    timings = raw.get("timings")
    if isinstance(timings, dict):
        wait, receive = _seconds(timings.get("wait")), _seconds(timings.get("receive"))
        if wait is not None or receive is not None:
            return Timing(wait or 0.0, receive or 0.0, "HAR timings")
    total = _seconds(raw.get("time"))
    if total is not None:
        return Timing(0.0, total, "HAR time")
    return None


# --- the non-streaming answer ----------------------------------------------------------------


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # Mistral's content as an array of parts
        return "".join(p.get("text", "") for p in value if isinstance(p, dict))
    return ""


def assemble_completion(trace: Trace) -> dict[str, Any]:
    """The ``chat.completion`` a stream assembles to, as a provider answers without ``stream``.

    Text and reasoning are concatenated; each tool call (keyed by its wire ``index``, else by
    its place in the delta) keeps the first id and name that are non-empty strings — the fixed
    translator's rule — and its arguments concatenated; ``finish_reason``, ``usage`` and an
    ``error`` object are the last the stream sent. Only the replayed part counts (nothing
    after ``[DONE]``).
    """
    first: dict[str, Any] = {}
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[Any, dict[str, Any]] = {}
    finish: Any = None
    usage: Any = None
    error: Any = None
    for data, _ in trace.items():
        if data == b"[DONE]":
            break
        try:
            chunk = parse_json(data)  # (a lone surrogate escape too, as the harness reads it)
        except ValueError:
            continue
        if not isinstance(chunk, dict):
            continue
        for key in ("id", "created", "model", "system_fingerprint"):
            if key not in first and chunk.get(key) not in (None, ""):
                first[key] = chunk[key]
        if chunk.get("usage") is not None:
            usage = chunk["usage"]
        if chunk.get("error") is not None:
            error = chunk["error"]
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            continue
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) not in (0, None):
                continue
            if choice.get("finish_reason") is not None:
                finish = choice["finish_reason"]
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                continue
            content.append(_text(delta.get("content")))
            for key in ("reasoning_content", "reasoning"):
                reasoning.append(_text(delta.get(key)))
            _take_calls(delta.get("tool_calls"), calls)
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if any(reasoning):
        message["reasoning_content"] = "".join(reasoning)
    if calls:
        message["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": "".join(c["arguments"])},
            }
            for c in calls.values()
        ]
    completion: dict[str, Any] = {
        "id": first.get("id", "replay-tui-completion"),
        "object": "chat.completion",
        "created": first.get("created", 0),
        "model": first.get("model", ""),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if "system_fingerprint" in first:
        completion["system_fingerprint"] = first["system_fingerprint"]
    if usage is not None:
        completion["usage"] = usage
    if error is not None:
        completion["error"] = error
    return completion


def _take_calls(tool_calls: Any, calls: dict[Any, dict[str, Any]]) -> None:
    if not isinstance(tool_calls, list):
        return
    for place, call in enumerate(tool_calls):
        if not isinstance(call, dict):
            continue
        index = call.get("index")
        key: Any = index if isinstance(index, int) and not isinstance(index, bool) else None
        if key is None:
            key = ("at", len(calls)) if call.get("id") else ("place", place)
        entry = calls.setdefault(key, {"id": None, "name": None, "arguments": []})
        cid = call.get("id")
        if entry["id"] is None and isinstance(cid, str) and cid:
            entry["id"] = cid
        function = call.get("function")
        if isinstance(function, dict):
            name = function.get("name")
            if entry["name"] is None and isinstance(name, str) and name:
                entry["name"] = name
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                entry["arguments"].append(arguments)


def capture_named(captures: Sequence[ServedCapture], name: str) -> ServedCapture | None:
    """The capture ``name`` names: its address, else its file name or stem when unique."""
    for c in captures:
        if c.name == name:
            return c
    for part in (_file_name, _stem):
        matches = [c for c in captures if part(c.name) == name]
        if len(matches) == 1:
            return matches[0]
    return None


def _file_name(address: str) -> str:
    file, entry = split_entry(address)
    base = file.rsplit("/", 1)[-1]
    return f"{base}#{entry}" if entry is not None else base


def _stem(address: str) -> str:
    file, entry = split_entry(address)
    base = file.rsplit("/", 1)[-1]
    stem = base.rsplit(".", 1)[0] if "." in base else base
    return f"{stem}#{entry}" if entry is not None else stem
