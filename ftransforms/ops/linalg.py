"""Linear-algebra primitives: ``matmul`` (NumPy's semantics: vectors and broadcasting
stacks of matrices), ``einsum`` (explicit subscripts with ``->``, no ellipsis: the
``fnp.einsum`` front end expands them), and the ``numpy.linalg`` matrix functions (``inv``,
``solve``, ``det``, ``slogdet``, ``cholesky``, ``eigh``, ``svd``, ``qr``, ``pinv``) over
stacks of matrices; ``ftransforms.numpy.linalg`` builds the rest from these."""

from __future__ import annotations

import numpy

from ftransforms import lax
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.primitive import defop
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


def _matmul_vjp_a(g, y, a, b):
    if lax.ndim(a) == 1 and lax.ndim(b) == 1:  # a dot product: y and g are scalars
        return g * b
    if lax.ndim(b) == 1:  # (..., n, m) @ (m,): a_bar = g b^T
        return unbroadcast(_as_column(g) * b, a)
    b_t = lax.swapaxes(b, -1, -2)
    if lax.ndim(a) == 1 and lax.ndim(g) > 1:  # (n,) @ (..., n, m): g is a stack of rows
        return unbroadcast(lax.squeeze(matmul_p.bind(lax.expand_dims(g, -2), b_t), -2), a)
    return unbroadcast(matmul_p.bind(g, b_t), a)


def _matmul_vjp_b(g, y, a, b):
    if lax.ndim(a) == 1 and lax.ndim(b) == 1:
        return a * g
    if lax.ndim(a) == 1:  # (n,) @ (..., n, m): b_bar = a g^T
        return unbroadcast(_as_column(a) * lax.expand_dims(g, -2), b)
    a_t = lax.swapaxes(a, -1, -2)
    if lax.ndim(b) == 1 and lax.ndim(g) > 1:  # (..., n, m) @ (m,): g is a stack of columns
        return unbroadcast(lax.squeeze(matmul_p.bind(a_t, _as_column(g)), -1), b)
    return unbroadcast(matmul_p.bind(a_t, g), b)


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


def _einsum_operand_cotangent(g, operands, ins, out, i, optimize):
    """Cotangent of operand ``i``: contract ``g`` with the other operands back to ``ins[i]``.

    A letter repeated within ``ins[i]`` (a diagonal) is renamed and tied to its original
    by an identity matrix; a letter found only in ``ins[i]`` (summed there and nowhere
    else) is broadcast back.
    """
    x = operands[i]
    sizes = {c: n for s, op in zip(ins, operands) for c, n in zip(s, op.shape)}
    fresh = _fresh_letters("".join(ins) + out)
    target = ""
    subs = [s for j, s in enumerate(ins) if j != i] + [out]
    ops = [op for j, op in enumerate(operands) if j != i] + [g]
    for c in ins[i]:
        if c in target:
            f = next(fresh)
            subs.append(c + f)
            ops.append(lax.eye(sizes[c], dtype=g.dtype, like=g))
            target += f
        else:
            target += c
    available = set("".join(subs))
    kept = "".join(c for c in target if c in available)
    res = einsum_p.bind(*ops, subscripts=",".join(subs) + "->" + kept, optimize=optimize)
    if kept != target:
        res = lax.reshape(res, tuple(sizes[c] if c in available else 1 for c in target))
        res = lax.broadcast_to(res, x.shape)
    return unbroadcast(res, x)


