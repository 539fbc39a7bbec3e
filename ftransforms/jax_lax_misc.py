"""More of ``jax.lax`` under ``ftransforms.lax`` (NOTE [jax.lax names in ftransforms.lax] in
``jax_lax.py``): the general ``reduce`` and ``reduce_xor``, ``optimization_barrier``, the
shape helpers (``broadcast_shapes``, ``broadcast_to_rank``, ``broadcast_like``,
``unstack``, ``empty``), ``mulhi``, ``approx_max_k``/``approx_min_k``, ``ragged_dot``,
``fft`` with :class:`FftType`, and the enums JAX programs pass and CPU ignores
(:class:`Precision`, :class:`DotAlgorithmPreset`, :class:`RoundingMethod`,
:class:`RandomAlgorithm`) and the ``DotDimensionNumbers`` type.  All compositions of
primitives, so every transform goes through them.

Example:
    >>> import numpy as np
    >>> from ftransforms import lax
    >>> lax.reduce(np.arange(6.0).reshape(2, 3), 0.0, lambda a, b: a + b, (1,)).tolist()
    [3.0, 12.0]
"""

from __future__ import annotations

import builtins
import enum
import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.api import jvp
from ftransforms.backend import namespace_of
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.jax_lax import _MONOIDS, descending_key, largest_along_last
from ftransforms.numpy.helpers import constant_like
from ftransforms.ops.bits import bitcast_convert_type_p, reduce_precision_p
from ftransforms.pytree import tree_flatten, tree_unflatten
from ftransforms.random_keys import bits as _key_bits
from ftransforms.random_keys import split as _split_key
from ftransforms.scipy import special as _special


class Precision(enum.Enum):
    """The precision of a matrix product on accelerators (``jax.lax.Precision``); accepted
    by ``dot_general``/``conv_general_dilated`` and ignored, as on JAX's CPU (float64 and
    float32 products are computed in their own precision).

    Example:
        >>> from ftransforms import lax
        >>> lax.Precision.HIGHEST.name
        'HIGHEST'
    """

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2


class DotAlgorithmPreset(enum.Enum):
    """The named algorithms of a matrix product (``jax.lax.DotAlgorithmPreset``); accepted
    as ``precision=`` and ignored, as on JAX's CPU.

    Example:
        >>> from ftransforms import lax
        >>> lax.DotAlgorithmPreset.DEFAULT.name
        'DEFAULT'
    """

    DEFAULT = 0
    ANY_F8_ANY_F8_F32 = 1
    ANY_F8_ANY_F8_F32_FAST_ACCUM = 2
    ANY_F8_ANY_F8_ANY = 3
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = 4
    F16_F16_F16 = 5
    F16_F16_F32 = 6
    BF16_BF16_BF16 = 7
    BF16_BF16_F32 = 8
    BF16_BF16_F32_X3 = 9
    BF16_BF16_F32_X6 = 10
    BF16_BF16_F32_X9 = 11
    TF32_TF32_F32 = 12
    TF32_TF32_F32_X3 = 13
    F32_F32_F32 = 14
    F64_F64_F64 = 15


class RoundingMethod(enum.IntEnum):
    """``lax.round``'s ``rounding_method`` (``jax.lax.RoundingMethod``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.round(np.array([2.5]), lax.RoundingMethod.TO_NEAREST_EVEN).tolist()
        [2.0]
    """

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


class RandomAlgorithm(enum.IntEnum):
    """The bit generators of XLA (``jax.lax.RandomAlgorithm``), for programs that name them.

    Example:
        >>> from ftransforms import lax
        >>> int(lax.RandomAlgorithm.RNG_THREE_FRY)
        1
    """

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2


class FftType(enum.IntEnum):
    """The kind of ``lax.fft`` (``jax.lax.FftType``): ``FFT``, ``IFFT``, ``RFFT``, ``IRFFT``.

    Example:
        >>> from ftransforms import lax
        >>> lax.FftType.RFFT.name
        'RFFT'
    """

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


class DotDimensionNumbers(tuple):
    """``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``, the type of
    ``dot_general``'s ``dimension_numbers`` (``jax.lax.DotDimensionNumbers``, a plain tuple
    for annotations).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> dn = lax.DotDimensionNumbers((((1,), (0,)), ((), ())))
        >>> lax.dot_general(np.ones((2, 3)), np.ones((3, 4)), dn).shape
        (2, 4)
    """

    __slots__ = ()


