"""``numpy.testing``'s assertions, and NumPy's array printing, called on tracers inside a
transformed function.

NOTE [numpy.testing on tracers]: ``np.testing.assert_allclose(x, ref)`` in a function
under ``grad``/``vmap`` (a check a user leaves in the code) turned the tracer into an
object array of 0-d tracers, on which NumPy's ``isfinite``/``isnan`` have no loop
(TypeError), and ``assert_equal``/``assert_almost_equal`` asked ``bool()`` of a whole
array (ValueError), where NumPy passes or raises AssertionError.  An assertion has no
derivative and returns nothing, so while a transform is active (the window
``core/mutation.py``'s ``PATCHED_WHILE_ACTIVE`` opens) NumPy's comparison behind the
array assertions (``assert_array_compare``) and the generic ones are given the concrete
values of the tracers: the primal under ``grad``/``jvp``; under ``vmap`` a row's value,
as in the loop over the rows (rows that differ split the batch, NOTE [splitting the
batch], so each row is checked, and a failing row raises AssertionError as the loop does).
NumPy's array printing (``array2string``, ``array_repr``, ``array_str``, which raised
"no rule") is given the concrete values likewise: the text the eager function prints.
Arguments without a tracer cost one type test each; nothing is wrapped outside the
transforms.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def f(x):
    ...     np.testing.assert_allclose(np.sin(x) ** 2 + np.cos(x) ** 2, 1.0)
    ...     return np.sin(x).sum()
    >>> ft.grad(f)(np.array([0.0, 1.0])).round(6).tolist()
    [1.0, 0.540302]
"""

from __future__ import annotations

import functools
from typing import Any

import numpy
import numpy.testing._private.utils as _utils

from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import array_like, holds_tracer, to_host

__all__ = ["with_concrete_values"]


def _concrete(value: Any) -> Any:
    if isinstance(value, Tracer):
        return to_host(value._concrete())
    if type(value) is numpy.ndarray and value.dtype.kind == "O" and holds_tracer(value):
        return to_host(array_like(value)._concrete())
    return value


def with_concrete_values(original: Any) -> Any:
    """``original`` called with its tracer arguments replaced by their concrete values
    (NOTE [numpy.testing on tracers]).

    Example:
        >>> import numpy as np
        >>> check = with_concrete_values(np.testing.assert_array_less)
        >>> check(np.zeros(2), np.ones(2))  # plain arguments reach NumPy's own function
    """

    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        args = tuple(_concrete(a) for a in args)
        kwargs = {k: _concrete(v) for k, v in kwargs.items()}
        return original(*args, **kwargs)

    return call


#: ``assert_array_compare`` is what every array assertion calls (by its module's global,
#: so ``from numpy.testing import assert_allclose`` is covered too); the generic
#: assertions compare with ``bool()`` before they reach it.
_NAMES = ("assert_array_compare", "assert_equal", "assert_almost_equal", "assert_approx_equal")

for _module in (_utils, numpy.testing):
    _originals = {name: vars(_module)[name] for name in _NAMES if name in vars(_module)}
    PATCHED_WHILE_ACTIVE.append(
        (
            vars(_module),
            {name: with_concrete_values(fn) for name, fn in _originals.items()},
            _originals,
        )
    )


# Text of an array, as ``str(t)`` (interpreters/batching.py's ``__str__``): the values the
# eager function (under vmap: the row) would print, in NumPy's own format and print
# options (NOTE [numpy.testing on tracers] for how the values are read).
_PRINTING = {name: vars(numpy)[name] for name in ("array2string", "array_repr", "array_str")}
PATCHED_WHILE_ACTIVE.append(
    (vars(numpy), {name: with_concrete_values(fn) for name, fn in _PRINTING.items()}, _PRINTING)
)
