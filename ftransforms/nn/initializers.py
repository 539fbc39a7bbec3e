"""JAX's parameter initializers (``jax.nn.initializers``): each factory returns
``init(key, shape, dtype=None) -> array`` drawing from a JAX-style key
(NOTE [random keys] in ``ftransforms/random_keys.py``), with JAX's formulas, so the same
key gives JAX's parameters.  The default dtype is ``float64`` (JAX's with
``jax_enable_x64``; NumPy's default).

The variance-scaling family reads the fans from the shape as JAX does: ``in_axis=-2`` and
``out_axis=-1`` (a ``(in, out)`` dense kernel, or ``(..., in, out)`` for a convolution,
whose other axes are the receptive field), ``batch_axis`` left out of both.

Example:
    >>> import ftransforms as ft
    >>> from ftransforms.nn import initializers
    >>> w = initializers.glorot_normal()(ft.random.key(0), (3, 4))
    >>> w.shape, w.dtype
    ((3, 4), dtype('float64'))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy

import ftransforms.numpy as fnp
from ftransforms import random_keys
from ftransforms.core.errors import PRNGKeyError

__all__ = [
    "Initializer",
    "constant",
    "delta_orthogonal",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "kaiming_normal",
    "kaiming_uniform",
    "lecun_normal",
    "lecun_uniform",
    "normal",
    "ones",
    "orthogonal",
    "truncated_normal",
    "uniform",
    "variance_scaling",
    "xavier_normal",
    "xavier_uniform",
    "zeros",
]

Axes = int | Sequence[int]


@runtime_checkable
class Initializer(Protocol):
    """What every factory here returns: ``init(key, shape, dtype=None) -> array``.

    Example:
        >>> from ftransforms.nn import initializers
        >>> isinstance(initializers.normal(0.1), initializers.Initializer)
        True
    """

    def __call__(self, key: Any, shape: Sequence[int], dtype: Any = None) -> Any: ...


def _dtype(dtype: Any) -> numpy.dtype:
    return numpy.dtype(numpy.float64 if dtype is None else dtype)


def _shape(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, (int, numpy.integer)) else tuple(map(int, shape))


def zeros(key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
    """Zeros of ``shape`` (the key is not used): ``jax.nn.initializers.zeros``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.nn import initializers
        >>> initializers.zeros(ft.random.key(0), (2,)).tolist()
        [0.0, 0.0]
    """
    return numpy.zeros(_shape(shape), _dtype(dtype))


def ones(key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
    """Ones of ``shape`` (the key is not used): ``jax.nn.initializers.ones``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.nn import initializers
        >>> initializers.ones(ft.random.key(0), (2,)).tolist()
        [1.0, 1.0]
    """
    return numpy.ones(_shape(shape), _dtype(dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
    """An initializer filling ``shape`` with ``value``: ``jax.nn.initializers.constant``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.nn import initializers
        >>> initializers.constant(-7)(ft.random.key(0), (2, 2)).tolist()
        [[-7.0, -7.0], [-7.0, -7.0]]
    """

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        return fnp.full(_shape(shape), value, dtype=_dtype(dtype))

    return init


def uniform(scale: Any = 1e-2, dtype: Any = None) -> Initializer:
    """Uniform values in ``[0, scale)``: ``jax.nn.initializers.uniform``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.nn import initializers
        >>> w = initializers.uniform(2.0)(ft.random.key(0), (100,))
        >>> bool((w >= 0).all() and (w < 2).all())
        True
    """

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dt = _dtype(dtype)
        return random_keys.uniform(key, _shape(shape), dt) * numpy.asarray(scale, dt)

    return init


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
    """Normal values of standard deviation ``stddev``: ``jax.nn.initializers.normal``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.nn import initializers
        >>> initializers.normal(1.0)(ft.random.key(0), (2,)).round(4).tolist()
        [-0.2058, -0.7848]
    """

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dt = _dtype(dtype)
        return random_keys.normal(key, _shape(shape), dt) * numpy.asarray(stddev, dt)

    return init


def truncated_normal(
    stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0, upper: Any = 2.0
) -> Initializer:
    """``stddev`` times a standard normal truncated to ``(lower, upper)``:
    ``jax.nn.initializers.truncated_normal``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.nn import initializers
        >>> w = initializers.truncated_normal(1.0)(ft.random.key(0), (1000,))
        >>> bool((abs(w) < 2).all())
        True
    """

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dt = _dtype(dtype)
        draw = random_keys.truncated_normal(key, lower, upper, _shape(shape), dt)
        return draw * numpy.asarray(stddev, dt)

    return init


def _size(shape: tuple, axes: Axes) -> int:
    if isinstance(axes, int):
        return shape[axes]
    return math.prod(shape[i] for i in axes)


def _fans(shape: tuple, in_axis: Axes, out_axis: Axes, batch_axis: Axes) -> tuple[float, float]:
    """JAX's ``_compute_fans``: the in and out sizes times the receptive field."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise PRNGKeyError(
            f"nn.initializers.variance_scaling: Can't compute input and output sizes of a "
            f"{len(shape)}-dimensional weights tensor with default in_axis (shape {shape}). "
            f"Must be at least 2D or specify in_axis explicitly (JAX's words)."
        )
    in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
    receptive = math.prod(shape) / in_size / out_size / _size(shape, batch_axis)
    return in_size * receptive, out_size * receptive


