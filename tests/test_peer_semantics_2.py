"""Round two of the transforms as torch.func and JAX users write them: the torch.func
tutorials (ensembling, per-sample gradients, Jacobians/Hessians, the neural tangent
kernel, MAML, Hessian-vector products) redone with ``ftransforms.nn``, the idioms of
JAX's documentation (control flow, checkpoint, custom rules, linearize, stop_gradient,
the double-where trick, closures across levels, perturbation confusion, complex
gradients) and the exception types a user of each library catches.  Oracles: JAX in
float64 (each compiled once with ``jax.jit``), torch.func in float64, finite differences.
Round one (argument conventions) is tests/test_peer_semantics.py.

Deliberate differences, asserted where they occur:

* ``grad`` through ``while_loop`` works (JAX: reverse mode through while_loop raises;
  ftransforms runs the loop eagerly and records it on the tape).
* ``int()`` of a floating tracer under ``grad`` raises ``TracerConversionError``, like
  ``float()`` (JAX and torch return the truncated number there); an integer tracer
  converts.
* An escaped ``grad`` tracer and ``float()`` under ``grad`` raise, as in JAX (torch.func
  raises nothing: its grad works on real tensors).
"""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import optree
import pytest

import ftransforms as ft
from ftransforms import errors as E
from ftransforms import nn
from ftransforms import numpy as fnp
from tests.tolerances import assert_tree_close

close = functools.partial(assert_tree_close, rtol=1e-10, atol=1e-12, strict=True)
# a plain call (no transform) returns what NumPy returns, NumPy scalars included
close_plain = functools.partial(assert_tree_close, rtol=1e-10, atol=1e-12)


def j2n(tree):
    """A JAX (or torch) result as NumPy arrays."""
    return jax.tree_util.tree_map(np.asarray, tree)


def jjit(f):
    """``jax.jit(f)`` compiled without XLA's expensive passes: each oracle here is a small
    program run once, where compile time, not run time, is the cost."""
    opts = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}

    def call(*args):
        return jax.jit(f).lower(*args).compile(compiler_options=opts)(*args)

    return call


def jaxify(tree):
    return jax.tree_util.tree_map(jnp.asarray, tree)


def jmlp(params, x):
    """JAX twin of ``nn.mlp`` (relu between linear layers, torch's (out, in) weights)."""
    for i, layer in enumerate(params):
        x = x @ layer["w"].T + layer["b"]
        if i < len(params) - 1:
            x = jax.nn.relu(x)
    return x


def rng(seed=0):
    return np.random.default_rng(seed)


# -- torch.func tutorial: model ensembling -----------------------------------------------


def test_model_ensembling_like_torch_func_tutorial():
    r = rng(1)
    models = [nn.init_mlp(r, [4, 6, 3], dtype=np.float64) for _ in range(5)]
    stacked = nn.stack_trees(models)
    minibatches = r.normal(size=(5, 7, 4))
    x = minibatches[0]
    # same minibatch for every model: in_dims=(0, None); a minibatch each: (0, 0)
    same = ft.vmap(nn.mlp, in_dims=(0, None))(stacked, x)
    each = ft.vmap(nn.mlp, in_dims=(0, 0))(stacked, minibatches)
    jstacked = jaxify(stacked)
    close(same, j2n(jjit(jax.vmap(jmlp, in_axes=(0, None)))(jstacked, x)))
    close(each, j2n(jjit(jax.vmap(jmlp, in_axes=(0, 0)))(jstacked, minibatches)))
    # and against the loop the tutorial replaces
    close(same, np.stack([nn.mlp(m, x) for m in models]))
    close(each, np.stack([nn.mlp(m, b) for m, b in zip(models, minibatches)]))
    # unstack_tree gives the members back
    close(nn.unstack_tree(stacked)[3], models[3])


# -- torch.func tutorial: per-sample gradients (conv net, dropout) -------------------------


def _conv_net(p, x):
    """The tutorial's small CNN on one (C, H, W) image: conv-relu-pool, linear, log_softmax."""
    h = nn.relu(nn.conv2d(x, p["conv"]["w"], p["conv"]["b"], padding=1))
    h = nn.max_pool2d(h, 2)
    h = nn.flatten(h, 0)
    return nn.log_softmax(nn.linear(p["fc"], h))


def _jconv_net(p, x):
    h = jax.lax.conv_general_dilated(
        x[None],
        p["conv"]["w"],
        (1, 1),
        ((1, 1), (1, 1)),
        dimension_numbers=("NCHW", "OIHW", "NCHW"),
    )
    h = jax.nn.relu(h + p["conv"]["b"][:, None, None])
    h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    h = h.reshape(-1) @ p["fc"]["w"].T + p["fc"]["b"]
    return jax.nn.log_softmax(h)


def test_per_sample_gradients_of_a_conv_net_like_torch_func():
    r = rng(2)
    p = {"conv": nn.init_conv2d(r, 2, 3, 3, dtype=np.float64)}
    p["fc"] = nn.init_linear(r, 3 * 3 * 3, 4, dtype=np.float64)
    x = r.normal(size=(6, 2, 6, 6))
    y = r.integers(0, 4, size=6)

    def loss(p, x, y):
        # the tutorial adds the batch axis back for the single sample
        return nn.nll_loss(_conv_net(p, x)[None], y[None])

    per_sample = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))(p, x, y)

    def jloss(p, x, y):
        return -_jconv_net(p, x)[y]

    want = jjit(jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0)))(jaxify(p), x, y)
    close(per_sample, j2n(want))
    # and the loop of single-sample gradients it replaces
    close(optree.tree_map(lambda a: a[4], per_sample), ft.grad(loss)(p, x[4], y[4]), err_msg="loop")


def test_per_sample_gradients_with_dropout_randomness_modes():
    r = rng(3)
    p = nn.init_mlp(r, [5, 8, 2], dtype=np.float64)
    x = r.normal(size=(4, 5))
    drop_rng = np.random.default_rng(7)

    def loss(p, x, key_rng):
        h = nn.relu(nn.linear(p[0], x))
        h = nn.dropout(key_rng, h, p=0.5)
        return nn.logsumexp(nn.linear(p[1], h))

    with pytest.raises(E.RandomnessError):
        ft.vmap(ft.grad(loss), in_dims=(None, 0, None))(p, x, drop_rng)

    # 'same': one mask for the batch; the mask is the draw of the generator's state, so a
    # copy of that state replays it in a Python loop
    state = drop_rng.bit_generator.state
    same = ft.vmap(ft.grad(loss), in_dims=(None, 0, None), randomness="same")(p, x, drop_rng)
    replay = np.random.default_rng()
    replay.bit_generator.state = state
    h_mask = nn.dropout(replay, np.ones(8), p=0.5)  # the mask the vmap drew, as 0 / 2
    loop = [ft.grad(lambda p, x: loss_masked(p, x, h_mask))(p, x[i]) for i in range(4)]
    close(same, nn.stack_trees(loop))

    # 'different': a mask per sample, drawn as one (batch, ...) draw: replaying the state
    # and drawing the batch's masks at once gives each sample's mask as a row
    state = drop_rng.bit_generator.state
    diff = ft.vmap(ft.grad(loss), in_dims=(None, 0, None), randomness="different")(p, x, drop_rng)
    replay.bit_generator.state = state
    masks = nn.dropout(replay, np.ones((4, 8)), p=0.5)
    assert len({tuple(m) for m in masks}) > 1  # the masks do differ
    loop = [ft.grad(lambda p, x: loss_masked(p, x, masks[i]))(p, x[i]) for i in range(4)]
    close(diff, nn.stack_trees(loop))


