"""Round 11: torch.func users' semantics (PyTorch's functorch tests and torch.func's
tutorials, translated to NumPy arrays and ftransforms' names), each checked against
torch.func's documented behaviour, JAX (x64) or a plain loop / finite differences."""

import copy

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import ModuleStateError, TangentMismatchError


class _Linear:
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.weight = rng.normal(size=(3, 3))
        self.bias = rng.normal(size=3)

    def __call__(self, x):
        return x @ self.weight.T + self.bias


class _TiedNet:  # torch's test module with a tied weight: self.tied is self.l1.weight
    def __init__(self, seed=0):
        self.l1 = _Linear(seed)
        self.tied = self.l1.weight
        self.running = np.zeros(3)

    def __call__(self, x):
        return self.l1(x) + x @ self.tied.T + self.running


def test_functional_call_strict_counts_a_tied_name_as_given_with_its_twin_like_torch():
    # torch unties first (fills in the tied names), then checks strict: the arrays as
    # named_parameters() lists them (each once) are exactly enough
    net = _TiedNet()
    x = np.ones(3)
    params = ft.named_arrays(net)
    assert "tied" not in params
    new = {k: v + 1.0 for k, v in params.items()}
    out = ft.functional_call(net, new, (x,), strict=True)
    w, b = new["l1.weight"], new["l1.bias"]
    assert np.allclose(out, x @ w.T + b + x @ w.T + new["running"])
    # without tying, the tied name is its own array, and strict wants it
    with pytest.raises(ModuleStateError, match=r"missing \['tied'\]") as info:
        ft.functional_call(net, new, (x,), strict=True, tie_weights=False)
    assert isinstance(info.value, RuntimeError)  # torch: RuntimeError "Missing key(s)"
    with pytest.raises(RuntimeError, match=r"unexpected \['nope'\]"):
        ft.functional_call(net, {**new, "nope": x}, (x,), strict=True)
    assert net.l1.weight is net.tied and np.all(net.running == 0)


def test_functional_call_takes_name_array_pairs_like_torch():
    # torch.func.functional_call(model, model.named_parameters(), x)
    net = _TiedNet()
    x = np.arange(3.0)
    pairs = [(k, v * 2) for k, v in ft.named_arrays(net).items()]
    out = ft.functional_call(net, iter(pairs), x)
    expected = ft.functional_call(net, dict(pairs), x)
    assert np.allclose(out, expected)
    g = ft.grad(lambda p: ft.functional_call(net, p.items(), (x,)).sum())(dict(pairs))
    assert np.allclose(g["l1.weight"], 2 * np.outer(np.ones(3), x))  # tied: counted twice
    with pytest.raises(ModuleStateError, match="more than one") as info:
        ft.functional_call(net, [("l1.bias", x), ("l1.bias", x)], x)
    assert isinstance(info.value, ValueError)  # torch: ValueError "appeared multiple times"
    with pytest.raises(ValueError, match="pairs"):
        ft.functional_call(net, [{"l1.bias": x}, ("l1.weight", x)], x)
    with pytest.raises(ValueError, match="got int"):
        ft.functional_call(net, 3, x)


def test_stack_module_state_refuses_models_of_different_classes_like_torch():
    class Other(_Linear):
        pass

    with pytest.raises(ModuleStateError, match="different classes") as info:
        ft.stack_module_state([_Linear(0), Other(1)])
    assert isinstance(info.value, RuntimeError)  # torch: "of the same class"
    with pytest.raises(RuntimeError, match="at least one"):
        ft.stack_module_state([])
    a, b = _Linear(0), _Linear(1)
    a.training, b.training = True, False  # torch: "same training/eval mode"
    with pytest.raises(RuntimeError, match="training"):
        ft.stack_module_state([a, b])
    # one class: the ensembling tutorial, against the loop over the models
    models = [_TiedNet(s) for s in range(3)]
    params, buffers = ft.stack_module_state(models)
    base = copy.deepcopy(models[0])
    xs = np.random.default_rng(5).normal(size=(3, 4, 3))

    def fmodel(params, buffers, x):
        return ft.functional_call(base, (params, buffers), (x,))

    out = ft.vmap(fmodel)(params, buffers, xs)
    assert np.allclose(out, np.stack([m(x) for m, x in zip(models, xs)]))


