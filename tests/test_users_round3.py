"""Canonical examples of the JAX and torch.func tutorials, translated to ftransforms.

Each test runs the tutorial's code twice: once as written for JAX (the oracle, float64)
and once translated to ftransforms with plain NumPy model code. The sources are JAX's
"Autodiff cookbook", "Automatic vectorization" and "Custom derivative rules", and
torch.func's "Per-sample gradients", "Model ensembling", "Jacobians, Hessians, hvp, vhp,
and more" and "Neural Tangent Kernels" tutorials.
"""

from functools import partial

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


def close(a, b, rtol=1e-10, atol=1e-12):
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        assert np.shape(x) == np.shape(y), (np.shape(x), np.shape(y))
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=atol)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# -- JAX: Autodiff cookbook -------------------------------------------------------------------


def cookbook_data(rng):
    inputs = np.array(
        [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]]
    )
    targets = np.array([True, True, False, True])
    W, b = rng.normal(size=3), rng.normal()
    return W, b, inputs, targets


def make_cookbook(xp):
    def sigmoid(x):
        return 0.5 * (xp.tanh(x / 2) + 1)

    def predict(W, b, inputs):
        return sigmoid(xp.dot(inputs, W) + b)

    def loss(W, b, inputs, targets):
        preds = predict(W, b, inputs)
        label_probs = preds * targets + (1 - preds) * (1 - targets)
        return -xp.sum(xp.log(label_probs))

    return predict, loss


def test_cookbook_grad_argnums_and_value_and_grad(rng):
    W, b, inputs, targets = cookbook_data(rng)
    _, jloss = make_cookbook(jnp)
    _, nloss = make_cookbook(np)
    close(
        ft.grad(nloss, (0, 1))(W, b, inputs, targets),
        jax.grad(jloss, (0, 1))(W, b, inputs, targets),
    )
    close(ft.grad(nloss, 1)(W, b, inputs, targets), jax.grad(jloss, 1)(W, b, inputs, targets))
    close(
        ft.value_and_grad(nloss)(W, b, inputs, targets),
        jax.value_and_grad(jloss)(W, b, inputs, targets),
    )
    # a dict of parameters
    close(
        ft.grad(lambda p: nloss(p["W"], p["b"], inputs, targets))({"W": W, "b": b}),
        jax.grad(lambda p: jloss(p["W"], p["b"], inputs, targets))({"W": W, "b": b}),
    )


def test_cookbook_jacobians_and_hessian(rng):
    W, b, inputs, _ = cookbook_data(rng)
    jpredict, _ = make_cookbook(jnp)
    npredict, _ = make_cookbook(np)
    close(ft.jacfwd(npredict)(W, b, inputs), jax.jacfwd(jpredict)(W, b, inputs))
    close(ft.jacrev(npredict)(W, b, inputs), jax.jacrev(jpredict)(W, b, inputs))
    close(ft.jacrev(npredict, 2)(W, b, inputs), jax.jacrev(jpredict, 2)(W, b, inputs))

    def hessian(f):
        return ft.jacfwd(ft.jacrev(f))

    def jhessian(f):
        return jax.jacfwd(jax.jacrev(f))

    close(hessian(npredict)(W, b, inputs), jhessian(jpredict)(W, b, inputs))
    close(ft.hessian(npredict)(W, b, inputs), jax.hessian(jpredict)(W, b, inputs))


