"""The NumPy surface of ``ftransforms.numpy``: registrations and module layout.

Every public ``fnp`` function whose NumPy namesake (in ``numpy``, ``numpy.linalg`` or
``numpy.fft``) dispatches through ``__array_function__`` must be registered for it with
``@implements(numpy.foo)`` where it is defined; the failures say which decorator to add
where.
"""

from __future__ import annotations

import ast
import inspect
import pathlib

import numpy
import pytest

import ftransforms.numpy as fnp
from ftransforms import vmap
from ftransforms.errors import UnsupportedOperationError
from ftransforms.numpy.dispatch import FUNCTIONS, implements

PACKAGE = pathlib.Path(fnp.__file__).parent

#: NumPy functions answered by an fnp function of another name, and why.
SUBSTITUTES = {
    # fnp.linspace builds constants on a backend; numpy.linspace(tracer, ...) needs the
    # traced end points of linspace_traced.
    "numpy.linspace": "linspace_traced",
}

NAMESPACES = [
    (fnp, numpy, "numpy"),
    (fnp.linalg, numpy.linalg, "numpy.linalg"),
    (fnp.fft, numpy.fft, "numpy.fft"),
    (fnp.emath, numpy.emath, "numpy.emath"),
]


def _dispatching_pairs():
    for space, module, prefix in NAMESPACES:
        for name in sorted(dir(space)):
            fn = getattr(space, name)
            if name.startswith("_") or isinstance(fn, type) or not callable(fn):
                continue
            if inspect.ismodule(fn):
                continue
            numpy_fn = getattr(module, name, None)
            if numpy_fn is not None and hasattr(numpy_fn, "_implementation"):
                yield f"{prefix}.{name}", numpy_fn, fn


PAIRS = list(_dispatching_pairs())


def test_there_are_many_pairs():
    assert len(PAIRS) > 200


@pytest.mark.parametrize("qualname, numpy_fn, fn", PAIRS, ids=[p[0] for p in PAIRS])
def test_every_fnp_function_is_registered_for_its_numpy_namesake(qualname, numpy_fn, fn):
    registered = FUNCTIONS.get(numpy_fn)
    if qualname in SUBSTITUTES:
        assert registered is getattr(fnp, SUBSTITUTES[qualname]), qualname
        return
    if registered is fn:
        return
    if registered is not None and numpy_fn.__name__ != qualname.rsplit(".")[-1]:
        return  # an alias of another NumPy function (numpy.permute_dims is numpy.transpose)
    where = inspect.getsourcefile(fn) if inspect.isfunction(fn) else PACKAGE / "ufuncs.py"
    where = pathlib.Path(where).relative_to(PACKAGE.parent.parent)
    assert registered is fn, (
        f"{qualname}(tracer) is not answered by {fn.__module__}.{fn.__name__}: add "
        f"`@implements({qualname})` (from ftransforms.numpy.dispatch import implements) on the "
        f"line above `def {getattr(fn, '__name__', qualname)}` in {where}, or list it in "
        f"SUBSTITUTES in tests/test_numpy_surface.py with the reason"
        + (f" (now registered: {registered!r})" if registered is not None else "")
    )


def test_registered_functions_are_reachable_from_fnp():
    public = {id(getattr(s, n)) for s, _, _ in NAMESPACES for n in dir(s) if not n.startswith("_")}
    missing = [
        f"{k.__name__} -> {v.__module__}.{v.__name__}"
        for k, v in FUNCTIONS.items()
        if id(v) not in public
    ]
    assert not missing, f"registered but not exported from fnp or its namespaces: {missing}"


def test_unregistered_numpy_function_raises_unsupported():
    with pytest.raises(
        UnsupportedOperationError, match=r"^vmap.*numpy\.packbits has no ftransforms rule"
    ):
        vmap(lambda x: numpy.packbits(x))(numpy.ones((2, 8), dtype=numpy.uint8))


def test_registered_numpy_function_runs_on_tracers():
    out = vmap(lambda x: numpy.flip(numpy.cumsum(x)))(numpy.arange(6.0).reshape(2, 3))
    numpy.testing.assert_array_equal(
        out, numpy.flip(numpy.cumsum(numpy.arange(6.0).reshape(2, 3), 1), 1)
    )


def test_implements_refuses_a_second_registration():
    with pytest.raises(ValueError, match="already implemented by ftransforms.numpy.reductions.sum"):
        implements(numpy.sum)(lambda x: x)


def test_implements_skips_names_this_numpy_lacks():
    def f(x):
        return x

    assert implements("numpy.no_such_function_anywhere")(f) is f


def _module_imports(path: pathlib.Path) -> set[str]:
    """Modules imported at module level (not inside functions)."""
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def test_core_tracer_does_not_import_the_numpy_layer():
    imports = _module_imports(PACKAGE.parent / "core" / "tracer.py")
    assert not [m for m in imports if m.startswith("ftransforms.numpy")], imports


def test_no_module_level_import_cycle_inside_ftransforms_numpy():
    modules = {p.stem: p for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    graph = {
        name: {m.split(".")[2] for m in _module_imports(p) if m.startswith("ftransforms.numpy.")}
        & set(modules)
        for name, p in modules.items()
    }
    for name, p in modules.items():
        assert "ftransforms.numpy" not in {m for m in _module_imports(p)}, (
            f"ftransforms/numpy/{name}.py imports the package ftransforms.numpy at module level; "
            f"import the chapter module that defines the name instead"
        )
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError(f"import cycle: {' -> '.join(path + [node, nxt])}")
            if nxt not in state:
                visit(nxt, path + [node])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [])


def test_no_module_is_named_after_an_fnp_function_or_by_arrival():
    for p in PACKAGE.glob("*.py"):
        assert not p.stem.startswith("_") or p.stem == "__init__", p
        attr = getattr(fnp, p.stem, None)
        assert p.stem == "__init__" or inspect.ismodule(attr), (
            f"ftransforms/numpy/{p.name}: fnp.{p.stem} is a function, which importing the "
            f"submodule would overwrite; rename the module"
        )


def test_chapters_export_disjoint_names():
    seen: dict[str, str] = {}
    for p in sorted(PACKAGE.glob("*.py")):
        namespaces = ("linalg", "fft", "emath")
        if p.stem in ("__init__", *namespaces, "dispatch", "protocol", "array_methods"):
            continue
        for name in getattr(fnp, p.stem).__all__:
            assert name not in seen, f"{name} exported by both {seen.get(name)} and {p.stem}"
            seen[name] = p.stem
