"""The TUI's ``e`` key writes the open trace's report and says where; ``serve``'s guard rails."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from replay_tui.share.export import EXPORT_DIR_ENV, report_name
from replay_tui.share.serve import is_loopback, tui_command
from replay_tui.tui.app import make_app

from .samples import QWEN, TRACES

Cli = Callable[..., tuple[int, str, str]]


async def test_e_exports_the_open_trace_and_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(EXPORT_DIR_ENV, str(tmp_path))
    app = make_app([str(QWEN)])
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        for _ in range(200):  # until the trace is open
            if app.current is not None and not app.partial:
                break
            await pilot.pause(0.02)
        await pilot.press("e")
        await app.workers.wait_for_complete([w for w in app.workers if w.group == "export"])
        await pilot.pause()
        written = tmp_path / report_name(app.current.address if app.current else "")
        assert written.exists()
        assert '<tr class="erasing">' in written.read_text()
        # (a path longer than a toast's line is broken after its separators: tui/toasts.py)
        said = [str(n.message).replace("\n", "") for n in app._notifications]
        assert any(str(written) in text for text in said)


def test_a_report_that_cannot_be_written_says_where_it_was_going(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from replay_tui.core.discovery import discover
    from replay_tui.core.trace import load_trace
    from replay_tui.share.export import export_notice

    nowhere = tmp_path / "no" / "such" / "folder"
    monkeypatch.setenv(EXPORT_DIR_ENV, str(nowhere))
    [source] = discover([QWEN]).sources
    message, ok = export_notice(load_trace(source))
    assert not ok
    assert message == (
        f"Could not write the report to {nowhere / report_name(source.address)}:"
        " No such file or directory"
    )


def test_report_names_are_plain_file_names() -> None:
    assert report_name("captures/x.har#3") == "captures-x.har.3.report.html"
    assert report_name("../../etc/passwd") == "etc-passwd.report.html"
    assert "/" not in report_name("a/<b>\x00/c", "md")


def test_serve_refuses_a_reachable_address_without_the_flag(cli: Cli) -> None:
    code, out, err = cli("serve", str(TRACES), "--host", "0.0.0.0")
    assert code == 2 and out == ""
    assert "--allow-remote" in err and err.count("\n") == 1


def test_serve_checks_its_paths_first(cli: Cli, tmp_path: Path) -> None:
    code, _, err = cli("serve", str(tmp_path / "nope"))
    assert code == 2 and "no such file or folder" in err


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("127.8.0.1", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("::", False),
        ("example.org", False),
    ],
)
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_each_tab_runs_the_tui_on_the_paths_as_given() -> None:
    command = tui_command(["traces", "my captures"])
    assert command.endswith("traces 'my captures'")
    assert "run_app" in command


def _serve(*flags: str) -> list[str]:
    """``replay-tui serve traces/ FLAGS`` as a process of its own runs it."""
    import sys

    boot = "import sys; from replay_tui.cli import main; sys.exit(main())"
    return [sys.executable, "-c", boot, "serve", str(TRACES), *flags]


def test_serve_on_a_busy_port_is_one_line_and_exit_2() -> None:
    import socket
    import subprocess

    pytest.importorskip("textual_serve")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            _serve("--port", str(port)),
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 2
    assert done.stderr.startswith(f"replay-tui: cannot listen on 127.0.0.1:{port}: ")
    assert done.stderr.count("\n") == 1
    # in words, with what to do; never asyncio's Python tuple ("('127.0.0.1', 8000)")
    assert "('127.0.0.1'" not in done.stderr and "--port 0" in done.stderr


@pytest.mark.parametrize("remote", [False, True])
def test_served_page_names_the_address_it_was_reached_at(remote: bool) -> None:
    """The page's script and websocket are at the address the browser used (it named the
    server's own hostname, which another machine may not resolve: the page never loaded).
    On loopback, a request naming any other host is refused: a web page elsewhere whose
    name was made to resolve to 127.0.0.1 (DNS rebinding) gets nothing."""
    import http.client
    import re
    import subprocess

    pytest.importorskip("textual_serve")
    flags = ["--host", "0.0.0.0", "--allow-remote"] if remote else []
    proc = subprocess.Popen(
        _serve("--port", "0", *flags),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        found = re.search(r":(\d+)/\?token=([\w-]+)", proc.stdout.readline())
        assert found
        port, token = int(found.group(1)), found.group(2)

        def get(host: str) -> tuple[int, list[str]]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", f"/?token={token}", headers={"Host": host})
            response = conn.getresponse()
            body = response.read().decode()
            conn.close()
            return response.status, re.findall(r'(?:http|ws)://[^"]*(?:textual\.js|/ws)', body)

        assert get(f"127.0.0.1:{port}") == (
            200,
            [f"http://127.0.0.1:{port}/static/js/textual.js", f"ws://127.0.0.1:{port}/ws"],
        )
        assert get("localhost:9000") == (  # an SSH tunnel's port
            200,
            ["http://localhost:9000/static/js/textual.js", "ws://localhost:9000/ws"],
        )
        elsewhere = get(f"192.0.2.2:{port}")
        if remote:
            assert elsewhere == (
                200,
                [f"http://192.0.2.2:{port}/static/js/textual.js", f"ws://192.0.2.2:{port}/ws"],
            )
        else:
            assert elsewhere == (403, [])
            assert get(f"rebound.example:{port}") == (403, [])
    finally:
        proc.terminate()
        proc.wait(timeout=10)
