"""Linear-algebra primitives: ``matmul`` (NumPy's semantics: vectors and broadcasting
stacks of matrices), ``einsum`` (explicit subscripts with ``->``, no ellipsis: the
``fnp.einsum`` front end expands them), and the ``numpy.linalg`` matrix functions (``inv``,
``solve``, ``det``, ``slogdet``, ``cholesky``, ``eigh``, ``eig``, ``svd``, ``qr``,
``pinv``) over stacks of real or complex matrices; ``ftransforms.numpy.linalg`` builds the
rest from these."""

from __future__ import annotations

import numpy

from ftransforms import lax
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import defop
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.ops import elementwise as _ew
from ftransforms.ops import reductions as _reductions
from ftransforms.ops._util import unbroadcast


def _matmul_impl(xp, a, b):
    # A contraction of length 1 is an outer product: NumPy's stacked matmul does it
    # element by element, a broadcast multiply is many times faster (per-sample weight
    # gradients hit this case).
    if a.ndim >= 2 and b.ndim >= 2 and a.shape[-1] == 1 and b.shape[-2] == 1:
        return xp.multiply(a, b)
    return xp.matmul(a, b)


def _as_column(v):
    """A vector ``(..., n)`` as ``(..., n, 1)``: a vector's outer-product partner."""
    return lax.reshape(v, lax.shape(v) + (1,))


def _matmul_vjp_a(y_bar, y, a, b):
    ra = lax.ndim(a)
    rb = lax.ndim(b)
    if ra == 1 and rb == 1:  # a dot product: y and y_bar are scalars
        return unbroadcast(y_bar * b, a)
    if rb == 1:  # (..., n, m) @ (m,): a_bar = y_bar b^T
        return unbroadcast(_as_column(y_bar) * b, a)
    b_t = lax.swapaxes(b, -1, -2)
    if ra == 1 and lax.ndim(y_bar) > 1:  # (n,) @ (..., n, m): y_bar is a stack of rows
        return unbroadcast(lax.squeeze(matmul_p.bind(lax.expand_dims(y_bar, -2), b_t), -2), a)
    return unbroadcast(matmul_p.bind(y_bar, b_t), a)


def _matmul_vjp_b(y_bar, y, a, b):
    ra = lax.ndim(a)
    rb = lax.ndim(b)
    if ra == 1 and rb == 1:
        return unbroadcast(a * y_bar, b)
    if ra == 1:  # (n,) @ (..., n, m): b_bar = a y_bar^T
        return unbroadcast(_as_column(a) * lax.expand_dims(y_bar, -2), b)
    a_t = lax.swapaxes(a, -1, -2)
    if rb == 1 and lax.ndim(y_bar) > 1:  # (..., n, m) @ (m,): y_bar is a stack of columns
        return unbroadcast(lax.squeeze(matmul_p.bind(a_t, _as_column(y_bar)), -1), b)
    return unbroadcast(matmul_p.bind(a_t, y_bar), b)


matmul_p = defop(
    "matmul",
    _matmul_impl,
    jvp=(
        lambda a_dot, y, a, b: matmul_p.bind(a_dot, b),
        lambda b_dot, y, a, b: matmul_p.bind(a, b_dot),
    ),
    vjp=(_matmul_vjp_a, _matmul_vjp_b),
    doc="``numpy.matmul``: vectors (rank 1) and stacks of matrices, broadcasting.",
)


def _einsum_jvp(tangents, y, *operands, subscripts, optimize):
    out = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        ops = operands[:i] + (t,) + operands[i + 1 :]
        term = einsum_p.bind(*ops, subscripts=subscripts, optimize=optimize)
        out = term if out is None else out + term
    return out


def _fresh_letters(used: str):
    for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ":
        if c not in used:
            yield c


def _einsum_operand_cotangent(y_bar, operands, ins, out, i, optimize):
    """Cotangent of operand ``i``: contract ``y_bar`` with the other operands back to ``ins[i]``.

    A letter repeated within ``ins[i]`` (a diagonal) is renamed and tied to its original
    by an identity matrix; a letter found only in ``ins[i]`` (summed there and nowhere
    else) is broadcast back.
    """
    x = operands[i]
    sizes: dict[str, int] = {}  # a letter's size: any but 1 (a size-1 axis broadcasts; 0 too)
    for s, op in zip(ins, operands):
        for c, n in zip(s, op.shape):
            sizes[c] = n if n != 1 else sizes.get(c, 1)
    fresh = _fresh_letters("".join(ins) + out)
    target = ""
    subs = [s for j, s in enumerate(ins) if j != i] + [out]
    ops = [op for j, op in enumerate(operands) if j != i] + [y_bar]
    for c in ins[i]:
        if c in target:
            f = next(fresh)
            subs.append(c + f)
            ops.append(lax.eye(sizes[c], dtype=y_bar.dtype, like=y_bar))
            target += f
        else:
            target += c
    available = set("".join(subs))
    kept = "".join(c for c in target if c in available)
    res = einsum_p.bind(*ops, subscripts=",".join(subs) + "->" + kept, optimize=optimize)
    if kept != target:
        res = lax.reshape(res, tuple(res.shape[kept.index(c)] if c in kept else 1 for c in target))
    # an axis of x that the others meet with size 1 (broadcast): the cotangent is the same
    # along it; one of size 1 in x that they meet larger: summed (unbroadcast)
    full = tuple(n if r == 1 else r for r, n in zip(res.shape, lax.shape(x)))
    if full != tuple(res.shape):
        res = lax.broadcast_to(res, full)
    return unbroadcast(res, x)


def _einsum_vjp(y_bar, y, *operands, subscripts, optimize, wanted):
    ins, out = subscripts.split("->")
    ins = ins.split(",")
    return tuple(
        _einsum_operand_cotangent(y_bar, operands, ins, out, i, optimize) if want else None
        for i, want in enumerate(wanted)
    )


