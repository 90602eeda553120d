"""Writing a report file: what ``report -o`` and the TUI's ``e`` key share.

The TUI writes into ``$REPLAY_TUI_EXPORT_DIR`` when it is set, else the current folder, under a
name made from the trace's address (``dashscope-qwen3-max-id-empty.sse.report.html``), so the
same trace exported twice replaces its own report rather than piling up copies.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable
from pathlib import Path

from ..core.trace import Trace
from ..core.visible import visible
from .html import render_html
from .markdown import sized_markdown
from .report import Repro, build_reports

__all__ = ["EXPORT_DIR_ENV", "export_notice", "export_report", "render", "report_name"]

EXPORT_DIR_ENV = "REPLAY_TUI_EXPORT_DIR"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def render(
    title: str,
    traces: list[Trace],
    *,
    fmt: str = "html",
    folder: bool = False,
    clients: bool = False,
    skipped: list[object] | None = None,
) -> str:
    """The report of ``traces`` as ``fmt`` (``html`` or ``md``)."""
    from ..core.discovery import Skipped

    skips = [s for s in (skipped or []) if isinstance(s, Skipped)]

    if fmt == "md":
        repros: dict[int, Repro] = {}  # minimized once, though the report may be built twice
        return sized_markdown(
            lambda limits: build_reports(
                title, traces, skips, folder=folder, clients=clients, limits=limits, repros=repros
            )
        )
    return render_html(build_reports(title, traces, skips, folder=folder, clients=clients))


def report_name(address: str, fmt: str = "html") -> str:
    """A file name for the report of the trace at ``address`` (no folders, no odd bytes)."""
    stem = _UNSAFE.sub("-", address.replace("#", ".")).strip("-.") or "trace"
    return f"{stem[:120]}.report.{fmt}"


def export_report(
    trace: Trace, directory: str | os.PathLike[str] | None = None, fmt: str = "html"
) -> Path:
    """Write ``trace``'s report and return where (see the module docstring for the place)."""
    folder = Path(directory if directory is not None else os.environ.get(EXPORT_DIR_ENV) or ".")
    path = folder / report_name(trace.address, fmt)
    text = render(trace.address, [trace], fmt=fmt)
    path.write_text(text, encoding="utf-8")
    return path.resolve()


def deliver_notice(trace: Trace, deliver: Callable[..., object]) -> tuple[str, bool]:
    """Hand ``trace``'s HTML report to ``deliver`` (a served TUI's ``App.deliver_text``:
    textual-serve makes the browser download it; nothing is written on the server's disk),
    and the message to show."""
    name = report_name(trace.address)
    deliver(
        io.StringIO(render(trace.address, [trace])),
        save_filename=name,
        mime_type="text/html",
    )
    return visible(f"Report sent to your browser as {name}"), True


def export_notice(trace: Trace) -> tuple[str, bool]:
    """Export ``trace`` for the TUI: the message to show, and whether it worked."""
    try:
        path = export_report(trace)
    except OSError as exc:
        where = f" to {os.fsdecode(exc.filename)}" if exc.filename else ""
        return visible(f"Could not write the report{where}: {exc.strerror or exc}"), False
    return visible(f"Report written to {path}"), True
