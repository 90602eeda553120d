"""The three levels of ``diff`` on the pairs the issue names (files under tests/data/diff).

``direct.sse`` is the provider's own stream of one call (id on the first delta, continuations
carry only arguments). The others are that request seen through something else:

- ``dashscope-gateway.sse``: continuations repeat ``"id":""`` and ``"type":"function"``;
- ``split-gateway.sse``: three ``: OPENROUTER PROCESSING`` comments, every arguments delta split
  in two, a ``: keep-alive`` comment and a ``{"choices":[]}`` keep-alive payload;
- ``other-arguments.sse``: the model answered ``Lyon`` instead of ``Paris``;
- ``truncated.sse``: the capture stops after the second arguments delta (no ``[DONE]``);
- ``direct-and-gateway.har``: entry 1 is ``direct.sse``, entry 2 ``dashscope-gateway.sse``.

Each pair has its own chunk ``id`` and ``created`` (per-request values).
"""

from __future__ import annotations

from replay_tui.core.diff import diff_json
from replay_tui.core.translator import Behavior
from replay_tui.core.wire import UNSET

from .helpers import diff_files

AI = Behavior.ACCEPT_IDENTITY
AA = Behavior.ASSIGN_ALWAYS

TOOL_ID = "choices[0].delta.tool_calls[0].id"


def test_dashscope_gateway_is_harmless_under_the_fix_and_erases_under_the_old_code() -> None:
    d = diff_files("direct.sse", "dashscope-gateway.sse")

    assert d.outcome(AI).same
    assert d.outcome(AI).headline() == "same outcome under accept-identity (ok)"

    old = d.outcome(AA)
    assert not old.same
    assert (old.a.verdict, old.b.verdict) == ("ok", "unidentified-call")
    assert [x.text() for x in old.differences] == ['call 0 id: "call_9" vs ""']
    first = old.differences[0]
    # A's id came on line 3; B's last assign-always assignment (the "" that stuck) on line 9.
    assert (first.a_line, first.b_line) == (3, 9)
    assert old.headline() == 'outcome differs under assign-always: call 0 id: "call_9" vs ""'


def test_dashscope_gateway_identity_level_shows_the_erasure_per_delta() -> None:
    d = diff_files("direct.sse", "dashscope-gateway.sse")
    [call] = d.calls
    assert call.changed
    by_what = {x.what: x for x in call.differences}
    assert set(by_what) == {"id (assign-always)", "erasures"}
    erasures = by_what["erasures"]
    assert erasures.a == []
    assert erasures.b == [{"kind": "erased-id", "line": 5, "delta": 2, "value": ""}]
    # Every continuation delta is paired with its counterpart; the raw id differs
    # (absent vs ""), and so does the id in force under assign-always.
    rows = call.changed_rows
    assert [(r.a.line, r.b.line) for r in rows if r.a and r.b] == [(5, 5), (7, 7), (9, 9)]
    assert all(r.changes == ("raw id", "id (assign-always)") for r in rows)
    first_a, first_b = rows[0].a, rows[0].b
    assert first_a is not None and first_b is not None
    assert first_a.raw_id is UNSET and first_b.raw_id == ""


def test_dashscope_gateway_events_are_paired_and_only_identity_fields_differ() -> None:
    d = diff_files("direct.sse", "dashscope-gateway.sse")
    changed = d.events.differences
    assert [(r.status, r.a_lines, r.b_lines) for r in changed] == [
        ("changed", (5,), (5,)),
        ("changed", (7,), (7,)),
        ("changed", (9,), (9,)),
    ]
    for row in changed:
        paths = {f.path: (f.a, f.b) for f in row.fields}
        assert paths == {
            TOOL_ID: (UNSET, ""),
            "choices[0].delta.tool_calls[0].type": (UNSET, "function"),
        }
    # The chunk id and created differ on every line, but are per-request values.
    assert len(d.events.rows) == 8
    assert all(r.status == "same" for r in d.events.rows if r not in changed)