def loss_masked(p, x, mask):
    h = nn.relu(nn.linear(p[0], x)) * mask
    return nn.logsumexp(nn.linear(p[1], h))


# -- torch.func tutorial: Jacobians, Hessians of a small MLP -------------------------------


def _small_mlp():
    r = rng(4)
    return nn.init_mlp(r, [3, 5, 2], dtype=np.float64), r.normal(size=3)


def _tanh_mlp(p, x):
    return nn.mlp(p, x, activation=fnp.tanh)


def _jtanh_mlp(p, x):
    h = jnp.tanh(x @ p[0]["w"].T + p[0]["b"])
    return h @ p[1]["w"].T + p[1]["b"]


def test_jacobians_of_an_mlp_wrt_inputs_and_params_like_jax():
    p, x = _small_mlp()
    jp = jaxify(p)
    for ours, theirs in ((ft.jacrev, jax.jacrev), (ft.jacfwd, jax.jacfwd)):
        # w.r.t. the input, then w.r.t. (params, input): a tuple of pytrees
        close(ours(_tanh_mlp, argnums=1)(p, x), j2n(jjit(theirs(_jtanh_mlp, 1))(jp, x)))
        got = ours(_tanh_mlp, argnums=(0, 1))(p, x)
        close(got, j2n(jjit(theirs(_jtanh_mlp, (0, 1)))(jp, x)))
        assert got[0][0]["w"].shape == (2, 5, 3)

    # pytree output: the Jacobian has the output's structure on the outside
    def two(p, x):
        y = _tanh_mlp(p, x)
        return {"out": y, "norm": fnp.sum(y**2)}

    def jtwo(p, x):
        y = _jtanh_mlp(p, x)
        return {"out": y, "norm": jnp.sum(y**2)}

    close(ft.jacrev(two, 1)(p, x), j2n(jjit(jax.jacrev(jtwo, 1))(jp, x)))
    close(ft.jacfwd(two, 0)(p, x), j2n(jjit(jax.jacfwd(jtwo, 0))(jp, x)))


def test_hessian_is_jacfwd_of_jacrev_like_torch_func():
    p, x = _small_mlp()

    def f(x):
        return fnp.sum(_tanh_mlp(p, x) ** 3)

    h = ft.hessian(f)(x)
    close(ft.jacfwd(ft.jacrev(f))(x), h)
    close(ft.jacrev(ft.jacrev(f))(x), h)
    close(ft.jacfwd(ft.jacfwd(f))(x), h)
    jp = jaxify(p)
    close(h, j2n(jjit(jax.hessian(lambda x: jnp.sum(_jtanh_mlp(jp, x) ** 3)))(x)))
    # the batched Hessian of the tutorial: vmap over inputs
    xs = rng(5).normal(size=(4, 3))
    close(ft.vmap(ft.hessian(f))(xs), np.stack([ft.hessian(f)(v) for v in xs]))


# -- torch.func tutorial: neural tangent kernel -------------------------------------------


def test_neural_tangent_kernel_three_ways_like_torch_func():
    p, _ = _small_mlp()
    r = rng(6)
    x1, x2 = r.normal(size=(4, 3)), r.normal(size=(3, 3))

    def f(p, x):  # one sample
        return _tanh_mlp(p, x)

    # 1. Jacobian contraction: sum over parameters of J1 J2^T
    j1 = ft.vmap(ft.jacrev(f), (None, 0))(p, x1)
    j2 = ft.vmap(ft.jacrev(f), (None, 0))(p, x2)
    ntk = sum(
        np.einsum("Naf,Mbf->NMab", a.reshape(*a.shape[:2], -1), b.reshape(*b.shape[:2], -1))
        for a, b in zip(optree.tree_leaves(j1), optree.tree_leaves(j2))
    )
    jp = jaxify(p)

    def jntk(x1, x2):
        def one(a, b):
            ja = jax.jacrev(_jtanh_mlp)(jp, a)
            jb = jax.jacrev(_jtanh_mlp)(jp, b)
            return sum(
                jnp.tensordot(u, v, axes=(tuple(range(1, u.ndim)), tuple(range(1, v.ndim))))
                for u, v in zip(jax.tree_util.tree_leaves(ja), jax.tree_util.tree_leaves(jb))
            )

        return jax.vmap(jax.vmap(one, (None, 0)), (0, None))(x1, x2)

    want = j2n(jjit(jntk)(x1, x2))
    close(ntk, want)

    # 2. vmap of vjp of jvp ("NTK-vector products"): K(x1_n, x2_m) = J1 J2^T, built by
    # pushing each basis cotangent through vjp at x2 and then jvp at x1
    def ntk_entry(a, b):
        _, vjp_b = ft.vjp(lambda q: f(q, b), p)

        def column(u):  # J_a J_b^T u
            (pt,) = vjp_b(u)
            return ft.jvp(lambda q: f(q, a), (p,), (pt,))[1]

        return ft.vmap(column, out_dims=1)(np.eye(2))

    close(ft.vmap(ft.vmap(ntk_entry, (None, 0)), (0, None))(x1, x2), want)

    # 3. jvp of vjp the other way round (transpose of the same kernel)
    def ntk_entry_t(a, b):
        _, vjp_a = ft.vjp(lambda q: f(q, a), p)
        return ft.vmap(lambda u: ft.jvp(lambda q: f(q, b), (p,), vjp_a(u))[1])(np.eye(2))

    close(ft.vmap(ft.vmap(ntk_entry_t, (None, 0)), (0, None))(x1, x2), want)


# -- torch.func tutorial / JAX docs: MAML inner loop with grad inside vmap -----------------


