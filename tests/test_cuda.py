"""The op database and the transforms on real CuPy arrays (``pytest -m cuda``).

These run only where CuPy and a CUDA GPU are present (this is an environment condition,
not a hidden failure); everywhere else the same checks run on the strict CuPy stand-in in
``tests/test_ops_strict.py`` and ``tests/test_strict_backend.py``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import UnsupportedOperationError
from ftransforms.pytree import tree_leaves
from tests.op_db import FNP, OPS
from tests.test_ops import bind, leaf_tol, operand_positions
from tests.test_ops_strict import HOST_ONLY, _gpu_available

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not _gpu_available(), reason="needs CuPy and a CUDA GPU"),
]

F64 = np.dtype(np.float64)


def _cases():
    return [op.name for op in OPS if op.name not in HOST_ONLY and F64 in op.dtypes]


BY_NAME = {op.name: op for op in OPS}


def _to_gpu(x):
    import cupy

    return cupy.asarray(x) if isinstance(x, np.ndarray) else x


def _check_on_gpu(got, want, op, what):
    import cupy

    for g, w in zip(tree_leaves(got), tree_leaves(want)):
        if isinstance(w, np.ndarray):
            assert isinstance(g, cupy.ndarray), f"{what}: a {type(g).__name__} came back"
        g = cupy.asnumpy(g) if isinstance(g, cupy.ndarray) else np.asarray(g)
        if np.asarray(w).dtype.kind in "fc":
            np.testing.assert_allclose(g, w, **leaf_tol(op, np.asarray(w).dtype), err_msg=what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


def _missing_in_cupyx(err: UnsupportedOperationError) -> bool:
    """The clear error for a SciPy function that ``cupyx.scipy.special`` lacks (it has fewer
    than SciPy: no jv, hyp1f1, wofz, ... in CuPy 14), checked against cupyx itself."""
    import cupyx.scipy.special as cupyx_special

    found = re.search(r"cupyx\.scipy\.special has no (\w+)", str(err))
    return found is not None and not hasattr(cupyx_special, found.group(1))


@pytest.mark.parametrize("name", _cases())
def test_forward_and_vmap_on_cupy(name):
    op = BY_NAME[name]
    s0 = op.samples(F64, 0)[0]
    f, operands = bind(op, FNP, s0)
    try:
        got = f(*[_to_gpu(a) for a in operands])
    except UnsupportedOperationError as err:
        if not _missing_in_cupyx(err):
            raise
        # no host fallback (that would be a hidden transfer): the same clear error under vmap
        stacked = [_to_gpu(np.stack([a, a])) for a in operands]
        with pytest.raises(UnsupportedOperationError, match="cupyx.scipy.special has no"):
            ft.vmap(f)(*stacked)
        return
    _check_on_gpu(got, f(*operands), op, f"forward {name}")
    pos = operand_positions(s0)
    batch = [op.samples(F64, seed)[0] for seed in (1, 2, 3)]
    stacked = [np.stack([b.args[i] for b in batch]) for i in pos]
    want = ft.vmap(f)(*stacked)
    _check_on_gpu(ft.vmap(f)(*[_to_gpu(a) for a in stacked]), want, op, f"vmap {name}")


def test_per_sample_gradients_stay_on_the_gpu():
    import cupy

    rng = np.random.default_rng(0)
    w, b = rng.normal(size=(10, 64)), rng.normal(size=10)
    x, y = rng.normal(size=(32, 64)), rng.integers(0, 10, 32)

    def loss(params, x, y):
        w, b = params
        logits = np.tanh(x @ w.T + b)
        m = logits.max()
        return np.log(np.sum(np.exp(logits - m))) + m - logits[y]

    f = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))
    want = f((w, b), x, y)
    got = f((cupy.asarray(w), cupy.asarray(b)), cupy.asarray(x), cupy.asarray(y))
    for g, v in zip(got, want):
        assert isinstance(g, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(g), v, rtol=1e-10, atol=1e-12)


# -- the compiled tier's CuPy kernels on a real card ----------------------------------------
# On the stand-in (tests/test_compiled_cupy.py) the generated CUDA C is checked and then
# evaluated with NumPy; here NVRTC compiles it and the card runs it.  Oracle: the replay of
# the same recorded program (CuPy's own ufuncs on the same card).  NVRTC may contract
# a * b + c into one FMA where the replay rounds twice, so values are compared within a
# few float ulps of the largest magnitude; NaN positions, infinities and the sign of zeros
# (maximum/minimum ties) must be identical.

_TIES = np.array([-0.0, 0.0, np.nan, 1.0, -1.0, 0.0, 2.0, -0.0])
_TIES_2 = np.array([0.0, -0.0, 1.0, np.nan, -1.0, 0.0, -3.0, -0.0])


def _compiled_programs():
    c = np.float64(0.1)  # a float64 constant compared against float32 data

    def chain(x, y):
        return np.tanh(x) * 2.5 + np.exp(-x) / (1.0 + x * x) - y

    def ties(x, y):
        return (1.0 / np.maximum(x, y)) * 2.0 + 1.0 / np.minimum(x, y) * 3.0

    def where_const(x, y):
        return np.where(x > c, x * 3.0, x - 1.0) + y * 0.5

    def reductions(x, y):
        return np.sum(np.exp(x) * y, axis=-1) / (np.max(x, axis=-1) + 4.0)

    def infinities(x, y):
        return np.where(x > 0, np.inf, -np.inf) * (y * y + 1.0) - np.nan

    def grad_chain(x, y):
        return ft.grad(lambda v: np.sum(np.sin(v) * np.cos(v * y) + v * v))(x)

    return [chain, ties, where_const, reductions, infinities, grad_chain]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("fn", _compiled_programs(), ids=lambda f: f.__name__)
def test_compiled_tier_kernels_equal_the_replay_on_cupy(fn, dtype):
    import cupy

    rng = np.random.default_rng(3)
    if fn.__name__ == "ties":
        x, y = _TIES, _TIES_2
    else:
        x, y = rng.normal(size=(4, 64)), rng.normal(size=(4, 64))
        x[0, :3] = 0.1  # exactly the constant in float64; rounded in float32
    x, y = cupy.asarray(x.astype(dtype)), cupy.asarray(y.astype(dtype))
    jitted = ft.jit(fn, compile=False)
    replay = jitted(x, y)
    (program,) = jitted.cache.values()
    jitted.compile()
    assert program.tier == "compiled", program.tier
    assert getattr(program._fn, "n_kernels", 0) >= 1
    got = jitted(x, y)
    assert isinstance(got, cupy.ndarray) and got.dtype == replay.dtype
    g, r = cupy.asnumpy(got), cupy.asnumpy(replay)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
    np.testing.assert_array_equal(g[np.isinf(r)], r[np.isinf(r)])
    zeros = r == 0
    np.testing.assert_array_equal(np.signbit(g[zeros]), np.signbit(r[zeros]))
    finite = np.isfinite(r)
    scale = max(float(np.max(np.abs(r[finite]), initial=0.0)), 1.0)
    tol = 8 * float(np.finfo(dtype).eps) * scale
    np.testing.assert_allclose(g[finite], r[finite], rtol=0, atol=tol)
