"""jit's program rewrites (ftransforms/program_rewrites.py, the recorder's diagonal sums)
and its fast path: each rewrite fires on its pattern (counted in the program), leaves
other programs alone, and the replay gives the eager values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.program_rewrites import cost
from ftransforms.pytree import tree_leaves

rng = np.random.default_rng(5)


def big_calls(program, name: str, shape: tuple) -> int:
    """How many ``name`` calls write an array of ``shape``."""
    return sum(e.prim.name == name and tuple(e.avals[0]) == shape for e in program.eqns)


def check_replays(fn, make_args, *, rtol=1e-12, exact=False, calls=3):
    """jit(fn) on fresh random arguments (recorded, then replayed) equals fn eagerly.
    ``exact``: bit for bit, which the replay promises (its compiled tier rounds its own
    way, so it is kept out of these)."""
    compiled = ft.jit(fn, compile=False) if exact else ft.jit(fn)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*depends on data")
        for _ in range(calls):
            args = make_args()
            got, want = compiled(*args), fn(*args)
            for g, w in zip(tree_leaves(got), tree_leaves(want)):
                assert type(g) is np.ndarray and g.dtype == w.dtype and g.shape == w.shape
                if exact:
                    np.testing.assert_array_equal(g, w)
                else:
                    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * np.abs(w).max())
    assert len(compiled.cache) == 1
    return compiled


# -- NOTE [scaled rows] -------------------------------------------------------------------


def w3(v, a):
    return np.sum(np.tanh(a @ v) ** 2) + np.sum(v**2) ** 2


@pytest.mark.parametrize("n", [3, 16])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_hessian_scales_the_batch_of_rows_once(n, dtype):
    h = ft.hessian(w3)
    a = rng.normal(size=(n, n)).astype(dtype)
    x = rng.normal(size=n).astype(dtype)
    unoptimized = ft.make_program(h, optimize=False)(x, a)
    program = ft.make_program(h)(x, a)
    # forward-over-reverse scales the rows A^T (1 - t^2) by one vector after another;
    # rewritten, the vectors are combined first and the rows scaled once, before A
    assert big_calls(unoptimized, "multiply", (n, n)) >= 5, str(unoptimized)
    assert big_calls(program, "multiply", (n, n)) == 1, str(program)
    assert big_calls(program, "negative", (n, n)) == 0, str(program)
    assert cost(program.eqns) < cost(unoptimized.eqns)
    tol = 1e-12 if dtype == np.float64 else 2e-5

    def args():
        return rng.normal(size=n).astype(dtype), rng.normal(size=(n, n)).astype(dtype)

    check_replays(h, args, rtol=tol)
    # and against finite differences of the gradient, in float64
    if dtype == np.float64:
        x, a = args()
        g = ft.grad(w3)
        eps = 1e-6
        fd = np.stack([(g(x + eps * e, a) - g(x - eps * e, a)) / (2 * eps) for e in np.eye(n)])
        np.testing.assert_allclose(ft.jit(h)(x, a), fd, rtol=1e-6, atol=1e-6)


def test_batched_hessians_under_jit_of_vmap():
    h = ft.vmap(ft.hessian(w3), in_dims=(0, None))
    n, b = 5, 4
    a = rng.normal(size=(n, n))

    def args():
        return rng.normal(size=(b, n)), a

    compiled = check_replays(h, args)
    x = rng.normal(size=(b, n))
    loop = np.stack([ft.hessian(w3)(x[i], a) for i in range(b)])
    np.testing.assert_allclose(compiled(x, a), loop, rtol=1e-12, atol=1e-12)


def test_jit_inside_grad_and_vmap_is_transparent_and_right():
    inner = ft.jit(ft.hessian(w3))
    a = rng.normal(size=(4, 4))
    x = rng.normal(size=(3, 4))
    got = ft.vmap(inner, in_dims=(0, None))(x, a)
    np.testing.assert_allclose(got, ft.vmap(ft.hessian(w3), in_dims=(0, None))(x, a), rtol=1e-12)
    g = ft.grad(lambda v: np.sum(inner(v, a)))(x[0])
    np.testing.assert_allclose(g, ft.grad(lambda v: np.sum(ft.hessian(w3)(v, a)))(x[0]))


def scale_chain(x, u, v, w):
    y = -((x * u) * v)  # (x u) v, then a negation: one scaling by -(u v)
    z = y * w + (x * u) * 2.0  # two scalings of x summed: one scaling by (...)
    return np.reshape(z, (x.shape[0], 1, x.shape[1])) * v  # trailing axis kept


def test_chains_of_scalings_of_one_array_become_one_scaling():
    n, m = 6, 5

    def args():
        return (
            rng.normal(size=(n, m)),
            rng.normal(size=m),
            rng.normal(size=m),
            np.array(rng.normal()),
        )

    program = ft.make_program(scale_chain)(*args())
    big = [e for e in program.eqns if e.prim.name != "reshape" and np.prod(e.avals[0]) >= n * m]
    assert len(big) == 1 and big[0].prim.name == "multiply", str(program)
    check_replays(scale_chain, args)


def test_a_scaling_that_is_used_elsewhere_is_not_rewritten():
    # x * u is an output too: computing u * v and x * (u v) would cost more than (x u) v
    def f(x, u, v):
        xu = x * u
        return xu, xu * v

    args = (rng.normal(size=(8, 8)), rng.normal(size=8), rng.normal(size=8))
    program = ft.make_program(f)(*args)
    assert [e.prim.name for e in program.eqns] == ["multiply", "multiply"], str(program)
    assert all(tuple(e.avals[0]) == (8, 8) for e in program.eqns)
    check_replays(f, lambda: (rng.normal(size=(8, 8)), rng.normal(size=8), rng.normal(size=8)))


@pytest.mark.parametrize(
    "u_dtype, x_dtype", [(np.float64, np.float32), (np.int64, np.int64), (np.float32, np.int32)]
)
def test_no_factoring_across_dtypes_or_of_integers(u_dtype, x_dtype):
    def f(x, u, v):
        return (x * u) * v

    def args():
        x = rng.integers(-3, 4, size=(6, 6)).astype(x_dtype)
        return x, rng.integers(1, 4, size=6).astype(u_dtype), rng.integers(1, 4, size=6)

    program = ft.make_program(f)(*args())
    assert [e.prim.name for e in program.eqns] == ["multiply", "multiply"], str(program)
    check_replays(f, args, exact=True)


def test_a_reshape_that_moves_the_scaled_axis_is_not_rewritten():
    def f(x, u, v):
        return np.reshape(x * u, (3, 8)) * v  # u varies along the axis of 4, now split

    def args():
        return rng.normal(size=(6, 4)), rng.normal(size=4), rng.normal(size=8)

    program = ft.make_program(f)(*args())
    assert big_calls(program, "multiply", (6, 4)) == 1, str(program)
    check_replays(f, args)


# -- exact rewrites ----------------------------------------------------------------------


@pytest.mark.parametrize("op", [np.add, np.multiply, np.subtract, np.maximum])
def test_broadcast_to_before_a_broadcasting_op_is_dropped(op):
    def f(x, y):
        return op(np.broadcast_to(x, (4, 3)), y)

    def args():
        return rng.normal(size=(1, 3)), rng.normal(size=(4, 3))

    program = ft.make_program(f)(*args())
    assert "broadcast_to" not in [e.prim.name for e in program.eqns], str(program)
    check_replays(f, args, exact=True)


def test_broadcast_to_that_shapes_the_result_is_kept():
    def f(x, y):
        return np.broadcast_to(x, (4, 3)) * y  # y alone would not give (4, 3)

    def args():
        return rng.normal(size=3), rng.normal(size=(1, 3))

    program = ft.make_program(f)(*args())
    assert "broadcast_to" in [e.prim.name for e in program.eqns], str(program)
    check_replays(f, args, exact=True)


@pytest.mark.parametrize("jac", [ft.jacfwd, ft.hessian])
def test_sum_of_the_identity_basis_times_a_vector_is_the_vector(jac):
    # the tangent of sum(x**2) along every basis vector: sum(I * 2x, axis=1) is 2x
    n = 7
    f = jac(lambda x: np.sum(x**2) * x) if jac is ft.jacfwd else jac(lambda x: np.sum(x**2) ** 2)
    program = ft.make_program(f)(rng.normal(size=n))
    sums = [e for e in program.eqns if e.prim.name == "reduce_sum"]
    assert all(np.prod(e.avals[0]) <= 1 for e in sums), str(program)  # only sum(x**2)
    check_replays(f, lambda: (rng.normal(size=n),))


def test_generated_code_calls_methods_and_keeps_matmuls_outer_products():
    def f(x, y, c):
        return np.transpose(np.reshape(x, (2, 3)) @ y), c[:, None] @ c[None, :]

    args = (rng.normal(size=6), rng.normal(size=(3, 4)), rng.normal(size=5))
    program = ft.make_program(f)(*args)
    assert ".reshape(" in program.source and ".transpose(" in program.source, program.source
    check_replays(f, lambda: (rng.normal(size=6), rng.normal(size=(3, 4)), rng.normal(size=5)))


# -- the fast path (NOTE [jit's fast path]) -----------------------------------------------


def test_fast_path_signatures_tuples_lists_and_eviction():
    f = ft.jit(lambda p, x: [p[0] * x, p[1] + x.sum()], max_cached=2)
    x3, x4 = np.ones(3), np.ones(4)
    p = (np.full(3, 2.0), np.array(1.0))
    for _ in range(3):  # a third signature evicts one, alternating several times
        np.testing.assert_array_equal(f(p, x3)[0], [2.0] * 3)
        np.testing.assert_array_equal(f(list(p), x3)[1], 4.0)  # a list: another signature
        out = f((np.full(4, 3.0), np.array(1.0)), x4)
        np.testing.assert_array_equal(out[0], [3.0] * 4)
        assert type(out) is list and type(out[1]) is np.ndarray and out[1].shape == ()
    assert len(f.cache) == 2
    f32 = f((p[0].astype(np.float32), np.array(1.0, np.float32)), x3.astype(np.float32))
    assert f32[0].dtype == np.float32


def test_fast_path_returns_fresh_arrays_and_respects_keywords_and_objects():
    f = ft.jit(lambda x, y=None: x if y is None else x + y)
    x = np.arange(3.0)
    a, b = f(x), f(x)
    assert a is not x and b is not x and a is not b
    a[0] = 10.0
    np.testing.assert_array_equal(f(x), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(f(x, y=np.ones(3)), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(f(x, np.ones(3)), [1.0, 2.0, 3.0])
    # an object array of an enclosing transform's tracers is not a plain array
    g = ft.grad(lambda v: np.sum(ft.jit(lambda t: t * 2.0)(np.array([v[0], v[1]]))))
    np.testing.assert_allclose(g(np.ones(2)), [2.0, 2.0])


def test_a_transposed_outer_product_is_written_along_its_long_axis():
    # what vmap(grad) records for per-sample weight gradients of a short layer: rows of
    # len(v) written, then transposed
    def f(u, v):
        prod = np.reshape(u, (4, 50, 1)) * np.reshape(v, (4, 1, 3))
        return np.transpose(prod, (0, 2, 1))

    def args():
        return rng.normal(size=(4, 50)), rng.normal(size=(4, 3))

    unoptimized = ft.make_program(f, optimize=False)(*args())
    program = ft.make_program(f)(*args())
    assert "transpose" in [e.prim.name for e in unoptimized.eqns], str(unoptimized)
    assert "transpose" not in [e.prim.name for e in program.eqns], str(program)
    assert len(program) <= len(unoptimized)
    check_replays(f, args, exact=True)


def test_transposes_are_not_sunk_when_that_adds_calls_or_shortens_rows():
    def f(x, y):
        return np.transpose(np.sin(x) * y)  # two plain operands: two transposes for one

    def g(x, y):
        return np.transpose(x[:, None] * y[None, :])  # the rows would get shorter

    program = ft.make_program(f)(rng.normal(size=(3, 5)), rng.normal(size=(3, 5)))
    assert [e.prim.name for e in program.eqns][-1] == "transpose", str(program)
    program = ft.make_program(g)(rng.normal(size=50), rng.normal(size=3))
    assert [e.prim.name for e in program.eqns][-1] == "transpose", str(program)
    check_replays(g, lambda: (rng.normal(size=50), rng.normal(size=3)), exact=True)


def test_negated_integer_scalings_keep_the_sign_of_zero():
    def f(x, u):
        return -((x * 0) * u), -(x * 0)  # -0.0 where x * u > 0, where x > 0

    def args():
        return rng.normal(size=(5, 5)), rng.normal(size=5)

    program = ft.make_program(f)(*args())
    assert big_calls(program, "multiply", (5, 5)) == 2, str(program)
    assert big_calls(program, "negative", (5, 5)) == 0, str(program)
    compiled = ft.jit(f)
    for x, u in (args(), args()):
        for got, want in zip(compiled(x, u), f(x, u)):
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_jacfwd_rows_are_scaled_in_place_not_transposed_twice():
    # jacfwd of tanh(w @ v + b): transpose(transpose(w) * s) is w * s[:, None]
    f = ft.jacfwd(lambda v, w, b: np.tanh(w @ v + b))

    def args():
        return rng.normal(size=6), rng.normal(size=(6, 6)), rng.normal(size=6)

    unoptimized = ft.make_program(f, optimize=False)(*args())
    program = ft.make_program(f)(*args())
    assert [e.prim.name for e in unoptimized.eqns].count("transpose") == 2, str(unoptimized)
    assert "transpose" not in [e.prim.name for e in program.eqns], str(program)
    check_replays(f, args, exact=True)


def test_a_transpose_shared_with_another_result_is_composed_not_dropped():
    def f(x):
        xt = np.transpose(x)
        return np.transpose(xt * 2.0), xt.sum(axis=0)  # the first is x * 2.0

    def args():
        return (rng.normal(size=(4, 4)),)

    program = ft.make_program(f)(*args())
    names = [e.prim.name for e in program.eqns]
    assert names.count("transpose") == 1, str(program)  # only the one the sum reads
    assert next(e for e in program.eqns if e.prim.name == "multiply").refs[0] == 0
    check_replays(f, args, exact=True)
