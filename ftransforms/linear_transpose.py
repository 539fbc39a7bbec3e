"""``linear_transpose``: the transpose of a linear function, from the rules the primitives
already have.

NOTE [linear transpose]: for a linear ``f`` the VJP at any point is the transpose, so
:func:`linear_transpose` takes ``vjp(f, zeros)``'s pullback.  What it adds is the check
that ``f`` *is* linear, done first by :class:`LinearityInterpreter`: it runs ``f`` on
zeros of the primals' shapes, marks each value as linear in the inputs or constant, and
lets a primitive touch linear values only where it is linear in them: in its first
operand for the ops declared with a ``transpose`` rule (reshape, indexing, sums, FFTs,
...), in every operand for sums of terms (``add``, ``subtract``, ``concatenate``, the
branches of ``select``), in exactly one operand for products (``multiply``, ``matmul``,
``einsum``, convolutions), in the numerator for ``divide``, in the right-hand side for
``solve``.  Anything else on a linear
value (``sin``, ``x * x``, a comparison) raises ``LinearityError``, where JAX raises for
the missing transpose rule.  Constant terms (``x + 1``) are dropped, as in JAX.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import vjp
from ftransforms.arguments import check_reduce_axes
from ftransforms.backend import namespace_of
from ftransforms.core.errors import LinearityError, TangentMismatchError
from ftransforms.core.stack import Interpreter, pushed
from ftransforms.core.tracer import Tracer, ValTracer
from ftransforms.program import EFFECT_PRIMITIVES
from ftransforms.pytree import tree_flatten, tree_unflatten

__all__ = ["linear_transpose"]

#: Linear in every operand (a sum of terms).
_SUMS = frozenset({"add", "subtract", "concatenate"})
#: Linear in each operand when the others are constant (at most one linear operand).
_PRODUCTS = frozenset(
    {"multiply", "matmul", "einsum", "conv2d", "conv_transpose2d", "conv2d_weight"}
)
#: Linear in the first operand only.
_FIRST_ONLY = frozenset({"divide", "sliding_windows", "reduce_sum_where"})
#: Linear in the second operand only (``solve(a, b)`` in ``b``).
_SECOND_ONLY = frozenset({"solve"})


class LinearTracer(ValTracer):
    """A value that depends linearly on ``linear_transpose``'s inputs (``val`` is its
    value at zero inputs)."""

    __slots__ = ()

    def __init__(self, interp: LinearityInterpreter, val: Any) -> None:
        self._interp = interp
        self.val = val

    _conversion_fix = (
        "linear_transpose needs f linear in its inputs, so f cannot branch on or convert "
        "their values."
    )

    def _concrete(self) -> Any:
        raise self._conversion_error("reading its value")


class LinearityInterpreter(Interpreter):
    """Checks that every primitive is linear in the values that are linear in the inputs."""

    __slots__ = ("fname",)

    def __init__(self, name: str, fname: str) -> None:
        super().__init__(name)
        self.fname = fname

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        if prim in EFFECT_PRIMITIVES:
            return ()  # ft.debug in the check run: the vjp run shows the values
        linear = [type(a) is LinearTracer and a._interp is self for a in args]
        vals = [a.val if lin else a for a, lin in zip(args, linear)]
        if not any(linear):
            return prim.bind(*vals, **params)
        name = prim.name
        k = sum(linear)
        if prim.is_nondiff(params):
            ok = False
        elif prim.transpose is not None or name in _FIRST_ONLY:
            ok = linear[0] and k == 1
        elif name in _SECOND_ONLY:
            ok = len(linear) > 1 and linear[1] and k == 1
        elif name in _SUMS:
            ok = True
        elif name == "select":
            ok = not linear[0]
        elif name in _PRODUCTS:
            ok = k == 1
        elif name == "convert":
            ok = numpy.dtype(params.get("dtype", numpy.float64)).kind in "fc"
        else:
            ok = False
        if not ok:
            raise LinearityError(
                f"{self.name}: {self.fname} is not linear in its inputs: {name} is applied "
                f"to a value that depends on them in a way that is not linear.  "
                f"linear_transpose needs a linear function (sums, products with constants, "
                f"reshapes, indexing, ...); for a nonlinear one take ft.vjp at a point."
            )
        out = prim.bind(*vals, **params)
        if prim.multiple_results:
            return tuple(LinearTracer(self, o) for o in out)
        return LinearTracer(self, out)


def _zeros_like(primal: Any) -> Any:
    if isinstance(primal, (bool, int, float, complex)):
        return numpy.zeros((), dtype=numpy.result_type(primal))
    shape, dtype = tuple(primal.shape), numpy.dtype(primal.dtype)
    if type(primal).__name__ == "ShapeDtypeStruct" or isinstance(primal, Tracer):
        return numpy.zeros(shape, dtype=dtype)
    return namespace_of(primal).zeros(shape, dtype=dtype)


def _aval(x: Any) -> tuple:
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return tuple(x.shape), numpy.dtype(x.dtype)
    return numpy.shape(x), numpy.result_type(x)


def linear_transpose(fun: Callable, *primals: Any, reduce_axes: Any = ()) -> Callable:
    """The transpose of the linear function ``fun`` (``jax.linear_transpose``):
    ``linear_transpose(fun, *primals)(out_cotangent)`` is the tuple of input cotangents
    ``Aᵀ c`` for ``fun(*x) = A x``.

    ``primals`` only give the inputs' shapes and dtypes (arrays or
    :class:`~ftransforms.ShapeDtypeStruct`; pytrees allowed).  ``fun`` is checked to be
    linear first: a nonlinear operation on the inputs raises ``LinearityError`` (NOTE
    [linear transpose] in ``ftransforms/linear_transpose.py``); a constant term is
    ignored, as in JAX.  The cotangent must match ``fun``'s output in structure, shapes
    and dtypes (``TangentMismatchError``).  The result composes with ``vmap``, ``grad``
    and ``jit`` like any function built from primitives.  JAX's deprecated
    ``reduce_axes`` is accepted empty only.

    Example:
        >>> import numpy as np
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> f_t = linear_transpose(lambda x: A @ x, np.zeros(2))
        >>> f_t(np.array([1.0, 0.0, 1.0]))
        (array([6., 8.]),)
    """
    fname = getattr(fun, "__name__", "f")
    call = f"linear_transpose({fname}, *primals)"
    if not callable(fun):
        raise TypeError(f"{call}: fun must be callable, got {type(fun).__name__}")
    check_reduce_axes(reduce_axes, call)
    leaves, spec = tree_flatten(primals)
    zeros = [_zeros_like(p) for p in leaves]
    interp = LinearityInterpreter(call, fname)
    with pushed(interp):
        wrapped = tree_unflatten(spec, [LinearTracer(interp, z) for z in zeros])
        fun(*wrapped)
    integer = _integer_map(fun, spec, zeros, call)
    if integer:  # integer -> integer: transposed in float64, exact for integer coefficients
        out_leaves, out_spec = tree_flatten(fun(*tree_unflatten(spec, zeros)))
        zeros = [z.astype(numpy.float64) for z in zeros]
        out, pullback = vjp(fun, *tree_unflatten(spec, zeros))
    else:
        out, pullback = vjp(fun, *tree_unflatten(spec, zeros))
        out_leaves, out_spec = tree_flatten(out)
    out_avals = [_aval(o) for o in out_leaves]

    def transposed(out_cotangent: Any) -> tuple:
        ct_leaves, ct_spec = tree_flatten(out_cotangent)
        if ct_spec != out_spec:
            raise TangentMismatchError(
                f"{call}(out_cotangent): the cotangent must have fun's output structure "
                f"{out_spec}, got {ct_spec}"
            )
        for k, (ct, (shape, dtype)) in enumerate(zip(ct_leaves, out_avals)):
            ct_shape, ct_dtype = _aval(ct)
            weak = isinstance(ct, (int, float, complex)) and not isinstance(ct, bool)
            if ct_shape != shape or (ct_dtype != dtype and not weak):
                raise TangentMismatchError(
                    f"{call}(out_cotangent): cotangent leaf {k} has shape {ct_shape} and dtype "
                    f"{ct_dtype}, but fun's output has shape {shape} and dtype {dtype}; pass "
                    f"a cotangent shaped like the output"
                )
        if not integer:
            return pullback(out_cotangent)
        float_ct = tree_unflatten(
            ct_spec, [fnp.astype(fnp.asarray(c), numpy.float64) for c in ct_leaves]
        )
        in_cts, in_spec = tree_flatten(pullback(float_ct))
        return tree_unflatten(
            in_spec, [fnp.astype(fnp.rint(c), z.dtype) for c, z in zip(in_cts, in_dtypes)]
        )

    in_dtypes = [_zeros_like(p) for p in leaves]
    return transposed


def _integer_map(fun: Callable, spec: Any, zeros: list, call: str) -> bool:
    """Whether ``fun`` maps integer inputs to integer outputs (JAX transposes those, and
    [float or complex] -> [float or complex] functions; a mix is a TypeError)."""
    in_int = [numpy.dtype(z.dtype).kind in "iu" for z in zeros]
    if not any(in_int):
        return False
    out_leaves, _ = tree_flatten(fun(*tree_unflatten(spec, zeros)))
    out_int = [_aval(o)[1].kind in "iu" for o in out_leaves]
    if not all(in_int) or not all(out_int):
        raise TypeError(
            f"{call}: linear_transpose supports [float or complex] -> [float or complex] "
            f"and integer -> integer functions, got inputs of dtypes "
            f"{[str(z.dtype) for z in zeros]} and outputs of dtypes "
            f"{[str(_aval(o)[1]) for o in out_leaves]}; cast the inputs to float"
        )
    return True
