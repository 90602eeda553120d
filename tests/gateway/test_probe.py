"""``replay-tui probe``: real processes and sockets on 127.0.0.1 — the mock provider, a tiny
gateway written here that passes streams through or misbehaves in one way each, and the probe
command in a subprocess."""

from __future__ import annotations

import asyncio
import gzip
import json
import shutil
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from replay_tui.gateway.captures import load_captures
from replay_tui.gateway.upstream import Upstream

REPO = Path(__file__).resolve().parents[2]
TRACES = REPO / "traces"
ERASING = "dashscope/qwen3-max-id-empty.sse"
CLEAN = "openai/gpt-4.1-text-then-call.sse"


@pytest.fixture
def captures(tmp_path: Path) -> Path:
    folder = tmp_path / "captures"
    for name in (ERASING, CLEAN):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(TRACES / name, folder / name)
    return folder


class Gateway:
    """A gateway in front of the mock provider: ``mode`` says how it behaves."""

    def __init__(self, mode: str, upstream: str) -> None:
        self.mode = mode
        self.upstream = upstream
        self.port = 0
        self.requests = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        mode = self.mode
        self.requests += 1
        if mode == "pass-then-stall":  # the first capture whole, the next stalled
            mode = "pass" if self.requests == 1 else "stall"
        if mode == "hang":
            await asyncio.sleep(3600)
        if mode == "json":
            return web.json_response({"ok": True})
        if mode == "500":
            return web.Response(status=500, text="upstream exploded\n")
        if mode == "429":
            return web.json_response({"error": {"message": "slow down"}}, status=429)
        headers = {"Content-Type": "application/json"}
        if mode == "fixed-model":
            body["model"] = ERASING  # every request reaches the same capture
        else:
            headers["X-Replay-Trace"] = request.headers["X-Replay-Trace"]
        sse = {"Content-Type": "text/event-stream"}
        if mode in ("gzip", "says-gzip"):  # (says-gzip: labelled gzip, sent plain)
            sse["Content-Encoding"] = "gzip"
        response = web.StreamResponse(headers=sse)
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"{self.upstream}/chat/completions", json=body, headers=headers) as up,
        ):
            await response.prepare(request)
            data = await up.read()
        events = data.split(b"\n\n")
        if mode in ("drop", "stall"):
            await response.write(events[0] + b"\n\n")
            if mode == "stall":
                await asyncio.sleep(3600)
            assert request.transport is not None
            request.transport.close()
            return response
        if mode == "erase":
            data = b"\n\n".join(_erase(e) for e in events)
        if mode == "gzip":  # (headers are sent: a gzip stream the probe must undo)
            data = gzip.compress(data)
        await response.write(data)
        await response.write_eof()
        return response


def _erase(event: bytes) -> bytes:
    """Give every continuation delta of a tool call ``"id": ""`` (the DashScope pattern)."""
    if not event.startswith(b"data: {"):
        return event
    chunk = json.loads(event[6:])
    for choice in chunk.get("choices", []):
        for call in choice.get("delta", {}).get("tool_calls") or []:
            call.setdefault("id", "")
    return b"data: " + json.dumps(chunk).encode()


@pytest.fixture
async def upstream(captures: Path) -> AsyncIterator[Upstream]:
    served, _ = load_captures([captures])
    server = Upstream(served, listen="127.0.0.1:0")
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def _gateway(mode: str, upstream_url: str) -> tuple[Gateway, web.AppRunner]:
    gateway = Gateway(mode, upstream_url)
    app = web.Application()
    app.router.add_post("/v1/chat/completions", gateway.handle)
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    gateway.port = int(runner.addresses[0][1])
    return gateway, runner


