"""vmap of per-example Python: branches, loops, conversions and data-dependent shapes split
the batch (NOTE [splitting the batch] in ftransforms/split.py).

Every function below is plain per-example NumPy code with Python control flow.  Each is
checked against the per-example loop (the oracle: ``np.stack([f(x) for x in xs])``) under
``vmap``, ``vmap(grad)``, ``grad`` of ``vmap`` (central differences in float64),
``jacrev`` of ``vmap`` (central differences) and ``jit(vmap)`` called with two batches
that split differently.
"""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp

pytestmark = [
    pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning"),
    pytest.mark.filterwarnings("ignore:jit.*depends on data:RuntimeWarning"),
]

F64 = {"rtol": 1e-9, "atol": 1e-12}
FD = {"rtol": 1e-5, "atol": 1e-6}


def loop_map(f):
    """The per-example loop: the contract vmap must meet."""
    return lambda xs: np.stack([np.asarray(f(x)) for x in xs])


# -- the per-example functions (x: one row of shape (3,)) ---------------------------------


def relu_like(x):
    if x[0] > 0:
        return np.sum(x**2)
    return np.sum(x)


def elif_chain(x):
    s = x[0]
    if s < -0.7:
        return np.sum(np.sin(x))
    elif s < 0.0:
        return np.sum(x) * 2.0
    elif s < 0.7:
        return np.prod(x)
    else:
        return np.sum(np.exp(x))


def elif_on_sum(x):
    t = np.sum(x)
    if t > 1.0:
        y = x * t
    elif t > -1.0:
        y = x - t
    else:
        y = x * x
    return np.sum(y)


def early_returns(x):
    if x[1] < -0.5:
        return 3.0 * x[0]
    y = np.tanh(x)
    if x[2] > 0.5:
        return np.sum(y) * x[0]
    z = y * y
    if np.sum(z) > 1.0:
        return np.sum(z)
    return np.sum(y - z)


def per_element_branches(x):
    total = 0.0
    for v in x:  # iterating a row: one bool per element
        if v > 0:
            total = total + v * v
        else:
            total = total - v
    return total


def builtin_max(x):
    return max(x) * np.sum(x)  # Python's max compares elements with bool()


def builtin_min_pair(x):
    return min(x[0], x[1]) * x[2]


def python_sorted_median(x):
    return sorted(x)[1] + 0.1 * np.sum(x)


def clip_by_mean(x):
    m = np.mean(x)
    if m > 0.5:
        m = 0.5 + 0.1 * m
    if m < -0.5:
        m = -0.5 + 0.1 * m
    return m * np.sum(x**2)


def newton_sqrt(x):
    a = 1.0 + x[0] ** 2 + 4.0 * x[1] ** 2
    y = a
    while np.abs(y * y - a) > 1e-12 * a:
        y = 0.5 * (y + a / y)
    return y * (1.0 + x[2] ** 2)


def newton_cbrt_break(x):
    a = 2.0 + np.sum(x**2)
    y = a
    for _ in range(100):
        step = (y**3 - a) / (3.0 * y * y)
        y = y - step
        if np.abs(step) < 1e-12:
            break
    return y


def bisection_break(x):
    c = np.sum(x)  # root of t**3 + t - c

    def g(t):
        return t**3 + t - c

    lo, hi = -10.0, 10.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if g(mid) > 0:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-6:
            break
    t = 0.5 * (lo + hi)
    return t - g(t) / (3 * t**2 + 1)  # one Newton polish: derivatives flow through c


def int_range(x):
    n = int((np.abs(x[0]) * 2.0).astype(np.int64)) + 1  # int() of a per-row integer
    s = 0.0
    for i in range(n):
        s = s + x[1] ** i / (i + 1)
    return s * x[2]


def int_range_from_comparisons(x):
    n = int(x[0] > 0) + int(x[1] > 0) + int(x[2] > 0)
    acc = x[0]
    for _ in range(n):
        acc = np.sin(acc) + x[1]
    return acc