#: Contraction paths found by ``numpy.einsum_path``, by (subscripts, shapes, strategy):
#: ``optimize=True`` would otherwise search again on every call (tens of microseconds).
_EINSUM_PATHS: dict = {}


def _einsum_impl(xp, *operands, subscripts, optimize):
    if xp is numpy and len(operands) > 1 and optimize in (True, "greedy", "optimal"):
        key = (subscripts, tuple(op.shape for op in operands), optimize)
        path = _EINSUM_PATHS.get(key)
        if path is None:
            if len(_EINSUM_PATHS) >= 1024:
                _EINSUM_PATHS.clear()
            path = _EINSUM_PATHS[key] = numpy.einsum_path(subscripts, *operands, optimize=optimize)[
                0
            ]
        return xp.einsum(subscripts, *operands, optimize=path)
    return xp.einsum(subscripts, *operands, optimize=optimize)


einsum_p = defop(
    "einsum",
    _einsum_impl,
    jvp=_einsum_jvp,
    vjp=_einsum_vjp,
)


# -- matrix functions: numpy.linalg ----------------------------------------------------
#
# Every op below maps over leading axes, as numpy.linalg does, and batches by moving the
# batch axis to the front (``batching_rules.linalg.leading``).  The rules are built from
# primitives (solve, inv, matmul, einsum, elementwise ops), so derivatives of any order work.
#
# NOTE [complex linear algebra]: the rules take real and complex matrices alike, under
# NOTE [complex derivatives] in ops/elementwise.py: a JVP is the (real-)linear map of the
# tangent, a VJP its plain transpose under <a, b> = Re(sum(a * b)).  Holomorphic ops (inv,
# solve, det, eig's eigenvalues, matmul) keep their real formulas with plain transposes.
# The others (svd, eigh, cholesky, qr, pinv, slogdet's parts) are written with conjugate
# transposes ``_mH`` in the JVP; their VJPs are written either directly as transposes or,
# where the literature's adjoint (the transpose under Re(sum(conj(a) * b))) is the clearer
# formula, as ``conj(adjoint(conj(cotangent)))``, which is the same map.  For real inputs
# every ``conj`` is the identity (``lax.conj_or_self`` returns its argument), so the real path costs
# nothing extra.  Gauges follow JAX: svd puts the phase freedom of a singular pair into
# ``U`` (``Im(u_i^H du_i) = Im(dS_ii) / s_i``, ``v_i^H dv_i = 0``); eigh keeps
# ``v_i^H dv_i = 0``; qr keeps the diagonal of ``R`` real; eig follows LAPACK's
# normalisation (NOTE [eig gauge]).
#
# NOTE [numpy reads one triangle]: numpy's ``cholesky`` and ``eigh`` read only the lower
# triangle of their input (LAPACK's UPLO='L'); the upper one is ignored, and for complex
# input so is the imaginary part of the diagonal (LAPACK assumes it is zero).  The rules
# differentiate exactly that function: a tangent enters through ``fold_lower(a_dot)`` (the
# symmetric/Hermitian matrix built from its lower triangle), and a cotangent is mapped back
# by the transpose ``fold_lower_adjoint`` (so it is lower-triangular, with the off-diagonal
# entries of the symmetric gradient doubled).  JAX and torch instead differentiate the
# symmetrized input ``(A + A^H) / 2`` and give the Hermitian gradient; for Hermitian
# perturbations both give the same directional derivatives.  ``UPLO='U'`` and
# ``upper=True`` are handled by the front ends in ``ftransforms.numpy.linalg`` through a
# transpose.


def _mT(x):  # noqa: N802  (numpy's name)
    return lax.swapaxes(x, -1, -2)


def _mH(x):  # noqa: N802
    """The conjugate transpose of the last two axes (the transpose for real ``x``)."""
    return lax.conj_or_self(_mT(x))


def _is_complex(x):
    return lax.dtype_of(x).kind == "c"


def _i_imag(z):
    """``1j * imag(z)`` in ``z``'s dtype."""
    return (z - lax.conj_or_self(z)) * 0.5


def _mm(a, b):
    return matmul_p.bind(a, b)


def _diagonal(x):
    return lax.einsum("...ii->...i", x)


def _trace(x):
    return lax.einsum("...ii->...", x)


def _eye(n, like):
    return lax.eye(n, dtype=like.dtype, like=like)


def _diag_embed(v):
    """``(..., n) -> (..., n, n)`` with ``v`` on the diagonal."""
    return lax.expand_dims(v, -1) * _eye(v.shape[-1], v)


def _as_matrix(v):
    """``(...) -> (..., 1, 1)``: a per-matrix scalar that broadcasts against matrices."""
    return lax.expand_dims(lax.expand_dims(v, -1), -1)


def _tri_mask(x, k):
    """The constant ``numpy.tri`` mask (ones on and below diagonal ``k``) for ``x``'s
    trailing matrix shape, in ``x``'s backend and dtype."""
    n, m = x.shape[-2:]
    return lax.xp_of(x).tri(n, m, k, dtype=x.dtype)


def _tril(x, k=0):
    return x * _tri_mask(x, k)


def fold_lower(x):
    """The symmetric (complex: Hermitian) matrix built from the lower triangle of ``x``,
    what numpy's ``cholesky``/``eigh`` see (NOTE [numpy reads one triangle])."""
    if _is_complex(x):
        low = _tril(x, -1)
        return low + _mH(low) + lax.real(x) * _eye(x.shape[-1], x)
    return _tril(x) + _mT(_tril(x, -1))


def fold_lower_adjoint(y_bar):
    """The transpose of :func:`fold_lower`: ``tril(y_bar) + tril(y_bar.T, -1)`` (complex:
    ``tril(y_bar, -1) + tril(conj(y_bar).T, -1) + real(diag(y_bar))``)."""
    if _is_complex(y_bar):
        return (
            _tril(y_bar, -1)
            + _tril(_mH(y_bar), -1)
            + lax.real(y_bar) * _eye(y_bar.shape[-1], y_bar)
        )
    return _tril(y_bar) + _tril(_mT(y_bar), -1)


