"""``python -m replay_tui.record``: ``replay-tui record`` on its own (tests, debugging)."""

from __future__ import annotations

import sys

from replay_tui.cli import main

if __name__ == "__main__":
    sys.exit(main(["record", *sys.argv[1:]]))
