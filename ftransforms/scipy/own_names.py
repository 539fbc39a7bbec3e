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
  integrate, stats, fft, spatial.distance, spatial, ndimage, sparse.linalg, cluster.vq,
  optimize's root finders, minimizers and fits) for each function whose counterpart takes
  every parameter SciPy's takes (or is listed in that module's ``SCIPY_SIGNATURES``)
  (SciPy's ufuncs dispatch by themselves; ``scipy.fft``'s uarray multimethods and
  ``scipy.special``'s ``MultiUFunc`` objects are wrapped like functions), a tracer in a
  function argument's closure counting
  (``scipy.integrate.quad(lambda x: np.exp(-k * x), 0, 1)``: NOTE [closure conversion]);
* every ``scipy.stats`` distribution's ``pdf``/``logpdf``/``cdf``/..., ``mean``/``var``/
  ``std``/``median``/``entropy`` and ``__call__`` (freezing), through the base classes
  (frozen distributions call them), when ``ftransforms.scipy.stats`` has that
  distribution; and the multivariate ones it has (a frozen ``multivariate_normal`` of
  plain parameters at a traced point too: ``_patch_frozen_multivariate``);
* ``scipy.spatial.transform.Rotation``'s constructors at tracers, its ``apply`` and
  ``mean`` at traced vectors or weights, and ``Slerp`` (``_patch_rotations``);
* ``scipy.stats.gaussian_kde`` made from traced data, and the densities of one made
  from plain data at traced points;
* the ``__call__`` of ``scipy.interpolate``'s interpolators built from plain data
  (``interp1d``, ``CubicSpline`` and the ``PPoly`` family, ``BSpline``,
  ``UnivariateSpline``, ``RegularGridInterpolator``) at traced points, and their
  ``integrate`` between traced bounds (extrapolating ones);
* ``scipy.spatial.KDTree.query`` at traced points (differentiable distances), and
  ``ConvexHull`` of traced points (``volume``/``area`` differentiable);
* ``scipy.sparse.linalg.LinearOperator``'s products (``matvec``, ``matmat``, ``dot``,
  so ``op @ x``) with a traced operand;
* the construction of ``scipy.interpolate``'s interpolators from traced data (their
  ``__new__``: NOTE [SciPy's interpolators on traced data] in ``interpolate_data.py``).

The wrappers are installed once, when the first outermost transform call finds the SciPy
module imported, or as soon as it is imported after that (NOTE [SciPy modules imported
while a transform runs]; ftransforms never imports SciPy for it), and stay: swapping them in and
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
import importlib.machinery
import inspect
import sys
import threading
import types
from collections.abc import Callable
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
    "spatial",  # distance_matrix, minkowski_distance
    "ndimage",
    "sparse.linalg",
    "sparse",  # diags/spdiags of traced values: a clear error
    "cluster.vq",
    "spatial.transform",  # its Rotation and Slerp (below); ours are classes
    "interpolate",  # its interpolators' __call__ (below); ours are classes
    "optimize",  # the root finders, minimizers and fits (minimize: SCIPY_SIGNATURES)
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
    "fit",
    "expect",
    "interval",
    "stats",
    "moment",
    "cov",
)

_DONE: set[str] = set()
_INSTALLED: set[Any] = set()  # the wrappers (a name re-exported elsewhere is wrapped once)
_LOCK = threading.RLock()  # (a patch may import a SciPy module that the finder patches)
_MODULES_SEEN = [0]  # len(sys.modules) at the last check: no new module, nothing to do


