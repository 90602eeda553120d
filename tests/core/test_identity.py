"""Identity evolution, flags, notes and verdicts (README, Verdicts)."""

from __future__ import annotations

from typing import Any

import pytest

from replay_tui.core.translator import Behavior
from replay_tui.core.wire import UNSET, describe_value

from .helpers import call, chunk, sse, tools, trace_of


def flags(body: bytes) -> list[tuple[str, int, object, object]]:
    return [(f.kind, f.line, f.call, f.value) for f in trace_of(body).analysis.flags]


def notes(body: bytes) -> set[str]:
    return {n.kind for n in trace_of(body).notes}


def test_each_erasing_delta_is_flagged_with_its_line_call_and_value() -> None:
    body = sse(
        tools(call(0, id="call_1", name="f")),
        tools(call(0, id=None, name="")),
        tools(call(0, id="", name=None)),
        chunk(finish="tool_calls"),
    )
    # Only the delta at which identity *stops* being a non-empty string is flagged.
    assert flags(body) == [("erased-id", 3, 0, None), ("erased-name", 3, 0, "")]


def test_an_erasure_later_repaired_is_still_flagged_and_marked_repaired() -> None:
    body = sse(
        tools(call(0, id="c", name="f")),
        tools(call(0, name="")),
        tools(call(0, name="f")),
        chunk(finish="tool_calls"),
    )
    trace = trace_of(body)
    (flag,) = trace.analysis.flags
    assert (flag.kind, flag.line, flag.repaired_line) == ("erased-name", 3, 5)
    assert trace.verdicts == {"assign-always": "ok", "accept-identity": "ok"}
    assert "erasure-repaired" in {n.kind for n in trace.notes}


def test_parallel_calls_keep_separate_identities_and_flags() -> None:
    body = sse(
        tools(call(0, id="a", name="f"), call(1, id="b", name="g")),
        tools(call(1, id="", arguments="{}")),
        tools(call(0, id="", arguments="{}")),
        chunk(finish="tool_calls"),
    )
    assert flags(body) == [("erased-id", 3, 1, ""), ("erased-id", 5, 0, "")]
    trace = trace_of(body)
    assert [c.final(Behavior.ACCEPT_IDENTITY) for c in trace.analysis.calls] == [
        ("a", "f"),
        ("b", "g"),
    ]
    assert [c.final(Behavior.ASSIGN_ALWAYS) for c in trace.analysis.calls] == [("", "f"), ("", "g")]


def test_a_call_never_identified_is_refused_not_flagged() -> None:
    body = sse(tools(call(0, arguments="{}")), chunk(finish="tool_calls"))
    trace = trace_of(body)
    assert trace.analysis.flags == []
    assert trace.verdicts == {
        "assign-always": "unidentified-call",
        "accept-identity": "malformed-tool-call",
    }
    assert trace.badge.value == "refused"


