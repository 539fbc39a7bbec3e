"""Imports run one way: each module imports only its own layer and the layers below it,
and no module-level import cycle exists (NOTE [layers] in ``ftransforms/lax.py``; the
design page, docs/design.md, draws the same diagram).

The imports are read statically with ``ast``, as a reviewer would: module-level ``import``
and ``from ... import`` statements, ``if TYPE_CHECKING:`` blocks excluded.  A
function-local import of a project module is allowed only with a ``# late import:``
comment saying why (an optional dependency, a source checkout, ...), and never upward.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("ftransforms", "batching_rules")

#: Bottom to top.  A module belongs to the layer with a matching prefix (a package and its
#: submodules; ``=name`` for one module only); anything in ``ftransforms`` not listed is
#: user-facing.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "core",
        ("ftransforms.core", "ftransforms.backend", "ftransforms.errors", "ftransforms.pytree"),
    ),
    ("lax", ("ftransforms.lax",)),
    ("ops", ("ftransforms.ops",)),
    ("batching_rules", ("batching_rules",)),
    (
        "machinery",
        ("ftransforms.interpreters", "ftransforms.program", "ftransforms.program_rewrites"),
    ),
    ("numpy", ("ftransforms.numpy",)),
    ("user-facing", ("ftransforms.",)),
    ("package", ("=ftransforms",)),
    # Programs that use the finished package (``from ftransforms import ...``).
    ("applications", ("ftransforms.demo", "ftransforms.coverage", "ftransforms.public_api")),
]
RANK = {name: i for i, (name, _) in enumerate(LAYERS)}


def layer_of(module: str) -> str:
    # Exact prefixes first, so that the catch-all ``ftransforms.`` decides last.
    for name, prefixes in sorted(LAYERS, key=lambda layer: layer[1] == ("ftransforms.",)):
        for prefix in prefixes:
            if prefix.startswith("="):  # this module only
                if module == prefix[1:]:
                    return name
            elif prefix.endswith("."):  # everything under it
                if module.startswith(prefix):
                    return name
            elif module == prefix or module.startswith(prefix + "."):
                return name
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS in this file")


def _modules() -> dict[str, pathlib.Path]:
    files = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            mod = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            files[mod.removesuffix(".__init__")] = path
    return files


MODULES = _modules()


def _resolve(name: str) -> str | None:
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _targets(node: ast.AST, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            pkg = module if is_package else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                pkg = pkg.rpartition(".")[0]
            base = pkg + ("." + node.module if node.module else "")
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
    else:
        return []
    return [r for r in map(_resolve, names) if r is not None and r != module]


def _imports(module: str) -> tuple[list[tuple[int, str]], list[tuple[int, str, str]]]:
    """(module-level imports, function-local imports with their source line)."""
    path = MODULES[module]
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    top, local = [], []
    is_package = path.name == "__init__.py"

    def visit(node: ast.AST, in_function: bool) -> None:
        # one pass over the tree: a TYPE_CHECKING block is skipped whole, an import inside
        # a function (or lambda) is local
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in _targets(node, module, is_package):
                if in_function:
                    local.append((node.lineno, target, lines[node.lineno - 1]))
                else:
                    top.append((node.lineno, target))
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(ast.parse(source), False)
    return top, local


GRAPH = {m: _imports(m) for m in MODULES}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_imports_only_its_layer_and_below(module):
    here = layer_of(module)
    top, local = GRAPH[module]
    for lineno, target in top:
        there = layer_of(target)
        assert RANK[there] <= RANK[here], (
            f"{MODULES[module].relative_to(ROOT)}:{lineno}: {module} (layer {here!r}) imports "
            f"{target} (layer {there!r}, above it).  Imports run bottom to top "
            f"({' < '.join(RANK)}): move the code that needs {target} up, or the code it "
            f"needs down (rules use ftransforms.lax, not ftransforms.numpy)."
        )
    for lineno, target, line in local:
        there = layer_of(target)
        assert RANK[there] <= RANK[here], (
            f"{MODULES[module].relative_to(ROOT)}:{lineno}: a function-local import of "
            f"{target} (layer {there!r}) from {module} (layer {here!r}): a late import "
            f"does not make an upward import right; restructure instead."
        )
        assert "late import:" in line, (
            f"{MODULES[module].relative_to(ROOT)}:{lineno}: function-local import of "
            f"{target}: import it at module level, or say why it must be late with a "
            f"'# late import: <reason>' comment on that line."
        )


def _cycles() -> list[list[str]]:
    edges = {m: sorted({t for _, t in GRAPH[m][0]}) for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(MODULES):
        if v not in index:
            visit(v)
    return found


def test_no_module_level_import_cycle():
    cycles = _cycles()
    assert not cycles, "module-level import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)
