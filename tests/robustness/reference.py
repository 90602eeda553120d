"""Small, slow, obviously-right models the core is held to.

- :func:`reference_frame`: the WHATWG event-stream rules (as the README's Trace files section restates them), one byte
  at a time, with no fast path, producing what :class:`replay_tui.core.sse.Framing` holds.
- :class:`GeneralPathFramer`: the core's own framer with its fast paths switched off.
- :func:`verdicts_from_chunks` / :func:`flags_from_chunks`: the verdicts and the erasure flags read off the
  translator's chunk stream, to compare with the single-pass :class:`identity.Analyzer`.
"""

from __future__ import annotations

from typing import Any

from replay_tui.core.jsonl import JsonlFramer
from replay_tui.core.sse import Framing, Payload, PayloadRun, SseFramer
from replay_tui.core.translator import Chunk

BOM = b"\xef\xbb\xbf"


def reference_frame(body: bytes) -> Framing:
    """Frame ``body`` by the book: split lines, then interpret each, then close."""
    fr = Framing()
    pos = 0
    if body.startswith(BOM):
        fr.bom = True
        pos = 3
    lines: list[tuple[int, int]] = []  # (start, end) of each line's content
    start = pos
    n = len(body)
    while pos < n:
        byte = body[pos]
        if byte == 0x0A:
            lines.append((start, pos))
            pos += 1
            start = pos
        elif byte == 0x0D:
            lines.append((start, pos))
            pos += 2 if body[pos + 1 : pos + 2] == b"\n" else 1
            start = pos
        else:
            pos += 1
    if start < n:
        lines.append((start, n))  # the last line has no line ending: still a line

    data: list[bytes] = []
    first = last = first_start = last_end = 0
    event: str | None = None
    for lineno, (a, b) in enumerate(lines, 1):
        line = body[a:b]
        if not line:  # dispatch
            if data:
                joined = b"\n".join(data)
                after = fr.done_line is not None
                fr.payloads.append(
                    Payload(joined, first, last, first_start, last_end, event, after)
                )
                if not after and joined == b"[DONE]":
                    fr.done_line = first
            data = []
            event = None
            continue
        if line.startswith(b":"):
            fr.comments += 1
            continue
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            if not data:
                first, first_start = lineno, a
            data.append(value)
            last, last_end = lineno, b
            continue
        key = name.decode("utf-8", "replace")
        fr.fields[key] = fr.fields.get(key, 0) + 1
        if name == b"event":
            event = value.decode("utf-8", "replace")
    fr.lines = len(lines)
    if data:
        fr.truncated_line = first
    fr.closed = True
    return fr


class GeneralPathFramer(SseFramer):
    """The core framer with the fast paths (``_split_eol`` / ``_uniform``) bypassed.

    ``_split`` is re-stated here as the general line loop, so the fast paths' output can be
    compared with the general path's on the very same input, whatever its line endings.
    """

    __slots__ = ()

    def _split(self, buf: bytes, base: int, out: list[Payload], *, final: bool) -> int:
        pos = 0
        n = len(buf)
        while pos < n:
            lf = buf.find(b"\n", pos)
            cr = buf.find(b"\r", pos, lf if lf >= 0 else n)
            if cr >= 0:
                if cr + 1 == n and not final:
                    break
                end = cr
                nxt = cr + 2 if cr + 1 < n and buf[cr + 1] == 0x0A else cr + 1
            elif lf >= 0:
                end, nxt = lf, lf + 1
            else:
                break
            self._line(buf[pos:end], base + pos, base + end, out)
            pos = nxt
        return pos


class UniformOffFramer(SseFramer):
    """The core framer with only the ``_uniform`` batch path switched off."""

    __slots__ = ()

    def _uniform(
        self,
        buf: bytes,
        base: int,
        pos: int,
        last: int,
        out: list[Payload | PayloadRun],
        eol: bytes = b"\n",
    ) -> int:
        return pos  # never a run: the block path takes every event


def feed_all(framer: SseFramer | JsonlFramer, pieces: list[bytes]) -> tuple[Framing, list[Payload]]:
    """Feed ``pieces`` then close; returns the framing and the payloads as ``feed`` returned them."""
    returned: list[Payload] = []
    for piece in pieces:
        returned += framer.feed(piece)
    returned += framer.close()
    framer.framing.payloads = returned  # as frame() does: framers keep none themselves
    return framer.framing, returned


def framing_state(fr: Framing) -> tuple[Any, ...]:
    """Everything framing learned, for comparison (payloads included)."""
    return (
        fr.payloads,
        fr.done_line,
        fr.lines,
        fr.comments,
        fr.fields,
        fr.truncated_line,
        fr.bom,
        fr.closed,
    )


# ---- verdicts and flags from the translator's chunks ----------------------------------------

_CODE_VERDICTS = {
    "MALFORMED_TOOL_CALL": "malformed-tool-call",
    "EMPTY_RESPONSE": "empty-response",
    "MALFORMED_RESPONSE": "malformed-response",
    "STREAM_CLOSED": "stream-closed",
}


def _identity(value: Any) -> bool:
    return type(value) is str and value != ""


def verdict_from_chunks(chunks: list[Chunk]) -> str:
    """The verdict of one behavior's chunk stream."""
    finish = chunks[-1]
    assert finish["type"] == "finish"
    for c in chunks:
        if (
            c["type"] == "block-end"
            and c["block"]["type"] == "tool-call"
            and not (_identity(c["block"]["id"]) and _identity(c["block"]["name"]))
        ):
            return "unidentified-call"
    reason = finish["reason"]
    if reason["kind"] == "error":
        return _CODE_VERDICTS.get(reason["failure"]["code"], "model-error")
    return "ok"


def flags_from_chunks(chunks: list[tuple[int | None, Chunk]]) -> list[tuple[str, int | None, int]]:
    """Erasures in assign-always chunks: ``(kind, line, block index)`` in order."""
    had: dict[tuple[int, str], bool] = {}
    out: list[tuple[str, int | None, int]] = []
    for line, c in chunks:
        if c["type"] != "tool-call-delta":
            continue
        for field in ("id", "name"):
            now = _identity(c.get(field))
            if had.get((c["index"], field)) and not now:
                out.append(("erased-" + field, line, c["index"]))
            had[(c["index"], field)] = now
    return out
