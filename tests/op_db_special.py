"""Op-database entries for ``ftransforms.scipy.special`` (the primitives of
``ftransforms/ops/special.py`` added for SciPy's special functions, and the composites of
``ftransforms/scipy/special.py``).  Format: ``tests/op_db.py``.

Every entry is ``m.special.<name>(...)`` over the three namespaces: ``scipy.special`` is the
forward reference (and, for its ufuncs, ``scipy.special.<name>(tracer)`` runs through the
NumPy protocol), ``jax.scipy.special`` the oracle for the compositions of transforms where
it has the function (``jax_compositions=False`` where it has not, and for ``expn`` and
``hyp2f1``, whose JAX compositions take 7 and 30 seconds to compile: finite differences
and the Python loop remain the oracles, and ``tests/test_scipy_special.py`` compares their
first derivatives with JAX).

Arguments in which a function has no derivative here (NOTE [special parameter
derivatives] in ``ftransforms/ops/special.py``: the Bessel orders, hyp2f1's
parameters) are operands (batched by the
vmap tests) held fixed by the derivative tests (``diff_operands`` leaves them out); the
entry passes
them through ``stop_gradient`` as well, since the registry test differentiates every float
operand.  Integer orders (``jn``, ``yn``, ``expn``) are integer operands.  gammainc and
gammaincc have two entries each: in ``x`` (``a`` fixed), and in ``a`` (``x`` fixed; the
derivative in ``a`` is computed by the ``gammainc_da`` primitive, and its own derivative
in ``a`` is refused); so has hyp1f1 (in ``x``; in ``a`` and ``b`` through
``hyp1f1_dparam``), hyp2f1 (in ``z``; in ``a``, ``b`` and ``c`` through
``hyp2f1_dparam``) and betainc (in ``x``; in ``a`` and ``b`` through ``betainc_da`` and
``betainc_db``).

Domains keep away from poles, branch cuts and the places where a value is NaN; samples are
few and small (each one runs through every generic sweep).
"""

from __future__ import annotations

from collections.abc import Callable

from tests.op_db_base import JNP, S, add


def special(name: str, fixed: tuple[int, ...] = (), np_cast: bool = False) -> Callable:
    """``m.special.<name>(*args)``; arguments at positions ``fixed`` go through
    ``stop_gradient``; ``np_cast``: SciPy's float64 result of an integer-order call
    cast to the float argument's dtype (ftransforms and JAX keep float32)."""

    def fn(m, *args):
        args = tuple(m.stop_gradient(a) if i in fixed else a for i, a in enumerate(args))
        out = getattr(m.special, name)(*args)
        if np_cast and m is not JNP and not isinstance(out, tuple):
            out = out.astype(args[-1].dtype)
        return out

    fn.__name__ = f"special_{name}"
    return fn


def unary(lo: float, hi: float, draw: str = "u") -> Callable:
    def sampler(d):
        return [
            S("scalar", getattr(d, draw)((), lo, hi)),
            S("2x3", getattr(d, draw)((2, 3), lo, hi)),
            S("0", getattr(d, draw)((0,), lo, hi)),
        ]

    sampler.arity = 1
    return sampler


def nary(*ranges: tuple) -> Callable:
    """Samples of len(ranges) broadcasting operands; a range is ``(lo, hi)`` (uniform
    floats) or ``("int", lo, hi)`` (an integer operand)."""

    def draw(d, r, shape):
        if r[0] == "int":
            return d.ints(r[2], shape, lo=r[1])
        return d.u(shape, *r)

    def sampler(d):
        n = len(ranges)
        same = [draw(d, r, (4,)) for r in ranges]
        bcast = [draw(d, r, (2, 1) if i % 2 == 0 else (1, 3)) for i, r in enumerate(ranges)]
        mixed = [draw(d, r, () if i < n - 1 else (3,)) for i, r in enumerate(ranges)]
        return [S("4", *same), S("2x1_1x3", *bcast), S("scalars_3", *mixed)]

    sampler.arity = len(ranges)
    return sampler


