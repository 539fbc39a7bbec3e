"""The one tolerance table of the test suite, keyed by dtype, and the comparison helper.

Import from any test file: ``from tests.tolerances import TOL, FD_TOL, tol,
assert_tree_close``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import optree

#: Relative/absolute tolerances per floating dtype: the result of a transform in that
#: dtype against an oracle (JAX in float64, or a Python loop).
TOL: dict[Any, dict[str, float]] = {
    np.dtype(np.float32): {"rtol": 1e-5, "atol": 1e-6},
    np.dtype(np.float64): {"rtol": 1e-10, "atol": 1e-12},
}

#: How close 4th-order central finite differences in float64 (step 1e-3) get to the true
#: derivative of the smooth, O(1) test functions: the oracle's own accuracy, used as the
#: floor of the tolerance when a result is compared with finite differences.
FD_TOL: dict[str, float] = {"rtol": 1e-7, "atol": 1e-8}


def tol(dtype: Any) -> dict[str, float]:
    """``{"rtol": ..., "atol": ...}`` for ``dtype`` (a dtype, a type or an array)."""
    dt = dtype.dtype if isinstance(dtype, (np.ndarray, np.generic)) else np.dtype(dtype)
    return dict(TOL[dt])


def fd_tol(dtype: Any) -> dict[str, float]:
    """The tolerance for a ``dtype`` result against float64 finite differences."""
    t = tol(dtype)
    return {k: max(t[k], FD_TOL[k]) for k in t}


def _is_tracer(x: Any) -> bool:
    from ftransforms.core.tracer import Tracer

    return isinstance(x, Tracer)


def assert_tree_close(
    actual: Any,
    expected: Any,
    *,
    rtol: float,
    atol: float,
    dtype: Any = None,
    err_msg: str = "",
    strict: bool = False,
) -> None:
    """``actual`` has ``expected``'s pytree structure and shapes, and its leaves are close.

    Every leaf of ``actual`` must be a NumPy array or scalar, never a tracer; with
    ``strict=True`` (the contract for what a transform returns) a ``numpy.ndarray``, not a
    NumPy scalar.  With ``dtype``, every leaf must also have that dtype.
    """
    a_leaves, a_spec = optree.tree_flatten(actual)
    e_leaves, e_spec = optree.tree_flatten(expected)
    assert a_spec == e_spec, f"{err_msg}: structure {a_spec} != expected {e_spec}"
    for k, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        where = f"{err_msg} leaf {k}"
        assert not _is_tracer(a), f"{where}: a tracer escaped into the result: {a!r}"
        kinds = np.ndarray if strict else (np.ndarray, np.generic)
        assert isinstance(a, kinds), f"{where}: got {type(a).__name__}, not an ndarray"
        e = np.asarray(e)
        assert a.shape == e.shape, f"{where}: shape {a.shape} != expected {e.shape}"
        if dtype is not None:
            assert a.dtype == np.dtype(dtype), f"{where}: dtype {a.dtype} != {np.dtype(dtype)}"
        np.testing.assert_allclose(
            np.asarray(a, dtype=np.float64) if a.dtype.kind == "f" else a,
            e.astype(np.float64) if e.dtype.kind == "f" else e,
            rtol=rtol,
            atol=atol,
            err_msg=where,
        )
