"""Sidecar helpers: file names, redaction, what is learnt from a request, atomic writes."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay_tui.record.metadata import (
    REDACTED,
    Redactor,
    body_for_meta,
    file_timestamp,
    inspect_request,
    iso_utc,
    meta_path,
    safe_model,
    write_meta_atomic,
)
from replay_tui.record.proxy import (
    forward_request_headers,
    is_event_stream,
    parse_listen,
)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("deepseek-chat", "deepseek-chat"),
        ("qwen/qwen3-coder:free", "qwen-qwen3-coder-free"),
        ("../../etc/passwd", "etc-passwd"),
        ("", "unknown"),
        (None, "unknown"),
        ("///", "unknown"),
        ("x" * 100, "x" * 40),
    ],
)
def test_safe_model(model: str | None, expected: str) -> None:
    assert safe_model(model) == expected


@given(st.text())
def test_safe_model_is_always_a_safe_name(model: str) -> None:
    name = safe_model(model)
    assert re.fullmatch(r"[A-Za-z0-9._-]{1,40}", name)
    assert name not in (".", "..")


def test_timestamps() -> None:
    when = datetime(2026, 11, 30, 10, 15, 2, 123456, tzinfo=UTC)
    assert file_timestamp(when) == "20261130T101502Z"
    assert iso_utc(when) == "2026-11-30T10:15:02.123Z"


def test_redactor_headers_and_patterns() -> None:
    r = Redactor(["x-org-.*"])
    saved = r.headers(
        [
            ("authorization", "Bearer a"),
            ("Api-Key", "b"),
            ("X-Org-Id", "c"),
            ("X-Organisation", "kept"),  # full match only: "x-org-.*" needs the dash
            ("Via", "1.1 a"),
            ("Via", "1.1 b"),
        ]
    )
    assert saved == {
        "authorization": REDACTED,
        "Api-Key": REDACTED,
        "X-Org-Id": REDACTED,
        "X-Organisation": "kept",
        "Via": "1.1 a, 1.1 b",
    }


def test_redactor_url() -> None:
    r = Redactor(["sig"])
    assert r.url("http://h/p?a=1&b=%2F") == "http://h/p?a=1&b=%2F"  # untouched
    red = r.url("http://h/m:stream?alt=sse&key=SECRET&sig=S2")
    assert "SECRET" not in red and "S2" not in red
    assert red.startswith("http://h/m:stream?alt=sse&key=")


def test_inspect_request() -> None:
    openai = b'{"model":"gpt","tools":[{"type":"function","function":{"name":"a"}},{"x":1},3]}'
    assert (inspect_request(openai, "/v1/chat").model, inspect_request(openai, "/").tools) == (
        "gpt",
        ["a"],
    )
    anthropic = b'{"model":"claude","tools":[{"name":"search","input_schema":{}}]}'
    assert inspect_request(anthropic, "/v1/messages").tools == ["search"]
    gemini = inspect_request(b"{}", "/v1beta/models/gemini-2.5-pro:streamGenerateContent")
    assert gemini.model == "gemini-2.5-pro"
    for junk in (b"", b"not json", b"\xff\xfe", b"[1,2]", b'{"model":7,"tools":{}}'):
        info = inspect_request(junk, "/v1/chat/completions")
        assert (info.model, info.tools) == (None, [])


def test_body_for_meta() -> None:
    assert body_for_meta(b'{"a":"\xc3\xa9"}') == {"body": '{"a":"é"}'}
    assert body_for_meta(b"\xff\x00") == {"body": "/wA=", "body_encoding": "base64"}


def test_write_meta_atomic_leaves_no_temporary_files(tmp_path: Path) -> None:
    capture = tmp_path / "20261130T101502Z-m-1.sse"
    target = meta_path(capture)
    assert target.name == "20261130T101502Z-m-1.sse.meta.json"
    write_meta_atomic(target, {"complete": False})
    write_meta_atomic(target, {"complete": True, "text": "é"})
    assert json.loads(target.read_text("utf-8")) == {"complete": True, "text": "é"}
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_listen_and_header_helpers() -> None:
    assert parse_listen("127.0.0.1:8787") == ("127.0.0.1", 8787)
    assert parse_listen("8787") == ("127.0.0.1", 8787)
    assert parse_listen(":0") == ("127.0.0.1", 0)
    assert parse_listen("[::1]:9000") == ("::1", 9000)
    assert is_event_stream("Text/Event-Stream; charset=utf-8")
    assert not is_event_stream("application/json")
    assert not is_event_stream(None)

    from multidict import CIMultiDict, CIMultiDictProxy

    incoming = CIMultiDictProxy(
        CIMultiDict(
            [
                ("Host", "127.0.0.1:8787"),
                ("Connection", "keep-alive, X-Hop"),
                ("X-Hop", "1"),
                ("Keep-Alive", "timeout=5"),
                ("Transfer-Encoding", "chunked"),
                ("Content-Length", "12"),
                ("Authorization", "Bearer k"),
                ("X-Keep", "a"),
                ("X-Keep", "b"),
            ]
        )
    )
    assert list(forward_request_headers(incoming).items()) == [
        ("Authorization", "Bearer k"),
        ("X-Keep", "a"),
        ("X-Keep", "b"),
    ]