class PrecisionLike:
    """The type of ``precision=`` arguments, for annotations (``jax.lax.PrecisionLike``:
    ``None``, a :class:`Precision`, a :class:`DotAlgorithmPreset`, a string or a pair).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> def matmul(a, b, precision: lax.PrecisionLike = None):
        ...     return lax.dot(a, b, precision=precision)
        >>> matmul(np.eye(2), np.ones(2)).tolist()
        [1.0, 1.0]
    """


class ConvGeneralDilatedDimensionNumbers:
    """The type of convolutions' ``dimension_numbers=``, for annotations
    (``jax.lax.ConvGeneralDilatedDimensionNumbers``: ``None``, three layout strings or a
    ``ConvDimensionNumbers``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> def conv(x, w, dn: lax.ConvGeneralDilatedDimensionNumbers = None):
        ...     return lax.conv_general_dilated(x, w, (1,), "VALID", dimension_numbers=dn)
        >>> conv(np.ones((1, 1, 3)), np.ones((1, 1, 2))).tolist()
        [[[2.0, 2.0]]]
    """


def fft(x: Any, fft_type: Any, fft_lengths: Sequence[int]) -> Any:
    """The ``len(fft_lengths)``-dimensional FFT over the last axes of ``x``
    (``jax.lax.fft``): ``fft_type`` is an :class:`FftType` or its name; for ``IRFFT``
    ``fft_lengths`` are the real output's lengths.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.fft(np.array([1.0, 0.0, 0.0, 0.0]), "RFFT", (4,)).tolist()
        [(1+0j), (1+0j), (1+0j)]
    """
    kind = fft_type.name if isinstance(fft_type, enum.Enum) else str(fft_type).upper()
    kind = kind.rsplit(".", 1)[-1]
    lengths = tuple(operator.index(n) for n in fft_lengths)
    axes = tuple(range(-len(lengths), 0))
    if kind == "FFT":
        return fnp.fft.fftn(fnp.asarray(x).astype(_complex(x)), s=lengths, axes=axes)
    if kind == "IFFT":
        return fnp.fft.ifftn(fnp.asarray(x).astype(_complex(x)), s=lengths, axes=axes)
    if kind == "RFFT":
        return fnp.fft.rfftn(x, s=lengths, axes=axes)
    if kind == "IRFFT":
        return fnp.fft.irfftn(x, s=lengths, axes=axes)
    raise UnsupportedOperationError(
        f"lax.fft(x, fft_type={fft_type!r}, ...): fft_type must be FFT, IFFT, RFFT or IRFFT"
    )


def _complex(x: Any) -> numpy.dtype:
    return numpy.result_type(numpy.dtype(fnp.result_type(x)), numpy.complex64)


# -- reductions --------------------------------------------------------------------------------


def _fold(computation: Callable, arrays: list[Any], spec: Any) -> list[Any]:
    """The leaves of ``computation`` applied pairwise along axis 0 of ``arrays`` until one
    row is left (a tree: ``log2`` calls; the computation is associative and commutative,
    as JAX and XLA require of a reduction)."""
    while arrays[0].shape[0] > 1:
        n = arrays[0].shape[0]
        half = n // 2
        a = tree_unflatten(spec, [v[:half] for v in arrays])
        b = tree_unflatten(spec, [v[half : 2 * half] for v in arrays])
        combined, _ = tree_flatten(computation(a, b))
        arrays = [
            fnp.concatenate([c, v[2 * half :]]) if n % 2 else c
            for c, v in zip(combined, arrays, strict=True)
        ]
    return [v[0] for v in arrays]


