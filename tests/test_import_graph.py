"""The package's layering: no import cycle between its subpackages (and top-level modules), nor
between the command-line modules. Read from the source (ast), so lazy imports inside functions
count too; imports only for type checkers (``if TYPE_CHECKING:``) and of the package root (which
only re-exports) do not. The direction test counts the typing-only ones too: every import goes down
the layers ``docs/architecture.md`` lists, so there is no import circle at all."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import anchormem

ROOT = Path(anchormem.__file__).parent
Graph = dict[str, set[str]]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node except the bodies of ``if TYPE_CHECKING:`` blocks."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in [child, *_runtime_nodes(child)])
            continue
        yield node
        yield from _runtime_nodes(node)


def from_base(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from … import`` in ``package`` imports from, relative imports resolved."""
    base = node.module or ""
    if node.level:
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, *([node.module] if node.module else [])])
    return base


def imported_modules(path: Path) -> set[str]:
    """The ``anchormem.*`` modules ``path`` imports at run time (``from pkg import mod`` names ``pkg.mod``)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = from_base(node, package)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    modules = {module_name(p) for p in ROOT.rglob("*.py")}
    return {m for m in found if m in modules and m != "anchormem"}


def graph(unit: int, within: str = "anchormem") -> Graph:
    """Edges between modules under ``within``, each cut to its first ``unit`` name parts."""
    edges: Graph = defaultdict(set)
    for path in ROOT.rglob("*.py"):
        source = module_name(path)
        if not source.startswith(within + "."):
            continue
        for target in imported_modules(path):
            if target.startswith(within + "."):
                a, b = ".".join(source.split(".")[:unit]), ".".join(target.split(".")[:unit])
                if a != b:
                    edges[a].add(b)
    return edges


def cycles(edges: Graph) -> list[list[str]]:
    """One cycle per strongly connected component with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_lazy_imports_and_skips_type_checking_ones() -> None:
    imports = imported_modules(ROOT / "cli" / "common.py")
    assert "anchormem.memory" in imports  # imported inside a function
    assert "anchormem.config" in imports
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_subpackages() -> None:
    assert cycles(graph(unit=2)) == []


def test_no_import_cycle_between_command_line_modules() -> None:
    assert cycles(graph(unit=3, within="anchormem.cli")) == []


def test_library_never_imports_the_shells() -> None:
    shells = {"anchormem.__main__", "anchormem.cli", "anchormem.server"}
    edges = graph(unit=2)
    offenders = {a: sorted(b & shells) for a, b in edges.items() if a not in shells and b & shells}
    assert offenders == {}


def test_benchmarks_do_not_import_the_tests() -> None:
    bench = ROOT.parents[1] / "bench"
    offenders = []
    for path in sorted(bench.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            offenders += [f"{path.name}: {n}" for n in names if n == "tests" or n.startswith("tests.")]
    assert offenders == []


def store_getattrs(root: Path) -> list[str]:
    """``getattr``/``hasattr`` calls on a store (a name ending in ``store``) in the modules outside ``store/``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.is_relative_to(root / "store"):
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
                continue
            if node.func.id in {"getattr", "hasattr"} and ast.unparse(node.args[0]).lower().endswith("store"):
                found.append(f"{path.relative_to(root)}: {ast.unparse(node)}")
    return found


def test_no_module_outside_the_stores_probes_a_store_by_name() -> None:
    """The layers above a store check its optional capabilities by type (``store/capabilities.py``), so a
    backend author finds the whole contract declared there."""
    assert store_getattrs(ROOT) == []


ARCHITECTURE = ROOT.parents[1] / "docs" / "architecture.md"


def every_import(path: Path) -> set[str]:
    """The ``anchormem.*`` modules ``path`` imports, typing-only ones included (``from pkg import mod``
    names ``pkg.mod`` only, not the package ``pkg``)."""
    modules = {module_name(p) for p in ROOT.rglob("*.py")}
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = from_base(node, package)
            named = {f"{base}.{a.name}" for a in node.names}
            found.update(named & modules)
            if named - modules:
                found.add(base)
    return {m for m in found if m in modules and m != "anchormem"}


def room_of(module: str) -> str:
    return module.split(".")[1]


def layers() -> dict[str, int]:
    """Room -> its line in the architecture's layer list (0: the bottom)."""
    text = ARCHITECTURE.read_text("utf-8")
    block = text.split("<!-- layers -->")[1].split("<!-- /layers -->")[0]
    lines = [line.split() for line in block.strip().strip("`").strip().splitlines() if line.strip()]
    return {room.removesuffix(".py"): i for i, rooms in enumerate(lines) for room in rooms}


def test_imports_go_down_the_layers_of_the_architecture_typing_ones_included() -> None:
    level = layers()
    rooms = {
        room_of(module_name(p)).removesuffix(".py")
        for p in ROOT.rglob("*.py")
        if p.parent != ROOT or p.name != "__init__.py"
    }
    assert rooms - set(level) == set(), "rooms docs/architecture.md does not place"
    assert set(level) - rooms == set(), "rooms docs/architecture.md names that do not exist"
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        source = module_name(path)
        if source == "anchormem":
            continue
        for target in every_import(path):
            a, b = room_of(source), room_of(target)
            if a != b and level[b] >= level[a]:
                wrong.append(f"{source} -> {target}")
    assert wrong == []


def test_no_import_circle_even_for_type_checkers() -> None:
    edges: Graph = defaultdict(set)
    for path in ROOT.rglob("*.py"):
        source = module_name(path)
        edges[source].update(t for t in every_import(path) if t != source)
    assert cycles(edges) == []
