"""``replay-tui report TRACE [--html | --md] [-o FILE] [--clients]``: a page to share."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from replay_tui.core.check import load_all
from replay_tui.core.discovery import Skipped, discover
from replay_tui.core.trace import Trace
from replay_tui.share.export import render
from replay_tui.share.report import Limits

from .errors import UsageError
from .traces import resolve_trace

HELP = "write a self-contained HTML page or a GitHub-ready Markdown report of a trace or folder"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Write a report of one trace (FILE, or FILE.har#N) or of every trace under a folder:"
        " the finding in a sentence, both verdicts, each call's identity delta by delta with the"
        " erasing rows marked, the chunk streams where the behaviors differ, and the raw capture"
        " around each flag. HTML is one file with no script and no external resource; Markdown"
        " fits a GitHub issue (cut with a note when longer)."
    )
    parser.add_argument("trace", metavar="TRACE", help="a trace file, FILE.har#N, or a folder")
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--html", dest="fmt", action="store_const", const="html", help="HTML")
    fmt.add_argument("--md", dest="fmt", action="store_const", const="md", help="Markdown")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write here (default: standard output); a .md name implies --md",
    )
    parser.add_argument(
        "--clients",
        action="store_true",
        help="add which client libraries would mis-assemble each trace",
    )


def _load(address: str) -> tuple[list[Trace], list[Skipped], bool]:
    """The traces a report covers, what was skipped, and whether it is a folder report."""
    path = Path(address.partition("#")[0])
    if not path.exists():
        raise UsageError(f"{address}: no such file or folder")
    if "#" in address or path.is_file():
        found = discover([path])
        if "#" in address or len(found.sources) <= 1:
            return [resolve_trace(address)], [], False
    else:
        found = discover([path])
    traces: list[Trace] = []
    skipped = list(found.skipped)
    for item in load_all(found):
        if isinstance(item, Skipped):
            skipped.append(item)
        else:
            traces.append(item)
    if not traces:
        raise UsageError(f"{address}: no readable trace found")
    return traces, skipped, True


def run(args: argparse.Namespace) -> int:
    fmt = args.fmt or ("md" if args.output and args.output.lower().endswith(".md") else "html")
    traces, skipped, folder = _load(args.trace)
    title = traces[0].address if not folder else args.trace
    text = render(
        title, traces, fmt=fmt, folder=folder, clients=args.clients, skipped=list(skipped)
    )
    if args.output in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    out = Path(args.output)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    n = len(traces)
    shown = Limits().traces
    cut = f": the first {shown:,} in full, the rest in its table only" if n > shown else ""
    print(
        f"replay-tui: wrote {out} ({fmt}, {len(text):,} characters,"
        f" {n:,} trace{'s' * (n != 1)}{cut})",
        file=sys.stderr,
    )
    return 0
