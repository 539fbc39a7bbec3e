"""JAX-style random numbers from explicit keys: ``ft.random.PRNGKey``/``key``, ``split``,
``fold_in``, and samplers that take a key first (``normal(key, shape, dtype)``, ...).

NOTE [random keys]
------------------
A key is data: a ``uint32`` array of shape ``(2,)`` (``split(key, n)`` gives ``(n, 2)``),
exactly JAX's raw key (``jax.random.PRNGKey``).  Every draw is a pure function of the key,
computed with the Threefry-2x32 hash (the primitive ``threefry2x32`` in
``ftransforms/ops/prng.py``) in JAX's "partitionable" counter layout, and every sampler
reproduces JAX's transformation of the bits, so the same key gives JAX's numbers: the
bits, ``split``, ``fold_in``, ``randint``, ``uniform``, ``permutation`` bit for bit, and
the samplers that go through ``log``/``tan``/``erf_inv`` to the last bits of those
functions (``normal`` evaluates ``erf_inv`` with SciPy, as JAX itself depends on it).
The defaults are JAX's with ``jax_enable_x64`` on (NumPy's): ``float64``, ``int64`` and
``uint64``.

Because a draw is a function of its key and nothing else, the transforms need nothing
special: ``vmap`` over a batch of keys is one ``threefry2x32`` call over the stacked keys
(its batching rule is the elementwise family's), an unbatched key under ``vmap`` gives
every row the same numbers (so ``vmap``'s ``randomness=`` flag, which is about
``Generator`` draws, does not apply), ``jit`` records and replays the hash like any other
call, and ``grad`` differentiates through the parameters (``minval``, ``mean``, ``cov``,
``logits``...) with the noise a constant.  The generator forms of ``normal``, ``uniform``,
``bernoulli``, ``randint``, ``permutation`` and ``choice`` in ``ftransforms.random`` hand a
call whose first argument is a ``uint32`` array to the function of the same name here.

The other samplers of ``jax.random`` (``gamma``, ``beta``, ``poisson``, ``binomial``, ...) are
in ``ftransforms/random_distributions.py``, on the same bits.

Differences from JAX: ``key(seed)`` returns the raw ``(2,)`` array too (JAX's typed key has
shape ``()``; ``key_data``/``wrap_key_data`` are the identity here), and only the
Threefry implementation exists (``impl=`` other than ``"threefry2x32"`` is refused).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import PRNGKeyError, UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.helpers import dtype_of, xp_of
from ftransforms.ops.prng import threefry2x32_p
from ftransforms.ops.special import erf_p, erfinv_p

__all__ = [
    "PRNGKey",
    "bernoulli",
    "bits",
    "categorical",
    "cauchy",
    "choice",
    "clone",
    "exponential",
    "fold_in",
    "gumbel",
    "key",
    "key_data",
    "key_impl",
    "laplace",
    "logistic",
    "lognormal",
    "multivariate_normal",
    "normal",
    "orthogonal",
    "permutation",
    "rademacher",
    "randint",
    "split",
    "truncated_normal",
    "uniform",
    "wrap_key_data",
]

_U32 = numpy.dtype(numpy.uint32)
_UINT = {8: numpy.uint8, 16: numpy.uint16, 32: numpy.uint32, 64: numpy.uint64}
_IMPL = "threefry2x32"
_KEY_FIX = "make one with ft.random.PRNGKey(seed) (or key(seed)) and split it"


# -- keys ---------------------------------------------------------------------------------


def is_key(value: Any) -> bool:
    """Whether ``value`` is a key (a ``uint32`` array or tracer), not a ``Generator``."""
    return getattr(value, "dtype", None) == _U32


def _check_key(where: str, k: Any) -> Any:
    if isinstance(k, (list, tuple)):
        k = numpy.asarray(k)
    dtype = getattr(k, "dtype", None)
    if dtype is None or not (isinstance(k, Tracer) or hasattr(k, "shape")):
        raise PRNGKeyError(
            f"random.{where}: the first argument must be a key, a uint32 array of shape (2,), "
            f"got {type(k).__name__}; {_KEY_FIX}"
        )
    if dtype != _U32 or tuple(k.shape) != (2,):
        many = dtype == _U32 and tuple(k.shape[-1:]) == (2,)
        fix = (
            "map over a batch of keys with ft.vmap(f)(keys)"
            if many
            else f"{_KEY_FIX} (ft.random.key_data gives a key's words)"
        )
        raise PRNGKeyError(
            f"random.{where}: expected a single key, a uint32 array of shape (2,), got "
            f"{dtype} of shape {tuple(k.shape)}; {fix}"
        )
    return k


def _check_impl(where: str, impl: Any) -> None:
    if impl is not None and impl != _IMPL and getattr(impl, "name", None) != _IMPL:
        raise UnsupportedOperationError(
            f"random.{where}: only impl='threefry2x32' is implemented, got {impl!r}; leave "
            f"impl at its default"
        )


def PRNGKey(seed: Any, *, impl: Any = None) -> Any:  # noqa: N802  (JAX's name)
    """A key from an integer seed: JAX's ``jax.random.PRNGKey`` (the same two words).

    A 64-bit seed (a Python ``int`` or an ``int64``) gives ``[seed >> 32, seed & 0xFFFFFFFF]``,
    a 32-bit one ``[0, seed]``.  NOTE [random keys] in ``ftransforms/random_keys.py``.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.PRNGKey(42).tolist()
        [0, 42]
        >>> ft.random.normal(ft.random.PRNGKey(0), (2,)).round(6).tolist()  # JAX's numbers
        [-0.205842, -0.784766]
    """
    _check_impl("PRNGKey", impl)
    return _seed("PRNGKey", seed)


def key(seed: Any, *, impl: Any = None) -> Any:
    """A key from an integer seed: ``jax.random.key``, here the raw ``uint32`` array of
    shape ``(2,)`` that :func:`PRNGKey` gives (JAX's typed key has shape ``()``).

    Example:
        >>> import ftransforms as ft
        >>> k1, k2 = ft.random.split(ft.random.key(0))
        >>> ft.random.uniform(k1, (3,)).shape
        (3,)
    """
    _check_impl("key", impl)
    return _seed("key", seed)


def _seed(where: str, seed: Any) -> Any:
    if isinstance(seed, bool) or (not isinstance(seed, int) and not hasattr(seed, "dtype")):
        raise PRNGKeyError(
            f"random.{where}(seed): the seed must be an integer, got {type(seed).__name__}; "
            f"pass an int"
        )
    if isinstance(seed, int):
        seed = numpy.asarray(seed, dtype=numpy.int64)  # JAX (x64) takes a Python int as int64
    if seed.dtype.kind not in "iu":
        raise PRNGKeyError(
            f"random.{where}(seed): the seed must be an integer, got dtype {seed.dtype}; pass "
            f"an int"
        )
    if seed.shape != ():
        raise PRNGKeyError(
            f"random.{where}(seed): the seed must be a scalar, got shape {tuple(seed.shape)}; "
            f"map over seeds with ft.vmap(ft.random.{where})(seeds)"
        )
    if seed.dtype.itemsize == 8:
        wide = fnp.asarray(seed).astype(numpy.uint64)
        hi = fnp.right_shift(wide, numpy.uint64(32)).astype(_U32)
        lo = fnp.bitwise_and(wide, numpy.uint64(0xFFFFFFFF)).astype(_U32)
    else:
        lo = fnp.asarray(seed).astype(_U32)
        hi = fnp.zeros_like(lo)
    return fnp.stack([hi, lo])


def key_data(keys: Any) -> Any:
    """The ``uint32`` words of keys: the keys themselves here (``jax.random.key_data``).

    Example:
        >>> import ftransforms as ft
        >>> ft.random.key_data(ft.random.key(7)).tolist()
        [0, 7]
    """
    _check_words("key_data", keys)
    return keys


def wrap_key_data(key_bits_array: Any, *, impl: Any = None) -> Any:
    """Keys from their ``uint32`` words (``jax.random.wrap_key_data``): the words here.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> k = ft.random.wrap_key_data(np.array([0, 7], np.uint32))
        >>> bool((ft.random.uniform(k) == ft.random.uniform(ft.random.key(7))).all())
        True
    """
    _check_impl("wrap_key_data", impl)
    _check_words("wrap_key_data", key_bits_array)
    return key_bits_array


def key_impl(keys: Any) -> str:
    """The name of the keys' implementation: always ``"threefry2x32"``.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.key_impl(ft.random.key(0))
        'threefry2x32'
    """
    _check_words("key_impl", keys)
    return _IMPL


def clone(key: Any) -> Any:
    """``key`` itself (``jax.random.clone``: keys are values, nothing to copy).

    Example:
        >>> import ftransforms as ft
        >>> ft.random.clone(ft.random.key(3)).tolist()
        [0, 3]
    """
    return _check_key("clone", key)


def _check_words(where: str, keys: Any) -> None:
    if getattr(keys, "dtype", None) != _U32 or tuple(keys.shape[-1:]) != (2,):
        raise PRNGKeyError(
            f"random.{where}: expected keys, a uint32 array of shape (..., 2), got "
            f"{getattr(keys, 'dtype', type(keys).__name__)} of shape "
            f"{tuple(getattr(keys, 'shape', ()))}; {_KEY_FIX}"
        )


def _shape(where: str, shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, numpy.integer)):
        shape = (shape,)
    try:
        out = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise PRNGKeyError(
            f"random.{where}: shape must be a tuple of ints, got {shape!r}; pass e.g. (3, 2)"
        ) from None
    if any(d < 0 for d in out):
        raise PRNGKeyError(f"random.{where}: shape must be non-negative, got {out}")
    return out


def _counters(xp: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    """The high and low words of the 64-bit row-major index of every element of ``shape``."""
    if not shape:
        z = xp.zeros((), _U32)
        return z, z
    idx = xp.arange(math.prod(shape), dtype=numpy.uint64).reshape(shape)
    hi = xp.right_shift(idx, numpy.uint64(32)).astype(_U32)
    return hi, xp.bitwise_and(idx, numpy.uint64(0xFFFFFFFF)).astype(_U32)


def _hash(k: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    hi, lo = _counters(xp_of(k), shape)
    return threefry2x32_p(k[0], k[1], hi, lo)


def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """``num`` new keys from ``key`` (a leading axis of ``num``, or ``num``'s shape): JAX's.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.split(ft.random.PRNGKey(0)).tolist()  # jax.random.split's words
        [[1797259609, 2579123966], [928981903, 3453687069]]
    """
    key = _check_key("split", key)
    shape = _shape("split", num)
    y1, y2 = _hash(key, shape)
    return fnp.stack([y1, y2], axis=len(shape))


def fold_in(key: Any, data: Any) -> Any:
    """A new key from ``key`` and an integer ``data`` (its low 32 bits): JAX's ``fold_in``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> keys = ft.vmap(ft.random.fold_in, in_dims=(None, 0))(ft.random.key(0), np.arange(3))
        >>> keys.shape, bool((keys[1] == ft.random.fold_in(ft.random.key(0), 1)).all())
        ((3, 2), True)
    """
    key = _check_key("fold_in", key)
    if fnp.ndim(data) != 0:
        raise PRNGKeyError(
            f"random.fold_in(key, data): data must be a scalar integer, got shape "
            f"{fnp.shape(data)}; map over it with ft.vmap"
        )
    dtype = getattr(data, "dtype", None)
    if (dtype is None and not isinstance(data, int)) or (
        dtype is not None and numpy.dtype(dtype).kind not in "iub"
    ):
        raise PRNGKeyError(
            f"random.fold_in(key, data): data must be an integer, got "
            f"{dtype or type(data).__name__}; pass an int"
        )
    if isinstance(data, int):
        word = numpy.uint32(data & 0xFFFFFFFF)
    else:
        word = fnp.asarray(data).astype(_U32)
    y1, y2 = threefry2x32_p(key[0], key[1], numpy.uint32(0), word)
    return fnp.stack([y1, y2])


def _random_bits(key: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    b1, b2 = _hash(key, shape)
    if bit_width == 64:
        hi = b1.astype(numpy.uint64)
        return fnp.bitwise_or(fnp.left_shift(hi, numpy.uint64(32)), b2.astype(numpy.uint64))
    out = fnp.bitwise_xor(b1, b2)
    return out if bit_width == 32 else out.astype(_UINT[bit_width])


def bits(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Uniform random bits as unsigned integers of ``dtype`` (default ``uint64``): JAX's.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.random.bits(ft.random.key(0), (2,), np.uint32).tolist()
        [4070199207, 4202968722]
    """
    key = _check_key("bits", key)
    dtype = numpy.dtype(numpy.uint64 if dtype is None else dtype)
    if dtype.kind != "u":
        raise PRNGKeyError(
            f"random.bits(key, shape, dtype): dtype must be an unsigned integer dtype, got "
            f"{dtype}; pass e.g. numpy.uint32"
        )
    return _random_bits(key, dtype.itemsize * 8, _shape("bits", shape))


# -- continuous samplers ---------------------------------------------------------------------


def _float_dtype(where: str, dtype: Any, kinds: str = "f") -> numpy.dtype:
    dt = numpy.dtype(numpy.float64 if dtype is None else dtype)
    if dt.kind not in kinds:
        kind = "float or complex" if "c" in kinds else "float"
        raise PRNGKeyError(
            f"random.{where}: dtype must be a {kind} dtype, got {dt}; pass e.g. numpy.float32"
        )
    return dt


def _as(value: Any, dtype: numpy.dtype) -> Any:
    if isinstance(value, (int, float)):
        return dtype.type(value)  # a NumPy scalar: usable with the keys of any backend
    return fnp.asarray(value).astype(dtype)


def _check_param_shape(where: str, shape: tuple, *params: Any) -> None:
    for p in params:
        s = tuple(fnp.shape(p))
        try:
            ok = numpy.broadcast_shapes(shape, s) == shape
        except ValueError:
            ok = False
        if not ok:
            raise PRNGKeyError(
                f"random.{where}: a parameter of shape {s} does not broadcast to the shape "
                f"{shape}; give a shape that the parameters broadcast to"
            )


def _uniform(key: Any, shape: tuple, dtype: numpy.dtype, minval: Any, maxval: Any) -> Any:
    info = numpy.finfo(dtype)
    nbits, nmant = info.bits, info.nmant
    rng_bits = nbits if nmant >= 8 else 8
    raw = _random_bits(key, rng_bits, shape)
    if rng_bits != nbits:
        raw = raw.astype(_UINT[nbits])
    uint = _UINT[nbits]
    mantissa = fnp.right_shift(raw, uint(rng_bits - nmant))
    # m * 2**-nmant, exactly: JAX's bitcast of the mantissa under exponent 0, minus 1.
    floats = mantissa.astype(dtype) * dtype.type(2.0**-nmant)
    minval, maxval = _as(minval, dtype), _as(maxval, dtype)
    if nbits < 64:
        # XLA contracts the affine step into one fused multiply-add; for float32 and
        # float16, float64 holds the product exactly, so one rounding at the end gives the
        # same values (for float64 the result may differ from JAX's in the last bit).
        wide = numpy.dtype(numpy.float64)
        lo = minval.astype(wide)
        scaled = (floats.astype(wide) * (maxval - minval).astype(wide) + lo).astype(dtype)
        return fnp.maximum(minval, scaled)
    return fnp.maximum(minval, floats * (maxval - minval) + minval)


def uniform(
    key: Any, shape: Any = (), dtype: Any = None, minval: Any = 0.0, maxval: Any = 1.0
) -> Any:
    """Uniform values in ``[minval, maxval)`` of ``shape`` and a float ``dtype``: JAX's
    ``jax.random.uniform``, bit for bit; differentiable in ``minval`` and ``maxval``.

    Example:
        >>> import ftransforms as ft
        >>> k = ft.random.PRNGKey(0)
        >>> ft.random.uniform(k, (3,)).round(6).tolist()
        [0.418457, 0.216295, 0.965321]
        >>> float(ft.grad(lambda hi: ft.random.uniform(k, (), maxval=hi))(2.0))
        0.41845711171638644
    """
    key = _check_key("uniform", key)
    shape, dtype = _shape("uniform", shape), _float_dtype("uniform", dtype)
    _check_param_shape("uniform", shape, minval, maxval)
    return _uniform(key, shape, dtype, minval, maxval)


def _normal_real(key: Any, shape: tuple, dtype: numpy.dtype) -> Any:
    lo = numpy.nextafter(dtype.type(-1.0), dtype.type(0.0))
    u = _uniform(key, shape, dtype, lo, dtype.type(1.0))
    return (dtype.type(math.sqrt(2.0)) * erfinv_p(u)).astype(dtype)  # float16 comes back wider


def normal(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Standard normal values of ``shape``, real or complex ``dtype``: JAX's
    ``jax.random.normal`` (``sqrt(2) * erf_inv(u)``, ``u`` uniform in ``(-1, 1)``).

    Example:
        >>> import ftransforms as ft
        >>> ft.random.normal(ft.random.PRNGKey(1), (2, 2)).round(4).tolist()
        [[-1.1843, -0.1162], [0.1727, 0.9573]]
    """
    key = _check_key("normal", key)
    shape, dtype = _shape("normal", shape), _float_dtype("normal", dtype, "fc")
    if dtype.kind == "c":
        real = numpy.dtype(dtype.char.lower()) if dtype.char in "FD" else numpy.dtype("g")
        k_re, k_im = split(key)
        re = _normal_real(k_re, shape, real).astype(dtype)
        im = _normal_real(k_im, shape, real).astype(dtype)
        return (re + dtype.type(1j) * im) / dtype.type(math.sqrt(2.0))
    return _normal_real(key, shape, dtype)


def truncated_normal(key: Any, lower: Any, upper: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Standard normal values truncated to ``(lower, upper)``: JAX's
    ``jax.random.truncated_normal``; differentiable in ``lower`` and ``upper``.

    Example:
        >>> import ftransforms as ft
        >>> x = ft.random.truncated_normal(ft.random.key(0), -1.0, 2.0, (1000,))
        >>> bool((x > -1).all() and (x < 2).all())
        True
    """
    key = _check_key("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    if shape is None:
        shape = numpy.broadcast_shapes(fnp.shape(lower), fnp.shape(upper))
    else:
        shape = _shape("truncated_normal", shape)
        _check_param_shape("truncated_normal", shape, lower, upper)
    sqrt2 = dtype.type(math.sqrt(2.0))
    lower, upper = _as(lower, dtype), _as(upper, dtype)
    a, b = erf_p(lower / sqrt2), erf_p(upper / sqrt2)
    out = sqrt2 * erfinv_p(_uniform(key, shape, dtype, a, b))
    out = out if dtype_of(out) == dtype else fnp.astype(out, dtype)  # SciPy's float16 erfinv
    lo = fnp.nextafter(fnp.stop_gradient(lower), dtype.type(numpy.inf))
    hi = fnp.nextafter(fnp.stop_gradient(upper), dtype.type(-numpy.inf))
    return fnp.clip(out, lo, hi)


def lognormal(key: Any, sigma: Any = 1.0, shape: Any = None, dtype: Any = None) -> Any:
    """``exp(sigma * normal)``: JAX's ``jax.random.lognormal``.

    Example:
        >>> import ftransforms as ft
        >>> bool((ft.random.lognormal(ft.random.key(0), 0.5, (4,)) > 0).all())
        True
    """
    key = _check_key("lognormal", key)
    dtype = _float_dtype("lognormal", dtype)
    shape = fnp.shape(sigma) if shape is None else _shape("lognormal", shape)
    _check_param_shape("lognormal", tuple(shape), sigma)
    return fnp.exp(_normal_real(key, tuple(shape), dtype) * _as(sigma, dtype))


def multivariate_normal(
    key: Any,
    mean: Any,
    cov: Any,
    shape: Any = None,
    dtype: Any = None,
    method: str = "cholesky",
) -> Any:
    """Samples of ``N(mean, cov)`` (batched over the leading axes): JAX's
    ``jax.random.multivariate_normal``, ``mean + factor @ z`` with ``factor`` from
    ``method`` = ``"cholesky"``, ``"eigh"`` or ``"svd"``; differentiable in both.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = ft.random.multivariate_normal(ft.random.key(0), np.zeros(2), np.eye(2), (5,))
        >>> x.shape
        (5, 2)
    """
    key = _check_key("multivariate_normal", key)
    if method not in ("cholesky", "eigh", "svd"):
        raise PRNGKeyError(
            f"random.multivariate_normal: method must be 'cholesky', 'eigh' or 'svd', got "
            f"{method!r}"
        )
    mean, cov = fnp.asarray(mean), fnp.asarray(cov)
    if dtype is None:
        dtype = numpy.result_type(mean.dtype, cov.dtype, numpy.float16)
    dtype = _float_dtype("multivariate_normal", dtype)
    mean, cov = mean.astype(dtype), cov.astype(dtype)
    if mean.ndim < 1 or cov.ndim < 2 or tuple(cov.shape[-2:]) != (mean.shape[-1],) * 2:
        raise PRNGKeyError(
            f"random.multivariate_normal: expected mean of shape (..., n) and cov of shape "
            f"(..., n, n), got {tuple(mean.shape)} and {tuple(cov.shape)}"
        )
    batch = numpy.broadcast_shapes(tuple(mean.shape[:-1]), tuple(cov.shape[:-2]))
    if shape is None:
        shape = batch
    else:
        shape = _shape("multivariate_normal", shape)
        _check_param_shape("multivariate_normal", shape, numpy.empty(batch))
    if method == "svd":
        u, s, _ = fnp.linalg.svd(cov)
        factor = u * fnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = fnp.linalg.eigh(cov)
        factor = v * fnp.sqrt(w[..., None, :])
    else:
        factor = fnp.linalg.cholesky(cov)
    z = _normal_real(key, (*shape, mean.shape[-1]), dtype)
    return mean + fnp.einsum("...ij,...j->...i", factor, z)


def orthogonal(key: Any, n: int, shape: Any = (), dtype: Any = None, m: int | None = None) -> Any:
    """Matrices of shape ``(*shape, n, m)`` (``m`` defaults to ``n``) drawn uniformly from the
    orthogonal group (Mezzadri's QR of a normal matrix with the signs of ``R``'s diagonal):
    JAX's ``jax.random.orthogonal``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> q = ft.random.orthogonal(ft.random.key(0), 3)
        >>> bool(np.allclose(q @ q.T, np.eye(3)))
        True
    """
    key = _check_key("orthogonal", key)
    shape, dtype = _shape("orthogonal", shape), _float_dtype("orthogonal", dtype)
    n = operator.index(n)
    m = n if m is None else operator.index(m)
    z = _normal_real(key, (*shape, max(n, m), min(n, m)), dtype)
    if dtype.itemsize < 4:  # NumPy's linalg has no float16: the QR runs in float32
        z = fnp.astype(z, numpy.float32)
    q, r = fnp.linalg.qr(z)
    d = fnp.diagonal(r, axis1=-2, axis2=-1)
    x = fnp.astype(q * fnp.expand_dims(fnp.sign(d), -2), dtype)
    return fnp.swapaxes(x, -1, -2) if n < m else x


def _standard(where: str, key: Any, shape: Any, dtype: Any) -> tuple[Any, tuple, numpy.dtype]:
    return _check_key(where, key), _shape(where, shape), _float_dtype(where, dtype)


def exponential(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Exponential values of rate 1, ``-log1p(-u)``: JAX's ``jax.random.exponential``.

    Example:
        >>> import ftransforms as ft
        >>> bool((ft.random.exponential(ft.random.key(0), (5,)) >= 0).all())
        True
    """
    key, shape, dtype = _standard("exponential", key, shape, dtype)
    return -fnp.log1p(-_uniform(key, shape, dtype, 0.0, 1.0))


def laplace(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Laplace values of scale 1: JAX's ``jax.random.laplace``.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.laplace(ft.random.key(0), (2, 3)).shape
        (2, 3)
    """
    key, shape, dtype = _standard("laplace", key, shape, dtype)
    minval = -1.0 + float(numpy.finfo(dtype).epsneg)
    u = _uniform(key, shape, dtype, minval, 1.0)
    return fnp.sign(u) * fnp.log1p(-fnp.abs(u))


def logistic(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Logistic values, ``log(u) - log1p(-u)``: JAX's ``jax.random.logistic``.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.logistic(ft.random.key(0), (4,)).dtype
        dtype('float64')
    """
    key, shape, dtype = _standard("logistic", key, shape, dtype)
    x = _uniform(key, shape, dtype, float(numpy.finfo(dtype).tiny), 1.0)
    return fnp.log(x) - fnp.log1p(-x)


def cauchy(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Standard Cauchy values, ``tan(pi * (u - 1/2))``: JAX's ``jax.random.cauchy``.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.cauchy(ft.random.key(0), (3,)).shape
        (3,)
    """
    key, shape, dtype = _standard("cauchy", key, shape, dtype)
    u = _uniform(key, shape, dtype, float(numpy.finfo(dtype).eps), 1.0)
    return fnp.tan(dtype.type(math.pi) * (u - dtype.type(0.5)))


def gumbel(key: Any, shape: Any = (), dtype: Any = None, mode: str | None = None) -> Any:
    """Standard Gumbel values, ``-log(-log(u))``: JAX's ``jax.random.gumbel`` (``mode``
    ``"low"``, its default, or ``"high"``, which resolves values near the top too).

    Example:
        >>> import ftransforms as ft
        >>> ft.random.gumbel(ft.random.key(0), (3,)).shape
        (3,)
    """
    key, shape, dtype = _standard("gumbel", key, shape, dtype)
    return _gumbel(key, shape, dtype, _gumbel_mode(mode, dtype))


def _gumbel_mode(mode: str | None, dtype: numpy.dtype) -> str:
    mode = "low" if mode is None else mode
    if mode == "highest" and dtype != numpy.float32:
        mode = "high"  # JAX's "highest" is "high" except for float32
    if mode == "highest":
        raise UnsupportedOperationError(
            "random.gumbel(key, shape, dtype, mode='highest'): the float32 'highest' mode is "
            "not implemented; use mode='high'"
        )
    if mode not in ("low", "high"):
        raise PRNGKeyError(f"random.gumbel: mode must be 'low' or 'high', got {mode!r}")
    return mode


def _gumbel(key: Any, shape: tuple, dtype: numpy.dtype, mode: str) -> Any:
    info = numpy.finfo(dtype)
    if mode == "high":
        both = _uniform(key, (2, *shape), dtype, 0.0, 1.0)
        high, low = both[0], both[1]
        x = fnp.where(
            high >= 0.5, high, high + dtype.type(2.0**-info.nmant) * low + dtype.type(info.tiny)
        )
        return -fnp.log(-fnp.log1p(-x))
    return -fnp.log(-fnp.log(_uniform(key, shape, dtype, float(info.tiny), 1.0)))


# -- discrete samplers -----------------------------------------------------------------------


def bernoulli(key: Any, p: Any = 0.5, shape: Any = None, mode: str = "low") -> Any:
    """Booleans that are ``True`` with probability ``p``: JAX's ``jax.random.bernoulli``.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.bernoulli(ft.random.key(0), 0.5, (5,)).tolist()
        [True, True, False, False, False]
    """
    key = _check_key("bernoulli", key)
    if mode not in ("low", "high"):
        raise PRNGKeyError(f"random.bernoulli: mode must be 'low' or 'high', got {mode!r}")
    dtype = numpy.dtype(numpy.float64) if isinstance(p, float) else numpy.dtype(fnp.result_type(p))
    if dtype.kind != "f":
        raise PRNGKeyError(
            f"random.bernoulli(key, p): p must be a float, got dtype {dtype}; pass e.g. 0.5"
        )
    shape = tuple(fnp.shape(p)) if shape is None else _shape("bernoulli", shape)
    _check_param_shape("bernoulli", shape, p)
    p = _as(p, dtype)
    if mode == "high":
        both = _uniform(key, (2, *shape), dtype, 0.0, 1.0)
        u1, u2 = both[0], both[1] * dtype.type(2.0 ** -numpy.finfo(dtype).nmant)
        return u2 < p - u1
    return _uniform(key, shape, dtype, 0.0, 1.0) < p


def rademacher(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Values -1 or 1 with equal probability, of an integer ``dtype`` (default ``int64``):
    JAX's ``jax.random.rademacher``.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.rademacher(ft.random.key(0), (5,)).tolist()
        [1, 1, -1, -1, -1]
    """
    key = _check_key("rademacher", key)
    dtype = numpy.dtype(numpy.int64 if dtype is None else dtype)
    b = bernoulli(key, 0.5, _shape("rademacher", shape)).astype(dtype)
    return (dtype.type(2) * b - dtype.type(1)).astype(dtype)


def _clip_to(value: Any, dtype: numpy.dtype) -> Any:
    """An integer ``value`` clipped into ``dtype``'s range, then cast (JAX's
    ``_convert_and_clip_integer``)."""
    value = fnp.asarray(value)
    if value.dtype.kind not in "iu":
        value = value.astype(numpy.int64)
    lo = max(int(numpy.iinfo(dtype).min), int(numpy.iinfo(value.dtype).min))
    hi = min(int(numpy.iinfo(dtype).max), int(numpy.iinfo(value.dtype).max))
    return fnp.clip(value, value.dtype.type(lo), value.dtype.type(hi)).astype(dtype)


def randint(key: Any, shape: Any, minval: Any, maxval: Any, dtype: Any = None) -> Any:
    """Integers in ``[minval, maxval)`` of ``shape`` and an integer ``dtype`` (default
    ``int64``): JAX's ``jax.random.randint``, bit for bit.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.randint(ft.random.key(0), (6,), 0, 10).tolist()
        [5, 1, 5, 7, 3, 5]
    """
    key = _check_key("randint", key)
    shape = _shape("randint", shape)
    dtype = numpy.dtype(numpy.int64 if dtype is None else dtype)
    if dtype.kind not in "iu":
        raise PRNGKeyError(
            f"random.randint(key, shape, minval, maxval, dtype): dtype must be an integer "
            f"dtype, got {dtype}; pass e.g. numpy.int32"
        )
    _check_param_shape("randint", shape, minval, maxval)
    final = dtype
    info = numpy.iinfo(dtype)
    if info.bits < 32:
        dtype = numpy.dtype(numpy.int32)
        minval = fnp.clip(fnp.asarray(minval).astype(dtype), int(info.min), int(info.max))
        maxval = fnp.clip(fnp.asarray(maxval).astype(dtype), int(info.min), int(info.max) + 1)
    with numpy.errstate(over="ignore"):
        out = _randint(key, shape, minval, maxval, dtype)
    return out.astype(final)


def _randint(key: Any, shape: tuple, minval: Any, maxval: Any, dtype: numpy.dtype) -> Any:
    minval, maxval = fnp.asarray(minval), fnp.asarray(maxval)
    if minval.dtype.kind not in "iu":
        minval = minval.astype(numpy.int64)
    if maxval.dtype.kind not in "iu":
        maxval = maxval.astype(numpy.int64)
    top = int(numpy.iinfo(dtype).max)
    top_in_max = min(top, int(numpy.iinfo(maxval.dtype).max))
    maxval_out_of_range = maxval > maxval.dtype.type(top_in_max)
    minval, maxval = _clip_to(minval, dtype), _clip_to(maxval, dtype)
    nbits = numpy.iinfo(dtype).bits
    uint = _UINT[nbits]
    k1, k2 = split(key)
    higher, lower = _random_bits(k1, nbits, shape), _random_bits(k2, nbits, shape)
    span = (maxval - minval).astype(uint)
    span = fnp.where(maxval <= minval, uint(1), span)
    span = fnp.where(maxval_out_of_range & (maxval > minval), span + uint(1), span)
    multiplier = fnp.remainder(uint(2 ** (nbits // 2)), span)
    multiplier = fnp.remainder(multiplier * multiplier, span)
    # scalar bounds as NumPy scalars, which combine with the bits of a key on any backend
    minval, span, multiplier = (_scalar(v) for v in (minval, span, multiplier))
    offset = fnp.remainder(higher, span) * multiplier + fnp.remainder(lower, span)
    offset = fnp.remainder(offset, span)
    return minval + offset.astype(dtype)


def _scalar(value: Any) -> Any:
    """A 0-d NumPy array as a NumPy scalar; anything else as it is."""
    return value[()] if type(value) is numpy.ndarray and value.ndim == 0 else value


def _sort_key_val(sort_keys: Any, x: Any, axis: int) -> Any:
    order = fnp.argsort(sort_keys, axis=axis, kind="stable")
    return fnp.take_along_axis(x, order, axis=axis)


def _shuffle(key: Any, x: Any, axis: int) -> Any:
    size = math.prod(fnp.shape(x))
    rounds = math.ceil(3 * math.log(max(1, size)) / math.log(numpy.iinfo(numpy.uint32).max))
    for _ in range(rounds):
        key, sub = split(key)
        x = _sort_key_val(_random_bits(sub, 32, tuple(fnp.shape(x))), x, axis)
    return x


def _axis(where: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise PRNGKeyError(f"random.{where}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> Any:
    """A random permutation of ``range(x)`` (an int) or of ``x`` along ``axis`` (every slice
    on its own with ``independent=True``): JAX's ``jax.random.permutation``, bit for bit.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.permutation(ft.random.key(0), 6).tolist()
        [0, 1, 5, 4, 3, 2]
    """
    key = _check_key("permutation", key)
    if fnp.ndim(x) == 0:
        dt = getattr(x, "dtype", None)
        if isinstance(x, float) or (dt is not None and numpy.dtype(dt).kind not in "iu"):
            raise PRNGKeyError(
                f"random.permutation(key, x): x must be an integer or an array of at least one "
                f"dimension, got {x!r}"
            )
        return _shuffle(key, numpy.arange(int(x)), 0)
    x = fnp.asarray(x)
    axis = _axis("permutation", axis, x.ndim)
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, numpy.arange(x.shape[axis]), 0)
    return fnp.take(x, ind, axis=axis)


def _top_k_indices(values: Any, k: int) -> Any:
    """The indices of the ``k`` largest entries along the last axis, the first one first
    among ties (``lax.top_k``'s)."""
    return fnp.argsort(-values, axis=-1, kind="stable")[..., :k]


def choice(
    key: Any,
    a: Any,
    shape: Sequence[int] = (),
    replace: bool = True,
    p: Any = None,
    axis: int = 0,
    mode: str | None = None,
) -> Any:
    """Random entries of ``a`` (or of ``range(a)`` for an int) along ``axis``, with or without
    replacement, uniform or with probabilities ``p``: JAX's ``jax.random.choice``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> ft.random.choice(ft.random.key(0), np.array([10, 20, 30]), (4,)).tolist()
        [10, 30, 30, 30]
    """
    key = _check_key("choice", key)
    if not isinstance(shape, Sequence):
        raise PRNGKeyError(
            f"random.choice(key, a, shape): shape must be a sequence, got {shape!r}; pass e.g. (3,)"
        )
    shape = _shape("choice", shape)
    arr = fnp.asarray(a)
    if arr.ndim == 0:
        n = int(a)
    else:
        axis = _axis("choice", axis, arr.ndim)
        n = arr.shape[axis]
    draws = math.prod(shape)
    if draws == 0:
        return fnp.zeros(shape, dtype=arr.dtype)
    if n <= 0:
        raise PRNGKeyError("random.choice: a must be greater than 0 unless no samples are taken")
    if not replace and draws > n:
        raise PRNGKeyError(
            f"random.choice: cannot take a larger sample (size {draws}) than the population "
            f"(size {n}) with replace=False"
        )
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n)
            result = ind if arr.ndim == 0 else fnp.take(arr, ind, axis=axis)
        else:
            taken = permutation(key, n if arr.ndim == 0 else arr, axis)
            result = taken[(slice(None),) * (0 if arr.ndim == 0 else axis) + (slice(draws),)]
    else:
        p = fnp.asarray(p)
        if p.dtype.kind not in "fc":
            p = p.astype(numpy.float64)
        if tuple(p.shape) != (n,):
            raise PRNGKeyError(
                f"random.choice: p must be None or a 1-d vector of a.shape[axis] = {n} "
                f"entries, got shape {tuple(p.shape)}"
            )
        if replace:
            cum = fnp.cumsum(p)
            r = cum[-1] * (1 - _uniform(key, shape, cum.dtype, 0.0, 1.0))
            ind = fnp.searchsorted(cum, r).astype(numpy.int64)
        else:
            g = _gumbel(key, (n,), p.dtype, _gumbel_mode(mode, p.dtype)) + fnp.log(p)
            ind = _top_k_indices(g, draws).astype(numpy.int64)
        result = ind if arr.ndim == 0 else fnp.take(arr, ind, axis=axis)
    out_shape = shape if arr.ndim == 0 else (*arr.shape[:axis], *shape, *arr.shape[axis + 1 :])
    return fnp.reshape(result, out_shape)


def categorical(
    key: Any,
    logits: Any,
    axis: int = -1,
    shape: Any = None,
    replace: bool = True,
    mode: str | None = None,
) -> Any:
    """Category indices drawn with probabilities ``softmax(logits)`` along ``axis`` (the
    Gumbel-max trick): JAX's ``jax.random.categorical``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> logits = np.log(np.array([0.1, 0.2, 0.7]))
        >>> ft.random.categorical(ft.random.key(0), logits, shape=(6,)).tolist()
        [2, 2, 2, 1, 1, 2]
    """
    key = _check_key("categorical", key)
    logits = fnp.asarray(logits)
    if logits.dtype.kind != "f":
        logits = logits.astype(numpy.float64)
    ndim = logits.ndim
    axis = _axis("categorical", axis, ndim)
    batch_shape = tuple(d for i, d in enumerate(logits.shape) if i != axis)
    if shape is None:
        shape = batch_shape
    else:
        shape = _shape("categorical", shape)
        if shape[len(shape) - len(batch_shape) :] != batch_shape:
            raise PRNGKeyError(
                f"random.categorical: shape {shape} must end with the logits' batch shape "
                f"{batch_shape}"
            )
    prefix = shape[: len(shape) - len(batch_shape)]
    mode = _gumbel_mode(mode, logits.dtype)
    if replace:
        neg_axis = axis - ndim
        draw_shape = list(batch_shape)
        draw_shape.insert(axis, logits.shape[axis])
        g = _gumbel(key, (*prefix, *draw_shape), logits.dtype, mode)
        expanded = fnp.reshape(logits, (1,) * len(prefix) + tuple(logits.shape))
        return fnp.argmax(g + expanded, axis=neg_axis)
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise PRNGKeyError(
            f"random.categorical: the number of samples without replacement ({k}) cannot "
            f"exceed the number of categories ({logits.shape[axis]})"
        )
    perturbed = logits + _gumbel(key, tuple(logits.shape), logits.dtype, mode)
    ind = _top_k_indices(fnp.moveaxis(perturbed, axis, -1), k).astype(numpy.int32)  # top_k's
    ind = fnp.moveaxis(ind, -1, 0)
    return fnp.reshape(ind, shape)
