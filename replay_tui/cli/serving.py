"""What ``upstream`` and ``probe`` share: the captures to serve, the mock provider from the
options, and the lines that describe it."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from replay_tui.core.visible import visible

from ..core.words import plural
from .errors import UsageError, error
from .traces import require_paths

if TYPE_CHECKING:
    from replay_tui.gateway.captures import ServedCapture
    from replay_tui.gateway.upstream import Upstream

__all__ = ["describe", "load", "upstream_from_args"]


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
                f"paced by {t.source}: {t.first:.3f}s to the first event, the rest over"
                f" {t.spread:.3f}s"
                if t is not None
                else "no timing recorded: at once"
            )
        if c.reframed:
            parts.append(c.reframed)
        lines.append(f"  {visible(c.name):<{width}}  {', '.join(parts)}")
    return lines