def test_structure_and_shape_mismatches_are_runtime_errors_like_torch():
    # torch.func: vjp_fn "Expected pytree structure of cotangents ...", jvp "Expected
    # primals and tangents to have the same python structure" are RuntimeErrors
    _, vjp_fn = ft.vjp(lambda x: (x, (x, x)), np.array(1.0))
    with pytest.raises(RuntimeError, match="structure"):
        vjp_fn(((np.array(1.0), (np.array(1.0), np.array(1.0))),))
    with pytest.raises(RuntimeError, match="structure"):
        ft.jvp(lambda a, b: a * b, (np.ones(3), np.ones(3)), (np.ones(3),))
    with pytest.raises(TangentMismatchError, match="shape"):
        ft.jvp(np.sin, (np.ones(3),), (np.ones(4),))
    with pytest.raises(ValueError):  # JAX's type for the same mistake
        ft.jvp(np.sin, (np.ones(3),), (np.ones(4),))


# -- torch.func's tutorials, ported to NumPy + ftransforms, against JAX (x64) ----------


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax, jax.numpy


def _tree_close(a, b, jax):
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    for p, q in zip(la, lb):
        assert np.shape(p) == np.shape(q)
        np.testing.assert_allclose(np.asarray(p), np.asarray(q), rtol=1e-10, atol=1e-12)


def test_jacobians_hessians_hvp_vhp_tutorial_against_closed_forms():
    # the tutorial's predict = tanh(W x + b); its derivatives in closed form (plain NumPy:
    # with y = predict, s = 1 - y**2): d/dx = s W, d/dW[i, j, k] = s_i [i = j] x_k,
    # d/db = diag(s), d2/dx2[i, j, k] = -2 y_i s_i W_ij W_ik
    rng = np.random.default_rng(0)
    D = 4
    weight, bias, x = rng.normal(size=(D, D)), rng.normal(size=D), rng.normal(size=D)
    xb, t = rng.normal(size=(3, D)), rng.normal(size=D)

    def predict(weight, bias, x):
        return np.tanh(x @ weight.T + bias)

    def d_x(x):
        s = 1 - predict(weight, bias, x) ** 2
        return s[:, None] * weight

    def d_wb(x):
        s = 1 - predict(weight, bias, x) ** 2
        return np.einsum("i,ij,k->ijk", s, np.eye(D), x), np.diag(s)

    def d2_x(x):
        y = predict(weight, bias, x)
        return np.einsum("i,ij,ik->ijk", -2 * y * (1 - y**2), weight, weight)

    for jac in (ft.jacrev, ft.jacfwd):
        np.testing.assert_allclose(jac(predict, argnums=2)(weight, bias, x), d_x(x))
        for got, want in zip(jac(predict, argnums=(0, 1))(weight, bias, x), d_wb(x)):
            np.testing.assert_allclose(got, want, atol=1e-15)
        got_x, got_w = jac(predict, argnums=(-1, 0))(weight, bias, x)
        np.testing.assert_allclose(got_x, d_x(x))
        np.testing.assert_allclose(got_w, d_wb(x)[0], atol=1e-15)
    np.testing.assert_allclose(ft.hessian(predict, argnums=2)(weight, bias, x), d2_x(x))
    # batch Jacobian two ways: vmap(jacrev), jacrev of the sum over the batch
    want = np.stack([d_x(r) for r in xb])
    got = ft.vmap(ft.jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, xb)
    np.testing.assert_allclose(got, want)
    summed = ft.jacrev(lambda w, b, x: predict(w, b, x).sum(0), argnums=2)(weight, bias, xb)
    np.testing.assert_allclose(np.moveaxis(summed, 1, 0), want)
    got = ft.vmap(ft.hessian(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, xb)
    np.testing.assert_allclose(got, np.stack([d2_x(r) for r in xb]))

    # hvp of f = sum(x sin x), whose Hessian is diag(2 cos x - x sin x): forward-over-
    # reverse, reverse-over-reverse (vhp), and the Hessian times t
    def f(x):
        return (np.sin(x) * x).sum()

    want = (2 * np.cos(x) - x * np.sin(x)) * t
    np.testing.assert_allclose(ft.jvp(ft.grad(f), (x,), (t,))[1], want)
    np.testing.assert_allclose(ft.vjp(ft.grad(f), x)[1](t)[0], want)
    np.testing.assert_allclose(ft.hessian(f)(x) @ t, want)


class _TwoLayer:
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.fc1 = {"W": rng.normal(size=(6, 5)) * 0.5, "b": rng.normal(size=6) * 0.1}
        self.fc2 = {"W": rng.normal(size=(3, 6)) * 0.5, "b": rng.normal(size=3) * 0.1}

    def __call__(self, x):
        h = np.tanh(x @ self.fc1["W"].T + self.fc1["b"])
        logits = h @ self.fc2["W"].T + self.fc2["b"]
        m = logits.max(-1, keepdims=True)
        return logits - m - np.log(np.exp(logits - m).sum(-1, keepdims=True))


def _jax_two_layer(jnp, p, x):
    h = jnp.tanh(x @ p["fc1.W"].T + p["fc1.b"])
    logits = h @ p["fc2.W"].T + p["fc2.b"]
    return logits - jnp.log(jnp.exp(logits).sum(-1, keepdims=True))


def test_per_sample_grads_tutorial_like_jax():
    # compute_loss(params, buffers, sample, target): sample[None], functional_call, nll
    jax, jnp = _jax()
    rng = np.random.default_rng(1)
    model = _TwoLayer(0)
    params = ft.named_arrays(model)
    data, targets = rng.normal(size=(6, 5)), rng.integers(0, 3, size=6)

    def compute_loss(params, buffers, sample, target):
        pred = ft.functional_call(model, (params, buffers), (sample[None],))
        return -pred[np.arange(1), target[None]].mean()

    grads = ft.vmap(ft.grad(compute_loss), in_dims=(None, None, 0, 0))(params, {}, data, targets)

    def jloss(p, s, t):
        return -_jax_two_layer(jnp, p, s)[t]

    expected = jax.jit(jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0)))(params, data, targets)
    _tree_close(grads, expected, jax)
    loop = [ft.grad(compute_loss)(params, {}, s, t) for s, t in zip(data, targets)]
    for k in params:
        np.testing.assert_allclose(grads[k], np.stack([g[k] for g in loop]), rtol=1e-12)


