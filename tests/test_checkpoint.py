"""ft.checkpoint / ft.remat: same values and derivatives as without it (oracle: JAX's
jax.checkpoint in float64), under every transform and their compositions, with less
memory held for the backward pass (measured with tracemalloc)."""

from __future__ import annotations

import tracemalloc

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import ArgnumsError, UnsupportedOperationError
from ftransforms.strict_backend import StrictArray, asarray, to_numpy
from tests.jaxpr_evaluator import on_jax
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

W = np.random.default_rng(1).normal(size=(4, 4)) * 0.5


def block(x):
    return np.sin(np.tanh(x @ W.astype(x.dtype)) * x) + 0.1 * x


def jblock(x):
    return jnp.sin(jnp.tanh(x @ W) * x) + 0.1 * x


def chain(b, n=3):
    def f(x):
        for _ in range(n):
            x = b(x)
        return (x * x).sum()

    return f


@pytest.fixture
def x(dtype):
    return np.linspace(-1.0, 1.2, 4).astype(dtype)


def _j(a):
    return np.asarray(a)


def test_remat_is_checkpoint():
    assert ft.remat is ft.checkpoint
    assert "checkpoint" in ft.__all__ and "remat" in ft.__all__


def test_plain_call_is_the_function(x):
    out = ft.checkpoint(block)(x)
    np.testing.assert_array_equal(out, block(x))
    assert out.dtype == x.dtype


def test_grad_matches_jax(x):
    got = ft.grad(chain(ft.checkpoint(block)))(x)
    want = on_jax(jax.grad(chain(jax.checkpoint(jblock))), x.astype(np.float64))
    assert got.dtype == x.dtype
    assert_tree_close(got, _j(want), **tol(x.dtype))


def test_grad_is_bitwise_the_unchecked_grad(x):
    # the backward pass replays the same primitives on the same values
    np.testing.assert_array_equal(ft.grad(chain(ft.checkpoint(block)))(x), ft.grad(chain(block))(x))


def test_closed_over_traced_value_gets_its_gradient(x):
    def loss(w, x):
        f = ft.checkpoint(lambda v: np.sin(v @ w) * v)
        return f(f(x)).sum()

    def jloss(w, x):
        f = jax.checkpoint(lambda v: jnp.sin(v @ w) * v)
        return f(f(x)).sum()

    w = W.astype(x.dtype)
    got = ft.grad(loss, argnums=(0, 1))(w, x)
    want = on_jax(jax.grad(jloss, argnums=(0, 1)), W, x.astype(np.float64))
    assert_tree_close(got, tuple(map(_j, want)), **tol(x.dtype))


def test_pytrees_ints_and_kwargs():
    def f(params, x, n, *, scale):
        h = np.tanh(x @ params["w"] + params["b"]) * n
        return {"h": h * scale, "pair": (h.sum(), np.cos(x))}

    def jf(params, x, n, *, scale):
        h = jnp.tanh(x @ params["w"] + params["b"]) * n
        return {"h": h * scale, "pair": (h.sum(), jnp.cos(x))}

    params = {"w": W, "b": np.arange(4.0)}
    x = np.linspace(0.0, 1.0, 4)

    def loss(f):
        def g(p, x):
            out = f(p, x, np.int64(3), scale=2.0)
            return out["h"].sum() + out["pair"][0] * out["pair"][1].sum()

        return g

    got = ft.grad(loss(ft.checkpoint(f)), argnums=(0, 1))(params, x)
    want = on_jax(jax.grad(loss(jax.checkpoint(jf)), argnums=(0, 1)), params, x)
    assert_tree_close(got, jax.tree_util.tree_map(np.asarray, want), **tol(np.float64))


def test_static_argnums(x):
    def f(x, n, sin=np.sin):
        for _ in range(n):
            x = sin(x)
        return x

    def jf(x, n):
        return f(x, n, jnp.sin)

    got = ft.grad(lambda x: ft.checkpoint(f, static_argnums=(1,))(x, 3).sum())(x)
    want = jax.grad(lambda x: jax.checkpoint(jf, static_argnums=(1,))(x, 3).sum())(
        x.astype(np.float64)
    )
    assert_tree_close(got, _j(want), **tol(x.dtype))
    # a single int is accepted too, as in JAX
    got1 = ft.grad(lambda x: ft.checkpoint(f, static_argnums=1)(x, 3).sum())(x)
    np.testing.assert_array_equal(got1, got)


