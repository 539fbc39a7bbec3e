"""Matrix and vector products: ``matmul``, ``dot``, ``einsum``, ``tensordot``, ``kron``,
``cross``, ``trace`` (NumPy's "Linear algebra: matrix and vector products"; the
``numpy.linalg`` namespace is :mod:`ftransforms.numpy.linalg`).
"""

from __future__ import annotations

import builtins
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy

from ftransforms import lax
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.mutation import make_view
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import asarray
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import dtype_of, ndim, no_extra_args, normalize_axis, shape
from ftransforms.numpy.indexing import diagonal, getitem, take
from ftransforms.numpy.inplace import updated
from ftransforms.numpy.manipulation import moveaxis, ravel, reshape, stack
from ftransforms.numpy.reductions import sum
from ftransforms.numpy.ufuncs import astype, conj, multiply
from ftransforms.ops import linalg as _la

__all__ = [
    "matmul",
    "dot",
    "vdot",
    "inner",
    "outer",
    "kron",
    "tensordot",
    "einsum",
    "einsum_path",
    "trace",
    "cross",
    "vecdot",
    "matvec",
    "vecmat",
]


def _sequence_as_array(x: Any) -> Any:
    """A list or tuple (perhaps holding tracers) as an array; anything else as it is (Python
    scalars stay weakly typed)."""
    return asarray(x) if isinstance(x, (list, tuple)) else x


