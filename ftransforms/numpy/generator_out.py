"""NumPy ``Generator`` methods that write into an array (``out=``, ``shuffle(x, axis)``) on
traced arrays and buffers.

NOTE [generators made under a transform]: ``rng.random(out=buf)``,
``rng.standard_normal(out=buf)``, ``rng.permuted(x, out=x)`` and ``rng.shuffle(x, axis=1)``
are methods of a C class that takes only a true ``ndarray`` there; inside a transformed
function ``buf = np.empty(n)`` is a buffer and ``x`` a tracer (NOTE [mutation semantics] in
core/mutation.py), which NumPy refuses.  Nothing can wrap a method of NumPy's
``Generator``, but its class can be subclassed: while a transform is active,
``numpy.random.default_rng(seed)`` called by user code returns a :class:`Generator` over
the same bit generator, whose methods draw what NumPy would draw (the same calls on the bit
generator, in the same order) into a new array and write it into the traced array or
buffer (``out[...] = draws``, so a batched or differentiated ``out`` takes plain draws as
any write does); ``shuffle(x, axis=k)`` shuffles ``swapaxes(x, 0, k)``, a view of ``x``,
as NumPy's own array path does.  Anything else, and every call on plain arrays, is NumPy's.
``numpy.random.RandomState(seed)`` called while a transform is active returns
:class:`RandomState`, a subclass whose draws are buffers in the same way.  A generator made
elsewhere (at import, before the transform, or with ``np.random.Generator(PCG64(...))``)
keeps NumPy's class: an ``out=`` that is traced then
raises NumPy's ValueError ("Supplied output array must be contiguous, ...").

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def noisy(x):
    ...     noise = np.empty(3)
    ...     np.random.default_rng(0).standard_normal(out=noise)
    ...     return x + noise
    >>> bool(np.allclose(ft.grad(lambda x: noisy(x).sum())(np.zeros(3)), 1.0))
    True
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy

import ftransforms.numpy.creation as creation
import ftransforms.numpy.linalg as linalg
import ftransforms.numpy.logic as logic
import ftransforms.numpy.products as products
import ftransforms.numpy.ufuncs as ufuncs
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.mutation import (
    PATCHED_WHILE_ACTIVE,
    Buffer,
    called_from_user_code,
    user_array,
)
from ftransforms.core.mutation import c_contiguous as _c_contiguous
from ftransforms.core.mutation import f_contiguous as _f_contiguous
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import dtype_of, invalid_in_rows
from ftransforms.numpy.helpers import shape as shape_of
from ftransforms.numpy.indexing import take
from ftransforms.numpy.inplace import swapaxes_view

__all__: list[str] = []  # numpy.random.default_rng is the name

_NUMPY_DEFAULT_RNG = numpy.random.default_rng
_NUMPY_GENERATOR = numpy.random.Generator


def _traced(out: Any) -> bool:
    return isinstance(out, Tracer)


def _draw_into(out: Any, size: Any, dtype: Any, draw: Any) -> Any:
    """Write ``draw(shape)`` (NumPy's draws for an array of ``out``'s shape) into the
    traced array or buffer ``out``, with NumPy's checks of ``out``; returns ``out``."""
    shape = tuple(shape_of(out))
    if numpy.dtype(dtype_of(out)) != numpy.dtype(dtype):
        raise TypeError(
            f"Supplied output array has the wrong type. Expected {numpy.dtype(dtype)}, got "
            f"{numpy.dtype(dtype_of(out))}"
        )
    if size is not None and tuple(numpy.atleast_1d(size)) != shape:
        raise ValueError(
            f"size must match out.shape when used together: size {size}, out.shape {shape}"
        )
    if type(out) is Buffer:
        c, f = out.val.flags.c_contiguous, out.val.flags.f_contiguous
    else:
        c, f = _c_contiguous(out), _f_contiguous(out)
    if not c and not f:
        raise ValueError(
            "Supplied output array must be contiguous, writable, aligned, and in machine "
            "byte-order."
        )
    # NumPy fills out's memory in order: a Fortran-ordered array gets the draws transposed
    out[...] = draw(shape) if c else draw(shape[::-1]).T
    return out


