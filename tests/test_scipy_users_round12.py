"""SciPy users, round 12: derivatives in shape parameters (betainc in a and b and the
distribution functions built on it), ..."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import UnsupportedOperationError


def _central(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


# -- betainc in a and b (NOTE [betainc in a and b]) -------------------------------------------

#: (a, b, x, dI/da, dI/db): mpmath's diff of its betainc at 40 digits
BETAINC_REFERENCE = [
    (2.0, 3.0, 0.4, -0.24086937608755657, 0.15634433641359877),
    (0.5, 0.5, 0.9, -0.2768155243583512, 0.5926200221433794),
    (0.1, 5.0, 0.01, -2.066012355850319, 0.016147841083269478),
    (30.0, 40.0, 0.5, -0.025039368671131827, 0.021652489043227995),
    (100.0, 2.0, 0.97, -0.004367071583510549, 0.1891241980111736),
    (1000.0, 1000.0, 0.49, -0.006041047012048269, 0.005921424296404131),
    (2.0, 3.0, 1e-5, -6.557669175898806e-09, 3.4999133339583333e-10),
]


def test_betainc_derivative_in_a_and_b_matches_mpmath():
    a, b, x, da, db = (np.array(c) for c in zip(*BETAINC_REFERENCE))
    ga, gb = ft.vmap(ft.grad(sp.betainc, argnums=(0, 1)))(a, b, x)
    np.testing.assert_allclose(ga, da, rtol=1e-10)
    np.testing.assert_allclose(gb, db, rtol=1e-10)
    # forward mode, and the large-parameter path (differences of SciPy's betainc)
    for a, b, x in [(2.0, 3.0, 0.4), (2e4, 3e4, 0.41)]:
        t = ft.jvp(lambda p, q: sp.betainc(p, q, x), (a, b), (1.0, 0.0))[1]
        assert t == pytest.approx(_central(lambda p: sp.betainc(p, b, x), a, 1e-6 * a), rel=1e-6)


def test_betainc_mixed_derivative_and_refused_second_order():
    def da(a, x):
        return ft.grad(sp.betainc, argnums=0)(a, 3.0, x)

    got = ft.grad(da, argnums=1)(2.0, 0.4)
    assert got == pytest.approx(_central(lambda x: da(2.0, x), 0.4, 1e-5), rel=1e-7)
    with pytest.raises(UnsupportedOperationError, match="a to second order"):
        ft.hessian(sp.betainc)(2.0, 3.0, 0.4)
    assert current_stack() == ()


@pytest.mark.parametrize(
    "name,args",
    [
        ("stdtr", (4.5, -0.7)),
        ("stdtrit", (4.5, 0.8)),
        ("fdtr", (3.0, 7.0, 1.4)),
        ("fdtri", (3.0, 7.0, 0.6)),
        ("betaincinv", (2.0, 3.0, 0.4)),
        ("chdtr", (3.5, 2.0)),
        ("gdtr", (1.5, 2.5, 1.2)),
        ("gammaincinv", (2.5, 0.4)),
    ],
)
def test_distribution_functions_in_their_shape_parameters(name, args):
    f = getattr(sp, name)
    for i in range(len(args)):
        h = 1e-5 * max(1.0, abs(args[i]))

        def along(t, i=i):
            return f(*args[:i], t, *args[i + 1 :])

        got = ft.grad(along)(args[i])
        assert got == pytest.approx(_central(along, args[i], h), rel=1e-6), (name, i)


def test_welch_t_test_p_value_differentiates_in_the_samples():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=8), rng.normal(size=6) + 0.5

    def p(x):
        return st.ttest_ind(x, y, equal_var=False).pvalue

    g = ft.grad(p)(x)
    want = [_central(lambda t: p(x + t * e), 0.0, 1e-6) for e in np.eye(8)]
    np.testing.assert_allclose(g, want, rtol=1e-6)
    # and the t distribution's cdf in df
    got = ft.grad(lambda df: st.t.cdf(1.3, df))(4.5)
    assert got == pytest.approx(_central(lambda df: st.t.cdf(1.3, df), 4.5, 1e-5), rel=1e-6)
