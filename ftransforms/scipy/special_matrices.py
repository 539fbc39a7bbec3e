"""``ftransforms.scipy.linalg``'s remaining matrix builders and ``eigh_tridiagonal``, as
``scipy.linalg`` defines them (``jax.scipy.linalg``'s names).

The builders of an array argument (``convolution_matrix``, ``fiedler``,
``fiedler_companion``, ``leslie``) are ``fnp`` compositions, differentiable and batched in
it; those of a size only (``dft``, ``hadamard``, ``helmert``, ``hilbert``, ``invhilbert``,
``pascal``, ``invpascal``) are constants.  ``eigh_tridiagonal`` builds the Hermitian
tridiagonal matrix and takes ``fnp.linalg.eigh`` of it, so its eigenvalues and
eigenvectors have ``eigh``'s derivatives (``jax.scipy.linalg.eigh_tridiagonal`` returns
eigenvalues only).

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.linalg import eigh_tridiagonal
    >>> w = eigh_tridiagonal(np.array([2.0, 2.0]), np.array([1.0]), eigvals_only=True)
    >>> np.round(w, 6).tolist()
    [1.0, 3.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import dtype_of
from ftransforms.numpy.ufuncs import float_input

__all__ = [
    "convolution_matrix",
    "dft",
    "eigh_tridiagonal",
    "fiedler",
    "fiedler_companion",
    "hadamard",
    "helmert",
    "hilbert",
    "invhilbert",
    "invpascal",
    "leslie",
    "pascal",
]


def _size(n: Any, where: str, least: int = 0) -> int:
    try:
        n = int(n.__index__())
    except (AttributeError, TypeError):
        raise TypeError(f"{where}: n must be an integer, got {n!r}") from None
    if n < least:
        raise ValueError(f"{where}: n must be at least {least}, got {n}")
    return n


# -- eigh_tridiagonal -----------------------------------------------------------------------


def eigh_tridiagonal(
    d: Any,
    e: Any,
    eigvals_only: bool = False,
    select: str = "a",
    select_range: Any = None,
    check_finite: bool = True,
    tol: Any = 0.0,
    lapack_driver: str = "auto",
    *,
    key: Any = None,
) -> Any:
    """The eigenvalues (ascending) and, unless ``eigvals_only``, eigenvectors (columns) of
    the Hermitian tridiagonal matrix with diagonal ``d`` and off-diagonal ``e``, as
    ``scipy.linalg.eigh_tridiagonal``: ``select='a'`` all, ``'v'`` those in
    ``(select_range[0], select_range[1]]``, ``'i'`` those of indices
    ``select_range[0]..select_range[1]``.  ``check_finite``, ``tol`` and
    ``lapack_driver`` are SciPy's solver settings, ``key`` JAX's (accepted; the dense
    ``eigh`` runs).
    Eigenvectors are unique up to sign (phase), as SciPy's.

    Example:
        >>> import numpy as np
        >>> w, v = eigh_tridiagonal(np.array([1.0, 1.0, 1.0]), np.array([1.0, 1.0]))
        >>> np.round(w, 6).tolist()
        [-0.414214, 1.0, 2.414214]
    """
    where = "eigh_tridiagonal"
    d = float_input(fnp.asarray(d), None)
    e = fnp.asarray(e)
    if fnp.ndim(d) != 1 or fnp.ndim(e) != 1:
        raise ValueError(
            f"{where}: d and e must be 1-d, got shapes {fnp.shape(d)} and {fnp.shape(e)}"
        )
    n = fnp.shape(d)[0]
    if fnp.shape(e)[0] != max(n - 1, 0):
        raise ValueError(
            f"{where}: e must have one entry fewer than d ({n - 1}), got {fnp.shape(e)[0]}"
        )
    if dtype_of(d).kind == "c":
        raise ValueError(f"{where}: d must be real (the diagonal of a Hermitian matrix)")
    if select not in ("a", "v", "i", "all", "value", "index"):
        raise ValueError(f"{where}(select={select!r}): select must be 'a', 'v' or 'i'")
    e = float_input(e, None)
    if check_finite:
        bad = ~(fnp.all(fnp.isfinite(d)) & fnp.all(fnp.isfinite(e)))
        if not _traced(d, e) and bool(bad):
            raise ValueError(f"{where}: d and e must hold finite numbers (check_finite=True)")
    dtype = numpy.result_type(dtype_of(d), dtype_of(e))
    t = (
        fnp.diag(d.astype(dtype))
        + fnp.diag(e.astype(dtype), 1)
        + fnp.diag(fnp.conj(e).astype(dtype), -1)
    )
    if eigvals_only:
        w, v = fnp.linalg.eigvalsh(t), None
    else:
        w, v = fnp.linalg.eigh(t)
    kind = select[0]
    if kind == "i":
        lo, hi = (int(s) for s in select_range)
        if not 0 <= lo <= hi < n:
            raise ValueError(
                f"{where}(select='i'): select_range must be indices 0 <= lo <= hi < {n}, "
                f"got {tuple(select_range)}"
            )
        w = w[lo : hi + 1]
        v = None if v is None else v[:, lo : hi + 1]
    elif kind == "v":
        lo, hi = select_range
        keep = numpy.asarray((w > lo) & (w <= hi))  # (the count decides the shape)
        w = w[keep]
        v = None if v is None else v[:, keep]
    return w if eigvals_only else (w, v)


def _traced(*xs: Any) -> bool:
    return any(not isinstance(x, numpy.ndarray) for x in xs)


# -- matrices of an array ------------------------------------------------------------------


def convolution_matrix(a: Any, n: int, mode: str = "full") -> Any:
    """The matrix ``A`` with ``A @ v == numpy.convolve(a, v, mode)`` for ``v`` of length
    ``n`` (``scipy.linalg.convolution_matrix``): Toeplitz, ``A[i, j] = a[i - j]`` for
    ``'full'``, its centred rows for ``'same'``, the rows where ``v`` fits for ``'valid'``.

    Example:
        >>> import numpy as np
        >>> convolution_matrix(np.array([1.0, 2.0]), 3).tolist()
        [[1.0, 0.0, 0.0], [2.0, 1.0, 0.0], [0.0, 2.0, 1.0], [0.0, 0.0, 2.0]]
    """
    where = "convolution_matrix"
    n = _size(n, where, 1)
    a = fnp.asarray(a)
    if fnp.ndim(a) != 1:
        raise ValueError(f"{where}: a must be 1-d, got shape {fnp.shape(a)}")
    m = fnp.shape(a)[0]
    if m == 0:
        raise ValueError(f"{where}: a must not be empty")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"{where}(mode={mode!r}): mode must be 'full', 'same' or 'valid'")
    rows = numpy.arange(n + m - 1)[:, None] - numpy.arange(n)[None, :]
    inside = (rows >= 0) & (rows < m)
    full = fnp.where(inside, fnp.take(a, numpy.clip(rows, 0, m - 1)), 0)
    if mode == "same":  # numpy.convolve's: max(m, n) samples from the centre
        start = (min(m, n) - 1) // 2
        return full[start : start + max(m, n)]
    if mode == "valid":
        start = min(m, n) - 1
        return full[start : start + max(m, n) - min(m, n) + 1]
    return full


def fiedler(a: Any) -> Any:
    """The symmetric Fiedler matrix ``F[i, j] = |a[i] - a[j]|`` (``scipy.linalg.fiedler``).

    Example:
        >>> import numpy as np
        >>> fiedler(np.array([1.0, 4.0, 2.0])).tolist()
        [[0.0, 3.0, 1.0], [3.0, 0.0, 2.0], [1.0, 2.0, 0.0]]
    """
    a = fnp.asarray(a)
    if fnp.ndim(a) == 0:
        raise ValueError("fiedler: a must have at least one dimension, got a scalar")
    return fnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a: Any) -> Any:
    """The Fiedler companion matrix of the polynomial with coefficients ``a`` (highest
    degree first, ``a[0] != 0``): pentadiagonal, with the polynomial's roots as
    eigenvalues (``scipy.linalg.fiedler_companion``).

    Example:
        >>> import numpy as np
        >>> c = fiedler_companion(np.array([1.0, -3.0, 2.0]))  # (x - 1)(x - 2)
        >>> np.round(np.sort(np.linalg.eigvals(c).real), 6).tolist()
        [1.0, 2.0]
    """
    where = "fiedler_companion"
    a = fnp.asarray(a)
    if fnp.ndim(a) != 1:
        raise ValueError(f"{where}: a must be 1-d, got shape {fnp.shape(a)}")
    size = fnp.shape(a)[0]
    if size <= 2:
        if size == 2:
            return fnp.reshape(-a[1] / a[0], (1, 1))
        return fnp.zeros((0,), dtype=numpy.result_type(dtype_of(a), numpy.float64))
    if not _traced(a) and a[0] == 0:
        raise ValueError(f"{where}: the leading coefficient a[0] must not be zero")
    c = -(a[1:] / a[0])  # the monic polynomial's coefficients below the leading one, negated
    n = size - 1
    # Fiedler's pentadiagonal layout: each even row r holds c[r] at column max(r - 1, 0),
    # c[r + 1] at r + 1 and 1 at r + 2; the next row a 1 at column max(r - 1, 0)
    rows, cols, which = [], [], []
    for r in range(0, n, 2):
        c0 = max(r - 1, 0)
        entries = [(r, c0, r), (r, r + 1, r + 1), (r, r + 2, -1), (r + 1, c0, -1)]
        for i, j, k in entries:
            if i < n and j < n:
                rows.append(i)
                cols.append(j)
                which.append(k)
    which = numpy.array(which)
    ones = fnp.ones_like(c[:1])
    values = fnp.take(fnp.concatenate([c, ones]), numpy.where(which < 0, n, which))
    out = fnp.zeros((n, n), dtype=dtype_of(values))
    return fnp.at(out)[numpy.array(rows), numpy.array(cols)].set(values)


def leslie(f: Any, s: Any) -> Any:
    """The Leslie matrix of fecundities ``f`` (length ``n``, the first row) and survival
    rates ``s`` (length ``n - 1``, the subdiagonal) (``scipy.linalg.leslie``).

    Example:
        >>> import numpy as np
        >>> leslie(np.array([0.1, 2.0, 1.0]), np.array([0.2, 0.8])).tolist()
        [[0.1, 2.0, 1.0], [0.2, 0.0, 0.0], [0.0, 0.8, 0.0]]
    """
    where = "leslie"
    f, s = fnp.asarray(f), fnp.asarray(s)
    if fnp.ndim(f) < 1 or fnp.ndim(s) < 1:
        raise ValueError(
            f"{where}: f and s must be at least 1-d, got {fnp.shape(f)}, {fnp.shape(s)}"
        )
    n = fnp.shape(f)[-1]
    if n < 2 or fnp.shape(s)[-1] != n - 1:
        raise ValueError(
            f"{where}: f must have at least 2 entries and s one fewer than f, got "
            f"{fnp.shape(f)[-1]} and {fnp.shape(s)[-1]}"
        )
    dtype = numpy.result_type(dtype_of(f), dtype_of(s))
    lead = numpy.broadcast_shapes(fnp.shape(f)[:-1], fnp.shape(s)[:-1])
    below = fnp.zeros(lead + (n - 1, n), dtype=dtype)
    sub = fnp.broadcast_to(s.astype(dtype), lead + (n - 1,))
    below = below + sub[..., :, None] * numpy.eye(n - 1, n, dtype=dtype)
    top = fnp.broadcast_to(f.astype(dtype), lead + (n,))[..., None, :]
    return fnp.concatenate([top, below], axis=-2)


# -- constant matrices ------------------------------------------------------------------------


def dft(n: int, scale: str | None = None, *, dtype: Any = None) -> Any:
    """The ``n``-point discrete Fourier transform matrix ``W[j, k] = exp(-2 pi i j k / n)``,
    ``scale`` None, ``'sqrtn'`` (divided by ``sqrt(n)``) or ``'n'`` (``scipy.linalg.dft``);
    ``dtype`` (JAX's) defaults to complex128.

    Example:
        >>> import numpy as np
        >>> np.round(dft(2), 6).real.tolist()
        [[1.0, 1.0], [1.0, -1.0]]
    """
    where = "dft"
    n = _size(n, where)
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"{where}(scale={scale!r}): scale must be None, 'sqrtn' or 'n'")
    jk = numpy.outer(numpy.arange(n), numpy.arange(n)) % max(n, 1)
    m = numpy.exp(-2j * numpy.pi * jk / max(n, 1))
    if scale == "sqrtn":
        m = m / math.sqrt(n)
    elif scale == "n":
        m = m / n
    return m.astype(numpy.complex128 if dtype is None else dtype)


def hadamard(n: int, dtype: Any = int) -> Any:
    """The Sylvester Hadamard matrix of order ``n`` (a power of 2): entries +-1,
    ``H @ H.T == n I`` (``scipy.linalg.hadamard``).

    Example:
        >>> hadamard(2).tolist()
        [[1, 1], [1, -1]]
    """
    where = "hadamard"
    n = _size(n, where, 1)
    if n & (n - 1):
        raise ValueError(f"{where}: n must be a positive power of 2, got {n}")
    h = numpy.array([[1]], dtype=dtype)
    while h.shape[0] < n:
        h = numpy.block([[h, h], [h, -h]])
    return h.astype(dtype)


def helmert(n: int, full: bool = False) -> Any:
    """The Helmert matrix of order ``n``: orthogonal, first row ``1/sqrt(n)``; without
    ``full`` that row is left out (``scipy.linalg.helmert``).

    Example:
        >>> import numpy as np
        >>> np.round(helmert(2, full=True) * np.sqrt(2), 6).tolist()
        [[1.0, 1.0], [1.0, -1.0]]
    """
    n = _size(n, "helmert", 1)
    h = numpy.tril(numpy.ones((n, n)), -1) - numpy.diag(numpy.arange(n))
    d = numpy.arange(n) * numpy.arange(1, n + 1)
    h[0] = 1.0
    d[0] = n
    h = h / numpy.sqrt(d)[:, None]
    return h if full else h[1:]


def hilbert(n: int) -> Any:
    """The Hilbert matrix ``H[i, j] = 1 / (i + j + 1)`` (``scipy.linalg.hilbert``).

    Example:
        >>> hilbert(2).tolist()
        [[1.0, 0.5], [0.5, 0.3333333333333333]]
    """
    n = _size(n, "hilbert")
    i = numpy.arange(n)
    return 1.0 / (i[:, None] + i[None, :] + 1.0)


def _binomial(n: Any, k: Any) -> Any:
    """Exact binomial coefficients (Python integers, in an object array)."""
    return numpy.vectorize(math.comb, otypes=[object])(n, k)


def invhilbert(n: int, exact: bool = False) -> Any:
    """The inverse of ``hilbert(n)``, from its closed form (integers): float64, or Python
    integers (an object array) with ``exact`` (``scipy.linalg.invhilbert``).

    Example:
        >>> invhilbert(2).tolist()
        [[4.0, -6.0], [-6.0, 12.0]]
    """
    n = _size(n, "invhilbert")
    out = numpy.empty((n, n), dtype=object)
    for i in range(n):
        for j in range(i + 1):
            s = i + j
            v = (
                (-1) ** s
                * (s + 1)
                * math.comb(n + i, n - j - 1)
                * math.comb(n + j, n - i - 1)
                * math.comb(s, i) ** 2
            )
            out[i, j] = out[j, i] = v
    if exact:
        return out if n > 14 else out.astype(numpy.int64)
    return out.astype(numpy.float64)


def pascal(n: int, kind: str | None = "symmetric", exact: bool = True) -> Any:
    """The Pascal matrix of binomial coefficients: ``'symmetric'`` ``C(i + j, i)``,
    ``'lower'`` ``C(i, j)``, ``'upper'`` its transpose (``scipy.linalg.pascal``); uint64,
    or Python integers past 34 (``exact``), or float64 (``exact=False``).

    Example:
        >>> pascal(3).tolist()
        [[1, 1, 1], [1, 2, 3], [1, 3, 6]]
    """
    where = "pascal"
    n = _size(n, where)
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"{where}(kind={kind!r}): kind must be 'symmetric', 'lower' or 'upper'")
    i, j = numpy.indices((n, n))
    if kind == "symmetric":
        m = _binomial(i + j, i)
    else:
        m = _binomial(i, j)
        if kind == "upper":
            m = m.T
    if not exact:
        return m.astype(numpy.float64)
    return m if n > 34 else m.astype(numpy.uint64)


def invpascal(n: int, kind: str | None = "symmetric", exact: bool = True) -> Any:
    """The inverse of ``pascal(n, kind)``, exactly (integers: int64, or Python integers
    past 34 with ``exact``), or float64 (``scipy.linalg.invpascal``).

    Example:
        >>> invpascal(3).tolist()
        [[3, -3, 1], [-3, 5, -2], [1, -2, 1]]
    """
    where = "invpascal"
    n = _size(n, where)
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"{where}(kind={kind!r}): kind must be 'symmetric', 'lower' or 'upper'")
    i, j = numpy.indices((n, n))
    lower = numpy.where(i >= j, _binomial(i, j), 0).astype(object) * numpy.where(
        (i - j) % 2 == 0, 1, -1
    )
    if kind == "lower":
        m = lower
    elif kind == "upper":
        m = lower.T
    else:
        m = numpy.dot(lower.T, lower)
    if not exact:
        return m.astype(numpy.float64)
    return m if n > 34 else m.astype(numpy.int64)
