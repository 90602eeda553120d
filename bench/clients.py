"""The client-library budgets (issues 15 and 27) on every trace shape: anyone can run it, the
README quotes it.

    python bench/clients.py                          # every shape of shapes.py, 100,000 deltas
    python bench/clients.py --mixed --litellm        # and the shapes below
    python bench/clients.py --shapes interleaved --deltas 20000 --runs 3

For each shape of ``bench/shapes.py`` (the shapes real gateways send, and the two of huge
payloads):

1. ``replay-tui check --clients`` against ``replay-tui check`` on that shape's trace, as whole
   processes alternating in the same run, as an installed package runs them: with compiled
   bytecode, kept in a private cache (as ``bench/run.py`` measures ``check``; in an
   environment with ``PYTHONDONTWRITEBYTECODE`` set, ``check --clients`` would otherwise
   compile the 18 models' sources, about 0.07 s, on every run: ``--no-bytecode`` measures
   that way). Budget: at most 3x.
2. The TUI's Clients view on the same trace: a fresh headless process (180x50) opens the trace,
   waits until it is decoded, presses ``4``; counted is the time from that key to the last
   library's outcome in the view (budget: under 1 s), and from the process's launch to the
   same moment (the trace's loading included).

Each figure is the median of ``--runs`` runs (the minimum beside it: on a busy machine it is the
steadier of the two). ``--mixed`` adds a shape none of the others is: random mixes of the
gateways' continuation patterns on 1 to 3 calls interleaved, with ids and names that change
mid-stream (``mixed_shape`` below); ``--litellm`` two of LiteLLM's proxy: continuations that
send ``id: ""``, ``name: "null"`` and ``type: "FUNCTION"``, and continuations that re-send the
call's id and name every chunk (``_litellm`` below). ``--shapes text-usage text-logprobs
both-choices``: three shapes invented once the models folded on what a payload says, to try
that on what it was not tuned on (``_probe`` below).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from run import alternated, installed_env  # noqa: E402
from shapes import HUGE, SHAPES, UNSEEN  # noqa: E402

SIZE = (180, 50)


def _chunk(delta: dict[str, object], finish: str | None = None) -> str:
    c = {
        "id": "chatcmpl-mixed",
        "object": "chat.completion.chunk",
        "created": 1770764938,
        "model": "mixed",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"


def mixed_shape(n: int, seed: int = 27) -> Iterator[str]:
    """Random mixes of the continuation patterns of GATEWAYS.md (``id``/``name`` absent, null,
    ``""``), 1 to 3 calls in flight interleaved at random, a mid-stream id or name change now
    and then, and text between the batches."""
    rng = random.Random(seed)
    blank = [None, "", "absent"]

    sent, call = 0, 0
    while sent < n:
        batch = rng.randint(1, 3)
        size = rng.randint(200, 5000)
        live = []
        for k in range(batch):
            ident, name = f"call_{call + k}", f"tool_{rng.randint(0, 9)}"
            first = {"index": k, "id": ident, "type": "function"}
            yield _chunk({"tool_calls": [{**first, "function": {"name": name, "arguments": ""}}]})
            live.append([k, ident, name, size])
            sent += 1
        call += batch
        while live and sent < n:
            entry = rng.choice(live)
            k, ident, name, left = entry
            tc: dict[str, object] = {"index": k}
            i, nm = rng.choice(blank), rng.choice(blank)
            if rng.random() < 0.0005:
                i = entry[1] = f"{ident}_x{rng.randint(0, 99)}"  # a changed id
            if rng.random() < 0.0005:
                nm = entry[2] = f"{name}_v2"  # a changed name
            if i != "absent":
                tc["id"] = i
            fn: dict[str, object] = {"arguments": "x" if left > 1 else "}"}
            if nm != "absent":
                fn["name"] = nm
            tc["function"] = fn
            if rng.random() < 0.3:
                tc["type"] = "function"
            yield _chunk({"tool_calls": [tc]})
            sent += 1
            entry[3] -= 1
            if entry[3] <= 0:
                live.remove(entry)
        for _ in range(rng.randint(0, 50)):
            yield _chunk({"content": "thinking "})
    yield _chunk({}, "tool_calls")
    yield "data: [DONE]\n\n"


def _litellm(n: int, repeat: bool) -> Iterator[str]:
    """LiteLLM proxy continuations (GATEWAYS.md): 4 calls one after another, each continuation
    re-sending ``id: ""`` with the string ``name: "null"`` and ``type: "FUNCTION"`` (#12513), or
    (``repeat``) the call's id and name again, every chunk (#20480, MiniMax through NIM)."""
    per = max(2, n // 4)
    for c in range(4):
        ident, name = f"call_{c:024x}", "read_file"
        head = {"index": c, "id": ident, "type": "function"}
        yield _chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]})
        for k in range(per - 1):
            args = '{"path": "' if k == 0 else (f"p{k}/" if k < per - 2 else 'x.py"}')
            if repeat:
                tc = {**head, "function": {"name": name, "arguments": args}}
            else:
                tc = {"index": c, "id": "", "type": "FUNCTION"}
                tc["function"] = {"name": "null", "arguments": args}
            yield _chunk({"tool_calls": [tc]})
    yield _chunk({}, "tool_calls")
    yield "data: [DONE]\n\n"


