"""Probe round 11 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py).  Each test compares with the Python loop over the rows (plain
NumPy), with central differences in float64 for derivatives.

* ``np.linalg.eig``/``eigvals`` of a real matrix are real when every eigenvalue is (NumPy
  decides on the data).  Under ``vmap`` the decision was taken over the whole batch, so
  one row with complex eigenvalues made every row's complex: ``np.iscomplexobj(w)`` and
  ``w.dtype.kind`` answered True for the rows whose loop answer is False (a silent wrong
  answer), and ``math.sqrt(w[0])`` raised for them.  Each row decides now (rows that
  disagree split the batch).  Likewise ``scipy.linalg.eig``'s eigenvectors (real when
  every eigenvalue is) and ``np.poly`` of roots in conjugate pairs (real coefficients).
* ``scipy.linalg.funm`` (and the matrix functions built on SciPy's ``_maybe_real``:
  ``tanm``, ``coshm``, ``sinhm``, ``tanhm``, ``fractional_matrix_power``) returned a
  complex matrix for every row once one row's result was complex (``funm(A, np.sqrt)``
  with one negative eigenvalue in the batch); each row decides now.
* ``np.nanargmax``/``nanargmin`` of a row that is all NaN gave -1 on tracers (NumPy
  raises ValueError "All-NaN slice encountered"), so ``try: i = np.nanargmax(x) except
  ValueError: ...`` took ``x[-1]`` for that row.  The row raises now (the others
  compute).
* NumPy's checks of traced values were skipped: ``np.geomspace`` with a start of 0,
  ``np.cov`` with negative ``aweights`` or non-integer ``fweights`` gave numbers where
  NumPy raises (every row, and the rows a ``try`` in ``f`` should send to ``except``).
  They are read per row now.
* ``scipy.linalg.null_space``/``orth`` of rows of different numerical rank, and
  ``scipy.ndimage.rotate(reshape=True)`` of rows with different angles, raised
  UnsupportedOperationError where the loop gives each row its own shape (used through
  ``.shape[1]`` or a sum, the rows agree again); rows of other shapes split the batch now.
* ``scipy.ndimage.rotate`` with a traced angle (``vmap``/``grad``/``jvp`` in the angle)
  took ``cos(deg2rad(90))`` = 6e-17 where SciPy takes ``cosdg(90)`` = 0: pixels on the
  border came out 0 (a sum of 540 where SciPy gives 570).
* ``scipy.linalg.sqrtm``/``logm`` of a real matrix with a real eigenvalue <= 0 (SciPy:
  a complex result) gave a wrong real matrix under every transform (``sqrtm(diag(-1,
  4))`` came out ``diag(-0.58, 2.31)``).  They raise now, naming the eigendecomposition
  to use, for those rows only (``try``/``except`` in ``f`` takes the loop's path).
* ``np.random.seed(int(seed))`` of a row under ``vmap(randomness='different')``: two rows
  with the same seed drew the seed's first and second numbers (the loop draws the first
  for both: a silent difference).  Rows that reseed now share the draws that follow
  (NOTE [seeds of some rows] in ftransforms/row_seeds.py); ``np.random.seed(t)`` and
  ``np.random.default_rng(t)`` of a traced seed read the row's number (NumPy raised
  TypeError).
* Cost: ``int(x)`` of a float row split the batch by the row's number, not by the int it
  gives (1000 distinct floats: 1000 runs of ``f`` where 100 integers among them need
  100), and ``if n:`` by the number, not its truth (counts 0..9: ten groups where two
  paths need two).  A read now groups rows by the Python value it gives (NOTE [the
  Python value a read gives] in ftransforms/core/tracer.py).
"""

import math
import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.ndimage

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.stack import current_stack


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
        warnings.filterwarnings("ignore", "jit.*depends on data", RuntimeWarning)
        yield
    assert current_stack() == ()


def _loop(f, xs, *args):
    return np.stack([np.asarray(f(x, *args)) for x in xs])


