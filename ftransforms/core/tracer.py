"""The tracer base class: what every tracer is, and what it refuses.

A tracer stands for an array inside a transform.  Subclasses (``BatchTracer``,
``DualTracer``, ``ReverseTracer``) say what they carry; this class holds the abstract array
attributes (``.shape``/``.dtype``), the conversions (``bool()``, ``int()``, ...) and the
errors for escaped tracers and in-place writes.  The NumPy layer installs the rest: Python
operators, methods such as ``.sum()`` and NumPy's ``__array_ufunc__``/``__array_function__``
(:mod:`ftransforms.numpy.array_methods`), so that this layer imports nothing above it.
"""

from __future__ import annotations

import dis
import importlib
import inspect
import itertools
import math
import sys
import threading
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.core.errors import (
    BatchedControlFlowError,
    EscapedTracerError,
    InPlaceError,
    ObjectArrayWarning,
    PerformanceWarning,
    RandomnessError,
    TracerConversionError,
    UnsupportedOperationError,
)
from ftransforms.core.stack import current_stack, note_object_path


def escaped_error(tracer: Tracer, use: str) -> EscapedTracerError:
    """The error for a tracer used (``use``: "by add", "bool()", ...) after its transform
    returned."""
    key = (
        "  A traced number kept as a dict key, a set element or a functools.lru_cache "
        "argument from an earlier call (or an earlier run of a vmap that split its batch) "
        "is compared by equal: key such a cache on a Python "
        "number, float(v), int(v) or v.item(), which outlives the transform."
        if use == "by equal"
        else ""
    )
    stored = STORED.get(id(tracer))
    if stored is not None and stored[0]() is tracer:
        return EscapedTracerError(
            f"{tracer._interp.name}: one of its tracers was used ({use}) after that "
            f"transform had returned: {stored[1]()} (an escaped tracer, as in JAX).  "
            f"Return the value from the function instead (has_aux=True returns it beside "
            f"the output) and store it after the transform."
        )
    return EscapedTracerError(
        f"{tracer._interp.name}: one of its tracers was used ({use}) after that transform "
        f"had returned (an escaped tracer: it was stored in a global, a closure or a "
        f"container during the transform and used later).  Return the value from the "
        f"transformed function instead, or compute with the plain array outside the "
        f"transform.{key}"
    )


#: The tracers a transformed function stored into a container of an argument passed as
#: is (NOTE [writes into argument containers] in ftransforms/arguments.py), by id: ``(weak
#: reference, its place)``, for :func:`escaped_error`'s message.
STORED: dict[int, tuple] = {}


def note_stored(tracer: Tracer, place: Callable[[], str], how: str = "") -> None:
    """Note that ``tracer`` was left in an argument's container at ``place()`` (or, with
    ``how``, where ``how.format(place())`` says: a sentence naming who stored it there)."""
    key = id(tracer)
    text = (
        (lambda: how.format(place()))
        if how
        else (
            lambda: (
                f"the function stored it in {place()}, inside an argument that the "
                "transform passed as is"
            )
        )
    )
    # (``STORED`` bound now: at interpreter exit the module's globals may be gone first)
    STORED[key] = (weakref.ref(tracer, lambda _, k=key, d=STORED: d.pop(k, None)), text)


_STORE_SUBSCR = dis.opmap["STORE_SUBSCR"]
_CALL = dis.opmap.get("CALL", dis.opmap.get("CALL_FUNCTION", -1))
_BINARY_SUBSCR = dis.opmap.get("BINARY_SUBSCR", -1)


#: NumPy's functions that write values into an array (``np.put(G, i, [t, u])`` of a plain
#: array ``G`` converts the list's tracers with ``float()`` as ``G[i] = t`` does).
_NUMPY_WRITERS = frozenset({"put", "copyto", "place", "putmask", "fill_diagonal", "at"})


#: NOTE [traced writes into private NumPy arrays] (core/private_arrays.py): the function
#: that turns a plain array only the writing frame holds into a buffer taking ``a[i] = t``
#: (returns that array's dtype, or None); set there.
PRIVATE_STORE: list = []

#: core/private_arrays.py's ``index_of_store``: whether a tracer NumPy converts in a store
#: ``a[index] = value`` is that store's (integer or boolean) index; set there.
STORE_INDEX: list = []


