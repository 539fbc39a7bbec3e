"""Array creation: from data (``asarray``/``array``), from shape or value (``zeros``,
``full_like``, ``eye``, ...) (NumPy's "Array creation routines").
"""

from __future__ import annotations

import functools
import operator
import sys
from typing import Any

import numpy

import ftransforms.numpy.helpers as helpers
from ftransforms.backend import is_array, namespace_of
from ftransforms.core.mutation import (
    PATCHED_WHILE_ACTIVE,
    TRACED_FILL,
    Buffer,
    c_contiguous,
    detached,
    f_contiguous,
    user_array,
)
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import dtype_of, holds_tracer, xp_like, xp_of
from ftransforms.numpy.manipulation import broadcast_to, reshape, stack
from ftransforms.numpy.ufuncs import astype
from ftransforms.ops.checks import check_finite
from ftransforms.pytree import tree_map

__all__ = [
    "asarray",
    "asarray_chkfinite",
    "array",
    "zeros",
    "ones",
    "empty",
    "full",
    "eye",
    "identity",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "copy",
]


def asarray(
    x: Any,
    dtype: Any = None,
    order: str | None = None,
    *,
    device: Any = None,
    copy: bool | None = None,
    like: Any = None,
) -> Any:
    """``numpy.asarray`` that keeps tracers, and stacks (nested) lists and tuples that hold
    tracers of any transform levels beside scalars and arrays, with NumPy's dtype rules
    (constants are made on the tracers' backend).

    Example:
        >>> from ftransforms import grad
        >>> float(grad(lambda t: asarray([[t, 2.0], [1, t * t]]).sum())(3.0))
        7.0
    """
    check_device("asarray", device)
    if type(x) is numpy.ndarray and x.dtype.kind == "O":
        x = from_object_array(x)
    if isinstance(x, Tracer):
        return x if dtype is None else astype(x, dtype)
    if isinstance(x, (list, tuple)) and holds_tracer(x):
        like = like if like is not None else _first_tracer(x)
        out = stack([asarray(v, like=like) for v in x])
        return out if dtype is None else astype(out, dtype)
    xp = xp_of(like) if like is not None else namespace_of(x)
    if copy is None:
        return xp.asarray(x, dtype=dtype, order=order)
    return xp.asarray(x, dtype=dtype, order=order, copy=copy)


def asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None) -> Any:
    """``numpy.asarray_chkfinite``: :func:`asarray` (the argument itself when it is an
    array), raising ``ValueError`` when it holds inf or NaN, under every transform and on
    every ``jit`` replay (NOTE [finiteness checks] in ``ops/checks.py``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> grad(lambda x: (asarray_chkfinite(x) ** 2).sum())(np.array([1.0, 2.0])).tolist()
        [2.0, 4.0]
    """
    out = asarray(a, dtype=dtype)
    if order not in (None, "C", "F", "A", "K"):
        raise ValueError(
            f"asarray_chkfinite(a, order={order!r}): order must be one of 'C', 'F', 'A', 'K'"
        )
    check_finite(out)
    return out


def check_device(name: str, device: Any) -> None:
    """NumPy's ``device=`` of the creation functions: only ``"cpu"`` (or None)."""
    if device not in (None, "cpu"):
        raise ValueError(f"{name}(..., device={device!r}): NumPy's only device is 'cpu'")


def _numpy_asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None) -> Any:
    # SciPy's own call (its check_finite) keeps NumPy's conversion, whose object array of
    # a tracer is refused with the counterpart's name (core/tracer.py)
    caller = sys._getframe(1).f_globals.get("__name__") or ""
    if holds_tracer(a) and caller.split(".")[0] not in ("scipy", "numpy"):
        return asarray_chkfinite(a, dtype, order)
    return _NUMPY_ASARRAY_CHKFINITE(a, dtype, order)


# NumPy's asarray_chkfinite does not dispatch (__array_function__): while a transform is
# active, numpy.asarray_chkfinite answers a tracer with the function above
_NUMPY_ASARRAY_CHKFINITE = numpy.asarray_chkfinite
PATCHED_WHILE_ACTIVE.append(
    (
        vars(numpy),
        {"asarray_chkfinite": functools.wraps(numpy.asarray_chkfinite)(_numpy_asarray_chkfinite)},
        {"asarray_chkfinite": numpy.asarray_chkfinite},
    )
)