def _complex_uniform(key: Any, shape: tuple, dtype: numpy.dtype) -> Any:
    k_r, k_theta = random_keys.split(key)
    real = numpy.empty(0, dtype).real.dtype
    r = fnp.sqrt(2 * random_keys.uniform(k_r, shape, real)).astype(dtype)
    theta = 2 * numpy.pi * random_keys.uniform(k_theta, shape, real).astype(dtype)
    return r * fnp.exp(1j * theta)


def _complex_truncated_normal(key: Any, upper: float, shape: tuple, dtype: numpy.dtype) -> Any:
    k_r, k_theta = random_keys.split(key)
    real = numpy.empty(0, dtype).real.dtype
    t = (1 - numpy.exp(numpy.asarray(-(upper**2), dtype))) * random_keys.uniform(
        k_r, shape, real
    ).astype(dtype)
    r = fnp.sqrt(-fnp.log(1 - t))
    theta = 2 * numpy.pi * random_keys.uniform(k_theta, shape, real).astype(dtype)
    return r * fnp.exp(1j * theta)


_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


def variance_scaling(
    scale: Any,
    mode: str,
    distribution: str,
    in_axis: Axes = -2,
    out_axis: Axes = -1,
    batch_axis: Axes = (),
    dtype: Any = None,
) -> Initializer:
    """Values of variance ``scale / n``, ``n`` the fan ``mode`` names (``"fan_in"``,
    ``"fan_out"``, ``"fan_avg"``, ``"fan_geo_avg"``), from ``distribution``
    (``"truncated_normal"`` within two standard deviations, ``"normal"``, ``"uniform"``);
    complex dtypes too: ``jax.nn.initializers.variance_scaling``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.nn import initializers
        >>> init = initializers.variance_scaling(2.0, "fan_in", "normal")
        >>> w = init(ft.random.key(0), (400, 300))
        >>> round(float(w.var() * 400), 1)  # scale / fan_in
        2.0
    """
    if mode not in _MODES:
        raise PRNGKeyError(
            f"nn.initializers.variance_scaling: mode must be one of {_MODES}, got {mode!r}"
        )
    if distribution not in _DISTRIBUTIONS:
        raise PRNGKeyError(
            f"nn.initializers.variance_scaling: distribution must be one of {_DISTRIBUTIONS}, "
            f"got {distribution!r}"
        )

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        shape, dt = _shape(shape), _dtype(dtype)
        fan_in, fan_out = _fans(shape, in_axis, out_axis, batch_axis)
        denominator = {
            "fan_in": fan_in,
            "fan_out": fan_out,
            "fan_avg": (fan_in + fan_out) / 2,
            "fan_geo_avg": (fan_in * fan_out) ** 0.5,
        }[mode]
        variance = numpy.asarray(scale / denominator, dtype=dt)
        complex_ = dt.kind == "c"
        if distribution == "truncated_normal":
            if complex_:
                stddev = numpy.sqrt(variance) / numpy.asarray(0.95311164380491208, dt)
                return _complex_truncated_normal(key, 2, shape, dt) * stddev
            stddev = numpy.sqrt(variance) / numpy.asarray(0.87962566103423978, dt)
            return random_keys.truncated_normal(key, -2, 2, shape, dt) * stddev
        if distribution == "normal":
            return random_keys.normal(key, shape, dt) * numpy.sqrt(variance)
        if complex_:
            return _complex_uniform(key, shape, dt) * numpy.sqrt(variance)
        return random_keys.uniform(key, shape, dt, -1) * numpy.sqrt(3 * variance)

    return init