def _gaps(w):
    """``F[..., i, j] = 1 / (w[j] - w[i])`` off the diagonal, ``0`` on it."""
    eye = _eye(w.shape[-1], w)
    diff = lax.expand_dims(w, -2) - lax.expand_dims(w, -1)
    return lax.divide(1 - eye, diff + eye)


def _solve_right(x, a):
    """``x @ inv(a)``, as a solve."""
    return _mT(solve_p.bind(_mT(a), _mT(x)))


# -- inv, solve, det, slogdet ----------------------------------------------------------

inv_p = defop(
    "inv",
    lambda xp, a: xp.linalg.inv(a),
    jvp=(lambda a_dot, y, a: -_mm(_mm(y, a_dot), y),),
    vjp=(lambda y_bar, y, a: -_mm(_mm(_mT(y), y_bar), _mT(y)),),
    doc="``inv(a)`` for stacks of square matrices ``(..., n, n)``.",
)


def _solve_impl(xp, a, b):
    # numpy broadcasts the leading axes of a and b; cupy may not: broadcast explicitly.
    batch = numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if a.shape[:-2] != batch:
        a = xp.broadcast_to(a, batch + a.shape[-2:])
    if b.shape[:-2] != batch:
        b = xp.broadcast_to(b, batch + b.shape[-2:])
    return xp.linalg.solve(a, b)


def _solve_jvp(tangents, y, a, b):
    a_dot, b_dot = tangents
    rhs = b_dot
    if a_dot is not None:
        t = _mm(a_dot, y)
        rhs = -t if rhs is None else rhs - t
    return solve_p.bind(a, rhs)


def _solve_vjp(y_bar, y, a, b, wanted):
    b_bar = solve_p.bind(_mT(a), y_bar)
    a_bar = unbroadcast(-_mm(b_bar, _mT(y)), a) if wanted[0] else None
    return a_bar, (unbroadcast(b_bar, b) if wanted[1] else None)


solve_p = defop(
    "solve",
    _solve_impl,
    jvp=_solve_jvp,
    vjp=_solve_vjp,
    doc="``solve(a, b)`` for ``a (..., n, n)`` and ``b (..., n, k)``, leading axes broadcast "
    "(``ftransforms.numpy.linalg.solve`` handles a vector ``b``).",
)


