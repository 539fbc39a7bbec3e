"""The thin primitive layer: one function per primitive (a ``bind``), plus the few shape
helpers every rule needs.  JVP, VJP, transpose and batching rules are written with these
functions, never with ``ftransforms.numpy``, so that the rules sit below the NumPy face.

NOTE [layers]: imports run one way, bottom to top (``tests/test_layering.py`` checks it):

``core`` (primitive, stack, tracer, backend, errors, pytree, index spec)
  < ``lax`` (this module) < ``ops`` (declarations: impl + JVP/VJP/transpose)
  < ``batching_rules`` (registers a batching rule per primitive or family)
  < ``interpreters`` and ``program`` (the transforms' machinery)
  < ``ftransforms.numpy`` (the NumPy face; installs the tracer's array methods)
  < ``api``, ``jit``, ``custom``, ``nn``, ``scipy``, ``random``, ``control``, ... (user-facing)
  < the package ``ftransforms`` itself.

This module cannot import ``ops`` (which imports it), so each function finds its
primitive by name in :data:`ftransforms.core.primitive.prims`, which ``defop`` fills: an
attribute read, resolved when the function runs.  Every function accepts arrays, Python
scalars and tracers alike; settings are normalised here once (axes made non-negative,
``-1`` resolved in shapes), so the primitives always receive canonical parameters.

Example:
    >>> import numpy as np
    >>> import ftransforms  # declares the primitives
    >>> from ftransforms import lax
    >>> lax.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

from ftransforms.backend import namespace_of
from ftransforms.core.errors import UnboundAxisNameError
from ftransforms.core.index_spec import index_arrays_on, normalize_index
from ftransforms.core.primitive import prims as _p
from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.pytree import tree_flatten, tree_map, tree_unflatten

#: The public names: the collectives and ``stop_gradient`` that JAX users call as
#: ``jax.lax.*`` (everything else here is the layer that rules are written in, not an API).
__all__ = ["all_gather", "axis_index", "pmax", "pmean", "pmin", "psum", "stop_gradient"]

_SCALARS = (int, float, complex)

# -- facts about values ----------------------------------------------------------------


def shape(x: Any) -> tuple[int, ...]:
    """The logical shape of an array, tracer or Python scalar."""
    s = getattr(x, "shape", None)
    if s is not None:
        return s if type(s) is tuple else tuple(s)
    return () if isinstance(x, _SCALARS) else numpy.shape(x)


def ndim(x: Any) -> int:
    """The logical rank of an array, tracer or Python scalar (on every rule's path: an
    attribute read for arrays and tracers, no call for Python scalars)."""
    n = getattr(x, "ndim", None)
    if n is not None:
        return n
    return 0 if isinstance(x, _SCALARS) else numpy.ndim(x)


def dtype_of(x: Any) -> Any:
    """The dtype of an array or tracer; Python scalars give NumPy's default for their type."""
    d = getattr(x, "dtype", None)
    return d if d is not None else numpy.result_type(x)


def physical(x: Any) -> Any:
    """The backend array under ``x`` (every level's batch axes included)."""
    return x._physical() if isinstance(x, Tracer) else x


def xp_of(*values: Any) -> Any:
    """The array namespace (numpy, cupy, ...) of ``values``, tracers included."""
    return namespace_of(*[physical(v) for v in values])


def normalize_axis(axis: int, rank: int) -> int:
    """``axis`` as a non-negative int (NumPy's ``AxisError`` when out of range)."""
    if not -rank <= axis < rank:
        raise numpy.exceptions.AxisError(axis, rank)
    return axis % rank if rank else 0


