"""Op-database entries for ``ftransforms.scipy`` ``stats``, ``linalg``, ``signal`` and
``integrate``.  Format: ``tests/op_db.py``.

An entry's ``fn(m, ...)`` calls SciPy for ``NP`` (the forward reference: values match
SciPy), ``jax.scipy`` for ``JNP`` (the oracle of the compositions of transforms, for the
entries whose functions JAX has: ``jax_compositions=False`` for the others) and
``ftransforms.scipy`` for ``FNP``.  All entries are float64 only (SciPy computes in
float64 whatever comes in).

Distributions come in two entries each: ``scipy_stats_<dist>`` returns the tuple of the
methods that ``jax.scipy.stats`` has too, ``scipy_stats_<dist>_more`` the others (checked
against SciPy and finite differences).  Samples keep ``x`` inside the support, away from
kinks (``laplace`` at ``loc``, ``uniform``'s ends) and ``q`` away from 0 and 1; the
integer ``k`` of discrete distributions is an integer operand (no derivative).

``odeint``'s entry solves with ``rtol = atol = 1e-10``: its values against SciPy's LSODA
and its derivatives (adjoint, forward sensitivities, finite differences of an adaptive
solve) agree to the solvers' tolerance, not to rounding, hence its ``tol``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.experimental.ode as jode
import jax.scipy.integrate as jsi
import jax.scipy.linalg as jsl
import jax.scipy.signal as jss
import jax.scipy.stats as jst
import numpy as np
import scipy.integrate as si
import scipy.linalg as sl
import scipy.signal as ss
import scipy.stats as st

import ftransforms.scipy.integrate as fi
import ftransforms.scipy.linalg as fl
import ftransforms.scipy.signal as fs
import ftransforms.scipy.stats as fst
from tests.op_db_base import S, add

F64 = (np.dtype(np.float64),)

_MODS = {
    "fnp": {"stats": fst, "linalg": fl, "signal": fs, "integrate": fi},
    "np": {"stats": st, "linalg": sl, "signal": ss, "integrate": si},
    "jnp": {"stats": jst, "linalg": jsl, "signal": jss, "integrate": jsi},
}


def _mod(m: Any, name: str) -> Any:
    return _MODS[repr(m)][name]


# -- stats ------------------------------------------------------------------------------------

#: name -> (shape parameter draws (lo, hi), x draw (lo, hi) of z, methods JAX has, others)
_CONT = {
    "norm": ((), (-2.0, 2.0), ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"), ()),
    "cauchy": ((), (-2.0, 2.0), ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"), ()),
    "laplace": ((), (0.2, 2.0), ("logpdf", "pdf", "cdf"), ("logcdf", "sf", "logsf", "ppf")),
    "logistic": ((), (-2.0, 2.0), ("logpdf", "pdf", "cdf", "sf", "ppf"), ("logcdf", "logsf")),
    "expon": ((), (0.2, 3.0), ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"), ()),
    "uniform": ((), (0.2, 0.8), ("logpdf", "pdf", "cdf", "ppf"), ("logcdf", "sf", "logsf")),
    "lognorm": (
        ((0.4, 1.2),),
        (0.6, 2.5),
        (),  # jax.scipy.stats has no lognorm
        ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"),
    ),
    "t": (((2.5, 6.0),), (-2.0, 2.0), ("logpdf", "pdf"), ("cdf", "logcdf", "sf", "logsf", "ppf")),
    "gamma": (
        ((1.5, 4.0),),
        (0.3, 3.0),
        ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"),
        ("ppf",),
    ),
    "chi2": (
        ((2.5, 5.0),),
        (0.3, 4.0),
        ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"),
        ("ppf",),
    ),
    "beta": (
        ((1.5, 4.0), (1.5, 4.0)),
        (0.25, 0.75),
        ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"),
        ("ppf",),
    ),
}

#: name -> (shape parameter draws, k ranges (JAX's methods, the others: k where no
#: probability is 0, so that every log is finite), methods JAX has, others)
_DISC = {
    "poisson": (
        ((0.5, 4.0),),
        ((0, 6), (0, 6)),
        ("logpmf", "pmf", "cdf"),
        ("sf", "logcdf", "logsf"),
    ),
    "binom": (((0.2, 0.8),), ((0, 5), (0, 4)), ("logpmf", "pmf"), ("cdf", "sf", "logcdf", "logsf")),
    "nbinom": (
        ((0.2, 0.8),),
        ((0, 6), (0, 6)),
        ("logpmf", "pmf"),
        ("cdf", "sf", "logcdf", "logsf"),
    ),
    "geom": (((0.2, 0.8),), ((1, 6), (1, 6)), ("logpmf", "pmf"), ("cdf", "sf", "logcdf", "logsf")),
    "bernoulli": (
        ((0.2, 0.8),),
        ((0, 2), (0, 1)),
        ("logpmf", "pmf", "cdf"),
        ("sf", "logcdf", "logsf"),
    ),
}


def _cont_fn(name: str, methods: tuple) -> Callable:
    def fn(m, x, q, *params):
        *shape, loc, scale = params
        d = getattr(_mod(m, "stats"), name)
        out = []
        for meth in methods:
            arg = q if meth == "ppf" else x  # the operand q is a probability
            out.append(getattr(d, meth)(arg, *shape, loc=loc, scale=scale))
        return tuple(out)

    fn.__name__ = f"stats_{name}"
    return fn


def _cont_samples(name: str) -> Callable:
    shape_draws, (lo, hi), _, _ = _CONT[name]

    def sampler(d):
        def draw(shape):
            if name in STATIC_SHAPES:
                return [float(d.u((), a, b)) for a, b in shape_draws], *_ls(d, shape)
            params = [d.u(shape, a, b) for a, b in shape_draws]
            return params, *_ls(d, shape)

        p1, loc1, sc1 = draw(())
        z1 = d.u((4,), lo, hi)
        q1 = d.u((4,), 0.25, 0.75)
        p2, loc2, sc2 = draw((3,))
        z2 = d.u((2, 3), lo, hi)
        q2 = d.u((2, 3), 0.25, 0.75)
        return [
            # x = loc + scale * z keeps z in the chosen part of the support
            _sample(d, "4_scalar_params", loc1 + sc1 * z1, q1, *p1, loc1, sc1),
            _sample(d, "2x3_bcast_params", loc2 + sc2 * z2, q2, *p2, loc2, sc2),
        ]

    return sampler


#: Distributions whose cdf goes through gammainc/betainc: the derivative of those in their
#: parameters is refused (betainc) or first order only (gammainc) by
#: ftransforms.scipy.special, so the shape parameters are static here (Python floats);
#: tests/test_scipy_stats.py differentiates the densities in them against JAX.
STATIC_SHAPES = {"t", "gamma", "chi2", "beta"}


def _ls(d, shape):
    return d.u(shape, -0.5, 0.5), d.u(shape, 0.7, 1.5)


def _sample(d, label, *args):
    # step 3e-4: with 1e-3 the fourth-order differences' truncation error (densities with
    # large high derivatives, every operand moved at once) exceeds their tolerance
    args = [a if isinstance(a, float) else np.asarray(a, d.dtype) for a in args]
    return S(label, *args, _fd_eps=3e-4)


def _disc_fn(name: str, methods: tuple) -> Callable:
    def fn(m, k, *params):
        dist = getattr(_mod(m, "stats"), name)
        if name == "binom":  # n is an integer, held static
            params = (4,) + params
        if name == "nbinom":  # betainc's derivative in n is refused: n static
            params = (2.5,) + params
        return tuple(getattr(dist, meth)(k, *params) for meth in methods)

    fn.__name__ = f"stats_{name}"
    return fn


def _disc_samples(name: str, more: bool) -> Callable:
    shape_draws, ranges, _, _ = _DISC[name]
    klo, khi = ranges[more]

    def sampler(d):
        k1 = d.ints(khi, (5,), lo=klo)
        k2 = d.ints(khi, (2, 3), lo=klo)
        p1 = [d.u((), a, b) for a, b in shape_draws]
        p2 = [d.u((3,), a, b) for a, b in shape_draws]
        return [S("5_scalar_params", k1, *p1), S("2x3_bcast_params", k2, *p2)]

    return sampler


def _discrete_ppf(m, q, mu, p):
    s = _mod(m, "stats")
    return (
        s.poisson.ppf(q, mu),
        s.binom.ppf(q, 5, p),
        s.nbinom.ppf(q, 2.5, p),
        s.geom.ppf(q, p),
        s.bernoulli.ppf(q, p),
    )


def _dirichlet(m, x, alpha):
    d = _mod(m, "stats").dirichlet
    return d.logpdf(x, alpha), d.pdf(x, alpha)


def _dirichlet_samples(d):
    def point(n):
        w = d.rng.uniform(0.5, 1.5, n)
        return w / w.sum()

    return [
        S("3", np.asarray(point(3), d.dtype), d.u((3,), 0.8, 3.0)),
        S("4x2", np.asarray(np.stack([point(4), point(4)], axis=1), d.dtype), d.u((4,), 0.8, 3.0)),
    ]


def _sym_of(m, c):
    return (c + m.swapaxes(c, -1, -2)) / 2


def _mvn(m, x, mean, c):
    cov = _sym_of(m, c)  # both triangles count, as in JAX (which symmetrizes)
    d = _mod(m, "stats").multivariate_normal
    return d.logpdf(x, mean, cov), d.pdf(x, mean, cov)


def _mvn_entropy(m, mean, c):
    cov = _sym_of(m, c)
    return _mod(m, "stats").multivariate_normal.entropy(mean, cov)


def _mvn_samples(d):
    return [
        S("3", d.u((3,)), d.u((3,)), _spd(d, 3)),
        S("4x2", d.u((4, 2)), d.u((2,)), _spd(d, 2)),
    ]


# -- linalg -----------------------------------------------------------------------------------


def _general(d, n, scale=0.3):
    return np.asarray(scale * d.rng.standard_normal((n, n)) + 1.5 * np.eye(n), d.dtype)


def _spd(d, n):
    x = d.rng.standard_normal((n, n))
    return np.asarray(x @ x.T / n + np.eye(n), d.dtype)


def _lin(name: str, fn: Callable | None = None) -> Callable:
    def f(m, *args, **kw):
        mod = _mod(m, "linalg")
        return fn(mod, m, *args, **kw) if fn is not None else getattr(mod, name)(*args, **kw)

    f.__name__ = f"linalg_{name}"
    return f


def _sym(a):
    return (a + a.T) / 2


def _cholesky_fn(mod, m, a, lower=False):
    return mod.cholesky(_sym(a), lower=lower)


def _eigh_fn(mod, m, a):
    w, v = mod.eigh(_sym(a))
    return w, v * v


def _svd_fn(mod, m, a):
    u, s, vh = mod.svd(a, full_matrices=False)
    return u * u, s, vh * vh


def _qr_fn(mod, m, a, mode):
    q, r = mod.qr(a, mode=mode)
    return q * q, r * r


def _lu_fn(mod, m, a):
    p, low, up = mod.lu(a)
    return p @ low, up


def _lu_solve_fn(mod, m, a, b, trans=0):
    return mod.lu_solve(mod.lu_factor(a), b, trans=trans)


def _cho_fn(mod, m, a, b, lower=False):
    a = _sym_of(m, a)
    c, low = mod.cho_factor(a, lower=lower)
    return mod.cho_solve((c, low), b)


def _frechet_fn(mod, m, a, e):
    return mod.expm_frechet(a, e)


def _distinct_sym(d, n):
    q = np.linalg.qr(d.rng.standard_normal((n, n)))[0]
    lam = np.arange(n) - (n - 1) / 2 + 0.1 * d.rng.standard_normal(n)
    return np.asarray((q * lam) @ q.T, d.dtype)


def _distinct_sv(d, m, n):
    k = min(m, n)
    u = np.linalg.qr(d.rng.standard_normal((m, k)))[0]
    v = np.linalg.qr(d.rng.standard_normal((n, k)))[0]
    return np.asarray((u * (1.0 + 0.7 * np.arange(k)[::-1])) @ v.T, d.dtype)


def _pendulum(y, t, a, b):
    import ftransforms.numpy as fnp  # noqa: PLC0415

    return fnp.stack([a * y[1] - 0.1 * t * y[0], -b * fnp.sin(y[0])])


def _jpendulum(y, t, a, b):
    import jax.numpy as jnp  # noqa: PLC0415

    return jnp.stack([a * y[1] - 0.1 * t * y[0], -b * jnp.sin(y[0])])


def _np_pendulum(y, t, a, b):
    return np.stack([a * y[1] - 0.1 * t * y[0], -b * np.sin(y[0])])


_ODE_TOL = 1e-10


def _odeint_entry(m, y0, t, a, b):
    label = repr(m)
    if label == "fnp":
        return fi.odeint(_pendulum, y0, t, a, b, rtol=_ODE_TOL, atol=_ODE_TOL)
    if label == "jnp":
        return jode.odeint(_jpendulum, y0, t, a, b, rtol=_ODE_TOL, atol=_ODE_TOL)
    return si.odeint(_np_pendulum, y0, t, args=(float(a), float(b)), rtol=1e-12, atol=1e-12)


def _odeint_samples(d):
    t = np.cumsum(d.u((4,), 0.2, 0.5))
    return [
        S(
            "pendulum",
            d.u((2,), 0.2, 1.0),
            np.asarray(t, d.dtype),
            d.u((), 0.8, 1.5),
            d.u((), 0.5, 1.0),
        )
    ]


# -- the entries ---------------------------------------------------------------------------------


common = {"dtypes": F64, "via_numpy": False}

# stats
for name, (_, _, jax_methods, more) in _CONT.items():
    if jax_methods:
        add(
            f"scipy_stats_{name}",
            _cont_fn(name, jax_methods),
            _cont_samples(name),
            prims=(),
            **common,
        )
    if more:
        add(
            f"scipy_stats_{name}_more",
            _cont_fn(name, more),
            _cont_samples(name),
            prims=(),
            jax_compositions=False,
            **common,
        )
for name, (_, _, jax_methods, more) in _DISC.items():
    add(
        f"scipy_stats_{name}",
        _disc_fn(name, jax_methods),
        _disc_samples(name, False),
        prims=(),
        **common,
    )
    add(
        f"scipy_stats_{name}_more",
        _disc_fn(name, more),
        _disc_samples(name, True),
        prims=(),
        jax_compositions=False,
        **common,
    )
add(
    "scipy_stats_discrete_ppf",
    _discrete_ppf,
    lambda d: [S("4", d.u((4,), 0.05, 0.95), d.u((), 0.5, 4.0), d.u((), 0.2, 0.8))],
    prims=("scipy_ppf",),
    nondiff=True,  # integers: the derivative is 0 (test_nondiff checks it)
    jax_compositions=False,
    **common,
)
add("scipy_stats_dirichlet", _dirichlet, _dirichlet_samples, prims=(), **common)
add("scipy_stats_multivariate_normal", _mvn, _mvn_samples, prims=(), **common)
add(
    "scipy_stats_multivariate_normal_entropy",
    _mvn_entropy,
    lambda d: [S("3", d.u((3,)), _spd(d, 3))],
    prims=(),
    jax_compositions=False,  # jax.scipy.stats.multivariate_normal has no entropy
    **common,
)


# linalg
def gen(n, k=None):
    def sampler(d):
        out = [S(f"{n}x{n}", _general(d, n))]
        if k:
            out.append(S(f"{n}x{n}_b{k}", _general(d, n), d.u((n, k))))
        return out

    return sampler


add(
    "scipy_linalg_inv",
    _lin("inv"),
    lambda d: [S("3x3", _general(d, 3))],
    prims=(),
    **common,
)
add(
    "scipy_linalg_det",
    _lin("det"),
    lambda d: [S("3x3", _general(d, 3))],
    prims=(),
    **common,
)
add(
    "scipy_linalg_solve",
    _lin("solve"),
    lambda d: [
        S("3x3_b3", _general(d, 3), d.u((3,))),
        S("3x3_b3x2_transposed", _general(d, 3), d.u((3, 2)), transposed=True),
        S(
            "3x3_sym_lower",
            _spd(d, 3) + np.triu(d.u((3, 3)), 1),
            d.u((3, 2)),
            assume_a="sym",
            lower=True,
        ),
    ],
    prims=(),
    **common,
)
add(
    "scipy_linalg_solve_triangular",
    _lin("solve_triangular"),
    lambda d: [
        S("upper", _general(d, 3), d.u((3, 2))),
        S("lower_trans", _general(d, 3), d.u((3,)), trans=1, lower=True),
        S("unit_trans2", _general(d, 3), d.u((3, 2)), trans="T", unit_diagonal=True),
    ],
    prims=(),
    **common,
)
add(
    "scipy_linalg_cholesky",
    _lin("cholesky", _cholesky_fn),
    lambda d: [S("upper", _spd(d, 3)), S("lower", _spd(d, 3), lower=True)],
    # through _sym: JAX's cholesky symmetrizes its input, ours reads one triangle
    prims=(),
    **common,
)
add(
    "scipy_linalg_cho_solve",
    _lin("cho_solve", _cho_fn),
    lambda d: [
        S("upper", _spd(d, 3), d.u((3, 2))),
        S("lower", _spd(d, 3), d.u((3,)), lower=True),
    ],
    prims=(),
    **common,
)
add(
    "scipy_linalg_lu",
    _lin("lu", _lu_fn),
    lambda d: [S("4x4", d.u((4, 4))), S("4x3", d.u((4, 3))), S("2x3", d.u((2, 3)))],
    prims=("lu_row_order",),
    **common,
)
add(
    "scipy_linalg_lu_solve",
    _lin("lu_solve", _lu_solve_fn),
    lambda d: [
        S("3x3_b2", d.u((3, 3)), d.u((3, 2))),
        S("3x3_b_trans", d.u((3, 3)), d.u((3,)), trans=1),
    ],
    prims=("lu_row_order",),
    **common,
)
add(
    "scipy_linalg_eigh",
    _lin("eigh", _eigh_fn),
    lambda d: [S("3x3", _distinct_sym(d, 3))],
    prims=(),
    **common,
)
add(
    "scipy_linalg_svd",
    _lin("svd", _svd_fn),
    lambda d: [S("3x2", _distinct_sv(d, 3, 2))],
    prims=(),
    **common,
)
add(
    "scipy_linalg_qr",
    _lin("qr", _qr_fn),
    lambda d: [
        S("3x3_full", _general(d, 3), "full"),
        S("4x2_economic", d.u((4, 2)) + np.eye(4, 2), "economic"),
    ],
    prims=(),
    **common,
)
add(
    "scipy_linalg_expm",
    _lin("expm"),
    lambda d: [S("3x3", d.u((3, 3))), S("2x2_large", 4.0 * d.u((2, 2)))],
    prims=(),
    value_dependent="the scaling 2**-s is read from the norm of the data (fnp.peek)",
    **common,
)
add(
    "scipy_linalg_expm_frechet",
    _lin("expm_frechet", _frechet_fn),
    lambda d: [S("3x3", d.u((3, 3)), d.u((3, 3)))],
    prims=(),
    value_dependent="expm's scaling is read from the data (fnp.peek)",
    **common,
)
# jax.scipy.linalg.sqrtm goes through schur, which JAX cannot differentiate; no logm
add(
    "scipy_linalg_sqrtm",
    _lin("sqrtm"),
    lambda d: [S("3x3", _general(d, 3, 0.2))],
    prims=(),
    jax_compositions=False,
    value_dependent="the Denman-Beavers iteration stops when converged (fnp.peek)",
    **common,
)
add(
    "scipy_linalg_logm",
    _lin("logm"),
    lambda d: [S("3x3", _general(d, 3, 0.2))],
    prims=(),
    jax_compositions=False,
    value_dependent="the number of square roots is read from the data (fnp.peek)",
    **common,
)
add(
    "scipy_linalg_solve_sylvester",
    _lin("solve_sylvester"),
    lambda d: [S("3x2", _general(d, 3), _general(d, 2), d.u((3, 2)))],
    prims=(),
    jax_compositions=False,  # JAX's goes through schur (no derivative)
    **common,
)


def banded(d):
    ab = d.u((3, 4))
    ab[1] += 3.0
    ab[0, 0] = ab[2, -1] = 0.0
    return [S("l1_u1", (1, 1), np.asarray(ab, d.dtype), d.u((4,)))]


add(
    "scipy_linalg_solve_banded",
    _lin("solve_banded"),
    banded,
    prims=(),
    jax_compositions=False,  # JAX has no solve_banded
    **common,
)
add(
    "scipy_linalg_block_diag",
    _lin("block_diag"),
    lambda d: [S("2x2_1x3", d.u((2, 2)), d.u((1, 3)))],
    prims=(),
    **common,
)
add(
    "scipy_linalg_toeplitz",
    _lin("toeplitz"),
    lambda d: [S("c4", d.u((4,))), S("c3_r4", d.u((3,)), d.u((4,)))],
    prims=(),
    **common,
)


# signal
def sig(name):
    def fn(m, a, b, **kw):
        return getattr(_mod(m, "signal"), name)(a, b, **kw)

    fn.__name__ = f"signal_{name}"
    return fn


def conv_samples(d):
    return [
        S("1d_full_direct", d.u((6,)), d.u((3,)), method="direct"),
        S("1d_same_fft", d.u((6,)), d.u((3,)), mode="same", method="fft", _jax=True),
        S("2d_valid", d.u((4, 5)), d.u((2, 3)), mode="valid", _jax=True),
        S("2d_same_small_first", d.u((2, 3)), d.u((4, 4)), mode="same"),
    ]


for name in ("convolve", "correlate"):
    add(f"scipy_signal_{name}", sig(name), conv_samples, prims=(), **common)
add(
    "scipy_signal_fftconvolve",
    sig("fftconvolve"),
    lambda d: [
        S("1d", d.u((6,)), d.u((3,))),
        S("2d_valid", d.u((4, 5)), d.u((2, 3)), mode="valid", _jax=True),
    ],
    prims=(),
    **common,
)


# integrate
def trap(m, y, x=None, **kw):
    return _mod(m, "integrate").trapezoid(y, x, **kw)


add(
    "scipy_integrate_trapezoid",
    trap,
    lambda d: [
        S("5_dx", d.u((5,)), dx=0.5),
        S("3x5_x", d.u((3, 5)), np.cumsum(d.u((5,), 0.2, 1.0))),
    ],
    prims=(),
    **common,
)


def cumtrap(m, y, x=None, **kw):
    return _mod(m, "integrate").cumulative_trapezoid(y, x, **kw)


add(
    "scipy_integrate_cumulative_trapezoid",
    cumtrap,
    lambda d: [
        S("5_dx", d.u((5,)), dx=0.5),
        S("3x5_x_initial", d.u((3, 5)), np.cumsum(d.u((5,), 0.2, 1.0)), initial=0),
        S("4x3_axis0", d.u((4, 3)), axis=0),
    ],
    prims=(),
    jax_compositions=False,  # JAX has no cumulative_trapezoid
    **common,
)

add(
    "scipy_integrate_odeint",
    _odeint_entry,
    _odeint_samples,
    prims=(),
    xfail={"test_vmap_jvp_vs_jax": "JAX's odeint is a custom_vjp: no forward mode"},
    tol={
        "float64": {"rtol": 1e-6, "atol": 1e-8},
        "fd:float64": {"rtol": 1e-5, "atol": 1e-7},
    },
    **common,
)