def _first_tracer(x: Any) -> Any:
    """The first tracer in a nested list or tuple (there is one)."""
    for v in x:
        if isinstance(v, Tracer):
            return v
        if isinstance(v, (list, tuple)) and holds_tracer(v):
            return _first_tracer(v)
    raise AssertionError("no tracer")  # pragma: no cover


def array(
    x: Any,
    dtype: Any = None,
    copy: bool | None = True,
    order: str | None = "K",
    ndmin: int = 0,
    *,
    like: Any = None,
    subok: bool = False,
    device: Any = None,
) -> Any:
    """``numpy.array`` (and ``jax.numpy.array``) that keeps tracers (lists holding tracers
    as in :func:`asarray`), with ``ndmin``: leading unit axes up to that many dimensions.

    A tracer, or a list holding one, is returned as a traced array (never copied: tracers
    are immutable); anything else goes to the backend's ``array`` with ``dtype``/``copy``/
    ``order``/``ndmin``.

    Example:
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.array([[1, 2], [3, 4]], dtype=float).tolist()
        [[1.0, 2.0], [3.0, 4.0]]
        >>> fnp.array([1.0, 2.0], ndmin=3).shape
        (1, 1, 2)
        >>> float(ft.grad(lambda t: fnp.array([t, 2 * t]).sum())(1.0))
        3.0
    """
    check_device("array", device)
    if order not in (None, "K", "A", "C", "F"):
        raise ValueError(f"array(..., order={order!r}): order must be one of 'K', 'A', 'C', 'F'")
    if isinstance(x, Tracer) or (isinstance(x, (list, tuple, numpy.ndarray)) and holds_tracer(x)):
        out = asarray(x, dtype=dtype, like=like)
        missing = operator.index(ndmin) - out.ndim
        return out if missing <= 0 else reshape(out, (1,) * missing + tuple(out.shape))
    xp = xp_of(like) if like is not None else namespace_of(x)
    return user_array(xp.array(x, dtype=dtype, copy=copy, order=order, ndmin=ndmin), "array")


def from_object_array(x: Any) -> Any:
    """A NumPy object array holding tracers (what ``np.array([t, 1.0])`` makes) as the
    array :func:`array` makes of the same list; anything else as it is.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> float(grad(lambda t: from_object_array(np.array([t, 1.0])).sum())(2.0))
        1.0
    """
    if type(x) is numpy.ndarray and x.dtype.kind == "O":
        items = x.tolist()
        if holds_tracer(items):
            return asarray(items)
    return x


def from_object_arrays(tree: Any) -> Any:
    """``tree`` with every NumPy object array that holds tracers turned into an array by
    :func:`from_object_array`: what the transforms apply to a function's inputs and outputs,
    so that ``np.array([t, 1.0])`` is never taken for a constant.

    Example:
        >>> import numpy as np
        >>> from ftransforms import jacrev
        >>> jacrev(lambda x: np.array([x[0] ** 2, 3.0]))(np.array([2.0, 1.0])).tolist()
        [[4.0, 0.0], [0.0, 0.0]]
    """
    if _no_object_array(tree):
        return tree
    return tree_map(_at_boundary, tree)


def _at_boundary(x: Any) -> Any:
    """A leaf crossing a transform's boundary: object arrays converted, buffers as plain
    arrays (NOTE [mutation semantics] in core/mutation.py).  An object array that holds
    only numbers is one that NumPy's object loops made because tracers took part
    (``np.max([x, np.zeros(3)], axis=0)`` where the zeros won everywhere): NumPy without
    tracers gives a numeric array there, so it becomes one."""
    if type(x) is Buffer:
        return x.val
    out = from_object_array(x)
    if type(out) is numpy.ndarray and out.dtype.kind == "O" and out.size:
        items = out.ravel().tolist()
        if all(isinstance(v, _NUMBERS) for v in items):
            return numpy.array(items).reshape(out.shape)
    return out


_NUMBERS = (bool, int, float, complex, numpy.number, numpy.bool_)


_OBJECT = numpy.dtype(object)
_SCALARS = (Tracer, numpy.generic, float, int, complex, str, type(None))


def _no_object_array(tree: Any) -> bool:
    """Whether ``tree`` surely holds no NumPy object array: a quick walk through tuples,
    lists and dicts (the common arguments and outputs); other containers say no."""
    t = type(tree)
    if t is numpy.ndarray:
        return tree.dtype is not _OBJECT
    if t is tuple or t is list:
        for v in tree:
            if not _no_object_array(v):
                return False
        return True
    if t is dict:
        for v in tree.values():
            if not _no_object_array(v):
                return False
        return True
    return isinstance(tree, _SCALARS) and t is not Buffer