def test_maml_inner_loop_grad_inside_vmap_like_jax():
    r = rng(7)
    p = nn.init_mlp(r, [1, 8, 1], dtype=np.float64)
    xs, ys = r.normal(size=(3, 5, 1)), r.normal(size=(3, 5, 1))
    xq, yq = r.normal(size=(3, 4, 1)), r.normal(size=(3, 4, 1))
    lr = 0.1

    def loss(p, x, y):
        return fnp.mean((nn.mlp(p, x, activation=fnp.tanh) - y) ** 2)

    def inner(p, x, y):
        g = ft.grad(loss)(p, x, y)
        return optree.tree_map(lambda a, b: a - lr * b, p, g)

    def task_loss(p, xs, ys, xq, yq):
        return loss(inner(p, xs, ys), xq, yq)

    def meta_loss(p):
        return fnp.mean(ft.vmap(task_loss, (None, 0, 0, 0, 0))(p, xs, ys, xq, yq))

    def jloss(p, x, y):
        h = jnp.tanh(x @ p[0]["w"].T + p[0]["b"])
        return jnp.mean((h @ p[1]["w"].T + p[1]["b"] - y) ** 2)

    def jmeta(p):
        def task(xs, ys, xq, yq):
            g = jax.grad(jloss)(p, xs, ys)
            return jloss(jax.tree_util.tree_map(lambda a, b: a - lr * b, p, g), xq, yq)

        return jnp.mean(jax.vmap(task)(xs, ys, xq, yq))

    value, g = ft.value_and_grad(meta_loss)(p)
    jv, jg = jjit(jax.value_and_grad(jmeta))(jaxify(p))
    close(value, np.asarray(jv))
    close(g, j2n(jg))


# -- Hessian-vector products three ways ----------------------------------------------------


def test_hvp_three_ways_agree_like_jax():
    r = rng(8)
    x, v = r.normal(size=5), r.normal(size=5)
    a = r.normal(size=(5, 5))

    def f(x):
        return fnp.sum(fnp.sin(a @ x) * x) + fnp.sum(x**4)

    fwd_over_rev = ft.jvp(ft.grad(f), (x,), (v,))[1]
    rev_over_rev = ft.grad(lambda x: fnp.vdot(ft.grad(f)(x), v))(x)
    rev_over_fwd = ft.vjp(ft.grad(f), x)[1](v)[0]
    want = ft.hessian(f)(x) @ v
    jf = lambda x: jnp.sum(jnp.sin(a @ x) * x) + jnp.sum(x**4)  # noqa: E731
    jwant = np.asarray(jjit(lambda x, v: jax.jvp(jax.grad(jf), (x,), (v,))[1])(x, v))
    for got in (fwd_over_rev, rev_over_rev, rev_over_fwd, want):
        close(got, jwant)
    # batched over vectors: vmap of the HVP is the Hessian times a matrix
    vs = r.normal(size=(3, 5))
    close(ft.vmap(lambda v: ft.jvp(ft.grad(f), (x,), (v,))[1])(vs), vs @ ft.hessian(f)(x).T)


# -- JAX docs: control flow ----------------------------------------------------------------


def test_scan_rnn_with_pytree_carry_and_its_gradient_like_jax():
    r = rng(9)
    params = {"wh": r.normal(size=(4, 4)) / 2, "wx": r.normal(size=(4, 3)), "b": r.normal(size=4)}
    xs = r.normal(size=(6, 3))
    init = {"h": np.zeros(4), "n": np.zeros(())}

    def make(np_):
        def rnn(params, xs, init):
            def step(carry, x):
                h = np_.tanh(params["wh"] @ carry["h"] + params["wx"] @ x + params["b"])
                return {"h": h, "n": carry["n"] + np_.sum(h**2)}, h[0]

            scan = ft.scan if np_ is fnp else jax.lax.scan
            carry, ys = scan(step, init, xs)
            return carry["n"] + np_.sum(ys), (carry, ys)

        return rnn

    rnn, jrnn = make(fnp), make(jnp)
    close_plain(rnn(params, xs, init), j2n(jjit(jrnn)(jaxify(params), xs, jaxify(init))))
    got = ft.grad(rnn, argnums=(0, 2), has_aux=True)(params, xs, init)
    want = jjit(jax.grad(jrnn, argnums=(0, 2), has_aux=True))(jaxify(params), xs, jaxify(init))
    close(got, j2n(want))


def test_fori_loop_with_a_tuple_carry_like_jax():
    def make(np_, fori):
        def f(x):
            def body(i, c):
                a, b = c
                return (a * np_.cos(b) + i, b + a / (1 + i))

            a, b = fori(0, 5, body, (x, 2 * x))
            return np_.sum(a * b)

        return f

    f, jf = make(fnp, ft.fori_loop), make(jnp, jax.lax.fori_loop)
    x = np.array([0.3, -0.4, 0.9])
    close_plain(f(x), np.asarray(jjit(jf)(x)))
    close(ft.grad(f)(x), np.asarray(jjit(jax.grad(jf))(x)))
    close(ft.vmap(ft.grad(f))(x[:, None]), np.asarray(jjit(jax.vmap(jax.grad(jf)))(x[:, None])))


def _newton_sqrt(np_, loop):
    """sqrt(a) by Newton's method in a while_loop (the JAX docs' fixed-point example)."""

    def f(a):
        def cond(c):
            x, i = c
            return (np_.abs(x * x - a) > 1e-14 * a) & (i < 50)

        def body(c):
            x, i = c
            return (0.5 * (x + a / x), i + 1)

        x, _ = loop(cond, body, (a, 0))
        return x

    return f


def test_while_loop_newton_solver_and_grad_through_it():
    f, jf = _newton_sqrt(fnp, ft.while_loop), _newton_sqrt(jnp, jax.lax.while_loop)
    a = np.float64(2.0)
    close_plain(f(a), np.asarray(jjit(jf)(a)))
    assert abs(f(a) - np.sqrt(2.0)) < 1e-15
    # JAX: reverse mode through while_loop raises; forward mode is supported
    with pytest.raises(ValueError, match="while_loop"):
        jax.grad(jf)(a)
    close(
        ft.jvp(f, (a,), (np.float64(1.0),))[1],
        np.asarray(jjit(lambda a: jax.jvp(jf, (a,), (1.0,))[1])(a)),
    )
    # ftransforms differentiates the loop in reverse mode too: d sqrt(a)/da = 1/(2 sqrt a)
    np.testing.assert_allclose(ft.grad(f)(a), 0.5 / np.sqrt(2.0), rtol=1e-12)
    # and under vmap, where each element stops at its own iteration count
    aa = np.array([0.5, 2.0, 9.0, 1e4])
    np.testing.assert_allclose(ft.vmap(f)(aa), np.sqrt(aa), rtol=1e-14)
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(aa), 0.5 / np.sqrt(aa), rtol=1e-10)


