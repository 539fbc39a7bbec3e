"""The NumPy protocol bridge: ``np.sin(tracer)``, ``np.sum(tracer)``, ``arr @ tracer``.

``__array_ufunc__`` maps a ufunc to the ``ftransforms.numpy`` function of the same name;
``__array_function__`` maps the NumPy functions registered (where each is defined) with
:func:`~ftransforms.numpy.dispatch.implements` in :data:`FUNCTIONS`.  Anything else raises
:class:`UnsupportedOperationError` naming the function.
"""

from __future__ import annotations

import inspect
import itertools
import math
import sys
from typing import Any

import numpy

import ftransforms.numpy.creation as creation
import ftransforms.numpy.dtypes as dtypes
import ftransforms.numpy.helpers as helpers
import ftransforms.numpy.indexing as indexing
import ftransforms.numpy.inplace as inplace
import ftransforms.numpy.logic as logic
import ftransforms.numpy.manipulation as manipulation
import ftransforms.numpy.mathematical as mathematical
import ftransforms.numpy.matrices as matrices
import ftransforms.numpy.polynomials as polynomials
import ftransforms.numpy.products as products
import ftransforms.numpy.ranges as ranges
import ftransforms.numpy.rearranging as rearranging
import ftransforms.numpy.reductions as reductions
import ftransforms.numpy.sets as sets
import ftransforms.numpy.signal as signal
import ftransforms.numpy.sorting as sorting
import ftransforms.numpy.statistics as statistics
import ftransforms.numpy.ufunc_methods as ufunc_methods
import ftransforms.numpy.ufuncs as ufuncs
from ftransforms.core.errors import (
    InPlaceError,
    OutputCastingError,
    UFuncTypeError,
    UnsupportedOperationError,
)
from ftransforms.core.mutation import NOT_IN_C_ORDER, Buffer, buffer_scope, clone, new_buffer
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.dispatch import FUNCTIONS
from ftransforms.numpy.result_layout import laid_out_as_numpy, laid_out_as_numpy_function

__all__ = ["FUNCTIONS", "handle_function", "handle_ufunc"]

#: Every public ``ftransforms.numpy`` function by name: a ufunc ``numpy.foo(tracer)`` is
#: answered by the function of the same name (or its alias below).
NAMESPACE: dict[str, Any] = {
    name: getattr(module, name)
    for module in (
        dtypes,
        helpers,
        ufuncs,
        manipulation,
        creation,
        indexing,
        reductions,
        logic,
        mathematical,
        sorting,
        rearranging,
        ranges,
        matrices,
        products,
        sets,
        statistics,
        signal,
        polynomials,
    )
    for name in module.__all__
}

# ufunc.__name__ -> ftransforms.numpy name, where they differ.
UFUNC_ALIASES = {"absolute": "abs", "conjugate": "conj", "bitwise_not": "invert"}
_REDUCE = {
    "add": "sum",
    "multiply": "prod",
    "maximum": "max",
    "minimum": "min",
    "logical_and": "all",
    "logical_or": "any",
}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}


def _call_form(values: Any) -> str:
    """``"vmap(f, in_dims=0): "`` for the innermost transform among ``values``' tracers."""
    top = None
    todo = [values]
    while todo:
        v = todo.pop()
        if isinstance(v, Tracer):
            if top is None or v._interp.level > top._interp.level:
                top = v
        elif isinstance(v, (tuple, list)):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.values())
    return f"{top._interp.name}: " if top is not None else ""


_OBJECT = numpy.dtype(object)


def _objects_converted(values: Any) -> Any:
    """``values`` (a tuple) with NumPy object arrays holding tracers as arrays
    (``np.array([t, 1.0]) + t``): never taken for constants."""
    for v in values:  # a plain loop: this runs on every np.<ufunc>(tracer)
        if type(v) is numpy.ndarray and v.dtype is _OBJECT:
            return tuple(creation.from_object_array(v) for v in values)
    return values


#: ufunc -> the ftransforms function a plain call ``numpy.<ufunc>(tracer)`` (or
#: ``scipy.special.<ufunc>(tracer)``) resolves to, filled on first use: later calls skip
#: the keyword, method and name checks.
_UFUNC_CALLS: dict[Any, Any] = {}


