"""Reads the recorded client-library runs in ``tests/data/clients/results_*.txt``.

Each file holds sections ``== <library>`` with one line per scenario: the calls the library
assembled (``id=… name=… args=…``, several separated by ``; ``), ``(no tool calls)``, or
``ERR <Error>: <message>``, optionally followed by ``| <extra>`` parts (LangChain's
``invalid:`` calls, the AI SDK's ``error-part`` and ``THROWN`` errors, LlamaIndex's tool
selections). Python runs print values with ``repr``, Node runs with ``JSON.stringify``.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "clients"

# recorded section name -> policy key
SECTIONS = {
    "openai-python": "openai-python",
    "openai-node": "openai-node",
    "openai-node-strict": "openai-node-strict",
    "ai-sdk-compat": "ai-sdk-openai-compatible",
    "ai-sdk-openai": "ai-sdk-openai",
    "langchain": "langchain",
    "litellm": "litellm",
    "pydantic-ai": "pydantic-ai",
    "agents": "openai-agents",
    "agents-buffered": "openai-agents-buffered",
    "llamaindex": "llamaindex",
    "haystack": "haystack",
    "semantic-kernel": "semantic-kernel",
    "langchain-js": "langchain-js",
    "agents-js": "openai-agents-js",
}

_FIELD = re.compile(
    r"""(id|name|args)=(None|undefined|null|-?\d+(?:\.\d+)?|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
)


@dataclass
class Recorded:
    calls: list[tuple[Any, Any, Any]] = field(default_factory=list)
    invalid: list[tuple[Any, Any, Any]] = field(default_factory=list)
    error: tuple[str, str] | None = None
    """(name, message) of an error that ended the run (``ERR`` or ``THROWN``)."""
    error_parts: list[str] = field(default_factory=list)


def _value(text: str) -> Any:
    if text in ("None", "null", "undefined"):
        return None
    if text.startswith('"'):
        return json.loads(text)
    return ast.literal_eval(text)


def _calls(text: str) -> list[tuple[Any, Any, Any]]:
    out = []
    for part in text.split("; id="):
        part = part if part.startswith("id=") else "id=" + part
        fields = dict((k, _value(v)) for k, v in _FIELD.findall(part))
        out.append((fields["id"], fields["name"], fields["args"]))
    return out


def _error(text: str) -> tuple[str, str]:
    name, _, message = text.partition(":")
    return name.strip(), message.strip()


def parse(text: str) -> Recorded:
    rec = Recorded()
    main, *extras = text.split(" | ")
    main = main.strip()
    if main.startswith("ERR "):
        rec.error = _error(main[4:])
    elif main != "(no tool calls)":
        rec.calls = _calls(main)
    for extra in extras:
        extra = extra.strip()
        if extra.startswith("invalid: "):
            rec.invalid = _calls(extra[len("invalid: ") :])
        elif extra.startswith("error-part "):
            rec.error_parts.append(_error(extra[len("error-part ") :])[0])
        elif extra.startswith("THROWN "):
            rec.error = _error(extra[len("THROWN ") :])
    return rec


def load() -> dict[str, dict[str, Recorded]]:
    """``{policy key: {scenario: Recorded}}`` from every results file."""
    out: dict[str, dict[str, Recorded]] = {}
    for path in sorted(DATA.glob("results_*.txt")):
        section: dict[str, Recorded] | None = None
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("== "):
                section = out.setdefault(SECTIONS[line[3:].strip()], {})
            elif line.strip() and section is not None:
                scenario, _, rest = line.strip().partition(" ")
                section[scenario] = parse(rest)
    return out