def _diff(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        out.flat[i] = (np.sum(f(x + e)) - np.sum(f(x - e))) / (2 * eps)
    return out


# -- eig's real-or-complex decision per row ---------------------------------------------

ROTATIONS = np.array(
    [[[0.0, 1], [-1, 0]], [[2.0, 0], [0, 3]], [[1.0, 2], [3, 4]], [[0, 1], [-1, 0]]]
)


def _eig_kind(m):
    w = np.linalg.eigvals(m)
    return (w.real.sum() if np.iscomplexobj(w) else 2 * w.sum()) + (w.dtype.kind == "c")


def _eig_sqrt(m):
    w, _ = np.linalg.eig(m)
    return abs(w[0]) if np.iscomplexobj(w) else math.sqrt(abs(w[0]))


def test_eig_decides_real_or_complex_per_row():
    for f in (_eig_kind, _eig_sqrt):
        want = _loop(f, ROTATIONS)
        np.testing.assert_allclose(ft.vmap(f)(ROTATIONS), want)
        np.testing.assert_allclose(ft.vmap(f, chunk_size=3)(ROTATIONS), want)
        np.testing.assert_allclose(
            ft.vmap(ft.vmap(f))(np.stack([ROTATIONS, ROTATIONS[::-1]])), [want, want[::-1]]
        )
    grads = ft.vmap(ft.grad(_eig_kind))(ROTATIONS)
    np.testing.assert_allclose(grads, [_diff(_eig_kind, m) for m in ROTATIONS], atol=1e-6)
    # a stack outside vmap keeps NumPy's rule: one decision for the stack
    assert fnp.linalg.eigvals(ROTATIONS).dtype == np.complex128
    assert fnp.linalg.eigvals(ROTATIONS[1:3]).dtype == np.float64
    with pytest.raises(ft.errors.BatchedControlFlowError, match="complex for some"):
        ft.vmap(_eig_kind, split=False)(ROTATIONS)


def _scipy_eig_kind(m):
    w, v = scipy.linalg.eig(m)
    return float(np.iscomplexobj(v)) + w.real.sum()


def _poly_kind(r):
    c = np.poly(r)
    return float(np.iscomplexobj(c)) + c.real.sum()


def test_scipy_eig_and_poly_decide_real_or_complex_per_row():
    np.testing.assert_allclose(
        ft.vmap(_scipy_eig_kind)(ROTATIONS), _loop(_scipy_eig_kind, ROTATIONS)
    )
    roots = np.array([[1j, -1j], [1.0, 2.0], [1 + 1j, 2.0], [0.5 + 2j, 0.5 - 2j]])
    np.testing.assert_allclose(ft.vmap(_poly_kind)(roots), _loop(_poly_kind, roots))
    assert fnp.poly(roots[2]).dtype == np.complex128 and fnp.poly(roots[0]).dtype == np.float64


def _funm_kind(m):
    f = scipy.linalg.funm(m, np.sqrt)
    return float(np.iscomplexobj(f)) + f.real.sum()


def test_funm_decides_real_or_complex_per_row():
    want = _loop(_funm_kind, ROTATIONS)
    np.testing.assert_allclose(ft.vmap(_funm_kind)(ROTATIONS), want)
    np.testing.assert_allclose(ft.vmap(_funm_kind, chunk_size=3)(ROTATIONS), want)


def _best_or_first(x):
    try:
        return x[np.nanargmax(x)] * 2
    except ValueError:
        return x[0] * 0 + 1.0


def test_nanargmax_of_an_all_nan_row_raises_for_that_row():
    xs = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [np.nan, 5.0, 4.0]])
    want = _loop(_best_or_first, xs)
    np.testing.assert_allclose(ft.vmap(_best_or_first)(xs), want)
    np.testing.assert_allclose(ft.vmap(ft.grad(_best_or_first))(xs[[0, 2]]), [[0, 0, 2], [0, 2, 0]])
    with pytest.raises(ValueError, match="All-NaN"):
        ft.grad(lambda x: x[np.nanargmin(x)])(xs[1])