class Generator(_NUMPY_GENERATOR):
    """NumPy's ``Generator`` whose methods also write into traced arrays and buffers (NOTE
    [generators made under a transform])."""

    def random(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> Any:
        if not _traced(out):
            return user_array(super().random(size, dtype, out), "random")
        return _draw_into(out, size, dtype, lambda s: super(Generator, self).random(s, dtype))

    def standard_normal(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> Any:
        if not _traced(out):
            return user_array(super().standard_normal(size, dtype, out), "standard_normal")
        draw = lambda s: super(Generator, self).standard_normal(s, dtype)  # noqa: E731
        return _draw_into(out, size, dtype, draw)

    def standard_exponential(
        self, size: Any = None, dtype: Any = numpy.float64, method: str = "zig", out: Any = None
    ) -> Any:
        if not _traced(out):
            drawn = super().standard_exponential(size, dtype, method, out)
            return user_array(drawn, "standard_exponential")
        draw = lambda s: super(Generator, self).standard_exponential(s, dtype, method)  # noqa: E731
        return _draw_into(out, size, dtype, draw)

    def standard_gamma(
        self, shape: Any, size: Any = None, dtype: Any = numpy.float64, out: Any = None
    ) -> Any:
        if not _traced(out):
            return user_array(super().standard_gamma(shape, size, dtype, out), "standard_gamma")
        draw = lambda s: super(Generator, self).standard_gamma(shape, s, dtype)  # noqa: E731
        return _draw_into(out, size, dtype, draw)

    def permuted(self, x: Any, *, axis: Any = None, out: Any = None) -> Any:
        if not _traced(out):
            return user_array(super().permuted(x, axis=axis, out=out), "permuted")
        if tuple(shape_of(out)) != tuple(shape_of(x)):
            raise ValueError("out must have the same shape as x")
        out[...] = super().permuted(x, axis=axis)  # NumPy's draws for a copy of x
        return out

    def choice(
        self,
        a: Any,
        size: Any = None,
        replace: bool = True,
        p: Any = None,
        axis: int = 0,
        shuffle: bool = True,
    ) -> Any:
        if not isinstance(a, Tracer) and not isinstance(p, Tracer):
            return user_array(super().choice(a, size, replace, p, axis, shuffle), "choice")
        # NOTE [choices among traced values]
        draw = lambda n, q: super(Generator, self).choice(n, size, replace, q, 0, shuffle)  # noqa: E731
        return traced_choice(a, p, axis, draw)

    def permutation(self, x: Any, axis: int = 0) -> Any:
        if not isinstance(x, Tracer) or not x.ndim:
            return user_array(super().permutation(x, axis), "permutation")
        # the rows of x in the order NumPy's shuffle of a copy gives (the same draws)
        ndim = x.ndim
        if not -ndim <= int(axis) < ndim:
            raise numpy.exceptions.AxisError(axis, ndim)
        return take(x, super().permutation(shape_of(x)[int(axis)]), axis=int(axis))

    def shuffle(self, x: Any, axis: int = 0) -> None:
        if _traced(x) and axis != 0:
            ndim = len(shape_of(x))
            if not -ndim <= int(axis) < ndim:
                raise numpy.exceptions.AxisError(axis, ndim)
            axis = int(axis) % ndim
            # NumPy's array path: the rows of swapaxes(x, 0, axis), with the same draws
            return super().shuffle(swapaxes_view(x, 0, axis) if axis else x)
        return super().shuffle(x, axis)


#: NOTE [choices among traced values]: ``rng.choice(n, p=probs)`` with traced
#: probabilities (k-means++ seeding: ``p = d2 / d2.sum()`` of the data) and
#: ``rng.choice(x, ...)`` of a traced ``x`` met NumPy's C code, which refused the tracer.
#: The indices drawn are integers, with no derivative, so NumPy draws them from ``p``'s
#: values (read as ``int()`` reads a value: under ``jit`` the recording is marked
#: value-dependent, under ``vmap`` rows with other probabilities split the batch, each
#: group drawing as the loop's row does), with the population's size for ``a``; a traced
#: ``a`` is then indexed by them (``take`` along ``axis``), which is what NumPy's choice
#: of an array does with the same draws (a 0-d ``a`` is the population's size).  Used by
#: this module's :class:`Generator` and by ``numpy.random.choice`` (ftransforms/random.py).


def traced_choice(a: Any, p: Any, axis: int, draw: Any) -> Any:
    """``choice(a, ..., p=p, axis=axis)`` with ``a`` or ``p`` traced, the indices made by
    ``draw(population, p)`` (NumPy's choice of an integer population); NOTE [choices among
    traced values]."""
    if isinstance(p, Tracer):
        p = p._concrete()  # the draws' probabilities: no derivative flows into an index
    if not isinstance(a, Tracer) or not a.ndim:
        population = a._concrete() if isinstance(a, Tracer) else a
        return draw(population, p)
    ndim = a.ndim
    if not -ndim <= int(axis) < ndim:
        raise numpy.exceptions.AxisError(axis, ndim)
    idx = draw(shape_of(a)[int(axis)], p)
    return take(a, idx, axis=int(axis))


#: NOTE [draws with traced parameters]: NumPy's ``normal``, ``uniform``, ``exponential``
#: and ``lognormal`` (a ``Generator``'s and ``RandomState``'s) compute each number from
#: one standard draw: ``loc + scale * z``, ``low + (high - low) * u``, ``scale * e`` and
#: ``exp(mean + sigma * z)``, ``z``/``u``/``e`` drawn in C order over the result's shape.
#: A traced parameter (a particle filter's ``rng.normal(f(x), sigma)``, a reparameterised
#: sample) met NumPy's C code, which refused the tracer; now the standard numbers are drawn
#: as NumPy draws them (the same calls on the bit generator: bit-identical values) and
#: mapped by the traced parameters, so ``grad`` differentiates the sample along its path
#: (the derivative finite differences with the seed fixed give) and ``vmap`` maps the
#: parameters over one draw, as the loop's rows, each starting from the same state, draw.
#: NumPy's checks of the parameters and of ``size`` raise NumPy's errors.
#: ``multivariate_normal(mean, cov)`` maps its standard numbers by NumPy's own factor of
#: ``cov`` (:func:`_multivariate_normal`).  ``laplace``, ``logistic`` and ``gumbel``
#: (``loc + scale * z``), ``rayleigh`` (``scale * z``) and ``gamma`` (``scale * z``, a
#: plain ``shape``) are computed so in NumPy's C code too, ``z`` the same method's draw
#: with unit parameters (its own algorithm: a kind ``(method, unit arguments)``);
#: ``weibull(a)`` is ``e ** (1 / a)`` (an ``a`` of 0 gives 0 without a draw in NumPy, so
#: one under a transform is refused).
TRACED_PARAMETER_DRAWS = {
    # name: (parameters with their defaults, the standard draw's kind)
    "normal": ((("loc", 0.0), ("scale", 1.0)), "normal"),
    "uniform": ((("low", 0.0), ("high", 1.0)), "uniform"),
    "exponential": ((("scale", 1.0),), "exponential"),
    "lognormal": ((("mean", 0.0), ("sigma", 1.0)), "normal"),
    "laplace": ((("loc", 0.0), ("scale", 1.0)), ("laplace", (0.0, 1.0))),
    "logistic": ((("loc", 0.0), ("scale", 1.0)), ("logistic", (0.0, 1.0))),
    "gumbel": ((("loc", 0.0), ("scale", 1.0)), ("gumbel", (0.0, 1.0))),
    "rayleigh": ((("scale", 1.0),), ("rayleigh", (1.0,))),
    "gamma": ((("shape", None), ("scale", 1.0)), ("gamma", (1.0,))),
    "weibull": ((("a", None),), "exponential"),
    # (its own arguments and algorithm: _multivariate_normal)
    "multivariate_normal": ((("mean", None), ("cov", None)), "normal"),
}


def standard_method(standards: dict, kind: Any) -> tuple[str, tuple]:
    """The method drawing a kind's standard numbers and its leading arguments (before
    the shape): ``standards[kind]`` for a named kind, the kind itself for a
    ``(method, unit arguments)`` one (NOTE [draws with traced parameters])."""
    return kind if isinstance(kind, tuple) else (standards[kind], ())


def traced_parameter_draw(
    name: str, standard: Any, args: tuple, kwargs: dict, generator: bool = False
) -> Any:
    """NumPy's ``<name>(*args, **kwargs)`` of :data:`TRACED_PARAMETER_DRAWS` with a traced
    parameter, ``standard(kind, shape)`` drawing the standard numbers (NOTE [draws with
    traced parameters]); ``generator``: a ``Generator``'s method, whose ``uniform`` also
    refuses ``high < low`` (``RandomState``'s does not)."""
    if name == "multivariate_normal":
        return _multivariate_normal(standard, args, kwargs, generator)
    spec, kind = TRACED_PARAMETER_DRAWS[name]
    names = [n for n, _ in spec]
    if len(args) > len(names) + 1:
        raise TypeError(f"{name}() takes at most {len(names) + 1} positional arguments")
    bound = dict(zip([*names, "size"], args))
    for key, value in kwargs.items():
        if key not in names and key != "size" or key in bound:
            raise TypeError(f"{name}() got an unexpected or repeated keyword argument {key!r}")
        bound[key] = value
    params = [bound.get(n, default) for n, default in spec]
    shapes = [tuple(shape_of(v)) for v in params]
    size = bound.get("size")
    broadcast = numpy.broadcast_shapes(*shapes)  # NumPy's error where they do not broadcast
    shape = broadcast if size is None else tuple(int(n) for n in numpy.atleast_1d(size))
    if size is not None and numpy.broadcast_shapes(shape, broadcast) != shape:
        raise ValueError(
            f"Output size {shape} is not compatible with broadcast dimensions of inputs "
            f"{broadcast}."
        )
    if name == "uniform":
        low, high = params
        if invalid_in_rows(~numpy.isfinite(high - low)):
            raise OverflowError("Range exceeds valid bounds")
        if generator and invalid_in_rows(high - low < 0):
            raise ValueError("high - low < 0")  # NumPy's words
        return low + (high - low) * standard(kind, shape)
    if invalid_in_rows(params[-1] < 0):
        raise ValueError(f"{names[-1]} < 0")  # NumPy's words
    if name == "gamma":
        if params[0] is None:
            raise TypeError("gamma() missing required argument 'shape' (pos 1)")
        if type(params[0]) is Buffer:  # an array the function made: plain data
            params[0] = params[0].val
        if isinstance(params[0], Tracer):
            raise UnsupportedOperationError(
                "gamma(shape, scale): a traced shape is not available under the "
                "transforms (NumPy's gamma draws by rejection, which depends on the shape); "
                "trace the scale only (gamma(k, theta) is theta * gamma(k, 1)), or pass the "
                "shape as a plain number"
            )
        if invalid_in_rows(numpy.asarray(params[0]) < 0):
            raise ValueError("shape < 0")  # NumPy's words
        kind = (kind[0], (params[0], *kind[1]))
    if name == "weibull":
        if params[0] is None:
            raise TypeError("weibull() missing required argument 'a' (pos 1)")
        if invalid_in_rows(params[0] == 0):
            raise UnsupportedOperationError(
                "weibull(a) with a traced a: an a of 0 gives 0 without drawing in NumPy, "
                "which moves the later draws; keep a > 0 under the transforms"
            )
        return standard(kind, shape) ** (1.0 / params[0])
    if name in ("exponential", "rayleigh", "gamma"):
        return params[-1] * standard(kind, shape)
    sample = params[0] + params[1] * standard(kind, shape)
    return numpy.exp(sample) if name == "lognormal" else sample


def refuse_traced_parameters(where: str, args: tuple, kwargs: dict) -> None:
    """Raise a clear error for a draw outside :data:`TRACED_PARAMETER_DRAWS` given a
    traced parameter (NumPy's C code would meet the tracer with a conversion error that
    names no draw); an array the function made (a buffer) is plain data and passes."""
    if not any(isinstance(v, Tracer) and type(v) is not Buffer for v in (*args, *kwargs.values())):
        return
    raise UnsupportedOperationError(
        f"{where}(...) with a traced parameter: the transforms follow the parameters of "
        "the draws NumPy computes as a smooth map of standard numbers, and this one is not "
        "among them (a discrete value, a rejection loop that depends on the parameters, or a "
        "map not written here).  Draw with plain parameters (outside the transform, or a "
        "Python loop over the rows' values), or use a draw that takes "
        "traced parameters: " + ", ".join(sorted(TRACED_PARAMETER_DRAWS)) + " (gamma: its "
        "scale)."
    )


def _multivariate_normal(standard: Any, args: tuple, kwargs: dict, generator: bool) -> Any:
    """NumPy's ``multivariate_normal(mean, cov, size, check_valid, tol)`` (a
    ``Generator``'s also ``method=``) with a traced mean or covariance (NOTE [draws with
    traced parameters]): the standard normals drawn as NumPy draws them, mapped by NumPy's
    own factor of ``cov``: ``RandomState``'s ``x @ (sqrt(s)[:, None] * vh) + mean`` of the
    SVD, a ``Generator``'s ``mean + x @ factor.T`` with ``u * sqrt(s)`` of the SVD (the
    default), ``u * sqrt(|s|)`` of ``eigh`` or the Cholesky factor, so the values are
    NumPy's and the derivative is that of the factor NumPy uses."""
    names = ["mean", "cov", "size", "check_valid", "tol"]
    if len(args) > len(names):
        raise TypeError(f"multivariate_normal() takes at most {len(names)} positional arguments")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key in bound or (key not in names and not (generator and key == "method")):
            raise TypeError(
                f"multivariate_normal() got an unexpected or repeated keyword argument {key!r}"
            )
        bound[key] = value
    if "mean" not in bound or "cov" not in bound:
        raise TypeError("multivariate_normal() missing required argument 'mean' or 'cov'")
    mean, cov = creation.asarray(bound["mean"]), creation.asarray(bound["cov"])
    size, tol = bound.get("size"), bound.get("tol", 1e-8)
    check_valid, method = bound.get("check_valid", "warn"), bound.get("method", "svd")
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")  # NumPy's words
    if len(mean.shape) != 1:
        raise ValueError("mean must be 1 dimensional")
    if len(cov.shape) != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError("cov must be 2 dimensional and square")
    if mean.shape[0] != cov.shape[0]:
        raise ValueError("mean and cov must have same length")
    if check_valid not in ("warn", "raise", "ignore"):
        raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
    n = mean.shape[0]
    shape = (
        []
        if size is None
        else [int(size)]
        if isinstance(size, (int, numpy.integer))
        else [int(k) for k in size]
    )
    final_shape = (*shape, n)
    x = numpy.reshape(standard("normal", final_shape), (-1, n))
    cov = cov.astype(numpy.float64)
    if method == "svd" or not generator:
        u, s, vh = linalg.svd(cov)
        valid = logic.allclose(products.dot(vh.T * s, vh), cov, rtol=tol, atol=tol)
    elif method == "eigh":
        s, u = linalg.eigh(cov)
        valid = not invalid_in_rows(s < -tol)
    else:
        factor = linalg.cholesky(cov)
        check_valid = "ignore"  # (NumPy's: the factorisation raises for an invalid cov)
    if check_valid != "ignore" and not bool(valid):
        message = "covariance is not symmetric positive-semidefinite."  # NumPy's words
        if check_valid == "raise":
            raise ValueError(message)
        warnings.warn(message, RuntimeWarning, stacklevel=4)
    if not generator:
        x = products.dot(x, ufuncs.sqrt(s)[:, None] * vh) + mean
    else:
        if method == "svd":
            factor = u * ufuncs.sqrt(s)
        elif method == "eigh":
            factor = u * ufuncs.sqrt(ufuncs.absolute(s))
        x = mean + products.matmul(x, factor.T)
    return x.reshape(final_shape)


#: The Generator's methods drawing the standard numbers of each kind.
_STANDARD_DRAWS = {
    "normal": "standard_normal",
    "uniform": "random",
    "exponential": "standard_exponential",
}


def _drawing_method(base: type, name: str, standards: dict) -> Any:
    """NumPy's ``<base>.<name>``, whose new array is a buffer for user code, taking traced
    parameters where :data:`TRACED_PARAMETER_DRAWS` has it (``standards``: the methods
    drawing each kind's standard numbers)."""
    method = getattr(base, name)

    def standard(self: Any, kind: Any, shape: tuple) -> Any:
        method, unit = standard_method(standards, kind)
        return getattr(base, method)(self, *unit, shape)

    def draw(self: Any, *args: Any, **kwargs: Any) -> Any:
        if name in TRACED_PARAMETER_DRAWS and any(
            isinstance(v, Tracer) for v in (*args, *kwargs.values())
        ):  # NOTE [draws with traced parameters]
            call = lambda kind, shape: standard(self, kind, shape)  # noqa: E731
            return traced_parameter_draw(
                name, call, args, kwargs, generator=base is _NUMPY_GENERATOR
            )
        refuse_traced_parameters(f"{base.__name__}.{name}", args, kwargs)
        return user_array(method(self, *args, **kwargs), name)

    draw.__name__ = draw.__qualname__ = name
    draw.__doc__ = f"NumPy's ``{base.__name__}.{name}`` (its new array a buffer for user code)."
    return draw


#: The methods that return new arrays and write into none (the others are defined above).
_DRAWS = (
    "beta binomial chisquare dirichlet exponential f gamma geometric gumbel "
    "hypergeometric integers laplace logistic lognormal logseries multinomial "
    "multivariate_hypergeometric multivariate_normal negative_binomial noncentral_chisquare "
    "noncentral_f normal pareto poisson power rayleigh standard_cauchy standard_t "
    "triangular uniform vonmises wald weibull zipf"
).split()
for _name in _DRAWS:
    setattr(Generator, _name, _drawing_method(_NUMPY_GENERATOR, _name, _STANDARD_DRAWS))


_NUMPY_RANDOM_STATE = numpy.random.RandomState


class _NumPysClass(type):
    """The class of :class:`RandomState`: ``isinstance``/``issubclass`` against it answer
    for NumPy's ``RandomState`` (the name it replaces while a transform is active), so a
    generator made before the transform is still one."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, _NUMPY_RANDOM_STATE)

    def __subclasscheck__(cls, sub: Any) -> bool:
        return issubclass(sub, _NUMPY_RANDOM_STATE)


class RandomState(_NUMPY_RANDOM_STATE, metaclass=_NumPysClass):
    """NumPy's legacy ``RandomState`` made while a transform is active
    (``rng = np.random.RandomState(0); W = 0.01 * rng.randn(n, m)``): its draws are
    buffers for user code, as :class:`Generator`'s are, and its ``normal``, ``uniform``,
    ``exponential``, ``lognormal``, ``laplace``, ``logistic``, ``gumbel``, ``rayleigh``,
    ``gamma`` (its scale), ``weibull``, ``choice`` and ``permutation`` take traced arguments
    (NOTE [draws with traced parameters], NOTE [choices among traced values]).  NumPy's
    draws, bit for bit; ``isinstance(x, np.random.RandomState)`` holds for NumPy's own."""

    def __init__(self, seed: Any = None) -> None:
        for read in SEED_READERS:  # a seed read from a vmap row (NOTE [seeds of some rows])
            seed = read(seed)
        if seed is None or not SEED_GIVEN:
            super().__init__(seed)
            return
        with SEED_GIVEN[0]():  # its first, unseeded bit generator is no fresh entropy
            super().__init__(seed)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:
        if not isinstance(a, Tracer) and not isinstance(p, Tracer):
            return user_array(super().choice(a, size, replace, p), "choice")
        if isinstance(a, Tracer) and a.ndim > 1:
            raise ValueError("a must be 1-dimensional")  # NumPy's words
        draw = lambda n, q: super(RandomState, self).choice(n, size, replace, q)  # noqa: E731
        return traced_choice(a, p, 0, draw)

    def permutation(self, x: Any) -> Any:
        if not isinstance(x, Tracer) or not x.ndim:
            return user_array(super().permutation(x), "permutation")
        return take(x, super().permutation(shape_of(x)[0]), axis=0)  # NumPy's order


#: RandomState's methods drawing each kind's standard numbers.
_LEGACY_STANDARD_DRAWS = {
    "normal": "standard_normal",
    "uniform": "random_sample",
    "exponential": "standard_exponential",
}
_LEGACY_DRAWS = (
    "beta binomial chisquare dirichlet exponential f gamma geometric gumbel hypergeometric "
    "laplace logistic lognormal logseries multinomial multivariate_normal negative_binomial "
    "noncentral_chisquare noncentral_f normal pareto poisson power rand randint randn random "
    "random_integers random_sample rayleigh standard_cauchy standard_exponential "
    "standard_gamma standard_normal standard_t tomaxint triangular uniform vonmises wald "
    "weibull zipf"
).split()
for _name in _LEGACY_DRAWS:
    if hasattr(_NUMPY_RANDOM_STATE, _name):
        _legacy = _drawing_method(_NUMPY_RANDOM_STATE, _name, _LEGACY_STANDARD_DRAWS)
        setattr(RandomState, _name, _legacy)


#: How a seed read from a vmap row is taken: ftransforms/row_seeds.py registers its reader
#: (NOTE [seeds of some rows]); one patch of ``default_rng`` serves both.
SEED_READERS: list = []
#: ``host_random.seed_given`` (registered there: it sits above this layer): entered while
#: ``RandomState(seed)`` seeds itself.
SEED_GIVEN: list = []


def default_rng(seed: Any = None) -> Any:
    """``numpy.random.default_rng`` while a transform is active: for user code a
    :class:`Generator` over NumPy's bit generator (NOTE [generators made under a
    transform]); NumPy's own otherwise."""
    for read in SEED_READERS:
        seed = read(seed)
    rng = _NUMPY_DEFAULT_RNG(seed)
    if (
        type(rng) is _NUMPY_GENERATOR
        and rng is not seed
        and called_from_user_code(1, "default_rng")
    ):
        return Generator(rng.bit_generator)
    return rng


PATCHED_WHILE_ACTIVE.append(
    (
        vars(numpy.random),
        {"default_rng": default_rng, "RandomState": RandomState},
        {"default_rng": _NUMPY_DEFAULT_RNG, "RandomState": _NUMPY_RANDOM_STATE},
    )
)
