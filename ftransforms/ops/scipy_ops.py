"""Primitives of ``ftransforms.scipy`` (stats and linalg) that only SciPy can evaluate, all
without a derivative: the differentiable functions are built on them in
``ftransforms/scipy/`` (the implicit-function derivative of a quantile, the elimination
that follows a pivoting order).

* ``scipy_ppf(q, *shape, dist, method="ppf")``: ``scipy.stats.<dist>.<method>(q, *shape)``
  (``method`` is ``"ppf"`` or ``"isf"``), elementwise.
* ``lu_row_order(a)``: ``(order, piv)``, the row order of LU with partial pivoting,
  ``a[..., order, :] = L @ U`` with ``L`` unit lower triangular, and LAPACK's pivots
  (``scipy.linalg.lu_factor``'s ``piv``).

SciPy is imported on first use, with an :class:`ImportError` naming the extra.
"""

from __future__ import annotations

import warnings

import numpy

from ftransforms.core.primitive import defop


def _scipy(module: str):
    try:
        if module == "stats":
            import scipy.stats as mod  # noqa: PLC0415  (optional, imported on first use)
        else:
            import scipy.linalg as mod  # noqa: PLC0415  (optional, imported on first use)
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"ftransforms.scipy.{module}: this function is evaluated with scipy.{module}, and "
            f"SciPy is not installed; install it with `pip install 'ftransforms[scipy]'`."
        ) from err
    return mod


def _host(xp, x):
    """A NumPy array of ``x`` (CuPy arrays are copied to the host: SciPy runs there)."""
    get = getattr(x, "get", None)
    return numpy.asarray(get() if get is not None and xp is not numpy else x)


def _ppf_impl(xp, q, *shape, dist, method="ppf"):
    q, shape = _host(xp, q), [_host(xp, s) for s in shape]
    dt = numpy.result_type(q, *shape)
    dt = dt if dt.kind == "f" else numpy.dtype(numpy.float64)
    out = getattr(getattr(_scipy("stats"), dist), method)(q, *shape)
    return xp.asarray(numpy.asarray(out, dtype=dt))


scipy_ppf_p = defop(
    "scipy_ppf",
    _ppf_impl,
    nondiff=True,
    family="elementwise",
    doc="``scipy.stats.<dist>.ppf(q, *shape)`` (no derivative; see ftransforms.scipy.stats).",
)


def _lu_order_impl(xp, a):
    a = _host(xp, a)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    order = numpy.empty(batch + (m,), dtype=numpy.intp)
    piv = numpy.empty(batch + (k,), dtype=numpy.int32)
    factor = _scipy("linalg").lu_factor
    for idx in numpy.ndindex(*batch):
        if k:
            with warnings.catch_warnings():  # a singular matrix: only the pivots are used
                warnings.simplefilter("ignore")
                p = numpy.asarray(factor(a[idx], check_finite=False)[1][:k])
        else:
            p = numpy.zeros(0, dtype=numpy.int32)
        rows = numpy.arange(m)
        for i, j in enumerate(p):
            rows[i], rows[j] = rows[j], rows[i]
        order[idx] = rows
        piv[idx] = p
    return xp.asarray(order), xp.asarray(piv)


lu_row_order_p = defop(
    "lu_row_order",
    _lu_order_impl,
    nondiff=True,
    multiple_results=True,
    doc="LU with partial pivoting's row order (``a[order] = L @ U``) and LAPACK's pivots "
    "``piv`` (row ``i`` swapped with ``piv[i]``), without derivative.",
)

__all__ = ["lu_row_order_p", "scipy_ppf_p"]