def _storing_into_an_array(depth: int) -> bool:
    """Whether the Python frame ``depth`` levels up is executing ``a[i] = value`` or
    calling one of NumPy's writers: NumPy converts a value written into one of its arrays
    with ``float()``/``__array__``."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:  # pragma: no cover  (no such frame)
        return False
    if frame.f_code.co_code[frame.f_lasti] == _STORE_SUBSCR:
        return True
    return _method_called(frame) in _NUMPY_WRITERS


def _filling_an_array(depth: int) -> bool:
    """Whether the Python frame ``depth`` levels up is calling ``<something>.fill(...)``
    (NumPy's ``ndarray.fill`` converts its value with ``float()``); read only on the way
    to a conversion error."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:  # pragma: no cover  (no such frame)
        return False
    return _method_called(frame) == "fill"


def _method_called(frame: Any) -> str | None:
    """The name of the function or method ``frame`` is calling, or None."""
    if frame.f_code.co_code[frame.f_lasti] != _CALL:
        return None
    from ftransforms.core.mutation import _callee  # late import: mutation imports tracer

    return _callee(frame.f_code, frame.f_lasti)


#: Code objects of NumPy functions that turn the result of their object loops into a NumPy
#: scalar with ``x.dtype.type(x)`` (NumPy's own mean/var/std of an object array, as in
#: ``np.mean([t1, t2])``): there ``x.dtype`` reads as absent, so they keep the tracer
#: (``x / n``) instead of calling ``float(x)``.  Filled by the NumPy layer.
DTYPE_HIDDEN_FROM: set[Any] = set()


def _hidden_from_numpy_scalar_casts(prop: property) -> property:
    fget = prop.fget

    def dtype(self: Tracer) -> Any:
        if sys._getframe(1).f_code in DTYPE_HIDDEN_FROM:
            raise AttributeError("dtype")
        return fget(self)

    dtype.hides_from_numpy = True
    return property(dtype, prop.fset, doc=prop.__doc__)


#: Every subclass of :class:`Tracer` (filled as they are defined): ``Primitive.bind`` tests
#: ``type(x) in TRACER_TYPES``, a set lookup, instead of calling ``isinstance``.
TRACER_TYPES: set[type] = set()

#: Whether object arrays of tracers exist yet (set by the first ``Tracer.__array__``).
_OBJECT_ARRAYS_MADE = [False]


def _hide_dtype_in_subclasses(cls: type) -> None:
    """Wrap the ``dtype`` property of ``cls`` and its subclasses (once each)."""
    prop = cls.__dict__.get("dtype")
    if isinstance(prop, property) and not getattr(prop.fget, "hides_from_numpy", False):
        cls.dtype = _hidden_from_numpy_scalar_casts(prop)
    for sub in cls.__subclasses__():
        _hide_dtype_in_subclasses(sub)


_LOADS = frozenset({"LOAD_FAST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_ATTR"})


def _stored_array_name(depth: int) -> str | None:
    """The name of the NumPy array that the frame executing ``a[i] = t`` (found from
    ``depth`` levels up) writes into, when a name loaded on that line holds one."""
    frame = sys._getframe(depth)
    while frame is not None and frame.f_code.co_code[frame.f_lasti] != _STORE_SUBSCR:
        frame = frame.f_back
    if frame is None:
        return None
    names = []
    for ins in dis.get_instructions(frame.f_code):
        if ins.offset >= frame.f_lasti:
            break
        if ins.opname in _LOADS:
            names.append(ins.argval)
        elif ins.opname.startswith("STORE") or ins.opname == "POP_TOP":
            names = []
    for name in reversed(names):
        value = frame.f_locals.get(name, frame.f_globals.get(name))
        if type(value) is numpy.ndarray:
            return name
    return None


def _called_from_numpy(depth: int) -> bool:
    """Whether the Python frame ``depth`` levels up is NumPy's own code."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:  # pragma: no cover
        return False
    return frame.f_globals.get("__name__", "").startswith("numpy.")


def _has_counterpart(module: str, function: str) -> bool:
    """Whether ``ftransforms.<module>.<function>`` exists (``scipy.stats``, ``norm.logpdf``)."""
    try:
        obj: Any = importlib.import_module(f"ftransforms.{module}")
    except ImportError:
        return False
    for part in function.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return False
    return True


#: Frames of SciPy's own decorators, which wrap the public function a user called.
_DECORATOR_FRAMES = frozenset({"wrapper", "inner", "decorated", "wrapped", "_wrapper"})


def _wrapped_scipy_function(local_vars: dict) -> tuple[str, str] | None:
    """``(module, name)`` of the public SciPy function a decorator frame wraps, if any."""
    for value in local_vars.values():
        module = getattr(value, "__module__", None) or ""
        name = getattr(value, "__name__", "")
        if callable(value) and module.startswith("scipy.") and not name.startswith("_"):
            return module, name
    return None


#: The functions of ``scipy.sparse``'s operators that give way (``NotImplemented``) to the
#: other operand for a 0-d object array: NOTE [SciPy sparse operands].
_SPARSE_DISPATCH = frozenset({"_matmul_dispatch", "_rmatmul_dispatch"})

#: The ``scipy.sparse`` classes whose operator dispatch gave way to a tracer: the tracer's
#: reflected ``*`` takes a matrix product only for these (one set lookup otherwise).
SPARSE_DISPATCHED: set = set()


def _scipy_sparse_dispatch(depth: int) -> bool:
    """Whether the caller of ``numpy.asanyarray`` is ``scipy.sparse``'s operator dispatch
    (its sparse operand's class is then remembered in :data:`SPARSE_DISPATCHED`)."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:  # pragma: no cover
        return False
    while frame is not None and frame.f_globals.get("__name__", "").startswith("numpy"):
        frame = frame.f_back
    if (
        frame is None
        or frame.f_code.co_name not in _SPARSE_DISPATCH
        or not frame.f_globals.get("__name__", "").startswith("scipy.sparse")
    ):
        return False
    owner = frame.f_locals.get("self")
    if owner is not None:
        SPARSE_DISPATCHED.add(type(owner))
    return True


_NUMPY_FRAMES = ("numpy", "ftransforms.numpy.creation")


#: The module of the wrappers that answer SciPy's names (NOTE [SciPy's own names under the
#: transforms]): SciPy calling one of its wrapped methods (``mean`` calls ``stats``) stays
#: inside SciPy for the error's name.
_OWN_NAMES = "ftransforms.scipy.own_names"


def _scipy_caller(depth: int) -> tuple[str, str] | None:
    """``("scipy.stats", "logpdf")`` when the code that converted a tracer with
    ``numpy.asarray`` is SciPy's (the outermost SciPy frame names the public function and
    its public module), else None.  SciPy's Python functions convert their inputs, so an
    object array of tracers would only fail later inside them with NumPy's own error."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:  # pragma: no cover
        return None
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_NUMPY_FRAMES):
        # numpy.asarray_chkfinite and friends, called by SciPy (and the wrapper that
        # answers numpy.asarray_chkfinite while a transform is active)
        frame = frame.f_back
    found = None
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name == _OWN_NAMES:  # a wrapper of SciPy's name, called by SciPy: see through it
            frame = frame.f_back
            continue
        if name.split(".")[0] != "scipy":
            break
        if frame.f_code.co_filename == "<ftransforms redirect>":
            # the trampoline of a SciPy function bound before the first transform (NOTE
            # [SciPy's function objects bound before the first transform]): its name is
            # that of the SciPy frame inside it, already found
            frame = frame.f_back
            continue
        function = frame.f_code.co_name
        if function in _DECORATOR_FRAMES or function.endswith("_wrapper") or "._lib" in name:
            # SciPy's decorators (batching over leading axes, ...): the public function is
            # the one they wrap, a local of theirs.
            wrapped = _wrapped_scipy_function(frame.f_locals)
            if wrapped is not None:
                found = wrapped
            frame = frame.f_back
            continue
        owner = frame.f_locals.get("self")
        if owner is not None:  # a method: scipy.stats.norm.logpdf
            dist = getattr(owner, "dist", None)  # a frozen distribution: norm(m, s).logpdf
            if dist is not None and hasattr(dist, "name"):
                function = f"{dist.name}.{function}"
            else:
                function = f"{type(owner).__name__.removesuffix('_gen')}.{function}"
        found = (name, function)
        frame = frame.f_back
    if found is None:
        return None
    # the public module: the leading parts before the first private one (scipy.integrate
    # for scipy.integrate._ivp.ivp, scipy.spatial.distance for itself)
    public = itertools.takewhile(lambda p: not p.startswith("_"), found[0].split("."))
    return ".".join(public), found[1]


# NOTE [SciPy's Python functions on tracers]: SciPy's Python-level functions start with
# ``x = numpy.asarray(x)``.  ``Tracer.__array__`` answers it, as for user code, with an
# object array of 0-d tracers, and NumPy's object loops then compute through the tracers'
# operators and ufunc methods (``t.exp()``); the transforms turn the object arrays they
# get back into tracers (:mod:`ftransforms.boundary`).  That is element by element in
# Python, so the first such call of each SciPy function warns (PerformanceWarning) naming
# it.  The conversion raises TracerConversionError naming the function and the fix instead
# where SciPy asks for float memory (``numpy.asarray(x, dtype=float)``), where the function
# belongs to a module whose work is compiled code (linear algebra, FFT, interpolation,
# sparse, ...), where ``ftransforms.scipy`` has a counterpart of it (its distributions
# and special functions go on to call SciPy ufuncs and ``numpy.isnan``, which have no
# object loops), and in the density, probability and moment methods of the distributions
# it lacks (for the same reason): there an object array would only fail later with
# NumPy's own error, and the counterpart is exact and fast.

#: SciPy modules whose public functions hand their arrays to compiled routines.
_COMPILED_SCIPY_MODULES = frozenset(
    {
        "scipy.linalg",
        "scipy.sparse",
        "scipy.fft",
        "scipy.fftpack",
        "scipy.interpolate",
        "scipy.ndimage",
        "scipy.spatial",
        "scipy.integrate",
        "scipy.io",
        "scipy.cluster",
        "scipy.odr",
    }
)

#: The ``scipy.optimize`` functions that compute with NumPy in Python (the Rosenbrock test
#: function and its derivatives); its solvers run compiled code.
_PYTHON_SCIPY_OPTIMIZE = frozenset({"rosen", "rosen_der", "rosen_hess", "rosen_hess_prod"})

#: ``module.function`` names already warned about (NOTE [SciPy's Python functions on
#: tracers]); tests may clear it.
SLOW_SCIPY_WARNED: set[str] = set()


#: The methods of SciPy's distributions that compute a density, a probability or a moment.
_DISTRIBUTION_METHODS = frozenset(
    {"pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "pmf", "logpmf"}
    | {"mean", "var", "std", "median", "entropy", "moment", "stats", "interval"}
)


def _scipy_refusal(caller: tuple[str, str], dtype: Any) -> str | None:
    """Why the SciPy function ``caller`` may not get an object array of tracers (None
    when it may): NOTE [SciPy's Python functions on tracers]."""
    module, function = caller
    if dtype is not None and numpy.dtype(dtype).kind != "O":
        return f"converts its input with numpy.asarray(..., dtype={numpy.dtype(dtype)})"
    if ".".join(module.split(".")[:2]) in _COMPILED_SCIPY_MODULES or (
        module == "scipy.optimize" and function not in _PYTHON_SCIPY_OPTIMIZE
    ):
        return "hands its input to compiled code that needs float memory"
    if _has_counterpart(module, function):
        return (
            "converts its input with numpy.asarray and computes with SciPy ufuncs that have "
            "no loop for an object array of tracers"
        )
    if module == "scipy.stats" and function.rpartition(".")[2] in _DISTRIBUTION_METHODS:
        # a distribution ftransforms.scipy.stats lacks (skewnorm.logpdf at a traced shape
        # parameter): its code goes on to SciPy's compiled ufuncs (xlogy, ndtr, ...) and
        # numpy.isfinite, whose NumPy TypeError would name none of this
        return (
            "computes with SciPy ufuncs and numpy.isfinite, which have no loop for an "
            "object array of tracers"
        )
    return None


def takes_every_parameter(theirs: Any, ours: Any, unknown: bool = True) -> bool:
    """Whether ``ours`` takes every parameter SciPy's ``theirs`` takes (by name; ``ours``
    with ``**kwargs`` takes any); ``unknown`` where a signature cannot be read (a builtin)."""
    if isinstance(theirs, numpy.ufunc):
        return True  # a ufunc's counterpart takes its inputs the same way
    try:
        wanted = inspect.signature(theirs).parameters
        have = inspect.signature(ours).parameters
    except (TypeError, ValueError):
        return unknown
    if any(p.kind is p.VAR_KEYWORD for p in have.values()):
        return True
    return all(name in have for name in wanted if name not in ("args", "kwds", "kwargs"))


def _same_parameters(module: str, function: str) -> bool:
    """Whether ``ftransforms.<module>.<function>`` takes every parameter SciPy's takes (the
    error path only: ``scipy.optimize.minimize``'s counterpart follows JAX's, a subset)."""
    ours: Any = importlib.import_module(f"ftransforms.{module}")
    theirs: Any = importlib.import_module(module)
    for part in function.split("."):
        ours, theirs = getattr(ours, part), getattr(theirs, part, None)
    return takes_every_parameter(theirs, ours)


def _scipy_fix(module: str, function: str) -> str:
    function = function.removesuffix(".__init__")  # a class: name the class
    if _has_counterpart(module, function):
        how = (
            "the same signature"
            if _same_parameters(module, function)
            else "see its docstring: it takes a subset of SciPy's parameters"
        )
        return (
            f"Call ftransforms.{module}.{function} instead ({how}), or the "
            f"function written with ftransforms.numpy."
        )
    return (
        "ftransforms has no counterpart of it: write it with ftransforms.numpy, or give it "
        "rules with ftransforms.custom_vjp / custom_jvp."
    )


def _warn_slow_scipy(tracer: Tracer, module: str, function: str) -> None:
    name = f"{module}.{function}"
    note_object_path(name)
    if name in SLOW_SCIPY_WARNED:
        return
    SLOW_SCIPY_WARNED.add(name)
    warnings.warn(
        f"{tracer._interp.name}: {name} converts its input with numpy.asarray, so it "
        f"computes on a NumPy object array of 0-d tracers, element by element in Python "
        f"(correct, but slow on large arrays; shown once per function).  For speed, write "
        f"it with ftransforms.numpy.",
        PerformanceWarning,
        stacklevel=_user_stacklevel(),
    )


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the first caller outside SciPy, NumPy and ftransforms: the
    line of user code that called the SciPy function."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] in (
        "scipy",
        "numpy",
        "ftransforms",
    ):
        level, frame = level + 1, frame.f_back
    return level


#: The names of NumPy's scalar types (``float64``, ``double``, ``int_``, ``bool_``, ...).
_NUMPY_SCALAR_NAMES = frozenset(
    name
    for name in dir(numpy)
    if isinstance(getattr(numpy, name, None), type)
    and issubclass(getattr(numpy, name), numpy.generic)
)


def _calling_a_numpy_scalar_type(depth: int) -> bool:
    """Whether the Python frame ``depth`` levels up is calling a NumPy scalar type by name
    (``np.float64(t)``), which converts its argument with ``__array__(dtype=...)``."""
    from ftransforms.core.mutation import _callee  # late import: mutation imports tracer

    frame = sys._getframe(depth + 1)
    name = _callee(frame.f_code, frame.f_lasti)
    if name in _NUMPY_SCALAR_NAMES:
        return True
    called = frame.f_locals.get(name, frame.f_globals.get(name))  # ``dt = np.float32``
    return isinstance(called, type) and issubclass(called, numpy.generic)


def _calling_permutation(depth: int) -> bool:
    """Whether the Python frame ``depth`` levels up calls a C function named
    ``permutation`` (``rng.permutation(t)``, ``RandomState.permutation``): it shuffles the
    array it converts ``t`` to in place and returns that array, a copy of ``t`` (NumPy
    decides to copy by ``may_share_memory``, which the object array of a tracer fails)."""
    from ftransforms.core.mutation import _callee  # late import: mutation imports tracer

    frame = sys._getframe(depth + 1)
    if frame.f_globals.get("__name__") == "numpy._ftransforms_buffers":
        frame = frame.f_back  # past the wrapper of np.asarray while a transform is active
    return _callee(frame.f_code, frame.f_lasti) == "permutation"


_GENERATORS = (numpy.random.Generator, numpy.random.RandomState)
_CALL_CHAINS: dict = {}


def _generator_method_called(depth: int) -> str | None:
    """``"rng.normal"`` when the Python frame ``depth`` levels up calls a method of a NumPy
    random generator it holds (``rng.normal(loc=t)``, ``self.rng.uniform(t)``): the C
    method converts a traced parameter with ``__array__(dtype=float64)``
    (NOTE [traced parameters of a held generator]); else None."""
    chain, obj = _receiver(sys._getframe(depth + 1))
    if not isinstance(obj, _GENERATORS):
        return None
    return f"{'.'.join(chain[:-1])}.{chain[-1]}"


def _receiver(frame: Any) -> tuple[tuple, Any]:
    """``(("self", "rng", "normal"), <the object self.rng>)`` for the call ``frame`` is
    making (``self.rng.normal(t)``): the names it loads and the object the method is
    called on; ``(chain, None)`` where they are not a plain name path."""
    key = (frame.f_code, frame.f_lasti)
    chain = _CALL_CHAINS.get(key)
    if chain is None:
        chain = _CALL_CHAINS[key] = _called_name_chain(frame.f_code, frame.f_lasti)
    if len(chain) < 2:
        return chain, None
    first, *attrs, _ = chain
    scope = frame.f_locals
    obj = scope[first] if first in scope else frame.f_globals.get(first)
    for attr in attrs:
        obj = getattr(obj, attr, None)
    return chain, obj


def _masked_array_caller(depth: int) -> bool:
    """Whether the Python frame ``depth`` levels up (past the wrapper of ``numpy.array``
    while a transform is active) is ``numpy.ma``'s code."""
    frame = sys._getframe(depth + 1)
    if frame.f_globals.get("__name__") == "numpy._ftransforms_buffers":
        frame = frame.f_back
    return frame.f_globals.get("__name__", "").startswith("numpy.ma")


# NOTE [methods of plain arrays on tracers]: a method of a plain NumPy array called with a
# tracer (``X.dot(w)``, ``X.take(idx)``, ``s.searchsorted(t)``) is C code that dispatches
# on no protocol: it converts the tracer with ``__array__``.  With a numeric ``dtype=``
# (``take``'s intp) an integer tracer's value is read, as for the index of ``a[t]`` (no
# derivative; under jit the recording then reads data; under vmap rows that differ split
# the batch); otherwise the TracerConversionError names the method and ``np.<method>(X,
# ...)``, which dispatches.  Without one (``dot``) NumPy computes on the object array of
# 0-d tracers, right but element by element in Python (``X.dot(w)`` of a 2000x500 ``X``:
# about 30 s under grad against 2 ms for ``np.dot(X, w)``), and the ObjectArrayWarning
# names the method and its dispatching spelling.  The frame is read only on those paths.
def _plain_array_method(depth: int) -> tuple[str, str] | None:
    """``("X", "dot")`` when the Python frame ``depth`` levels up calls a method of a plain
    NumPy array it holds by name (``X.dot(t)``, ``self.W.take(t)``): the C method converts
    a traced argument with ``__array__`` (NOTE [methods of plain arrays on tracers]); else
    None."""
    frame = sys._getframe(depth + 1)
    if frame.f_globals.get("__name__") == "numpy._ftransforms_buffers":
        return None  # numpy.array/asarray's wrapper: no method of the user's array
    chain, obj = _receiver(frame)
    if len(chain) < 2:
        # a receiver that is no plain name path (X[0].take(t)): the method's name alone
        from ftransforms.core.mutation import _callee  # late import: mutation imports tracer

        method = _callee(frame.f_code, frame.f_lasti)
        return ("a", method) if method in _PLAIN_ARRAY_METHODS else None
    method = chain[-1]
    if type(obj) is not numpy.ndarray or not callable(getattr(obj, method, None)):
        return None
    return ".".join(chain[:-1]), method


#: The names of NumPy arrays' methods (less those of NumPy's random generators): a C
#: call through one (``X[0].take(t)``, whose receiver no name holds) is taken for the
#: method of a plain array (NOTE [methods of plain arrays on tracers]).
_PLAIN_ARRAY_METHODS = frozenset(
    name
    for name in dir(numpy.ndarray)
    if not name.startswith("_") and callable(getattr(numpy.ndarray, name))
) - frozenset(name for name in dir(numpy.random.Generator) if not name.startswith("_"))


def _called_name_chain(code: Any, lasti: int) -> tuple:
    """The names loaded at the start of the call at ``lasti`` (``("self", "rng",
    "normal")`` for ``self.rng.normal(t)``), or () where they are not plain names."""
    instructions = list(dis.get_instructions(code))
    call = next((i for i in instructions if i.offset == lasti), None)
    start = getattr(call, "positions", None)
    if start is None or start.lineno is None:
        return ()
    chain = []
    for ins in instructions:
        if ins.offset >= lasti:
            break
        pos = ins.positions
        if pos is None or (pos.lineno, pos.col_offset) != (start.lineno, start.col_offset):
            continue
        if ins.opname in ("LOAD_FAST", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME"):
            chain = [ins.argval]  # a name starts the chain anew
        elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and chain:
            chain.append(ins.argval)
        elif ins.opname not in ("PUSH_NULL", "CACHE", "PRECALL", "KW_NAMES"):
            chain = []  # a call or subscript inside the chain: not a plain attribute path
    return tuple(chain)


def _indexing_with(depth: int) -> bool:
    """Whether the Python frame ``depth`` levels up is executing ``a[t]``: NumPy converts
    an index that is no integer with ``__array__``."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:  # pragma: no cover
        return False
    return frame.f_code.co_code[frame.f_lasti] == _BINARY_SUBSCR


#: NumPy's ``as_strided``: it converts its input with ``numpy.array`` and then reads that
#: array's memory with the caller's byte strides, which fit an object array of tracers
#: (8-byte pointers) only when the traced dtype has 8-byte elements too.
#: core/mutation.py's ``_objects_laid_out`` (NOTE [byte strides of views]), set there.
LAID_OUT_OBJECTS: list = []
_AS_STRIDED_CODE = getattr(numpy.lib.stride_tricks.as_strided, "__code__", None)
_OBJECT_ITEMSIZE = numpy.dtype(object).itemsize


def _listed(depth: int) -> bool:
    """Whether the wrapper of ``numpy.array``/``asarray`` (core/mutation.py) is converting
    a list or tuple with no ``dtype=``: one holding only tracers and numbers becomes one
    traced array afterwards (NOTE [lists holding tracers into numpy.array]), so the object
    array made on the way is not the user's."""
    frame = sys._getframe(depth + 1)
    if frame.f_globals.get("__name__") != "numpy._ftransforms_buffers":
        return False
    local = frame.f_locals
    args = local.get("args", ())
    first = local["a"] if "a" in local else args[0] if args else None
    return type(first) in (list, tuple) and local.get("kwargs", {}).get("dtype") is None


def _called_by_as_strided(depth: int) -> bool:
    """Whether ``numpy.lib.stride_tricks.as_strided`` is converting (directly, or through
    the creation-function wrapper of NOTE [mutation semantics])."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:  # pragma: no cover
        return False
    for _ in range(3):
        if frame is None:
            return False
        if frame.f_code is _AS_STRIDED_CODE:
            return True
        frame = frame.f_back
    return False


#: ``t.shape = new_shape`` (NumPy's in-place reshape): installed by the NumPy layer, which
#: owns writes (NOTE [mutation semantics]).
SHAPE_SETTER: list[Any] = []


def _set_shape(self: Tracer, value: Any) -> None:
    SHAPE_SETTER[0](self, value)


def _set_dtype(self: Tracer, value: Any) -> None:
    """``t.dtype = d``: NumPy reinterprets the bytes in place, which no transform can."""
    if numpy.dtype(value) == self.dtype:
        return
    raise UnsupportedOperationError(
        f"{self._interp.name}: x.dtype = {numpy.dtype(value)} on a traced {self.dtype} array "
        f"reinterprets its bytes in place, which is not supported under a transform; convert "
        f"the values with x = x.astype({numpy.dtype(value)})"
    )


# NOTE [the Python value a read gives]
# ------------------------------------
# ``bool(t)`` and ``int(t)`` of a 0-d number give fewer Python values than the number
# has: under ``vmap`` rows that give the same Python value need not be told apart.  So
# while they read, ``READ_KEY.key`` holds what the read keeps of a row's value (its truth,
# its truncation), and the lowest ``vmap`` level reads that instead of the number
# (``BatchTracer._concrete``): ``if count:`` with counts 0..9 splits into two groups, not
# nine, and ``int(x)`` of 1000 distinct floats into as many groups as there are integers
# among them, not 1000 (NOTE [splitting the batch] in ftransforms/split.py).  The level
# that applies it clears it, so a read nested in that read (a masked loop's bookkeeping)
# reads numbers.
class _ReadKey(threading.local):
    key: Any = None  # per thread: another thread's vmap reads numbers meanwhile


READ_KEY = _ReadKey()


# NOTE [the text of a tracer over a batch]
# -----------------------------------------
# ``str(t)`` of a tracer is its ``repr``, which shows what it stands for: ``grad``'s
# ``ReverseTracer(level=1, id=1, value=array([0.3, -1.2]))``.  Under ``vmap(grad(f))``
# the value is a batched tracer, whose ``repr`` shows the whole batch, where the loop over
# the rows prints the row's.  So while ``str()`` writes a tracer, ``ROW_TEXT.on`` is set
# and a batched value of a live ``vmap`` in it writes its row's ``repr``
# (``BatchTracer.__repr__``: rows whose texts differ split the batch, as ``str`` of the
# batched value itself does).  ``repr(x[0])`` and ``f"{x!r}"`` in the function's own code
# write the row's ``repr`` too (``np.float64(0.3)``, the loop's NumPy scalar: a text used
# as a dict key or compared is the row's); called from ftransforms, NumPy, SciPy or a
# debugger (``pdb``, ``traceback``, IPython: the caller's module says which; of the
# ``repr`` of grad's tracer over the batch, that repr's caller), under
# ``split=False``, or on a tracer whose ``vmap`` has returned, ``repr`` stays the
# debugging form that shows the batch.
class _RowText(threading.local):
    on = False  # per thread: another thread's repr shows its batch meanwhile


ROW_TEXT = _RowText()


def truth_of(c: Any) -> Any:
    return c != 0  # NaN is true, as bool(nan) is


def truncation_of(c: Any) -> Any:
    return numpy.trunc(c) + 0.0  # int(-0.5) == int(0.5): -0.0 + 0.0 is 0.0


class Tracer:
    """An array-like value that belongs to one interpreter (``_interp``)."""

    # NOTE [mutation semantics] (core/mutation.py): every tracer class shares this one
    # layout (subclasses declare ``__slots__ = ()``), so that a write can turn a tracer
    # object into a tracer of another class in place (``obj.__class__ = Other``) and every
    # alias sees the new value.  ``_base``/``_views`` tie a view to its base.
    __slots__ = (
        "_interp",
        "val",
        "bdim",
        "primal",
        "tangent",
        "value",
        "id",
        "ref",
        "_base",
        "_views",
        "__weakref__",
    )
    __array_priority__ = 1000

    # NOTE [dtype hidden from NumPy's casts]: the frame check costs every ``.dtype`` read,
    # and rules read dtypes on every operator, so it is installed only once a tracer has
    # been turned into an object array (the first ``__array__``); before that ``.dtype``
    # is the subclass's plain property.
    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        TRACER_TYPES.add(cls)
        if _OBJECT_ARRAYS_MADE[0]:
            _hide_dtype_in_subclasses(cls)
        own = cls.__dict__.get("shape")
        if isinstance(own, property) and own.fset is None:
            cls.shape = own.setter(_set_shape)  # ``t.shape = (2, 3)``, as NumPy allows
        own = cls.__dict__.get("dtype")
        if isinstance(own, property) and own.fset is None:
            cls.dtype = own.setter(_set_dtype)  # a clear error, not "no setter"

    # -- subclasses provide -------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:  # pragma: no cover
        raise NotImplementedError

    @property
    def dtype(self) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _concrete(self) -> Any:
        """The concrete array this tracer stands for, when it has a single one."""
        raise NotImplementedError  # pragma: no cover

    def _physical(self) -> Any:
        """The backend array at the bottom of the tracer (batch axes included)."""
        raise NotImplementedError  # pragma: no cover

    # -- array attributes -----------------------------------------------------------------

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array (a tracer of shape ())")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:  # at iter(), as NumPy: np.iterable(t) is False for a 0-d one
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self)))

    # -- conversions ----------------------------------------------------------------------

    #: The fix named when a tracer is converted to a Python number or a NumPy array.
    _conversion_fix = (
        "Keep it as an array (fnp.* works on 0-d arrays), or convert fnp.stop_gradient(x) "
        "if the number is only for control flow or printing."
    )

    #: NOTE [buffers after their transform]: a tracer that stands for a plain array (a
    #: buffer: an array made inside the function, or a copy of an argument that is not
    #: transformed, which holds no derivative and no batch) stays readable after its
    #: transform returned, as that array: a closure that keeps it (``custom_root``'s ``f``,
    #: re-run by the backward pass; a callback) computes with its values.  Other tracers
    #: raise :class:`EscapedTracerError` then.  Checked only once a transform has returned.
    _plain_after_scope = False

    def _check_live(self, use: str) -> None:
        """Raise :class:`EscapedTracerError` if this tracer's transform has returned."""
        if not self._interp.active and not self._plain_after_scope:
            raise escaped_error(self, use)

    def _plain_method_error(self, owner: str, method: str, made: str) -> TracerConversionError:
        """``X.take(t)`` with a plain NumPy array ``X`` (NOTE [methods of plain arrays on
        tracers]): NumPy's C method converts ``t`` to ``made``, which cannot hold it."""
        return TracerConversionError(
            f"{self._interp.name}: {owner}.{method}(...) of the NumPy array {owner} with a "
            f"traced argument: NumPy's method converts it to {made}, which cannot hold what "
            f"the transform tracks (its derivative or its batch).  Write np.{method}({owner}, "
            f"...) (NumPy hands the tracer to the transform there) or fnp.{method}."
        )

    def _scalar_type_error(self, dtype: numpy.dtype) -> TracerConversionError:
        """``np.float64(t)`` (``fnp.float64`` is NumPy's type) where the number of ``t``
        cannot be read: a NumPy scalar or plain array cannot hold what is tracked."""
        return TracerConversionError(
            f"{self._interp.name}: numpy.{dtype.type.__name__}(x) of a traced array makes a "
            f"NumPy {dtype} scalar (or plain array), which cannot hold what the transform "
            f"tracks (its derivative or its batch); fnp.{dtype.type.__name__} is NumPy's "
            f"type too.  Convert with x.astype(numpy.{dtype.type.__name__}) or "
            f"fnp.asarray(x, dtype=numpy.{dtype.type.__name__}) (a traced 0-d array)."
        )

    def _conversion_error(self, what: str) -> TracerConversionError:
        self._check_live(what)
        cast = (
            "  (NumPy calls it too when it casts an array holding tracers to numbers, as in "
            "np.array([...]).astype(float): build such arrays with fnp.array([...], "
            "dtype=...).)"
            if what in ("float()", "complex()", "int()")
            else ""
        )
        return TracerConversionError(
            f"{self._interp.name}: {what} on a tracer would drop what the transform tracks "
            f"(its derivative or its batch).  {self._conversion_fix}{cast}"
        )

    def __bool__(self) -> bool:
        self._check_live("bool()")
        try:
            if self.ndim or self.dtype.kind == "b":
                return bool(self._concrete())
            READ_KEY.key = truth_of  # NOTE [the Python value a read gives]
            try:
                return bool(self._concrete())
            finally:
                READ_KEY.key = None
        except BatchedControlFlowError as err:
            if not _called_from_numpy(1):
                raise
            raise BatchedControlFlowError(
                f"{err}  (Here NumPy itself compared the elements of an object array "
                f"holding tracers, as np.max/np.min/np.sort/np.argmax of np.array([...]) "
                f"do: build the array with fnp.array([...]) so that its rules apply.)"
            ) from None

    def __str__(self) -> str:
        """``str(t)``, ``print(t)``: the ``repr``, with a batched value in it written as its
        row's (NOTE [the text of a tracer over a batch])."""
        if ROW_TEXT.on:
            return repr(self)
        ROW_TEXT.on = True
        try:
            return repr(self)
        finally:
            ROW_TEXT.on = False

    def _python_kind(self) -> type | None:
        """The Python number type this value stands for (a masked ``while`` loop's counter
        made batched at the loop's exit: ``int``, ``float``), whose dtype NumPy takes as
        weak (``np.result_type(n, np.float32)`` is float32), or None for an array."""
        return None

    def _generator_parameter_error(self, drawing: str) -> Exception:
        """NOTE [traced parameters of a held generator]: ``rng.normal(loc=t)`` hands a
        tracer to NumPy's C generator, which can only convert it to float64 (losing the
        batch or the derivative).  Under a vmap with randomness='error' that is a random
        operation like any other (RandomnessError, as torch.func raises for
        ``torch.normal(mean=batched)``); elsewhere the error names the two forms that
        work: the noise drawn alone and combined with the parameter (then the vmap's
        randomness rule applies to the draw), or ``ftransforms.random``'s functions,
        which take traced parameters.  (A generator made inside the function by
        ``np.random.default_rng`` and NumPy's global functions take traced parameters of
        ``normal``/``uniform``/``exponential``/``lognormal``/``laplace``/``logistic``/
        ``gumbel``/``rayleigh``/``gamma``/``weibull``/``choice``: NOTE [draws with traced
        parameters] in ftransforms/numpy/generator_out.py.)"""
        method = drawing.rsplit(".", 1)[1]
        ours = method if method in ("normal", "uniform", "integers", "choice") else None
        fix = (
            "draw the noise alone and combine it with the parameter (loc + scale * "
            "rng.standard_normal(np.shape(loc)), low + (high - low) * "
            "rng.random(np.shape(low)))"
            + (
                f", or use ft.random.{ours}({drawing.rsplit('.', 1)[0]}, ...), which takes "
                "traced parameters"
                if ours
                else ""
            )  # fmt: skip
        )
        for interp in reversed(current_stack()):
            if getattr(interp, "randomness", None) == "error":
                return RandomnessError(
                    f"{interp.name}: {drawing}(...) draws random numbers, and random "
                    f"operations are disallowed under vmap(randomness='error') (the "
                    f"default).  Pass randomness='different' (an independent draw per batch "
                    f"element) or randomness='same' (one draw shared by the whole batch) to "
                    f"vmap (or to jacfwd); and as NumPy's generator cannot take a traced "
                    f"parameter, {fix}."
                )
        return TracerConversionError(
            f"{self._interp.name}: {drawing}(...) was given a traced parameter, which "
            f"NumPy's generator converts to a float64 array that cannot hold what the "
            f"transform tracks (its derivative or its batch); {fix}."
        )

    def _stored_into_array(self, dummy: Any = None) -> Any:
        """NumPy converts this tracer to store it into a plain array (``a[i] = t``): where
        that array is private to the writing function, it became a buffer holding the write
        (NOTE [traced writes into private NumPy arrays]) and NumPy finishes its own store
        into the old array with ``dummy`` (None: zeros of this shape and its dtype); else
        the InPlaceError."""
        if PRIVATE_STORE:
            dtype = PRIVATE_STORE[0](self, sys._getframe(2), dummy is not None)
            if dtype is not None:
                return numpy.zeros(self.shape, dtype=dtype) if dummy is None else dummy
        raise self._written_into_array_error()

    def _written_into_array_error(self) -> InPlaceError:
        self._check_live("a[i] = t")
        name = _stored_array_name(3)
        what = f"the NumPy array {name!r}" if name else "a NumPy array"
        return InPlaceError(
            f"{self._interp.name}: a[i] = t writes a traced value (a tracer) into {what} "
            f"that something outside the function may see (a global, a closure variable, an "
            f"attribute, an untransformed argument, a view, an alias or a container holding "
            f"it, the constructor np.ndarray(shape) in library code), or through an index "
            f"that cannot be evaluated again without side effects: it cannot hold what the "
            f"transform tracks (its derivative or its batch), and writing into it would "
            f"change data outside the function.  A plain array that only one local variable "
            f"of your function holds takes the write (x0 = init.copy(); x0[i] = t), as do "
            f"arrays made inside the function with np.zeros/np.empty/np.full/np.array(...)/"
            f"np.copy(a); or use the functional form a = fnp.at(a)[i].set(t)."
            + (
                f"  (This {self.dtype} tracer may be the store's index: a traced index is "
                f"taken where the index is a variable, a tuple of variables or a call of "
                f"np.arange/range/len/np.ix_ (a[y] = v, a[np.arange(n), y] -= 1); compute "
                f"another index expression into a variable first (i = y[:2]; a[i] = v).)"
                if self.dtype.kind in "iub"
                else ""
            )
        )

    def _filled_into_array_error(self) -> InPlaceError:
        self._check_live("a.fill(t)")
        return InPlaceError(
            f"{self._interp.name}: a.fill(t) writes a traced value (a tracer) into a plain "
            f"NumPy array with NumPy's own fill, which converts it to a number: the array "
            f"cannot hold what the transform tracks (its derivative or its batch).  Write "
            f"a[...] = t instead (an array only your function holds takes it: x0 = "
            f"init.copy(); x0[...] = t), make the array inside the function with "
            f"np.zeros/np.full/np.array(...), or build a new one: a = fnp.full_like(a, t)."
        )

    #: Whether the tracer carries nothing but its value (``jit``'s recording tracer):
    #: ``float()`` of it reads the value as plain NumPy does (NOTE [number conversions]).
    _value_only = False

    # NOTE [number conversions]: ``int()``, ``bool()``, ``float()`` and ``.item()`` read the
    # tracer's concrete value (``_concrete``) wherever no derivative is lost: a boolean or
    # integer tracer, ``int()`` of a floating one (piecewise constant: its zero derivative
    # is exact), and any conversion of a value-only tracer.  Under ``jit``'s recording the
    # read marks the trace as value-dependent (NOTE [value-dependent traces]), so a
    # recording never replays a stale number; under ``vmap`` a batched value has no single
    # number and ``_concrete`` raises.  ``float()``/``complex()``/``.item()`` of a floating
    # value that a transform differentiates raise: the number would drop the derivative.
    def _reads_as_number(self) -> bool:
        return self._value_only or self.dtype.kind in "biu"

    def __float__(self) -> float:
        if _storing_into_an_array(1):
            return self._stored_into_array(0.0)
        if self._reads_as_number():
            self._check_live("float()")
            return float(self._concrete())
        scipy_caller = _scipy_caller(1)
        if scipy_caller is not None:  # QUADPACK's float() of an integrand's value
            raise self._scipy_conversion_error(*scipy_caller, "converts a value with float()")
        if _filling_an_array(1):
            raise self._filled_into_array_error()
        raise self._conversion_error("float()")

    def __complex__(self) -> complex:
        if _storing_into_an_array(1):
            return self._stored_into_array(0j)
        if self._reads_as_number():
            self._check_live("complex()")
            return complex(self._concrete())
        if _filling_an_array(1):
            raise self._filled_into_array_error()
        raise self._conversion_error("complex()")

    def __int__(self) -> int:
        kind = self.dtype.kind
        if kind not in "iub" and _storing_into_an_array(1):
            return self._stored_into_array(0)
        if kind == "c" and not self._value_only:
            raise self._conversion_error("int()")
        self._check_live("int()")
        if kind != "f" or self.ndim:
            return int(self._concrete())  # NOTE [number conversions]
        READ_KEY.key = truncation_of  # NOTE [the Python value a read gives]
        try:
            return int(self._concrete())
        finally:
            READ_KEY.key = None

    def __index__(self) -> int:
        if self.dtype.kind not in "iub":
            raise TypeError(
                f"{self._interp.name}: only integer scalar arrays can be converted to a "
                f"scalar index (a tracer of dtype {self.dtype}); convert it with int() or "
                f".astype(int) first."
            )
        self._check_live("an index")
        return int(self._concrete())

    def __format__(self, spec: str) -> str:
        """``f"{t:.3f}"`` of a 0-d tracer formats its value, as NumPy (and torch) do: a
        string drops no derivative; under ``vmap`` rows with different values split the
        batch, under ``jit`` the recording reads a value (NOTE [number conversions])."""
        if not spec:
            return str(self)
        if self.ndim:
            raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
        self._check_live("format()")
        return format(self._concrete().item(), spec)

    def item(self, *args: Any) -> Any:
        if not self._reads_as_number():
            raise self._conversion_error(".item()")
        self._check_live(".item()")
        return self._concrete().item(*args)

    #: A tracer with more elements than this, turned into an object array, warns (NumPy
    #: then computes element by element, in Python).
    object_array_warn_size = 64

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        """``np.array([t, 1.0])``, ``np.asarray(t)``: an object array of the tracer's shape
        whose elements are 0-d tracers, so NumPy's object loops compute through the
        tracers' operators (the transforms turn such arrays back into tracers)."""
        if _storing_into_an_array(1):
            if self.dtype.kind in "iub" and STORE_INDEX and STORE_INDEX[0](self, sys._getframe(1)):
                self._check_live("an index")
                return numpy.asarray(self._concrete())  # the store's index: its value
            return self._stored_into_array()
        self._check_live("numpy.asarray()")
        if self.dtype.itemsize != _OBJECT_ITEMSIZE and _called_by_as_strided(1):
            raise TracerConversionError(
                f"{self._interp.name}: numpy.lib.stride_tricks.as_strided of a traced "
                f"{self.dtype} array: it reads memory by byte strides, which would misread "
                f"the object array of tracers NumPy computes on ({_OBJECT_ITEMSIZE}-byte "
                f"elements, not {self.dtype.itemsize}).  Use "
                f"numpy.lib.stride_tricks.sliding_window_view (it works on tracers), or "
                f"gather the windows with an index array: x.ravel()[positions]."
            )
        if _indexing_with(1):
            if self.dtype.kind in "iub":
                # An integer/boolean index (np.eye(4)[np.argmax(t)]) has no derivative, so
                # its value may be used where it is a single one: under jit that marks the
                # recording as reading data (it then runs eagerly, never replaying a stale
                # index); under vmap, whose rows differ, it raises below.
                try:
                    return numpy.asarray(self._concrete())  # (NumPy wants an ndarray)
                except BatchedControlFlowError:
                    pass
            raise TracerConversionError(
                f"{self._interp.name}: a[t] with a NumPy array a and a tracer t as the index: "
                f"NumPy would turn the index into a plain array that the transform cannot see.  "
                f"Write fnp.getitem(a, t) (any index) or fnp.take(a, t, axis=0)."
            )
        if dtype is None and _scipy_sparse_dispatch(1):
            # NOTE [SciPy sparse operands] (numpy/sparse_operands.py): SciPy's dispatch
            # returns NotImplemented for a 0-d object array, so the tracer's reflected
            # operator computes L @ t
            out = numpy.empty(1, dtype=object)
            out[0] = self
            return out.reshape(())
        scipy_caller = _scipy_caller(1)
        if scipy_caller is not None:
            refusal = _scipy_refusal(scipy_caller, dtype)
            if refusal is not None:
                raise self._scipy_conversion_error(*scipy_caller, refusal)
            _warn_slow_scipy(self, *scipy_caller)
        elif dtype is not None and numpy.dtype(dtype).kind != "O":
            if _calling_a_numpy_scalar_type(1):
                # np.float64(t), np.int32(t), np.bool_(t): the number of a 0-d tracer,
                # read where float(t) / int(t) / bool(t) reads one (NOTE [number
                # conversions]); elsewhere (np.array([t, 1.0], dtype=float)) the error below
                kind = numpy.dtype(dtype).kind
                try:
                    if self.shape:
                        raise self._conversion_error("a NumPy scalar type")
                    number = (
                        int(self) if kind in "iu" else bool(self) if kind == "b" else self.item()
                    )
                except TracerConversionError:
                    raise self._scalar_type_error(numpy.dtype(dtype)) from None
                return numpy.asarray(number, dtype=dtype)
            drawing = _generator_method_called(1)
            if drawing is not None:
                raise self._generator_parameter_error(drawing) from None
            if self.dtype.kind == "b" and _masked_array_caller(1):
                # a traced mask given to numpy.ma (masked_array(v, mask=v > 0.6)): a mask
                # has no derivative and NumPy's masks are plain arrays, so its value is
                # read (NOTE [numpy.ma's masks of traced values]); under vmap rows whose
                # masks differ split the batch
                return numpy.asarray(self._concrete(), dtype=dtype)
            method = _plain_array_method(1)
            if method is not None:
                if self.dtype.kind in "iub" and numpy.dtype(dtype).kind in "iub":
                    # X.take(t), X.repeat(t): an integer argument has no derivative, so
                    # its value is read as an index a[t] reads it (above); under vmap the
                    # error below
                    try:
                        return numpy.asarray(self._concrete(), dtype=dtype)
                    except BatchedControlFlowError:
                        pass
                raise self._plain_method_error(*method, f"a plain {numpy.dtype(dtype)} array")
            raise TracerConversionError(
                f"{self._interp.name}: numpy.array(..., dtype={numpy.dtype(dtype)}) (or "
                f".astype) of a tracer or of a list holding one: a {numpy.dtype(dtype)} "
                f"NumPy array cannot hold what the transform tracks (its derivative or its "
                f"batch).  Use fnp.array([...], dtype=...) / fnp.asarray(x, dtype=...) "
                f"(ftransforms.numpy), or drop dtype= (an object array of tracers)."
            )
        if not _OBJECT_ARRAYS_MADE[0]:  # NOTE [dtype hidden from NumPy's casts]
            _OBJECT_ARRAYS_MADE[0] = True
            _hide_dtype_in_subclasses(Tracer)
        n = self.size
        if n > self.object_array_warn_size and scipy_caller is None and not _listed(1):
            method = _plain_array_method(1)
            how = (
                "numpy.array/numpy.asarray of a tracer or of a list holding one"
                if method is None
                else f"{method[0]}.{method[1]}(...), a method of the NumPy array "
                f"{method[0]}, converts its traced argument so"
            )
            fix = (
                "fnp.asarray(x) / fnp.array([...]) (ftransforms.numpy)"
                if method is None
                else f"np.{method[1]}({method[0]}, ...)"
                + (f" or {method[0]} @ x" if method[1] == "dot" else "")
                + " (NumPy hands the tracer to the transform there)"
            )
            warnings.warn(
                f"{self._interp.name}: a traced array of shape {self.shape} was turned into "
                f"a NumPy object array ({how}), so NumPy computes on it element by element "
                f"in Python.  Use {fix} to keep it fast.",
                ObjectArrayWarning,
                # the user's line: past the wrapper of np.array while a transform is active
                stacklevel=3
                if sys._getframe(1).f_globals.get("__name__") == "numpy._ftransforms_buffers"
                else 2,
            )
        out = numpy.empty(n, dtype=object)
        if not self.shape:
            out[0] = self  # an element of an object array is stored as it is
        elif copy is not True and _called_by_as_strided(1):
            if LAID_OUT_OBJECTS:  # a view, or an array, not in C order (core/mutation)
                laid_out = LAID_OUT_OBJECTS[0](self)
                if laid_out is not None:
                    return laid_out
            # NumPy's own as_strided (bound before the transform ran) reads the elements
            # through the windows it makes: 0-d views of the array, which a later write
            # into it regenerates (NOTE [mutation semantics]), so the windows see it
            for i, index in enumerate(numpy.ndindex(*self.shape)):
                out[i] = self[(*index, Ellipsis)]
        else:
            flat = self.reshape(-1) if self.ndim > 1 else self
            for i in range(n):
                out[i] = flat[i]
        out = out.reshape(self.shape)
        if copy is not True and scipy_caller is None and not _calling_permutation(1):
            # np.asarray(t) is t itself in NumPy: a write into it must reach t, which an
            # object array cannot do, so it refuses writes (NumPy's ValueError) instead of
            # dropping them; np.array(t) asks for a copy, which may be written (and so
            # may the array rng.permutation(t) shuffles: its result is a copy)
            out.flags.writeable = False
        return out

    def _scipy_conversion_error(
        self, module: str, function: str, why: str
    ) -> TracerConversionError:
        return TracerConversionError(
            f"{self._interp.name}: {module}.{function} {why}, so it cannot compute on a "
            f"tracer (SciPy's ufuncs, such as scipy.special.erf, and its Python functions "
            f"that compute with NumPy, such as scipy.optimize.rosen, can).  "
            f"{_scipy_fix(module, function)}"
        )

    def tolist(self) -> Any:
        if not self._reads_as_number():
            raise self._conversion_error(".tolist()")
        self._check_live(".tolist()")
        return self._concrete().tolist()  # NOTE [number conversions]

    # Writes (x[i] = v, x += v, ...) are installed by the NumPy layer: NOTE [mutation
    # semantics] in core/mutation.py.

    __hash__ = None  # type: ignore[assignment]


Tracer.shape = Tracer.shape.setter(_set_shape)


class ValTracer(Tracer):
    """A tracer whose value is ``val``, an array or a tracer of a lower level: its shape,
    dtype and arrays are ``val``'s.  (Subclasses add what their interpreter knows.)"""

    __slots__ = ()

    @property
    def shape(self) -> tuple[int, ...]:
        return self.val.shape

    @property
    def ndim(self) -> int:
        return self.val.ndim

    @property
    def dtype(self) -> Any:
        return self.val.dtype

    @property
    def size(self) -> int:
        return self.val.size

    def _concrete(self) -> Any:
        v = self.val
        return v._concrete() if isinstance(v, Tracer) else v

    def _physical(self) -> Any:
        v = self.val
        return v._physical() if isinstance(v, Tracer) else v


class PrimalTracer(Tracer):
    """A tracer that carries derivative information beside ``primal``, an array or a
    tracer of a lower level, whose shape, dtype and arrays are its own."""

    __slots__ = ()

    @property
    def shape(self) -> tuple[int, ...]:
        return self.primal.shape

    @property
    def ndim(self) -> int:
        return self.primal.ndim

    @property
    def dtype(self) -> Any:
        return self.primal.dtype

    def _concrete(self) -> Any:
        p = self.primal
        return p._concrete() if isinstance(p, Tracer) else p

    def _physical(self) -> Any:
        p = self.primal
        return p._physical() if isinstance(p, Tracer) else p
