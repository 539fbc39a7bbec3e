"""The primitive registry and the public NumPy surface against the op database.

Every built-in primitive (declared under ``ftransforms/ops/``) has an implementation, a
derivative (JVP and VJP rules, a transpose, or ``nondiff``), a batching rule (no built-in
op may rely on the loop fallback) and an op-database entry that really binds it; every
public function of ``ftransforms.numpy`` (``fnp.linalg``, ``fnp.fft`` included) and of
``ftransforms.scipy.special`` has an entry that really calls it; every NumPy function
registered for ``__array_function__`` dispatch is exported by ``ftransforms.numpy``.  Each
failure names what is missing and the file to fix.  The loop fallback itself works for
user-defined primitives, warns once, and can be switched off.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import itertools
import os
import pkgutil
import types
import uuid
import warnings

import numpy as np
import pytest

import batching_rules.elementwise
import ftransforms as ft
import ftransforms.numpy as fnp
import ftransforms.ops
import ftransforms.scipy.special as fsp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import REGISTRY, Primitive, defop
from ftransforms.interpreters.batching import FALLBACK
from ftransforms.pytree import tree_flatten
from tests.op_db import BY_NAME, FNP, OPS, covered_functions, covered_primitives

# Load every op family (some, such as nn, are imported lazily by the library).
for _mod in pkgutil.iter_modules(ftransforms.ops.__path__):
    importlib.import_module(f"ftransforms.ops.{_mod.name}")
importlib.import_module("ftransforms.random")

TESTS = os.path.dirname(os.path.abspath(__file__))


def _module_of(prim: Primitive) -> str:
    return getattr(prim.impl, "__module__", "") or ""


def builtin_primitives() -> dict[str, Primitive]:
    """The primitives declared by the library (tests and users may register more): those
    whose implementation is defined in the ``ftransforms`` package."""
    return {n: p for n, p in REGISTRY.items() if _module_of(p).startswith("ftransforms.")}


def _file_of(prim: Primitive) -> str:
    return _module_of(prim).replace(".", "/") + ".py"


def _op_db_file(family: str) -> str:
    """The op-database file for a family: ``tests/op_db_<family>.py`` where it exists,
    else the core file (or a new family file imported at the bottom of it)."""
    if os.path.exists(os.path.join(TESTS, f"op_db_{family}.py")):
        return f"tests/op_db_{family}.py"
    return f"tests/op_db.py (or a new tests/op_db_{family}.py, imported at its bottom)"


BUILTIN = sorted(builtin_primitives())


def test_the_builtin_set_is_the_library():
    # guards the filter above: it must see the core families and nothing from the tests
    names = set(BUILTIN)
    assert {"sin", "add", "reduce_sum", "getitem", "matmul", "einsum", "select"} <= names
    assert all(_file_of(REGISTRY[n]).startswith("ftransforms/") for n in names)
    assert not any(_file_of(REGISTRY[n]).startswith("ftransforms/testing") for n in names)


def _batching_rule(prim: Primitive):
    return getattr(prim, "batch", None)


def rule_problems(prim: Primitive) -> list[str]:
    """What ``prim`` lacks among impl, derivative and batching rule, each with its fix."""
    where = _file_of(prim)
    out = []
    if not callable(prim.impl):
        out.append(f"{prim.name}: give impl= in its defop in {where}")
    has_rules = prim.jvp_rules is not None and prim.vjp_rules is not None
    if not prim.nondiff and not has_rules and prim.transpose is None:
        out.append(
            f"primitive {prim.name!r}: no derivative: add jvp= and vjp= (or transpose= for an "
            f"op linear in its first argument, or nondiff=True) to its defop in {where}"
        )
    if _batching_rule(prim) is None:
        out.append(
            f"primitive {prim.name!r}: no batching rule, so vmap would run it as a Python "
            f"loop: register one for it in batching_rules/ (the family rule of its kind, e.g. "
            f"batching_rules.elementwise.elementwise, or a new one there); declared in {where}"
        )
    return out


def entry_problem(name: str) -> str | None:
    """Why primitive ``name`` lacks an op-database entry, with where to add one."""
    if name in covered_primitives():
        return None
    prim = REGISTRY[name]
    family = _module_of(prim).rsplit(".", 1)[-1]
    return (
        f"primitive {name!r} ({_file_of(prim)}) has no op-database entry: add an OpEntry to "
        f"{_op_db_file(family)} that binds it (through its ftransforms.numpy front end where "
        f"it has one), with prims=({name!r},) and a sampler; the format is at the top of "
        f"tests/op_db.py"
    )


@pytest.mark.parametrize("name", BUILTIN)
def test_primitive_has_every_rule(name):
    problems = rule_problems(REGISTRY[name])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", BUILTIN)
def test_primitive_has_an_op_db_entry(name):
    problem = entry_problem(name)
    assert problem is None, problem


# -- the public NumPy surface ---------------------------------------------------------------

#: Public names that are not array operations, so have no entry (with the reason).
NOT_OPERATIONS = {
    "special.bernoulli": "a table of constants from an integer n (no array operand)",
    # answers about dtypes and contraction orders, not array operations
    "can_cast": "returns a bool about dtypes",
    "common_type": "returns a dtype",
    "einsum_path": "returns the contraction path (shapes only)",
    # helpers the rules and the NumPy layer use
    "physical": "a helper: the backend array under a tracer",
    "peek": "a helper: the concrete values, for value-dependent rules",
    "physical_zeros_like": "a helper of the rules",
    "normalize_index": "a helper of the indexing rules",
    # Python values read from shapes and dtypes, not arrays
    "shape": "a tuple read from the shape",
    "ndim": "an int read from the shape",
    "shares_memory": "a bool about which views overlap (tests/test_views_overlap.py)",
    "may_share_memory": "a bool about which views overlap (tests/test_views_overlap.py)",
    "size": "an int read from the shape",
    "result_type": "a dtype",
    "broadcast_shapes": "a tuple of ints from tuples of ints",
    "iscomplexobj": "a Python bool read from the dtype",
    "isrealobj": "a Python bool read from the dtype",
    # NumPy's in-place writers: refused on tracers with the functional fix
    # (tests/test_errors.py, tests/test_extra_numpy.py)
    "copyto": "in place: raises InPlaceError on tracers",
    "fill_diagonal": "in place: raises InPlaceError on tracers",
    "place": "in place: raises InPlaceError on tracers",
    "put": "in place: raises InPlaceError on tracers",
    "put_along_axis": "in place: raises InPlaceError on tracers",
    "putmask": "in place: raises InPlaceError on tracers",
}

_SUBMODULES = {"linalg.": fnp.linalg, "fft.": fnp.fft, "special.": fsp}


def _public_names(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    out = []
    for n in names:
        v = getattr(module, n, None)
        if v is None or isinstance(v, types.ModuleType) or inspect.isclass(v):
            continue
        if not callable(v) or isinstance(v, np.dtype):
            continue
        if not (getattr(v, "__module__", "") or "").startswith("ftransforms"):
            continue  # typing/collections/numpy objects imported by the module
        out.append(n)
    return out


def public_functions() -> dict[str, object]:
    """``"ptp"``, ``"linalg.norm"``, ``"fft.rfft"``, ``"special.erf"`` -> the function."""
    out = {n: getattr(fnp, n) for n in _public_names(fnp)}
    for prefix, module in _SUBMODULES.items():
        out.update({prefix + n: getattr(module, n) for n in _public_names(module)})
    return out


PUBLIC = sorted(public_functions())


def test_public_surface_is_seen():
    # guards _public_names: the chapters, the submodules, nothing imported from elsewhere
    names = set(PUBLIC)
    assert {"sin", "sum", "pad", "ptp", "linalg.norm", "fft.rfft", "special.erf"} <= names
    assert not {"Any", "Sequence", "Tracer", "float32", "linalg.namedtuple"} & names
    assert set(NOT_OPERATIONS) <= names, sorted(set(NOT_OPERATIONS) - names)


def _entry_file(path: str) -> str:
    if path.startswith("linalg."):
        return "tests/op_db_linalg.py"
    if path.startswith("fft."):
        return "tests/op_db_fft.py"
    if path.startswith("special."):
        return "tests/op_db.py (special functions section)"
    return "tests/op_db_numpy.py (or the family file of its chapter)"


def function_problem(path: str, fn: object) -> str | None:
    """Why public function ``path`` lacks an op-database entry, with where to add one."""
    if path in NOT_OPERATIONS or path in covered_functions():
        return None
    where = inspect.getsourcefile(inspect.unwrap(fn)) if inspect.isfunction(fn) else None
    where = os.path.relpath(where) if where else getattr(fn, "__module__", "?")
    module = "ftransforms.scipy.special" if path.startswith("special.") else "ftransforms.numpy"
    short = path.removeprefix("special.")
    return (
        f"{module}.{short} ({where}) has no op-database entry: add an OpEntry to "
        f"{_entry_file(path)} that calls m.{path}(...), with funcs=({path!r},) (or name it "
        f"{path!r}), a sampler and, for an integer/bool result, nondiff=True; the format is "
        f"at the top of tests/op_db.py (a name that is not an array operation goes in "
        f"NOT_OPERATIONS in tests/test_registry.py, with the reason)"
    )


@pytest.mark.parametrize("path", [p for p in PUBLIC if p not in NOT_OPERATIONS])
def test_public_function_has_an_op_db_entry(path):
    problem = function_problem(path, public_functions()[path])
    assert problem is None, problem


def _dispatch_table() -> dict:
    """NumPy function -> the ftransforms function ``__array_function__`` calls."""
    from ftransforms.numpy import protocol  # noqa: PLC0415  (the bridge, not the face)

    table = getattr(protocol, "FUNCTIONS", None)
    assert isinstance(table, dict), (
        "ftransforms.numpy.protocol.FUNCTIONS (NumPy function -> implementation) is gone: "
        "point _dispatch_table in tests/test_registry.py at the new registration table"
    )
    return table


def _exported() -> dict[int, str]:
    """id(function) -> its public path, over fnp, fnp.linalg, fnp.fft and fnp.emath."""
    out: dict[int, str] = {}
    spaces = (("", fnp), ("linalg.", fnp.linalg), ("fft.", fnp.fft), ("emath.", fnp.emath))
    for prefix, module in spaces:
        for n in dir(module):
            if not n.startswith("_"):
                out.setdefault(id(getattr(module, n)), prefix + n)
    return out


def _numpy_name(func) -> str:
    module = getattr(func, "__module__", "numpy") or "numpy"
    prefix = "numpy.linalg" if "linalg" in module else "numpy.fft" if "fft" in module else "numpy"
    prefix = "numpy.emath" if "scimath" in module else prefix
    return f"{prefix}.{func.__name__}"


def export_problem(func, impl) -> str | None:
    """Why the implementation NumPy's ``func`` dispatches to is not reachable as ``fnp.*``."""
    if id(impl) in _exported():
        return None
    return (
        f"{_numpy_name(func)} dispatches (__array_function__) to "
        f"{getattr(impl, '__module__', '?')}.{getattr(impl, '__qualname__', impl)}, which "
        f"ftransforms.numpy does not export: export it from ftransforms/numpy/__init__.py "
        f"(ftransforms/numpy/linalg.py or fft.py for numpy.linalg/numpy.fft), so that "
        f"fnp.{func.__name__} exists and gets an op-database entry"
    )


