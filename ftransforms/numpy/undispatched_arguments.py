"""NumPy functions whose dispatch skips an argument that may be traced.

NOTE [traced arguments NumPy does not dispatch on]: NumPy's ``__array_function__``
dispatch looks only at the arguments a function's dispatcher names: ``np.histogram``'s
``a``, ``bins`` and ``weights``, not ``range``; ``np.pad``'s ``array``, not
``constant_values``/``end_values``; ``np.nan_to_num``'s ``x``, not ``nan``/``posinf``/
``neginf``.  With those plain and the other one traced, NumPy's own code ran and raised
(``float()`` of the tracer, or a write of it into a NumPy array it made).  While a
transform is active (the window ``core/mutation.py``'s ``PATCHED_WHILE_ACTIVE`` opens),
such a call goes to ``ftransforms.numpy``'s function; others cost a test of each such
argument.  (``np.interp``'s ``left``/``right``/``period`` are routed the same way in
``numpy/signal.py``.)

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> float(ft.grad(lambda c: np.pad(np.ones(2), 1, constant_values=c).sum())(0.5))
    2.0
"""

from __future__ import annotations

import functools
from typing import Any

import numpy

from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.numpy.helpers import holds_tracer
from ftransforms.numpy.mathematical import nan_to_num
from ftransforms.numpy.rearranging import pad
from ftransforms.numpy.statistics import histogram

__all__ = ["routed_when_traced"]


def routed_when_traced(original: Any, ours: Any, arguments: dict[str, int | None]) -> Any:
    """``original``, calling ``ours`` instead where one of ``arguments`` (a keyword's name
    and its position, None for keyword-only) holds a tracer (NOTE [traced arguments NumPy
    does not dispatch on]).

    Example:
        >>> import numpy as np
        >>> f = routed_when_traced(np.nan_to_num, nan_to_num, {"nan": 2})
        >>> f(np.array([np.nan]), nan=3.0).tolist()  # nothing traced: NumPy's own
        [3.0]
    """

    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        for name, position in arguments.items():
            value = (
                kwargs.get(name) if position is None or position >= len(args) else args[position]
            )
            if value is not None and holds_tracer(value):
                return ours(*args, **kwargs)
        return original(*args, **kwargs)

    return call


_ROUTED = {
    "histogram": (histogram, {"range": 2}),
    "pad": (pad, {"constant_values": None, "end_values": None}),
    "nan_to_num": (nan_to_num, {"nan": 2, "posinf": 3, "neginf": 4}),
}
_ORIGINALS = {name: getattr(numpy, name) for name in _ROUTED}
PATCHED_WHILE_ACTIVE.append(
    (
        vars(numpy),
        {
            name: routed_when_traced(_ORIGINALS[name], ours, arguments)
            for name, (ours, arguments) in _ROUTED.items()
        },
        _ORIGINALS,
    )
)
