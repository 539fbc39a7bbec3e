"""JAX's ``jax.example_libraries.stax``: neural networks as pairs of pure functions.

A layer is ``(init_fun, apply_fun)``: ``output_shape, params = init_fun(rng, input_shape)``
makes the parameters from a ``ftransforms.random`` key (the batch dimension of
``input_shape`` may be ``-1``), and ``apply_fun(params, inputs, **kwargs)`` computes the
layer (``rng=`` a key, for :func:`Dropout`).  :func:`serial` and :func:`parallel` combine
layers into layers; parameters are nested tuples and lists, pytrees for ``grad``, ``vmap``
and the optimizers of :mod:`ftransforms.example_libraries.optimizers`.  The layers compute
with ``ftransforms.numpy`` and ``ftransforms.lax``, so every transform applies to them.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.example_libraries import stax
    >>> init, apply = stax.serial(stax.Dense(8), stax.Relu, stax.Dense(3), stax.LogSoftmax)
    >>> out_shape, params = init(ft.random.key(0), (-1, 4))
    >>> out_shape, apply(params, np.ones((2, 4))).shape
    ((-1, 3), (2, 3))
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import ftransforms.numpy as fnp
from ftransforms import lax, random
from ftransforms.nn.activations import (
    elu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from ftransforms.nn.activations import gelu as _gelu
from ftransforms.nn.initializers import glorot_normal, normal, ones, zeros

__all__ = [
    "AvgPool",
    "BatchNorm",
    "Conv",
    "Conv1DTranspose",
    "ConvTranspose",
    "Dense",
    "Dropout",
    "Elu",
    "Exp",
    "FanInConcat",
    "FanInSum",
    "FanOut",
    "Flatten",
    "Gelu",
    "GeneralConv",
    "GeneralConvTranspose",
    "Identity",
    "LeakyRelu",
    "LogSoftmax",
    "MaxPool",
    "Relu",
    "Selu",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "SumPool",
    "Tanh",
    "elementwise",
    "elu",
    "gelu",
    "glorot",
    "glorot_normal",
    "leaky_relu",
    "log_softmax",
    "logsoftmax",
    "normal",
    "ones",
    "parallel",
    "randn",
    "relu",
    "selu",
    "serial",
    "shape_dependent",
    "sigmoid",
    "softmax",
    "softplus",
    "standardize",
    "zeros",
]

Layer = tuple[Callable[..., Any], Callable[..., Any]]


class _NamedLayer(tuple):
    """A module-level layer ``(init_fun, apply_fun)`` (``stax.Relu``) with a docstring."""


def _named(layer: Layer, doc: str) -> Layer:
    named = _NamedLayer(layer)
    named.__doc__ = doc
    return named


_ELEMENTWISE_EXAMPLE = """

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.example_libraries import stax
    >>> init, apply = stax.{name}
    >>> init(ft.random.key(0), (-1, 3))
    ((-1, 3), ())
    >>> np.allclose(apply((), np.array([[-1.0, 0.5, 2.0]])), {check})
    True
