"""``replay-tui upstream PATH``: the mock OpenAI-compatible provider, until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from replay_tui.core.visible import visible

from .errors import EXIT_OK, UsageError, error, plural
from .traces import require_paths

if TYPE_CHECKING:
    from replay_tui.gateway.captures import ServedCapture
    from replay_tui.gateway.upstream import Upstream

__all__ = ["HELP", "configure", "describe", "run", "upstream_from_args"]

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


def load(paths: Sequence[str]) -> list[ServedCapture]:
    """The captures under ``paths``; what is not a trace is said on stderr, one line each."""
    from replay_tui.gateway.captures import load_captures

    require_paths(paths)
    captures, skipped = load_captures(paths)
    for s in skipped:
        where = f"{s.path}:{s.line}" if s.line else s.path
        error(f"{where}: skipped: {s.reason}")
    if not captures:
        raise UsageError(f"{', '.join(paths)}: no capture to serve")
    return captures


def upstream_from_args(args: argparse.Namespace, captures: Sequence[ServedCapture]) -> Upstream:
    from replay_tui.gateway.upstream import Upstream, UpstreamError

    try:
        return Upstream(
            captures,
            listen=args.listen,
            timing=bool(args.timing),
            allow_remote=bool(args.allow_remote),
        )
    except UpstreamError as exc:
        raise UsageError(str(exc)) from None


def describe(upstream: Upstream) -> list[str]:
    """The start-up lines: the base URL, then each capture's name, model and pacing."""
    lines = [f"base URL: {upstream.base_url}"]
    width = min(60, max(len(c.name) for c in upstream.captures))
    for c in upstream.captures:
        parts = [f"model {visible(c.model)}" if c.model else "no model"]
        parts.append(plural(len(c.events), "event"))
        if upstream.timing:
            t = c.timing
            parts.append(
                f"paced by {t.source}: {t.first:.3f}s, then {t.spread:.3f}s"
                if t is not None
                else "no timing recorded: at once"
            )
        if c.reframed:
            parts.append(c.reframed)
        lines.append(f"  {visible(c.name):<{width}}  {', '.join(parts)}")
    return lines


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (or SIGTERM); 0 after a clean stop, 2 for a usage error."""
    captures = load(args.paths)
    upstream = upstream_from_args(args, captures)
    if not upstream.local_only:
        error(
            f"WARNING: listening on {upstream.host}: anyone who can reach this port can read"
            " every capture served (no password)"
        )
    logger = logging.getLogger("replay_tui.upstream")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("replay-tui: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        return asyncio.run(_serve(upstream))
    except KeyboardInterrupt:
        return EXIT_OK
    finally:
        logger.removeHandler(handler)


async def _serve(upstream: Upstream) -> int:
    from replay_tui.gateway.upstream import UpstreamError

    try:
        await upstream.start()
    except UpstreamError as exc:
        raise UsageError(str(exc)) from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    print("\n".join(describe(upstream)), flush=True)
    error(
        f"serving {plural(len(upstream.captures), 'capture')} on {upstream.base_url}"
        " (Ctrl-C to stop)"
    )
    try:
        await stop.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        await upstream.stop()
    return EXIT_OK
