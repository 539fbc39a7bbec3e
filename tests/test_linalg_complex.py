"""``fnp.linalg`` on complex inputs, and the general eigendecomposition ``eig``/``eigvals``.

Derivatives follow JAX's convention (NOTE [complex derivatives] in
``ftransforms/ops/elementwise.py``, NOTE [complex linear algebra] in
``ftransforms/ops/linalg.py``): the gradient of a real loss of complex ``z`` is
``dL/dx - 1j dL/dy``.  Oracles, on well-conditioned random inputs:

* ``grad`` of a real loss vs ``jax.grad`` (x64) and ``vmap(grad)`` vs a Python loop;
* ``jvp`` vs fourth-order central differences and ``vjp`` vs ``jvp`` by the inner-product
  identity (``ftransforms.testing.check_grads``), on ``(x, y) -> f(x + 1j y)`` split into
  real and imaginary parts, so real and imaginary perturbations are both checked;
* ``jvp`` of holomorphic functions (inv, solve, det, matrix_power, eigvals) vs ``jax.jvp``
  with complex tangents;
* complex64 against complex128, and derivatives at repeated eigenvalues/singular values
  (finite where JAX's are).

Eigenvectors and singular vectors have a phase freedom, so the losses use only
phase-invariant quantities (``|v|**2``, ``u diag(g(s)) v^H``, projectors), as JAX's tests
do; ``eig``'s eigenvectors are also compared with JAX's ``enable_eigvec_derivs=True``, which
differentiates through the same LAPACK normalisation (NOTE [eig gauge]).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms.numpy as fnp
from ftransforms import grad, jit, jvp, vjp, vmap
from ftransforms.backend import _NAMESPACES, register_backend
from ftransforms.testing import check_grads
from tests.jaxpr_evaluator import on_jax
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

F64 = tol(np.float64)
F32 = tol(np.float32)


# -- inputs ------------------------------------------------------------------------------


def cplx(rng, shape, scale=1.0):
    return scale * (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))


def general(rng, n, m=None):
    """Well conditioned: close to 1.5 I."""
    m = n if m is None else m
    a = cplx(rng, (n, m), 0.3)
    k = min(n, m)
    a[range(k), range(k)] += 1.5
    return a


def distinct_sv(rng, m, n):
    """Complex, singular values about 0.7 apart, the smallest about 1."""
    k = min(m, n)
    u = np.linalg.qr(cplx(rng, (m, k)))[0]
    v = np.linalg.qr(cplx(rng, (n, k)))[0]
    s = 1.0 + 0.7 * np.arange(k)[::-1] + 0.05 * rng.standard_normal(k)
    return (u * s) @ v.conj().T


def herm_distinct(rng, n):
    """Hermitian, eigenvalues about 1 apart."""
    q = np.linalg.qr(cplx(rng, (n, n)))[0]
    lam = np.arange(n) - (n - 1) / 2 + 0.1 * rng.standard_normal(n)
    return (q * lam) @ q.conj().T


def nonnormal_distinct(rng, n):
    """A general complex matrix with well-separated eigenvalues."""
    x = general(rng, n)
    lam = np.arange(n) + 1.0 + 0.5j * rng.standard_normal(n)
    return (x * lam) @ np.linalg.inv(x)


def real_rotation_like(rng, n=3):
    """A real matrix with a complex-conjugate pair of eigenvalues and a real one."""
    x = general(rng, n).real
    block = np.array([[0.5, -1.2, 0.0], [1.2, 0.5, 0.0], [0.0, 0.0, 2.0]])
    return x @ block @ np.linalg.inv(x)


# -- the cases ----------------------------------------------------------------------------
#
# Each case is a real loss ``fn(m, *args)`` written once over ``m`` (fnp or jax.numpy)
# and an input maker.  Hermitian inputs are built inside the loss (``herm``), so that
# NumPy's lower-triangle reading and JAX's symmetrisation see the same matrix.


def mH(m, x):  # noqa: N802
    return m.conj(m.swapaxes(x, -1, -2))


def herm(m, x):
    return x + mH(m, x)


def psd(m, x):
    n = x.shape[-1]
    eye = fnp.eye(n, dtype=x.dtype, like=x) if m is fnp else m.eye(n)
    return m.matmul(x, mH(m, x)) / n + eye


def re_sum(m, z, w=None):
    """A real, generic linear functional of a complex array: Re and Im both weighted."""
    z = z if w is None else z * w
    return m.sum(m.real(z) * 0.7 - m.imag(z) * 1.3)


def _svd_loss(m, a):
    u, s, vh = m.linalg.svd(a, full_matrices=False)
    recon = m.matmul(u * m.sin(s)[..., None, :], vh)
    return re_sum(m, recon) + m.sum(m.abs(u) ** 2 * m.cos(s)) + m.sum(s**3)


def _eigh_loss(m, x):
    w, v = m.linalg.eigh(herm(m, x))
    proj = m.matmul(v * m.cos(w)[..., None, :], mH(m, v))
    return re_sum(m, proj) + m.sum(m.abs(v[..., :2]) ** 2 * w[..., :2]) + m.sum(w**2)


def _qr_loss(m, a):
    q, r = m.linalg.qr(a)
    return re_sum(m, q) + re_sum(m, r * r) + m.sum(m.abs(q) ** 3)


def _eig(m, a):
    """``eig``; JAX's differentiable spelling for its eigenvectors (same normalisation)."""
    if m is jnp:
        return jax.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    return m.linalg.eig(a)