"""


def _activation(name: str, fun: Callable[..., Any], check: str, **kwargs: Any) -> Layer:
    doc = f"``stax.{name}``: the parameterless layer of ``{check.split('(')[0]}``"
    doc += " over the last axis." if kwargs else "."
    example = _ELEMENTWISE_EXAMPLE.format(
        name=name, check=check.format(x="np.array([[-1.0, 0.5, 2.0]])")
    )
    return _named(elementwise(fun, **kwargs), doc + example)


#: ``stax.logsoftmax``: JAX's older name of :func:`log_softmax`.
logsoftmax = log_softmax


def gelu(x: Any, approximate: bool = True) -> Any:
    """``stax.gelu`` (JAX's ``jax.nn.gelu``): the GELU, by default its tanh approximation
    as in JAX (``approximate=False``: the exact ``x * Phi(x)``).

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import stax
        >>> x = np.array([-1.0, 0.0, 2.0])
        >>> t = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
        >>> bool(np.allclose(stax.gelu(x), t)), bool(np.allclose(stax.gelu(x, False), t))
        (True, False)
    """
    return _gelu(x, approximate="tanh" if approximate else "none")


def randn(stddev: float = 1e-2) -> Callable[..., Any]:
    """``stax.randn``: the initializer of normal draws with standard deviation ``stddev``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> stax.randn(0.1)(ft.random.key(0), (2, 3)).shape
        (2, 3)
    """
    return normal(stddev)


def glorot(out_dim: int = 0, in_dim: int = 1, scale: float = 1.0) -> Callable[..., Any]:  # noqa: ARG001
    """``stax.glorot``: JAX's older spelling of ``glorot_normal(in_dim, out_dim)`` (its
    ``scale`` is ignored, as in JAX).

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> stax.glorot()(ft.random.key(0), (4, 3)).shape
        (4, 3)
    """
    return glorot_normal(in_dim, out_dim)


def Dense(  # noqa: N802  (JAX's name)
    out_dim: int,
    W_init: Callable[..., Any] = glorot_normal(),  # noqa: N803, B008
    b_init: Callable[..., Any] = normal(),  # noqa: N803, B008
) -> Layer:
    """``stax.Dense``: ``inputs @ W + b`` with ``W`` of shape ``(in_dim, out_dim)``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> init, apply = stax.Dense(5)
        >>> shape, (W, b) = init(ft.random.key(1), (-1, 3))
        >>> shape, W.shape, b.shape, apply((W, b), np.ones((2, 3))).shape
        ((-1, 5), (3, 5), (5,), (2, 5))
    """

    def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:
        k1, k2 = random.split(rng)
        W = W_init(k1, (input_shape[-1], out_dim))  # noqa: N806
        return tuple(input_shape[:-1]) + (out_dim,), (W, b_init(k2, (out_dim,)))

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        W, b = params  # noqa: N806
        return fnp.dot(inputs, W) + b

    return init_fun, apply_fun


def _window_output(size: int, window: int, stride: int, padding: Any) -> int:
    """The length of an axis of ``size`` after a window of ``window`` moved by ``stride``
    (``padding`` 'SAME', 'VALID' or a ``(low, high)`` pair); ``-1`` stays ``-1``."""
    if size < 0:
        return size
    if isinstance(padding, str):
        if padding.upper() == "SAME":
            return -(-size // stride)
        return max(0, -(-(size - window + 1) // stride))
    low, high = padding
    return max(0, (size + low + high - window) // stride + 1)


def _spatial_paddings(padding: Any, count: int) -> list[Any]:
    return [padding] * count if isinstance(padding, str) else [tuple(p) for p in padding]


def GeneralConv(  # noqa: N802  (JAX's name)
    dimension_numbers: tuple[str, str, str],
    out_chan: int,
    filter_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: Any = "VALID",
    W_init: Callable[..., Any] | None = None,  # noqa: N803
    b_init: Callable[..., Any] = normal(1e-6),  # noqa: B008
) -> Layer:
    """``stax.GeneralConv``: a convolution by ``lax.conv_general_dilated`` with the layouts
    ``dimension_numbers = (lhs_spec, rhs_spec, out_spec)`` (as ``('NHWC', 'HWIO',
    'NHWC')``), plus a bias broadcast over the output's channel axis.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> init, apply = stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 3), padding="SAME")
        >>> shape, params = init(ft.random.key(0), (2, 1, 6, 6))
        >>> shape, apply(params, np.ones((2, 1, 6, 6))).shape
        ((2, 4, 6, 6), (2, 4, 6, 6))
    """
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = tuple(strides or one)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))  # noqa: N806

    def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:
        sizes = iter(filter_shape)
        kernel_shape = [
            out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I" else next(sizes)
            for c in rhs_spec
        ]
        spatial = [c for c in lhs_spec if c not in "NC"]
        pads = _spatial_paddings(padding, len(spatial))
        out_size = {"N": input_shape[lhs_spec.index("N")], "C": out_chan}
        for k, c in enumerate(spatial):
            window = kernel_shape[rhs_spec.index(c)]
            out_size[c] = _window_output(
                input_shape[lhs_spec.index(c)], window, strides[k], pads[k]
            )
        output_shape = tuple(out_size[c] for c in out_spec)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        W, b = params  # noqa: N806
        out = lax.conv_general_dilated(
            inputs, W, strides, padding, one, one, dimension_numbers=dimension_numbers
        )
        return out + b

    return init_fun, apply_fun


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))
Conv.__doc__ = """``stax.Conv(out_chan, filter_shape, strides=None, padding='VALID', W_init=None,
b_init=normal(1e-6))``: :func:`GeneralConv` on ``('NHWC', 'HWIO', 'NHWC')`` layouts.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.example_libraries import stax
    >>> init, apply = stax.Conv(8, (3, 3), strides=(2, 2), padding="SAME")
    >>> shape, (W, b) = init(ft.random.key(0), (-1, 28, 28, 1))
    >>> shape, W.shape, apply((W, b), np.ones((2, 28, 28, 1))).shape
    ((-1, 14, 14, 8), (3, 3, 1, 8), (2, 14, 14, 8))
