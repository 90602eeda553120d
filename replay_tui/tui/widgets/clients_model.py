"""What the clients view knows of one trace: the policies, the calls the stream meant, and
each policy's outcome as it arrives; and the words a cell of the matrix says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core.trace import Trace
from ...core.visible import visible
from ...core.wire import UNSET, describe_value

if TYPE_CHECKING:  # the policies are imported when the view is first shown, not at start-up
    from ...clientlibs import (
        CallOutcome,
        ClientOutcome,
        MeantCall,
        Policy,
    )

__all__ = [
    "GROUPS",
    "ClientsModel",
    "Piece",
    "call_cell",
    "plain",
    "response_cell",
    "start_model",
    "tool_name",
]

Piece = tuple[str, str]
"""A run of text and the name of the component style it takes ("" for the base style)."""

GROUPS = (("library", "client libraries"), ("alternative", "designs the seed record rejected"))
"""Policy kinds in display order, each group under its own heading."""


@dataclass(slots=True)
class ClientsModel:
    """One trace's assessment, filled in policy by policy."""

    trace: Trace
    meant: list[MeantCall]
    policies: list[Policy]
    outcomes: dict[str, ClientOutcome] = field(default_factory=dict)
    done: bool = False
    layout: list[tuple[str, str]] = field(default_factory=list)
    """Each row: ``("head", "1"|"2")``, ``("group", kind)`` or ``("policy", key)``."""
    by_key: dict[str, Policy] = field(default_factory=dict)
    pool: dict[str, str] = field(default_factory=dict)
    """Long strings the policies hand over alike, kept once across them (assessed one policy
    at a time: 18 outcomes hold one copy of a 5 MB arguments string)."""

    def __post_init__(self) -> None:
        self.by_key = {p.key: p for p in self.policies}
        self.layout = [("head", "1"), ("head", "2")]
        for kind, _ in GROUPS:
            keys = [p.key for p in self.policies if p.kind == kind]
            if keys:
                self.layout.append(("group", kind))
                self.layout += [("policy", k) for k in keys]

    @property
    def columns(self) -> int:
        """The call columns, then the whole response."""
        return len(self.meant) + 1

    def policy_at(self, row: int) -> Policy | None:
        if 0 <= row < len(self.layout) and self.layout[row][0] == "policy":
            return self.by_key[self.layout[row][1]]
        return None

    def row_of(self, key: str) -> int:
        return self.layout.index(("policy", key))

    def first_problem(self) -> tuple[int, int] | None:
        """The first cell (row, column) showing a problem, libraries first."""
        for row, (kind, key) in enumerate(self.layout):
            outcome = self.outcomes.get(key) if kind == "policy" else None
            if outcome is None or outcome.ok:
                continue
            for col, call in enumerate(outcome.calls):
                if not call.ok:
                    return row, col
            return row, len(self.meant)
        return None


def start_model(trace: Trace) -> ClientsModel:
    """The model before any policy ran (cheap: the meant calls are the analysis's)."""
    from ...clientlibs import POLICIES
    from ...clientlibs.assess import meant_calls

    return ClientsModel(trace, meant_calls(trace.analysis.calls), list(POLICIES.values()))


# -- words for cells ---------------------------------------------------------------------------


def tool_name(value: Any) -> str:
    """A tool name as a header shows it: bare when it is a real name, else ``null``/``""``."""
    if isinstance(value, str) and value:
        return visible(value)
    return visible(describe_value(value))


def call_cell(call: CallOutcome) -> Piece:
    if call.ok:
        return "✓ ok", "clients-matrix--ok"
    return "✗ " + visible(call.outcome), "clients-matrix--bad"


def response_cell(outcome: ClientOutcome) -> Piece:
    """What happens to the response as a whole (beyond each call)."""
    assembly = outcome.assembly
    if assembly.raised is not None:
        return "✗ " + visible(f"{assembly.raised.verb} {assembly.raised.name}"), (
            "clients-matrix--bad"
        )
    words: list[str] = []
    if outcome.extra:
        n = len(outcome.extra)
        words.append(f"{n} extra call{'s' if n != 1 else ''}")
    counts: dict[str, int] = {}
    for err in assembly.error_parts:
        counts[err.name] = counts.get(err.name, 0) + 1
    words += [f"error part {k}" + (f" ×{n}" if n > 1 else "") for k, n in counts.items()]
    if words:
        return "✗ " + visible(", ".join(words)), "clients-matrix--bad"
    if outcome.ok:
        return "✓ ok", "clients-matrix--ok"
    return "—", "clients-matrix--dim"


def plain(value: Any) -> Any:
    """A value as JSON can hold it: absent (``UNSET``) becomes ``None``."""
    return None if value is UNSET else value
