"""Running ``replay-tui`` in-process with strict UTF-8 streams, as a terminal would take it."""

from __future__ import annotations

import io
import sys

from replay_tui.cli import main


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``replay-tui ARGV``: exit status, stdout, stderr."""
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdout, sys.stderr
    wrappers = [
        io.TextIOWrapper(buf, encoding="utf-8", errors="strict", write_through=True)
        for buf in (out, err)
    ]
    sys.stdout, sys.stderr = wrappers
    try:
        code = main(argv)
    finally:
        sys.stdout, sys.stderr = saved
        for w in wrappers:
            w.flush()
            w.detach()
    return code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8")