"""


def GeneralConvTranspose(  # noqa: N802  (JAX's name)
    dimension_numbers: tuple[str, str, str],
    out_chan: int,
    filter_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: Any = "VALID",
    W_init: Callable[..., Any] | None = None,  # noqa: N803
    b_init: Callable[..., Any] = normal(1e-6),  # noqa: B008
) -> Layer:
    """``stax.GeneralConvTranspose``: a transposed convolution by ``lax.conv_transpose``
    with the layouts ``dimension_numbers = (lhs_spec, rhs_spec, out_spec)``, plus a bias
    broadcast over the output's channel axis.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> init, apply = stax.GeneralConvTranspose(("NHWC", "HWIO", "NHWC"), 4, (3, 3), (2, 2))
        >>> shape, params = init(ft.random.key(0), (2, 5, 5, 1))
        >>> shape, apply(params, np.ones((2, 5, 5, 1))).shape
        ((2, 11, 11, 4), (2, 11, 11, 4))
    """
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    strides = tuple(strides or (1,) * len(filter_shape))
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))  # noqa: N806

    def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:
        sizes = iter(filter_shape)
        kernel_shape = [
            out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I" else next(sizes)
            for c in rhs_spec
        ]
        output_shape = lax.conv_transpose_shape_tuple(
            input_shape, kernel_shape, strides, padding, dimension_numbers
        )
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        W, b = params  # noqa: N806
        out = lax.conv_transpose(inputs, W, strides, padding, dimension_numbers=dimension_numbers)
        return out + b

    return init_fun, apply_fun


ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))
ConvTranspose.__doc__ = """``stax.ConvTranspose(out_chan, filter_shape, strides=None,
padding='VALID', W_init=None, b_init=normal(1e-6))``: :func:`GeneralConvTranspose` on
``('NHWC', 'HWIO', 'NHWC')`` layouts.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.example_libraries import stax
    >>> init, apply = stax.ConvTranspose(3, (2, 2), strides=(2, 2))
    >>> shape, (W, b) = init(ft.random.key(0), (-1, 4, 4, 1))
    >>> shape, W.shape, apply((W, b), np.ones((2, 4, 4, 1))).shape
    ((-1, 8, 8, 3), (2, 2, 1, 3), (2, 8, 8, 3))
"""

Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
Conv1DTranspose.__doc__ = """``stax.Conv1DTranspose(out_chan, filter_shape, strides=None,
padding='VALID', W_init=None, b_init=normal(1e-6))``: :func:`GeneralConvTranspose` on
``('NHC', 'HIO', 'NHC')`` layouts (one spatial axis).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.example_libraries import stax
    >>> init, apply = stax.Conv1DTranspose(2, (3,), padding="SAME")
    >>> shape, params = init(ft.random.key(0), (-1, 6, 3))
    >>> shape, apply(params, np.ones((2, 6, 3))).shape
    ((-1, 6, 2), (2, 6, 2))