def test_python_control_flow_on_values_inside(x):
    def f(v):
        return np.sin(v) if v.sum() > 0 else np.cos(v)

    got = ft.grad(lambda v: ft.checkpoint(f)(v).sum())(x)
    np.testing.assert_array_equal(got, ft.grad(lambda v: f(v).sum())(x))


# -- compositions, against jax.checkpoint ------------------------------------------------

XB = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
X0 = np.linspace(-0.7, 0.9, 4)
T0 = np.linspace(0.3, -0.2, 4)

COMPOSITIONS = {
    "vmap(grad)": (
        lambda b: ft.vmap(ft.grad(chain(b))),
        lambda b: jax.vmap(jax.grad(chain(b))),
        (XB,),
    ),
    "grad(vmap)": (
        lambda b: ft.grad(lambda xs: ft.vmap(b)(xs).sum()),
        lambda b: jax.grad(lambda xs: jax.vmap(b)(xs).sum()),
        (XB,),
    ),
    "vmap(checkpoint)": (
        lambda b: ft.vmap(b),
        lambda b: jax.vmap(b),
        (XB,),
    ),
    "jvp": (
        lambda b: lambda x, t: ft.jvp(b, (x,), (t,)),
        lambda b: lambda x, t: jax.jvp(b, (x,), (t,)),
        (X0, T0),
    ),
    "jvp(grad)": (
        lambda b: lambda x, t: ft.jvp(ft.grad(chain(b)), (x,), (t,)),
        lambda b: lambda x, t: jax.jvp(jax.grad(chain(b)), (x,), (t,)),
        (X0, T0),
    ),
    "grad(jvp)": (
        lambda b: ft.grad(lambda x, t: ft.jvp(chain(b), (x,), (t,))[1]),
        lambda b: jax.grad(lambda x, t: jax.jvp(chain(b), (x,), (t,))[1]),
        (X0, T0),
    ),
    "grad(grad)": (
        lambda b: ft.grad(lambda x: ft.grad(chain(b))(x).sum()),
        lambda b: jax.grad(lambda x: jax.grad(chain(b))(x).sum()),
        (X0,),
    ),
    "jacrev": (lambda b: ft.jacrev(b), lambda b: jax.jacrev(b), (X0,)),
    "jacfwd": (lambda b: ft.jacfwd(b), lambda b: jax.jacfwd(b), (X0,)),
    "hessian": (lambda b: ft.hessian(chain(b)), lambda b: jax.hessian(chain(b)), (X0,)),
    "jacfwd(jacrev)": (
        lambda b: ft.jacfwd(ft.jacrev(chain(b))),
        lambda b: jax.jacfwd(jax.jacrev(chain(b))),
        (X0,),
    ),
    "jacrev(jacrev)": (
        lambda b: ft.jacrev(ft.jacrev(chain(b))),
        lambda b: jax.jacrev(jax.jacrev(chain(b))),
        (X0,),
    ),
    "vmap(hessian)": (
        lambda b: ft.vmap(ft.hessian(chain(b))),
        lambda b: jax.vmap(jax.hessian(chain(b))),
        (XB,),
    ),
    "jit(grad)": (
        lambda b: ft.jit(ft.grad(chain(b))),
        lambda b: jax.jit(jax.grad(chain(b))),
        (X0,),
    ),
    "nested checkpoint": (
        lambda b: ft.grad(chain(ft.checkpoint(lambda v: b(b(v))), 2)),
        lambda b: jax.grad(chain(jax.checkpoint(lambda v: b(b(v))), 2)),
        (X0,),
    ),
    "nested, hessian": (
        lambda b: ft.hessian(chain(ft.checkpoint(lambda v: b(b(v))), 2)),
        lambda b: jax.hessian(chain(jax.checkpoint(lambda v: b(b(v))), 2)),
        (X0,),
    ),
}