def _family(scale: float, mode: str, distribution: str, jax_name: str) -> Any:
    def factory(
        in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None
    ) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    factory.__name__ = factory.__qualname__ = jax_name
    factory.__module__ = __name__
    factory.__doc__ = f"""``variance_scaling({scale}, "{mode}", "{distribution}")``:
    ``jax.nn.initializers.{jax_name}``.

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms.nn import initializers
        >>> initializers.{jax_name}()(ft.random.key(0), (3, 5)).shape
        (3, 5)
    """
    return factory


glorot_uniform = _family(1.0, "fan_avg", "uniform", "glorot_uniform")
glorot_normal = _family(1.0, "fan_avg", "truncated_normal", "glorot_normal")
lecun_uniform = _family(1.0, "fan_in", "uniform", "lecun_uniform")
lecun_normal = _family(1.0, "fan_in", "truncated_normal", "lecun_normal")
he_uniform = _family(2.0, "fan_in", "uniform", "he_uniform")
he_normal = _family(2.0, "fan_in", "truncated_normal", "he_normal")
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """``scale`` times a uniformly random matrix with orthonormal rows or columns, the
    shape flattened to (all other axes, ``column_axis``): ``jax.nn.initializers.orthogonal``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.nn import initializers
        >>> w = initializers.orthogonal()(ft.random.key(0), (5, 3))
        >>> bool(np.allclose(w.T @ w, np.eye(3)))
        True
    """

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        shape, dt = _shape(shape), _dtype(dtype)
        if len(shape) < 2:
            raise PRNGKeyError(
                f"nn.initializers.orthogonal: needs a shape of at least 2 dimensions, got {shape}"
            )
        if 0 in shape:
            return numpy.zeros(shape, dt)
        n_cols = shape[column_axis]
        q = random_keys.orthogonal(key, math.prod(shape) // n_cols, (), dt, n_cols)
        rest = tuple(d for i, d in enumerate(shape) if i != column_axis % len(shape))
        q = fnp.moveaxis(fnp.reshape(q, (*rest, n_cols)), -1, column_axis)
        return numpy.asarray(scale, dt) * q

    return init


def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """A convolution kernel (3-, 4- or 5-d, ``(*spatial, in, out)``) that is zero but for an
    orthogonal ``(in, out)`` matrix at the spatial centre: ``jax.nn.initializers.delta_orthogonal``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.nn import initializers
        >>> w = initializers.delta_orthogonal()(ft.random.key(0), (3, 3, 2, 4))
        >>> w.shape, bool(np.allclose(w[1, 1] @ w[1, 1].T, np.eye(2))), float(abs(w[0]).sum())
        ((3, 3, 2, 4), True, 0.0)
    """

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        shape, dt = _shape(shape), _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise PRNGKeyError(
                f"nn.initializers.delta_orthogonal: needs a 3-, 4- or 5-dimensional shape, got "
                f"{shape}"
            )
        if shape[-1] < shape[-2]:
            raise PRNGKeyError(
                f"nn.initializers.delta_orthogonal: fan_in (shape[-2] = {shape[-2]}) must not "
                f"exceed fan_out (shape[-1] = {shape[-1]})"
            )
        centre = orthogonal(scale, column_axis, dt)(key, shape[-2:])
        where = tuple((k - 1) // 2 for k in shape[:-2])
        return fnp.at(fnp.zeros(shape, dt))[where].set(centre)

    return init