def test_rows_show_raw_values_and_identity_in_force_under_each_behavior() -> None:
    body = sse(
        tools(call(0, id="c", name="f", arguments="")),
        tools(call(0, id="", name=None, arguments="{}")),
        chunk(finish="tool_calls"),
    )
    rows = trace_of(body).analysis.calls[0].rows()
    assert [(r.raw_id, r.raw_name) for r in rows] == [("c", "f"), ("", None)]
    assert [(r.id_accept, r.name_accept, r.id_assign, r.name_assign) for r in rows] == [
        ("c", "f", "c", "f"),
        ("c", "f", "", None),
    ]
    assert [f.label for f in rows[1].flags] == ["erased id", "erased name"]
    assert [describe_value(v) for v in (UNSET, None, "", 7, "x")] == [
        "absent",
        "null",
        '""',
        "7",
        '"x"',
    ]


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (
            sse(tools(call(0, name="f")), tools(call(0, id="late")), chunk(finish="tool_calls")),
            "late-identity",
        ),
        (
            sse(
                tools(call(0, id="a", name="f")), tools(call(0, id="b")), chunk(finish="tool_calls")
            ),
            "identity-changed",
        ),
        (
            sse(
                tools(call(0, id="a", name="f")),
                tools(call(0, id="b", name="g")),
                chunk(finish="tool_calls"),
            ),
            "index-reused",
        ),
        (sse(tools(call(0, id=7, name="f")), chunk(finish="tool_calls")), "non-string-identity"),
        (sse(tools(call(0, id="c", name="null")), chunk(finish="tool_calls")), "name-string-null"),
        (
            sse(tools(call(0, id="c", name="f", arguments="{}{}")), chunk(finish="tool_calls")),
            "arguments-not-json",
        ),
        (sse(chunk({"content": "x"}), done=False), "no-done"),
        (sse(chunk({"content": "x"}, finish="stop")) + b"data: {}\n\n", "data-after-done"),
        (sse(chunk({"content": "x"}, finish="")), "empty-finish-reason"),
        (sse({**chunk({"content": "x"}), "error": {"code": 400}}), "error-object"),
        (
            sse(
                tools(call(0, id="c", name="f")),
                tools(call(0, id="", type="function")),
                chunk(finish="tool_calls"),
            ),
            "gateway-pattern",
        ),
    ],
)
def test_notes(body: bytes, kind: str) -> None:
    assert kind in notes(body)


@pytest.mark.parametrize(
    ("continuation", "named"),
    [
        ({"id": "", "type": "function"}, 'the DashScope pattern: continuations repeat id:""'),
        (
            {"id": "", "name": "null", "type": "FUNCTION"},
            'the LiteLLM proxy pattern: continuations send id:"" and name:"null"',
        ),
        ({"id": None, "name": None}, "the Writer / vLLM / OpenCode pattern"),
        ({"name": "f"}, None),  # the name repeated: no gateway's pattern
    ],
)
def test_the_gateway_pattern_is_named_by_what_continuations_send(
    continuation: dict[str, object], named: str | None
) -> None:
    body = sse(
        tools(call(0, id="c", name="f")),
        tools(call(0, **continuation, arguments="{}")),
        chunk(finish="tool_calls"),
    )
    said = [n.message for n in trace_of(body).notes if n.kind == "gateway-pattern"]
    if named is None:
        assert said == []
    else:
        assert len(said) == 1 and said[0].startswith(f"looks like {named}")


def test_per_call_notes_are_made_once_not_per_delta() -> None:
    body = sse(
        *[tools(call(0, id="c", name="null", arguments="")) for _ in range(5)],
        chunk(finish="tool_calls"),
    )
    assert [n.kind for n in trace_of(body).notes].count("name-string-null") == 1


@pytest.mark.parametrize(
    ("body", "verdicts", "badge"),
    [
        (sse(chunk({"content": "x"}, finish="stop")), ("ok", "ok"), "clean"),
        (
            sse(
                tools(call(0, id="c", name="f")), tools(call(0, id="")), chunk(finish="tool_calls")
            ),
            ("unidentified-call", "ok"),
            "erasing",
        ),
        (
            sse(tools(call(0, name="f")), chunk(finish="tool_calls")),
            ("unidentified-call", "malformed-tool-call"),
            "refused",
        ),
        (sse(chunk(finish="stop")), ("empty-response", "empty-response"), "broken"),
        (sse("{nope"), ("malformed-response", "malformed-response"), "broken"),
        (sse(chunk({"content": "x"}), done=False), ("stream-closed", "stream-closed"), "broken"),
        (
            sse(chunk({"content": "x"}, finish="content_filter")),
            ("model-error", "model-error"),
            "broken",
        ),
        (sse("null"), ("model-error", "model-error"), "broken"),
    ],
)
def test_verdicts_and_badges(body: bytes, verdicts: tuple[str, str], badge: str) -> None:
    trace = trace_of(body)
    assert (trace.verdicts["assign-always"], trace.verdicts["accept-identity"]) == verdicts
    assert trace.badge.value == badge


