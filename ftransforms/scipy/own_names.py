"""SciPy's own names answered by ``ftransforms.scipy`` while a transform is active.

NOTE [SciPy's own names under the transforms]: SciPy's Python functions convert their
inputs with ``numpy.asarray`` and hand them to compiled code or to SciPy ufuncs that have
no loop for an object array of tracers, so ``scipy.stats.norm.logpdf(t)`` or
``scipy.linalg.solve(A, t)`` cannot compute on a tracer (NOTE [SciPy's Python functions
on tracers] in ``core/tracer.py`` makes that a clear error naming the counterpart).  The
counterparts exist, with SciPy's signatures, so the names reached *through SciPy's modules
and distribution objects* call them while a transform is active on some thread
(``core/mutation.py``'s ``ACTIVE_THREADS``) and an argument holds a tracer:

* ``scipy.<module>.<name>(...)`` (the modules in :data:`MODULES`: special, linalg, signal,
  integrate, stats, fft, spatial.distance, ndimage, sparse.linalg, optimize's root
  finders) for each function whose counterpart takes every parameter SciPy's takes
  (SciPy's ufuncs dispatch by themselves; ``scipy.fft``'s uarray multimethods are
  wrapped like functions), a tracer in a function argument's closure counting
  (``scipy.integrate.quad(lambda x: np.exp(-k * x), 0, 1)``: NOTE [closure conversion]);
* every ``scipy.stats`` distribution's ``pdf``/``logpdf``/``cdf``/..., ``mean``/``var``/
  ``std``/``median``/``entropy`` and ``__call__`` (freezing), through the base classes
  (frozen distributions call them), when ``ftransforms.scipy.stats`` has that
  distribution; and the multivariate ones it has;
* the ``__call__`` of ``scipy.interpolate``'s interpolators built from plain data
  (``interp1d``, ``CubicSpline`` and the ``PPoly`` family, ``BSpline``,
  ``UnivariateSpline``, ``RegularGridInterpolator``) at traced points.

The wrappers are installed once, when the first outermost transform call finds the SciPy
module imported (ftransforms never imports SciPy for it), and stay: swapping them in and
out per transform call cost 30-40 us a call with ``scipy.stats`` imported (setting a
class attribute invalidates the caches of its hundred subclasses), which every
``grad`` of a scalar function paid.  Outside the transforms a wrapper reads one counter
and calls SciPy's own function (about 0.1 us on calls that take microseconds); so do
calls without a tracer inside them.  A wrapper carries SciPy's name, signature and
``__wrapped__``, and replaces the function in its defining module too, so it pickles by
reference as SciPy's did.  A name bound before the first transform ran (``from
scipy.spatial.distance import pdist`` at the top of a module) is SciPy's function object
itself: NOTE [SciPy's function objects bound before the first transform] redirects it.

Example:
    >>> import numpy as np
    >>> import scipy.stats
    >>> import ftransforms as ft
    >>> g = ft.grad(lambda mu: scipy.stats.norm.logpdf(np.array([0.5, 1.5]), loc=mu).sum())
    >>> float(g(1.0))  # d/dmu of -(x - mu)**2 / 2, summed
    0.0
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import threading
import types
from typing import Any

import numpy

from ftransforms.closures import closure_tracers
from ftransforms.core.mutation import ACTIVE_THREADS
from ftransforms.core.stack import OUTERMOST_HOOKS
from ftransforms.core.tracer import takes_every_parameter
from ftransforms.numpy.helpers import holds_tracer

#: SciPy's submodules whose functions may be answered here (a function only where its
#: counterpart takes all of SciPy's parameters).
MODULES = (
    "special",
    "linalg",
    "signal",
    "integrate",
    "stats",
    "fft",
    "spatial.distance",
    "ndimage",
    "sparse.linalg",
    "interpolate",  # its interpolators' __call__ (below); ours are classes
    "optimize",  # the root finders; minimize's counterpart takes JAX's subset: not patched
)

#: The distribution methods answered by the counterpart distribution.
DIST_METHODS = (
    "pdf",
    "logpdf",
    "cdf",
    "logcdf",
    "sf",
    "logsf",
    "ppf",
    "isf",
    "pmf",
    "logpmf",
    "__call__",
    "freeze",
    "mean",
    "var",
    "std",
    "median",
    "entropy",
)

_DONE: set[str] = set()
_INSTALLED: set[Any] = set()  # the wrappers (a name re-exported elsewhere is wrapped once)
_LOCK = threading.Lock()
_MODULES_SEEN = [0]  # len(sys.modules) at the last check: no new module, nothing to do


def _holds(value: Any) -> bool:
    """Whether ``value`` holds a tracer, a function included (one in its closure, as
    ``quad(lambda x: np.exp(-k * x), 0, 1)`` under ``grad`` in ``k``)."""
    if holds_tracer(value):
        return True
    return callable(value) and not isinstance(value, type) and bool(closure_tracers(value))


def _traced(args: tuple, kwargs: dict) -> bool:
    return any(_holds(a) for a in args) or any(_holds(v) for v in kwargs.values())


def _function(theirs: Any, ours: Any) -> Any:
    @functools.wraps(theirs)
    def call(*args: Any, **kwargs: Any) -> Any:
        if ACTIVE_THREADS[0] and _traced(args, kwargs):
            return ours(*args, **kwargs)
        return theirs(*args, **kwargs)

    return call


def _method(theirs: Any, method: str, counterpart: Any = None) -> Any:
    """``theirs`` (a distribution method), answered by the counterpart distribution (of
    the same ``name``, or ``counterpart``) when an argument holds a tracer."""
    stats = importlib.import_module("ftransforms.scipy.stats")

    @functools.wraps(theirs)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if ACTIVE_THREADS[0] and _traced(args, kwargs):
            ours = counterpart or getattr(stats, getattr(self, "name", ""), None)
            if ours is not None:
                if method in ("__call__", "freeze"):
                    return ours(*args, **kwargs)
                fn = getattr(ours, method, None)
                if fn is not None:
                    return fn(*args, **kwargs)
        return theirs(self, *args, **kwargs)

    return call


# NOTE [SciPy's function objects bound before the first transform]: a module that ran
# ``from scipy.linalg import cho_solve`` (scikit-learn's, a user's) before any transform
# holds SciPy's function object, not the module attribute that the wrappers replace.  So
# that such a name is answered too, the object itself is redirected: SciPy's code moves to
# a copy of the function (its globals, defaults and closure), which the wrapper calls, and
# the object's ``__code__`` becomes a trampoline's whose keyword-only default is the
# wrapper (``__signature__`` keeps SciPy's signature for ``inspect``, ``__wrapped__`` is
# the copy).  Python accepts a new ``__code__`` with as many free variables as the
# function's closure has cells (SciPy's decorated functions have some), so there is one
# trampoline per count, whose free variables are never read.  Every holder of the object
# then calls the wrapper; outside the transforms that costs one more Python call.
_REDIRECTED: dict[Any, Any] = {}  # SciPy's function object -> the wrapper it calls
_TRAMPOLINES: dict[int, Any] = {}  # number of closure cells -> the trampoline's code


def _trampoline_code(cells: int) -> Any:
    code = _TRAMPOLINES.get(cells)
    if code is None:
        names = [f"_cell{i}" for i in range(cells)]
        source = "def cells():\n"
        source += "".join(f"    {n} = None\n" for n in names) or "    pass\n"
        source += "    def trampoline(*args, _ftransforms_wrapper_, **kwargs):\n"
        if names:  # (never true: the names only make them free variables)
            source += f"        if _ftransforms_wrapper_ is None: return ({', '.join(names)},)\n"
        source += "        return _ftransforms_wrapper_(*args, **kwargs)\n"
        source += "    return trampoline\n"
        namespace: dict[str, Any] = {}
        exec(compile(source, "<ftransforms redirect>", "exec"), namespace)  # noqa: S102
        code = _TRAMPOLINES[cells] = namespace["cells"]().__code__
    return code


def _redirectable(theirs: Any) -> bool:
    return inspect.isfunction(theirs) and theirs.__code__.co_filename != "<ftransforms redirect>"


def _copy_of(theirs: Any) -> Any:
    """A new function object running ``theirs``'s code (NOTE [SciPy's function objects
    bound before the first transform])."""
    copy = types.FunctionType(
        theirs.__code__,
        theirs.__globals__,
        theirs.__name__,
        theirs.__defaults__,
        theirs.__closure__,
    )
    copy.__kwdefaults__ = theirs.__kwdefaults__
    copy.__qualname__, copy.__module__ = theirs.__qualname__, theirs.__module__
    copy.__doc__ = theirs.__doc__
    copy.__dict__.update(theirs.__dict__)
    return copy


def _redirect(theirs: Any, copy: Any, wrapper: Any) -> None:
    signature = inspect.signature(theirs)
    theirs.__wrapped__ = copy  # (SciPy's own code, which raises the clear error on tracers)
    theirs.__code__ = _trampoline_code(len(theirs.__closure__ or ()))
    theirs.__defaults__ = None
    theirs.__kwdefaults__ = {"_ftransforms_wrapper_": wrapper}
    theirs.__signature__ = signature
    _REDIRECTED[theirs] = wrapper


def _install_in_class(cls: type, wrappers: dict) -> None:
    for name, wrapper in wrappers.items():
        setattr(cls, name, wrapper)


def _install_in_module(module: Any, wrappers: dict, originals: dict) -> None:
    """``wrappers`` in ``module``'s namespace, and in each function's defining module where
    that holds the same object (so that pickle finds the wrapper by its name)."""
    for name, wrapper in wrappers.items():
        theirs = originals[name]
        module.__dict__[name] = wrapper
        _INSTALLED.add(wrapper)
        home = sys.modules.get(getattr(theirs, "__module__", None) or "")
        qualname = getattr(theirs, "__qualname__", name)
        if home is not None and "." not in qualname and home.__dict__.get(qualname) is theirs:
            home.__dict__[qualname] = wrapper


def _patch_module(name: str) -> None:
    theirs_mod = sys.modules[f"scipy.{name}"]
    ours_mod = importlib.import_module(f"ftransforms.scipy.{name}")
    wrappers, originals = {}, {}
    for public in getattr(ours_mod, "__all__", ()):
        theirs = theirs_mod.__dict__.get(public)
        ours = getattr(ours_mod, public, None)
        # scipy.fft's functions are uarray multimethods, not Python functions
        dispatched = type(theirs).__module__ == "uarray"
        if not (inspect.isfunction(theirs) or dispatched) or ours is None or isinstance(ours, type):
            continue  # ufuncs dispatch by themselves; distributions are patched below
        if isinstance(ours, numpy.ufunc) or theirs in _INSTALLED or theirs in _REDIRECTED:
            continue  # (re-exported)
        if not takes_every_parameter(theirs, ours, unknown=False):
            continue
        copy = _copy_of(theirs) if _redirectable(theirs) else None
        wrapper = _function(theirs if copy is None else copy, ours)
        wrappers[public], originals[public] = wrapper, theirs
        if copy is not None:  # NOTE [SciPy's function objects bound before the first transform]
            _redirect(theirs, copy, wrapper)
    _install_in_module(theirs_mod, wrappers, originals)


def _patch_distributions() -> None:
    stats = sys.modules["scipy.stats"]
    ours = importlib.import_module("ftransforms.scipy.stats")
    classes: list[tuple[type, Any]] = [(stats.rv_continuous, None), (stats.rv_discrete, None)]
    for name in getattr(ours, "__all__", ()):
        obj = getattr(stats, name, None)
        if obj is not None and not isinstance(obj, (stats.rv_continuous, stats.rv_discrete)):
            # multivariate_normal, dirichlet, multinomial: one instance of their own class
            classes.append((type(obj), getattr(ours, name)))
    done: set[tuple[type, str]] = set()
    for cls, counterpart in classes:
        for method in DIST_METHODS:
            # the class that defines it (rv_generic for mean, var, ..., entropy)
            home = next((k for k in cls.__mro__ if method in k.__dict__), None)
            theirs = None if home is None else home.__dict__[method]
            if inspect.isfunction(theirs) and (home, method) not in done:
                done.add((home, method))
                # (a bound method made before the first transform: NOTE above)
                copy = _copy_of(theirs) if _redirectable(theirs) else None
                wrapper = _method(theirs if copy is None else copy, method, counterpart)
                if copy is not None:
                    _redirect(theirs, copy, wrapper)
                _install_in_class(home, {method: wrapper})


def _patch_interpolators() -> None:
    """The ``__call__`` of SciPy's interpolators built from plain data (``interp1d``, the
    ``PPoly`` family with ``CubicSpline``, ``BSpline`` through ``PPoly.from_spline``,
    ``RegularGridInterpolator``), answered by ``ftransforms.scipy.interpolate``'s
    evaluation when the query points hold a tracer."""
    theirs_mod = sys.modules["scipy.interpolate"]
    ours = importlib.import_module("ftransforms.scipy.interpolate")
    ppoly_base = next(c for c in theirs_mod.PPoly.__mro__ if "__call__" in c.__dict__)
    interp1d_base = next(c for c in theirs_mod.interp1d.__mro__ if "__call__" in c.__dict__)

    def as_ppoly(self: Any) -> Any:
        return self if isinstance(self, theirs_mod.PPoly) else None

    def from_spline(self: Any) -> Any:
        if not isinstance(self, theirs_mod.BSpline):
            return None
        return theirs_mod.PPoly.from_spline(self, self.extrapolate)

    def from_fitpack(self: Any) -> Any:  # UnivariateSpline and its subclasses: (t, c, k)
        if not isinstance(self, theirs_mod.UnivariateSpline) or getattr(self, "ext", 0) != 0:
            return None  # (ext 1-3 are not extrapolation: SciPy's own then refuses)
        return theirs_mod.PPoly.from_spline(self._eval_args, True)

    def as_interp1d(self: Any) -> Any:
        return self if isinstance(self, theirs_mod.interp1d) else None

    def as_grid(self: Any) -> Any:
        return self if isinstance(self, theirs_mod.RegularGridInterpolator) else None

    targets = (
        (ppoly_base, "PPoly", as_ppoly),
        (theirs_mod.BSpline, "PPoly", from_spline),
        (theirs_mod.UnivariateSpline, "PPoly", from_fitpack),
        (interp1d_base, "interp1d", as_interp1d),
        (theirs_mod.RegularGridInterpolator, "RegularGridInterpolator", as_grid),
    )
    for cls, kind, convert in targets:
        theirs = cls.__dict__["__call__"]

        def call(self, *args, _theirs=theirs, _kind=kind, _convert=convert, **kwargs):
            if ACTIVE_THREADS[0] and _traced(args, kwargs):
                instance = _convert(self)
                if instance is not None:
                    return ours.scipy_instance_call(_kind, instance, args, kwargs)
            return _theirs(self, *args, **kwargs)

        functools.update_wrapper(call, theirs)
        _install_in_class(cls, {"__call__": call})


def _entered(interp: Any) -> None:  # noqa: ARG001
    """Install the wrappers of the SciPy modules imported since the last check."""
    if len(_DONE) == len(MODULES) or len(sys.modules) == _MODULES_SEEN[0]:
        return
    with _LOCK:
        _MODULES_SEEN[0] = len(sys.modules)
        for name in MODULES:
            if name not in _DONE and f"scipy.{name}" in sys.modules:
                _DONE.add(name)
                _patch_module(name)
                if name == "stats":
                    _patch_distributions()
                if name == "interpolate":
                    _patch_interpolators()


OUTERMOST_HOOKS.insert(0, (_entered, lambda: None))
