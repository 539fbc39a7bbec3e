"""Probe round 11 on vmap of per-example Python code (NOTE [splitting the batch] in
ftransforms/split.py).  Each test compares with the Python loop over the rows (plain
NumPy), with central differences in float64 for derivatives.

* ``np.linalg.eig``/``eigvals`` of a real matrix are real when every eigenvalue is (NumPy
  decides on the data).  Under ``vmap`` the decision was taken over the whole batch, so
  one row with complex eigenvalues made every row's complex: ``np.iscomplexobj(w)`` and
  ``w.dtype.kind`` answered True for the rows whose loop answer is False (a silent wrong
  answer), and ``math.sqrt(w[0])`` raised for them.  Each row decides now (rows that
  disagree split the batch).
"""

import math
import warnings

import numpy as np
import pytest

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