def test_per_request_values_are_compared_when_asked() -> None:
    d = diff_files("direct.sse", "dashscope-gateway.sse", include_volatile=True)
    assert len(d.events.differences) == 7  # every payload but [DONE]
    paths = {f.path for f in d.events.rows[0].fields}
    assert paths == {"id", "created"}
    # The outcome does not depend on them.
    assert d.outcome(AI).same


def test_split_deltas_and_comments_change_events_not_the_outcome() -> None:
    d = diff_files("direct.sse", "split-gateway.sse")
    assert d.outcome(AI).same and d.outcome(AA).same

    rows = [(r.status, r.kind, r.a_lines, r.b_lines) for r in d.events.differences]
    assert rows == [
        ("only-b", "comment", (), (1, 3, 5)),
        ("split", "payload", (5,), (11, 13)),
        ("only-b", "comment", (), (15,)),
        # the keep-alive payload (line 19) sits inside the split of the next delta
        ("split", "payload", (7,), (17, 19, 21)),
        ("split", "payload", (9,), (23, 25)),
    ]
    assert all(r.same_content for r in d.events.differences if r.kind == "payload")
    assert d.events.differences[0].note == "3 comment lines: : OPENROUTER PROCESSING"
    # Nothing cascades: the finish, usage and [DONE] still pair with their counterparts.
    tail = d.events.rows[-3:]
    assert [(r.status, r.a_lines, r.b_lines) for r in tail] == [
        ("same", (11,), (27,)),
        ("same", (13,), (29,)),
        ("same", (15,), (31,)),
    ]


def test_split_deltas_leave_identity_untouched() -> None:
    d = diff_files("direct.sse", "split-gateway.sse")
    [call] = d.calls
    assert [x.text() for x in call.differences] == ["deltas: 4 vs 7"]
    # The extra deltas carry neither id nor name: listed in rows, not reported as changes.
    assert call.changed_rows == []
    assert sum(1 for r in call.rows if r.status == "only-b") == 3
    assert all(r.neutral for r in call.rows if r.status == "only-b")


def test_different_arguments_change_the_outcome() -> None:
    d = diff_files("direct.sse", "other-arguments.sse")
    for behavior in (AI, AA):
        od = d.outcome(behavior)
        assert [x.what for x in od.differences] == ["call 0 arguments"]
        args = od.differences[0]
        assert (args.a, args.b) == (
            '{"city": "Paris", "unit": "c"}',
            '{"city": "Lyon", "unit": "c"}',
        )
        assert (args.a_line, args.b_line) == (7, 7)  # where the first differing character came
    [row] = d.events.differences
    assert (row.status, row.a_lines, row.b_lines) == ("changed", (7,), (7,))
    assert [(f.path, f.a, f.b) for f in row.fields] == [
        ("choices[0].delta.tool_calls[0].function.arguments", '"Paris", ', '"Lyon", ')
    ]
    [call_row] = d.calls[0].changed_rows
    assert call_row.changes == ("arguments",)


def test_a_truncated_capture_ends_in_stream_closed() -> None:
    d = diff_files("direct.sse", "truncated.sse")
    od = d.outcome(AI)
    assert (od.a.verdict, od.b.verdict) == ("ok", "stream-closed")
    assert [x.what for x in od.differences] == ["finish", "call 0 arguments", "usage"]
    fin = od.differences[0]
    assert fin.text() == "finish: tool-calls vs error STREAM_CLOSED"
    assert (fin.a_line, fin.b_line) == (11, None)  # B's finish comes from the end of the file
    assert od.headline().startswith(
        "outcome differs under accept-identity: finish: tool-calls vs error STREAM_CLOSED"
    )
    # B's blocks were never closed; what it had received is a prefix of A's.
    [call_b] = od.b.calls
    assert not call_b.closed and call_b.text == '{"city": "Paris", '
    assert [(r.status, r.a_lines) for r in d.events.differences] == [
        ("only-a", (9,)),
        ("only-a", (11,)),
        ("only-a", (13,)),
        ("only-a", (15,)),
    ]


