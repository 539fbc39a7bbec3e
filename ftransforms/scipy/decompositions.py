"""``scipy.linalg``'s general eigenproblem, Schur and Hessenberg forms, polar
decomposition and subspace bases on tracers (re-exported by ``ftransforms.scipy.linalg``).

* ``eig``/``eigvals`` use the ``eig`` primitive (derivatives: eigenvalues always,
  eigenvectors for distinct eigenvalues in NumPy's normalisation, NOTE [eig gauge]).
* ``polar`` goes through the SVD; its derivative solves a Sylvester equation in the
  singular basis (finite for repeated singular values).
* ``null_space``/``orth``: SciPy's basis from the SVD of the data, with the derivatives
  (every order) of a smooth basis of the same subspace equal to it there (Gram-Schmidt
  of a projection of SciPy's basis), so the projectors' derivatives are exact.
* ``schur``/``hessenberg``: SciPy's factors (a host call per ``vmap`` row); their factors
  are not unique, and like JAX's they have no derivative: a clear error.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.linalg import eigvals
    >>> eigvals(np.array([[0.0, -1.0], [1.0, 0.0]])).tolist()
    [1j, -1j]
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.callbacks import pure_callback
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.custom import custom_jvp
from ftransforms.numpy.helpers import dtype_of, read_per_row, same_across_batch
from ftransforms.numpy.ufuncs import float_input
from ftransforms.ops import linalg as _la
from ftransforms.ops.checks import check_finite as _check_finite
from ftransforms.shape_eval import ShapeDtypeStruct

__all__ = ["eig", "eigvals", "hessenberg", "null_space", "orth", "polar", "schur"]


def _arr(x: Any) -> Any:
    return float_input(x if hasattr(x, "dtype") else fnp.asarray(x), None)


def _square(x: Any, where: str) -> Any:
    x = _arr(x)
    s = fnp.shape(x)
    if len(s) != 2 or s[0] != s[1]:
        raise ValueError(f"{where}: expected a square matrix, got shape {s}")
    return x


def _mH(x: Any) -> Any:  # noqa: N802
    return fnp.conj(fnp.swapaxes(x, -1, -2))


def _finite(*arrays: Any) -> None:
    _check_finite(*[fnp.asarray(v) for v in arrays if v is not None])


def _all_real(w: Any) -> bool:
    """Whether every eigenvalue is real (a read of the data; under ``vmap`` each row
    decides, as in the loop over the rows: rows that disagree split the batch, NOTE
    [splitting the batch])."""
    if not isinstance(w, Tracer):
        return not numpy.any(numpy.asarray(fnp.imag(w)))
    return read_per_row(
        fnp.all(fnp.stop_gradient(fnp.imag(w)) == 0),
        "eig(a) under vmap(split=False): the eigenvalues are real for some batch elements "
        "and complex for others, so SciPy would give their eigenvectors different dtypes; "
        "take .astype(complex) of the input, or drop split=False",
    )


def _homogeneous(w: Any) -> Any:
    return fnp.stack([w, fnp.ones_like(w)], axis=0)


def eigvals(
    a: Any,
    b: Any = None,
    overwrite_a: bool = False,
    check_finite: bool = True,
    homogeneous_eigvals: bool = False,
) -> Any:
    """``scipy.linalg.eigvals``: the (always complex) eigenvalues of ``a``, or of the
    generalized problem ``a v = w b v`` (those of ``b^-1 a``: ``b`` invertible).  Their
    derivative is holomorphic in ``a`` (and ``b``) and needs no gauge.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> a = np.array([[2.0, 1.0], [0.0, 3.0]])
        >>> eigvals(a).tolist()
        [(2+0j), (3+0j)]
        >>> ft.grad(lambda a: eigvals(a).real.sum())(a).tolist()  # d trace
        [[1.0, 0.0], [0.0, 1.0]]
    """
    return eig(
        a,
        b,
        right=False,
        check_finite=check_finite,
        homogeneous_eigvals=homogeneous_eigvals,
    )


def eig(
    a: Any,
    b: Any = None,
    left: bool = False,
    right: bool = True,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    check_finite: bool = True,
    homogeneous_eigvals: bool = False,
) -> Any:
    """``scipy.linalg.eig``: ``(w, vr)``, the complex eigenvalues and unit-norm right
    eigenvectors (real when ``a`` is real and every eigenvalue is, as SciPy's), or ``w``
    alone with ``right=False``.  With ``b``: the generalized problem through ``b^-1 a``
    (unit-norm vectors; their phase is NumPy's convention, which may differ from
    LAPACK's ``ggev``).  Eigenvector derivatives need distinct eigenvalues (NOTE [eig
    gauge] in ``ftransforms/ops/linalg.py``); ``left=True`` is not supported.

    Example:
        >>> import numpy as np
        >>> w, v = eig(np.array([[2.0, 0.0], [0.0, 3.0]]))
        >>> w.tolist(), v.tolist()
        ([(2+0j), (3+0j)], [[1.0, 0.0], [0.0, 1.0]])
    """
    where = "eig(a)" if b is None else "eig(a, b)"
    if left:
        raise UnsupportedOperationError(
            f"{where} with left=True: left eigenvectors are not supported; the left "
            f"eigenvectors of a are the right ones of a.conj().T"
        )
    if check_finite:
        _finite(a, b)
    a = _square(a, where)
    if b is not None:
        b = _square(b, where)
        if fnp.shape(b) != fnp.shape(a):
            raise ValueError(
                f"{where}: a and b must have the same shape, got {fnp.shape(a)} and {fnp.shape(b)}"
            )
        a = fnp.linalg.solve(b, a)
    if not right:
        (w,) = _la.eig_p.bind(a, eigenvectors=False)
        return _homogeneous(w) if homogeneous_eigvals else w
    w, v = _la.eig_p.bind(a, eigenvectors=True)
    if dtype_of(a).kind != "c" and _all_real(w):
        v = fnp.real(v)
    return (_homogeneous(w) if homogeneous_eigvals else w), v


def _polar_tall_value(a: Any) -> tuple[Any, Any]:
    w, s, vh = fnp.linalg.svd(a, full_matrices=False)
    return fnp.matmul(w, vh), fnp.matmul(_mH(vh) * s[..., None, :], vh)


def _polar_tall_jvp(primals: tuple, tangents: tuple) -> tuple:
    """The derivative of ``a = u p`` (``a`` tall or square): with ``a = W S V^H`` and
    ``G = W^H da V``, ``u^H du = V Y V^H`` with ``Y = (G - G^H) / (s_i + s_j)`` (finite for
    repeated singular values, unlike the SVD's vectors), plus the part of ``da`` outside
    ``range(W)``; ``dp = du^H a + u^H da``."""
    (a,), (da,) = primals, tangents
    w, s, vh = fnp.linalg.svd(a, full_matrices=False)
    v = _mH(vh)
    u = fnp.matmul(w, vh)
    p = fnp.matmul(v * s[..., None, :], vh)
    da = fnp.astype(da, dtype_of(a))
    g = fnp.matmul(_mH(w), fnp.matmul(da, v))
    y = (g - _mH(g)) / (s[..., :, None] + s[..., None, :])
    du = fnp.matmul(w, fnp.matmul(y, vh))
    if fnp.shape(a)[-2] > fnp.shape(a)[-1]:  # the part of da outside range(W)
        dav = fnp.matmul(da, v)
        outside = dav - fnp.matmul(w, fnp.matmul(_mH(w), dav))
        du = du + fnp.matmul(outside / s[..., None, :], vh)
    dp = fnp.matmul(_mH(du), a) + fnp.matmul(_mH(u), da)
    return (u, p), (du, dp)


_polar_tall = custom_jvp(_polar_tall_value)
_polar_tall.defjvp(_polar_tall_jvp)


def polar(
    a: Any,
    side: str = "right",
    *,
    method: str = "qdwh",
    eps: float | None = None,
    max_iterations: int | None = None,
) -> tuple[Any, Any]:
    """``scipy.linalg.polar`` (and ``jax.scipy.linalg.polar``, whose ``method='qdwh'`` or
    ``'svd'``, ``eps`` and ``max_iterations`` are accepted: every method is the SVD's
    exact factors here): ``(u, p)`` with ``a = u p`` (``side='right'``) or
    ``a = p u`` (``'left'``), ``u`` with orthonormal columns (rows) and ``p`` Hermitian
    positive semi-definite, from the SVD ``a = W S V^H``: ``u = W V^H``, ``p = u^H a``
    (``a u^H``).  The derivative of ``u`` solves ``X P + P X = u^H da - da^H u`` for
    ``X = u^H du`` (``a`` or ``a^H`` tall): finite for repeated singular values (an
    orthogonal ``a``), needing ``a`` of full rank.

    Example:
        >>> import numpy as np
        >>> u, p = polar(np.array([[2.0, 0.0], [0.0, -3.0]]))
        >>> u.tolist(), p.tolist()
        ([[1.0, 0.0], [0.0, -1.0]], [[2.0, 0.0], [0.0, 3.0]])
    """
    if side not in ("right", "left"):
        raise ValueError(f"polar(a, side={side!r}): side must be 'right' or 'left'")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"polar(a, method={method!r}): method must be 'qdwh' or 'svd'")
    del eps, max_iterations  # QDWH's iteration controls: the SVD needs none
    a = _arr(a)
    if fnp.ndim(a) != 2:
        raise ValueError(f"polar(a): a must be a 2-D array, got shape {fnp.shape(a)}")
    m, n = fnp.shape(a)
    # u = W V^H for both sides: the tall factor of a or of a^H; p from u
    if m >= n:
        u = _polar_tall(a)[0]
    else:
        u = _mH(_polar_tall(_mH(a))[0])  # a^H = u' p': u = u'^H
    p = fnp.matmul(_mH(u), a) if side == "right" else fnp.matmul(a, _mH(u))
    return u, 0.5 * (p + _mH(p))  # Hermitian to the last bit


def _rank_cut(s: Any, m: int, n: int, rcond: Any, where: str) -> int:
    """The numerical rank SciPy's ``null_space``/``orth`` use (a read of the data; under
    ``vmap`` each row has its own: rows of other ranks split the batch, as the bases'
    shapes depend on it)."""
    if min(m, n) == 0:
        return 0
    s0 = fnp.stop_gradient(s)
    if rcond is None:
        rcond = numpy.finfo(dtype_of(s0)).eps * max(m, n)
    count = fnp.sum(s0 > rcond * fnp.max(s0, axis=-1, keepdims=True), axis=-1)
    return same_across_batch(  # rows of other ranks split the batch
        count,
        where,
        "the numerical rank differs between the batch elements, so the bases differ in "
        "shape; loop over the rows, or drop split=False",
    )


def null_space(
    A: Any,  # noqa: N803  (SciPy's name)
    rcond: Any = None,
    *,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
) -> Any:
    """``scipy.linalg.null_space``: an orthonormal basis ``N`` (columns) of the null space
    of ``A``, SciPy's (from the SVD).  Derivatives (every order, the rank kept): those of
    the Gram-Schmidt basis of ``(I - A^+ A) N0`` (``N0``: SciPy's basis at this ``A``), a
    smooth basis of the null space equal to SciPy's here; its first derivative is
    ``-A^+ dA N``, and the projector ``N N^H``'s derivatives are the subspace's.

    Example:
        >>> import numpy as np
        >>> n = null_space(np.array([[1.0, 1.0]]))
        >>> bool(np.allclose(np.abs(n.ravel()), np.sqrt(0.5)))
        True
    """
    if check_finite:
        _finite(A)
    a = _arr(A)
    if fnp.ndim(a) != 2:
        raise ValueError(f"null_space(A): A must be a 2-D array, got shape {fnp.shape(a)}")
    m, n = fnp.shape(a)
    a0 = fnp.stop_gradient(a)
    u, s, vh = fnp.linalg.svd(a0, full_matrices=True)
    rank = _rank_cut(s, m, n, rcond, "null_space(A)")
    basis = _mH(vh[rank:, :])
    if not _differentiated(a) or rank == 0 or rank == n:
        return basis
    # the row space of A is that of B = U_r^H A (full row rank while the rank is kept)
    b = fnp.matmul(_mH(u[:, :rank]), a)
    bn = fnp.matmul(b, basis)
    moved = basis - fnp.matmul(_mH(b), fnp.linalg.solve(fnp.matmul(b, _mH(b)), bn))
    return _with_value(basis, _gram_schmidt(moved))


def orth(A: Any, rcond: Any = None) -> Any:  # noqa: N803
    """``scipy.linalg.orth``: an orthonormal basis ``U`` (columns) of the range of ``A``,
    SciPy's (from the SVD).  Derivatives (every order, the rank kept): those of the
    Gram-Schmidt basis of ``A V0`` (``V0``: the right singular vectors SciPy keeps), a
    smooth basis of the range equal to SciPy's here; the projector ``U U^H``'s
    derivatives are the subspace's.

    Example:
        >>> import numpy as np
        >>> u = orth(np.array([[1.0, 1.0], [1.0, 1.0]]))
        >>> bool(np.allclose(np.abs(u.ravel()), np.sqrt(0.5)))
        True
    """
    a = _arr(A)
    if fnp.ndim(a) != 2:
        raise ValueError(f"orth(A): A must be a 2-D array, got shape {fnp.shape(a)}")
    m, n = fnp.shape(a)
    a0 = fnp.stop_gradient(a)
    u, s, vh = fnp.linalg.svd(a0, full_matrices=False)
    rank = _rank_cut(s, m, n, rcond, "orth(A)")
    basis = u[:, :rank]
    if not _differentiated(a) or rank == 0:
        return basis
    return _with_value(basis, _gram_schmidt(fnp.matmul(a, _mH(vh[:rank, :]))))


def _gram_schmidt(x: Any) -> Any:
    """The orthonormal ``Q`` of ``x = Q R`` with ``R``'s diagonal positive (smooth in
    ``x`` of full column rank, at every order)."""
    q, r = fnp.linalg.qr(x, mode="reduced")
    d = fnp.diagonal(r, axis1=-2, axis2=-1)
    phase = d / fnp.abs(d)
    return q * fnp.conj(phase)[..., None, :] if dtype_of(d).kind == "c" else q * phase[..., None, :]


def _with_value(value: Any, smooth: Any) -> Any:
    """``value`` (SciPy's) with the derivatives of ``smooth`` (equal to it here, up to
    rounding)."""
    return value + (smooth - fnp.stop_gradient(smooth))


def _differentiated(a: Any) -> bool:
    return isinstance(a, Tracer)


def _no_derivative(name: str, why: str) -> Any:
    def refuse(primals: Any, tangents: Any) -> Any:
        raise UnsupportedOperationError(
            f"{name}: has no derivative: {why}.  Differentiate a quantity that does not "
            f"depend on that choice (eigvals, a reconstruction) or use "
            f"ftransforms.stop_gradient on the input"
        )

    return refuse


def _host_factors(fn_name: str, a: Any, kwargs: dict, outs: list) -> Any:
    def run(x: Any) -> Any:
        import scipy.linalg  # a host callback: SciPy is needed only here

        got = getattr(scipy.linalg, fn_name)(x, **kwargs)
        got = got if isinstance(got, tuple) else (got,)
        return tuple(numpy.asarray(g, dtype=o.dtype) for g, o in zip(got, outs))

    return pure_callback(run, tuple(outs), a, vmap_method="sequential")


def _schur_host(a: Any, output: str) -> Any:
    n = fnp.shape(a)[0]
    real_out = output == "real" and dtype_of(a).kind != "c"
    dt = dtype_of(a) if real_out else numpy.result_type(dtype_of(a), numpy.complex64)
    outs = [ShapeDtypeStruct((n, n), dt)] * 2
    return _host_factors("schur", a, {"output": output}, outs)


_schur = custom_jvp(_schur_host, nondiff_argnums=(1,))
_schur.defjvp(
    lambda output, primals, tangents: _no_derivative(
        "schur(a)", "the Schur factors are not unique (the order and phases of Z's columns)"
    )(primals, tangents)
)


def schur(
    a: Any,
    output: str = "real",
    lwork: Any = None,
    overwrite_a: bool = False,
    sort: Any = None,
    check_finite: bool = True,
) -> tuple[Any, Any]:
    """``scipy.linalg.schur``: ``(T, Z)`` with ``a = Z T Z^H``, ``T`` quasi-upper
    triangular (``output='real'``) or upper triangular (``'complex'``): SciPy's factors
    on the host (one call per ``vmap`` row; ``jit`` calls it on each replay).  No
    derivative (as in JAX): the factors are not unique; ``sort`` is not supported.

    Example:
        >>> import numpy as np
        >>> t, z = schur(np.array([[1.0, 2.0], [0.0, 3.0]]))
        >>> bool(np.allclose(z @ t @ z.T, [[1.0, 2.0], [0.0, 3.0]]))
        True
    """
    if output not in ("real", "complex", "r", "c"):
        raise ValueError(f"schur(a, output={output!r}): output must be 'real' or 'complex'")
    if sort is not None:
        raise UnsupportedOperationError(
            "schur(a, sort=...): sorting the Schur form is not supported; use sort=None"
        )
    if check_finite:
        _finite(a)
    a = _square(a, "schur(a)")
    out = {"r": "real", "c": "complex"}.get(output, output)
    return tuple(_schur(a, out))


def _hessenberg_host(a: Any, calc_q: bool) -> Any:
    n = fnp.shape(a)[0]
    outs = [ShapeDtypeStruct((n, n), dtype_of(a))] * (2 if calc_q else 1)
    return _host_factors("hessenberg", a, {"calc_q": calc_q}, outs)


_hessenberg = custom_jvp(_hessenberg_host, nondiff_argnums=(1,))
_hessenberg.defjvp(
    lambda calc_q, primals, tangents: _no_derivative(
        "hessenberg(a)", "the Hessenberg factors depend on the reflector conventions"
    )(primals, tangents)
)


def hessenberg(
    a: Any, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Any:
    """``scipy.linalg.hessenberg``: ``H`` (and ``Q`` with ``calc_q``, ``a = Q H Q^H``),
    SciPy's factors on the host (one call per ``vmap`` row).  No derivative (as in JAX).

    Example:
        >>> import numpy as np
        >>> h = hessenberg(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 0.0]]))
        >>> float(abs(h[2, 0]))
        0.0
    """
    if check_finite:
        _finite(a)
    a = _square(a, "hessenberg(a)")
    out = tuple(_hessenberg(a, bool(calc_q)))
    return out if calc_q else out[0]
