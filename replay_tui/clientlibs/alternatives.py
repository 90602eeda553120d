"""The designs the seed record (2026-09-01, streamed tool-call identity) rejected or deferred.

They run in the harness translator in place of ``accept-identity``, keyed by wire index as it
is, so they show what each design would have done to a trace:

- ``concatenate-identity`` — append every ``id``/``name`` a delta carries, JavaScript-style
  (``null`` becomes ``"null"``: "``Globnull``"; a repeated name doubles). No refusal at
  ``[DONE]``: a call that never got one closes with ``""``, as the old code did.
- ``refuse-conflicting-identity`` — ``accept-identity``, but a non-empty ``id`` or ``name``
  that differs from the one established refuses the response at once (``MALFORMED_TOOL_CALL``).
- ``refuse-first-delta-without-id`` — ``accept-identity``, but a call whose first delta has no
  non-empty ``id`` is refused at once, even if the id arrives one delta later.

Both refusing designs also keep the ``[DONE]`` check of ``accept-identity``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.translator import index_key, is_identity
from ..core.wire import UNSET, Function, js_string
from .base import (
    UNSAID,
    AssembledCall,
    Assembler,
    Assembly,
    Frame,
    PlainCall,
    Policy,
    Raise,
    choices,
    tool_deltas,
    tool_path,
)

__all__ = ["CONCATENATE", "REFUSE_CONFLICT", "REFUSE_FIRST_WITHOUT_ID"]

CODE = "MALFORMED_TOOL_CALL"


@dataclass
class _Call:
    wire_index: Any
    id: Any = UNSET
    name: Any = UNSET
    arguments: list[str] = field(default_factory=list)
    at: str = ""
    """Where the call's first delta stood in its chunk, and that chunk's line."""
    line: int | None = None


def _times(value: Any, frame: Frame) -> int:
    """How many times a folded frame's value was sent: a repeated string, each payload; a
    blank or absent one, once (the nulls before it are counted apart)."""
    return frame.repeat if type(value) is str else 1


_FIRST = tool_path(0, 0)


@dataclass
class AlternativeAssembler(Assembler):
    mode: str
    calls: dict[Any, _Call] = field(default_factory=dict)

    plain = True

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        index, cid, name, args = call
        if index in self.calls:
            self.feed(frame)  # (a call to add to)
            return
        # (a plain call's id and name are identities: no design refuses them on a new call)
        self.calls[index] = _Call(index, cid, name, [args], _FIRST, frame.line)

    def feed(self, frame: Frame) -> None:
        for c, choice in enumerate(choices(frame.chunk)):
            for k, d in enumerate(tool_deltas(choice)):
                key = index_key(d.index)
                call = self.calls.get(key)
                first = call is None
                if call is None:
                    call = self.calls[key] = _Call(d.index, at=tool_path(c, k), line=frame.line)
                fn = d.function
                name = fn.name if isinstance(fn, Function) else UNSET
                args = fn.arguments if isinstance(fn, Function) else UNSET
                call.arguments.append("" if args is UNSET or args is None else js_string(args))
                if self.mode == "concatenate":
                    # a quiet run's frame carries its last payload's identity and counts the
                    # nulls before it
                    if d.id is not UNSET or frame.id_nulls:
                        sent = "" if d.id is UNSET else js_string(d.id) * _times(d.id, frame)
                        call.id = ("" if call.id is UNSET else call.id) + sent
                        call.id += "null" * frame.id_nulls
                    if name is not UNSET or frame.name_nulls:
                        sent = "" if name is UNSET else js_string(name) * _times(name, frame)
                        call.name = ("" if call.name is UNSET else call.name) + sent
                        call.name += "null" * frame.name_nulls
                    continue
                if first and self.mode == "first-id" and not is_identity(d.id):
                    raise Raise(
                        CODE,
                        "model streamed a tool call whose first delta has no id",
                        "refuses",
                        field=tool_path(c, k, "id"),
                        value=d.id,
                    )
                for fld, value in (("id", d.id), ("name", name)):
                    if not is_identity(value):
                        continue
                    before = getattr(call, fld)
                    if self.mode == "conflict" and before is not UNSET and before != value:
                        raise Raise(
                            CODE,
                            f"model changed a tool call's {fld} mid-stream",
                            "refuses",
                            field=tool_path(c, k, "id" if fld == "id" else "function.name"),
                            value=value,
                        )
                    setattr(call, fld, value)

    def finish(self) -> Assembly:
        out = Assembly()
        if self.mode != "concatenate":
            for call in self.calls.values():
                missing = "id" if call.id is UNSET else "name" if call.name is UNSET else None
                if missing:
                    raise Raise(
                        CODE,
                        f"model streamed a tool call with no {missing}",
                        "refuses",
                        field=f"{call.at}.{'id' if missing == 'id' else 'function.name'}",
                        value=UNSAID,  # (no delta of the call sent a non-empty one)
                        field_line=call.line,
                    )
        for call in self.calls.values():
            out.calls.append(
                AssembledCall(
                    "" if call.id is UNSET else call.id,
                    "" if call.name is UNSET else call.name,
                    "".join(call.arguments),
                    wire_index=call.wire_index,
                )
            )
        return out


CONCATENATE = Policy(
    key="concatenate-identity",
    library="rejected design: concatenate id and name across deltas",
    rule='every id and name a delta carries is appended (null as "null"); no refusal',
    assembler=lambda: AlternativeAssembler("concatenate"),
    kind="alternative",
)

REFUSE_CONFLICT = Policy(
    key="refuse-conflicting-identity",
    library="deferred design: refuse a conflicting identity mid-stream",
    rule="accept-identity, but a different non-empty id or name refuses the response at once",
    assembler=lambda: AlternativeAssembler("conflict"),
    kind="alternative",
)

REFUSE_FIRST_WITHOUT_ID = Policy(
    key="refuse-first-delta-without-id",
    library="rejected design: refuse a call whose first delta has no id",
    rule="accept-identity, but a call whose first delta carries no non-empty id is refused",
    assembler=lambda: AlternativeAssembler("first-id"),
    kind="alternative",
)