def test_model_ensembling_tutorial_against_the_loop_over_models():
    models = [_TwoLayer(s) for s in range(4)]
    params, buffers = ft.stack_module_state(models)
    assert sorted(params) == ["fc1.W", "fc1.b", "fc2.W", "fc2.b"] and buffers == {}
    base = copy.deepcopy(models[0])

    def fmodel(params, buffers, x):
        return ft.functional_call(base, (params, buffers), (x,))

    rng = np.random.default_rng(2)
    minibatch = rng.normal(size=(7, 5))
    minibatches = rng.normal(size=(4, 7, 5))
    same = ft.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
    diff = ft.vmap(fmodel)(params, buffers, minibatches)
    np.testing.assert_allclose(same, np.stack([m(minibatch) for m in models]), rtol=1e-12)
    np.testing.assert_allclose(
        diff, np.stack([m(x) for m, x in zip(models, minibatches)]), rtol=1e-12
    )
    assert all(type(v) is np.ndarray for v in ft.named_arrays(base).values())


def test_neural_tangent_kernel_tutorial_against_differences():
    model = _TwoLayer(3)
    params = ft.named_arrays(model)
    rng = np.random.default_rng(3)
    x1, x2 = rng.normal(size=(3, 5)), rng.normal(size=(2, 5))

    def fnet_single(params, x):
        return ft.functional_call(model, params, (x[None],))[0]

    def ntk_jacobian_contraction(x1, x2):
        jac1 = ft.vmap(ft.jacrev(fnet_single), (None, 0))(params, x1)
        jac2 = ft.vmap(ft.jacrev(fnet_single), (None, 0))(params, x2)
        return sum(
            np.einsum("Naf,Mbf->NMab", jac1[k].reshape(3, 3, -1), jac2[k].reshape(2, 3, -1))
            for k in params
        )

    def ntk_vps(x1, x2):
        def get_ntk(x1, x2):
            out, vjp_fn = ft.vjp(lambda p: fnet_single(p, x1), params)

            def get_ntk_slice(vec):
                (vjps,) = vjp_fn(vec)
                return ft.jvp(lambda p: fnet_single(p, x2), (params,), (vjps,))[1]

            return ft.vmap(get_ntk_slice)(np.eye(out.size))

        return ft.vmap(ft.vmap(get_ntk, (None, 0)), (0, None))(x1, x2)

    # oracle: the Jacobians by central differences over every parameter (float64)
    flat = np.concatenate([params[k].ravel() for k in params])

    def outputs(theta, x):
        pieces, start = {}, 0
        for k, v in params.items():
            pieces[k] = theta[start : start + v.size].reshape(v.shape)
            start += v.size
        return ft.functional_call(model, pieces, (x,))

    h = 1e-6
    steps = np.eye(flat.size) * h
    j1, j2 = (
        np.stack([(outputs(flat + e, x) - outputs(flat - e, x)) / (2 * h) for e in steps], -1)
        for x in (x1, x2)
    )
    expected = np.einsum("Naf,Mbf->NMab", j1, j2)
    np.testing.assert_allclose(ntk_jacobian_contraction(x1, x2), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ntk_vps(x1, x2), expected, rtol=1e-6, atol=1e-8)


