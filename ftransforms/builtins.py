"""``autograd.builtins``'s names: Python's own ``tuple``, ``list``, ``dict``,
``isinstance`` and ``type``.

autograd needs containers of its own to differentiate through tuples, lists and dicts
(``odeint(func, y0, t, tuple((params,)))`` in its ode_net example); here Python's
containers are pytrees every transform walks, so the names are Python's builtins, under
autograd's import path (``from ftransforms.builtins import tuple``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms.builtins import tuple
    >>> ft.grad(lambda p: p[0] * p[1])(tuple((np.array(2.0), np.array(3.0))))
    (array(3.), array(2.))
"""

from builtins import dict, isinstance, list, tuple, type  # noqa: UP029 (re-exported)

__all__ = ["dict", "isinstance", "list", "tuple", "type"]
