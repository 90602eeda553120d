"""The ``record`` command line: usage errors in-process, the Ctrl-C path in a real subprocess."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import socket
import sys
from pathlib import Path

import aiohttp
import pytest
from record_helpers import DASHSCOPE_EVENTS, WAIT, FakeUpstream, Script, captures, load_meta

from replay_tui.cli import main
from replay_tui.cli.record import configure, recorder_from_args

REPO = Path(__file__).resolve().parents[2]
CHAT = "/v1/chat/completions"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="replay-tui record")
    configure(parser)
    return parser.parse_args(list(argv))


def test_defaults_and_options() -> None:
    args = parse("--upstream", "https://api.deepseek.com")
    assert (args.listen, args.out, args.save_all, args.save_bodies, args.tui) == (
        "127.0.0.1:8787",
        "traces",
        False,
        False,
        False,
    )
    args = parse(
        "--upstream=http://gw:4000/openai",
        "--listen=:0",
        "--out=caps",
        "--all",
        "--save-bodies",
        "--redact=x-org-.*",
        "--redact=x-tenant",
        "--timeout=5",
        "--tui",
    )
    rec = recorder_from_args(args)
    assert rec.address == "127.0.0.1:0"
    assert str(rec.upstream) == "http://gw:4000/openai"
    assert rec.save_all and rec.save_bodies and args.tui
    assert args.redact == ["x-org-.*", "x-tenant"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((), "--upstream URL is required"),
        (("--upstream", "ftp://example.com"), "--upstream: expected an http:// or https://"),
        (("--upstream", "api.example.com"), "--upstream: expected an http:// or https://"),
        (("--upstream", "http://a b"), "--upstream: not a host name: 'http://a b'"),
        (("--upstream", "http://x/?a=1"), "--upstream: must not have a query"),
        (("--upstream", "http://x", "--listen", "localhost:http"), "--listen: expected"),
        (("--upstream", "http://x", "--listen", "127.0.0.1:70000"), "--listen: expected"),
        (("--upstream", "http://x", "--redact", "("), "--redact: invalid pattern"),
        (("--upstream", "http://x", "--timeout", "0"), "--timeout: expected a positive"),
    ],
)
def test_usage_errors_are_one_line(
    argv: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["record", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("replay-tui: ")
    assert message in err


def test_address_in_use_and_unwritable_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = str(tmp_path / "t")
        assert (
            main(
                ["record", "--upstream", "http://x", "--listen", f"127.0.0.1:{port}", "--out", out]
            )
            == 2
        )
    err = capsys.readouterr().err
    assert err == (
        f"replay-tui: cannot listen on 127.0.0.1:{port}: Address already in use (another program"
        " listens there: another --listen HOST:PORT, or port 0 for a free one)\n"
    )  # (not asyncio's words, the address as a Python tuple; a fault hunt's finding)
    assert not (tmp_path / "t").exists()  # the failed start left no empty --out folder

    nested = tmp_path / "made" / "for" / "this"
    argv = ["record", "--upstream", "http://x", "--listen", f"127.0.0.1:{port}", "--out"]
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", port))
        busy.listen()
        assert main([*argv, str(nested)]) == 2
    assert not (tmp_path / "made").exists()
    capsys.readouterr()

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    out = str(blocker / "traces")
    assert main(["record", "--upstream", "http://x", "--listen", "127.0.0.1:0", "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.startswith("replay-tui: --out: cannot create ")
    assert err.count("\n") == 1


async def _read_line(stream: asyncio.StreamReader, pattern: str, log: list[str]) -> re.Match[str]:
    async with asyncio.timeout(WAIT):
        while True:
            raw = await stream.readline()
            if not raw:
                raise AssertionError("recorder exited early:\n" + "".join(log))
            line = raw.decode()
            log.append(line)
            if found := re.search(pattern, line):
                return found


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
async def test_runs_until_signal_and_flushes_open_captures(
    sig: signal.Signals, upstream: FakeUpstream, tmp_path: Path
) -> None:
    gate = asyncio.Event()  # never set: the second stream is open when the signal arrives
    upstream.scripts[CHAT] = Script([*DASHSCOPE_EVENTS])
    upstream.scripts["/v1/open"] = Script([DASHSCOPE_EVENTS[1], gate])
    out = tmp_path / "traces"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "replay_tui.record",
        "--upstream",
        upstream.url,
        "--listen",
        "127.0.0.1:0",
        "--out",
        str(out),
        "--redact",
        "x-secret-.*",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    assert proc.stderr is not None
    log: list[str] = []
    try:
        found = await _read_line(proc.stderr, r"recording on (http://127\.0\.0\.1:\d+) ", log)
        url = found.group(1)
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as session:
            async with session.post(f"{url}{CHAT}", data=b'{"model":"qwen-plus"}') as r:
                assert await r.read() == b"".join(DASHSCOPE_EVENTS)
            await _read_line(
                proc.stderr, r"qwen-plus-1\.sse  POST /v1/chat/completions -> 200", log
            )

            r = await session.post(f"{url}/v1/open", data=b'{"model":"qwen-plus"}')
            async with asyncio.timeout(WAIT):
                got = b""
                while DASHSCOPE_EVENTS[1] not in got:
                    got += await r.content.readany()
            proc.send_signal(sig)
            rc = await asyncio.wait_for(proc.wait(), WAIT)
            r.close()
        rest = await asyncio.wait_for(proc.stderr.read(), WAIT)
        log.append(rest.decode())
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    text = "".join(log)
    assert rc == 0, text
    assert "Traceback" not in text
    assert "incomplete: recorder stopped" in text
    assert "stopped; 2 requests, 2 captures" in text

    done, cut = captures(out)
    assert load_meta(done)["complete"] is True
    assert done.read_bytes() == b"".join(DASHSCOPE_EVENTS)
    meta = load_meta(cut)
    assert (meta["complete"], meta["incomplete_reason"]) == (False, "recorder stopped")
    assert cut.read_bytes() == DASHSCOPE_EVENTS[1]
