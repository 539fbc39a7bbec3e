"""The machinery of ``ftransforms.scipy.stats``' distributions: SciPy's call forms
(``_split``), the frozen form, the continuous base class with its methods defined from a
distribution's ``_logpdf``/``_cdf``/``_sf``/``_ppf`` on the standardized variable, the
numerically careful helpers they share, and the quantiles valued by SciPy and
differentiated implicitly.  The distributions live in ``stats.py`` and
``stats_distributions.py``.

Example:
    >>> from ftransforms.scipy.stats_base import _log1mexp
    >>> round(float(_log1mexp(-1e-20)), 3)  # log(1 - exp(-1e-20)) = log(1e-20)
    -46.052
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import jvp as _jvp
from ftransforms.api import vjp as _vjp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import FAMILY_BATCH_RULES, Primitive
from ftransforms.core.stack import current_stack
from ftransforms.numpy.helpers import dtype_of, peek
from ftransforms.numpy.ufuncs import float_input
from ftransforms.ops.scipy_ops import scipy_ppf_p
from ftransforms.scipy import special as fsp

_LOG_2PI = math.log(2.0 * math.pi)
_LOG_SQRT_2PI = 0.5 * _LOG_2PI
_SQRT2 = math.sqrt(2.0)


# -- helpers -------------------------------------------------------------------------------


def _fl(x: Any) -> Any:
    """``x`` as a floating array (integers become float64; tracers stay tracers)."""
    if isinstance(x, (int, float, bool)):
        return float(x)  # a weak scalar: keeps the other operands' backend and dtype
    if not hasattr(x, "dtype"):
        x = fnp.asarray(x)
    return float_input(x, None)


def _where(c: Any, a: Any, b: Any) -> Any:
    return fnp.where(c, a, b)


def _nan_unless(valid: Any, out: Any) -> Any:
    """``out`` where the parameters are ``valid``, NaN elsewhere (SciPy's convention)."""
    if isinstance(valid, bool) and valid:
        return out
    return fnp.where(valid, out, fnp.nan)


def _special(name: str) -> Any:
    f = getattr(fsp, name, None)
    if f is None:  # pragma: no cover - while ftransforms.scipy.special grows
        raise NotImplementedError(
            f"ftransforms.scipy.stats: this method needs ftransforms.scipy.special.{name}, "
            f"which this version does not have yet"
        )
    return f


def _ndtr(z: Any) -> Any:
    """The standard normal cdf, ``erfc(-z / sqrt(2)) / 2`` (accurate in both tails)."""
    f = getattr(fsp, "ndtr", None)
    return f(z) if f is not None else 0.5 * fsp.erfc(-z / _SQRT2)


def _log_ndtr(z: Any) -> Any:
    f = getattr(fsp, "log_ndtr", None)
    if f is not None:
        return f(z)
    # log(ndtr(z)); for z < -5 the asymptotic series of the Mills ratio  # pragma: no cover
    zs = fnp.where(z < -5.0, z, -5.0)
    r = 1.0 / (zs * zs)
    series = 1.0 - r * (1.0 - 3.0 * r * (1.0 - 5.0 * r * (1.0 - 7.0 * r)))
    tail = -0.5 * zs * zs - fnp.log(-zs) - _LOG_SQRT_2PI + fnp.log(series)
    zb = fnp.where(z < -5.0, 0.0, z)
    return fnp.where(z < -5.0, tail, fnp.log(_ndtr(zb)))


def _ndtri(q: Any) -> Any:
    f = getattr(fsp, "ndtri", None)
    return f(q) if f is not None else _SQRT2 * fsp.erfinv(2.0 * q - 1.0)


def _exp_cap(x: Any) -> float:
    """Below the largest exponent whose ``exp`` is finite in ``x``'s float dtype (709 in
    float64, 88 in float32): NOTE [Gumbel tails] holds an overflowing exponent there."""
    dt = dtype_of(x) if hasattr(x, "dtype") else numpy.dtype(numpy.float64)
    return 88.0 if dt.itemsize <= 4 else 709.0


def _softplus(x: Any) -> Any:
    """``log(1 + exp(x))`` without overflow."""
    return fnp.logaddexp(x, 0.0)


def _log1mexp(x: Any) -> Any:
    """``log(1 - exp(x))`` for ``x <= 0``, accurate near 0 and for very negative ``x``."""
    near = x > -math.log(2.0)
    xa = fnp.where(near, x, -1.0)
    xb = fnp.where(near, -1.0, x)
    return fnp.where(near, fnp.log(-fnp.expm1(xa)), fnp.log1p(-fnp.exp(xb)))


def _safe_log(p: Any) -> Any:
    """``log(p)``, the constant ``-inf`` (no derivative, not NaN) where ``p == 0``; a NaN
    ``p`` stays NaN."""
    pos = p > 0
    return fnp.where(pos, fnp.log(fnp.where(pos, p, 1.0)), fnp.where(p == 0, -fnp.inf, fnp.nan))


def _exp_neg_pow(z: Any, c: Any, complement: bool | str = False) -> Any:
    """``exp(-z**c)`` (``-expm1(-z**c)`` with ``complement``, its log with ``"log"``) for
    ``z > 0``: where
    ``z**c > 746`` the value is the constant 0 (1), so that a power that overflows to inf
    gives no ``0 * inf = NaN`` derivative (Weibull's sf at ``x = 1e300`` in ``c``).

    Example:
        >>> float(_exp_neg_pow(1e300, 2.0))
        0.0
    """
    big = c * fnp.log(fnp.where(z > 0, z, 1.0)) > _LOG_746  # (0 stays 0 below)
    zs = fnp.where(big, 1.0, z)
    if complement == "log":  # log(1 - exp(-z**c)): 0 there
        return fnp.where(big, 0.0, _log1mexp(-(zs**c)))
    if complement:
        return fnp.where(big, 1.0, -fnp.expm1(-(zs**c)))
    return fnp.where(big, 0.0, fnp.exp(-(zs**c)))


_LOG_746 = math.log(746.0)  # exp(-746) underflows to 0 in float64


def _log_of_complement(p: Any, other: Any) -> Any:
    """``log(p)`` where ``p < 1/2``, else ``log1p(-other())`` with ``other() = 1 - p``
    computed on its own (SciPy's generic ``_logcdf``/``_logsf``, split at the median): a
    cdf that rounds to 1 keeps its logarithm ``-sf`` (``f.logcdf(1e4, 3, 7)`` is
    ``-4.5e-13``, not 0)."""
    low = p < 0.5
    upper = fnp.log1p(-fnp.where(low, 0.5, other()))
    return fnp.where(low, _safe_log(fnp.where(low, p, 0.25)), upper)


def _random() -> Any:
    import ftransforms.random as frandom  # late import: same layer, used by rvs only

    return frandom


def _rng(random_state: Any, where: str) -> Any:
    """A generator from SciPy's ``random_state`` forms (None, a seed, a Generator)."""
    if random_state is None or isinstance(random_state, (int, numpy.integer)):
        return numpy.random.default_rng(random_state)
    if isinstance(random_state, numpy.random.RandomState):
        raise TypeError(
            f"{where}: random_state must be a numpy.random.Generator (default_rng(seed)) or a "
            f"seed; the legacy numpy.random.RandomState is not supported"
        )
    return random_state


def _rvs_size(size: Any, params: tuple) -> tuple:
    """SciPy's ``size``: None means the broadcast shape of the parameters."""
    if size is None:
        return tuple(numpy.broadcast_shapes(*(fnp.shape(p) for p in params)))
    if isinstance(size, (int, numpy.integer)):
        return (int(size),)
    return tuple(int(n) for n in size)


def _betaln(a: Any, b: Any) -> Any:
    f = getattr(fsp, "betaln", None)
    if f is not None:
        return f(a, b)
    return fsp.gammaln(a) + fsp.gammaln(b) - fsp.gammaln(a + b)


class _Dist:
    """Common methods: every continuous distribution defines ``_logpdf(z, *shape)`` on the
    standardized variable ``z = (x - loc) / scale`` and some of ``_cdf``, ``_sf``,
    ``_logcdf``, ``_logsf``, ``_ppf``; ``_valid(*shape)`` says where the shape parameters
    are valid."""

    name = ""
    shapes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"ftransforms.scipy.stats.{self.name}"

    def _valid(self, *shape: Any) -> Any:
        return True

    def __call__(self, *args: Any, **kwargs: Any) -> _Frozen:
        """The distribution with its parameters fixed, SciPy's "frozen" form: the
        parameters are those of the methods after the point (shape parameters, then
        ``loc``/``scale``; ``mean``/``cov`` for ``multivariate_normal``), and may be traced.

        Example:
            >>> import numpy as np
            >>> from ftransforms import grad
            >>> from ftransforms.scipy.stats import norm
            >>> rv = norm(1.0, 2.0)
            >>> float(rv.logpdf(1.0)) == float(norm.logpdf(1.0, 1.0, 2.0))
            True
            >>> float(grad(lambda mu: norm(loc=mu, scale=2.0).logpdf(3.0))(1.0))  # (x-mu)/4
            0.5
        """
        return _Frozen(self, args, kwargs)


#: Methods of a frozen distribution that take the point (``x``, ``k`` or ``q``) first,
#: and those that take nothing.
_POINT_METHODS = (
    "logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "logpmf", "pmf",
    "interval", "moment",
)  # fmt: skip
_NO_POINT_METHODS = ("entropy", "mean", "var", "std", "median", "cov")


class _Frozen:
    """``dist(*params)``: ``dist``'s methods with the parameters filled in."""

    def __init__(self, dist: _Dist, args: tuple, kwargs: dict) -> None:
        self.dist, self.args, self.kwds = dist, args, kwargs

    def __repr__(self) -> str:
        return f"{self.dist!r} frozen with {len(self.args) + len(self.kwds)} parameter(s)"

    def _shapes_and_rest(self) -> tuple:
        """``(shapes, loc, scale)`` of the frozen parameters (``expect``'s call form)."""
        kw = dict(self.kwds)
        n = len(self.dist.shapes)
        shapes = list(self.args[:n]) + [kw.pop(k) for k in self.dist.shapes[len(self.args) :]]
        rest = dict(zip(("loc", "scale"), self.args[n:]))
        return (
            tuple(shapes),
            kw.get("loc", rest.get("loc", 0.0)),
            kw.get("scale", rest.get("scale", 1.0)),
        )

    def __getattr__(self, name: str) -> Any:
        dist = self.__dict__.get("dist")
        method = getattr(dist, name, None) if not name.startswith("_") else None
        if method is not None and name in _POINT_METHODS:

            def at(point: Any) -> Any:
                return method(point, *self.args, **self.kwds)

            at.__name__ = name
            at.__doc__ = method.__doc__
            return at
        if method is not None and name in _NO_POINT_METHODS:
            return lambda: method(*self.args, **self.kwds)
        if method is not None and name == "rvs":  # rvs(size=..., random_state=...)
            return lambda **kw: method(*self.args, **self.kwds, **kw)
        if method is not None and name == "stats":  # stats(moments="mv")
            return lambda moments="mv": method(*self.args, **self.kwds, moments=moments)
        if method is not None and name == "expect":  # expect(func, lb, ub, conditional)
            return lambda func=None, lb=None, ub=None, conditional=False, **kw: method(
                func, *self._shapes_and_rest(), lb=lb, ub=ub, conditional=conditional, **kw
            )
        have = [
            m
            for m in _POINT_METHODS + _NO_POINT_METHODS + ("rvs", "stats", "expect")
            if hasattr(dist, m)
        ]
        raise AttributeError(
            f"frozen ftransforms.scipy.stats.{getattr(dist, 'name', '?')} has no method "
            f"{name!r} (it has {', '.join(have)})"
        )


def _split(x: Any, args: tuple, kwargs: dict, shapes: tuple, extras: tuple, where: str) -> tuple:
    """SciPy's ``(x, *shapes, loc=0, scale=1)`` call forms, positional or by keyword:
    ``(x, *shapes, *extras)`` as arrays of one float dtype (that of the floating-point
    arrays among them, float64 if none: float32 in, float32 out) on ``x``'s backend."""
    names = shapes + extras
    defaults = {"loc": 0.0, "scale": 1.0}
    if len(args) > len(names):
        raise TypeError(f"{where}: takes {len(names) + 1} arguments, got {len(args) + 1}")
    values = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{where}: unexpected keyword argument {k!r}; takes {names}")
        if k in values:
            raise TypeError(f"{where}: got multiple values for argument {k!r}")
        values[k] = v
    missing = [n for n in shapes if n not in values]
    if missing:
        raise TypeError(f"{where}: missing the shape parameter(s) {missing}")
    given = [x] + [values.get(n, defaults.get(n)) for n in names]
    floats = [dtype_of(v) for v in given if hasattr(v, "dtype") and dtype_of(v).kind == "f"]
    dt = numpy.result_type(*floats) if floats else numpy.dtype(numpy.float64)
    ref = next((v for v in given if hasattr(v, "dtype")), None)
    out = []
    for v in given:
        if hasattr(v, "dtype"):
            out.append(v if dtype_of(v) == dt else fnp.astype(v, dt))
        else:
            out.append(
                fnp.asarray(v, dtype=dt, like=ref) if ref is not None else fnp.asarray(v, dt)
            )
    return tuple(out)


def _any_traced(*xs: Any) -> bool:
    """Whether any of ``xs`` is a tracer (not a NumPy array or Python/NumPy number)."""
    return any(not isinstance(x, (numpy.ndarray, numpy.generic, float, int)) for x in xs)


def _may_sit_on(z: Any, ends: list) -> bool:
    """Whether ``z`` may equal one of the ``ends``: read from the data where no ``jit``
    is recording (eagerly the values are there; a recording must not depend on them)."""
    if any(getattr(i, "note_value_read", None) is not None for i in current_stack()):
        return True
    zv = peek(z)
    return any(bool((zv == peek(end)).any()) for end, _ in ends)


def _standardized(x: Any, loc: Any, scale: Any) -> Any:
    """``(x - loc) / scale``; an infinite plain ``x`` stays that constant infinity, with
    no derivative in ``loc``/``scale`` (``(inf - loc) / scale`` has the tangent
    ``inf * dscale``: the cdf there, 1, had derivative ``0 * inf = NaN``; ``expect``
    passes its infinite bounds so).  Checked for NumPy arrays only: a traced (or device)
    ``x`` is divided as it is (JAX's NaN at a traced infinity)."""
    if type(x) is not numpy.ndarray or not numpy.isinf(x).any():
        return (x - loc) / scale
    inf = fnp.isinf(x)
    z = (fnp.where(inf, 0.0, x) - loc) / scale
    return fnp.where(inf, fnp.stop_gradient(x), z)


class _Continuous(_Dist):
    """A continuous distribution with ``loc`` and ``scale``."""

    def fit(self, data: Any, *args: Any, **kwds: Any) -> tuple:
        """``<distribution>.fit`` where SciPy has no closed form: SciPy maximises the
        likelihood with an optimizer, which traced data cannot go through; a clear error
        (``norm``, ``expon``, ``laplace``, ``uniform``, ``lognorm``/``gamma`` with ``floc``
        have their closed forms).

        Example:
            >>> import numpy as np
            >>> from ftransforms.scipy.stats import t
            >>> try:
            ...     t.fit(np.array([1.0, 2.0, 4.0]))
            ... except NotImplementedError as err:
            ...     print(type(err).__name__)
            UnsupportedOperationError
        """
        raise UnsupportedOperationError(
            f"ftransforms.scipy.stats.{self.name}.fit(data, ...): on traced data only the "
            "closed-form fits are supported (norm, expon, laplace, uniform, and lognorm or "
            "gamma with floc=); minimise the negative log-likelihood yourself, e.g. "
            f"ftransforms.scipy.optimize.minimize(lambda p: -{self.name}.logpdf(data, *p).sum(), "
            "p0), which is differentiable in data"
        )

    def _args(self, method: str, x: Any, args: tuple, kwargs: dict) -> tuple:
        where = f"{self.name}.{method}"
        x, *shape, loc, scale = _split(x, args, kwargs, self.shapes, ("loc", "scale"), where)
        z = _standardized(x, loc, scale)
        valid = self._valid(*shape)
        # a NaN x is NaN in every method, as SciPy's and JAX's (not "outside the support")
        pos = (scale > 0) & (z == z)
        valid = pos if valid is True else valid & pos
        return z, tuple(shape), scale, valid

    def logpdf(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        """Log of the probability density at ``x``."""
        z, shape, scale, valid = self._args("logpdf", x, args, kwargs)
        lp = self._logpdf(z, *shape)
        # outside the support the value is the constant -inf: no derivative in scale (JAX's)
        return _nan_unless(valid, fnp.where(lp == -fnp.inf, lp, lp - fnp.log(scale)))

    def pdf(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        """The probability density at ``x``."""
        z, shape, scale, valid = self._args("pdf", x, args, kwargs)
        return _nan_unless(valid, self._density_one_sided_at_ends(z, shape) / scale)

    # Finite ends of the standardized support (``None``: no finite end), for
    # ``_density_one_sided_at_ends``; ``_Bounded`` reads its ``_support``.
    _finite_ends: tuple | None = None

    def _density_one_sided_at_ends(self, z: Any, shape: tuple) -> Any:
        """``exp(_logpdf(z))``, with the one-sided derivatives where it vanishes at an end.

        NOTE [density derivatives at a support end]: the density is ``exp(logpdf)``, whose
        derivative ``pdf * dlogpdf`` is ``0 * inf = NaN`` where the density vanishes at an
        end like ``x**(a-1)`` (``beta.pdf(x, 2, 3)`` at 0: one-sided slope 12).  There the
        derivatives (every order) are Richardson's ``2 D(h) - D(2 h)`` of the derivatives
        ``D`` at the points ``h`` and ``2 h`` inside (``h = 2**-24`` times the end's size,
        at least 1): the one-sided limits to ``O(h**2)``, far enough inside that the
        second derivative ``p (lp'' + lp'**2)`` does not cancel to noise.  The density
        vanishes there for all shapes around, so the shapes' derivatives are 0.  The value stays
        the one at the end (a constant correction); an infinite density at an end keeps its
        derivative, and so does one that vanishes like ``h**k``, ``k < 1`` (an infinite
        slope: NaN, as before).  It costs one more evaluation (three more at the ends alone)
        where it runs: on traced calls of distributions with a finite end, eagerly only when
        some ``z`` sits on an end (read from the data), under ``jit`` always (a recording
        must not depend on the data); away from the ends ``2 p - p`` is ``p`` exactly.
        """
        ends = self._ends_of_support(shape)
        if not ends or not _any_traced(z, *shape) or not _may_sit_on(z, ends):
            return self._density(z, *shape)
        const = tuple(fnp.stop_gradient(v) for v in (z, *shape))
        shift = 0.0
        at_end = False
        for end, side in ends:
            # the density at the end and at h, 2 h inside: evaluated at the shapes only
            e = fnp.zeros_like(const[0]) + end  # (on z's backend and in its dtype)
            h = fnp.maximum(fnp.abs(e), 1.0) * 2.0**-24
            p0, p1, p2 = (fnp.exp(self._logpdf(e + j * side * h, *const[1:])) for j in range(3))
            # p ~ h**k with k < 1 (p2 / p1 = 2**k < 2: semicircular's square root) has an
            # infinite slope, no finite Richardson value: left alone (NaN, as before)
            smooth = (p0 == 0) & (p2 >= 1.98 * p1)
            at = (const[0] == end) & smooth
            shift = shift + fnp.where(at, side * h, 0.0)
            at_end = at_end | at
        # the density vanishes there for the shapes around: no derivative in them
        held = shape
        if _any_traced(*shape):
            held = tuple(fnp.where(at_end, c, v) for c, v in zip(const[1:], shape))
        near = fnp.exp(self._logpdf(z + shift, *held))
        far = fnp.exp(self._logpdf(z + 2.0 * shift, *held))
        inside = 2.0 * near - far
        return inside - fnp.where(at_end, fnp.stop_gradient(inside), 0.0)  # the value 0 there

    def _density(self, z: Any, *shape: Any) -> Any:
        """The standardized density (a distribution whose ``exp(logpdf)`` loses its
        derivatives somewhere writes its own)."""
        return fnp.exp(self._logpdf(z, *shape))

    def _ends_of_support(self, shape: tuple) -> list:
        """``[(end, side into the support)]`` for the finite ends (``side``: +1 or -1)."""
        support = getattr(self, "_support", None)
        if support is None:
            lo, hi = self._finite_ends if self._finite_ends is not None else (-math.inf, math.inf)
        else:
            lo, hi = support(*shape)
        out = []
        for end, side in ((lo, 1.0), (hi, -1.0)):
            if not (isinstance(end, float) and math.isinf(end)):
                out.append((end, side))
        return out

    def cdf(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        """The cumulative distribution function at ``x``."""
        z, shape, _, valid = self._args("cdf", x, args, kwargs)
        return _nan_unless(valid, self._cdf(z, *shape))

    def logcdf(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        """Log of the cdf at ``x``."""
        z, shape, _, valid = self._args("logcdf", x, args, kwargs)
        return _nan_unless(valid, self._logcdf(z, *shape))

    def sf(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        """The survival function ``1 - cdf`` at ``x``."""
        z, shape, _, valid = self._args("sf", x, args, kwargs)
        return _nan_unless(valid, self._sf(z, *shape))

    def logsf(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        """Log of the survival function at ``x``."""
        z, shape, _, valid = self._args("logsf", x, args, kwargs)
        return _nan_unless(valid, self._logsf(z, *shape))

    def ppf(self, q: Any, *args: Any, **kwargs: Any) -> Any:
        """The quantile function (inverse of the cdf) at ``q``."""
        where = f"{self.name}.ppf"
        q, *shape, loc, scale = _split(q, args, kwargs, self.shapes, ("loc", "scale"), where)
        valid = self._valid(*shape)
        ok = (scale > 0) & (q >= 0) & (q <= 1)
        valid = ok if valid is True else valid & ok
        qs = fnp.where(valid, q, 0.5)
        return _nan_unless(valid, loc + scale * self._ppf(qs, *shape))

    def isf(self, q: Any, *args: Any, **kwargs: Any) -> Any:
        """The inverse survival function (``ppf(1 - q)``, accurate for small ``q``)."""
        where = f"{self.name}.isf"
        q, *shape, loc, scale = _split(q, args, kwargs, self.shapes, ("loc", "scale"), where)
        valid = self._valid(*shape)
        ok = (scale > 0) & (q >= 0) & (q <= 1)
        valid = ok if valid is True else valid & ok
        qs = fnp.where(valid, q, 0.5)
        return _nan_unless(valid, loc + scale * self._isf(qs, *shape))

    def rvs(self, *args: Any, size: Any = None, random_state: Any = None, **kwargs: Any) -> Any:
        """Random samples, SciPy's ``rvs(*shapes, loc=0, scale=1, size=None,
        random_state=None)``, drawn with :mod:`ftransforms.random` (``random_state``: a
        ``numpy.random.Generator``, a seed, or None for a fresh generator) as
        ``loc + scale * ppf(u)``, so they are differentiable in the parameters."""
        rng = _rng(random_state, f"{self.name}.rvs")
        _, *shape, loc, scale = _split(0.0, args, kwargs, self.shapes, ("loc", "scale"), "rvs")
        size = _rvs_size(size, (*shape, loc, scale))
        std = self._rvs(rng, size, *shape)
        return loc + scale * std

    def _rvs(self, rng: Any, size: Any, *shape: Any) -> Any:
        u = _random().uniform(rng, size=size)
        # the open interval: ppf(0) is the lower end of the support
        tiny = numpy.finfo(numpy.float64).tiny
        return self._ppf(fnp.maximum(u, tiny), *shape)

    def _isf(self, q: Any, *shape: Any) -> Any:
        return self._ppf(1.0 - q, *shape)

    def _moment_args(self, method: str, args: tuple, kwargs: dict) -> tuple:
        where = f"{self.name}.{method}"
        _, *shape, loc, scale = _split(0.0, args, kwargs, self.shapes, ("loc", "scale"), where)
        valid = self._valid(*shape)
        valid = scale > 0 if valid is True else valid & (scale > 0)
        return tuple(shape), loc, scale, valid

    def mean(self, *args: Any, **kwargs: Any) -> Any:
        """The mean (SciPy's ``dist.mean(*shapes, loc=0, scale=1)``; NaN where undefined)."""
        shape, loc, scale, valid = self._moment_args("mean", args, kwargs)
        return _nan_unless(valid, loc + scale * self._stats(*shape)[0])

    def var(self, *args: Any, **kwargs: Any) -> Any:
        """The variance."""
        shape, _, scale, valid = self._moment_args("var", args, kwargs)
        return _nan_unless(valid, scale * scale * self._stats(*shape)[1])

    def std(self, *args: Any, **kwargs: Any) -> Any:
        """The standard deviation."""
        return fnp.sqrt(self.var(*args, **kwargs))

    def median(self, *args: Any, **kwargs: Any) -> Any:
        """The median, ``ppf(0.5)``."""
        return self.ppf(0.5, *args, **kwargs)

    def entropy(self, *args: Any, **kwargs: Any) -> Any:
        """The differential entropy."""
        shape, _, scale, valid = self._moment_args("entropy", args, kwargs)
        return _nan_unless(valid, self._entropy(*shape) + fnp.log(scale))

    def interval(self, confidence: Any, *args: Any, **kwargs: Any) -> tuple:
        """The equal-tailed interval with probability ``confidence``: ``(ppf((1 - c)/2),
        ppf((1 + c)/2))``, SciPy's ``interval``.

        Example:
            >>> from ftransforms.scipy.stats import norm
            >>> [round(float(v), 4) for v in norm.interval(0.95)]
            [-1.96, 1.96]
        """
        lo = (1.0 - confidence) / 2.0
        return self.ppf(lo, *args, **kwargs), self.ppf(1.0 - lo, *args, **kwargs)

    def stats(self, *args: Any, moments: str = "mv", **kwargs: Any) -> Any:
        """SciPy's ``stats(*shapes, loc, scale, moments='mv')``: the mean (``m``) and
        variance (``v``); skewness and kurtosis raise (one value, or a tuple, as SciPy).

        Example:
            >>> from ftransforms.scipy.stats import norm
            >>> [float(v) for v in norm.stats(loc=1.0, scale=2.0)]
            [1.0, 4.0]
        """
        table = {"m": self.mean, "v": self.var}
        missing = [m for m in moments if m not in table]
        if missing:
            self._missing(f"stats(moments={moments!r}) (skewness and kurtosis)")
        out = tuple(table[m](*args, **kwargs) for m in moments)
        return out[0] if len(out) == 1 else out

    def moment(self, order: int, *args: Any, **kwargs: Any) -> Any:
        """The non-central moment of ``order`` 0, 1 or 2 (SciPy's ``moment``).

        Example:
            >>> from ftransforms.scipy.stats import norm
            >>> float(norm.moment(2, loc=1.0, scale=2.0))  # 1 + 4
            5.0
        """
        if order not in (0, 1, 2):
            self._missing(f"moment({order!r}) (orders 0, 1 and 2 are)")
        if order == 0:
            return fnp.ones_like(self.mean(*args, **kwargs))
        m = self.mean(*args, **kwargs)
        return m if order == 1 else self.var(*args, **kwargs) + m * m

    def expect(
        self,
        func: Any = None,
        args: tuple = (),
        loc: Any = 0.0,
        scale: Any = 1.0,
        lb: Any = None,
        ub: Any = None,
        conditional: bool = False,
        **kwds: Any,
    ) -> Any:
        """SciPy's ``expect``: ``E[func(X)]`` (``X`` if ``func`` is None) by
        :func:`ftransforms.scipy.integrate.quad` of ``func(x) pdf(x)`` over the support
        (or ``[lb, ub]``; ``conditional`` divides by its probability), split at the 5% and
        95% quantiles as SciPy's.  An infinite end of the support stays a constant
        infinity (SciPy writes ``loc + _b * scale``, whose reverse-mode derivative is
        ``0 * inf = NaN``); the finite ends come from ``scipy.stats`` at the values of
        the shape parameters.

        Example:
            >>> from ftransforms.scipy.stats import norm
            >>> round(float(norm.expect(lambda x: x**2, loc=1.0)), 10)  # 1 + 1
            2.0
        """
        from ftransforms.scipy.quadrature import quad  # late import: integrate imports stats

        args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
        fun = (lambda x: x) if func is None else func

        def integrand(x: Any) -> Any:
            return fun(x) * self.pdf(x, *args, loc=loc, scale=scale)

        a, b = self._standard_support(args)
        lb = (a if math.isinf(a) else loc + a * scale) if lb is None else lb
        ub = (b if math.isinf(b) else loc + b * scale) if ub is None else ub
        cdf_lb = self.cdf(lb, *args, loc=loc, scale=scale)
        mass = self.cdf(ub, *args, loc=loc, scale=scale) - cdf_lb
        c = self.ppf(cdf_lb + 0.05 * mass, *args, loc=loc, scale=scale)
        d = self.ppf(cdf_lb + 0.95 * mass, *args, loc=loc, scale=scale)
        total = sum(quad(integrand, p, q, **kwds)[0] for p, q in ((lb, c), (c, d), (d, ub)))
        return total / mass if conditional else total

    def _standard_support(self, args: tuple) -> tuple:
        """SciPy's support of the standardized distribution, at the shape values."""
        import scipy.stats  # noqa: PLC0415  late import: SciPy is optional

        shapes = [numpy.asarray(peek(fnp.asarray(v))) for v in args]
        a, b = getattr(scipy.stats, self.name).support(*shapes)
        if numpy.ndim(a) or numpy.ndim(b):
            raise UnsupportedOperationError(
                f"{self.name}.expect: shape parameters must be scalars (one support)"
            )
        return float(a), float(b)

    def _stats(self, *shape: Any) -> tuple:
        return self._missing("mean/var")

    def _entropy(self, *shape: Any) -> Any:
        return self._missing("entropy")

    def _missing(self, method: str) -> Any:
        raise UnsupportedOperationError(
            f"ftransforms.scipy.stats.{self.name}: {method} is not supported for this distribution"
        )

    def _cdf(self, z: Any, *shape: Any) -> Any:
        return self._missing("cdf")

    def _ppf(self, q: Any, *shape: Any) -> Any:
        return self._missing("ppf")

    # defaults from one another
    def _sf(self, z: Any, *shape: Any) -> Any:
        return 1.0 - self._cdf(z, *shape)

    def _logcdf(self, z: Any, *shape: Any) -> Any:
        return _log_of_complement(self._cdf(z, *shape), lambda: self._sf(z, *shape))

    def _logsf(self, z: Any, *shape: Any) -> Any:
        return _log_of_complement(self._sf(z, *shape), lambda: self._cdf(z, *shape))


def _fit_check(ok: Any, name: str, needs: str) -> None:
    """SciPy's ``FitDataError`` (a ValueError) where data lie outside a fixed ``floc``/
    ``fscale``'s support: read from the values (only on the calls that fix one)."""
    if not numpy.all(peek(ok)):
        raise ValueError(
            f"ftransforms.scipy.stats.{name}.fit(data, ...): invalid values in data; maximum "
            f"likelihood estimation with {name!r} requires {needs} (as SciPy's FitDataError)"
        )


def _fit_fixed(name: str, args: tuple, kwds: dict, shapes: tuple = ()) -> tuple:
    """The fixed values ``(*fshapes, floc, fscale)`` of a closed-form ``fit`` call (SciPy's
    keyword spellings ``f0``/``fa``/``fix_a``; ``loc``/``scale``/``optimizer`` are starting
    guesses its closed forms ignore too); anything else is a clear error."""
    kwds = dict(kwds)
    method = kwds.pop("method", "MLE")
    for ignored in ("loc", "scale", "optimizer"):
        kwds.pop(ignored, None)
    fixed = []
    for j, s in enumerate(shapes):
        names = [n for n in (f"f{j}", f"f{s}", f"fix_{s}") if n in kwds]
        fixed.append(kwds.pop(names[0]) if names else None)
        for n in names[1:]:
            kwds.pop(n)
    floc, fscale = kwds.pop("floc", None), kwds.pop("fscale", None)
    call = f"ftransforms.scipy.stats.{name}.fit(data, floc=, fscale=, method='MLE')"
    if str(method).upper() != "MLE" or kwds or len(args) > len(shapes):
        raise UnsupportedOperationError(
            f"{call}: got extra arguments {args} {kwds} method={method!r}; only the closed-form "
            "maximum-likelihood fit is supported on traced data (fit plain data with SciPy)"
        )
    if None not in (*fixed, floc, fscale):
        raise RuntimeError(f"{call}: all parameters fixed; there is nothing to optimize")
    return (*fixed, floc, fscale)


# -- quantiles by SciPy, derivatives by the implicit function theorem ------------------------


def _like_all(q: Any, values: tuple) -> list:
    """Python scalars among ``values`` as arrays on ``q``'s backend."""
    return [fnp.asarray(v, like=q) if isinstance(v, (int, float)) else v for v in values]


def _scipy_ppf(name: str, q: Any, *shape: Any) -> Any:
    """``scipy.stats.<name>.ppf`` (no derivative)."""

    return scipy_ppf_p.bind(q, *shape, dist=name)


_PPF_PRIMS: dict[str, Any] = {}


def _implicit_ppf(name: str, dist: _Continuous, q: Any, *shape: Any, method: str = "ppf") -> Any:
    """The standard quantile ``x = F^{-1}(q; shape)``, valued by ``scipy.stats`` and
    differentiated implicitly: ``F(x; shape) = q`` gives
    ``dx = (dq - dF/dshape . dshape) / f(x; shape)``.  Its rules are written with ``x``
    (the output) and the distribution's own ``_cdf``/``_logpdf``, so every order works;
    a parameter with no tangent costs nothing (the cdf's derivative in a shape parameter
    is only taken when that parameter is differentiated)."""
    key = f"{name}.{method}"
    prim = _PPF_PRIMS.get(key)
    if prim is None:
        prim = _ppf_primitive(name, dist, method)
        _PPF_PRIMS[key] = prim
    return prim.bind(*fnp.broadcast_arrays(q, *_like_all(q, shape)))


def _ppf_primitive(name: str, dist: _Continuous, method: str = "ppf") -> Any:
    """``method="isf"``: ``x = S^{-1}(q)``, where ``F(x) = 1 - q``, so ``dq`` changes sign."""
    sign = -1.0 if method == "isf" else 1.0

    def impl(xp, q, *shape):
        return scipy_ppf_p.impl(xp, q, *shape, dist=name, method=method)

    def density(x, shape):
        return fnp.exp(dist._logpdf(x, *shape))

    def jvp(tangents, x, q, *shape):
        q_dot, *shape_dot = tangents
        moving = [i for i, t in enumerate(shape_dot) if t is not None]
        num = fnp.zeros_like(x) if q_dot is None else sign * q_dot
        if moving:

            def cdf_of(*vals):
                full = list(shape)
                for i, v in zip(moving, vals):
                    full[i] = v
                return dist._cdf(x, *full)

            _, f_dot = _jvp(
                cdf_of, tuple(shape[i] for i in moving), tuple(shape_dot[i] for i in moving)
            )
            num = num - f_dot
        return num / density(x, shape)

    def vjp(g, x, q, *shape, wanted):
        scaled = g / density(x, shape)
        out = [sign * scaled if wanted[0] else None]
        moving = [i for i in range(len(shape)) if wanted[1 + i]]
        bars = {}
        if moving:

            def cdf_of(*vals):
                full = list(shape)
                for i, v in zip(moving, vals):
                    full[i] = v
                return dist._cdf(x, *full)

            _, pull = _vjp(cdf_of, *[shape[i] for i in moving])
            bars = dict(zip(moving, pull(-scaled)))
        out += [bars.get(i) for i in range(len(shape))]
        return tuple(out)

    batch = FAMILY_BATCH_RULES["elementwise"]  # an elementwise op of q and the shapes
    return Primitive(f"{name}.{method}", impl, jvp=jvp, vjp=vjp, batch=batch, family="elementwise")


class _Discrete(_Dist):
    """A discrete distribution with ``loc`` (an integer shift of the support)."""

    def _args(self, method: str, k: Any, args: tuple, kwargs: dict) -> tuple:
        where = f"{self.name}.{method}"
        k, *shape, loc = _split(k, args, kwargs, self.shapes, ("loc",), where)
        k = k - loc
        valid = self._valid(*shape)
        # a NaN k is NaN in every method, as SciPy's and JAX's (not "outside the support")
        return k, tuple(shape), (k == k) if valid is True else valid & (k == k)

    def logpmf(self, k: Any, *args: Any, **kwargs: Any) -> Any:
        """Log of the probability mass at ``k`` (``-inf`` off the integers of the support)."""
        k, shape, valid = self._args("logpmf", k, args, kwargs)
        on = (k == fnp.floor(k)) & self._in_support(k, *shape)
        ks = fnp.where(on, k, self._inside(*shape))
        return _nan_unless(valid, fnp.where(on, self._logpmf(ks, *shape), -fnp.inf))

    def pmf(self, k: Any, *args: Any, **kwargs: Any) -> Any:
        """The probability mass at ``k``."""
        return fnp.exp(self.logpmf(k, *args, **kwargs))

    def cdf(self, k: Any, *args: Any, **kwargs: Any) -> Any:
        """``P(X <= k)``."""
        k, shape, valid = self._args("cdf", k, args, kwargs)
        return _nan_unless(valid, self._cdf(fnp.floor(k), *shape))

    def sf(self, k: Any, *args: Any, **kwargs: Any) -> Any:
        """``P(X > k)``."""
        k, shape, valid = self._args("sf", k, args, kwargs)
        return _nan_unless(valid, self._sf(fnp.floor(k), *shape))

    def logcdf(self, k: Any, *args: Any, **kwargs: Any) -> Any:
        """Log of the cdf."""
        return _safe_log(self.cdf(k, *args, **kwargs))

    def logsf(self, k: Any, *args: Any, **kwargs: Any) -> Any:
        """Log of the survival function."""
        return _safe_log(self.sf(k, *args, **kwargs))

    def ppf(self, q: Any, *args: Any, **kwargs: Any) -> Any:
        """The smallest integer ``k`` with ``cdf(k) >= q`` (no derivative: it is an integer)."""
        where = f"{self.name}.ppf"
        q, *shape, loc = _split(q, args, kwargs, self.shapes, ("loc",), where)
        shape = tuple(fnp.stop_gradient(s) for s in shape)
        return self._ppf(fnp.stop_gradient(q), *shape) + loc

    def _ppf(self, q: Any, *shape: Any) -> Any:
        return _scipy_ppf(self.name, *fnp.broadcast_arrays(q, *_like_all(q, shape)))

    def _moments(self, method: str, args: tuple, kwargs: dict) -> tuple:
        where = f"{self.name}.{method}"
        _, *shape, loc = _split(0.0, args, kwargs, self.shapes, ("loc",), where)
        stats = getattr(self, "_stats", None)
        if stats is None:
            raise UnsupportedOperationError(
                f"ftransforms.scipy.stats.{self.name}: {method} is not supported"
            )
        m, v = stats(*shape)
        return m, v, loc, self._valid(*shape)

    def mean(self, *args: Any, **kwargs: Any) -> Any:
        """The mean (SciPy's ``dist.mean(*shapes, loc=0)``)."""
        m, _, loc, valid = self._moments("mean", args, kwargs)
        return _nan_unless(valid, m + loc)

    def var(self, *args: Any, **kwargs: Any) -> Any:
        """The variance."""
        _, v, _, valid = self._moments("var", args, kwargs)
        return _nan_unless(valid, v)

    def std(self, *args: Any, **kwargs: Any) -> Any:
        """The standard deviation."""
        return fnp.sqrt(self.var(*args, **kwargs))

    def isf(self, q: Any, *args: Any, **kwargs: Any) -> Any:
        """The smallest integer ``k`` with ``sf(k) <= q`` (SciPy's; no derivative)."""
        where = f"{self.name}.isf"
        q, *shape, loc = _split(q, args, kwargs, self.shapes, ("loc",), where)
        shape = tuple(fnp.stop_gradient(s) for s in shape)
        q = fnp.stop_gradient(q)
        qs = fnp.broadcast_arrays(q, *_like_all(q, shape))
        return scipy_ppf_p.bind(*qs, dist=self.name, method="isf") + loc

    def rvs(self, *args: Any, size: Any = None, random_state: Any = None, **kwargs: Any) -> Any:
        """Random samples (SciPy's ``rvs(*shapes, loc=0, size=None, random_state=None)``),
        ``ppf(u)`` of :func:`ftransforms.random.uniform` draws; no derivative."""
        rng = _rng(random_state, f"{self.name}.rvs")
        _, *shape, loc = _split(0.0, args, kwargs, self.shapes, ("loc",), f"{self.name}.rvs")
        size = _rvs_size(size, (*shape, loc))
        u = _random().uniform(rng, size=size)
        shape = tuple(fnp.stop_gradient(s) for s in shape)
        return self._ppf(fnp.maximum(u, numpy.finfo(numpy.float64).tiny), *shape) + loc

    def _sf(self, k: Any, *shape: Any) -> Any:
        return 1.0 - self._cdf(k, *shape)
