"""The rest of ``jax.random``'s samplers on JAX-style keys: ``gamma``, ``loggamma``,
``beta``, ``dirichlet``, ``chisquare``, ``t``, ``f``, ``poisson``, ``binomial``,
``multinomial``, ``geometric``, ``pareto``, ``rayleigh``, ``maxwell``,
``double_sided_maxwell``, ``weibull_min``, ``wald``, ``triangular``,
``generalized_normal``, ``ball`` and ``key_dtype`` (NOTE [random keys] in
``ftransforms/random_keys.py``).

Each one is JAX's algorithm on the same bits, so the same key gives JAX's numbers (to the
last bits of ``log``/``pow``; the float64 defaults of ``jax_enable_x64``).  The samplers
with a rejection loop (gamma and everything built on it, poisson, binomial) run the loop
on the host (NOTE [rejection samplers on the host] in ``ftransforms/random_rejection.py``);
the others are formulas of ``uniform``/``normal``/``exponential`` draws, so ``grad`` flows
through their parameters with the noise a constant.  ``gamma``'s derivative in its shape
``a`` is JAX's implicit reparameterisation: ``d sample / d a = -(dP/da) / pdf`` at the
sample, ``P`` the regularised incomplete gamma function, computed on the host
(``random_rejection.gamma_sample_derivative``); ``beta``,
``dirichlet``, ``chisquare``, ``t``, ``f`` and ``generalized_normal`` inherit it.

Example:
    >>> import ftransforms as ft
    >>> k = ft.random.key(0)
    >>> ft.random.gamma(k, 2.0, (3,)).shape
    (3,)
    >>> round(float(ft.grad(lambda a: ft.random.gamma(k, a))(2.0)), 6) > 0
    True
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.callbacks import pure_callback
from ftransforms.core.errors import PRNGKeyError, UnsupportedOperationError
from ftransforms.custom import custom_jvp
from ftransforms.numpy.helpers import xp_of
from ftransforms.random_keys import (
    _U32,
    _as,
    _check_impl,
    _check_key,
    _check_param_shape,
    _float_dtype,
    _shape,
    exponential,
    normal,
    rademacher,
    split,
    uniform,
)
from ftransforms.random_rejection import (
    binomial_draws,
    gamma_draws,
    gamma_sample_derivative,
    poisson_draws,
)
from ftransforms.shape_eval import ShapeDtypeStruct

__all__ = [
    "ball",
    "beta",
    "binomial",
    "chisquare",
    "dirichlet",
    "double_sided_maxwell",
    "f",
    "gamma",
    "generalized_normal",
    "geometric",
    "key_dtype",
    "loggamma",
    "maxwell",
    "multinomial",
    "pareto",
    "poisson",
    "rayleigh",
    "t",
    "triangular",
    "wald",
    "weibull_min",
]


def _out_shape(where: str, shape: Any, *params: Any) -> tuple[int, ...]:
    """``shape``, checked against the parameters, or their broadcast shape for ``None``."""
    if shape is None:
        try:
            return tuple(numpy.broadcast_shapes(*(tuple(fnp.shape(p)) for p in params)))
        except ValueError:
            shapes = ", ".join(str(tuple(fnp.shape(p))) for p in params)
            raise PRNGKeyError(
                f"random.{where}: the parameters' shapes {shapes} do not broadcast together; "
                f"give parameters of broadcastable shapes"
            ) from None
    shape = _shape(where, shape)
    _check_param_shape(where, shape, *params)
    return shape


def _param(key: Any, value: Any, dtype: numpy.dtype, shape: tuple) -> Any:
    """``value`` as ``dtype``, broadcast to ``shape``; a number (Python's or NumPy's, or a
    0-d NumPy array) is made on the key's backend first, so that the parameters of a
    sampler called with a CuPy key are CuPy arrays as its draws are."""
    value = _as(value, dtype)
    if isinstance(value, numpy.generic) or (type(value) is numpy.ndarray and value.ndim == 0):
        value = xp_of(key).asarray(value)
    return value if tuple(fnp.shape(value)) == shape else fnp.broadcast_to(value, shape)


def key_dtype(impl: Any = None) -> numpy.dtype:
    """The dtype of keys: ``uint32`` here, where a key is its raw words
    (``jax.random.key_dtype``; JAX's typed keys have a ``key<fry>`` dtype).

    Example:
        >>> import ftransforms as ft
        >>> ft.random.key_dtype() == ft.random.key(0).dtype
        True
    """
    _check_impl("key_dtype", impl)
    return _U32


# -- gamma and what is built on it -----------------------------------------------------------


def _draw_gamma(keys: Any, a: Any) -> Any:
    return gamma_draws(keys, a, False)


def _draw_loggamma(keys: Any, a: Any) -> Any:
    return gamma_draws(keys, a, True)


@custom_jvp
def _gamma_grad(a: Any, sample: Any) -> Any:
    """``d sample / d a`` of a standard gamma draw, holding its CDF value fixed:
    ``-(dP/da) / pdf`` at the sample (JAX's ``random_gamma_grad``), on the host."""
    out = ShapeDtypeStruct(tuple(fnp.shape(sample)), sample.dtype)
    return pure_callback(gamma_sample_derivative, out, a, sample, vmap_method="broadcast_all")


@_gamma_grad.defjvp
def _gamma_grad_jvp(primals: tuple, tangents: tuple) -> tuple:
    raise UnsupportedOperationError(
        "random.gamma(key, a): the second derivative of a gamma sample in a is not "
        "implemented; differentiate it once in a (vmap/jit of the gradient work)"
    )


@custom_jvp
def _gamma(key: Any, a: Any) -> Any:
    out = ShapeDtypeStruct(tuple(fnp.shape(a)), a.dtype)
    return pure_callback(_draw_gamma, out, key, a, vmap_method="broadcast_all")


@_gamma.defjvp
def _gamma_jvp(primals: tuple, tangents: tuple) -> tuple:
    key, a = primals
    sample = _gamma(key, a)
    return sample, tangents[1] * _gamma_grad(a, sample)


@custom_jvp
def _loggamma(key: Any, a: Any) -> Any:
    out = ShapeDtypeStruct(tuple(fnp.shape(a)), a.dtype)
    return pure_callback(_draw_loggamma, out, key, a, vmap_method="broadcast_all")


@_loggamma.defjvp
def _loggamma_jvp(primals: tuple, tangents: tuple) -> tuple:
    key, a = primals
    log_sample = _loggamma(key, a)
    # d log(x) = dx / x; a sample that underflowed to 0 counts as the smallest float
    sample = fnp.maximum(fnp.exp(log_sample), numpy.finfo(a.dtype).tiny)
    return log_sample, tangents[1] * (_gamma_grad(a, sample) / sample)


def _gamma_like(where: str, key: Any, a: Any, shape: Any, dtype: Any) -> tuple:
    key = _check_key(where, key)
    dtype = _float_dtype(where, dtype)
    shape = _out_shape(where, shape, a)
    return key, _param(key, a, dtype, shape)


def gamma(key: Any, a: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Standard gamma values of shape ``a`` (density ``x**(a-1) e**-x / Gamma(a)``):
    JAX's ``jax.random.gamma`` (Marsaglia and Tsang's method, JAX's draws); differentiable
    in ``a`` by implicit reparameterisation.  Divide by a rate (or multiply by a scale) for
    other gamma distributions.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = ft.random.gamma(ft.random.key(0), np.array([0.5, 3.0]), (1000, 2))
        >>> x.mean(0).round(1).tolist()
        [0.5, 3.0]
    """
    key, a = _gamma_like("gamma", key, a, shape, dtype)
    return _gamma(key, a)


def loggamma(key: Any, a: Any, shape: Any = None, dtype: Any = None) -> Any:
    """``log`` of standard gamma values, computed in log space (accurate where ``a`` is
    so small that the values underflow): JAX's ``jax.random.loggamma``; ``exp`` of it is
    :func:`gamma`'s draw for the same key.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> k = ft.random.key(1)
        >>> log_x, x = ft.random.loggamma(k, 2.0, (3,)), ft.random.gamma(k, 2.0, (3,))
        >>> bool(np.allclose(np.exp(log_x), x))
        True
    """
    key, a = _gamma_like("loggamma", key, a, shape, dtype)
    return _loggamma(key, a)


def beta(key: Any, a: Any, b: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Beta values (density proportional to ``x**(a-1) (1-x)**(b-1)`` on ``[0, 1]``), from
    two log-gamma draws: JAX's ``jax.random.beta``; differentiable in ``a`` and ``b``.

    Example:
        >>> import ftransforms as ft
        >>> x = ft.random.beta(ft.random.key(0), 2.0, 6.0, (2000,))
        >>> bool(abs(x.mean() - 0.25) < 0.02)  # the mean is a / (a + b)
        True
    """
    key = _check_key("beta", key)
    dtype = _float_dtype("beta", dtype)
    shape = _out_shape("beta", shape, a, b)
    a, b = _param(key, a, dtype, shape), _param(key, b, dtype, shape)
    key_a, key_b = split(key)
    log_a, log_b = _loggamma(key_a, a), _loggamma(key_b, b)
    log_max = fnp.maximum(log_a, log_b)
    scaled_a, scaled_b = fnp.exp(log_a - log_max), fnp.exp(log_b - log_max)
    return scaled_a / (scaled_a + scaled_b)


def dirichlet(key: Any, alpha: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Dirichlet vectors (on the simplex along the last axis of ``alpha``), normalised
    log-gamma draws: JAX's ``jax.random.dirichlet``; ``shape`` is the batch shape (the
    result has ``shape + alpha.shape[-1:]``); differentiable in ``alpha``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = ft.random.dirichlet(ft.random.key(0), np.array([1.0, 2.0, 3.0]), (4,))
        >>> x.shape, bool(np.allclose(x.sum(-1), 1.0))
        ((4, 3), True)
    """
    key = _check_key("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    if fnp.ndim(alpha) < 1:
        raise PRNGKeyError(
            f"random.dirichlet(key, alpha): alpha must have at least one dimension (the "
            f"categories), got shape {tuple(fnp.shape(alpha))}; pass e.g. np.ones(3)"
        )
    batch = tuple(fnp.shape(alpha))[:-1]
    if shape is None:
        shape = batch
    else:
        shape = _shape("dirichlet", shape)
        _check_param_shape("dirichlet", shape, numpy.empty(batch))
    full = (*shape, fnp.shape(alpha)[-1])
    log_g = _loggamma(key, _param(key, alpha, dtype, full))
    unnormalized = fnp.exp(log_g - fnp.stop_gradient(fnp.max(log_g, axis=-1, keepdims=True)))
    return unnormalized / fnp.sum(unnormalized, axis=-1, keepdims=True)


def chisquare(key: Any, df: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Chi-square values with ``df`` degrees of freedom (``2 * gamma(df / 2)``, through
    ``loggamma``): JAX's ``jax.random.chisquare``; differentiable in ``df``.

    Example:
        >>> import ftransforms as ft
        >>> round(float(ft.random.chisquare(ft.random.key(0), 4.0, (4000,)).mean()), 1)
        4.0
    """
    key = _check_key("chisquare", key)
    dtype = _float_dtype("chisquare", dtype)
    shape = _out_shape("chisquare", shape, df)
    return _chisquare(key, _as(df, dtype), shape)


def _chisquare(key: Any, df: Any, shape: tuple) -> Any:
    half_df = _param(key, df / df.dtype.type(2), df.dtype, shape)
    return fnp.exp(_loggamma(key, half_df)) * df.dtype.type(2)


def f(key: Any, dfnum: Any, dfden: Any, shape: Any = None, dtype: Any = None) -> Any:
    """F values with ``dfnum`` and ``dfden`` degrees of freedom, a ratio of chi-squares:
    JAX's ``jax.random.f``; differentiable in both.

    Example:
        >>> import ftransforms as ft
        >>> round(float(ft.random.f(ft.random.key(0), 5.0, 20.0, (4000,)).mean()), 1)
        1.1
    """
    key = _check_key("f", key)
    dtype = _float_dtype("f", dtype)
    shape = _out_shape("f", shape, dfnum, dfden)
    dfnum, dfden = _as(dfnum, dtype), _as(dfden, dtype)
    key_dfd, key_dfn = split(key)
    num = _chisquare(key_dfn, dfnum, shape) / dfnum
    den = _chisquare(key_dfd, dfden, shape) / dfden
    return num / den


def t(key: Any, df: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Student's t values with ``df`` degrees of freedom (``normal * sqrt(df/2 / gamma(df/2))``):
    JAX's ``jax.random.t``; differentiable in ``df``.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.t(ft.random.key(0), 3.0, (2, 2)).shape
        (2, 2)
    """
    key = _check_key("t", key)
    dtype = _float_dtype("t", dtype)
    shape = _out_shape("t", shape, df)
    df = _as(df, dtype)
    key_n, key_g = split(key)
    n = normal(key_n, shape, dtype)
    half_df = df / dtype.type(2)
    g = _gamma(key_g, _param(key, half_df, dtype, shape))
    return n * fnp.sqrt(half_df / g)


# -- poisson, binomial, multinomial (no derivative: their values are counts) -----------------


def _int_dtype(where: str, dtype: Any) -> numpy.dtype:
    dt = numpy.dtype(numpy.int64 if dtype is None else dtype)
    if dt.kind not in "iu":
        raise PRNGKeyError(
            f"random.{where}: dtype must be an integer dtype, got {dt}; pass e.g. numpy.int32"
        )
    return dt


class _PoissonCallback:
    """The host draw of one integer dtype (a class, so that equal dtypes compare equal
    in ``jit``'s recorded parameters)."""

    def __init__(self, dtype: numpy.dtype) -> None:
        self.dtype = dtype

    def __call__(self, keys: Any, lam: Any) -> Any:
        return poisson_draws(keys, lam, self.dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _PoissonCallback) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash((_PoissonCallback, self.dtype))


def poisson(key: Any, lam: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Poisson counts with rates ``lam`` (Knuth's method below 10, Hormann's transformed
    rejection above, on ``float32`` rates as JAX): JAX's ``jax.random.poisson``, integer
    ``dtype`` (default ``int64``); no derivative in ``lam``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = ft.random.poisson(ft.random.key(0), np.array([2.0, 50.0]), (3000, 2))
        >>> x.dtype, x.mean(0).round(0).tolist()
        (dtype('int64'), [2.0, 50.0])
    """
    key = _check_key("poisson", key)
    dtype = _int_dtype("poisson", dtype)
    shape = tuple(fnp.shape(lam)) if shape is None else _out_shape("poisson", shape, lam)
    lam = _param(key, fnp.stop_gradient(lam), numpy.dtype(numpy.float32), shape)
    out = ShapeDtypeStruct(shape, dtype)
    return pure_callback(_PoissonCallback(dtype), out, key, lam, vmap_method="broadcast_all")


def _inexact(value: Any) -> Any:
    """``value`` of a float dtype (an integer one becomes ``float64``; a Python number a
    NumPy scalar, usable with the keys of any backend)."""
    if isinstance(value, (int, float)):
        return numpy.float64(value)
    value = value if hasattr(value, "dtype") else fnp.asarray(value)
    return value if value.dtype.kind in "fc" else value.astype(numpy.float64)


def binomial(key: Any, n: Any, p: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Binomial counts of ``n`` trials with success probability ``p``, as floats of
    ``dtype`` (inversion by geometric jumps for ``n * min(p, 1-p) <= 10``, else the BTRS
    rejection): JAX's ``jax.random.binomial`` (nan for a negative or nan ``n`` or ``p``,
    inf for ``n = inf``); no derivative.

    Example:
        >>> import ftransforms as ft
        >>> x = ft.random.binomial(ft.random.key(0), 20.0, 0.3, (4000,))
        >>> round(float(x.mean()), 0)
        6.0
    """
    key = _check_key("binomial", key)
    dtype = _float_dtype("binomial", dtype)
    shape = _out_shape("binomial", shape, n, p)
    p = _inexact(fnp.stop_gradient(p))
    p = _param(key, p, p.dtype, shape)
    n = _param(key, fnp.stop_gradient(n), p.dtype, shape)
    out = ShapeDtypeStruct(shape, p.dtype)
    draws = pure_callback(binomial_draws, out, key, n, p, vmap_method="broadcast_all")
    return draws.astype(dtype)


def multinomial(
    key: Any, n: Any, p: Any, *, shape: Any = None, dtype: Any = None, unroll: Any = 1
) -> Any:
    """Counts of ``n`` draws over the categories of the last axis of ``p`` (binomial draws
    category by category on the remainder): JAX's ``jax.random.multinomial``.  ``shape``,
    like JAX's code, is the full result shape (categories last; ``p.shape`` by default);
    ``unroll`` is accepted for JAX's signature.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = ft.random.multinomial(ft.random.key(0), 10.0, np.array([0.2, 0.3, 0.5]))
        >>> float(x.sum())
        10.0
    """
    del unroll
    key = _check_key("multinomial", key)
    p = _inexact(fnp.stop_gradient(p))
    n = _inexact(fnp.stop_gradient(n))
    wide = numpy.result_type(n.dtype, p.dtype)
    n, p = n.astype(wide), p.astype(wide)
    if p.ndim < 1:
        raise PRNGKeyError(
            f"random.multinomial(key, n, p): p must have at least one dimension (the "
            f"categories), got shape {tuple(fnp.shape(p))}"
        )
    shape = tuple(fnp.shape(p)) if shape is None else _shape("multinomial", shape)
    _check_param_shape("multinomial", shape, p)
    _check_param_shape("multinomial", shape[:-1], n)
    remainder = _param(key, n, wide, shape[:-1])
    p = fnp.moveaxis(_param(key, p, wide, shape), -1, 0)
    remaining = fnp.flip(fnp.cumsum(fnp.flip(p, 0), 0), 0)
    ratios = p / fnp.where(remaining == 0, wide.type(1), remaining)
    keys = split(key, shape[-1])
    counts = []
    for i in range(shape[-1]):
        count = binomial(keys[i], remainder, fnp.clip(ratios[i], 0, 1), dtype=wide)
        remainder = remainder - count
        counts.append(count)
    out = fnp.stack(counts, axis=-1)
    return out.astype(numpy.float64 if dtype is None else dtype)


# -- closed-form samplers: formulas of uniform, normal and exponential draws -----------------


def geometric(key: Any, p: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Geometric counts (trials up to the first success, from 1) with success probability
    ``p``: JAX's ``jax.random.geometric``, integer ``dtype`` (default ``int64``).

    Example:
        >>> import ftransforms as ft
        >>> x = ft.random.geometric(ft.random.key(0), 0.25, (4000,))
        >>> int(x.min()), round(float(x.mean()), 0)  # mean 1 / p
        (1, 4.0)
    """
    key = _check_key("geometric", key)
    dtype = _int_dtype("geometric", dtype)
    shape = _out_shape("geometric", shape, p)
    p = _inexact(p)
    u = uniform(key, shape, p.dtype)
    u = fnp.where(u == 0, p.dtype.type(1), u)
    log_one_minus_p = fnp.log1p(-p)  # (broadcast by the division)
    return (fnp.floor(fnp.log(u) / log_one_minus_p) + p.dtype.type(1)).astype(dtype)


def pareto(key: Any, b: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Pareto values of shape ``b`` (support ``[1, inf)``), ``exp(exponential / b)``:
    JAX's ``jax.random.pareto``; differentiable in ``b``.

    Example:
        >>> import ftransforms as ft
        >>> float(ft.random.pareto(ft.random.key(0), 3.0, (1000,)).min()) >= 1.0
        True
    """
    key = _check_key("pareto", key)
    dtype = _float_dtype("pareto", dtype)
    shape = _out_shape("pareto", shape, b)
    return fnp.exp(exponential(key, shape, dtype) / _as(b, dtype))


def rayleigh(key: Any, scale: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Rayleigh values, ``scale * sqrt(-2 log u)``: JAX's ``jax.random.rayleigh``;
    differentiable in ``scale``.

    Example:
        >>> import ftransforms as ft
        >>> x = ft.random.rayleigh(ft.random.key(0), 2.0, (4000,))
        >>> round(float(x.mean()), 1)  # scale * sqrt(pi / 2)
        2.5
    """
    key = _check_key("rayleigh", key)
    dtype = _float_dtype("rayleigh", dtype)
    shape = _out_shape("rayleigh", shape, scale)
    u = uniform(key, shape, dtype)
    return _param(key, scale, dtype, shape) * fnp.sqrt(fnp.log(u) * dtype.type(-2))


def maxwell(key: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Maxwell values (the length of a standard normal 3-vector): JAX's
    ``jax.random.maxwell``.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.maxwell(ft.random.key(0), (2, 3)).shape
        (2, 3)
    """
    key = _check_key("maxwell", key)
    dtype = _float_dtype("maxwell", dtype)
    z = normal(key, (*_shape("maxwell", shape), 3), dtype)
    return fnp.sqrt(fnp.sum(z * z, axis=-1))


def double_sided_maxwell(key: Any, loc: Any, scale: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Maxwell values with a random sign, ``sign * maxwell * scale + loc``: JAX's
    ``jax.random.double_sided_maxwell``.  As in JAX, the result has shape
    ``shape + broadcast(loc, scale).shape`` (``shape`` empty: the parameters' shape,
    twice).  Differentiable in ``loc`` and ``scale``.

    Example:
        >>> import ftransforms as ft
        >>> ft.random.double_sided_maxwell(ft.random.key(0), 0.0, 1.0, (5,)).shape
        (5,)
    """
    key = _check_key("double_sided_maxwell", key)
    dtype = _float_dtype("double_sided_maxwell", dtype)
    params = tuple(numpy.broadcast_shapes(tuple(fnp.shape(loc)), tuple(fnp.shape(scale))))
    shape = _shape("double_sided_maxwell", shape) or params
    shape = (*shape, *params)
    maxwell_key, sign_key = split(key)
    magnitude = maxwell(maxwell_key, shape, dtype)
    sign = rademacher(sign_key, shape, dtype)
    return sign * magnitude * _as(scale, dtype) + _as(loc, dtype)


def weibull_min(
    key: Any, scale: Any, concentration: Any, shape: Any = (), dtype: Any = None
) -> Any:
    """Weibull values, ``(-log1p(-u)) ** (1 / concentration) * scale``: JAX's
    ``jax.random.weibull_min``; differentiable in both parameters.

    Example:
        >>> import ftransforms as ft
        >>> x = ft.random.weibull_min(ft.random.key(0), 1.0, 1.0, (4000,))  # exponential
        >>> round(float(x.mean()), 1)
        1.0
    """
    key = _check_key("weibull_min", key)
    dtype = _float_dtype("weibull_min", dtype)
    u = uniform(key, _shape("weibull_min", shape), dtype)
    concentration = _as(concentration, dtype)
    return fnp.power(-fnp.log1p(-u), dtype.type(1) / concentration) * _as(scale, dtype)


def wald(key: Any, mean: Any, shape: Any = None, dtype: Any = None) -> Any:
    """Wald (inverse Gaussian) values of ``mean`` and unit shape, Michael, Schucany and
    Haas's transformation: JAX's ``jax.random.wald``; differentiable in ``mean``.

    Example:
        >>> import ftransforms as ft
        >>> round(float(ft.random.wald(ft.random.key(0), 2.0, (4000,)).mean()), 0)
        2.0
    """
    key = _check_key("wald", key)
    dtype = _float_dtype("wald", dtype)
    shape = _out_shape("wald", shape, mean)
    k1, k2 = split(key)
    mean = _param(key, mean, dtype, shape)
    v = normal(k1, shape, dtype)
    z = uniform(k2, shape, dtype)
    y = v * v
    mean_sq = mean * mean
    sqrt_term = fnp.sqrt(dtype.type(4) * mean * y + mean_sq * (y * y))
    half = dtype.type(2)
    x = mean + mean_sq * y / half - mean / half * sqrt_term
    return fnp.where(z <= mean / (mean + x), x, mean_sq / x)


def triangular(
    key: Any, left: Any, mode: Any, right: Any, shape: Any = None, dtype: Any = None
) -> Any:
    """Triangular values on ``[left, right]`` with peak at ``mode`` (the inverse CDF):
    JAX's ``jax.random.triangular``; differentiable in the three parameters.

    Example:
        >>> import ftransforms as ft
        >>> x = ft.random.triangular(ft.random.key(0), 0.0, 1.0, 3.0, (4000,))
        >>> round(float(x.mean()), 1)  # (left + mode + right) / 3
        1.3
    """
    key = _check_key("triangular", key)
    dtype = _float_dtype("triangular", dtype)
    shape = _out_shape("triangular", shape, left, mode, right)
    left, mode, right = (_param(key, v, dtype, shape) for v in (left, mode, right))
    fc = (mode - left) / (right - left)
    u = uniform(key, shape, dtype)
    low = left + fnp.sqrt(u * (right - left) * (mode - left))
    high = right - fnp.sqrt((dtype.type(1) - u) * (right - left) * (right - mode))
    return fnp.where(u < fc, low, high)


def generalized_normal(key: Any, p: Any, shape: Any = (), dtype: Any = None) -> Any:
    """Values of density proportional to ``exp(-|x|**p)`` (``p = 2``: a normal of variance
    1/2, ``p = 1``: Laplace), a signed ``gamma(1/p) ** (1/p)``: JAX's
    ``jax.random.generalized_normal``; differentiable in ``p``.

    Example:
        >>> import ftransforms as ft
        >>> x = ft.random.generalized_normal(ft.random.key(0), 2.0, (4000,))
        >>> round(float(x.var()), 1)
        0.5
    """
    key = _check_key("generalized_normal", key)
    dtype = _float_dtype("generalized_normal", dtype)
    shape = _shape("generalized_normal", shape)
    if fnp.ndim(p) != 0:
        raise PRNGKeyError(
            f"random.generalized_normal(key, p): p must be a scalar, got shape "
            f"{tuple(fnp.shape(p))}; map over it with ft.vmap"
        )
    p = _as(p, dtype)
    inv_p = dtype.type(1) / p
    key_g, key_r = split(key)
    g = _gamma(key_g, _param(key, inv_p, dtype, shape))
    r = rademacher(key_r, shape, dtype)
    return r * g**inv_p


def ball(key: Any, d: int, p: Any = 2, shape: Any = (), dtype: Any = None) -> Any:
    """Points drawn uniformly from the unit ``p``-norm ball in ``d`` dimensions (shape
    ``shape + (d,)``; Barthe, Guedon, Mendelson and Naor's method): JAX's
    ``jax.random.ball``.

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> x = ft.random.ball(ft.random.key(0), 3, shape=(100,))
        >>> x.shape, bool((np.linalg.norm(x, axis=-1) <= 1).all())
        ((100, 3), True)
    """
    key = _check_key("ball", key)
    dtype = _float_dtype("ball", dtype)
    shape = _shape("ball", shape)
    try:
        d = operator.index(d)
    except TypeError:
        raise PRNGKeyError(
            f"random.ball(key, d): d must be a concrete integer (the dimension), got {d!r}"
        ) from None
    k1, k2 = split(key)
    g = generalized_normal(k1, p, (*shape, d), dtype)
    e = exponential(k2, shape, dtype)
    p = _as(p, dtype)
    norm = (fnp.sum(fnp.abs(g) ** p, axis=-1) + e) ** (dtype.type(1) / p)
    return g / norm[..., None]