#: Compared with JAX too (the others with the same composition of ftransforms without
#: checkpoint, itself tested against JAX elsewhere); JAX's side runs through ``on_jax``.
WITH_JAX = {"vmap(grad)", "jvp(grad)", "grad(jvp)", "grad(grad)", "hessian"}


@pytest.mark.parametrize("name", list(COMPOSITIONS))
def test_compositions(name):
    ours, theirs, args = COMPOSITIONS[name]
    got = ours(ft.checkpoint(block))(*args)
    assert_tree_close(got, ours(block)(*args), **tol(np.float64))
    if name in WITH_JAX:
        oracle = theirs(jax.checkpoint(jblock))
        want = on_jax(oracle, *args)
        assert_tree_close(got, jax.tree_util.tree_map(np.asarray, want), **tol(np.float64))
    assert current_stack() == ()


def test_jit_grad_replays_for_new_inputs():
    g = ft.jit(ft.grad(chain(ft.checkpoint(block))))
    ref = jax.jit(jax.grad(chain(jax.checkpoint(jblock))))
    for k in range(3):
        xk = X0 * (1 + k) - 0.1 * k
        assert_tree_close(g(xk), np.asarray(ref(xk)), **tol(np.float64))


def test_vjp_fn_and_linearize_reuse_the_block():
    f = lambda v: ft.checkpoint(block)(ft.checkpoint(block)(v))  # noqa: E731
    out, vjp_fn = ft.vjp(f, X0)
    _, jvp_fn = ft.linearize(f, X0)
    jf = lambda v: jblock(jblock(v))  # noqa: E731
    jvjp = jax.jit(lambda ct: jax.vjp(jf, X0)[1](ct)[0])
    jjvp = jax.jit(lambda t: jax.jvp(jf, (X0,), (t,))[1])
    for ct in (T0, np.ones(4)):  # twice: the block replays each time
        assert_tree_close(vjp_fn(ct)[0], np.asarray(jvjp(ct)), **tol(np.float64))
        assert_tree_close(jvp_fn(ct), np.asarray(jjvp(ct)), **tol(np.float64))
    np.testing.assert_allclose(out, block(block(X0)), **tol(np.float64))


def test_random_draws_are_not_redrawn_in_the_backward_pass():
    drawn = []

    def noisy(x):
        noise = ft.random.normal(np.random.default_rng(), size=x.shape)
        drawn.append(noise)
        return np.sin(x * noise)

    g = ft.grad(lambda x: ft.checkpoint(noisy)(x).sum())(X0)
    (noise,) = drawn  # drawn once, in the forward pass
    np.testing.assert_allclose(g, np.cos(X0 * noise) * noise, **tol(np.float64))


def test_value_escaping_through_a_side_channel_gets_its_gradient():
    kept = []

    def f(v):
        h = np.sin(v)
        kept.append(h * 2.0)  # used after the checkpointed call returns
        return np.cos(h)

    got = ft.grad(lambda v: (ft.checkpoint(f)(v) * kept[-1]).sum())(X0)
    want = jax.grad(lambda v: (jnp.cos(jnp.sin(v)) * 2.0 * jnp.sin(v)).sum())(X0)
    assert_tree_close(got, np.asarray(want), **tol(np.float64))


def test_strict_backend_stays_on_device():
    ws = asarray(W)

    def strict_block(x):
        return np.sin(np.tanh(x @ ws) * x) + 0.1 * x

    cases = [
        (ft.grad, X0),
        (ft.hessian, X0),
        (lambda f: ft.vmap(ft.grad(f)), XB),
        (lambda f: ft.grad(lambda v: ft.vmap(f)(v).sum()), XB),
    ]
    for transform, arg in cases:
        got = transform(chain(ft.checkpoint(strict_block)))(asarray(arg))
        assert isinstance(got, StrictArray)
        want = transform(chain(block))(arg)
        np.testing.assert_allclose(to_numpy(got), want, **tol(np.float64))


# -- memory ---------------------------------------------------------------------------------


def _deep_block(x):
    for _ in range(4):
        x = np.tanh(x) * 1.1 + 0.01 * np.sin(x)
    return x


def _peak_bytes(fn, *args):
    tracemalloc.start()
    try:
        out = fn(*args)
        return tracemalloc.get_traced_memory()[1], out
    finally:
        tracemalloc.stop()