@pytest.mark.parametrize("numpy_name", sorted(_numpy_name(f) for f in _dispatch_table()))
def test_dispatched_numpy_function_is_exported(numpy_name):
    func = {_numpy_name(f): f for f in _dispatch_table()}[numpy_name]
    problem = export_problem(func, _dispatch_table()[func])
    assert problem is None, problem


# -- the messages name the fix ----------------------------------------------------------------


@pytest.fixture
def bare_primitive():
    """A primitive that looks declared in ftransforms/ops/nn.py, with no derivative, no
    batching rule and no entry (removed from the registry afterwards)."""

    def impl(xp, x):
        return x

    impl.__module__ = "ftransforms.ops.nn"
    prim = defop(f"test_registry_bare_{uuid.uuid4().hex[:8]}", impl, nondiff=True)
    prim.nondiff = False  # defop refuses a differentiable op without rules: undo by hand
    try:
        yield prim
    finally:
        REGISTRY.pop(prim.name, None)


def test_messages_for_a_bare_primitive(bare_primitive):
    problems = "\n".join(rule_problems(bare_primitive))
    assert "no derivative: add jvp= and vjp=" in problems
    assert "ftransforms/ops/nn.py" in problems
    assert "no batching rule" in problems and "batching_rules/" in problems
    problem = entry_problem(bare_primitive.name)
    assert problem.startswith(f"primitive {bare_primitive.name!r} (ftransforms/ops/nn.py)")
    assert "add an OpEntry to tests/op_db_nn.py" in problem
    assert f"prims=({bare_primitive.name!r},)" in problem


