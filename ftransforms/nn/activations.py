"""Activation functions, softmax and friends (``jax.nn`` / ``torch.nn.functional`` names).

Conventions at kinks follow ``jax.nn``: ``relu'(0) = 0``, ``leaky_relu'(0) = 1``.
``sigmoid`` (``expit``, ops/special.py) and ``softplus`` (ops/nn.py) are primitives with
overflow-free implementations, ``relu`` (ops/nn.py) is one for speed;
``log_softmax``/``softmax``/``logsumexp`` are ``ftransforms.scipy.special``'s (the maximum
subtracted under ``stop_gradient``), with ``jax.nn``'s default axis.
"""

from __future__ import annotations

import math
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import dtype_of
from ftransforms.ops.nn import relu_p, softplus_p
from ftransforms.ops.special import erf_p, expit_p
from ftransforms.scipy import special as _special


def _in_dtype_of(y: Any, x: Any) -> Any:
    """``y`` in ``x``'s floating dtype: SciPy's ``expit``/``erf`` have no float16 loop and
    compute it in float32/float64, while ``jax.nn``'s activations keep the input's dtype."""
    dt = dtype_of(x)
    return fnp.astype(y, dt) if dt.kind == "f" and dtype_of(y) != dt else y


def relu(x: Any) -> Any:
    """``max(x, 0)``, with derivative 0 at 0 (like ``jax.nn.relu``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x = np.array([-1.0, 0.0, 2.0])
        >>> nn.relu(x)
        array([0., 0., 2.])
        >>> ft.vmap(ft.grad(nn.relu))(x)
        array([0., 0., 1.])
    """
    return relu_p.bind(x)


def relu6(x: Any) -> Any:
    """``min(max(x, 0), 6)`` (derivative 0 at both kinks).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x = np.array([-1.0, 3.0, 7.0])
        >>> nn.relu6(x)
        array([0., 3., 6.])
        >>> ft.vmap(ft.grad(nn.relu6))(x)
        array([0., 1., 0.])
    """
    return fnp.where(x <= 0, 0.0, fnp.where(x >= 6, 6.0, x))  # float for ints, as JAX


def leaky_relu(x: Any, negative_slope: float = 0.01) -> Any:
    """``x`` for ``x >= 0``, ``negative_slope * x`` otherwise (derivative 1 at 0).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x = np.array([-1.0, 0.0, 2.0])
        >>> nn.leaky_relu(x)
        array([-0.01,  0.  ,  2.  ])
        >>> ft.vmap(ft.grad(nn.leaky_relu))(x)
        array([0.01, 1.  , 1.  ])
    """
    return fnp.where(x >= 0, x, negative_slope * x)