def test_cond_with_pytree_operands_under_vmap_like_jax():
    def make(np_, cond):
        def f(p, ops):
            return cond(
                p > 0,
                lambda o: {"s": np_.sin(o["a"]) * o["b"][0], "t": o["b"][1]},
                lambda o: {"s": o["a"] ** 2, "t": -o["b"][1] * o["a"][0]},
                ops,
            )

        return f

    f, jf = make(fnp, ft.cond), make(jnp, jax.lax.cond)
    r = rng(10)
    p = np.array([1.0, -1.0, 2.0, -0.5])
    ops = {"a": r.normal(size=(4, 3)), "b": (r.normal(size=(4, 3)), r.normal(size=4))}
    close(ft.vmap(f)(p, ops), j2n(jjit(jax.vmap(jf))(p, jaxify(ops))))
    # the predicate unbatched, the operands batched (in_dims=(None, 0))
    close(ft.vmap(f, (None, 0))(-1.0, ops), j2n(jjit(jax.vmap(jf, (None, 0)))(-1.0, ops)))

    def loss(p, ops):
        out = f(p, ops)
        return fnp.sum(out["s"]) + out["t"]

    def jloss(p, ops):
        out = jf(p, ops)
        return jnp.sum(out["s"]) + out["t"]

    close(
        ft.vmap(ft.grad(loss, argnums=1))(p, ops),
        j2n(jjit(jax.vmap(jax.grad(jloss, argnums=1)))(p, jaxify(ops))),
    )


def test_switch_index_out_of_range_is_clamped_like_jax():
    branches = [lambda x: x + 1.0, lambda x: 2.0 * x, lambda x: x**3]
    jbranches = branches
    x = np.array([1.5, -2.0])
    ii = np.array([-3, -1, 0, 1, 2, 3, 100])
    want = np.asarray(jjit(jax.vmap(lambda i: jax.lax.switch(i, jbranches, x)))(ii))
    for i, w in zip(ii, want):
        close(ft.switch(int(i), branches, x), w)  # a Python int: only that branch runs
        close(ft.switch(i, branches, x), w)  # a NumPy integer
    idx = np.array([-5, 0, 1, 2, 9])
    xs = np.linspace(-1, 1, 5)
    g = ft.vmap(ft.grad(lambda i, x: ft.switch(i, branches, x), argnums=1))(idx, xs)
    jg = jjit(jax.vmap(jax.grad(lambda i, x: jax.lax.switch(i, jbranches, x), argnums=1)))
    close(g, np.asarray(jg(idx, xs)))


def test_checkpoint_with_static_argnums_like_jax():
    def make(np_, ckpt):
        @functools.partial(ckpt, static_argnums=(1,))
        def block(x, n):
            for _ in range(n):  # n steers Python control flow: static
                x = np_.sin(x) * 1.5
            return x

        def f(x):
            return np_.sum(block(x, 3) ** 2)

        return f

    f, jf = make(fnp, ft.checkpoint), make(jnp, jax.checkpoint)
    x = np.array([0.2, -0.7, 1.1])
    close(ft.grad(f)(x), np.asarray(jjit(jax.grad(jf))(x)))
    close(ft.hessian(f)(x), np.asarray(jjit(jax.hessian(jf))(x)))

    # a static argument need not be an array (a name of a function here), and static
    # arguments are positional: given by keyword they are out of range, ValueError in both
    @functools.partial(ft.checkpoint, static_argnums=(1, 2))
    def named(x, act, n):
        for _ in range(n):
            x = getattr(fnp, act)(x) * 1.5
        return x

    close(ft.grad(lambda x: fnp.sum(named(x, "sin", 3) ** 2))(x), ft.grad(f)(x))
    with pytest.raises(ValueError, match="static_argnums"):
        named(x, act="sin", n=3)
    with pytest.raises(ValueError, match="static_argnums"):
        jax.checkpoint(lambda x, act, n: x, static_argnums=(1, 2))(x, act="sin", n=3)


# -- JAX docs: custom rules, linearize, vjp/jvp conventions --------------------------------


def test_custom_vjp_numerically_stable_log1pexp_like_jax():
    @ft.custom_jvp
    def log1pexp(x):
        return fnp.log1p(fnp.exp(x))

    log1pexp.defjvps(lambda t, ans, x: t * (1 - 1 / (1 + fnp.exp(x))))

    @ft.custom_vjp
    def log1pexp_v(x):
        return fnp.log1p(fnp.exp(x))

    def fwd(x):
        return log1pexp_v(x), x

    def bwd(x, g):
        return (g * (1 - 1 / (1 + fnp.exp(x))),)

    log1pexp_v.defvjp(fwd, bwd)

    x = np.array([0.0, 10.0, 100.0, 1000.0])
    naive = ft.vmap(ft.grad(lambda x: fnp.log1p(fnp.exp(x))))
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(naive(x)[-1])  # inf / inf: the reason for the custom rule
        for f in (log1pexp, log1pexp_v):
            g = ft.vmap(ft.grad(f))(x)
            np.testing.assert_allclose(g, [0.5, 1 - 1 / (1 + np.exp(10.0)), 1.0, 1.0], rtol=1e-15)
            # second derivative: the rule is itself differentiable (sigmoid')
            h = ft.grad(ft.grad(f))(np.float64(0.0))
            np.testing.assert_allclose(h, 0.25, rtol=1e-15)


def test_custom_vjp_higher_derivatives_flow_through_residuals_like_jax():
    # the inner grad's bwd reads residuals that depend on x: the outer grad must
    # differentiate them (through fwd), not only bwd's cotangent argument
    def make(cv, np_):
        @cv
        def f(x):
            return np_.sin(x) * x

        f.defvjp(
            lambda x: (f(x), (np_.cos(x), x)),
            lambda r, g: (g * (r[0] * r[1] + np_.sin(r[1])),),
        )
        return f

    f, jf = make(ft.custom_vjp, fnp), make(jax.custom_vjp, jnp)
    x = np.array([0.3, 1.2, -2.0])
    want = jjit(jax.vmap(jax.grad(jax.grad(jf))))(x)
    close(ft.vmap(ft.grad(ft.grad(f)))(x), np.asarray(want))
    close(
        ft.grad(ft.grad(ft.grad(f)))(0.7), np.asarray(jjit(jax.grad(jax.grad(jax.grad(jf))))(0.7))
    )
    close(ft.jacrev(ft.jacrev(lambda x: fnp.sum(f(x))))(x), np.diag(np.asarray(want)))
    # inside scan and checkpoint, Hessians by jacrev of grad
    cases = [
        (
            lambda x: ft.scan(lambda c, xi: (f(c * xi), c), 0.7, x)[0],
            lambda x: jax.lax.scan(lambda c, xi: (jf(c * xi), c), 0.7, x)[0],
        ),
        (
            lambda x: fnp.sum(ft.checkpoint(lambda v: f(v) ** 2)(x)),
            lambda x: jnp.sum(jax.checkpoint(lambda v: jf(v) ** 2)(x)),
        ),
    ]
    want = jjit(lambda x: [jax.jacrev(jax.grad(b))(x) for _, b in cases])(x)
    close([ft.jacrev(ft.grad(a))(x) for a, _ in cases], j2n(want))


