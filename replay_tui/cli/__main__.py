"""``python -m replay_tui.cli``: the console script, for tests and benchmarks."""

from replay_tui.cli import run

if __name__ == "__main__":  # not when a worker process imports the main module again
    run()
