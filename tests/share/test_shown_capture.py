"""The reproducer's capture text, read a block at a time, is the capture shown whole, and a
capture is serialized the same way an event at a time (properties, against plain oracles)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from replay_tui.core.trace import Form
from replay_tui.share.minimize import serialize
from replay_tui.share.report import shown_capture

_PIECES = [
    b"\xe2\x80\xae",
    b"\n",
    b"\r",
    b"\r\n",
    b"a",
    b"\x1b",
    b"\t",
    b"\xc3\xa9",
    b"\xe2\x82",
    b"\xff",
    b"data: ",
]


_ESCAPES = {"\t": "\\t", "\r": "\\r", "\n": "\\n"}


def _hidden(ch: str) -> bool:
    o = ord(ch)
    return (
        o < 0x20
        or 0x7F <= o <= 0x9F
        or 0x202A <= o <= 0x202E
        or 0x2066 <= o <= 0x2069
        # the invisible format characters: zero-width space and joiners, direction marks,
        # line and paragraph separators, word joiner and invisible operators, the BOM, the
        # soft hyphen, the Arabic letter mark, the Mongolian vowel separator, annotations
        or o in (0xAD, 0x61C, 0x180E, 0x2028, 0x2029, 0xFEFF)
        or 0x200B <= o <= 0x200F
        or 0x2060 <= o <= 0x2064
        or 0xFFF9 <= o <= 0xFFFB
    )


def _shown(ch: str) -> str:
    return _ESCAPES.get(ch, f"\\u{ord(ch):04x}")


def _oracle_text(data: bytes) -> str:
    """The capture as shown, made whole at once (as the report made it before)."""
    text = data.decode("utf-8", "replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    out = []
    for line in text.split("\n"):
        out.append("".join(_shown(ch) if _hidden(ch) else ch for ch in line))
    return "\n".join(out)


captures = st.lists(st.sampled_from(_PIECES) | st.binary(max_size=6), max_size=40).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(captures, st.integers(0, 30), st.integers(1, 12))
def test_shown_capture_is_the_whole_capture_shown(data: bytes, limit: int, block: int) -> None:
    whole = _oracle_text(data)
    head, size = shown_capture(data, limit, block)
    assert size == len(whole)
    assert head == whole[:limit]


events = st.lists(st.binary(max_size=12), max_size=8)


@given(events, st.sampled_from([Form.SSE, Form.JSONL, Form.HTTP]), st.binary(max_size=20))
def test_serialize_writes_each_event_as_its_form_frames_it(
    evs: list[bytes], form: Form, head: bytes
) -> None:
    if form is Form.JSONL:
        want = b"".join(e + b"\n" for e in evs)
    else:
        body = b""
        for e in evs:
            for part in e.split(b"\n"):
                body += b"data: " + part + b"\n"
            body += b"\n"
        want = body
        if form is Form.HTTP:
            want = re.sub(rb"(?im)^content-length:[^\r\n]*(\r\n|\r|\n)", b"", head) + body
    assert serialize(evs, form, head) == want
