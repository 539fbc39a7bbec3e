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