def test_cookbook_hvp_four_ways(rng):
    x, v = rng.normal(size=4), rng.normal(size=4)

    def f(xp):
        return lambda x: xp.sum(xp.tanh(x) ** 2) + xp.prod(xp.sin(x))

    jf, nf = f(jnp), f(np)
    ref = jax.jvp(jax.grad(jf), (x,), (v,))[1]

    def hvp_revrev(f, x, v):
        return ft.grad(lambda x: np.vdot(ft.grad(f)(x), v))(x)

    def hvp_fwdrev(f, primals, tangents):
        return ft.jvp(ft.grad(f), primals, tangents)[1]

    def hvp_revfwd(f, primals, tangents):
        g = lambda primals: ft.jvp(f, primals, tangents)[1]
        return ft.grad(g)(primals)

    def hvp_linearize(f, x):
        return ft.linearize(ft.grad(f), x)[1]

    close(hvp_revrev(nf, x, v), ref)
    close(hvp_fwdrev(nf, (x,), (v,)), ref)
    close(hvp_revfwd(nf, (x,), (v,)), ref)
    close(hvp_linearize(nf, x)(v), ref)
    # vmap over tangents: a Hessian-matrix product
    V = rng.normal(size=(3, 4))
    hmp = ft.vmap(lambda v: hvp_fwdrev(nf, (x,), (v,)))(V)
    close(hmp, jax.vmap(lambda v: jax.jvp(jax.grad(jf), (x,), (v,))[1])(V))


def test_cookbook_jvp_vjp_and_vmapped_products(rng):
    W, b, inputs, _ = cookbook_data(rng)
    jpredict, _ = make_cookbook(jnp)
    npredict, _ = make_cookbook(np)
    f = lambda W: npredict(W, b, inputs)
    jf = lambda W: jpredict(W, b, inputs)
    v = rng.normal(size=W.shape)
    close(ft.jvp(f, (W,), (v,)), jax.jvp(jf, (W,), (v,)))
    y, vjp_fun = ft.vjp(f, W)
    jy, jvjp_fun = jax.vjp(jf, W)
    u = rng.normal(size=y.shape)
    close(y, jy)
    close(vjp_fun(u), jvjp_fun(u))
    # matrix-Jacobian product: vmap over the cotangents
    M = rng.normal(size=(5, 4))
    close(ft.vmap(vjp_fun)(M), jax.vmap(jvjp_fun)(M))
    # Jacobian-matrix product: vmap over the tangents, out_axes=1 as in the cookbook
    S = rng.normal(size=(3, 7))
    close(
        ft.vmap(lambda s: ft.jvp(f, (W,), (s,))[1], in_axes=1, out_axes=1)(S),
        jax.vmap(lambda s: jax.jvp(jf, (W,), (s,))[1], in_axes=1, out_axes=1)(S),
    )


def test_cookbook_per_example_gradients(rng):
    W, b, inputs, targets = cookbook_data(rng)
    _, jloss = make_cookbook(jnp)
    _, nloss = make_cookbook(np)
    # per-example: each example as a batch of one, as the cookbook's vmap(grad(loss))
    tgt = targets.astype(np.float64)
    close(
        ft.vmap(ft.grad(nloss), in_axes=(None, None, 0, 0))(W, b, inputs, tgt),
        jax.vmap(jax.grad(jloss), in_axes=(None, None, 0, 0))(W, b, inputs, tgt),
    )
    close(
        ft.jit(ft.vmap(ft.grad(nloss, (0, 1)), in_dims=(None, None, 0, 0)))(W, b, inputs, tgt),
        jax.vmap(jax.grad(jloss, (0, 1)), in_axes=(None, None, 0, 0))(W, b, inputs, tgt),
    )