def _einsum_vjp(g, y, *operands, subscripts, optimize, wanted):
    ins, out = subscripts.split("->")
    ins = ins.split(",")
    return tuple(
        _einsum_operand_cotangent(g, operands, ins, out, i, optimize) if want else None
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
# batch axis to the front (``batching_rules.linalg.leading``).  The rules are real-valued
# (complex inputs are not supported yet) and are built from primitives (solve, inv,
# matmul, einsum, elementwise ops), so derivatives of any order work.
#
# NOTE [numpy reads one triangle]: numpy's ``cholesky`` and ``eigh`` read only the lower
# triangle of their input (LAPACK's UPLO='L'); the upper one is ignored.  The rules
# differentiate exactly that function: a tangent enters through ``fold_lower(a_dot)`` (the
# symmetric matrix built from its lower triangle), and a cotangent is mapped back by the
# adjoint ``fold_lower_adjoint`` (so it is lower-triangular, with the off-diagonal entries
# of the symmetric gradient doubled).  JAX and torch instead differentiate the
# symmetrized input ``(A + A.T) / 2`` and give the symmetric gradient; for symmetric
# perturbations both give the same directional derivatives.  ``UPLO='U'`` and
# ``upper=True`` are handled by the front ends in ``ftransforms.numpy.linalg`` through a
# transpose.


def _mT(x):  # noqa: N802  (numpy's name)
    return lax.swapaxes(x, -1, -2)


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
    """The symmetric matrix built from the lower triangle of ``x`` (what numpy's
    ``cholesky``/``eigh`` see; see NOTE [numpy reads one triangle])."""
    return _tril(x) + _mT(_tril(x, -1))


def fold_lower_adjoint(g):
    """The adjoint of :func:`fold_lower`: ``tril(g) + tril(g.T, -1)``."""
    return _tril(g) + _tril(_mT(g), -1)


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

det_p = defop(
    "det",
    lambda xp, a: xp.linalg.det(a),
    jvp=(lambda a_dot, y, a: y * _trace(solve_p.bind(a, a_dot)),),
    vjp=(lambda y_bar, y, a: _as_matrix(y_bar * y) * _mT(inv_p.bind(a)),),
    doc="``det(a)``; its derivative needs ``a`` invertible.",
)


def _slogdet_jvp(tangents, y, a):
    return None, _trace(solve_p.bind(a, tangents[0]))


def _slogdet_vjp(y_bar, y, a, wanted):
    logdet_bar = y_bar[1]
    if logdet_bar is None:
        return (None,)
    return (_as_matrix(logdet_bar) * _mT(inv_p.bind(a)),)


slogdet_p = defop(
    "slogdet",
    lambda xp, a: tuple(xp.linalg.slogdet(a)),
    jvp=_slogdet_jvp,
    vjp=_slogdet_vjp,
    multiple_results=True,
    doc="``(sign, logabsdet) = slogdet(a)``; ``sign`` has derivative 0.",
)

# -- cholesky, eigh --------------------------------------------------------------------


def _phi(x):
    """The lower triangle of ``x`` with its diagonal halved."""
    return x * (_tri_mask(x, -1) + 0.5 * _eye(x.shape[-1], x))


def _cholesky_jvp(a_dot, low, a):
    # dL = L Phi(L^-1 dA L^-T), dA read through its lower triangle.
    tmp = solve_p.bind(low, fold_lower(a_dot))
    return _mm(low, _phi(_mT(solve_p.bind(low, _mT(tmp)))))


def _cholesky_vjp(low_bar, low, a):
    x_bar = _phi(_mm(_mT(low), low_bar))
    tmp = solve_p.bind(_mT(low), x_bar)
    return fold_lower_adjoint(_mT(solve_p.bind(_mT(low), _mT(tmp))))


cholesky_p = defop(
    "cholesky",
    lambda xp, a: xp.linalg.cholesky(a),
    jvp=(_cholesky_jvp,),
    vjp=(_cholesky_vjp,),
    doc="Lower Cholesky factor; reads the lower triangle (NOTE [numpy reads one triangle]).",
)


def _eigh_impl(xp, a, eigenvectors):
    if eigenvectors:
        return tuple(xp.linalg.eigh(a))
    return (xp.linalg.eigvalsh(a),)


def _eigh_factors(y, a, eigenvectors):
    return y if eigenvectors else eigh_p.bind(a, eigenvectors=True)


def _eigh_jvp(tangents, y, a, eigenvectors):
    w, v = _eigh_factors(y, a, eigenvectors)
    m = _mm(_mm(_mT(v), fold_lower(tangents[0])), v)
    if not eigenvectors:
        return (_diagonal(m),)
    return _diagonal(m), _mm(v, _gaps(w) * m)


def _eigh_vjp(y_bar, y, a, wanted, eigenvectors):
    w, v = _eigh_factors(y, a, eigenvectors)
    w_bar, v_bar = y_bar if eigenvectors else (y_bar[0], None)
    inner = None if w_bar is None else _diag_embed(w_bar)
    if v_bar is not None:
        t = _gaps(w) * _mm(_mT(v), v_bar)
        inner = t if inner is None else inner + t
    return (fold_lower_adjoint(_mm(_mm(v, inner), _mT(v))),)


eigh_p = defop(
    "eigh",
    _eigh_impl,
    jvp=_eigh_jvp,
    vjp=_eigh_vjp,
    multiple_results=True,
    doc="``(eigenvalues, eigenvectors)`` (``eigenvectors=True``) or ``(eigenvalues,)`` of a "
    "symmetric matrix (lower triangle read, NOTE [numpy reads one triangle]); derivatives "
    "need distinct eigenvalues.",
)

# -- svd -------------------------------------------------------------------------------


def _svd_impl(xp, a, full_matrices, compute_uv):
    if compute_uv:
        return tuple(xp.linalg.svd(a, full_matrices=full_matrices, compute_uv=True))
    return (xp.linalg.svd(a, compute_uv=False),)


def _svd_factors(y, a, full_matrices, compute_uv):
    """``(u, s, vh)`` of the reduced SVD, for the rules."""
    m, n = a.shape[-2:]
    if full_matrices and compute_uv and m != n:
        raise UnsupportedOperationError(
            f"svd(a, full_matrices=True) of a {m}x{n} matrix has no derivative: the extra "
            f"singular vectors are not unique.  Use full_matrices=False."
        )
    if compute_uv:
        return y
    return svd_p.bind(a, full_matrices=False, compute_uv=True)


def _svd_jvp(tangents, y, a, full_matrices, compute_uv):
    a_dot = tangents[0]
    u, s, vh = _svd_factors(y, a, full_matrices, compute_uv)
    v = _mT(vh)
    ds_mat = _mm(_mm(_mT(u), a_dot), v)
    ds = _diagonal(ds_mat)
    if not compute_uv:
        return (ds,)
    s_row, s_col = lax.expand_dims(s, -2), lax.expand_dims(s, -1)
    f = _gaps(s * s)
    dss = ds_mat * s_row  # dS @ diag(s)
    sds = s_col * ds_mat  # diag(s) @ dS
    du = _mm(u, f * (dss + _mT(dss)))
    dv = _mm(v, f * (sds + _mT(sds)))
    m, n = a.shape[-2:]
    if m > n:
        dav = _mm(a_dot, v)
        du = du + (dav - _mm(u, _mm(_mT(u), dav))) / s_row
    if n > m:
        dau = _mm(_mT(a_dot), u)
        dv = dv + (dau - _mm(v, _mm(_mT(v), dau))) / s_row
    return du, ds, _mT(dv)


def _svd_vjp(y_bar, y, a, wanted, full_matrices, compute_uv):
    u, s, vh = _svd_factors(y, a, full_matrices, compute_uv)
    if compute_uv:
        u_bar, s_bar, vh_bar = y_bar
    else:
        (s_bar,), u_bar, vh_bar = y_bar, None, None
    v = _mT(vh)
    s_row, s_col = lax.expand_dims(s, -2), lax.expand_dims(s, -1)
    core = None if s_bar is None else _diag_embed(s_bar)
    if u_bar is not None or vh_bar is not None:
        f = _gaps(s * s)
    if u_bar is not None:
        z = f * _mm(_mT(u), u_bar)
        t = (z + _mT(z)) * s_row
        core = t if core is None else core + t
    if vh_bar is not None:
        v_bar = _mT(vh_bar)
        w = f * _mm(_mT(v), v_bar)
        t = s_col * (w + _mT(w))
        core = t if core is None else core + t
    a_bar = None if core is None else _mm(_mm(u, core), vh)
    m, n = a.shape[-2:]
    extra = None
    if m > n and u_bar is not None:
        extra = _mm((u_bar - _mm(u, _mm(_mT(u), u_bar))) / s_row, vh)
    if n > m and vh_bar is not None:
        extra = _mm(u / s_row, _mT(v_bar - _mm(v, _mm(_mT(v), v_bar))))
    if extra is not None:
        a_bar = extra if a_bar is None else a_bar + extra
    return (a_bar,)


svd_p = defop(
    "svd",
    _svd_impl,
    jvp=_svd_jvp,
    vjp=_svd_vjp,
    multiple_results=True,
    doc="``(u, s, vh)`` (``compute_uv=True``) or ``(s,)``; derivatives need distinct "
    "nonzero singular values, and ``full_matrices=False`` for non-square matrices.",
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
    """Tangents of ``q, r = qr(x)`` for ``x`` with at least as many rows as columns."""
    dx_rinv = _solve_right(x_dot, r)
    qt_dx_rinv = _mm(_mT(q), dx_rinv)
    low = _tril(qt_dx_rinv, -1)
    skew = low - _mT(low)
    return _mm(q, skew - qt_dx_rinv) + dx_rinv, _mm(qt_dx_rinv - skew, r)


def _qr_jvp(tangents, y, a, mode):
    m, n = _qr_check(a, mode)
    q, r = y
    a_dot = tangents[0]
    if m >= n:
        return _qr_square_jvp(q, r, a_dot)
    # Wide: a = [a1 | a2] with a1 square; q, r1 = qr(a1) and r2 = q.T @ a2.
    r1 = lax.getitem(r, (..., slice(None), slice(0, m)))
    dq, dr1 = _qr_square_jvp(q, r1, lax.getitem(a_dot, (..., slice(None), slice(0, m))))
    a2 = lax.getitem(a, (..., slice(None), slice(m, None)))
    dr2 = _mm(_mT(dq), a2) + _mm(_mT(q), lax.getitem(a_dot, (..., slice(None), slice(m, None))))
    return dq, lax.concatenate([dr1, dr2], axis=-1)


def _qr_square_vjp(q, r, q_bar, r_bar):
    """Cotangent of ``x`` for ``q, r = qr(x)`` with at least as many rows as columns:
    ``(q_bar + q copyltu(M)) r^-T`` with ``M = r r_bar^T - q_bar^T q``."""
    if r_bar is None:
        m = -_mm(_mT(q_bar), q)
    else:
        m = _mm(r, _mT(r_bar))
        if q_bar is not None:
            m = m - _mm(_mT(q_bar), q)
    b = _mm(q, fold_lower(m))
    if q_bar is not None:
        b = q_bar + b
    return _solve_right(b, _mT(r))


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
        t = _mm(a2, _mT(r2_bar))
        q_bar = t if q_bar is None else q_bar + t
        a2_bar = _mm(q, r2_bar)
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


def _pinv_impl(xp, a, rcond):
    return xp.linalg.pinv(a, rcond=rcond)


def _pinv_jvp(a_dot, p, a, rcond):
    # dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P  (constant rank).
    m, n = a.shape[-2:]
    a_dot_t = _mT(a_dot)
    left = _eye(m, p) - _mm(a, p)
    right = _eye(n, p) - _mm(p, a)
    out = -_mm(_mm(p, a_dot), p)
    out = out + _mm(_mm(p, _mm(_mT(p), a_dot_t)), left)
    return out + _mm(right, _mm(a_dot_t, _mm(_mT(p), p)))


def _pinv_vjp(g, p, a, rcond):
    m, n = a.shape[-2:]
    g_t = _mT(g)
    left = _eye(m, p) - _mm(a, p)
    right = _eye(n, p) - _mm(p, a)
    out = -_mm(_mm(_mT(p), g), _mT(p))
    out = out + _mm(_mm(left, g_t), _mm(p, _mT(p)))
    return out + _mm(_mm(_mT(p), p), _mm(g_t, right))


pinv_p = defop(
    "pinv",
    _pinv_impl,
    jvp=(_pinv_jvp,),
    vjp=(_pinv_vjp,),
    doc="Moore-Penrose pseudo-inverse (singular values <= ``rcond * max`` dropped); the "
    "derivative holds where the rank is locally constant.",
)

__all__ = [
    "cholesky_p",
    "det_p",
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
