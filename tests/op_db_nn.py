"""Op-database entries for the primitives of ``ftransforms/ops/nn.py`` (to be wired into
the generic op tests by ``tests/op_db.py``'s owner).

``ENTRIES`` is a list of dicts, one or more per primitive:

* ``name``: the primitive's name in ``ftransforms.core.primitive.REGISTRY``;
* ``fn``: a callable on arrays that binds exactly that primitive (settings fixed);
* ``args``: a list of example argument tuples (float64 NumPy arrays; every argument is an
  operand: batched by vmap tests and, where the entry says so, differentiated);
* ``jax_fn``: the same function in JAX (``jax.lax`` / ``jax.nn``), the oracle;
* ``diff_argnums``: the arguments with a derivative (the max-pooling derivatives are
  linear in their first argument and have no derivative in the others, which only pick
  the maxima);
* ``grads``: whether derivative tests apply at all.

Inputs of the max-pooling entries have distinct values (no ties), so that every tie
convention agrees and finite differences are valid.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ftransforms.ops import nn as ops

jax.config.update("jax_enable_x64", True)

_DN = ("NCHW", "OIHW", "NCHW")


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _distinct(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * 0.1 + rng.uniform(0, 0.02, n)).reshape(shape)


def _jax_conv(stride, padding, dilation, groups):
    def f(x, w):
        return jax.lax.conv_general_dilated(
            x,
            w,
            window_strides=stride,
            padding=padding,
            rhs_dilation=dilation,
            dimension_numbers=_DN,
            feature_group_count=groups,
        )

    return f


def _jax_windows(kernel_size, stride, padding, dilation, pad_value=0.0):
    """(..., H, W) -> (..., Ho, Wo, kh, kw) with strided slices."""
    (kh, kw), (sh, sw), (dh, dw) = kernel_size, stride, dilation

    def f(x):
        lead = [(0, 0)] * (x.ndim - 2)
        xp = jnp.pad(x, lead + list(padding), constant_values=pad_value)
        h, w = xp.shape[-2:]
        ho = (h - dh * (kh - 1) - 1) // sh + 1
        wo = (w - dw * (kw - 1) - 1) // sw + 1
        taps = [
            xp[
                ...,
                i * dh : i * dh + sh * (ho - 1) + 1 : sh,
                j * dw : j * dw + sw * (wo - 1) + 1 : sw,
            ]
            for i in range(kh)
            for j in range(kw)
        ]
        return jnp.stack(taps, axis=-1).reshape(x.shape[:-2] + (ho, wo, kh, kw))

    return f


def _jax_reduce_window(op, init, kernel_size, stride, padding, dilation):
    def f(x):
        k = x.ndim - 2
        return jax.lax.reduce_window(
            x,
            init,
            op,
            (1,) * k + tuple(kernel_size),
            (1,) * k + tuple(stride),
            ((0, 0),) * k + tuple(padding),
            window_dilation=(1,) * k + tuple(dilation),
        )

    return f


def _conv_entries():
    out = []
    geometries = [
        # x shape, w shape, stride, padding, dilation, groups
        ((2, 4, 6, 5), (3, 4, 3, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),
        ((2, 4, 7, 6), (6, 2, 3, 3), (2, 1), ((1, 0), (2, 1)), (2, 1), 2),
        ((1, 3, 5, 5), (3, 1, 2, 2), (2, 2), ((1, 1), (1, 1)), (1, 2), 3),
    ]
    for k, (xs, ws, stride, padding, dilation, groups) in enumerate(geometries):
        p = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
        rng = _rng(10 + k)
        x, w = rng.normal(size=xs), rng.normal(size=ws)
        jconv = _jax_conv(stride, padding, dilation, groups)
        y = np.asarray(jconv(x, w))
        g = rng.normal(size=y.shape)
        in_size, kernel = xs[2:], ws[2:]

        def conv(x, w, p=p):
            return ops.conv2d_p.bind(x, w, **p)

        def conv_t(g, w, p=p, in_size=in_size):
            return ops.conv_transpose2d_p.bind(g, w, in_size=in_size, **p)

        def conv_w(x, g, p=p, kernel=kernel):
            return ops.conv2d_weight_p.bind(x, g, kernel_size=kernel, **p)

        def jax_conv_t(g, w, jconv=jconv, xs=xs):
            return jax.vjp(lambda x: jconv(x, w), jnp.zeros(xs))[1](g)[0]

        def jax_conv_w(x, g, jconv=jconv, ws=ws):
            return jax.vjp(lambda w: jconv(x, w), jnp.zeros(ws))[1](g)[0]

        out += [
            {"name": "conv2d", "fn": conv, "args": [(x, w)], "jax_fn": jconv},
            {"name": "conv_transpose2d", "fn": conv_t, "args": [(g, w)], "jax_fn": jax_conv_t},
            {"name": "conv2d_weight", "fn": conv_w, "args": [(x, g)], "jax_fn": jax_conv_w},
        ]
    return out


def _window_entries():
    out = []
    geometries = [
        # x shape, kernel, stride, padding, dilation
        ((2, 3, 6, 5), (2, 2), (2, 2), ((0, 0), (0, 0)), (1, 1)),
        ((1, 2, 7, 6), (3, 2), (2, 1), ((1, 2), (1, 0)), (1, 2)),
        ((5, 4), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1)),
    ]
    for k, (xs, kernel, stride, padding, dilation) in enumerate(geometries):
        geo = {"kernel_size": kernel, "stride": stride, "padding": padding, "dilation": dilation}
        rng = _rng(20 + k)
        x = _distinct(rng, xs)
        jwin = _jax_windows(kernel, stride, padding, dilation)
        jmax_windows = _jax_windows(kernel, stride, padding, dilation, -jnp.inf)

        def jmax(x, jmax_windows=jmax_windows):
            # max over explicit windows: JAX's max shares ties equally, like ours (and
            # lax.reduce_window has no VJP with window dilation)
            return jnp.max(jmax_windows(x), axis=(-2, -1))

        jsum = _jax_reduce_window(jax.lax.add, 0.0, kernel, stride, padding, dilation)
        win_shape = np.asarray(jwin(x)).shape
        y = np.asarray(jmax(x))
        gw = rng.normal(size=win_shape)
        g = rng.normal(size=y.shape)
        t = rng.normal(size=xs)

        def windows(x, geo=geo):
            return ops.sliding_windows_p.bind(x, pad_value=0.0, **geo)

        def windows_t(g, geo=geo, in_size=xs[-2:]):
            return ops.sliding_windows_transpose_p.bind(g, in_size=in_size, **geo)

        def window_sum(x, geo=geo):
            return ops.window_sum_p.bind(x, **geo)

        def window_sum_t(g, geo=geo, in_size=xs[-2:]):
            return ops.window_sum_transpose_p.bind(g, in_size=in_size, **geo)

        def max_pool(x, geo=geo):
            return ops.max_pool2d_p.bind(x, **geo)

        def max_pool_jvp(t, x, y, geo=geo):
            return ops.max_pool2d_jvp_p.bind(t, x, y, **geo)

        def max_pool_vjp(g, x, y, geo=geo):
            return ops.max_pool2d_vjp_p.bind(g, x, y, **geo)

        def jax_transpose(f, shape):
            return lambda g: jax.vjp(f, jnp.zeros(shape))[1](g)[0]

        def jax_max_jvp(t, x, y, jmax=jmax):
            return jax.jvp(jmax, (x,), (t,))[1]

        def jax_max_vjp(g, x, y, jmax=jmax):
            return jax.vjp(jmax, x)[1](g)[0]

        linear = {"diff_argnums": (0,)}
        out += [
            {"name": "sliding_windows", "fn": windows, "args": [(x,)], "jax_fn": jwin},
            {
                "name": "sliding_windows_transpose",
                "fn": windows_t,
                "args": [(gw,)],
                "jax_fn": jax_transpose(jwin, xs),
            },
            {"name": "window_sum", "fn": window_sum, "args": [(x,)], "jax_fn": jsum},
            {
                "name": "window_sum_transpose",
                "fn": window_sum_t,
                "args": [(g,)],
                "jax_fn": jax_transpose(jsum, xs),
            },
            {"name": "max_pool2d", "fn": max_pool, "args": [(x,)], "jax_fn": jmax},
            {
                "name": "max_pool2d_jvp",
                "fn": max_pool_jvp,
                "args": [(t, x, y)],
                "jax_fn": jax_max_jvp,
                **linear,
            },
            {
                "name": "max_pool2d_vjp",
                "fn": max_pool_vjp,
                "args": [(g, x, y)],
                "jax_fn": jax_max_vjp,
                **linear,
            },
        ]
    return out


def _softplus_entries():
    rng = _rng(30)
    x = rng.uniform(-4, 4, size=(3, 4))
    big = np.array([-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 800.0])
    return [
        {
            "name": "softplus",
            "fn": ops.softplus_p.bind,
            "args": [(x,), (big,)],
            "jax_fn": jax.nn.softplus,
        }
    ]


def _relu_entries():
    rng = _rng(31)
    x = rng.uniform(-3, 3, size=(4, 5))
    x = np.where(np.abs(x) < 0.05, 0.5, x)  # away from the kink for finite differences
    return [{"name": "relu", "fn": ops.relu_p.bind, "args": [(x,)], "jax_fn": jax.nn.relu}]


ENTRIES: list[dict] = _conv_entries() + _window_entries() + _softplus_entries() + _relu_entries()

for _e in ENTRIES:
    _e.setdefault("diff_argnums", tuple(range(len(_e["args"][0]))))
    _e.setdefault("grads", True)

#: Every primitive declared in ftransforms/ops/nn.py has at least one entry.
NAMES = sorted({e["name"] for e in ENTRIES})
