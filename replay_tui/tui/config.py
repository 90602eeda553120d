"""User settings: key remapping by binding id (``keymap.toml``)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

__all__ = ["keymap_path", "load_keymap"]


def keymap_path() -> Path:
    """``$REPLAY_TUI_KEYMAP``, else ``$XDG_CONFIG_HOME/replay-tui/keymap.toml``."""
    given = os.environ.get("REPLAY_TUI_KEYMAP")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "replay-tui" / "keymap.toml"


def load_keymap(path: Path | None = None) -> tuple[dict[str, str], str | None]:
    """Binding id → keys (``next-flag = "j"``, or under a ``[keymap]`` table).

    Returns the keymap and a problem to show, if the file exists but cannot be used.
    """
    path = path or keymap_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return {}, f"{path}: {exc}"
    table = data.get("keymap", data)
    if not isinstance(table, dict):
        return {}, f"{path}: [keymap] must be a table"
    keymap = {str(k): v for k, v in table.items() if isinstance(v, str)}
    bad = sorted(str(k) for k, v in table.items() if not isinstance(v, str))
    return keymap, (f"{path}: ignored non-string keys for {', '.join(bad)}" if bad else None)
