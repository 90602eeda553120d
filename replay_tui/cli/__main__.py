"""``python -m replay_tui.cli``: the console script, for tests and benchmarks."""

from replay_tui.cli import run

run()