async def _probe(*argv: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "replay_tui.cli",
        "probe",
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def _probe_json(
    mode: str, upstream: Upstream, captures: Path, tmp_path: Path, *extra: str
) -> tuple[int, dict[str, Any], str]:
    gateway, runner = await _gateway(mode, upstream.base_url)
    try:
        code, out, err = await _probe(
            "--gateway", gateway.url, str(captures), "--out", str(tmp_path / "out"), "--json",
            *extra,
        )  # fmt: skip
    finally:
        await runner.cleanup()
    assert "Traceback" not in err
    return code, json.loads(out), err


def _by_capture(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["capture"]: c for c in doc["captures"]}


async def test_a_pass_through_gateway_changes_nothing(
    upstream: Upstream, captures: Path, tmp_path: Path
) -> None:
    secrets = ("Authorization: Bearer sk-one", "x-portkey-api-key: pk-two", "X-Gw-Token: t-3")
    argv = [x for h in secrets for x in ("--header", h)]
    code, doc, _ = await _probe_json(
        "pass", upstream, captures, tmp_path, *argv, "--header", "x-route: blue"
    )
    assert code == 0
    for text in (p.read_text() for p in (tmp_path / "out").rglob("*.meta.json")):
        assert not any(s in text for s in ("sk-one", "pk-two", "t-3"))
        assert '"x-route": "blue"' in text  # what is not a credential is kept
    for name, c in _by_capture(doc).items():
        assert c["problem"] is None and c["introduced"] == []
        assert c["changed"]["same_outcome"] == {"accept-identity": True, "assign-always": True}
        assert c["changed"]["events_changed"] == 0
        assert c["gateway"]["verdicts"] == c["upstream"]["verdicts"]
        saved = Path(c["output"])
        assert saved.read_bytes() == (TRACES / name).read_bytes()
        meta = json.loads(saved.with_name(saved.name + ".meta.json").read_text())
        assert meta["complete"] is True and meta["probe"]["capture"] == name
    erasing = _by_capture(doc)[ERASING]
    assert [f["kind"] for f in erasing["upstream"]["flags"]] == ["erased-id"]
    assert erasing["gateway"]["flags"] == erasing["upstream"]["flags"]


async def test_an_erasing_gateway_is_exit_1_and_says_what_it_changed(
    upstream: Upstream, captures: Path, tmp_path: Path
) -> None:
    code, doc, _ = await _probe_json("erase", upstream, captures, tmp_path)
    assert code == 1
    clean = _by_capture(doc)[CLEAN]
    assert clean["introduced"] == ["erasure"]
    assert clean["upstream"]["verdicts"]["assign-always"] == "ok"
    assert clean["gateway"]["verdicts"]["assign-always"] == "unidentified-call"
    assert [f["kind"] for f in clean["gateway"]["flags"]] == ["erased-id"]
    assert clean["changed"]["same_outcome"]["assign-always"] is False
    assert clean["changed"]["same_outcome"]["accept-identity"] is True
    assert clean["diff"]["calls"][0]["deltas"]  # the identity evolution, delta by delta
    # the capture that already erased its id gains nothing new
    assert _by_capture(doc)[ERASING]["introduced"] == []
    assert doc["summary"]["erasure_introduced"] == 1


@pytest.mark.parametrize(
    ("mode", "kind", "words"),
    [
        ("json", "not-sse", "answered HTTP 200 with application/json; charset=utf-8, not text"),
        ("500", "http-error", "answered HTTP 500 Internal Server Error: upstream exploded"),
        ("429", "http-error", 'answered HTTP 429 Too Many Requests: {"error"'),
        ("hang", "timeout", "no answer from the gateway within 0.5s"),
        ("drop", "dropped", "dropped the connection mid-stream after"),
        ("stall", "stalled", "stream stalled after"),
    ],
)
async def test_a_misbehaving_gateway_is_one_line_per_capture(
    upstream: Upstream, captures: Path, tmp_path: Path, mode: str, kind: str, words: str
) -> None:
    code, doc, err = await _probe_json(mode, upstream, captures, tmp_path, "--timeout", "0.5")
    assert code == 3  # nothing introduced, but not every capture went through
    for name, c in _by_capture(doc).items():
        assert c["problem"]["kind"] == kind, c["problem"]
        assert words in c["problem"]["message"]
        line = f"replay-tui: {name}: {kind}: "
        assert sum(line in x for x in err.splitlines()) == 1, err
    if mode in ("drop", "stall"):
        # what came before the cut is kept and judged: a stream without [DONE]
        c = _by_capture(doc)[CLEAN]
        assert c["gateway"]["verdicts"]["accept-identity"] == "stream-closed"
        meta = json.loads(Path(c["output"] + ".meta.json").read_text())
        assert meta["complete"] is False and kind in c["problem"]["kind"]


async def test_a_gateway_that_is_down(captures: Path, tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, err = await _probe(
        "--gateway", f"http://127.0.0.1:{port}/v1", str(captures), "--out", str(tmp_path / "o")
    )
    assert code == 3
    assert "Traceback" not in err
    lines = [x for x in err.splitlines() if ": down: " in x]
    assert len(lines) == 2
    assert all(f"cannot connect to 127.0.0.1:{port}: Connection refused" in x for x in lines)
    assert "2 captures through" in out and "2 not probed whole" in out


async def test_start_upstream_checks_where_each_request_went(
    captures: Path, tmp_path: Path
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}/v1"
    for mode, code_wanted in (("pass", 0), ("fixed-model", 3)):
        gateway, runner = await _gateway(mode, base)
        try:
            code, out, err = await _probe(
                "--gateway", gateway.url, str(captures), "--start-upstream",
                "--upstream-listen", f"127.0.0.1:{port}", "--out", str(tmp_path / mode),
                "--json",
            )  # fmt: skip
        finally:
            await runner.cleanup()
        assert f"upstream serving 2 captures on {base}" in err
        doc = json.loads(out)
        assert code == code_wanted, err
        assert doc["upstream"] == base
        if mode == "fixed-model":
            c = _by_capture(doc)[CLEAN]
            assert c["problem"]["kind"] == "misrouted"
            assert f"reached the upstream as {ERASING} (chosen by name" in c["problem"]["message"]
            assert _by_capture(doc)[ERASING]["problem"] is None


async def test_the_table(upstream: Upstream, captures: Path, tmp_path: Path) -> None:
    gateway, runner = await _gateway("erase", upstream.base_url)
    try:
        code, out, err = await _probe("--gateway", gateway.url, str(captures))
    finally:
        await runner.cleanup()
    assert code == 1
    lines = out.splitlines()
    assert lines[0].split() == [
        "CAPTURE", "UPSTREAM", "(assign-always", "/", "accept-identity)", "THROUGH", "THE",
        "GATEWAY", "WHAT", "THE", "GATEWAY", "CHANGED",
    ]  # fmt: skip
    row = next(x for x in lines if x.startswith(CLEAN))
    assert "ok / ok" in row and "unidentified-call / ok, 1 flag" in row
    assert "INTRODUCED ERASURE; outcome differs (assign-always)" in row
    summary = next(i for i, x in enumerate(lines) if x.startswith("2 captures through"))
    assert "1 outcome changed, 1 with an erasure or refusal introduced" in lines[summary]
    assert lines[summary + 1].startswith(f"  replay-tui diff {captures / CLEAN} ")
    assert lines[summary + 1].endswith(f"/gateway/{CLEAN}")
    # the default output folder is a new temporary one, said on stderr
    said = next(x for x in err.splitlines() if "gateway outputs in " in x)
    folder = Path(said.split("gateway outputs in ", 1)[1].rstrip("/"))
    assert (folder / "gateway" / CLEAN).is_file()
    assert (folder / "upstream" / CLEAN).read_bytes() == (TRACES / CLEAN).read_bytes()
    shutil.rmtree(folder)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((str(TRACES),), "probe: --gateway URL is required"),
        (("--gateway", "ftp://x", str(TRACES)), "--gateway: expected an http:// or https://"),
        (("--gateway", "http://a b/v1", str(TRACES)), "--gateway: not a host name"),
        (("--gateway", "http://x/v1", "--header", "nocolon", str(TRACES)), "--header: expected"),
        # what no request can carry: said before anything is probed, not as the gateway
        # "down" for each capture (a fault hunt's finding), the value never echoed
        (
            ("--gateway", "http://x/v1", "--header", "X-A: a\x01b", str(TRACES)),
            "--header X-A: its value holds a control character",
        ),
        (("--gateway", "http://x/v1", "--header", "X A: b", str(TRACES)), "--header: expected"),
        (
            ("--gateway", "http://u:p@x/v1", "--header", "Authorization: Bearer s", str(TRACES)),
            "--header Authorization and a user:password in --gateway: give one of them",
        ),
        (("--gateway", "http://x/v1", "--timeout", "0", str(TRACES)), "--timeout: expected"),
        # (the started upstream's words name probe's options, not upstream's)
        (
            (
                "--gateway",
                "http://x/v1",
                "--start-upstream",
                "--upstream-listen",
                "0.0.0.0:0",
                str(TRACES),
            ),
            "--upstream-listen 0.0.0.0 can be reached from other machines: add"
            " --upstream-allow-remote",
        ),
        (("--gateway", "http://x/v1", "nowhere/"), "nowhere/: no such file or folder"),
        (("--gateway", "http://x/v1", "--tui", str(TRACES)), "the TUI needs a terminal"),
    ],
)
async def test_usage_errors(argv: tuple[str, ...], message: str) -> None:
    code, _, err = await _probe(*argv)
    assert code == 2
    assert message in err.strip().splitlines()[-1]
    assert "Traceback" not in err


