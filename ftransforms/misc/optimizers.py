"""``autograd.misc.optimizers``: :func:`sgd` with momentum, :func:`rmsprop` and
:func:`adam` over nested parameters, with autograd's calling convention
``opt(grad, x0, callback=None, num_iters=..., step_size=..., ...)``.

``grad(params, i)`` returns the gradient at iteration ``i`` (``ft.grad`` of an objective
of ``(params, iter)``), ``callback(params, i, gradient)`` is called before every step.
Parameters and gradients are tuples, lists and dicts of arrays, flattened with
:func:`ftransforms.misc.flatten` (the optimizers work on one flat vector, as autograd's).
The steps are written with ``ftransforms.numpy``, so an optimization can itself be
differentiated (meta-learning a step size) or mapped with ``vmap``.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.misc.optimizers import adam
    >>> objective = lambda p, i: np.sum((p["w"] - 3.0) ** 2)
    >>> p = adam(ft.grad(objective), {"w": np.zeros(2)}, step_size=0.1, num_iters=300)
    >>> np.round(p["w"], 3)
    array([3., 3.])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.autograd_compat import flatten

__all__ = ["adam", "rmsprop", "sgd", "unflatten_optimizer"]


def unflatten_optimizer(optimize: Callable) -> Callable:
    """An optimizer over nested parameters from ``optimize``, one over flat 1-d vectors
    (``optimize(grad, x, callback, *args, **kwargs)`` with ``grad(x, i)`` and
    ``callback(x, i, g)`` on flat vectors): the parameters, the gradients and the
    callback's arguments are flattened and unflattened around it (as autograd's).

    Example:
        >>> import numpy as np
        >>> from ftransforms.misc.optimizers import unflatten_optimizer
        >>> @unflatten_optimizer
        ... def descend(grad, x, callback=None, num_iters=10, step_size=0.5):
        ...     for i in range(num_iters):
        ...         x = x - step_size * grad(x, i)
        ...     return x
        >>> descend(lambda p, i: {"a": 2 * p["a"]}, {"a": np.ones(2)}, num_iters=1)
        {'a': array([0., 0.])}
    """

    @functools.wraps(optimize)
    def optimize_nested(
        grad: Callable, x0: Any, callback: Callable | None = None, *args: Any, **kwargs: Any
    ) -> Any:
        flat_x0, unflatten = flatten(x0)

        def flat_grad(x: Any, i: int) -> Any:
            return flatten(grad(unflatten(x), i))[0]

        flat_callback = None
        if callback:

            def flat_callback(x: Any, i: int, g: Any) -> None:
                callback(unflatten(x), i, unflatten(g))

        return unflatten(optimize(flat_grad, flat_x0, flat_callback, *args, **kwargs))

    return optimize_nested


@unflatten_optimizer
def sgd(
    grad: Callable,
    x: Any,
    callback: Callable | None = None,
    num_iters: int = 200,
    step_size: float = 0.1,
    mass: float = 0.9,
) -> Any:
    """Stochastic gradient descent with momentum ``mass``: ``num_iters`` steps
    ``v = mass v - (1 - mass) g``, ``x = x + step_size v`` from ``v = 0``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.misc.optimizers import sgd
        >>> p = sgd(ft.grad(lambda p, i: np.sum((p - 1.0) ** 2)), np.zeros(2), num_iters=500)
        >>> np.round(p, 4)
        array([1., 1.])
    """
    velocity = fnp.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return x


@unflatten_optimizer
def rmsprop(
    grad: Callable,
    x: Any,
    callback: Callable | None = None,
    num_iters: int = 100,
    step_size: float = 0.1,
    gamma: float = 0.9,
    eps: float = 10**-8,
) -> Any:
    """RMSProp: steps ``g / (sqrt(s) + eps)`` scaled by ``step_size``, with ``s`` the
    running average (decay ``gamma``, from ones) of the squared gradients.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.misc.optimizers import rmsprop
        >>> p = rmsprop(ft.grad(lambda p, i: np.sum(p**2)), np.ones(2), step_size=0.01)
        >>> bool(np.all(np.abs(p) < 0.5))
        True
    """
    avg_sq_grad = fnp.ones(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        avg_sq_grad = avg_sq_grad * gamma + g**2 * (1 - gamma)
        x = x - step_size * g / (fnp.sqrt(avg_sq_grad) + eps)
    return x


@unflatten_optimizer
def adam(
    grad: Callable,
    x: Any,
    callback: Callable | None = None,
    num_iters: int = 100,
    step_size: float = 0.001,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 10**-8,
) -> Any:
    """Adam (Kingma and Ba, 2014): RMSProp with momentum ``b1``, a running average of
    squared gradients with decay ``b2``, and both corrected for their start at zero.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.misc.optimizers import adam
        >>> seen = []
        >>> p = adam(ft.grad(lambda p, i: np.sum(p**2)), np.ones(2), num_iters=3,
        ...          callback=lambda p, i, g: seen.append(i))
        >>> seen, np.round(p, 3)
        ([0, 1, 2], array([0.997, 0.997]))
    """
    m = fnp.zeros(len(x))
    v = fnp.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        m = (1 - b1) * g + b1 * m  # the first moment
        v = (1 - b2) * (g**2) + b2 * v  # the second moment
        mhat = m / (1 - b1 ** (i + 1))  # both corrected for their start at zero
        vhat = v / (1 - b2 ** (i + 1))
        x = x - step_size * mhat / (fnp.sqrt(vhat) + eps)
    return x