def test_custom_vjp_clip_gradient_like_jax():
    def make(cv, np_):
        @cv
        def clip_gradient(lo, hi, x):
            return x

        def fwd(lo, hi, x):
            return x, (lo, hi)

        def bwd(res, g):
            lo, hi = res
            return (None, None, np_.clip(g, lo, hi))

        clip_gradient.defvjp(fwd, bwd)
        return lambda x: clip_gradient(-0.75, 0.75, np_.sin(x) * 3.0)

    f, jf = make(ft.custom_vjp, fnp), make(jax.custom_vjp, jnp)
    xs = np.linspace(-2, 2, 7)
    got = ft.vmap(ft.grad(f))(xs)
    close(got, np.asarray(jjit(jax.vmap(jax.grad(jf)))(xs)))
    # the cotangent 1 reaching the clip is clipped to 0.75, then scaled by d(3 sin x)/dx
    np.testing.assert_allclose(got, 0.75 * 3 * np.cos(xs), rtol=1e-15)
    assert ft.grad(f)(np.float64(0.0)) == 2.25  # unclipped: 3


def test_linearize_then_call_many_times_like_jax():
    def f(x):
        return {"a": fnp.sin(x) * x[::-1], "b": fnp.sum(fnp.exp(x))}

    x = np.array([0.1, 0.5, -0.8])
    out, f_jvp = ft.linearize(f, x)
    close(out, f(x))
    ts = rng(11).normal(size=(20, 3))
    for t in ts[:5]:
        close(f_jvp(t), ft.jvp(f, (x,), (t,))[1])
    # the linear function vmaps: the Jacobian applied to many tangents
    j = ft.jacfwd(f)(x)
    close(ft.vmap(f_jvp)(ts), {"a": ts @ j["a"].T, "b": ts @ j["b"]})
    # linear: f_jvp(a t1 + b t2) = a f_jvp(t1) + b f_jvp(t2)
    lhs = f_jvp(2 * ts[0] - 3 * ts[1])
    rhs = optree.tree_map(lambda u, v: 2 * u - 3 * v, f_jvp(ts[0]), f_jvp(ts[1]))
    close(lhs, rhs)


def test_vjp_of_a_function_with_dict_output_like_jax():
    def make(np_):
        return lambda x, y: {"s": np_.sin(x) * y, "p": (np_.sum(x * y), x**2)}

    f, jf = make(fnp), make(jnp)
    x, y = np.array([0.3, -1.2]), np.array([2.0, 0.5])
    out, pullback = ft.vjp(f, x, y)
    ct = {"s": np.array([1.0, -1.0]), "p": (np.float64(2.0), np.array([0.5, 0.25]))}
    jout, jct = jjit(lambda x, y, ct: (jf(x, y), jax.vjp(jf, x, y)[1](ct)))(x, y, ct)
    close(out, j2n(jout))
    close(pullback(ct), j2n(jct))
    # a cotangent of the wrong structure is refused
    with pytest.raises((TypeError, ValueError)):
        pullback({"s": ct["s"]})


def test_jvp_with_integer_inputs_zero_tangents():
    def f(x, n):
        return x**n

    x, n = np.array([1.5, 2.0]), np.array([2, 3])
    # JAX: the tangent of an integer primal is float0 zeros
    jout, jt = jjit(lambda x, n: jax.jvp(f, (x, n), (jnp.ones(2), np.zeros(2, jax.dtypes.float0))))(
        x, n
    )
    out, t = ft.jvp(f, (x, n), (np.ones(2), np.zeros(2, dtype=jax.dtypes.float0)))
    close((out, t), j2n((jout, jt)))
    # ftransforms also takes integer (or float) zeros for the integer input
    for zero in (np.zeros(2, dtype=np.int64), np.zeros(2)):
        close(ft.jvp(f, (x, n), (np.ones(2), zero)), (out, t))


def test_jacfwd_of_jacrev_of_a_function_of_a_dict_like_jax():
    def make(np_):
        return lambda d: np_.sum(np_.sin(d["a"]) * d["b"][0]) + np_.prod(d["b"]) * d["c"]

    f, jf = make(fnp), make(jnp)
    d = {"a": np.array([0.2, 0.4, -0.6]), "b": np.array([1.5, -0.5]), "c": np.float64(0.7)}
    got = ft.jacfwd(ft.jacrev(f))(d)
    close(got, j2n(jjit(jax.jacfwd(jax.jacrev(jf)))(jaxify(d))))
    assert got["a"]["b"].shape == (3, 2) and got["c"]["c"].shape == ()
    close(ft.hessian(f)(d), got)


# -- JAX docs: stop_gradient, the double-where trick, vmap idioms, closures --------------


def test_stop_gradient_semantics_like_jax():
    def make(np_, sg):
        # the TD-loss idiom: the target is a constant for the derivative
        def td(w, s, s_next, r):
            target = r + 0.9 * sg(np_.dot(w, s_next))
            return 0.5 * (target - np_.dot(w, s)) ** 2

        return td

    td, jtd = make(fnp, fnp.stop_gradient), make(jnp, jax.lax.stop_gradient)
    w, s, s2 = np.array([0.5, -0.2, 0.1]), np.array([1.0, 2.0, -1.0]), np.array([0.3, 0.0, 1.0])
    close(ft.grad(td)(w, s, s2, 1.5), np.asarray(jjit(jax.grad(jtd))(w, s, s2, 1.5)))
    # every level: no derivative under jvp, hessian, and inside vmap; the value is kept
    f = lambda x: x**2 * fnp.stop_gradient(x**3)  # noqa: E731
    x = np.array([0.5, 2.0])
    close(ft.jvp(f, (x,), (np.ones(2),)), (x**5, 2 * x * x**3))
    close(ft.vmap(ft.grad(ft.grad(f)))(x), 2 * x**3)
    close(ft.vmap(fnp.stop_gradient)(x), x)
    # stop_gradient of the outer level's value inside an inner grad
    g = ft.grad(lambda x: ft.grad(lambda y: y * fnp.stop_gradient(x) * x)(1.0))(2.0)
    jg = jjit(jax.grad(lambda x: jax.grad(lambda y: y * jax.lax.stop_gradient(x) * x)(1.0)))(2.0)
    close(g, np.asarray(jg))


