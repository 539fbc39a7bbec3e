"""The rejection loops behind the key samplers ``gamma``/``loggamma``, ``poisson`` and
``binomial``, on host NumPy arrays: JAX's algorithms, draw for draw; and gamma's
reparameterisation derivative (:func:`gamma_sample_derivative`).

NOTE [rejection samplers on the host]
-------------------------------------
These samplers loop until every element is accepted, so how many draws they take depends
on the values drawn.  Written with traced operations, every transform would have to follow
a data-dependent loop; instead each sampler is one ``pure_callback`` (``vmap_method=
"broadcast_all"``) whose callback is a function here: it gets the keys' words with the
batch axes of any ``vmap`` in front (``(*batch, 2)``) and the parameters broadcast to
``(*batch, *shape)``, and runs JAX's loop vectorised over all of them (a ``vmap`` over keys
is the loop over keys, row by row the draws of an unbatched call).  ``jit`` records the
callback and calls it again on every replay; derivatives come from ``custom_jvp`` in
``ftransforms/random_distributions.py`` (gamma's implicit reparameterisation); poisson and
binomial have none, as in JAX.

The draws are JAX's: the same key splits (``threefry2x32``), the same ``uniform``/
``normal`` transformation of the bits (``ftransforms/random_keys.py``), the same
acceptance tests in the same floating-point order.  A loop element that JAX keeps updating
after it was accepted (poisson's and binomial's transformed rejection overwrite an
accepted value while other elements of the same call are still looping) is updated here
too, for exactly as long as its own call (its row under ``vmap``) loops.  Remaining
differences are the last bits of ``log``/``pow``/``lgamma``, which can flip an acceptance
test in rare draws.

Example:
    >>> import numpy as np
    >>> import ftransforms  # declares the primitives
    >>> from ftransforms.random_rejection import gamma_draws
    >>> gamma_draws(np.array([0, 0], np.uint32), np.array([1.0, 3.0]), False).shape
    (2,)
"""

from __future__ import annotations

import math
from typing import Any

import numpy
import scipy.special

from ftransforms.ops.prng import threefry2x32_p
from ftransforms.random_keys import _normal_real, _uniform

__all__ = ["binomial_draws", "gamma_draws", "gamma_sample_derivative", "poisson_draws"]

_U32 = numpy.uint32


def _words(keys: Any) -> numpy.ndarray:
    """``(*batch, 2)`` keys as ``(2, *batch)`` words."""
    return numpy.moveaxis(numpy.asarray(keys, _U32), -1, 0)


def _split(k: numpy.ndarray, num: int) -> list[numpy.ndarray]:
    """``split(key, num)`` for words ``k`` of shape ``(2, *batch)``: ``num`` such arrays."""
    out = []
    for i in range(num):
        y1, y2 = threefry2x32_p(k[0], k[1], _U32(0), _U32(i))
        out.append(numpy.stack([numpy.asarray(y1), numpy.asarray(y2)]))
    return out


def _per_row(k: numpy.ndarray, ndim: int) -> numpy.ndarray:
    """Words ``(2, *batch)`` with ``ndim`` trailing axes of size 1, so that a draw of a
    shape of ``ndim`` axes from them is every batch row's draw of that shape."""
    return k.reshape(k.shape + (1,) * ndim)


def _uniform_rows(k: numpy.ndarray, shape: tuple, dtype: numpy.dtype) -> numpy.ndarray:
    return numpy.asarray(_uniform(_per_row(k, len(shape)), shape, dtype, 0.0, 1.0))


