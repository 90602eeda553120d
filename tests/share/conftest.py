"""Fixtures for the sharing tests: real captures, a hostile trace, the CLI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from replay_tui.cli import main

from .samples import CORPUS, HOSTILE_ARGS, HOSTILE_ID, HOSTILE_NAME, QWEN, TRACES, hostile_sse

__all__ = ["CORPUS", "HOSTILE_ARGS", "HOSTILE_ID", "HOSTILE_NAME", "QWEN", "TRACES", "hostile_sse"]


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    path = tmp_path / "<b>hostile<i>.sse"
    path.write_bytes(hostile_sse())
    return path


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run ``replay-tui ARGS`` in-process: ``(exit status, stdout, stderr)``."""

    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run