def reduce(
    operands: Any,
    init_values: Any,
    computation: Callable[[Any, Any], Any],
    dimensions: Sequence[int],
    out_sharding: Any = None,
) -> Any:
    """The reduction of ``operands`` (an array, or a pytree of arrays of one shape reduced
    together) over ``dimensions`` by the binary ``computation``, which takes and returns
    values structured as ``init_values`` (``jax.lax.reduce``).  ``lax.add``/``max``/``min``/
    ``mul`` reduce at once; any other computation is applied pairwise (a tree of
    ``log2(n)`` calls), so it must be associative and commutative, as JAX requires.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
        >>> lax.reduce(x, -np.inf, lax.max, (1,)).tolist()
        [3.0, 5.0]
        >>> def argmax(a, b):  # (value, index) pairs: the larger value wins
        ...     take_b = b[0] > a[0]
        ...     return lax.select(take_b, b[0], a[0]), lax.select(take_b, b[1], a[1])
        >>> idx = np.broadcast_to(np.arange(3), x.shape)
        >>> [v.tolist() for v in lax.reduce((x, idx), (-np.inf, 0), argmax, (1,))]
        [[3.0, 5.0], [0, 1]]
    """
    leaves, spec = tree_flatten(operands)
    inits, init_spec = tree_flatten(init_values)
    if len(leaves) != len(inits) or not leaves:
        raise UnsupportedOperationError(
            f"lax.reduce(operands, init_values, computation, dimensions): one init value per "
            f"operand, got {len(inits)} for {len(leaves)}"
        )
    arrays = [fnp.asarray(v) for v in leaves]
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise UnsupportedOperationError(
            f"lax.reduce: the operands must have one shape, got {[a.shape for a in arrays]}"
        )
    nd = len(shape)
    dims = sorted({operator.index(d) % builtins.max(nd, 1) for d in dimensions})
    if any(not 0 <= d < nd for d in dimensions):
        raise UnsupportedOperationError(
            f"lax.reduce: dimensions {tuple(dimensions)} must be axes of the operand (rank {nd})"
        )
    if not dims:  # nothing to reduce: the operands as they are (JAX's, init unused)
        return tree_unflatten(init_spec, arrays)
    inits = [fnp.asarray(i).astype(a.dtype) for i, a in zip(inits, arrays, strict=True)]
    kept = tuple(n for a, n in enumerate(shape) if a not in dims)
    whole = _MONOIDS.get(id(computation)) if len(arrays) == 1 else None
    if whole is not None:
        return computation(inits[0], whole(arrays[0], axis=tuple(dims)))
    rows = 1
    for d in dims:
        rows *= shape[d]
    moved = [
        fnp.reshape(fnp.moveaxis(a, dims, tuple(range(len(dims)))), (rows, *kept)) for a in arrays
    ]
    start = tree_unflatten(init_spec, [fnp.broadcast_to(i, kept) for i in inits])
    if rows == 0:
        return tree_unflatten(init_spec, tree_flatten(start)[0])
    folded = tree_unflatten(spec, _fold(computation, moved, spec))
    out, _ = tree_flatten(computation(start, folded))
    return tree_unflatten(init_spec, [o.astype(a.dtype) for o, a in zip(out, arrays, strict=True)])


def reduce_xor(operand: Any, axes: Sequence[int]) -> Any:
    """The bitwise exclusive or over ``axes`` (``jax.lax.reduce_xor``; booleans: odd
    parity).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.reduce_xor(np.array([[1, 2, 3], [4, 4, 1]]), (1,)).tolist()
        [0, 1]
    """
    x = fnp.asarray(operand)
    zero = numpy.zeros((), x.dtype)
    return reduce(x, zero, fnp.bitwise_xor, axes)


def optimization_barrier(operand: Any, /) -> Any:
    """``operand`` (a pytree) unchanged: in JAX a fence for XLA's optimizer, here (eager,
    no optimizer across it) the identity, transparent to every transform
    (``jax.lax.optimization_barrier``).

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> float(ft.grad(lambda x: lax.optimization_barrier(x) ** 2)(3.0))
        6.0
    """
    return operand


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """``x`` (a pytree) unchanged: a layout hint for JAX's compiler across devices, with
    nothing to do here (``jax.lax.with_sharding_constraint``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.with_sharding_constraint(np.ones(2), None).tolist()
        [1.0, 1.0]
    """
    return x


def platform_dependent(
    *args: Any, default: Callable | None = None, **per_platform: Callable
) -> Any:
    """The branch for the platform the arguments live on, called with them: ``cuda``
    (or ``gpu``) for CuPy arrays, ``cpu`` otherwise, else ``default``
    (``jax.lax.platform_dependent``).

    Example:
        >>> from ftransforms import lax
        >>> float(lax.platform_dependent(2.0, cpu=lambda x: 10 * x, default=lambda x: x))
        20.0
    """
    leaves = [a._physical() if isinstance(a, Tracer) else a for a in tree_flatten(args)[0]]
    names = ("cuda", "gpu") if namespace_of(*leaves).__name__ == "cupy" else ("cpu",)
    for name in names:
        if name in per_platform:
            return per_platform[name](*args)
    if default is None:
        raise UnsupportedOperationError(
            f"lax.platform_dependent: no branch for platform {names[0]!r} and no default; "
            f"give {names[0]}= or default="
        )
    return default(*args)


