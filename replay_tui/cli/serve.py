"""``replay-tui serve [PATH …] [--host H] [--port P] [--allow-remote] [--max-sessions N]``:
the TUI in a browser."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from replay_tui.core.visible import visible
from replay_tui.share.serve import DEFAULT_MAX_SESSIONS, ServeError, is_loopback, serve

from .errors import UsageError

HELP = "serve the TUI to a browser through textual-serve (loopback only unless told otherwise)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Serve the TUI on PATH (default: the current folder) to a web browser through"
        " textual-serve: each browser tab gets its own TUI. It listens on 127.0.0.1 unless"
        " --host names another address, which also needs --allow-remote: whoever reaches the"
        " port and knows the printed address (it carries a random token) can read every trace"
        " under PATH."
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="folders or files (default: .)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=8000, help="port to listen on (8000; 0 picks a free one)"
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host that other machines can reach (prints a warning)",
    )
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=DEFAULT_MAX_SESSIONS,
        metavar="N",
        help=f"browser tabs (TUI processes) served at once ({DEFAULT_MAX_SESSIONS})",
    )


def run(args: argparse.Namespace) -> int:
    paths = args.paths or ["."]
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise UsageError(f"{missing[0]}: no such file or folder")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: not a port number")
    if args.max_sessions < 1:
        raise UsageError(f"--max-sessions {args.max_sessions}: expected 1 or more")
    if not is_loopback(args.host):
        if not args.allow_remote:
            raise UsageError(
                f"--host {args.host} can be reached from other machines: add --allow-remote"
                " if that is what you want"
            )
        print(
            f"replay-tui: WARNING: serving on {visible(args.host)}: anyone who can reach this"
            " port and sees the printed address can browse every trace under "
            + visible(", ".join(paths))
            + " (plain HTTP: the address's token crosses the network in clear)",
            file=sys.stderr,
        )

    def ready(url: str) -> None:
        print(f"replay-tui: serving the TUI on {url} (Ctrl+C to stop)", flush=True)

    try:
        serve(paths, args.host, args.port, max_sessions=args.max_sessions, on_ready=ready)
    except ServeError as exc:
        raise UsageError(str(exc)) from None
    return 0