def test_message_for_a_public_function_without_entry():
    def fake(x):
        return x

    problem = function_problem("fake_function", fake)
    assert problem.startswith("ftransforms.numpy.fake_function (tests/test_registry.py)")
    assert "add an OpEntry to tests/op_db_numpy.py" in problem
    assert "funcs=('fake_function',)" in problem
    assert "tests/op_db_linalg.py" in function_problem("linalg.fake", fake)
    assert function_problem("special.fake", fake).startswith("ftransforms.scipy.special.fake")
    assert function_problem("ptp", fnp.ptp) is None


def test_message_for_a_dispatched_function_not_exported():
    def ptp(x):  # an implementation fnp does not export
        return x

    problem = export_problem(np.ptp, ptp)
    assert problem.startswith("numpy.ptp dispatches (__array_function__) to ")
    assert "export it from ftransforms/numpy/__init__.py" in problem
    assert export_problem(np.ptp, fnp.ptp) is None
    assert export_problem(np.linalg.norm, fnp.linalg.norm) is None


# -- the entries' prims and funcs are honest -------------------------------------------------


class _Recorder:
    """Records the name of every primitive bound while active (patching Primitive.bind),
    and every public function in ``funcs`` called through the ``FNP`` namespace."""

    def __init__(self, monkeypatch, funcs=()):
        self.names: set[str] = set()
        self.called: set[str] = set()
        original = Primitive.bind

        def bind(prim, *args, **params):
            self.names.add(prim.name)
            return original(prim, *args, **params)

        monkeypatch.setattr(Primitive, "bind", bind)
        monkeypatch.setattr(Primitive, "__call__", bind)
        for path in funcs:
            *parents, last = path.split(".")
            owner = FNP
            for p in parents:
                owner = getattr(owner, p)
            owner = fnp if owner is FNP else owner
            fn = getattr(owner, last)

            @functools.wraps(fn)
            def spy(*args, _fn=fn, _path=path, **kwargs):
                self.called.add(_path)
                return _fn(*args, **kwargs)

            monkeypatch.setattr(owner, last, spy)
            if owner is fnp and last in vars(FNP):
                monkeypatch.setattr(FNP, last, spy)


