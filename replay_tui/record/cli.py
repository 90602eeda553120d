"""The ``record`` subcommand: arguments, and running the recorder until Ctrl-C.

The main command line owns the parser; it calls :func:`add_arguments` on the ``record``
subparser and :func:`run` with the parsed arguments (``--tui`` is its business: it can build
the recorder with :func:`recorder_from_args` and run it inside the TUI's event loop).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys

from replay_tui.record.proxy import DEFAULT_LISTEN, Recorder, RecorderError

_LOGGER = "replay_tui.record"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``record`` options to a (sub)parser."""
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
    """A :class:`Recorder` configured from parsed ``record`` arguments.

    Raises :class:`RecorderError` (one-line message) for a missing or bad option.
    """
    if not getattr(args, "upstream", None):
        raise RecorderError("record: --upstream URL is required")
    timeout = float(getattr(args, "timeout", 300.0))
    if not timeout > 0:
        raise RecorderError(f"--timeout: expected a positive number of seconds, got {timeout}")
    return Recorder(
        args.upstream,
        getattr(args, "out", "traces"),
        listen=getattr(args, "listen", DEFAULT_LISTEN),
        save_all=bool(getattr(args, "save_all", False)),
        save_bodies=bool(getattr(args, "save_bodies", False)),
        redact=list(getattr(args, "redact", None) or []),
        read_timeout=timeout,
    )


def run(args: argparse.Namespace) -> int:
    """Record until Ctrl-C (or SIGTERM); 0 after a clean stop, 2 for a usage error."""
    try:
        recorder = recorder_from_args(args)
    except RecorderError as exc:
        print(f"replay-tui: {exc}", file=sys.stderr)
        return 2

    # One line per capture (and per upstream problem) on stderr while recording.
    logger = logging.getLogger(_LOGGER)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("replay-tui: %(message)s"))
    previous_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        return asyncio.run(_serve(recorder))
    except KeyboardInterrupt:
        # Ctrl-C before the signal handlers were installed (or where they cannot be):
        # asyncio.run has already cancelled _serve, whose finally stopped the recorder.
        return 0
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous_level)


async def _serve(recorder: Recorder) -> int:
    try:
        await recorder.start()
    except RecorderError as exc:
        print(f"replay-tui: {exc}", file=sys.stderr)
        return 2
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        # Not available on Windows event loops: there Ctrl-C arrives as KeyboardInterrupt.
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    print(
        f"replay-tui: recording on {recorder.url} -> {recorder.upstream}; "
        f"captures in {recorder.out_dir}/ (Ctrl-C to stop)",
        file=sys.stderr,
        flush=True,
    )
    try:
        await stop.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        await recorder.stop()
        print(
            f"replay-tui: stopped; {recorder.request_count} requests, "
            f"{recorder.capture_count} captures in {recorder.out_dir}/",
            file=sys.stderr,
            flush=True,
        )
    return 0
