"""``ftransforms.scipy.special``: ``scipy.special`` functions with every transform's rules.

``erf``, ``erfc``, ``erfinv``, ``gammaln``, ``digamma`` and ``polygamma`` evaluate with
``scipy.special`` (``cupyx.scipy.special`` for CuPy), imported on first use: SciPy is an
optional dependency (``pip install scipy``).  The others need NumPy only.  The ufuncs
among them also dispatch from SciPy itself: ``scipy.special.erf(tracer)`` works.

Conventions follow JAX: ``xlogy(0, y) = 0`` with derivative ``log(y)`` in ``x``;
``logsumexp``, ``softmax`` and ``log_softmax`` subtract the maximum under
:func:`~ftransforms.numpy.stop_gradient`, so they neither overflow nor carry its derivative
(the gradient of ``logsumexp`` is ``softmax``).  ``softmax`` and ``log_softmax`` default
to ``axis=None``, as SciPy's do (``jax.nn``'s default to the last axis).

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.special import erf
    >>> float(grad(erf)(0.0))  # 2 / sqrt(pi)
    1.1283791670955126
"""

from __future__ import annotations

from typing import Any

import ftransforms.numpy as fnp
from ftransforms.ops import special as _sp

__all__ = [
    "digamma",
    "erf",
    "erfc",
    "erfinv",
    "expit",
    "gammaln",
    "log_softmax",
    "logit",
    "logsumexp",
    "polygamma",
    "psi",
    "softmax",
    "xlog1py",
    "xlogy",
]

expit = _sp.expit_p
erf = _sp.erf_p
erfc = _sp.erfc_p
erfinv = _sp.erfinv_p
gammaln = _sp.gammaln_p
digamma = psi = _sp.digamma_p
xlogy = _sp.xlogy_p
xlog1py = _sp.xlog1py_p
ndtr = _sp.ndtr_p
ndtri = _sp.ndtri_p
log_ndtr = _sp.log_ndtr_p
gammainc = _sp.gammainc_p
gammaincc = _sp.gammaincc_p
beta = _sp.beta_p
betaln = _sp.betaln_p
betainc = _sp.betainc_p


def polygamma(n: Any, x: Any) -> Any:
    """``scipy.special.polygamma``: the ``n``-th derivative of digamma (integer ``n``)."""
    if fnp._dtype(n).kind not in "iu":
        raise TypeError(f"polygamma: n must be an integer (array), got dtype {fnp._dtype(n)}")
    return _sp.polygamma_p.bind(n, x)


def logit(x: Any) -> Any:
    """``scipy.special.logit``: ``log(x / (1 - x))``, the inverse of :func:`expit`."""
    return fnp.log(x / (1 - x))


def _max_shift(a: Any, axis: Any) -> Any:
    """The maximum over ``axis`` (kept), without derivative, 0 where it is not finite."""
    m = fnp.max(fnp.stop_gradient(a), axis=axis, keepdims=True)
    return fnp.where(fnp.isfinite(m), m, fnp.zeros((), fnp._dtype(m), like=m))


def logsumexp(
    a: Any, axis: Any = None, b: Any = None, keepdims: bool = False, return_sign: bool = False
) -> Any:
    """``scipy.special.logsumexp``: ``log(sum(b * exp(a)))`` over ``axis``, stably.

    The maximum is subtracted under ``stop_gradient``, so the derivative in ``a`` is
    ``b * exp(a - out)`` (``softmax`` for ``b=None``).  Elements with ``b == 0`` are left
    out (as in JAX: even an infinite ``a`` there contributes nothing).  With
    ``return_sign`` the result is ``(log|s|, sign(s))``.
    """
    a = fnp._float_input(a, None)
    if b is not None:
        a, b = fnp.broadcast_arrays(a, b)
        a = fnp.where(b != 0, a, fnp.full((), -fnp.inf, fnp._dtype(a), like=a))
        shift = _max_shift(a, axis)
        total = fnp.sum(b * fnp.exp(a - shift), axis=axis, keepdims=True)
    else:
        shift = _max_shift(a, axis)
        total = fnp.sum(fnp.exp(a - shift), axis=axis, keepdims=True)
    if return_sign:
        sign = fnp.sign(total)
        total = fnp.abs(total)
    out = fnp.log(total) + shift
    if not keepdims:
        axes = fnp._normalize_axes(axis, fnp.ndim(out))
        out = fnp.squeeze(out, axis=axes)
        if return_sign:
            sign = fnp.squeeze(sign, axis=axes)
    return (out, sign) if return_sign else out


def softmax(x: Any, axis: Any = None) -> Any:
    """``scipy.special.softmax``: ``exp(x) / sum(exp(x))`` over ``axis`` (default: all)."""
    x = fnp._float_input(x, None)
    e = fnp.exp(x - _max_shift(x, axis))
    return e / fnp.sum(e, axis=axis, keepdims=True)


def log_softmax(x: Any, axis: Any = None) -> Any:
    """``scipy.special.log_softmax``: ``x - logsumexp(x)`` over ``axis`` (default: all)."""
    x = fnp._float_input(x, None)
    shifted = x - _max_shift(x, axis)
    return shifted - fnp.log(fnp.sum(fnp.exp(shifted), axis=axis, keepdims=True))


#: scipy.special ufunc name -> the function here (``scipy.special.erf(tracer)`` works).
UFUNCS = {
    "erf": erf,
    "erfc": erfc,
    "erfinv": erfinv,
    "gammaln": gammaln,
    "psi": digamma,
    "expit": expit,
    "logit": logit,
    "xlogy": xlogy,
    "xlog1py": xlog1py,
}
