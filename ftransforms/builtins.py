"""``autograd.builtins``'s names: ``tuple``, ``list``, ``dict`` (Python's own) and
``isinstance``/``type``, which see through tracers as autograd's see through its boxes.

autograd needs containers of its own to differentiate through tuples, lists and dicts
(``odeint(func, y0, t, tuple((params,)))`` in its ode_net example); here Python's
containers are pytrees every transform walks, so those names are Python's builtins, under
autograd's import path (``from ftransforms.builtins import tuple``).  autograd's
``isinstance(x, cls)`` and ``type(x)`` look at the value under its box; these look at the
array under a tracer (every transform's levels removed), so a test such as
``isinstance(x, np.ndarray)`` takes the same branch inside ``grad``/``vmap`` as outside.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.builtins import isinstance, tuple
    >>> ft.grad(lambda p: p[0] * p[1])(tuple((np.array(2.0), np.array(3.0))))
    (array(3.), array(2.))
    >>> ft.grad(lambda x: x.sum() if isinstance(x, np.ndarray) else 0.0 * x)(np.ones(2))
    array([1., 1.])
"""

from __future__ import annotations

import builtins
from builtins import dict, list, tuple  # noqa: UP029 (re-exported)
from typing import Any

from ftransforms.core.tracer import Tracer

__all__ = ["dict", "isinstance", "list", "tuple", "type"]


def _value(obj: Any) -> Any:
    """``obj``, or for a tracer the backend array it is traced from (autograd's
    ``getval``): its batch axes included, which change no type."""
    return obj._physical() if builtins.isinstance(obj, Tracer) else obj


def isinstance(obj: Any, classinfo: Any) -> bool:  # noqa: A001 (autograd's name)
    """autograd's ``isinstance``: Python's, on the array a tracer stands for.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.vmap(lambda x: np.float64(isinstance(x, np.ndarray)))(np.zeros((2, 3)))
        array([1., 1.])
    """
    return builtins.isinstance(_value(obj), classinfo)


def type(obj: Any, *rest: Any) -> Any:  # noqa: A001 (autograd's name)
    """autograd's ``type``: Python's, of the array a tracer stands for (with three
    arguments, Python's class constructor).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.grad(lambda x: float(type(x) is np.ndarray) * x.sum())(np.ones(2))
        array([1., 1.])
    """
    if rest:
        return builtins.type(obj, *rest)
    return builtins.type(_value(obj))