# name: (sampler, options); options: fixed (stop_gradient operands), jax (has an
# oracle in jax.scipy.special), prims (when not (name,)), np_cast, function (the
# scipy.special name when not the key), and OpEntry fields
entries: dict[str, tuple[Callable, dict]] = {
    # normal distribution
    "ndtr": (unary(-3.0, 3.0), {}),
    "ndtri": (unary(0.05, 0.95), {}),
    "log_ndtr": (unary(-8.0, 3.0), {}),
    # incomplete gamma and beta
    "gammainc": (nary((0.5, 3.0), (0.2, 4.0)), {"fixed": (0,)}),
    "gammaincc": (nary((0.5, 3.0), (0.2, 4.0)), {"fixed": (0,)}),
    "betainc": (nary((0.6, 3.0), (0.6, 3.0), (0.1, 0.9)), {"fixed": (0, 1)}),
    "beta": (nary((0.5, 3.0), (0.5, 3.0)), {}),
    "betaln": (nary((0.5, 3.0), (0.5, 3.0)), {}),
    # gamma relatives
    "gamma": (unary(0.5, 3.5), {}),
    "rgamma": (unary(0.5, 3.5), {"jax": False}),
    "gammasgn": (lambda d: [S("2x3", d.nonint((2, 3))), S("scalar", d.nonint(()))], {}),
    "loggamma": (unary(0.5, 4.0), {}),
    "poch": (nary((0.5, 3.0), (-0.4, 2.0)), {}),
    "binom": (nary((3.0, 6.0), (0.5, 2.5)), {"jax": False}),
    # scipy.special.zeta is a Python function, not a ufunc: no NumPy-protocol route
    "zeta": (
        nary((1.5, 4.0), (0.5, 3.0)),
        {"via_numpy": False, "prims": ("zeta", "zeta_dx")},
    ),
    # error function relatives
    "erfcx": (unary(-1.5, 3.0), {}),
    "erfcinv": (unary(0.1, 1.9), {"jax": False}),
    "dawsn": (unary(-2.0, 2.0), {}),
    "owens_t": (nary((-2.0, 2.0), (-2.0, 2.0)), {}),
    # exponential integrals, Spence (JAX's spence derivative is NaN on (1, 2])
    # n >= 1: JAX's derivative of E_0 is NaN (ours: -E_{-1}, tested in test_scipy_special)
    "expn": (nary(("int", 1, 4), (0.3, 3.0)), {"np_cast": True, "jax": False}),
    "exp1": (unary(0.2, 3.0), {}),
    "expi": (unary(0.2, 3.0), {}),
    "spence": (unary(0.1, 0.9), {}),
    # information theory
    "entr": (unary(0.1, 3.0), {}),
    "rel_entr": (nary((0.1, 3.0), (0.1, 3.0)), {}),
    "kl_div": (nary((0.1, 3.0), (0.1, 3.0)), {}),
    # Bessel functions (orders: float operands held fixed, or integers)
    "iv": (nary((0.0, 3.0), (0.2, 3.0)), {"fixed": (0,), "jax": False}),
    "ive": (nary((0.0, 3.0), (0.2, 3.0)), {"fixed": (0,), "jax": False}),
    "kv": (nary((0.0, 3.0), (0.3, 3.0)), {"fixed": (0,), "jax": False}),
    "kve": (nary((0.0, 3.0), (0.3, 3.0)), {"fixed": (0,), "jax": False}),
    "jv": (nary((0.0, 3.0), (0.5, 5.0)), {"fixed": (0,), "jax": False}),
    "yv": (nary((0.0, 3.0), (0.5, 5.0)), {"fixed": (0,), "jax": False}),
    "yn": (nary(("int", 0, 4), (0.5, 5.0)), {"jax": False, "np_cast": True}),
    "jn": (nary(("int", 0, 4), (-5.0, 5.0)), {"jax": False, "np_cast": True, "prims": "jv"}),
    "i0": (unary(0.2, 3.0, "away"), {}),
    "i0e": (unary(0.2, 3.0, "away"), {}),
    "i1": (unary(0.2, 3.0, "away"), {}),
    "i1e": (unary(0.2, 3.0, "away"), {}),
    "k0": (unary(0.3, 3.0), {"jax": False}),
    "k0e": (unary(0.3, 3.0), {"jax": False}),
    "k1": (unary(0.3, 3.0), {"jax": False}),
    "k1e": (unary(0.3, 3.0), {"jax": False}),
    "j0": (unary(-5.0, 5.0), {"jax": False}),
    "j1": (unary(-5.0, 5.0), {"jax": False}),
    "y0": (unary(0.5, 5.0), {"jax": False}),
    "y1": (unary(0.5, 5.0), {"jax": False}),
    # hypergeometric functions, in x
    "hyp1f1": (nary((0.2, 2.0), (0.5, 2.0), (-1.0, 1.0)), {"fixed": (0, 1)}),
    "hyp2f1": (
        nary((0.2, 2.0), (0.2, 2.0), (1.0, 3.0), (-0.5, 0.5)),
        {"fixed": (0, 1, 2), "jax": False},
    ),
    # spherical Bessel functions of integer order (SciPy's private ufuncs)
    **{
        f"spherical_{kind}": (
            nary(("int", 0, 4), (0.5, 5.0)),
            {"jax": False, "prims": "scipy_ufunc", "np_cast": True},
        )
        for kind in ("jn", "yn", "in", "kn")
    },
    # two outputs, one primitive each
    "fresnel": (unary(-2.0, 2.0), {"prims": ("fresnel_s", "fresnel_c")}),
    "sici": (unary(0.3, 4.0), {"prims": ("sici_si", "sici_ci")}),
}
# gammainc/gammaincc in a (the gammainc_da primitive, NOTE [gammainc in a]), x held
# fixed: the second derivative in a is refused, so second order fails (strictly)
a_only = "the second derivative of gammainc in a is refused (NOTE [gammainc in a])"
for name in ("gammainc", "gammaincc"):
    entries[f"{name}_in_a"] = (
        nary((0.3, 6.0), (0.2, 8.0)),
        {
            "fixed": (1,),
            "function": name,
            "prims": (name, "gammainc_da"),
            "xfail": {"test_second_order": a_only},
        },
    )