def test_cookbook_stop_gradient_td0(rng):
    def value_fn(xp):
        return lambda theta, state: xp.dot(theta, state)

    s_tm1, r_t, s_t = rng.normal(size=3), 0.7, rng.normal(size=3)
    theta = rng.normal(size=3)

    def td_loss_j(theta, s_tm1, r_t, s_t):
        v_tm1 = value_fn(jnp)(theta, s_tm1)
        target = r_t + value_fn(jnp)(theta, s_t)
        return -0.5 * ((jax.lax.stop_gradient(target) - v_tm1) ** 2)

    def td_loss_n(theta, s_tm1, r_t, s_t):
        v_tm1 = value_fn(np)(theta, s_tm1)
        target = r_t + value_fn(np)(theta, s_t)
        return -0.5 * ((fnp.stop_gradient(target) - v_tm1) ** 2)

    close(ft.grad(td_loss_n)(theta, s_tm1, r_t, s_t), jax.grad(td_loss_j)(theta, s_tm1, r_t, s_t))

    # ft.lax.stop_gradient, as a JAX user writes it, on a pytree
    def td_loss_lax(theta, s_tm1, r_t, s_t):
        v_tm1 = value_fn(np)(theta, s_tm1)
        target, _ = ft.lax.stop_gradient((r_t + value_fn(np)(theta, s_t), s_t))
        return -0.5 * ((target - v_tm1) ** 2)

    close(ft.grad(td_loss_lax)(theta, s_tm1, r_t, s_t), jax.grad(td_loss_j)(theta, s_tm1, r_t, s_t))
    close(
        ft.vmap(ft.grad(td_loss_lax), in_axes=(None, 0, None, 0))(
            theta, np.stack([s_tm1] * 2), r_t, np.stack([s_t] * 2)
        ),
        jax.vmap(jax.grad(td_loss_j), in_axes=(None, 0, None, 0))(
            theta, np.stack([s_tm1] * 2), r_t, np.stack([s_t] * 2)
        ),
    )


# -- JAX: custom derivative rules -------------------------------------------------------------


def test_custom_jvp_log1pexp():
    @jax.custom_jvp
    def jf(x):
        return jnp.log(1.0 + jnp.exp(x))

    @jf.defjvp
    def jf_jvp(primals, tangents):
        (x,), (x_dot,) = primals, tangents
        ans = jf(x)
        return ans, (1 - 1 / (1 + jnp.exp(x))) * x_dot

    @ft.custom_jvp
    def f(x):
        return np.log(1.0 + np.exp(x))

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,) = primals
        (x_dot,) = tangents
        ans = f(x)
        ans_dot = (1 - 1 / (1 + np.exp(x))) * x_dot
        return ans, ans_dot

    assert ft.grad(f)(100.0) == 1.0
    xs = np.array([0.0, 1.0, 2.0, 100.0])
    close(ft.vmap(ft.grad(f))(xs), jax.vmap(jax.grad(jf))(xs))
    close(ft.jit(f)(3.0), jf(3.0))
    close(ft.grad(ft.grad(f))(1.5), jax.grad(jax.grad(jf))(1.5))

    # defjvps, one rule per argument
    @ft.custom_jvp
    def g(x, y):
        return np.sin(x) * y

    g.defjvps(
        lambda x_dot, primal_out, x, y: np.cos(x) * x_dot * y,
        lambda y_dot, primal_out, x, y: np.sin(x) * y_dot,
    )
    close(ft.grad(g, (0, 1))(2.0, 3.0), (np.cos(2.0) * 3.0, np.sin(2.0)))


