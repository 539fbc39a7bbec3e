"""``scipy.stats``' rank tests and the one-sample Kolmogorov-Smirnov test on tracers.

NOTE [rank statistics read, not differentiated]: ``mannwhitneyu``, ``kruskal``,
``wilcoxon``, ``ansari``, ``brunnermunzel``, ``fligner``, ``friedmanchisquare`` and ``mood``
depend on the data only through ranks and signs, so their statistics and p-values are
piecewise constant: their derivative is zero wherever it exists.  They are computed by
SciPy's own function on the values (a ``pure_callback`` behind ``stop_gradient``, called
once per example under ``vmap``, so every option of SciPy's holds and the answer is
SciPy's), and differentiate to zero; ``jit`` replays the call.

``ks_1samp``/``kstest`` against a distribution's cdf are differentiable: the statistic is
a maximum over the sorted data of the cdf less the empirical one, through this library's
cdf; its p-value is SciPy's ``kstwo``/``ksone``/``kstwobign`` survival function, valued by
SciPy, whose derivative is minus their density (also SciPy's, with no derivative of its
own: a second derivative of the p-value raises ``CallbackError``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> x, y = np.array([1.0, 4.0, 2.0]), np.array([3.0, 5.0, 6.0, 7.0])
    >>> float(mannwhitneyu(x, y).statistic), ft.grad(lambda v: mannwhitneyu(v, y).pvalue)(x)
    (1.0, array([0., 0., 0.]))
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.callbacks import pure_callback
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.custom import custom_jvp
from ftransforms.lax import stop_gradient
from ftransforms.scipy.stats_tests import _float, _propagate, _result
from ftransforms.shape_eval import ShapeDtypeStruct

__all__ = [
    "ansari",
    "brunnermunzel",
    "fligner",
    "friedmanchisquare",
    "kruskal",
    "ks_1samp",
    "kstest",
    "mannwhitneyu",
    "mood",
    "wilcoxon",
]

MannwhitneyuResult = _result("MannwhitneyuResult", ("statistic", "pvalue"))
KruskalResult = _result("KruskalResult", ("statistic", "pvalue"))
WilcoxonResult = _result("WilcoxonResult", ("statistic", "pvalue"))
AnsariResult = _result("AnsariResult", ("statistic", "pvalue"))
BrunnerMunzelResult = _result("BrunnerMunzelResult", ("statistic", "pvalue"))
FlignerResult = _result("FlignerResult", ("statistic", "pvalue"))
FriedmanchisquareResult = _result("FriedmanchisquareResult", ("statistic", "pvalue"))
SignificanceResult = _result("SignificanceResult", ("statistic", "pvalue"))
KstestResult = _result(
    "KstestResult", ("statistic", "pvalue", "statistic_location", "statistic_sign")
)


def _scipy_stats() -> Any:
    # SciPy's module as the caller imported it (these run only on SciPy users' calls)
    return sys.modules.get("scipy.stats") or __import__("scipy.stats").stats


def _out_shape(samples: tuple, axis: Any, keepdims: bool) -> tuple:
    """The shape of a statistic over ``axis`` of the broadcast samples (SciPy's)."""
    shapes = [numpy.shape(s) for s in samples]
    if axis is None:
        return (1,) * max(len(s) for s in shapes) if keepdims else ()
    rest = []
    for s in shapes:
        ax = axis % len(s)
        rest.append(s[:ax] + s[ax + 1 :])
    out = numpy.broadcast_shapes(*rest)
    if keepdims:
        ax = axis % (len(out) + 1)
        out = out[:ax] + (1,) + out[ax:]
    return out


def _by_scipy(name: str, result: type, samples: tuple, kwargs: dict, keepdims: bool) -> Any:
    """SciPy's ``name(*samples, **kwargs)`` on the values, its statistic and p-value
    piecewise constant (NOTE [rank statistics read, not differentiated])."""
    _propagate(kwargs.get("nan_policy", "propagate"), name)
    samples = tuple(stop_gradient(fnp.asarray(s)) for s in samples)
    shape = _out_shape(samples, kwargs.get("axis", 0), keepdims)
    dt = numpy.result_type(*(s.dtype for s in samples))  # SciPy's: float32 stays float32
    dt = dt if dt.kind == "f" else numpy.dtype(numpy.float64)
    out = ShapeDtypeStruct(shape, dt)

    def call(*values: Any) -> tuple:
        res = getattr(_scipy_stats(), name)(*values, keepdims=keepdims, **kwargs)
        return tuple(numpy.asarray(v, dtype=dt) for v in (res[0], res[1]))

    stat, p = pure_callback(call, (out, out), *samples, vmap_method="sequential")
    return result(statistic=stat, pvalue=p)


def mannwhitneyu(
    x: Any,
    y: Any,
    use_continuity: bool = True,
    alternative: str = "two-sided",
    axis: Any = 0,
    method: Any = "auto",
    *,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.mannwhitneyu``: the U statistic of ``x`` and its p-value, SciPy's
    (NOTE [rank statistics read, not differentiated]).

    Example:
        >>> import numpy as np
        >>> float(mannwhitneyu(np.array([1.0, 4.0]), np.array([2.0, 3.0, 5.0])).statistic)
        2.0
    """
    kw = dict(use_continuity=use_continuity, alternative=alternative, axis=axis, method=method)
    return _by_scipy(
        "mannwhitneyu", MannwhitneyuResult, (x, y), dict(kw, nan_policy=nan_policy), keepdims
    )


def kruskal(
    *samples: Any, nan_policy: str = "propagate", axis: Any = 0, keepdims: bool = False
) -> Any:
    """``scipy.stats.kruskal``: the Kruskal-Wallis H statistic and its p-value, SciPy's
    (NOTE [rank statistics read, not differentiated]).

    Example:
        >>> import numpy as np
        >>> round(float(kruskal(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])).statistic), 6)
        3.0
    """
    return _by_scipy(
        "kruskal", KruskalResult, samples, dict(nan_policy=nan_policy, axis=axis), keepdims
    )


def wilcoxon(
    x: Any,
    y: Any = None,
    zero_method: str = "wilcox",
    correction: bool = False,
    alternative: str = "two-sided",
    method: Any = "auto",
    *,
    axis: Any = 0,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.wilcoxon``: the signed-rank statistic of ``x`` (or ``x - y``) and its
    p-value, SciPy's (NOTE [rank statistics read, not differentiated]).

    Example:
        >>> import numpy as np
        >>> float(wilcoxon(np.array([1.0, -2.0, 3.0, 4.0, -0.5])).statistic)
        4.0
    """
    kw = dict(
        zero_method=zero_method,
        correction=correction,
        alternative=alternative,
        method=method,
        axis=axis,
        nan_policy=nan_policy,
    )
    samples = (x,) if y is None else (x, y)
    return _by_scipy("wilcoxon", WilcoxonResult, samples, kw, keepdims)


