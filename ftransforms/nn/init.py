"""Parameter initialisers with torch's default distributions, from an explicit
``numpy.random.Generator`` (or ``cupy.random.Generator``: the arrays then live on the GPU).

``init_linear`` and ``init_conv2d`` draw ``w`` and ``b`` uniformly from
``[-1/sqrt(fan_in), 1/sqrt(fan_in))`` (torch's ``kaiming_uniform_(a=sqrt(5))`` and bias
rule), with ``fan_in = in_features`` or ``in_channels / groups * kh * kw``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

from ftransforms.nn._utils import positive_pair


def _uniform(rng: Any, bound: float, shape: tuple, dtype: Any) -> Any:
    dtype = numpy.dtype(dtype)
    draw = numpy.float32 if dtype == numpy.float32 else numpy.float64
    u = rng.random(shape, dtype=draw)
    out = (2 * bound) * u - bound
    return out if out.dtype == dtype else out.astype(dtype)


def _check_rng(rng: Any, where: str) -> None:
    if not hasattr(rng, "random"):
        raise TypeError(
            f"{where}: rng must be a numpy.random.Generator (numpy.random.default_rng(seed)) "
            f"or a cupy.random.Generator, got {type(rng).__name__}"
        )


def init_linear(
    rng: Any, in_features: int, out_features: int, dtype: Any = numpy.float32, bias: bool = True
) -> dict[str, Any]:
    """``{"w": (out_features, in_features), "b": (out_features,)}`` (``"b"`` is None
    without ``bias``), torch's ``nn.Linear`` initialisation.

    Example:
        >>> import numpy as np
        >>> p = init_linear(np.random.default_rng(0), 3, 2)
        >>> p["w"].shape, p["b"].shape, p["w"].dtype
        ((2, 3), (2,), dtype('float32'))
    """
    _check_rng(rng, "init_linear(rng, in_features, out_features)")
    bound = 1 / math.sqrt(in_features) if in_features > 0 else 0.0
    w = _uniform(rng, bound, (out_features, in_features), dtype)
    b = _uniform(rng, bound, (out_features,), dtype) if bias else None
    return {"w": w, "b": b}


def init_conv2d(
    rng: Any,
    in_channels: int,
    out_channels: int,
    kernel_size: Any,
    groups: int = 1,
    dtype: Any = numpy.float32,
    bias: bool = True,
) -> dict[str, Any]:
    """``{"w": (out, in/groups, kh, kw), "b": (out,)}``, torch's ``nn.Conv2d``
    initialisation (uniform in ``+-1/sqrt(fan_in)``, ``fan_in = in/groups * kh * kw``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> p = nn.init_conv2d(np.random.default_rng(0), 3, 8, kernel_size=3)
        >>> p["w"].shape, p["b"].shape, p["w"].dtype
        ((8, 3, 3, 3), (8,), dtype('float32'))
        >>> bool(np.abs(p["w"]).max() <= 1 / np.sqrt(3 * 3 * 3))
        True
        >>> nn.conv2d(np.ones((1, 3, 5, 5), np.float32), p["w"], p["b"]).shape
        (1, 8, 3, 3)
    """
    where = "init_conv2d(rng, in_channels, out_channels, kernel_size)"
    _check_rng(rng, where)
    kh, kw = positive_pair(kernel_size, "kernel_size", where)
    if in_channels % groups or out_channels % groups:
        raise ValueError(f"{where}: in_channels and out_channels must be multiples of groups")
    fan_in = in_channels // groups * kh * kw
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
    w = _uniform(rng, bound, (out_channels, in_channels // groups, kh, kw), dtype)
    b = _uniform(rng, bound, (out_channels,), dtype) if bias else None
    return {"w": w, "b": b}


def init_mlp(rng: Any, sizes: Sequence[int], dtype: Any = numpy.float32) -> list[dict[str, Any]]:
    """A list of :func:`init_linear` layers ``sizes[0] -> sizes[1] -> ... -> sizes[-1]``,
    for :func:`ftransforms.nn.mlp`.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> params = nn.init_mlp(np.random.default_rng(0), [4, 8, 3])
        >>> [layer["w"].shape for layer in params]
        [(8, 4), (3, 8)]
        >>> nn.mlp(params, np.ones((5, 4), np.float32)).shape
        (5, 3)
    """
    sizes = list(sizes)
    if len(sizes) < 2:
        raise ValueError(f"init_mlp: sizes needs at least two entries, got {sizes}")
    return [init_linear(rng, a, b, dtype) for a, b in zip(sizes[:-1], sizes[1:])]