def test_custom_jvp_nondiff_argnums_app():
    @partial(jax.custom_jvp, nondiff_argnums=(0,))
    def japp(f, x):
        return f(x)

    @japp.defjvp
    def japp_jvp(f, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return f(x), 2.0 * x_dot

    @partial(ft.custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return f(x), 2.0 * x_dot

    close(
        ft.grad(lambda x: app(lambda y: y**2, x))(4.0),
        jax.grad(lambda x: japp(lambda y: y**2, x))(4.0),
    )


def test_custom_vjp_clip_gradient():
    @jax.custom_vjp
    def jclip(lo, hi, x):
        return x

    jclip.defvjp(lambda lo, hi, x: (x, (lo, hi)), lambda res, g: (None, None, jnp.clip(g, *res)))

    @ft.custom_vjp
    def clip_gradient(lo, hi, x):
        return x  # identity function

    def clip_gradient_fwd(lo, hi, x):
        return x, (lo, hi)  # save bounds as residuals

    def clip_gradient_bwd(res, g):
        lo, hi = res
        return (None, None, np.clip(g, lo, hi))  # use None to indicate zero cotangents

    clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
    t = np.linspace(0.0, 10.0, 7)
    jg = jax.vmap(jax.grad(lambda x: jclip(-0.75, 0.75, jnp.sin(x))))(t)
    close(ft.vmap(ft.grad(lambda x: clip_gradient(-0.75, 0.75, np.sin(x))))(t), jg)


def test_custom_vjp_f_and_nondiff_argnums():
    @ft.custom_vjp
    def f(x, y):
        return np.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (np.cos(x), np.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)

    f.defvjp(f_fwd, f_bwd)
    close(ft.grad(f)(2.0, 3.0), np.cos(2.0) * 3.0)
    # forward mode through a custom_vjp function: a TypeError, as in JAX
    with pytest.raises(TypeError, match="forward-mode"):
        ft.jvp(f, (2.0, 3.0), (1.0, 0.0))

    @partial(ft.custom_vjp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    def app_fwd(f, x):
        return f(x), x

    def app_bwd(f, x, g):
        return (5 * g,)

    app.defvjp(app_fwd, app_bwd)
    assert ft.grad(lambda x: app(lambda y: y**2, x))(4.0) == 5.0


def test_custom_vjp_fixed_point():
    def fixed_point(xp, custom_vjp, while_loop):
        @partial(custom_vjp, nondiff_argnums=(0,))
        def fp(f, a, x_guess):
            def cond_fun(carry):
                x_prev, x = carry
                return xp.abs(x_prev - x) > 1e-12

            def body_fun(carry):
                _, x = carry
                return x, f(a, x)

            _, x_star = while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
            return x_star

        def fp_fwd(f, a, x_init):
            x_star = fp(f, a, x_init)
            return x_star, (a, x_star)

        def rev_iter(f, packed, u):
            a, x_star, x_star_bar = packed
            _, vjp_x = (jax.vjp if xp is jnp else ft.vjp)(lambda x: f(a, x), x_star)
            return x_star_bar + vjp_x(u)[0]

        def fp_rev(f, res, x_star_bar):
            a, x_star = res
            _, vjp_a = (jax.vjp if xp is jnp else ft.vjp)(lambda a: f(a, x_star), a)
            (a_bar,) = vjp_a(fp(partial(rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
            return a_bar, xp.zeros_like(x_star)

        fp.defvjp(fp_fwd, fp_rev)
        return fp

    def newton_sqrt(xp, fp):
        update = lambda a, x: 0.5 * (x + a / x)
        return lambda a: fp(update, a, a)

    jsqrt = newton_sqrt(jnp, fixed_point(jnp, jax.custom_vjp, jax.lax.while_loop))
    nsqrt = newton_sqrt(np, fixed_point(np, ft.custom_vjp, ft.while_loop))
    close(nsqrt(2.0), jsqrt(2.0))
    close(ft.grad(nsqrt)(2.0), jax.grad(jsqrt)(2.0))
    close(ft.grad(ft.grad(nsqrt))(2.0), jax.grad(jax.grad(jsqrt))(2.0), rtol=1e-8)


def test_checkpoint_cookbook(rng):
    def g(xp, checkpoint):
        def g1(W, x):
            return xp.sin(xp.sin(xp.dot(W, x)))

        def f(W1, W2, W3, x):
            x = checkpoint(g1)(W1, x)
            x = checkpoint(g1)(W2, x)
            x = checkpoint(g1)(W3, x)
            return x

        return f

    W1, W2, W3 = (rng.normal(size=(5, 5)) for _ in range(3))
    x = rng.normal(size=5)
    jf, nf = g(jnp, jax.checkpoint), g(np, ft.checkpoint)
    close(ft.vjp(nf, W1, W2, W3, x)[0], jax.vjp(jf, W1, W2, W3, x)[0])
    close(
        ft.grad(lambda *a: np.sum(nf(*a)), (0, 1, 2, 3))(W1, W2, W3, x),
        jax.grad(lambda *a: jnp.sum(jf(*a)), (0, 1, 2, 3))(W1, W2, W3, x),
    )
    # the decorator form with policy, as jax.checkpoint is used
    pol = partial(ft.checkpoint, policy=ft.checkpoint_policies.nothing_saveable)
    close(
        ft.grad(lambda W: np.sum(pol(g(np, lambda f: f))(W, W2, W3, x)))(W1),
        jax.grad(lambda W: jnp.sum(jf(W, W2, W3, x)))(W1),
    )
    # jax.checkpoint's static_argnums
    h = ft.checkpoint(lambda x, n: x**n, static_argnums=(1,))
    assert ft.grad(h)(2.0, 3) == 12.0


# -- JAX: Automatic vectorization -------------------------------------------------------------


def test_vmap_convolve(rng):
    def convolve(xp):
        def c(x, w):
            output = []
            for i in range(1, len(x) - 1):
                output.append(xp.dot(x[i - 1 : i + 2], w))
            return xp.array(output)

        return c

    x, w = np.arange(5.0), np.array([2.0, 3.0, 4.0])
    xs, ws = np.stack([x, x]), np.stack([w, w])
    jc, nc = convolve(jnp), convolve(np)
    close(ft.vmap(nc)(xs, ws), jax.vmap(jc)(xs, ws))
    close(
        ft.vmap(nc, in_axes=1, out_axes=1)(xs.T, ws.T),
        jax.vmap(jc, in_axes=1, out_axes=1)(xs.T, ws.T),
    )
    close(ft.vmap(nc, in_axes=[0, None])(xs, w), jax.vmap(jc, in_axes=[0, None])(xs, w))
    close(ft.jit(ft.vmap(nc))(xs, ws), jax.vmap(jc)(xs, ws))


def test_vmap_pytrees_and_nesting(rng):
    d = {"a": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    f = lambda d: d["a"] * d["b"]
    close(
        ft.vmap(f, in_axes=({"a": 0, "b": None},))(d),
        jax.vmap(f, in_axes=({"a": 0, "b": None},))(d),
    )
    # out_axes as a pytree
    g = lambda x: (x * 2, {"s": x.sum()})
    X = rng.normal(size=(3, 4))
    close(ft.vmap(g, out_axes=(1, {"s": 0}))(X), jax.vmap(g, out_axes=(1, {"s": 0}))(X))
    # nested vmap: matrix-matrix from vector-vector
    vv = lambda x, y: np.vdot(x, y)
    jvv = lambda x, y: jnp.vdot(x, y)
    A, B = rng.normal(size=(3, 4)), rng.normal(size=(4, 5))
    mv = ft.vmap(vv, (0, None), 0)
    mm = ft.vmap(mv, (None, 1), 1)
    jmm = jax.vmap(jax.vmap(jvv, (0, None), 0), (None, 1), 1)
    close(mm(A, B), jmm(A, B))
    close(mm(A, B), A @ B)
    # batched matrix-vector product
    mats, vecs = rng.normal(size=(6, 3, 4)), rng.normal(size=(6, 4))
    close(ft.vmap(np.dot)(mats, vecs), jax.vmap(jnp.dot)(mats, vecs))
    close(ft.vmap(np.matmul)(mats, vecs), jax.vmap(jnp.matmul)(mats, vecs))
    # axis_size with nothing mapped, out_axes=None for an unbatched output
    close(
        ft.vmap(lambda x: x.sum(), in_axes=None, out_axes=None, axis_size=3)(X),
        jax.vmap(lambda x: x.sum(), in_axes=None, out_axes=None, axis_size=3)(X),
    )


# -- torch.func tutorials, with NumPy models ---------------------------------------------------


def mlp_params(rng, sizes=(4, 8, 3)):
    return [
        {"w": rng.normal(size=(o, i)) / np.sqrt(i), "b": rng.normal(size=o) * 0.1}
        for i, o in zip(sizes[:-1], sizes[1:])
    ]


def make_model(xp):
    def model(params, x):
        for layer in params[:-1]:
            x = xp.tanh(x @ layer["w"].T + layer["b"])
        return x @ params[-1]["w"].T + params[-1]["b"]

    def loss(params, x, t):
        logits = model(params, x)
        logp = (
            logits - jax.scipy.special.logsumexp(logits, -1, keepdims=True)
            if xp is jnp
            else (logits - ft.scipy.special.logsumexp(logits, -1, keepdims=True))
        )
        return -xp.mean(xp.sum(logp * t, axis=-1))

    return model, loss


def test_torch_per_sample_gradients(rng):
    params = mlp_params(rng)
    x = rng.normal(size=(6, 4))
    t = np.eye(3)[rng.integers(0, 3, 6)]
    _, nloss = make_model(np)
    _, jloss = make_model(jnp)

    def compute_loss(params, sample, target):
        return nloss(params, sample[None], target[None])

    def jcompute_loss(params, sample, target):
        return jloss(params, sample[None], target[None])

    ft_compute_grad = ft.grad(compute_loss)
    ft_compute_sample_grad = ft.vmap(ft_compute_grad, in_dims=(None, 0, 0))
    ref = jax.vmap(jax.grad(jcompute_loss), in_axes=(None, 0, 0))(params, x, t)
    close(ft_compute_sample_grad(params, x, t), ref)
    # the loop over examples agrees too
    for i in (0, 5):
        close(ft_compute_grad(params, x[i], t[i]), jax.tree_util.tree_map(lambda a: a[i], ref))
    # chunk_size
    close(ft.vmap(ft_compute_grad, in_dims=(None, 0, 0), chunk_size=4)(params, x, t), ref)


def test_torch_model_ensembling(rng):
    models = [mlp_params(np.random.default_rng(s)) for s in range(4)]
    params = ft.nn.stack_trees(models)
    jparams = jax.tree_util.tree_map(lambda *a: jnp.stack(a), *models)
    close(params, jparams)
    nmodel, _ = make_model(np)
    jmodel, _ = make_model(jnp)
    minibatches = rng.normal(size=(4, 5, 4))
    minibatch = minibatches[0]
    # different minibatch per model
    close(
        ft.vmap(nmodel)(params, minibatches),
        jax.vmap(jmodel)(jparams, minibatches),
    )
    # the same minibatch
    close(
        ft.vmap(nmodel, in_dims=(0, None))(params, minibatch),
        jax.vmap(jmodel, in_axes=(0, None))(jparams, minibatch),
    )
    for i, m in enumerate(models):
        close(ft.vmap(nmodel, in_dims=(0, None))(params, minibatch)[i], nmodel(m, minibatch))
    # unstack back
    close(ft.nn.unstack_tree(params)[2], models[2])


def torch_predict(xp):
    def predict(weight, bias, x):
        return xp.tanh(x @ weight.T + bias)

    return predict


def test_torch_jacobians_hessians(rng):
    D = 5
    weight, bias, x = rng.normal(size=(D, D)), rng.normal(size=D), rng.normal(size=D)
    npred, jpred = torch_predict(np), torch_predict(jnp)
    close(
        ft.jacrev(npred, argnums=2)(weight, bias, x), jax.jacrev(jpred, argnums=2)(weight, bias, x)
    )
    close(
        ft.jacrev(npred, argnums=(0, 1))(weight, bias, x),
        jax.jacrev(jpred, argnums=(0, 1))(weight, bias, x),
    )
    close(
        ft.jacfwd(npred, argnums=2)(weight, bias, x), jax.jacfwd(jpred, argnums=2)(weight, bias, x)
    )
    close(
        ft.jacrev(npred, argnums=2, chunk_size=1)(weight, bias, x),
        jax.jacrev(jpred, argnums=2)(weight, bias, x),
    )
    # batch Jacobian two ways
    xb = rng.normal(size=(16, D))
    ref = jax.vmap(jax.jacrev(jpred, argnums=2), in_axes=(None, None, 0))(weight, bias, xb)
    close(ft.vmap(ft.jacrev(npred, argnums=2), in_dims=(None, None, 0))(weight, bias, xb), ref)

    def predict_with_output_summed(weight, bias, x):
        return npred(weight, bias, x).sum(0)

    bj = ft.jacrev(predict_with_output_summed, argnums=2)(weight, bias, xb)
    assert bj.shape == (D, 16, D)
    close(np.moveaxis(bj, 1, 0), ref)
    # Hessians
    hess = jax.hessian(jpred, argnums=2)(weight, bias, x)
    close(ft.hessian(npred, argnums=2)(weight, bias, x), hess)
    close(ft.jacfwd(ft.jacfwd(npred, argnums=2), argnums=2)(weight, bias, x), hess)
    close(ft.jacrev(ft.jacrev(npred, argnums=2), argnums=2)(weight, bias, x), hess)
    # batch Hessian
    close(
        ft.vmap(ft.hessian(npred, argnums=2), in_dims=(None, None, 0))(weight, bias, xb[:4]),
        jax.vmap(jax.hessian(jpred, argnums=2), in_axes=(None, None, 0))(weight, bias, xb[:4]),
    )


def test_torch_hvp_vhp(rng):
    def f(x):
        return np.sin(x).sum()

    def jf(x):
        return jnp.sin(x).sum()

    x, tangent = rng.normal(size=128), rng.normal(size=128)

    def hvp(f, primals, tangents):
        return ft.jvp(ft.grad(f), primals, tangents)[1]

    def hvp_revrev(f, primals, tangents):
        _, vjp_fn = ft.vjp(ft.grad(f), *primals)
        return vjp_fn(*tangents)

    ref = jax.jvp(jax.grad(jf), (x,), (tangent,))[1]
    close(hvp(f, (x,), (tangent,)), ref)
    (r,) = hvp_revrev(f, (x,), (tangent,))
    close(r, ref)


def test_torch_ntk(rng):
    params = mlp_params(rng, (3, 16, 2))
    nmodel, _ = make_model(np)
    jmodel, _ = make_model(jnp)
    x_train, x_test = rng.normal(size=(6, 3)), rng.normal(size=(5, 3))

    def fnet_single(params, x):
        return nmodel(params, x[None])[0]

    def jfnet_single(params, x):
        return jmodel(params, x[None])[0]

    def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute="full"):
        jac1 = ft.vmap(ft.jacrev(fnet_single), (None, 0))(params, x1)
        jac1 = [
            j.reshape(j.shape[0], j.shape[1], -1)
            for j in ft.tree_map(lambda a: a, ft.nn.tree_leaves(jac1))
        ]
        jac2 = ft.vmap(ft.jacrev(fnet_single), (None, 0))(params, x2)
        jac2 = [j.reshape(j.shape[0], j.shape[1], -1) for j in ft.nn.tree_leaves(jac2)]
        if compute == "full":
            einsum_expr = "Naf,Mbf->NMab"
        elif compute == "trace":
            einsum_expr = "Naf,Maf->NM"
        else:
            einsum_expr = "Naf,Maf->NMa"
        result = np.stack([np.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
        return result.sum(0)

    def jntk(params, x1, x2, expr):
        j1 = jax.vmap(jax.jacrev(jfnet_single), (None, 0))(params, x1)
        j2 = jax.vmap(jax.jacrev(jfnet_single), (None, 0))(params, x2)
        l1 = [j.reshape(j.shape[0], j.shape[1], -1) for j in jax.tree_util.tree_leaves(j1)]
        l2 = [j.reshape(j.shape[0], j.shape[1], -1) for j in jax.tree_util.tree_leaves(j2)]
        return sum(jnp.einsum(expr, a, b) for a, b in zip(l1, l2))

    full = jntk(params, x_train, x_test, "Naf,Mbf->NMab")
    expected = {
        "full": full,
        "trace": np.einsum("NMaa->NM", full),
        "diagonal": np.einsum("NMaa->NMa", full),
    }
    for compute, ref in expected.items():
        close(
            empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, compute),
            ref,
            rtol=1e-9,
        )

    # NTK-vector products: vmap over the identity of output cotangents (torch's method 2)
    def empirical_ntk_ntk_vps(func, params, x1, x2):
        def get_ntk(x1, x2):
            def func_x1(params):
                return func(params, x1)

            def func_x2(params):
                return func(params, x2)

            output, vjp_fn = ft.vjp(func_x1, params)

            def get_ntk_slice(vec):
                (vjps,) = vjp_fn(vec)
                _, jvps = ft.jvp(func_x2, (params,), (vjps,))
                return jvps

            basis = np.eye(output.size, dtype=output.dtype).reshape(output.size, *output.shape)
            return ft.vmap(get_ntk_slice)(basis)

        result = ft.vmap(ft.vmap(get_ntk, (None, 0)), (0, None))(x1, x2)
        return result

    close(empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test), full, rtol=1e-9)


# -- names and arguments a JAX user passes ----------------------------------------------------


def test_jax_names_and_documented_differences(rng):
    W, b, inputs, _ = cookbook_data(rng)
    jpredict, _ = make_cookbook(jnp)
    npredict, _ = make_cookbook(np)
    # jax.jacobian is jacrev
    close(ft.jacobian(npredict, 2)(W, b, inputs), jax.jacobian(jpredict, 2)(W, b, inputs))
    # a selective policy from jax.checkpoint_policies: a clear error naming the fix
    with pytest.raises(ft.errors.UnsupportedOperationError, match="checkpoint smaller pieces"):
        ft.checkpoint(np.sin, policy=ft.checkpoint_policies.dots_saveable)
    with pytest.raises(AttributeError):
        ft.checkpoint_policies.no_such_policy  # noqa: B018
    # argnums as a list: documented ArgnumsError (torch.func's rule)
    with pytest.raises(ft.errors.ArgnumsError, match="tuple"):
        ft.grad(lambda x, y: x * y, argnums=[0, 1])(1.0, 2.0)
    # grad of a non-scalar output: JAX's TypeError, here GradOutputError naming jacrev
    with pytest.raises(ft.errors.GradOutputError, match="jacrev"):
        ft.grad(lambda x: x * 2.0)(np.ones(3))
    with pytest.raises(TypeError):
        ft.grad(lambda x: x * 2.0)(3)


def test_same_array_passed_twice(rng):
    # value_and_grad(f, (0, 1))(x, x): one NumPy object in both positions; each argument
    # gets its own gradient (the product rule's two terms), not x * x's doubled one
    x = rng.normal(size=3)
    f = lambda a, b: np.sum(a * b) + np.sum(np.multiply(b, a) * a)
    jf = lambda a, b: jnp.sum(a * b) + jnp.sum(jnp.multiply(b, a) * a)
    close(ft.value_and_grad(f, (0, 1))(x, x), jax.value_and_grad(jf, (0, 1))(x, x))
    close(ft.jacrev(lambda a, b: a * b, (0, 1))(x, x), jax.jacrev(lambda a, b: a * b, (0, 1))(x, x))
    close(ft.jit(ft.grad(f, (0, 1)))(x, x), jax.grad(jf, (0, 1))(x, x))
    close(ft.hessian(f, (0, 1))(x, x), jax.hessian(jf, (0, 1))(x, x))
    # a genuine square still differentiates to 2 x
    close(ft.grad(lambda a: np.sum(a * a))(x), 2 * x)
