"""Users' programs, round eleven (the lead's probes): SciPy's and NumPy's functions
differentiated as their users check them, entry by entry against float64 central
differences of the library's own function.

* ``scipy.linalg.eigh`` reads one triangle of ``a`` (and of ``b``), like
  ``scipy.linalg.cholesky`` and ``numpy.linalg.eigh``; its gradient was the symmetric one
  of ``(a + a^T) / 2`` (JAX's), which differs from the differences of SciPy's function
  entry by entry (by 1.1 at an off-diagonal entry here).
* SciPy's solvers (``least_squares``, ``root``, ``minimize``...) under ``vmap`` received a
  residual function's ``np.array([x[0] - p[0], ...])`` (NumPy's object array of traced
  values) as it was, and SciPy wrote tracers into its own buffers (InPlaceError).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
import scipy.linalg

import ftransforms as ft


def _central(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("lower", [True, False])
def test_scipy_eigh_gradient_is_that_of_the_triangle_it_reads(lower):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 4))
    b = a @ a.T + 4 * np.eye(4)
    m = b + a + 2 * a.T  # not symmetric: SciPy reads one triangle
    w = np.arange(1.0, 5.0)

    def values(x):
        return scipy.linalg.eigh(x, lower=lower)[0] @ w

    def generalized_in_a(x):
        return scipy.linalg.eigh(x, b, lower=lower)[0] @ w

    def generalized_in_b(x):
        return scipy.linalg.eigh(m, x, lower=lower, eigvals_only=True) @ w

    def vector(x):
        return (scipy.linalg.eigh(x, b, lower=lower)[1][:, 0] ** 2) @ w

    for f, x in (
        (values, m),
        (generalized_in_a, m),
        (generalized_in_b, b + np.triu(a, 1)),
        (vector, m),
    ):
        np.testing.assert_allclose(ft.grad(f)(x), _central(f, x), rtol=1e-6, atol=1e-7)


@pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")  # a row per solve
def test_scipy_solvers_read_residuals_written_as_np_array_of_traced_values():
    # np.array([x[0] - p[0], ...]) of traced values is NumPy's object array; SciPy's own
    # code received it as such under vmap and wrote tracers into its Jacobian buffer
    # (InPlaceError).
    import scipy.optimize

    def fit(p):
        def residuals(x):
            return np.array([x[0] - p[0], x[1] - p[1], 0.5 * x[0] * x[1]])

        return scipy.optimize.least_squares(
            residuals, np.ones(2), xtol=1e-15, ftol=1e-15, gtol=1e-15
        ).x

    def root(p):
        return scipy.optimize.root(
            lambda x: np.array([x[0] ** 3 + p[0], x[1] - p[1]]), np.ones(2)
        ).x

    ps = np.array([[0.5, 1.1], [0.8, -0.4], [1.2, 0.3]])
    for f in (fit, root):
        np.testing.assert_allclose(ft.vmap(f)(ps), np.stack([f(p) for p in ps]), rtol=1e-7)
        s = lambda p: f(p).sum()  # noqa: E731
        np.testing.assert_allclose(
            ft.grad(s)(ps[0]), _central(s, ps[0], eps=1e-4), rtol=1e-5, atol=1e-7
        )


def test_jax_module_paths_of_ported_code():
    # ``import ftransforms as jax`` and JAX's own submodule paths
    import jax
    from jax.experimental.jet import jet as jax_jet

    import ftransforms.custom_derivatives
    import ftransforms.typing  # noqa: F401
    from ftransforms.experimental.jet import jet

    @ftransforms.custom_derivatives.custom_jvp
    def f(x):
        return np.sin(x)

    f.defjvp(lambda p, t: (np.sin(p[0]), 2.0 * t[0]))
    assert ft.grad(f)(0.3) == 2.0
    g = ft.grad(lambda x, n: x * n, argnums=1, allow_int=True)(2.0, 3)
    assert g.dtype == ft.float0 == ft.dtypes.float0 == jax.dtypes.float0
    assert ft.dtypes.scalar_type_of(np.float32(1)) is float
    assert ft.dtypes.canonicalize_dtype(np.int64) == np.dtype(np.int64)
    ours = jet(np.exp, (0.5,), ((1.0, 0.25),))
    theirs = jax_jet(jax.numpy.exp, (0.5,), ((1.0, 0.25),))
    np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1])


def test_jax_numpy_names_numpy_2_dropped():
    import jax.numpy as jnp

    import ftransforms.numpy as fnp

    for name in ("float_", "complex_", "ComplexWarning"):
        assert getattr(fnp, name) is getattr(jnp, name) or np.dtype(getattr(fnp, name)) == np.dtype(
            getattr(jnp, name)
        ), name


def test_scipy_ndimage_measurements_filters_and_gradient_magnitude():
    import scipy.ndimage as nd

    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 5))
    lab = np.array([[0, 1, 1, 2, 2], [2, -1, 0, 1, 4], [3, 3, 2, 0, 4], [1, 1, 0, 3, 2]])
    for name in (
        "sum_labels",
        "sum",
        "mean",
        "variance",
        "standard_deviation",
        "maximum",
        "minimum",
    ):
        fn = getattr(nd, name)
        for args in ((), (lab,), (lab, 2), (lab, [1, 2, 5]), (lab, np.array([[1], [3]]))):
            got = ft.jit(lambda x: fn(x, *args))(x)  # noqa: B023
            np.testing.assert_allclose(got, fn(x, *args), err_msg=f"{name}{args[1:]}")
            assert np.shape(got) == np.shape(fn(x, *args))
        s = lambda x: np.sum(np.nan_to_num(fn(x, lab, [1, 2, 3])) * [1.0, -2.0, 0.5])  # noqa: B023,E731
        np.testing.assert_allclose(ft.grad(s)(x), _central(s, x), atol=1e-7, err_msg=name)
    filters = (
        lambda x: nd.gaussian_gradient_magnitude(x, (1.0, 0.7), mode="nearest"),
        lambda x: nd.generic_filter(x, np.ptp, size=3),
        lambda x: nd.generic_filter(
            x,
            lambda v, a: v.mean() * a,
            footprint=[[1, 0, 1], [0, 1, 0]],
            mode="constant",
            cval=0.3,
            extra_arguments=(2.0,),
        ),
        lambda x: nd.minimum_filter1d(x, 3, axis=0),
        lambda x: nd.maximum_filter1d(x, 2, mode="wrap", origin=-1),
        lambda x: nd.map_coordinates(x, np.array([[0.5, 2.3], [1.2, 3.3]]), order=3),
    )
    xs = np.stack([x, x[::-1] * 2.0])
    for f in filters:
        np.testing.assert_allclose(ft.vmap(f)(xs), np.stack([f(r) for r in xs]), atol=1e-12)
        s = lambda x: np.sum(f(x) * np.cos(np.arange(f(x).size)).reshape(f(x).shape))  # noqa: B023,E731
        np.testing.assert_allclose(ft.grad(s)(x), _central(s, x), atol=1e-7)


def test_scipy_stats_tests_and_correlations_on_traced_data():
    # scipy.stats' own code for these goes through its array-API layer, which took a
    # traced array for an object array ('ObjectDType' object has no attribute 'dtype')
    import scipy.stats as st

    rng = np.random.default_rng(1)
    x = rng.normal(size=9) + 2.0
    y = rng.normal(size=9) + 0.5 * x
    z = rng.uniform(0.5, 2, size=9)
    calls = {
        "pearsonr": lambda a: st.pearsonr(a, y),
        "pearsonr less": lambda a: st.pearsonr(a, y, alternative="less"),
        "spearmanr": lambda a: st.spearmanr(a, y),
        "linregress": lambda a: (
            tuple(st.linregress(a, y)) + (st.linregress(a, y).intercept_stderr,)
        ),
        "ttest_ind": lambda a: st.ttest_ind(a, y),
        "welch": lambda a: st.ttest_ind(a, y[:6], equal_var=False)[:1],
        "ttest_rel": lambda a: st.ttest_rel(a, y, alternative="greater"),
        "ttest_1samp": lambda a: st.ttest_1samp(a, 1.5),
        "f_oneway": lambda a: st.f_oneway(a, y, z),
        "chisquare": lambda a: st.chisquare(np.abs(a) + 1),
        "describe": lambda a: st.describe(a)[2:],
        "iqr": lambda a: st.iqr(a, scale="normal"),
        "tmean": lambda a: st.tmean(a, (1.0, 3.0)),
        "tvar": lambda a: st.tvar(a, (1.0, None), (False, True)),
        "hmean": lambda a: st.hmean(np.abs(a) + 0.1, weights=z),
        "wasserstein": lambda a: st.wasserstein_distance(a, y, z, z),
        "energy": lambda a: st.energy_distance(a, y[:4]),
        "boxcox_llf": lambda a: st.boxcox_llf(0.5, np.abs(a) + 0.1),
        "binned mean": lambda a: st.binned_statistic(y, a, bins=3).statistic,
        "norm.fit": lambda a: st.norm.fit(a),
    }
    for name, f in calls.items():

        def flat(a, f=f):
            out = f(a)
            return np.hstack([np.ravel(v) for v in (out if isinstance(out, tuple) else (out,))])

        np.testing.assert_allclose(ft.jit(flat)(x), flat(x), rtol=1e-10, err_msg=name)
        xs = np.stack([x, x * 1.1 + 0.2])
        np.testing.assert_allclose(ft.vmap(flat)(xs), np.stack([flat(r) for r in xs]), err_msg=name)
        s = lambda a: flat(a) @ np.cos(np.arange(flat(x).size))  # noqa: B023,E731
        np.testing.assert_allclose(
            ft.grad(s)(x), _central(s, x), rtol=1e-5, atol=1e-7, err_msg=name
        )
    res = st.pearsonr(x, y)
    r, p = ft.jit(lambda a: st.pearsonr(a, y))(x)
    assert res.statistic == pytest.approx(r) and res.pvalue == pytest.approx(p)
    res = ft.vmap(lambda a: st.linregress(a, y))(np.stack([x, x]))
    assert len(res) == 5 and res.intercept_stderr.shape == (2,)


def test_scipy_spectrogram_every_mode():
    import scipy.signal as sg

    x = np.random.default_rng(0).normal(size=(2, 64))
    for kw in (
        {},
        {"nperseg": 16, "mode": "magnitude"},
        {"nperseg": 16, "mode": "phase"},
        {"nperseg": 20, "noverlap": 5, "scaling": "spectrum", "axis": -1},
    ):
        f = lambda x: sg.spectrogram(x, **kw)[2]  # noqa: B023,E731
        with pytest.warns(UserWarning) if not kw else contextlib.nullcontext():
            want = [sg.spectrogram(r, **kw) for r in x]
            got = ft.vmap(lambda r: sg.spectrogram(r, **kw))(x)  # noqa: B023
        np.testing.assert_allclose(got[2], np.stack([w[2] for w in want]), atol=1e-12)
        np.testing.assert_allclose(got[0][0], want[0][0])
        if kw.get("mode") != "phase":
            s = lambda r: np.sum(f(r) * np.cos(np.arange(f(x[0]).size)).reshape(f(x[0]).shape))  # noqa: B023,E731
            np.testing.assert_allclose(ft.grad(s)(x[0]), _central(s, x[0]), rtol=1e-6, atol=1e-8)


def test_x_at_on_numpy_arrays_outside_transforms_is_jax_s():
    # NOTE [x.at on NumPy arrays]: JAX code does img = jnp.zeros(...); img = img.at[...].set(v)
    import jax.numpy as jnp

    import ftransforms.numpy as fnp

    x = fnp.arange(6.0)
    j = jnp.arange(6.0)
    idx = np.array([0, 0, 4])
    ops = (
        lambda a: a.at[1].set(3.0),
        lambda a: a.at[idx].add(1.0),
        lambda a: a.at[np.array([3, 0, 4])].set(np.array([1.0, 2.0, 3.0])),
        lambda a: a.at[::2].multiply(2.0),
        lambda a: a.at[-1].min(-2.0),
        lambda a: a.at[1:3].max(1.5),
        lambda a: a.at[1:3].get(),
        lambda a: a.at[9].get(mode="fill", fill_value=-1.0),
        lambda a: a.at[9].set(7.0, mode="drop"),
        lambda a: a.at[2].apply(np.sin if isinstance(a, np.ndarray) else jnp.sin),
    )
    for op in ops:
        got = op(x)
        assert type(got) is np.ndarray or np.ndim(got) == 0
        np.testing.assert_allclose(got, np.asarray(op(j)))
    np.testing.assert_array_equal(x, np.arange(6.0))  # never written
    assert ft.grad(lambda t: (np.zeros(3).at[1].set(t) * np.arange(3.0)).sum())(2.0) == 1.0