def composite(decomposition: Callable, name: str, version: int = 0) -> Callable:
    """``decomposition`` itself, named: in JAX a function that a compiler may replace as
    a whole, here (no such compiler) the composition of its operations
    (``jax.lax.composite``).

    Example:
        >>> import ftransforms as ft
        >>> from ftransforms import lax
        >>> add_one = lax.composite(lambda x: x + 1.0, name="my.add_one")
        >>> float(add_one(1.0)), float(ft.grad(add_one)(1.0))
        (2.0, 1.0)
    """

    @functools.wraps(decomposition)
    def call(*args: Any, **kwargs: Any) -> Any:
        return decomposition(*args, **kwargs)

    call.composite_name, call.composite_version = name, version
    return call


def dtype(x: Any) -> numpy.dtype:
    """The dtype of an array, tracer or Python scalar (Python scalars: 64-bit, as JAX with
    x64) (``jax.lax.dtype``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.dtype(1.0), lax.dtype(np.float32(1.0)), lax.dtype(True)
        (dtype('float64'), dtype('float32'), dtype('bool'))
    """
    return numpy.dtype(fnp.result_type(x))


# -- shapes ------------------------------------------------------------------------------------


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape that arrays of ``shapes`` broadcast to (``jax.lax.broadcast_shapes``);
    ``ValueError`` when they do not.

    Example:
        >>> from ftransforms import lax
        >>> lax.broadcast_shapes((2, 1), (3,))
        (2, 3)
    """
    try:
        return tuple(int(n) for n in numpy.broadcast_shapes(*(tuple(s) for s in shapes)))
    except ValueError:
        raise ValueError(
            f"lax.broadcast_shapes: incompatible shapes for broadcasting: "
            f"{tuple(map(tuple, shapes))}"
        ) from None


def broadcast_to_rank(x: Any, rank: int) -> Any:
    """``x`` with leading axes of size 1 added up to ``rank`` axes
    (``jax.lax.broadcast_to_rank``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.broadcast_to_rank(np.ones(3), 3).shape
        (1, 1, 3)
    """
    x = fnp.asarray(x)
    rank = operator.index(rank)
    if x.ndim > rank:
        raise ValueError(
            f"lax.broadcast_to_rank(x, rank={rank}): x already has {x.ndim} axes; give a rank "
            f">= {x.ndim}"
        )
    return fnp.reshape(x, (1,) * (rank - x.ndim) + tuple(x.shape))


def broadcast_like(arr: Any, like_arr: Any) -> Any:
    """``arr`` broadcast to the shape of ``like_arr`` (``jax.lax.broadcast_like``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.broadcast_like(np.arange(2), np.zeros((3, 2))).shape
        (3, 2)
    """
    return fnp.broadcast_to(arr, fnp.shape(like_arr))


def unstack(x: Any, axis: int = 0) -> tuple[Any, ...]:
    """The slices of ``x`` along ``axis``, as a tuple (``jax.lax.unstack``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> [a.tolist() for a in lax.unstack(np.arange(4).reshape(2, 2), axis=1)]
        [[0, 2], [1, 3]]
    """
    x = fnp.moveaxis(fnp.asarray(x), axis, 0)
    return tuple(x[i] for i in range(x.shape[0]))


def empty(shape: Sequence[int], dtype: Any, *, out_sharding: Any = None) -> Any:
    """An array of ``shape`` and ``dtype`` whose values are unspecified (zeros here, as on
    JAX's CPU) (``jax.lax.empty``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.empty((2,), np.float32).dtype
        dtype('float32')
    """
    return numpy.zeros(tuple(shape), dtype)


# -- bits ------------------------------------------------------------------------------------


def bitcast_convert_type(operand: Any, new_dtype: Any) -> Any:
    """The bits of ``operand`` read as ``new_dtype`` (``jax.lax.bitcast_convert_type``): a
    smaller item size adds a last axis of ``old // new`` entries, a larger one needs a
    last axis of ``new // old`` entries and consumes it.  Not differentiable.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.bitcast_convert_type(np.float32(1.0), np.int32).item()
        1065353216
        >>> lax.bitcast_convert_type(np.array([1.0]), np.uint32).shape
        (1, 2)
    """
    x = fnp.asarray(operand)
    new = numpy.dtype(new_dtype)
    old = numpy.dtype(x.dtype)
    where = f"lax.bitcast_convert_type(operand, {new})"
    if (new.kind not in "iuf" or old.kind not in "iuf") and new != old:
        raise UnsupportedOperationError(
            f"{where}: integer and float dtypes only (as JAX), got {old} to {new}; bool and "
            f"complex operands only to their own dtype"
        )
    if new.itemsize > old.itemsize and (x.ndim == 0 or x.shape[-1] != new.itemsize // old.itemsize):
        raise ValueError(
            f"{where}: from {old} the operand's last axis must have "
            f"{new.itemsize // old.itemsize} entries, got shape {x.shape}"
        )
    return bitcast_convert_type_p.bind(x, new_dtype=new)


def reduce_precision(operand: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    """``operand`` rounded to the nearest number of a float format with ``exponent_bits``
    and ``mantissa_bits`` (ties to even; overflow to infinity, below the smallest normal
    to zero), kept in its dtype (``jax.lax.reduce_precision``: ``(8, 7)`` is bfloat16,
    ``(5, 10)`` float16).  Its derivative treats it as linear, as JAX's does.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.reduce_precision(np.array([1.0 + 2.0**-11, 70000.0]), 5, 10).tolist()
        [1.0, inf]
    """
    x = fnp.asarray(operand)
    e, m = operator.index(exponent_bits), operator.index(mantissa_bits)
    if numpy.dtype(x.dtype).kind != "f":
        raise UnsupportedOperationError(
            f"lax.reduce_precision(operand, {e}, {m}): a real float operand (as JAX), got {x.dtype}"
        )
    if e < 1 or m < 0:
        raise ValueError(
            f"lax.reduce_precision(operand, {e}, {m}): exponent_bits >= 1 and mantissa_bits >= 0"
        )
    return reduce_precision_p.bind(x, exponent_bits=e, mantissa_bits=m)


# -- derivatives of the incomplete gamma function -------------------------------------------------


def igamma_grad_a(a: Any, x: Any) -> Any:
    """The derivative in ``a`` of the regularized lower incomplete gamma function
    ``gammainc(a, x)``, elementwise (``jax.lax.igamma_grad_a``).

    Example:
        >>> from ftransforms import lax
        >>> round(float(lax.igamma_grad_a(1.5, 2.0)), 10)
        -0.2774335642
    """
    a, x = fnp.broadcast_arrays(fnp.asarray(a), fnp.asarray(x))
    ones = fnp.ones_like(a)
    return jvp(lambda a: _special.gammainc(a, x), (a,), (ones,))[1]


def random_gamma_grad(a: Any, sample: Any) -> Any:
    """The derivative of a Gamma(``a``, 1) sample in ``a`` at the same uniform draw (the
    implicit reparameterization ``-dF/da / dF/dx``, ``F`` the distribution function)
    (``jax.lax.random_gamma_grad``).

    Example:
        >>> from ftransforms import lax
        >>> round(float(lax.random_gamma_grad(1.5, 2.0)), 6)
        1.28463
    """
    a, x = fnp.broadcast_arrays(fnp.asarray(a), fnp.asarray(sample))
    log_density = (a - 1) * fnp.log(x) - x - _special.gammaln(a)
    return -igamma_grad_a(a, x) / fnp.exp(log_density)


# -- random bits -------------------------------------------------------------------------------


def rng_bit_generator(
    key: Any,
    shape: Sequence[int],
    dtype: Any = numpy.uint32,
    algorithm: Any = RandomAlgorithm.RNG_DEFAULT,
    *,
    out_sharding: Any = None,
) -> tuple[Any, Any]:
    """``(new_key, bits)``: uniform random unsigned integers of ``shape`` and ``dtype`` from
    a ``uint32[4]`` ``key``, and the key for the next call (``jax.lax.rng_bit_generator``).
    The bits come from the Threefry counter hash of ``ft.random`` (the key's two halves
    xored into one of its keys), not from XLA's generator: the same key gives the same
    bits here, but not JAX's bits; ``algorithm`` is accepted.  ``vmap`` over keys works.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> key = np.array([1, 2, 3, 4], np.uint32)
        >>> new_key, bits = lax.rng_bit_generator(key, (2, 3))
        >>> new_key.shape, bits.dtype, bool((lax.rng_bit_generator(key, (2, 3))[1] == bits).all())
        ((4,), dtype('uint32'), True)
    """
    k = fnp.asarray(key)
    if k.shape != (4,) or numpy.dtype(k.dtype) != numpy.uint32:
        raise ValueError(
            f"lax.rng_bit_generator(key, shape): key must be uint32[4] (as JAX's), got "
            f"{k.dtype}{list(k.shape)}"
        )
    dt = numpy.dtype(dtype)
    if dt.kind != "u":
        raise ValueError(
            f"lax.rng_bit_generator(key, shape, dtype={dt}): dtype must be an unsigned integer"
        )
    folded = fnp.bitwise_xor(k[:2], k[2:])
    keys = _split_key(folded, 3)
    new_key = fnp.concatenate([keys[0], keys[1]])
    return new_key, _key_bits(keys[2], tuple(shape), dt)


def rng_uniform(a: Any, b: Any, shape: Sequence[int]) -> Any:
    """Uniform random numbers in ``[a, b)`` of ``shape``, from NumPy's global generator
    (``numpy.random.seed`` makes them repeatable) (``jax.lax.rng_uniform``, a stateful
    generator that JAX discourages; prefer ``ft.random.uniform`` with a key).  The bounds
    may be traced: the result is differentiable in them.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> np.random.seed(0)
        >>> u = lax.rng_uniform(2.0, 3.0, (4,))
        >>> u.shape, bool(((u >= 2.0) & (u < 3.0)).all())
        ((4,), True)
    """
    dt = numpy.result_type(numpy.dtype(fnp.result_type(a)), numpy.dtype(fnp.result_type(b)))
    if dt.kind != "f":
        dt = numpy.dtype(numpy.float64)
    draw = numpy.random.random_sample(tuple(shape)).astype(dt)
    return fnp.add(a, fnp.multiply(fnp.subtract(b, a), draw)).astype(dt)


# -- integer and selection operators -----------------------------------------------------------


def mulhi(x: Any, y: Any, /) -> Any:
    """The high half of the double-width product of integers ``x * y`` (``jax.lax.mulhi``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> lax.mulhi(np.array([2**30, -3], np.int32), np.array([8, 2**30], np.int32)).tolist()
        [2, -1]
    """
    x, y = fnp.asarray(x), fnp.asarray(y)
    dt = numpy.dtype(numpy.result_type(numpy.dtype(x.dtype), numpy.dtype(y.dtype)))
    if dt.kind not in "iu":
        raise UnsupportedOperationError(f"lax.mulhi(x, y): integer operands, got {dt}")
    bits = dt.itemsize * 8
    if bits < 64:
        wide = numpy.dtype(f"{dt.kind}8")
        return fnp.right_shift(x.astype(wide) * y.astype(wide), bits).astype(dt)
    u64 = numpy.dtype(numpy.uint64)
    xu, yu = x.astype(u64), y.astype(u64)
    low, shift = constant_like(0xFFFFFFFF, xu, u64), constant_like(32, xu, u64)
    xl, xh = fnp.bitwise_and(xu, low), fnp.right_shift(xu, shift)
    yl, yh = fnp.bitwise_and(yu, low), fnp.right_shift(yu, shift)
    cross = fnp.right_shift(xl * yl, shift) + fnp.bitwise_and(xh * yl, low) + xl * yh
    high = xh * yh + fnp.right_shift(xh * yl, shift) + fnp.right_shift(cross, shift)
    if dt.kind == "u":
        return high
    # signed: subtract the other operand where one is negative (two's complement)
    zero = fnp.zeros_like(xu)
    high = high - fnp.where(x < 0, yu, zero) - fnp.where(y < 0, xu, zero)
    return high.astype(dt)


def approx_max_k(
    operand: Any,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
) -> tuple[Any, Any]:
    """The ``k`` largest entries along ``reduction_dimension`` and their indices, exactly
    (as JAX's CPU computes the approximate top-k) (``jax.lax.approx_max_k``).  With
    ``aggregate_to_topk=False`` the candidates are the whole axis, sorted (JAX's CPU gives
    the same for axes of up to 128 entries, fewer candidates for longer ones).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> [a.tolist() for a in lax.approx_max_k(np.array([1.0, 4.0, 2.0]), 2)]
        [[4.0, 2.0], [1, 2]]
    """
    x = fnp.moveaxis(fnp.asarray(operand), reduction_dimension, -1)
    # NaN ranks as JAX's CPU approx_max_k ranks it (below every number), not as top_k
    values, indices = largest_along_last(x, k if aggregate_to_topk else x.shape[-1], descending_key)
    return (
        fnp.moveaxis(values, -1, reduction_dimension),
        fnp.moveaxis(indices, -1, reduction_dimension),
    )


def approx_min_k(
    operand: Any,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
) -> tuple[Any, Any]:
    """The ``k`` smallest entries along ``reduction_dimension`` and their indices, exactly
    (``jax.lax.approx_min_k``; ``aggregate_to_topk=False``: the whole axis, sorted).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> [a.tolist() for a in lax.approx_min_k(np.array([1.0, 4.0, 2.0]), 2)]
        [[1.0, 2.0], [0, 2]]
    """
    x = fnp.moveaxis(fnp.asarray(operand), reduction_dimension, -1)
    if not 0 <= operator.index(k) <= x.shape[-1]:
        raise UnsupportedOperationError(
            f"lax.approx_min_k(operand, k): k must be between 0 and the reduced axis' size "
            f"{x.shape[-1]}, got {k}"
        )
    kept = operator.index(k) if aggregate_to_topk else x.shape[-1]
    order = fnp.argsort(x, axis=-1, kind="stable")[..., :kept]
    values = fnp.take_along_axis(x, order, axis=-1)
    return (
        fnp.moveaxis(values, -1, reduction_dimension),
        fnp.moveaxis(order.astype(numpy.int32), -1, reduction_dimension),
    )


def ragged_dot(
    lhs: Any,
    rhs: Any,
    group_sizes: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
    group_offset: Any = None,
    out_sharding: Any = None,
) -> Any:
    """The grouped matrix product: ``lhs`` ``(m, k)`` is cut into consecutive row groups
    of ``group_sizes`` ``(g,)`` and group ``i`` is multiplied by ``rhs[i]`` ``(k, n)``;
    rows past the groups are zero (``jax.lax.ragged_dot``, mixture-of-experts layers).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> rhs = np.stack([np.eye(2), 2 * np.eye(2)])
        >>> lax.ragged_dot(np.ones((3, 2)), rhs, np.array([1, 2])).tolist()
        [[1.0, 1.0], [2.0, 2.0], [2.0, 2.0]]
    """
    if group_offset is not None:
        raise UnsupportedOperationError("lax.ragged_dot(..., group_offset=...): not supported")
    a, b = fnp.asarray(lhs), fnp.asarray(rhs)
    if a.ndim != 2 or b.ndim != 3 or a.shape[1] != b.shape[1]:
        raise UnsupportedOperationError(
            f"lax.ragged_dot(lhs, rhs, group_sizes): lhs (m, k) and rhs (g, k, n), got "
            f"{a.shape} and {b.shape}"
        )
    ends = fnp.cumsum(fnp.asarray(group_sizes))
    rows = constant_like(numpy.arange(a.shape[0]), a)
    group = fnp.sum(fnp.expand_dims(rows, 1) >= ends, axis=1)
    groups = constant_like(numpy.arange(b.shape[0]), a)
    onehot = fnp.equal(fnp.expand_dims(group, 1), groups).astype(a.dtype)
    out = fnp.einsum("mk,gkn,mg->mn", a, b, onehot)
    return out if preferred_element_type is None else out.astype(preferred_element_type)


__all__ = [
    "ConvGeneralDilatedDimensionNumbers",
    "DotAlgorithmPreset",
    "DotDimensionNumbers",
    "FftType",
    "Precision",
    "PrecisionLike",
    "RandomAlgorithm",
    "RoundingMethod",
    "approx_max_k",
    "approx_min_k",
    "bitcast_convert_type",
    "broadcast_like",
    "broadcast_shapes",
    "broadcast_to_rank",
    "composite",
    "dtype",
    "empty",
    "fft",
    "igamma_grad_a",
    "mulhi",
    "optimization_barrier",
    "platform_dependent",
    "ragged_dot",
    "reduce",
    "reduce_precision",
    "random_gamma_grad",
    "reduce_xor",
    "rng_bit_generator",
    "rng_uniform",
    "unstack",
    "with_sharding_constraint",
]