def normalize_axes(axis: Any, rank: int) -> tuple[int, ...]:
    """``axis`` (None, an int or a sequence) as a sorted tuple of non-negative ints."""
    if axis is None:
        return tuple(range(rank))
    if type(axis) is tuple:  # rules pass canonical axes: increasing ints in range
        prev = -1
        for a in axis:
            if type(a) is not int or a <= prev:
                break
            prev = a
        else:
            if prev < rank:
                return axis
    if isinstance(axis, (int, numpy.integer)):
        return (normalize_axis(int(axis), rank),)
    axes = tuple(normalize_axis(int(a), rank) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return tuple(sorted(axes))


def _axes_in_order(axis: Any, rank: int) -> list[int]:
    if isinstance(axis, (int, numpy.integer)):
        return [normalize_axis(int(axis), rank)]
    return [normalize_axis(int(a), rank) for a in axis]


# -- constants -------------------------------------------------------------------------


def zeros_like(x: Any, dtype: Any = None) -> Any:
    """Zeros of ``x``'s logical shape and dtype on its backend (a constant)."""
    return xp_of(x).zeros(shape(x), dtype=dtype or dtype_of(x))


def ones_like(x: Any, dtype: Any = None) -> Any:
    """Ones of ``x``'s logical shape and dtype on its backend (a constant)."""
    return xp_of(x).ones(shape(x), dtype=dtype or dtype_of(x))


def eye(n: int, *, like: Any, dtype: Any = None) -> Any:
    """The ``n x n`` identity on ``like``'s backend (a constant)."""
    return xp_of(like).eye(n, dtype=dtype or dtype_of(like))


# -- elementwise -----------------------------------------------------------------------


def add(x: Any, y: Any) -> Any:
    return _p.add.bind(x, y)


def subtract(x: Any, y: Any) -> Any:
    return _p.subtract.bind(x, y)


def multiply(x: Any, y: Any) -> Any:
    return _p.multiply.bind(x, y)


def divide(x: Any, y: Any) -> Any:
    return _p.divide.bind(x, y)


def negative(x: Any) -> Any:
    return _p.negative.bind(x)


def maximum(x: Any, y: Any) -> Any:
    return _p.maximum.bind(x, y)


def minimum(x: Any, y: Any) -> Any:
    return _p.minimum.bind(x, y)


def select(condition: Any, x: Any, y: Any) -> Any:
    """``where(condition, x, y)``."""
    return _p.select.bind(condition, x, y)


def equal(x: Any, y: Any) -> Any:
    return _p.equal.bind(x, y)


def isnan(x: Any) -> Any:
    return _p.isnan.bind(x)


def logical_and(x: Any, y: Any) -> Any:
    return _p.logical_and.bind(x, y)


def logical_or(x: Any, y: Any) -> Any:
    return _p.logical_or.bind(x, y)


def exp(x: Any) -> Any:
    return _p.exp.bind(x)


def log(x: Any) -> Any:
    return _p.log.bind(x)


def sqrt(x: Any) -> Any:
    return _p.sqrt.bind(x)


def floor(x: Any) -> Any:
    return _p.floor.bind(x)


def convert(x: Any, dtype: Any) -> Any:
    """``x.astype(dtype)`` (returns ``x`` itself when the dtype already matches)."""
    dtype = numpy.dtype(dtype)
    if dtype_of(x) == dtype and not isinstance(x, _SCALARS):
        return x
    return _p.convert.bind(x, dtype=dtype)


def real(x: Any) -> Any:
    """The real part (real inputs are returned as they are)."""
    return _p.real.bind(x) if dtype_of(x).kind == "c" else x


def imag(x: Any) -> Any:
    """The imaginary part (constant zeros for real inputs)."""
    return _p.imag.bind(x) if dtype_of(x).kind == "c" else zeros_like(x)


def conj_or_self(x: Any) -> Any:
    """The complex conjugate; real inputs are returned as they are (the rules' conjugate:
    ``jax.lax.conj``, which makes a real input complex, is ``lax.conj`` in ``jax_lax``)."""
    return _p.conj.bind(x) if dtype_of(x).kind == "c" else x


# -- shape -----------------------------------------------------------------------------


def _resolve_shape(new_shape: Any, total: int) -> tuple[int, ...]:
    if isinstance(new_shape, (int, numpy.integer)):
        new_shape = (int(new_shape),)
    new_shape = tuple(map(int, new_shape))
    if -1 in new_shape:
        known = math.prod(n for n in new_shape if n != -1)
        missing = total // known if known else 0
        new_shape = tuple(missing if n == -1 else n for n in new_shape)
    if math.prod(new_shape) != total:
        raise ValueError(f"cannot reshape array of size {total} into shape {new_shape}")
    return new_shape


def reshape(x: Any, new_shape: Any, dimensions: Any = None) -> Any:
    """``numpy.reshape`` in C order (``-1`` allowed); ``x`` itself when nothing changes.
    ``dimensions``: ``x``'s axes in this order first (``jax.lax.reshape``'s argument)."""
    if dimensions is not None:
        x = transpose(x, dimensions)
    old = shape(x)
    new = _resolve_shape(new_shape, math.prod(old))
    if new == old and not isinstance(x, _SCALARS):
        return x
    return _p.reshape.bind(x, shape=new)


def transpose(x: Any, axes: Any = None, *, permutation: Any = None) -> Any:
    """``numpy.transpose``; ``x`` itself for the identity permutation (``permutation=``:
    ``jax.lax.transpose``'s name for ``axes``)."""
    if permutation is not None:
        axes = permutation
    rank = ndim(x)
    axes = tuple(reversed(range(rank))) if axes is None else tuple(axes)
    if len(axes) != rank:
        raise ValueError(f"transpose: axes {axes} don't match an array of rank {rank}")
    axes = tuple(normalize_axis(int(a), rank) for a in axes)
    if axes == tuple(range(rank)):
        return x
    return _p.transpose.bind(x, axes=axes)


def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    """``numpy.moveaxis``."""
    rank = ndim(x)
    src = _axes_in_order(source, rank)
    dst = _axes_in_order(destination, rank)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination need the same number of axes")
    order = [n for n in range(rank) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)


def swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    """``numpy.swapaxes``."""
    rank = ndim(x)
    a, b = normalize_axis(axis1, rank), normalize_axis(axis2, rank)
    if a == b:
        return x
    order = list(range(rank))
    order[a], order[b] = b, a
    return _p.transpose.bind(x, axes=tuple(order))


def matrix_transpose(x: Any) -> Any:
    """Swap the last two axes."""
    return swapaxes(x, -1, -2)


def squeeze(x: Any, axis: Any = None, *, dimensions: Any = None) -> Any:
    """``numpy.squeeze`` (``dimensions=``: ``jax.lax.squeeze``'s name for ``axis``)."""
    if dimensions is not None:
        axis = tuple(dimensions)
    s = shape(x)
    if axis is None:
        axes = tuple(i for i, n in enumerate(s) if n == 1)
    else:
        axes = normalize_axes(axis, len(s))
        for a in axes:
            if s[a] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size != 1")
    return reshape(x, tuple(n for i, n in enumerate(s) if i not in axes))


def expand_dims(x: Any, axis: Any = None, *, dimensions: Any = None) -> Any:
    """``numpy.expand_dims`` (``dimensions=``: ``jax.lax.expand_dims``'s name for ``axis``)."""
    if dimensions is not None:
        axis = tuple(dimensions)
    s = shape(x)
    axes = normalize_axes(axis, len(s) + (1 if isinstance(axis, int) else len(axis)))
    it = iter(s)
    return reshape(x, tuple(1 if i in axes else next(it) for i in range(len(s) + len(axes))))


def broadcast_to(x: Any, new_shape: Any) -> Any:
    """``numpy.broadcast_to``; ``x`` itself when the shape already matches."""
    if isinstance(new_shape, (int, numpy.integer)):
        new_shape = (int(new_shape),)
    new_shape = tuple(new_shape)
    if shape(x) == new_shape and not isinstance(x, _SCALARS):
        return x
    return _p.broadcast_to.bind(x, shape=new_shape)


def concatenate(arrays: Sequence[Any], axis: int = 0, *, dimension: Any = None) -> Any:
    """``numpy.concatenate`` of arrays of equal rank along ``axis`` (``dimension=``:
    ``jax.lax.concatenate``'s name for it)."""
    if dimension is not None:
        axis = dimension
    arrays = list(arrays)
    if len(arrays) == 1:
        return arrays[0]
    return _p.concatenate.bind(*arrays, axis=normalize_axis(axis, ndim(arrays[0])))


def stack(arrays: Sequence[Any], axis: int = 0) -> Any:
    """``numpy.stack`` of arrays of one shape."""
    arrays = list(arrays)
    axis = normalize_axis(axis, ndim(arrays[0]) + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis)


def slice_along(x: Any, axis: int, start: Any = None, stop: Any = None, step: Any = None) -> Any:
    """``x[..., start:stop:step, ...]`` on ``axis`` (a non-negative axis)."""
    return getitem(x, (slice(None),) * axis + (slice(start, stop, step),))


def reverse_along(x: Any, axis: int) -> Any:
    """``x`` reversed along ``axis`` (a non-negative axis)."""
    return slice_along(x, axis, None, None, -1)


def pad_zeros(x: Any, widths: Sequence[tuple[int, int]]) -> Any:
    """``x`` with ``widths[i] = (before, after)`` zeros added on axis ``i``."""
    for axis, (before, after) in enumerate(widths):
        if not (before or after):
            continue
        s = shape(x)
        parts = []
        if before:
            parts.append(xp_of(x).zeros(s[:axis] + (before,) + s[axis + 1 :], dtype_of(x)))
        parts.append(x)
        if after:
            parts.append(xp_of(x).zeros(s[:axis] + (after,) + s[axis + 1 :], dtype_of(x)))
        x = concatenate(parts, axis)
    return x


# -- reductions ------------------------------------------------------------------------


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """``numpy.sum`` over ``axis`` (None, an int or a tuple)."""
    return _p.reduce_sum.bind(x, axis=normalize_axes(axis, ndim(x)), keepdims=keepdims)


def cumsum(x: Any, axis: int = 0, reverse: bool = False) -> Any:
    """``numpy.cumsum`` along one axis (from the end with ``reverse``: ``jax.lax.cumsum``).

    Example:
        >>> import numpy as np
        >>> import ftransforms  # declares the primitives
        >>> from ftransforms import lax
        >>> lax.cumsum(np.array([1.0, 2.0, 3.0]), reverse=True).tolist()
        [6.0, 5.0, 3.0]
        >>> lax.cumsum(np.array([100, 100], np.int8)).tolist()  # int8 wraps, as JAX's
        [100, -56]
    """
    return _in_own_int_type(_cumulative(_p.cumsum, x, axis, reverse), x)


def _cumulative(prim: Any, x: Any, axis: int, reverse: bool) -> Any:
    axis = normalize_axis(axis, ndim(x))
    if reverse:
        return reverse_along(prim.bind(reverse_along(x, axis), axis=axis), axis)
    return prim.bind(x, axis=axis)


def _in_own_int_type(out: Any, x: Any) -> Any:
    """``out`` (NumPy's running sum or product, ``int64`` for ``int8``) in ``x``'s integer
    type, wrapped around as JAX's ``lax.cumsum``/``cumprod`` accumulate (booleans: NumPy's
    integer counts, which JAX refuses)."""
    dt = dtype_of(x)
    return convert(out, dt) if dt.kind in "iu" and dtype_of(out) != dt else out


def cumprod(x: Any, axis: int = 0, reverse: bool = False) -> Any:
    """``numpy.cumprod`` along one axis (from the end with ``reverse``: ``jax.lax.cumprod``).

    Example:
        >>> import numpy as np
        >>> import ftransforms  # declares the primitives
        >>> from ftransforms import lax
        >>> lax.cumprod(np.array([1.0, 2.0, 3.0])).tolist()
        [1.0, 2.0, 6.0]
    """
    return _in_own_int_type(_cumulative(_p.cumprod, x, axis, reverse), x)


# -- indexing --------------------------------------------------------------------------


def getitem(x: Any, index: Any) -> Any:
    """``x[index]``: basic slicing and integer-array indexing."""
    spec, arrays = normalize_index(index, ndim(x))
    return _p.getitem.bind(x, *index_arrays_on(x, arrays), index=spec)


# -- linear algebra --------------------------------------------------------------------


def matmul(a: Any, b: Any) -> Any:
    """``a @ b`` (NumPy's matmul, vectors included)."""
    return _p.matmul.bind(a, b)


LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def expand_einsum_subscripts(subscripts: str, operands: Sequence[Any]) -> str:
    """``subscripts`` with every ellipsis spelled out and the output made explicit.

    Example:
        >>> import numpy as np
        >>> expand_einsum_subscripts("...ii->...i", [np.zeros((5, 3, 3))])
        'aii->ai'
    """
    subscripts = subscripts.replace(" ", "")
    ins, arrow, out = subscripts.partition("->")
    out = out if arrow else None
    in_list = ins.split(",")
    if len(in_list) != len(operands):
        raise ValueError(f"einsum: {len(in_list)} operand subscripts for {len(operands)} operands")
    used = "".join(in_list) + (out or "")
    free = [c for c in LETTERS if c not in used]
    ell_rank = 0
    for s, op in zip(in_list, operands):
        if "..." in s:
            ell_rank = max(ell_rank, ndim(op) - (len(s) - 3))
    ell = "".join(free[:ell_rank])
    expanded = []
    for s, op in zip(in_list, operands):
        if "..." in s:
            k = ndim(op) - (len(s) - 3)
            s = s.replace("...", ell[ell_rank - k :] if k else "")
        if len(s) != ndim(op):
            raise ValueError(
                f"einsum: operand subscripts {s!r} do not match an operand of rank {ndim(op)}"
            )
        expanded.append(s)
    if out is None:
        joined = "".join(expanded)
        counts = {c: joined.count(c) for c in joined}
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    else:
        out = out.replace("...", ell)
    return ",".join(expanded) + "->" + out


def einsum(subscripts: str, *operands: Any, optimize: Any = False) -> Any:
    """``numpy.einsum`` in the subscripts form (ellipsis and implicit output allowed)."""
    return _p.einsum.bind(
        *operands,
        subscripts=expand_einsum_subscripts(subscripts, operands),
        optimize=optimize,
    )


# -- batch axes (the helpers batching rules and custom rules share) --------------------
#
# ``x_bdim`` is the physical axis of a value's batch dimension, ``None`` for an unbatched
# value (which must cost nothing).


def logical_rank(x: Any, x_bdim: int | None) -> int:
    """Rank of ``x`` as the user sees it (without the batch axis)."""
    return ndim(x) - (x_bdim is not None)


def move_bdim_to_front(x: Any, x_bdim: int | None) -> Any:
    """``x`` with its batch axis moved to 0 (unbatched values are returned as they are)."""
    if x_bdim is None or x_bdim == 0:
        return x
    return moveaxis(x, x_bdim, 0)


def move_bdim_to(x: Any, x_bdim: int, dst: int) -> Any:
    """``x`` with its batch axis moved from ``x_bdim`` to ``dst``."""
    return x if x_bdim == dst else moveaxis(x, x_bdim, dst)


def ensure_bdim(x: Any, x_bdim: int | None, axis_size: int) -> Any:
    """``x`` with a batch axis at the front, broadcasting (a view) if it had none."""
    if x_bdim is None:
        s = shape(x)
        return broadcast_to(reshape(x, (1,) + s), (axis_size,) + s)
    return move_bdim_to_front(x, x_bdim)


def pad_rank_after_front(x: Any, rank: int) -> Any:
    """Insert size-1 axes after the front batch axis until the logical rank is ``rank``."""
    s = shape(x)
    missing = rank - (len(s) - 1)
    if missing <= 0:
        return x
    return reshape(x, s[:1] + (1,) * missing + s[1:])


def physical_axis(axis: int, x_bdim: int) -> int:
    """The physical axis of logical ``axis`` in a value batched at ``x_bdim``."""
    return axis + (axis >= x_bdim)


def reshape_dim_into(src: int, dst: int, x: Any) -> Any:
    """Merge axis ``src`` into axis ``dst`` (``src`` becomes the outer part of ``dst``).

    ``dst`` counts axes of the result.
    """
    x = moveaxis(x, src, dst)
    s = shape(x)
    return reshape(x, s[:dst] + (s[dst] * s[dst + 1],) + s[dst + 2 :])


def reshape_dim_outof(src: int, size1: int, x: Any) -> Any:
    """Split axis ``src`` into ``(size1, shape[src] // size1)``."""
    s = shape(x)
    return reshape(x, s[:src] + (size1, s[src] // size1) + s[src + 1 :])


# -- collectives over a named vmap axis (JAX's ``jax.lax.psum`` & co. under ``vmap``) ----
#
# NOTE [collectives under vmap]: ``vmap(f, axis_name="i")`` names its batch axis; inside
# ``f``, ``psum(x, "i")`` sums ``x`` over that axis and gives every row the total, as JAX's
# collectives do under ``jax.vmap``.  The innermost ``vmap`` of that name on the stack is
# the frame; its :meth:`axis_index` tracer (``arange(axis_size)`` batched at its level) is
# bound as a second argument of the collective primitive (``ftransforms/ops/collectives.py``).
# That extra argument carries the frame through dispatch: every level above the frame
# (an inner ``vmap`` of another name, ``grad``, ``jvp``) applies its own rule (a named
# axis is passed through, tangents and cotangents go through the linear collective), and
# the frame's level is the only one that sees the index batched, which is how its
# batching rule knows to reduce over its batch axis.  A value that does not vary along the
# axis reaches the frame unbatched (``psum`` is then ``axis_size * x``), and no level
# below the frame ever sees the collective.  Under ``ftransforms.distributed``'s vmap the
# frame is one block: a collective reduces over the rows of its block only.


def _frame(axis_name: Any, where: str) -> Any:
    """The innermost ``vmap`` interpreter on the stack whose axis is ``axis_name``."""
    for interp in reversed(current_stack()):
        axis = getattr(interp, "axis", None)
        if axis is not None and axis[0] == axis_name:
            return interp
    names = [i.axis[0] for i in current_stack() if getattr(i, "axis", None) is not None]
    raise UnboundAxisNameError(
        f"{where}: no enclosing vmap has axis_name={axis_name!r} (the named axes in scope "
        f"are {names or 'none'}); call it inside ft.vmap(f, axis_name={axis_name!r})"
    )


def _names(axis_name: Any) -> tuple:
    return axis_name if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _collective(prim_name: str, x: Any, axis_name: Any, where: str, **params: Any) -> Any:
    prim = getattr(_p, prim_name)
    leaves, spec = tree_flatten(x)
    for name in _names(axis_name):
        index = _frame(name, where).axis_index()
        leaves = [prim.bind(leaf, index, **params) for leaf in leaves]
    return tree_unflatten(spec, leaves)


def axis_index(axis_name: Any) -> Any:
    """The position of each row along the named ``vmap`` axis (``jax.lax.axis_index``); for
    a tuple of names, the position in those axes flattened in that order (row-major).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.vmap(lambda x: x * ft.lax.axis_index("i"), axis_name="i")(np.ones(3))
        array([0., 1., 2.])
    """
    where = f"axis_index({axis_name!r})"
    index = None
    for name in _names(axis_name):
        frame = _frame(name, where)
        i = frame.axis_index()
        index = i if index is None else index * frame.axis_size + i
    return index


def stop_gradient(x: Any) -> Any:
    """``x`` (a pytree) with no derivative at any transform level, as
    ``jax.lax.stop_gradient`` (each leaf is ``ftransforms.numpy.stop_gradient`` of it).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> float(ft.grad(lambda x: x * ft.lax.stop_gradient(x))(3.0))
        3.0
        >>> g = ft.grad(lambda p: np.sum(p["a"] * ft.lax.stop_gradient(p)["b"]))
        >>> g({"a": 1.0, "b": 2.0})
        {'a': array(2.), 'b': array(0.)}
    """
    return tree_map(_p.stop_gradient.bind, x)


def psum(x: Any, axis_name: Any) -> Any:
    """The sum of ``x`` (a pytree) over the named ``vmap`` axis (or a tuple of names),
    given to every row, as ``jax.lax.psum`` (NOTE [collectives under vmap]).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.vmap(lambda x: x / ft.lax.psum(x, "i"), axis_name="i")(np.array([1.0, 3.0]))
        array([0.25, 0.75])
    """
    return _collective("psum", x, axis_name, f"psum(x, {axis_name!r})")


def pmean(x: Any, axis_name: Any) -> Any:
    """The mean of ``x`` over the named ``vmap`` axis, as ``jax.lax.pmean``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.vmap(lambda x: x - ft.lax.pmean(x, "i"), axis_name="i")(np.array([1.0, 3.0]))
        array([-1.,  1.])
    """
    where = f"pmean(x, {axis_name!r})"
    n = 1
    for name in _names(axis_name):
        n *= _frame(name, where).axis_size
    total = _collective("psum", x, axis_name, where)
    return tree_map(lambda t: t / n, total)


def pmax(x: Any, axis_name: Any) -> Any:
    """The maximum of ``x`` over the named ``vmap`` axis, as ``jax.lax.pmax`` (its
    derivative is shared by the rows that attain it, as for ``max``).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.vmap(lambda x: ft.lax.pmax(x, "i"), axis_name="i")(np.array([1.0, 3.0]))
        array([3., 3.])
    """
    return _collective("pmax", x, axis_name, f"pmax(x, {axis_name!r})")


def pmin(x: Any, axis_name: Any) -> Any:
    """The minimum of ``x`` over the named ``vmap`` axis, as ``jax.lax.pmin``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.vmap(lambda x: ft.lax.pmin(x, "i"), axis_name="i")(np.array([1.0, 3.0]))
        array([1., 1.])
    """
    return _collective("pmin", x, axis_name, f"pmin(x, {axis_name!r})")


def all_gather(x: Any, axis_name: Any, *, axis: int = 0, tiled: bool = False) -> Any:
    """Every row's ``x`` stacked along a new axis ``axis`` (joined along ``axis`` when
    ``tiled``), given to every row, as ``jax.lax.all_gather``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.vmap(lambda x: ft.lax.all_gather(x, "i"), axis_name="i")(np.array([1.0, 3.0]))
        array([[1., 3.],
               [1., 3.]])
    """
    where = f"all_gather(x, {axis_name!r})"
    leaves, spec = tree_flatten(x)
    for name in reversed(_names(axis_name)):
        index = _frame(name, where).axis_index()
        out = []
        for leaf in leaves:
            rank = ndim(leaf)
            if not -rank - 1 <= axis <= rank or (tiled and not -rank <= axis < rank):
                raise ValueError(
                    f"{where}: axis={axis} is out of range for a value of rank {rank}; use "
                    f"an axis in [-{rank + 1 - tiled}, {rank + 1 - tiled})"
                )
            a = axis % (rank + 1 - tiled)
            out.append(_p.all_gather.bind(leaf, index, axis=a, tiled=bool(tiled)))
        leaves = out
    return tree_unflatten(spec, leaves)
