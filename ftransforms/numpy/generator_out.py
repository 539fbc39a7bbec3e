"""NumPy ``Generator`` methods that write into an array (``out=``, ``shuffle(x, axis)``) on
traced arrays and buffers.

NOTE [generators made under a transform]: ``rng.random(out=buf)``,
``rng.standard_normal(out=buf)``, ``rng.permuted(x, out=x)`` and ``rng.shuffle(x, axis=1)``
are methods of a C class that takes only a true ``ndarray`` there; inside a transformed
function ``buf = np.empty(n)`` is a buffer and ``x`` a tracer (NOTE [mutation semantics] in
core/mutation.py), which NumPy refuses.  Nothing can wrap a method of NumPy's
``Generator``, but its class can be subclassed: while a transform is active,
``numpy.random.default_rng(seed)`` called by user code returns a :class:`Generator` over
the same bit generator, whose methods draw what NumPy would draw (the same calls on the bit
generator, in the same order) into a new array and write it into the traced array or
buffer (``out[...] = draws``, so a batched or differentiated ``out`` takes plain draws as
any write does); ``shuffle(x, axis=k)`` shuffles ``swapaxes(x, 0, k)``, a view of ``x``,
as NumPy's own array path does.  Anything else, and every call on plain arrays, is NumPy's.
A generator made elsewhere (at import, before the transform, or with
``np.random.Generator(PCG64(...))``) keeps NumPy's class: an ``out=`` that is traced then
raises NumPy's ValueError ("Supplied output array must be contiguous, ...").

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def noisy(x):
    ...     noise = np.empty(3)
    ...     np.random.default_rng(0).standard_normal(out=noise)
    ...     return x + noise
    >>> bool(np.allclose(ft.grad(lambda x: noisy(x).sum())(np.zeros(3)), 1.0))
    True
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE, Buffer, called_from_user_code
from ftransforms.core.mutation import c_contiguous as _c_contiguous
from ftransforms.core.mutation import f_contiguous as _f_contiguous
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import as_operand
from ftransforms.numpy.helpers import dtype_of, holds_tracer, invalid_in_rows
from ftransforms.numpy.helpers import shape as shape_of
from ftransforms.numpy.inplace import swapaxes_view
from ftransforms.numpy.manipulation import broadcast_shapes
from ftransforms.numpy.ufuncs import isfinite

__all__: list[str] = []  # numpy.random.default_rng is the name

_NUMPY_DEFAULT_RNG = numpy.random.default_rng
_NUMPY_GENERATOR = numpy.random.Generator


def _traced(out: Any) -> bool:
    return isinstance(out, Tracer)


def _draw_into(out: Any, size: Any, dtype: Any, draw: Any) -> Any:
    """Write ``draw(shape)`` (NumPy's draws for an array of ``out``'s shape) into the
    traced array or buffer ``out``, with NumPy's checks of ``out``; returns ``out``."""
    shape = tuple(shape_of(out))
    if numpy.dtype(dtype_of(out)) != numpy.dtype(dtype):
        raise TypeError(
            f"Supplied output array has the wrong type. Expected {numpy.dtype(dtype)}, got "
            f"{numpy.dtype(dtype_of(out))}"
        )
    if size is not None and tuple(numpy.atleast_1d(size)) != shape:
        raise ValueError(
            f"size must match out.shape when used together: size {size}, out.shape {shape}"
        )
    if type(out) is Buffer:
        c, f = out.val.flags.c_contiguous, out.val.flags.f_contiguous
    else:
        c, f = _c_contiguous(out), _f_contiguous(out)
    if not c and not f:
        raise ValueError(
            "Supplied output array must be contiguous, writable, aligned, and in machine "
            "byte-order."
        )
    # NumPy fills out's memory in order: a Fortran-ordered array gets the draws transposed
    out[...] = draw(shape) if c else draw(shape[::-1]).T
    return out


def _drawn_shape(size: Any, *parameters: Any) -> tuple:
    """The shape NumPy draws for: ``size``, or the parameters' broadcast shape."""
    if size is None:
        return tuple(broadcast_shapes(*(shape_of(p) for p in parameters)))
    return tuple(int(n) for n in numpy.atleast_1d(size))