def zeros(shape: Any, dtype: Any = float, like: Any = None) -> Any:  # noqa: A002
    """``numpy.zeros``: a constant array of zeros, on ``like``'s backend (NumPy by default).

    Example:
        >>> import ftransforms.numpy as fnp
        >>> fnp.zeros((2, 3)).tolist()
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
        >>> fnp.zeros(2, dtype=int).tolist()
        [0, 0]
    """
    return user_array(xp_like(like).zeros(shape, dtype=dtype), "zeros")


def ones(shape: Any, dtype: Any = float, like: Any = None) -> Any:  # noqa: A002
    """``numpy.ones``: a constant array of ones, on ``like``'s backend (NumPy by default).

    Example:
        >>> import ftransforms.numpy as fnp
        >>> fnp.ones((2, 2)).tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    return user_array(xp_like(like).ones(shape, dtype=dtype), "ones")


def empty(shape: Any, dtype: Any = float, like: Any = None) -> Any:  # noqa: A002
    """``numpy.empty``: an uninitialized constant array on ``like``'s backend (its values
    are arbitrary; write them before reading them).

    Example:
        >>> import ftransforms.numpy as fnp
        >>> a = fnp.empty((2, 3))
        >>> a.shape, a.dtype
        ((2, 3), dtype('float64'))
    """
    return user_array(xp_like(like).empty(shape, dtype=dtype), "empty")


def full(shape: Any, fill_value: Any, dtype: Any = None, like: Any = None) -> Any:  # noqa: A002
    """``numpy.full``: an array of ``shape`` filled with ``fill_value``; a tracer
    ``fill_value`` is broadcast, so the result stays traced and differentiable.

    Example:
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.full((2, 2), 7).tolist()
        [[7, 7], [7, 7]]
        >>> float(ft.grad(lambda t: fnp.full((3,), t).sum())(1.0))  # three copies of t
        3.0
    """
    if isinstance(fill_value, Tracer):
        out = broadcast_to(fill_value, tuple(shape) if not isinstance(shape, int) else (shape,))
        return out if dtype is None else astype(out, dtype)
    if like is None and is_array(fill_value):
        like = fill_value  # a device value fills a device array (numpy would copy it over)
    return user_array(xp_like(like).full(shape, fill_value, dtype=dtype), "full")


def eye(n: int, m: int | None = None, k: int = 0, dtype: Any = float, like: Any = None) -> Any:
    """``numpy.eye``: an ``n`` by ``m`` constant array with ones on the ``k``-th diagonal.

    Example:
        >>> import ftransforms.numpy as fnp
        >>> fnp.eye(2, 3, k=1).tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    return user_array(xp_like(like).eye(n, m, k, dtype=dtype), "eye")


def identity(n: int, dtype: Any = float, like: Any = None) -> Any:
    """``numpy.identity``: the ``n`` by ``n`` identity matrix (a constant).

    Example:
        >>> import ftransforms.numpy as fnp
        >>> fnp.identity(2, dtype=int).tolist()
        [[1, 0], [0, 1]]
    """
    return user_array(xp_like(like).eye(n, dtype=dtype), "identity")


@implements(numpy.zeros_like)
def zeros_like(
    x: Any,
    dtype: Any = None,
    order: str = "K",
    subok: bool = True,
    shape: Any = None,
    *,
    device: Any = None,
) -> Any:  # noqa: A002
    """``numpy.zeros_like``: zeros of ``x``'s logical shape and dtype (a constant, even when
    ``x`` is a tracer; under :func:`~ftransforms.vmap` it is one example's shape).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.zeros_like(np.array([1.5, 2.5])).tolist()
        [0.0, 0.0]
        >>> ft.vmap(fnp.zeros_like)(np.ones((4, 3))).shape
        (4, 3)
    """
    check_device("zeros_like", device)
    s = helpers.shape(x) if shape is None else shape
    return user_array(
        xp_of(x).zeros(s, dtype=dtype or dtype_of(x), order=_like_order(x, order, shape)),
        "zeros_like",
    )