def test_out_dims_out_of_range_is_an_index_error_like_torch():
    # torch.func's test_out_dim_out_of_bounds_err_msg: IndexError "Dimension out of range"
    x = np.ones((2, 3, 5))
    for out_dims in (3, -4):
        with pytest.raises(IndexError, match="out of range"):
            ft.vmap(lambda x: x, out_dims=out_dims)(x)
    with pytest.raises(ValueError):  # JAX's type
        ft.vmap(lambda x: x, out_dims=3)(x)
    # and the in-range ones move the batch axis as torch's tests say
    y = np.random.default_rng(0).normal(size=(2, 3, 5, 7))
    out = ft.vmap(lambda y: ft.vmap(lambda x: x, out_dims=-1)(y), out_dims=-1)(y)
    np.testing.assert_array_equal(out, y.transpose(2, 3, 1, 0))
    r0, r1, r2, r3 = ft.vmap(lambda a, b: (a, a, a, a * b), out_dims=(-1, 0, 1, 2))(x, x)
    assert (r0.shape, r1.shape, r2.shape, r3.shape) == ((3, 5, 2), (2, 3, 5), (3, 2, 5), (3, 5, 2))


def test_a_random_draw_under_jacfwd_names_jacfwd_and_its_randomness_setting():
    # torch.func: jacfwd(f, randomness='error') raises for a random op like vmap does; the
    # message names jacfwd (it named an internal function, "vmap(push, ...)")
    rng = np.random.default_rng(0)

    def f(v):
        return v * rng.normal(size=3)

    with pytest.raises(RuntimeError, match=r"^vmap\(jacfwd\(f\), in_dims=0\): .*randomness"):
        ft.jacfwd(f)(np.ones(3))
    with pytest.raises(ft.errors.RandomnessError, match=r"jacfwd\(<lambda>\)"):
        ft.hessian(lambda v: f(v).sum())(np.ones(3))
    jac = ft.jacfwd(f, randomness="same")(np.ones(3))
    assert np.count_nonzero(jac - np.diag(np.diag(jac))) == 0  # one draw, on the diagonal


class _Noisy:
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def __call__(self, mean):
        return self.rng.normal(mean, 1.0)  # torch.normal(mean, 1.0)


def test_a_held_generator_given_a_traced_parameter_is_a_random_op_like_torch():
    # torch.func: vmap(lambda m: torch.normal(m, 1.0))(means) raises the randomness error
    # (default 'error'); NumPy's rng.normal(loc=t) converted t to float64 and raised
    # "numpy.array(..., dtype=float64) ... use fnp.array", which is no randomness error
    rng = np.random.default_rng(0)
    means = np.arange(3.0)
    with pytest.raises(RuntimeError, match=r"^vmap\(<lambda>, in_dims=0\): rng\.normal\(\.\.\.\)"):
        ft.vmap(lambda m: rng.normal(loc=m))(means)
    with pytest.raises(ft.errors.RandomnessError, match=r"self\.rng\.normal.*randomness="):
        ft.vmap(_Noisy())(means)
    with pytest.raises(ft.errors.RandomnessError, match=r"jacfwd"):
        ft.jacfwd(lambda m: rng.uniform(m, m + 1.0))(means)
    assert current_stack() == ()  # the interpreter stack is clean after the error
    # other modes, and grad: NumPy's generator cannot take the tracer; the error names the
    # forms that work
    for run in (
        lambda: ft.vmap(lambda m: rng.normal(loc=m), randomness="different")(means),
        lambda: ft.grad(lambda m: rng.normal(loc=m).sum())(means),
    ):
        with pytest.raises(ft.errors.TracerConversionError, match=r"ft\.random\.normal\(rng"):
            run()
    # ... and those forms work: the noise drawn alone follows the loop over the rows
    state = copy.deepcopy(rng.bit_generator.state)
    out = ft.vmap(lambda m: m + rng.standard_normal(np.shape(m)), randomness="different")(means)
    rng.bit_generator.state = state
    np.testing.assert_array_equal(out, [m + rng.standard_normal(()) for m in means])
    assert ft.vmap(lambda m: ft.random.normal(rng, loc=m), randomness="same")(means).shape == (3,)


