"""The operator's summary of a scan: traces grouped by model, by gateway pattern, by verdicts.

``check --summary`` prints it and the last ``--jsonl`` line carries it. It reads only
:class:`~.result.TraceResult` records, one at a time, and keeps one counter and one example
address per group, so it costs the same for ten captures as for a million — and a cluster
that sends results back in any order builds the same summary.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import msgspec

from .discovery import Skipped, address_key
from .result import TraceResult
from .words import plural

__all__ = ["Group", "Summary"]

_BADGES = ("clean", "erasing", "refused", "broken", "in progress")
_SHAPE = re.compile(r"continuations (?:send|repeat) (.+?)(?: \(.*\))?$")
_MODEL = " (model "
"""Where a gateway-pattern note's text names the model that streamed it."""
_NO_MODEL = "(no model named)"
_MODELS_SHOWN = 4


class Group(msgspec.Struct):
    """Traces that share a key: how many, how many erasing, and an example: the first
    erasing one's address, else the first one's."""

    traces: int = 0
    erasing: int = 0
    example: str = ""
    patterns: dict[str, int] = msgspec.field(default_factory=dict)
    """The gateway patterns its traces showed (the by-model groups), with how many of each."""
    models: dict[str, int] = msgspec.field(default_factory=dict)
    """The models its traces named (the by-pattern groups), with how many of each."""
    _key: tuple[bool, Any] | None = None

    def add(
        self, result: TraceResult, patterns: list[str], key: Any, *, model: bool = False
    ) -> None:
        # The first address in address order, whatever order results arrive in, of an
        # erasing trace when the group has one (the example of "1 of 2 erasing" shows it).
        rank = (result.badge != "erasing", key)
        if self._key is None or rank < self._key:
            self.example, self._key = result.path, rank
        self.traces += 1
        if result.badge == "erasing":
            self.erasing += 1
        for p in patterns:
            self.patterns[p] = self.patterns.get(p, 0) + 1
        if model:
            name = result.model or _NO_MODEL
            self.models[name] = self.models.get(name, 0) + 1

    @property
    def share(self) -> float:
        return self.erasing / self.traces if self.traces else 0.0

    def json(self) -> dict[str, Any]:
        return {
            "traces": self.traces,
            "erasing": self.erasing,
            "share_erasing": round(self.share, 4),
            "example": self.example,
        }


def pattern_of(message: str) -> str:
    """The gateway pattern a note names, without the model it saw it from: the same gateway
    serving two models is one pattern."""
    return message.split(_MODEL, 1)[0]


def pattern_shape(message: str) -> str:
    """``id:null,name:null`` for the note "… continuations send id:null, name:null"."""
    match = _SHAPE.search(message)
    if match is None:
        return message
    return match.group(1).replace(" and ", ",").replace(", ", ",")