@implements(numpy.ones_like)
def ones_like(
    x: Any,
    dtype: Any = None,
    order: str = "K",
    subok: bool = True,
    shape: Any = None,
    *,
    device: Any = None,
) -> Any:  # noqa: A002
    """``numpy.ones_like``: ones of ``x``'s logical shape and dtype (a constant, even when
    ``x`` is a tracer).

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.ones_like(np.array([[1, 2], [3, 4]])).tolist()
        [[1, 1], [1, 1]]
    """
    check_device("ones_like", device)
    s = helpers.shape(x) if shape is None else shape
    return user_array(
        xp_of(x).ones(s, dtype=dtype or dtype_of(x), order=_like_order(x, order, shape)),
        "ones_like",
    )


@implements(numpy.empty_like)
def empty_like(
    x: Any,
    dtype: Any = None,
    order: str = "K",
    subok: bool = True,
    shape: Any = None,
    *,
    device: Any = None,
) -> Any:  # noqa: A002
    """``numpy.empty_like``: an array of ``x``'s logical shape and dtype; unlike NumPy's,
    it is filled with zeros (it is :func:`zeros_like`), so its values are defined.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> fnp.empty_like(np.array([1.0, 2.0, 3.0])).tolist()
        [0.0, 0.0, 0.0]
    """
    check_device("empty_like", device)
    s = helpers.shape(x) if shape is None else shape
    return user_array(
        xp_of(x).zeros(s, dtype=dtype or dtype_of(x), order=_like_order(x, order, shape)),
        "empty_like",
    )


@implements(numpy.full_like)
def full_like(
    x: Any,
    fill_value: Any,
    dtype: Any = None,
    order: str = "K",
    subok: bool = True,
    shape: Any = None,
    *,
    device: Any = None,
) -> Any:  # noqa: A002
    """``numpy.full_like``; a tracer ``fill_value`` is broadcast (and stays traced).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.full_like(np.zeros(3), 2.5).tolist()
        [2.5, 2.5, 2.5]
        >>> float(ft.grad(lambda t: fnp.full_like(np.zeros(4), t).sum())(1.0))
        4.0
    """
    check_device("full_like", device)
    s = helpers.shape(x) if shape is None else shape
    dt = dtype or dtype_of(x)
    if isinstance(fill_value, Tracer):
        return astype(broadcast_to(fill_value, s), dt)
    order = _like_order(x, order, shape)
    return user_array(xp_of(x).full(s, fill_value, dtype=dt, order=order), "full_like")


def _like_order(x: Any, order: Any, shape: Any) -> str:
    """The memory order of NumPy's ``*_like(x, order=...)``: Fortran for ``'F'``, and for
    ``'K'``/``'A'`` of ``x`` laid out in Fortran and not C order (NOTE [memory layout])."""
    if order == "F":
        return "F"
    if order not in ("K", "A") or shape is not None or helpers.ndim(x) < 2:
        return "C"
    if isinstance(x, Tracer):
        fortran = f_contiguous(x) and not c_contiguous(x)
    else:
        flags = getattr(x, "flags", None)
        fortran = flags is not None and flags.f_contiguous and not flags.c_contiguous
    return "F" if fortran else "C"


@implements(numpy.copy)
def copy(x: Any, order: str = "K", subok: bool = False) -> Any:
    """``numpy.copy``: a new array (of a tracer: a new tracer object with its value; a
    traced array's values do not depend on ``order``, the memory layout).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> a = np.array([1.0, 2.0])
        >>> b = fnp.copy(a)
        >>> b is a, b.tolist()
        (False, [1.0, 2.0])
        >>> ft.grad(lambda x: fnp.copy(x).sum())(a).tolist()
        [1.0, 1.0]
    """
    if isinstance(x, Tracer):
        return detached(x)
    return user_array(xp_of(x).array(x, copy=True, order=order), "copy")


def as_operand(x: Any, like: Any = None) -> Any:
    """Tracers and backend arrays as they are; Python scalars, lists (holding tracers or
    not) and, next to ``like`` on another backend, NumPy arrays as arrays on ``like``'s
    backend (a CuPy user may pass host constants such as weights or bins)."""
    if isinstance(x, Tracer):
        return x
    if type(x) is numpy.ndarray and x.dtype.kind == "O":
        x = from_object_array(x)
        if isinstance(x, Tracer):
            return x
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        if like is None or type(x) is not numpy.ndarray:
            return x
        xp = xp_of(like)
        return x if xp is numpy else xp.asarray(x)
    if like is None or holds_tracer(x):
        return asarray(x)
    return xp_of(like).asarray(x)


# np.full/np.full_like of a traced fill value, called by any code while a transform is
# active (core/mutation.py's wrappers), make the traced array these make
TRACED_FILL.update(full=full, full_like=full_like)