def ansari(
    x: Any,
    y: Any,
    alternative: str = "two-sided",
    *,
    axis: Any = 0,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.ansari``: the Ansari-Bradley statistic and its p-value, SciPy's
    (NOTE [rank statistics read, not differentiated]).

    Example:
        >>> import numpy as np
        >>> float(ansari(np.array([1.0, 4.0, 2.0]), np.array([3.0, 5.0, 0.0])).statistic)
        7.0
    """
    kw = dict(alternative=alternative, axis=axis, nan_policy=nan_policy)
    return _by_scipy("ansari", AnsariResult, (x, y), kw, keepdims)


def brunnermunzel(
    x: Any,
    y: Any,
    alternative: str = "two-sided",
    distribution: str = "t",
    nan_policy: str = "propagate",
    *,
    axis: Any = 0,
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.brunnermunzel``: the Brunner-Munzel statistic and its p-value,
    SciPy's (NOTE [rank statistics read, not differentiated]).

    Example:
        >>> import numpy as np
        >>> x, y = np.array([1.0, 4.0, 2.0, 6.0]), np.array([3.0, 5.0, 7.0, 8.0])
        >>> round(float(brunnermunzel(x, y).statistic), 6)
        1.846372
    """
    kw = dict(alternative=alternative, distribution=distribution, axis=axis)
    return _by_scipy(
        "brunnermunzel", BrunnerMunzelResult, (x, y), dict(kw, nan_policy=nan_policy), keepdims
    )


def fligner(
    *samples: Any,
    center: str = "median",
    proportiontocut: float = 0.05,
    axis: Any = 0,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.fligner``: the Fligner-Killeen statistic and its p-value, SciPy's
    (NOTE [rank statistics read, not differentiated]).

    Example:
        >>> import numpy as np
        >>> x, y = np.array([1.0, 4.0, 2.0, 6.0, 9.0]), np.array([3.0, 5.0, 7.0, 8.0])
        >>> round(float(fligner(x, y).statistic), 6)
        0.531867
    """
    kw = dict(center=center, proportiontocut=proportiontocut, axis=axis, nan_policy=nan_policy)
    return _by_scipy("fligner", FlignerResult, samples, kw, keepdims)


def friedmanchisquare(
    *samples: Any, axis: Any = 0, nan_policy: str = "propagate", keepdims: bool = False
) -> Any:
    """``scipy.stats.friedmanchisquare``: Friedman's statistic of repeated measures and its
    p-value, SciPy's (NOTE [rank statistics read, not differentiated]).

    Example:
        >>> import numpy as np
        >>> a, b, c = np.array([1.0, 2.0, 3.0]), np.array([2.0, 3.0, 4.0]), np.array([3.0, 1, 5])
        >>> round(float(friedmanchisquare(a, b, c).statistic), 6)
        2.0
    """
    kw = dict(axis=axis, nan_policy=nan_policy)
    return _by_scipy("friedmanchisquare", FriedmanchisquareResult, samples, kw, keepdims)


def mood(
    x: Any,
    y: Any,
    axis: Any = 0,
    alternative: str = "two-sided",
    *,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.mood``: Mood's test of equal scale, its z statistic and p-value,
    SciPy's (NOTE [rank statistics read, not differentiated]).

    Example:
        >>> import numpy as np
        >>> x, y = np.array([1.0, 4.0, 2.0, 6.0, 9.0, 10.0]), np.array([3.0, 5.0, 7.0, 8.0])
        >>> round(float(mood(x, y).statistic), 6)
        1.51695
    """
    kw = dict(axis=axis, alternative=alternative, nan_policy=nan_policy)
    return _by_scipy("mood", SignificanceResult, (x, y), kw, keepdims)


# -- Kolmogorov-Smirnov against a distribution -----------------------------------------------


def _sf_value(dist: str, d: Any, *shape: Any) -> Any:
    out = ShapeDtypeStruct(numpy.shape(d), numpy.float64)
    fn = getattr(_scipy_stats(), dist)
    return pure_callback(
        lambda v: numpy.asarray(fn.sf(v, *shape), dtype=numpy.float64),
        out,
        d,
        vmap_method="sequential",
    )


def _pdf_value(dist: str, d: Any, *shape: Any) -> Any:
    out = ShapeDtypeStruct(numpy.shape(d), numpy.float64)
    fn = getattr(_scipy_stats(), dist)
    return pure_callback(
        lambda v: numpy.asarray(fn.pdf(v, *shape), dtype=numpy.float64),
        out,
        d,
        vmap_method="sequential",
    )


_SF: dict[str, Any] = {}


def _ks_sf(dist: str, d: Any, *shape: Any) -> Any:
    """SciPy's ``<dist>.sf(d, *shape)`` (a static ``shape``), differentiable in ``d``."""
    key = f"{dist}{shape}"
    fn = _SF.get(key)
    if fn is None:

        def sf(v: Any) -> Any:
            return _sf_value(dist, v, *shape)

        fn = custom_jvp(sf)

        @fn.defjvp
        def _(primals: tuple, tangents: tuple) -> tuple:
            (v,), (t,) = primals, tangents
            return fn(v), -_pdf_value(dist, v, *shape) * t

        _SF[key] = fn
    return fn(d)


def _compute_d(cdfvals: Any, xs: Any, sign: int) -> tuple:
    n = cdfvals.shape[-1]
    if sign > 0:
        d = fnp.arange(1.0, n + 1.0) / n - cdfvals
    else:
        d = cdfvals - fnp.arange(0.0, n) / n
    at = fnp.argmax(d, axis=-1, keepdims=True)
    take = fnp.take_along_axis
    return take(d, at, axis=-1)[..., 0], take(xs, at, axis=-1)[..., 0]


def ks_1samp(
    x: Any,
    cdf: Any,
    args: tuple = (),
    alternative: str = "two-sided",
    method: str = "auto",
    *,
    axis: Any = 0,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.ks_1samp``: the Kolmogorov-Smirnov distance of the data's empirical
    cdf from ``cdf`` (a callable, e.g. ``scipy.stats.norm.cdf``), differentiable in the
    data and in ``args``, with SciPy's p-value (``method``: ``'exact'``/``'auto'``,
    ``'asymp'``, ``'approx'``).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.stats import norm
        >>> res = ks_1samp(np.array([0.0, 1.0, 2.0, 3.0, 4.0]), norm.cdf)
        >>> round(float(res.statistic), 6), round(float(res.pvalue), 6)
        (0.641345, 0.015933)
    """
    _propagate(nan_policy, "ks_1samp")
    alternative = {"t": "two-sided", "g": "greater", "l": "less"}.get(
        str(alternative).lower()[:1], alternative
    )
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"scipy.stats.ks_1samp(x, cdf, alternative=...): got {alternative!r}")
    src = x
    x = _float(x)
    if axis is None:
        x, axis = fnp.ravel(x), 0
    xs = fnp.sort(fnp.moveaxis(x, axis, -1), axis=-1)
    n = xs.shape[-1]
    cdfvals = cdf(xs, *args)
    if alternative == "greater":
        d, loc = _compute_d(cdfvals, xs, +1)
        sign, p = fnp.ones(d.shape, numpy.int8), _ks_sf("ksone", d, n)
    elif alternative == "less":
        d, loc = _compute_d(cdfvals, xs, -1)
        sign, p = -fnp.ones(d.shape, numpy.int8), _ks_sf("ksone", d, n)
    else:
        dp, lp = _compute_d(cdfvals, xs, +1)
        dm, lm = _compute_d(cdfvals, xs, -1)
        plus = dp > dm
        d, loc = fnp.where(plus, dp, dm), fnp.where(plus, lp, lm)
        sign = fnp.where(plus, numpy.int8(1), numpy.int8(-1)).astype(numpy.int8)
        if method in ("auto", "exact"):
            p = _ks_sf("kstwo", d, n)
        elif method == "asymp":
            p = _ks_sf("kstwobign", d * math.sqrt(n))
        else:
            p = 2 * _ks_sf("ksone", d, n)
        p = fnp.clip(p, 0.0, 1.0)
    p = p.astype(x.dtype)  # (SciPy's p-value has the data's precision)
    if keepdims:
        ax = axis % fnp.ndim(src) if numpy.ndim(src) else 0
        kept = (1,) * fnp.ndim(src) if fnp.ndim(src) != fnp.ndim(x) else None
        d, p, loc, sign = (
            fnp.reshape(v, kept) if kept is not None else fnp.expand_dims(v, ax)
            for v in (d, p, loc, sign)
        )
    return KstestResult(statistic=d, pvalue=p, statistic_location=loc, statistic_sign=sign)


def kstest(
    rvs: Any,
    cdf: Any,
    args: tuple = (),
    N: int = 20,  # noqa: N803  (SciPy's name)
    alternative: str = "two-sided",
    method: str = "auto",
    *,
    axis: Any = 0,
    nan_policy: str = "propagate",
    keepdims: bool = False,
) -> Any:
    """``scipy.stats.kstest``: :func:`ks_1samp` against ``cdf`` (a callable, or the name of
    a distribution that ``ftransforms.scipy.stats`` has), or SciPy's ``ks_2samp`` when
    ``cdf`` is a second sample.

    Example:
        >>> import numpy as np
        >>> round(float(kstest(np.array([0.0, 1.0, 2.0, 3.0, 4.0]), "norm").statistic), 6)
        0.641345
    """
    del N  # (only for a distribution name given as rvs)
    if isinstance(rvs, str):
        raise UnsupportedOperationError(
            f"scipy.stats.kstest(rvs={rvs!r}, cdf, ...) on traced values: draw the sample "
            "first (rvs must be the data, an array)"
        )
    kw = dict(alternative=alternative, method=method, axis=axis, nan_policy=nan_policy)
    if isinstance(cdf, str):
        from ftransforms.scipy import stats  # noqa: PLC0415  late import: stats imports this module

        dist = getattr(stats, cdf, None)
        if dist is None or not hasattr(dist, "cdf"):
            raise UnsupportedOperationError(
                f"scipy.stats.kstest(rvs, cdf={cdf!r}) on traced values: ftransforms.scipy."
                "stats has no such distribution; pass its cdf as a callable"
            )
        cdf = dist.cdf
    if not callable(cdf):
        two = _scipy_stats().ks_2samp
        return two(rvs, cdf, keepdims=keepdims, **kw)
    return ks_1samp(rvs, cdf, args, keepdims=keepdims, **kw)
