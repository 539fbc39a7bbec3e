"""``autograd.misc.flatten``'s helpers: :func:`flatten` and :func:`flatten_func`.

Example:
    >>> import numpy as np
    >>> from ftransforms.misc.flatten import flatten_func
    >>> f, unflatten, x = flatten_func(lambda p: {"y": p["w"] * 2}, {"w": np.ones(2)})
    >>> f(x)
    array([2., 2.])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.autograd_compat import flatten

__all__ = ["flatten", "flatten_func"]


def flatten_func(func: Callable, example: Any) -> tuple[Callable, Callable, Any]:
    """``(flat_func, unflatten, flat_example)`` as ``autograd.misc.flatten.flatten_func``:
    ``func`` (of a nested value shaped like ``example``, and more arguments) as a
    function of one flat vector, with :func:`flatten`'s rules; ``flat_func(v, *args)``
    returns ``func``'s output flattened the same way, so ``grad``/``hessian`` of it work
    on flat vectors (what ``scipy.optimize.minimize`` wants).  One difference: a scalar
    output stays a scalar, so that ``grad(flat_func)`` works (autograd ravels it to shape
    ``(1,)``, which its ``grad`` takes as a scalar and ``ft.grad``, as JAX's and
    torch.func's, does not).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.misc import flatten_func
        >>> loss = lambda p, s: s * np.sum(p["w"] ** 2) + p["b"]
        >>> flat_loss, unflatten, x0 = flatten_func(loss, {"w": np.ones(2), "b": 0.5})
        >>> x0, ft.grad(flat_loss)(x0, 3.0)
        (array([0.5, 1. , 1. ]), array([1., 6., 6.]))
    """
    flat_example, unflatten = flatten(example)

    def flat_func(vector: Any, *args: Any) -> Any:
        out = func(unflatten(vector), *args)
        if not isinstance(out, (tuple, list, dict)) and fnp.ndim(out) == 0:
            return fnp.asarray(out)
        return flatten(out)[0]

    return flat_func, unflatten, flat_example
