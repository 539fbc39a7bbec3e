"""``scipy.sparse``'s constructors given traced values: a clear error.

A SciPy sparse matrix stores plain NumPy arrays, so one cannot hold traced values
(NOTE [SciPy sparse operands]); SciPy's ``diags``/``spdiags`` handed a tracer failed
with an unrelated ``ValueError`` ("Different number of diagonals and offsets").  These
counterparts (answering SciPy's own names under the transforms) say so and name what
works: a constant sparse matrix times a traced vector, or the product written with
``ftransforms.numpy`` (``d * x`` for a diagonal).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> try:
    ...     ft.grad(lambda d: diags(d).sum())(np.ones(3))
    ... except ft.errors.UnsupportedOperationError as e:
    ...     print(str(e)[:45])
    scipy.sparse.diags(diagonals, ...): a SciPy s
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.mutation import Buffer
from ftransforms.numpy.helpers import holds_tracer

__all__ = ["diags", "diags_array", "spdiags"]

_NO_DEFAULT: Any = object()


def _plain(value: Any) -> Any:
    """``value`` with the arrays made inside the transformed function (buffers) as
    plain arrays, or None when it holds a traced value."""
    if type(value) is Buffer:
        return numpy.asarray(value)
    if isinstance(value, (list, tuple)):
        parts = [_plain(v) for v in value]
        return (
            None
            if any(p is None and v is not None for p, v in zip(parts, value))
            else type(value)(parts)
        )
    return None if holds_tracer(value) else value


def _scipy_or_refuse(name: str, call: str, args: tuple, kwargs: dict) -> Any:
    """SciPy's own ``name`` when the arguments hold only plain arrays (made inside the
    transformed function, say), else the refusal."""
    plain_args = [_plain(a) for a in args]
    plain_kwargs = {k: _plain(v) for k, v in kwargs.items()}
    if any(p is None and a is not None for p, a in zip(plain_args, args)) or any(
        p is None and kwargs[k] is not None for k, p in plain_kwargs.items()
    ):
        raise _refuse(call)
    import scipy.sparse  # noqa: PLC0415  late import: SciPy is optional

    theirs = getattr(scipy.sparse, name)
    return getattr(theirs, "__wrapped__", theirs)(*plain_args, **plain_kwargs)


def _refuse(call: str) -> UnsupportedOperationError:
    return UnsupportedOperationError(
        f"scipy.sparse.{call}: a SciPy sparse matrix stores plain NumPy arrays, so it "
        f"cannot hold traced values; keep the sparse matrix constant and multiply traced "
        f"vectors by it (A @ x), or write the product with ftransforms.numpy (a diagonal "
        f"d: d * x; a band: a sum of shifted products)"
    )


def diags(
    diagonals: Any,
    offsets: Any = 0,
    shape: Any = None,
    format: Any = None,
    dtype: Any = _NO_DEFAULT,
) -> Any:  # noqa: A002  (SciPy's names)
    """``scipy.sparse.diags`` with traced diagonals: refused (module docstring); plain
    ones (arrays made inside the transformed function) make SciPy's matrix.

    Example:
        >>> import numpy as np
        >>> diags(np.ones(2)).toarray().tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    kwargs = {"offsets": offsets, "shape": shape, "format": format}
    if dtype is not _NO_DEFAULT:
        kwargs["dtype"] = dtype
    return _scipy_or_refuse("diags", "diags(diagonals, ...)", (diagonals,), kwargs)


def diags_array(
    diagonals: Any,
    /,
    *,
    offsets: Any = 0,
    shape: Any = None,
    format: Any = None,
    dtype: Any = _NO_DEFAULT,
) -> Any:  # noqa: A002  (SciPy's names)
    """``scipy.sparse.diags_array`` with traced diagonals: refused (module docstring).

    Example:
        >>> import numpy as np
        >>> diags_array(np.ones(2)).toarray().tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    kwargs = {"offsets": offsets, "shape": shape, "format": format}
    if dtype is not _NO_DEFAULT:
        kwargs["dtype"] = dtype
    return _scipy_or_refuse("diags_array", "diags_array(diagonals, ...)", (diagonals,), kwargs)


def spdiags(data: Any, diags: Any, m: Any = None, n: Any = None, format: Any = None) -> Any:  # noqa: A002
    """``scipy.sparse.spdiags`` with traced data: refused (module docstring).

    Example:
        >>> import numpy as np
        >>> spdiags(np.ones((1, 2)), 0, 2, 2).toarray().tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    return _scipy_or_refuse(
        "spdiags", "spdiags(data, diags, ...)", (data, diags, m, n), {"format": format}
    )
