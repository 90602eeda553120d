"""Re-record what real gateways do to the bundled captures (``tests/data/gateways``).

    python -m venv tests/gateways/.venv
    tests/gateways/.venv/bin/pip install -r tests/gateways/requirements.txt
    npm ci --prefix tests/gateways
    apt-get install nginx-light                      # Debian 12: nginx 1.22.1
    python scripts/record_gateways.py [litellm] [portkey] [nginx]

Each gateway (and nginx, a plain reverse proxy, as a reference) is started on 127.0.0.1 at the
version pinned in ``tests/gateways`` and pointed at ``replay-tui probe --start-upstream``;
every capture of ``traces/`` and ``tests/data/gateways/patterns/`` is probed through it and the
reduced result (the gateway's verdicts and flags, what it introduced, whether the outcome
stayed the same) is written to ``tests/data/gateways/<gateway>-<version>.json``, which
``tests/gateways`` expects. To move to another version: change the pin (``requirements.txt``,
``package.json`` and ``real_gateways.py``), install, run this, read the diff, update
docs/probe.md's table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "gateways"))

import real_gateways as rg


def main(names: list[str]) -> int:
    versions = {
        "litellm": rg.LITELLM_VERSION,
        "portkey": rg.PORTKEY_VERSION,
        "nginx": rg.NGINX_VERSION,
    }
    for name in names or list(versions):
        version = versions[name]
        found = rg.installed_version(name)
        if found != version:
            print(f"{name}: {found or 'not installed'}, want {version}", file=sys.stderr)
            return 2
        record, err = rg.run(name)
        path = rg.record_path(name, version)
        path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        print(f"{name} {version}: {len(record['captures'])} captures -> {path}")
        if any(c["problem"] for c in record["captures"].values()):
            print(err, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