def test_an_error_finish_names_its_code_as_sent() -> None:
    """An error chunk with ``"code": ""`` read "finish: tool-calls vs error " in the compare
    headline (then two spaces before "(+3 more)"), where the table said ``error ""``."""
    from replay_tui.core.diff import Difference

    def finish(code: object) -> str:
        failure = {"message": "m"} if code is UNSET else {"message": "m", "code": code}
        b = {"kind": "error", "failure": failure}
        return Difference("finish", {"kind": "tool-calls"}, b, 1, 2, "finish").text()

    assert finish("") == 'finish: tool-calls vs error ""'
    assert finish(None) == "finish: tool-calls vs error null"
    assert finish(500) == "finish: tool-calls vs error 500"
    assert finish("STREAM_CLOSED") == "finish: tool-calls vs error STREAM_CLOSED"
    assert finish(UNSET) == "finish: tool-calls vs error"


def test_two_finishes_of_one_kind_and_code_say_where_they_differ() -> None:
    """Two malformed payloads read "finish: error MALFORMED_RESPONSE vs error
    MALFORMED_RESPONSE", what differs never said (a new user's walk): each side now
    quotes its failure's message around where they first differ."""
    from replay_tui.core.diff import Difference

    def failed(message: str) -> dict[str, object]:
        return {"kind": "error", "failure": {"code": "MALFORMED_RESPONSE", "message": message}}

    a = failed('malformed SSE payload: {"choices":[{"index":0,"delta":{"content":"b"}')
    b = failed('malformed SSE payload: {"model": "\x1b[31mx", "choices": [')
    said = Difference("finish", a, b, 3, 1, "finish").text()
    assert said == (
        'finish: error MALFORMED_RESPONSE: …" payload: {\\"choices\\":[{\\"index\\":0,\\"delta\\""…'
        ' vs error MALFORMED_RESPONSE: …" payload: {\\"model\\": \\"\\u001b[31mx\\", \\"choices\\":"…'
    )
    # a different code is said by the code alone, as before
    other = {"kind": "error", "failure": {"code": "STREAM_CLOSED", "message": "closed"}}
    assert Difference("finish", a, other, 3, 1, "finish").text() == (
        "finish: error MALFORMED_RESPONSE vs error STREAM_CLOSED"
    )


def test_har_entries_diff_like_the_files_they_hold() -> None:
    d = diff_files("direct-and-gateway.har#1", "direct-and-gateway.har#2")
    assert d.a.address.endswith("direct-and-gateway.har#1")
    assert d.outcome(AI).same
    assert [x.text() for x in d.outcome(AA).differences] == ['call 0 id: "call_9" vs ""']
    assert [(r.status, r.a_lines) for r in d.events.differences] == [
        ("changed", (5,)),
        ("changed", (7,)),
        ("changed", (9,)),
    ]


def test_json_locates_every_difference() -> None:
    d = diff_files("direct.sse", "dashscope-gateway.sse")
    doc = diff_json(d, AA)
    assert set(doc) >= {"same_outcome", "outcome", "calls", "events"}
    assert doc["same_outcome"] is False
    assert doc["verdicts"] == {"a": "ok", "b": "unidentified-call"}
    [out] = doc["outcome"]
    assert out["what"] == "call 0 id"
    assert out["a"] == {"trace": d.a.address, "line": 3, "value": "call_9"}
    assert out["b"] == {"trace": d.b.address, "line": 9, "value": ""}
    [call] = doc["calls"]
    assert [x["what"] for x in call["differences"]] == ["id (assign-always)", "erasures"]
    first = call["deltas"][0]
    assert first["a"] == {"trace": d.a.address, "line": 5, "delta": 2, "arguments": '{"city": '}
    assert first["b"]["id"] == ""
    assert first["changes"][0] == {"what": "raw id", "b": ""}  # absent in A: no "a" key
    ev = doc["events"][0]
    assert ev["a"] == [{"trace": d.a.address, "line": 5}]
    assert ev["fields"][0] == {"path": TOOL_ID, "b": ""}


def test_json_same_outcome_under_the_fix() -> None:
    doc = diff_json(diff_files("direct.sse", "dashscope-gateway.sse"), AI)
    assert doc["same_outcome"] is True and doc["outcome"] == []