def matmul(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """``numpy.matmul`` / ``@``: the matrix product, broadcast over leading axes; a 0-d
    operand raises ``ValueError`` as in NumPy.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.matmul(A, np.array([1.0, -1.0])).tolist()
        [-1.0, -1.0]
        >>> ft.grad(lambda v: fnp.matmul(A, v).sum())(np.zeros(2)).tolist()  # column sums
        [4.0, 6.0]
    """
    if preferred_element_type is not None:  # jax.numpy's keywords (precision: XLA's)
        return astype(matmul(a, b), preferred_element_type)
    a, b = _sequence_as_array(a), _sequence_as_array(b)
    ra, rb = ndim(a), ndim(b)
    if ra == 0 or rb == 0:
        raise ValueError("matmul: input operand does not have enough dimensions")
    return _la.matmul_p.bind(a, b)


@implements(numpy.dot)
def dot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """``numpy.dot``: a product for scalars, the inner product of vectors, the matrix
    product of matrices, and the sum over ``a``'s last and ``b``'s second-to-last axes.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.dot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, -1.0])).tolist()
        [-1.0, -1.0]
        >>> ft.grad(lambda x: fnp.dot(x, x))(np.array([1.0, 2.0])).tolist()  # 2 x
        [2.0, 4.0]
    """
    if preferred_element_type is not None:  # jax.numpy's keywords (precision: XLA's)
        return astype(dot(a, b), preferred_element_type)
    a, b = _sequence_as_array(a), _sequence_as_array(b)
    ra, rb = ndim(a), ndim(b)
    if ra == 0 or rb == 0:
        return multiply(a, b)
    if rb <= 2:
        return matmul(a, b)
    return tensordot(a, b, axes=([ra - 1], [rb - 2]))


@implements(numpy.vdot)
def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """``numpy.vdot``: ``sum(conj(a) * b)`` over the flattened arrays (``a`` is conjugated
    when complex, as in NumPy).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> float(fnp.vdot(A, A))  # 1 + 4 + 9 + 16
        30.0
        >>> ft.grad(lambda a: fnp.vdot(a, A))(np.zeros((2, 2))).tolist()
        [[1.0, 2.0], [3.0, 4.0]]
        >>> complex(fnp.vdot(np.array([1j]), np.array([1j])))  # conj(i) * i
        (1+0j)
    """
    if preferred_element_type is not None:  # jax.numpy's keywords (precision: XLA's)
        return astype(vdot(a, b), preferred_element_type)
    a, b = _sequence_as_array(a), _sequence_as_array(b)
    return vecdot(ravel(a), ravel(b))


@implements(numpy.inner)
def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """``numpy.inner``: the sum over the last axes of ``a`` and ``b`` (a product if one is
    a scalar).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> float(fnp.inner(np.array([1.0, 2.0]), np.array([3.0, 4.0])))
        11.0
        >>> ft.grad(lambda x: fnp.inner(x, np.array([3.0, 4.0])))(np.zeros(2)).tolist()
        [3.0, 4.0]
    """
    if preferred_element_type is not None:  # jax.numpy's keywords (precision: XLA's)
        return astype(inner(a, b), preferred_element_type)
    a, b = _sequence_as_array(a), _sequence_as_array(b)
    if ndim(a) == 0 or ndim(b) == 0:
        return multiply(a, b)
    return tensordot(a, b, axes=([ndim(a) - 1], [ndim(b) - 1]))


@implements(numpy.outer)
def outer(a: Any, b: Any) -> Any:
    """``numpy.outer``: ``a[i] * b[j]`` of the flattened inputs.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.outer(np.array([1.0, 2.0]), np.array([1.0, 10.0, 100.0])).tolist()
        [[1.0, 10.0, 100.0], [2.0, 20.0, 200.0]]
        >>> ft.grad(lambda a: fnp.outer(a, np.array([1.0, 2.0])).sum())(np.zeros(2)).tolist()
        [3.0, 3.0]
    """
    a, b = _sequence_as_array(a), _sequence_as_array(b)
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


@implements(numpy.kron)
def kron(a: Any, b: Any) -> Any:
    """``numpy.kron``: the Kronecker product, a broadcast product of interleaved axes,
    reshaped.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.kron(np.array([1, 10]), np.array([1, 2, 3])).tolist()
        [1, 2, 3, 10, 20, 30]
        >>> ft.grad(lambda a: fnp.kron(a, np.array([1.0, 2.0])).sum())(np.ones(2)).tolist()
        [3.0, 3.0]
    """
    a, b = _sequence_as_array(a), _sequence_as_array(b)
    ra, rb = ndim(a), ndim(b)
    if ra == 0 or rb == 0:
        return multiply(a, b)
    nd = builtins.max(ra, rb)
    sa = (1,) * (nd - ra) + shape(a)
    sb = (1,) * (nd - rb) + shape(b)
    a2 = reshape(a, tuple(n for d in sa for n in (d, 1)))
    b2 = reshape(b, tuple(n for d in sb for n in (1, d)))
    return reshape(multiply(a2, b2), tuple(x * y for x, y in zip(sa, sb)))


_LETTERS = lax.LETTERS


@implements(numpy.tensordot)
def tensordot(
    a: Any, b: Any, axes: Any = 2, *, precision: Any = None, preferred_element_type: Any = None
) -> Any:
    """``numpy.tensordot``: the sum over ``a``'s last ``axes`` axes and ``b``'s first (an
    int), or over the pairs of axes in ``axes = (axes_a, axes_b)``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.tensordot(np.ones((2, 3, 4)), np.ones((3, 4, 5))).shape
        (2, 5)
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.tensordot(A, A, axes=([1], [0])).tolist()  # A @ A
        [[7.0, 10.0], [15.0, 22.0]]
        >>> ft.grad(lambda a: fnp.tensordot(a, A))(np.zeros((2, 2))).tolist()
        [[1.0, 2.0], [3.0, 4.0]]
    """
    if preferred_element_type is not None:  # jax.numpy's keywords (precision: XLA's)
        return astype(tensordot(a, b, axes), preferred_element_type)
    a, b = _sequence_as_array(a), _sequence_as_array(b)
    ra, rb = ndim(a), ndim(b)
    if isinstance(axes, (int, numpy.integer)):
        axes_a, axes_b = list(range(ra - int(axes), ra)), list(range(int(axes)))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, (int, numpy.integer)) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, (int, numpy.integer)) else list(axes_b)
    axes_a = [normalize_axis(int(i), ra) for i in axes_a]
    axes_b = [normalize_axis(int(i), rb) for i in axes_b]
    sa = list(_LETTERS[:ra])
    sb = list(_LETTERS[ra : ra + rb])
    for i, j in zip(axes_a, axes_b):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in axes_a]
    out += [c for j, c in enumerate(sb) if j not in axes_b]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


