"""Published programs, round eight: programs run unchanged, with their authors' import
lines (``import numpy as np``; ``jax``/``autograd`` replaced by ``ftransforms``).

Each program lives in its own module under ``tests/published8/`` with its bodies
verbatim, plotting and data files left out. Sizes and iteration counts are shrunk.

Programs: HIPS autograd's ``bayesian_optimization.py``.

Oracles: the programs' own hand-written gradients, float64 central differences, Python
loops for ``vmap``, plain NumPy/SciPy for values.

What this round found and fixed (each has a test here):

* autograd's ``grad``/``value_and_grad`` differentiate an output of one element of any
  shape (bayesian_optimization.py's acquisition returns shape ``(1,)``), which ``ft.grad``
  refuses as JAX does: ``ftransforms.autograd_compat`` now has autograd's ``grad`` and
  ``value_and_grad`` (NOTE [autograd's size-one outputs]).
"""

from __future__ import annotations

import numpy as np
import optree
import pytest
import scipy.optimize
import scipy.stats

import ftransforms as ft
from tests.published8 import autograd_bayesian_optimization
from tests.tolerances import FD_TOL, assert_tree_close, tol

TOL = tol(np.float64)


def close(actual, expected, tolerance=TOL, msg=""):
    """``actual`` (what a transform or program returned) is ``expected`` to ``tolerance``."""
    assert_tree_close(actual, optree.tree_map(np.asarray, expected), err_msg=msg, **tolerance)


def fd_jacobian(f, x, eps=1e-3):
    """4th-order central differences in float64 of ``f`` at ``x``."""
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        at = lambda v: np.asarray(f(v), dtype=np.float64)  # noqa: E731
        cols.append((-at(x + 2 * e) + 8 * at(x + e) - 8 * at(x - e) + at(x - 2 * e)) / (12 * eps))
    out = np.stack(cols, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


@pytest.fixture
def rng():
    return np.random.default_rng(8)


# ======================================================================================
# 1. autograd's bayesian_optimization.py: scipy.optimize.minimize(value_and_grad(f),
#    jac=True) of a shape-(1,) acquisition and of the GP's marginal likelihood; every
#    (value, gradient) the optimizer got against plain SciPy values and differences
# ======================================================================================


def test_autograd_bayesian_optimization(monkeypatch, capsys):
    m = autograd_bayesian_optimization
    calls = []

    def recording_minimize(fun, x0, *args, **kwargs):
        calls.append((fun, np.array(x0, dtype=float), kwargs["method"]))
        if kwargs["method"] == "L-BFGS-B":  # shrunk: 3 iterations per start, not 10
            kwargs["options"] = {"maxiter": 3}
        return scipy.optimize.minimize(fun, x0, *args, **kwargs)

    monkeypatch.setattr(m, "minimize", recording_minimize)
    steps = []

    def callback(X, y, predict_func, acquisition_function, next_point, new_value):
        steps.append((X, y, predict_func, acquisition_function))

    lo, hi = np.array([0.0]), np.array([1.1])
    best_x, best_y = m.bayesian_optimize(m.example_function, lo, hi, num_iters=3, callback=callback)
    assert capsys.readouterr().out.count("Optimizing model parameters...") == 1
    X, y = steps[-1][0], steps[-1][1]
    assert X.shape == (4, 1) and np.all((lo <= X) & (X <= hi))
    close(y, np.array([np.sum(x * np.sin(10.0 * x) + x) - 1 for x in X]))
    close(best_y, y.max())
    assert [c[2] for c in calls].count("CG") == 1 and len(calls) == 1 + 3 * 15

    # the acquisition's (value, gradient) as the optimizer saw them: autograd's shape-(1,)
    # value, SciPy's expected-improvement formula, and differences
    for fun, x0, method in calls[:2] + calls[-2:]:
        value, g = fun(x0)
        close(g, fd_jacobian(lambda x: np.reshape(fun(x)[0], ()), x0, eps=1e-4), FD_TOL)
        if method == "L-BFGS-B":
            assert value.shape == (1,) and g.shape == (1,)
    _, _, predict_func, acquisition_function = steps[-1]
    xs = np.array([[0.1], [0.7]])
    mean, std = predict_func(xs)
    ymax = y[:-1].max()
    norm = scipy.stats.norm
    expected = ymax - (mean - ymax) * norm.cdf(mean, ymax, std) + std * norm.pdf(mean, ymax, std)
    close(np.concatenate([acquisition_function(x) for x in xs]), expected)
    # the GP's objective, minimised by CG from zeros: its gradient against differences
    cg_fun, cg_x0, _ = next(c for c in calls if c[2] == "CG")
    for p in (cg_x0, cg_x0 + 0.3):
        value, g = cg_fun(p)
        assert np.ndim(value) == 0
        close(g, fd_jacobian(lambda q: cg_fun(q)[0], p), {"rtol": 1e-6, "atol": 1e-7})


def test_autograd_compat_grad_takes_outputs_of_one_element(rng):
    from ftransforms.autograd_compat import grad, value_and_grad

    x = rng.normal(size=3)

    def f(x):
        return np.sin(x[:1]) * np.sum(x**2, keepdims=True)[None]  # shape (1, 1)

    value, g = value_and_grad(f)(x)
    assert value.shape == (1, 1)
    close(value, np.sin(x[:1])[None] * np.sum(x**2))
    close(g, fd_jacobian(lambda v: f(v).reshape(()), x), FD_TOL)
    close(grad(f)(x), g)
    # argnum as autograd's: a tuple gives a tuple; second derivatives; under vmap and jit
    gx, gy = grad(lambda a, b: (a * b)[:1], argnum=(0, 1))(x, 2 * x)
    close((gx, gy), (np.r_[2 * x[0], 0.0, 0.0], np.r_[x[0], 0.0, 0.0]))
    close(grad(grad(lambda s: np.sin(s)))(0.3), -np.sin(0.3))
    X = rng.normal(size=(4, 3))
    close(ft.vmap(grad(f))(X), np.stack([grad(f)(r) for r in X]))
    close(ft.jit(value_and_grad(f))(X[0]), value_and_grad(f)(X[0]))
    # a scalar output is a scalar, as ft.grad's
    assert np.ndim(value_and_grad(lambda v: np.sum(v))(x)[0]) == 0
    with pytest.raises(ft.errors.GradOutputError, match=r"^value_and_grad\(<lambda>, argnum=0\)"):
        grad(lambda v: v * 2)(x)
    with pytest.raises(ft.errors.GradOutputError, match="dtype"):
        grad(lambda v: v[:1].astype(np.int64))(x)
    with pytest.raises(ft.errors.ArgnumsError):
        grad(f, argnum=1)(x)
    close(grad(f)(x), g)  # the stack is clean after the errors