def _probe(n: int, kind: str) -> Iterator[str]:
    """Shapes invented after the folding on what a payload says (issue 27), to try it on what
    it was not tuned on: n/2 text deltas then one call of n/2 deltas, each chunk with a usage
    that counts up (``text-usage``) or a logprobs object (``text-logprobs``); or n=2 with
    both choices in every chunk, each a delta of its own call at tool index 0
    (``both-choices``)."""
    base = {"id": "chatcmpl-probe", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(choices: list[dict[str, object]], k: int) -> str:
        c: dict[str, object] = {**base, "choices": choices}
        if kind == "text-usage":
            c["usage"] = {"prompt_tokens": 9, "completion_tokens": k, "total_tokens": 9 + k}
        return "data: " + json.dumps(c, separators=(",", ":")) + "\n\n"

    if kind == "both-choices":
        for k in range(max(2, n // 2)):
            cs = []
            for choice in (0, 1):
                tc: dict[str, object] = {"index": 0, "function": {"arguments": "x"}}
                if k == 0:
                    tc = {"index": 0, "id": f"call_{choice}", "type": "function"}
                    tc["function"] = {"name": "run_query", "arguments": ""}
                cs.append({"index": choice, "delta": {"tool_calls": [tc]}, "finish_reason": None})
            yield chunk(cs, k)
        yield "data: [DONE]\n\n"
        return
    half = max(2, n // 2)
    for k in range(half):
        choice: dict[str, object] = {"index": 0, "delta": {"content": f"w{k % 97} "}}
        if kind == "text-logprobs":
            choice["logprobs"] = {"content": [{"token": "w", "logprob": -k % 13 / 10}]}
        yield chunk([choice], k)
    for k in range(half):
        tc = {"index": 0, "function": {"arguments": "x" if k else '{"q":"'}}
        if k == 0:
            tc |= {"id": "call_1", "type": "function"}
            tc["function"] = {"name": "search", "arguments": ""}
        yield chunk([{"index": 0, "delta": {"tool_calls": [tc]}}], half + k)
    yield "data: [DONE]\n\n"


EXTRA = {
    "mixed": "random mixes of the gateways' patterns, indexes reused",
    "litellm-null": 'LiteLLM: continuations send id "", name "null", type "FUNCTION"',
    "litellm-repeat": "LiteLLM/MiniMax: every continuation re-sends the id and the name",
    "text-usage": "invented: text then a call, a usage that counts up in every chunk",
    "text-logprobs": "invented: text with a logprobs object in every chunk, then a call",
    "both-choices": "invented: n=2, both choices in every chunk (each a delta of its call)",
}


def write_shape(shape: str, n: int, path: Path) -> Path:
    if shape == "mixed":
        lines = mixed_shape(n)
    elif shape.startswith("litellm-"):
        lines = _litellm(n, shape == "litellm-repeat")
    elif shape in ("text-usage", "text-logprobs", "both-choices"):
        lines = _probe(n, shape)
    else:
        lines = {**SHAPES, **HUGE, **UNSEEN}[shape](n)
    with path.open("w") as fh:
        fh.writelines(lines)
    return path


def check_vs_clients(
    trace: Path, runs: int, env: dict[str, str] | None = None
) -> tuple[float, float, float]:
    py = sys.executable
    check, clients = (
        [wall for wall, _ in times]
        for times in alternated(
            runs,
            [py, "-m", "replay_tui.cli", "check", str(trace)],
            [py, "-m", "replay_tui.cli", "check", "--clients", str(trace)],
            env=env,
        )
    )
    for name, xs in (("check", check), ("check --clients", clients)):
        print(f"  {name:<22}median {statistics.median(xs):.3f} s   min {min(xs):.3f} s")
    ratio = statistics.median(clients) / statistics.median(check)
    print(
        f"  ratio                 {ratio:.2f}x median, {min(clients) / min(check):.2f}x min"
        "   (budget: 3x)"
    )
    return ratio, statistics.median(check), statistics.median(clients)


def _child(trace: str, launched: float) -> None:
    import asyncio

    sys.path.insert(0, str(ROOT))
    from replay_tui.tui.app import make_app

    async def run() -> None:
        app = make_app([trace])
        async with app.run_test(size=SIZE) as pilot:
            while app.partial or app.first_screen is None:
                await pilot.pause(0.01)
            while any(w.is_running for w in app.workers):
                await pilot.pause(0.01)
            start = time.perf_counter()
            await pilot.press("4")
            pane = app.clients_pane
            while True:
                model = pane.matrix.model
                if model is not None and model.done:
                    break
                await pilot.pause(0.005)
            print(f"clients {time.perf_counter() - start:.6f}", flush=True)
            print(f"launch {time.time() - launched:.6f}", flush=True)

    asyncio.run(run())


def clients_view(trace: Path, runs: int) -> tuple[float, float]:
    times, launches = [], []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(trace), "--launched", str(time.time())],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        found = dict(
            ln.split() for ln in done.stdout.splitlines() if ln.startswith(("clients ", "launch "))
        )
        if done.returncode != 0 or "clients" not in found:
            raise SystemExit(f"the TUI run failed ({done.returncode}): {done.stderr[-800:]}")
        times.append(float(found["clients"]))
        launches.append(float(found["launch"]))
    med, launch = statistics.median(times), statistics.median(launches)
    print(
        f"  from '4' to every outcome   median {med:.3f} s   min {min(times):.3f} s   (budget: 1 s)"
    )
    print(f"  from launch to every outcome (loading included)   median {launch:.3f} s")
    return med, launch


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--shapes",
        nargs="*",
        choices=[*SHAPES, *HUGE, *UNSEEN, *EXTRA],
        help="default: every shape of shapes.py, the huge-payload ones included",
    )
    parser.add_argument("--mixed", action="store_true", help="add the random mixed shape")
    parser.add_argument(
        "--litellm", action="store_true", help="add the two LiteLLM continuation shapes"
    )
    parser.add_argument("--no-view", action="store_true", help="skip the TUI measurement")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="check and check --clients without a bytecode cache (as the environment says)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--launched", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.launched or time.time())
        return
    shapes = list(args.shapes or [*SHAPES, *HUGE, *UNSEEN])
    if args.mixed and "mixed" not in shapes:
        shapes.append("mixed")
    if args.litellm:
        shapes += [s for s in ("litellm-null", "litellm-repeat") if s not in shapes]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = None if args.no_bytecode else installed_env(Path(tmp) / "pycache")
        for shape in shapes:
            trace = write_shape(shape, args.deltas, Path(tmp) / f"{shape}.sse")
            print(f"{shape}: {args.deltas:,} deltas, {trace.stat().st_size / 1e6:.1f} MB")
            print(" check vs check --clients (whole processes):")
            ratio, check, clients = check_vs_clients(trace, args.runs, env)
            view = launch = float("nan")
            if not args.no_view:
                print(" the TUI's Clients view (headless 180x50):")
                view, launch = clients_view(trace, args.runs)
            rows.append((shape, ratio, check, clients, view, launch))
            trace.unlink()
    print("\n| shape | check --clients / check | Clients view filled (from '4') | from launch |")
    print("|---|---|---|---|")
    for shape, ratio, check, clients, view, launch in rows:
        print(
            f"| {shape} | {ratio:.2f}× ({clients:.2f} s vs {check:.2f} s) | {view:.2f} s"
            f" | {launch:.2f} s |"
        )


if __name__ == "__main__":
    main()
