"""The "Adding an operator" guide's walk-through (docs/guides/adding-an-operator.md),
followed step by step with a throwaway op: what it says to write is enough, and the
registry test names what is missing."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.primitive import REGISTRY
from ftransforms.interpreters.batching import FALLBACK
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.protocol import FUNCTIONS
from ftransforms.ops import elementwise as _ew
from ftransforms.ops.elementwise import defunary
from ftransforms.testing import check_grads, check_vmap
from tests import op_db_base
from tests.op_db_base import FNP, JNP, NP, call, unary
from tests.test_registry import entry_problem, function_problem, rule_problems

NAME = "walkthrough_logcosh"


def _reference(x):
    return np.logaddexp(x, -x) - math.log(2.0)


@pytest.fixture
def throwaway():
    """The op of the walk-through, declared, exposed and (by the test) given an entry;
    everything removed afterwards."""
    fake_numpy_function = np.frompyfunc(_reference, 1, 1)  # stands for numpy.logcosh
    # Step 1: declare the primitive with a family factory (the guide, step 1).
    prim = defunary(
        NAME,
        lambda xp, x: xp.logaddexp(x, -x) - math.log(2.0),
        lambda y, x: _ew.tanh_p.bind(x),
    )

    # Step 2: expose it, registered for the NumPy function where it is defined.
    @implements(fake_numpy_function)
    def logcosh(x):
        """``numpy.logcosh``: log(cosh(x))."""
        return prim.bind(x)

    logcosh.__module__ = "ftransforms.numpy.mathematical"
    for m in (FNP, NP, JNP):
        m.__dict__[NAME] = logcosh if m is FNP else _reference
    before = len(op_db_base.OPS)
    before_fallback = FALLBACK["enabled"]
    FALLBACK["enabled"] = False
    try:
        yield prim, logcosh, fake_numpy_function
    finally:
        FALLBACK["enabled"] = before_fallback
        del op_db_base.OPS[before:]
        FUNCTIONS.pop(fake_numpy_function, None)
        REGISTRY.pop(NAME, None)
        for m in (FNP, NP, JNP):
            m.__dict__.pop(NAME, None)


def test_steps_one_and_two_give_every_rule(throwaway):
    prim, logcosh, numpy_function = throwaway
    assert rule_problems(prim) == []  # the family gave the batching rule
    assert FUNCTIONS[numpy_function] is logcosh
    x = np.linspace(-2.0, 2.0, 5)
    np.testing.assert_allclose(logcosh(x), _reference(x))
    np.testing.assert_allclose(ft.grad(lambda v: logcosh(v).sum())(x), np.tanh(x))
    check_grads(logcosh, (x,), order=2)
    check_vmap(logcosh, (np.linspace(-1.0, 1.0, 12).reshape(3, 4),), in_dims=1)


def test_step_three_is_what_the_registry_test_asks_for(throwaway):
    prim, logcosh, _ = throwaway
    # Without an entry, the registry test says where to add one.
    problem = entry_problem(NAME)
    assert problem is not None and "tests/op_db_" in problem and "OpEntry" in problem
    message = function_problem(NAME, logcosh)
    assert "has no op-database entry" in message and "tests/op_db_numpy.py" in message
    # The one line of step 3.
    # (``funcs`` spelled out: add() infers it for a function that fnp exports)
    entry = op_db_base.add(NAME, call(NAME), unary("u"), funcs=(NAME,))
    assert entry.prims == (NAME,)
    assert entry_problem(NAME) is None
    assert function_problem(NAME, logcosh) is None


def test_step_four_the_sweeps_run_on_the_entry(throwaway):
    prim, logcosh, _ = throwaway
    entry = op_db_base.add(NAME, call(NAME), unary("u"))
    for dtype in (np.float32, np.float64):
        draw = op_db_base.Draw(np.random.default_rng(0), np.dtype(dtype))
        for sample in entry.sampler(draw):
            (x,) = sample.args
            got = entry.fn(FNP, x)
            np.testing.assert_allclose(
                got, entry.fn(NP, x), rtol=1e-5 if dtype is np.float32 else 1e-12
            )
            assert got.dtype == x.dtype
            check_grads(lambda v: entry.fn(FNP, v), (x.astype(np.float64),), order=2)


def test_redeclaring_the_op_warns_and_replaces(throwaway):
    prim, _, _ = throwaway
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = defunary(NAME, lambda xp, x: xp.logaddexp(x, -x), lambda y, x: _ew.tanh_p.bind(x))
    assert any("already declared" in str(w.message) for w in caught)
    assert REGISTRY[NAME] is again is not prim