def _holds(value: Any) -> bool:
    """Whether ``value`` holds a tracer, a function included (one in its closure, as
    ``quad(lambda x: np.exp(-k * x), 0, 1)`` under ``grad`` in ``k``)."""
    if holds_tracer(value):
        return True
    sparse_linalg = sys.modules.get("scipy.sparse.linalg")
    operator = getattr(sparse_linalg, "LinearOperator", None)
    if operator is not None and isinstance(value, operator):
        return _operator_traced(value, operator)  # (its matvec may close over a tracer)
    if not callable(value) or isinstance(value, type):
        return False
    if bool(closure_tracers(value)):
        return True
    state = getattr(value, "__dict__", None)  # a callable object: quad(F(k), 0, 1)
    return (
        not isinstance(value, types.FunctionType | types.MethodType)
        and isinstance(state, dict)
        and any(holds_tracer(v) for v in state.values())
    )


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
    signatures = getattr(ours_mod, "SCIPY_SIGNATURES", {})  # (minimize: JAX's signature)
    for public in getattr(ours_mod, "__all__", ()):
        theirs = theirs_mod.__dict__.get(public)
        ours = signatures.get(public) or getattr(ours_mod, public, None)
        # scipy.fft's functions are uarray multimethods, not Python functions; some of
        # scipy.special's (sph_harm_y) are MultiUFunc objects with no signature to compare
        dispatched = type(theirs).__module__ == "uarray"
        multi = type(theirs).__name__ == "MultiUFunc"
        listed = public in signatures and callable(theirs)  # (a compiled one too)
        if not (inspect.isfunction(theirs) or dispatched or listed or multi) or ours is None:
            continue  # ufuncs dispatch by themselves; distributions are patched below
        if isinstance(ours, (type, numpy.ufunc)) or theirs in _INSTALLED or theirs in _REDIRECTED:
            continue  # (re-exported)
        if not (listed or multi) and not takes_every_parameter(theirs, ours, unknown=False):
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
        elif obj is not None:  # a method its class defines anew (norm_gen.fit)
            classes.append((type(obj), None))
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


#: SciPy's frozen multivariate classes (``scipy.stats._multivariate``) -> the counterpart's
#: name and the frozen parameters, as the counterpart's positional arguments after ``x``.
_FROZEN_MULTIVARIATE: dict[str, tuple[str, Callable[[Any], tuple]]] = {
    "multivariate_normal_frozen": (
        "multivariate_normal",
        lambda f: (f.mean, f.cov, f.allow_singular),
    ),
}  # (dirichlet's and multinomial's frozen densities call their generator's, patched above)


def _patch_frozen_multivariate() -> None:
    """The densities of SciPy's frozen multivariate distributions made from plain
    parameters (``multivariate_normal(mean, cov).logpdf(x)``) at a traced ``x``: they
    compute with their own precomputed factors, not through the methods patched above, so
    each asks the counterpart with its frozen parameters (the cdf with its ``maxpts``,
    ``abseps`` and ``releps``)."""
    module = sys.modules.get("scipy.stats._multivariate")
    ours = importlib.import_module("ftransforms.scipy.stats")
    for cls_name, (name, params) in _FROZEN_MULTIVARIATE.items():
        cls = getattr(module, cls_name, None)
        counterpart = getattr(ours, name, None)
        if cls is None or counterpart is None:
            continue
        wrappers = {}
        for method in ("pdf", "logpdf", "cdf", "logcdf"):
            theirs = cls.__dict__.get(method)
            fn = getattr(counterpart, method, None)
            if inspect.isfunction(theirs) and fn is not None:
                wrappers[method] = _frozen_method(theirs, fn, params, method)
        _install_in_class(cls, wrappers)


