"""Real gateways on 127.0.0.1, pointed at ``replay-tui upstream``, probed with ``replay-tui probe``.

Shared by ``tests/gateways/test_real_gateways.py`` and ``scripts/record_gateways.py`` (which
writes what they expect). The gateways are installed outside the project's environment, by
``.ci/run`` (or by hand, the same commands):

    python -m venv tests/gateways/.venv
    tests/gateways/.venv/bin/pip install -r tests/gateways/requirements.txt
    npm ci --prefix tests/gateways

- **LiteLLM proxy** (``litellm[proxy]``, a virtual environment of its own: its pins would
  fight the project's): a config routing every model (``*``) to ``openai/*`` at the
  upstream's base URL; it passes the capture's name through as the model, so the upstream
  serves the capture it names. Requests carry the master key it refuses to start without.
- **Portkey's gateway** (``@portkey-ai/gateway``, run with node): routed per request by
  ``x-portkey-provider: openai`` and ``x-portkey-custom-host: <upstream>/v1``. Node runs it
  with ``portkey-preload.cjs``, which (1) binds its server to 127.0.0.1 — it has no option
  for the address and listens on every interface otherwise — and (2) gives the responses its
  ``fetch`` returns mutable headers: at 1.15.2 on Node 20 every chat completion otherwise
  fails with ``TypeError: immutable`` (Portkey-AI/gateway#1389; the fix of its open pull
  requests #1390/#1551). The body is passed on untouched.
- **nginx** (Debian's ``nginx-light``): docs/probe.md's ``location /v1/`` block, run in the
  foreground as one process with everything in a temporary folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DATA = REPO / "tests" / "data" / "gateways"
PROBED = [REPO / "traces", DATA / "patterns"]
LITELLM_VERSION = "1.108.7"
PORTKEY_VERSION = "1.15.2"
NGINX_VERSION = "1.22.1"
"""Debian 12's (``apt-get install nginx-light``): a plain reverse proxy, docs/probe.md's snippet."""
MASTER_KEY = "sk-replay-tui-test"
START_TIMEOUT = 120.0


@dataclass(frozen=True)
class Running:
    """A gateway that is up: its base URL and the headers each request needs."""

    name: str
    version: str
    url: str
    headers: tuple[str, ...]
    upstream_port: int


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def litellm_executable() -> Path | None:
    """The ``litellm`` of tests/gateways/.venv (or ``$REPLAY_TUI_LITELLM``), if installed."""
    given = os.environ.get("REPLAY_TUI_LITELLM")
    path = Path(given) if given else HERE / ".venv" / "bin" / "litellm"
    return path if path.is_file() else None


def portkey_server() -> Path | None:
    path = HERE / "node_modules" / "@portkey-ai" / "gateway" / "build" / "start-server.js"
    return path if path.is_file() and shutil.which("node") else None


def nginx_executable() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx",) if Path(p).is_file()), None
    )


def installed_version(name: str) -> str | None:
    if name == "nginx":
        exe = nginx_executable()
        if exe is None:
            return None
        done = subprocess.run([exe, "-v"], capture_output=True, text=True, timeout=60, check=False)
        text = done.stderr.strip()  # "nginx version: nginx/1.22.1"
        return text.rpartition("/")[2] or None
    if name == "litellm":
        exe = litellm_executable()
        if exe is None:
            return None
        out = subprocess.run(
            [str(exe.parent / "python"), "-c", "import importlib.metadata as m;"
             " print(m.version('litellm'))"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        return out.stdout.strip() or None
    package = HERE / "node_modules" / "@portkey-ai" / "gateway" / "package.json"
    try:
        version: str = json.loads(package.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    return version


def _wait_until_up(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the gateway exited ({proc.returncode}): {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"the gateway did not come up in {START_TIMEOUT:g}s: {url}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(15)


@contextlib.contextmanager
def litellm(work: Path) -> Iterator[Running]:
    exe = litellm_executable()
    assert exe is not None
    port, upstream_port = free_port(), free_port()
    config = work / "litellm.yaml"
    config.write_text(
        "model_list:\n"
        '  - model_name: "*"\n'
        "    litellm_params:\n"
        '      model: "openai/*"\n'
        f'      api_base: "http://127.0.0.1:{upstream_port}/v1"\n'
        '      api_key: "x"\n'
    )
    env = dict(os.environ, LITELLM_MASTER_KEY=MASTER_KEY, LITELLM_LOCAL_MODEL_COST_MAP="True")
    log = work / "litellm.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(exe), "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=work,
        )  # fmt: skip
    try:
        _wait_until_up(proc, f"http://127.0.0.1:{port}/health/liveliness", log)
        yield Running(
            "litellm",
            LITELLM_VERSION,
            f"http://127.0.0.1:{port}/v1",
            (f"Authorization: Bearer {MASTER_KEY}",),
            upstream_port,
        )
    finally:
        _stop(proc)


@contextlib.contextmanager
def portkey(work: Path) -> Iterator[Running]:
    server = portkey_server()
    assert server is not None
    port, upstream_port = free_port(), free_port()
    log = work / "portkey.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            ["node", "--require", str(HERE / "portkey-preload.cjs"), str(server),
             f"--port={port}", "--headless"],
            stdout=out, stderr=subprocess.STDOUT, cwd=work,
            env=dict(os.environ, NODE_ENV="production"),
        )  # fmt: skip
    try:
        _wait_until_up(proc, f"http://127.0.0.1:{port}/", log)
        yield Running(
            "portkey",
            PORTKEY_VERSION,
            f"http://127.0.0.1:{port}/v1",
            (
                "x-portkey-provider: openai",
                f"x-portkey-custom-host: http://127.0.0.1:{upstream_port}/v1",
                "Authorization: Bearer x",
            ),
            upstream_port,
        )
    finally:
        _stop(proc)


@contextlib.contextmanager
def nginx(work: Path) -> Iterator[Running]:
    """nginx in the foreground, one process as the current user, with docs/probe.md's
    location block proxying to the upstream."""
    exe = nginx_executable()
    assert exe is not None
    port, upstream_port = free_port(), free_port()
    conf = work / "nginx.conf"
    conf.write_text(
        f"""daemon off;