class Summary:
    """Accumulates results (in any order) into the groups an operator reads."""

    def __init__(self) -> None:
        self.traces = 0
        self.skipped = 0
        self.badges: dict[str, int] = {}
        self.models: dict[tuple[str | None, str | None], Group] = {}
        self.patterns: dict[str, Group] = {}
        self.unpatterned = Group()
        """The erasing traces that follow none of the known gateway patterns."""
        self.verdicts: dict[tuple[str, str], Group] = {}

    def add(self, result: TraceResult) -> None:
        self.traces += 1
        self.badges[result.badge] = self.badges.get(result.badge, 0) + 1
        key = address_key(result.path)
        notes = [n.message for n in result.notes if n.kind == "gateway-pattern"]
        shapes = [pattern_shape(m) for m in notes]
        self.models.setdefault((result.model, result.gateway), Group()).add(result, shapes, key)
        for pattern in dict.fromkeys(pattern_of(m) for m in notes):
            self.patterns.setdefault(pattern, Group()).add(result, [], key, model=True)
        if not notes and result.badge == "erasing":
            self.unpatterned.add(result, [], key, model=True)
        pair = (
            result.verdicts.get("assign-always", ""),
            result.verdicts.get("accept-identity", ""),
        )
        self.verdicts.setdefault(pair, Group()).add(result, [], key)

    def add_skipped(self, skipped: Skipped) -> None:
        self.skipped += 1

    @property
    def erasing(self) -> int:
        return self.badges.get("erasing", 0)

    def json(self) -> dict[str, Any]:
        """The summary as JSON: totals, then the groups, largest first."""
        return {
            "traces": self.traces,
            "skipped": self.skipped,
            "erasing": self.erasing,
            "badges": {b: self.badges[b] for b in _BADGES if self.badges.get(b)},
            "models": [
                {"model": m, "gateway": g, **grp.json(), "patterns": _ranked(grp.patterns)}
                for (m, g), grp in _largest(self.models)
            ],
            "patterns": [
                {"pattern": p, **grp.json(), "models": _ranked(grp.models)}
                for p, grp in _largest(self.patterns)
            ],
            "no_known_pattern": {
                **self.unpatterned.json(),
                "models": _ranked(self.unpatterned.models),
            },
            "verdicts": [
                {"assign-always": a, "accept-identity": b, **grp.json()}
                for (a, b), grp in _largest(self.verdicts)
            ],
        }

    def lines(self) -> list[str]:
        """The summary for people, e.g. ``kimi-k2-0905 via openrouter: 1,204 of 1,310
        erasing (id:null,name:null)``, each group with one example address."""
        out = [f"by model ({plural(len(self.models), 'group')}):"]
        for (model, gateway), grp in _shown(self.models, out):
            name = model or "(no model named)"
            if gateway:
                name += f" via {gateway}"
            shapes = _ranked(grp.patterns)
            tail = f" ({'; '.join(shapes)})" if shapes else ""
            out.append(f"  {name}: {_share(grp)}{tail}  e.g. {grp.example}")
        out.append(f"by gateway pattern ({plural(len(self.patterns), 'group')}):")
        if not self.patterns and not self.unpatterned.traces:
            out.append("  none seen")
        for pattern, grp in _shown(self.patterns, out):
            shape = pattern_shape(pattern)
            out.append(f"  {shape}: {_share(grp)} ({_models(grp)})  e.g. {grp.example}")
        grp = self.unpatterned
        if grp.traces:
            out.append(
                f"  no known pattern: {plural(grp.erasing, 'erasing trace')} ({_models(grp)})"
                f"  e.g. {grp.example}"
            )
        out.append(
            f"by verdicts, assign-always / accept-identity ({plural(len(self.verdicts), 'group')}):"
        )
        for (a, b), grp in _shown(self.verdicts, out):
            out.append(f"  {a} / {b}: {_share(grp)}  e.g. {grp.example}")
        return out


GROUPS_SHOWN = 20
"""Groups a section of the text summary lists, largest first (``--json`` has them all): a
folder per day or per host, read as the gateway, made hundreds of "via" groups of one
model."""


def _shown(groups: dict[Any, Group], out: list[str]) -> Iterator[tuple[Any, Group]]:
    """The largest :data:`GROUPS_SHOWN` groups; then a line in ``out`` for the rest."""
    ranked = _largest(groups)
    yield from ranked[:GROUPS_SHOWN]
    rest = ranked[GROUPS_SHOWN:]
    if rest:
        traces = sum(grp.traces for _, grp in rest)
        erasing = sum(grp.erasing for _, grp in rest)
        out.append(
            f"  … {plural(len(rest), 'more group')}: {erasing:,} of {traces:,} erasing"
            " (--json lists all)"
        )


def _share(grp: Group) -> str:
    return f"{grp.erasing:,} of {grp.traces:,} erasing"


def _largest(groups: dict[Any, Group]) -> list[tuple[Any, Group]]:
    """Largest first; of groups as large, the one with more erasing traces first (what an
    operator reads for; groups of one size were listed by name, the clean ones first)."""
    return sorted(groups.items(), key=lambda kv: (-kv[1].traces, -kv[1].erasing, repr(kv[0])))


def _models(grp: Group) -> str:
    """``model glm-5.2``, ``models qwen3-max, qwen-plus``, ``models a, b, c, d and 3 more``."""
    names = _ranked(grp.models)
    if len(names) == 1:
        return f"model {names[0]}"
    if len(names) > _MODELS_SHOWN + 1:
        rest = len(names) - _MODELS_SHOWN
        return f"models {', '.join(names[:_MODELS_SHOWN])} and {rest:,} more"
    return f"models {', '.join(names)}"


def _ranked(counts: dict[str, int]) -> list[str]:
    return [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