@pytest.mark.parametrize("jac", [ft.jacrev, ft.jacfwd])
def test_jacobians_with_no_output_or_no_input_leaves_are_empty_trees(jac):
    # torch.func's test_outputs_can_any_pytree/test_empty_output: an output with no arrays
    # (None, ()) has a Jacobian of no blocks; jacrev raised "vmap(...): no argument is
    # batched" (its vmap over zero output basis vectors), jacfwd the same for no inputs
    x = np.arange(3.0)
    assert jac(lambda a: ())(x) == ()
    assert jac(lambda a: None)(x) is None
    assert jac(lambda a, b: {"u": (), "v": None}, argnums=(0, 1))(x, x) == {"u": (), "v": None}
    out, aux = jac(lambda a: ((), np.sin(a)), has_aux=True)(x)
    assert out == () and np.allclose(aux, np.sin(x))
    # no input leaves: per output leaf the (empty) input structure
    assert jac(lambda d, y: {"a": y * 2.0, "b": ()}, argnums=0)({}, x) == {"a": {}, "b": ()}
    assert jac(lambda d: np.sin(x))({}) == {}


def test_binary_cross_entropy_with_logits_takes_torchs_pos_weight():
    # F.binary_cross_entropy_with_logits(x, y, weight, reduction=..., pos_weight=p):
    # -w (p y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))); pos_weight was refused
    from ftransforms import nn

    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(5, 3)) * 3, rng.uniform(size=(5, 3))
    p, w = np.array([0.5, 2.0, 3.0]), rng.uniform(size=(5, 3))
    sig = 1.0 / (1.0 + np.exp(-x))
    ref = -w * (p * y * np.log(sig) + (1 - y) * np.log(1 - sig))
    got = nn.binary_cross_entropy_with_logits(x, y, w, reduction="none", pos_weight=p)
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    loss = lambda x: nn.binary_cross_entropy_with_logits(x, y, w, pos_weight=p)  # noqa: E731
    g, h = ft.grad(loss)(x), 1e-6
    e = np.zeros_like(x)
    e[2, 1] = h
    np.testing.assert_allclose(g[2, 1], (loss(x + e) - loss(x - e)) / (2 * h), rtol=1e-6)
    # finite for huge logits, as without pos_weight
    big = nn.binary_cross_entropy_with_logits(np.array([1e4, -1e4]), np.ones(2), pos_weight=2.0)
    assert np.isfinite(big)


def test_adaptive_avg_pool2d_with_sizes_that_do_not_divide_like_torch():
    # torch's bins: rows floor(i H / oh) .. ceil((i + 1) H / oh); raised NotImplementedError
    from ftransforms import nn

    x = np.random.default_rng(6).normal(size=(2, 3, 7, 5))

    def reference(x, oh, ow):
        H, W = x.shape[-2:]
        out = np.zeros(x.shape[:-2] + (oh, ow))
        for i in range(oh):
            for j in range(ow):
                h0, h1 = (i * H) // oh, -(-((i + 1) * H) // oh)
                w0, w1 = (j * W) // ow, -(-((j + 1) * W) // ow)
                out[..., i, j] = x[..., h0:h1, w0:w1].mean((-2, -1))
        return out

    for size in ((3, 2), (4, 4), (7, 3), 2):
        oh, ow = (size, size) if isinstance(size, int) else size
        np.testing.assert_allclose(nn.adaptive_avg_pool2d(x, size), reference(x, oh, ow))
    # per-sample under vmap, and its gradient against differences
    loss = lambda x: (nn.adaptive_avg_pool2d(x, (3, 2)) ** 2).sum()  # noqa: E731
    per = ft.vmap(ft.grad(loss))(x)
    e, h = np.zeros_like(x[0]), 1e-6
    e[1, 4, 2] = h
    np.testing.assert_allclose(per[0][1, 4, 2], (loss(x[0] + e) - loss(x[0] - e)) / (2 * h))
    assert nn.adaptive_avg_pool2d(x.astype(np.float32), (3, 2)).dtype == np.float32


def test_softmax_and_log_softmax_take_torchs_dim_keyword():
    # F.softmax(x, dim=0) / F.log_softmax(x, dim=0): raised "unexpected keyword 'dim'"
    from ftransforms import nn

    x = np.random.default_rng(7).normal(size=(3, 4))
    e = np.exp(x - x.max(0))
    np.testing.assert_allclose(nn.softmax(x, dim=0), e / e.sum(0))
    np.testing.assert_allclose(nn.log_softmax(x, dim=0), np.log(e / e.sum(0)))
    np.testing.assert_allclose(nn.softmax(x, dim=-1), nn.softmax(x))
    g = ft.vmap(ft.grad(lambda r: nn.log_softmax(r, dim=0)[1]))(x)
    np.testing.assert_allclose(g, np.eye(4)[1] - nn.softmax(x, dim=1))
    with pytest.raises(TypeError, match="not both"):
        nn.softmax(x, 0, dim=1)
