"""The words of notes: they say what happened, in the product's own phrasing."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay_tui.core.wire import decode_payload

from .helpers import call, chunk, sse, tools, trace_of

# --- where the replay stopped --------------------------------------------------------------


def _texts(body: bytes, kind: str) -> list[tuple[int | None, str]]:
    return [(n.line, n.message) for n in trace_of(body).notes if n.kind == kind]


def test_payloads_after_done_are_said_to_follow_done() -> None:
    body = sse(chunk({"content": "x"}, finish="stop")) + b"data: {}\n\ndata: {}\n\n"
    assert _texts(body, "data-after-done") == [
        (5, "2 payload(s) after [DONE] (first on line 5): shown, not replayed")
    ]


def test_payloads_after_a_malformed_one_are_said_to_follow_where_the_replay_stopped() -> None:
    # The walkthrough's badjson.sse: the replay stops on line 3; line 5 is the [DONE] itself.
    body = sse(chunk({"content": "x"}), "{not json")
    assert _texts(body, "data-after-done") == [
        (
            5,
            "1 payload(s) after the replay stopped on line 3 (first on line 5): shown, not replayed",
        )
    ]
    assert "[DONE]" not in _texts(body, "data-after-done")[0][1]


def test_a_log_with_no_done_at_all_never_mentions_done_for_what_follows_a_stop() -> None:
    # The walkthrough's chunks.jsonl: nothing in it is [DONE].
    body = b"garbage line\n" + b'{"a":1}\n' + b"not json at all\n"
    from replay_tui.core.trace import Form

    notes = [
        (n.line, n.message)
        for n in trace_of(body, Form.JSONL, "t.jsonl").notes
        if n.kind == "data-after-done"
    ]
    assert notes == [
        (
            2,
            "2 payload(s) after the replay stopped on line 1 (first on line 2): shown, not replayed",
        )
    ]


def test_payloads_after_the_harness_throws_are_said_to_follow_where_the_replay_stopped() -> None:
    body = sse(chunk({"content": "x"}), {"choices": [None]}, chunk({"content": "y"}))
    (note,) = _texts(body, "data-after-done")
    assert note[1].startswith("2 payload(s) after the replay stopped on line 3 (first on line 5)")


# --- the stdlib's JSON error messages ------------------------------------------------------

# Every message shape json.loads raises, each from a payload msgspec refuses too (so the
# stdlib's message is the one shown). Some end in "at" already; the place must not double it.
_STDLIB = [
    (b'{"content":"a\x01b"}', "Invalid control character at line 1, column 14"),
    (b'{"content":"ab', "Unterminated string starting at line 1, column 12"),
    (b"{not json", "Expecting property name enclosed in double quotes at line 1, column 2"),
    (b"", "Expecting value at line 1, column 1"),
    (b'{"a" 1}', "Expecting ':' delimiter at line 1, column 6"),
    (b'{"a":1 "b":2}', "Expecting ',' delimiter at line 1, column 8"),
    (b"[1 2]", "Expecting ',' delimiter at line 1, column 4"),
    (b"{} {}", "Extra data at line 1, column 4"),
    (b'{"a":"\\q"}', "Invalid \\escape at line 1, column 7"),
    (b'{"a":"\\u12"}', "Invalid \\uXXXX escape at line 1, column 8"),
    (b'{"a":\n  nope}', "Expecting value at line 2, column 3"),
]


@pytest.mark.parametrize(("data", "message"), _STDLIB)
def test_each_stdlib_json_error_reads_once_at_its_place(data: bytes, message: str) -> None:
    assert decode_payload(data).malformed == message


def test_the_walkthroughs_escape_payload_says_at_once() -> None:
    data = b'{"choices":[{"delta":{"content":"hi \x1b]52;c;SGVsbG8=\x07 [bold red]x[/]"}}]}'
    assert decode_payload(data).malformed == "Invalid control character at line 1, column 37"


_PLACE = re.compile(r" at line [0-9]+, column [0-9]+$")


@settings(max_examples=300)
@given(st.text(alphabet='{}[]":,\\u0123abnt \x01\n', max_size=24))
def test_any_stdlib_json_error_names_its_place_once(text: str) -> None:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        malformed = decode_payload(text.encode()).malformed
        if malformed is None:  # msgspec and JSON.parse see it alike only when both refuse it
            return
        assert _PLACE.search(malformed), malformed
        assert " at at " not in malformed and not malformed.startswith("at ")
        assert malformed.count(" at line ") == 1
        assert (
            malformed == f"{exc.msg.removesuffix(' at')} at line {exc.lineno}, column {exc.colno}"
        )
    except ValueError:
        pass


def test_arguments_quoted_in_a_note_have_their_control_characters_escaped() -> None:
    # As the notes that quote a JSON value have them: a script printing check --json's
    # messages wrote a real ESC to its terminal (a new user's walk).
    body = sse(tools(call(0, id="call_1", name="f", arguments='{"a": "\x1b[31mred\x07')))
    (said,) = _texts(body, "arguments-not-json")
    assert (
        said[1] == 'call 0: arguments do not parse as JSON at close: {"a": "\\u001b[31mred\\u0007'
    )
    assert not any(ch < " " for ch in said[1])
