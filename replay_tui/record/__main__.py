"""``python -m replay_tui.record``: the ``record`` subcommand on its own (tests, debugging)."""

from __future__ import annotations

import argparse
import sys

from replay_tui.record.cli import add_arguments, run


def main(argv: list[str] | None = None) -> int:
    """Parse ``record`` options and run the recorder."""
    parser = argparse.ArgumentParser(prog="replay-tui record")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