def _operands(s):
    return [i for i, a in enumerate(s.args) if isinstance(a, np.ndarray)]


@pytest.mark.parametrize("name", [op.name for op in OPS])
def test_op_db_entry_binds_its_primitives(name, monkeypatch):
    """An entry's ``prims`` are bound by running it (forward, vmap, jvp, vjp) on its
    samples, and its ``funcs`` are called."""
    op = BY_NAME[name]
    rec = _Recorder(monkeypatch, op.funcs)
    for s in op.samples(op.dtypes[-1], 0):
        if op.xfail_reason("test_forward", s):
            continue  # a known bug, recorded by the sweeps
        pos = _operands(s)

        def f(*operands, s=s, pos=pos):
            args = list(s.args)
            for i, a in zip(pos, operands):
                args[i] = a
            return op.call(FNP, tuple(args), s.kwargs)

        operands = [s.args[i] for i in pos]
        f(*operands)
        # operators and methods need tracers
        if not op.xfail_reason("test_vmap", s):
            ft.vmap(f, randomness=op.randomness)(*[a[None] for a in operands])
        floats = [j for j, a in enumerate(operands) if a.dtype.kind == "f"]
        if not floats or not s.grads:  # no derivative on this sample (nextafter has none)
            continue

        def g(*fx, operands=operands, floats=floats, f=f):
            args = list(operands)
            for j, v in zip(floats, fx):
                args[j] = v
            return tuple(o for o in tree_flatten(f(*args))[0] if o.dtype.kind in "fc")

        fx = [operands[j] for j in floats]
        out, vjp_fn = ft.vjp(g, *fx)
        if out:
            vjp_fn(tuple(np.ones_like(o) for o in out))
            ft.jvp(g, tuple(fx), tuple(np.ones_like(x) for x in fx))
    missing = set(op.prims) - rec.names
    assert not missing, (
        f"op_db entry {name!r} says it covers {sorted(missing)}, but running it binds only "
        f"{sorted(rec.names)}; fix its prims= in tests/op_db*.py"
    )
    not_called = set(op.funcs) - rec.called
    assert not not_called, (
        f"op_db entry {name!r} says it calls {sorted(not_called)}, but running it does not "
        f"call them through the namespace m: call m.<function> in its fn, or fix its funcs= "
        f"in tests/op_db*.py"
    )


