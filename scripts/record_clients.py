"""Record what real client libraries make of the scenarios (``tests/data/clients``).

    python scripts/record_clients.py --python /tmp/rec-py/bin/python --node-modules /tmp/rec-js

A loopback HTTP server on 127.0.0.1 streams each scenario (the request's ``model`` names it);
each library, installed at the version its policy models in a throwaway environment, is run
against it in a child process, and what it hands the application is written one line per
scenario in the format of the shared notes' ``results_*.txt`` (``tests/clients/recordings.py``
reads it): ``id=… name=… args=…`` (Python ``repr`` / ``JSON.stringify``), ``ERR <Error>:
<message>``, ``| invalid: …``, ``| error-part …``.

The throwaway environments (nothing here installs into the project's):

    python -m venv /tmp/rec-py && /tmp/rec-py/bin/pip install openai==3.57.0 \\
        langchain-openai==1.7.4 langchain-core==1.8.3 litellm==1.110.2 \\
        'pydantic-ai-slim[openai]==2.68.0' openai-agents==0.24.0
    python -m venv /tmp/rec-py3 && /tmp/rec-py3/bin/pip install \\
        llama-index-llms-openai==0.8.3 haystack-ai==3.4.1 semantic-kernel==1.45.0
    mkdir /tmp/rec-js && cd /tmp/rec-js && npm init -y && npm install openai@7.59.0 \\
        @langchain/openai@1.6.0 @langchain/core @openai/agents@0.20.0 zod ai \\
        @ai-sdk/openai-compatible@3.0.92 @ai-sdk/openai@4.0.118 @ai-sdk/provider-utils@5.0.81

Run it once per environment, naming its libraries with ``--libs`` (``--python
/tmp/rec-py3/bin/python --libs llamaindex,haystack,semantic-kernel``). ``--scenarios layers``
(default) records ``scenarios_layers.py``; ``--scenarios shared`` the shared notes'
``scenarios.py`` (how the harnesses were checked against the shared notes' runs).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "clients"

PY_LIBS = ["openai-python", "langchain", "litellm", "pydantic-ai", "agents", "agents-buffered"]
PY_LIBS += ["llamaindex", "haystack", "semantic-kernel"]
JS_LIBS = ["openai-node", "openai-node-strict", "langchain-js", "agents-js"]
JS_LIBS += ["ai-sdk-compat", "ai-sdk-openai"]


def _scenarios(which: str) -> ModuleType:
    name = {"layers": "scenarios_layers", "shared": "scenarios"}[which]
    spec = importlib.util.spec_from_file_location(name, DATA / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def serve(module: ModuleType) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (a free port) streaming the scenario the request's model names."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            name = body["model"].removeprefix("openai/")
            if self.path.startswith("/s/"):  # a library that checks model names: in the path
                name = self.path.split("/")[2]
            data = module.sse(name).encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


PY_HARNESS = r"""
import json, sys, traceback
lib, base, *names = sys.argv[1:]
TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object",
     "properties": {k: {"type": "string"}}}}}
    for n, k in (("get_weather", "city"), ("get_time", "tz"))
]
MSG = [{"role": "user", "content": "hi"}]

def show(calls):
    return "; ".join(f"id={i!r} name={n!r} args={a!r}" for i, n, a in calls) or "(no tool calls)"

def openai_python(name):
    from openai import OpenAI
    client = OpenAI(base_url=base, api_key="x", max_retries=0)
    with client.chat.completions.stream(model=name, messages=MSG, tools=TOOLS) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls or []
    return show([(c.id, c.function.name, c.function.arguments) for c in calls])

def langchain(name):
    from langchain_openai import ChatOpenAI
    model = ChatOpenAI(model=name, base_url=base, api_key="x", max_retries=0).bind_tools(TOOLS)
    acc = None
    for chunk in model.stream("hi"):
        acc = chunk if acc is None else acc + chunk
    out = show([(c["id"], c["name"], json.dumps(c["args"])) for c in acc.tool_calls])
    if acc.invalid_tool_calls:
        out += " | invalid: " + show(
            [(c["id"], c["name"], c["args"]) for c in acc.invalid_tool_calls])
    return out

def litellm(name):
    import litellm
    litellm.suppress_debug_info = True
    chunks = list(litellm.completion(model="openai/" + name, api_base=base, api_key="x",
                                     messages=MSG, tools=TOOLS, stream=True))
    resp = litellm.stream_chunk_builder(chunks)
    calls = resp.choices[0].message.tool_calls or []
    return show([(c.id, c.function.name, c.function.arguments) for c in calls])

def agents(name, buffered=False):
    import asyncio
    from openai import AsyncOpenAI
    from agents import ModelSettings
    from agents.models.interface import ModelTracing
    from agents.models.openai_chatcompletions import OpenAIChatCompletionsModel

    async def go():
        client = AsyncOpenAI(base_url=base, api_key="x", max_retries=0)
        model = OpenAIChatCompletionsModel(
            model=name, openai_client=client, buffer_streamed_tool_calls=buffered)
        out = []
        async for ev in model.stream_response(
                None, "hi", ModelSettings(), [], None, [], ModelTracing.DISABLED):
            if ev.type == "response.completed":
                out = [(i.call_id, i.name, i.arguments)
                       for i in ev.response.output if i.type == "function_call"]
        return show(out)

    return asyncio.run(go())

