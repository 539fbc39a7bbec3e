"""Published programs, round eight: programs run unchanged, with their authors' import
lines (``import numpy as np``; ``jax``/``autograd`` replaced by ``ftransforms``).

Each program lives in its own module under ``tests/published8/`` with its bodies
verbatim, plotting and data files left out. Sizes and iteration counts are shrunk.

Programs: HIPS autograd's ``bayesian_optimization.py``; Saito's "Deep Learning from
Scratch" (``common/``'s layers with hand-written backward passes, im2col/col2im, the
optimizers; ch07's ``SimpleConvNet``; ``MultiLayerNetExtend`` with batch norm and
dropout); Linder-Norén's "Machine Learning From Scratch" ``deep_learning`` layers
(``Conv2D`` by fancy-index im2col and ``np.add.at``, a vanilla ``RNN`` with BPTT, batch
norm, activations, losses) and a small network's training step; Jay Mody's picoGPT
(``gpt2.py``: GPT-2's forward pass and greedy ``generate``); JAX's notebook
"Autobatching log-densities" (``vmapped_log_probs``); the ``rmsd`` package's Kabsch and
quaternion RMSDs; scikit-image's ``structural_similarity``, ``richardson_lucy`` and
``wiener``; PythonRobotics' ICP matching; Rougier's "100 NumPy exercises" (the answers
that define functions).

Oracles: the programs' own hand-written gradients, float64 central differences, Python
loops for ``vmap``, plain NumPy/SciPy for values.  Where a program's own backward pass is
not the derivative of its forward pass, the test says so and checks ours against
differences: Deep Learning from Scratch's ``SoftmaxWithLoss.backward`` leaves out
``cross_entropy_error``'s ``log(y + 1e-7)`` (about 1e-6 apart), Machine Learning From
Scratch's ``RNN`` input gradient keeps only the path through output ``t``, its
``UpSampling2D`` backward subsamples where the adjoint of ``repeat`` sums, and its pooling
layers' ``backward_pass`` raises (``column_to_image(..., 0)``); scikit-image's SSIM
``gradient=True`` leaves out the sample covariance's ``NP / (NP - 1)`` (exact with
``use_sample_covariance=False``).

What this round found and fixed (each has a test here):

* a SciPy module imported while a transform runs (``from scipy.spatial.distance import
  pdist`` inside the function, or ``import scipy`` at the top and ``scipy.linalg.expm(t)``
  / ``scipy.special.logsumexp(t)`` inside, which SciPy imports lazily) kept SciPy's own
  functions for that call: the first call raised ``TracerConversionError`` and the
  second worked.  Such a module is now patched as soon as it has run (NOTE [SciPy modules
  imported while a transform runs] in ``ftransforms/scipy/own_names.py``);
* a ``scipy.stats`` distribution that ``ftransforms.scipy.stats`` lacked (``skewnorm``,
  ``genextreme``, ``zipf``, ... 72 continuous and most discrete ones then) with a traced shape
  parameter computed on object arrays and failed deep inside SciPy with NumPy's
  ``TypeError`` (``ufunc 'isfinite' not supported``), or a ``RecursionError``: its
  density, probability and moment methods now raise ``TracerConversionError`` naming the
  method and the fix, as with a traced ``x`` or ``loc`` (NOTE [SciPy's Python functions
  on tracers]);
* ``t.view(np.ndarray)`` / ``t.view(type=np.ndarray)`` of a traced array (library code's
  way to drop a subclass) raised "reinterpreting an array's bits as another dtype" (NumPy
  reads ``np.dtype(np.ndarray)`` as ``object``): it is a plain view, as ``t.view()``; a
  view as another ndarray subclass (#85's ``.view(Symetric)``) is refused with an error
  that names the subclass;
* ``scipy.stats.pearsonr`` of a traced array failed inside SciPy with an
  ``AttributeError``: ``ftransforms.scipy.stats.pearsonr`` (new, with SciPy's signature,
  its p-values and ``confidence_interval``) answers it;

* autograd's ``grad``/``value_and_grad`` differentiate an output of one element of any
  shape (bayesian_optimization.py's acquisition returns shape ``(1,)``), which ``ft.grad``
  refuses as JAX does: ``ftransforms.autograd_compat`` now has autograd's ``grad`` and
  ``value_and_grad`` (NOTE [autograd's size-one outputs]).
"""

from __future__ import annotations

import copy
import sys
import warnings
from collections import OrderedDict

import numpy as np
import optree
import pytest
import scipy.optimize
import scipy.stats

import ftransforms as ft
from tests.published8 import (
    autograd_bayesian_optimization,
    charnley_rmsd,
    dlfs_common,
    dlfs_multi_layer_net_extend,
    dlfs_simple_convnet,
    jax_vmapped_log_probs,
    mlfs_deep_learning,
    picogpt_gpt2,
    pythonrobotics_icp,
    rougier_numpy100,
    skimage_ssim_deconvolution,
)
from tests.tolerances import FD_TOL, assert_tree_close, tol

TOL = tol(np.float64)


def close(actual, expected, tolerance=TOL, msg=""):
    """``actual`` (what a transform or program returned) is ``expected`` to ``tolerance``."""
    assert_tree_close(actual, optree.tree_map(np.asarray, expected), err_msg=msg, **tolerance)