def _uniform_at(k: numpy.ndarray, index: numpy.ndarray, dtype: numpy.dtype) -> numpy.ndarray:
    """The entries at the row-major positions ``index`` of ``uniform(key, shape, dtype)``
    (``minval=0``, ``maxval=1``), for words ``k`` of shape ``(2, len(index))``, one key per
    entry: the counter of an entry is its position, so a loop that still needs a few
    entries hashes only those."""
    index = index.astype(numpy.uint64)
    hi = (index >> numpy.uint64(32)).astype(_U32)
    lo = (index & numpy.uint64(0xFFFFFFFF)).astype(_U32)
    b1, b2 = (numpy.asarray(b) for b in threefry2x32_p(k[0], k[1], hi, lo))
    info = numpy.finfo(dtype)
    width = dtype.itemsize * 8
    if width == 64:
        bits = (b1.astype(numpy.uint64) << numpy.uint64(32)) | b2.astype(numpy.uint64)
    else:
        bits = (b1 ^ b2).astype(numpy.dtype(f"uint{width}"))
    mantissa = bits >> bits.dtype.type(width - info.nmant)
    return mantissa.astype(dtype) * dtype.type(2.0**-info.nmant)


class _Rows:
    """The state of a loop that runs, as JAX's ``while_loop`` under ``vmap``, per batch row
    until none of the row's entries is live: the rows' keys, and the live entries as flat
    positions in ``(*batch, *shape)``."""

    def __init__(self, k: numpy.ndarray, size: int, live: numpy.ndarray) -> None:
        self.keys = k.reshape(2, -1).copy()
        self.size = size  # entries per row
        self.live = live

    def draw(self, dtype: numpy.dtype, subkey_first: bool) -> numpy.ndarray:
        """Advance the key of every row that has a live entry (``key, sub = split(key)``,
        or ``sub, key = split(key)``) and return the live entries' uniform draws."""
        rows = self.live // self.size
        present = numpy.zeros(self.keys.shape[1], bool)
        present[rows] = True
        looping = numpy.flatnonzero(present)
        where = (numpy.cumsum(present) - 1)[rows]  # each live entry's row among ``looping``
        first, second = _split(self.keys[:, looping], 2)
        sub, nxt = (first, second) if subkey_first else (second, first)
        self.keys[:, looping] = nxt
        return _uniform_at(sub[:, where], self.live % self.size, dtype)


# -- gamma: Marsaglia and Tsang, one key per element ------------------------------------------


def gamma_draws(keys: Any, a: Any, log_space: bool) -> numpy.ndarray:
    """Standard gamma draws of shape ``a`` (``log`` of them with ``log_space``) from keys of
    shape ``(*batch, 2)``, ``a`` of shape ``(*batch, *shape)``: every batch row's key is split
    into one key per element, each element runs JAX's ``_gamma_one``."""
    k = _words(keys)
    a = numpy.asarray(a)
    batch = k.shape[1:]
    size = math.prod(a.shape[len(batch) :])
    counters = numpy.arange(size, dtype=_U32)
    y1, y2 = threefry2x32_p(k[0][..., None], k[1][..., None], _U32(0), counters)
    flat = numpy.stack([numpy.asarray(y1).reshape(-1), numpy.asarray(y2).reshape(-1)])
    with numpy.errstate(all="ignore"):
        out = _gamma_one(flat, a.reshape(-1), log_space)
    return out.reshape(a.shape)


def _gamma_again(x2, v3, u, d, dt):
    """Marsaglia-Tsang's acceptance test, negated (where the loop draws again), for
    ``x2 = x**2``, ``v3 = (1 + c x)**3`` and ``u`` uniform."""
    squeeze = u >= dt(1) - dt(0.0331) * (x2 * x2)
    return squeeze & (numpy.log(u) >= x2 * dt(0.5) + d * ((dt(1) - v3) + numpy.log(v3)))


