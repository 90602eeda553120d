"""``replay-tui [PATH ...]``: the TUI on folders and files (the command when none is named)."""

from __future__ import annotations

import argparse
import gc
import os
from pathlib import Path

from .errors import EXIT_OK, UsageError
from .terminal import require_terminal
from .traces import require_paths, require_trace

__all__ = ["HELP", "configure", "run"]

HELP = (
    "Replay captured LLM-gateway SSE traces through the harness translator and show"
    " where tool-call identity was erased. Without a command, opens the TUI."
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="folders, files or FILE.har#N (default: the current folder)",
    )
    # The TUI's own: said apart from --help/--version, which every command has, since
    # they go before the paths and no command takes them ('replay-tui check --no-cache').
    tui = parser.add_argument_group("the TUI's options (without a command)")
    tui.add_argument("--no-watch", action="store_true", help="a frozen snapshot: no live reload")
    tui.add_argument(
        "--no-cache",
        action="store_true",
        help="judge every file again: neither read nor write the judgement cache"
        " ($XDG_CACHE_HOME/replay-tui, else ~/.cache/replay-tui)",
    )
    tui.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help="open the two traces A and B (files or FILE.har#N), A marked, in the compare view",
    )
    tui.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="processes that judge the listed files (default: one per core)",
    )


def run(args: argparse.Namespace) -> int:
    compare: tuple[str, str] | None = None
    if args.compare:
        if args.paths:
            raise UsageError("--compare A B opens those two traces: name no other PATH")
        args.paths = list(args.compare)
        a, b = (Path(p).as_posix() for p in args.compare)  # (their addresses in the list)
        if a == b:
            raise UsageError("--compare: A and B are the same trace")
        for given in args.compare:  # (each one trace, or the app shows the list instead)
            if os.path.isdir(given):  # (one trace in it is listed at another address)
                raise UsageError(f"--compare: {given}: a folder: name a file, or FILE.har#N")
            try:
                require_trace(given)
            except UsageError as exc:
                raise UsageError(f"--compare: {exc}") from None
        compare = (a, b)
    paths: list[str] = args.paths or ["."]
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs: expected 1 or more, got {args.jobs}")
    require_paths(paths)
    require_terminal()
    # The objects made from here to the first frame (Textual's import, the app's widgets)
    # are not garbage: the collector's passes over them, a tenth of the time to the first
    # rows, wait (the app turns it on again after that frame: ReplayApp._discover).
    gc.disable()
    from replay_tui.tui.app import run_app  # only now: Textual is the TUI's business

    code: int = run_app(
        paths,
        watch=not args.no_watch,
        jobs=args.jobs,
        cache=not args.no_cache,
        compare=compare,
    )
    return code if isinstance(code, int) else EXIT_OK
