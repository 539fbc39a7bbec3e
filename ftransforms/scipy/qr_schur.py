"""``qr_multiply`` and ``rsf2csf`` of ``ftransforms.scipy.linalg`` (``scipy.linalg``'s,
``jax.scipy.linalg``'s), as ``fnp`` compositions so that the transforms apply.

``qr_multiply`` is the economic ``fnp.linalg.qr`` times ``c``; with ``pivoting`` the
column order is SciPy's (LAPACK's ``geqp3`` on the values, read on the host: piecewise
constant, no derivative) and the QR is that of the permuted columns.  ``rsf2csf`` turns a
real Schur form into a complex one with one Givens rotation per 2x2 block (SciPy's
algorithm); whether a subdiagonal entry counts as nonzero is read from the values.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.linalg import qr_multiply
    >>> cq, r = qr_multiply(np.eye(2), np.array([1.0, 2.0]), "left")
    >>> np.abs(cq).tolist()
    [1.0, 2.0]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.callbacks import pure_callback
from ftransforms.numpy.helpers import dtype_of
from ftransforms.numpy.ufuncs import float_input
from ftransforms.shape_eval import ShapeDtypeStruct

__all__ = ["qr_multiply", "rsf2csf"]


def qr_pivots(a: Any) -> Any:
    """SciPy's column order of the pivoted QR of ``a`` (computed on the host)."""

    def host(a: numpy.ndarray) -> numpy.ndarray:
        import scipy.linalg  # noqa: PLC0415  (optional: LAPACK's pivoting order)

        return scipy.linalg.qr(numpy.asarray(a), mode="r", pivoting=True)[1].astype(numpy.int32)

    spec = ShapeDtypeStruct((fnp.shape(a)[1],), numpy.dtype(numpy.int32))
    return pure_callback(host, spec, fnp.stop_gradient(a), vmap_method="sequential")


def qr_multiply(
    a: Any,
    c: Any,
    mode: str = "right",
    pivoting: bool = False,
    conjugate: bool = False,
    overwrite_a: bool = False,
    overwrite_c: bool = False,
) -> tuple[Any, ...]:
    """The economic QR of ``a`` (``(M, N)``, ``K = min(M, N)``) with ``Q`` applied to
    ``c``, as ``scipy.linalg.qr_multiply``: ``mode='left'`` gives ``(Q @ c, R)`` for ``c``
    of shape ``(K,)`` or ``(K, P)``; ``'right'`` ``(c @ Q, R)`` for ``(M,)`` or
    ``(P, M)``; ``conjugate`` uses ``conj(Q)``; ``pivoting`` appends the column order
    ``P`` (``a[:, P] = Q R``).  ``overwrite_*`` are accepted (inputs are never changed).

    Example:
        >>> import numpy as np
        >>> a = np.array([[3.0, 1.0], [4.0, 2.0]])
        >>> cq, r = qr_multiply(a, np.eye(2))  # c @ Q = Q
        >>> bool(np.allclose(cq @ r, a))
        True
    """
    where = "qr_multiply"
    if mode not in ("left", "right"):
        raise ValueError(f"{where}(mode={mode!r}): mode must be 'left' or 'right'")
    a = float_input(fnp.asarray(a), None)
    c = float_input(fnp.asarray(c), None)
    if fnp.ndim(a) != 2:
        raise ValueError(f"{where}: a must be a matrix, got shape {fnp.shape(a)}")
    m, n = fnp.shape(a)
    k = min(m, n)
    want = k if mode == "left" else m
    vector = fnp.ndim(c) == 1
    axis = 0 if mode == "left" or vector else 1
    if fnp.ndim(c) not in (1, 2) or fnp.shape(c)[axis] != want:
        form = f"({k},) or ({k}, P)" if mode == "left" else f"({m},) or (P, {m})"
        raise ValueError(f"{where}(mode={mode!r}): c must have shape {form}, got {fnp.shape(c)}")
    perm = None
    if pivoting:
        perm = qr_pivots(a)
        a = fnp.take(a, perm, axis=1)
    q, r = fnp.linalg.qr(a, mode="reduced")
    if conjugate:
        q = fnp.conj(q)
    out = fnp.matmul(q, c) if mode == "left" else fnp.matmul(c, q)
    return (out, r) if perm is None else (out, r, perm)


def rsf2csf(T: Any, Z: Any, check_finite: bool = True) -> tuple[Any, Any]:  # noqa: N803
    """The complex Schur form ``(T, Z)`` of a real one (``scipy.linalg.rsf2csf``): each
    2x2 block of ``T`` (a complex pair of eigenvalues) is made upper triangular by a
    rotation, applied to ``Z`` too, so ``Z T Z^H`` is unchanged.

    Example:
        >>> import numpy as np
        >>> T = np.array([[1.0, 2.0], [-2.0, 1.0]])  # eigenvalues 1 +- 2i
        >>> Tc, Zc = rsf2csf(T, np.eye(2))
        >>> np.round(np.diag(Tc), 6).tolist(), bool(np.allclose(Zc @ Tc @ Zc.conj().T, T))
        ([(1+2j), (1-2j)], True)
    """
    where = "rsf2csf"
    T, Z = fnp.asarray(T), fnp.asarray(Z)
    for name, x in (("T", T), ("Z", Z)):
        if fnp.ndim(x) != 2 or fnp.shape(x)[0] != fnp.shape(x)[1]:
            raise ValueError(f"{where}: {name} must be square, got shape {fnp.shape(x)}")
    if fnp.shape(T) != fnp.shape(Z):
        raise ValueError(
            f"{where}: T and Z must have the same shape, got {fnp.shape(T)}, {fnp.shape(Z)}"
        )
    if check_finite and not (bool(fnp.all(fnp.isfinite(T))) and bool(fnp.all(fnp.isfinite(Z)))):
        raise ValueError(f"{where}: T and Z must hold finite numbers (check_finite=True)")
    kind = numpy.result_type(dtype_of(T), dtype_of(Z), numpy.complex64)
    T, Z = T.astype(kind), Z.astype(kind)
    n = fnp.shape(T)[0]
    eps = numpy.finfo(numpy.float64).eps
    for m in range(n - 1, 0, -1):
        sub = T[m, m - 1]
        if bool(fnp.abs(sub) > eps * (fnp.abs(T[m - 1, m - 1]) + fnp.abs(T[m, m]))):
            a, b, cc, d = T[m - 1, m - 1], T[m - 1, m], sub, T[m, m]
            half = (a - d) / 2
            mu = half + fnp.sqrt(half * half + b * cc)  # (a + d) / 2 + root - d
            r = fnp.sqrt(fnp.abs(mu) ** 2 + fnp.abs(sub) ** 2)
            c, s = mu / r, sub / r
            G = fnp.stack([fnp.stack([fnp.conj(c), s]), fnp.stack([-s, c])])
            GH = fnp.conj(fnp.transpose(G))
            T = fnp.at(T)[m - 1 : m + 1, m - 1 :].set(fnp.matmul(G, T[m - 1 : m + 1, m - 1 :]))
            T = fnp.at(T)[: m + 1, m - 1 : m + 1].set(fnp.matmul(T[: m + 1, m - 1 : m + 1], GH))
            Z = fnp.at(Z)[:, m - 1 : m + 1].set(fnp.matmul(Z[:, m - 1 : m + 1], GH))
        T = fnp.at(T)[m, m - 1].set(0.0)
    return T, Z
