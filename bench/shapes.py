"""Trace shapes for the budgets of SPEC §7: a budget holds on every shape, not on one.

    python3 shapes.py SHAPE N OUT.sse      # about N tool-call deltas, as a gateway sends them
    python3 shapes.py --list

Each shape is a pattern seen in real captures, scaled up. They differ in what makes a tool
cheap or expensive: how often the identity fields change, how many calls run in parallel,
how large each payload is, how much text comes before the calls.

Copied from the project's shared benchmark material (../shared/bench/shapes.py); the
``huge-*`` shapes are this project's own.
"""

import json
import sys

BASE = {"id": "chatcmpl-shape", "object": "chat.completion.chunk", "created": 1770764938}


def _chunk(model, delta, finish=None, **extra):
    c = {
        **BASE,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"


def _call(i, ident=None, name=None, args="", **fields):
    tc = {"index": i, **fields}
    if ident is not None:
        tc["id"] = ident
    fn = {"arguments": args}
    if name is not None:
        fn["name"] = name
    tc["function"] = fn
    return tc


def _end(model, n):
    yield _chunk(model, {}, "tool_calls")
    yield (
        "data: "
        + json.dumps(
            {
                **BASE,
                "model": model,
                "choices": [],
                "usage": {"prompt_tokens": 900, "completion_tokens": n, "total_tokens": 900 + n},
            },
            separators=(",", ":"),
        )
        + "\n\n"
    )
    yield "data: [DONE]\n\n"


def uniform(n):
    """DashScope: 4 calls one after another; every continuation re-sends "id": ""."""
    m, per = "qwen3-max", max(2, n // 4)
    for c in range(4):
        yield _chunk(
            m, {"tool_calls": [_call(c, f"call_{c:024x}", "read_file", "", type="function")]}
        )
        yield _chunk(m, {"tool_calls": [_call(c, "", None, '{"path": "src/', type="function")]})
        for k in range(per - 2):
            yield _chunk(m, {"tool_calls": [_call(c, "", None, f"part{k}/", type="function")]})
        yield _chunk(m, {"tool_calls": [_call(c, "", None, 'x.py"}', type="function")]})
    yield from _end(m, n)


def alternating(n):
    """One call; every third continuation sends "id": "", every fifth "name": "" (mixed proxies)."""
    m = "glm-5.2"
    yield _chunk(m, {"role": "assistant", "content": None, "reasoning_content": ""})
    yield _chunk(m, {"tool_calls": [_call(0, "call_0_big", "get_weather", "", type="function")]})
    for i in range(n):
        args = '{"q":"' if i == 0 else ("x" if i < n - 1 else 'x"}')
        yield _chunk(
            m,
            {
                "tool_calls": [
                    _call(
                        0,
                        "" if i % 3 == 0 else None,
                        "" if i % 5 == 0 else None,
                        args,
                        type="function",
                    )
                ]
            },
        )
    yield from _end(m, n)


def interleaved(n):
    """Envoy in front of Bedrock: 16 parallel calls, deltas round-robin; even continuations send
    "id": null and "name": "", odd ones neither."""
    m, calls = "anthropic.claude-sonnet-4-6", 16
    for c in range(calls):
        yield _chunk(
            m, {"tool_calls": [_call(c, f"tooluse_{c:022d}", f"tool_{c}", "", type="function")]}
        )
    for k in range(max(1, (n - calls) // calls)):
        for c in range(calls):
            args = '{"k":"' if k == 0 else ("v" if k < (n - calls) // calls - 1 else 'v"}')
            extra = {"id": None} if k % 2 == 0 else {}
            tc = {
                "index": c,
                **extra,
                "function": {"arguments": args, **({"name": ""} if k % 2 == 0 else {})},
            }
            yield _chunk(m, {"tool_calls": [tc]})
    yield from _end(m, n)


def many_calls(n):
    """An agent loop's batch: n/20 canonical calls of 20 deltas each (OpenAI: identity once)."""
    m = "gpt-4.1"
    for c in range(max(1, n // 20)):
        yield _chunk(
            m, {"tool_calls": [_call(c, f"call_{c:024x}", "run_shell", "", type="function")]}
        )
        for k in range(19):
            yield _chunk(
                m,
                {
                    "tool_calls": [
                        {
                            "index": c,
                            "function": {
                                "arguments": '{"cmd":"' if k == 0 else ("ls" if k < 18 else '"}')
                            },
                        }
                    ]
                },
            )
    yield from _end(m, n)


def text_then_call(n):
    """Kimi through an aggregator: n/2 reasoning and content deltas, then one call whose n/2
    continuations send "id": null and "name": null."""
    m, half = "moonshotai/kimi-k2-0905", max(2, n // 2)
    for k in range(half):
        key = "reasoning_content" if k < half // 2 else "content"
        yield _chunk(m, {key: f"token{k} "}, provider="AtlasCloud")
    yield _chunk(
        m,
        {"tool_calls": [_call(0, "functions.glob:0", "glob", "", type="function")]},
        provider="AtlasCloud",
    )
    for k in range(half):
        args = '{"pattern":"' if k == 0 else ("*" if k < half - 1 else '"}')
        yield _chunk(
            m,
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": None,
                        "type": "function",
                        "function": {"name": None, "arguments": args},
                    }
                ]
            },
            provider="AtlasCloud",
        )
    yield from _end(m, n)


def _words(size):
    """About ``size`` characters of words and spaces (a payload a pane has to wrap)."""
    word = "lorem ipsum dolor sit amet consectetur adipiscing elit "
    return (word * (size // len(word) + 1))[:size]


def huge_5mb(n):
    """One 5 MB arguments fragment in the middle of a call, among n ordinary deltas of two
    calls (DashScope's "id": "" continuations)."""
    m, per = "qwen3-max", max(3, n // 2)
    for c in range(2):
        yield _chunk(
            m, {"tool_calls": [_call(c, f"call_{c:024x}", "write_file", "", type="function")]}
        )
        yield _chunk(m, {"tool_calls": [_call(c, "", None, '{"text": "', type="function")]})
        for k in range(per - 3):
            yield _chunk(m, {"tool_calls": [_call(c, "", None, f"part{k} ", type="function")]})
            if c == 0 and k == (per - 3) // 2:
                yield _chunk(
                    m, {"tool_calls": [_call(c, "", None, _words(5_000_000), type="function")]}
                )
        yield _chunk(m, {"tool_calls": [_call(c, "", None, '"}', type="function")]})
    yield from _end(m, n)


def huge_50mb(n):
    """A 50 MB content string, then n ordinary deltas of one canonical call, then a mid-stream
    error whose message is 5 MB (OpenRouter's "error" chunk)."""
    m = "minimax/minimax-m2"
    yield _chunk(m, {"role": "assistant", "content": "Here it is: "})
    yield _chunk(m, {"content": _words(50_000_000)})
    yield _chunk(m, {"tool_calls": [_call(0, "call_huge", "save", "", type="function")]})
    for k in range(max(2, n)):
        args = '{"q":"' if k == 0 else ("y" if k < max(2, n) - 1 else 'y"}')
        yield _chunk(m, {"tool_calls": [{"index": 0, "function": {"arguments": args}}]})
    yield _chunk(m, {"content": ""}, error={"code": 400, "message": _words(5_000_000)})
    yield from _end(m, n)


def crlf_keepalive(n):
    """CRLF line endings, 50 calls re-sending their id with a null name, a keep-alive comment
    every 100 events (a shape invented after the framing was tuned: not one of the five)."""
    m, calls = "deepseek-chat", 50
    per = max(2, n // calls)
    events = 0
    for c in range(calls):
        ident = f"call_{c:08d}_crlf"
        for k in range(per):
            args = '{"file":"' if k == 0 else ("a" if k < per - 1 else '"}')
            if k == 0:
                tc = _call(c, ident, "open_file", args, type="function")
            else:
                tc = {"index": c, "id": ident, "function": {"name": None, "arguments": args}}
            yield _chunk(m, {"tool_calls": [tc]}).replace("\n", "\r\n")
            events += 1
            if events % 100 == 0:
                yield ": keep-alive\r\n\r\n"
    for event in _end(m, n):
        yield event.replace("\n", "\r\n")


def usage_every_delta(n):
    """vLLM with continuous usage stats: a usage object in every chunk, null logprobs and
    stop_reason beside each delta; 4 calls, the third re-keyed mid-call (its id changes
    half-way). Invented after the framing and the analysis were tuned: not one of the five."""
    m, calls = "Qwen/Qwen3-Coder-480B-A35B-Instruct", 4
    per = max(4, n // calls)
    done = 0

    def chunk(delta):
        usage = {
            "prompt_tokens": 2048,
            "total_tokens": 2048 + done,
            "completion_tokens": done,
            "prompt_tokens_details": {"cached_tokens": 1536},
        }
        c = {
            **BASE,
            "model": m,
            "choices": [
                {
                    "index": 0,
                    "delta": delta,
                    "logprobs": None,
                    "finish_reason": None,
                    "stop_reason": None,
                }
            ],
            "usage": usage,
        }
        return "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"

    yield chunk({"role": "assistant", "content": ""})
    for c in range(calls):
        for k in range(per):
            done += 1
            if k == 0:
                tc = _call(c, f"chatcmpl-tool-{c:032x}", "edit_file", "", type="function")
            elif c == 2 and k == per // 2:  # re-keyed: a new id, the same name
                tc = {"index": c, "id": f"chatcmpl-tool-{c + 100:032x}", "function": {}}
            else:
                args = '{"diff":"' if k == 1 else ("+" if k < per - 1 else '"}')
                tc = {"index": c, "function": {"arguments": args}}
            yield chunk({"tool_calls": [tc]})
    yield from _end(m, n)


def event_id_lines(n):
    """uniform's payloads, each event with an "event: message" and an "id: N" line before its
    data line (SSE servers that number their events)."""
    for i, event in enumerate(uniform(n)):
        yield f"event: message\nid: {i}\n" + event


def late_name_unicode(n):
    """Bedrock through LiteLLM: 8 calls, each id on its first delta and its name only on the
    second, "id": null on every continuation, "data:" without its space, logprobs and
    "usage": null in each chunk, arguments of multi-byte text, half of the chunks with
    \\u escapes. Invented by the lead after this work (issue 27), tuned for by nobody."""
    import random

    rnd = random.Random(7)
    m, calls = "claude-sonnet-4-bedrock", 8
    per = max(4, n // calls)
    words = ["é", "naïve", "日本語", "🙂", "\\n", "path/to/x", '\\"q\\"', "0123456789"]

    def chunk(delta, finish=None, usage=None, choices=True):
        c = {**BASE, "model": m, "system_fingerprint": "fp_x"}
        c["choices"] = (
            [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
            if choices
            else []
        )
        c["usage"] = usage
        text = json.dumps(c, separators=(",", ":"), ensure_ascii=rnd.random() < 0.5)
        return "data:" + text + "\n\n"

    for c in range(calls):
        first = {"index": c, "id": f"toolu_{c:020d}", "type": "function"}
        yield chunk({"tool_calls": [{**first, "function": {"arguments": ""}}]})
        named = {"index": c, "id": None, "function": {"name": "search_docs", "arguments": '{"q":"'}}
        yield chunk({"tool_calls": [named]})
        for _ in range(per - 3):
            frag = "".join(rnd.choice(words) for _ in range(rnd.randint(1, 6)))
            yield chunk({"tool_calls": [{"index": c, "id": None, "function": {"arguments": frag}}]})
        yield chunk({"tool_calls": [{"index": c, "id": None, "function": {"arguments": '"}'}}]})
    yield chunk({}, "tool_calls")
    yield chunk(
        None,
        usage={"prompt_tokens": 10, "completion_tokens": n, "total_tokens": n + 10},
        choices=False,
    )
    yield "data:[DONE]\n\n"


def two_choices(n):
    """A request with n=2: every chunk carries one delta of choice 0 or 1 in turn, each choice
    one call (its id and name once, then "id": "" continuations), and a finish per choice.
    Invented by the lead at the end of the session (issue 27), measured as found."""
    m = "deepseek-chat"

    def chunk(choice, delta, finish=None):
        c = {
            **BASE,
            "model": m,
            "choices": [{"index": choice, "delta": delta, "finish_reason": finish}],
        }
        return "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"

    for k in range(max(4, n)):
        choice, step = k % 2, k // 2
        if step == 0:
            tc = _call(0, f"call_{choice:024x}", "run_query", "", type="function")
        else:
            tc = _call(0, "", None, '{"sql":"' if step == 1 else "x")
        yield chunk(choice, {"tool_calls": [tc]})
    for choice in (0, 1):
        yield chunk(choice, {"tool_calls": [_call(0, "", None, '"}')]})
        yield chunk(choice, {}, "tool_calls")
    yield "data: [DONE]\n\n"


SHAPES = {
    f.__name__.replace("_", "-"): f
    for f in (uniform, alternating, interleaved, many_calls, text_then_call)
}
HUGE = {f.__name__.replace("_", "-"): f for f in (huge_5mb, huge_50mb)}
def azure_filtered(n):
    """Azure OpenAI: a first chunk of prompt filter results and no choices, a content filter
    result in every choice, an ``obfuscation`` padding of varying length on every chunk, 8
    calls one after another (canonical: identity once, then arguments alone). Invented by the
    lead once this session's work was merged, and measured as found."""
    m, calls = "gpt-4.1", 8
    per = max(2, n // calls)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    filters = {
        k: {"filtered": False, "severity": "safe"}
        for k in ("hate", "self_harm", "sexual", "violence")
    }
    first = {
        "choices": [],
        "created": 0,
        "id": "",
        "model": "",
        "object": "",
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": filters}],
    }
    yield "data: " + json.dumps(first, separators=(",", ":")) + "\n\n"
    k = 0

    def chunk(delta, finish=None, results=None):
        nonlocal k
        k += 1
        pad = "".join(alphabet[(k * 7 + j * 13) % len(alphabet)] for j in range(k % 11 + 1))
        choice = {
            "content_filter_results": results if results is not None else {},
            "delta": delta,
            "finish_reason": finish,
            "index": 0,
            "logprobs": None,
        }
        c = {
            **BASE,
            "model": m,
            "obfuscation": pad,
            "system_fingerprint": "fp_07871e2ad8",
            "choices": [choice],
        }
        return "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"

    yield chunk({"role": "assistant", "content": None, "refusal": None})
    for c in range(calls):
        for j in range(per):
            if j == 0:
                tc = _call(c, f"call_{c:04d}azure", "search_docs", "", type="function")
            else:
                piece = '{"q":"' if j == 1 else ('"}' if j == per - 1 else "w")
                tc = {"index": c, "function": {"arguments": piece}}
            yield chunk({"tool_calls": [tc]})
    yield chunk({}, "tool_calls", filters)
    yield "data: [DONE]\n\n"


def reasoning_then_calls(n):
    """DeepSeek-R1 through OpenRouter: 40% of the deltas reasoning_content pieces, then 4 calls
    whose every delta re-sends the call's id and carries an empty ``content`` beside it.
    Invented by the lead at the final review, and measured as found."""
    m = "deepseek/deepseek-r1"
    thinking = max(1, n * 2 // 5)
    yield _chunk(m, {"role": "assistant", "content": ""})
    for k in range(thinking):
        yield _chunk(m, {"content": None, "reasoning_content": f"step {k} "})
    per = max(2, (n - thinking) // 4)
    for c in range(4):
        ident = f"call_r1_{c:04d}"
        for j in range(per):
            args = '{"x":"' if j == 0 else ('"}' if j == per - 1 else "z")
            name = "lookup" if j == 0 else None
            tc = _call(c, ident, name, args, type="function")
            yield _chunk(m, {"content": "", "tool_calls": [tc]})
    yield from _end(m, n)


def role_every_chunk(n):
    """A local server's OpenAI-compatible stream (LM Studio, Ollama style): every delta re-sends
    ``"role": "assistant"``, every chunk a ``system_fingerprint``; 30% of the deltas text, then
    3 calls one after another (identity once, then arguments alone), each delta beside the role
    and an empty ``content``. Invented once the work on issue 27 item 1 (the clients' folding of
    empty text and of several choices) was finished, and measured as found."""
    m = "qwen3:8b"
    fp = {"system_fingerprint": "fp_ollama"}
    text = max(1, n * 3 // 10)
    for k in range(text):
        yield _chunk(m, {"role": "assistant", "content": f"w{k % 89} "}, **fp)
    per = max(2, (n - text) // 3)
    for c in range(3):
        for j in range(per):
            if j == 0:
                tc = _call(c, f"call_{c:08x}", "read_file", "", type="function")
            else:
                piece = '{"path":"' if j == 1 else ('"}' if j == per - 1 else "d/")
                tc = {"index": c, "function": {"arguments": piece}}
            yield _chunk(m, {"role": "assistant", "content": "", "tool_calls": [tc]}, **fp)
    yield from _end(m, n)


def paired_calls(n):
    """Two parallel calls streamed side by side, both deltas in one choice of every chunk
    (``tool_calls`` of two entries, as a gateway that batches the deltas of parallel calls
    sends them), the identity once, then ``id: null`` beside each piece; a usage object on
    the last chunk. Invented at the end of the session, after the role fix, and measured as
    found."""
    m = "gemini-2.5-flash"
    per = max(2, n // 2)
    for j in range(per):
        pair = []
        for c in range(2):
            if j == 0:
                pair.append(_call(c, f"call_{c}_pair", "get_weather", "", type="function"))
            else:
                piece = '{"city":"' if j == 1 else ('"}' if j == per - 1 else "ab")
                pair.append({"index": c, "id": None, "function": {"arguments": piece}})
        yield _chunk(m, {"tool_calls": pair})
    yield from _end(m, n)


def vllm_hermes(n):
    """vLLM's OpenAI server with the hermes tool parser: every choice carries ``"logprobs":
    null`` and ``"stop_reason": null``; 10% of the deltas text, then 8 calls one after another,
    each opened by a delta of its id, type and name and no ``arguments`` key at all, then
    argument pieces alone (an empty piece every 50th), a ``"\\n"`` text delta between two calls
    (what the model writes between its ``</tool_call>`` and the next). Invented by the lead once
    every helper's work of the session was finished, and measured as found."""
    m = "Qwen/Qwen3-32B"

    def chunk(delta):
        c = {
            **BASE,
            "model": m,
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": None,
                 "stop_reason": None}
            ],
        }
        return "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"

    text = max(1, n // 10)
    yield chunk({"role": "assistant", "content": ""})
    for k in range(text):
        yield chunk({"content": f"t{k % 97} "})
    per = max(3, (n - text) // 8)
    for c in range(8):
        if c:
            yield chunk({"content": "\n"})
        ident = f"chatcmpl-tool-{c:032x}"
        yield chunk(
            {"tool_calls": [{"id": ident, "type": "function", "index": c,
                             "function": {"name": "search_docs"}}]}
        )
        for j in range(per - 1):
            if j == 0:
                piece = '{"query": "'
            elif j == per - 2:
                piece = '"}'
            elif j % 50 == 0:
                piece = ""
            else:
                piece = "ab"
            yield chunk({"tool_calls": [{"index": c, "function": {"arguments": piece}}]})
    yield from _end(m, n)


def batched_rotating(n):
    """Four parallel calls batched two to a chunk in rotating pairs (0+1, 2+3, 1+2, 3+0, …),
    each call's first delta alone with its id and name, then ``id: ""`` and ``name: null``
    beside each piece, the later delta of a chunk first now and then, and a ``created`` that
    counts up on every chunk. Invented after the paired-calls fix, measured as found."""
    m = "gemini-2.5-pro"
    for c in range(4):
        yield _chunk(m, {"tool_calls": [_call(c, f"call_{c}_rot", f"tool_{c}", "")]})
    pairs = [(0, 1), (2, 3), (1, 2), (3, 0)]
    per = max(2, (n - 4) // 2)
    for j in range(per):
        a, b = pairs[j % 4]
        if j % 7 == 3:
            a, b = b, a
        pair = []
        for c in (a, b):
            piece = '{"q":"' if j < 4 else ('"}' if j >= per - 4 else "xy")
            pair.append({"index": c, "id": "", "function": {"name": None, "arguments": piece}})
        yield _chunk(m, {"tool_calls": pair}, created=1770764938 + j)
    yield from _end(m, n)


def bedrock_litellm(n):
    """Bedrock's Converse stream through LiteLLM's proxy: every delta carries ``content``,
    ``role``, ``function_call``, ``refusal``, ``audio`` and ``provider_specific_fields`` keys
    (null but the first role), a text block first (300 text deltas), then 6 calls whose
    ``index`` counts Bedrock's content blocks (1 to 6: index 0 is the text), each opened with
    its ``tooluse_`` id, ``"type": "function"`` and its name beside ``"arguments": ""``, then
    pieces of 0 to 40 characters beside ``"id": null``, ``"type": "function"`` and ``"name":
    null``, escapes among them (quotes, a ``\\n``, ``\\u00e9``, ``\\u65e5``),
    ``system_fingerprint`` null in every chunk. Invented by the lead after every helper's work
    of the session of 2026-12-04 (evening) was finished, and measured as found."""
    m = "bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0"
    nulls = {"function_call": None, "refusal": None, "audio": None,
             "provider_specific_fields": None}

    def chunk(delta):
        return _chunk(m, {**nulls, **delta}, system_fingerprint=None)

    yield chunk({"content": "", "role": "assistant"})
    for k in range(300):
        yield chunk({"content": f"w{k % 89} ", "role": None})
    per = max(3, (n - 300) // 6)
    pieces = ['{"path": "', "src/", "caf\u00e9/", "\u65e5\u672c", "a\\nb", '\\"q\\"',
              "x" * 40, "y", "", "zz/"]
    for c in range(6):
        ident = f"tooluse_{c:02d}AbCdEfGhIjKlMnOpQrS"
        yield chunk({"content": None, "role": None, "tool_calls": [
            {"id": ident, "type": "function", "index": c + 1,
             "function": {"name": "read_file", "arguments": ""}}]})
        for j in range(per - 1):
            piece = pieces[0] if j == 0 else ('"}' if j == per - 2 else pieces[1 + j % 9])
            yield chunk({"content": None, "role": None, "tool_calls": [
                {"id": None, "type": "function", "index": c + 1,
                 "function": {"name": None, "arguments": piece}}]})
    yield from _end(m, n)


def index_zero_parallel(n):
    """A gateway that forgets to count the calls (as Ollama's OpenAI endpoint once did): 8
    calls one after another, every one at ``"index": 0``, each opened by a delta of its own
    ``id`` and name and ``"type": "function"``, its pieces then with no ``id``, ``type`` or
    ``name`` key, a ``"role": "assistant"`` beside every delta, ``content`` an empty string.
    Invented at the final review of the evening of 2026-12-04, after every other change, and
    measured as found."""
    m = "llama3.3:70b"
    per = max(3, n // 8)
    for c in range(8):
        opened = {"id": f"call_{c:02d}ollama", "type": "function", "index": 0}
        opened["function"] = {"name": ("get_weather", "read_file")[c % 2], "arguments": ""}
        yield _chunk(m, {"role": "assistant", "content": "", "tool_calls": [opened]})
        for j in range(per - 1):
            piece = '{"city":"' if j == 0 else ('"}' if j == per - 2 else "ab")
            tc = {"index": 0, "function": {"arguments": piece}}
            yield _chunk(m, {"role": "assistant", "content": "", "tool_calls": [tc]})
    yield from _end(m, n)


def openrouter_reasoning(n):
    """OpenRouter in front of a reasoning model (as its streams of 2026 look): a ``:
    OPENROUTER PROCESSING`` comment before the first event and after every 25th, reasoning in
    ``reasoning`` (not ``reasoning_content``) with a ``reasoning_details`` array of one object
    (type, text, format, index) beside each of 30,000 reasoning pieces, ``native_finish_reason``
    in every choice, ``provider`` on every chunk; then 4 calls opened in turn (id, type, name,
    empty arguments), their pieces interleaved round-robin with only ``index`` and
    ``arguments``, an empty ``content`` beside each; usage with a ``cost`` after the finish
    chunk, and a frame after ``[DONE]`` (``{"choices":[],"cost":"0"}``). Invented after the
    helpers' work of the night of 4-5 December was merged, and measured as found."""
    m = "deepseek/deepseek-r1-0528"
    extra = {"provider": "DeepInfra"}

    def chunk(delta, finish=None, k=0):
        c = {
            "id": "gen-1770764938-AbCdEfGhIjKlMnOp",
            "object": "chat.completion.chunk",
            "created": 1770764938,
            "model": m,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish,
                         "native_finish_reason": finish, "logprobs": None}],
            **extra,
        }
        comment = ": OPENROUTER PROCESSING\n\n" if k % 25 == 0 else ""
        return comment + "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"

    reasoning = min(30000, n // 3)
    k = 0
    yield chunk({"role": "assistant", "content": "", "reasoning": None}, k=k)
    for j in range(reasoning):
        k += 1
        text = f"Let me think about step {j}. " if j % 7 else "Hmm, "
        yield chunk({"role": "assistant", "content": "", "reasoning": text,
                     "reasoning_details": [{"type": "reasoning.text", "text": text,
                                            "format": "unknown", "index": 0}]}, k=k)
    names = ("read_file", "grep", "list_dir", "run_tests")
    for c in range(4):
        k += 1
        yield chunk({"role": "assistant", "content": "", "tool_calls": [
            {"index": c, "id": f"call_{c}_or{c * 7919:08d}", "type": "function",
             "function": {"name": names[c], "arguments": ""}}]}, k=k)
    per = max(3, (n - reasoning - 4) // 4)
    for j in range(per):
        for c in range(4):
            k += 1
            piece = '{"path":"' if j == 0 else ('"}' if j == per - 1 else f"d{j % 10}/")
            yield chunk({"role": "assistant", "content": "", "tool_calls": [
                {"index": c, "function": {"arguments": piece}}]}, k=k)
    yield chunk({"role": "assistant", "content": ""}, "tool_calls", k=1)
    usage = {"prompt_tokens": 1200, "completion_tokens": n, "total_tokens": 1200 + n,
             "cost": 0.0123, "is_byok": False}
    yield "data: " + json.dumps({"id": "gen-1770764938-AbCdEfGhIjKlMnOp",
                                 "object": "chat.completion.chunk", "created": 1770764938,
                                 "model": m, "choices": [], "usage": usage, **extra},
                                separators=(",", ":")) + "\n\n"
    yield "data: [DONE]\n\n"
    yield 'data: {"choices":[],"cost":"0"}\n\n'


def gemini_openai(n):
    """Gemini's OpenAI-compatible endpoint: text in ``content`` (pieces of 1 to 40 characters,
    accented and CJK among them, an ``\\n`` now and then) with ``"role": "assistant"`` on
    every delta, then 200 calls each whole in one delta of its own with **no** ``index`` (so
    the harness, keying calls by index, merges them all), a ``function-call-`` id of digits,
    and ``extra_content.google.thought_signature`` (a 160-character base64 blob) beside the
    first; ``finish_reason`` ``"stop"`` (not ``tool_calls``) with usage in the same chunk.
    Invented at the final review of the night of 4-5 December, after every change, and
    measured as found."""
    m = "gemini-2.5-flash"
    words = ["Let ", "me ", "check ", "caf\u00e9 ", "\u65e5\u672c\u8a9e", "the ", "files", ".\n",
             "x" * 40, "a"]
    calls = 200
    for k in range(max(1, n - calls)):
        yield _chunk(m, {"role": "assistant", "content": words[k % len(words)]})
    sig = "Q2lBd" * 32
    for c in range(calls):
        tc = {"id": f"function-call-{1234567890123 + c}", "type": "function",
              "function": {"name": ("read_file", "grep")[c % 2],
                           "arguments": json.dumps({"path": f"src/m{c}.py"})}}
        if c == 0:
            tc["extra_content"] = {"google": {"thought_signature": sig}}
        yield _chunk(m, {"role": "assistant", "tool_calls": [tc]})
    usage = {"prompt_tokens": 800, "completion_tokens": n, "total_tokens": 800 + n}
    yield _chunk(m, {"role": "assistant", "content": ""}, "stop", usage=usage)
    yield "data: [DONE]\n\n"


def sglang_text_between(n):
    """SGLang serving a coder model (its tool parser, as its streams of 2026 look): every
    choice carries ``"logprobs": null`` and ``"matched_stop": null``, every chunk
    ``"usage": null``; 12 calls, each after a run of text (the model speaks between its calls:
    30% of the deltas), each opened with a ``call_`` id, its name and ``""``, then pieces of 1
    to 12 characters whose every delta sends ``"id": null``, ``"type": null``, ``"name": null``
    beside ``"content": null``; the arguments are JSON with escapes (``\\n``, ``\\"``,
    ``\\u4e2d``) split across pieces; the finish chunk says ``"matched_stop": null``, then a
    chunk with no choices and the usage. Written while the helpers of 5 December worked, not
    shown to them, and measured as found once their work was merged."""
    m = "Qwen/Qwen3-Coder-480B-A35B-Instruct"
    base = {**BASE, "id": "5f0c2a9e8b7d4c1aa3e6f9b2d8c7e1a0"}

    def chunk(delta, finish=None, usage=None):
        c = {**base, "model": m, "choices": [{"index": 0, "delta": delta, "logprobs": None,
             "finish_reason": finish, "matched_stop": None}], "usage": usage}
        return "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"

    calls = 12
    text_each = max(1, int(n * 0.3) // calls)
    pieces_each = max(2, (n - text_each * calls) // calls)
    words = ["I'll ", "look ", "at ", "the ", "next ", "file", ".\n", "Then ", "patch ", "it. "]
    sizes = (1, 3, 12, 2, 7, 5, 1, 9)
    cut = [sizes[k % len(sizes)] for k in range(pieces_each - 2)]
    line = "x = \"\\u4e2d\"\n\t# \u6587 \"q\"\n"
    for c in range(calls):
        for k in range(text_each):
            yield chunk({"role": None, "content": words[k % len(words)],
                         "reasoning_content": None, "tool_calls": None})
        opened = {"id": f"call_{c:08x}9d3e4f5a6b7c8d9e0f1a", "index": c, "type": "function",
                  "function": {"name": ("str_replace", "view_file", "run")[c % 3],
                               "arguments": ""}}
        yield chunk({"role": None, "content": None, "reasoning_content": None,
                     "tool_calls": [opened]})
        body = json.dumps({"path": f"src/\u4e2d/m{c}.py", "old": "a\n\"b\"",
                           "new": line * (sum(cut) // len(line) + 1)})
        at = 0
        for size in [*cut, len(body)]:  # (the last piece: the rest)
            tc = {"id": None, "index": c, "type": None,
                  "function": {"name": None, "arguments": body[at:at + size]}}
            at += size
            yield chunk({"role": None, "content": None, "reasoning_content": None,
                         "tool_calls": [tc]})
    yield chunk({"role": None, "content": None, "reasoning_content": None, "tool_calls": None},
                "tool_calls")
    usage = {"prompt_tokens": 4096, "completion_tokens": n, "total_tokens": 4096 + n}
    yield "data: " + json.dumps({**base, "model": m, "choices": [], "usage": usage},
                                separators=(",", ":")) + "\n\n"
    yield "data: [DONE]\n\n"


def portkey_surrogates(n):
    """A gateway written in JavaScript (Portkey's, before Anthropic): non-ASCII text as raw
    UTF-8, as ``JSON.stringify`` writes it, but strings cut by UTF-16 units, so an emoji cut
    between two deltas goes out as two lone surrogate escapes (``"\\ud83d"``, then
    ``"\\ude00"``: JSON that ``JSON.parse`` takes and msgspec refuses), in the text and in
    the arguments, every 40th piece; every chunk names its ``provider`` beside ``logprobs:
    null``; 25% of the deltas text, then 3 calls one after another at indexes 1 to 3 (the
    text is Anthropic's block 0), ``toolu_`` ids, pieces of 1 to 20 characters, ``created``
    counting up every 700 chunks; the usage rides in the finish chunk. Written at the end of
    the session of 5 December (morning), after its work, and measured as found."""
    import re

    lone = re.compile("[\ud800-\udfff]")
    base = {**BASE, "id": "portkey-3f6c1e0a-9b2d-4d7e-8a51-c2f4b6e8d0a7"}
    count = [0]

    def chunk(delta, finish=None, usage=None):
        count[0] += 1
        c = {**base, "created": BASE["created"] + count[0] // 700, "model": "claude-sonnet-4-5",
             "provider": "anthropic", "choices": [{"index": 0, "delta": delta,
             "logprobs": None, "finish_reason": finish}]}
        if usage is not None:
            c["usage"] = usage
        text = json.dumps(c, ensure_ascii=False, separators=(",", ":"))
        return "data: " + lone.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n\n"

    def cut(text, sizes):
        """``text`` in pieces of UTF-16 units (a surrogate pair may fall apart)."""
        units = text.encode("utf-16-le")
        out, at, k = [], 0, 0
        while at < len(units):
            size = 2 * sizes[k % len(sizes)]
            out.append(units[at:at + size].decode("utf-16-le", "surrogatepass"))
            at += size
            k += 1
        return out

    texts = max(1, n // 4)
    # one emoji every 40 pieces of 1-4 units, cut in two where a piece ends in its middle
    sentence = "Let me fix the \u00e9t\u00e9 bug \U0001f600 now " * (texts // 8 + 1)
    first = True
    for piece in cut(sentence, (1, 3, 2, 4, 3))[:texts]:
        yield chunk({"role": "assistant", "content": piece} if first else {"content": piece})
        first = False
    calls = 3
    each = max(2, (n - texts) // calls)
    for c in range(calls):
        k = c + 1
        yield chunk({"tool_calls": [{"index": k, "id": f"toolu_01{c:02d}XbQpY8sWq3nZr7Tt5Vv",
                                     "type": "function", "function": {
                                         "name": ("edit_file", "grep", "run")[c],
                                         "arguments": ""}}]})
        body = json.dumps({"path": f"src/caf\u00e9/m{c}.py",
                           "note": "\U0001f527 fix \U0001f600 " * (each * 87 // 100)},
                          ensure_ascii=False)
        pieces = cut(body, (1, 20, 7, 13, 2, 9))
        if len(pieces) > each - 1:  # (the last piece: the rest)
            pieces[each - 2 :] = ["".join(pieces[each - 2 :])]
        for piece in pieces:
            yield chunk({"tool_calls": [{"index": k, "function": {"arguments": piece}}]})
    usage = {"prompt_tokens": 5120, "completion_tokens": n, "total_tokens": 5120 + n}
    yield chunk({}, "tool_calls", usage)
    yield "data: [DONE]\n\n"


def deepinfra_repeat_crlf(n):
    """DeepInfra's OpenAI endpoint as a proxy saves it: a byte-order mark, CRLF line ends,
    ``data:`` with no space after it; every chunk carries ``"system_fingerprint": null`` and
    ``"usage": null``; 4 calls one after another, each continuation re-sending the call's
    whole ``id``, ``"type": "function"`` and its name, its arguments one character at a time
    (escapes and a multi-byte character among them). Invented at the review of the morning
    session of 5 December, after its work, and measured as found."""
    m = "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8"

    def chunk(delta, finish=None):
        c = {**BASE, "model": m, "system_fingerprint": None, "usage": None,
             "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        return "data:" + json.dumps(c, separators=(",", ":")) + "\r\n\r\n"

    calls = 4
    each = max(2, n // calls)
    out = ["\ufeff"]
    for c in range(calls):
        cid, name = f"call_{c}_d1f9a2b7c3e4", ("search", "fetch", "write_file", "shell")[c]
        inner = ("caf\u00e9 \"x\" " * each)[: each * 4 // 5]  # (escaped: about each pieces)
        body = json.dumps({"q": inner}, ensure_ascii=False)
        for k, ch in enumerate(["", *body]):
            tc = {"index": c, "id": cid, "type": "function",
                  "function": {"name": name, "arguments": ch}}
            out.append(chunk({"role": "assistant", "tool_calls": [tc]} if k == 0 else
                             {"tool_calls": [tc]}))
    out.append(chunk({}, "tool_calls"))
    out.append("data:[DONE]\r\n\r\n")
    return out


def go_zero_values(n):
    """A gateway written in Go (one-api and new-api, in front of DeepSeek and DashScope)
    whose chunk types are plain structs: every field it knows is sent, unset ones as their
    zero value. Each chunk carries ``"system_fingerprint": ""``, a ``usage`` of zeros, a
    ``"role": ""``, ``"content": ""`` and ``"reasoning_content": ""`` beside the call, and
    each continuation of a call ``"id": ""``, ``"type": ""`` and ``"name": ""`` (the
    erasure under assign-always); a short reasoning text first; 6 calls one after another,
    their arguments in pieces of 1 to 9 characters (CJK and escaped quotes among them); the
    finish chunk and the real usage last. Invented at the end of the evening session of 5
    December, after its work, and measured as found."""
    m = "deepseek-chat"
    zero = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}

    def chunk(delta, finish=None, usage=zero):
        full = {"role": "", "content": "", "reasoning_content": "", **delta}
        c = {"id": "chatcmpl-9f2c7a61e0b84d3f", "object": "chat.completion.chunk",
             "created": 1770764938, "model": m, "system_fingerprint": "",
             "choices": [{"index": 0, "delta": full, "logprobs": None,
                          "finish_reason": finish}], "usage": usage}
        return "data: " + json.dumps(c, ensure_ascii=False, separators=(",", ":")) + "\n\n"

    out = [chunk({"role": "assistant", "reasoning_content": w}) for w in
           ["先", "查", "一下", "天气", "，", "再", "写", "文件", "。"]]
    calls = 6
    each = max(2, (n - len(out)) // calls)
    sizes = [1, 4, 9, 2, 7, 3, 5, 8, 6]
    for c in range(calls):
        cid = f"call_{c:02d}_5b1e0c9d7f3a"
        name = ("get_weather", "search_docs", "write_file", "run_shell", "read_file",
                "http_get")[c]
        text = "".join(('杭州 "西湖" ' if k % 3 else "path/to/file-") for k in range(each))
        body = json.dumps({"q": text}, ensure_ascii=False)
        pieces, at, k = [], 0, 0
        while at < len(body) and len(pieces) < each - 1:
            step = sizes[k % len(sizes)]
            pieces.append(body[at:at + step])
            at, k = at + step, k + 1
        pieces[-1] += body[at:]
        first = {"index": c, "id": cid, "type": "function",
                 "function": {"name": name, "arguments": ""}}
        out.append(chunk({"tool_calls": [first]}))
        for piece in pieces:
            tc = {"index": c, "id": "", "type": "", "function": {"name": "", "arguments": piece}}
            out.append(chunk({"tool_calls": [tc]}))
    out.append(chunk({}, "tool_calls"))
    out.append(chunk({}, None, {"prompt_tokens": 1200, "completion_tokens": n,
                                  "total_tokens": 1200 + n}))
    out.append("data: [DONE]\n\n")
    return out


def llamacpp_timings(n):
    """llama.cpp's server with ``timings_per_token``: ``choices`` first in each chunk, then
    ``created``, ``id``, ``model``, ``system_fingerprint``, ``object`` and a ``timings`` object
    whose numbers count up with every token (no two payloads alike); 3 calls one after
    another, the first delta of each with its id, type and name, the continuations with the
    arguments alone, pieces of 1 to 6 characters; the finish chunk with the usage. Invented at
    the review of the evening session of 5 December, after its work, and measured as found."""
    out = []
    calls = 3
    each = max(2, n // calls)
    k = 0

    def chunk(delta, finish=None, usage=None):
        nonlocal k
        k += 1
        c = {"choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
             "created": 1770764938, "id": "chatcmpl-Xq2bKz", "model": "qwen2.5-coder-7b",
             "system_fingerprint": "b5012-a1b2c3d4", "object": "chat.completion.chunk",
             "timings": {"prompt_n": 812, "prompt_ms": 201.4, "predicted_n": k,
                         "predicted_ms": round(k * 14.7, 3),
                         "predicted_per_second": round(1000 / 14.7 + (k % 7) / 10, 4)}}
        if usage is not None:
            c["usage"] = usage
        return "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"

    sizes = [3, 1, 6, 2, 5, 4]
    for c in range(calls):
        name = ("read_file", "apply_patch", "run_tests")[c]
        text = "def f(x):\n    return x * 2\n" * each
        body = json.dumps({"path": f"src/mod_{c}.py", "text": text})
        out.append(chunk({"tool_calls": [{"index": c, "id": f"{c}Qk9dLr2PzT",
                                          "type": "function",
                                          "function": {"name": name, "arguments": ""}}]}))
        at, j = 0, 0
        while at < len(body) and j < each - 1:
            step = sizes[j % len(sizes)]
            out.append(chunk({"tool_calls": [{"index": c,
                                              "function": {"arguments": body[at:at + step]}}]}))
            at, j = at + step, j + 1
        if at < len(body):
            out.append(chunk({"tool_calls": [{"index": c, "function": {"arguments": body[at:]}}]}))
    out.append(chunk({}, "tool_calls", {"completion_tokens": k, "prompt_tokens": 812,
                                         "total_tokens": 812 + k}))
    out.append("data: [DONE]\n\n")
    return out


def starlette_multiline(n):
    """A FastAPI gateway on sse-starlette yielding ``json.dumps(chunk, indent=2)``: each
    chunk's JSON split over one ``data:`` line per line of it (as sse-starlette writes a
    multi-line data), CRLF line ends, a ``: ping`` comment with a timestamp every 500 events;
    3 parallel calls in turn, their continuations sending every field of a pydantic model,
    unset ones null (``"id": null``, ``"type": null``, ``"name": null``, ``"role": null``,
    ``"content": null``). Invented at the end of the session of 5 December (the third),
    after its work was merged, and measured as found."""
    m, calls, sep = "qwen3-coder-plus", 3, "\r\n"
    k = 0

    def event(delta, finish=None, usage=None):
        nonlocal k
        k += 1
        chunk = {
            "id": "chatcmpl-7f1d2a",
            "choices": [{"delta": delta, "finish_reason": finish, "index": 0, "logprobs": None}],
            "created": 1770764938,
            "model": m,
            "object": "chat.completion.chunk",
            "system_fingerprint": None,
            "usage": usage,
        }
        text = json.dumps(chunk, indent=2, ensure_ascii=False)
        out = "".join(f"data: {line}{sep}" for line in text.split("\n")) + sep
        if k % 500 == 0:
            at = f"11:{k // 60000 % 60:02d}:{k // 1000 % 60:02d}.{k % 1000:03d}"
            out += f": ping - 2026-12-05 {at}{sep}{sep}"
        return out

    def full(c, ident, kind, name, args):
        return {
            "index": c,
            "id": ident,
            "type": kind,
            "function": {"name": name, "arguments": args},
        }

    yield event({"role": "assistant", "content": None, "tool_calls": None})
    for c in range(calls):
        name = ("read_file", "grep", "list_dir")[c]
        yield event(
            {
                "role": None,
                "content": None,
                "tool_calls": [full(c, f"call_{c}_{'ab12cd34' * 3}", "function", name, "")],
            }
        )
    per = max(2, n // calls)
    pieces = ['{"path": "', "src/", "app", "/", "main", ".py", '", "pattern": "', "def ", "x", '"}']
    for j in range(per):
        for c in range(calls):
            piece = pieces[min(j, 6)] if j < 7 else ("x" if j < per - 1 else '"}')
            yield event(
                {"role": None, "content": None, "tool_calls": [full(c, None, None, None, piece)]}
            )
    yield event({"role": None, "content": None, "tool_calls": None}, "tool_calls")
    yield event({}, None, {"prompt_tokens": 1200, "completion_tokens": n, "total_tokens": 1200 + n})
    yield "data: [DONE]" + sep + sep


UNSEEN = {
    f.__name__.replace("_", "-"): f
    for f in (
        crlf_keepalive,
        usage_every_delta,
        event_id_lines,
        late_name_unicode,
        two_choices,
        azure_filtered,
        reasoning_then_calls,
        role_every_chunk,
        paired_calls,
        vllm_hermes,
        batched_rotating,
        bedrock_litellm,
        index_zero_parallel,
        openrouter_reasoning,
        gemini_openai,
        sglang_text_between,
        portkey_surrogates,
        deepinfra_repeat_crlf,
        go_zero_values,
        llamacpp_timings,
        starlette_multiline,
    )
}
"""Shapes not among the five (issue 27): every budget must hold on them too. The first two
were invented after the code was tuned; event-id-lines was found slow and then tuned for;
late-name-unicode was invented once the work was merged, and measured as found; the rest
were invented at the end of a session each, after its work, and measured as found."""


def write_shapes(folder, n, only=None):
    """Write each shape (the huge-payload ones too) of about ``n`` deltas into ``folder``;
    ``{name: path}``. ``only``: these shapes alone. Each is written by a process of its own:
    a process started afterwards would otherwise inherit this one's peak RSS (Linux keeps
    ``ru_maxrss`` across fork), and the memory benchmark reads it."""
    import subprocess

    out = {}
    for name in {**SHAPES, **HUGE, **UNSEEN}:
        if only and name not in only:
            continue
        path = folder / f"{name}.sse"
        subprocess.run([sys.executable, __file__, name, str(n), str(path)], check=True)
        out[name] = path
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--list"]:
        for name, f in {**SHAPES, **HUGE, **UNSEEN}.items():
            print(f"{name:15} {f.__doc__.split(chr(10))[0]}")
        sys.exit(0)
    shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(out, "w") as fh:
        fh.writelines({**SHAPES, **HUGE, **UNSEEN}[shape](n))
