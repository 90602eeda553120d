"""``replay-tui probe --gateway URL PATH``: what a gateway does to each capture.

Exit status: 0 every capture went through and the gateway introduced no erasure or refusal;
1 the gateway introduced an erasure or a refusal that a capture did not have; 2 a usage
error; 3 nothing introduced, but some captures could not be probed (the gateway down, an
HTTP error, a non-SSE answer, a timeout, a stream cut off, a request routed to another
capture).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replay_tui.core import jsontext
from replay_tui.core.discovery import discover
from replay_tui.core.trace import load_trace
from replay_tui.core.translator import Behavior
from replay_tui.core.visible import visible

from ..core.words import plural
from .errors import EXIT_FINDINGS, EXIT_OK, UsageError, error
from .serving import describe, load

if TYPE_CHECKING:
    from replay_tui.gateway.captures import ServedCapture
    from replay_tui.gateway.conformance import Judged
    from replay_tui.gateway.probe import Probed
    from replay_tui.gateway.upstream import Upstream

__all__ = ["EXIT_NOT_PROBED", "HELP", "configure", "run"]

EXIT_NOT_PROBED = 3
"""Nothing introduced, but some captures could not be probed."""

HELP = (
    "Send each capture under PATH through a gateway pointed at 'replay-tui upstream' (or"
    " --start-upstream), save what the gateway returns as captures, and report per capture"
    " both sides' verdicts and flags and what the gateway changed (outcome, calls, events)."
    " Exit status: 0 nothing introduced; 1 the gateway introduced an erasure or a refusal;"
    " 2 usage error; 3 some captures could not be probed; 130 / 143 stopped by SIGINT /"
    " SIGTERM (what was probed until then is reported)."
)


def configure(parser: argparse.ArgumentParser) -> None:
    from replay_tui.gateway.upstream import DEFAULT_LISTEN

    parser.add_argument("paths", nargs="+", metavar="PATH", help="folders, files or FILE.har#N")
    parser.add_argument(
        "--gateway",
        metavar="URL",
        help="the gateway's OpenAI base URL, e.g. http://127.0.0.1:4000/v1 (required)",
    )
    parser.add_argument(
        "--model",
        metavar="M",
        help="the model to ask the gateway for (default: each capture's name, which the"
        " upstream recognises when the gateway passes models through)",
    )
    parser.add_argument(
        "--header",
        metavar="K:V",
        action="append",
        default=[],
        help="a header for every request (e.g. 'Authorization: Bearer sk-…'); repeatable",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="where the gateway's outputs are saved (default: a new temporary folder, printed)",
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=float,
        default=30.0,
        help="per request: longest wait for the gateway's answer and between its chunks"
        " (default 30)",
    )
    parser.add_argument(
        "--start-upstream",
        action="store_true",
        help="also serve PATH as the upstream here (replay-tui upstream), for the run",
    )
    parser.add_argument(
        "--upstream-listen",
        metavar="HOST:PORT",
        default=DEFAULT_LISTEN,
        help=f"with --start-upstream: where it listens (default {DEFAULT_LISTEN})",
    )
    parser.add_argument(
        "--upstream-allow-remote",
        action="store_true",
        help="with --start-upstream: let --upstream-listen name an address other machines"
        " reach (a gateway in a container reaching the host)",
    )
    parser.add_argument(
        "--timing", action="store_true", help="with --start-upstream: pace events as recorded"
    )
    parser.add_argument(
        "--behavior",
        choices=[b.value for b in Behavior],
        default=Behavior.ACCEPT_IDENTITY.value,
        help="the behavior the outcome headline and --json's diff are judged under"
        " (default accept-identity)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--tui",
        action="store_true",
        help="afterwards, open the TUI on the outputs: OUT/upstream/ (what was sent) beside"
        " OUT/gateway/ (what came back); m marks one, 5 compares",
    )


def _check(args: argparse.Namespace) -> list[tuple[str, str]]:
    from replay_tui.gateway.probe import ProbeError, chat_url, parse_header

    if not args.gateway:
        raise UsageError("probe: --gateway URL is required")
    if not args.timeout > 0:
        raise UsageError(f"--timeout: expected a positive number of seconds, got {args.timeout}")
    try:
        url = chat_url(args.gateway)
        headers = [parse_header(h) for h in args.header]
    except ProbeError as exc:
        raise UsageError(str(exc)) from None
    if url.user is not None and any(n.lower() == "authorization" for n, _ in headers):
        raise UsageError(
            "--header Authorization and a user:password in --gateway: give one of them"
        )
    return headers


def run(args: argparse.Namespace) -> int:
    headers = _check(args)
    if args.tui:
        from .terminal import require_terminal

        require_terminal()
    captures = load(args.paths)
    upstream: Upstream | None = None
    if args.start_upstream:
        from .serving import upstream_from_args

        args.listen, args.allow_remote = args.upstream_listen, args.upstream_allow_remote
        try:
            upstream = upstream_from_args(args, captures)
        except UsageError as exc:  # (the upstream's words name its own options)
            said = str(exc).replace("--listen", "--upstream-listen")
            raise UsageError(said.replace("--allow-remote", "--upstream-allow-remote")) from None
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="replay-tui-probe-"))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {args.out}: cannot create: {exc.strerror or exc}") from None
    try:
        probed, stopped = asyncio.run(_probe(args, captures, upstream, headers, out))
    except UsageError:
        if not args.out:
            with contextlib.suppress(OSError):
                out.rmdir()  # the temporary folder made for this run, still empty
        raise
    judged = [_judge(p, out) for p in probed]
    code = _status(judged)
    if stopped is not None:
        # Ctrl-C: what was probed until then is reported (a long run stopped at its 40th
        # capture said nothing of the 39 before), the one under way is not
        code = 128 + stopped
        error(
            f"probe stopped by {signal.Signals(stopped).name} after"
            f" {len(probed)} of {plural(len(captures), 'capture')}: those are reported"
        )
    if args.json:
        _write_json(args, judged, upstream, out, code, len(captures) if stopped else None)
    else:
        _write_table(
            judged, args.gateway, out, Behavior(args.behavior), len(captures) if stopped else None
        )
    if args.tui and stopped is None:
        return _open_tui(out, code, judged)
    return code


async def _probe(
    args: argparse.Namespace,
    captures: Sequence[ServedCapture],
    upstream: Upstream | None,
    headers: list[tuple[str, str]],
    out: Path,
) -> tuple[list[Probed], int | None]:
    """The captures probed, and the signal that stopped the run before the last (None: it
    was not stopped)."""
    from replay_tui.gateway.probe import Probe
    from replay_tui.gateway.upstream import UpstreamError

    probe = Probe(
        args.gateway,
        out,
        model=args.model,
        headers=headers,
        timeout=args.timeout,
        upstream=upstream,
    )
    if upstream is not None:
        try:
            await upstream.start()
        except UpstreamError as exc:
            raise UsageError(str(exc)) from None
    error(f"gateway outputs in {out}/")
    if upstream is not None:
        error(
            f"upstream serving {plural(len(captures), 'capture')} on {upstream.base_url}:"
            " the gateway must send its requests there"
        )
        if not args.json:
            print("\n".join(describe(upstream)[1:]), file=sys.stderr, flush=True)

    done: list[Probed] = []

    def said(p: Probed) -> None:
        done.append(p)
        if p.problem is not None:
            error(f"{p.capture.name}: {p.problem.kind}: {p.problem.message}")

    # SIGINT and SIGTERM stop the run (the capture under way has its sidecar finished, see
    # Probe._record): what was probed is then reported (the handlers are removed at once: a
    # second Ctrl-C while that is judged stops it there)
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    stopped: list[int] = []
    installed: list[signal.Signals] = []

    def stop(sig: signal.Signals) -> None:
        if not stopped and task is not None:
            stopped.append(int(sig))
            task.cancel()

    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop, sig)
            installed.append(sig)
    try:
        await probe.run(captures, on_done=said)
    except asyncio.CancelledError:
        if not stopped or task is None:
            raise
        task.uncancel()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        if upstream is not None:
            await upstream.stop()
    return done, (stopped[0] if stopped else None)


def _judge(p: Probed, out: Path) -> Judged:
    from replay_tui.gateway.conformance import Problem, judge_pair

    source = p.capture.source
    assert source is not None
    upstream = load_trace(source, keep_decoded=True)
    output = str(p.output) if p.output is not None else None
    if (
        p.output is None
        or p.output.suffix != ".sse"
        or (p.problem is not None and p.problem.kind in ("misrouted", "http-error", "not-sse"))
    ):
        return judge_pair(p.capture.name, upstream, None, problem=p.problem, output=output)
    found = discover([str(p.output)])
    if not found.sources:
        reason = found.skipped[0].reason if found.skipped else "not a trace"
        problem = p.problem or Problem("unreadable", f"{p.output}: {reason}")
        return judge_pair(p.capture.name, upstream, None, problem=problem, output=output)
    gateway = load_trace(found.sources[0], keep_decoded=True)
    return judge_pair(p.capture.name, upstream, gateway, problem=p.problem, output=output)


def _status(judged: Sequence[Judged]) -> int:
    if any(j.introduced for j in judged):
        return EXIT_FINDINGS
    if any(j.problem is not None for j in judged):
        return EXIT_NOT_PROBED
    return EXIT_OK


def _verdicts(verdicts: dict[str, str], flags: int) -> str:
    pair = f"{verdicts.get('assign-always', '?')} / {verdicts.get('accept-identity', '?')}"
    return f"{pair}, {plural(flags, 'flag')}" if flags else pair


def _changed(j: Judged, behavior: Behavior) -> str:
    if j.diff is None:
        return f"not probed: {j.problem.kind}" if j.problem else "not probed"
    c = j.changes(behavior)
    parts = []
    same = c["same_outcome"]
    if all(same.values()):
        parts.append("outcome same")
    else:
        parts.append("outcome differs (" + ", ".join(k for k, v in same.items() if not v) + ")")
    parts.append(
        f"calls {c['calls_changed']}/{c['calls']} differ" if c["calls_changed"] else "calls same"
    )
    parts.append(
        f"events {c['events_changed']}/{c['events']} differ"
        if c["events_changed"]
        else "events same"
    )
    if j.introduced:
        parts.insert(0, "INTRODUCED " + " and ".join(j.introduced).upper())
    if j.problem is not None:
        parts.append(j.problem.kind)
    return "; ".join(parts)


def _write_table(
    judged: Sequence[Judged], gateway: str, out: Path, behavior: Behavior, of: int | None = None
) -> None:
    """``of``: the captures there were, when the run was stopped before the last."""
    from replay_tui.gateway.probe import shown_gateway

    rows = []
    for j in judged:
        up = _verdicts(j.upstream.verdicts, len(j.upstream.flags))
        gw = _verdicts(j.gateway.verdicts, len(j.gateway.flags)) if j.gateway else "-"
        rows.append((visible(j.capture), up, gw, _changed(j, behavior)))
    heads = (
        "CAPTURE",
        "UPSTREAM (assign-always / accept-identity)",
        "THROUGH THE GATEWAY",
        "WHAT THE GATEWAY CHANGED",
    )
    widths = [min(48, max(len(r[i]) for r in [heads, *rows])) for i in range(3)]
    lines = []
    for r in [heads, *rows]:
        lines.append(
            "  ".join(f"{cell:<{widths[i]}}" for i, cell in enumerate(r[:3])) + "  " + r[3]
        )
    for j in judged:
        if j.problem is not None:
            lines.append(f"  {visible(j.capture)}: {j.problem.kind}: {visible(j.problem.message)}")
    introduced = [j for j in judged if j.introduced]
    changed = [j for j in judged if j.outcome_changed]
    problems = [j for j in judged if j.problem is not None]
    count = plural(len(judged), "capture")
    if of is not None:
        count = f"{len(judged)} of {plural(of, 'capture')} (stopped)"
    lines.append(
        f"{count} through {visible(shown_gateway(gateway))}: "
        f"{len(changed)} outcome changed, {len(introduced)} with an erasure or refusal"
        f" introduced, {len(problems)} not probed whole; outputs in {visible(str(out))}/"
    )
    for j in changed[:5]:
        assert j.upstream is not None
        lines.append(f"  replay-tui diff {_shell(j, 'up')} {_shell(j, 'out')}")
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def _shell(j: Judged, side: str) -> str:
    import shlex

    if side == "out":
        return shlex.quote(j.output or "")
    return shlex.quote(j.upstream_path or j.capture)


def _write_json(
    args: argparse.Namespace,
    judged: Sequence[Judged],
    upstream: Upstream | None,
    out: Path,
    code: int,
    of: int | None = None,
) -> None:
    """``of``: the captures there were, when the run was stopped before the last."""
    from replay_tui.gateway.probe import shown_gateway

    doc: dict[str, Any] = {
        "gateway": shown_gateway(args.gateway),
        "upstream": upstream.base_url if upstream is not None else None,
        "out": str(out),
        "behavior": args.behavior,
        "captures": [j.json(args.behavior) for j in judged],
        "summary": {
            "captures": len(judged),
            "outcome_changed": sum(j.outcome_changed for j in judged),
            "erasure_introduced": sum("erasure" in j.introduced for j in judged),
            "refusal_introduced": sum("refusal" in j.introduced for j in judged),
            "not_probed": sum(j.problem is not None for j in judged),
            **({"stopped": True, "of": of} if of is not None else {}),
        },
        "exit_status": code,
    }
    stream = sys.stdout.buffer
    stream.write(jsontext.encode(doc))
    stream.write(b"\n")
    stream.flush()


def _open_tui(out: Path, code: int, judged: Sequence[Judged]) -> int:
    """The TUI on both halves of the output, the first capture the gateway changed (else the
    first probed) open in the compare view: upstream as A, the gateway's output as B."""
    from replay_tui.core.discovery import folder_prefix
    from replay_tui.gateway.probe import GATEWAY_DIR, UPSTREAM_DIR
    from replay_tui.tui.app import run_app

    halves = [out / UPSTREAM_DIR, out / GATEWAY_DIR]
    paths = [str(h) for h in halves if h.is_dir()]
    saved = [j for j in judged if j.output and Path(j.output).parent == halves[1]]
    pick = next((j for j in saved if j.introduced or j.changes()), saved[0] if saved else None)
    compare: tuple[str, str] | None = None
    if pick is not None and len(paths) == 2 and pick.output is not None:
        name = Path(pick.output).name
        a, b = (folder_prefix(p, True) + name for p in paths)
        compare = (a, b)
        error(f"opening the TUI on {out}/: {name}, upstream (A) beside the gateway's (B)")
    else:
        error(f"opening the TUI on {out}/ (nothing the gateway returned to compare)")
    run_app(paths or [str(out)], watch=False, compare=compare)
    return code
