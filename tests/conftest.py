"""Shared test setup: JAX (the oracle) in float64, hypothesis profiles, small helpers.

Select the hypothesis profile with ``FTRANSFORMS_HYPOTHESIS_PROFILE=explore`` (default
``ci``: deterministic and short).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

jax.config.update("jax_enable_x64", True)

# Let test files import ``tests.tolerances`` (and siblings) however pytest was started.
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=30,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    max_examples=500,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("FTRANSFORMS_HYPOTHESIS_PROFILE", "ci"))

# jit's compiled tier (NOTE [compiled tier]): no background compilation behind the tests'
# backs; FTRANSFORMS_JIT_COMPILE=always runs every jit test through it, and
# tests/test_compiled_tier.py turns it on where it tests it.
os.environ.setdefault("FTRANSFORMS_JIT_COMPILE", "never")


@pytest.fixture(params=[np.float32, np.float64], ids=["f32", "f64"])
def dtype(request):
    """Run a test once in float32 and once in float64."""
    return np.dtype(request.param)


@pytest.fixture
def rng():
    """A fresh, seeded random generator per test."""
    return np.random.default_rng(0)


def pytest_collection_finish(session):
    """Freeze what collection made (tens of thousands of parametrized items and the op
    databases' arrays) out of the cyclic garbage collector: they live for the whole run,
    and every full collection would otherwise walk them again."""
    import gc  # noqa: PLC0415 (only this hook uses it)

    gc.collect()
    gc.freeze()