def elu(x: Any, alpha: float = 1.0) -> Any:
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> nn.elu(np.array([-1.0, 2.0]))  # exp(-1) - 1 = -0.632...
        array([-0.63212056,  2.        ])
        >>> float(ft.grad(nn.elu)(0.0))  # alpha * exp(0)
        1.0
    """
    return fnp.where(x > 0, x, alpha * fnp.expm1(fnp.where(x > 0, 0, x)))


def sigmoid(x: Any) -> Any:
    """The logistic function ``1 / (1 + exp(-x))`` (no overflow warnings).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> nn.sigmoid(np.array([-1000.0, 0.0, 1000.0]))
        array([0. , 0.5, 1. ])
        >>> float(ft.grad(nn.sigmoid)(0.0))  # sigmoid(0) * (1 - sigmoid(0))
        0.25
    """
    return _in_dtype_of(expit_p.bind(x), x)


def log_sigmoid(x: Any) -> Any:
    """``log(sigmoid(x)) = -softplus(-x)``, finite for every finite ``x``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> nn.log_sigmoid(np.array([-1000.0, 0.0]))  # log(1/2) at 0
        array([-1.00000000e+03, -6.93147181e-01])
        >>> float(ft.grad(nn.log_sigmoid)(0.0))  # 1 - sigmoid(0)
        0.5
    """
    return -softplus_p.bind(-x)


def softplus(x: Any, beta: float = 1.0, threshold: float | None = None) -> Any:
    """``log(1 + exp(beta * x)) / beta``, computed stably.

    ``threshold`` is accepted for torch compatibility; the computation never overflows, so
    it is not needed (torch returns ``x`` above it, which differs by at most
    ``exp(-threshold)``) and is ignored.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> nn.softplus(np.array([0.0, 1000.0]))  # log 2, and no overflow
        array([6.93147181e-01, 1.00000000e+03])
        >>> float(ft.grad(nn.softplus)(0.0))  # sigmoid(0)
        0.5
    """
    if beta == 1:
        return softplus_p.bind(x)
    return softplus_p.bind(beta * x) / beta


def silu(x: Any) -> Any:
    """``x * sigmoid(x)`` (also called swish; ``nn.swish`` is this function).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> nn.silu(np.array([-1.0, 0.0, 2.0]))
        array([-0.26894142,  0.        ,  1.76159416])
        >>> float(ft.grad(nn.silu)(0.0))  # sigmoid(0) + 0 * sigmoid'(0)
        0.5
    """
    return x * _in_dtype_of(expit_p.bind(x), x)


swish = silu


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_SQRT_HALF = math.sqrt(0.5)


def gelu(x: Any, approximate: Any = True) -> Any:
    """The Gaussian error linear unit, with ``jax.nn.gelu``'s default.

    ``approximate=True`` (or ``"tanh"``; JAX's default): ``x/2 * (1 + tanh(sqrt(2/pi) (x +
    0.044715 x^3)))``.  ``approximate=False`` (or ``"none"``; torch's default, so a port of
    ``F.gelu(x)`` writes ``nn.gelu(x, approximate="none")``): ``x * Phi(x)`` with the
    exact normal CDF ``Phi(x) = (1 + erf(x / sqrt 2)) / 2``, evaluated with SciPy's ``erf``
    (``ftransforms.scipy.special``); the tanh form needs NumPy only.  The two differ by up
    to about 5e-4.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> x = np.array([-1.0, 0.0, 2.0])
        >>> nn.gelu(x)
        array([-0.15880801,  0.        ,  1.95459769])
        >>> nn.gelu(x, approximate=False)
        array([-0.15865525,  0.        ,  1.95449974])
        >>> float(ft.grad(lambda v: nn.gelu(v, approximate=False))(0.0))  # Phi(0)
        0.5
    """
    if approximate in ("tanh", True):
        inner = _SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))
        return 0.5 * x * (1 + fnp.tanh(inner))
    if approximate not in ("none", False):
        raise ValueError(
            f"gelu: approximate must be True/'tanh' or False/'none', got {approximate!r}"
        )
    return 0.5 * x * (1 + _in_dtype_of(erf_p.bind(x * _SQRT_HALF), x))


def _masked(x: Any, where: Any) -> Any:
    """``x`` with ``-inf`` where ``where`` is False (those entries then count for nothing in
    a ``logsumexp``/``softmax``); no derivative flows to them."""
    x = fnp.asarray(x)
    return fnp.where(where, x, fnp.full((), -fnp.inf, dtype=fnp.result_type(x, 1.0)))


def _masked_exp_sum(x: Any, axis: Any, where: Any) -> tuple:
    """``x`` masked and shifted by its maximum, and the sum of its exponentials along
    ``axis``.  As in JAX, the shift is the raw maximum of the kept entries: a row whose
    kept entries hold ``+inf`` or are all ``-inf`` gives NaN there (``inf - inf``); a row
    with nothing kept shifts by 0 and sums to 1 (no 0/0), and the callers' ``where`` puts
    0 / ``-inf`` at the entries left out."""
    masked = _masked(x, where)
    if fnp.size(masked) == 0:
        shift = _special._max_shift(masked, axis)
        return masked - shift, fnp.sum(fnp.exp(masked - shift), axis=axis, keepdims=True)
    kept = fnp.any(fnp.broadcast_to(where, fnp.shape(masked)), axis=axis, keepdims=True)
    raw_max = fnp.max(fnp.stop_gradient(masked), axis=axis, keepdims=True)
    shifted = masked - fnp.where(kept, raw_max, 0.0)
    total = fnp.sum(fnp.exp(shifted), axis=axis, keepdims=True)
    return shifted, fnp.where(kept, total, 1.0)


def logsumexp(
    x: Any,
    axis: Any = None,
    b: Any = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: Any = None,
) -> Any:
    """``log(sum(b * exp(x), axis))`` without overflow (``jax.nn.logsumexp``: the weights
    ``b``, ``return_sign`` giving ``(log|s|, sign(s))``, and ``where`` masking the entries
    that count).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> float(nn.logsumexp(np.array([1000.0, 1000.0])))  # 1000 + log 2
        1000.6931471805599
        >>> ft.grad(nn.logsumexp)(np.array([0.0, 0.0]))  # the gradient is the softmax
        array([0.5, 0.5])
        >>> nn.logsumexp(np.array([0.0, 0.0]), b=np.array([1.0, -2.0]), return_sign=True)
        (array(0.), array(-1.))
    """
    return _special.logsumexp(
        x, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign, where=where
    )


def log_softmax(x: Any, axis: Any = -1, where: Any = None, *, dim: int | None = None) -> Any:
    """``x - logsumexp(x, axis)`` (default: the last axis, like ``jax.nn``; torch's
    ``dim=`` is accepted for ``axis``); with ``where`` only those entries count, and the
    others are ``-inf`` (as in JAX).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> nn.log_softmax(np.array([0.0, 1000.0]))  # no overflow
        array([-1000.,     0.])
        >>> ft.grad(lambda x: nn.log_softmax(x)[0])(np.array([0.0, 0.0]))  # e_0 - softmax
        array([ 0.5, -0.5])
        >>> nn.log_softmax(np.array([0.0, 0.0, 5.0]), where=np.array([True, True, False]))
        array([-0.69314718, -0.69314718,        -inf])
    """
    axis = _axis_or_dim(axis, dim, "log_softmax")
    if where is None:
        return _special._log_softmax(x, axis, keep_posinf=True)
    shifted, total = _masked_exp_sum(x, axis, where)
    return fnp.where(where, shifted - fnp.log(total), -fnp.inf)


def softmax(x: Any, axis: Any = -1, where: Any = None, *, dim: int | None = None) -> Any:
    """``exp(x) / sum(exp(x), axis)`` without overflow (default: the last axis; torch's
    ``dim=`` is accepted for ``axis``); with ``where`` only those entries count, and the
    others are 0 (as in JAX).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import nn
        >>> nn.softmax(np.array([0.0, np.log(3.0)]))
        array([0.25, 0.75])
        >>> ft.jacfwd(nn.softmax)(np.array([0.0, 0.0]))  # diag(s) - s s^T
        array([[ 0.25, -0.25],
               [-0.25,  0.25]])
        >>> nn.softmax(np.array([0.0, 0.0, 5.0]), where=np.array([True, True, False]))
        array([0.5, 0.5, 0. ])
    """
    axis = _axis_or_dim(axis, dim, "softmax")
    if where is None:
        return _special.softmax(x, axis=axis)
    shifted, total = _masked_exp_sum(x, axis, where)
    return fnp.where(where, fnp.exp(shifted) / total, 0.0)


def _axis_or_dim(axis: Any, dim: Any, name: str) -> Any:
    """``dim`` (torch.nn.functional's name) when given, else ``axis``; not both."""
    if dim is None:
        return axis
    if axis != -1:
        raise TypeError(f"{name}(x, axis={axis!r}, dim={dim!r}): give axis or dim, not both")
    return dim


# -- the rest of jax.nn's activations -----------------------------------------------------

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x: Any) -> Any:
    """The scaled ELU ``scale * elu(x, alpha)`` with the self-normalizing constants.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.selu(np.array([-1.0, 0.0, 1.0])).round(6).tolist()
        [-1.111331, 0.0, 1.050701]
    """
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def celu(x: Any, alpha: float = 1.0) -> Any:
    """``max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.celu(np.array([-1.0, 2.0]), alpha=2.0).round(6).tolist()
        [-0.786939, 2.0]
    """
    return fnp.maximum(x, 0.0) + alpha * fnp.expm1(fnp.minimum(x, 0.0) / alpha)


