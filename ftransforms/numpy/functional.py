"""Functional programming helpers: ``apply_along_axis``, ``apply_over_axes``,
``piecewise`` (NumPy's "Functional programming"), written from ``fnp`` operations so that
every transform sees through them.

NOTE [np.vectorize on tracers]: ``numpy.vectorize`` is a class whose calls reach no
protocol.  Without ``otypes``/``signature`` NumPy's own object loop already computes on
tracers (its result is an object array of tracers, turned back into a traced array where
it meets the library); with ``otypes=[float]`` it casts that object array to float and with
``signature=`` it writes each result into a preallocated numeric array, both of which a
tracer cannot enter.  Importing ftransforms therefore wraps ``numpy.vectorize``'s internal
``_vectorize_call``: given a tracer (or an object array holding one) it runs the loop with
object outputs (``otypes``) or over the broadcast loop dimensions with ``fnp.stack``
(``signature``), and leaves every other call to NumPy's code unchanged.
"""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.core.errors import BatchedControlFlowError
from ftransforms.interpreters.batching import refusing_splits
from ftransforms.numpy.creation import as_operand, zeros_like
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import (
    concrete_arg,
    dtype_of,
    holds_tracer,
    ndim,
    normalize_axis,
    shape,
)
from ftransforms.numpy.indexing import at, getitem, where
from ftransforms.numpy.manipulation import broadcast_to, expand_dims, reshape, stack, transpose
from ftransforms.numpy.reductions import any
from ftransforms.numpy.ufuncs import astype, logical_not

__all__ = ["apply_along_axis", "apply_over_axes", "piecewise"]


