"""Running ``replay-tui`` in-process with strict UTF-8 streams, as a terminal would take it."""

from __future__ import annotations

from tests.robustness.helpers import run_cli as run_cli_bytes


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``replay-tui ARGV``: exit status, stdout, stderr (stdout decoded as UTF-8)."""
    code, out, err = run_cli_bytes(argv)
    return code, out.decode("utf-8"), err
