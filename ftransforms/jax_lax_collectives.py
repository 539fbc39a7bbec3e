"""The collectives that move data between the rows of a named ``vmap`` axis, under
``ftransforms.lax``: ``ppermute``, ``pshuffle``, ``psum_scatter``, ``all_to_all``,
``pswapaxes`` and ``axis_size`` (NOTE [jax.lax names in ftransforms.lax] in
``jax_lax.py``).

Each is ``all_gather`` (every row sees the whole axis, NOTE [collectives under vmap] in
``ftransforms/lax.py``) or ``psum`` followed by a selection with the row's own
``axis_index``: at the named level the gathered value is one unbatched array and the
selection one batched gather, so the cost is that of the data moved, and the derivative
rules of ``all_gather``/``psum`` and of indexing give the derivatives (the transpose of a
permutation is the inverse permutation, of ``psum_scatter`` an ``all_gather``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> from ftransforms import lax
    >>> shift = lambda x: lax.ppermute(x, "i", [(0, 1), (1, 2), (2, 0)])
    >>> ft.vmap(shift, axis_name="i")(np.array([1.0, 2.0, 3.0]))
    array([3., 1., 2.])
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.lax import _frame, all_gather, axis_index, psum
from ftransforms.numpy.helpers import constant_like
from ftransforms.pytree import tree_map


def _one_name(axis_name: Any, where: str) -> Any:
    if isinstance(axis_name, (tuple, list)):
        if len(axis_name) != 1:
            raise UnsupportedOperationError(
                f"{where}: one axis name is supported here, got {tuple(axis_name)}; nest the "
                f"collective once per name"
            )
        return axis_name[0]
    return axis_name


def axis_size(axis_name: Any) -> int:
    """The size of the named ``vmap`` axis (the product for a tuple of names)
    (``jax.lax.axis_size``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> ft.vmap(lambda x: x / lax.axis_size("i"), axis_name="i")(np.ones(4))
        array([0.25, 0.25, 0.25, 0.25])
    """
    names = axis_name if isinstance(axis_name, (tuple, list)) else (axis_name,)
    size = 1
    for name in names:
        size *= _frame(name, f"axis_size({axis_name!r})").axis_size
    return size


def ppermute(x: Any, axis_name: Any, perm: Sequence[tuple[int, int]]) -> Any:
    """``x`` (a pytree) sent along the named axis: each ``(source, destination)`` pair of
    ``perm`` gives row ``destination`` the value of row ``source``; rows that receive
    nothing get zeros (``jax.lax.ppermute``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> ft.vmap(lambda x: lax.ppermute(x, "i", [(0, 2)]), axis_name="i")(np.ones(3))
        array([0., 0., 1.])
    """
    where = f"ppermute(x, {axis_name!r}, perm)"
    name = _one_name(axis_name, where)
    n = _frame(name, where).axis_size
    pairs = [tuple(operator.index(v) for v in p) for p in perm]
    sources = numpy.full(n, -1, dtype=numpy.int64)
    for src, dst in pairs:
        if not (0 <= src < n and 0 <= dst < n) or sources[dst] >= 0:
            raise ValueError(
                f"{where}: perm must pair rows in [0, {n}) with each destination at most once, "
                f"got {pairs}"
            )
        sources[dst] = src
    if len({s for s, _ in pairs}) != len(pairs):
        raise ValueError(f"{where}: each source may appear once in perm, got {pairs}")
    index = axis_index(name)
    src = fnp.take(constant_like(sources, index), index)

    def move(leaf: Any) -> Any:
        rows = all_gather(leaf, name)
        picked = fnp.take(rows, fnp.maximum(src, 0), axis=0)
        return fnp.where(src >= 0, picked, fnp.zeros_like(picked))

    return tree_map(move, x)


def pshuffle(x: Any, axis_name: Any, perm: Sequence[int]) -> Any:
    """``x`` with row ``i`` receiving row ``perm[i]``'s value (``jax.lax.pshuffle``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> ft.vmap(lambda x: lax.pshuffle(x, "i", [2, 0, 1]), axis_name="i")(np.arange(3.0))
        array([2., 0., 1.])
    """
    perm = [operator.index(p) for p in perm]
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(
            f"pshuffle(x, {axis_name!r}, perm): perm must be a permutation, got {perm}"
        )
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


def psum_scatter(
    x: Any,
    axis_name: Any,
    *,
    scatter_dimension: int = 0,
    axis_index_groups: Any = None,
    tiled: bool = False,
) -> Any:
    """The sum over the named axis, each row keeping its own block of axis
    ``scatter_dimension``: entry ``i`` (without that axis), or with ``tiled`` the ``i``-th
    of ``axis_size`` equal chunks (``jax.lax.psum_scatter``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> ft.vmap(lambda x: lax.psum_scatter(x, "i"), axis_name="i")(np.ones((2, 2)))
        array([2., 2.])
    """
    where = f"psum_scatter(x, {axis_name!r})"
    if axis_index_groups is not None:
        raise UnsupportedOperationError(f"{where}: axis_index_groups is not supported")
    name = _one_name(axis_name, where)
    n = _frame(name, where).axis_size
    i = axis_index(name)

    def scatter(leaf: Any) -> Any:
        leaf = fnp.asarray(leaf)
        d = scatter_dimension % max(leaf.ndim, 1)
        size = leaf.shape[d] if leaf.ndim else 0
        if (not tiled and size != n) or (tiled and size % n):
            raise ValueError(
                f"{where}: axis {scatter_dimension} of x (size {size}) must "
                f"{'be a multiple of' if tiled else 'equal'} the axis size {n}"
            )
        total = psum(leaf, name)
        if not tiled:
            return fnp.take(total, i, axis=d)
        chunk = size // n
        return fnp.take(total, i * chunk + numpy.arange(chunk), axis=d)

    return tree_map(scatter, x)


def all_to_all(
    x: Any,
    axis_name: Any,
    split_axis: int,
    concat_axis: int,
    *,
    axis_index_groups: Any = None,
    tiled: bool = False,
) -> Any:
    """Row ``i`` receives block ``i`` of axis ``split_axis`` from every row, the blocks
    stacked in row order along a new axis ``concat_axis`` (``tiled``: blocks of
    ``size / axis_size`` joined along the existing ``concat_axis``)
    (``jax.lax.all_to_all``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> x = np.arange(4.0).reshape(2, 2)  # row r holds [2r, 2r + 1]
        >>> ft.vmap(lambda x: lax.all_to_all(x, "i", 0, 0), axis_name="i")(x)
        array([[0., 2.],
               [1., 3.]])
    """
    where = f"all_to_all(x, {axis_name!r}, {split_axis}, {concat_axis})"
    if axis_index_groups is not None:
        raise UnsupportedOperationError(f"{where}: axis_index_groups is not supported")
    name = _one_name(axis_name, where)
    n = _frame(name, where).axis_size
    i = axis_index(name)

    def exchange(leaf: Any) -> Any:
        leaf = fnp.asarray(leaf)
        s = split_axis % leaf.ndim
        size = leaf.shape[s]
        if (not tiled and size != n) or (tiled and size % n):
            raise ValueError(
                f"{where}: axis {split_axis} of x (size {size}) must "
                f"{'be a multiple of' if tiled else 'equal'} the axis size {n}"
            )
        rows = all_gather(leaf, name)  # (n, *x.shape): every row's x
        if not tiled:
            mine = fnp.take(rows, i, axis=s + 1)  # (n, x.shape without split_axis)
            return fnp.moveaxis(mine, 0, concat_axis % leaf.ndim)
        chunk = size // n
        mine = fnp.take(rows, i * chunk + numpy.arange(chunk), axis=s + 1)
        c = concat_axis % leaf.ndim
        mine = fnp.moveaxis(mine, 0, c)  # the senders just before the concat axis
        shape = list(mine.shape)
        return fnp.reshape(mine, (*shape[:c], shape[c] * shape[c + 1], *shape[c + 2 :]))

    return tree_map(exchange, x)


def pswapaxes(x: Any, axis_name: Any, axis: int, *, axis_index_groups: Any = None) -> Any:
    """The named axis swapped with axis ``axis`` of ``x`` (of the same size): row ``i``
    gets entry ``i`` of every row, in row order (``jax.lax.pswapaxes``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> x = np.arange(4.0).reshape(2, 2)
        >>> ft.vmap(lambda x: lax.pswapaxes(x, "i", 0), axis_name="i")(x)
        array([[0., 2.],
               [1., 3.]])
    """
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def pbroadcast(x: Any, axis_name: Any, source: int) -> Any:
    """Row ``source``'s ``x`` (a pytree) given to every row of the named axis
    (``jax.lax.pbroadcast``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> ft.vmap(lambda x: lax.pbroadcast(x, "i", 2), axis_name="i")(np.arange(4.0))
        array([2., 2., 2., 2.])
    """
    where = f"pbroadcast(x, {axis_name!r}, {source})"
    name = _one_name(axis_name, where)
    n = _frame(name, where).axis_size
    source = operator.index(source)
    if not 0 <= source < n:
        raise ValueError(f"{where}: source must be a row in [0, {n}), got {source}")
    return tree_map(lambda leaf: all_gather(leaf, name)[source], x)


__all__ = [
    "all_to_all",
    "axis_size",
    "pbroadcast",
    "ppermute",
    "pshuffle",
    "psum_scatter",
    "pswapaxes",
]