def test_grad_of_where_with_nan_in_the_untaken_branch_and_double_where_like_jax():
    x = np.array([-1.0, 0.0, 4.0])

    def naive(np_):
        return lambda x: np_.sum(np_.where(x > 0, np_.sqrt(x), 0.0))

    def safe(np_):
        def f(x):
            ok = x > 0
            x_safe = np_.where(ok, x, 1.0)  # the inner where keeps sqrt's derivative finite
            return np_.sum(np_.where(ok, np_.sqrt(x_safe), 0.0))

        return f

    with np.errstate(invalid="ignore", divide="ignore"):
        g_naive = ft.grad(naive(fnp))(x)
    jg_naive = np.asarray(jjit(jax.grad(naive(jnp)))(x))
    # the untaken branch's inf/nan derivative leaks through as 0 * inf = nan, in both
    assert np.isnan(jg_naive[:2]).all() and np.isnan(g_naive[:2]).all()
    close(g_naive[2:], jg_naive[2:])
    g_safe = ft.grad(safe(fnp))(x)
    close(g_safe, np.asarray(jjit(jax.grad(safe(jnp)))(x)))
    close(g_safe, np.array([0.0, 0.0, 0.25]))
    close(ft.vmap(ft.grad(lambda v: safe(fnp)(v[None])))(x), g_safe)


def test_vmap_out_axes_1_and_nested_vmap_pairwise_matrix_like_jax():
    r = rng(12)
    xs, ys = r.normal(size=(4, 3)), r.normal(size=(5, 3))
    out = ft.vmap(lambda x: {"a": fnp.outer(x, x[:2]), "b": x}, out_dims=1)(xs)
    jout = jjit(jax.vmap(lambda x: {"a": jnp.outer(x, x[:2]), "b": x}, out_axes=1))(xs)
    close(out, j2n(jout))
    assert out["a"].shape == (3, 4, 2) and out["b"].shape == (3, 4)

    def dist(x, y):
        return fnp.sqrt(fnp.sum((x - y) ** 2))

    pairwise = ft.vmap(ft.vmap(dist, (None, 0)), (0, None))(xs, ys)
    close(pairwise, np.sqrt(((xs[:, None] - ys[None]) ** 2).sum(-1)))
    # the transposed nesting with out_dims=1 gives the same matrix
    close(ft.vmap(ft.vmap(dist, (0, None)), (None, 0), out_dims=1)(xs, ys), pairwise)
    # and its gradient w.r.t. the first set of points, batched pairwise
    gx = ft.vmap(ft.vmap(ft.grad(dist), (None, 0)), (0, None))(xs, ys)
    close(gx, (xs[:, None] - ys[None]) / pairwise[..., None])


def test_vmap_closing_over_an_outer_grads_traced_value_like_jax():
    def make(np_, grad, vmap):
        def f(w):
            # the inner vmapped function closes over w, a tracer of the outer grad
            return np_.sum(vmap(lambda x: np_.sin(w * x) * w)(np_.arange(1.0, 4.0)))

        return grad(f)

    w = np.float64(0.7)
    close(make(fnp, ft.grad, ft.vmap)(w), np.asarray(jjit(make(jnp, jax.grad, jax.vmap))(w)))
    # and the other way round: grad inside vmap closing over the vmapped value
    xs = np.array([0.5, 1.0, 2.0])
    got = ft.vmap(lambda x: ft.grad(lambda y: fnp.sin(x * y) * x)(1.5))(xs)
    close(got, xs**2 * np.cos(1.5 * xs))
    # jacfwd of a function whose inner jacrev closes over the outer tangent
    f = lambda a: ft.jacrev(lambda b: fnp.sin(a * b) * a)(np.array([1.0, 2.0]))  # noqa: E731
    jf = lambda a: jax.jacrev(lambda b: jnp.sin(a * b) * a)(jnp.array([1.0, 2.0]))  # noqa: E731
    close(ft.jacfwd(f)(0.3), np.asarray(jjit(jax.jacfwd(jf))(0.3)))


def test_perturbation_confusion_is_avoided_like_jax():
    # d/dx [x * d/dy (x + y)] = d/dx [x * 1] = 1, not 2
    assert ft.grad(lambda x: x * ft.grad(lambda y: x + y)(1.0))(1.0) == 1.0
    assert jjit(jax.grad(lambda x: x * jax.grad(lambda y: x + y)(1.0)))(1.0) == 1.0
    # the same with every pair of modes
    for outer in (ft.grad, lambda f: lambda x: ft.jvp(f, (x,), (1.0,))[1]):
        for inner in (ft.grad, lambda f: lambda y: ft.jvp(f, (y,), (1.0,))[1]):
            close(outer(lambda x: x * inner(lambda y: x * y)(2.0))(3.0), np.asarray(6.0))
    # and under vmap: each batch element's inner derivative sees only its own y
    xs = np.array([1.0, 2.0, 3.0])
    close(ft.vmap(ft.grad(lambda x: x * ft.grad(lambda y: x * y**2)(x)))(xs), 6 * xs**2)


def test_fourth_derivative_of_sin_like_jax():
    d = ft.grad
    x = np.linspace(-2, 2, 5)
    close(ft.vmap(d(d(d(d(fnp.sin)))))(x), np.sin(x))
    close(ft.vmap(d(d(d(fnp.sin))))(x), -np.cos(x))
    # mixing modes: jacfwd over jacrev over jvp over grad
    f4 = ft.jacfwd(ft.jacrev(lambda x: ft.jvp(d(fnp.sin), (x,), (1.0,))[1]))
    close(f4(np.float64(0.4)), np.asarray(np.sin(0.4)))
    jd = jax.grad
    close(ft.vmap(d(d(d(d(fnp.tanh)))))(x), np.asarray(jjit(jax.vmap(jd(jd(jd(jd(jnp.tanh))))))(x)))


def test_complex_gradient_conventions_like_jax():
    z = np.array([1.0 + 2.0j, -0.5 + 0.25j])
    # holomorphic: grad/vjp/jvp give f'(z), the complex derivative
    close(ft.vmap(ft.grad(fnp.sin, holomorphic=True))(z), np.cos(z))
    close(ft.jvp(fnp.exp, (z,), (np.ones(2, complex),))[1], np.exp(z))
    # non-holomorphic C -> C: jvp and vjp of conj and abs**2 like JAX's
    f = lambda z: fnp.conj(z) * z**2  # noqa: E731
    jf = lambda z: jnp.conj(z) * z**2  # noqa: E731
    t = np.array([0.5 - 1.0j, 2.0 + 0.5j])
    jv, jt, jc = jjit(lambda z, t: (*jax.jvp(jf, (z,), (t,)), jax.vjp(jf, z)[1](t)))(z, t)
    close(ft.jvp(f, (z,), (t,)), j2n((jv, jt)))
    close(ft.vjp(f, z)[1](t), j2n(jc))
    # C -> R, f(x + iy): JAX's grad is df/dx - i df/dy (torch's is its conjugate,
    # df/dx + i df/dy): Re(z^2) gives 2z, |z|^2 gives 2 conj(z)
    close(ft.grad(lambda z: fnp.real(z * z))(z[0]), np.asarray(2 * z[0]))
    close(ft.vmap(ft.grad(lambda z: fnp.abs(z) ** 2))(z), 2 * np.conj(z))
    # a real function of a complex input via real/imag, then a step of gradient descent in
    # JAX's convention must step along conj(grad)
    loss = lambda z: (fnp.real(z) - 1) ** 2 + (fnp.imag(z) + 2) ** 2  # noqa: E731
    g = ft.grad(loss)(np.complex128(0.0))
    close(
        g, np.asarray(jjit(jax.grad(lambda z: (jnp.real(z) - 1) ** 2 + (jnp.imag(z) + 2) ** 2))(0j))
    )
    assert loss(0.0 - 0.1 * np.conj(g)) < loss(0.0)