def _eig_loss(m, a):
    w, v = _eig(m, a)
    # phase-invariant: |v|^2 and the eigenprojector-weighted reconstruction
    return (
        m.sum(m.abs(v) ** 2 * m.real(w))
        + re_sum(m, w * w)
        + re_sum(m, m.matmul(v * m.exp(0.3 * w)[..., None, :], m.linalg.inv(v)))
    )


def _slogdet_loss(m, a):
    sign, logabs = m.linalg.slogdet(a)
    return m.sum(logabs) + re_sum(m, sign * (1.0 + 2.0j))


def _lstsq_loss(m, a, b):
    x, res = m.linalg.lstsq(a, b)[:2]
    return re_sum(m, x) + m.sum(res)


@dataclass
class Case:
    fn: Callable
    make: Callable  # rng -> args
    order: int = 1  # for check_grads


CASES: dict[str, Case] = {
    "svdvals": Case(
        lambda m, a: m.sum(m.linalg.svd(a, compute_uv=False) ** 3),
        lambda r: (distinct_sv(r, 3, 3),),
    ),
    "svdvals_abs2": Case(
        lambda m, a: m.sum(m.abs(m.linalg.svd(a, compute_uv=False)) ** 2),
        lambda r: (distinct_sv(r, 4, 3),),
    ),
    "svd_square": Case(_svd_loss, lambda r: (distinct_sv(r, 3, 3),), order=2),
    "svd_tall": Case(_svd_loss, lambda r: (distinct_sv(r, 4, 2),)),
    "svd_wide": Case(_svd_loss, lambda r: (distinct_sv(r, 2, 4),)),
    "eigh": Case(_eigh_loss, lambda r: (herm_distinct(r, 3) / 2,), order=2),
    "eigvalsh": Case(
        lambda m, x: m.sum(m.sin(m.linalg.eigvalsh(herm(m, x)))),
        lambda r: (herm_distinct(r, 3) / 2,),
    ),
    "cholesky": Case(
        lambda m, x: re_sum(m, m.linalg.cholesky(psd(m, x)), 1.0 + 0.5j),
        lambda r: (cplx(r, (3, 3)),),
        order=2,
    ),
    "qr_square": Case(_qr_loss, lambda r: (general(r, 3),), order=2),
    "qr_tall": Case(_qr_loss, lambda r: (general(r, 4, 2),)),
    "inv": Case(lambda m, a: m.real(m.trace(m.linalg.inv(a))), lambda r: (general(r, 3),), order=2),
    "solve": Case(
        lambda m, a, b: re_sum(m, m.linalg.solve(a, b)), lambda r: (general(r, 3), cplx(r, (3, 2)))
    ),
    "det": Case(
        lambda m, a: m.abs(m.linalg.det(a)) ** 2 + m.real(m.linalg.det(a)),
        lambda r: (general(r, 3),),
    ),
    # order 1: the second-order check compares the VJP's primal values bit for bit, and
    # NumPy's complex scalar multiply (a plain run) and its multiply ufunc on 0-d arrays
    # (a run under jvp) round one ulp apart; second order is checked by
    # test_second_order_of_slogdet_and_det_vs_jax instead
    "slogdet": Case(_slogdet_loss, lambda r: (general(r, 3),)),
    "pinv_square": Case(lambda m, a: re_sum(m, m.linalg.pinv(a), 1j), lambda r: (general(r, 3),)),
    "pinv_tall": Case(lambda m, a: re_sum(m, m.linalg.pinv(a)), lambda r: (general(r, 4, 2),)),
    "pinv_wide": Case(lambda m, a: re_sum(m, m.linalg.pinv(a)), lambda r: (general(r, 2, 4),)),
    "lstsq": Case(_lstsq_loss, lambda r: (general(r, 4, 2), cplx(r, (4,)))),
    "matrix_power": Case(
        lambda m, a: re_sum(m, m.linalg.matrix_power(a, 3)), lambda r: (general(r, 3),)
    ),
    "matrix_power_neg": Case(
        lambda m, a: re_sum(m, m.linalg.matrix_power(a, -2)), lambda r: (general(r, 3),)
    ),
    "norm_vector": Case(
        lambda m, x: sum(m.linalg.norm(x, o) for o in (None, 1, 2, np.inf, -np.inf, 3, -1, 0.5)),
        lambda r: (cplx(r, (5,)),),
    ),
    "norm_matrix": Case(
        lambda m, x: sum(
            m.linalg.norm(x, o) * (k + 1)
            for k, o in enumerate((None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf))
        ),
        lambda r: (distinct_sv(r, 3, 3) + np.diag([0.0, 0.3, 0.7]),),
    ),
    "cond": Case(lambda m, a: m.linalg.cond(a), lambda r: (distinct_sv(r, 3, 3),)),
    "eigvals": Case(
        lambda m, a: re_sum(m, m.linalg.eigvals(a) ** 2), lambda r: (nonnormal_distinct(r, 3),)
    ),
    "eig": Case(_eig_loss, lambda r: (nonnormal_distinct(r, 3),), order=2),
    "eig_real_input": Case(_eig_loss, lambda r: (real_rotation_like(r),)),
}

