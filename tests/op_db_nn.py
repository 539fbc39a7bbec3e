"""Op-database entries for the primitives of ``ftransforms/ops/nn.py`` (convolutions, sliding
windows, pooling, relu, softplus).  Format: ``tests/op_db.py``.

These primitives have no NumPy spelling: ``fn(m, ...)`` binds the primitive (looked up by
name in the registry) for ``fnp`` and runs the same computation in JAX (``jax.lax`` /
``jax.nn``) for ``jnp``, the forward reference (``ref="jax"``).  Float64 only.  The
geometry (stride, padding, dilation, groups) is a static keyword argument of each sample.

Inputs of the max-pooling entries have distinct values (no ties), so that every tie
convention agrees and finite differences are valid; ``max_pool2d_jvp/vjp(t, x, y)`` are
linear in ``t`` and only pick the maxima with ``x`` and ``y = max_pool2d(x)``, so only
``t`` is differentiated (``diff_operands=(0,)``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import ftransforms.nn  # noqa: F401  (registers the nn primitives)
from ftransforms.core.primitive import REGISTRY
from tests.op_db_base import JNP, Draw, S, Sample, add

F64 = (np.dtype(np.float64),)
NN = {"dtypes": F64, "ref": "jax", "via_numpy": False}
_DN = ("NCHW", "OIHW", "NCHW")


def _bind(name: str, *args, **params):
    return REGISTRY[name].bind(*args, **params)


def _jax_conv(x, w, *, stride, padding, dilation, groups):
    return jax.lax.conv_general_dilated(
        x,
        w,
        window_strides=stride,
        padding=padding,
        rhs_dilation=dilation,
        dimension_numbers=_DN,
        feature_group_count=groups,
    )


def _jax_windows(x, *, kernel_size, stride, padding, dilation, pad_value=0.0):
    """(..., H, W) -> (..., Ho, Wo, kh, kw) with strided slices."""
    (kh, kw), (sh, sw), (dh, dw) = kernel_size, stride, dilation
    lead = [(0, 0)] * (x.ndim - 2)
    xp = jnp.pad(x, lead + list(padding), constant_values=pad_value)
    h, w = xp.shape[-2:]
    ho = (h - dh * (kh - 1) - 1) // sh + 1
    wo = (w - dw * (kw - 1) - 1) // sw + 1
    taps = [
        xp[..., i * dh : i * dh + sh * (ho - 1) + 1 : sh, j * dw : j * dw + sw * (wo - 1) + 1 : sw]
        for i in range(kh)
        for j in range(kw)
    ]
    return jnp.stack(taps, axis=-1).reshape(x.shape[:-2] + (ho, wo, kh, kw))


def _jax_window_sum(x, *, kernel_size, stride, padding, dilation):
    k = x.ndim - 2
    return jax.lax.reduce_window(
        x,
        0.0,
        jax.lax.add,
        (1,) * k + tuple(kernel_size),
        (1,) * k + tuple(stride),
        ((0, 0),) * k + tuple(padding),
        window_dilation=(1,) * k + tuple(dilation),
    )


def _jax_max_pool(x, **geo):
    # max over explicit windows: JAX's max shares ties equally, like ours (and
    # lax.reduce_window has no VJP with window dilation)
    return jnp.max(_jax_windows(x, pad_value=-jnp.inf, **geo), axis=(-2, -1))


def _jax_transpose(f, shape, g, **params):
    return jax.vjp(lambda x: f(x, **params), jnp.zeros(shape))[1](g)[0]


# -- convolutions ----------------------------------------------------------------------------

_CONV = [
    # x shape, w shape, stride, padding, dilation, groups
    ((2, 4, 6, 5), (3, 4, 3, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),
    ((2, 4, 7, 6), (6, 2, 3, 3), (2, 1), ((1, 0), (2, 1)), (2, 1), 2),
    ((1, 3, 5, 5), (3, 1, 2, 2), (2, 2), ((1, 1), (1, 1)), (1, 2), 3),
]


def _conv_geometries():
    for xs, ws, stride, padding, dilation, groups in _CONV:
        p = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
        ys = np.shape(
            jax.eval_shape(lambda x, w, p=p: _jax_conv(x, w, **p), jnp.zeros(xs), jnp.zeros(ws))
        )
        yield xs, ws, ys, p


def _conv_samples(which: str):
    def sampler(d: Draw) -> list[Sample]:
        out = []
        for k, (xs, ws, ys, p) in enumerate(_conv_geometries()):
            x, w, g = d.u(xs), d.u(ws), d.u(ys)
            if which == "conv2d":
                out.append(S(f"g{k}", x, w, **p))
            elif which == "conv_transpose2d":
                out.append(S(f"g{k}", g, w, in_size=xs[2:], **p))
            else:
                out.append(S(f"g{k}", x, g, kernel_size=ws[2:], **p))
        return out

    return sampler


def _conv(m, x, w, **p):
    return _jax_conv(x, w, **p) if m is JNP else _bind("conv2d", x, w, **p)


def _conv_transpose(m, g, w, *, in_size, **p):
    if m is JNP:
        shape = (g.shape[0], w.shape[1] * p["groups"]) + tuple(in_size)
        return jax.vjp(lambda x: _jax_conv(x, w, **p), jnp.zeros(shape))[1](g)[0]
    return _bind("conv_transpose2d", g, w, in_size=in_size, **p)


def _conv_weight(m, x, g, *, kernel_size, **p):
    if m is JNP:
        shape = (g.shape[1], x.shape[1] // p["groups"]) + tuple(kernel_size)
        return jax.vjp(lambda w: _jax_conv(x, w, **p), jnp.zeros(shape))[1](g)[0]
    return _bind("conv2d_weight", x, g, kernel_size=kernel_size, **p)


add("conv2d", _conv, _conv_samples("conv2d"), **NN)
add("conv_transpose2d", _conv_transpose, _conv_samples("conv_transpose2d"), **NN)
add("conv2d_weight", _conv_weight, _conv_samples("conv2d_weight"), **NN)

# -- sliding windows and pooling ---------------------------------------------------------------

_WINDOWS = [
    # x shape, kernel, stride, padding, dilation
    ((2, 3, 6, 5), (2, 2), (2, 2), ((0, 0), (0, 0)), (1, 1)),
    ((1, 2, 7, 6), (3, 2), (2, 1), ((1, 2), (1, 0)), (1, 2)),
    ((5, 4), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1)),
]


def _geo(kernel, stride, padding, dilation) -> dict:
    return {"kernel_size": kernel, "stride": stride, "padding": padding, "dilation": dilation}


def _window_samples(which: str):
    def sampler(d: Draw) -> list[Sample]:
        out = []
        for k, (xs, *geometry) in enumerate(_WINDOWS):
            geo = _geo(*geometry)
            x = d.distinct(xs, step=0.1)
            if which in ("sliding_windows", "window_sum", "max_pool2d"):
                out.append(S(f"g{k}", x, **geo))
                continue
            if which == "sliding_windows_transpose":
                shape = np.shape(_jax_windows(jnp.zeros(xs), **geo))
                out.append(S(f"g{k}", d.u(shape), in_size=xs[-2:], **geo))
                continue
            y = np.asarray(_jax_max_pool(jnp.asarray(x), **geo))
            if which == "window_sum_transpose":
                out.append(S(f"g{k}", d.u(y.shape), in_size=xs[-2:], **geo))
            elif which == "max_pool2d_jvp":
                out.append(S(f"g{k}", d.u(xs), x, y, **geo))
            else:
                out.append(S(f"g{k}", d.u(y.shape), x, y, **geo))
        return out

    return sampler


def _windows(m, x, **geo):
    if m is JNP:
        return _jax_windows(x, **geo)
    return _bind("sliding_windows", x, pad_value=0.0, **geo)


def _windows_t(m, g, *, in_size, **geo):
    if m is JNP:
        return _jax_transpose(_jax_windows, g.shape[:-4] + tuple(in_size), g, **geo)
    return _bind("sliding_windows_transpose", g, in_size=in_size, **geo)


def _window_sum(m, x, **geo):
    return _jax_window_sum(x, **geo) if m is JNP else _bind("window_sum", x, **geo)


def _window_sum_t(m, g, *, in_size, **geo):
    if m is JNP:
        return _jax_transpose(_jax_window_sum, g.shape[:-2] + tuple(in_size), g, **geo)
    return _bind("window_sum_transpose", g, in_size=in_size, **geo)


def _max_pool(m, x, **geo):
    return _jax_max_pool(x, **geo) if m is JNP else _bind("max_pool2d", x, **geo)


def _max_pool_jvp(m, t, x, y, **geo):
    if m is JNP:
        return jax.jvp(lambda v: _jax_max_pool(v, **geo), (x,), (t,))[1]
    return _bind("max_pool2d_jvp", t, x, y, **geo)


def _max_pool_vjp(m, g, x, y, **geo):
    if m is JNP:
        return jax.vjp(lambda v: _jax_max_pool(v, **geo), x)[1](g)[0]
    return _bind("max_pool2d_vjp", g, x, y, **geo)


add("sliding_windows", _windows, _window_samples("sliding_windows"), **NN)
add(
    "sliding_windows_transpose",
    _windows_t,
    _window_samples("sliding_windows_transpose"),
    **NN,
)
add("window_sum", _window_sum, _window_samples("window_sum"), **NN)
add("window_sum_transpose", _window_sum_t, _window_samples("window_sum_transpose"), **NN)
add("max_pool2d", _max_pool, _window_samples("max_pool2d"), **NN)
add(
    "max_pool2d_jvp",
    _max_pool_jvp,
    _window_samples("max_pool2d_jvp"),
    diff_operands=(0,),
    **NN,
)
add(
    "max_pool2d_vjp",
    _max_pool_vjp,
    _window_samples("max_pool2d_vjp"),
    diff_operands=(0,),
    **NN,
)

# -- activations -------------------------------------------------------------------------------


def _relu_samples(d: Draw) -> list[Sample]:
    return [S("4x5", d.away((4, 5), lo=0.05, hi=3.0))]  # away from the kink


def _softplus_samples(d: Draw) -> list[Sample]:
    big = np.array([-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 800.0])
    return [S("3x4", d.u((3, 4), -4.0, 4.0)), S("large", d._f(big + d.u((7,), -0.1, 0.1)))]


add("relu", lambda m, x: jax.nn.relu(x) if m is JNP else _bind("relu", x), _relu_samples, **NN)
add(
    "softplus",
    lambda m, x: jax.nn.softplus(x) if m is JNP else _bind("softplus", x),
    _softplus_samples,
    **NN,
)
