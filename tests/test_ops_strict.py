"""The op database on the strict CuPy stand-in (``ftransforms.strict_backend``): every
entry's forward value, VJP and vmap run on StrictArrays without a single conversion to
NumPy, return StrictArrays, and equal the NumPy run.  This is the CPU evidence that the
CuPy path never makes a silent host copy (issue: CUDA through CuPy)."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.pytree import tree_flatten
from ftransforms.strict_backend import StrictArray, asarray, to_numpy
from tests.op_db import FNP, OPS
from tests.test_ops import bind, bind_diff, is_float, leaf_tol, operand_positions

F64 = np.dtype(np.float64)

# Entries whose operands cannot all live on one device: their random draws take a
# numpy.random.Generator (a CuPy user passes cupy.random.Generator, absent here).
HOST_ONLY = {op.name for op in OPS if op.randomness != "error"}


def _cases(test: str, derivatives: bool = False):
    out = []
    for op in OPS:
        if op.name in HOST_ONLY or F64 not in op.dtypes:
            continue
        s = op.samples(F64, 0)[0]
        if derivatives and not (op.grads and s.grads and _has_float_operand(op, s)):
            continue  # an integer/bool output: nothing to differentiate
        reason = op.xfail_reason(test, s)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(op.name, id=f"{op.name}-{s.name}", marks=marks))
    return out


def _has_float_operand(op, s):
    pos = operand_positions(s)
    return any(is_float(s.args[pos[j]]) for j in range(len(pos)) if op.differentiates(j))


BY_NAME = {op.name: op for op in OPS}


def _strict(x):
    return asarray(x) if isinstance(x, np.ndarray) else x


def _gpu_available() -> bool:
    try:
        import cupy
    except ImportError:
        return False
    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no driver
        return False


def _assert_on_device_and_equal(got, want, op, what):
    g_leaves, g_spec = tree_flatten(got)
    w_leaves, w_spec = tree_flatten(want)
    assert g_spec == w_spec, f"{what}: structure {g_spec} vs {w_spec}"
    for g, w in zip(g_leaves, w_leaves):
        if isinstance(w, np.ndarray) and w.dtype == ft.float0:
            # an integer input's cotangent: JAX's float0 zeros, a host array on any device
            assert g.dtype == ft.float0 and g.shape == w.shape, f"{what}: {g!r}"
            continue
        if isinstance(w, np.ndarray):
            assert type(g) is StrictArray, f"{what}: a {type(g).__name__} came back"
        g = to_numpy(g)
        if np.asarray(w).dtype.kind in "fc":
            np.testing.assert_allclose(g, w, **leaf_tol(op, np.asarray(w).dtype), err_msg=what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


@pytest.mark.parametrize("name", _cases("test_forward_on_strict_backend"))
def test_forward_on_strict_backend(name):
    op = BY_NAME[name]
    s = op.samples(F64, 0)[0]
    f, operands = bind(op, FNP, s)
    want = f(*operands)
    got = f(*[_strict(a) for a in operands])
    _assert_on_device_and_equal(got, want, op, f"forward {name}({s.name})")


@pytest.mark.parametrize("name", _cases("test_vjp_on_strict_backend", derivatives=True))
def test_vjp_on_strict_backend(name):
    op = BY_NAME[name]
    s = op.samples(F64, 0)[0]
    f, operands = bind_diff(op, FNP, s)
    out, vjp_fn = ft.vjp(f, *operands)
    cts = ft.tree_map(
        lambda o: np.asarray(np.cos(np.arange(np.size(o))), dtype=np.asarray(o).dtype).reshape(
            np.shape(o)
        ),
        out,
    )
    want = vjp_fn(cts)
    # Every array of the sample on the device, the ones held fixed included.
    pos = operand_positions(s)
    keep = [j for j in range(len(pos)) if op.differentiates(j)]
    dev_args = tuple(_strict(a) for a in s.args)

    def f_dev(*values):
        args = list(dev_args)
        for j, v in zip(keep, values):
            args[pos[j]] = v
        return op.call(FNP, tuple(args), s.kwargs)

    s_out, s_vjp_fn = ft.vjp(f_dev, *[dev_args[pos[j]] for j in keep])
    got = s_vjp_fn(ft.tree_map(_strict, cts))
    _assert_on_device_and_equal(s_out, out, op, f"vjp primal {name}({s.name})")
    _assert_on_device_and_equal(got, want, op, f"vjp {name}({s.name})")


@pytest.mark.parametrize("name", _cases("test_vmap_on_strict_backend"))
def test_vmap_on_strict_backend(name):
    op = BY_NAME[name]
    s0 = op.samples(F64, 0)[0]
    f, _ = bind(op, FNP, s0)
    pos = operand_positions(s0)
    batch = [op.samples(F64, seed)[0] for seed in (1, 2, 3)]
    stacked = [np.stack([b.args[i] for b in batch]) for i in pos]
    want = ft.vmap(f)(*stacked)
    got = ft.vmap(f)(*[_strict(a) for a in stacked])
    _assert_on_device_and_equal(got, want, op, f"vmap {name}({s0.name})")
