"""What a gateway did to a capture: the upstream capture against the gateway's output.

Pure Python (no aiohttp): ``probe`` records what the gateway returned, then judges each pair
here — both traces' verdicts and flags, the ``diff`` levels between them, and whether the
gateway *introduced* an identity problem the capture did not have:

- an **erasure**: a flag (``erased-id`` / ``erased-name`` of a wire call) the upstream
  capture does not have, or an ``unidentified-call`` verdict under ``assign-always`` where
  the capture's was something else (a call the gateway left without identity from the start
  erases nothing, so it has no flag) when the capture had no flag (a capture whose
  erasures a missing ``[DONE]`` hid, made whole by the gateway, introduces nothing);
- a **refusal**: ``malformed-tool-call`` under ``accept-identity`` (the fix refuses a call
  that never got an identity) where the capture's verdict was something else.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from replay_tui.core.diff import TraceDiff, diff_json, diff_traces
from replay_tui.core.result import TraceResult, trace_result
from replay_tui.core.trace import Trace
from replay_tui.core.translator import Behavior
from replay_tui.core.wire import UNSET

__all__ = ["Judged", "Problem", "introduced", "judge_pair"]

ASSIGN = Behavior.ASSIGN_ALWAYS.value
ACCEPT = Behavior.ACCEPT_IDENTITY.value


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a capture could not be probed whole: one located line."""

    kind: str
    """``down``, ``timeout``, ``http-error``, ``not-sse``, ``stalled``, ``dropped``,
    ``misrouted``, ``unreadable``, ``unwritable``."""
    message: str


@dataclass(slots=True)
class Judged:
    """One capture's probe, judged."""

    capture: str
    upstream: TraceResult
    gateway: TraceResult | None = None
    diff: TraceDiff | None = None
    problem: Problem | None = None
    output: str | None = None
    """The gateway's output as saved (a path), when anything was saved."""
    introduced: list[str] = field(default_factory=list)
    upstream_path: str | None = None
    """The capture as a path the other commands take (``FILE`` or ``FILE.har#N``)."""

    @property
    def outcome_changed(self) -> bool:
        if self.diff is None:
            return False
        return not all(self.diff.outcome(b).same for b in Behavior)

    def changes(self, behavior: Behavior | str = Behavior.ACCEPT_IDENTITY) -> dict[str, Any]:
        """What the gateway changed, in figures: outcome, calls, events."""
        if self.diff is None:
            return {}
        od = self.diff.outcome(behavior)
        return {
            "same_outcome": {b.value: self.diff.outcome(b).same for b in Behavior},
            "headline": od.headline(),
            "calls_changed": len(self.diff.changed_calls),
            "calls": len(self.diff.calls),
            "events_changed": len(self.diff.events.differences),
            "events": len(self.diff.events.rows),
        }

    def json(self, behavior: Behavior | str = Behavior.ACCEPT_IDENTITY) -> dict[str, Any]:
        """The capture's element of ``probe --json``'s ``captures`` array."""
        return {
            "capture": self.capture,
            "output": self.output,
            "problem": (
                {"kind": self.problem.kind, "message": self.problem.message}
                if self.problem
                else None
            ),
            "upstream": _result_json(self.upstream),
            "gateway": _result_json(self.gateway) if self.gateway is not None else None,
            "introduced": self.introduced,
            "changed": self.changes(behavior) if self.diff is not None else None,
            "diff": diff_json(self.diff, behavior) if self.diff is not None else None,
        }


def _result_json(result: TraceResult) -> dict[str, Any]:
    out = result.json()
    out.pop("path", None)
    out["badge"] = result.badge
    return out


def _flag_key(kind: str, call: Any) -> tuple[str, Any]:
    return kind, None if call is UNSET else call


def introduced(upstream: TraceResult, gateway: TraceResult) -> list[str]:
    """``erasure`` and/or ``refusal`` when the gateway's output has one the capture had not."""
    out: list[str] = []
    before = Counter(_flag_key(f.kind, f.call) for f in upstream.flags)
    after = Counter(_flag_key(f.kind, f.call) for f in gateway.flags)
    new_flags = after - before
    unidentified = "unidentified-call"
    newly_unidentified = (
        gateway.verdicts.get(ASSIGN) == unidentified
        and upstream.verdicts.get(ASSIGN) != unidentified
        and not upstream.flags
    )
    if new_flags or newly_unidentified:
        out.append("erasure")
    refused = "malformed-tool-call"
    if gateway.verdicts.get(ACCEPT) == refused and upstream.verdicts.get(ACCEPT) != refused:
        out.append("refusal")
    return out


def judge_pair(
    capture: str,
    upstream: Trace,
    gateway: Trace | None,
    *,
    problem: Problem | None = None,
    output: str | None = None,
) -> Judged:
    """Judge a capture and what the gateway made of it (``None``: nothing came back)."""
    up = trace_result(upstream)
    source = upstream.source
    path = str(source.path) + (f"#{source.entry.number}" if source.entry is not None else "")
    judged = Judged(capture, up, problem=problem, output=output, upstream_path=path)
    if gateway is None:
        return judged
    judged.gateway = trace_result(gateway)
    judged.diff = diff_traces(upstream, gateway)
    judged.introduced = introduced(up, judged.gateway)
    return judged
