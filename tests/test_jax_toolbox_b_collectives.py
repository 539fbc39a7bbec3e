"""``vmap(axis_name=)`` and the collectives ``ft.lax.psum``/``pmean``/``pmax``/``pmin``/
``all_gather``/``axis_index`` against JAX's under ``jax.vmap`` (NOTE [collectives under
vmap] in ``ftransforms/lax.py``): values, nested names, grad/jvp in both orders, jit, the
strict CuPy stand-in, and the errors."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import ChunkSizeError, UnboundAxisNameError
from ftransforms.strict_backend import StrictArray, asarray

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 3))
W = RNG.normal(size=(3,))


def _close(a, b):
    for u, v in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-12, atol=1e-12)


# (name, body written over a module `m` with m.lax collectives)
BODIES = {
    "psum": lambda m, x: m.lax.psum(x * x, "i"),
    "pmean": lambda m, x: x - m.lax.pmean(x, "i"),
    "pmax": lambda m, x: m.lax.pmax(x, "i") * x,
    "pmin": lambda m, x: m.lax.pmin(x, "i"),
    "all_gather": lambda m, x: m.lax.all_gather(x, "i").sum(0) * x,
    "all_gather_axis1": lambda m, x: m.lax.all_gather(x, "i", axis=1)[0],
    "all_gather_tiled": lambda m, x: (m.lax.all_gather(x, "i", tiled=True) ** 2)[3:6] * x,
    "axis_index": lambda m, x: x * m.lax.axis_index("i"),
    "softmax": lambda m, x: m.numpy.exp(x) / m.lax.psum(m.numpy.exp(x), "i"),
    "pytree": lambda m, x: m.lax.psum({"a": x, "b": (x * 2, x * 3)}, "i"),
}


def _ft(body):
    return lambda x: body(ft, x)


def _jx(body):
    return lambda x: body(jax, x)


@pytest.mark.parametrize("name", sorted(BODIES))
def test_values_match_jax(name):
    body = BODIES[name]
    got = ft.vmap(_ft(body), axis_name="i")(X)
    _close(got, jax.vmap(_jx(body), axis_name="i")(X))


@pytest.mark.parametrize("name", ["psum", "pmean", "all_gather", "all_gather_tiled", "softmax"])
def test_grad_inside_and_outside_vmap_match_jax(name):
    body = BODIES[name]

    def scalar(m, x):
        return (body(m, x) * W).sum()

    inside = ft.vmap(ft.grad(lambda x: scalar(ft, x)), axis_name="i")(X)
    _close(inside, jax.vmap(jax.grad(lambda x: scalar(jax, x)), axis_name="i")(X))
    outside = ft.grad(lambda x: ft.vmap(lambda r: scalar(ft, r), axis_name="i")(x).sum())(X)
    ref = jax.grad(lambda x: jax.vmap(lambda r: scalar(jax, r), axis_name="i")(x).sum())(X)
    _close(outside, ref)


def test_jvp_inside_vmap_matches_jax():
    body = BODIES["softmax"]
    t = RNG.normal(size=X.shape)
    got = ft.vmap(lambda x, t: ft.jvp(_ft(body), (x,), (t,)), axis_name="i")(X, t)
    ref = jax.vmap(lambda x, t: jax.jvp(_jx(body), (x,), (t,)), axis_name="i")(X, t)
    _close(got, ref)


def test_pmax_derivative_is_shared_by_the_rows_that_attain_it():
    # JAX has no rule for pmax; ours follows max's: the argmax row gets the derivative.
    x = np.array([1.0, 3.0, 2.0])
    g = ft.vmap(ft.grad(lambda v: ft.lax.pmax(v * v, "i")), axis_name="i")(x)
    np.testing.assert_allclose(g, [0.0, 3 * 6.0, 0.0])  # psum of cotangents (3) * 2x at 3
    fd = (np.max((x + [0, 1e-6, 0]) ** 2) - np.max((x - [0, 1e-6, 0]) ** 2)) / 2e-6
    np.testing.assert_allclose(
        ft.grad(lambda v: ft.vmap(lambda r: ft.lax.pmax(r * r, "i"), axis_name="i")(v)[0])(x)[1],
        fd,
        rtol=1e-6,
    )


def test_nested_names_and_tuples_match_jax():
    x = RNG.normal(size=(2, 3, 2))

    def body(m):
        def inner(r):
            return (
                m.lax.psum(r, "i")
                + m.lax.pmean(r, "j") * m.lax.axis_index("i")
                + m.lax.psum(r, ("i", "j"))
            )

        return inner

    got = ft.vmap(ft.vmap(body(ft), axis_name="j"), axis_name="i")(x)
    ref = jax.vmap(jax.vmap(body(jax), axis_name="j"), axis_name="i")(x)
    _close(got, ref)


def test_unbatched_value_and_in_dims_none():
    got = ft.vmap(lambda x, c: ft.lax.psum(c, "i") + x, in_dims=(0, None), axis_name="i")(X, 2.0)
    ref = jax.vmap(lambda x, c: jax.lax.psum(c, "i") + x, in_axes=(0, None), axis_name="i")(X, 2.0)
    _close(got, ref)


def test_jit_replays_collectives():
    f = ft.jit(ft.vmap(_ft(BODIES["softmax"]), axis_name="i"))
    ref = jax.vmap(_jx(BODIES["softmax"]), axis_name="i")
    _close(f(X), ref(X))
    _close(f(X + 1.0), ref(X + 1.0))  # replayed on new values


def test_strict_backend_stays_on_device():
    got = ft.vmap(lambda x: ft.lax.psum(x, "i") * ft.lax.axis_index("i"), axis_name="i")(asarray(X))
    assert type(got) is StrictArray
    _close(got.get(), X.sum(0) * np.arange(4)[:, None])
    g = ft.grad(lambda x: ft.vmap(lambda r: ft.lax.pmean(r * r, "i"), axis_name="i")(x).sum())(
        asarray(X)
    )
    assert type(g) is StrictArray
    _close(g.get(), 2 * X)


def test_unbound_name_is_a_clear_error_and_the_stack_is_clean():
    with pytest.raises(UnboundAxisNameError, match=r"psum\(x, 'k'\): no enclosing vmap has"):
        ft.vmap(lambda x: ft.lax.psum(x, "k"), axis_name="i")(X)
    with pytest.raises(NameError):
        ft.lax.axis_index("i")
    assert not ft.core.stack.current_stack()


def test_chunk_size_with_axis_name_is_refused():
    with pytest.raises(ChunkSizeError, match="axis_name"):
        ft.vmap(lambda x: x, chunk_size=2, axis_name="i")


def test_distributed_vmap_blocks_are_the_named_axis():
    da = pytest.importorskip("dask.array")
    import ftransforms.distributed as fd

    x = np.arange(12.0).reshape(6, 2)
    lazy = da.from_array(x, chunks=(4, 2))
    out = fd.vmap(lambda r: r - ft.lax.pmean(r, "i"), axis_name="i")(lazy)
    got = fd.compute(out, scheduler="sync")
    # each block of rows (4, then 2) is centred on its own mean, as documented
    ref = np.concatenate([x[:4] - x[:4].mean(0), x[4:] - x[4:].mean(0)])
    np.testing.assert_allclose(got, ref)


def test_a_named_axis_refuses_to_split_its_batch():
    """A split would run a collective on a group of rows only: a clear error instead, and
    rows that agree still run (one batched program)."""
    from ftransforms.errors import BatchedControlFlowError

    def f(x):
        s = ft.lax.psum(x, "i")
        return x / s if x > 0 else -x

    with pytest.raises(BatchedControlFlowError, match="axis_name='i' cannot split"):
        ft.vmap(f, axis_name="i")(np.array([1.0, -2.0, 3.0]))
    xs = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(ft.vmap(f, axis_name="i")(xs), xs / xs.sum())