"""


def BatchNorm(  # noqa: N802  (JAX's name)
    axis: Any = (0, 1, 2),
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
    beta_init: Callable[..., Any] = zeros,
    gamma_init: Callable[..., Any] = ones,
) -> Layer:
    """``stax.BatchNorm``: the inputs standardized over ``axis`` (the batch's own mean and
    variance, no running averages, as in JAX), times ``gamma`` plus ``beta`` (parameters of
    the remaining axes; ``()`` where ``scale``/``center`` is false).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> init, apply = stax.BatchNorm(axis=0)
        >>> shape, params = init(ft.random.key(0), (-1, 3))
        >>> x = np.arange(12.0).reshape(4, 3)
        >>> np.round(apply(params, x).mean(axis=0), 12)
        array([0., 0., 0.])
    """
    axes = (axis,) if isinstance(axis, int) else tuple(axis)

    def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axes)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return tuple(input_shape), (beta, gamma)

    def apply_fun(params: Any, x: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        beta, gamma = params
        expand = tuple(None if i in axes else slice(None) for i in range(fnp.ndim(x)))
        z = standardize(x, axes, epsilon=epsilon)
        if center and scale:
            return gamma[expand] * z + beta[expand]
        if center:
            return z + beta[expand]
        if scale:
            return gamma[expand] * z
        return z

    return init_fun, apply_fun


def elementwise(fun: Callable[..., Any], **fun_kwargs: Any) -> Layer:
    """``stax.elementwise``: the parameterless layer ``fun(inputs, **fun_kwargs)``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> init, apply = stax.elementwise(np.clip, a_min=0.0, a_max=1.0)
        >>> init(ft.random.key(0), (2,)), apply((), np.array([-1.0, 2.0]))
        (((2,), ()), array([0., 1.]))
    """

    def init_fun(rng: Any, input_shape: Any) -> Any:  # noqa: ARG001
        return input_shape, ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        return fun(inputs, **fun_kwargs)

    return init_fun, apply_fun


Tanh = _activation("Tanh", fnp.tanh, "np.tanh({x})")
Relu = _activation("Relu", relu, "np.maximum({x}, 0)")
Exp = _activation("Exp", fnp.exp, "np.exp({x})")
LogSoftmax = _activation("LogSoftmax", log_softmax, "log_softmax({x})", axis=-1)
Softmax = _activation("Softmax", softmax, "softmax({x})", axis=-1)
Softplus = _activation("Softplus", softplus, "np.logaddexp({x}, 0)")
Sigmoid = _activation("Sigmoid", sigmoid, "1 / (1 + np.exp(-{x}))")
Elu = _activation("Elu", elu, "elu({x})")
LeakyRelu = _activation("LeakyRelu", leaky_relu, "leaky_relu({x})")
Selu = _activation("Selu", selu, "selu({x})")
Gelu = _activation("Gelu", gelu, "gelu({x})")


def _pooling_layer(
    reducer: Callable[..., Any], init_val: float, average: bool = False
) -> Callable[..., Layer]:
    def PoolingLayer(  # noqa: N802  (JAX's name)
        window_shape: Sequence[int],
        strides: Sequence[int] | None = None,
        padding: Any = "VALID",
        spec: str | None = None,
    ) -> Layer:
        spatial_strides = tuple(strides or (1,) * len(window_shape))
        spatial_window = tuple(window_shape)
        if spec is None:
            batch_axis, channel_axis = 0, len(window_shape) + 1
        else:
            batch_axis, channel_axis = spec.index("N"), spec.index("C")
        window, steps = list(spatial_window), list(spatial_strides)
        for i in sorted((batch_axis, channel_axis)):
            window.insert(i, 1)
            steps.insert(i, 1)
        spatial_axes = [i for i in range(len(window)) if i not in (batch_axis, channel_axis)]

        def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:  # noqa: ARG001
            out = list(input_shape)
            pads = _spatial_paddings(padding, len(spatial_axes))
            for k, i in enumerate(spatial_axes):
                out[i] = _window_output(input_shape[i], window[i], steps[i], pads[k])
            return tuple(out), ()

        def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
            out = lax.reduce_window(inputs, init_val, reducer, window, steps, padding)
            if not average:
                return out
            # each output divided by the number of inputs its window covered (padding
            # excluded), as JAX's AvgPool does
            spatial_shape = tuple(fnp.shape(inputs)[i] for i in spatial_axes)
            counts = lax.reduce_window(
                fnp.ones(spatial_shape), 0.0, lax.add, spatial_window, spatial_strides, padding
            )
            for i in sorted((batch_axis, channel_axis)):
                counts = fnp.expand_dims(counts, i)
            return out / counts

        return init_fun, apply_fun

    return PoolingLayer


MaxPool = _pooling_layer(lax.max, -math.inf)
MaxPool.__doc__ = """``stax.MaxPool(window_shape, strides=None, padding='VALID', spec=None)``:
the maximum over each window of the spatial axes (``spec`` such as ``'NHWC'`` names the
layout; by default the batch axis is first and the channel axis last).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.example_libraries import stax
    >>> init, apply = stax.MaxPool((2, 2), strides=(2, 2))
    >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
    >>> init(ft.random.key(0), (-1, 4, 4, 1))[0], apply((), x)[0, :, :, 0]
    ((-1, 2, 2, 1), array([[ 5.,  7.],
           [13., 15.]]))