NAMES = sorted(CASES)


def _args(name, seed=0):
    return CASES[name].make(np.random.default_rng([seed, NAMES.index(name)]))


def _loss(name, m):
    fn = CASES[name].fn
    return lambda *args: fn(m, *args)


def _argnums(args):
    return tuple(range(len(args)))


# -- forward values -------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_loss_matches_numpy(name):
    args = _args(name)
    got = _loss(name, fnp)(*args)
    ref = _loss(name, np)(*args)
    assert np.isrealobj(got)
    assert_tree_close(np.asarray(got), np.asarray(ref), **F64)


def test_values_and_dtypes_match_numpy():
    r = np.random.default_rng(1)
    a = general(r, 3)
    h = herm_distinct(r, 3)
    for name, args in [
        ("inv", (a,)),
        ("det", (a,)),
        ("slogdet", (a,)),
        ("pinv", (a,)),
        ("eigvalsh", (h,)),
        ("cholesky", (h @ h.conj().T + np.eye(3),)),
        ("svd", (a,)),
        ("qr", (a,)),
        ("eig", (a,)),
        ("eigvals", (a,)),
        ("lstsq", (general(r, 4, 2), cplx(r, (4,)))),
    ]:
        for dt in (np.complex64, np.complex128):
            cast = tuple(x.astype(dt) for x in args)
            got = getattr(fnp.linalg, name)(*cast)
            ref = getattr(np.linalg, name)(*cast)
            got_l, ref_l = jax.tree.leaves(got), jax.tree.leaves(ref)
            for g, e in zip(got_l, ref_l):
                assert np.asarray(g).dtype == np.asarray(e).dtype, (name, dt)
            t = tol(np.float32 if dt == np.complex64 else np.float64)
            # eigenvectors and q/u/vh are LAPACK's own, so they compare directly
            for g, e in zip(got_l, ref_l):
                np.testing.assert_allclose(g, e, rtol=t["rtol"] * 10, atol=t["atol"] * 10)
    w, v = fnp.linalg.eigh(h)
    assert w.dtype == np.float64 and v.dtype == np.complex128


