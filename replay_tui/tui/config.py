"""User settings: key remapping by binding id (``keymap.toml``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from textual.binding import Binding, BindingType

__all__ = ["keymap_path", "load_keymap", "node_bindings", "resolve_keymap"]


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
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"{path}: {exc}"
    import tomllib  # (only for a keymap: most starts have none)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
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


def node_bindings(cls: type, own: Sequence[BindingType] = ()) -> list[Binding]:
    """The bindings a node of class ``cls`` has: its classes' ``BINDINGS`` (then ``own``, as a
    subclass's), a subclass's binding of a key hiding a base class's (a base binding keeps
    only its keys not hidden)."""
    holder: dict[str, Binding] = {}
    layers = [klass.__dict__.get("BINDINGS", ()) for klass in reversed(cls.__mro__)]
    for bindings in [*layers, own]:
        for b in bindings:
            if isinstance(b, Binding):
                holder.update((key, b) for key in _keys(b, {}))
    out: dict[int, tuple[Binding, list[str]]] = {}
    for key, b in holder.items():
        out.setdefault(id(b), (b, []))[1].append(key)
    return [
        b if keys == _keys(b, {}) else replace(b, key=",".join(keys)) for b, keys in out.values()
    ]


def _name(binding: Binding) -> str:
    return binding.id or binding.description or binding.action


def resolve_keymap(
    keymap: dict[str, str], contexts: Sequence[tuple[str, Sequence[BindingType]]]
) -> tuple[dict[str, str], list[str]]:
    """The part of ``keymap`` that is applied, and what is wrong with the rest, one line each.

    One rule decides a clash: a key the keymap asks for that another binding holds where
    both work (a context: e.g. the app's bindings and the list's while the list has the
    focus) stays that binding's, and the binding asked for keeps its own keys — so no action
    is ever left without a key, and the help and footer, which read the applied keymap,
    show only keys that work. Moving the other binding away too frees the key
    (``quit = "ctrl+q"`` and ``mark-trace = "q"``). Clashes the defaults already have are not
    the user's doing and are not reported.
    """
    known = {b.id for _, bindings in contexts for b in bindings if isinstance(b, Binding) and b.id}
    problems = [
        f"unknown binding id {name!r} (? lists them)" for name in keymap if name not in known
    ]
    applied = {name: keys for name, keys in keymap.items() if name in known}
    refused = True
    while refused:  # a refused override gives its binding its own keys back: look again
        refused = False
        for title, bindings in contexts:
            holders: dict[str, list[Binding]] = {}
            for b in bindings:
                if isinstance(b, Binding):
                    for key in _keys(b, applied):
                        if b not in holders.setdefault(key, []):
                            holders[key].append(b)
            for key, held in holders.items():
                asked = [b for b in held if b.id in applied and key not in _keys(b, {})]
                if not asked:
                    continue
                # The same action under another binding (App's own ctrl+q quit) is no clash.
                owners = [b for b in held if b not in asked and b.action != asked[0].action]
                if not owners and len({b.action for b in asked}) == 1:
                    continue
                for b in asked:
                    assert b.id is not None
                    del applied[b.id]
                if owners:
                    owner = owners[0]
                    free = f" (move {owner.id} too to free {key})" if owner.id else ""
                    problems += [
                        f"{key} stays {_name(owner)}'s in {title}: {b.id} keeps"
                        f" {', '.join(_keys(b, {})) or 'no key'}{free}"
                        for b in asked
                    ]
                else:
                    names = " and ".join(str(b.id) for b in asked)
                    problems.append(
                        f"{key} is asked for both {names} in {title}: each keeps its own keys"
                    )
                refused = True
                break
            if refused:
                break
    return applied, problems
