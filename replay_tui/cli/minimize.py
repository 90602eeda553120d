"""``replay-tui minimize TRACE [-o OUT] [--keep flags|verdicts]``: the smallest reproducer."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from replay_tui.core.trace import Form
from replay_tui.core.visible import visible
from replay_tui.share.minimize import Minimized, minimize, minimized_name

from .errors import UsageError
from .traces import resolve_trace

HELP = "cut a trace to the fewest events and fields that still show the same finding"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Delta-debug a trace down to the smallest capture with the same finding: the same"
        " verdict under each behavior and the same flags (kind and call). Events go first, then"
        " the fields of each payload, then string values; the result is 1-minimal for events,"
        " of the same form (a HAR entry becomes a raw SSE body), and replayed to prove it."
    )
    parser.add_argument("trace", metavar="TRACE", help="a trace file, or FILE.har#N")
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write here ('-': standard output; default: NAME.min.EXT in the current folder)",
    )
    parser.add_argument(
        "--keep",
        choices=["flags", "verdicts"],
        help="keep only the flags, or only the verdicts (default: both)",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=60.0,
        metavar="S",
        help="stop after S seconds with the smallest trace found so far (default: 60)",
    )


def default_output(address: str, form: Form) -> Path:
    """``NAME.min.EXT`` in the current folder (``captures.har#3`` → ``captures.3.min.sse``)."""
    return Path(minimized_name(address, form))


def run(args: argparse.Namespace) -> int:
    if args.max_seconds <= 0:
        raise UsageError("--max-seconds must be positive")
    trace = resolve_trace(args.trace)
    to_stdout = args.output == "-"
    out = None if to_stdout else Path(args.output or default_output(args.trace, trace.source.form))
    if out is not None and out.exists() and _same_file(out, trace.source.path):
        raise UsageError(f"{args.output or out}: would overwrite the trace being minimized")
    tty = sys.stderr.isatty()

    def progress(message: str) -> None:
        end = "\r" if tty else "\n"
        print(f"replay-tui: minimizing… {message}", end=end, file=sys.stderr, flush=True)

    result = minimize(
        trace,
        keep=args.keep or "both",
        seconds=args.max_seconds,
        on_progress=progress,
    )
    if tty:
        print(" " * 79, end="\r", file=sys.stderr)
    if to_stdout:
        sys.stdout.buffer.write(result.data)
        sys.stdout.flush()
    else:
        assert out is not None
        try:
            out.write_bytes(result.data)
        except OSError as exc:
            raise UsageError(f"{out}: cannot write: {exc.strerror or exc}") from None
    where = "standard output" if out is None else str(out)
    print(_summary(result, visible(where)), file=sys.stderr if to_stdout else sys.stdout)
    if not result.verified:
        print(
            "replay-tui: the minimized trace does not replay to the same finding (a bug:"
            " please report it with the trace)",
            file=sys.stderr,
        )
        return 1
    return 0


def _summary(m: Minimized, where: str) -> str:
    lines = [
        f"{m.summary()} (wrote {where}, {m.form.label})",
        f"  finding kept: {visible(m.finding.describe())} — replayed from scratch to check",
    ]
    if m.one_minimal:
        lines.append(
            f"  1-minimal: removing any one of the {m.events_after} events changes the finding"
        )
    elif not m.complete:
        lines.append(
            "  stopped early (time budget): kept the smallest capture found so far; the"
            " finding holds, but smaller may exist: raise --max-seconds to go on"
        )
    lines.append(f"  {m.tests:,} tests in {m.seconds:.1f} s")
    return "\n".join(lines)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
