"""No credential leaves through ``report``, ``minimize`` or the TUI's metadata pane (issue 29,
item 6): a ``curl -i`` capture and a recorder sidecar carrying credentials under the names
the fault hunt found, through the real commands."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from replay_tui.core.discovery import discover
from replay_tui.core.trace import load_trace

from .samples import TRACES

Cli = Callable[..., tuple[int, str, str]]

HEAD = (
    b"HTTP/1.1 200 OK\r\n"
    b"content-type: text/event-stream\r\n"
    b"X-Forwarded-Auth: Bearer sk-fwdauth0123456789abcdef\r\n"
    b"Location: https://gw.example/next?api_key=sk-proj-LoCaTiOn0123456789abcdef&n=1\r\n"
    b"Ocp-Apim-Subscription-Key: apimsubkey42\r\n"
    b"X-Amz-Security-Token: amzsessiontoken42\r\n"
    b"X-Auth-Token: xauthtoken42\r\n"
    b"x-request-id: req-kept-42\r\n"
    b"\r\n"
)
SIDECAR = {
    "request": {
        "method": "POST",
        "url": "https://gw.example/v1;key=matrixkey42/chat?x-goog-api-key=googkey42"
        "&sig=azuresig42&X-Amz-Signature=amzsig42&alt=sse",
        "headers": {
            "Ocp-Apim-Subscription-Key": "reqapimkey42",
            "X-Anything": "Bearer sk-proj-ShApEd0123456789abcdefgh",
            "Accept": "text/event-stream",
        },
    },
    "response": {"status": 200, "reason": "OK", "headers": {"Set-Cookie": "sid=setcookie42"}},
}
LEAKS = [
    "sk-fwdauth",
    "LoCaTiOn",
    "apimsubkey42",
    "amzsessiontoken42",
    "xauthtoken42",
    "matrixkey42",
    "googkey42",
    "azuresig42",
    "amzsig42",
    "reqapimkey42",
    "ShApEd",
    "setcookie42",
]
KEPT = ["req-kept-42", "text/event-stream", "alt=sse", "n=1"]


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    path = tmp_path / "curl.txt"
    path.write_bytes(HEAD + (TRACES / "dashscope" / "qwen3-max-id-empty.sse").read_bytes())
    (tmp_path / "curl.txt.meta.json").write_text(json.dumps(SIDECAR))
    return path


@pytest.mark.parametrize("fmt", ["--html", "--md"])
def test_report_shares_no_credential(cli: Cli, capture: Path, fmt: str) -> None:
    code, text, _ = cli("report", str(capture), fmt)
    assert code == 0
    for leak in LEAKS:
        assert leak not in text, leak
    for kept in KEPT:
        assert kept in text, kept
    assert "[redacted]" in text


def test_minimize_writes_no_credential(cli: Cli, capture: Path, tmp_path: Path) -> None:
    out = tmp_path / "min.txt"
    code, _, _ = cli("minimize", str(capture), "-o", str(out))
    assert code == 0
    written = out.read_bytes()
    head = written.split(b"\r\n\r\n")[0].decode()
    for leak in LEAKS:
        assert leak not in head, leak
    assert "Location: https://gw.example/next?api_key=[redacted]&n=1" in head
    assert "X-Forwarded-Auth: [redacted]" in head
    assert "x-request-id: req-kept-42" in head


def test_the_tuis_metadata_pane_shows_no_credential(capture: Path) -> None:
    from replay_tui.tui.widgets.details import meta_text

    (source,) = discover([capture]).sources
    trace = load_trace(source)
    shown = meta_text(trace, 200).plain
    for leak in LEAKS:
        assert leak not in shown, leak
    assert "req-kept-42" in shown and "[redacted]" in shown
