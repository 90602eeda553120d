"""openai-python 3.57.0: ``ChatCompletionStreamState`` (``client.chat.completions.stream()``).

The SDK merges every delta into a snapshot with ``accumulate_delta``
(``openai/lib/streaming/_deltas.py``): strings are *concatenated* whatever the key — so a
continuation that repeats ``id`` or ``function.name`` doubles it — ``null`` never overwrites,
``index`` and ``type`` are overwritten, and a tool-call list is merged positionally
(``acc[index]``; a new index is ``list.insert``-ed, which appends when it is past the end).
After each chunk it asserts that a call typed ``function`` is still typed ``function`` (so a
continuation with ``type: null`` fails an ``AssertionError``), and its event builder asserts
that every tool-call delta of a ``function`` call carries a ``function`` object. A call that
never got an ``id`` or ``name`` keeps ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.wire import UNSET, Function, ToolCall
from .base import (
    UNSAID,
    AssembledCall,
    Assembler,
    Assembly,
    Frame,
    PlainCall,
    Policy,
    Raise,
    none_if_unset,
    raise_sdk_stream_error,
    times,
    tool_deltas,
    tool_path,
)

__all__ = ["POLICY", "accumulate_delta", "tool_call_dict"]


def tool_call_dict(call: ToolCall) -> dict[str, Any]:
    """The delta as the SDK's ``to_dict()`` gives it: only the keys the JSON had."""
    out: dict[str, Any] = {}
    if call.index is not UNSET:
        out["index"] = call.index
    if call.id is not UNSET:
        out["id"] = call.id
    if call.type is not UNSET:
        out["type"] = call.type
    fn = call.function
    if isinstance(fn, Function):
        f: dict[str, Any] = {}
        if fn.name is not UNSET:
            f["name"] = fn.name
        if fn.arguments is not UNSET:
            f["arguments"] = fn.arguments
        out["function"] = f
    elif fn is None:
        out["function"] = None
    return out


def _has_indexed_entries(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(e, dict) and "index" in e for e in value)


def _addable(a: Any, b: Any) -> bool:
    """Two strings, or two numbers: ``accumulate_delta`` adds them (``"a" + "a"`` = ``"aa"``)."""
    both_str = isinstance(a, str) and isinstance(b, str)
    return both_str or (isinstance(a, int | float) and isinstance(b, int | float))


def accumulate_delta(acc: dict[Any, Any], delta: dict[Any, Any], at: str = "") -> dict[Any, Any]:
    """A port of ``openai.lib.streaming._deltas.accumulate_delta`` (raises what it raises,
    naming the field: ``at`` is the path of ``delta`` in its chunk, ending with a dot)."""
    for key, delta_value in delta.items():
        if key not in acc or acc[key] is None:
            if _has_indexed_entries(delta_value):
                acc[key] = []
            else:
                acc[key] = delta_value
                continue
        acc_value = acc[key]
        if key == "index" or key == "type":
            acc[key] = delta_value
            continue
        if _addable(acc_value, delta_value):
            acc_value += delta_value
        elif isinstance(acc_value, dict) and isinstance(delta_value, dict):
            acc_value = accumulate_delta(acc_value, delta_value, f"{at}{key}.")
        elif isinstance(acc_value, list) and isinstance(delta_value, list):
            if all(isinstance(x, str | int | float) for x in acc_value) and (
                acc_value or not _has_indexed_entries(delta_value)
            ):
                acc_value.extend(delta_value)
                continue
            for k, entry in enumerate(delta_value):
                path = f"{at}{key}[{k}]"
                if not isinstance(entry, dict):
                    raise Raise(
                        "TypeError",
                        f"Unexpected list delta entry is not a dictionary: {entry}",
                        field=path,
                        value=entry,
                    )
                if "index" not in entry:
                    raise Raise(
                        "RuntimeError",
                        f"Expected list delta entry to have an `index` key; {entry}",
                        field=f"{path}.index",
                    )
                index = entry["index"]
                if not isinstance(index, int):
                    raise Raise(
                        "TypeError",
                        f"Unexpected, list delta entry `index` value is not an integer; {index}",
                        field=f"{path}.index",
                        value=index,
                    )
                try:
                    acc_entry = acc_value[index]
                except IndexError:
                    acc_value.insert(index, entry)
                else:
                    if not isinstance(acc_entry, dict):
                        raise Raise("TypeError", "not handled yet", field=path, value=entry)
                    acc_value[index] = accumulate_delta(acc_entry, entry, f"{path}.")
        acc[key] = acc_value
    return acc


def _lookup(calls: Any, index: Any, at: str) -> Any:
    """``calls[index]`` with Python's list semantics (what ``snapshot.tool_calls[i]`` does);
    ``at``: the path of the delta's ``index``."""
    if not isinstance(calls, list):
        calls = []
    if isinstance(index, bool) or not isinstance(index, int):
        raise Raise(
            "TypeError",
            f"list indices must be integers or slices, not {_py_type(index)}",
            field=at,
            value=UNSET if index is None else index,
        )
    try:
        return calls[index]
    except IndexError:
        raise Raise("IndexError", "list index out of range", field=at, value=index) from None


def _py_type(value: Any) -> str:
    if value is None or value is UNSET:
        return "NoneType"
    return type(value).__name__


