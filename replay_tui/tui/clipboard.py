"""Copying, and saying where the copy went.

Textual copies by sending the terminal an OSC 52 sequence; the terminal, not the app, decides
whether the clipboard takes it, and nothing comes back. Under tmux, whose default
``set-clipboard external`` drops the sequence from programs inside it, a copy went nowhere
while the app said "Copied". Inside tmux the text is also loaded into tmux's paste buffer
(``prefix ]`` pastes it), which tmux 3.2+ passes on to the outer terminal's clipboard
(``load-buffer -w``); the message says which of the two happened.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

from textual.app import App

__all__ = ["copy", "tmux_buffer"]


def tmux_buffer(text: str) -> bool:
    """Load ``text`` into tmux's paste buffer when running inside tmux; whether it did."""
    if not os.environ.get("TMUX"):
        return False
    tmux = shutil.which("tmux")
    if tmux is None:
        return False
    data = text.encode("utf-8", "surrogateescape")
    for args in (["load-buffer", "-w", "-"], ["load-buffer", "-"]):  # (-w: tmux 3.2 and up)
        try:
            done = subprocess.run(
                [tmux, *args],
                input=data,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=2,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return False
        if done.returncode == 0:
            return True
    return False


def copy(app: App[Any], text: str, what: str = "") -> None:
    """Copy ``text`` (``what`` it is, for the message) and say where it went."""
    app.copy_to_clipboard(text)
    size = f"{len(text):,} character{'s' if len(text) != 1 else ''}"
    said = f"{what} ({size})" if what else size
    if tmux_buffer(text):
        where = "into tmux's paste buffer (prefix ] pastes it) and the clipboard"
    else:
        where = "to the terminal's clipboard (OSC 52)"
    app.notify(f"{said} {where}", title="Copied", timeout=3, markup=False)
