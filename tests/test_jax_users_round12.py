"""JAX users' programs, round 12 (``import ftransforms as jax``), each compared with JAX
itself (x64).  Each test failed before the change it names:

* ``lax.dynamic_slice``/``dynamic_update_slice`` and their ``_in_dim`` forms read a negative
  start from the end before clamping, as JAX does (``dynamic_slice(x, (-1,), (3,))`` gave
  the first block: a silent wrong answer), under ``vmap``, ``jit`` and ``grad`` too;
* ``lax.reduce_window`` combines ``init_value`` once with each window's operand entries and
  skips the padding and the base dilation's holes, as JAX does (they were filled with
  ``init_value``: ``add`` with ``init_value=1`` and ``"SAME"`` padding gave 32 for JAX's
  31, a silent wrong answer wherever ``init_value`` is not the reduction's identity);
* ``lax.clamp``'s derivative is JAX's: ``x``'s only strictly inside ``(min, max)``, none at
  a tie (``minimum``/``maximum`` split it 1/2 each: a silent difference);
* ``nn.gelu(x)`` is ``jax.nn.gelu(x)``: the tanh form by default (was the exact form, off
  by up to 5e-4); ``nn.one_hot`` gives float64 (was float32) and takes float labels;
  ``nn.relu6`` of integers is float and ``nn.hard_tanh`` keeps them (the dtypes were
  swapped);
* ``vjp``'s cotangent of an integer/bool primal and the ``jvp``/``linearize`` tangent of an
  integer/bool output are ``float0`` zeros, as JAX's (were zeros of the integer dtype),
  under ``vmap`` too; ``jacfwd`` still gives integer zeros there, as JAX's;
* ``jacrev`` of an integer output and ``jacfwd`` of an integer input raise with JAX's
  sentences;
* ``jnp.setdiff1d``/``union1d`` take ``size=``/``fill_value=``, ``jnp.sum``/``prod`` take
  ``promote_integers=False`` (they raised).
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import ftransforms as ft

jax.config.update("jax_enable_x64", True)

M = np.arange(20.0).reshape(4, 5)
X10 = np.arange(10.0)


def close(a, b, tol=1e-12):
    la, ta = jax.tree_util.tree_flatten(a)
    lb, tb = jax.tree_util.tree_flatten(b)
    assert ta == tb, (ta, tb)
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, y.shape, x.dtype, y.dtype)
        if x.dtype != ft.float0:
            np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


def jax_start(s: int, dim: int, size: int) -> int:
    """JAX's reading of a dynamic start (``jax.lax.dynamic_slice``'s documentation): from
    the end when negative, then clamped into ``[0, dim - size]``."""
    s = s + dim if s < 0 else s
    return min(max(s, 0), dim - size)


STARTS = [(-1, 0), (-4, -5), (-6, 1), (2, -2), (1, 1)]


def test_dynamic_slices_read_negative_starts_from_the_end_like_jax():
    u = -np.ones((2, 3))
    for start in STARTS:
        r, c = jax_start(start[0], 4, 2), jax_start(start[1], 5, 3)
        close(ft.lax.dynamic_slice(M, start, (2, 3)), M[r : r + 2, c : c + 3])
        want = M.copy()
        want[r : r + 2, c : c + 3] = u
        close(ft.lax.dynamic_update_slice(M, u, start), want)
    # and JAX itself, on a batch of starts
    rows, cols = np.array([s[0] for s in STARTS]), np.array([s[1] for s in STARTS])

    def both(lax):
        return lambda i, j: (
            lax.dynamic_slice(M, (i, j), (2, 3)),
            lax.dynamic_update_slice(M, u, (i, j)),
        )

    close(ft.vmap(both(ft.lax))(rows, cols), jax.vmap(both(jax.lax))(rows, cols))


def test_dynamic_slice_in_dim_forms_and_transforms_with_negative_starts():
    lax = ft.lax
    close(lax.dynamic_index_in_dim(M, -1, 1, False), M[:, 4])
    close(lax.dynamic_slice_in_dim(M, -2, 2, 0), M[2:4])
    want = M.copy()
    want[3] = 0.0
    close(lax.dynamic_update_index_in_dim(M, np.zeros(5), -1, 0), want)
    close(ft.jit(lambda i: lax.dynamic_slice(X10, (i,), (3,)))(-2), X10[7:])
    g = ft.grad(lambda x: lax.dynamic_slice(x, (-2,), (3,)).sum())(X10)
    close(g, (np.arange(10) >= 7).astype(float))

    def put(np_lax):
        return lambda i, v: np_lax.dynamic_update_slice(X10, v, (i,))

    starts, vs = np.array([-1, -3, -12, 4]), np.ones((4, 2))
    close(ft.vmap(put(lax))(starts, vs), jax.vmap(put(jax.lax))(starts, vs))


def test_clamp_derivatives_at_the_bounds_like_jax():
    x = np.array([0.0, 1.0, 2.0, 2.5, 3.0, 4.0])
    lo, hi, w = np.full(6, 1.0), np.full(6, 3.0), np.arange(1.0, 7.0)

    def f(clamp):
        return lambda a, b, c: (clamp(a, b, c) * w).sum()

    ours = ft.grad(f(ft.lax.clamp), (0, 1, 2))(lo, x, hi)
    close(ours, jax.grad(f(jax.lax.clamp), (0, 1, 2))(lo, x, hi))
    # x's derivative flows strictly inside only: nothing at the ties x = 1 and x = 3
    close(ours[1], np.array([0.0, 0.0, 3.0, 4.0, 0.0, 0.0]))
    for k in range(3):
        t = tuple(np.ones(6) if i == k else np.zeros(6) for i in range(3))
        close(ft.jvp(f(ft.lax.clamp), (lo, x, hi), t)[1], ours[k].sum())
    # values: min > max gives max (XLA's clamp), integers and float32 keep their dtype
    for a, b in [(3.0, 1.0), (2.0, 2.0), (1.0, 3.0)]:
        close(ft.lax.clamp(a, x, b), np.minimum(np.maximum(x, a), b))
    close(ft.lax.clamp(0, np.arange(-2, 5), 3), np.clip(np.arange(-2, 5), 0, 3))
    x32 = x.astype(np.float32)
    close(ft.lax.clamp(np.float32(1), x32, np.float32(3)), np.clip(x32, 1, 3))


def test_reduce_window_combines_init_once_and_skips_the_padding_like_jax():
    x = np.arange(1.0, 7.0) * 10

    def loop(init, fold, lo, hi):
        """Each window of 3 (stride 1, padding (lo, hi)): init folded with its real entries."""
        out = []
        for start in range(-lo, len(x) + hi - 2):
            acc = init
            for i in range(start, start + 3):
                if 0 <= i < len(x):
                    acc = fold(acc, x[i])
            out.append(acc)
        return np.array(out)

    folds = [
        (ft.lax.add, np.add),
        (ft.lax.mul, np.multiply),
        (ft.lax.max, np.maximum),
        (ft.lax.min, np.minimum),
        (lambda a, b: a + 2 * b, lambda a, b: a + 2 * b),  # a computation of the user's
    ]
    for init in (0.0, 1.0, 100.0):
        for ours, fold in folds:
            for padding, (lo, hi) in [("SAME", (1, 1)), ([(2, 1)], (2, 1)), ("VALID", (0, 0))]:
                got = ft.lax.reduce_window(x, init, ours, (3,), (1,), padding)
                close(got, loop(init, fold, lo, hi))
    # base and window dilations, integers, vmap and jit, against JAX itself
    m = np.arange(1.0, 21.0).reshape(4, 5)
    kw = dict(padding=((1, 0), (0, 2)), base_dilation=(2, 1), window_dilation=(1, 2))
    close(
        ft.lax.reduce_window(m, 1.0, ft.lax.add, (2, 2), (1, 2), **kw),
        jax.lax.reduce_window(m, 1.0, jax.lax.add, (2, 2), (1, 2), **kw),
    )
    close(
        ft.lax.reduce_window(np.arange(6), 3, ft.lax.max, (3,), (2,), "SAME"),
        np.array([3, 4, 5]),  # windows [0 1 2], [2 3 4], [4 5 pad]
    )
    rows = ft.vmap(lambda r: ft.lax.reduce_window(r, 1.0, ft.lax.add, (2,), (1,), "SAME"))(m)
    close(rows, np.stack([ft.lax.reduce_window(r, 1.0, ft.lax.add, (2,), (1,), "SAME") for r in m]))
    close(rows[0], np.array([4.0, 6.0, 8.0, 10.0, 6.0]))
    jitted = ft.jit(lambda r: ft.lax.reduce_window(r, 1.0, ft.lax.add, (2,), (1,), "SAME"))
    close(jitted(x), np.array([31.0, 51.0, 71.0, 91.0, 111.0, 61.0]))


def test_gelu_default_is_jax_s_tanh_form():
    from scipy.special import erf

    x = np.linspace(-4.0, 4.0, 17)
    tanh_form = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    exact = 0.5 * x * (1 + erf(x / np.sqrt(2)))
    close(ft.nn.gelu(x), tanh_form)  # jax.nn.gelu's default (its documented formula)
    close(ft.nn.gelu(x, True), tanh_form)
    for exact_form in (False, "none"):
        close(ft.nn.gelu(x, approximate=exact_form), exact)
    close(ft.nn.gelu(np.arange(-2, 3)), tanh_form[4:13:2])
    eps = 1e-6
    fd = (ft.nn.gelu(x + eps) - ft.nn.gelu(x - eps)) / (2 * eps)
    np.testing.assert_allclose(ft.vmap(ft.grad(ft.nn.gelu))(x), fd, rtol=1e-8, atol=1e-8)
    with pytest.raises(ValueError, match="approximate"):
        ft.nn.gelu(x, approximate="erf")


def test_one_hot_dtype_and_float_labels_like_jax():
    labels = np.array([0, 2, 5, -1])
    close(ft.nn.one_hot(labels, 3), jax.nn.one_hot(labels, 3))
    close(ft.nn.one_hot(labels.astype(np.int8), 3), (labels[:, None] == np.arange(3)) * 1.0)
    close(
        ft.nn.one_hot(np.array([1, 0]), 2, dtype=np.float32),
        np.array([[0, 1], [1, 0]], dtype=np.float32),
    )
    # float labels holding classes (JAX accepts them, with a DeprecationWarning)
    close(
        ft.nn.one_hot(np.array([0.0, 2.0, 1.5]), 3), np.array([[1.0, 0, 0], [0, 0, 1], [0, 0, 0]])
    )
    with pytest.raises(TypeError, match="labels"):
        ft.nn.one_hot(np.array([True, False]), 2)


def test_relu6_and_hard_tanh_result_dtypes_like_jax():
    ints = np.array([-2, -1, 0, 1, 3, 6, 7])
    close(ft.nn.relu6(ints), np.clip(ints, 0, 6).astype(np.float64))  # JAX: float
    close(ft.nn.hard_tanh(ints), np.clip(ints, -1, 1))  # JAX: keeps the integers
    for dt in (np.float16, np.float32):
        close(ft.nn.relu6(ints.astype(dt)), np.clip(ints, 0, 6).astype(dt))
        close(ft.nn.hard_tanh(ints.astype(dt)), np.clip(ints, -1, 1).astype(dt))
    grads = ft.vmap(ft.grad(ft.nn.relu6))(ints * 1.0)
    close(grads, ((ints > 0) & (ints < 6)) * 1.0)  # none at the kinks 0 and 6, as JAX


def test_set_routines_size_and_promote_integers_like_jax():
    import jax.numpy as jnp

    import ftransforms.numpy as fnp

    a, b = np.array([5, 2, 3, 4, 2]), np.array([2, 9])
    # (the values jnp.setdiff1d/union1d give: their oracles cost JAX 4 s of compiling)
    close(fnp.setdiff1d(a, b, size=5, fill_value=-1), np.array([3, 4, 5, -1, -1]))
    close(fnp.union1d(a, b, size=6), np.array([2, 3, 4, 5, 9, 2]))  # padded with the min
    close(fnp.setdiff1d(a, b, size=2), np.array([3, 4]))  # the first ones
    close(fnp.setdiff1d(a, b, size=4), np.array([3, 4, 5, 0]))  # JAX pads with 0
    close(fnp.union1d(a, b, size=2, fill_value=0), np.array([2, 3]))
    close(fnp.setdiff1d(a[:4], b, assume_unique=True, size=4), np.array([5, 3, 4, 0]))
    close(fnp.setdiff1d(b[:1], b, size=2), np.zeros(2, int))  # nothing left: all padding
    rows = np.array([[1, 2, 3], [2, 2, 2]])  # rows whose differences have different sizes
    with pytest.warns(ft.errors.PerformanceWarning):  # the rows run apart, then stack
        got = ft.vmap(lambda r: fnp.setdiff1d(r, b, size=3))(rows)
    close(got, np.array([[1, 3, 0], [0, 0, 0]]))
    # promote_integers=False: in the input's dtype (JAX: bool in int32), wrapping as JAX
    x = (np.arange(1, 40) % 7).astype(np.int8)
    close(fnp.sum(x, promote_integers=False), jnp.sum(x, promote_integers=False))
    for dt, acc in [(np.int8, np.int8), (np.uint8, np.uint8), (np.bool_, np.int32)]:
        for reduce in ("sum", "prod"):
            ours = getattr(fnp, reduce)(x.astype(dt), promote_integers=False)
            close(ours, getattr(np, reduce)(x.astype(dt), dtype=acc))
    close(fnp.sum(x, promote_integers=True), np.sum(x))  # NumPy's (and JAX's) int64


X = np.array([1.5, -2.0, 0.5])
N = np.arange(3)
MASK = np.array([True, False, True])


def test_vjp_cotangent_of_integer_and_bool_primals_is_float0_like_jax():
    def f(a, n):
        return a * n

    for other in (N, MASK):
        ours = ft.vjp(f, X, other)[1](np.ones(3))
        close(ours, jax.vjp(f, X, other)[1](np.ones(3)))
        assert ours[1].dtype == ft.float0 and ours[1].shape == (3,)
    rows = ft.vmap(lambda c: ft.vjp(f, X, N)[1](c))(np.eye(3))
    close(rows, (np.diag(N * 1.0), np.zeros((3, 3), ft.float0)))
    # a Python int primal too
    ct = ft.vjp(f, X, 3)[1](np.ones(3))
    close(ct, (np.full(3, 3.0), np.zeros((), ft.float0)))


def test_jvp_and_linearize_tangents_of_integer_outputs_are_float0_like_jax():
    def f(a):
        return a * 2, (a > 0), (a * 3).astype(np.int64)

    t = np.ones(3)
    ours = ft.jvp(f, (X,), (t,))
    close(ours, jax.jvp(f, (X,), (t,)))
    assert ours[1][1].dtype == ours[1][2].dtype == ft.float0
    close(ft.linearize(f, X)[1](t), ours[1])
    ts = np.eye(3)
    rows = (2 * ts, np.zeros((3, 3), ft.float0), np.zeros((3, 3), ft.float0))
    close(ft.vmap(lambda v: ft.jvp(f, (X,), (v,))[1])(ts), rows)
    close(ft.vmap(ft.linearize(f, X)[1])(ts), rows)
    # an output that does not depend on the primals, and an integer primal's own output
    out = ft.jvp(lambda a, n: (a, n * 2), (X, N), (t, np.zeros(3, ft.float0)))
    close(out, ((X, N * 2), (t, np.zeros(3, ft.float0))))


def test_jacobians_with_integer_values_like_jax():
    def g(a):
        return (a * 2).astype(np.int64), a**2

    jac = ft.jacfwd(g)(X)  # JAX's jacfwd: integer zeros there, not float0
    close(jac, (np.zeros((3, 3), np.int64), np.diag(2 * X)))
    with pytest.raises(TypeError, match=r"jacrev requires real-valued outputs \(output dtype"):
        ft.jacrev(g)(X)
    with pytest.raises(TypeError, match=r"jacfwd requires real-valued inputs \(input dtype"):
        ft.jacfwd(np.sin)(N)