def _sublist_subscripts(args: Sequence[Any]) -> tuple[str, list[Any]]:
    """``einsum``'s sublist form ``(A, [0, 1], B, [1, 2][, [0, 2]])`` as its subscripts
    string and operands: axis labels are ints (0..51, as in NumPy) or ``Ellipsis``."""

    def letters(sub: Any) -> str:
        out = []
        for label in sub:
            if label is Ellipsis:
                out.append("...")
            elif isinstance(label, (int, numpy.integer)) and 0 <= int(label) < len(_LETTERS):
                out.append(_LETTERS[int(label)])
            else:
                raise ValueError(
                    f"einsum(op0, sublist0, ...): a sublist holds ints in [0, 52) or "
                    f"Ellipsis, got {label!r}; relabel the axes with small ints"
                )
        return "".join(out)

    operands, subs = list(args[0::2]), [letters(s) for s in args[1::2]]
    out = None
    if len(args) % 2:  # a trailing output sublist
        operands, out = operands[:-1], letters(args[-1])
    spec = ",".join(subs) + ("" if out is None else "->" + out)
    return spec, operands


@implements(numpy.einsum)
def einsum(subscripts: Any, *operands: Any, optimize: Any = False, **kw: Any) -> Any:
    """``numpy.einsum``: the subscripts form (with ellipsis and implicit output) and the
    sublist form ``einsum(A, [0, 1], B, [1, 2][, [0, 2]])``.

    Example:
        >>> import numpy as np
        >>> a = np.arange(6.0).reshape(2, 3)
        >>> bool((einsum(a, [0, 1], a, [2, 1], [0, 2]) == a @ a.T).all())
        True
    """
    kw.pop("precision", None)  # jax.numpy's keywords: XLA's precision has no say here
    preferred = kw.pop("preferred_element_type", None)
    if preferred is not None:
        return astype(einsum(subscripts, *operands, optimize=optimize, **kw), preferred)
    dtype, casting = kw.pop("dtype", None), kw.pop("casting", "safe")
    if kw.get("order", "K") in ("K", "C", "F", "A"):  # memory layout: nothing to do here
        kw.pop("order", None)
    no_extra_args("einsum", kw)
    if not isinstance(subscripts, str):
        subscripts, operands = _sublist_subscripts((subscripts, *operands))
    operands = tuple(_sequence_as_array(op) for op in operands)
    if dtype is not None:  # NumPy computes in dtype, each operand cast by the casting rule
        dtype = numpy.dtype(dtype)
        for i, op in enumerate(operands):
            if not numpy.can_cast(dtype_of(op), dtype, casting):
                raise TypeError(
                    f"Iterator operand {i} dtype could not be cast from {dtype_of(op)!r} to "
                    f"{dtype!r} according to the rule '{casting}'"
                )
        operands = tuple(astype(op, dtype) for op in operands)
    out = _la.einsum_p.bind(
        *operands, subscripts=lax.expand_einsum_subscripts(subscripts, operands), optimize=optimize
    )
    if len(operands) == 1 and isinstance(operands[0], Tracer):
        return _einsum_view(subscripts, operands[0], out)
    return out