def _geomspace_or(start):
    try:
        return np.geomspace(start, 10.0, 3)
    except ValueError:
        return np.zeros(3)


def _cov_or(x, aweights, fweights):
    try:
        return np.cov(x, aweights=aweights, fweights=fweights)
    except (ValueError, TypeError) as err:
        return np.full((2, 2), 1.0 if isinstance(err, ValueError) else 2.0)


def test_numpys_checks_of_traced_values_raise_for_their_rows():
    starts = np.array([1.0, 0.0, 2.0])
    np.testing.assert_allclose(ft.vmap(_geomspace_or)(starts), _loop(_geomspace_or, starts))
    xs = np.random.default_rng(0).normal(size=(3, 2, 5))
    aw = np.array([[1.0, 2, 1, 1, 1], [1, -1, 1, 1, 1], [1, 1, 1, 1, 3]])
    fw = np.array([[1.0, 2, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1.5, 1, 1, 3]])
    want = np.stack([_cov_or(x, a, f.copy()) for x, a, f in zip(xs, aw, fw)])  # NumPy's cov
    # multiplies float fweights by aweights in place
    np.testing.assert_allclose(ft.vmap(_cov_or)(xs, aw, fw), want)
    with pytest.raises(ValueError, match="cannot include zero"):
        ft.grad(lambda s: np.geomspace(s, 10.0, 3).sum())(0.0)


# -- shapes read from the data, per row -------------------------------------------------

SINGULAR = np.array(
    [[[1.0, 2], [2, 4]], [[1.0, 0], [0, 1]], [[0.0, 0], [0, 0]], [[3.0, 1], [6, 2]]]
)


def _nullity(a):
    return scipy.linalg.null_space(a).shape[1] + scipy.linalg.orth(a).sum() ** 2


def test_bases_of_rows_of_different_rank_split():
    want = _loop(_nullity, SINGULAR)
    np.testing.assert_allclose(ft.vmap(_nullity)(SINGULAR), want)
    np.testing.assert_allclose(ft.vmap(_nullity, chunk_size=3)(SINGULAR), want)
    with pytest.raises(ft.errors.SplitOutputError, match="different shapes"):
        ft.vmap(scipy.linalg.null_space)(SINGULAR)


IMAGE = np.arange(20.0).reshape(4, 5)


def _rotated(angle):
    out = scipy.ndimage.rotate(IMAGE * angle / 30, angle, reshape=True, order=1)
    return out.sum() + out.shape[0]


def test_rotate_with_per_row_angles_of_other_shapes():
    angles = np.array([0.0, 30.0, 90.0, 30.0, 180.0])
    want = _loop(_rotated, angles)
    np.testing.assert_allclose(ft.vmap(_rotated)(angles), want, rtol=1e-12)
    eps = 1e-6
    np.testing.assert_allclose(
        ft.vmap(ft.grad(_rotated))(np.array([10.0, 30.0])),
        [(_rotated(a + eps) - _rotated(a - eps)) / (2 * eps) for a in (10.0, 30.0)],
        rtol=1e-6,
    )
    np.testing.assert_allclose(ft.jvp(_rotated, (90.0,), (1.0,))[0], _rotated(90.0))


# -- the rows a read groups together ----------------------------------------------------


