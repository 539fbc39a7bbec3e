"""The one tolerance table of the test suite, keyed by dtype.

Import it from any test file: ``from tests.tolerances import TOL, tol, assert_close``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Relative/absolute tolerances per floating dtype.
TOL: dict[Any, dict[str, float]] = {
    np.dtype(np.float32): {"rtol": 1e-5, "atol": 1e-6},
    np.dtype(np.float64): {"rtol": 1e-10, "atol": 1e-12},
}


def tol(dtype: Any) -> dict[str, float]:
    """``{"rtol": ..., "atol": ...}`` for ``dtype`` (a dtype, a type or an array)."""
    dt = np.asarray(dtype).dtype if hasattr(dtype, "shape") else np.dtype(dtype)
    return TOL[dt]