def pydantic_ai(name):
    from pydantic_ai import ModelRequest
    from pydantic_ai.direct import model_request_stream_sync
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.tools import ToolDefinition
    model = OpenAIChatModel(name, provider=OpenAIProvider(base_url=base, api_key="x"))
    params = ModelRequestParameters(function_tools=[
        ToolDefinition(name=t["function"]["name"],
                       parameters_json_schema=t["function"]["parameters"]) for t in TOOLS])
    with model_request_stream_sync(model, [ModelRequest.user_text_prompt("hi")],
                                   model_request_parameters=params) as stream:
        for _ in stream:
            pass
        response = stream.response
    calls = [p for p in response.parts if p.part_kind == "tool-call"]
    return show([(p.tool_call_id, p.tool_name,
                  p.args if isinstance(p.args, str) or p.args is None else json.dumps(p.args))
                 for p in calls])

def llamaindex(name):
    from llama_index.core.llms import ChatMessage
    from llama_index.llms.openai import OpenAI
    # it refuses model names it does not know: the scenario goes in the path instead
    api_base = base.removesuffix("/v1") + f"/s/{name}/v1"
    llm = OpenAI(model="gpt-4o-mini", api_base=api_base, api_key="x", max_retries=0)
    last = None
    for last in llm.stream_chat([ChatMessage(role="user", content="hi")], tools=TOOLS):
        pass
    calls = last.message.additional_kwargs.get("tool_calls", []) if last else []
    return show([(c.id, c.function.name, c.function.arguments) for c in calls])

def haystack(name):
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.dataclasses import ChatMessage
    from haystack.tools import Tool
    from haystack.utils import Secret
    tools = [Tool(name=t["function"]["name"], description="",
                  parameters=t["function"]["parameters"], function=lambda **k: None)
             for t in TOOLS]
    gen = OpenAIChatGenerator(api_key=Secret.from_token("x"), model=name, api_base_url=base,
                              streaming_callback=lambda chunk: None, tools=tools, max_retries=0)
    reply = gen.run([ChatMessage.from_user("hi")])["replies"][0]
    return show([(c.id, c.tool_name, json.dumps(c.arguments)) for c in reply.tool_calls])

def semantic_kernel(name):
    import asyncio
    from functools import reduce
    from openai import AsyncOpenAI
    from semantic_kernel.connectors.ai.open_ai import (
        OpenAIChatCompletion, OpenAIChatPromptExecutionSettings)
    from semantic_kernel.contents import ChatHistory, FunctionCallContent

    async def go():
        service = OpenAIChatCompletion(
            ai_model_id=name, async_client=AsyncOpenAI(base_url=base, api_key="x", max_retries=0))
        settings = OpenAIChatPromptExecutionSettings(tools=TOOLS)
        history = ChatHistory()
        history.add_user_message("hi")
        chunks = []
        async for batch in service.get_streaming_chat_message_contents(history, settings):
            chunks.extend(batch)
        full = reduce(lambda a, b: a + b, chunks)
        calls = [i for i in full.items if isinstance(i, FunctionCallContent)]
        return show([(c.id, c.name, c.arguments) for c in calls])

    return asyncio.run(go())

run = {"openai-python": openai_python, "langchain": langchain, "litellm": litellm,
       "llamaindex": llamaindex, "haystack": haystack, "semantic-kernel": semantic_kernel,
       "agents": agents, "agents-buffered": lambda n: agents(n, True),
       "pydantic-ai": pydantic_ai}[lib]
for name in names:
    try:
        line = run(name)
    except Exception as e:
        line = f"ERR {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    print(f"  {name:<19} {line}", flush=True)
"""

JS_HARNESS = r"""
import OpenAI from 'openai';
const [lib, base, ...names] = process.argv.slice(2);
const strict = lib === 'openai-node-strict';
const tools = [['get_weather', 'city'], ['get_time', 'tz']].map(([name, key]) => ({
  type: 'function',
  function: {
    name,
    parameters: { type: 'object', properties: { [key]: { type: 'string' } },
                  ...(strict ? { required: [key], additionalProperties: false } : {}) },
    ...(strict ? { strict: true } : {}),
  },
}));
const messages = [{ role: 'user', content: 'hi' }];
const s = (v) => (v === undefined ? 'undefined' : JSON.stringify(v));
const show = (calls) =>
  calls.map(([i, n, a]) => `id=${s(i)} name=${s(n)} args=${s(a)}`).join('; ') || '(no tool calls)';

async function openaiNode(name) {
  const client = new OpenAI({ baseURL: base, apiKey: 'x', maxRetries: 0 });
  const stream = client.chat.completions.stream({ model: name, messages, tools });
  const final = await stream.finalChatCompletion();
  const calls = final.choices[0].message.tool_calls ?? [];
  return show(calls.map((c) => [c.id, c.function.name, c.function.arguments]));
}