def test_upper_triangle_variants_read_the_upper_triangle():
    r = np.random.default_rng(3)
    h = psd(np, cplx(r, (3, 3)))
    junk = h + np.tril(cplx(r, (3, 3)), -1) + 1j * np.diag(r.standard_normal(3))
    w, v = fnp.linalg.eigh(junk, UPLO="U")
    ew, ev = np.linalg.eigh(junk, UPLO="U")
    np.testing.assert_allclose(w, ew, **F64)
    np.testing.assert_allclose(h @ v, v * w, **F64)  # eigenvectors of the upper triangle's
    np.testing.assert_allclose(np.abs(v), np.abs(ev), **F64)  # matrix, phases LAPACK's own
    np.testing.assert_allclose(fnp.linalg.eigvalsh(junk, UPLO="U"), ew, **F64)
    up = fnp.linalg.cholesky(junk, upper=True)
    np.testing.assert_allclose(up, np.linalg.cholesky(junk, upper=True), **F64)
    # derivatives read the same triangle: a change below the diagonal changes nothing
    below = np.tril(cplx(r, (3, 3)), -1)
    for f in (
        lambda a: fnp.linalg.eigvalsh(a, UPLO="U"),
        lambda a: fnp.linalg.cholesky(a, upper=True),
    ):
        np.testing.assert_allclose(jvp(f, (junk,), (below,))[1], 0, atol=1e-12)


def test_eig_follows_numpys_real_or_complex_result_rule():
    r = np.random.default_rng(2)
    x = general(r, 3).real
    sym = x + x.T  # real eigenvalues: NumPy returns real arrays
    w, v = fnp.linalg.eig(sym)
    assert w.dtype == np.float64 and v.dtype == np.float64
    np.testing.assert_allclose(w, np.linalg.eig(sym)[0], **F64)
    rot = real_rotation_like(r)  # a complex pair: complex arrays
    assert fnp.linalg.eigvals(rot).dtype == np.complex128
    assert fnp.linalg.eigvals(rot.astype(np.float32)).dtype == np.complex64
    # the derivative of the real branch is the real part of the complex one
    g = grad(lambda a: fnp.sum(fnp.linalg.eigvals(a) ** 3))(sym)
    jg = jax.grad(lambda a: jnp.sum(jnp.real(jnp.linalg.eigvals(a) ** 3)))(sym)
    assert g.dtype == np.float64
    assert_tree_close(g, np.asarray(jg), **F64)


# -- derivatives vs JAX ----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_grad_matches_jax(name):
    args = _args(name)
    nums = _argnums(args)
    got = grad(_loss(name, fnp), argnums=nums)(*args)
    ref = on_jax(jax.grad(_loss(name, jnp), argnums=nums), *args)
    for g, e in zip(got, ref):
        assert g.dtype == np.asarray(e).dtype
        assert_tree_close(g, np.asarray(e), **F64, err_msg=name)


@pytest.mark.parametrize("name", NAMES)
def test_jvp_vjp_vs_finite_differences_in_real_and_imaginary_parts(name):
    args = _args(name)
    fn = CASES[name].fn

    def split(*parts):  # (x1, y1, x2, y2, ...) -> f(x1 + 1j y1, ...)
        zs = [x + 1j * y for x, y in zip(parts[::2], parts[1::2])]
        return fn(fnp, *zs)

    parts = [p for z in args for p in (z.real.copy(), z.imag.copy())]
    check_grads(split, parts, order=CASES[name].order)


@pytest.mark.parametrize("name", NAMES)
def test_vmap_of_grad_matches_a_loop(name):
    batch = [_args(name, seed) for seed in range(3)]
    stacked = tuple(np.stack(xs) for xs in zip(*batch))
    nums = _argnums(batch[0])
    g = grad(_loss(name, fnp), argnums=nums)
    got = vmap(g)(*stacked)
    ref = [np.stack(gs) for gs in zip(*[g(*args) for args in batch])]
    for a, e in zip(got, ref):
        assert_tree_close(a, e, **F64, err_msg=name)


