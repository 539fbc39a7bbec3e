"""NumPy's remaining calling conventions and functions on tracers (issue 13, item 3):
``einsum``'s sublist form, ``trace``/``diagonal`` with any offset and axes, ``np.r_``,
``np.c_``, ``np.s_``, ``np.ix_`` (and the ``fnp`` ones), and the functions that had no
rule (``apply_along_axis``, ``piecewise``, ``choose``, ``polyfit``, ``i0``, ...).

Every case is written with plain ``numpy`` (the NumPy protocols route it to ftransforms)
and with ``jax.numpy``.  Oracles: NumPy for values, JAX (x64) for ``vjp``, ``jvp``,
``vmap(grad)`` and ``hessian``, a Python loop over NumPy for ``vmap``.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms.numpy as fnp
from ftransforms import grad, hessian, jvp, vjp, vmap
from ftransforms.errors import BatchedControlFlowError, UnsupportedOperationError
from tests.tolerances import tol

jax.config.update("jax_enable_x64", True)

TOL = tol(np.float64)
_rng = np.random.default_rng(13)


def _u(*shape, lo=-2.0, hi=2.0):
    return _rng.uniform(lo, hi, shape)


def close(a, b, **kw):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), **(kw or TOL))


@dataclass
class Case:
    """``f(*args)`` written with ``np``, ``jf`` the same with ``jnp``; every arg is a float
    operand; ``hess``: also compare ``hessian`` (a few representative cases: JAX's eager
    hessian is slow)."""

    id: str
    f: object
    jf: object
    args: tuple
    hess: bool = False

    def __repr__(self) -> str:
        return self.id


A23, B34, A223, B234 = _u(2, 3), _u(3, 4), _u(2, 2, 3), _u(2, 3, 4)
M34, T234 = _u(3, 4), _u(2, 3, 4)
V3, W3 = _u(3), _u(3)
X20 = np.sort(_u(20))
Y20 = _u(20)
WTS = _u(20, lo=0.5, hi=1.5)
CHOICE = np.array([[0, 2, 1], [1, 0, 2]])
MASK = np.array([[True, False, True], [False, True, True]])

CASES = [
    # -- einsum's sublist form --------------------------------------------------------
    Case(
        "einsum_sublist",
        lambda a, b: np.einsum(a, [0, 1], b, [1, 2]),
        lambda a, b: jnp.einsum(a, [0, 1], b, [1, 2]),
        (A23, B34),
    ),
    Case(
        "einsum_sublist_out",
        lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [2, 0]),
        lambda a, b: jnp.einsum(a, [0, 1], b, [1, 2], [2, 0]),
        (A23, B34),
    ),
    Case(
        "einsum_sublist_ellipsis",
        lambda a, b: np.einsum(a, [Ellipsis, 0, 1], b, [Ellipsis, 1, 2], [Ellipsis, 2, 0]),
        lambda a, b: jnp.einsum(a, [Ellipsis, 0, 1], b, [Ellipsis, 1, 2], [Ellipsis, 2, 0]),
        (A223, B234),
        hess=True,
    ),
    Case(
        "einsum_sublist_one_operand",
        lambda a: np.einsum(a, [1, 0]) * np.einsum(a, [0, 1], []),
        lambda a: jnp.einsum(a, [1, 0]) * jnp.einsum(a, [0, 1], []),
        (A23,),
    ),
    # -- trace and diagonal, any offset and axes ---------------------------------------
    *[
        Case(
            f"trace_offset{k}",
            lambda x, k=k: np.trace(x, offset=k) * np.trace(x, k),
            lambda x, k=k: jnp.trace(x, offset=k) * jnp.trace(x, k),
            (M34,),
        )
        for k in (-4, -2, -1, 1, 3, 5)
    ],
    *[
        Case(
            f"trace_axes{a1}{a2}_offset{k}",
            lambda x, k=k, a1=a1, a2=a2: np.trace(x, k, a1, a2) ** 2,
            lambda x, k=k, a1=a1, a2=a2: jnp.trace(x, k, a1, a2) ** 2,
            (T234,),
        )
        for k, a1, a2 in ((1, 0, 2), (-2, 2, 1), (0, -1, 0), (2, 1, -1))
    ],
    Case(
        "diagonal_offset_method",
        lambda x: x.diagonal(offset=1, axis1=2, axis2=0) ** 2,
        lambda x: x.diagonal(offset=1, axis1=2, axis2=0) ** 2,
        (T234,),
    ),
    # -- index tricks -------------------------------------------------------------------
    Case(
        "r_scalars",
        lambda t, s: np.r_[t, 0.0, s * 2] ** 2,
        lambda t, s: jnp.r_[t, 0.0, s * 2] ** 2,
        (V3, W3),
    ),
    Case("r_slice", lambda t: np.r_[t, 1:3] ** 2, lambda t: jnp.r_[t, 1:3] ** 2, (V3,)),
    Case(
        "r_linspace_slice",
        lambda t: np.r_[t, 0:1:4j] * t[0],
        lambda t: jnp.r_[t, 0:1:4j] * t[0],
        (V3,),
    ),
    Case(
        "r_directive_0_2",
        lambda t, s: np.r_["0,2", t, s] ** 2,
        lambda t, s: jnp.r_["0,2", t, s] ** 2,
        (V3, W3),
    ),
    Case(
        "r_directive_trans1d",
        lambda t, s: np.r_["-1,2,0", t, s] * t[1],
        lambda t, s: jnp.r_["-1,2,0", t, s] * t[1],
        (V3, W3),
        hess=True,
    ),
    Case(
        "r_axis_directive_2d",
        lambda a: np.r_["1", a, a * 2] ** 2,
        lambda a: jnp.r_["1", a, a * 2] ** 2,
        (A23,),
    ),
    Case(
        "r_list_and_array",
        lambda t: np.r_[t, [1.0, 2.0], np.ones(2)] * t[2],
        lambda t: jnp.r_[t, [1.0, 2.0], jnp.ones(2)] * t[2],
        (V3,),
    ),
    Case(
        "c_mixed",
        lambda t: np.c_[np.arange(3.0), t, t**2],
        lambda t: jnp.c_[jnp.arange(3.0), t, t**2],
        (V3,),
    ),
    Case(
        "c_matrices",
        lambda a: np.c_[a, np.ones((2, 1)), a] ** 2,
        lambda a: jnp.c_[a, jnp.ones((2, 1)), a] ** 2,
        (A23,),
    ),
    Case("s_", lambda x: x[np.s_[1:, ::2]] ** 2, lambda x: x[jnp.s_[1:, ::2]] ** 2, (M34,)),
    Case(
        "ix_",
        lambda x: x[np.ix_([0, 2], [3, 1, 1])] ** 2,
        lambda x: x[jnp.ix_(jnp.array([0, 2]), jnp.array([3, 1, 1]))] ** 2,
        (M34,),
    ),
    Case(
        "ix_bool",
        lambda x: x[np.ix_(np.array([True, False, True]), [1, 2])] ** 2,
        lambda x: x[jnp.ix_(jnp.array([0, 2]), jnp.array([1, 2]))] ** 2,
        (M34,),
    ),
    # -- functions that had no rule -------------------------------------------------------
    Case(
        "apply_along_axis",
        lambda x: np.apply_along_axis(lambda v: v * np.sum(v**2), 1, x),
        lambda x: jnp.apply_along_axis(lambda v: v * jnp.sum(v**2), 1, x),
        (T234,),
        hess=True,
    ),
    Case(
        "apply_along_axis_matrix_result",
        lambda x: np.apply_along_axis(lambda v: np.outer(v, v[:2]), 0, x),
        lambda x: jnp.apply_along_axis(lambda v: jnp.outer(v, v[:2]), 0, x),
        (A23,),
    ),
    Case(
        "apply_over_axes",
        lambda x: np.apply_over_axes(np.sum, x**2, [0, 2]),
        lambda x: jnp.apply_over_axes(jnp.sum, x**2, [0, 2]),
        (T234,),
    ),
    Case(
        "piecewise",
        lambda x: np.piecewise(x, [x < 0, x >= 0], [lambda v: v**2, lambda v: np.sin(v)]),
        lambda x: jnp.piecewise(x, [x < 0, x >= 0], [lambda v: v**2, lambda v: jnp.sin(v)]),
        (_u(7),),
        hess=True,
    ),
    Case(
        "piecewise_otherwise_constant",
        lambda x: np.piecewise(x, [x < -0.5, x > 0.5], [lambda v: v**3, np.exp, 0.25]),
        lambda x: jnp.piecewise(x, [x < -0.5, x > 0.5], [lambda v: v**3, jnp.exp, 0.25]),
        (_u(2, 5),),
    ),
    Case(
        "choose",
        lambda c0, c1: np.choose(CHOICE, [c0, c1**2, 0.5]),
        lambda c0, c1: jnp.choose(CHOICE, [c0, c1**2, 0.5], mode="clip"),
        (A23, _u(3)),
        hess=True,
    ),
    Case(
        "choose_wrap",
        lambda c0, c1: np.choose(CHOICE + 1, [c0, c1], mode="wrap") ** 2,
        lambda c0, c1: jnp.choose(CHOICE + 1, [c0, c1], mode="wrap") ** 2,
        (A23, _u(2, 3)),
    ),
    Case(
        "compress",
        lambda x: np.compress([True, False, True], x, axis=1) ** 2,
        lambda x: x[:, np.array([0, 2])] ** 2,  # jnp.compress needs a concrete condition
        (M34,),
    ),
    Case(
        "extract",
        lambda x: np.extract(MASK, x) ** 2,
        lambda x: x[MASK] ** 2,  # jnp.extract needs a concrete condition
        (A23,),
    ),
    Case("i0", lambda x: np.i0(x), lambda x: jnp.i0(x), (_u(6, lo=-4, hi=4),)),
    Case(
        "i0_large",
        lambda x: np.i0(x),
        lambda x: jnp.i0(x),
        (np.array([-31.0, -20.5, 19.5, 25.0, 40.0]),),
        hess=True,
    ),
    Case(
        "histogram2d_weights",
        lambda w: np.histogram2d(X20, Y20, bins=3, weights=w)[0],
        lambda w: jnp.histogram2d(X20, Y20, bins=3, weights=w)[0],
        (WTS,),
    ),
    Case(
        "histogram2d_density",
        lambda w: np.histogram2d(X20, Y20, bins=[2, 3], weights=w, density=True)[0],
        lambda w: jnp.histogram2d(X20, Y20, bins=[2, 3], weights=w, density=True)[0],
        (WTS,),
    ),
    Case(
        "histogramdd_weights",
        lambda w: np.histogramdd(np.stack([X20, Y20], 1), bins=(2, 2), weights=w)[0],
        lambda w: jnp.histogramdd(jnp.stack([X20, Y20], 1), bins=(2, 2), weights=w)[0],
        (WTS,),
    ),
    Case(
        "histogram_bin_edges",
        lambda a: np.histogram_bin_edges(a, bins=4),
        lambda a: jnp.histogram_bin_edges(a, bins=4),
        (Y20,),
    ),
    Case(
        "polyfit",
        lambda x, y: np.polyfit(x, y, 2),
        lambda x, y: jnp.polyfit(x, y, 2),
        (X20[:8], Y20[:8]),
    ),
    Case(
        "polyfit_weighted",
        lambda y, w: np.polyfit(X20[:8], y, 3, w=w),
        lambda y, w: jnp.polyfit(X20[:8], y, 3, w=w),
        (Y20[:8], WTS[:8]),
    ),
    Case("poly", lambda z: np.poly(z), lambda z: jnp.poly(z), (_u(4),)),
    Case(
        "polydiv_quotient",
        lambda u, v: np.polydiv(u, v)[0],
        lambda u, v: jnp.polydiv(u, v)[0],
        (_u(5), _u(3, lo=0.5, hi=2.0)),
    ),
    Case(
        "tensorinv",
        lambda a: np.linalg.tensorinv(a + 4 * np.eye(4).reshape(4, 2, 2), ind=1),
        lambda a: jnp.linalg.tensorinv(a + 4 * jnp.eye(4).reshape(4, 2, 2), ind=1),
        (_u(4, 2, 2, lo=-0.5, hi=0.5),),
    ),
    Case(
        "tensorsolve",
        lambda a, b: np.linalg.tensorsolve(a + 4 * np.eye(6).reshape(6, 2, 3), b),
        lambda a, b: jnp.linalg.tensorsolve(a + 4 * jnp.eye(6).reshape(6, 2, 3), b),
        (_u(6, 2, 3, lo=-0.5, hi=0.5), _u(6)),
    ),
]


def _cotangent(out):
    return np.random.default_rng(1).normal(size=np.shape(out))


def _batch(case, n=3):
    rng = np.random.default_rng(3)
    return tuple(a + 0.01 * rng.normal(size=(n, *a.shape)) for a in case.args)


def _tangents(case):
    rng = np.random.default_rng(2)
    return tuple(rng.normal(size=a.shape) for a in case.args)


_ORACLES: dict[str, tuple] = {}


def _jax_oracle(case):
    """JAX's ``vjp``, ``jvp`` and ``vmap(grad)`` for ``case``, computed by one ``jax.jit``
    (one compilation per case instead of JAX's eager op-by-op dispatch)."""
    if case.id not in _ORACLES:
        ct = _cotangent(case.f(*case.args))
        argnums = tuple(range(len(case.args)))

        def js(*a):
            return jnp.sum(case.jf(*a) * ct)

        def all_three(args, tangents, batched):
            pullback = jax.vjp(case.jf, *args)[1](jnp.asarray(ct))
            pushed = jax.jvp(case.jf, args, tangents)[1]
            return pullback, pushed, jax.vmap(jax.grad(js, argnums=argnums))(*batched)

        _ORACLES[case.id] = (ct, jax.jit(all_three)(case.args, _tangents(case), _batch(case)))
    return _ORACLES[case.id]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_values_under_transforms_match_numpy(case):
    expected = case.f(*case.args)  # plain NumPy
    out, _ = vjp(case.f, *case.args)
    close(out, expected)
    out_j, _ = jvp(case.f, case.args, tuple(np.zeros_like(a) for a in case.args))
    close(out_j, expected)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_vjp_and_jvp_match_jax(case):
    ct, (pullback, pushed, _) = _jax_oracle(case)
    _, f_vjp = vjp(case.f, *case.args)
    for got, want in zip(f_vjp(ct), pullback):
        close(got, want)
    _, got = jvp(case.f, case.args, _tangents(case))
    close(got, pushed)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_vmap_matches_a_loop(case):
    batched = _batch(case)
    got = vmap(case.f)(*batched)
    want = np.stack([case.f(*[b[i] for b in batched]) for i in range(3)])
    close(got, want)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_vmap_of_grad_matches_jax(case):
    ct, (_, _, want) = _jax_oracle(case)
    argnums = tuple(range(len(case.args)))

    def s(*a):
        return np.sum(case.f(*a) * ct)

    got = vmap(grad(s, argnums=argnums))(*_batch(case))
    for g, w in zip(got, want):
        close(g, w)


@pytest.mark.parametrize("case", [c for c in CASES if c.hess], ids=repr)
def test_hessian_matches_jax(case):
    ct = _cotangent(case.f(*case.args))
    rest = case.args[1:]

    def s(x):
        return np.sum(case.f(x, *rest) * ct)

    def js(x):
        return jnp.sum(case.jf(x, *rest) * ct)

    close(hessian(s)(case.args[0]), jax.jit(jax.hessian(js))(case.args[0]))


# -- the conventions one by one ---------------------------------------------------------


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_fnp_index_tricks_are_numpy_compatible_on_arrays():
    t = np.arange(3.0)
    close(fnp.r_[t, 0.0, 1:3], np.r_[t, 0.0, 1:3])
    close(fnp.r_["0,2,0", t, t], np.r_["0,2,0", t, t])
    close(fnp.c_[t, t], np.c_[t, t])
    assert fnp.s_[1:2, ::3] == np.s_[1:2, ::3]
    for got, want in zip(fnp.ix_([0, 1], [2]), np.ix_([0, 1], [2])):
        assert got.shape == want.shape and (got == want).all()
    # NumPy's own r_/c_ behave as before on plain arrays (same results, same types)
    assert type(np.r_[t, 1]) is np.ndarray and np.r_["r", t, t].shape == (1, 6)
    assert np.c_[t, t].shape == (3, 2) and isinstance(np.r_["1,2", t], np.ndarray)


def test_plain_np_r_keeps_a_tracer_and_fnp_r_matches():
    f1 = grad(lambda t: np.sum(np.r_[t, 0.0, 2 * t] ** 2))
    f2 = grad(lambda t: fnp.sum(fnp.r_[t, 0.0, 2 * t] ** 2))
    t = np.array([1.0, -2.0])
    close(f1(t), 10 * t)
    close(f2(t), 10 * t)


def test_r_matrix_directives_raise_with_the_fix():
    with pytest.raises(UnsupportedOperationError, match=r"'r' directive builds a numpy.matrix"):
        grad(lambda t: np.sum(np.r_["r", t, t]))(np.ones(2))
    with pytest.raises(UnsupportedOperationError, match=r"string key"):
        fnp.r_["1, 2; 3, 4"]


def test_ix_under_vmap_with_batched_indices_raises_and_unbatched_indices_work():
    x = np.arange(12.0).reshape(3, 4)
    with pytest.raises(BatchedControlFlowError, match=r"numpy.ix_ with index array 0 batched"):
        vmap(lambda i: x[np.ix_(i, [0])], in_dims=0, split=False)(np.array([[0, 1], [1, 2]]))
    got = vmap(lambda m: m[np.ix_([2, 0], [1, 3])])(np.stack([x, -x]))
    close(got, np.stack([x[np.ix_([2, 0], [1, 3])], -x[np.ix_([2, 0], [1, 3])]]))
    # traced index arrays under grad are read as their values (no derivative)
    g = grad(lambda m: np.sum(m[np.ix_(m[:, 0] > 3, [1])]))(x)
    close(g, np.array([[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0.0]]))


def test_trace_offset_beyond_the_matrix_is_zero_and_diagonal_agrees():
    x = _u(3, 4)
    for k in (-5, -3, 4, 9):
        assert float(grad(lambda m, k=k: np.trace(m, offset=k))(x).sum()) == 0.0
        assert np.trace(x, k) == fnp.trace(x, k) == 0.0
    for k in range(-3, 5):
        close(fnp.trace(x, k), fnp.sum(fnp.diagonal(x, k)))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        fnp.trace(np.ones(3))


def test_einsum_sublist_label_errors_and_einsum_path():
    a = np.ones((2, 3))
    with pytest.raises(ValueError, match=r"ints in \[0, 52\) or Ellipsis"):
        grad(lambda t: np.einsum(t, [0, "i"]).sum())(a)
    path = grad(
        lambda t: np.einsum(t, [0, 1], t, [0, 1], []) * len(np.einsum_path(t, [0, 1], t, [0, 1])[0])
    )(a)
    close(path, 2 * 2 * a)
    assert fnp.einsum_path("ij,jk", a, a.T) == np.einsum_path("ij,jk", a, a.T)


def test_piecewise_functions_see_only_their_elements():
    x = np.array([-2.0, -0.5, 1.0, 3.0])
    g = grad(lambda t: np.sum(np.piecewise(t, [t > 0], [np.log, lambda v: -v])))(x)
    close(g, np.array([-1.0, -1.0, 1.0, 1 / 3]))
    assert np.isfinite(g).all()
    # integer x: the result keeps x's dtype, as in NumPy
    i = np.arange(4)
    assert fnp.piecewise(i, [i > 1], [lambda v: v * 1.5]).tolist() == [0, 0, 3, 4]


def test_lexsort_unique_and_dtype_helpers_on_tracers():
    a, b = np.array([1.0, 0.0, 1.0, 0.0]), np.array([0.3, 0.2, 0.1, 0.4])
    got = vmap(lambda k: np.lexsort((k, a)))(np.stack([b, -b]))
    assert got.tolist() == [np.lexsort((b, a)).tolist(), np.lexsort((-b, a)).tolist()]
    x = np.array([2.0, 1.0, 2.0, 3.0])
    res = vjp(lambda t: np.unique_all(t).values, x)[0]
    close(res, np.unique_all(x).values)
    g = grad(lambda t: np.sum(np.unique_values(t) * np.array([1.0, 2.0, 3.0])))(x)
    close(g, np.array([2.0, 1.0, 0.0, 3.0]))
    counts = grad(lambda t: np.sum(t) * np.unique_counts(t).counts[1])(x)
    close(counts, np.full(4, 2.0))
    assert grad(lambda t: np.sum(t) * np.can_cast(t, np.float32))(x).tolist() == [0.0] * 4
    assert grad(lambda t: np.sum(t) * (np.common_type(t) is np.float64))(x).tolist() == [1.0] * 4


def test_choose_and_compress_errors():
    with pytest.raises(ValueError, match="use mode='wrap' or mode='clip'"):
        grad(lambda t: np.sum(np.choose(np.array([0, 2]), [t, t])))(np.ones(2))
    with pytest.raises(BatchedControlFlowError, match="compress"):
        vmap(lambda t: np.compress(t > 0, t), split=False)(np.array([[1.0, 1.0], [1.0, -1.0]]))


def test_polydiv_remainder_and_polyfit_full_cov_match_numpy():
    u, v = _u(6), _u(3, lo=0.5, hi=2)
    q, r = vjp(lambda a, b: np.polydiv(a, b), u, v)[0]
    qn, rn = np.polydiv(u, v)
    close(q, qn)
    close(r, rn)
    x, y = X20[:9], np.stack([Y20[:9], Y20[9:18]], 1)
    for kw in ({"full": True}, {"cov": True}, {"cov": "unscaled"}):
        got = vjp(lambda t, kw=kw: np.polyfit(x, t, 2, **kw), y)[0]
        for g, w in zip(got, np.polyfit(x, y, 2, **kw)):
            close(g, w)


def test_roots_and_poly_of_a_matrix_need_eigvals():
    """Through ``fnp.linalg.eigvals``: values and derivatives where it exists, a clear
    error naming it where it does not."""
    p = np.array([1.0, -6.0, 11.0, -6.0, 0.0])  # roots 3, 2, 1, 0
    if hasattr(fnp.linalg, "eigvals"):
        close(np.sort(vjp(np.roots, p)[0].real), np.sort(np.roots(p).real))
    else:
        with pytest.raises(UnsupportedOperationError, match="no fnp.linalg.eigvals"):
            grad(lambda t: np.sum(np.roots(t).real))(p)
        with pytest.raises(UnsupportedOperationError, match="poly\\(a\\) of a square matrix"):
            grad(lambda t: np.sum(np.poly(t)))(np.eye(2))
    # leading and trailing zeros need no eigenvalues
    close(vmap(np.roots)(np.array([[0.0, 2.0, 0.0], [0.0, 5.0, 0.0]])), np.zeros((2, 1)))


# -- Fortran order: reshape/ravel/flatten(order='F') ----------------------------------------


@pytest.mark.parametrize("shape", [(4, 6), (-1,), (3, -1, 2), 24, (6, 2, 2)])
def test_fortran_order_reshape_matches_numpy_and_jax(shape):
    # MATLAB-style code: vec(X) = X.flatten('F'), reshape(v, (m, n), order='F')
    x = np.random.default_rng(2).standard_normal((2, 3, 4))
    close(fnp.reshape(x, shape, order="F"), np.reshape(x, shape, order="F"))
    w = np.arange(24.0).reshape(np.reshape(x, shape, order="F").shape)

    def f(m, x):
        return (m.reshape(x, shape, order="F") * w).sum() ** 2

    close(grad(lambda x: f(np, x))(x), jax.grad(lambda x: f(jnp, x))(x))
    batch = np.stack([x, -x, 2 * x])
    close(
        vmap(lambda t: t.reshape(shape, order="F"))(batch),
        np.stack([t.reshape(shape, order="F") for t in batch]),
    )


def test_fortran_order_ravel_flatten_and_order_a():
    x = np.random.default_rng(3).standard_normal((3, 4))
    close(
        vmap(lambda t: t.flatten("F"))(np.stack([x, x.T.T * 2])), [x.ravel("F"), 2 * x.ravel("F")]
    )
    close(
        grad(lambda t: (np.ravel(t, order="F") * np.arange(12.0)).sum())(x),
        np.arange(12.0).reshape(4, 3).T,
    )
    xf = np.asfortranarray(x)  # 'A' reads a Fortran-contiguous array in Fortran order
    close(fnp.reshape(xf, (2, 6), order="A"), np.reshape(xf, (2, 6), order="A"))
    close(fnp.reshape(x, (2, 6), order="A"), np.reshape(x, (2, 6), order="A"))
    with pytest.raises(ValueError, match="order must be one of"):
        fnp.reshape(x, (2, 6), order="X")