def _gamma_one(k: numpy.ndarray, alpha: numpy.ndarray, log_space: bool) -> numpy.ndarray:
    dtype = alpha.dtype
    dt = dtype.type
    boost_mask = alpha >= dt(1)
    boosted = numpy.where(boost_mask, alpha, alpha + dt(1))
    d = boosted - dt(1.0 / 3.0)
    c = dt(1.0 / 3.0) / numpy.sqrt(d)
    key, subkey = _split(k, 2)
    n = alpha.shape[0]
    x2, v3, u = numpy.zeros(n, dtype), numpy.ones(n, dtype), numpy.full(n, 2, dtype)
    active = numpy.flatnonzero(_gamma_again(x2, v3, u, d, dt))
    while active.size:
        key_next, x_key, u_key = _split(key[:, active], 3)
        x, v = _normal_until_positive(x_key, c[active], dtype)
        x2[active], v3[active] = x * x, v * v * v
        u[active] = _uniform_rows(u_key, (), dtype)
        key[:, active] = key_next
        again = _gamma_again(x2[active], v3[active], u[active], d[active], dt)
        active = active[again]
    inv_alpha = dt(1) / alpha
    if log_space:
        log_u = numpy.log1p(-_uniform_rows(subkey, (), dtype))  # -exponential(subkey)
        log_boost = numpy.where(boost_mask | (log_u == 0), dt(0), log_u * inv_alpha)
        return numpy.log(d) + numpy.log(v3) + log_boost
    samples = dt(1) - _uniform_rows(subkey, (), dtype)
    boost = numpy.where(boost_mask, dt(1), samples**inv_alpha)
    return d * v3 * boost


def _normal_until_positive(x_key: numpy.ndarray, c: numpy.ndarray, dtype) -> tuple:
    """``x`` normal and ``v = 1 + c x``, drawn again (from the next split) while ``v <= 0``."""
    n = c.shape[0]
    x, v = numpy.zeros(n, dtype), numpy.full(n, -1, dtype)
    todo = numpy.arange(n)
    while todo.size:
        x_key[:, todo], sub = _split(x_key[:, todo], 2)
        x[todo] = numpy.asarray(_normal_real(sub, (), dtype))
        v[todo] = dtype.type(1) + x[todo] * c[todo]
        todo = todo[v[todo] <= 0]
    return x, v


# -- poisson: Knuth's product of uniforms (lam < 10), Hormann's transformed rejection ----------


def poisson_draws(keys: Any, lam: Any, dtype: Any) -> numpy.ndarray:
    """Poisson draws of integer ``dtype`` from keys ``(*batch, 2)`` and ``float32`` rates
    ``lam`` of shape ``(*batch, *shape)`` (one key per row, as JAX's ``_poisson``)."""
    k = _words(keys)
    lam = numpy.asarray(lam)
    dtype = numpy.dtype(dtype)
    with numpy.errstate(all="ignore"):
        use_knuth = numpy.isnan(lam) | (lam < 10)
        knuth = _poisson_knuth(k, numpy.where(use_knuth, lam, lam.dtype.type(0)), dtype)
        lam_rej = numpy.where(use_knuth, lam.dtype.type(1e5), lam)
        rejection = _rows_needing(_poisson_rejection, ~use_knuth, k, lam_rej).astype(dtype)
    out = numpy.where(use_knuth, knuth, rejection)
    return numpy.where(lam == 0, dtype.type(0), out)


def _rows_needing(loop: Any, needed: numpy.ndarray, k: numpy.ndarray, *params: Any) -> Any:
    """``loop(k, *params)`` run on the batch rows with an entry ``needed`` only (the others'
    results are discarded by the caller: -1 there).  A row runs whole, its placeholder
    entries included, since they decide how long JAX's loop over the row goes on."""
    batch = k.shape[1:]
    rows = _rows_looping(needed, len(batch)).reshape(-1)
    out = numpy.full(params[0].shape, -1, params[0].dtype)
    size = math.prod(params[0].shape[len(batch) :])
    if not rows.any() or size == 0:
        return out
    flat = [p.reshape((-1, size))[rows] for p in params]
    keys = k.reshape(2, -1)[:, rows]
    out.reshape((-1, size))[rows] = loop(keys, *flat).reshape(-1, size)
    return out