# -- error types a JAX or torch.func user catches ------------------------------------------


def _builtin_bases(err: BaseException) -> set:
    return {
        c
        for c in type(err).__mro__
        if c.__module__ == "builtins" and c not in (Exception, BaseException, object)
    }


def _raised(call):
    """The exception ``call()`` raises, or None."""
    try:
        call()
    except Exception as err:  # noqa: BLE001  (the type is what is checked)
        return err
    return None


def _error_cases(lib):
    """name -> a call making the mistake in ``lib`` ('ft', 'jax' or 'torch')."""
    if lib == "torch":
        import torch
        from torch.func import vmap

        def grad(f):
            # torch.func.grad's first call imports torch._dynamo (~1 s); torch.autograd
            # raises the same types for these mistakes (checked by hand: RuntimeError
            # for a non-scalar output, nothing for the other two)
            def g(x):
                x = x.detach().requires_grad_()
                return torch.autograd.grad(f(x), x)[0]

            return g

        arr = lambda a: torch.as_tensor(np.asarray(a))  # noqa: E731
    else:
        vmap, grad = (ft.vmap, ft.grad) if lib == "ft" else (jax.vmap, jax.grad)
        arr = np.asarray if lib == "ft" else jnp.asarray
    x, y = arr(np.ones((2, 3))), arr(np.ones((3, 3)))
    out_dims = {"ft": "out_dims", "torch": "out_dims", "jax": "out_axes"}[lib]
    in_dims = {"ft": "in_dims", "torch": "in_dims", "jax": "in_axes"}[lib]

    def escaped(transform):
        kept = []
        if transform == "grad":
            grad(lambda a: (kept.append(a), (a * 2).sum())[1])(x)
        else:
            vmap(lambda a: (kept.append(a), a * 2)[1])(x)
        return lambda: kept[0] + 1

    return {
        "in_dims of the wrong length": lambda: vmap(lambda a, b: a + b, **{in_dims: (0,)})(x, x),
        "batch sizes differ": lambda: vmap(lambda a, b: a + b)(x, y),
        "grad of a non-scalar output": lambda: grad(lambda a: a * 2)(x),
        "out_dims tuple of the wrong length": lambda: vmap(
            lambda a: (a, a), **{out_dims: (0, 0, 0)}
        )(x),
        "escaped tracer of vmap": escaped("vmap"),
        "escaped tracer of grad": escaped("grad"),
        "float(tracer) under grad": lambda: grad(lambda a: a * float(a))(arr(np.float64(2.0))),
        "float(tracer) under vmap": lambda: vmap(lambda a: a * float(a))(arr(np.ones(2))),
        "if on a batched value": lambda: vmap(lambda a: a if a > 0 else -a)(arr(np.ones(2))),
    }


#: Where torch.func raises nothing: its grad runs eagerly on real tensors, so a tensor
#: kept from inside grad is an ordinary (detached) tensor afterwards, and float() works.
#: ftransforms raises, as JAX does.
TORCH_SILENT = {"escaped tracer of grad", "float(tracer) under grad"}

#: Where ftransforms deliberately runs what JAX and torch.func refuse: vmap splits the batch
#: (NOTE [splitting the batch]); with split=False it raises as they do.
FT_SPLITS = {
    "float(tracer) under vmap": lambda a: a * float(a),
    "if on a batched value": lambda a: a if a > 0 else -a,
}


