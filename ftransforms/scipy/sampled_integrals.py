"""``scipy.integrate.romb`` and ``cumulative_simpson`` of traced samples: both are linear
in the samples ``y`` (for plain spacings ``dx``/``x``), so SciPy's own rule runs once on
plain basis columns and the samples enter by a contraction (NOTE [SciPy's interpolators
on traced data] in ``interpolate_data.py``: the same affine reading); the values are
SciPy's, every transform differentiates and batches them.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> ft.grad(lambda y: romb(y, dx=0.5))(np.zeros(3)).tolist()  # Simpson's weights
    [0.16666666666666666, 0.6666666666666666, 0.16666666666666666]
"""

from __future__ import annotations

from typing import Any

from ftransforms.scipy.interpolate_data import affine_in_data, traced

__all__ = ["cumulative_simpson", "romb"]


def _theirs(name: str) -> Any:
    import scipy.integrate  # noqa: PLC0415  late import: SciPy is optional

    fn = getattr(scipy.integrate, name)
    return getattr(fn, "__wrapped__", fn)  # SciPy's own, not the wrapper that sent it here


def romb(y: Any, dx: float = 1.0, axis: int = -1, show: bool = False) -> Any:
    """``scipy.integrate.romb``: Romberg integration of ``2**k + 1`` equally spaced
    samples ``y`` along ``axis``, differentiable in ``y``.

    Example:
        >>> import numpy as np
        >>> float(romb(np.linspace(0.0, 1.0, 5) ** 2, dx=0.25))  # exact for polynomials
        0.3333333333333333
    """
    args = (y, dx, axis, show)
    if not traced(y):
        return _theirs("romb")(*args)
    return affine_in_data(_theirs("romb"), "romb", args, {}, "y", "axis", result="values")


def cumulative_simpson(
    y: Any, *, x: Any = None, dx: float = 1.0, axis: int = -1, initial: Any = None
) -> Any:
    """``scipy.integrate.cumulative_simpson``: the running integral of ``y`` along
    ``axis`` by Simpson's rule (SciPy's), differentiable in ``y``.

    Example:
        >>> import numpy as np
        >>> cumulative_simpson(np.linspace(0.0, 1.0, 5) ** 2, dx=0.25).round(6).tolist()
        [0.005208, 0.041667, 0.140625, 0.333333]
    """
    kwargs = {"x": x, "dx": dx, "axis": axis, "initial": initial}
    theirs = _theirs("cumulative_simpson")
    if not traced(y):
        return theirs(y, **kwargs)
    return affine_in_data(theirs, "cumulative_simpson", (y,), kwargs, "y", "axis", result="values")