"""
SumPool = _pooling_layer(lax.add, 0.0)
SumPool.__doc__ = """``stax.SumPool(window_shape, strides=None, padding='VALID', spec=None)``:
the sum over each window of the spatial axes.

Example:
    >>> import numpy as np
    >>> from ftransforms.example_libraries import stax
    >>> _, apply = stax.SumPool((2, 2), strides=(2, 2))
    >>> apply((), np.ones((1, 4, 4, 1)))[0, :, :, 0]
    array([[4., 4.],
           [4., 4.]])
"""
AvgPool = _pooling_layer(lax.add, 0.0, average=True)
AvgPool.__doc__ = """``stax.AvgPool(window_shape, strides=None, padding='VALID', spec=None)``:
the mean over each window of the spatial axes (with 'SAME' padding, of the inputs the
window covers).

Example:
    >>> import numpy as np
    >>> from ftransforms.example_libraries import stax
    >>> _, apply = stax.AvgPool((2, 2), strides=(2, 2))
    >>> apply((), np.arange(16.0).reshape(1, 4, 4, 1))[0, :, :, 0]
    array([[ 2.5,  4.5],
           [10.5, 12.5]])
"""


def _flatten() -> Layer:
    def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:  # noqa: ARG001
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        return fnp.reshape(inputs, (fnp.shape(inputs)[0], -1))

    return init_fun, apply_fun


Flatten = _named(
    _flatten(),
    """``stax.Flatten``: the layer that keeps the first (batch) axis and flattens the rest.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.example_libraries import stax
    >>> init, apply = stax.Flatten
    >>> init(ft.random.key(0), (-1, 4, 4, 2))[0], apply((), np.ones((3, 4, 4, 2))).shape
    ((-1, 32), (3, 32))
""",
)


def _identity() -> Layer:
    def init_fun(rng: Any, input_shape: Any) -> Any:  # noqa: ARG001
        return input_shape, ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        return inputs

    return init_fun, apply_fun


Identity = _named(
    _identity(),
    """``stax.Identity``: the layer that returns its inputs.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.example_libraries import stax
    >>> init, apply = stax.Identity
    >>> init(ft.random.key(0), (-1, 2)), apply((), np.ones(2))
    (((-1, 2), ()), array([1., 1.]))
""",
)


def FanOut(num: int) -> Layer:  # noqa: N802  (JAX's name)
    """``stax.FanOut``: the layer that returns a list of ``num`` copies of its input (for
    :func:`parallel` branches).

    Example:
        >>> import numpy as np
        >>> from ftransforms.example_libraries import stax
        >>> len(stax.FanOut(3)[1]((), np.ones(2)))
        3
    """

    def init_fun(rng: Any, input_shape: Any) -> Any:  # noqa: ARG001
        return [input_shape] * num, ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        return [inputs] * num

    return init_fun, apply_fun


def _fan_in_sum() -> Layer:
    def init_fun(rng: Any, input_shape: Any) -> Any:  # noqa: ARG001
        return input_shape[0], ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        return functools.reduce(lambda a, b: a + b, inputs)

    return init_fun, apply_fun


FanInSum = _named(
    _fan_in_sum(),
    """``stax.FanInSum``: the layer that adds the inputs of a list (residual connections).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.example_libraries import stax
    >>> init, apply = stax.FanInSum
    >>> init(ft.random.key(0), [(-1, 2), (-1, 2)])[0], apply((), [np.ones(2), np.ones(2)])
    ((-1, 2), array([2., 2.]))