def fd_jacobian(f, x, eps=1e-3):
    """4th-order central differences in float64 of ``f`` at ``x``."""
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        at = lambda v: np.asarray(f(v), dtype=np.float64)  # noqa: E731
        cols.append((-at(x + 2 * e) + 8 * at(x + e) - 8 * at(x - e) + at(x - 2 * e)) / (12 * eps))
    out = np.stack(cols, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


@pytest.fixture
def rng():
    return np.random.default_rng(8)


# ======================================================================================
# 1. autograd's bayesian_optimization.py: scipy.optimize.minimize(value_and_grad(f),
#    jac=True) of a shape-(1,) acquisition and of the GP's marginal likelihood; every
#    (value, gradient) the optimizer got against plain SciPy values and differences
# ======================================================================================


def test_autograd_bayesian_optimization(monkeypatch, capsys):
    m = autograd_bayesian_optimization
    calls = []

    def recording_minimize(fun, x0, *args, **kwargs):
        calls.append((fun, np.array(x0, dtype=float), kwargs["method"]))
        if kwargs["method"] == "L-BFGS-B":  # shrunk: 2 iterations per start, not 10
            kwargs["options"] = {"maxiter": 2}
        return scipy.optimize.minimize(fun, x0, *args, **kwargs)

    monkeypatch.setattr(m, "minimize", recording_minimize)
    steps = []

    def callback(X, y, predict_func, acquisition_function, next_point, new_value):
        steps.append((X, y, predict_func, acquisition_function))

    lo, hi = np.array([0.0]), np.array([1.1])
    best_x, best_y = m.bayesian_optimize(m.example_function, lo, hi, num_iters=3, callback=callback)
    assert capsys.readouterr().out.count("Optimizing model parameters...") == 1
    X, y = steps[-1][0], steps[-1][1]
    assert X.shape == (4, 1) and np.all((lo <= X) & (X <= hi))
    close(y, np.array([np.sum(x * np.sin(10.0 * x) + x) - 1 for x in X]))
    close(best_y, y.max())
    assert [c[2] for c in calls].count("CG") == 1 and len(calls) == 1 + 3 * 15

    # the acquisition's (value, gradient) as the optimizer saw them: autograd's shape-(1,)
    # value, SciPy's expected-improvement formula, and differences
    for fun, x0, method in calls[:2] + calls[-2:]:
        value, g = fun(x0)
        close(g, fd_jacobian(lambda x: np.reshape(fun(x)[0], ()), x0, eps=1e-4), FD_TOL)
        if method == "L-BFGS-B":
            assert value.shape == (1,) and g.shape == (1,)
    _, _, predict_func, acquisition_function = steps[-1]
    xs = np.array([[0.1], [0.7]])
    mean, std = predict_func(xs)
    ymax = y[:-1].max()
    norm = scipy.stats.norm
    expected = ymax - (mean - ymax) * norm.cdf(mean, ymax, std) + std * norm.pdf(mean, ymax, std)
    close(np.concatenate([acquisition_function(x) for x in xs]), expected)
    # the GP's objective, minimised by CG from zeros: its gradient against differences
    cg_fun, cg_x0, _ = next(c for c in calls if c[2] == "CG")
    for p in (cg_x0, cg_x0 + 0.3):
        value, g = cg_fun(p)
        assert np.ndim(value) == 0
        close(g, fd_jacobian(lambda q: cg_fun(q)[0], p), {"rtol": 1e-6, "atol": 1e-7})


def test_autograd_compat_grad_takes_outputs_of_one_element(rng):
    from ftransforms.autograd_compat import grad, value_and_grad

    x = rng.normal(size=3)

    def f(x):
        return np.sin(x[:1]) * np.sum(x**2, keepdims=True)[None]  # shape (1, 1)

    value, g = value_and_grad(f)(x)
    assert value.shape == (1, 1)
    close(value, np.sin(x[:1])[None] * np.sum(x**2))
    close(g, fd_jacobian(lambda v: f(v).reshape(()), x), FD_TOL)
    close(grad(f)(x), g)
    # argnum as autograd's: a tuple gives a tuple; second derivatives; under vmap and jit
    gx, gy = grad(lambda a, b: (a * b)[:1], argnum=(0, 1))(x, 2 * x)
    close((gx, gy), (np.r_[2 * x[0], 0.0, 0.0], np.r_[x[0], 0.0, 0.0]))
    close(grad(grad(lambda s: np.sin(s)))(0.3), -np.sin(0.3))
    X = rng.normal(size=(4, 3))
    close(ft.vmap(grad(f))(X), np.stack([grad(f)(r) for r in X]))
    close(ft.jit(value_and_grad(f))(X[0]), value_and_grad(f)(X[0]))
    # a scalar output is a scalar, as ft.grad's
    assert np.ndim(value_and_grad(lambda v: np.sum(v))(x)[0]) == 0
    with pytest.raises(ft.errors.GradOutputError, match=r"^value_and_grad\(<lambda>, argnum=0\)"):
        grad(lambda v: v * 2)(x)
    with pytest.raises(ft.errors.GradOutputError, match="dtype"):
        grad(lambda v: v[:1].astype(np.int64))(x)
    with pytest.raises(ft.errors.ArgnumsError):
        grad(f, argnum=1)(x)
    close(grad(f)(x), g)  # the stack is clean after the errors


# ======================================================================================
# 2. "Deep Learning from Scratch": the layer classes' hand-written backward passes
#    (Convolution by im2col/col2im with stride and padding, Pooling by argmax,
#    BatchNormalization, Relu by a masked write) against ft.vjp of their forward passes
# ======================================================================================


def test_dlfs_layers_backward(rng):
    c = dlfs_common
    x, W, b = rng.normal(size=(2, 2, 5, 5)), rng.normal(size=(3, 2, 3, 3)), rng.normal(size=3)
    conv = c.Convolution(W, b, stride=2, pad=1)
    out = conv.forward(x)
    dout = rng.normal(size=out.shape)
    dx = conv.backward(dout)

    def conv_forward(x, W, b):
        return c.Convolution(W, b, stride=2, pad=1).forward(x)

    value, vjp_fn = ft.vjp(conv_forward, x, W, b)
    close(value, out)
    close(vjp_fn(dout), (dx, conv.dW, conv.db))
    tx = rng.normal(size=x.shape)
    close(
        ft.jvp(lambda x: conv_forward(x, W, b), (x,), (tx,))[1],
        fd_jacobian(lambda s: conv_forward(x + s * tx, W, b), 0.0),
        FD_TOL,
    )
    X = rng.normal(size=(3, 1, 2, 5, 5))  # vmap over mini-batches of one image
    close(
        ft.vmap(conv_forward, in_dims=(0, None, None))(X, W, b),
        np.stack([conv_forward(xi, W, b) for xi in X]),
    )
    # im2col's adjoint is col2im
    cols = c.im2col(x, 3, 3, 2, 1)
    dcol = rng.normal(size=cols.shape)
    close(
        ft.vjp(lambda x: c.im2col(x, 3, 3, 2, 1), x)[1](dcol)[0],
        c.col2im(dcol, x.shape, 3, 3, 2, 1),
    )

    pool = c.Pooling(2, 2, stride=2)
    xp = rng.normal(size=(2, 3, 4, 4))
    out = pool.forward(xp)
    dout = rng.normal(size=out.shape)
    value, vjp_fn = ft.vjp(lambda x: c.Pooling(2, 2, stride=2).forward(x), xp)
    close(value, out)
    close(vjp_fn(dout)[0], pool.backward(dout))

    bn = c.BatchNormalization(rng.normal(size=4), rng.normal(size=4))
    xb = rng.normal(size=(6, 4))
    out = bn.forward(xb)
    dout = rng.normal(size=out.shape)
    dxb = bn.backward(dout)
    value, vjp_fn = ft.vjp(
        lambda x, g, be: c.BatchNormalization(g, be).forward(x), xb, bn.gamma, bn.beta
    )
    close(value, out)
    close(vjp_fn(dout), (dxb, bn.dgamma, bn.dbeta))

    relu = c.Relu()
    xr = rng.normal(size=(3, 4))
    out = relu.forward(xr)
    dout = rng.normal(size=(3, 4))
    value, vjp_fn = ft.vjp(lambda x: c.Relu().forward(x), xr)
    close(value, out)
    close(vjp_fn(dout)[0], relu.backward(dout.copy()))
    close(ft.vmap(lambda x: c.Relu().forward(x))(xr), np.maximum(xr, 0))  # per-row masks


# ======================================================================================
# 3. "Deep Learning from Scratch"'s SimpleConvNet (ch07) and MultiLayerNetExtend (batch
#    norm, dropout, weight decay): ft.grad of net.loss equals the book's gradient (its
#    backprop leaves out cross_entropy_error's log(y + 1e-7): about 1e-6 apart) and its
#    numerical_gradient; vmap over mini-batches and over an ensemble; jit
# ======================================================================================


def _with_params(net, params):
    """A copy of ``net`` whose layers use ``params``, as the book's ``load_params`` sets
    them (copies, so that the layers' saved inputs stay out of ``net``)."""
    other = copy.copy(net)
    other.params = dict(params)
    other.layers = OrderedDict((k, copy.copy(v)) for k, v in net.layers.items())
    other.last_layer = copy.copy(net.last_layer)
    for key, layer in other.layers.items():
        for prefix, names in (
            ("Conv", ("W", "b")),
            ("Affine", ("W", "b")),
            ("BatchNorm", ("gamma", "beta")),
        ):
            if key.startswith(prefix):
                i = int(key[len(prefix) :])
                if isinstance(net, dlfs_simple_convnet.SimpleConvNet) and prefix == "Affine":
                    i += 1  # SimpleConvNet's Conv1/Affine1/Affine2 use W1/W2/W3
                for name in names:
                    setattr(layer, name, other.params[name + str(i)])
    return other


BACKPROP_EPS = {"rtol": 1e-5, "atol": 2e-6}  # the book's backprop leaves out the 1e-7


def test_dlfs_simple_convnet(rng):
    np.random.seed(0)
    net = dlfs_simple_convnet.SimpleConvNet(
        input_dim=(2, 6, 6),
        conv_param={"filter_num": 3, "filter_size": 3, "pad": 0, "stride": 1},
        hidden_size=5,
        output_size=3,
        weight_init_std=0.3,
    )
    x, t = rng.normal(size=(4, 2, 6, 6)), np.array([0, 2, 1, 2])

    def loss_of(params, x, t):
        return _with_params(net, params).loss(x, t)

    close(loss_of(net.params, x, t), net.loss(x, t))
    g = ft.grad(loss_of)(net.params, x, t)
    close(g, net.gradient(x, t), BACKPROP_EPS)
    close(g, net.numerical_gradient(x, t), {"rtol": 1e-6, "atol": 1e-8})
    X = rng.normal(size=(3, 4, 2, 6, 6))
    close(
        ft.vmap(ft.grad(loss_of), in_dims=(None, 0, None))(net.params, X, t),
        optree.tree_map(lambda *v: np.stack(v), *[ft.grad(loss_of)(net.params, xi, t) for xi in X]),
    )
    P = {
        k: np.stack([v + 0.1 * rng.normal(size=v.shape) for _ in range(3)])
        for k, v in net.params.items()
    }
    close(
        ft.vmap(loss_of, in_dims=(0, None, None))(P, x, t),
        np.array([loss_of({k: v[i] for k, v in P.items()}, x, t) for i in range(3)]),
    )
    jitted = ft.jit(loss_of)
    for xi in (x, X[0], X[1]):
        close(jitted(net.params, xi, t), net.loss(xi, t))


def test_dlfs_multi_layer_net_extend(rng):
    np.random.seed(1)
    net = dlfs_multi_layer_net_extend.MultiLayerNetExtend(
        6,
        [5, 4],
        3,
        weight_decay_lambda=0.1,
        use_dropout=True,
        dropout_ration=0.3,
        use_batchnorm=True,
    )
    x, t = rng.normal(size=(8, 6)), np.eye(3)[rng.integers(0, 3, 8)]

    def loss_of(params, x, t):
        np.random.seed(5)  # the same dropout masks in every call
        return _with_params(net, params).loss(x, t, train_flg=True)

    g = ft.grad(loss_of)(net.params, x, t)
    np.random.seed(5)
    close(g, net.gradient(x, t), BACKPROP_EPS)
    assert set(g) == {"W1", "b1", "gamma1", "beta1", "W2", "b2", "gamma2", "beta2", "W3", "b3"}
    X = rng.normal(size=(2, 8, 6))
    close(  # every call seeds numpy.random alike: one draw for the batch is the loop's
        ft.vmap(ft.grad(loss_of), in_dims=(None, 0, None), randomness="same")(net.params, X, t),
        optree.tree_map(lambda *v: np.stack(v), *[ft.grad(loss_of)(net.params, xi, t) for xi in X]),
    )
    # the network's own layers kept their plain running statistics (from net.gradient)
    assert type(net.layers["BatchNorm1"].running_mean) is np.ndarray


# ======================================================================================
# 4. "Deep Learning from Scratch"'s optimizers (ch06/optimizer_compare_naive.py's loop):
#    trajectories with ft.grad equal those with the hand-written df; the gradient of
#    the final loss in the starting point through 30 in-place updates, against differences
# ======================================================================================


def test_dlfs_optimizers_unrolled():
    c = dlfs_common

    def f(x, y):
        return x**2 / 20.0 + y**2

    def df(x, y):
        return x / 10.0, 2.0 * y

    def run(optimizer, gradient, x0, y0):
        params, grads = {}, {}
        params["x"], params["y"] = x0, y0
        history = []
        for _ in range(30):
            history.append((params["x"], params["y"]))
            grads["x"], grads["y"] = gradient(params["x"], params["y"])
            optimizer.update(params, grads)
        return f(params["x"], params["y"]), np.array(history, dtype=float)

    makers = {
        "SGD": lambda: c.SGD(lr=0.95),
        "Momentum": lambda: c.Momentum(lr=0.1),
        "Nesterov": lambda: c.Nesterov(lr=0.1),
        "AdaGrad": lambda: c.AdaGrad(lr=1.5),
        "RMSprop": lambda: c.RMSprop(lr=0.3),
        "Adam": lambda: c.Adam(lr=0.3),
    }
    for name, make in makers.items():
        close(
            run(make(), ft.grad(f, argnums=(0, 1)), -7.0, 2.0), run(make(), df, -7.0, 2.0), msg=name
        )
        meta = ft.grad(lambda p: run(make(), df, p[0], p[1])[0])(np.array([-7.0, 2.0]))
        fd = fd_jacobian(lambda p: run(make(), df, p[0], p[1])[0], np.array([-7.0, 2.0]), eps=1e-4)
        close(meta, fd, {"rtol": 1e-6, "atol": 1e-9}, msg=name)


# ======================================================================================
# 5. "Machine Learning From Scratch"'s deep_learning layers: each backward_pass (which
#    updates the weights through the optimizer: SGD with learning_rate=1 leaves
#    W - dW) against ft.vjp of its forward_pass; a whole network's training step
# ======================================================================================

MLFS_WEIGHTS = ("W", "w0", "U", "V", "gamma", "beta")


def _mlfs_build(layers, input_shape=None):
    """``NeuralNetwork.add``'s set-up (that class needs ``progressbar``): each layer's input
    shape from the layer before, weights from ``initialize`` with SGD at rate 1."""
    optimizer = mlfs_deep_learning.StochasticGradientDescent(learning_rate=1.0)
    built = []
    for layer in layers:
        if built:
            layer.set_input_shape(shape=built[-1].output_shape())
        elif input_shape is not None:
            layer.set_input_shape(input_shape)
        if hasattr(layer, "initialize"):
            layer.initialize(optimizer=optimizer)
        built.append(layer)
    return built


def _mlfs_weights(layers):
    return [{k: getattr(layer, k) for k in MLFS_WEIGHTS if hasattr(layer, k)} for layer in layers]


def _mlfs_forward(layers, weights, X, training=True):
    """``NeuralNetwork._forward_pass`` on copies of ``layers`` holding ``weights``."""
    layer_output = X
    for layer, w in zip(layers, weights):
        layer = copy.deepcopy(layer)
        for k, v in w.items():
            setattr(layer, k, v)
        layer_output = layer.forward_pass(layer_output, training)
    return layer_output


def _mlfs_backprop(layers, X, dout, training=True):
    """The program's own pass: forward, ``backward_pass`` in reverse; (input gradient,
    weight gradients read off SGD's ``W - 1 * dW``)."""
    layers = copy.deepcopy(layers)
    before = _mlfs_weights(layers)
    out = X
    for layer in layers:
        out = layer.forward_pass(out, training)
    for layer in reversed(layers):
        dout = layer.backward_pass(dout)
    after = _mlfs_weights(layers)
    return dout, [{k: b[k] - a[k] for k in b} for b, a in zip(before, after)]


def test_mlfs_layers_backward(rng):
    m = mlfs_deep_learning
    np.random.seed(0)
    X4, X2, X3 = rng.normal(size=(2, 2, 6, 6)), rng.normal(size=(5, 4)), rng.normal(size=(2, 4, 3))
    cases = [
        (m.Conv2D(3, (3, 3), input_shape=(2, 6, 6), padding="same"), X4),
        (m.Conv2D(3, (3, 2), input_shape=(2, 6, 6), padding="valid", stride=2), X4),
        (m.ZeroPadding2D((1, 2)), X4),
        (m.Flatten(), X4),
        (m.Dense(3, input_shape=(4,)), X2),
        (m.BatchNormalization(), X2),
        (m.RNN(5, input_shape=(4, 3), bptt_trunc=5), X3),  # no truncation in 4 steps
    ]
    cases += [
        (m.Activation(a), X2)
        for a in ("relu", "sigmoid", "selu", "elu", "leaky_relu", "tanh", "softplus")
    ]
    for layer, X in cases:
        (layer,) = _mlfs_build([layer], X.shape[1:])
        w = _mlfs_weights([layer])
        out = _mlfs_forward([layer], w, X)
        dout = rng.normal(size=out.shape)
        value, vjp_fn = ft.vjp(lambda X, w: _mlfs_forward([layer], w, X), X, w)
        close(value, out)
        dX, dw = vjp_fn(dout)
        hand_dX, hand_dw = _mlfs_backprop([layer], X, dout)
        name = type(layer).__name__
        close(dw, hand_dw, {"rtol": 1e-12, "atol": 1e-14}, msg=name)
        if isinstance(layer, m.RNN):
            # the program's input gradient keeps only the path through output t (its
            # grad_wrt_state before the inner BPTT loop): differences are the oracle
            close(dX, ft.grad(lambda X: np.sum(_mlfs_forward([layer], w, X) * dout))(X))
            fd = fd_jacobian(
                lambda s: np.sum(_mlfs_forward([layer], w, X + s * dout[..., :3]) * dout), 0.0
            )
            close(np.sum(dX * dout[..., :3]), fd, FD_TOL)
            assert not np.allclose(dX, hand_dX)
        else:
            close(dX, hand_dX, {"rtol": 1e-12, "atol": 1e-14}, msg=name)
    # UpSampling2D's backward_pass subsamples the output gradient; the adjoint of
    # X.repeat(2, axis=2).repeat(2, axis=3) sums each 2 x 2 block
    (up,) = _mlfs_build([m.UpSampling2D()], (2, 6, 6))
    dout = rng.normal(size=(2, 2, 12, 12))
    dX = ft.vjp(lambda X: _mlfs_forward([up], [{}], X), X4)[1](dout)[0]
    close(dX, dout.reshape(2, 2, 6, 2, 6, 2).sum(axis=(3, 5)))
    # the pooling layers' backward_pass calls column_to_image(..., 0), which has no
    # padding rule for 0 (a TypeError in the program): forward-mode against differences
    for pool in (
        m.MaxPooling2D(pool_shape=(2, 2), stride=2, padding="valid"),
        m.AveragePooling2D(),
    ):
        (pool,) = _mlfs_build([pool], (2, 6, 6))
        if isinstance(pool, m.AveragePooling2D):
            pool.padding = "valid"
        t = rng.normal(size=X4.shape)
        close(
            ft.jvp(lambda X: _mlfs_forward([pool], [{}], X), (X4,), (t,))[1],
            fd_jacobian(lambda s: _mlfs_forward([pool], [{}], X4 + s * t), 0.0),
            FD_TOL,
        )
        close(
            ft.vmap(lambda X: _mlfs_forward([pool], [{}], X))(X4[:, None]),
            np.stack([_mlfs_forward([pool], [{}], x[None]) for x in X4]),
        )
    # elementwise activations' gradient() and the losses' gradient()
    for name, cls in m.activation_functions.items():
        if name != "softmax":
            act = cls()
            close(ft.elementwise_grad(act)(X2), act.gradient(X2), msg=name)
    soft = m.Softmax()  # its gradient() is the Jacobian's diagonal
    close(soft.gradient(X2), np.stack([np.diag(ft.jacrev(soft)(x)) for x in X2]))
    y, p = (rng.random((5, 3)) > 0.5) * 1.0, rng.uniform(0.05, 0.95, size=(5, 3))
    for loss in (m.SquareLoss(), m.CrossEntropy()):
        close(ft.grad(lambda p: np.sum(loss.loss(y, p)))(p), loss.gradient(y, p))


def test_mlfs_network_training_step(rng):
    m = mlfs_deep_learning
    np.random.seed(1)
    layers = _mlfs_build(
        [
            m.Conv2D(
                n_filters=2, filter_shape=(3, 3), stride=1, input_shape=(1, 6, 6), padding="same"
            ),
            m.Activation("relu"),
            m.Dropout(0.25),
            m.BatchNormalization(),
            m.Flatten(),
            m.Dense(5),
            m.Activation("tanh"),
            m.Dense(3),
            m.Activation("sigmoid"),
        ]
    )
    X, y = rng.normal(size=(4, 1, 6, 6)), np.eye(3)[rng.integers(0, 3, 4)]
    loss_function = m.CrossEntropy()
    weights = _mlfs_weights(layers)

    def loss_of(weights, X):
        np.random.seed(3)  # Dropout's mask
        # train_on_batch reports np.mean of the loss, and backpropagates the sum's gradient
        return np.sum(loss_function.loss(y, _mlfs_forward(layers, weights, X)))

    np.random.seed(3)
    y_pred = _mlfs_forward(layers, weights, X)
    np.random.seed(3)
    _, hand = _mlfs_backprop(layers, X, loss_function.gradient(y, y_pred))
    g = ft.grad(loss_of)(weights, X)
    close(g, hand)
    Xs = rng.normal(size=(2, 4, 1, 6, 6))
    close(
        ft.vmap(ft.grad(loss_of), in_dims=(None, 0), randomness="same")(weights, Xs),
        optree.tree_map(lambda *v: np.stack(v), *[ft.grad(loss_of)(weights, x) for x in Xs]),
    )
    jitted = ft.jit(loss_of)
    with warnings.catch_warnings():
        # Dropout's numpy.random draw: jit runs this signature eagerly, and says so
        warnings.simplefilter("ignore", RuntimeWarning)
        for x in (X, Xs[0]):
            close(jitted(weights, x), loss_of(weights, x))


# ======================================================================================
# 6. picoGPT's gpt2.py: GPT-2's forward pass (heads as a Python list of np.split pieces)
#    and its greedy generate loop (int(np.argmax(...)) appended to a list): the loss's
#    gradient against differences, vmap over sequences and over an ensemble of models
#    against loops (the token ids index a plain array: rows are split), jit, and
#    generate under vmap and grad
# ======================================================================================


def _gpt2_params(rng, n_vocab=11, n_ctx=8, n_embd=8, n_layer=2):
    def lin(i, o):
        return {"w": 0.3 * rng.normal(size=(i, o)), "b": 0.1 * rng.normal(size=o)}

    def ln():
        return {"g": 1 + 0.1 * rng.normal(size=n_embd), "b": 0.1 * rng.normal(size=n_embd)}

    blocks = [
        {
            "mlp": {"c_fc": lin(n_embd, 4 * n_embd), "c_proj": lin(4 * n_embd, n_embd)},
            "attn": {"c_attn": lin(n_embd, 3 * n_embd), "c_proj": lin(n_embd, n_embd)},
            "ln_1": ln(),
            "ln_2": ln(),
        }
        for _ in range(n_layer)
    ]
    return {
        "wte": rng.normal(size=(n_vocab, n_embd)),
        "wpe": 0.3 * rng.normal(size=(n_ctx, n_embd)),
        "blocks": blocks,
        "ln_f": ln(),
    }


def _tree_axpy(a, x, y):
    return optree.tree_map(lambda u, v: u + a * v, y, x)


def test_picogpt_gpt2(rng, capsys):
    g, n_head = picogpt_gpt2, 2
    params = _gpt2_params(rng)
    inputs, targets = [3, 1, 4, 1, 5], np.array([1, 4, 1, 5, 9])

    def loss(params, inputs, targets):
        logits = g.gpt2(inputs, **params, n_head=n_head)
        logp = logits - np.log(np.sum(np.exp(logits), axis=-1, keepdims=True))
        return -np.mean(logp[np.arange(len(targets)), targets])

    grads = ft.grad(loss)(params, inputs, targets)
    direction = optree.tree_map(lambda v: rng.normal(size=v.shape), params)
    along = sum(
        np.vdot(a, b) for a, b in zip(optree.tree_leaves(grads), optree.tree_leaves(direction))
    )
    fd = fd_jacobian(
        lambda s: loss(_tree_axpy(s, direction, params), inputs, targets), 0.0, eps=1e-4
    )
    close(along, fd, FD_TOL)
    close(
        grads["ln_f"]["g"],
        fd_jacobian(
            lambda v: loss(dict(params, ln_f={"g": v, "b": params["ln_f"]["b"]}), inputs, targets),
            params["ln_f"]["g"],
        ),
        FD_TOL,
    )

    def forward(params, ids):
        return g.gpt2(ids, **params, n_head=n_head)

    batch = np.array([[3, 1, 4, 1, 5], [2, 7, 1, 8, 2], [1, 6, 1, 8, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)  # wte[ids]: split rows
        close(
            ft.vmap(forward, in_dims=(None, 0))(params, batch),
            np.stack([forward(params, list(ids)) for ids in batch]),
        )
    ensemble = optree.tree_map(lambda v: np.stack([v, v + 0.05 * rng.normal(size=v.shape)]), params)
    members = [optree.tree_map(lambda v: v[i], ensemble) for i in range(2)]
    close(
        ft.vmap(forward, in_dims=(0, None))(ensemble, inputs),
        np.stack([forward(p, inputs) for p in members]),
    )
    jitted = ft.jit(forward)
    for ids in batch:
        close(jitted(params, ids), forward(params, list(ids)))

    # the greedy decode loop: int(next_id) per row splits an ensemble by its choices
    def generated(wte):
        return np.array(g.generate(list(inputs), dict(params, wte=wte), n_head, 3))

    wtes = rng.normal(size=(4,) + params["wte"].shape)
    loop = np.stack([generated(w) for w in wtes])
    assert len({tuple(r) for r in loop}) > 1  # the members disagree
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        close(ft.vmap(generated)(wtes), loop)

    def loss_after_generating(wte):
        p = dict(params, wte=wte)
        ids = g.generate(list(inputs), p, n_head, 2)
        return loss(p, inputs + ids[:-1], np.array(inputs[1:] + ids))

    direction = rng.normal(size=params["wte"].shape)
    close(
        np.vdot(ft.grad(loss_after_generating)(params["wte"]), direction),
        fd_jacobian(lambda s: loss_after_generating(params["wte"] + s * direction), 0.0, eps=1e-4),
        FD_TOL,
    )
    capsys.readouterr()  # tqdm's progress bars


# ======================================================================================
# 7. JAX's notebook "Autobatching log-densities": vmap of the one-beta log-joint equals
#    the hand-batched one and plain NumPy/SciPy; the jitted value_and_grad of the ELBO
#    (through jit(vmap(jit(log_joint)))) against differences; SGD steps replay jit
# ======================================================================================


def test_jax_vmapped_log_probs(capsys):
    m = jax_vmapped_log_probs  # its cells ran at import
    x, y = m.all_x.astype(np.float64), m.y

    def numpy_log_joint(beta, scale):
        prior = np.sum(scipy.stats.norm.logpdf(beta, loc=0.0, scale=scale))
        return prior + np.sum(-np.log(1 + np.exp(-(2 * y - 1) * (x @ beta))))

    expected = np.array([numpy_log_joint(b, 1.0) for b in m.batched_test_beta])
    close(m.autobatched, expected, {"rtol": 1e-6, "atol": 1e-6})  # all_x is float32
    close(m.autobatched, m.manually_batched)
    close(
        m.vmap_batched_log_joint(m.batched_test_beta),
        np.array([m.non_batched_log_joint(b) for b in m.batched_test_beta]),
    )
    with pytest.raises(ValueError, match="could not be broadcast"):  # the notebook's point
        m.non_batched_log_joint(m.batched_test_beta)

    rng = np.random.default_rng(3)
    loc, log_scale = 0.3 * rng.normal(size=10), -0.5 + 0.1 * rng.normal(size=10)
    epsilon = rng.normal(size=(6, 10))
    value, (g_loc, g_log_scale) = m.elbo_val_and_grad(loc, log_scale, epsilon)

    def numpy_elbo(loc, log_scale):
        samples = loc + np.exp(log_scale) * epsilon
        return np.mean([numpy_log_joint(b, 10.0) for b in samples]) + np.sum(
            log_scale - 0.5 * np.log(2 * np.pi)
        )

    close(value, numpy_elbo(loc, log_scale), {"rtol": 1e-6, "atol": 1e-6})
    close(g_loc, fd_jacobian(lambda v: numpy_elbo(v, log_scale), loc), {"rtol": 1e-6, "atol": 1e-6})
    close(
        g_log_scale,
        fd_jacobian(lambda v: numpy_elbo(loc, v), log_scale),
        {"rtol": 1e-6, "atol": 1e-6},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a jit running eagerly would warn
        beta_loc, beta_log_scale = m.optimize(21)
    assert beta_loc.dtype == np.float32 and beta_log_scale.dtype == np.float32
    elbos = [float(line.split("\t")[1]) for line in capsys.readouterr().out.splitlines()]
    assert len(elbos) == 3 and elbos[0] < elbos[1] < elbos[2]


# ======================================================================================
# 8. The rmsd package's Kabsch, weighted Kabsch and quaternion RMSDs: the three agree;
#    their gradients against the closed form 2/N (P U - Q) U^T (the rotation is
#    optimal) and differences; vmap (the det-sign branch splits rows) and jit
# ======================================================================================


def test_charnley_rmsd(rng):
    m = charnley_rmsd
    P, Q = rng.normal(size=(6, 3)), rng.normal(size=(6, 3))
    P, Q = P - m.centroid(P), Q - m.centroid(Q)
    rmsds = {
        "kabsch": lambda P: m.kabsch_rmsd(P, Q),
        "translate": lambda P: m.kabsch_rmsd(P, Q, translate=True),
        "weighted": lambda P: m.kabsch_weighted_rmsd(P, Q),
        "quaternion": lambda P: m.quaternion_rmsd(P, Q),
    }
    U = m.kabsch(P, Q)
    value = np.sqrt(np.sum((P @ U - Q) ** 2) / 6)
    closed_form = (P @ U - Q) @ U.T / (6 * value)  # d/dP of sqrt(|P U - Q|^2 / N)
    for name, f in rmsds.items():
        close(f(P), value, {"rtol": 1e-12, "atol": 0}, msg=name)
        g = ft.grad(f)(P)
        close(g, closed_form, {"rtol": 1e-9, "atol": 1e-12}, msg=name)
        close(g, fd_jacobian(f, P), FD_TOL, msg=name)
    # kabsch_fit's coordinates: their Jacobian against differences
    close(
        ft.jacfwd(lambda P: m.kabsch_fit(P, Q))(P),
        fd_jacobian(lambda P: m.kabsch_fit(P, Q), P),
        FD_TOL,
    )
    Ps = rng.normal(size=(4, 6, 3))
    for name in ("translate", "weighted", "quaternion"):
        f = rmsds[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ft.errors.PerformanceWarning)  # if d: splits
            close(ft.vmap(f)(Ps), np.array([f(p) for p in Ps]), msg=name)
            close(ft.vmap(ft.grad(f))(Ps), np.stack([ft.grad(f)(p) for p in Ps]), msg=name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # if d: jit runs eagerly
            jitted = ft.jit(f)
            for p in Ps[:2]:
                close(jitted(p), f(p), msg=name)

    def reflected(p):  # kabsch's `d`: the branch taken
        V, S, W = np.linalg.svd((p - m.centroid(p)).T @ Q)
        return bool(np.linalg.det(V) * np.linalg.det(W) < 0)

    assert len({reflected(p) for p in Ps}) == 2  # the rows disagree: vmap split them


# ======================================================================================
# 9. scikit-image's structural_similarity (its gradient=True is Avanaki's hand-written
#    gradient of the full SSIM map's mean), richardson_lucy and wiener: against the
#    hand-written gradient, differences, loops and jit
# ======================================================================================


def test_skimage_structural_similarity(rng):
    m = skimage_ssim_deconvolution
    a = rng.random((14, 13))
    b = np.clip(a + 0.2 * rng.normal(size=a.shape), 0, 1)

    def full_mean(y, **kw):
        return m.structural_similarity(a, y, data_range=1.0, full=True, **kw)[1].mean()

    # population covariance: the hand-written gradient is exact, edges included
    _, hand = m.structural_similarity(
        a, b, data_range=1.0, gradient=True, use_sample_covariance=False
    )
    close(ft.grad(full_mean)(b, use_sample_covariance=False), hand, {"rtol": 1e-10, "atol": 1e-15})
    # the default sample covariance scales variances by NP / (NP - 1), which that
    # gradient leaves out: ours is the derivative (differences), the program's is not
    _, hand = m.structural_similarity(a, b, data_range=1.0, gradient=True)
    g = ft.grad(full_mean)(b)
    close(g, fd_jacobian(full_mean, b), FD_TOL)
    assert not np.allclose(g, hand, rtol=1e-3, atol=1e-6)

    def mssim(y):  # the returned value: the mean over the map cropped by the window
        return m.structural_similarity(a, y, data_range=1.0)

    close(ft.grad(mssim)(b), fd_jacobian(mssim, b), FD_TOL)
    B = np.clip(b + 0.05 * rng.normal(size=(3,) + b.shape), 0, 1)
    close(ft.vmap(mssim)(B), np.array([mssim(y) for y in B]))
    jitted = ft.jit(mssim)
    for y in B[:2]:
        close(jitted(y), mssim(y))
    # channels (a loop writing each channel's result into np.empty), Gaussian weights
    A = rng.random((11, 11, 2))
    Bc = np.clip(A + 0.1 * rng.normal(size=A.shape), 0, 1)
    _, hand, _ = m.structural_similarity(
        A,
        Bc,
        data_range=1.0,
        channel_axis=-1,
        gradient=True,
        full=True,
        use_sample_covariance=False,
    )
    close(
        ft.grad(
            lambda y: m.structural_similarity(
                A, y, data_range=1.0, channel_axis=-1, full=True, use_sample_covariance=False
            )[1].mean()
        )(Bc),
        hand / 2,  # the mean over both channels' maps
        {"rtol": 1e-10, "atol": 1e-15},
    )

    def gaussian_mssim(y):
        return m.structural_similarity(
            A, y, data_range=1.0, channel_axis=-1, gaussian_weights=True, sigma=1.0
        )

    t = rng.normal(size=Bc.shape)
    close(
        ft.jvp(gaussian_mssim, (Bc,), (t,))[1],
        fd_jacobian(lambda s: gaussian_mssim(Bc + s * t), 0.0),
        FD_TOL,
    )


def test_skimage_deconvolution(rng):
    m = skimage_ssim_deconvolution
    img, psf = rng.random((10, 10)), np.ones((3, 3)) / 9 + 0.01 * rng.random((3, 3))

    def rl(img, psf):
        return m.richardson_lucy(img, psf, num_iter=5)

    assert 0 < np.count_nonzero(m.richardson_lucy(img, psf, num_iter=5, clip=False) > 1) < img.size
    t = rng.normal(size=img.shape)
    close(
        ft.jvp(lambda x: rl(x, psf), (img,), (t,))[1],
        fd_jacobian(lambda s: rl(img + s * t, psf), 0.0),
        FD_TOL,
    )
    close(
        ft.grad(lambda p: np.sum(rl(img, p) ** 2))(psf),
        fd_jacobian(lambda p: np.sum(rl(img, p) ** 2), psf),
        {"rtol": 1e-6, "atol": 1e-8},
    )
    imgs = np.stack([img, 0.5 * img, img**2])
    close(ft.vmap(rl, in_dims=(0, None))(imgs, psf), np.stack([rl(x, psf) for x in imgs]))
    jitted = ft.jit(rl)
    for x in imgs[:2]:
        close(jitted(x, psf), rl(x, psf))

    def wiener_energy(x, balance):
        return np.sum(m.wiener(x, psf, balance) ** 2)

    close(
        ft.grad(wiener_energy, argnums=(0, 1))(img, 0.1),
        (
            fd_jacobian(lambda x: wiener_energy(x, 0.1), img),
            fd_jacobian(lambda b: wiener_energy(img, b), 0.1),
        ),
        {"rtol": 1e-6, "atol": 1e-8},
    )


# ======================================================================================
# 9b. PythonRobotics' ICP matching: a while loop on the traced residual, nearest
#     neighbours by argmin, the motion by SVD, slices written into np.zeros; Jacobians
#     against differences, vmap over motions (their iteration counts differ) against
#     the loop
# ======================================================================================


def test_pythonrobotics_icp(rng, capsys):
    m = pythonrobotics_icp
    px, py = (rng.random(15) - 0.5) * 10, (rng.random(15) - 0.5) * 10
    previous_points = np.vstack((px, py))

    def moved(motion):
        c, s = np.cos(motion[2]), np.sin(motion[2])
        return np.vstack((c * px - s * py + motion[0], s * px + c * py + motion[1]))

    motion = np.array([0.2, 0.4, np.deg2rad(-5.0)])  # small: ICP finds the motion
    current_points = moved(motion)
    R, T = m.icp_matching(previous_points, current_points)
    c, s = np.cos(motion[2]), np.sin(motion[2])
    close(R, np.array([[c, s], [-s, c]]), {"rtol": 0, "atol": 1e-10})  # the inverse motion
    assert "Converge" in capsys.readouterr().out

    def translation(points):
        return m.icp_matching(previous_points, points)[1]

    close(ft.jacfwd(translation)(current_points), fd_jacobian(translation, current_points), FD_TOL)
    close(
        ft.grad(lambda points: np.sum(m.icp_matching(previous_points, points)[0] ** 3))(
            current_points
        ),
        fd_jacobian(
            lambda points: np.sum(m.icp_matching(previous_points, points)[0] ** 3), current_points
        ),
        FD_TOL,
    )
    batch = np.stack([moved(motion * k) for k in (1.0, 0.3, 1.6)])
    loop = [m.icp_matching(previous_points, points) for points in batch]
    counts = [
        line.rsplit(" ", 1)[1] for line in capsys.readouterr().out.splitlines() if "onverge" in line
    ]
    assert len(set(counts)) > 1  # the rows take different numbers of iterations
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        batched = ft.vmap(lambda points: m.icp_matching(previous_points, points))(batch)
    close(batched, tuple(np.stack(r) for r in zip(*loop)))
    capsys.readouterr()


# ======================================================================================
# 9c. Rougier's "100 NumPy exercises": the answers that define functions, against
#     differences and loops; #85's ndarray subclass view of a traced array is refused
#     with an error naming the subclass, x.view(np.ndarray) is a plain view
# ======================================================================================


def test_rougier_numpy100(rng):
    m = rougier_numpy100
    P0, P1 = rng.uniform(-10, 10, (6, 2)), rng.uniform(-10, 10, (6, 2))
    p, points = rng.uniform(-10, 10, (1, 2)), rng.uniform(-10, 10, (4, 2))
    a = rng.random(10)
    cases = [
        (lambda a: m.moving_average(a, 3), a),
        (lambda a: m.rolling(a, 3), a),
        (lambda P0: m.distance_faster(P0, P1, p), P0),
        (lambda P0: m.distance_slower(P0, P1, p), P0),
        (lambda points: m.distance_points_to_lines(points, P0, P1), points),
    ]
    close(m.distance_faster(P0, P1, p), m.distance_slower(P0, P1, p))
    close(
        m.distance_points_to_lines(points, P0, P1)[:, :1],
        np.stack([m.distance_slower(P0[:1], P1[:1], q[None]) for q in points]),
    )
    for f, x in cases:
        close(ft.jacrev(f)(x), fd_jacobian(f, x), FD_TOL)
        close(ft.jacfwd(f)(x), ft.jacrev(f)(x))
        batch = np.stack([x, 1.1 * x, 0.9 * x])
        close(ft.vmap(f)(batch), np.stack([f(b) for b in batch]))
    Z = rng.random((5, 5))
    with pytest.raises(
        ft.errors.UnsupportedOperationError,
        match=r"^x\.view\(Symetric\) of a tracer: .*ndarray subclass",
    ):
        ft.grad(lambda Z: m.symetric(Z).sum())(Z)

    def through_a_view(t, make):
        v = make(t)
        v[0] = 5.0  # writes into t too
        return np.sum(t**2)

    x = np.array([1.0, 2.0, 3.0])
    for make in (
        lambda t: t.view(np.ndarray),
        lambda t: t.view(type=np.ndarray),
        lambda t: t.view(t.dtype, np.ndarray),
    ):
        close(ft.grad(through_a_view)(x, make), np.array([0.0, 4.0, 6.0]))
        close(
            ft.vmap(through_a_view, in_dims=(0, None))(np.stack([x, 2 * x]), make),
            np.array([38.0, 77.0]),
        )


# ======================================================================================
# 10. A SciPy module imported while a transform runs (a function's own ``from scipy...
#     import``, or ``import scipy`` and a submodule SciPy loads lazily) is answered in
#     that first call, not only from the next one on
# ======================================================================================


def test_scipy_module_imported_inside_the_transformed_function(monkeypatch, rng):
    import scipy.spatial.distance as imported_before

    from ftransforms.scipy import own_names

    ft.grad(lambda x: x * x)(1.0)  # a transform has run: the module above is patched
    # as if scipy.spatial.distance were imported for the first time, inside f
    monkeypatch.setattr(own_names, "_DONE", own_names._DONE - {"spatial.distance"})
    monkeypatch.delitem(sys.modules, "scipy.spatial.distance")
    monkeypatch.setattr(sys.modules["scipy.spatial"], "distance", imported_before)

    def f(x):
        from scipy.spatial.distance import pdist

        return np.sum(pdist(x) ** 2)

    x = rng.normal(size=(4, 2))
    g = ft.grad(f)(x)  # the first call (it raised TracerConversionError)
    assert sys.modules["scipy.spatial.distance"] is not imported_before  # imported in f
    close(g, fd_jacobian(f, x), FD_TOL)


# ======================================================================================
# 11. A scipy.stats distribution that ftransforms.scipy.stats lacks, at a traced shape
#     parameter: a clear TracerConversionError (it was NumPy's TypeError from deep inside
#     SciPy, or a RecursionError for zipf); the distributions it has still answer
# ======================================================================================


def test_scipy_stats_distribution_without_a_counterpart_at_a_traced_shape():
    cases = [
        # (skewnorm, here before, has a counterpart since round 12; burr12, genextreme and
        # betaprime, rice and zipf since round 13; ncx2 and nct since round 14)
        ("norminvgauss.logpdf", lambda a: scipy.stats.norminvgauss.logpdf(0.3, a, 0.5), 1.5),
        # (frozen)
        ("crystalball.logpdf", lambda b: scipy.stats.crystalball(b, 2.0).logpdf(0.3), 1.5),
        ("gausshyper.mean", lambda a: scipy.stats.gausshyper.mean(a, 2.0, 1.0, 0.5), 1.5),
        ("betanbinom.logpmf", lambda a: scipy.stats.betanbinom.logpmf(2, 5, a, 1.0), 2.5),
    ]
    for name, f, a in cases:
        with pytest.raises(
            ft.errors.TracerConversionError, match=r"^grad\(<lambda>\): scipy\.stats\." + name
        ) as info:
            ft.grad(f)(a)
        assert "no counterpart" in str(info.value) and "ftransforms.numpy" in str(info.value)
    # a distribution with a counterpart, traced shape and location
    g = ft.grad(lambda a: scipy.stats.gamma.logpdf(1.3, a, loc=0.1 * a))(1.5)
    close(g, fd_jacobian(lambda a: scipy.stats.gamma.logpdf(1.3, a, loc=0.1 * a), 1.5), FD_TOL)


def test_scipy_stats_pearsonr_under_the_transforms(rng):
    # SciPy's own pearsonr on a tracer failed inside SciPy (AttributeError: 'ObjectDType'
    # object has no attribute 'dtype'); ftransforms.scipy.stats.pearsonr answers it
    import ftransforms.scipy.stats as fstats

    x, y = rng.normal(size=8), rng.normal(size=8)
    for alternative in ("two-sided", "less", "greater"):
        theirs, ours = (
            scipy.stats.pearsonr(x, y, alternative=alternative),
            fstats.pearsonr(x, y, alternative=alternative),
        )
        close(
            (ours.statistic, ours.pvalue),
            (theirs.statistic, theirs.pvalue),
            {"rtol": 1e-12, "atol": 1e-15},
        )
        ci, their_ci = ours.confidence_interval(0.9), theirs.confidence_interval(0.9)
        close((ci.low, ci.high), (their_ci.low, their_ci.high), {"rtol": 1e-12, "atol": 1e-15})
    X, Y = rng.normal(size=(3, 8)), rng.normal(size=(3, 8))
    theirs, ours = scipy.stats.pearsonr(X, Y, axis=1), fstats.pearsonr(X, Y, axis=1)
    close(tuple(ours), tuple(theirs), {"rtol": 1e-12, "atol": 1e-15})
    for part in (0, 1):  # statistic, pvalue
        f = lambda y, part=part: scipy.stats.pearsonr(x, y)[part]  # noqa: E731
        close(ft.grad(f)(y), fd_jacobian(f, y), FD_TOL)
        close(ft.vmap(f)(Y), np.array([f(v) for v in Y]))
    r, p = ft.jit(lambda y: scipy.stats.pearsonr(x, y))(y)
    close((r, p), tuple(scipy.stats.pearsonr(x, y)))