def test_a_snapshots_delta_rows_stay_its_own_while_the_call_grows_on() -> None:
    """Following a growing capture, the builder goes on feeding the same calls (in the
    follower's thread) after a snapshot was handed to the views: the snapshot's rows are as
    many as it had, and a block read while the call was shorter is read again, not indexed
    past its end (once an IndexError in the calls view, drawing a capture being written)."""
    from pathlib import Path

    from replay_tui.core.identity import DeltaRows
    from replay_tui.core.trace import Form, Source, TraceBuilder

    first = sse(tools(call(0, id="c", name="f")), tools(call(0, id="")), done=False)
    more = sse(tools(call(0, id="c")), chunk(finish="tool_calls"))
    builder = TraceBuilder(Source(Path("t.sse"), "t.sse", Form.SSE))
    builder.feed(first)
    snapshot = builder.build().analysis
    rows = snapshot.delta_rows(0)
    live = DeltaRows(snapshot.calls[0])
    assert [r.delta for r in rows] == [1, 2] and live[1].delta == 2  # (block 0 read, 2 rows)
    builder.feed(more)
    assert len(rows) == 2 and [r.delta for r in rows] == [1, 2]  # the snapshot's own
    assert len(live) == 3 and live[2].delta == 3 and live[2].raw_id == "c"
    grown = builder.build().analysis
    assert snapshot.counts == [2] and grown.counts == [3]


def test_a_comparison_holds_to_the_snapshots_while_a_call_grows_on() -> None:
    """The compare view diffs the open trace as it was handed over, while its calls grow on
    in the follower's thread: the rows are the snapshot's (they once read the live call, so
    the delta being added could be read half written)."""
    from pathlib import Path

    from replay_tui.core.diff import diff_traces
    from replay_tui.core.trace import Form, Source, TraceBuilder

    first = sse(tools(call(0, id="c", name="f")), tools(call(0, id="")), done=False)
    more = sse(tools(call(0, id="c")), chunk(finish="tool_calls"))
    builder = TraceBuilder(Source(Path("t.sse"), "t.sse", Form.SSE))
    builder.feed(first)
    snapshot = builder.build()
    other = trace_of(first + more)
    diff = diff_traces(snapshot, other)
    builder.feed(more)  # the call grows to three deltas before the view reads the rows
    assert len(snapshot.analysis.calls[0].positions) == 3
    rows = diff.calls[0].rows
    assert [r.status for r in rows] == ["same", "same", "only-b"]
    assert [r.a.delta for r in rows if r.a is not None] == [1, 2]
    assert diff.calls[0].counts == (2, 3)