class Generator(_NUMPY_GENERATOR):
    """NumPy's ``Generator`` whose methods also write into traced arrays and buffers (NOTE
    [generators made under a transform])."""

    def random(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> Any:
        if not _traced(out):
            return super().random(size, dtype, out)
        return _draw_into(out, size, dtype, lambda s: super(Generator, self).random(s, dtype))

    def standard_normal(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> Any:
        if not _traced(out):
            return super().standard_normal(size, dtype, out)
        draw = lambda s: super(Generator, self).standard_normal(s, dtype)  # noqa: E731
        return _draw_into(out, size, dtype, draw)

    def standard_exponential(
        self, size: Any = None, dtype: Any = numpy.float64, method: str = "zig", out: Any = None
    ) -> Any:
        if not _traced(out):
            return super().standard_exponential(size, dtype, method, out)
        draw = lambda s: super(Generator, self).standard_exponential(s, dtype, method)  # noqa: E731
        return _draw_into(out, size, dtype, draw)

    def standard_gamma(
        self, shape: Any, size: Any = None, dtype: Any = numpy.float64, out: Any = None
    ) -> Any:
        if not _traced(out):
            return super().standard_gamma(shape, size, dtype, out)
        draw = lambda s: super(Generator, self).standard_gamma(shape, s, dtype)  # noqa: E731
        return _draw_into(out, size, dtype, draw)

    # NOTE [traced parameters of a generator made under a transform]: NumPy draws
    # ``normal(loc, scale, size)`` as ``loc + scale * z`` and ``uniform(low, high, size)`` as
    # ``low + (high - low) * u``, with ``z``/``u`` the draws of ``standard_normal``/``random``
    # of the result's shape, in C order.  With a traced parameter these methods make
    # exactly those draws and that arithmetic on the tracers: NumPy's values to the bit,
    # differentiable in the parameters (the reparameterisation), and under vmap the loop's
    # rows (each row's own generator draws the same numbers).  A generator held from
    # outside keeps NumPy's class (NOTE [traced parameters of a held generator]).
    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        if not (holds_tracer(loc) or holds_tracer(scale)):
            return super().normal(loc, scale, size)
        loc, scale = as_operand(loc), as_operand(scale)
        if invalid_in_rows(scale < 0):
            raise ValueError("scale < 0")
        return loc + scale * super().standard_normal(_drawn_shape(size, loc, scale))

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        if not (holds_tracer(low) or holds_tracer(high)):
            return super().uniform(low, high, size)
        low, high = as_operand(low), as_operand(high)
        span = high - low
        if invalid_in_rows(~isfinite(span)):
            raise OverflowError("high - low range exceeds valid bounds")
        if invalid_in_rows(span < 0):
            raise ValueError("high - low < 0")
        return low + span * super().random(_drawn_shape(size, low, high))

    def permuted(self, x: Any, *, axis: Any = None, out: Any = None) -> Any:
        if not _traced(out):
            return super().permuted(x, axis=axis, out=out)
        if tuple(shape_of(out)) != tuple(shape_of(x)):
            raise ValueError("out must have the same shape as x")
        out[...] = super().permuted(x, axis=axis)  # NumPy's draws for a copy of x
        return out

    def shuffle(self, x: Any, axis: int = 0) -> None:
        if _traced(x) and axis != 0:
            ndim = len(shape_of(x))
            if not -ndim <= int(axis) < ndim:
                raise numpy.exceptions.AxisError(axis, ndim)
            axis = int(axis) % ndim
            # NumPy's array path: the rows of swapaxes(x, 0, axis), with the same draws
            return super().shuffle(swapaxes_view(x, 0, axis) if axis else x)
        return super().shuffle(x, axis)


#: How a seed read from a vmap row is taken: ftransforms/row_seeds.py registers its reader
#: (NOTE [seeds of some rows]); one patch of ``default_rng`` serves both.
SEED_READERS: list = []


def default_rng(seed: Any = None) -> Any:
    """``numpy.random.default_rng`` while a transform is active: for user code a
    :class:`Generator` over NumPy's bit generator (NOTE [generators made under a
    transform]); NumPy's own otherwise."""
    for read in SEED_READERS:
        seed = read(seed)
    rng = _NUMPY_DEFAULT_RNG(seed)
    if (
        type(rng) is _NUMPY_GENERATOR
        and rng is not seed
        and called_from_user_code(1, "default_rng")
    ):
        return Generator(rng.bit_generator)
    return rng


PATCHED_WHILE_ACTIVE.append(
    (vars(numpy.random), {"default_rng": default_rng}, {"default_rng": _NUMPY_DEFAULT_RNG})
)