@pytest.mark.parametrize("name", ["svd_square", "eigh", "cholesky", "qr_square", "eig", "inv"])
def test_complex64_keeps_its_dtype_and_precision(name):
    args = _args(name)
    args32 = tuple(a.astype(np.complex64) for a in args)
    nums = _argnums(args)
    got = grad(_loss(name, fnp), argnums=nums)(*args32)
    ref = grad(_loss(name, fnp), argnums=nums)(*(a.astype(np.complex128) for a in args32))
    for g, e in zip(got, ref):
        assert g.dtype == np.complex64
        # float32 rounding through a decomposition and its derivative: a few ulps times
        # the (small) condition numbers of these inputs
        np.testing.assert_allclose(g, e, rtol=50 * F32["rtol"], atol=50 * F32["atol"])


def test_second_order_of_slogdet_and_det_vs_jax():
    # Hessian-vector products (forward over reverse) in the real and imaginary parts
    r = np.random.default_rng(12)
    a = general(r, 3)
    xy = (a.real.copy(), a.imag.copy())
    t = (r.standard_normal((3, 3)), r.standard_normal((3, 3)))
    for name in ("slogdet", "det"):

        def f(x, y, m, name=name):
            return CASES[name].fn(m, x + 1j * y)

        hvp = jvp(grad(lambda x, y: f(x, y, fnp), argnums=(0, 1)), xy, t)[1]
        jhvp = (lambda p, t: jax.jvp(jax.grad(lambda x, y: f(x, y, jnp), (0, 1)), p, t))(xy, t)[1]
        assert_tree_close(hvp, jax.tree.map(np.asarray, jhvp), **F64, err_msg=name)


# -- forward mode: the decompositions themselves vs jax.jvp -----------------------------------


def _jvp_pair(f_fnp, f_jax, primals, tangents):
    out, t = jvp(f_fnp, primals, tangents)
    jout, jt = on_jax(lambda p, t: jax.jvp(f_jax, p, t), primals, tangents)
    assert_tree_close(out, jax.tree.map(np.asarray, jout), **F64)
    assert_tree_close(t, jax.tree.map(np.asarray, jt), **F64)


HOLOMORPHIC = {
    "inv": (lambda m, a: m.linalg.inv(a), lambda r: (general(r, 3),)),
    "solve": (lambda m, a, b: m.linalg.solve(a, b), lambda r: (general(r, 3), cplx(r, (3, 2)))),
    "det": (lambda m, a: m.linalg.det(a), lambda r: (general(r, 3),)),
    "matrix_power": (lambda m, a: m.linalg.matrix_power(a, -3), lambda r: (general(r, 3),)),
    "eigvals": (lambda m, a: m.linalg.eigvals(a), lambda r: (nonnormal_distinct(r, 3),)),
}


@pytest.mark.parametrize("name", sorted(HOLOMORPHIC))
def test_holomorphic_functions_jvp_and_vjp_match_jax(name):
    fn, make = HOLOMORPHIC[name]
    r = np.random.default_rng(5)
    args = make(r)
    tangents = tuple(cplx(r, a.shape) for a in args)
    f, jf = (lambda *a: fn(fnp, *a)), (lambda *a: fn(jnp, *a))
    _jvp_pair(f, jf, args, tangents)
    out, vjp_fn = vjp(f, *args)
    ct = cplx(r, np.shape(out))
    jbar = on_jax(lambda args, ct: jax.vjp(jf, *args)[1](ct), args, ct)
    assert_tree_close(vjp_fn(ct), tuple(np.asarray(x) for x in jbar), **F64)


def test_jvp_of_the_factors_matches_jax():
    r = np.random.default_rng(6)
    a = general(r, 3)
    t = cplx(r, (3, 3))
    # gauge-free outputs directly: svdvals, eigvalsh, cholesky, qr (R's diagonal real), slogdet
    _jvp_pair(
        lambda a: fnp.linalg.svd(a, compute_uv=False),
        lambda a: jnp.linalg.svd(a, compute_uv=False),
        (a,),
        (t,),
    )
    _jvp_pair(
        lambda x: fnp.linalg.eigvalsh(herm(fnp, x)),
        lambda x: jnp.linalg.eigvalsh(herm(jnp, x)),
        (a,),
        (t,),
    )
    _jvp_pair(
        lambda x: fnp.linalg.cholesky(psd(fnp, x)),
        lambda x: jnp.linalg.cholesky(psd(jnp, x)),
        (a,),
        (t,),
    )
    _jvp_pair(lambda a: tuple(fnp.linalg.qr(a)), lambda a: tuple(jnp.linalg.qr(a)), (a,), (t,))
    _jvp_pair(
        lambda a: tuple(fnp.linalg.slogdet(a)), lambda a: tuple(jnp.linalg.slogdet(a)), (a,), (t,)
    )
    _jvp_pair(fnp.linalg.pinv, jnp.linalg.pinv, (a[:, :2],), (t[:, :2],))
    # svd: JAX's gauge (the phase of a singular pair goes into u) is ours too
    _jvp_pair(
        lambda a: tuple(fnp.linalg.svd(a, full_matrices=False)),
        lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)),
        (a,),
        (t,),
    )