def mask_sum(x):
    return np.sum(x[x > 0]) + 0.1 * np.sum(x)


def mask_mean_any(x):
    m = x > 0.2
    if np.any(m):
        return np.mean(x[m] ** 2)
    return np.sum(x) * 0.5


def nonzero_gather(x):
    (idx,) = np.nonzero(x > -0.3)
    return np.sum(x[idx] ** 2)


def compress_sum(x):
    return np.sum(np.compress(x > -0.2, x) ** 3)


def extract_prod(x):
    return np.prod(np.extract(x < 0.4, x) + 2.0)


def unique_signs(x):
    return len(np.unique(np.sign(x))) * np.sum(x)


def traced_slice_bound(x):
    k = int(x[0] > 0) + int(x[1] > 0) + 1
    return np.sum(x[:k] ** 2)


def item_comparison(x):
    if (x[0] > x[1]).item():
        return x[0] * x[2]
    return x[1] - x[2]


def tolist_flags(x):
    a, b, c = (x > 0).tolist()
    return x[0] * a + x[1] * b + x[2] * c + np.sum(x) * (a and not c)


def and_or(x):
    if x[0] > 0 and x[1] > 0:
        return np.sum(x**2)
    if x[0] < 0 or x[2] < 0:
        return np.sum(x)
    return np.prod(x)


def not_branch(x):
    if not (np.sum(x) > 0):
        return -np.sum(x**3)
    return np.sum(x**3)


def halving_counter(x):
    t = 1.0 + 10.0 * x[0] ** 2
    n = 0
    while t > 1.0:
        t = t / 2.0
        n += 1
    return t * n + x[1]


def running_sum_break(x):
    acc = 0.0
    for v in x:
        acc = acc + v * v
        if acc > 0.8:
            break
    return acc


def three_piece_poly(x):
    s = np.sum(x)
    if s < -1:
        return s**2
    if s < 1:
        return 1 + s - s**3 / 3
    return np.sqrt(s) + 0.5


def recursive_shrink(x):
    def rec(v, depth):
        if depth == 0 or np.sum(v * v) < 0.5:
            return v
        return rec(v * 0.6, depth - 1)

    return np.sum(rec(x, 6))


def dict_dispatch(x):
    table = {"pos": lambda v: np.sum(np.exp(v)), "neg": lambda v: np.sum(v**2)}
    return table["pos" if x[0] > 0 else "neg"](x)


def norm_branch(x):
    n = np.linalg.norm(x)
    if n > 1.5:
        return np.sum(x / n)
    return np.sum(x) * n


def argmax_index(x):
    i = int(np.argmax(x))
    return x[i] ** 2 + np.sum(x)


def where_inside_branch(x):
    if x[2] > 0:
        return np.sum(np.where(x > 0, x, 0.5 * x))
    return np.sum(np.where(x < 0, x**2, x))


def argsort_condition(x):
    if np.argsort(x)[0] == 0:
        return np.sum(x) * x[0]
    return np.sum(x * x)


def helper_calls(x):
    def inner(v):
        return v * 2.0 if v > 0 else v / 2.0

    return inner(x[0]) + inner(x[1]) * inner(x[2])


def comprehension_ternary(x):
    return sum([v * v if v > 0 else -v for v in x])


def try_except_branch(x):
    try:
        if x[0] > 0:
            raise ValueError("positive")
        y = np.sum(x)
    except ValueError:
        y = np.sum(x**2)
    return y


def float_of_stopped(x):
    s = float(fnp.stop_gradient(np.sum(x)))
    scale = 2.0 if s > 0 else 0.5
    return scale * np.sum(x**2)


def nested_branching_both_axes(m, vm=ft.vmap):
    """m: (3,) reshaped to a column; an inner map over its elements branches per element,
    the outer branch on the whole example."""

    def elem(v):
        if v > 0:
            return v * v
        return -v

    inner = vm(elem)(m)
    if np.sum(m) > 0:
        return np.sum(inner)
    return np.sum(inner) * 2.0


