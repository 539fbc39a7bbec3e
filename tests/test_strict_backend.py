"""The transforms on the strict CuPy stand-in: results stay StrictArrays, equal the NumPy
results, and nothing converts to NumPy on the way (a conversion raises)."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.errors import MixedBackendError
from ftransforms.pytree import tree_leaves
from ftransforms.strict_backend import HostConversionError, StrictArray, asarray, to_numpy

rng = np.random.default_rng(3)
X = rng.normal(size=(5, 3))
W = rng.normal(size=(4, 3))
B = rng.normal(size=4)
IDX = np.array([2, 0, 1])


def mlp_loss(params, x, y):
    w, b = params
    logits = np.tanh(x @ w.T + b)
    m = np.max(logits)
    return np.log(np.sum(np.exp(logits - m))) + m - logits[y]


def features(x):
    return np.concatenate([np.sin(x[:2]), np.cumsum(x) * 0.5, fnp.where(x > 0, x, -x)])


CASES = {
    "per_sample_grad": (
        lambda p, x, y: ft.vmap(ft.grad(mlp_loss), in_dims=(None, 0, 0))(p, x, y),
        lambda: ((W, B), X, np.array([0, 1, 3, 2, 1])),
    ),
    "jacrev": (lambda x: ft.jacrev(features)(x), lambda: (X[0],)),
    "jacfwd": (lambda x: ft.jacfwd(features)(x), lambda: (X[0],)),
    "hessian": (
        lambda x, w: ft.hessian(lambda v: np.sum(np.tanh(w @ v) ** 2) + np.prod(v))(x),
        lambda: (X[1], W),
    ),
    "vmap_vjp_gather": (
        lambda x: ft.vmap(lambda r: ft.vjp(lambda v: v[IDX] * v.max(), r)[1](r[IDX])[0])(x),
        lambda: (X,),
    ),
    "jvp_of_grad_einsum": (
        lambda x, t, w: ft.jvp(ft.grad(lambda v: np.einsum("i,ji,j->", v, w, w @ v)), (x,), (t,)),
        lambda: (X[0], X[1], W),
    ),
    "linearize_reductions": (
        lambda x: ft.linearize(lambda v: np.std(v, axis=0) + np.mean(v**2, axis=1)[:3], x)[1](x),
        lambda: (X[:3],),
    ),
}


def _to_strict(tree):
    """Every array argument on the device, as a CuPy user would pass them."""
    return ft.tree_map(lambda v: asarray(v) if isinstance(v, np.ndarray) else v, tree)


@pytest.mark.parametrize("name", sorted(CASES))
def test_transform_on_strict_arrays_matches_numpy_and_stays_on_device(name):
    fn, make_args = CASES[name]
    want = fn(*make_args())
    got = fn(*_to_strict(make_args()))
    for leaf in tree_leaves(got):
        assert type(leaf) is StrictArray, f"{name}: a result came back as {type(leaf).__name__}"
    for a, b in zip(tree_leaves(to_numpy(got)), tree_leaves(want)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_replays_on_strict_arrays(name):
    # The recorded program calls the arrays' own namespace: replays stay on the device.
    fn, make_args = CASES[name]
    compiled = ft.jit(fn)
    args = _to_strict(make_args())
    compiled(*args)  # recorded
    got = compiled(*args)  # replayed
    assert len(compiled.cache) == 1
    for leaf in tree_leaves(got):
        assert type(leaf) is StrictArray, f"{name}: a result came back as {type(leaf).__name__}"
    for a, b in zip(tree_leaves(to_numpy(got)), tree_leaves(fn(*make_args()))):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_strict_arrays_refuse_implicit_conversion():
    a = asarray(X)
    with pytest.raises(HostConversionError):
        np.asarray(a)
    with pytest.raises(TypeError):
        np.sin(a)  # a NumPy ufunc on a device array is a host conversion
    np.testing.assert_array_equal(a.get(), X)


def test_mixing_strict_and_numpy_arrays_is_a_clear_error():
    with pytest.raises(MixedBackendError, match="numpy.*strictnumpy|strictnumpy.*numpy"):
        ft.grad(lambda x, w: np.sum(x @ w.T))(asarray(X), W)