""",
)


def FanInConcat(axis: int = -1) -> Layer:  # noqa: N802  (JAX's name)
    """``stax.FanInConcat``: the layer that concatenates the inputs of a list on ``axis``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> init, apply = stax.FanInConcat()
        >>> init(ft.random.key(0), [(-1, 2), (-1, 3)])[0]
        (-1, 5)
        >>> apply((), [np.ones((1, 2)), np.ones((1, 3))]).shape
        (1, 5)
    """

    def init_fun(rng: Any, input_shape: Any) -> Any:  # noqa: ARG001
        first = tuple(input_shape[0])
        ax = axis % len(first)
        size = sum(shape[ax] for shape in input_shape)
        return first[:ax] + (size,) + first[ax + 1 :], ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        return fnp.concatenate(inputs, axis)

    return init_fun, apply_fun


def Dropout(rate: float, mode: str = "train") -> Layer:  # noqa: N802  (JAX's name)
    """``stax.Dropout``: in ``mode='train'``, each input kept with probability ``rate``
    (JAX's meaning: the keep rate) and divided by it, else 0; needs ``rng=`` a key.  In
    any other mode the inputs pass through.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> _, apply = stax.Dropout(0.5)
        >>> y = apply((), np.ones(1000), rng=ft.random.key(0))
        >>> sorted(set(np.unique(y).tolist()))
        [0.0, 2.0]
    """

    def init_fun(rng: Any, input_shape: Any) -> Any:  # noqa: ARG001
        return input_shape, ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        rng = kwargs.get("rng")
        if rng is None:
            raise ValueError(
                "stax.Dropout's apply_fun(params, inputs, rng=key): a dropout layer draws "
                "its mask from a PRNG key, and none came.  Call apply_fun(params, inputs, "
                "rng=ftransforms.random.key(0)) (serial passes one key to each layer)."
            )
        if mode == "train":
            keep = random.bernoulli(rng, rate, fnp.shape(inputs))
            return fnp.where(keep, inputs / rate, 0)
        return inputs

    return init_fun, apply_fun


def serial(*layers: Layer) -> Layer:
    """``stax.serial``: the layers applied one after the other; the parameters are the
    list of each layer's, and a ``rng=`` key is split into one key per layer.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> init, apply = stax.serial(stax.Dense(4), stax.Tanh, stax.Dense(1))
        >>> shape, params = init(ft.random.key(0), (-1, 2))
        >>> shape, len(params), apply(params, np.ones((5, 2))).shape
        ((-1, 1), 3, (5, 1))
    """
    count = len(layers)
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng: Any, input_shape: Any) -> Any:
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, count) if rng is not None else (None,) * count
        for fun, param, key in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=key, **kwargs)
        return inputs

    return init_fun, apply_fun


def parallel(*layers: Layer) -> Layer:
    """``stax.parallel``: the layers applied to the items of a list of inputs (one each),
    as after :func:`FanOut`; the parameters are the tuple of each layer's.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> branches = stax.parallel(stax.Dense(3), stax.Identity)
        >>> init, apply = stax.serial(stax.FanOut(2), branches, stax.FanInConcat())
        >>> shape, params = init(ft.random.key(0), (-1, 2))
        >>> shape, apply(params, np.ones((4, 2))).shape
        ((-1, 5), (4, 5))
    """
    count = len(layers)
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng: Any, input_shape: Any) -> Any:
        rngs = random.split(rng, count)
        results = [init(key, shape) for init, key, shape in zip(init_funs, rngs, input_shape)]
        return [r[0] for r in results], tuple(r[1] for r in results)

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, count) if rng is not None else (None,) * count
        return [
            f(p, x, rng=key, **kwargs) for f, p, x, key in zip(apply_funs, params, inputs, rngs)
        ]

    return init_fun, apply_fun


def shape_dependent(make_layer: Callable[[Any], Layer]) -> Layer:
    """``stax.shape_dependent``: the layer that ``make_layer(input_shape)`` returns, made
    anew from the shape at initialization and from ``inputs.shape`` when applied.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.example_libraries import stax
        >>> init, apply = stax.shape_dependent(lambda shape: stax.Dense(shape[-1]))
        >>> shape, params = init(ft.random.key(0), (-1, 3))
        >>> shape, apply(params, np.ones((2, 3))).shape
        ((-1, 3), (2, 3))
    """

    def init_fun(rng: Any, input_shape: Any) -> Any:
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        return make_layer(fnp.shape(inputs))[1](params, inputs, **kwargs)

    return init_fun, apply_fun