def nested_inner_while(m, vm=ft.vmap):
    def elem(v):
        t = 1.0 + v * v
        while t > 1.2:
            t = np.sqrt(t)
        return t + v

    out = vm(elem)(m)
    return np.sum(out) if m[0] > 0 else np.prod(out)


def loop_in_loop(x):
    total = 0.0
    for i in range(3):
        j = 0
        while x[i] * (j + 1) < 0.9 and j < 4:
            j += 1
        total = total + x[i] * j
    return total


CASES = [
    relu_like,
    elif_chain,
    elif_on_sum,
    early_returns,
    per_element_branches,
    builtin_max,
    builtin_min_pair,
    python_sorted_median,
    clip_by_mean,
    newton_sqrt,
    newton_cbrt_break,
    bisection_break,
    int_range,
    int_range_from_comparisons,
    mask_sum,
    mask_mean_any,
    nonzero_gather,
    compress_sum,
    extract_prod,
    unique_signs,
    traced_slice_bound,
    item_comparison,
    tolist_flags,
    and_or,
    not_branch,
    halving_counter,
    running_sum_break,
    three_piece_poly,
    recursive_shrink,
    dict_dispatch,
    norm_branch,
    argmax_index,
    where_inside_branch,
    argsort_condition,
    helper_calls,
    comprehension_ternary,
    try_except_branch,
    float_of_stopped,
    nested_branching_both_axes,
    nested_inner_while,
    loop_in_loop,
]


def _oracle(f):
    """The function as the per-example loop sees it (nested maps become loops too)."""
    if f in (nested_branching_both_axes, nested_inner_while):
        return lambda x: f(x, vm=loop_map)
    return f


RNG = np.random.default_rng(2023)
BATCH_A = RNG.normal(size=(5, 3))
BATCH_B = RNG.normal(size=(4, 3)) * 1.3


def central_differences(F, xs, eps=1e-6):
    """dF/dxs of a function returning an array, by central differences: (out, *xs.shape)."""
    out_shape = np.shape(F(xs))
    jac = np.zeros(out_shape + xs.shape)
    for k in np.ndindex(xs.shape):
        up, down = xs.copy(), xs.copy()
        up[k] += eps
        down[k] -= eps
        jac[(...,) + k] = (np.asarray(F(up)) - np.asarray(F(down))) / (2 * eps)
    return jac


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_vmap_is_the_per_example_loop(f):
    for xs in (BATCH_A, BATCH_B):
        np.testing.assert_allclose(ft.vmap(f)(xs), loop_map(_oracle(f))(xs), **F64)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_vmap_of_grad_is_the_loop_of_grad(f):
    want = np.stack([ft.grad(_oracle(f))(x) for x in BATCH_A])
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(BATCH_A), want, **F64)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_grad_of_vmap_matches_central_differences(f):
    got = ft.grad(lambda xs: ft.vmap(f)(xs).sum())(BATCH_A)
    want = central_differences(lambda xs: loop_map(_oracle(f))(xs).sum(), BATCH_A)
    np.testing.assert_allclose(got, want, **FD)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_jacrev_of_vmap_matches_central_differences(f):
    xs = BATCH_B
    got = ft.jacrev(ft.vmap(f))(xs)
    want = central_differences(loop_map(_oracle(f)), xs)
    np.testing.assert_allclose(got, want, **FD)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_jit_of_vmap_twice_with_different_splits(f):
    g = ft.jit(ft.vmap(f))
    for xs in (BATCH_A, BATCH_B, BATCH_A[::-1]):
        np.testing.assert_allclose(g(xs), loop_map(_oracle(f))(xs), **F64)


def test_the_cases_split():
    """Most cases really do split on these batches (else they would test nothing new)."""
    import warnings

    split = 0
    for f in CASES:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from ftransforms.split import WARNED_SITES

            WARNED_SITES.clear()
            ft.vmap(f)(BATCH_A)
        split += any(w.category is ft.errors.PerformanceWarning for w in caught)
    assert len(CASES) >= 40
    assert split >= 38, split
