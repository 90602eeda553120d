"""``replay-tui diff A B``: exit status, the one-line lead, JSON, errors, untrusted content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_tui.cli import main

from .helpers import data, finish, sse, tool_delta


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["diff", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_same_outcome_exits_0_and_says_so_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, data("direct.sse"), data("dashscope-gateway.sse"))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "same outcome under accept-identity (ok)"
    assert "calls: 1 of 1 differ" in lines
    assert any(line.startswith("events: 3 of 8 rows differ") for line in lines)


def test_different_outcome_exits_1_and_leads_with_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, data("direct.sse"), data("dashscope-gateway.sse"), "--behavior", "assign-always"
    )
    assert code == 1
    first = out.splitlines()[0]
    assert first == 'outcome differs under assign-always: call 0 id: "call_9" vs ""'
    assert 'A:3       B:9       call 0 id: "call_9" vs ""' in out
    assert 'erasures: none vs erased id by "" on delta 2 (line 5)' in out
    # A call's delta against delta, each side's number ("2/2" read as "2 of 2").
    assert 'A:5       B:5       delta 2 vs 2 raw id: absent vs ""; ' in out
    assert 'choices[0].delta.tool_calls[0].id: absent vs ""' in out


def test_truncated_capture_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, data("direct.sse"), data("truncated.sse"))
    assert code == 1
    assert out.splitlines()[0] == (
        "outcome differs under accept-identity: finish: tool-calls vs error STREAM_CLOSED (+2 more)"
    )
    assert "A:11      B:EOF     finish: tool-calls vs error STREAM_CLOSED" in out


def test_split_gateway_shows_events_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, data("direct.sse"), data("split-gateway.sse"))
    assert code == 0
    assert "split" in out and "same content: 1 payload vs 2" in out
    assert "only-b comment" in out and "3 comment lines: : OPENROUTER PROCESSING" in out


def test_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    a, b = data("direct.sse"), data("other-arguments.sse")
    code, out, _ = run(capsys, a, b, "--json", "--behavior", "assign-always")
    assert code == 1
    doc = json.loads(out)
    assert doc["same_outcome"] is False
    assert doc["behavior"] == "assign-always"
    assert [d["what"] for d in doc["outcome"]] == ["call 0 arguments"]
    assert doc["outcome"][0]["a"]["line"] == 7
    assert isinstance(doc["calls"], list) and isinstance(doc["events"], list)
    assert doc["events"][0]["status"] == "changed"


def test_har_addresses(capsys: pytest.CaptureFixture[str]) -> None:
    har = data("direct-and-gateway.har")
    code, out, _ = run(capsys, f"{har}#1", f"{har}#2", "--behavior", "assign-always")
    assert code == 1
    assert "direct-and-gateway.har#2  (unidentified-call)" in out


def test_limit_caps_each_section(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, data("direct.sse"), data("dashscope-gateway.sse"), "--limit", "1")
    assert code == 0
    assert out.count("… 2 more (--limit 0 lists all, --json has all)") == 2  # calls and events


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope.sse", "other.sse"], "nope.sse"),
        (["only-one.sse"], "the following arguments are required: B"),
        (["a", "b", "--behavior", "sometimes"], "invalid choice"),
        (["a", "b", "--limit", "-1"], "--limit must be 0 or more"),
    ],
)
def test_errors_are_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("replay-tui: ")
    assert message in err
    assert "Traceback" not in err


def test_har_entry_that_is_not_a_stream(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, data("direct-and-gateway.har") + "#9", data("direct.sse"))
    assert code == 2
    assert err.startswith("replay-tui: ") and "no SSE stream at entry #9" in err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "--behavior" in out and "--include-volatile" in out and "Exit status" in out


def test_untrusted_content_is_escaped(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    evil = '{"x": "\x1b]52;c;Zm9v\x07\x1b[31m"}'
    a = tmp_path / "a.sse"
    b = tmp_path / "b\x1b[2Jname.sse"
    a.write_bytes(sse([tool_delta("", first=True), tool_delta('{"x": 1}'), finish()]))
    b.write_bytes(sse([tool_delta("", first=True), tool_delta(evil), finish()]))
    code, out, err = run(capsys, str(a), str(b))
    assert code == 1
    assert "\x1b" not in out and "\x07" not in out and "\x1b" not in err
    # Values are shown as JSON strings (control characters as \u escapes), names via visible().
    assert "\\u001b]52;c;Zm9v\\u0007" in out
    assert "b\\u001b[2Jname.sse" in out


def test_what_follows_done_or_a_stop_says_not_replayed_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = b'data: {"choices":[{"delta":{"content":"a"}}]}\n\n'
    a, b = tmp_path / "a.sse", tmp_path / "b.sse"
    # After [DONE]: the words say where it is, the row's mark that it is not replayed.
    a.write_bytes(text + b"data: [DONE]\n\n")
    b.write_bytes(text + b"data: [DONE]\n\n" + b'data: {"choices":[]}\n\n')
    _, out, _ = run(capsys, str(a), str(b))
    assert (
        "  only-b                     B:5         after [DONE] [not replayed]" in out.splitlines()
    )
    assert out.count("not replayed") == 1
    # After a malformed payload stopped the replay: nothing says [DONE] of what is not after it.
    a.write_bytes(text + b"data: {not json\n\n" + b"data: [DONE]\n\n")
    b.write_bytes(text + b"data: {not json\n\n" + text + b"data: [DONE]\n\n")
    _, out, _ = run(capsys, str(a), str(b))
    (row,) = [line for line in out.splitlines() if "B:5" in line]
    assert row.endswith('text "a" [not replayed]') and "DONE" not in row


def test_an_emoji_cut_into_lone_surrogates_is_diffed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A JavaScript gateway cut an emoji into two lone surrogate escapes: the text, the
    # events' excerpts and --json write them as their escapes (msgspec refuses them: the
    # comparison of the two payloads raised, or said equal ones differ).
    a, b = tmp_path / "a.sse", tmp_path / "b.sse"
    a.write_bytes(sse([tool_delta('{"t":"\ud83d', first=True), tool_delta('\ude00"}'), finish()]))
    b.write_bytes(sse([tool_delta('{"t":"\ud83d', first=True), tool_delta('\ude01"}'), finish()]))
    code, out, err = run(capsys, str(a), str(b))
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == (
        'outcome differs under accept-identity: call 0 arguments: "{\\"t\\":\\"\\ud83d\\ude00\\"}"'
        ' vs "{\\"t\\":\\"\\ud83d\\ude01\\"}"'
    )
    code, out, err = run(capsys, str(a), str(b), "--json")
    assert (code, err) == (1, "")
    doc = json.loads(out)
    assert doc["same_outcome"] is False
    code, _, _ = run(capsys, str(a), str(a))
    assert code == 0  # (the same payloads: the same, their surrogates included)