entries["betainc_in_ab"] = (
    nary((0.6, 3.0), (0.6, 3.0), (0.1, 0.9)),
    {
        "fixed": (2,),
        "function": "betainc",
        "prims": ("betainc", "betainc_da", "betainc_db"),
        "jax": False,  # JAX refuses betainc's derivative in a and b
        "xfail": {
            "test_second_order": "second derivatives of betainc in a and b are refused "
            "(NOTE [betainc in a and b])"
        },
    },
)
entries["hyp1f1_in_ab"] = (
    nary((0.2, 2.0), (0.5, 2.0), (-1.0, 1.0)),
    {
        "fixed": (2,),
        "function": "hyp1f1",
        "prims": ("hyp1f1", "hyp1f1_dparam"),
        "xfail": {
            "test_second_order": "second derivatives of hyp1f1 in a and b are refused "
            "(NOTE [hyp1f1 in its parameters])"
        },
    },
)
entries["hyp2f1_in_abc"] = (
    nary((0.2, 2.0), (0.2, 2.0), (1.0, 3.0), (-0.5, 0.5)),
    {
        "fixed": (3,),
        "function": "hyp2f1",
        "prims": ("hyp2f1", "hyp2f1_dparam"),
        "jax": False,
        "xfail": {
            "test_second_order": "second derivatives of hyp2f1 in a, b and c are refused "
            "(NOTE [hyp2f1 in its parameters])"
        },
    },
)
for name, (sampler, opts) in entries.items():
    opts = dict(opts)
    fixed = opts.pop("fixed", ())
    has_jax = opts.pop("jax", True)
    prims = opts.pop("prims", name)
    np_cast = opts.pop("np_cast", False)
    function = opts.pop("function", name)
    if fixed:
        prims = ((prims,) if isinstance(prims, str) else prims) + ("stop_gradient",)
    add(
        f"special_{name}",
        special(function, fixed, np_cast),
        sampler,
        prims=prims,
        funcs=f"special.{function}",
        diff_operands=tuple(i for i in range(sampler.arity) if i not in fixed) if fixed else None,
        jax_compositions=has_jax,
        **opts,
    )

# -- composites and non-ufunc SciPy functions (no NumPy-protocol route) -----------------


def lambertw(m, z):
    return m.real(m.special.lambertw(z))


add(
    "special_lambertw",
    lambertw,
    unary(-0.3, 3.0),
    prims="scipy_ufunc",
    funcs="special.lambertw",
    jax_compositions=False,
)


def multigammaln(m, a, d=3):
    return m.special.multigammaln(a, d)


add(
    "special_multigammaln",
    multigammaln,
    lambda d: [
        S("d3_4", d.u((4,), 1.5, 4.0)),
        S("d1_scalar", d.u((), 0.5, 3.0), 1),
        S("d4_2x2", d.u((2, 2), 2.0, 4.0), 4),
    ],
    funcs="special.multigammaln",
    prims=("gammaln", "select"),
    ref="jax",
    via_numpy=False,
)


def softplus(m, x):
    f = getattr(m.special, "softplus", None)
    return f(x) if f is not None else m.logaddexp(x, 0.0)  # jax: no special.softplus


