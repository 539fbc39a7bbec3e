"""Shapes and dtypes without the data: :class:`ShapeDtypeStruct` and :func:`eval_shape`.

NOTE [shape evaluation]: ``eval_shape`` runs ``f`` with :class:`ShapeTracer` arguments at
the bottom of the interpreter stack.  A ShapeTracer stands for a *dummy*: a read-only
NumPy array of the value's shape and dtype whose memory is a single element (a
zero-stride ``numpy.broadcast_to`` view of a one), made only when an operator needs it.
Each primitive then learns its output's shape and dtype in one of two ways:

* elementwise primitives (``family="elementwise"``), ``matmul``, reductions, cumulative
  sums and products, and ``reshape``: the output shape is computed from the input shapes
  (broadcasting; the matrix product's rule; the reduced axes), and the
  dtype comes from the implementation run on one-element versions of the inputs (same
  ranks, every axis of length 1): O(1) work whatever the shapes;
* every other primitive runs its NumPy implementation on the dummies (no caller data
  is read and no CuPy/device call is made) and keeps only the result's shape and dtype:
  the work is that NumPy call's on the CPU, the memory one element per input (and the
  output, freed at once); an operator that fails on the all-ones dummy (``inv`` of a
  singular matrix) is run again on identity matrices (one matrix of memory, broadcast
  over batch axes).

The caller's arrays are never read and never copied, so a CuPy argument never reaches
its device.  A ``pure_callback`` gives its declared result without being called, and
``ft.debug`` callbacks do not fire.  Reading a value (``bool()``, ``if`` on data,
``.item()``) raises ``TracerConversionError``, as ``jax.eval_shape`` does, instead of
using the dummy.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy

from ftransforms.core.avals import ShapedArray, ShapeDtypeStruct  # noqa: F401  (re-exported)
from ftransforms.core.errors import NotAnArrayError, TracerConversionError
from ftransforms.core.stack import Interpreter, pushed
from ftransforms.core.tracer import Tracer
from ftransforms.program import EFFECT_PRIMITIVES
from ftransforms.pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["ShapeDtypeStruct", "eval_shape"]


def _dummy(shape: tuple, dtype: Any, eye: bool = False) -> numpy.ndarray:
    """A read-only array of ``shape`` and ``dtype`` with one element of memory (ones), or
    with ``eye`` one identity matrix of memory, for the operators that a singular
    matrix makes fail (``inv``, ``cholesky``)."""
    dtype = numpy.dtype(dtype)
    if eye and len(shape) >= 2:
        base = numpy.eye(shape[-2], shape[-1], dtype=dtype)
    else:
        base = numpy.ones((), dtype=dtype)
    return numpy.broadcast_to(base, shape)


class ShapeTracer(Tracer):
    """A value known by its shape and dtype only (NOTE [shape evaluation]); its dummy
    array is made when a non-elementwise primitive needs it."""

    __slots__ = ("_shape", "_dtype", "_val")

    def __init__(self, interp: ShapeInterpreter, shape: tuple, dtype: Any) -> None:
        self._interp = interp
        self._shape = tuple(shape)
        self._dtype = numpy.dtype(dtype)
        self._val = None

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def val(self) -> numpy.ndarray:
        if self._val is None:
            self._val = _dummy(self._shape, self._dtype)
        return self._val

    def small(self) -> numpy.ndarray:
        """One element per axis (an empty axis stays empty), for elementwise dtypes."""
        return numpy.ones(tuple(min(d, 1) for d in self._shape), dtype=self._dtype)

    _conversion_fix = (
        "eval_shape knows shapes and dtypes, not values: a function whose result shape "
        "depends on its data cannot be shape-evaluated (use fnp.where / ft.cond, or call it)."
    )

    def _concrete(self) -> Any:
        raise self._conversion_error("reading its value")

    def _physical(self) -> Any:
        return self.val

    def __repr__(self) -> str:
        return f"ShapeTracer(shape={self.shape}, dtype={self.dtype})"


class ShapeInterpreter(Interpreter):
    """Computes each primitive's output shape and dtype on dummies."""

    __slots__ = ()

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        if prim in EFFECT_PRIMITIVES:
            return ()  # ft.debug: nothing to show without values (as in JAX)
        if "result_avals" in params:  # pure_callback: its declared result, not a call
            return tuple(ShapeTracer(self, shape, dtype) for shape, dtype in params["result_avals"])
        with numpy.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if prim.family == "elementwise" and not prim.multiple_results:
                shapes = [numpy.shape(a) for a in args]
                small = [self._small_of(a) for a in args]
                out = prim.impl(numpy, *small, **params)
                out_shape = numpy.broadcast_shapes(*shapes)
                return ShapeTracer(self, out_shape, numpy.asarray(out).dtype)
            if prim.name == "matmul" and not params and len(args) == 2:
                return self._matmul(*args)
            ruled = self._by_rule(prim, args, params)
            if ruled is not None:
                return ruled
            vals = [self._dummy_of(a) for a in args]
            try:
                out = prim.impl(numpy, *vals, **params)
            except Exception:  # noqa: BLE001 - a singular dummy: retry with identities
                vals = [self._dummy_of(a, eye=True) for a in args]
                out = prim.impl(numpy, *vals, **params)
        if prim.multiple_results:
            return tuple(self._wrap(o) for o in out)
        return self._wrap(out)

    def _wrap(self, out: Any) -> ShapeTracer:
        out = numpy.asarray(out)
        return ShapeTracer(self, out.shape, out.dtype)

    def _small_of(self, a: Any) -> Any:
        if type(a) is ShapeTracer:
            return a.small()
        v = self._dummy_of(a)
        if isinstance(v, numpy.ndarray):
            return v[tuple(slice(0, 1) for _ in v.shape)]
        return v

    def _matmul(self, a: Any, b: Any) -> ShapeTracer:
        """``a @ b`` by NumPy's rule on one-element operands (the dtype, and the errors
        for mismatched shapes) and the shapes' arithmetic: no O(n^3) product."""
        sa, sb = numpy.shape(a), numpy.shape(b)
        if not sa or not sb:
            raise ValueError("matmul: Input operand does not have enough dimensions")
        ka, kb = sa[-1], sb[0] if len(sb) == 1 else sb[-2]
        if ka != kb:
            raise ValueError(
                f"matmul: Input operand 1 has a mismatch in its core dimension 0 (size {kb} "
                f"is different from {ka})"
            )
        small = numpy.matmul(self._small_of(a), self._small_of(b))
        batch = numpy.broadcast_shapes(sa[:-2], sb[:-2])
        out = batch + (sa[-2:-1] if len(sa) >= 2 else ()) + (sb[-1:] if len(sb) >= 2 else ())
        return ShapeTracer(self, out, numpy.asarray(small).dtype)

    def _by_rule(self, prim: Any, args: tuple, params: dict) -> ShapeTracer | None:
        """Reductions, cumulative sums/products and reshapes by their shape arithmetic
        (the dtype from one-element inputs), or ``None``."""
        if len(args) != 1 or prim.multiple_results:
            return None
        shape = tuple(numpy.shape(args[0]))
        if prim.name == "reshape" and set(params) == {"shape"}:
            new = tuple(params["shape"])
            if -1 in new:
                known = math.prod(d for d in new if d != -1)
                new = tuple(math.prod(shape) // known if d == -1 else d for d in new)
            if math.prod(new) != math.prod(shape):
                return None  # the implementation raises NumPy's error
            return ShapeTracer(self, new, numpy.dtype(args[0].dtype))
        axis = params.get("axis")
        if prim.family == "reduction" and set(params) == {"axis", "keepdims"}:
            axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
            axes = {a % len(shape) for a in axes} if shape else set()
            if params["keepdims"]:
                new = tuple(1 if i in axes else d for i, d in enumerate(shape))
            else:
                new = tuple(d for i, d in enumerate(shape) if i not in axes)
        elif prim.name in ("cumsum", "cumprod") and set(params) == {"axis"}:
            new = shape if axis is not None else (math.prod(shape),)
        else:
            return None
        small = prim.impl(numpy, self._small_of(args[0]), **params)
        return ShapeTracer(self, new, numpy.asarray(small).dtype)

    def _dummy_of(self, a: Any, eye: bool = False) -> Any:
        if type(a) is ShapeTracer:
            if a._interp is not self:
                a._check_live("by a primitive")
            return _dummy(a.shape, a.dtype, eye=True) if eye else a.val
        if isinstance(a, Tracer):  # a closure over an enclosing transform's value
            return _dummy(a.shape, a.dtype, eye)
        if hasattr(a, "shape") and hasattr(a, "dtype") and not isinstance(a, numpy.ndarray):
            if not isinstance(a, numpy.generic):
                return _dummy(tuple(a.shape), a.dtype, eye)  # a CuPy array: never touched
        return a


def _is_abstract(leaf: Any) -> bool:
    return hasattr(leaf, "shape") and hasattr(leaf, "dtype")


def eval_shape(f: Callable, *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes of ``f(*args, **kwargs)``'s outputs, as a pytree of
    :class:`ShapeDtypeStruct`, without computing on the arguments' data
    (``jax.eval_shape``).

    Array leaves of the arguments (NumPy, CuPy, tracers, or :class:`ShapeDtypeStruct`)
    stand for their shape and dtype only; other leaves are passed as they are.  No
    argument's data is read and CuPy arguments never touch their device: elementwise
    operators and ``matmul`` cost O(1) whatever the shapes, and other operators run
    their NumPy implementation on read-only stand-ins of one element of memory (NOTE
    [shape evaluation] in ``ftransforms/shape_eval.py``), so they cost what that NumPy
    call costs on the CPU.  A function that reads a value (``if x.sum() > 0``)
    raises ``TracerConversionError``, as JAX does; ``ft.cond``/``ft.switch`` on a
    predicate computed from the arguments evaluate every branch and check that they
    agree, and ``ft.while_loop`` checks its body once and gives the carry's types (as
    JAX traces them).

    Example:
        >>> import numpy as np
        >>> eval_shape(lambda x, w: np.tanh(x @ w), np.ones((5, 3)), np.ones((3, 2)))
        ShapeDtypeStruct(shape=(5, 2), dtype=float64)
        >>> eval_shape(lambda x: {"s": x.sum(0)}, ShapeDtypeStruct((4, 6), np.float32))
        {'s': ShapeDtypeStruct(shape=(6,), dtype=float32)}
    """
    if not callable(f):
        raise TypeError(f"eval_shape(f, *args): f must be callable, got {type(f).__name__}")
    leaves, spec = tree_flatten((args, kwargs))
    interp = ShapeInterpreter(f"eval_shape({getattr(f, '__name__', 'f')})")
    with pushed(interp):
        wrapped = [
            ShapeTracer(interp, tuple(leaf.shape), leaf.dtype)
            if _is_abstract(leaf) and not isinstance(leaf, numpy.generic)
            else leaf
            for leaf in leaves
        ]
        a, kw = tree_unflatten(spec, wrapped)
        try:
            out = f(*a, **kw)
        except TracerConversionError:
            raise
        return tree_map(_struct_of, out)


def _struct_of(leaf: Any) -> ShapeDtypeStruct:
    if isinstance(leaf, ShapeTracer) or _is_abstract(leaf):
        return ShapeDtypeStruct(leaf.shape, leaf.dtype)
    if not isinstance(leaf, (bool, int, float, complex)):  # ('f8' would read as a dtype)
        raise NotAnArrayError(
            f"eval_shape: every output must be an array or a Python number, got "
            f"{type(leaf).__name__}; return numpy/cupy arrays (or pytrees of them)"
        )
    return ShapeDtypeStruct(numpy.shape(leaf), numpy.result_type(leaf))