def test_eig_eigenvectors_match_jax_through_lapacks_normalisation():
    r = np.random.default_rng(7)
    for a in (nonnormal_distinct(r, 4), real_rotation_like(r)):
        t = cplx(r, a.shape) if np.iscomplexobj(a) else r.standard_normal(a.shape)

        def jeig(a):
            w, v = jax.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
            return w, v

        _jvp_pair(lambda a: tuple(fnp.linalg.eig(a)), jeig, (a,), (t,))
        # and the derivative keeps the normalisation: unit norm, largest component real
        v, dv = jvp(lambda a: fnp.linalg.eig(a)[1], (a,), (t,))
        np.testing.assert_allclose(np.real(np.sum(v.conj() * dv, axis=0)), 0, atol=1e-12)
        k = np.argmax(np.abs(v), axis=0)
        np.testing.assert_allclose(np.imag(dv[k, range(v.shape[1])]), 0, atol=1e-12)


def test_eig_eigenvectors_match_finite_differences_of_numpy():
    # NumPy's own phase convention is what the derivative follows (NOTE [eig gauge])
    r = np.random.default_rng(8)
    a = nonnormal_distinct(r, 3)
    t = cplx(r, a.shape)
    _, dv = jvp(lambda a: fnp.linalg.eig(a)[1], (a,), (t,))
    eps = 1e-6
    fd = (np.linalg.eig(a + eps * t)[1] - np.linalg.eig(a - eps * t)[1]) / (2 * eps)
    np.testing.assert_allclose(dv, fd, rtol=1e-6, atol=1e-7)


# -- vmap of the complex factorizations ---------------------------------------------------


def test_vmap_of_complex_factorizations_matches_a_loop():
    r = np.random.default_rng(9)
    a = np.stack([general(r, 3) for _ in range(4)])
    fns = [
        lambda a: fnp.linalg.svd(a, compute_uv=False),
        lambda a: fnp.abs(fnp.linalg.svd(a)[0]),
        lambda a: fnp.linalg.eigh(herm(fnp, a))[0],
        lambda a: fnp.linalg.cholesky(psd(fnp, a)),
        lambda a: tuple(fnp.linalg.qr(a)),
        lambda a: fnp.linalg.eigvals(a),
        lambda a: tuple(fnp.linalg.slogdet(a)),
        lambda a: fnp.linalg.norm(a, "nuc"),
        lambda a: fnp.linalg.pinv(a),
    ]
    for f in fns:
        for axis in (0, 2):
            got = vmap(f, in_dims=axis)(np.moveaxis(a, 0, axis))
            ref = jax.tree.map(lambda *xs: np.stack(xs), *[f(x) for x in a])
            assert_tree_close(got, ref, **F64)


# -- repeated eigenvalues and singular values -------------------------------------------------