def _rows_looping(flags: numpy.ndarray, nbatch: int) -> numpy.ndarray:
    """Per batch row: whether any element of the row still loops (JAX's ``.any()``)."""
    axes = tuple(range(nbatch, flags.ndim))
    return flags.any(axis=axes) if axes else flags


def _on_rows(rows: numpy.ndarray, ndim: int) -> numpy.ndarray:
    return rows.reshape(rows.shape + (1,) * ndim)


def _poisson_knuth(k: numpy.ndarray, lam: numpy.ndarray, dtype: numpy.dtype) -> numpy.ndarray:
    # log_prod only falls, so an entry once done stays done: only the live ones are drawn
    size = math.prod(lam.shape[k.ndim - 1 :])
    lam_flat = lam.reshape(-1)
    count = numpy.zeros(lam_flat.shape, dtype)
    log_prod = numpy.zeros(lam_flat.shape, numpy.float32)
    loop = _Rows(k, size, numpy.flatnonzero(log_prod > -lam_flat))
    while loop.live.size:
        live = loop.live
        count[live] += dtype.type(1)
        u = loop.draw(numpy.dtype(numpy.float32), subkey_first=False)
        log_prod[live] += numpy.log(u)
        loop.live = live[log_prod[live] > -lam_flat[live]]
    return (count - dtype.type(1)).reshape(lam.shape)


def _poisson_rejection(k: numpy.ndarray, lam: numpy.ndarray) -> numpy.ndarray:
    nbatch = k.ndim - 1
    shape = lam.shape[nbatch:]
    dt = lam.dtype.type
    log_lam = numpy.log(lam)
    b = dt(0.931) + dt(2.53) * numpy.sqrt(lam)
    a = dt(-0.059) + dt(0.02483) * b
    inv_alpha = dt(1.1239) + dt(1.1328) / (b - dt(3.4))
    v_r = dt(0.9277) - dt(3.6224) / (b - dt(2))
    k_out = numpy.full(lam.shape, -1, lam.dtype)
    accepted = numpy.zeros(lam.shape, bool)
    rows = _rows_looping(~accepted, nbatch)
    while rows.any():
        key_next, sub0, sub1 = _split(k, 3)
        u = _uniform_rows(sub0, shape, lam.dtype) - dt(0.5)
        v = _uniform_rows(sub1, shape, lam.dtype)
        u_shifted = dt(0.5) - numpy.abs(u)
        draw = numpy.floor((dt(2) * a / u_shifted + b) * u + lam + dt(0.43))
        s = numpy.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + draw * log_lam - scipy.special.gammaln(draw + dt(1)).astype(lam.dtype)
        accept1 = (u_shifted >= dt(0.07)) & (v <= v_r)
        reject = (draw < 0) | ((u_shifted < dt(0.013)) & (v > u_shifted))
        accept = (accept1 | (~reject & (s <= t))) & _on_rows(rows, len(shape))
        k_out = numpy.where(accept, draw, k_out)
        accepted |= accept
        k = numpy.where(rows, key_next, k)
        rows = rows & _rows_looping(~accepted, nbatch)
    return k_out


# -- binomial: inversion by geometric jumps (n q <= 10), BTRS otherwise -----------------------

#: log(k!) - Stirling's approximation for k = 0..9 (as JAX's ``_stirling_approx_tail``)
_STIRLING_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _stirling_tail(k: numpy.ndarray) -> numpy.ndarray:
    dt = k.dtype.type
    table = numpy.asarray(_STIRLING_TAIL, k.dtype)
    small = k <= 9
    # JAX clamps k to [0, 9] before the series too, so past 9 the series is taken at 9
    k = numpy.clip(k, dt(0), dt(9))
    kp1sq = (k + dt(1)) * (k + dt(1))
    approx = (dt(1.0 / 12) - (dt(1.0 / 360) - dt(1.0 / 1260) / kp1sq) / kp1sq) / (k + dt(1))
    index = numpy.floor(numpy.nan_to_num(k)).astype(numpy.int32)
    return numpy.where(small, table[index], approx)


