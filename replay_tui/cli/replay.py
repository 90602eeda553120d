"""``replay-tui replay TRACE``: the chunk stream the harness translator emits for one trace."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from replay_tui.core import jsontext
from replay_tui.core.translator import Behavior, Chunk
from replay_tui.core.visible import visible

from .errors import EXIT_OK, error
from .traces import resolve_trace

__all__ = ["HELP", "configure", "run"]

HELP = (
    "Print the chunk stream the harness translator emits for one trace"
    " (a HAR stream is FILE.har#N)."
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trace", metavar="TRACE", help="a trace file, or FILE.har#N")
    parser.add_argument(
        "--behavior",
        choices=[b.value for b in Behavior],
        default=Behavior.ACCEPT_IDENTITY.value,
        help="identity handling (default: accept-identity, the fix)",
    )
    parser.add_argument(
        "--json", action="store_true", help="one chunk object per line, as the harness emits it"
    )


def run(args: argparse.Namespace) -> int:
    trace = resolve_trace(args.trace)
    for where in sorted(trace.errors):
        error(f"{trace.address}:{where}: {trace.error_text(where)}")
    out = sys.stdout.buffer
    encode = jsontext.encode  # lone surrogates, deep nesting: still JSON
    batch: list[bytes] = []
    if not args.json:  # what the lines are is said once, above them
        batch.append(_heading(args.behavior).encode())
    for line, chunk in trace.iter_replay(args.behavior):
        batch.append(encode(chunk) if args.json else _chunk_text(line, chunk).encode())
        if len(batch) >= 512:  # stream, but without a syscall per chunk
            out.write(b"\n".join(batch) + b"\n")
            out.flush()
            batch.clear()
    if batch:
        out.write(b"\n".join(batch) + b"\n")
    out.flush()
    return EXIT_OK


def _heading(behavior: str) -> str:
    if behavior == Behavior.ACCEPT_IDENTITY.value:
        other = "the fix; --behavior assign-always for the old translator"
    else:
        other = "the old translator; --behavior accept-identity for the fix"
    return f"#  line  chunk, as replayed under {behavior} ({other})"


def _chunk_text(line: int | None, chunk: Chunk) -> str:
    origin = f"{line:>6}" if line is not None else "   EOF"
    kind = chunk["type"]
    rest = [f"{key}={_short_json(value)}" for key, value in chunk.items() if key != "type"]
    return visible(f"{origin}  {kind:<16} {' '.join(rest)}")


_LONG = 120
"""A string of a chunk longer than this is cut, in the text form (``--json`` has it whole)."""


def _short_json(value: Any) -> str:
    """``value`` as JSON, each long string in it cut short ("…" and how long it is): every
    key stays in view. A failure's message quotes the whole bad payload, and cutting the
    value as a whole lost what followed it, its ``code``."""
    return jsontext.dumps(_shortened(value))


def _shortened(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) <= _LONG:
            return value
        return f"{value[: _LONG - 1]}… ({len(value):,} characters)"
    if isinstance(value, dict):
        return {key: _shortened(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shortened(item) for item in value]
    return value