async def test_captures_of_the_same_name_in_two_folders_keep_both_outputs(
    captures: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    (other / "openai").mkdir(parents=True)
    shutil.copy(TRACES / ERASING, other / CLEAN)  # same name, other content
    served, _ = load_captures([captures, other])
    upstream = Upstream(served, listen="127.0.0.1:0")
    await upstream.start()
    gateway, runner = await _gateway("pass", upstream.base_url)
    try:
        code, out, err = await _probe(
            "--gateway", gateway.url, str(captures), str(other), "--out", str(tmp_path / "o"),
            "--json",
        )  # fmt: skip
    finally:
        await runner.cleanup()
        await upstream.stop()
    assert code == 0 and "Traceback" not in err
    doc = json.loads(out)
    second = str(other / CLEAN)  # named by its path: its address is taken
    names = [c["capture"] for c in doc["captures"]]
    assert names == [ERASING, CLEAN, second]
    outputs = [Path(c["output"]) for c in doc["captures"]]
    assert len(set(outputs)) == 3
    assert all(o.is_relative_to(tmp_path / "o" / "gateway") for o in outputs)
    assert outputs[2].read_bytes() == (TRACES / ERASING).read_bytes()
    assert (other / CLEAN).read_bytes() == (TRACES / ERASING).read_bytes()  # left as it was


async def test_an_output_folder_that_cannot_be_written_is_one_line_per_capture(
    upstream: Upstream, captures: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "gateway").write_text("a file where the outputs' folder goes")
    code, doc, err = await _probe_json("pass", upstream, captures, tmp_path)
    assert code == 3
    for name, c in _by_capture(doc).items():
        assert c["problem"]["kind"] == "unwritable"
        assert c["problem"]["message"].startswith("cannot save the gateway's answer: ")
        assert sum(f"replay-tui: {name}: unwritable: " in x for x in err.splitlines()) == 1


async def test_an_upstream_that_cannot_listen_is_a_usage_error(
    captures: Path, tmp_path: Path
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, _, err = await _probe(
            "--gateway", "http://127.0.0.1:9/v1", str(captures), "--start-upstream",
            "--upstream-listen", f"127.0.0.1:{port}", "--out", str(tmp_path / "o"),
        )  # fmt: skip
    assert code == 2
    assert f"cannot listen on 127.0.0.1:{port}: " in err.strip().splitlines()[-1]
    assert not (tmp_path / "o" / "gateway").exists()
    assert "Traceback" not in err


async def test_the_behavior_judges_the_headline(
    upstream: Upstream, captures: Path, tmp_path: Path
) -> None:
    code, doc, _ = await _probe_json(
        "erase", upstream, captures, tmp_path, "--behavior", "assign-always"
    )
    assert code == 1 and doc["behavior"] == "assign-always"
    clean = _by_capture(doc)[CLEAN]
    assert clean["changed"]["headline"].startswith("outcome differs under assign-always: call 0")
    assert clean["diff"]["behavior"] == "assign-always"


async def test_the_gateways_credentials_are_never_printed(
    upstream: Upstream, captures: Path, tmp_path: Path
) -> None:
    """A password in --gateway and an api-key in its query reached stdout and --json (the
    sidecars had them redacted; a fault hunt's finding)."""
    gateway, runner = await _gateway("pass", upstream.base_url)
    given = gateway.url.replace("http://", "http://bob:GWPASS@") + "?api-key=QKEY999"
    try:
        for extra in ((), ("--json",)):
            code, out, err = await _probe(
                "--gateway", given, str(captures), "--out", str(tmp_path / f"o{len(extra)}"),
                *extra,
            )  # fmt: skip
            assert code == 0, err
            assert "GWPASS" not in out + err and "QKEY999" not in out + err
            assert "bob:[redacted]@" in out and "api-key=[redacted]" in out
    finally:
        await runner.cleanup()


async def test_a_gateway_that_cannot_be_reached_says_why_in_its_own_words(
    upstream: Upstream, captures: Path, tmp_path: Path
) -> None:
    """A name that does not resolve said "Unknown error -2", TLS to a plain HTTP server
    "Operation not permitted": their codes read as errnos (a fault hunt's finding)."""
    cases = [
        ("http://nosuch.invalid/v1", "cannot connect to nosuch.invalid:80: "),
        (upstream.base_url.replace("http://", "https://"), " over TLS: wrong version number"),
    ]
    for gateway, said in cases:
        code, _, err = await _probe(
            "--gateway", gateway, str(captures), "--out", str(tmp_path / f"o{len(said)}")
        )
        assert code == 3 and "Traceback" not in err
        lines = [x for x in err.splitlines() if ": down: " in x]
        assert len(lines) == 2 and all(said in x for x in lines), err
        assert "Unknown error" not in err and "Operation not permitted" not in err


async def test_a_probe_stopped_mid_stream_finishes_its_sidecar(
    upstream: Upstream, captures: Path, tmp_path: Path
) -> None:
    """Ctrl-C while the gateway's stream is under way left its sidecar saying "finished":
    null, which the TUI's live view reads as a capture still being written (a fault hunt's
    finding). It now says the probe stopped."""
    gateway, runner = await _gateway("stall", upstream.base_url)
    out = tmp_path / "out"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "replay_tui.cli", "probe", "--gateway", gateway.url,
        str(captures), "--out", str(out), "--timeout", "60",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = asyncio.get_running_loop().time() + 60
        while not [p for p in (out / "gateway").rglob("*.sse") if p.stat().st_size]:
            assert asyncio.get_running_loop().time() < deadline, "nothing streamed"
            await asyncio.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
        await runner.cleanup()
    assert b"Traceback" not in err
    metas = [json.loads(p.read_text()) for p in (out / "gateway").rglob("*.meta.json")]
    assert metas and all(m["finished"] is not None for m in metas)
    stopped = [m for m in metas if m["incomplete_reason"] == "probe stopped"]
    assert stopped and all(m["complete"] is False and m["bytes"] > 0 for m in stopped)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
async def test_a_probe_stopped_reports_what_it_probed_until_then(
    sig: signal.Signals, upstream: Upstream, captures: Path, tmp_path: Path
) -> None:
    """Ctrl-C (or SIGTERM) at the second capture said nothing of the first, probed whole:
    the run's report was lost with the one under way. What was probed is now reported, the
    exit status says the run was stopped, and --json says so too."""
    gateway, runner = await _gateway("pass-then-stall", upstream.base_url)
    out = tmp_path / "out"
    try:
        for extra in ((), ("--json",)):
            gateway.requests = 0
            where = out / str(len(extra))
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "replay_tui.cli", "probe", "--gateway", gateway.url,
                str(captures), "--out", str(where), "--timeout", "60", *extra,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            try:
                deadline = asyncio.get_running_loop().time() + 60
                while not (
                    gateway.requests == 2
                    and [p for p in (where / "gateway").rglob("*.sse") if p.stat().st_size]
                    and len(list((where / "gateway").rglob("*.sse"))) == 2
                ):
                    assert asyncio.get_running_loop().time() < deadline, "no second request"
                    await asyncio.sleep(0.05)
                await asyncio.sleep(0.2)  # (the second's first event written)
                proc.send_signal(sig)
                stdout, err = await asyncio.wait_for(proc.communicate(), 30)
            finally:
                if proc.returncode is None:
                    proc.kill()
            said, text = err.decode(), stdout.decode()
            assert proc.returncode == 128 + sig, said
            assert "Traceback" not in said
            assert f"probe stopped by {sig.name} after 1 of 2 captures: those are reported" in said
            first = sorted(["dashscope/qwen3-max-id-empty", "openai/gpt-4.1-text-then-call"])[0]
            if extra:
                doc = json.loads(text)
                assert [c["capture"] for c in doc["captures"]] == [first + ".sse"]
                assert doc["summary"]["stopped"] is True and doc["summary"]["of"] == 2
                assert doc["exit_status"] == 128 + sig
            else:
                rows = [x for x in text.splitlines() if x.startswith(first)]
                assert len(rows) == 1 and rows[0].count(" / ") == 2, text  # both sides judged
                assert "1 of 2 captures (stopped) through " in text
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("mode", ["gzip", "says-gzip"])
async def test_a_compressed_answer_or_one_only_labelled_so_is_read(
    mode: str, upstream: Upstream, captures: Path, tmp_path: Path
) -> None:
    """An answer labelled gzip but sent plain was thrown away as "the gateway dropped the
    connection mid-stream after 0 bytes" (aiohttp's decoder failed on it; a fault hunt's
    finding). The probe undoes gzip as the recorder does, and keeps what is not gzip as
    sent, its sidecar saying which."""
    code, doc, _ = await _probe_json(mode, upstream, captures, tmp_path)
    assert code == 0, doc
    for name, c in _by_capture(doc).items():
        assert c["problem"] is None and c["introduced"] == []
        saved = Path(c["output"])
        assert saved.read_bytes() == (TRACES / name).read_bytes()
        meta = json.loads(saved.with_name(saved.name + ".meta.json").read_text())
        assert meta["encoding"]["content_encoding"] == "gzip"
        assert meta["encoding"]["decoded"] is (mode == "gzip")


async def test_a_full_disk_leaves_no_cut_capture_and_the_rest_is_probed(
    tmp_path: Path, small_disk: Path
) -> None:
    """A 1 MB disk and a 1.5 MB capture: the probe left the upstream's copy cut at 1 MB
    (which the TUI opened on OUT lists as the upstream's stream) and an empty gateway output
    with no sidecar, and the disk stayed full for the next capture. Nothing cut is left now,
    the capture is said to be unwritable, and the next one is probed whole."""
    folder = tmp_path / "captures"
    folder.mkdir()
    shutil.copy(TRACES / ERASING, folder / "small.sse")
    head = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}}
    deltas = [{"tool_calls": [{**head, "function": {"name": "f", "arguments": ""}}]}]
    deltas += [{"tool_calls": [{"index": 0, "function": {"arguments": "x" * 200}}]}] * 6000
    chunks: list[dict[str, Any]] = [
        {"id": "c", "created": 1, "model": "m", "choices": [{"index": 0, "delta": d}]}
        for d in deltas
    ]
    chunks.append(
        {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    )
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    (folder / "big.sse").write_text(body)
    assert len(body) > 1_400_000
    served, _ = load_captures([folder])
    server = Upstream(served, listen="127.0.0.1:0")
    await server.start()
    gateway, runner = await _gateway("pass", server.base_url)
    try:
        code, out, err = await _probe(
            "--gateway", gateway.url, str(folder), "--out", str(small_disk), "--json"
        )  # fmt: skip
    finally:
        await runner.cleanup()
        await server.stop()
    assert "Traceback" not in err
    assert code == 3, err
    doc = _by_capture(json.loads(out))
    assert doc["big.sse"]["problem"]["kind"] == "unwritable"
    assert "No space left on device" in doc["big.sse"]["problem"]["message"]
    assert doc["small.sse"]["problem"] is None  # the room the cut copy took is given back
    for kept in small_disk.rglob("*.sse"):  # every capture left is whole, its sidecar beside
        assert kept.name == "small.sse", sorted(p.name for p in small_disk.rglob("*"))
    gateway_out = small_disk / "gateway" / "small.sse"
    assert gateway_out.read_bytes() == (folder / "small.sse").read_bytes()
    assert json.loads(Path(f"{gateway_out}.meta.json").read_text())["complete"] is True
