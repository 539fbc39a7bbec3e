"""The boundary of a transform: what a transformed function's arguments and results are
turned into on the way in and on the way out.  Every transform (``vmap``, ``grad``,
``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``linearize``, ``jit``,
``custom_jvp``/``custom_vjp``) calls :func:`transform_inputs` on the pytree of values it
is given and :func:`transform_outputs` on the pytree the function returns, and nothing
else converts there.

NOTE [transform boundary]: a value crosses a transform's boundary through one of two
lists of converters, applied in order, each taking a pytree and returning it (the same
object when it has nothing to do, after a quick check):

* :data:`INPUT_CONVERTERS`: NumPy object arrays holding tracers (``np.array([t, 1.0])``
  passed to an inner transform) become traced arrays (NOTE [array-likes holding
  tracers]).
* :data:`OUTPUT_CONVERTERS`: the same for results, so that ``return np.array([t, 1.0])``
  (or what a SciPy Python function returns) is never taken for a constant.  A mechanism
  that gives the user's code other objects standing for arrays (buffers, views) appends
  the converter that turns them back into arrays here, and every transform applies it.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.boundary import transform_outputs
    >>> def f(x):
    ...     out = transform_outputs({"y": np.array([x * x, 1.0])})  # an object array in
    ...     return out["y"].sum()                                    # a traced array out
    >>> float(ft.grad(f)(3.0))
    6.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ftransforms.numpy.creation import from_object_arrays

__all__ = ["INPUT_CONVERTERS", "OUTPUT_CONVERTERS", "transform_inputs", "transform_outputs"]

#: Converters of the values given to a transform (NOTE [transform boundary]).
INPUT_CONVERTERS: list[Callable[[Any], Any]] = [from_object_arrays]

#: Converters of the values a transformed function returns (NOTE [transform boundary]).
OUTPUT_CONVERTERS: list[Callable[[Any], Any]] = [from_object_arrays]


def transform_inputs(tree: Any) -> Any:
    """The pytree of values given to a transform, as the transform takes them.

    Example:
        >>> import numpy as np
        >>> from ftransforms.boundary import transform_inputs
        >>> transform_inputs((np.ones(2), [3.0]))[1]
        [3.0]
    """
    for convert in INPUT_CONVERTERS:
        tree = convert(tree)
    return tree


def transform_outputs(tree: Any) -> Any:
    """The pytree a transformed function returned, as the transform takes it.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms.boundary import transform_outputs
        >>> ft.jacfwd(lambda x: transform_outputs(np.array([x, 2.0])))(1.0).tolist()
        [1.0, 0.0]
    """
    for convert in OUTPUT_CONVERTERS:
        tree = convert(tree)
    return tree