def test_peak_memory_of_grad_over_a_deep_chain_falls():
    # 24 blocks of 16 elementwise ops on 160 kB arrays: the plain tape holds every
    # intermediate (~400 arrays), the checkpointed one the 24 block boundaries plus one
    # block's recomputation at a time.
    x = np.linspace(-1.0, 1.0, 20_000)
    plain_peak, g_plain = _peak_bytes(ft.grad(chain(_deep_block, 24)), x)
    ckpt_peak, g_ckpt = _peak_bytes(ft.grad(chain(ft.checkpoint(_deep_block), 24)), x)
    np.testing.assert_array_equal(g_ckpt, g_plain)
    assert ckpt_peak < 0.25 * plain_peak, (ckpt_peak, plain_peak)


def test_peak_memory_falls_under_vmap_of_grad():
    xs = np.linspace(-1.0, 1.0, 40_000).reshape(4, 10_000)
    plain_peak, g_plain = _peak_bytes(ft.vmap(ft.grad(chain(_deep_block, 16))), xs)
    ckpt_peak, g_ckpt = _peak_bytes(ft.vmap(ft.grad(chain(ft.checkpoint(_deep_block), 16))), xs)
    np.testing.assert_array_equal(g_ckpt, g_plain)
    assert ckpt_peak < 0.35 * plain_peak, (ckpt_peak, plain_peak)


# -- errors ---------------------------------------------------------------------------------


def test_policy_other_than_the_supported_ones_is_refused():
    with pytest.raises(UnsupportedOperationError, match=r"^checkpoint\(block, policy=") as e:
        ft.checkpoint(block, policy=lambda *a, **k: True)
    assert "None" in str(e.value) and "nothing_saveable" in str(e.value)
    with pytest.raises(UnsupportedOperationError):
        ft.checkpoint(block, policy=jax.checkpoint_policies.dots_saveable)


def test_supported_policies():
    x = np.linspace(-1.0, 1.0, 2_000)
    want = ft.grad(chain(_deep_block, 8))(x)
    peaks = {}
    for policy in (None, ft.checkpoint_policies.nothing_saveable):
        f = ft.checkpoint(_deep_block, policy=policy)
        peaks[policy], got = _peak_bytes(ft.grad(chain(f, 8)), x)
        np.testing.assert_array_equal(got, want)
    everything = ft.checkpoint(_deep_block, policy=ft.checkpoint_policies.everything_saveable)
    peak_all, got = _peak_bytes(ft.grad(chain(everything, 8)), x)
    np.testing.assert_array_equal(got, want)
    plain_peak, _ = _peak_bytes(ft.grad(chain(_deep_block, 8)), x)
    assert max(peaks.values()) < 0.5 * peak_all  # nothing_saveable recomputes
    assert peak_all > 0.8 * plain_peak  # everything_saveable is the plain function


@pytest.mark.parametrize("bad", ["1", (1.0,), True])
def test_static_argnums_of_the_wrong_type(bad):
    with pytest.raises(ArgnumsError, match=r"^checkpoint\(block, static_argnums="):
        ft.checkpoint(block, static_argnums=bad)


def test_static_argnums_out_of_range():
    with pytest.raises(ArgnumsError, match="out of range") as e:
        ft.checkpoint(block, static_argnums=(2,))(X0)
    assert str(e.value).startswith("checkpoint(block, static_argnums=(2,))")


def test_not_a_function():
    with pytest.raises(TypeError, match=r"^checkpoint\(ndarray\): expected a function"):
        ft.checkpoint(X0)


def test_exception_inside_leaves_everything_clean():
    def bad(v):
        h = np.sin(v)
        raise RuntimeError("boom")
        return h  # pragma: no cover

    with pytest.raises(RuntimeError, match="boom"):
        ft.grad(lambda v: ft.checkpoint(bad)(v).sum())(X0)
    assert current_stack() == ()
    # the next differentiation records normally again
    got = ft.grad(chain(ft.checkpoint(block)))(X0)
    assert_tree_close(got, np.asarray(jax.grad(chain(jblock))(X0)), **tol(np.float64))