def binomial_draws(keys: Any, count: Any, prob: Any) -> numpy.ndarray:
    """Binomial draws (floats of ``prob``'s dtype) from keys ``(*batch, 2)``, ``count`` and
    ``prob`` of shape ``(*batch, *shape)``: JAX's ``_binomial`` with its special values (nan
    for a nan or negative count or a nan or negative ``prob``, inf for an infinite count)."""
    k = _words(keys)
    prob = numpy.asarray(prob)
    dt = prob.dtype.type
    count = numpy.asarray(count).astype(prob.dtype)
    with numpy.errstate(all="ignore"):
        p_lt_half = prob < dt(0.5)
        q = numpy.where(p_lt_half, prob, dt(1) - prob)
        count_nan_or_neg = numpy.isnan(count) | (count < dt(0))
        count_inf = numpy.isinf(count)
        q_is_nan = numpy.isnan(q)
        q_l_0 = q < dt(0)
        q = numpy.where(q_is_nan | q_l_0, dt(0.01), q)
        use_inversion = count_nan_or_neg | (count * q <= dt(10))
        count = numpy.floor(count)
        count_inv = numpy.where(use_inversion, count, dt(0))
        count_btrs = numpy.where(use_inversion, dt(1e4), count)
        q_btrs = numpy.where(use_inversion, dt(0.5), q)
        samples = numpy.where(
            use_inversion,
            _binomial_inversion(k, count_inv, q),
            _rows_needing(_btrs, ~use_inversion, k, count_btrs, q_btrs),
        )
        invalid = q_l_0 | q_is_nan | count_nan_or_neg
        samples = numpy.where(invalid, dt(numpy.nan), samples)
        samples = numpy.where(count_inf & ~invalid, dt(numpy.inf), samples)
        keep = p_lt_half | count_nan_or_neg | q_is_nan | count_inf
        return numpy.where(keep, samples, count - samples)


def _binomial_inversion(k: numpy.ndarray, count: numpy.ndarray, prob: numpy.ndarray) -> Any:
    # geom_sum only grows, so an entry once past count stays there: only live ones are drawn
    dt = prob.dtype.type
    size = math.prod(prob.shape[k.ndim - 1 :])
    count_flat = count.reshape(-1)
    log1m = numpy.log1p(-prob).reshape(-1)
    num_geom = numpy.zeros(count_flat.shape, prob.dtype)
    geom_sum = numpy.zeros(count_flat.shape, prob.dtype)
    loop = _Rows(k, size, numpy.flatnonzero(geom_sum <= count_flat))
    while loop.live.size:
        live = loop.live
        num_geom[live] += dt(1)
        u = loop.draw(prob.dtype, subkey_first=True)
        geom_sum[live] += numpy.ceil(numpy.log(u) / log1m[live])
        loop.live = live[geom_sum[live] <= count_flat[live]]
    return (num_geom - dt(1)).reshape(prob.shape)