def test_int_and_bool_reads_group_rows_by_the_python_value_they_give():
    runs = []

    def frac(x):
        runs.append(1)
        return x - int(x)

    xs = np.random.default_rng(0).uniform(-5, 5, 200)
    np.testing.assert_allclose(ft.vmap(frac)(xs), _loop(frac, xs))
    runs.clear()
    ft.vmap(frac)(xs)
    assert len(runs) == 1 + len({int(x) for x in xs})  # one run per integer among them, not per row

    def scaled(x):
        runs.append(1)
        n = np.count_nonzero(x > 1.0)
        return x.sum() * n if n else -x.sum()

    rows = np.random.default_rng(1).normal(size=(200, 8))
    np.testing.assert_allclose(ft.vmap(scaled)(rows), _loop(scaled, rows))
    runs.clear()
    ft.vmap(scaled)(rows)
    assert len(runs) == 3  # two paths, whatever the counts
    # the Python values are the loop's: truth of NaN and of -0.0, int of -0.5 and of 2.99
    odd = np.array([-0.5, 0.5, -1.5, 2.99, 3.0, -0.0, 0.0, np.nan, 7.0])

    def both(x):
        return (x * 2 if x else x + 1) + (int(x) if x == x else 0)

    np.testing.assert_array_equal(ft.vmap(both)(odd), _loop(both, odd))
    with pytest.raises(ValueError, match="NaN"):
        ft.vmap(lambda x: x * int(x))(odd)
    grads = ft.vmap(ft.grad(lambda x: x * int(x * 10)))(np.array([0.15, 0.25, 0.17]))
    np.testing.assert_allclose(grads, [1.0, 2.0, 1.0])
    nested = ft.vmap(ft.vmap(lambda x: x * int(x * 10)))(np.array([[0.15, 0.25], [0.17, 0.31]]))
    np.testing.assert_allclose(nested, [[0.15, 0.5], [0.17, 0.93]])


# -- matrix functions of matrices with eigenvalues on the negative axis -----------------


def test_sqrtm_and_logm_refuse_a_negative_real_eigenvalue_per_row():
    mats = np.array(
        [[[4.0, 0], [0, 9]], [[-1.0, 0], [0, 4]], [[2.0, 1], [1, 2]], [[0, 1], [-1, 0]]]
    )

    def root_or(m):
        try:
            return scipy.linalg.sqrtm(m).sum() + scipy.linalg.logm(m).sum()
        except ft.errors.UnsupportedOperationError:
            return -1.0

    want = [-1.0 if i == 1 else root_or(m) for i, m in enumerate(mats)]
    np.testing.assert_allclose(ft.vmap(root_or)(mats), want, atol=1e-10)
    for fn in (scipy.linalg.sqrtm, scipy.linalg.logm):
        with pytest.raises(ft.errors.UnsupportedOperationError, match="eigenvalue <= 0") as info:
            ft.vmap(fn)(mats)
        assert "row(s) 1" in " ".join(info.value.__notes__)
        with pytest.raises(ft.errors.UnsupportedOperationError, match="np.linalg.eig"):
            ft.grad(lambda m, fn=fn: fn(m).real.sum())(mats[1])


# -- NumPy's generators seeded per row --------------------------------------------------


def _augmented(x, seed):
    np.random.seed(int(seed))
    noise = np.random.normal(size=2)
    return x + noise if x[0] > 0 else x - np.random.uniform()


def _from_own_generator(x, seed):
    return x + np.random.default_rng(seed).normal(size=2)


def test_rows_that_seed_numpys_generator_draw_as_the_loop():
    xs = np.array([[1.0, 2.0], [0.5, -1.0], [-1.0, 0.5], [2.0, 2.0], [-3.0, 1.0]])
    seeds = np.array([3, 5, 3, 3, 5])
    for f in (_augmented, _from_own_generator):
        want = np.stack([f(x, s) for x, s in zip(xs, seeds)])
        got = ft.vmap(f, randomness="different")(xs, seeds)
        np.testing.assert_allclose(got, want)
        np.testing.assert_allclose(
            ft.vmap(f, randomness="different", chunk_size=2)(xs, seeds), want
        )
    grads = ft.vmap(ft.grad(lambda x, s: _augmented(x, s).sum()), randomness="different")(xs, seeds)
    np.testing.assert_allclose(grads, np.ones_like(xs))
    with pytest.raises(ft.errors.RandomnessError):
        ft.vmap(_augmented)(xs, seeds)
