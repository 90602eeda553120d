"""``c`` inside tmux: tmux's default ``set-clipboard external`` drops the OSC 52 sequence an
app sends, so the copy also goes into tmux's paste buffer, and the message says where."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from replay_tui.tui.app import make_app
from replay_tui.tui.clipboard import tmux_buffer

from .conftest import SIZE, TRACES, settle

TEXT = 'data: {"id":"héllo"}\n\tand a tab, and ` [b]markup[/b]'


def _fake_tmux(bin_dir: Path, *, refuse_w: bool = False) -> Path:
    """A ``tmux`` that records its arguments and what it was given (and, like tmux before
    3.2, may refuse ``-w``)."""
    bin_dir.mkdir()
    log = bin_dir / "calls"
    refuse = 'case " $* " in *" -w "*) exit 1;; esac' if refuse_w else ""
    script = bin_dir / "tmux"
    script.write_text(
        f'#!/bin/sh\n{refuse}\necho "$*" >> "{log}"\ncat > "{bin_dir}/buffer"\n', "utf-8"
    )
    script.chmod(0o755)
    return log


def test_outside_tmux_nothing_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = _fake_tmux(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    assert not tmux_buffer(TEXT)
    assert not log.exists()


@pytest.mark.parametrize("refuse_w", [False, True], ids=["tmux-3.2+", "older-tmux"])
def test_inside_tmux_the_text_is_loaded_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refuse_w: bool
) -> None:
    log = _fake_tmux(tmp_path / "bin", refuse_w=refuse_w)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    assert tmux_buffer(TEXT)
    calls = log.read_text().splitlines()
    assert calls == (["load-buffer -"] if refuse_w else ["load-buffer -w -"])
    assert (tmp_path / "bin" / "buffer").read_text("utf-8") == TEXT


def test_a_tmux_that_fails_is_no_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "tmux").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "tmux").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TMUX", "/nowhere,1,0")
    assert not tmux_buffer(TEXT)


@pytest.fixture
def real_tmux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A tmux server of the test's own (its socket in tmp_path), the app run inside it."""
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed (.ci/run installs it)")
    sock = tmp_path / "tmux.sock"
    base = [tmux, "-S", str(sock), "-f", os.devnull]
    subprocess.run([*base, "new-session", "-d", "-s", "t"], check=True)
    try:
        pid = subprocess.run(
            [*base, "display", "-p", "#{pid}"], check=True, capture_output=True, text=True
        ).stdout.strip()
        monkeypatch.setenv("TMUX", f"{sock},{pid},0")
        yield sock
    finally:
        subprocess.run([*base, "kill-server"], check=False, capture_output=True)


async def test_c_in_a_real_tmux_fills_its_paste_buffer_and_says_so(real_tmux: Path) -> None:
    trace = TRACES / "dashscope" / "qwen3-max-id-empty.sse"
    line3 = trace.read_text().splitlines()[2]  # the flagged delta's payload
    app = make_app([str(trace)])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        await pilot.press("c")
        assert app.clipboard == line3
        shown = subprocess.run(
            ["tmux", "-S", str(real_tmux), "show-buffer"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        assert shown == line3
        messages = [str(n.message) for n in app._notifications]
        assert any("into tmux's paste buffer (prefix ] pastes it)" in m for m in messages)
