"""Array-likes holding tracers (NOTE [array-likes holding tracers] in
ftransforms/numpy/helpers.py), object arrays of tracers under ufuncs, number conversions
(NOTE [number conversions] in ftransforms/core/tracer.py) and the transform boundary
(NOTE [transform boundary] in ftransforms/boundary.py).

Each ``fnp`` case is written once as ``case(m, x)`` for a module ``m``: ``m = numpy`` on
plain values is the oracle for the value, ``m = ftransforms.numpy`` with lists and tuples
holding tracers is checked under grad and jvp (float64 central differences), vmap (the
per-example loop) and jit (the eager value).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.boundary import OUTPUT_CONVERTERS
from ftransforms.core.stack import current_stack
from ftransforms.errors import TracerConversionError

X = np.array([0.3, 0.7, 1.2, 2.0])
XS = np.array([[0.3, 0.7, 1.2, 2.0], [1.1, -0.4, 0.6, 0.9], [0.5, 1.5, -1.0, 0.2]])

CASES = {
    "sin": lambda m, x: m.sum(m.sin([x[0], 2.0, x[1]])),
    "add": lambda m, x: m.sum(m.add([x[0], 2.0], 1.0) * m.add(1.0, (x[1], x[2]))),
    "mean": lambda m, x: m.mean([x[0], x[1], 3.0]),
    "mean_axis": lambda m, x: m.sum(m.mean([[x[0], 1.0], [2.0, x[1]]], axis=0) ** 2),
    "sum_nested_tuples": lambda m, x: m.sum(((x[0], 1), (2, x[1] * x[2]))),
    "prod": lambda m, x: m.prod([x[0], x[1], 3.0]),
    "max": lambda m, x: m.max([x[0], x[1], 0.1]),
    "std": lambda m, x: m.std([x[0], x[1], 3.0]),
    "var": lambda m, x: m.var([x[0], x[1], x[2]]),
    "cumsum": lambda m, x: m.sum(m.cumsum([x[0], x[1], 3.0]) ** 2),
    "dot": lambda m, x: m.dot([x[0], x[1]], [x[2], 2.0]),
    "matmul": lambda m, x: m.sum(m.matmul([[x[0], 1.0], [2.0, x[1]]], [x[2], 2.0]) ** 2),
    "outer": lambda m, x: m.sum(m.outer([x[0], x[1]], (x[2], 2.0)) ** 2),
    "einsum": lambda m, x: m.einsum("i,i->", [x[0], x[1]], [x[2], 2.0]),
    "where": lambda m, x: m.sum(m.where([True, False], [x[0], x[1]], [x[2], 2.0]) ** 2),
    "concatenate": lambda m, x: m.sum(m.concatenate([[x[0], 1.0], [x[1]]]) ** 2),
    "stack": lambda m, x: m.sum(m.stack([[x[0], 1.0], [x[1], 2]]) ** 3),
    "norm": lambda m, x: m.linalg.norm([x[0], x[1], 3.0]),
    "det": lambda m, x: m.linalg.det([[x[0], 1.0], [2.0, x[1]]]),
    "inv": lambda m, x: m.sum(m.linalg.inv([[x[0], 1.0], [2.0, x[1] + 3]])),
    "solve": lambda m, x: m.sum(m.linalg.solve([[x[0] + 2, 1.0], [2.0, x[1] + 3]], [x[2], 1.0])),
    "clip": lambda m, x: m.sum(m.clip([x[0], x[1], 3.0], 0.5, 2.5) ** 2),
    "abs": lambda m, x: m.sum(m.abs([x[0], -x[1]])),
    "maximum": lambda m, x: m.sum(m.maximum([x[0], x[1]], 0.5) ** 2),
    "reshape": lambda m, x: m.sum(m.reshape([x[0], x[1], x[2], 1.0], (2, 2))[0] ** 2),
    "transpose": lambda m, x: m.sum(m.transpose([[x[0], x[1]], [x[2], 1.0]])[0] ** 2),
    "diff": lambda m, x: m.sum(m.diff([x[0], x[1], x[2]]) ** 2),
    "sort": lambda m, x: m.sort([x[2], x[0], x[1]])[0],
    "trace": lambda m, x: m.trace([[x[0], 1.0], [2.0, x[1]]]),
    "tensordot": lambda m, x: m.tensordot([x[0], x[1]], [x[2], 2.0], 1),
    "average": lambda m, x: m.average([x[0], x[1]], weights=[1.0, 2.0 + x[2]]),
    "cross": lambda m, x: m.sum(m.cross([x[0], x[1], 1.0], [x[2], 2.0, 0.5]) ** 2),
    "roll": lambda m, x: m.sum(m.roll([x[0], x[1]], 1) * np.array([1.0, 2.0])),
    "flip": lambda m, x: m.sum(m.flip([x[0], x[1]]) * np.array([1.0, 2.0])),
    "atleast_1d": lambda m, x: m.sum(m.atleast_1d([x[0], x[1]]) ** 2),
    "atleast_2d": lambda m, x: m.sum(m.atleast_2d((x[0], x[1]))[0] ** 2),
    "real": lambda m, x: m.sum(m.real([x[0], x[1]]) ** 2),
    "pad": lambda m, x: m.sum(m.pad([x[0], x[1]], 1) ** 2),
    "take": lambda m, x: m.sum(m.take([x[0], x[1]], [1, 1]) ** 2),
    "polyval": lambda m, x: m.polyval([x[0], x[1]], x[2]),
    "interp": lambda m, x: m.interp(1.5, [1.0, 2.0], [x[0], x[1]]),
    "median": lambda m, x: m.median([x[0], x[1], x[2]]),
    "convolve": lambda m, x: m.sum(m.convolve([x[0], x[1]], [1.0, x[2]]) ** 2),
    "vdot": lambda m, x: m.vdot([x[0], x[1]], [x[2], 2.0]),
    "kron": lambda m, x: m.sum(m.kron([x[0], x[1]], [x[2], 2.0]) ** 2),
    "zeros_like": lambda m, x: m.sum(m.zeros_like([x[0], x[1]])) + x[0],
    "full_like": lambda m, x: m.sum(m.full_like([x[0], x[1]], 2.0)) * x[1],
}


def fd_grad(f, x, h=1e-6):
    e = np.eye(x.size) * h
    return np.array([(f(x + e[i]) - f(x - e[i])) / (2 * h) for i in range(x.size)])


def close(a, b, rtol=1e-7, atol=1e-9):
    a = np.asarray(a)
    assert a.dtype != object, "an object array escaped the transform"
    np.testing.assert_allclose(a, np.asarray(b, dtype=float), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fnp_takes_lists_holding_tracers(name):
    case = CASES[name]

    def plain(x):
        return float(case(np, x))

    def traced(x):
        return case(fnp, x)

    close(traced(X), plain(X))  # no transform: lists of numbers
    close(ft.grad(traced)(X), fd_grad(plain, X), rtol=1e-5, atol=1e-7)
    t = np.array([0.3, -1.0, 0.5, 2.0])
    out, tan = ft.jvp(traced, (X,), (t,))
    close(out, plain(X))
    close(tan, fd_grad(plain, X) @ t, rtol=1e-5, atol=1e-7)
    close(ft.vmap(traced)(XS), [plain(x) for x in XS])
    close(ft.vmap(ft.grad(traced))(XS), [fd_grad(plain, x) for x in XS], rtol=1e-5, atol=1e-7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a value-dependent trace runs eagerly
        close(ft.jit(traced)(X), plain(X))
        close(ft.jit(ft.grad(traced))(XS[1]), fd_grad(plain, XS[1]), rtol=1e-5, atol=1e-7)
    assert not current_stack()


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda t: [t, 1.0], np.float64),  # a Python float in a list counts as float64
        (lambda t: [t, np.float32(1.0)], np.float32),
        (lambda t: (t, 1), np.float64),  # ... and so does an int (int64) beside a float32
        (lambda t: [[t], [True]], np.float32),
        (lambda t: [t.astype(np.int32), 2], np.int64),  # NumPy: int32 with an int64 in a list
        (lambda t: [t.astype(np.int32) > 0, 1.5], np.float64),
    ],
)
def test_the_dtype_of_a_list_holding_tracers_is_numpys(build, expected):
    expected = np.dtype(expected)
    v = np.float32(1.5)
    assert np.asarray(build(v)).dtype == expected  # the oracle: NumPy on plain values
    seen = []
    ft.vmap(lambda t: seen.append(fnp.asarray(build(t)).dtype) or t)(np.ones(2, np.float32))
    ft.grad(lambda t: seen.append(fnp.mean(build(t)).dtype) or t)(v)
    assert seen[0] == expected
    assert seen[1] == np.result_type(expected, np.float64 if expected.kind in "iub" else expected)


def test_an_inhomogeneous_list_holding_tracers_raises_as_numpy_does():
    with pytest.raises(ValueError, match="inhomogeneous"):
        ft.grad(lambda x: fnp.sum([x, [x, 1.0]]))(1.0)
    assert not current_stack()


# -- object arrays holding tracers under ufuncs ------------------------------------------


def test_numpy_ufuncs_on_object_arrays_of_tracers():
    def f(x):
        y = np.sqrt(np.asarray(x) + 1.0)  # an object array of 0-d tracers
        return np.sum(np.exp(-y) * np.log1p(np.abs(np.asarray([x[0], x[1] * x[2]]))).sum())

    def plain(x):
        return float(f(x))

    close(ft.grad(f)(X), fd_grad(plain, X), rtol=1e-5, atol=1e-8)
    close(ft.vmap(f)(XS), [plain(x) for x in XS])
    t = np.array([1.0, 0.0, -1.0, 0.5])
    close(ft.jvp(f, (X,), (t,))[1], fd_grad(plain, X) @ t, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize(
    "u", [np.arctan2, np.hypot, np.floor, np.ceil, np.trunc, np.power, np.exp, np.tanh]
)
def test_each_numpy_ufunc_on_object_arrays_of_tracers(u):
    # NumPy's object loops call t.arctan2(u), math.floor(t), ...: the tracers answer them
    w = np.array([1.0, -2.0, 0.5])

    def f(x):
        o = np.asarray(x[:3])
        args = (o, o[::-1]) if u.nin == 2 else (o,)
        return fnp.sum(fnp.asarray(u(*args)) * w)

    def plain(x):
        args = (x[:3], x[:3][::-1]) if u.nin == 2 else (x[:3],)
        return float(np.sum(u(*args) * w))

    close(f(X), plain(X))
    close(ft.grad(f)(X), fd_grad(plain, X), rtol=1e-5, atol=1e-8)
    close(ft.vmap(f)(XS[:, :] + 3.0), [plain(x) for x in XS + 3.0])
    close(ft.jacfwd(f)(X), fd_grad(plain, X), rtol=1e-5, atol=1e-8)


# -- number conversions -------------------------------------------------------------------


def test_float_of_a_comparison_is_the_same_with_and_without_jit():
    def f(x, y):
        return float(x >= 0) * y * x

    for x in (1.5, -2.0, 0.5):  # the sign changes: a stale recording would be wrong
        expected = (x >= 0) * 2.0
        assert ft.grad(f)(x, 2.0) == expected
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            assert ft.jit(ft.grad(f))(x, 2.0) == expected
            assert ft.grad(ft.jit(f))(x, 2.0) == expected
            assert ft.jit(f)(np.array(x), 2.0) == f(x, 2.0)


def test_int_of_a_traced_value_truncates_with_an_exact_zero_derivative():
    def f(x):
        return x * int(x) + sum(x for _ in range(int(x)))  # NumPy truncates

    for x in (2.5, 3.2, 0.7):
        plain = f(x)
        assert ft.grad(f)(x) == pytest.approx(2 * int(x))
        out, tan = ft.jvp(f, (x,), (1.0,))
        assert out == pytest.approx(plain) and tan == pytest.approx(2 * int(x))
        assert ft.jacfwd(f)(x) == pytest.approx(2 * int(x))


def test_float_of_a_differentiated_float_keeps_its_error():
    for transform in (ft.grad, ft.jacfwd, lambda f: ft.jit(ft.grad(f))):
        with pytest.raises(TracerConversionError, match=r"float\(\)"):
            transform(lambda x: x * float(x))(2.0)
        assert not current_stack()
    assert ft.grad(lambda x: x * x)(2.0) == 4.0


def test_item_and_tolist_of_integer_and_boolean_tracers():
    def f(x):
        n = fnp.argmax(x).item()
        flags = (x > 0.5).tolist()
        return x[n] * sum(flags)

    plain = f(X)
    close(ft.grad(f)(X), fd_grad(lambda v: float(f(v)), X), atol=1e-7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        close(ft.jit(f)(X), plain)
        close(ft.jit(f)(XS[1]), f(XS[1]))


# -- the transform boundary ----------------------------------------------------------------


def test_every_transform_returns_object_arrays_as_traced_arrays():
    def f(x):
        return np.array([x[0] ** 2, 3.0, x[1]])  # a NumPy object array

    jac = [[2 * X[0], 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]]
    close(ft.jacrev(f)(X), jac)
    close(ft.jacfwd(f)(X), jac)
    close(ft.vmap(f)(XS), [[x[0] ** 2, 3.0, x[1]] for x in XS])
    close(ft.jit(f)(X), [X[0] ** 2, 3.0, X[1]])
    close(ft.grad(lambda x: ft.checkpoint(f)(x).sum())(X), np.sum(jac, axis=0))


def test_output_converters_are_applied_by_every_transform():
    seen = []

    def note(tree):
        seen.append(1)
        return tree

    OUTPUT_CONVERTERS.append(note)
    try:
        f = lambda x: (x**2).sum()  # noqa: E731
        for transform in (ft.grad, ft.jacrev, ft.jacfwd, ft.hessian, ft.vmap, ft.jit):
            seen.clear()
            transform(f)(X if transform is not ft.vmap else XS)
            assert seen, transform
        seen.clear()
        ft.jvp(f, (X,), (X,))
        ft.vjp(f, X)
        ft.linearize(f, X)
        assert len(seen) >= 3
    finally:
        OUTPUT_CONVERTERS.remove(note)


def test_lists_holding_tracers_stay_on_the_tracers_backend():
    # The strict stand-in for CuPy refuses numpy.asarray: the numbers in the list are made
    # on the tracers' backend, never a host transfer.
    from ftransforms.strict_backend import asarray

    x = np.array([0.3, 0.7, 1.2])

    def f(m, v):
        return m.mean([v[0], v[1] * v[2], 3.0]) + m.sum(
            m.sin([v[0], 2.0]) * m.add([1.0, 2.0], v[:2])
        )

    g = ft.grad(lambda v: f(fnp, v))(asarray(x))
    assert type(g).__name__ == "StrictArray"
    close(g.get(), fd_grad(lambda v: float(f(np, v)), x), rtol=1e-5, atol=1e-8)
    d = ft.vmap(lambda v: fnp.linalg.det([[v[0], 1.0], [2.0, v[1]]]))(asarray(XS[:, :2]))
    close(d.get(), [x0 * x1 - 2.0 for x0, x1 in XS[:, :2]])