async function langchainJs(name) {
  const { ChatOpenAI } = await import('@langchain/openai');
  const model = new ChatOpenAI({ model: name, apiKey: 'x', maxRetries: 0,
                                 configuration: { baseURL: base } }).bindTools(tools);
  let acc;
  for await (const chunk of await model.stream('hi')) acc = acc ? acc.concat(chunk) : chunk;
  let out = show((acc.tool_calls ?? []).map((c) => [c.id, c.name, JSON.stringify(c.args)]));
  if (acc.invalid_tool_calls?.length)
    out += ' | invalid: ' + show(acc.invalid_tool_calls.map((c) => [c.id, c.name, c.args]));
  return out;
}

async function agentsJs(name) {
  const { OpenAIChatCompletionsModel } = await import('@openai/agents-openai');
  const model = new OpenAIChatCompletionsModel(
    new OpenAI({ baseURL: base, apiKey: 'x', maxRetries: 0 }), name);
  let output = [];
  for await (const ev of model.getStreamedResponse({
    input: 'hi', modelSettings: {}, tools: [], outputType: 'text', handoffs: [], tracing: false,
  })) {
    if (ev.type === 'response_done') output = ev.response.output;
  }
  const calls = output.filter((i) => i.type === 'function_call');
  return show(calls.map((c) => [c.callId, c.name, c.arguments]));
}

async function aiSdk(name) {
  const model =
    lib === 'ai-sdk-compat'
      ? (await import('@ai-sdk/openai-compatible'))
          .createOpenAICompatible({ name: 'gw', baseURL: base, apiKey: 'x' }).chatModel(name)
      : (await import('@ai-sdk/openai')).createOpenAI({ baseURL: base, apiKey: 'x' }).chat(name);
  const { stream } = await model.doStream({
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: tools.map((t) => ({ type: 'function', name: t.function.name,
                               inputSchema: t.function.parameters })),
  });
  const calls = [];
  const extra = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'tool-call') calls.push([value.toolCallId, value.toolName, value.input]);
      if (value.type === 'error') {
        const e = value.error;
        extra.push(`error-part ${e?.name ?? 'Error'}: ${String(e?.message ?? e).split('\n')[0]}`);
      }
    }
  } catch (e) {
    extra.push(`THROWN ${e?.name ?? 'Error'}: ${String(e?.message ?? e).split('\n')[0]}`);
  }
  return [calls.length ? show(calls) : '(no tool calls)', ...extra].join(' | ');
}

const run = { 'openai-node': openaiNode, 'openai-node-strict': openaiNode,
              'langchain-js': langchainJs, 'agents-js': agentsJs,
              'ai-sdk-compat': aiSdk, 'ai-sdk-openai': aiSdk }[lib];
for (const name of names) {
  let line;
  try {
    line = await run(name);
  } catch (e) {
    line = `ERR ${e?.name ?? 'Error'}: ${String(e?.message ?? e).split('\n')[0]}`;
  }
  console.log(`  ${name.padEnd(19)} ${line}`);
}
"""


def record(
    lib: str, base: str, names: list[str], python: str | None, node_modules: str | None
) -> str:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "NO_PROXY": "127.0.0.1"}
    if lib in PY_LIBS:
        if python is None:
            raise SystemExit(f"{lib}: --python is needed")
        cmd = [python, "-c", PY_HARNESS, lib, base, *names]
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    else:
        if node_modules is None:
            raise SystemExit(f"{lib}: --node-modules is needed")
        with tempfile.NamedTemporaryFile("w", suffix=".mjs", dir=node_modules) as script:
            script.write(JS_HARNESS)
            script.flush()
            cmd = ["node", script.name, lib, base, *names]
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{lib} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    # keep the result lines (a library may print banners of its own on stdout)
    lines = [ln for ln in done.stdout.splitlines() if ln[2:].split(" ", 1)[0] in names]
    return f"== {lib}\n" + "".join(ln + "\n" for ln in lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--python", help="python of the venv with the Python libraries")
    parser.add_argument("--node-modules", help="folder whose node_modules has the JS libraries")
    parser.add_argument("--scenarios", choices=["layers", "shared"], default="layers")
    parser.add_argument("--libs", default=",".join(PY_LIBS + JS_LIBS))
    parser.add_argument("--out", type=Path, help="default: tests/data/clients/results_<...>.txt")
    args = parser.parse_args()
    module = _scenarios(args.scenarios)
    server = serve(module)
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    names = list(module.SCENARIOS)
    if args.scenarios == "shared":
        names = [n for n in names if n != "late_name_args"]
    try:
        for lib in args.libs.split(","):
            text = record(lib, base, names, args.python, args.node_modules)
            out = args.out or DATA / f"results_{args.scenarios}_{lib}.txt"
            out.write_text(text, encoding="utf-8")
            print(text, end="")
    finally:
        server.shutdown()
    sys.exit(0)


if __name__ == "__main__":
    main()
