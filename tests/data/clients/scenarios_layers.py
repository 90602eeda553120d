"""Scenarios that reach each library's validation and parsing layers (issue 15).

Made for this project (not from the shared notes). Same stream shape as ``scenarios.py``: one
chunk per tool-call delta, then a ``finish_reason: "tool_calls"`` chunk and ``[DONE]``; the
request's ``model`` names the scenario. ``scripts/record_clients.py`` streams them to the real
libraries and writes ``results_layers_*.txt``.
"""

import json

ARGS = ['{"city":', ' "Paris"}']
ARGS_B = ['{"tz":', ' "CET"}']


def first(**over):
    tc = {"index": 0, "id": "call_1", "type": "function",
          "function": {"name": "get_weather", "arguments": ""}}
    for k, v in over.items():
        if k == "name":
            tc["function"]["name"] = v
        elif v is ...:
            tc.pop(k)
        else:
            tc[k] = v
    return tc


def cont(arg, index=0, **over):
    tc = {"index": index, "function": {"arguments": arg}}
    if index is ...:
        tc.pop("index")
    for k, v in over.items():
        if k == "name":
            tc["function"]["name"] = v
        elif v is ...:
            tc.pop(k)
        else:
            tc[k] = v
    return tc


SCENARIOS = {
    # a numeric id on the first delta (never a string id)
    "id_number": [first(id=1)] + [cont(a) for a in ARGS],
    # continuations re-send the id as a number
    "id_number_cont": [first()] + [cont(a, id=0) for a in ARGS],
    # type null / "FUNCTION" on the first delta
    "type_null_first": [first(type=None)] + [cont(a) for a in ARGS],
    "type_upper": [first(type="FUNCTION")] + [cont(a) for a in ARGS],
    # two calls, continuations interleaved with blank identity (id "", name "")
    "parallel_blank": [
        first(),
        {"index": 1, "id": "call_2", "type": "function",
         "function": {"name": "get_time", "arguments": ""}},
        cont(ARGS[0], 0, id="", name=""),
        cont(ARGS_B[0], 1, id="", name=""),
        cont(ARGS[1], 0, id="", name=""),
        cont(ARGS_B[1], 1, id="", name=""),
    ],
    # a gateway that stringifies null: continuations send id "null" and name "null"
    "string_null": [first()] + [cont(a, id="null", name="null") for a in ARGS],
    # no index anywhere / only on the first delta
    "index_missing": [first(index=...)] + [cont(a, index=...) for a in ARGS],
    "index_missing_cont": [first()] + [cont(a, index=...) for a in ARGS],
    # the canonical stream, but no chunk names the role
    "no_role": [first()] + [cont(a) for a in ARGS],
}


def sse(name):
    tcs = SCENARIOS[name]
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
            "model": name}
    out = []
    for i, tc in enumerate(tcs):
        delta = {"tool_calls": [tc]}
        if i == 0 and name != "no_role":
            delta["role"] = "assistant"
            delta["content"] = None
        out.append({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
    out.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return "".join(f"data: {json.dumps(c)}\n\n" for c in out) + "data: [DONE]\n\n"