add(
    "special_softplus",
    softplus,
    unary(-4.0, 4.0),
    funcs="special.softplus",
    prims="logaddexp",
    via_numpy=False,
    jax_compositions=False,
)


def factorial(m, n):
    return m.special.factorial(n)


add(
    "special_factorial",
    factorial,
    lambda d: [S("4", d.u((4,), 0.3, 4.0)), S("2x2", d.u((2, 2), 0.3, 4.0))],
    funcs="special.factorial",
    prims=("gamma", "select"),
    ref="jax",
    via_numpy=False,
)


def comb(m, n, k, repetition=False):
    return m.special.comb(n, k, repetition=repetition)


def comb_samples(d):
    return [
        S("4", d.u((4,), 3.0, 6.0), d.u((4,), 0.5, 2.5)),
        S("repetition_2x1_1x3", d.u((2, 1), 3.0, 6.0), d.u((1, 3), 0.5, 2.5), repetition=True),
    ]


add(
    "special_comb",
    comb,
    comb_samples,
    funcs="special.comb",
    prims=("binom", "select"),
    ref="jax",
    via_numpy=False,
)


def log_expit(m, x):
    f = getattr(m.special, "log_expit", None)
    return f(x) if f is not None else -m.logaddexp(-x, 0.0)  # jax: no special.log_expit


add(
    "special_log_expit",
    log_expit,
    unary(-4.0, 4.0),
    funcs="special.log_expit",
    prims="logaddexp",
    jax_compositions=False,
)


def boxcox_samples(lo):
    def sampler(d):
        lmbda = d.u((5,), -1.5, 1.5)
        lmbda[1], lmbda[3] = 0.0, 3e-5  # the lmbda = 0 branch and the series near it
        return [
            S("2x1_1x3", d.u((2, 1), lo, 3.0), d.u((1, 3), -1.5, 1.5)),
            S("lmbda_near_0", d.u((5,), lo, 3.0), d._f(lmbda)),
        ]

    return sampler


for name, lo in (("boxcox", 0.3), ("boxcox1p", -0.5)):
    add(f"special_{name}", special(name), boxcox_samples(lo), prims=name, funcs=f"special.{name}")


def wofz(m, x, y):
    w = m.special.wofz(x + 1j * y)
    return m.real(w), m.imag(w)


add(
    "special_wofz",
    wofz,
    lambda d: [S("4", d.u((4,), -2.0, 2.0), d.u((4,), -2.0, 2.0))],
    funcs="special.wofz",
    prims="wofz",
)


def sinc(m, x):
    return m.special.sinc(x) if m is not JNP else m.sinc(x)


add(
    "special_sinc",
    sinc,
    unary(-2.0, 2.0),
    prims="sinc",
    funcs="special.sinc",
    jax_compositions=False,
)


# jax.scipy.special's bessel_jn (J_0 .. J_v stacked; SciPy: jv per order) and
# sph_harm_y (complex: its real and imaginary parts; SciPy's is a MultiUFunc, answered by
# ours on tracers through own_names; the degree bound is read from n's values)
def bessel_jn(m, z):
    if m is JNP or not hasattr(m.special, "bessel_jn"):
        return m.stack([m.special.jv(float(k), z) for k in range(3)])
    return m.special.bessel_jn(z, v=2)


add(
    "special_bessel_jn",
    bessel_jn,
    lambda d: [S("2x3", d.u((2, 3), 0.5, 5.0)), S("scalar", d.u((), 0.5, 5.0))],
    prims="jv",
    funcs="special.bessel_jn",
    jax_compositions=False,
)


def sph_harm_y(m, n, order, theta, phi):
    y = m.special.sph_harm_y(n, order, theta, phi)
    return m.real(y), m.imag(y)


add(
    "special_sph_harm_y",
    sph_harm_y,
    lambda d: [
        S("4", d.ints(4, (4,)), d.ints(3, (4,), lo=-2), d.u((4,), 0.2, 2.9), d.u((4,), 0.0, 6.0)),
        S(
            "2x1_1x3",
            d.ints(3, (2, 1), lo=1),
            d.ints(2, (1, 3), lo=-1),
            d.u((2, 1), 0.2, 2.9),
            d.u((1, 3), 0.0, 6.0),
        ),
    ],
    prims=(),
    funcs="special.sph_harm_y",
    jax_compositions=False,
    value_dependent="the degree and order bounds are read from n and m",
)