def _btrs(k: numpy.ndarray, count: numpy.ndarray, prob: numpy.ndarray) -> numpy.ndarray:
    nbatch = k.ndim - 1
    shape = prob.shape[nbatch:]
    dt = prob.dtype.type
    stddev = numpy.sqrt(count * prob * (dt(1) - prob))
    b = dt(1.15) + dt(2.53) * stddev
    a = dt(-0.0873) + dt(0.0248) * b + dt(0.01) * prob
    c = count * prob + dt(0.5)
    v_r = dt(0.92) - dt(4.2) / b
    r = prob / (dt(1) - prob)
    alpha = (dt(2.83) + dt(5.1) / b) * stddev
    m = numpy.floor((count + dt(1)) * prob)
    k_out = numpy.full(prob.shape, -1, prob.dtype)
    accepted = numpy.zeros(prob.shape, bool)
    rows = _rows_looping(~accepted, nbatch)
    while rows.any():
        key_next, sub0, sub1 = _split(k, 3)
        u = _uniform_rows(sub0, shape, prob.dtype)
        v = _uniform_rows(sub1, shape, prob.dtype)
        u = u - dt(0.5)
        us = dt(0.5) - numpy.abs(u)
        accept1 = (us >= dt(0.07)) & (v <= v_r)
        draw = numpy.floor((dt(2) * a / us + b) * u + c)
        reject = (draw < 0) | (draw > count)
        v = numpy.log(v * alpha / (a / (us * us) + b))
        upper = (
            (m + dt(0.5)) * numpy.log((m + dt(1)) / (r * (count - m + dt(1))))
            + (count + dt(1)) * numpy.log((count - m + dt(1)) / (count - draw + dt(1)))
            + (draw + dt(0.5)) * numpy.log(r * (count - draw + dt(1)) / (draw + dt(1)))
            + _stirling_tail(m)
            + _stirling_tail(count - m)
            - _stirling_tail(draw)
            - _stirling_tail(count - draw)
        )
        accept = (accept1 | (~reject & (v <= upper))) & _on_rows(rows, len(shape))
        k_out = numpy.where(accept, draw, k_out)
        accepted |= accept
        k = numpy.where(rows, key_next, k)
        rows = rows & _rows_looping(~accepted, nbatch)
    return k_out


# -- gamma's implicit reparameterisation derivative --------------------------------------------

#: Above this shape, d sample / d a comes from SciPy's incomplete gamma function (Temme's
#: expansion there) differenced in a; below it, from the series / continued fraction.
_LARGE_SHAPE = 1e4
_MAX_TERMS = 20000


def gamma_sample_derivative(a: Any, x: Any) -> numpy.ndarray:
    """``d x / d a`` at a standard gamma sample ``x`` of shape ``a``, holding its CDF
    ``P(a, x)`` fixed: ``-(dP/da) / pdf(x)`` (JAX's ``random_gamma_grad``).

    Written so that the common factor ``x**a e**-x / Gamma(a)`` of ``dP/da`` and the
    density cancels: with ``P = (x**a e**-x / Gamma(a + 1)) S``, ``S = sum_n c_n``,
    ``c_n = c_{n-1} x / (a + n)``, it is ``-(x / a) (S (log x - digamma(a + 1)) + dS/da)``
    (for ``x <= max(a, 1)``), and with ``1 - P = (x**a e**-x / Gamma(a)) h``, ``h`` the
    continued fraction of ``1 - P``, it is ``x (h (log x - digamma(a)) + dh/da)``
    (for ``x > max(a, 1)``).  Above ``a = 1e4`` the series needs many terms; there
    ``dP/da`` is a five-point difference of SciPy's ``gammainc``/``gammaincc`` with a step
    of ``1e-3 sqrt(a)`` and the density from Stirling's series (relative error near
    1e-10).  ``x = 0`` gives 0; ``a <= 0``, ``x < 0`` or nan give nan.

    Example:
        >>> import numpy as np
        >>> gamma_sample_derivative(np.array([1.0]), np.array([0.5])).round(6).tolist()
        [0.806979]
    """
    a, x = numpy.broadcast_arrays(numpy.asarray(a), numpy.asarray(x))
    dtype = numpy.result_type(a.dtype, x.dtype, numpy.float32)
    a64, x64 = a.astype(numpy.float64).ravel(), x.astype(numpy.float64).ravel()
    out = numpy.zeros(a64.shape)
    bad = numpy.isnan(a64) | numpy.isnan(x64) | (a64 <= 0) | (x64 < 0)
    ok = ~bad & (x64 > 0) & numpy.isfinite(x64)
    large = ok & (a64 > _LARGE_SHAPE)
    series = ok & ~large & ((x64 <= 1) | (x64 <= a64))
    fraction = ok & ~large & ~series
    with numpy.errstate(all="ignore"):
        out[series] = _derivative_series(a64[series], x64[series])
        out[fraction] = _derivative_fraction(a64[fraction], x64[fraction])
        out[large] = _derivative_by_differences(a64[large], x64[large])
    out[bad] = numpy.nan
    return out.reshape(a.shape).astype(dtype)


