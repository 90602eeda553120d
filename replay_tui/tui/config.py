"""User settings: key remapping by binding id (``keymap.toml``)."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from pathlib import Path

from textual.binding import Binding, BindingType

__all__ = ["keymap_path", "keymap_problems", "load_keymap"]


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


def _keys(binding: Binding, keymap: dict[str, str]) -> list[str]:
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return [k.strip() for k in keys.split(",") if k.strip()]


def keymap_problems(
    keymap: dict[str, str], contexts: Sequence[tuple[str, Sequence[BindingType]]]
) -> list[str]:
    """What is wrong with ``keymap``, one line each: ids no binding has, and keys it binds
    that another binding already holds in a context (the bindings that work at once, e.g.
    the app's and the list's while the list has the focus). Clashes the defaults already
    have are not the user's doing and are not reported."""
    known = {b.id for _, bindings in contexts for b in bindings if isinstance(b, Binding) and b.id}
    problems = [
        f"unknown binding id {name!r} (? lists them)" for name in keymap if name not in known
    ]
    seen: set[tuple[str, ...]] = set()
    for title, bindings in contexts:
        holder: dict[str, Binding] = {}
        for b in bindings:
            if not isinstance(b, Binding) or not b.id:
                continue
            for key in _keys(b, keymap):
                other = holder.setdefault(key, b)
                if other.id == b.id or (other.id not in keymap and b.id not in keymap):
                    continue
                pair = (key, *sorted((str(other.id), str(b.id))))
                if pair not in seen:
                    seen.add(pair)
                    problems.append(f"{key} is bound to both {other.id} and {b.id} in {title}")
    return problems