NOTED = [
    (
        sse(tools(call(0, name="f")), tools(call(0, id="late")), chunk(finish="tool_calls")),
        [
            (
                "late-identity",
                3,
                0,
                'call 0: id "late" first arrives on delta 2, not the call\'s first',
            )
        ],
    ),
    (
        sse(
            tools(call(0, id="a", name="f")),
            tools(call(0, id="b")),
            tools(call(0, name="g")),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "identity-changed",
                3,
                0,
                'call 0: id changes mid-stream on delta 2 ("a" → "b"); both behaviors take the new value',
            ),
            (
                "identity-changed",
                5,
                0,
                'call 0: name changes mid-stream on delta 3 ("f" → "g"); both behaviors take the new value',
            ),
        ],
    ),
    (
        sse(
            tools(call(0, id="a", name="f")),
            tools(call(0, id="b", name="g")),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "index-reused",
                3,
                0,
                'call 0: a new id and name arrive on the same wire index ("a" → "b"): looks like a new call reusing the index; both behaviors merge them',
            ),
            (
                "identity-changed",
                3,
                0,
                'call 0: name changes mid-stream on delta 2 ("f" → "g"); both behaviors take the new value',
            ),
        ],
    ),
    (
        sse(
            tools(call(0, id=7, name=[1])),
            tools(call(0, id=8, name={"a": 1})),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "non-string-identity",
                1,
                0,
                "call 0: id is a JSON number (7); accept-identity ignores it, assign-always takes it",
            ),
            (
                "non-string-identity",
                1,
                0,
                "call 0: name is a JSON array ([1]); accept-identity ignores it, assign-always takes it",
            ),
        ],
    ),
    (
        sse(
            tools(call(0, id="c", name="null")),
            tools(call(0, name="null")),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "name-string-null",
                1,
                0,
                'call 0: name is the string "null" (a gateway stringified a null; both behaviors accept it as a name)',
            )
        ],
    ),
    (
        sse(
            tools(call(0, id="c", name="f", arguments='{"a":1}{"a":1}')),
            tools(call(1, id="d", name="g", arguments="x")),
            tools(call(2, id="e", name="h", arguments="  ")),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "arguments-not-json",
                1,
                0,
                'call 0: arguments do not parse as JSON at close (looks like arguments re-sent cumulatively: {…}{…}): {"a":1}{"a":1}',
            ),
            ("arguments-not-json", 3, 1, "call 1: arguments do not parse as JSON at close: x"),
        ],
    ),
    (
        sse(chunk({"content": "x"}), done=False),
        [
            (
                "no-done",
                None,
                UNSET,
                "the stream stops without [DONE] (truncated capture?): the harness fails with STREAM_CLOSED",
            )
        ],
    ),
    (
        sse(chunk({"content": "x"}, finish="stop"), done=False),
        [
            (
                "no-done",
                None,
                UNSET,
                'the stream sent finish_reason "stop" on line 1 but never [DONE] (Cerebras/Groq style): the harness fails with STREAM_CLOSED',
            )
        ],
    ),
    (
        sse(chunk({"content": "x"}, finish="stop")) + b"data: {}\n\ndata: {}\n\n",
        [
            (
                "data-after-done",
                5,
                UNSET,
                "2 payload(s) after [DONE] (first on line 5): shown, not replayed",
            )
        ],
    ),
    (
        sse(chunk({"content": "x"}), "{bad") + b"data: {}\n\n",
        [
            (
                "malformed-payload",
                3,
                UNSET,
                "payload is not valid JSON: Expecting property name enclosed in double quotes at column 8",
            ),
            (
                "data-after-done",
                5,
                UNSET,
                "2 payload(s) after the replay stopped on line 3 (first on line 5): shown, not replayed",
            ),
        ],
    ),
    (
        sse(chunk({"content": "x"}, finish="")),
        [
            (
                "empty-finish-reason",
                1,
                UNSET,
                'finish_reason is "": the harness ends with a model error',
            )
        ],
    ),
    (
        sse({**chunk({"content": "x"}), "error": {"code": 400}}),
        [
            (
                "error-object",
                1,
                UNSET,
                'chunk carries an error object: {"code":400} (the harness ignores it and goes on)',
            )
        ],
    ),
    (
        sse(
            tools(call(0, id="a", name="f")),
            tools(call(0, id="")),
            tools(call(0, id="a")),
            chunk(finish="tool_calls"),
        ),
        [
            ("erasure-repaired", 3, 0, "call 0: id erased on line 3 was re-sent on line 5"),
            (
                "gateway-pattern",
                3,
                UNSET,
                'looks like the DashScope pattern: continuations repeat id:"" (model m)',
            ),
        ],
    ),
    (
        sse('{"choices": [null]}'),
        [
            (
                "odd-shape",
                1,
                UNSET,
                "unusual chunk shape (Expected `object`, got `null` - at `$.choices[0]`)",
            ),
            (
                "harness-throws",
                1,
                UNSET,
                "the harness throws a TypeError: Cannot read properties of null (reading 'delta')",
            ),
            (
                "data-after-done",
                3,
                UNSET,
                "1 payload(s) after the replay stopped on line 1 (first on line 3): shown, not replayed",
            ),
        ],
    ),
    (
        sse("[1]", chunk({"content": "x"}, finish="stop")),
        [("ignored-payload", 1, UNSET, "payload is a JSON array, not an object")],
    ),
    (
        sse(
            tools({"id": "a", "function": {"name": "f"}}),
            tools({"function": {"arguments": "{"}}),
            tools({"id": "b"}),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "identity-changed",
                5,
                UNSET,
                'the call with no index: id changes mid-stream on delta 3 ("a" → "b"); both behaviors take the new value',
            ),
            (
                "arguments-not-json",
                1,
                UNSET,
                "the call with no index: arguments do not parse as JSON at close: {",
            ),
        ],
    ),
]


