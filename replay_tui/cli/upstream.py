"""``replay-tui upstream PATH``: the mock OpenAI-compatible provider, until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

from ..core.words import plural
from .errors import EXIT_OK, UsageError, error, logging_to_stderr, until_stopped
from .serving import describe, load, upstream_from_args

if TYPE_CHECKING:
    from replay_tui.gateway.upstream import Upstream

__all__ = ["HELP", "configure", "run"]

HELP = (
    "A mock OpenAI-compatible provider that streams the captures under PATH: point a gateway"
    " at it to see what the gateway does to them (replay-tui probe). Each chat completion is"
    " answered with the capture the X-Replay-Trace header names, else one whose name or model"
    " the request's model names, else the next in turn."
)


def configure(parser: argparse.ArgumentParser) -> None:
    from replay_tui.gateway.upstream import DEFAULT_LISTEN

    parser.add_argument("paths", nargs="+", metavar="PATH", help="folders, files or FILE.har#N")
    parser.add_argument(
        "--listen",
        metavar="HOST:PORT",
        default=DEFAULT_LISTEN,
        help=f"where the gateway connects (default {DEFAULT_LISTEN}; port 0 picks a free one)",
    )
    parser.add_argument(
        "--timing",
        action="store_true",
        help="pace the events as recorded (HAR timings, or a recorder sidecar's start and"
        " finish, spread evenly); default: all at once",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --listen address other machines can reach (prints a warning)",
    )


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (or SIGTERM); 0 after a clean stop, 2 for a usage error."""
    captures = load(args.paths)
    upstream = upstream_from_args(args, captures)
    if not upstream.local_only:
        error(
            f"WARNING: listening on {upstream.host}: anyone who can reach this port can read"
            " every capture served (no password)"
        )
    try:
        with logging_to_stderr("replay_tui.upstream"):
            return asyncio.run(_serve(upstream))
    except KeyboardInterrupt:
        return EXIT_OK


async def _serve(upstream: Upstream) -> int:
    from replay_tui.gateway.upstream import UpstreamError

    try:
        await upstream.start()
    except UpstreamError as exc:
        raise UsageError(str(exc)) from None
    print("\n".join(describe(upstream)), flush=True)
    error(
        f"serving {plural(len(upstream.captures), 'capture')} on {upstream.base_url}"
        " (Ctrl-C to stop)"
    )
    try:
        await until_stopped()
    finally:
        await upstream.stop()
    return EXIT_OK
