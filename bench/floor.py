"""The floor ``check`` is measured against (README, Speed): a typed msgspec decode, nothing else.

``msgspec.json.Decoder(Chunk)``, ``Chunk`` holding only what a translator must read —
``choices[].delta.{content, tool_calls[].{index, id, function.{name, arguments}}}`` and
``choices[].finish_reason``, absent fields ``UNSET`` — applied to each ``data: {`` (or
``data:{``) line of the file read whole. Run as a whole process, like ``replay-tui check``.

A payload msgspec refuses that JSON still reads (a lone surrogate escape: a gateway in
JavaScript cuts an emoji between two deltas) is decoded by the standard library and converted
to the same type: the least any reader of it must do. (The floor used to stop at the first
such payload, a traceback taken for a run: on portkey-surrogates it timed a fraction of the
file.) A payload that is not JSON at all is counted and passed over.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType


class Function(msgspec.Struct):
    name: Any = UNSET
    arguments: Any = UNSET


class ToolCall(msgspec.Struct):
    index: Any = UNSET
    id: Any = UNSET
    function: Function | UnsetType | None = UNSET


class Delta(msgspec.Struct):
    content: Any = UNSET
    tool_calls: list[ToolCall] | UnsetType | None = UNSET


class Choice(msgspec.Struct):
    delta: Delta | UnsetType | None = UNSET
    finish_reason: Any = UNSET


class Chunk(msgspec.Struct):
    choices: list[Choice] | UnsetType | None = UNSET


def main() -> None:
    decode = msgspec.json.Decoder(Chunk).decode
    count = broken = 0
    with open(sys.argv[1], "rb") as fh:
        data = fh.read()
    for line in data.split(b"\n"):
        if line.startswith(b"data: {"):
            payload = line[6:]
        elif line.startswith(b"data:{"):  # (the field's value without its optional space)
            payload = line[5:]
        else:
            continue
        count += 1
        try:
            decode(payload)
        except msgspec.DecodeError:
            try:
                msgspec.convert(json.loads(payload), Chunk)
            except (ValueError, msgspec.ValidationError):
                broken += 1
    print(count, broken)


if __name__ == "__main__":
    main()