master_process off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{}}
http {{
    access_log off;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location /v1/ {{
            proxy_pass http://127.0.0.1:{upstream_port}/v1/;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_read_timeout 300s;
        }}
        location = /health {{ return 200 "ok"; }}
    }}
}}
"""
    )
    log = work / "nginx.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [exe, "-p", str(work), "-c", str(conf), "-e", str(work / "nginx-error.log")],
            stdout=out, stderr=subprocess.STDOUT, cwd=work,
        )  # fmt: skip
    try:
        _wait_until_up(proc, f"http://127.0.0.1:{port}/health", log)
        yield Running("nginx", NGINX_VERSION, f"http://127.0.0.1:{port}/v1", (), upstream_port)
    finally:
        _stop(proc)


def probe(running: Running, out: Path) -> tuple[int, dict[str, Any], str]:
    """``replay-tui probe --start-upstream`` of the bundled traces and patterns through it."""
    argv = [sys.executable, "-m", "replay_tui.cli", "probe", "--gateway", running.url]
    for header in running.headers:
        argv += ["--header", header]
    argv += ["--start-upstream", "--upstream-listen", f"127.0.0.1:{running.upstream_port}"]
    argv += ["--out", str(out), "--json", "--timeout", "60", *map(str, PROBED)]
    done = subprocess.run(argv, capture_output=True, timeout=600, check=False, cwd=REPO)
    err = done.stderr.decode("utf-8", "replace")
    return done.returncode, json.loads(done.stdout), err


def _flag(f: dict[str, Any]) -> str:
    return f"{f['kind']} call {f['call']} ({json.dumps(f['value'])})"


def _same_bytes(output: str | None, out: Path) -> bool | None:
    """Whether the gateway's output is byte for byte what the upstream streamed."""
    if output is None:
        return None
    if not output.endswith(".sse"):
        return False  # an answer that was not a stream (an error body): not what was sent
    sent = out / "upstream" / Path(output).relative_to(out / "gateway")
    return Path(output).read_bytes() == sent.read_bytes()


def reduce(doc: dict[str, Any]) -> dict[str, Any]:
    """What the tests hold a gateway to: per capture, what came out and what changed."""
    captures: dict[str, Any] = {}
    out = Path(doc["out"])
    for c in doc["captures"]:
        gateway = c["gateway"]
        captures[c["capture"]] = {
            "same_bytes": _same_bytes(c["output"], out),
            "problem": c["problem"]["kind"] if c["problem"] else None,
            "upstream": [c["upstream"]["verdicts"], [_flag(f) for f in c["upstream"]["flags"]]],
            "gateway": (
                [gateway["verdicts"], [_flag(f) for f in gateway["flags"]]] if gateway else None
            ),
            "introduced": c["introduced"],
            "same_outcome": c["changed"]["same_outcome"] if c["changed"] else None,
            "calls_changed": c["changed"]["calls_changed"] if c["changed"] else None,
        }
    return {"exit_status": doc["exit_status"], "captures": captures}


def record_path(name: str, version: str) -> Path:
    return DATA / f"{name}-{version}.json"


def run(name: str) -> tuple[dict[str, Any], str]:
    """Start gateway ``name``, probe through it, stop it; the reduced record and stderr."""
    starter = {"litellm": litellm, "portkey": portkey, "nginx": nginx}[name]
    with tempfile.TemporaryDirectory(prefix=f"replay-tui-{name}-") as tmp:
        work = Path(tmp)
        with starter(work) as running:
            _, doc, err = probe(running, work / "out")
            record = reduce(doc)
    return record, err