def test_derivatives_at_repeated_eigenvalues_are_finite_where_jaxs_are():
    eye = np.eye(3)
    ceye = eye.astype(np.complex128)
    t = np.random.default_rng(10).standard_normal((3, 3))
    checks = [
        (
            lambda a: fnp.sum(fnp.linalg.eigvalsh(a) ** 2),
            lambda a: jnp.sum(jnp.linalg.eigvalsh(a) ** 2),
        ),
        (
            lambda a: fnp.sum(fnp.linalg.eigh(a)[0] ** 3),
            lambda a: jnp.sum(jnp.linalg.eigh(a)[0] ** 3),
        ),
        (
            lambda a: fnp.sum(fnp.linalg.svd(a, compute_uv=False) ** 2),
            lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False) ** 2),
        ),
        (lambda a: fnp.linalg.norm(a, 2), lambda a: jnp.linalg.norm(a, 2)),
        (lambda a: fnp.linalg.norm(a, "nuc"), lambda a: jnp.linalg.norm(a, "nuc")),
        (
            lambda a: fnp.sum(fnp.real(fnp.linalg.eigvals(a))),
            lambda a: jnp.sum(jnp.real(jnp.linalg.eigvals(a))),
        ),
    ]
    for f, jf in checks:
        for x in (eye, ceye):
            g = grad(f)(x)
            assert np.all(np.isfinite(g))
            # JAX symmetrises eigh's input; ours reads the lower triangle: compare the
            # derivative along a symmetric direction, where both are defined the same way
            sym = t + t.T
            d = np.sum(np.real(g * sym))
            jd = np.sum(np.real(np.asarray(on_jax(jax.grad(jf), x)) * sym))
            assert np.isfinite(jd)
            np.testing.assert_allclose(d, jd, **F64)
            # forward mode also computes the (unused) eigenvector tangents, which are
            # infinite at repeated eigenvalues, as JAX's are: NumPy warns about those
            with np.errstate(divide="ignore", invalid="ignore"):
                _, dt = jvp(f, (x,), (sym.astype(x.dtype),))
            np.testing.assert_allclose(dt, jd, **F64)
    # eigenvalue tangents at the identity: finite, diag(V^T dA V) with the V LAPACK gives
    # (a one-sided derivative's value depends on that choice), JAX's too
    w_dot = jvp(fnp.linalg.eigvalsh, (eye,), (t + t.T,))[1]
    np.testing.assert_allclose(w_dot, np.diag(t + t.T), **F64)
    np.testing.assert_allclose(w_dot, jax.jvp(jnp.linalg.eigvalsh, (eye,), (t + t.T,))[1], **F64)


# -- tensorsolve / tensorinv, and NumPy's own spelling on tracers ------------------------------


def test_tensorsolve_and_tensorinv_match_numpy_and_jax():
    r = np.random.default_rng(14)
    a = cplx(r, (2, 3, 2, 3), 0.3) + 1.5 * np.eye(6).reshape(2, 3, 2, 3)
    b = cplx(r, (2, 3))
    np.testing.assert_allclose(fnp.linalg.tensorsolve(a, b), np.linalg.tensorsolve(a, b), **F64)
    c = np.moveaxis(a, 0, 2)
    np.testing.assert_allclose(
        fnp.linalg.tensorsolve(c, b, axes=(2,)), np.linalg.tensorsolve(c, b, axes=(2,)), **F64
    )
    np.testing.assert_allclose(fnp.linalg.tensorinv(a), np.linalg.tensorinv(a), **F64)

    def loss(m, a, b):
        return re_sum(m, m.linalg.tensorsolve(a, b)) + re_sum(m, m.linalg.tensorinv(a), 1j)

    got = grad(lambda a, b: loss(fnp, a, b), argnums=(0, 1))(a, b)
    ref = on_jax(jax.grad(lambda a, b: loss(jnp, a, b), argnums=(0, 1)), a, b)
    assert_tree_close(got, tuple(np.asarray(x) for x in ref), **F64)
    got = vmap(lambda a: fnp.linalg.tensorinv(a))(np.stack([a, 2 * a]))
    np.testing.assert_allclose(got, np.stack([np.linalg.tensorinv(x) for x in (a, 2 * a)]), **F64)


def test_unmodified_numpy_code_on_complex_matrices():
    # np.linalg.* on tracers dispatches to fnp.linalg (NumPy's __array_function__)
    r = np.random.default_rng(15)
    a = nonnormal_distinct(r, 3)

    def spectral_loss(a):
        w = np.linalg.eigvals(a)
        s = np.linalg.svd(a, compute_uv=False)
        return np.sum(np.abs(w) ** 2) + np.sum(s) + np.linalg.norm(a, "nuc")

    def jax_loss(a):
        w = jnp.linalg.eigvals(a)
        s = jnp.linalg.svd(a, compute_uv=False)
        return jnp.sum(jnp.abs(w) ** 2) + jnp.sum(s) + jnp.linalg.norm(a, "nuc")

    g = grad(spectral_loss)(a)
    assert_tree_close(g, np.asarray(on_jax(jax.grad(jax_loss), a)), **F64)
    batch = np.stack([a, a.T, 1j * a])
    assert_tree_close(
        vmap(grad(spectral_loss))(batch), np.stack([grad(spectral_loss)(x) for x in batch]), **F64
    )


