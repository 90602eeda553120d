"""Render the compare view on a ``replay-tui probe`` result into ``screenshots/probe-compare.svg``.

    replay-tui probe --gateway http://127.0.0.1:4000/v1 --header 'Authorization: Bearer sk-…' \\
        --start-upstream --out /tmp/probe traces/        # LiteLLM pointed at the upstream
    python scripts/screenshot_probe.py /tmp/probe [CAPTURE]

CAPTURE (default ``writer/palmyra-x5-all-null.sse``) is marked under ``upstream/`` and opened
under ``gateway/``, as ``probe --tui`` tells a user to; the view is judged under
assign-always (``b``), where what LiteLLM did to the null ids shows.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from replay_tui.tui.app import make_app  # noqa: E402
from screenshots import OUT, SIZE, compare, settle, to_png  # noqa: E402


async def shoot(folder: str, capture: str) -> Path:
    app = make_app([folder], watch=False)
    steps = compare(f"upstream/{capture}", f"gateway/{capture}", "b", "d")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await steps(app, pilot)
        app.clear_notifications()
        await pilot.pause(0.2)
        svg = app.export_screenshot(title="replay-tui — a capture and what LiteLLM made of it")
    path = OUT / "probe-compare.svg"
    path.write_text(svg, encoding="utf-8")
    return path


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    folder = os.path.abspath(argv[0])
    capture = argv[1] if len(argv) > 1 else "writer/palmyra-x5-all-null.sse"
    os.chdir(ROOT)
    svg = asyncio.run(shoot(folder, capture))
    png = to_png(svg)
    print(svg, png or "")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