def glu(x: Any, axis: int = -1) -> Any:
    """The gated linear unit: the two halves ``a, b`` of ``x`` along ``axis``, ``a *
    sigmoid(b)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.glu(np.array([2.0, 0.0])).tolist()  # 2 * sigmoid(0)
        [1.0]
    """
    a, b = fnp.split(x, 2, axis=axis)
    return a * sigmoid(b)


def hard_tanh(x: Any) -> Any:
    """``x`` clipped to ``[-1, 1]``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.hard_tanh(np.array([-2.0, 0.5, 3.0])).tolist()
        [-1.0, 0.5, 1.0]
    """
    return fnp.where(x > 1, 1, fnp.where(x < -1, -1, x))  # keeps an int dtype, as JAX


def hard_sigmoid(x: Any) -> Any:
    """``relu6(x + 3) / 6``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.hard_sigmoid(np.array([-4.0, 0.0, 4.0])).tolist()
        [0.0, 0.5, 1.0]
    """
    return relu6(x + 3.0) / 6.0


def hard_silu(x: Any) -> Any:
    """``x * hard_sigmoid(x)`` (also ``hard_swish``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.hard_silu(np.array([-4.0, 1.0, 4.0])).round(6).tolist()
        [-0.0, 0.666667, 4.0]
    """
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def identity(x: Any) -> Any:
    """``x`` itself (``jax.nn.identity``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.identity(np.array([1.0])).tolist()
        [1.0]
    """
    return x