def _derivative_series(a: numpy.ndarray, x: numpy.ndarray) -> numpy.ndarray:
    c, dc = numpy.ones_like(x), numpy.zeros_like(x)
    total, dtotal = c.copy(), dc.copy()
    live = numpy.arange(x.size)
    for n in range(1, _MAX_TERMS + 1):
        if not live.size:
            break
        al, xl, cl = a[live], x[live], c[live]
        ratio = xl / (al + n)
        dc[live] = dc[live] * ratio - cl * ratio / (al + n)
        c[live] = cl * ratio
        total[live] += c[live]
        dtotal[live] += dc[live]
        small = numpy.abs(dc[live]) <= 1e-17 * numpy.abs(dtotal[live])
        live = live[~(small & (c[live] <= 1e-17 * total[live]))]
    return -(x / a) * (total * (numpy.log(x) - scipy.special.digamma(a + 1)) + dtotal)


def _derivative_fraction(a: numpy.ndarray, x: numpy.ndarray) -> numpy.ndarray:
    # modified Lentz for h = 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)),
    # every quantity carried with its a-derivative
    tiny = 1e-300
    b, db = x + 1 - a, -numpy.ones_like(x)
    c, dc = numpy.full_like(x, 1 / tiny), numpy.zeros_like(x)
    d, dd = 1 / b, 1 / (b * b)
    h, dh = d.copy(), dd.copy()
    live = numpy.arange(x.size)
    for i in range(1, _MAX_TERMS + 1):
        if not live.size:
            break
        al = a[live]
        an, dan = -i * (i - al), float(i)
        b[live] += 2
        den = an * d[live] + b[live]
        dden = dan * d[live] + an * dd[live] + db[live]
        den = numpy.where(numpy.abs(den) < tiny, tiny, den)
        d[live], dd[live] = 1 / den, -dden / (den * den)
        cl = c[live]
        c[live], dc[live] = b[live] + an / cl, db[live] + dan / cl - an * dc[live] / cl / cl
        c[live] = numpy.where(numpy.abs(c[live]) < tiny, tiny, c[live])
        delta, ddelta = c[live] * d[live], dc[live] * d[live] + c[live] * dd[live]
        h[live], dh[live] = h[live] * delta, dh[live] * delta + h[live] * ddelta
        done = (numpy.abs(delta - 1) <= 1e-16) & (
            numpy.abs(ddelta) <= 1e-16 * numpy.abs(dh[live] / h[live])
        )
        live = live[~done]
    return x * (h * (numpy.log(x) - scipy.special.digamma(a)) + dh)


def _derivative_by_differences(a: numpy.ndarray, x: numpy.ndarray) -> numpy.ndarray:
    step = 1e-3 * numpy.sqrt(a)
    upper = x > a  # difference the smaller of P and 1 - P

    def cdf(s):
        return numpy.where(upper, -scipy.special.gammaincc(s, x), scipy.special.gammainc(s, x))

    dp_da = (cdf(a - 2 * step) - 8 * cdf(a - step) + 8 * cdf(a + step) - cdf(a + 2 * step)) / (
        12 * step
    )
    # log pdf without the cancellation of (a - 1) log x - x - lgamma(a) at large a: with
    # u = x / a - 1 and Stirling's series for lgamma(a),
    # -log(a) / 2 - log1p(u) + a (log1p(u) - u) - log(2 pi) / 2 - (1 / (12 a) - 1 / (360 a**3))
    u = (x - a) / a
    log1p_u = numpy.log1p(u)
    stirling = 1 / (12 * a) - 1 / (360 * a**3)
    log_pdf = -0.5 * numpy.log(2 * numpy.pi * a) - log1p_u + a * (log1p_u - u) - stirling
    return -dp_da * numpy.exp(-log_pdf)