def _touched(entries: Any, deltas: Any) -> Iterable[int]:
    """The entries of the snapshot's list a delta's list can change: those at its indexes when
    every one is a number in the list or past its end (a new one is appended); else all."""
    if not isinstance(entries, list):
        return ()
    if isinstance(deltas, list) and all(
        isinstance(d, dict)
        and type(d.get("index")) is int
        and d["index"] >= 0  # (a negative index past the start would insert at the front)
        for d in deltas
    ):
        return sorted({d["index"] for d in deltas if d["index"] < len(entries)})
    return range(len(entries))


def _changed_type(deltas: list[ToolCall], index: int) -> int | None:
    """Position of the last delta of the call at ``index`` that sent a ``type`` (the one that
    overwrote it)."""
    found = None
    for k, call in enumerate(deltas):
        if call.index == index and type(call.index) is int and call.type is not UNSET:
            found = k
    return found


def _type_of(entry: Any) -> Any:
    return entry.get("type") if isinstance(entry, dict) else None


class OpenAIPythonAssembler(Assembler):
    def __init__(self) -> None:
        self.started = False
        self.message: dict[Any, Any] | None = None

    plain = True

    def feed_plain(self, frame: Frame, call: PlainCall) -> None:
        # a call at the next position of the snapshot's list is inserted there as sent; any
        # other (a call to add to, a position past the end, the first chunk) is a step
        index, cid, name, args = call
        entries = self.message.get("tool_calls") if self.message is not None else None
        if (
            not self.started
            or type(entries) is not list
            or index != len(entries)
            or (entries and type(entries[0]) is not dict)  # (a list of scalars is extended)
        ):
            self.feed(frame)
            return
        fn = {"name": name, "arguments": args}
        entries.append({"index": index, "id": cid, "type": "function", "function": fn})

    def feed(self, frame: Frame) -> None:
        raise_sdk_stream_error(frame)
        chunk = frame.chunk
        if not isinstance(chunk.choices, list):
            if self.started:
                raise Raise(
                    "TypeError", "'NoneType' object is not iterable", field="choices", value=UNSET
                )
            self.started = True
            return
        first = not self.started
        self.started = True
        for c, choice in enumerate(chunk.choices):
            deltas = tool_deltas(choice)
            delta: dict[Any, Any] = {}
            if choice.delta and choice.delta.tool_calls is not UNSET:
                tc = choice.delta.tool_calls
                delta["tool_calls"] = None if tc is None else [tool_call_dict(c) for c in deltas]
                if frame.repeat > 1 and deltas:  # a run of repeats: each string added again
                    for entry in delta["tool_calls"]:
                        if "id" in entry:
                            entry["id"] = times(entry["id"], frame)
                        fn = entry.get("function")
                        if isinstance(fn, dict) and "name" in fn:
                            fn["name"] = times(fn["name"], frame)
            at = f"choices[{c}].delta."
            if first or self.message is None:
                self.message = accumulate_delta({}, delta, at)
            else:
                entries = self.message.get("tool_calls") or []
                touched = _touched(entries, delta.get("tool_calls"))
                before = [(i, _type_of(entries[i])) for i in touched]
                self.message = accumulate_delta(self.message, delta, at)
                after = self.message.get("tool_calls") or []
                for i, t in before:
                    if t == "function" and _type_of(after[i]) != "function":
                        k = _changed_type(deltas, i)
                        raise Raise(
                            "AssertionError",
                            layer="ChatCompletionStreamState: a call's type stays function",
                            field=tool_path(c, k, "type") if k is not None else "",
                            value=deltas[k].type if k is not None else UNSAID,
                        )
            if not first:
                for k, call in enumerate(deltas):
                    index = none_if_unset(call.index)
                    _lookup(self.message.get("tool_calls"), index, tool_path(c, k, "index"))
            # _build_events
            if deltas:
                calls = self.message.get("tool_calls")
                if calls is None:
                    raise Raise(
                        "AssertionError",
                        layer="ChatCompletionStreamState: tool_calls",
                        field=f"choices[{c}].delta.tool_calls",
                        value=UNSAID,
                    )
                for k, call in enumerate(deltas):
                    entry = _lookup(calls, none_if_unset(call.index), tool_path(c, k, "index"))
                    if _type_of(entry) == "function" and not isinstance(call.function, Function):
                        raise Raise(
                            "AssertionError",
                            layer="ChatCompletionStreamState: a function delta has function",
                            field=tool_path(c, k, "function"),
                            value=call.function,
                        )

    def finish(self) -> Assembly:
        out = Assembly()
        entries = (self.message or {}).get("tool_calls") or []
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            if entry.get("type") == "function":
                if "function" not in entry:
                    raise Raise("KeyError", "'function'")
                if not isinstance(entry["function"], dict):
                    raise Raise("TypeError", "'NoneType' object is not a mapping")
            fn = entry.get("function")
            fn = fn if isinstance(fn, dict) else {}
            out.calls.append(
                AssembledCall(
                    id=entry.get("id"),
                    name=fn.get("name"),
                    arguments=fn.get("arguments"),
                    wire_index=entry.get("index", UNSET),
                )
            )
        return out


POLICY = Policy(
    key="openai-python",
    library="openai 3.57.0 (Python), ChatCompletionStreamState",
    rule=(
        "concatenates id, name and arguments across deltas (a repeated id or name doubles);"
        " null is ignored; type is overwritten and a call typed function must stay so"
        " (AssertionError); a delta without a function object fails an assertion"
    ),
    assembler=OpenAIPythonAssembler,
)