def handle_ufunc(ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    if not kwargs and method == "__call__":
        fn = _UFUNC_CALLS.get(ufunc)
        if fn is not None:
            out = fn(*_objects_converted(inputs))
            # NOTE [a new array, not the argument]: np.positive(a), np.conj(real a)
            if out is inputs[0]:
                out = clone(out)
            if not NOT_IN_C_ORDER:  # NOTE [layout of elementwise results]
                for a in inputs:
                    if type(a) is numpy.ndarray:
                        break
                else:
                    return out  # every operand a tracer in C order or no array
            return laid_out_as_numpy(out, inputs)
    out = _handle_ufunc(ufunc, method, inputs, kwargs)
    if kwargs.get("out") is not None:
        return out
    if inputs and out is inputs[0]:
        out = clone(out)
    return laid_out_as_numpy(out, inputs) if method == "__call__" else out


def _handle_ufunc(ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    name = ufunc.__name__
    inputs = _objects_converted(inputs)
    if method == "at":
        return _ufunc_at(ufunc, name, inputs)
    if kwargs.get("out") is not None:
        return _ufunc_out(ufunc, method, inputs, kwargs)
    kwargs.pop("out", None)
    if method == "__call__" and kwargs and (ufunc in _UFUNC_CALLS or not _is_python_ufunc(ufunc)):
        form = _CallForm(inputs, f"numpy.{name}(..., {'=..., '.join(kwargs)}=...)")
        if kwargs.pop("where", True) is not True:
            raise UnsupportedOperationError(
                f"{form}: where= without out= leaves the elements where the mask is False "
                f"uninitialised (NumPy warns); pass out=buf to keep buf's values there, or "
                f"write fnp.where(mask, numpy.{name}(...), fill)."
            )
        return _call_with_keywords(ufunc, inputs, kwargs, (None,) * ufunc.nout, form)
    dtype = kwargs.pop("dtype", None)
    masked: dict = {}  # initial=/where= of a reduce with a NumPy counterpart (np.sum's)
    if method in ("reduce", "accumulate", "reduceat"):
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False) if method == "reduce" else False
        if method == "reduce" and name in _REDUCE:
            takes = ("where",) if _REDUCE[name] in ("all", "any") else ("initial", "where")
            masked = {k: kwargs.pop(k) for k in takes if k in kwargs}
    if kwargs:
        raise UnsupportedOperationError(
            f"{_call_form(inputs)}numpy.{name}: arguments {sorted(kwargs)} are not supported "
            f"on tracers; call it without them (fnp.where(mask, a, b) replaces where=)"
        )
    if method == "__call__":
        fn = NAMESPACE.get(UFUNC_ALIASES.get(name, name))
        if fn is not None:
            if isinstance(ufunc, numpy.ufunc) and getattr(numpy, name, None) is ufunc:
                _UFUNC_CALLS[ufunc] = fn
        else:
            fn = _scipy_special_ufunc(ufunc)  # found by identity: as safe to remember
            if fn is not None:
                _UFUNC_CALLS[ufunc] = fn
        if fn is not None:
            out = fn(*inputs)
        elif _is_python_ufunc(ufunc):
            out = _call_python_ufunc(ufunc, inputs)
        elif _only_buffers(inputs, {}):  # NumPy's own ufunc on the buffers' values
            out = ufunc(*_plain_all(inputs))
        else:
            raise _unsupported(f"numpy.{name}", inputs)
    elif method == "reduce" and name in _REDUCE:
        out = NAMESPACE[_REDUCE[name]](inputs[0], axis=axis, keepdims=keepdims, **masked)
    elif method == "accumulate" and name in _ACCUMULATE:
        out = NAMESPACE[_ACCUMULATE[name]](inputs[0], axis=axis)
    elif method in ("reduce", "accumulate", "outer", "reduceat") and ufunc.nin == 2:
        # Any other binary ufunc's methods, from its elementwise counterpart
        # (np.subtract.outer, np.maximum.accumulate, np.logaddexp.reduce, ...).
        fn = NAMESPACE.get(UFUNC_ALIASES.get(name, name)) or _scipy_special_ufunc(ufunc)
        if fn is None:
            raise _unsupported(f"numpy.{name}.{method}", inputs)
        if method == "reduce":
            out = ufunc_methods.reduce(fn, inputs[0], axis=axis, keepdims=keepdims)
        elif method == "accumulate":
            out = ufunc_methods.accumulate(fn, inputs[0], axis=axis)
        elif method == "reduceat":
            indices = inputs[1]._concrete() if isinstance(inputs[1], Tracer) else inputs[1]
            a = inputs[0]  # NumPy reduces in dtype=, add/multiply by default as its sum
            if dtype is not None:
                a = ufuncs.astype(a, dtype)
            elif name in _ACCUMULATE:
                a = ufuncs.astype(a, _sum_dtype(helpers.dtype_of(a)))
            out = ufunc_methods.reduceat(fn, a, helpers.to_host(indices), axis=axis)
        else:
            out = ufunc_methods.outer(fn, *inputs)
    else:
        raise _unsupported(f"numpy.{name}.{method}", inputs)
    return out if dtype is None else ufuncs.astype(out, dtype)


def _sum_dtype(dt: Any) -> Any:
    """The dtype NumPy's add/multiply reductions accumulate ``dt`` in: bools and integers
    narrower than the default integer widened to it (``numpy.int_`` / ``numpy.uint``)."""
    if dt.kind == "b" or (dt.kind == "i" and dt.itemsize < 8):
        return numpy.dtype(numpy.int_)
    if dt.kind == "u" and dt.itemsize < 8:
        return numpy.dtype(numpy.uint)
    return dt


#: The in-place operator whose write NumPy makes with each ufunc (``a += t`` is
#: ``numpy.add(a, t, out=(a,))``), named in the errors of such a write.
_INPLACE_OPERATORS = {
    "add": "+=",
    "subtract": "-=",
    "multiply": "*=",
    "divide": "/=",
    "floor_divide": "//=",
    "remainder": "%=",
    "power": "**=",
    "matmul": "@=",
    "left_shift": "<<=",
    "right_shift": ">>=",
    "bitwise_and": "&=",
    "bitwise_or": "|=",
    "bitwise_xor": "^=",
}


def _out_call_form(ufunc: Any, method: str, inputs: tuple, outs: Any) -> str:
    """The call ``numpy.<ufunc>(..., out=...)`` as the user wrote it: ``a += t`` where the
    output is the first input of a binary ufunc with an in-place operator."""
    op = _INPLACE_OPERATORS.get(ufunc.__name__) if method == "__call__" else None
    if op and len(inputs) == 2 and isinstance(outs, tuple) and outs[0] is inputs[0]:
        return f"a {op} t (numpy.{ufunc.__name__}(..., out=...))"
    return f"numpy.{ufunc.__name__}(..., out=...)"


def _ufunc_out(ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    """``numpy.<ufunc>(..., out=buf[, where=mask])``: the result written into ``buf`` with
    NumPy's mutation semantics (NOTE [mutation semantics] in core/mutation.py) and casting
    rules (NOTE [ufunc keywords on tracers])."""
    kwargs = dict(kwargs)
    outs = kwargs.pop("out")
    # a reduce's where= picks the elements it reduces (passed on); a call's, the outputs
    mask = True if method == "reduce" else kwargs.pop("where", True)
    form = f"{_call_form((inputs, outs))}{_out_call_form(ufunc, method, inputs, outs)}"
    nout = ufunc.nout if method == "__call__" else 1
    if not isinstance(outs, tuple):
        if nout > 1:
            raise UFuncTypeError(
                f"{form}: numpy.{ufunc.__name__} has {nout} outputs, so out= must be a "
                f"tuple of {nout} arrays (None for an output to allocate), as NumPy requires"
            )
        outs = (outs,)
    elif len(outs) != nout:
        raise UFuncTypeError(
            f"{form}: out= has {len(outs)} entries but numpy.{ufunc.__name__} has {nout} "
            f"output(s); pass one array (or None) per output, as NumPy requires"
        )
    inputs = tuple(v.val if type(v) is Buffer else v for v in inputs)
    traced = any(isinstance(v, Tracer) for v in inputs)
    if mask is not True and traced and method == "__call__":
        # NOTE [masked-out inputs of where=]: NumPy does not compute the ufunc where the
        # mask is False (np.sqrt(a, out=a, where=a > 0)); here it is computed and dropped,
        # and its derivative there (inf or nan) times a zero (co)tangent would be nan.  So
        # each traced input is where(mask, x, stop_gradient(x)): the same values, and what
        # flows back from the dropped elements is selected away, never multiplied.  The
        # dropped elements of every input are the inputs' values at one element that is
        # computed: NumPy warns of no invalid value there (sqrt of a negative) unless it
        # warns for that element too.
        m = mask.val if type(mask) is Buffer else mask
        inputs = _computed_values_where_dropped(inputs, m)
    if method == "__call__" and not _is_python_ufunc(ufunc):
        out_dtypes = tuple(None if o is None else helpers.dtype_of(o) for o in outs)
        if traced:
            result = _call_with_keywords(ufunc, inputs, kwargs, out_dtypes, form)
        else:  # NumPy's own call; the cast into the out= arrays checked as NumPy does
            _loop_dtypes(ufunc, inputs, kwargs, out_dtypes, form)
            result = ufunc(*inputs, **kwargs)
    elif not traced:
        result = getattr(ufunc, method)(*inputs, **kwargs)  # plain values into a buffer
    else:
        result = handle_ufunc(ufunc, method, inputs, kwargs)
    results = result if isinstance(result, tuple) else (result,)
    for o, r in zip(outs, results):
        if o is None:
            continue
        out_shape, r_shape = helpers.shape(o), helpers.shape(r)
        if r_shape != out_shape and _broadcast_shape(r_shape, out_shape) != out_shape:
            raise UFuncTypeError(
                f"{form}: the result has shape {r_shape}, which does not broadcast to the "
                f"out= array's shape {out_shape} (NumPy: non-broadcastable output operand); "
                f"pass an out= array of shape {r_shape}"
            )
        if mask is not True:
            r = indexing.where(mask.val if type(mask) is Buffer else mask, r, o)
        inplace.write_out(form, o, r)
    written = tuple(o if o is not None else r for o, r in zip(outs, results))
    return written if len(written) > 1 else written[0]


def _is_array(v: Any) -> bool:
    return isinstance(v, (Tracer, numpy.ndarray))


def _computed_values_where_dropped(inputs: tuple, mask: Any) -> tuple:
    """The ufunc's ``inputs`` with the elements ``where=mask`` drops replaced by the inputs'
    values at the first element it keeps (NOTE [masked-out inputs of where=]); traced
    inputs pass no derivative through the replaced elements."""
    shapes = [helpers.shape(v) for v in inputs if _is_array(v)]
    shape = _broadcast_shape(helpers.shape(mask), *shapes) if shapes else None
    if shape is None or not math.prod(shape):
        return inputs
    keep = manipulation.broadcast_to(mask, shape)
    first = reductions.argmax(manipulation.reshape(keep, (-1,)))
    out = []
    for v in inputs:
        if _is_array(v) and helpers.dtype_of(v).kind in "biufc":
            flat = manipulation.reshape(manipulation.broadcast_to(v, shape), (-1,))
            fill = indexing.take(flat, first)
            traced = isinstance(v, Tracer) and helpers.dtype_of(v).kind in "fc"
            v = indexing.where(keep, v, ufuncs.stop_gradient(fill) if traced else fill)
        out.append(v)
    return tuple(out)


def _broadcast_shape(*shapes: tuple) -> tuple | None:
    try:
        return numpy.broadcast_shapes(*shapes)
    except ValueError:
        return None


# NOTE [ufunc keywords on tracers]: ``numpy.<ufunc>(tracer, ..., dtype=, signature=,
# casting=, order=, subok=, out=)`` asks NumPy which loop its own call would run:
# ``ufunc.resolve_dtypes`` on the operands' dtypes (a Python scalar as its weak type, the
# out= arrays' dtypes as the outputs), with the same signature (``dtype=d`` is
# ``signature=(None,) * nin + (d,) * nout``) and casting (default 'same_kind'), raises
# exactly where NumPy's call would, as UFuncTypeError.  The operands are then cast to the
# loop's dtypes, the ftransforms function of the ufunc's name computes, and each result
# is cast to the loop's output dtype: ``np.add(x64, 1, dtype=np.float32)`` adds in float32,
# as NumPy does.  ``order=`` and ``subok=`` only choose a memory layout or an array
# subclass, never values: they are checked and accepted.  Plain calls never come here.


def _operand_dtype(v: Any) -> Any:
    """What ``ufunc.resolve_dtypes`` takes for an operand: its dtype, or a Python scalar's
    weak type (``int``, ``float``, ``complex``)."""
    if type(v) is Buffer:
        v = v.val
    d = getattr(v, "dtype", None)
    if d is not None:
        return numpy.dtype(d)
    if type(v) in (int, float, complex):
        return type(v)
    return helpers.dtype_of(v)


class _CallForm:
    """The start of an error message (``"vmap(f, in_dims=0): numpy.add(..., casting=...)"``),
    put together only when a message is: the keyword path builds none when nothing fails."""

    __slots__ = ("values", "call")

    def __init__(self, values: Any, call: str) -> None:
        self.values = values
        self.call = call

    def __str__(self) -> str:
        return f"{_call_form(self.values)}{self.call}"


def _call_with_keywords(
    ufunc: Any, inputs: tuple, kwargs: dict, out_dtypes: tuple, form: Any
) -> Any:
    """``numpy.<ufunc>(*inputs, **kwargs)`` on tracers with NumPy's loop selection and
    casting (NOTE [ufunc keywords on tracers]); ``out_dtypes``: the out= arrays' dtypes
    (None where NumPy allocates); ``form``: the start of an error message."""
    fn = _UFUNC_CALLS.get(ufunc)
    if fn is None:
        name = ufunc.__name__
        fn = NAMESPACE.get(UFUNC_ALIASES.get(name, name)) or _scipy_special_ufunc(ufunc)
        if fn is None:
            raise _unsupported(f"numpy.{name}", inputs)
    core = {}  # a gufunc's axis= (np.vecdot(a, b, axis=0)): the function's own keyword
    if ufunc.signature is not None and "axis" in kwargs:
        kwargs = dict(kwargs)
        core["axis"] = kwargs.pop("axis")
    loop = _loop_dtypes(ufunc, inputs, kwargs, out_dtypes, form)
    cast = tuple(  # a Python scalar stays weak: it takes the other operands' dtype
        v if type(v) in (int, float, complex) or _operand_dtype(v) == dt else ufuncs.astype(v, dt)
        for v, dt in zip(inputs, loop[: ufunc.nin])
    )
    out = fn(*cast, **core)
    results = out if isinstance(out, tuple) else (out,)
    results = tuple(
        r if helpers.dtype_of(r) == dt else ufuncs.astype(r, dt)
        for r, dt in zip(results, loop[ufunc.nin :])
    )
    return results if isinstance(out, tuple) else results[0]


def _loop_dtypes(ufunc: Any, inputs: tuple, kwargs: dict, out_dtypes: tuple, form: Any) -> tuple:
    """The dtypes of the loop NumPy runs for ``ufunc(*inputs, **kwargs)`` with out= arrays
    of ``out_dtypes``; UFuncTypeError where NumPy refuses the call."""
    kwargs = dict(kwargs)
    dtype = kwargs.pop("dtype", None)
    signature = kwargs.pop("signature", None)
    casting = kwargs.pop("casting", "same_kind")
    order = kwargs.pop("order", "K")
    kwargs.pop("subok", None)
    if kwargs:
        raise UnsupportedOperationError(
            f"{form}: arguments {sorted(kwargs)} are not supported on tracers; call it "
            f"without them (fnp.where(mask, a, b) replaces where=)"
        )
    if not (order is None or (isinstance(order, str) and order.upper() in ("K", "A", "C", "F"))):
        raise UFuncTypeError(
            f"{form}: order={order!r}; NumPy takes one of 'K', 'A', 'C', 'F' (the result's "
            f"memory layout)"
        )
    if dtype is not None:  # NumPy refuses dtype= beside signature= before dispatching
        signature = (None,) * ufunc.nin + (numpy.dtype(dtype),) * ufunc.nout
    operands = tuple(_operand_dtype(v) for v in inputs) + tuple(out_dtypes)
    try:
        if signature is None:
            return ufunc.resolve_dtypes(operands, casting=casting)
        return ufunc.resolve_dtypes(operands, signature=signature, casting=casting)
    except (TypeError, ValueError) as err:
        error = OutputCastingError if hasattr(err, "out_i") else UFuncTypeError
        raise error(_loop_error(form, ufunc, operands, casting, err)) from None


def _loop_error(form: Any, ufunc: Any, operands: tuple, casting: str, err: Exception) -> str:
    """The message of a ufunc call NumPy refuses (NOTE [ufunc keywords on tracers])."""
    name = ufunc.__name__
    if isinstance(err, ValueError):
        return (
            f"{form}: casting={casting!r} is not a casting rule; NumPy takes 'no', 'equiv', "
            f"'safe', 'same_kind' (the default) or 'unsafe'"
        )
    from_, to = getattr(err, "from_", None), getattr(err, "to", None)
    if from_ is not None and to is not None:
        if hasattr(err, "out_i"):
            return (
                f"{form}: cannot cast output {err.out_i - ufunc.nin} from {from_} to the out= "
                f"array's "
                f"{to} with casting={casting!r} (NumPy raises UFuncTypeError here too); pass "
                f"casting='unsafe' or an out= array of dtype {from_}"
            )
        return (
            f"{form}: cannot cast input {getattr(err, 'in_i', '?')} from {from_} to {to} with "
            f"casting={casting!r} (NumPy raises UFuncTypeError here too); pass "
            f"casting='unsafe', or cast the input with .astype({to}) first"
        )
    given = ", ".join(
        str(numpy.dtype(d)) if isinstance(d, numpy.dtype) else d.__name__
        for d in operands[: ufunc.nin]
    )
    return (
        f"{form}: NumPy has no {name} loop for inputs of dtypes ({given}) with "
        f"casting={casting!r} and the dtype=/signature= given (NumPy raises UFuncTypeError "
        f"here too); cast the inputs to a dtype the ufunc takes (numpy.{name}.types lists "
        f"its loops)"
    )


def _ufunc_at(ufunc: Any, name: str, inputs: tuple) -> Any:
    """``numpy.<ufunc>.at(a, indices[, b])``: unbuffered, repeated indices apply once per
    occurrence (``np.add.at`` accumulates), written into ``a``."""
    a, indices, *rest = inputs
    update = _AT_METHODS.get(name)
    if (
        isinstance(a, Tracer)
        and (update is None or not rest or _cast_back_by_rounds(a, indices, rest[0]))
        and len(rest) == ufunc.nin - 1
    ):
        return _ufunc_at_by_rounds(ufunc, name, a, indices, rest, inputs)
    if type(a) is numpy.ndarray and not any(
        isinstance(v, Tracer) or helpers.holds_tracer(v) for v in rest
    ):
        # only the indices are traced (np.add.at(dW.T, y, -X) with traced labels): NumPy's
        # own update of the plain array at their values, as a read a[t] takes them
        # (NOTE [number conversions]: jit records reading data, rows that disagree split
        # a vmap batch)
        concrete = _concrete_integer_index(indices)
        if concrete is not None:
            return ufunc.at(a, concrete, *rest)
    if update is None or not isinstance(a, Tracer) or not rest:
        raise InPlaceError(_ufunc_at_message(name, inputs))
    b = rest[0]
    b = b.val if type(b) is Buffer else inplace.traced_sequence(b)
    if name == "subtract":
        b = ufuncs.negative(b)
    method = update.split("(")[0]
    inplace.assign(a, getattr(indexing.at(a)[indices], method)(b))


def _cast_back_by_rounds(a: Tracer, indices: Any, b: Any) -> bool:
    """Whether ``ufunc.at(a, indices, b)`` computes in a dtype other than ``a``'s and casts
    each result back (``np.add.at(int_counts, i, -0.5)``: ``int(a + b)`` per occurrence,
    not ``a + int(b)``), with indices the by-rounds form can read (not batched by vmap:
    then the update form, which casts ``b`` first)."""
    if not _casts_back(a, b):
        return False
    return inplace._concrete_index(indexing.traced_sequences(indices)) is not None


def _casts_back(a: Tracer, b: Any) -> bool:
    """Whether NumPy computes ``ufunc(a, b)`` in a dtype other than ``a``'s."""
    b = b.val if type(b) is Buffer else b
    if isinstance(b, list | tuple):
        b = inplace.traced_sequence(b)
    if isinstance(b, bool | int | float | complex):  # (NumPy's weak Python numbers)
        return numpy.result_type(a.dtype, b) != a.dtype
    return numpy.result_type(a.dtype, helpers.dtype_of(b)) != a.dtype


def _concrete_integer_index(indices: Any) -> Any:
    """``indices`` (of ``ufunc.at``) with their integer and boolean tracers read, or None
    where another traced value is in them."""
    indices = indexing.traced_sequences(indices)
    parts = indices if isinstance(indices, tuple) else (indices,)
    if any(isinstance(p, Tracer) and p.dtype.kind not in "iub" for p in parts):
        return None
    return inplace._concrete_index(indices)


def _ufunc_at_by_rounds(
    ufunc: Any, name: str, a: Tracer, indices: Any, rest: list, inputs: tuple
) -> None:
    """``numpy.<ufunc>.at(a, indices[, b])`` for any ufunc of one or two inputs
    (``np.negative.at``, ``np.hypot.at``): each occurrence of a position applies ``ufunc``
    once, in order, so the positions' first occurrences are applied together, then their
    second ones, and so on (as many rounds as a position repeats)."""
    concrete = inplace._concrete_index(indexing.traced_sequences(indices))
    if concrete is None:  # indices batched by vmap: positions that differ per row
        raise InPlaceError(_ufunc_at_message(name, inputs))
    positions = numpy.arange(helpers.size(a)).reshape(helpers.shape(a))[concrete]
    flat_positions = positions.ravel()
    others = []
    for b in rest:
        b = b.val if type(b) is Buffer else inplace.traced_sequence(b)
        others.append(manipulation.ravel(manipulation.broadcast_to(b, positions.shape)))
    # the occurrence number of each entry among the entries of its position
    order = numpy.argsort(flat_positions, kind="stable")
    ranked = flat_positions[order]
    starts = numpy.r_[0, numpy.flatnonzero(ranked[1:] != ranked[:-1]) + 1]
    rank = numpy.empty(flat_positions.size, dtype=numpy.intp)
    rank[order] = numpy.arange(flat_positions.size) - numpy.repeat(
        starts, numpy.diff(numpy.r_[starts, flat_positions.size])
    )
    flat = manipulation.ravel(a)
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        entries = numpy.flatnonzero(rank == r)
        where = flat_positions[entries]
        args = [indexing.take(flat, where)] + [indexing.take(b, entries) for b in others]
        flat = inplace.updated(flat, where, ufunc(*args))
    inplace.assign(a, manipulation.reshape(flat, helpers.shape(a)))


def _is_python_ufunc(ufunc: Any) -> bool:
    """Whether ``ufunc`` was made by ``numpy.frompyfunc`` (object loops only: a Python
    function called per element)."""
    return isinstance(ufunc, numpy.ufunc) and all(set(t) <= {"O", "-", ">"} for t in ufunc.types)


def _call_python_ufunc(ufunc: Any, inputs: tuple) -> Any:
    """``numpy.frompyfunc(f, nin, nout)(t, ...)``: NumPy's object loop on the inputs as
    object arrays of 0-d tracers, so ``f`` computes on tracers element by element; each
    output is turned back into a traced array."""
    as_objects = [numpy.asarray(v, dtype=object) if isinstance(v, Tracer) else v for v in inputs]
    out = ufunc(*as_objects)
    if ufunc.nout == 1:
        return _object_result(out)
    return tuple(_object_result(o) for o in out)


def _object_result(out: Any) -> Any:
    if type(out) is numpy.ndarray and out.dtype is _OBJECT:
        return creation.from_object_array(out)
    return out  # a 0-d call returns the element itself (a tracer)


#: ufunc name -> the method of ``fnp.at(a)[indices]`` that does what ``ufunc.at`` does.
_AT_METHODS = {
    "add": "add(b)",
    "subtract": "add(-b)",
    "multiply": "multiply(b)",
    "divide": "divide(b)",
    "true_divide": "divide(b)",
    "power": "power(b)",
    "minimum": "min(b)",
    "maximum": "max(b)",
    "fmin": "min(b)",
    "fmax": "max(b)",
}


def _ufunc_at_message(name: str, inputs: tuple) -> str:
    """The error of ``numpy.<ufunc>.at(a, indices, b)`` with a tracer: it writes into ``a``."""
    update = _AT_METHODS.get(name)
    fix = (
        f"write a = fnp.at(a)[indices].{update} (a new array; repeated indices apply once "
        f"per occurrence, as with {name}.at)"
        if update is not None
        else "build the updated array with fnp.at(a)[indices].set(...) or fnp.where"
    )
    return (
        f"{_call_form(inputs)}numpy.{name}.at(a, indices, ...) updates a in place, and a "
        f"NumPy array from outside the function cannot hold a tracer (nor are traced "
        f"indices taken by this form): {fix}."
    )


#: module name -> {ufunc name: function}: the ufuncs of other libraries whose counterparts
#: register themselves (``ftransforms.scipy.special`` registers ``scipy.special``'s).
_FOREIGN_UFUNCS: dict[str, dict[str, Any]] = {}
#: module name -> ``fallback(ufunc)``: the function for a ufunc of that module that is not
#: in its table (NOTE [the remaining SciPy ufuncs] in ``ops/scipy_ufuncs.py``).
_FOREIGN_FALLBACKS: dict[str, Any] = {}


def register_foreign_ufuncs(module: str, table: dict[str, Any], fallback: Any = None) -> None:
    """Make ``module.<name>(tracer)`` call ``table[name]`` for ufuncs of ``module`` (and
    ``fallback(ufunc)`` for the others, when given).

    The module is never imported here: a lookup checks ``sys.modules``, so SciPy is not
    loaded just because ftransforms was.
    """
    _FOREIGN_UFUNCS.setdefault(module, {}).update(table)
    if fallback is not None:
        _FOREIGN_FALLBACKS[module] = fallback


def _scipy_special_ufunc(ufunc: Any) -> Any:
    """The registered function for a ufunc of another library (``scipy.special``), or None."""
    for module, table in _FOREIGN_UFUNCS.items():
        mod = sys.modules.get(module)
        if mod is not None and getattr(mod, ufunc.__name__, None) is ufunc:
            fn = table.get(ufunc.__name__)
            fallback = _FOREIGN_FALLBACKS.get(module)
            return fn if fn is not None or fallback is None else fallback(ufunc)
    return None


#: NumPy function -> {NumPy's parameter name: the implementation's} where they differ
#: (``numpy.transpose(a=t)`` reaches ``transpose(x)``), filled on first use.
_RENAMES: dict[Any, dict[str, str]] = {}


def _parameter_renames(func: Any, fn: Any) -> dict[str, str]:
    """The required parameters (the arrays: ``a``, ``m``, ``ary``, ``tup``) NumPy names
    otherwise than ``fn`` does, matched by position; settings with defaults are never
    renamed (``out`` at a position where ``fn`` has ``keepdims`` is not ``keepdims``)."""
    try:
        theirs = list(inspect.signature(func).parameters.values())
        ours = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return {}
    names = {p.name for p in ours}
    renames = {}
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for a, b in zip(theirs, ours):
        if a.kind not in positional or b.kind not in positional:
            break
        if a.default is not a.empty or b.default is not b.empty:
            break
        if a.name != b.name and a.name not in names:
            renames[a.name] = b.name
    return renames


_BROADCAST_ARRAYS = numpy.broadcast_arrays  # views of whichever argument is traced

#: NumPy function -> ``(position, names)``: where its signature takes ``out``
#: positionally, and the names of the parameters from there on (None: no such ``out``).
_OUT_POSITIONS: dict[Any, Any] = {}


def _out_position(func: Any) -> Any:
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    names = []
    for p in params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            break
        names.append(p.name)
    if "out" not in names:
        return None
    at = names.index("out")
    return at, tuple(names[at:])


def _out_by_keyword(func: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``np.dot(a, b, out)``, ``np.clip(a, lo, hi, out)``: the arguments from NumPy's
    positional ``out`` on, as keywords (the ``out=`` path below writes them)."""
    try:
        found = _OUT_POSITIONS[func]
    except KeyError:
        found = _OUT_POSITIONS[func] = _out_position(func)
    except TypeError:  # an unhashable callable
        return args, kwargs
    if found is None or len(args) <= found[0]:
        return args, kwargs
    at, names = found
    return args[:at], {**kwargs, **dict(zip(names, args[at:]))}


def handle_function(func: Any, args: tuple, kwargs: dict) -> Any:
    view = inplace.VIEW_FUNCTIONS.get(func)
    if view is not None and args and (isinstance(args[0], Tracer) or func is _BROADCAST_ARRAYS):
        return view(*args, **kwargs)
    if len(args) > 2:  # np.dot(a, b, out) is the shortest: NumPy's out taken by position
        args, kwargs = _out_by_keyword(func, args, kwargs)
    if "out" in kwargs:
        kwargs = dict(kwargs)
        out = kwargs.pop("out")
        if out is not None:
            result = handle_function(func, args, kwargs)
            return inplace.write_out(
                f"{_call_form(args)}numpy.{func.__name__}(..., out=...)", out, result
            )
        # out=None is NumPy's default (wrappers pass it on): the call without it
    fn = FUNCTIONS.get(func)
    if _only_buffers(args, kwargs) and not _writes_an_argument(func, args, kwargs):
        # NumPy's own function on the buffers' values (no tracer involved): its new arrays
        # as NumPy makes them (np.meshgrid's and np.tile's copies may be written into); a
        # view of a buffer's array is left to the function's rule (a view of the buffer)
        values = _plain_all(args)
        out = func(*values, **dict(zip(kwargs, _plain_all(kwargs.values()))))
        if fn is None:
            return out
        if not _views_any(out, values):
            return _buffers_of(out)
    if fn is None:
        python_code = getattr(func, "_implementation", None)
        if python_code is not None and func.__module__.startswith("numpy.polynomial"):
            # numpy.polynomial's polyval2d and polygrid2d (the two of the package that
            # dispatch): NumPy's own Python code, which evaluates with polyval on the
            # tracers (NOTE [numpy.polynomial's dtypes on tracers])
            return python_code(*args, **kwargs)
        # The public module: numpy.linalg for numpy.linalg._linalg, numpy for numpy._core.
        parts = (getattr(func, "__module__", None) or "numpy").split(".")
        public = list(itertools.takewhile(lambda p: not p.startswith("_"), parts))
        raise _unsupported(f"{'.'.join(public) or 'numpy'}.{func.__name__}", (args, kwargs))
    args = _objects_converted(args)
    if kwargs and any(type(v) is numpy.ndarray and v.dtype.kind == "O" for v in kwargs.values()):
        kwargs = {k: creation.from_object_array(v) for k, v in kwargs.items()}
    if kwargs:
        renames = _RENAMES.get(func)
        if renames is None:
            renames = _RENAMES[func] = _parameter_renames(func, fn)
        if renames:
            kwargs = {renames.get(k, k): v for k, v in kwargs.items()}
    out = fn(*args, **kwargs)
    if isinstance(out, Tracer) and args and _one_of(out, args[0]) and _copies(func, args, kwargs):
        out = clone(out)  # NOTE [a new array, not the argument]
    if NOT_IN_C_ORDER and isinstance(out, Tracer):  # NOTE [layout of elementwise results]
        return laid_out_as_numpy_function(func.__name__, out, args, kwargs)
    return out


# NOTE [a new array, not the argument]: an implementation may return its input itself
# where it has nothing to do (``concatenate([a])``, ``pad(a, 0)``, ``roll(a, 0)``,
# ``astype(a, a.dtype)``, ``positive(a)``, ``conj`` of a real ``a``); NumPy returns a new
# array there, and with writes (NOTE [mutation semantics]) the difference shows: ``b =
# np.concatenate([a]); b[0] = 1`` must leave ``a``.  So a NumPy function or ufunc called
# on a tracer that answers with its first argument (or an element of it) gives a new
# tracer object with that value (``clone``: no array work), except the functions NumPy
# documents as returning their argument (below; the view functions answer earlier).
_RETURNS_ITS_ARGUMENT = frozenset(
    f
    for f in (
        numpy.asarray,
        numpy.asanyarray,
        numpy.ascontiguousarray,
        numpy.asfortranarray,
        numpy.asarray_chkfinite,
        numpy.require,
        numpy.real_if_close,
        numpy.broadcast_arrays,
        numpy.diff,
        numpy.linalg.matrix_power,  # n=1
    )
    if f is not None
)


def _one_of(out: Any, first: Any) -> bool:
    if out is first:
        return True
    return type(first) in (list, tuple) and any(out is v for v in first)


def _copies(func: Any, args: tuple, kwargs: dict) -> bool:
    """Whether NumPy's ``func(*args, **kwargs)`` returns a new array, not its argument."""
    if func in _RETURNS_ITS_ARGUMENT:
        return False
    if func is numpy.nan_to_num:
        return (args[1] if len(args) > 1 else kwargs.get("copy", True)) is not False
    if func is getattr(numpy, "astype", None) or func is numpy.array:
        return kwargs.get("copy", True) is not False
    return True


#: NumPy's functions that write into their first argument (``np.copyto(buf, 5.0)``): on
#: buffers alone their rules write (NOTE [mutation semantics]), not NumPy, which would
#: write into the buffer's array in place, under what a tape or a view holds of it.
_WRITERS = frozenset(getattr(numpy, name) for name in helpers.IN_PLACE_WRITERS)


def _writes_an_argument(func: Any, args: tuple, kwargs: dict) -> bool:
    """Whether ``func(*args, **kwargs)`` writes into an argument: a writer of
    :data:`_WRITERS`, or ``np.nan_to_num(x, copy=False)``."""
    if func in _WRITERS:
        return True
    if func is numpy.nan_to_num:
        copy = args[1] if len(args) > 1 else kwargs.get("copy", True)
        return not copy
    return False


def _only_buffers(args: tuple, kwargs: dict) -> bool:
    found = False
    for v in itertools.chain(args, kwargs.values()):
        if type(v) is Buffer:
            found = True
        elif isinstance(v, Tracer) or (isinstance(v, (list, tuple)) and helpers.holds_tracer(v)):
            return False
    return found


def _views_any(out: Any, values: list) -> bool:
    """Whether an array in ``out`` (a result of NumPy's own function) views one of
    ``values``."""
    if type(out) in (tuple, list):
        return any(_views_any(o, values) for o in out)
    return (
        type(out) is numpy.ndarray
        and out.base is not None
        and any(type(v) is numpy.ndarray and numpy.may_share_memory(out, v) for v in values)
    )


def _buffers_of(out: Any) -> Any:
    """``out``, new arrays NumPy's own function made of buffers' values, as buffers: user
    code may write traced values into them, as into an operation's result on buffers."""
    if type(out) in (tuple, list):
        return type(out)(_buffers_of(o) for o in out)
    if type(out) is not numpy.ndarray or out.dtype.kind == "O":
        return out
    return new_buffer(buffer_scope(), out)


def _plain_all(values: Any) -> list:
    return [v.val if type(v) is Buffer else v for v in values]


def _unsupported(what: str, values: Any = ()) -> UnsupportedOperationError:
    return UnsupportedOperationError(
        f"{_call_form(values)}{what} has no ftransforms rule, so it cannot run on a tracer "
        f"(inside vmap, grad, jvp, ...).  Write it with ftransforms.numpy operations that "
        f"have rules, or declare it as a primitive with ftransforms.defop."
    )