def _einsum_view(subscripts: str, x: Tracer, out: Any) -> Any:
    """``out = einsum(subscripts, x)`` as NumPy gives it: a (writeable) view of ``x`` where
    it only rearranges ``x``'s elements (``'ii->i'``, ``'ij->ji'``: NOTE [mutation
    semantics] in core/mutation.py), else ``out``.  NumPy's own einsum on the elements'
    positions says which, and where each element comes from."""
    ids = numpy.arange(math.prod(shape(x))).reshape(shape(x))
    at = numpy.einsum(subscripts, ids)
    if not isinstance(at, numpy.ndarray) or not numpy.shares_memory(at, ids):
        return out
    positions = at.ravel()  # (a copy where the view is strided)

    def forward(p: Any) -> Any:
        return reshape(take(ravel(p), positions), at.shape)

    def inverse(p: Any, v: Any) -> Any:
        return reshape(updated(ravel(p), positions, ravel(v)), shape(p))

    return make_view(x, out, forward, inverse, reshaped=bool(at.flags.c_contiguous))


@implements(numpy.einsum_path)
def einsum_path(*operands: Any, optimize: Any = "greedy", einsum_call: bool = False) -> Any:
    """``numpy.einsum_path`` on tracers: the contraction order depends on shapes only, so
    NumPy's answer for stand-in arrays of the same shapes and dtypes is returned.

    Example:
        >>> import numpy as np
        >>> einsum_path("ij,jk->ik", np.ones((2, 3)), np.ones((3, 4)))[0]
        ['einsum_path', (0, 1)]
    """
    if einsum_call:
        raise UnsupportedOperationError(
            "einsum_path(..., einsum_call=True) is NumPy-internal; call it without einsum_call"
        )

    def stand_in(x: Any) -> Any:
        if isinstance(x, (str, list, tuple)) or x is Ellipsis:
            return x
        if not hasattr(x, "shape"):
            x = numpy.asarray(x)
        return numpy.broadcast_to(numpy.zeros((), dtype=dtype_of(x)), shape(x))

    return numpy.einsum_path(*[stand_in(x) for x in operands], optimize=optimize)


@implements(numpy.trace)
def trace(
    a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None
) -> Any:
    """``numpy.trace``: the sum of :func:`~ftransforms.numpy.diagonal` ``(a, offset, axis1,
    axis2)`` over its last axis, for any offset (0 when the diagonal is empty).

    Example:
        >>> import numpy as np
        >>> float(trace(np.arange(9.0).reshape(3, 3), offset=-1))
        10.0
    """
    no_extra_args("trace", {"out": out})
    if ndim(a) < 2:
        raise ValueError(f"trace: the array needs at least 2 dimensions, got {ndim(a)}")
    return sum(diagonal(a, int(offset), axis1, axis2), axis=-1, dtype=dtype)


