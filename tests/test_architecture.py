"""The design, as tests: the package is layered (:data:`LAYERS`: the core at the bottom, the
command line and the TUI at the top), the core knows nothing of its shells, and the package has
no import cycles (each module can be read knowing only what it imports)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "replay_tui"

SHELL_LIBRARIES = ("textual", "rich", "aiohttp", "textual_serve", "watchfiles", "dask", "fsspec")
"""What the core must never import: the TUI's, the recorder's, the watcher's, the cluster's."""


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute, TYPE_CHECKING blocks and function bodies
    included (a cycle through either is still a cycle in the design)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.add(target)
            for alias in node.names:  # `from . import x` imports the module x
                out.add(f"{target}.{alias.name}")
    return out


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


@functools.cache
def graph() -> dict[str, set[str]]:
    """Each module's imports within the package: parsed when a test first asks (not while
    every worker collects the suite)."""
    return {
        name: {m for m in _imports(path) if m in MODULES and m != name}
        for name, path in MODULES.items()
    }


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


LAYERS: dict[str, set[str]] = {
    "core": set(),
    "live": {"core"},
    "clientlibs": {"core"},
    "record": {"core"},
    "scale": {"core", "clientlibs"},
    "share": {"core", "clientlibs"},
    "browse": {"core", "live", "scale"},
    "gateway": {"core", "record"},
    "tui": {"core", "live", "clientlibs", "scale", "share", "record", "browse"},
    "cli": {"core", "scale", "share", "record", "gateway", "tui"},
}
"""Each subpackage and what it may import of the package: the core (framing, wire types, the
translator and its rule, the analysis, verdicts, discovery) rests on nothing; watching and
following (``live``) and the client-library models (``clientlibs``) on the core; the pool,
archives and Dask (``scale``) and reports, minimizing and serving (``share``) on those; what
the TUI does with the paths it opens, without a screen (``browse``: the walk, the judgement
cache, judging in the pool, following) on the core, ``live`` and ``scale``; the recording proxy (``record``) on the core alone (its redaction rule, who a local server
answers); the mock upstream and the probe (``gateway``) on the recorder's helpers; the TUI and the command line are the
shells on top (the command line reaches the client-library models and the watcher through
them).
Anything may read the package's own ``__init__`` (its version)."""

LAUNCHERS = {"replay_tui.record.__main__": "cli"}
"""``python -m replay_tui.record`` is the command line's ``record``: it may start the shell."""


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_subpackage_has_a_layer() -> None:
    found = {_layer(m) for m in MODULES} - {None}
    assert found == set(LAYERS)


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_each_layer_imports_only_what_is_below_it(layer: str) -> None:
    offenders = sorted(
        (m, t)
        for m, targets in graph().items()
        if _layer(m) == layer
        for t in targets
        if _layer(t) not in (None, layer)
        and _layer(t) not in LAYERS[layer]
        and LAUNCHERS.get(m) != _layer(t)
    )
    assert not offenders, offenders


def test_the_layers_are_what_the_code_does() -> None:
    """No layer is allowed what nothing in it uses (the table is the design, not a wish)."""
    used: dict[str, set[str]] = {layer: set() for layer in LAYERS}
    for m, targets in graph().items():
        layer = _layer(m)
        if layer is None or m in LAUNCHERS:
            continue
        used[layer] |= {_layer(t) for t in targets} - {None, layer}  # type: ignore[arg-type]
    assert used == LAYERS


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _under(m, "replay_tui.core")))
def test_the_core_imports_no_shell(module: str) -> None:
    imported = _imports(MODULES[module])
    libraries = sorted(m for m in imported if m.split(".")[0] in SHELL_LIBRARIES)
    assert not libraries, f"{module} imports {libraries}"
    above = sorted(m for m in graph()[module] if not _under(m, "replay_tui.core"))
    assert not above, f"{module} imports {above}: the core depends on nothing above it"


SCREENLESS = ("replay_tui.browse",)
"""What the TUI runs that must be testable without a screen: no Textual, Rich or terminal."""


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if any(_under(m, p) for p in SCREENLESS))
)
def test_what_the_tui_runs_off_screen_imports_no_textual(module: str) -> None:
    imported = _imports(MODULES[module])
    libraries = sorted(m for m in imported if m.split(".")[0] in ("textual", "rich"))
    assert not libraries, f"{module} imports {libraries}"


def test_only_the_tui_and_its_launchers_import_the_tui() -> None:
    launchers = ("replay_tui.cli", "replay_tui.share.serve", "replay_tui.record")
    offenders = sorted(
        (m, t)
        for m, targets in graph().items()
        if not _under(m, "replay_tui.tui") and not any(_under(m, lau) for lau in launchers)
        for t in targets
        if _under(t, "replay_tui.tui")
    )
    assert not offenders


def test_no_import_cycles() -> None:
    """Tarjan's strongly connected components over the package's import graph."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph()[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            # A package's __init__ re-exporting its own modules is not a cycle of design.
            real = [m for m in component if not any(_under(o, m) and o != m for o in component)]
            if len(real) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph()):
        if v not in index:
            visit(v)
    assert not cycles, cycles


@pytest.mark.parametrize(
    "module", ["replay_tui.gateway.captures", "replay_tui.gateway.conformance"]
)
def test_the_gateway_records_are_pure(module: str) -> None:
    """What a served capture is and how a probe is judged read without a server: no aiohttp,
    nothing of the TUI (the network is in gateway.upstream and gateway.probe)."""
    imported = _imports(MODULES[module])
    libraries = sorted(m for m in imported if m.split(".")[0] in SHELL_LIBRARIES)
    assert not libraries, f"{module} imports {libraries}"
    inside = sorted(m for m in graph()[module] if _under(m, "replay_tui.gateway"))
    assert inside in ([], ["replay_tui.gateway.captures"]), inside


def test_nothing_below_the_cli_imports_the_gateway_commands() -> None:
    """The gateway package builds on the core (and the recorder's helpers); only the CLI
    uses it."""
    offenders = sorted(
        (m, t)
        for m, targets in graph().items()
        if not _under(m, "replay_tui.gateway") and not _under(m, "replay_tui.cli")
        for t in targets
        if _under(t, "replay_tui.gateway")
    )
    assert not offenders
