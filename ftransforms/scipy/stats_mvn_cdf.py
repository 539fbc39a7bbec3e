"""The multivariate normal cdf on tracers: ``P(X <= u)`` for ``X ~ N(0, C)``.

NOTE [multivariate normal cdf]: the value is SciPy's (``multivariate_normal.cdf``: exact
in two dimensions, Genz's randomized quasi-Monte Carlo to ``abseps``/``releps`` beyond),
one row at a time on the host.  Its derivatives are the Gaussian identities, written
with the same cdf in fewer dimensions, so every order works:

* ``dPhi/du_i = phi(u_i; C_ii) Phi_{d-1}(u_rest - C_rest,i u_i / C_ii; C_rest|i)``, the
  density of the i-th margin times the cdf of the others given it;
* Plackett's identity ``dPhi/dC_ij = d2Phi/du_i du_j`` (``i != j``, counting ``C_ij`` and
  ``C_ji`` together) ``= phi_2(u_i, u_j) Phi_{d-2}(rest given both)``, and the diagonal
  from the scale invariance ``Phi(a u; D C D) = Phi(u; C)``:
  ``d2Phi/du_i^2 = -(u_i g_i + sum_{j != i} H_ij C_ij) / C_ii``, ``dPhi/dC_ii = H_ii / 2``.

So ``dPhi = g . du + 1/2 sum_ij H_ij dC_ij`` for a symmetric ``dC`` (the caller
symmetrizes ``C``).  With ``d`` dimensions one derivative costs ``d`` cdfs in ``d - 1``
and ``d (d - 1) / 2`` in ``d - 2`` dimensions.

Example:
    >>> import numpy as np
    >>> round(float(mvn_cdf(np.zeros((1, 2)), np.eye(2)[None])[0]), 6)  # 1/2 * 1/2
    0.25
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.primitive import Primitive
from ftransforms.ops.scipy_ops import _host, _scipy
from ftransforms.scipy import special as fsp

__all__ = ["mvn_cdf"]


def _impl(xp: Any, u: Any, cov: Any, *, maxpts: Any, abseps: float, releps: float) -> Any:
    u, cov = _host(xp, u), _host(xp, cov)
    theirs = _scipy("stats").multivariate_normal
    theirs = getattr(theirs, "__wrapped__", theirs)
    d = u.shape[-1]
    out = numpy.empty(u.shape[0], dtype=numpy.result_type(u, cov, numpy.float64))
    for k in range(u.shape[0]):
        out[k] = theirs.cdf(
            u[k], mean=numpy.zeros(d), cov=cov[k], maxpts=maxpts, abseps=abseps, releps=releps
        )
    return xp.asarray(out)


def _cdf(u: Any, cov: Any, params: dict) -> Any:
    """``Phi_d`` of rows ``u`` ``(n, d)`` with covariances ``cov`` ``(n, d, d)``; 1 for
    ``d = 0``, the normal cdf for ``d = 1``."""
    d = fnp.shape(u)[-1]
    if d == 0:
        return fnp.ones(fnp.shape(u)[:1], dtype=u.dtype, like=u)
    if d == 1:
        return fsp.ndtr(u[:, 0] / fnp.sqrt(cov[:, 0, 0]))
    return mvn_cdf_p.bind(u, cov, **params)


def _given(u: Any, cov: Any, keep: list, cond: list) -> tuple:
    """The rows ``keep`` of ``u - E[X | X_cond = u_cond]`` and their conditional covariance."""
    c = cov[:, keep][:, :, cond]  # (n, k, m)
    b = cov[:, cond][:, :, cond]  # (n, m, m)
    w = fnp.linalg.solve(b, fnp.swapaxes(c, 1, 2))  # B^-1 c^T: (n, m, k)
    shift = fnp.matmul(u[:, None, cond], w)[:, 0, :]
    return u[:, keep] - shift, cov[:, keep][:, :, keep] - fnp.matmul(c, w)


def _gradient_and_hessian(u: Any, cov: Any, params: dict) -> tuple:
    """``g`` ``(n, d)`` and ``H`` ``(n, d, d)`` (NOTE [multivariate normal cdf])."""
    d = fnp.shape(u)[-1]
    g = []
    for i in range(d):
        rest = [k for k in range(d) if k != i]
        s2 = cov[:, i, i]
        dens = fnp.exp(-0.5 * u[:, i] ** 2 / s2) / fnp.sqrt(2.0 * math.pi * s2)
        ur, cr = _given(u, cov, rest, [i])
        g.append(dens * _cdf(ur, cr, params))
    g = fnp.stack(g, axis=-1)
    off = {}
    for i in range(d):
        for j in range(i + 1, d):
            pair, rest = [i, j], [k for k in range(d) if k not in (i, j)]
            b = cov[:, pair][:, :, pair]
            det = b[:, 0, 0] * b[:, 1, 1] - b[:, 0, 1] * b[:, 1, 0]
            v = u[:, pair]
            quad = (b[:, 1, 1] * v[:, 0] ** 2 - 2.0 * b[:, 0, 1] * v[:, 0] * v[:, 1]
                    + b[:, 0, 0] * v[:, 1] ** 2) / det  # fmt: skip
            dens = fnp.exp(-0.5 * quad) / (2.0 * math.pi * fnp.sqrt(det))
            ur, cr = _given(u, cov, rest, pair)
            off[i, j] = off[j, i] = dens * _cdf(ur, cr, params)
    rows = []
    for i in range(d):
        others = sum(off[i, j] * cov[:, i, j] for j in range(d) if j != i)
        diag = -(u[:, i] * g[:, i] + others) / cov[:, i, i]
        rows.append(fnp.stack([diag if j == i else off[i, j] for j in range(d)], axis=-1))
    return g, fnp.stack(rows, axis=-2)


def _jvp(tangents: tuple, out: Any, u: Any, cov: Any, **params: Any) -> Any:
    du, dcov = tangents
    g, h = _gradient_and_hessian(u, cov, params)
    total = fnp.zeros_like(out)
    if du is not None:
        total = total + fnp.sum(g * du, axis=-1)
    if dcov is not None:
        total = total + 0.5 * fnp.sum(h * dcov, axis=(-2, -1))
    return total


def _vjp(ct: Any, out: Any, u: Any, cov: Any, *, wanted: tuple, **params: Any) -> tuple:
    g, h = _gradient_and_hessian(u, cov, params)
    du = ct[:, None] * g if wanted[0] else None
    dcov = 0.5 * ct[:, None, None] * h if wanted[1] else None
    return du, dcov


def _batch(prim: Any, args: tuple, bdims: tuple, axis_size: int, **params: Any) -> tuple:
    """Rows of a batch are more rows: the batch axis joins the leading one."""
    u, cov = (
        fnp.moveaxis(a, b, 0) if b is not None else fnp.broadcast_to(a, (axis_size,) + a.shape)
        for a, b in zip(args, bdims)
    )
    n, d = fnp.shape(u)[1], fnp.shape(u)[2]
    out = prim.bind(
        fnp.reshape(u, (axis_size * n, d)), fnp.reshape(cov, (axis_size * n, d, d)), **params
    )
    return fnp.reshape(out, (axis_size, n)), 0


mvn_cdf_p = Primitive("mvn_cdf", _impl, jvp=_jvp, vjp=_vjp, batch=_batch)


def mvn_cdf(
    u: Any, cov: Any, maxpts: Any = None, abseps: float = 1e-5, releps: float = 1e-5
) -> Any:
    """``P(X <= u)`` for ``X ~ N(0, cov)``: ``u`` ``(n, d)``, ``cov`` ``(n, d, d)``
    symmetric positive definite; SciPy's value, differentiable in both (NOTE
    [multivariate normal cdf]).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> g = ft.grad(lambda u: mvn_cdf(u[None], np.eye(2)[None])[0])(np.zeros(2))
        >>> np.round(g, 6).tolist()  # phi(0) Phi(0)
        [0.199471, 0.199471]
    """
    params = {"maxpts": maxpts, "abseps": float(abseps), "releps": float(releps)}
    return _cdf(u, cov, params)