@implements(numpy.cross)
def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None):
    """``numpy.cross`` of 3-vectors (along ``axisa``/``axisb``/``axisc``, or ``axis``), and
    NumPy's deprecated 2-vectors (a missing z is 0; two 2-vectors give the z component).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])).tolist()
        [0.0, 0.0, 1.0]
        >>> ft.jacfwd(lambda a: fnp.cross(a, np.array([0.0, 0.0, 1.0])))(np.ones(3)).tolist()
        [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    na, nb = shape(a)[-1], shape(b)[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if na == 2 or nb == 2:  # NumPy's deprecated 2-vectors: a missing z is 0
        warnings.warn(
            "Arrays of 2-dimensional vectors are deprecated. Use arrays of 3-dimensional "
            "vectors instead. (deprecated in NumPy 2.0)",
            DeprecationWarning,
            stacklevel=2,
        )
    a0, a1 = getitem(a, (Ellipsis, 0)), getitem(a, (Ellipsis, 1))
    b0, b1 = getitem(b, (Ellipsis, 0)), getitem(b, (Ellipsis, 1))
    z = a0 * b1 - a1 * b0
    if na == 2 and nb == 2:
        return z
    if na == 2:  # NumPy's operations for a2 = 0 (signs of zeros included)
        b2 = getitem(b, (Ellipsis, 2))
        out = [a1 * b2, -(a0 * b2), z]
    elif nb == 2:
        a2 = getitem(a, (Ellipsis, 2))
        out = [-(a2 * b1), a2 * b0, z]
    else:
        a2, b2 = getitem(a, (Ellipsis, 2)), getitem(b, (Ellipsis, 2))
        out = [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z]
    return moveaxis(stack(out, axis=-1), -1, axisc)


def _conj(x: Any) -> Any:
    """``conj(x)`` of a complex ``x``; any other ``x`` as it is (NumPy's conjugate of
    bools is int8, and vecdot of bools stays bool)."""
    return conj(x) if dtype_of(x).kind == "c" else x


@implements("numpy.vecdot")
def vecdot(x1: Any, x2: Any, axis: int = -1) -> Any:
    """``numpy.linalg.vecdot`` / ``numpy.vecdot``: sum(conj(x1) * x2) along ``axis``,
    summed as NumPy's dot product of the two vectors (its rounding, to the bit).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> fnp.vecdot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0])).tolist()
        [3.0, 7.0]
        >>> complex(fnp.vecdot(np.array([1j]), np.array([1j])))  # conj(i) * i
        (1+0j)
        >>> ft.grad(lambda x: fnp.vecdot(x, np.array([2.0, 3.0])))(np.zeros(2)).tolist()
        [2.0, 3.0]
    """
    x1, x2 = _sequence_as_array(x1), _sequence_as_array(x2)
    if ndim(x1) == 0 or ndim(x2) == 0:
        raise ValueError("vecdot: input operand does not have enough dimensions")
    n1, n2 = shape(x1)[normalize_axis(axis, ndim(x1))], shape(x2)[normalize_axis(axis, ndim(x2))]
    if n1 != n2:
        raise ValueError(f"vecdot: the vectors' lengths along axis {axis} differ: {n1} and {n2}")
    row = moveaxis(_conj(x1), axis, -1)[..., None, :]  # (..., 1, n) @ (..., n, 1): a dot
    out = matmul(row, moveaxis(x2, axis, -1)[..., :, None])
    return out[..., 0, 0] if ndim(out) > 2 else out[0, 0]  # (NumPy's scalar for two vectors)


@implements("numpy.matvec")
def matvec(x1: Any, x2: Any) -> Any:
    """``numpy.matvec`` (NumPy 2.2): the matrix-vector product ``x1 @ x2`` over the last
    two axes of ``x1`` and the last of ``x2``, broadcast over the axes before (no
    conjugation).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.matvec(A, np.array([[1.0, 0.0], [1.0, 1.0]])).tolist()  # two vectors
        [[1.0, 3.0], [3.0, 7.0]]
        >>> ft.grad(lambda v: fnp.matvec(A, v).sum())(np.zeros(2)).tolist()
        [4.0, 6.0]
    """
    x1, x2 = _sequence_as_array(x1), _sequence_as_array(x2)
    if ndim(x1) < 2 or ndim(x2) < 1:
        raise ValueError("matvec: input operand does not have enough dimensions")
    return matmul(x1, x2[..., :, None])[..., 0]


@implements("numpy.vecmat")
def vecmat(x1: Any, x2: Any) -> Any:
    """``numpy.vecmat`` (NumPy 2.2): the vector-matrix product ``conj(x1) @ x2`` over the
    last axis of ``x1`` and the last two of ``x2``, broadcast over the axes before.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> import ftransforms.numpy as fnp
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.vecmat(np.array([1.0, 1.0]), A).tolist()  # the column sums
        [4.0, 6.0]
        >>> ft.grad(lambda v: fnp.vecmat(v, A).sum())(np.zeros(2)).tolist()  # the row sums
        [3.0, 7.0]
    """
    x1, x2 = _sequence_as_array(x1), _sequence_as_array(x2)
    if ndim(x1) < 1 or ndim(x2) < 2:
        raise ValueError("vecmat: input operand does not have enough dimensions")
    return matmul(_conj(x1)[..., None, :], x2)[..., 0, :]