def _frozen_method(theirs: Any, fn: Any, params: Callable[[Any], tuple], method: str) -> Any:
    @functools.wraps(theirs)
    def call(self: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if ACTIVE_THREADS[0] and _traced((x, *args), kwargs):
            if method in ("cdf", "logcdf"):  # (SciPy's frozen cdf takes keywords only)
                extra = (self.maxpts, self.abseps, self.releps)
                return fn(x, *params(self), *extra, *args, **kwargs)
            return fn(x, *params(self), *args, **kwargs)
        return theirs(self, x, *args, **kwargs)

    return call


def _patch_kde() -> None:
    """``scipy.stats.gaussian_kde`` on tracers: built from traced data (or a traced
    bandwidth or weights) it is ``ftransforms.scipy.stats.gaussian_kde`` (the class's
    ``__new__`` answers with ours, so SciPy's ``__init__`` does not run); an estimate of
    plain data evaluated at traced points is evaluated by ours, made from its dataset,
    weights and factor."""
    theirs = sys.modules["scipy.stats"].gaussian_kde
    ours = importlib.import_module("ftransforms.scipy.stats").gaussian_kde

    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        if cls is theirs and ACTIVE_THREADS[0] and _traced(args, kwargs):
            return ours(*args, **kwargs)
        return object.__new__(cls)

    theirs.__new__ = new
    methods = ("evaluate", "__call__", "pdf", "logpdf", "integrate_gaussian", "integrate_box_1d")
    for name in methods:
        method = theirs.__dict__.get(name)
        if not inspect.isfunction(method):
            continue

        def call(self: Any, *args: Any, _method: Any = method, _name: str = name, **kwargs: Any):
            if ACTIVE_THREADS[0] and _traced(args, kwargs):
                twin = ours(self.dataset, bw_method=self.factor, weights=self.weights)
                return getattr(twin, _name)(*args, **kwargs)
            return _method(self, *args, **kwargs)

        functools.update_wrapper(call, method)
        _install_in_class(theirs, {name: call})


def _patch_rotations() -> None:
    """``scipy.spatial.transform``'s ``Rotation`` and ``Slerp`` on tracers: the
    constructors (``from_quat``, ``from_matrix``, ``from_rotvec``, ``from_mrp``,
    ``from_euler``) given a tracer make ours; ``apply`` and ``mean`` of a SciPy rotation
    at traced vectors or weights run on ours of the same quaternions; ``Slerp`` of our
    rotations is ours, and a SciPy ``Slerp`` at traced times interpolates with ours."""
    module = sys.modules["scipy.spatial.transform"]
    theirs, theirs_slerp = module.Rotation, module.Slerp
    ours_mod = importlib.import_module("ftransforms.scipy.spatial.transform")
    ours, ours_slerp = ours_mod.Rotation, ours_mod.Slerp
    for name in ("from_quat", "from_matrix", "from_rotvec", "from_mrp", "from_euler"):
        method = theirs.__dict__.get(name)
        if not isinstance(method, staticmethod):
            continue

        def make(*args: Any, _f: Any = method.__func__, _name: str = name, **kwargs: Any):
            if ACTIVE_THREADS[0] and _traced(args, kwargs):
                return getattr(ours, _name)(*args, **kwargs)
            return _f(*args, **kwargs)

        functools.update_wrapper(make, method.__func__)
        setattr(theirs, name, staticmethod(make))
    for name in ("apply", "mean"):
        method = theirs.__dict__.get(name)
        if not inspect.isfunction(method):
            continue

        def use(self: Any, *args: Any, _f: Any = method, _name: str = name, **kwargs: Any):
            if ACTIVE_THREADS[0] and _traced(args, kwargs):
                return getattr(ours.from_quat(self.as_quat()), _name)(*args, **kwargs)
            return _f(self, *args, **kwargs)

        functools.update_wrapper(use, method)
        setattr(theirs, name, use)

    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        if cls is theirs_slerp and any(isinstance(a, ours) for a in (*args, *kwargs.values())):
            return ours_slerp(*args, **kwargs)
        return object.__new__(cls)

    theirs_slerp.__new__ = new
    call = theirs_slerp.__dict__["__call__"]

    def interpolate(self: Any, times: Any, _f: Any = call) -> Any:
        if ACTIVE_THREADS[0] and _traced((times,), {}):
            # (SciPy keeps the rotations that start the intervals and their steps)
            twin = object.__new__(ours_slerp)
            twin.times, twin.timedelta = self.times, self.timedelta
            twin.rotations = ours.from_quat(self.rotations.as_quat())
            twin.rotvecs = self.rotvecs
            return twin(times)
        return _f(self, times)

    functools.update_wrapper(interpolate, call)
    theirs_slerp.__call__ = interpolate


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
        if self.c.ndim == 1:
            return theirs_mod.PPoly.from_spline(self, self.extrapolate)
        # (from_spline takes 1-D coefficients: one piecewise polynomial per column)
        t, c, k = self.tck
        flat = c.reshape(c.shape[0], -1)
        parts = [theirs_mod.PPoly.from_spline((t, flat[:, j], k)) for j in range(flat.shape[1])]
        coeffs = numpy.stack([p.c for p in parts], axis=-1).reshape(parts[0].c.shape + c.shape[1:])
        return theirs_mod.PPoly(coeffs, parts[0].x, self.extrapolate)

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
    for cls in (theirs_mod.PPoly, theirs_mod.BSpline):  # integrate(a, b), traced bounds
        theirs = cls.__dict__["integrate"]

        def integrate(self, a, b, extrapolate=None, _theirs=theirs):
            if ACTIVE_THREADS[0] and _traced((a, b), {}):
                if (self.extrapolate if extrapolate is None else extrapolate) is True:
                    anti = self.antiderivative()  # (its call answers the traced bounds)
                    return anti(b) - anti(a)
            return _theirs(self, a, b, extrapolate)

        functools.update_wrapper(integrate, theirs)
        _install_in_class(cls, {"integrate": integrate})


def _patch_data_constructors() -> None:
    """SciPy's interpolator classes built from traced data (``CubicSpline(x, y)`` with
    ``y`` traced): their ``__new__`` answers with ``interpolate_data.construct`` (NOTE
    [SciPy's interpolators on traced data]); a call without a tracer makes SciPy's
    instance as before (``copy``/``pickle`` call ``__new__`` with the class alone)."""
    theirs_mod = sys.modules["scipy.interpolate"]
    data_mod = importlib.import_module("ftransforms.scipy.interpolate_data")
    ours = tuple(
        importlib.import_module(f"ftransforms.scipy.{m}")
        for m in ("interpolate", "hermite_splines", "fitpack_data")
    )
    for name in data_mod.CONSTRUCTORS:
        cls = theirs_mod.__dict__.get(name)
        if not isinstance(cls, type) or "__new__" in cls.__dict__:
            continue
        inherited = cls.__new__

        def new(klass, *args, _cls=cls, _name=name, _inherited=inherited, **kwargs):
            if ACTIVE_THREADS[0] and klass is _cls and _traced(args, kwargs):
                return data_mod.construct(_name, _cls, args, kwargs, ours)
            if _inherited is object.__new__:
                return object.__new__(klass)
            return _inherited(klass, *args, **kwargs)

        new.__signature__ = inspect.signature(cls.__init__)  # (the class's, for inspect)
        cls.__new__ = staticmethod(new)


def _operator_traced(op: Any, base: type, depth: int = 0) -> bool:
    """Whether a ``LinearOperator`` computes with tracers although its operand is plain:
    its ``matvec`` function closes over one (``LinearOperator(matvec=lambda v: v + hvp(w,
    v))`` under ``grad`` in ``w``), or an operator it is built from does (``B + 2 * B``);
    SciPy's product would hand the traced result to ``numpy.asarray``."""
    state = getattr(op, "__dict__", None)
    if not state or depth > 8:
        return False
    for value in state.values():
        parts = value if isinstance(value, tuple) else (value,)
        for part in parts:
            if _holds(part) or (isinstance(part, base) and _operator_traced(part, base, depth + 1)):
                return True
    return False


def _patch_linear_operator() -> None:
    """``scipy.sparse.linalg.LinearOperator``'s products with a traced operand: its
    shape checks around the operator's own ``_matvec``/``_matmat``, without SciPy's
    ``numpy.asarray`` (``ftransforms/scipy/sparse/linear_operator.py``)."""
    cls = sys.modules["scipy.sparse.linalg"].LinearOperator
    ours = importlib.import_module("ftransforms.scipy.sparse.linear_operator")
    for method in ("matvec", "rmatvec", "matmat", "rmatmat", "dot"):
        theirs = cls.__dict__[method]
        answer = getattr(ours, f"traced_{method}")

        def call(self, x, _theirs=theirs, _answer=answer):
            if ACTIVE_THREADS[0] and (holds_tracer(x) or _operator_traced(self, cls)):
                return _answer(self, x)
            return _theirs(self, x)

        functools.update_wrapper(call, theirs)
        _install_in_class(cls, {method: call})


def _patch_kdtree() -> None:
    """``scipy.spatial.KDTree.query`` at traced points: SciPy's neighbours, the distances
    recomputed (``ftransforms/scipy/spatial/kdtree_query.py``); ``ConvexHull`` of traced
    points (``spatial/convex_hull.py``)."""
    cls = sys.modules["scipy.spatial"].KDTree
    ours = importlib.import_module("ftransforms.scipy.spatial.kdtree_query")
    theirs = cls.__dict__["query"]

    def query(self, x, *args, **kwargs):
        if ACTIVE_THREADS[0] and holds_tracer(x):
            return ours.traced_query(self, theirs, x, *args, **kwargs)
        return theirs(self, x, *args, **kwargs)

    functools.update_wrapper(query, theirs)
    _install_in_class(cls, {"query": query})
    hull = sys.modules["scipy.spatial"].ConvexHull  # ConvexHull(traced points)
    if "__new__" not in hull.__dict__ and hull.__new__ is object.__new__:
        traced_hull = importlib.import_module("ftransforms.scipy.spatial.convex_hull")

        def new(klass, *args, **kwargs):
            if ACTIVE_THREADS[0] and klass is hull and _traced(args, kwargs):
                return traced_hull.TracedConvexHull(*args, **kwargs)
            return object.__new__(klass)

        new.__signature__ = inspect.signature(hull.__init__)  # (the class's, for inspect)
        hull.__new__ = staticmethod(new)


def _patch(name: str) -> None:
    """Install the wrappers of ``scipy.<name>`` (imported), once; the caller holds _LOCK."""
    if name in _DONE:
        return
    _DONE.add(name)
    _patch_module(name)
    if name == "stats":
        _patch_distributions()
        _patch_frozen_multivariate()
        _patch_kde()
    if name == "spatial":
        _patch_kdtree()
    if name == "sparse.linalg":
        _patch_linear_operator()
    if name == "interpolate":
        _patch_interpolators()
        _patch_data_constructors()
    if name == "spatial.transform":
        _patch_rotations()


# NOTE [SciPy modules imported while a transform runs]: ``_entered`` patches the SciPy
# modules imported before an outermost transform call.  One imported during the call (a
# function's own ``from scipy.spatial.distance import cdist``, or ``import scipy`` and then
# ``scipy.linalg.expm(t)``, which SciPy imports lazily on that attribute) kept SciPy's
# names until the next call: the first call raised TracerConversionError, the second
# worked.  So the first ``_entered`` that finds new modules (the slow path, which every
# process's first transform call takes) also puts this finder at the front of
# ``sys.meta_path``.  For the modules of MODULES it asks the finders behind it for the
# module's spec and wraps that spec's file loader's ``exec_module``: once the module has
# run, its names are patched, before the import statement binds them.  Any other import
# costs one string test; a finder of a SciPy module already patched steps aside.
class _PatchAfterImport:
    """The meta path finder of NOTE [SciPy modules imported while a transform runs]."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        name = fullname[6:]
        if not fullname.startswith("scipy.") or name not in MODULES or name in _DONE:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is None:
                continue
            if isinstance(spec.loader, _FILE_LOADERS):
                run = spec.loader.exec_module

                def exec_module(module: Any, _run: Any = run, _name: str = name) -> None:
                    _run(module)
                    # (not blocking: a thread inside _entered patches it on its next check)
                    if _LOCK.acquire(blocking=False):
                        try:
                            _patch(_name)
                        finally:
                            _LOCK.release()

                spec.loader.exec_module = exec_module  # (this spec's own loader object)
            return spec
        return None


_FINDER = _PatchAfterImport()
_FILE_LOADERS = (
    importlib.machinery.SourceFileLoader,
    importlib.machinery.SourcelessFileLoader,
    importlib.machinery.ExtensionFileLoader,
)


def _entered(interp: Any) -> None:  # noqa: ARG001
    """Install the wrappers of the SciPy modules imported since the last check."""
    if len(_DONE) == len(MODULES) or len(sys.modules) == _MODULES_SEEN[0]:
        return
    with _LOCK:
        if _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)
        _MODULES_SEEN[0] = len(sys.modules)
        for name in MODULES:
            if name not in _DONE and f"scipy.{name}" in sys.modules:
                _patch(name)


OUTERMOST_HOOKS.insert(0, (_entered, lambda: None))