def _adjugate_impl(xp, a):
    """``adj(a) = det(a) inv(a)`` where every matrix of the stack is invertible; from the
    SVD otherwise (NOTE [the adjugate])."""
    with numpy.errstate(all="ignore"):
        try:
            inv = xp.linalg.inv(a)
        except numpy.linalg.LinAlgError:  # a singular matrix in the stack
            inv = None
        if inv is not None:
            out = xp.linalg.det(a)[..., None, None] * inv
            if bool(xp.isfinite(out).all()):  # cupy's inv returns inf/nan instead of raising
                return out
        u, s, vh = xp.linalg.svd(a)
        one = xp.ones_like(s[..., :1])
        before = xp.cumprod(xp.concatenate([one, s[..., :-1]], axis=-1), axis=-1)
        after = xp.cumprod(xp.concatenate([one, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        phase = xp.linalg.det(u) * xp.linalg.det(vh)
        v, u_h = xp.conj(xp.swapaxes(vh, -1, -2)), xp.conj(xp.swapaxes(u, -1, -2))
        return phase[..., None, None] * ((v * (before * after)[..., None, :]) @ u_h)


def _adjugate_jvp(a_dot, y, a):
    t = solve_p.bind(a, a_dot)  # needs a invertible (NOTE [the adjugate])
    return y * _as_matrix(_trace(t)) - _mm(t, y)


def _adjugate_vjp(y_bar, y, a):
    inv_t = _mT(inv_p.bind(a))
    inner = lax.einsum("...ij,...ij->...", y_bar, y)
    return _as_matrix(inner) * inv_t - _mm(_mm(inv_t, y_bar), _mT(y))


# NOTE [the adjugate]: d det(a) = tr(adj(a) da), with adj(a) the adjugate (the transposed
# cofactor matrix), which exists for every square matrix: det's rules use it, so grad,
# jvp and vmap of det hold at singular matrices too (JAX gives the same; torch too).
# ``adj(a) = det(a) inv(a)`` for invertible matrices (one LU); when a matrix of the stack
# is singular, ``adj(a) = det(U) det(Vh) Vh^H diag(c) U^H`` from the SVD ``a = U S Vh``
# with ``c_i`` the product of the other singular values (prefix times suffix products, no
# division).  The adjugate's own rules (second derivatives of det) use ``inv(a)`` and
# need ``a`` invertible: at a singular matrix they raise numpy's LinAlgError.
adjugate_p = defop(
    "adjugate",
    _adjugate_impl,
    jvp=(_adjugate_jvp,),
    vjp=(_adjugate_vjp,),
    doc="The adjugate ``adj(a)`` (``det(a) inv(a)`` for invertible ``a``) of stacks of "
    "square matrices, defined for singular ones too; its derivative needs ``a`` invertible.",
)

det_p = defop(
    "det",
    lambda xp, a: xp.linalg.det(a),
    jvp=(lambda a_dot, y, a: lax.einsum("...ij,...ji->...", adjugate_p.bind(a), a_dot),),
    vjp=(lambda y_bar, y, a: _as_matrix(y_bar) * _mT(adjugate_p.bind(a)),),
    doc="``det(a)``; its derivative ``tr(adj(a) da)`` holds at singular ``a`` too "
    "(NOTE [the adjugate]).",
)


def _slogdet_jvp(tangents, y, a):
    # tau = tr(a^-1 da): d logabsdet = Re(tau); d sign = sign * 1j Im(tau) (0 for real a).
    tau = _trace(solve_p.bind(a, tangents[0]))
    if not _is_complex(a):
        return None, tau
    return y[0] * _i_imag(tau), lax.real(tau)


def _slogdet_vjp(y_bar, y, a, wanted):
    sign_bar, logdet_bar = y_bar
    tau_bar = logdet_bar
    if sign_bar is not None and _is_complex(a):
        t = _i_imag(sign_bar * y[0])
        tau_bar = t if tau_bar is None else tau_bar + t
    if tau_bar is None:
        return (None,)
    return (_as_matrix(tau_bar) * _mT(inv_p.bind(a)),)


slogdet_p = defop(
    "slogdet",
    lambda xp, a: tuple(xp.linalg.slogdet(a)),
    jvp=_slogdet_jvp,
    vjp=_slogdet_vjp,
    multiple_results=True,
    doc="``(sign, logabsdet) = slogdet(a)``; ``sign`` has derivative 0 for real ``a`` "
    "(for complex ``a`` it turns with the phase of the determinant).",
)

# -- cholesky, eigh --------------------------------------------------------------------


def _phi(x):
    """The lower triangle of ``x`` with its diagonal halved."""
    return x * (_tri_mask(x, -1) + 0.5 * _eye(x.shape[-1], x))


def _cholesky_jvp(a_dot, low, a):
    # dL = L Phi(L^-1 dA L^-H), dA read through its lower triangle (Hermitian, so
    # L^-1 dA L^-H = L^-1 (L^-1 dA)^H).
    tmp = solve_p.bind(low, fold_lower(a_dot))
    return _mm(low, _phi(solve_p.bind(low, _mH(tmp))))


def _cholesky_vjp(low_bar, low, a):
    # The transpose of the map above: L^-T Phi(L^T G) conj(L^-1), then the fold's.
    x_bar = _phi(_mm(_mT(low), low_bar))
    tmp = solve_p.bind(_mT(low), x_bar)
    return fold_lower_adjoint(_mT(solve_p.bind(_mH(low), _mT(tmp))))


cholesky_p = defop(
    "cholesky",
    lambda xp, a: xp.linalg.cholesky(a),
    jvp=(_cholesky_jvp,),
    vjp=(_cholesky_vjp,),
    doc="Lower Cholesky factor of a symmetric/Hermitian positive-definite matrix; reads the "
    "lower triangle (NOTE [numpy reads one triangle]).",
)


def _eigh_impl(xp, a, eigenvectors):
    if eigenvectors:
        return tuple(xp.linalg.eigh(a))
    return (xp.linalg.eigvalsh(a),)


def _eigh_factors(y, a, eigenvectors):
    return y if eigenvectors else eigh_p.bind(a, eigenvectors=True)


def _eigh_jvp(tangents, y, a, eigenvectors):
    # M = V^H dA V: dw = Re(diag(M)), dV = V (F * M) (gauge: v_i^H dv_i = 0).
    w, v = _eigh_factors(y, a, eigenvectors)
    m = _mm(_mm(_mH(v), fold_lower(tangents[0])), v)
    dw = lax.real(_diagonal(m))
    if not eigenvectors:
        return (dw,)
    return dw, _mm(v, _gaps(w) * m)


def _eigh_vjp(y_bar, y, a, wanted, eigenvectors):
    # The transpose: M_bar = diag(w_bar) + F * (V^T V_bar), dA_bar = conj(V) M_bar V^T.
    w, v = _eigh_factors(y, a, eigenvectors)
    w_bar, v_bar = y_bar if eigenvectors else (y_bar[0], None)
    inner = None if w_bar is None else _diag_embed(w_bar)
    if v_bar is not None:
        t = _gaps(w) * _mm(_mT(v), v_bar)
        inner = t if inner is None else inner + t
    return (fold_lower_adjoint(_mm(_mm(lax.conj_or_self(v), inner), _mT(v))),)


eigh_p = defop(
    "eigh",
    _eigh_impl,
    jvp=_eigh_jvp,
    vjp=_eigh_vjp,
    multiple_results=True,
    doc="``(eigenvalues, eigenvectors)`` (``eigenvectors=True``) or ``(eigenvalues,)`` of a "
    "symmetric/Hermitian matrix (lower triangle read, NOTE [numpy reads one triangle]); "
    "eigenvector derivatives need distinct eigenvalues.",
)

# -- eig -------------------------------------------------------------------------------
#
# NOTE [eig gauge]: an eigenvector of a general matrix is fixed only up to a complex
# factor.  NumPy (LAPACK's geev) scales each one to unit 2-norm and, for complex
# eigenvectors, turns its phase so that its largest-magnitude component is real and
# positive; the derivative differentiates through that same choice (as JAX's does with
# ``enable_eigvec_derivs=True``): with P = V^-1 dA V and U = V (F * P),
# dv_j = u_j + c_j v_j, c_j = -Re(v_j^H u_j) - 1j Im(u_kj) / v_kj, k the largest component.
# Other backends may choose other phases, and the derivative is meaningless at repeated
# eigenvalues (F is infinite there): rely on quantities that do not depend on the phase
# (|v_ij|, v_j v_j^H, reconstructions), as JAX's tests do.  Eigenvalue derivatives need no
# gauge and stay finite at repeated eigenvalues of diagonalisable matrices.


def _complex_dtype(dtype):
    return numpy.result_type(dtype, numpy.complex64)


def _eig_impl(xp, a, eigenvectors):
    cdt = _complex_dtype(a.dtype)
    if eigenvectors:
        w, v = xp.linalg.eig(a)
        return w.astype(cdt, copy=False), v.astype(cdt, copy=False)
    return (xp.linalg.eigvals(a).astype(cdt, copy=False),)


def _largest_component_mask(v):
    """1 at the largest-magnitude entry of each column of ``v`` (the first on ties), 0
    elsewhere, in ``v``'s dtype (a constant: argmax has no derivative)."""
    mag = lax.real(v * lax.conj_or_self(v))
    rank = lax.ndim(v)
    k = _reductions.argmax_p.bind(mag, axis=rank - 2, keepdims=True)
    rows = lax.xp_of(v).arange(v.shape[-2]).reshape((v.shape[-2], 1))
    return lax.convert(lax.equal(k, rows), lax.dtype_of(v))


def _eig_jvp(tangents, y, a, eigenvectors):
    w, v = y if eigenvectors else eig_p.bind(a, eigenvectors=True)
    a_dot = lax.convert(tangents[0], lax.dtype_of(v))
    p = _mm(solve_p.bind(v, a_dot), v)  # V^-1 dA V
    dw = _diagonal(p)
    if not eigenvectors:
        return (dw,)
    u = _mm(v, _gaps(w) * p)
    mask = _largest_component_mask(v)
    c_re = -lax.real(lax.sum(lax.conj_or_self(v) * u, axis=-2))
    c_im = -lax.imag(lax.sum(mask * u, axis=-2)) / lax.real(lax.sum(mask * v, axis=-2))
    c = lax.convert(c_re, lax.dtype_of(v)) + lax.convert(c_im, lax.dtype_of(v)) * 1j
    return dw, u + v * lax.expand_dims(c, -2)


def _eig_vjp(y_bar, y, a, wanted, eigenvectors):
    w, v = y if eigenvectors else eig_p.bind(a, eigenvectors=True)
    w_bar, v_bar = y_bar if eigenvectors else (y_bar[0], None)
    p_bar = None if w_bar is None else _diag_embed(w_bar)
    if v_bar is not None:
        # The transpose of u -> u + v diag(c(u)), then of P -> V (F * P).
        mask = _largest_component_mask(v)
        gamma = lax.sum(v_bar * v, axis=-2)
        rho = lax.real(lax.sum(mask * v, axis=-2))
        u_bar = v_bar - lax.conj_or_self(v) * lax.expand_dims(lax.real(gamma), -2)
        u_bar = u_bar + mask * lax.expand_dims(lax.imag(gamma) / rho * -1j, -2)
        t = _gaps(w) * _mm(_mT(v), u_bar)
        p_bar = t if p_bar is None else p_bar + t
    if p_bar is None:
        return (None,)
    v_t = _mT(v)
    return (unbroadcast(solve_p.bind(v_t, _mm(p_bar, v_t)), a),)  # V^-T P_bar V^T


eig_p = defop(
    "eig",
    _eig_impl,
    jvp=_eig_jvp,
    vjp=_eig_vjp,
    multiple_results=True,
    doc="``(eigenvalues, eigenvectors)`` (``eigenvectors=True``) or ``(eigenvalues,)`` of a "
    "general square matrix, always complex; eigenvector derivatives need distinct "
    "eigenvalues and follow NumPy's normalisation (NOTE [eig gauge]).",
)

# -- svd -------------------------------------------------------------------------------


def _svd_impl(xp, a, full_matrices, compute_uv):
    if compute_uv:
        return tuple(xp.linalg.svd(a, full_matrices=full_matrices, compute_uv=True))
    return (xp.linalg.svd(a, compute_uv=False),)


def _cols(x, start, stop):
    return lax.getitem(x, (..., slice(None), slice(start, stop)))


def _rows(x, start, stop):
    return lax.getitem(x, (..., slice(start, stop), slice(None)))


def _svd_factors(y, a, full_matrices, compute_uv):
    """``(u, s, vh, u2, vh2)``: the reduced SVD for the rules, and the extra columns of U
    (``u2``, a tall ``a``) or rows of Vh (``vh2``, a wide one) of ``full_matrices=True``
    (None otherwise): NOTE [full_matrices=True singular vectors]."""
    m, n = a.shape[-2:]
    if not compute_uv:
        return (*svd_p.bind(a, full_matrices=False, compute_uv=True), None, None)
    u, s, vh = y
    if not full_matrices or m == n:
        return u, s, vh, None, None
    if _is_complex(a):
        raise UnsupportedOperationError(
            f"svd(a, full_matrices=True) of a complex {m}x{n} matrix has no derivative: "
            f"the phases of the extra singular vectors are not unique.  Use "
            f"full_matrices=False."
        )
    if m > n:
        return _cols(u, 0, n), s, vh, _cols(u, n, m), None
    return u, s, _rows(vh, 0, m), None, _rows(vh, m, n)


def _not_unique(m, n):
    return UnsupportedOperationError(
        f"svd(a, full_matrices=True) of a {m}x{n} matrix: the derivative of its "
        f"{abs(m - n)} extra singular vectors is not unique (more than one spans the "
        f"complement); use full_matrices=False, or only the factors of the reduced SVD."
    )


# NOTE [full_matrices=True singular vectors]: for a real m x n matrix of full rank, the
# extra columns U2 of a tall matrix's full U span the complement of range(A), and the
# extra rows Vh2 of a wide matrix's full Vh its null space (a homography's DLT reads the
# null vector as ``np.linalg.svd(A)[2][-1]``).  A^T U2 = 0 gives dU2 = -U1 S^-1 V^T dA^T
# U2, and A V2 = 0 gives dV2 = -V1 S^-1 U^T dA V2 (taking dU2 orthogonal to U2): the
# derivative when the complement is one vector (unique up to its sign, which LAPACK keeps
# locally); with a larger complement the basis LAPACK picks is arbitrary, so a tangent
# or a cotangent on it is refused, while the reduced factors (Vh of a tall matrix, U of a
# wide one) stay differentiable.


def _svd_jvp(tangents, y, a, full_matrices, compute_uv):
    # dS = U^H dA V: ds = Re(diag(dS)); with F[i, j] = 1 / (s_j^2 - s_i^2),
    # dU = U (F * (dS S + S dS^H) + 1j Im(diag(dS)) / s) (+ the part outside range(U)),
    # dV = V (F * (S dS + dS^H S)) (+ the part outside range(V)).
    a_dot = tangents[0]
    u, s, vh, u2, vh2 = _svd_factors(y, a, full_matrices, compute_uv)
    v = _mH(vh)
    ds_mat = _mm(_mm(_mH(u), a_dot), v)
    ds_full = _diagonal(ds_mat)
    ds = lax.real(ds_full)
    if not compute_uv:
        return (ds,)
    s_row, s_col = lax.expand_dims(s, -2), lax.expand_dims(s, -1)
    f = _gaps(s * s)
    dss = ds_mat * s_row  # dS @ diag(s)
    sds = s_col * ds_mat  # diag(s) @ dS
    inner_u = f * (dss + _mH(dss))
    if _is_complex(a):  # the phase of each singular pair goes into U (JAX's gauge)
        inner_u = inner_u + _diag_embed(_i_imag(ds_full) / s)
    du = _mm(u, inner_u)
    dv = _mm(v, f * (sds + _mH(sds)))
    m, n = a.shape[-2:]
    if m > n:
        dav = _mm(a_dot, v)
        du = du + (dav - _mm(u, _mm(_mH(u), dav))) / s_row
    if n > m:
        dau = _mm(_mH(a_dot), u)
        dv = dv + (dau - _mm(v, _mm(_mH(v), dau))) / s_row
    dvh = _mH(dv)
    if u2 is not None:  # NOTE [full_matrices=True singular vectors]
        if m - n > 1:
            raise _not_unique(m, n)
        du = lax.concatenate([du, -_mm(u, _mm(vh, _mm(_mT(a_dot), u2)) / s_col)], axis=-1)
    if vh2 is not None:
        if n - m > 1:
            raise _not_unique(m, n)
        dv2 = -_mm(v, _mm(_mT(u), _mm(a_dot, _mT(vh2))) / s_col)
        dvh = lax.concatenate([dvh, _mT(dv2)], axis=-2)
    return du, ds, dvh


def _svd_vjp(y_bar, y, a, wanted, full_matrices, compute_uv):
    # conj(adjoint(conj(cotangents))) (NOTE [complex linear algebra]), with the adjoint
    # A_bar = U (diag(s_bar) + (J + J^H) S + S (K + K^H) + 1j Im(diag(U^H U_bar)) / s) V^H
    # (+ the parts outside range(U) and range(V)), J = F * (U^H U_bar), K = F * (V^H V_bar).
    u, s, vh, u2, vh2 = _svd_factors(y, a, full_matrices, compute_uv)
    if compute_uv:
        u_bar, s_bar, vh_bar = y_bar
    else:
        (s_bar,), u_bar, vh_bar = y_bar, None, None
    m, n = a.shape[-2:]
    u2_bar = vh2_bar = None  # NOTE [full_matrices=True singular vectors]
    if u2 is not None and u_bar is not None:
        u_bar, u2_bar = _cols(u_bar, 0, n), _cols(u_bar, n, m)
        if m - n > 1:
            raise _not_unique(m, n)
    if vh2 is not None and vh_bar is not None:
        vh_bar, vh2_bar = _rows(vh_bar, 0, m), _rows(vh_bar, m, n)
        if n - m > 1:
            raise _not_unique(m, n)
    u_bar = None if u_bar is None else lax.conj_or_self(u_bar)
    v_bar = None if vh_bar is None else _mT(vh_bar)  # conj of the adjoint's V_bar = vh_bar^H
    v = _mH(vh)
    s_row, s_col = lax.expand_dims(s, -2), lax.expand_dims(s, -1)
    core = None if s_bar is None else _diag_embed(s_bar)
    if u_bar is not None or v_bar is not None:
        f = _gaps(s * s)
    if u_bar is not None:
        uh_ubar = _mm(_mH(u), u_bar)
        z = f * uh_ubar
        t = (z + _mH(z)) * s_row
        if _is_complex(a):
            t = t + _diag_embed(_i_imag(_diagonal(uh_ubar)) / s)
        core = t if core is None else core + t
    if v_bar is not None:
        w = f * _mm(_mH(v), v_bar)
        t = s_col * (w + _mH(w))
        core = t if core is None else core + t
    a_bar = None if core is None else _mm(_mm(u, core), vh)
    if u2_bar is not None:  # the adjoint of dU2 = -U1 S^-1 V^T dA^T U2
        t = -_mm(_mm(u2, _mm(_mT(u2_bar), u) / s_row), vh)
        a_bar = t if a_bar is None else a_bar + t
    if vh2_bar is not None:  # the adjoint of dVh2 = -(V1 S^-1 U^T dA V2)^T
        t = -_mm(u / s_row, _mm(_mm(vh, _mT(vh2_bar)), vh2))
        a_bar = t if a_bar is None else a_bar + t
    extra = None
    if m > n and u_bar is not None:
        extra = _mm((u_bar - _mm(u, _mm(_mH(u), u_bar))) / s_row, vh)
    if n > m and v_bar is not None:
        extra = _mm(u / s_row, _mH(v_bar - _mm(v, _mm(_mH(v), v_bar))))
    if extra is not None:
        a_bar = extra if a_bar is None else a_bar + extra
    return (None if a_bar is None else lax.conj_or_self(a_bar),)


svd_p = defop(
    "svd",
    _svd_impl,
    jvp=_svd_jvp,
    vjp=_svd_vjp,
    multiple_results=True,
    doc="``(u, s, vh)`` (``compute_uv=True``) or ``(s,)``; derivatives need distinct "
    "nonzero singular values (NOTE [full_matrices=True singular vectors]).",
)

# -- qr --------------------------------------------------------------------------------


def _qr_impl(xp, a, mode):
    return tuple(xp.linalg.qr(a, mode=mode))


def _qr_check(a, mode):
    m, n = a.shape[-2:]
    if mode == "complete" and m > n:
        raise UnsupportedOperationError(
            f"qr(a, mode='complete') of a {m}x{n} matrix has no derivative: the extra "
            f"columns of Q are not unique.  Use mode='reduced'."
        )
    return m, n


def _qr_square_jvp(q, r, x_dot):
    """Tangents of ``q, r = qr(x)`` for ``x`` with at least as many rows as columns:
    with ``X = Q^H dx R^-1`` and the skew-Hermitian ``W = tril(X, -1) - tril(X, -1)^H +
    1j Im(diag(X))`` (which keeps the diagonal of ``R`` real), ``dQ = Q (W - X) + dx R^-1``
    and ``dR = (X - W) R``."""
    dx_rinv = _solve_right(x_dot, r)
    qt_dx_rinv = _mm(_mH(q), dx_rinv)
    low = _tril(qt_dx_rinv, -1)
    skew = low - _mH(low)
    if _is_complex(qt_dx_rinv):
        skew = skew + _diag_embed(_i_imag(_diagonal(qt_dx_rinv)))
    return _mm(q, skew - qt_dx_rinv) + dx_rinv, _mm(qt_dx_rinv - skew, r)


def _qr_jvp(tangents, y, a, mode):
    m, n = _qr_check(a, mode)
    q, r = y
    a_dot = tangents[0]
    if m >= n:
        return _qr_square_jvp(q, r, a_dot)
    # Wide: a = [a1 | a2] with a1 square; q, r1 = qr(a1) and r2 = q^H @ a2.
    r1 = lax.getitem(r, (..., slice(None), slice(0, m)))
    dq, dr1 = _qr_square_jvp(q, r1, lax.getitem(a_dot, (..., slice(None), slice(0, m))))
    a2 = lax.getitem(a, (..., slice(None), slice(m, None)))
    dr2 = _mm(_mH(dq), a2) + _mm(_mH(q), lax.getitem(a_dot, (..., slice(None), slice(m, None))))
    return dq, lax.concatenate([dr1, dr2], axis=-1)


def _qr_square_vjp(q, r, q_bar, r_bar):
    """Cotangent of ``x`` for ``q, r = qr(x)`` with at least as many rows as columns:
    ``conj((conj(q_bar) + q fold(M)) r^-H)`` with ``M = r r_bar^T - q_bar^T q`` and ``fold``
    the Hermitian matrix of M's lower triangle (``fold_lower``); for real input
    ``(q_bar + q fold(M)) r^-T``."""
    if r_bar is None:
        m = -_mm(_mT(q_bar), q)
    else:
        m = _mm(r, _mT(r_bar))
        if q_bar is not None:
            m = m - _mm(_mT(q_bar), q)
    b = _mm(q, fold_lower(m))
    if q_bar is not None:
        b = lax.conj_or_self(q_bar) + b
    return lax.conj_or_self(_solve_right(b, _mH(r)))


def _qr_vjp(y_bar, y, a, wanted, mode):
    m, n = _qr_check(a, mode)
    q, r = y
    q_bar, r_bar = y_bar
    if m >= n:
        return (_qr_square_vjp(q, r, q_bar, r_bar),)
    r1_bar = r2_bar = None
    if r_bar is not None:
        r1_bar = lax.getitem(r_bar, (..., slice(None), slice(0, m)))
        r2_bar = lax.getitem(r_bar, (..., slice(None), slice(m, None)))
        a2 = lax.getitem(a, (..., slice(None), slice(m, None)))
        t = lax.conj_or_self(_mm(a2, _mT(r2_bar)))  # r2 = q^H a2: the transpose in q
        q_bar = t if q_bar is None else q_bar + t
        a2_bar = _mm(lax.conj_or_self(q), r2_bar)
    else:
        a2_bar = lax.zeros_like(lax.getitem(a, (..., slice(None), slice(m, None))))
    r1 = lax.getitem(r, (..., slice(None), slice(0, m)))
    a1_bar = _qr_square_vjp(q, r1, q_bar, r1_bar)
    return (lax.concatenate([a1_bar, a2_bar], axis=-1),)


qr_p = defop(
    "qr",
    _qr_impl,
    jvp=_qr_jvp,
    vjp=_qr_vjp,
    multiple_results=True,
    doc="``(q, r) = qr(a, mode)`` for ``mode`` 'reduced' or 'complete'; derivatives need "
    "a full-rank leading square block.",
)

# -- pinv ------------------------------------------------------------------------------
#
# NOTE [pinv with cut singular values]: pinv(A) keeps the singular values above
# ``atol + rcond * max(s)`` and drops the rest.  Where every dropped one is exactly zero
# (A of rank k), the constant-rank formula
#     dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P
# is the derivative (JAX's and torch's rule).  Where a dropped singular value s_j is not
# zero, P is the pseudo-inverse of A's rank-k truncation, and its derivative has one more
# term coupling each kept pair (u_i, v_i) with each dropped one (u_j, v_j): in the basis
# of the reduced SVD, C = U^H dA V, it is V X U^H with
#     X = A1 * C + B1 * conj(C)^T,
#     A1_ij = A1_ji = s_j / (s_i (s_i^2 - s_j^2)),  B1_ij = B1_ji = s_j^2 / (s_i^2 (s_i^2 - s_j^2))
# for i kept and j dropped, 0 elsewhere (the constant-rank formula is this derivative with
# the dropped s_j set to 0).  It divides only by s_i and the gap s_i^2 - s_j^2 across the
# cut, so repeated singular values on either side cost nothing (an SVD-composed pinv
# divides by s_i^2 - s_j^2 within them: a wrong number at repeated kept values).  The rule
# computes the reduced SVD of A; the evaluation itself is NumPy's pinv.  The coupling is
# below s_j / s_i <= ||A - A P A|| ||P|| relative to the rest: outside a jit recording
# (whose replay must hold for other data) the rule reads those two norms over the whole
# (batched) data and skips the SVD where the bound is under _PINV_CUT_NEGLIGIBLE (a full-rank
# A, a rank-deficient one with rounding-level dropped values): the rule then costs what the
# constant-rank formula costs.


def _pinv_impl(xp, a, rcond, atol=0.0):
    if not atol:
        return xp.linalg.pinv(a, rcond=rcond)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    keep = s > atol + rcond * xp.max(s, axis=-1, keepdims=True)
    s_inv = xp.where(keep, 1 / xp.where(keep, s, 1), 0)
    return xp.matmul(xp.conj(xp.swapaxes(vh, -1, -2)) * s_inv[..., None, :], _xp_mH(xp, u))


def _xp_mH(xp, x):  # noqa: N802
    return xp.conj(xp.swapaxes(x, -1, -2))


#: Below this bound on the coupling's relative size the rule skips it (NOTE [pinv with cut
#: singular values]).
_PINV_CUT_NEGLIGIBLE = 1e-10


def _pinv_cut_negligible(a, p, right):
    """Whether ``||A - A P A||_F ||P||_F`` (``A - A P A = A @ right``) is under
    :data:`_PINV_CUT_NEGLIGIBLE` (read from the data; never inside a jit recording)."""
    if isinstance(a, Tracer) or isinstance(p, Tracer):
        if any(getattr(i, "note_value_read", None) is not None for i in current_stack()):
            return False
        r, p = (v._physical() if isinstance(v, Tracer) else v for v in (_mm(a, right), p))
    else:  # the plain arrays of an eager derivative
        r = a @ right
    r, p = r.ravel(), p.ravel()
    squares = abs(lax.xp_of(r, p).vdot(r, r) * lax.xp_of(r, p).vdot(p, p))
    return float(squares) < _PINV_CUT_NEGLIGIBLE**2


def _pinv_cut_coupling(a, rcond, atol):
    """``(u, vh, A1, B1)`` of NOTE [pinv with cut singular values]."""
    u, s, vh = svd_p.bind(a, full_matrices=False, compute_uv=True)
    s_max = _reductions.reduce_max_p.bind(lax.stop_gradient(s), axis=(s.ndim - 1,), keepdims=True)
    keep = _ew.greater_p.bind(lax.stop_gradient(s), atol + rcond * s_max)
    ki, kj = lax.expand_dims(keep, -1), lax.expand_dims(keep, -2)
    si, sj = lax.expand_dims(s, -1), lax.expand_dims(s, -2)
    across = lax.logical_or(
        lax.logical_and(ki, _ew.logical_not_p.bind(kj)),
        lax.logical_and(_ew.logical_not_p.bind(ki), kj),
    )
    # the kept value and the dropped one of each pair across the cut
    hi, lo = lax.select(ki, si, sj), lax.select(ki, sj, si)
    hi = lax.select(across, hi, lax.ones_like(hi))
    lo = lax.select(across, lo, lax.zeros_like(lo))
    gap = hi * hi - lo * lo
    a1 = lo / (hi * gap)
    b1 = lo * lo / (hi * hi * gap)
    return u, vh, a1, b1


def _pinv_jvp(a_dot, p, a, rcond, atol=0.0):
    # The constant-rank formula, and the coupling across the cut (NOTE [pinv with cut
    # singular values]).
    m, n = a.shape[-2:]
    a_dot_h = _mH(a_dot)
    left = _eye(m, p) - _mm(a, p)
    right = _eye(n, p) - _mm(p, a)
    out = -_mm(_mm(p, a_dot), p)
    out = out + _mm(_mm(p, _mm(_mH(p), a_dot_h)), left)
    out = out + _mm(right, _mm(a_dot_h, _mm(_mH(p), p)))
    if _pinv_cut_negligible(a, p, right):
        return out
    u, vh, a1, b1 = _pinv_cut_coupling(a, rcond, atol)
    c = _mm(_mm(_mH(u), a_dot), _mH(vh))
    x = a1 * c + b1 * _mH(c)
    return out + _mm(_mm(_mH(vh), x), _mH(u))


def _pinv_vjp(y_bar, p, a, rcond, atol=0.0):
    # The transpose of the map above, term by term (X -> B1 X^H B2 transposes to
    # G -> conj(B2 G^T B1)).
    m, n = a.shape[-2:]
    g_h = _mH(y_bar)
    left = _eye(m, p) - _mm(a, p)
    right = _eye(n, p) - _mm(p, a)
    p_t, p_c = _mT(p), lax.conj_or_self(p)
    out = -_mm(_mm(p_t, y_bar), p_t)
    out = out + _mm(_mm(lax.conj_or_self(left), g_h), _mm(p_c, p_t))
    out = out + _mm(_mm(p_t, p_c), _mm(g_h, lax.conj_or_self(right)))
    if _pinv_cut_negligible(a, p, right):
        return out
    u, vh, a1, b1 = _pinv_cut_coupling(a, rcond, atol)
    x_bar = _mm(_mm(lax.conj_or_self(vh), y_bar), lax.conj_or_self(u))
    c_bar = a1 * x_bar + lax.conj_or_self(_mT(b1 * x_bar))
    return out + _mm(_mm(lax.conj_or_self(u), c_bar), lax.conj_or_self(vh))


pinv_p = defop(
    "pinv",
    _pinv_impl,
    jvp=(_pinv_jvp,),
    vjp=(_pinv_vjp,),
    doc="Moore-Penrose pseudo-inverse (singular values <= ``atol + rcond * max`` dropped); "
    "its derivative is that of the pseudo-inverse of the rank-k truncation (NOTE [pinv with "
    "cut singular values]).",
)

__all__ = [
    "adjugate_p",
    "cholesky_p",
    "det_p",
    "eig_p",
    "eigh_p",
    "einsum_p",
    "fold_lower",
    "fold_lower_adjoint",
    "inv_p",
    "matmul_p",
    "pinv_p",
    "qr_p",
    "slogdet_p",
    "solve_p",
    "svd_p",
]