# -- the loop fallback ---------------------------------------------------------------------

_counter = itertools.count()


@pytest.fixture
def unbatched_cube():
    """A user primitive without a batching rule (removed from the registry afterwards)."""
    name = f"test_cube_without_batch_rule_{uuid.uuid4().hex[:8]}_{next(_counter)}"
    prim = defop(
        name,
        lambda xp, x: x * x * x,
        jvp=(lambda x_dot, y, x: 3 * x * x * x_dot,),
        vjp=(lambda y_bar, y, x: 3 * x * x * y_bar,),
    )
    try:
        yield prim
    finally:
        REGISTRY.pop(name, None)
        FALLBACK["warned"].discard(name)


def test_loop_fallback_computes_and_warns_once(unbatched_cube):
    x = np.arange(6.0).reshape(3, 2)
    assert FALLBACK["enabled"], "the fallback is on by default"
    with pytest.warns(RuntimeWarning, match=f"{unbatched_cube.name}.*no batching rule"):
        out = ft.vmap(unbatched_cube)(x)
    np.testing.assert_array_equal(out, x**3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second warning would raise here
        out = ft.vmap(unbatched_cube, in_dims=1)(x)
        np.testing.assert_array_equal(out, (x**3).T)
        # and the loop composes with differentiation
        g = ft.vmap(ft.grad(lambda v: unbatched_cube(v).sum()))(x)
        np.testing.assert_allclose(g, 3 * x**2)


def test_loop_fallback_can_be_switched_off(unbatched_cube):
    saved = FALLBACK["enabled"]
    FALLBACK["enabled"] = False
    try:
        with pytest.raises(UnsupportedOperationError, match=unbatched_cube.name):
            ft.vmap(unbatched_cube)(np.ones((2, 3)))
    finally:
        FALLBACK["enabled"] = saved
    # back on: works again
    with pytest.warns(RuntimeWarning):
        np.testing.assert_array_equal(ft.vmap(unbatched_cube)(np.ones((2, 3))), np.ones((2, 3)))


def test_primitive_with_a_batch_rule_never_uses_the_fallback():
    name = f"test_cube_with_rule_{uuid.uuid4().hex[:8]}"
    prim = defop(
        name,
        lambda xp, x: x * x * x,
        jvp=(lambda x_dot, y, x: 3 * x * x * x_dot,),
        vjp=(lambda y_bar, y, x: 3 * x * x * y_bar,),
        batch=batching_rules.elementwise.elementwise,
    )
    saved = FALLBACK["enabled"]
    FALLBACK["enabled"] = False
    try:
        np.testing.assert_array_equal(ft.vmap(prim)(np.arange(3.0)), np.arange(3.0) ** 3)
    finally:
        FALLBACK["enabled"] = saved
        REGISTRY.pop(name, None)