NOTED.append(
    (
        sse(
            tools(call(0, id=True, name={"a": 1})),
            tools(call(0, id="x" * 200, name="f")),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "non-string-identity",
                1,
                0,
                "call 0: id is a JSON boolean (true); accept-identity ignores it, assign-always takes it",
            ),
            (
                "non-string-identity",
                1,
                0,
                'call 0: name is a JSON object ({"a":1}); accept-identity ignores it, assign-always takes it',
            ),
            # a value past 120 characters is cut to 119 and "…"
            (
                "late-identity",
                3,
                0,
                'call 0: id "' + "x" * 118 + "… first arrives on delta 2, not the call's first",
            ),
            (
                "late-identity",
                3,
                0,
                'call 0: name "f" first arrives on delta 2, not the call\'s first',
            ),
        ],
    )
)


NOTED += [
    (
        sse(
            tools(call(0, id="a", name="f")),
            tools(call(0, id="")),
            tools(call(0, id="b")),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "identity-changed",
                5,
                0,
                'call 0: id changes mid-stream on delta 3 ("a" → "b"); both behaviors take the new value',
            ),
            ("erasure-repaired", 3, 0, "call 0: id erased on line 3 was re-sent on line 5"),
            (
                "gateway-pattern",
                3,
                UNSET,
                'looks like the DashScope pattern: continuations repeat id:"" (model m)',
            ),
        ],
    ),
    (
        sse(
            tools(call(0, id="c", name="f", arguments="{{")),
            tools(call(1, id="d", name="g", arguments="a}{b")),
            chunk(finish="tool_calls"),
        ),
        [
            ("arguments-not-json", 1, 0, "call 0: arguments do not parse as JSON at close: {{"),
            ("arguments-not-json", 3, 1, "call 1: arguments do not parse as JSON at close: a}{b"),
        ],
    ),
    (
        sse(
            tools(call(0, id="c", name="null")),
            tools(call(1, id="d", name="null")),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "name-string-null",
                1,
                0,
                'call 0: name is the string "null" (a gateway stringified a null; both behaviors accept it as a name)',
            ),
            (
                "name-string-null",
                3,
                1,
                'call 1: name is the string "null" (a gateway stringified a null; both behaviors accept it as a name)',
            ),
        ],
    ),
    (
        # Gemini's OpenAI-compatible stream: two whole calls, neither with an index. The
        # harness merges them; the joined arguments are said to be two calls', not re-sent.
        sse(
            tools(
                {"id": "g1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
            ),
            tools({"id": "g2", "type": "function", "function": {"name": "g", "arguments": "{}"}}),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "index-reused",
                3,
                UNSET,
                'the call with no index: a new id and name arrive on the same wire index ("g1" → "g2"):'
                " looks like a new call reusing the index; both behaviors merge them",
            ),
            (
                "identity-changed",
                3,
                UNSET,
                'the call with no index: name changes mid-stream on delta 2 ("f" → "g"); both behaviors take the new value',
            ),
            (
                "arguments-not-json",
                1,
                UNSET,
                "the call with no index: arguments do not parse as JSON at close (the arguments of"
                ' the calls that shared its index, joined): {"a":1}{}',
            ),
        ],
    ),
    (
        # arguments that are no string: joined as JavaScript would, said once per call
        sse(
            tools(call(0, id="c", name="f", arguments=5)),
            tools(call(0, arguments={"a": 1})),
            chunk(finish="tool_calls"),
        ),
        [
            (
                "arguments-not-string",
                1,
                0,
                'call 0: arguments is a JSON number, not a string: the harness joins it as text (5 → "5")',
            ),
            (
                "arguments-not-json",
                1,
                0,
                "call 0: arguments do not parse as JSON at close: 5[object Object]",
            ),
        ],
    ),
    (
        # Mistral's content as parts: the harness shows no text for it; said once
        sse(
            chunk({"content": [{"type": "text", "text": "Hello"}]}),
            chunk({"content": [{"type": "text", "text": "again"}]}),
            chunk({"reasoning_content": 7}, finish="stop"),
        ),
        [
            (
                "text-not-string",
                1,
                UNSET,
                "content is a JSON array, not a string: the harness shows no text for it"
                ' (Mistral sends its content as parts: [{type: text, …}]): [{"type":"text","text":"Hello"}]',
            ),
            (
                "text-not-string",
                5,
                UNSET,
                "reasoning_content is a JSON number, not a string: the harness shows no text for it: 7",
            ),
        ],
    ),
    (
        sse({**chunk({"content": "x"}), "error": {"message": "m" * 100}}),
        [
            (
                "error-object",
                1,
                UNSET,
                'chunk carries an error object: {"message":"'
                + "m" * 67
                + "… (the harness ignores it and goes on)",
            )
        ],
    ),
]


