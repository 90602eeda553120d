"""How popular client libraries would assemble a trace's streamed tool calls.

One module per library (each names the version it models and the rule it follows, after
docs/clients.md), plus the designs the seed record rejected (:mod:`.alternatives`).
:data:`POLICIES` lists them in display order; :func:`assess` runs a trace through all of them
and says, per library and per call, what the application would get instead of what the stream
meant.

Pure and self-contained: nothing here imports Textual, and the CLI imports this package only
when ``check --clients`` asks for it.
"""

from __future__ import annotations

from . import (
    ai_sdk,
    alternatives,
    haystack,
    langchain,
    langchain_js,
    litellm,
    llamaindex,
    openai_agents,
    openai_agents_js,
    openai_node,
    openai_python,
    pydantic_ai,
    semantic_kernel,
)
from .assess import (
    CallOutcome,
    ClientOutcome,
    MeantCall,
    assess,
    assess_frames,
    assess_json,
    breaking,
)
from .base import AssembledCall, Assembly, ClientError, DroppedCall, Frame, Policy, Quiet, frames
from .compact import compact_frames

__all__ = [
    "LIBRARIES",
    "POLICIES",
    "AssembledCall",
    "Assembly",
    "CallOutcome",
    "ClientError",
    "ClientOutcome",
    "DroppedCall",
    "Frame",
    "MeantCall",
    "Policy",
    "Quiet",
    "assess",
    "assess_frames",
    "assess_json",
    "breaking",
    "compact_frames",
    "frames",
]

_ORDER: list[Policy] = [
    openai_python.POLICY,
    openai_node.POLICY,
    openai_node.STRICT_POLICY,
    ai_sdk.COMPATIBLE_POLICY,
    ai_sdk.OPENAI_POLICY,
    langchain.POLICY,
    langchain_js.POLICY,
    litellm.POLICY,
    pydantic_ai.POLICY,
    openai_agents.POLICY,
    openai_agents.BUFFERED_POLICY,
    openai_agents_js.POLICY,
    llamaindex.POLICY,
    haystack.POLICY,
    semantic_kernel.POLICY,
    alternatives.CONCATENATE,
    alternatives.REFUSE_CONFLICT,
    alternatives.REFUSE_FIRST_WITHOUT_ID,
]

POLICIES: dict[str, Policy] = {p.key: p for p in _ORDER}
"""Every policy by key, in display order: the 15 libraries, then the seed's alternatives."""

LIBRARIES: tuple[str, ...] = tuple(p.key for p in _ORDER if p.kind == "library")
"""Keys of the client-library policies (what ``N/15 break`` counts)."""
