"""Every ``scipy.special`` ufunc computes on tracers (NOTE [the remaining SciPy ufuncs]
in ftransforms/ops/scipy_ufuncs.py): values and ``vmap`` for all of them, derivatives for
the table's rules, a clear error for the others.

Oracles: SciPy itself (values; a Python loop over the rows for vmap), float64 central
differences (first and second derivatives)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special as sp

import ftransforms as ft
import ftransforms.scipy.special as fsp
from ftransforms.core.stack import current_stack
from ftransforms.errors import UnsupportedOperationError
from ftransforms.ops.scipy_ufuncs import DERIVATIVES

pytestmark = pytest.mark.filterwarnings("ignore:floating point number truncated:RuntimeWarning")

UFUNCS = sorted(n for n in dir(sp) if isinstance(getattr(sp, n), np.ufunc))
CANDIDATES = ([0.3, 0.6], [2.0, 3.0], [0.4, 0.7])


def _point(u):
    """Arguments (float64 rows of 2) where ``u`` is finite: the first candidate that is,
    the last argument taking [0.4, 0.7] if the others need integers >= 2."""
    for i, c in enumerate(CANDIDATES):
        args = [np.array(c)] * u.nin
        if i == 1:
            args[-1] = np.array(CANDIDATES[2])
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out = u(*args)
            except TypeError:  # integer-only loops (eval_hermite's n)
                return None
        outs = out if isinstance(out, tuple) else (out,)
        if all(np.all(np.isfinite(o)) for o in outs):
            return args
    return None


POINTS = {n: _point(getattr(sp, n)) for n in UFUNCS}


@pytest.mark.filterwarnings("ignore")
def test_every_scipy_ufunc_runs_under_vmap_and_jit():
    checked = 0
    for name in UFUNCS:
        u, args = getattr(sp, name), POINTS[name]
        if args is None:
            continue
        rows = [np.stack([a, a[::-1]]) for a in args]  # a batch of 2 rows of 2
        got = ft.vmap(lambda *a, u=u: u(*a))(*rows)
        want = [u(*[r[i] for r in rows]) for i in range(2)]
        if u.nout > 1:
            for k in range(u.nout):
                np.testing.assert_allclose(got[k], [w[k] for w in want], rtol=1e-12, err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)
        f = ft.jit(lambda *a, u=u: u(*a))
        f(*args)  # recorded; then replayed on new values
        new = [a * 1.01 if a.dtype.kind == "f" else a for a in args]
        np.testing.assert_allclose(f(*new), u(*new), rtol=1e-12, err_msg=name)
        checked += 1
    assert checked > 200  # SciPy's ufuncs finite at one of the points
    assert current_stack() == ()


RULES = [(n, i) for n, rules in sorted(DERIVATIVES.items()) for i, r in enumerate(rules) if r]
#: Where the default point sits on a kink (huber's |r| = delta) or outside the domain
#: (or takes integer orders only)
SPECIAL_POINTS = {
    "huber": [np.array([0.3, 0.3]), np.array([0.1, 0.6])],
    "ndtri_exp": [np.array([-0.4, -2.0])],  # (defined for y <= 0)
    "eval_hermite": [np.array([2, 3]), np.array([0.4, 0.7])],  # (integer orders only)
    "eval_hermitenorm": [np.array([2, 3]), np.array([0.4, 0.7])],
}


def _loss(name, i):
    u = getattr(sp, name)
    base = SPECIAL_POINTS.get(name) or POINTS[name]

    def f(x):
        args = list(base)
        args[i] = x
        return np.real(u(*args)).sum()  # (the real part of a complex one: hankel1, ...)

    return f, base[i]


def _fd(f, x, eps):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


#: A shape parameter's derivative goes through betainc's (or gammainc's) derivative in its
#: parameters, which is first order only (NOTE [betainc in a and b], NOTE [gammainc in a])
FIRST_ORDER_ONLY = {
    *[(n, 0) for n in ("stdtr", "stdtrit", "chdtr", "chdtrc", "chdtri")],
    *[(n, 0) for n in ("gammaincinv", "gammainccinv")],
    *[(n, 1) for n in ("gdtr", "gdtrc")],
    *[(n, i) for n in ("fdtr", "fdtrc", "fdtri") for i in (0, 1)],
    *[(n, i) for n in ("betaincc", "betaincinv", "betainccinv") for i in (0, 1)],
}


@pytest.mark.parametrize("name,i", RULES, ids=[f"{n}-{i}" for n, i in RULES])
def test_derivative_rules_against_finite_differences(name, i):
    f, x = _loss(name, i)
    np.testing.assert_allclose(ft.grad(f)(x), _fd(f, x, 1e-6), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        ft.jvp(f, (x,), (np.ones_like(x),))[1], _fd(f, x, 1e-6).sum(), rtol=1e-5, atol=1e-7
    )
    g = ft.grad(f)
    if name in ("elliprf", "elliprc"):  # their derivatives use elliprd, which has no rule
        with pytest.raises(UnsupportedOperationError, match=r"scipy\.special\.elliprd"):
            ft.hessian(f)(x)
        return
    if (name, i) in FIRST_ORDER_ONLY:  # through betainc_da/db, gammainc_da: refused twice
        with pytest.raises(UnsupportedOperationError, match=r"to second order"):
            ft.hessian(f)(x)
        return
    np.testing.assert_allclose(
        ft.hessian(f)(x),
        np.stack([_fd(lambda v: g(v)[k], x, 1e-5) for k in range(x.size)]),
        rtol=1e-4,
        atol=1e-6,
    )


def test_no_rule_is_a_clear_error_not_a_zero():
    x = np.array([0.5, 1.5])
    with pytest.raises(UnsupportedOperationError, match=r"scipy\.special\.bdtr.*argument 1"):
        ft.grad(lambda n: sp.bdtr(2.0, n, x / 2).sum())(np.array([5.0, 6.0]))
    with pytest.raises(UnsupportedOperationError, match=r"scipy\.special\.nctdtr"):
        ft.grad(lambda t: sp.nctdtr(3.0, 0.5, t).sum())(x)
    with pytest.raises(UnsupportedOperationError, match=r"scipy\.special\.ellipj.*argument 1"):
        ft.grad(lambda m: sp.ellipj(0.5, m)[0].sum())(x / 2)  # (in u it has one since round 14)
    assert current_stack() == ()
    # with the argument held fixed, the others still differentiate
    g = ft.grad(lambda t: sp.stdtr(ft.numpy.stop_gradient(np.array([3.0, 4.0])), t).sum())(x)
    np.testing.assert_allclose(g, _fd(lambda t: sp.stdtr([3.0, 4.0], t).sum(), x, 1e-6), rtol=1e-6)


def test_front_ends_in_ftransforms_scipy_special():
    x = np.array([0.2, 0.9])
    np.testing.assert_allclose(fsp.ellipk(x), sp.ellipk(x), rtol=1e-14)
    np.testing.assert_allclose(
        ft.vmap(ft.grad(lambda m: fsp.ellipk(m)))(x),
        _fd(lambda m: sp.ellipk(m).sum(), x, 1e-6),
        rtol=1e-6,
    )
    sn, cn, dn, ph = fsp.ellipj(x, 0.3)
    np.testing.assert_allclose(sn**2 + cn**2, 1.0)
    assert fsp.eval_legendre.__name__ == "eval_legendre"
    with pytest.raises(AttributeError, match="no attribute 'not_a_function'"):
        fsp.not_a_function  # noqa: B018


def test_a_backend_module_without_the_function_gives_the_backends_clear_error(monkeypatch):
    """CuPy's ``cupyx.scipy.special`` lacks most of these ufuncs (stdtr, eval_legendre in
    CuPy 14): the error names that module, as the special functions of ops/special.py do,
    so that a user (and tests/test_cuda.py) can tell a missing CuPy function from a bug."""
    import types

    import ftransforms.ops.special as special

    lacking = types.SimpleNamespace(__name__="cupyx.scipy.special")
    monkeypatch.setattr(special, "scipy_special", lambda xp: lacking)
    with pytest.raises(UnsupportedOperationError, match=r"cupyx\.scipy\.special has no stdtr"):
        ft.vmap(sp.stdtr)(np.array([2.0, 3.0]), np.array([0.4, 0.7]))
    assert len(current_stack()) == 0