@pytest.mark.parametrize(("body", "want"), NOTED)
def test_each_note_says_where_and_what(body: bytes, want: list[tuple[Any, ...]]) -> None:
    got = [(n.kind, n.line, n.call, n.message) for n in trace_of(body).analysis.notes]
    assert got == want


PATTERNS = [
    ({"id": ""}, 'the DashScope pattern: continuations repeat id:""'),
    (
        {"id": "", "name": ""},
        'the DashScope-serving-GLM pattern: continuations send id:"" and name:""',
    ),
    ({"id": None, "name": ""}, 'the Envoy AI Gateway pattern: continuations send id:null, name:""'),
    (
        {"id": None, "name": None},
        "the Writer / vLLM / OpenCode pattern: continuations send id:null, name:null",
    ),
    ({"name": ""}, 'the Mistral-platform-GLM / Volcengine pattern: continuations send name:""'),
    ({"name": None}, "the Fireworks / NIM pattern: continuations send name:null"),
    (
        {"id": "", "name": "null"},
        'the LiteLLM proxy pattern: continuations send id:"" and name:"null"',
    ),
]


@pytest.mark.parametrize(("continuation", "text"), PATTERNS)
def test_each_gateway_pattern_is_named_at_the_first_calls_continuation(
    continuation: dict[str, Any], text: str
) -> None:
    # Call 1's continuation comes first in the stream; call 0's is where the note points.
    body = sse(
        tools(call(0, id="a", name="f")),
        tools(call(1, id="b", name="g")),
        tools(call(1, **continuation, arguments="{}")),
        tools(call(0, **continuation, arguments="{}")),
        *[tools(call(0, **continuation)) for _ in range(70)],
        chunk(finish="tool_calls"),
    )
    for lean in (False, True):
        notes = trace_of(body).analysis.notes if not lean else _lean(body).analysis.notes
        said = [(n.line, n.message) for n in notes if n.kind == "gateway-pattern"]
        assert said == [(7, f"looks like {text} (model m)")]


def test_only_the_first_deltas_of_a_call_tell_its_pattern() -> None:
    late = sse(
        tools(call(0, id="a", name="f")),
        *[tools(call(0, arguments="x")) for _ in range(63)],
        tools(call(0, id="")),
        chunk(finish="tool_calls"),
    )
    assert [n for n in trace_of(late).analysis.notes if n.kind == "gateway-pattern"] == []
    in_time = sse(
        tools(call(0, id="a", name="f")),
        *[tools(call(0, arguments="x")) for _ in range(62)],
        tools(call(0, id="")),
        chunk(finish="tool_calls"),
    )
    assert [n.line for n in trace_of(in_time).analysis.notes if n.kind == "gateway-pattern"] == [
        127
    ]


def _lean(body: bytes) -> Any:
    from pathlib import Path

    from replay_tui.core.trace import Form, Source, load_trace

    return load_trace(Source(Path("t.sse"), "t.sse", Form.SSE), body, lean=True)
