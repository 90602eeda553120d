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
from .terminal import is_tty as _tty
from .traces import require_paths, resolve_trace

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
    require_paths([address])
    path = Path(address.partition("#")[0])
    if "#" in address or path.is_file():
        found = discover([path])
        if "#" in address or len(found.sources) <= 1:
            # Decoded again where asked (a 50 MB string is not kept decoded beside the file).
            return [resolve_trace(address, keep_decoded=False)], [], False
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
    if args.output == "-" or (args.output is None and not _tty(sys.stdout)):
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    # A page printed on a terminal is of no use to anyone: on one, write a file beside.
    out = Path(args.output) if args.output else _free_name(args.trace, fmt)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    n = len(traces)
    why = "" if args.output else "standard output is a terminal ('-o -' prints there): "
    shown = Limits().traces
    cut = f": the first {shown:,} in full, the rest in its table only" if n > shown else ""
    print(
        f"replay-tui: {why}wrote {out} ({fmt}, {len(text):,} characters,"
        f" {n:,} trace{'s' * (n != 1)}{cut})",
        file=sys.stderr,
    )
    return 0


def _free_name(address: str, fmt: str) -> Path:
    """``NAME.report.html`` in the current folder for the trace ``address`` names
    (``x.har#2`` → ``x-2.report.html``), numbered on past a file already there."""
    file, _, entry = address.rstrip("/").partition("#")
    stem = (Path(file).name.split(".")[0] or "replay") + (f"-{entry}" if entry else "")
    suffix = ".md" if fmt == "md" else ".html"
    for n in range(1, 10_000):
        out = Path(f"{stem}{'' if n == 1 else f'-{n}'}.report{suffix}")
        if not out.exists():
            return out
    raise UsageError("no free file name for the report here; name one with -o FILE")