def _torch_errors() -> dict | None:
    """torch's errors for the same mistakes, or None where torch (a peer, not a test
    dependency) is not installed: the JAX comparison still runs."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about float() of a grad tensor
        return {name: _raised(call) for name, call in _error_cases("torch").items()}


def test_error_types_are_those_jax_and_torch_users_catch():
    ours, theirs = _error_cases("ft"), _error_cases("jax")
    torch_errors = _torch_errors()
    for name, call in ours.items():
        if name in FT_SPLITS:  # the loop's result; split=False refuses rows that differ
            rows = np.array([1.5, -2.0])
            f = FT_SPLITS[name]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", E.PerformanceWarning)
                close(ft.vmap(f)(rows), np.stack([f(r) for r in rows]))
            call = lambda f=f, rows=rows: ft.vmap(f, split=False)(rows)  # noqa: E731
        err = _raised(call)
        assert isinstance(err, E.FTransformsError), (name, err)
        jerr = _raised(theirs[name])
        assert jerr is not None, name
        assert _builtin_bases(jerr) <= _builtin_bases(err), (name, type(jerr), type(err))
        if torch_errors is None:
            continue
        terr = torch_errors[name]
        if name in TORCH_SILENT:
            assert terr is None, (name, terr)
        else:
            assert terr is not None, name
            assert _builtin_bases(terr) <= _builtin_bases(err), (name, type(terr), type(err))
    # the specific types, for the record
    assert isinstance(_raised(ours["escaped tracer of grad"]), E.EscapedTracerError)
    assert isinstance(_raised(ours["float(tracer) under grad"]), E.TracerConversionError)
    assert isinstance(_raised(ours["grad of a non-scalar output"]), E.GradOutputError)
    # a primitive used as the function is named by its name (not "Primitive")
    with pytest.raises(E.GradOutputError, match=r"^grad\(sin\)"):
        ft.grad(fnp.sin)(np.ones(3))
    with pytest.raises(E.TangentMismatchError, match=r"^jvp\(sin\)"):
        ft.jvp(fnp.sin, (np.ones(3, np.float32),), (np.ones(3),))


# -- more of the same, probed in round two ---------------------------------------------------


def test_ensemble_of_bias_free_layers_and_layer_norm_per_sample_grads():
    r = rng(13)
    members = [nn.init_linear(r, 3, 2, dtype=np.float64, bias=False) for _ in range(3)]
    stacked = nn.stack_trees(members)
    assert stacked["b"] is None  # a None leaf stays None: nothing to map over
    x = r.normal(size=3)
    close(ft.vmap(nn.linear, (0, None))(stacked, x), np.stack([nn.linear(m, x) for m in members]))
    g = ft.vmap(ft.grad(lambda p, x: fnp.sum(nn.linear(p, x) ** 2)), (0, None))(stacked, x)
    assert g["b"] is None and g["w"].shape == (3, 2, 3)

    # per-sample gradients through layer_norm, with torch's weight/bias layout
    w, b, xs = r.normal(size=3), r.normal(size=3), r.normal(size=(4, 3))

    def loss(w, b, x):
        return fnp.sum(fnp.tanh(nn.layer_norm(x, w, b)) ** 2)

    def jloss(w, b, x):
        mu = x.mean()
        y = (x - mu) / jnp.sqrt(((x - mu) ** 2).mean() + 1e-5) * w + b
        return jnp.sum(jnp.tanh(y) ** 2)

    got = ft.vmap(ft.grad(loss, argnums=(0, 1)), (None, None, 0))(w, b, xs)
    close(got, j2n(jjit(jax.vmap(jax.grad(jloss, argnums=(0, 1)), (None, None, 0)))(w, b, xs)))
    # torch's F.layer_norm(x, normalized_shape, ...) order: a shape where the weight goes
    # is refused with the keyword to use (it is not taken as a weight of shape (1,))
    with pytest.raises(TypeError, match="normalized_shape="):
        nn.layer_norm(xs, (3,))
    close(nn.layer_norm(xs, normalized_shape=(3,)), nn.layer_norm(xs))


def test_maml_several_inner_steps_in_fori_loop_and_its_hessian_like_jax():
    def make(np_, grad, vmap, fori):
        def loss(w, x):
            return np_.sum((np_.sin(w * x) - x) ** 2)

        def adapt(w, x):
            return fori(0, 3, lambda i, w: w - 0.1 * grad(loss)(w, x), w)

        return lambda w, xs: np_.sum(vmap(lambda x: loss(adapt(w, x), x))(xs))

    f = make(fnp, ft.grad, ft.vmap, ft.fori_loop)
    jf = make(jnp, jax.grad, jax.vmap, jax.lax.fori_loop)
    xs = rng(14).normal(size=(4, 3))
    want = jjit(lambda w, xs: (jax.grad(jf)(w, xs), jax.hessian(jf)(w, xs)))(0.7, xs)
    close((ft.grad(f)(0.7, xs), ft.hessian(f)(0.7, xs)), j2n(want))


def test_fori_loop_with_a_batched_trip_count_and_hessian_of_scan_like_jax():
    def body(np_):
        return lambda i, c: c * np_.sin(c + i)

    n, x = np.array([1, 3, 0]), np.array([0.5, 0.7, 0.9])
    got = ft.vmap(lambda n, x: ft.fori_loop(0, n, body(fnp), x))(n, x)
    want = jjit(jax.vmap(lambda n, x: jax.lax.fori_loop(0, n, body(jnp), x)))(n, x)
    close(got, np.asarray(want))

    def make(np_, scan):
        def f(x):
            c, ys = scan(lambda c, xi: (np_.tanh(c * xi + 0.5), c**2), x[0], x)
            return c + np_.sum(ys)

        return f

    xs = np.array([[0.3, -0.5, 0.8], [0.6, -1.0, 1.6]])
    close(
        ft.vmap(ft.hessian(make(fnp, ft.scan)))(xs),
        np.asarray(jjit(jax.vmap(jax.hessian(make(jnp, jax.lax.scan))))(xs)),
    )


def test_python_control_flow_under_grad_works_and_custom_rules_closing_over_tracers_raise():
    # grad is eager in all three libraries: `if x > 0` on a differentiated value is fine
    f = lambda x: x**2 if x > 0 else -x  # noqa: E731
    assert ft.grad(f)(2.0) == jax.grad(f)(2.0) == 4.0
    assert ft.grad(f)(-2.0) == jax.grad(f)(-2.0) == -1.0
    # int() of a float being differentiated: JAX truncates and so does ftransforms (int()
    # is piecewise constant: the zero derivative is exact); float() keeps its error
    assert jax.grad(lambda x: x * int(x))(2.5) == ft.grad(lambda x: x * int(x))(2.5) == 2.0
    with pytest.raises(E.TracerConversionError, match="float"):
        ft.grad(lambda x: x * float(x))(2.5)

    # a custom rule that closes over the enclosing grad's traced value: the rule runs in
    # the backward pass, after that grad's forward pass returned; JAX raises
    # UnexpectedTracerError (a TypeError), ftransforms EscapedTracerError (also one).
    # The fix in both: pass the value as an argument of the custom function.
    x = np.array([0.3, -0.5, 0.8])

    def make(cv, np_, closing):
        def loss(w):
            @cv
            def f(x, w):
                return np_.sin(x) * w

            def bwd(res, g):
                x, w2 = res
                return (g * np_.cos(x) * (w if closing else w2), np_.sum(g * np_.sin(x)))

            f.defvjp(lambda x, w: (f(x, w), (x, w)), bwd)
            return np_.sum(f(x * w, w))

        return loss

    want = np.asarray(jjit(jax.grad(lambda w: jnp.sum(jnp.sin(x * w) * w)))(0.7))
    close(ft.grad(make(ft.custom_vjp, fnp, closing=False))(0.7), want)
    close(np.asarray(jjit(jax.grad(make(jax.custom_vjp, jnp, closing=False)))(0.7)), want)
    with pytest.raises(E.EscapedTracerError):
        ft.grad(make(ft.custom_vjp, fnp, closing=True))(0.7)
    with pytest.raises(TypeError):
        jax.grad(make(jax.custom_vjp, jnp, closing=True))(0.7)


def test_escaped_tracers_raise_in_later_transforms_while_pullbacks_stay_callable():
    kept, jkept = [], []
    ft.vmap(lambda a: (kept.append(a), a)[1])(np.ones((2, 3)))
    jax.vmap(lambda a: (jkept.append(a), a)[1])(np.ones((2, 3)))
    for later in (
        lambda k: ft.vmap(lambda b: b + k)(np.ones((2, 3))),
        lambda k: ft.grad(lambda b: fnp.sum(b * k))(np.ones(3)),
        lambda k: np.sin(k),
        lambda k: float(k[0]),
    ):
        with pytest.raises(E.EscapedTracerError, match="after that transform had returned"):
            later(kept[0])
    with pytest.raises(TypeError):  # JAX: UnexpectedTracerError
        jax.vmap(lambda b: b + jkept[0])(np.ones((2, 3)))
    # what a transform hands back is meant to be used later: vjp's pullback, linearize's
    # linear function, jvp/grad results
    x = np.array([0.2, 0.4])
    _, pullback = ft.vjp(fnp.sin, x)
    _, f_jvp = ft.linearize(fnp.sin, x)
    ft.vmap(fnp.cos)(np.ones((2, 2)))  # another transform in between
    close(pullback(np.ones(2)), (np.cos(x),))
    close(f_jvp(np.ones(2)), np.cos(x))