@implements(numpy.apply_along_axis)
def apply_along_axis(func1d: Callable, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """``numpy.apply_along_axis``: ``func1d`` on every 1-d slice of ``arr`` along ``axis``
    (a Python loop over the slices, as in NumPy); the axes of its result take the place of
    ``axis``.

    Example:
        >>> import numpy as np
        >>> apply_along_axis(lambda v: v[::-1], 1, np.arange(4.0).reshape(2, 2)).tolist()
        [[1.0, 0.0], [3.0, 2.0]]
    """
    arr = as_operand(arr)
    nd = ndim(arr)
    axis = normalize_axis(axis, nd)
    view = transpose(arr, [d for d in range(nd) if d != axis] + [axis])
    outer = shape(view)[:-1]
    if any_zero(outer):
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    results = [
        as_operand(func1d(getitem(view, index), *args, **kwargs))
        for index in itertools.product(*[range(n) for n in outer])
    ]
    res_nd = ndim(results[0])
    buff = reshape(stack(results), outer + shape(results[0]))
    dims = list(range(ndim(buff)))
    cut = ndim(buff) - res_nd
    return transpose(buff, dims[:axis] + dims[cut:] + dims[axis:cut])


def any_zero(sizes: tuple[int, ...]) -> bool:
    """Whether one of ``sizes`` is 0 (an empty loop)."""
    return 0 in sizes


@implements(numpy.apply_over_axes)
def apply_over_axes(func: Callable, a: Any, axes: Any) -> Any:
    """``numpy.apply_over_axes``: ``a = func(a, axis)`` for each axis in turn, a reduced
    axis kept with size 1.

    Example:
        >>> import numpy as np
        >>> import ftransforms.numpy as fnp
        >>> apply_over_axes(fnp.sum, np.ones((2, 3, 4)), [0, 2]).shape
        (1, 3, 1)
    """
    val = as_operand(a)
    n = ndim(val)
    for axis in [axes] if numpy.ndim(axes) == 0 else list(axes):
        axis = int(axis) + n if int(axis) < 0 else int(axis)
        res = func(val, axis)
        if ndim(res) != ndim(val):
            res = expand_dims(res, axis)
            if ndim(res) != ndim(val):
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


def _conditions(x: Any, condlist: Any) -> list[Any]:
    """NumPy's reading of ``piecewise``'s ``condlist``: one condition or a list of them."""
    if isinstance(condlist, (list, tuple)):
        first = condlist[0] if condlist else None
        is_array = hasattr(first, "shape") and not isinstance(first, numpy.generic)
        wrap = not (isinstance(first, list) or is_array) and ndim(x) != 0
        conds = [condlist] if wrap else list(condlist)
    elif hasattr(condlist, "shape"):
        wrap = ndim(condlist) == 0 or (ndim(condlist) == 1 and ndim(x) != 0)
        conds = [condlist] if wrap else [getitem(condlist, i) for i in range(shape(condlist)[0])]
    else:
        conds = [condlist]
    return [broadcast_to(astype(as_operand(c, x), bool), shape(x)) for c in conds]


@implements(numpy.piecewise)
def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> Any:
    """``numpy.piecewise``: ``funclist[i]`` (a function of the selected elements, or a
    constant) where ``condlist[i]`` holds, zero elsewhere (a last extra function covers
    the elements no condition selects); the result has ``x``'s dtype.

    Each function sees only the elements its condition selects, as in NumPy, so a function
    that is undefined elsewhere (``log`` on the negative side) has finite derivatives.
    Under ``vmap`` with conditions that differ across the batch, each function is applied
    to all of ``x`` and the results are combined with ``where`` (same values; such a
    function must then be finite on all of ``x`` for its derivative to be).

    Example:
        >>> import numpy as np
        >>> x = np.array([-1.0, 2.0])
        >>> piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v**2]).tolist()
        [1.0, 4.0]
    """
    x = as_operand(x)
    conds = _conditions(x, condlist)
    if len(conds) == len(funclist) - 1:
        rest = logical_not(any(stack(conds), axis=0)) if conds else True
        conds.append(broadcast_to(as_operand(rest, x), shape(x)))
    elif len(conds) != len(funclist):
        raise ValueError(
            f"piecewise: with {len(conds)} condition(s), funclist must have {len(conds)} "
            f"or {len(conds) + 1} functions, got {len(funclist)}"
        )
    dt = dtype_of(x)
    y: Any = zeros_like(x)
    for cond, func in zip(conds, funclist):
        try:
            with refusing_splits():  # a batched condition has the batched path below
                mask = concrete_arg(cond, "piecewise")
        except BatchedControlFlowError:
            mask = None
        if mask is None:  # batched conditions: evaluate on all of x, select
            vals = func(x, *args, **kw) if callable(func) else func
            y = where(cond, astype(as_operand(vals, x), dt), y)
            continue
        if ndim(x) == 0:  # a 0-d x: its one element is selected or not
            if bool(mask):
                vals = func(x, *args, **kw) if callable(func) else func
                y = reshape(astype(as_operand(vals, x), dt), ())
            continue
        index = tuple(mask.nonzero())
        if index[0].size == 0:
            continue
        vals = func(getitem(x, index), *args, **kw) if callable(func) else func
        y = at(y)[index].set(astype(as_operand(vals, x), dt))
    return y


# -- numpy.vectorize with otypes= or signature= on tracers: NOTE [np.vectorize on tracers] --


def _cast(out: Any, otype: Any) -> Any:
    out = as_operand(out)
    return out if numpy.dtype(otype).kind == "O" else astype(out, numpy.dtype(otype))


def _vectorize_otypes(vec: Any, func: Callable, args: tuple) -> Any:
    nout = len(vec.otypes)
    ufunc = numpy.frompyfunc(func, len(args), nout)
    outputs = ufunc(*[numpy.asanyarray(a, dtype=object) for a in args])
    if nout == 1:
        return _cast(outputs, vec.otypes[0])
    return tuple(_cast(o, t) for o, t in zip(outputs, vec.otypes))


def _vectorize_signature(vec: Any, func: Callable, args: tuple) -> Any:
    # late import: NumPy's signature parsers (a private module, renamed in NumPy 2)
    try:
        from numpy.lib import _function_base_impl as _impl
    except ImportError:  # NumPy 1.26
        from numpy.lib import function_base as _impl

    input_core_dims, output_core_dims = vec._in_and_out_core_dims
    if len(args) != len(input_core_dims):
        raise TypeError(
            f"wrong number of positional arguments: expected {len(input_core_dims)}, "
            f"got {len(args)}"
        )
    args = tuple(as_operand(a) for a in args)
    broadcast_shape, dim_sizes = _impl._parse_input_dimensions(args, input_core_dims)
    input_shapes = _impl._calculate_shapes(broadcast_shape, dim_sizes, input_core_dims)
    args = [broadcast_to(a, s) for a, s in zip(args, input_shapes)]
    nout = len(output_core_dims)
    if 0 in broadcast_shape:
        raise ValueError("cannot call `vectorize` on size 0 inputs under a transform")
    rows: list[list[Any]] = [[] for _ in range(nout)]
    for index in numpy.ndindex(*broadcast_shape):
        results = func(*(getitem(a, index) if index else a for a in args))
        results = (results,) if nout == 1 else results
        if not isinstance(results, tuple) or len(results) != nout:
            raise ValueError(
                f"wrong number of outputs from pyfunc: expected {nout}, got "
                f"{len(results) if isinstance(results, tuple) else 1}"
            )
        for k, r in enumerate(results):
            rows[k].append(as_operand(r))
    outs = []
    for k, core in enumerate(output_core_dims):
        out = stack(rows[k]) if broadcast_shape else rows[k][0]
        out = reshape(out, tuple(broadcast_shape) + shape(rows[k][0]))
        if len(shape(rows[k][0])) != len(core):
            raise ValueError(
                f"wrong number of dimensions returned from pyfunc output {k}: expected "
                f"{len(core)}, got {len(shape(rows[k][0]))}"
            )
        if vec.otypes is not None:
            out = _cast(out, vec.otypes[k])
        outs.append(out)
    return outs[0] if nout == 1 else tuple(outs)


_NUMPY_VECTORIZE_CALL = getattr(numpy.vectorize, "_vectorize_call", None)


def _vectorize_call(self: Any, func: Callable, args: tuple) -> Any:
    if args and builtins.any(holds_tracer(a) for a in args):
        if self.signature is not None:
            return _vectorize_signature(self, func, args)
        if self.otypes:
            return _vectorize_otypes(self, func, args)
        return _vectorize_inferred(func, args)
    return _NUMPY_VECTORIZE_CALL(self, func, args)


def _vectorize_inferred(func: Callable, args: tuple) -> Any:
    """``numpy.vectorize`` without ``otypes`` on tracers: NumPy's rule, the output dtypes
    are those of the first element's results (a traced result: its dtype), then the
    object loop (the first results reused, as NumPy's cache does) cast to them.  NumPy
    would cast with ``float()`` of each element, which a tracer refuses when the first
    result was a plain number (``lambda u: u * 2 if u > 0 else 0.0``)."""
    objs = [numpy.asanyarray(a, dtype=object) for a in args]
    if builtins.any(o.size == 0 for o in objs):
        raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
    first = func(*[o.flat[0] for o in objs])
    firsts = first if isinstance(first, tuple) else (first,)
    otypes = [dtype_of(r) for r in firsts]
    cache = [first]

    def call(*values: Any) -> Any:
        return cache.pop() if cache else func(*values)

    outputs = numpy.frompyfunc(call, len(objs), len(firsts))(*objs)
    if len(firsts) == 1:
        return _cast(outputs, otypes[0])
    return tuple(_cast(o, t) for o, t in zip(outputs, otypes))


if _NUMPY_VECTORIZE_CALL is not None:
    numpy.vectorize._vectorize_call = _vectorize_call