def tanh(x: Any) -> Any:
    """The hyperbolic tangent (``jax.nn.tanh``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.tanh(np.array([0.0])).tolist()
        [0.0]
    """
    return fnp.tanh(x)


def soft_sign(x: Any) -> Any:
    """``x / (|x| + 1)``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.soft_sign(np.array([-1.0, 3.0])).tolist()
        [-0.5, 0.75]
    """
    return x / (fnp.abs(x) + 1.0)


def mish(x: Any) -> Any:
    """``x * tanh(softplus(x))``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.mish(np.array([0.0, 1.0])).round(6).tolist()
        [0.0, 0.865098]
    """
    return x * fnp.tanh(softplus(x))


def squareplus(x: Any, b: float = 4.0) -> Any:
    """``(x + sqrt(x^2 + b)) / 2``, a smooth ReLU.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.squareplus(np.array([0.0])).tolist()
        [1.0]
    """
    return (x + fnp.sqrt(x * x + b)) / 2.0


def sparse_plus(x: Any) -> Any:
    """``0`` below -1, ``x`` above 1, ``(x + 1)^2 / 4`` between.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.sparse_plus(np.array([-2.0, 0.0, 2.0])).tolist()
        [0.0, 0.25, 2.0]
    """
    return fnp.where(x <= -1.0, 0.0, fnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4.0))


def sparse_sigmoid(x: Any) -> Any:
    """The derivative of :func:`sparse_plus`: ``0``, ``(x + 1) / 2``, ``1``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.sparse_sigmoid(np.array([-2.0, 0.0, 2.0])).tolist()
        [0.0, 0.5, 1.0]
    """
    return 0.5 * fnp.clip(x + 1.0, 0.0, 2.0)


def log1mexp(x: Any) -> Any:
    """``log(1 - exp(-x))`` for ``x > 0``, accurate near 0 and for large ``x``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> round(float(nn.log1mexp(np.log(2.0))), 12)  # log(1/2)
        -0.69314718056
    """
    near = x < math.log(2.0)
    xa = fnp.where(near, x, 1.0)
    xb = fnp.where(near, 1.0, x)
    return fnp.where(near, fnp.log(-fnp.expm1(-xa)), fnp.log1p(-fnp.exp(-xb)))


def logmeanexp(x: Any, axis: Any = None, where: Any = None, keepdims: bool = False) -> Any:
    """``log(mean(exp(x), axis))`` without overflow (``where`` masks the entries that
    count, as ``jax.nn.logmeanexp``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> round(float(nn.logmeanexp(np.array([0.0, np.log(3.0)]))), 12)  # log 2
        0.69314718056
    """
    if where is None:
        count = fnp.size(x) if axis is None else _count(x, axis)
        return logsumexp(x, axis=axis, keepdims=keepdims) - math.log(count)
    w = fnp.broadcast_to(fnp.asarray(where), fnp.shape(x))
    masked = fnp.where(w, x, -fnp.inf)
    count = fnp.sum(w, axis=axis, keepdims=keepdims)
    return logsumexp(masked, axis=axis, keepdims=keepdims) - fnp.log(count)


def _count(x: Any, axis: Any) -> int:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return math.prod(fnp.shape(x)[a] for a in axes)


def standardize(
    x: Any,
    axis: Any = -1,
    mean: Any = None,
    variance: Any = None,
    epsilon: float = 1e-5,
    where: Any = None,
    *,
    algorithm: str = "fast",
) -> Any:
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis`` (``jax.nn.standardize``).
    The variance is ``mean(x^2) - mean(x)^2`` clipped at 0 (``algorithm="fast"``, JAX's
    default) or the two-pass ``mean((x - mean)^2)`` (``algorithm="stable"``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import nn
        >>> nn.standardize(np.array([1.0, 3.0]), epsilon=0.0).tolist()
        [-1.0, 1.0]
    """
    if algorithm not in ("fast", "stable"):
        raise ValueError(
            f"nn.standardize(x, algorithm={algorithm!r}): unknown algorithm; expected "
            f"'fast' or 'stable'"
        )
    if mean is None:
        mean = fnp.mean(x, axis=axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            d = x - mean
            variance = fnp.mean(d * d, axis=axis, keepdims=True, where=where)
        else:
            variance = fnp.mean(x * x, axis=axis, keepdims=True, where=where) - mean * mean
            variance = fnp.maximum(variance, 0)  # rounding can make it negative
    return (x - mean) / fnp.sqrt(variance + epsilon)
