"""``replay-tui upstream``: the mock provider, over real sockets on 127.0.0.1.

The oracles read the capture files directly (bytes, a split written here), never through the
code under test.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from replay_tui.cli import main
from replay_tui.gateway.captures import load_captures
from replay_tui.gateway.upstream import Upstream, header_name

REPO = Path(__file__).resolve().parents[2]
TRACES = REPO / "traces"


@pytest.fixture
async def upstream() -> AsyncIterator[Upstream]:
    captures, _ = load_captures([TRACES])
    server = Upstream(captures, listen="127.0.0.1:0")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def _post(
    server: Upstream, body: object, *, path: str = "/v1/chat/completions", **headers: str
) -> tuple[int, str, bytes]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://{server.address}{path}",
            data=json.dumps(body) if not isinstance(body, bytes) else body,
            headers=headers,
        ) as response,
    ):
        return response.status, response.headers.get("Content-Type", ""), await response.read()


async def test_a_named_capture_streams_its_bytes_as_captured(upstream: Upstream) -> None:
    # CRLF framing and comments, data after [DONE], a last event with no blank line after it
    names = sorted(str(p.relative_to(TRACES)) for p in TRACES.rglob("*.sse"))
    assert "envoy/bedrock-parallel-unterminated-done.sse" in names and len(names) >= 20
    for name in names:
        status, ctype, body = await _post(
            upstream, {"model": "x", "stream": True}, **{"X-Replay-Trace": name}
        )
        assert status == 200 and ctype.startswith("text/event-stream")
        assert body == (TRACES / name).read_bytes(), name


async def test_the_header_may_name_a_file_or_its_stem(upstream: Upstream) -> None:
    expected = (TRACES / "dashscope/qwen3-max-id-empty.sse").read_bytes()
    for name in ("qwen3-max-id-empty.sse", "qwen3-max-id-empty"):
        _, _, body = await _post(upstream, {"stream": True}, **{"X-Replay-Trace": name})
        assert body == expected


async def test_forms_that_are_not_wire_forms_are_reframed(upstream: Upstream) -> None:
    curl = (TRACES / "litellm/proxy-curl-i.txt").read_bytes()
    _, _, body = await _post(
        upstream, {"stream": True}, **{"X-Replay-Trace": "litellm/proxy-curl-i.txt"}
    )
    assert body == curl.split(b"\r\n\r\n", 1)[1]  # the head gone, the body as it was

    log = (TRACES / "volcengine/ark-chunk-log.jsonl").read_text().split("\n")
    _, _, body = await _post(
        upstream, {"stream": True}, **{"X-Replay-Trace": "volcengine/ark-chunk-log.jsonl"}
    )
    expected = "".join(f"data: {line.strip()}\n\n" for line in log if line.strip())
    assert body.decode() == expected + "data: [DONE]\n\n"

    _, _, body = await _post(
        upstream, {"stream": True}, **{"X-Replay-Trace": "captures/mitmproxy-export.har#4"}
    )
    har = json.loads((TRACES / "captures/mitmproxy-export.har").read_text())
    assert body.decode() == har["log"]["entries"][3]["response"]["content"]["text"]


async def test_choice_by_name_then_model_then_in_turn(upstream: Upstream) -> None:
    openai = (TRACES / "openai/gpt-4.1-text-then-call.sse").read_bytes()
    _, _, body = await _post(
        upstream, {"model": "openai/gpt-4.1-text-then-call.sse", "stream": True}
    )
    assert body == openai
    # qwen3-max is the model of two captures: they take turns
    for _ in range(2):
        await _post(upstream, {"model": "qwen3-max", "stream": True})
    await _post(upstream, {"model": "no-such-model", "stream": True})
    chosen = [(s.capture, s.chosen_by) for s in upstream.served]
    assert chosen == [
        ("openai/gpt-4.1-text-then-call.sse", "name"),
        ("captures/mitmproxy-export.har#4", "model"),
        ("dashscope/qwen3-max-id-empty.sse", "model"),
        ("azure/gpt-4o-mini-usage-tail.sse", "turn"),  # the first capture, in address order
    ]


async def test_azure_deployments_and_bare_paths(upstream: Upstream) -> None:
    mistral = (TRACES / "mistral/glm-5.2-name-empty.sse").read_bytes()
    _, _, body = await _post(
        upstream,
        {"stream": True},
        path="/openai/deployments/zai-glm-5-2/chat/completions?api-version=2024-10-21",
    )
    assert body == mistral  # the deployment names the model
    _, _, body = await _post(
        upstream, {"stream": True, "model": "zai-glm-5-2"}, path="/chat/completions"
    )
    assert body == mistral


async def test_without_stream_the_assembled_completion(upstream: Upstream) -> None:
    status, ctype, body = await _post(
        upstream, {"model": "x"}, **{"X-Replay-Trace": "dashscope/qwen3-max-id-empty.sse"}
    )
    assert status == 200 and ctype.startswith("application/json")
    doc = json.loads(body)
    assert doc["object"] == "chat.completion"
    choice = doc["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    (call,) = choice["message"]["tool_calls"]
    # the first non-empty id and name stand; the continuations' "id":"" does not erase them
    assert call["id"] == "call_99a5ca83ba8dbc63f02dc02e"
    assert call["function"]["name"] == "search_docs"
    assert json.loads(call["function"]["arguments"]) == {
        "query": "batch API rate limits",
        "top_k": 5,
    }
    assert doc["usage"]["total_tokens"] == 445

    _, _, body = await _post(
        upstream, {}, **{"X-Replay-Trace": "deepseek/reasoner-reasoning-then-call.sse"}
    )
    doc = json.loads(body)
    message = doc["choices"][0]["message"]
    assert message["reasoning_content"] == (
        "The user asks why the stream stalls. I should read the proxy config first."
    )


async def test_models_lists_each_model_once(upstream: Upstream) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://{upstream.address}/v1/models") as response,
    ):
        doc = await response.json()
    ids = [m["id"] for m in doc["data"]]
    assert len(ids) == len(set(ids))
    assert {"qwen3-max", "glm-5.2", "palmyra-x5", "zai-glm-5-2"} <= set(ids)


@pytest.mark.parametrize(
    ("method", "path", "body", "headers", "status", "code"),
    [
        ("POST", "/v1/chat/completions", b"{nope", {}, 400, "invalid_json"),
        ("POST", "/v1/chat/completions", b"[1]", {}, 400, "invalid_body"),
        ("POST", "/v1/chat/completions", b'{"stream": "yes"}', {}, 400, "invalid_stream"),
        ("POST", "/v1/chat/completions", b'{"model": 3}', {}, 400, "invalid_model"),
        (
            "POST",
            "/v1/chat/completions",
            b"{}",
            {"X-Replay-Trace": "nothing"},
            404,
            "capture_not_found",
        ),
        ("GET", "/v1/chat/completions", b"", {}, 405, "method_not_allowed"),
        ("POST", "/v1/models", b"", {}, 405, "method_not_allowed"),
        ("GET", "/v1/embeddings", b"", {}, 404, "not_found"),
        ("GET", "/v1/models", b"", {"Host": "evil.example:80"}, 403, "forbidden_host"),
        (
            "POST",
            "/v1/chat/completions",
            b'{"stream": true}',
            {"Origin": "http://evil.example"},
            403,
            "forbidden_host",
        ),  # (a page elsewhere: a plain-text POST needs no preflight)
        ("GET", "/v1/models", b"", {"Origin": "null"}, 403, "forbidden_host"),
    ],
)
async def test_bad_requests_get_json_errors(
    upstream: Upstream,
    method: str,
    path: str,
    body: bytes,
    headers: dict[str, str],
    status: int,
    code: str,
) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method, f"http://{upstream.address}{path}", data=body, headers=headers
        ) as response,
    ):
        assert response.status == status
        doc = await response.json()
    assert doc["error"]["code"] == code
    assert "Traceback" not in doc["error"]["message"]


def test_timing_comes_from_har_timings() -> None:
    captures, _ = load_captures([TRACES / "captures/mitmproxy-export.har"])
    har = json.loads((TRACES / "captures/mitmproxy-export.har").read_text())
    by_name = {c.name.rpartition("/")[2]: c for c in captures}  # named as given
    for number in (2, 4, 5):
        timings = har["log"]["entries"][number - 1]["timings"]
        capture = by_name[f"mitmproxy-export.har#{number}"]
        delays = capture.delays()
        assert delays[0] == pytest.approx(timings["wait"] / 1000)
        assert sum(delays[1:]) == pytest.approx(timings["receive"] / 1000)
    plain, _ = load_captures([TRACES / "openai/gpt-4.1-text-then-call.sse"])
    assert plain[0].timing is None and set(plain[0].delays()) == {0.0}


def test_timing_comes_from_a_recorder_sidecar(tmp_path: Path) -> None:
    capture = tmp_path / "c.sse"
    shutil.copy(TRACES / "openai/gpt-4.1-text-then-call.sse", capture)
    (tmp_path / "c.sse.meta.json").write_text(
        json.dumps(
            {
                "replay_tui_meta": 1,
                "started": "2026-01-01T00:00:00.000Z",
                "finished": "2026-01-01T00:00:02.200Z",
                "complete": True,
            }
        )
    )
    (served,), _ = load_captures([tmp_path])
    assert served.timing is not None and served.timing.source == "recorder sidecar"
    assert sum(served.delays()) == pytest.approx(2.2)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("upstream", "nowhere/"), "nowhere/: no such file or folder"),
        (("upstream", "traces/README.md"), "no capture to serve"),
        (("upstream", "traces/", "--listen", "0.0.0.0:0"), "add --allow-remote"),
        (("upstream", "traces/", "--listen", "127.0.0.1:99999"), "--listen: expected"),
    ],
)
def test_usage_errors_are_one_line(
    argv: tuple[str, ...],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1]
    assert all(line.startswith("replay-tui: ") for line in err)


async def test_the_command_prints_its_base_url_and_serves_until_stopped() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "replay_tui.cli",
        "upstream",
        str(TRACES / "dashscope"),
        "--listen",
        "127.0.0.1:0",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        first = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        match = re.fullmatch(r"base URL: (http://127\.0\.0\.1:\d+/v1)\n", first)
        assert match, first
        async with (
            aiohttp.ClientSession() as session,
            session.post(
                f"{match.group(1)}/chat/completions",
                json={"model": "glm-5.2", "stream": True},
            ) as response,
        ):
            body = await response.read()
        assert body == (TRACES / "dashscope/glm-5.2-id-and-name-empty.sse").read_bytes()
        async with (
            aiohttp.ClientSession() as session,
            session.post(
                f"{match.group(1).removesuffix('/v1')}/openai/deployments/%1b%5b31m/chat/completions",
                json={},
            ) as response,
        ):
            assert response.status == 200
    finally:
        proc.terminate()
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0
    assert b"Traceback" not in err
    assert b"-> dashscope/glm-5.2-id-and-name-empty.sse (by model)" not in err  # by model, named
    assert b"-> glm-5.2-id-and-name-empty.sse (by model)" in err
    assert b"\x1b" not in err and b"/openai/deployments/\\u001b[31m/chat" in err


async def test_a_name_a_header_cannot_carry_is_percent_encoded(tmp_path: Path) -> None:
    name = "gateway café/naïve #1.sse"
    (tmp_path / "gateway café").mkdir()
    shutil.copy(TRACES / "openai/gpt-4.1-text-then-call.sse", tmp_path / name)
    captures, _ = load_captures([tmp_path])
    assert [c.name for c in captures] == [name]
    server = Upstream(captures, listen="127.0.0.1:0")
    await server.start()
    try:
        _, _, body = await _post(server, {"stream": True}, **{"X-Replay-Trace": header_name(name)})
    finally:
        await server.stop()
    assert body == (tmp_path / name).read_bytes()
    assert header_name(name) == "gateway caf%C3%A9/na%C3%AFve #1.sse"


async def test_an_error_object_is_kept_in_the_completion(upstream: Upstream) -> None:
    _, _, body = await _post(upstream, {}, **{"X-Replay-Trace": "openrouter/error-midstream.sse"})
    doc = json.loads(body)
    assert doc["choices"][0]["finish_reason"] == "error"
    assert doc["error"]["code"] == 502


def test_timing_falls_back_to_a_har_entry_time(tmp_path: Path) -> None:
    har = json.loads((TRACES / "captures/mitmproxy-export.har").read_text())
    entry = har["log"]["entries"][1]
    del entry["timings"]
    entry["time"] = 1500
    (tmp_path / "x.har").write_text(json.dumps(har))
    captures, _ = load_captures([tmp_path])
    first = next(c for c in captures if c.name == "x.har#2")
    assert first.timing is not None and first.timing.source == "HAR time"
    assert first.delays()[0] == 0 and sum(first.delays()) == pytest.approx(1.5)


async def test_the_start_up_lines_say_how_each_capture_is_paced() -> None:
    from replay_tui.cli.serving import describe

    captures, _ = load_captures([TRACES / "captures"])
    lines = describe(Upstream(captures, listen="127.0.0.1:0", timing=True))
    assert lines[0] == "base URL: http://127.0.0.1:0/v1"
    har = next(x for x in lines if "mitmproxy-export.har#4" in x)
    assert "paced by HAR timings: 0.392s to the first event, the rest over 0.913s" in har
    plain = next(x for x in lines if "late-id.sse" in x)
    assert "no timing recorded: at once" in plain


async def test_a_fault_of_its_own_is_a_json_500(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(model: str | None) -> None:
        raise RuntimeError("no capture chosen")

    monkeypatch.setattr(upstream, "_choose", broken)
    status, ctype, body = await _post(upstream, {"stream": True})
    assert status == 500 and ctype.startswith("application/json")
    assert json.loads(body)["error"] == {
        "message": "replay-tui upstream failed: RuntimeError: no capture chosen",
        "type": "server_error",
        "param": None,
        "code": "internal_error",
    }


async def test_an_emoji_cut_in_two_between_deltas_is_in_the_completion(tmp_path: Path) -> None:
    # A gateway in JavaScript cuts strings by UTF-16 units: an emoji's two halves go out as
    # lone surrogate escapes in two payloads. The assembled answer holds the whole emoji
    # (msgspec refuses each payload alone; JSON.parse takes them).
    pieces = ['{"t":"hi \ud83d', '\ude00 there"}']
    chunks = [
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "say", "arguments": ""},
                }
            ],
        },
        *({"tool_calls": [{"index": 0, "function": {"arguments": p}}]} for p in pieces),
    ]
    body = "".join(
        f"data: {json.dumps({'id': 'c', 'choices': [{'index': 0, 'delta': d}]})}\n\n"
        for d in chunks
    )
    (tmp_path / "cut.sse").write_text(body + "data: [DONE]\n\n")
    assert "\\ude00" in (tmp_path / "cut.sse").read_text()
    captures, _ = load_captures([tmp_path])
    server = Upstream(captures, listen="127.0.0.1:0")
    await server.start()
    try:
        status, _, answer = await _post(server, {"stream": False})
    finally:
        await server.stop()
    assert status == 200
    (call,) = json.loads(answer)["choices"][0]["message"]["tool_calls"]
    assert call["function"]["arguments"] == '{"t":"hi 😀 there"}'
    assert call["id"] == "call_1" and call["function"]["name"] == "say"


async def test_a_malformed_request_is_one_line_and_a_json_error() -> None:
    """A bad Content-Length, a header over 8 KB, a body that is not the gzip it says: each
    printed aiohttp's traceback, and the last was a 500 (a fault hunt's finding). One line
    each on stderr, and a 400."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "replay_tui.cli", "upstream", str(TRACES / "dashscope"),
        "--listen", "127.0.0.1:0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        match = re.fullmatch(r"base URL: http://127\.0\.0\.1:(\d+)/v1\n", first)
        assert match, first
        port = int(match.group(1))
        for raw in (
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
        ):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(raw)
            assert (await asyncio.wait_for(reader.read(12), 10)).startswith(b"HTTP/1.")
            writer.close()
        async with (
            aiohttp.ClientSession() as session,
            session.post(
                f"http://127.0.0.1:{port}/v1/chat/completions",
                data=b"not gzip",
                headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
            ) as response,
        ):
            assert response.status == 400
            doc = await response.json()
        assert doc["error"]["message"] == (
            "bad request body: Can not decode content-encoding: gzip"
        )
    finally:
        proc.terminate()
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    text = err.decode()
    assert "Traceback" not in text
    assert "BadHttpMessage: Invalid character in Content-Length" in text
    assert "LineTooLong: Got more than 8190 bytes" in text
    assert all(line.startswith("replay-tui: ") for line in text.splitlines() if line.strip())
