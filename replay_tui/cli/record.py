"""``replay-tui record --upstream URL``: the recording proxy, until Ctrl-C (or in the TUI).

aiohttp is imported only when the recorder is built, so the rest of the command line never
pays for it.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
from typing import TYPE_CHECKING

from ..core.hosts import listen_error
from ..core.words import plural
from .errors import EXIT_OK, EXIT_USAGE, UsageError, error, logging_to_stderr, until_stopped
from .terminal import require_terminal

if TYPE_CHECKING:
    from replay_tui.record.proxy import Recorder

__all__ = ["HELP", "configure", "recorder_from_args", "run"]

HELP = (
    "A recording reverse proxy: forwards to the upstream gateway, streams every response back"
    " untouched, and writes each streaming response into the trace folder as it arrives."
)
_LOGGER = "replay_tui.record"


def configure(parser: argparse.ArgumentParser) -> None:
    from replay_tui.record.proxy import DEFAULT_LISTEN

    parser.add_argument(
        "--upstream",
        metavar="URL",
        help="the real gateway, e.g. https://api.deepseek.com (required)",
    )
    parser.add_argument(
        "--listen",
        metavar="HOST:PORT",
        default=DEFAULT_LISTEN,
        help=f"where agents connect (default {DEFAULT_LISTEN}; port 0 picks a free one)",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --listen name an address other machines reach (whoever reaches the recorder"
        " uses the gateway as you: it adds --upstream's credentials)",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        default="traces",
        help="folder the captures are written to (default traces/)",
    )
    parser.add_argument(
        "--all",
        dest="save_all",
        action="store_true",
        help="also save non-streaming responses (as .body files)",
    )
    parser.add_argument(
        "--save-bodies",
        action="store_true",
        help="keep request bodies in the metadata (they may hold prompts and data)",
    )
    parser.add_argument(
        "--redact",
        metavar="REGEX",
        action="append",
        default=[],
        help="also redact headers (and query parameters) whose name fully matches REGEX, "
        "case-insensitively; repeatable",
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=float,
        default=300.0,
        help="longest silence tolerated from the upstream (default 300)",
    )
    parser.add_argument(
        "--tui",
        action="store_true",
        help="open the TUI on the output folder while recording",
    )


def recorder_from_args(args: argparse.Namespace) -> Recorder:
    """A :class:`~replay_tui.record.proxy.Recorder` configured from parsed ``record`` options.

    Raises :class:`UsageError` (one-line message) for a missing or bad option.
    """
    from replay_tui.record.proxy import DEFAULT_LISTEN, Recorder, RecorderError

    if not getattr(args, "upstream", None):
        raise UsageError("record: --upstream URL is required")
    timeout = float(getattr(args, "timeout", 300.0))
    if not timeout > 0:
        raise UsageError(f"--timeout: expected a positive number of seconds, got {timeout}")
    try:
        return Recorder(
            args.upstream,
            getattr(args, "out", "traces"),
            listen=getattr(args, "listen", DEFAULT_LISTEN),
            save_all=bool(getattr(args, "save_all", False)),
            save_bodies=bool(getattr(args, "save_bodies", False)),
            redact=list(getattr(args, "redact", None) or []),
            read_timeout=timeout,
            allow_remote=bool(getattr(args, "allow_remote", False)),
        )
    except RecorderError as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    """Record until Ctrl-C (or SIGTERM); 0 after a clean stop, 2 for a usage error."""
    recorder = recorder_from_args(args)
    if args.tui:
        return _in_tui(recorder)

    # One line per capture (and per upstream problem) on stderr while recording.
    try:
        with logging_to_stderr(_LOGGER):
            return asyncio.run(_serve(recorder))
    except KeyboardInterrupt:
        # Ctrl-C before the signal handlers were installed (or where they cannot be):
        # asyncio.run has already cancelled _serve, whose finally stopped the recorder.
        return EXIT_OK


def _in_tui(recorder: Recorder) -> int:
    """``record --tui``: the TUI on the output folder, the recorder running inside it."""
    _require_free_address(recorder)  # a busy port is the first thing to say
    require_terminal()
    from replay_tui.tui.app import run_app

    code: int = run_app([str(recorder.out_dir)], watch=True, recorder=recorder)
    return code


def _require_free_address(recorder: Recorder) -> None:
    """Raise :class:`UsageError` when the listening address cannot be bound right now."""
    try:
        infos = socket.getaddrinfo(
            recorder.host, recorder.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as exc:
        reason = listen_error(exc, "another --listen HOST:PORT, or port 0 for a free one")
        raise UsageError(f"cannot listen on {recorder.address}: {reason}") from None


async def _serve(recorder: Recorder) -> int:
    from replay_tui.record.proxy import RecorderError

    try:
        await recorder.start()
    except RecorderError as exc:
        error(str(exc))
        return EXIT_USAGE
    error(
        f"recording on {recorder.url} -> {recorder.upstream}; "
        f"captures in {recorder.out_dir}/ (Ctrl-C to stop)"
    )
    try:
        await until_stopped()
    finally:
        await recorder.stop()
        error(
            f"stopped; {plural(recorder.request_count, 'request')}, "
            f"{plural(recorder.capture_count, 'capture')} in {recorder.out_dir}/"
        )
    return EXIT_OK