def test_svd_hermitian_matches_numpy_and_jax():
    r = np.random.default_rng(18)
    x = cplx(r, (3, 3))
    for a in (herm(np, x), herm(np, x).real, np.stack([herm(np, x), -2 * herm(np, x)])):
        got, ref = fnp.linalg.svd(a, hermitian=True), np.linalg.svd(a, hermitian=True)
        for g, e in zip(got, ref):
            np.testing.assert_allclose(g, e, **F64)
        np.testing.assert_allclose(
            fnp.linalg.svd(a, compute_uv=False, hermitian=True),
            np.linalg.svd(a, compute_uv=False, hermitian=True),
            **F64,
        )

    def loss(m, x):
        u, s, vh = m.linalg.svd(herm(m, x) - 0.5 * m.eye(3), hermitian=True)
        recon = m.matmul(u * m.sin(s)[..., None, :], vh)
        return m.sum(s**3) + re_sum(m, recon) + m.sum(m.abs(vh) ** 4)

    got = grad(lambda x: loss(fnp, x))(x)
    assert_tree_close(got, np.asarray(on_jax(jax.grad(lambda x: loss(jnp, x)), x)), **F64)


# -- backends and jit -------------------------------------------------------------------------


@pytest.fixture
def other_backend():
    """The strict stand-in for CuPy of ``tests/test_linalg.py``, for complex arrays."""
    from tests.test_linalg import OtherArray, _other_namespace

    register_backend(OtherArray, _other_namespace(np, "otherxp"))
    try:
        yield lambda a: np.asarray(a).view(OtherArray), OtherArray
    finally:
        _NAMESPACES.pop(OtherArray, None)


def _complex_rules_loss(m, a, h):
    out = re_sum(m, m.linalg.inv(a)) + m.sum(m.linalg.slogdet(a)[1]) + m.abs(m.linalg.det(a))
    out = out + re_sum(m, m.linalg.cholesky(psd(m, h)))
    w, v = m.linalg.eigh(herm(m, h))
    out = out + m.sum(w * w) + m.sum(m.abs(v) ** 4)
    u, s, vh = m.linalg.svd(a, full_matrices=False)
    out = out + m.sum(s) + m.sum(m.abs(u) ** 4) + m.sum(m.abs(vh) ** 4)
    q, r = m.linalg.qr(a)
    out = out + re_sum(m, q) + re_sum(m, r) + re_sum(m, m.linalg.pinv(a[..., :2]))
    ew, ev = m.linalg.eig(a)
    return out + re_sum(m, ew * ew) + m.sum(m.abs(ev) ** 2 * m.real(ew)) + m.linalg.norm(a, 2)


def test_complex_rules_stay_on_the_input_backend(other_backend):
    wrap, other_array = other_backend
    r = np.random.default_rng(16)
    a_np, h_np = nonnormal_distinct(r, 3), cplx(r, (3, 3), 0.5)
    got = grad(lambda *z: _complex_rules_loss(fnp, *z), argnums=(0, 1))(wrap(a_np), wrap(h_np))
    assert all(type(g) is other_array for g in got)
    expected = grad(lambda *z: _complex_rules_loss(fnp, *z), argnums=(0, 1))(a_np, h_np)
    assert_tree_close(tuple(np.asarray(g) for g in got), expected, **F64)
    per_sample = vmap(grad(lambda *z: _complex_rules_loss(fnp, *z)), in_dims=(0, None))(
        wrap(np.stack([a_np, 1.1 * a_np])), wrap(h_np)
    )
    assert type(per_sample) is other_array


def test_jit_replays_complex_linalg():
    r = np.random.default_rng(17)
    f = jit(grad(lambda *z: _complex_rules_loss(fnp, *z), argnums=(0, 1)))
    for _ in range(3):
        a, h = nonnormal_distinct(r, 3), cplx(r, (3, 3), 0.5)
        expected = grad(lambda *z: _complex_rules_loss(fnp, *z), argnums=(0, 1))(a, h)
        assert_tree_close(f(a, h), expected, **F64)
