"""Round 15 probes: bad input gets a clear error of a specific type, and the stack stays clean.

Fixes covered:
- vmap with out_dims of the wrong structure raised a PerformanceWarning (the batch split into
  one group per row) before the OutDimsError: optree's mismatch message printed the batched
  outputs, and printing a tracer reads its values.
- switch with no branches: BranchesError (a ValueError, as jax.lax.switch), not a bare TypeError.
- jit static_argnums/static_argnames naming no parameter, or of the wrong type: ArgnumsError.
- custom_jvp/custom_vjp rules returning the wrong structure: TangentMismatchError (a JVP
  rule's tangent in another structure than its primal output was accepted).
- random samplers given neither a Generator nor a key, fold_in of non-integer data:
  PRNGKeyError.
- scan with a negative length: ScanLengthError, not a bare IndexError.
- cond/scan/while_loop/fori_loop given a non-callable: ControlFlowError naming the argument.
- eval_shape of a str output: NotAnArrayError ('f8' was read as a float64 scalar).
- associative_scan / lax.map misuse (non-callable, axis out of range, lengths that disagree,
  batch_size 0): ControlFlowError / ScanLengthError instead of bare TypeError / ValueError.
"""

import re
import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import (
    ArgnumsError,
    BranchesError,
    ControlFlowError,
    NotAnArrayError,
    OutDimsError,
    PRNGKeyError,
    ScanLengthError,
    TangentMismatchError,
)


def test_out_dims_structure_mismatch_is_an_error_without_splitting_the_batch():
    x = np.arange(6.0).reshape(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(OutDimsError, match="does not match the structure"):
            ft.vmap(lambda a: (a, a * 2), out_dims=(0, 0, 0))(x)
    assert current_stack() == ()


def test_switch_without_branches_is_a_value_error_like_jax():
    with pytest.raises(BranchesError, match="non-empty sequence of callables") as info:
        ft.switch(0, [], np.ones(2))
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    assert current_stack() == ()


@pytest.mark.parametrize(
    "kwargs, contains",
    [({"static_argnums": 3}, "static_argnums has 3"), ({"static_argnames": "b"}, "['b']")],
)
def test_jit_static_arguments_that_name_no_parameter(kwargs, contains):
    with pytest.raises(ArgnumsError, match=re.escape(contains)) as info:
        ft.jit(lambda a: a, **kwargs)
    assert isinstance(info.value, ValueError)
    assert current_stack() == ()


def _custom_jvp_sin(tangent_out):
    @ft.custom_jvp
    def f(a):
        return np.sin(a)

    f.defjvp(lambda p, t: tangent_out(p[0], t[0]))
    return f


@pytest.mark.parametrize(
    "rule, contains",
    [
        (lambda p, t: np.sin(p), "must return a pair (primal_out, tangent_out), got a single"),
        (lambda p, t: (np.sin(p), (np.cos(p) * t,)), "must have one structure"),
    ],
)
def test_custom_jvp_rule_of_the_wrong_structure(rule, contains):
    f = _custom_jvp_sin(rule)
    x = np.arange(1.0, 4.0)
    with pytest.raises(TangentMismatchError, match=re.escape(contains)):
        ft.jvp(f, (x,), (np.ones(3),))
    assert current_stack() == ()
    np.testing.assert_allclose(ft.jvp(np.sin, (x,), (np.ones(3),))[1], np.cos(x))


@pytest.mark.parametrize(
    "fwd, bwd, contains",
    [
        (lambda a: a * 2, lambda res, g: (g * 2,), "fwd rule must return a pair (out, residuals)"),
        (lambda a: (a * 2, None), lambda res, g: g * 2, "bwd rule must return a tuple"),
    ],
)
def test_custom_vjp_rules_of_the_wrong_structure(fwd, bwd, contains):
    @ft.custom_vjp
    def f(a):
        return a * 2

    f.defvjp(fwd, bwd)
    with pytest.raises(TangentMismatchError, match=re.escape(contains)):
        ft.grad(lambda a: f(a).sum())(np.arange(3.0))
    assert current_stack() == ()


@pytest.mark.parametrize("rng", [3, np.ones(2), "seed"])
def test_random_sampler_given_neither_generator_nor_key(rng):
    with pytest.raises(PRNGKeyError, match="ft.random.key") as info:
        ft.random.normal(rng, size=2)
    assert isinstance(info.value, TypeError)
    assert current_stack() == ()


@pytest.mark.parametrize("data", ["a", None, 1.5])
def test_fold_in_data_that_is_not_an_integer(data):
    with pytest.raises(PRNGKeyError, match="data must be"):
        ft.random.fold_in(ft.random.key(0), data)
    assert current_stack() == ()


def test_scan_with_a_negative_length():
    with pytest.raises(ScanLengthError, match="non-negative"):
        ft.lax.scan(lambda c, y: (c, c), 0.0, None, length=-1)
    assert current_stack() == ()
    carry, ys = ft.lax.scan(lambda c, y: (c, c), 0.0, None, length=0)
    assert ys.shape == (0,)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: ft.lax.while_loop(1, lambda c: c, 0), "cond_fun"),
        (lambda: ft.lax.while_loop(lambda c: c < 3, None, 0), "body_fun"),
        (lambda: ft.lax.fori_loop(0, 3, "body", 0.0), "body_fun"),
        (lambda: ft.lax.cond(True, 1.0, lambda: 2.0), "true_fun"),
        (lambda: ft.lax.scan(1, 0.0, np.ones(3)), "f"),
    ],
)
def test_control_flow_given_a_non_callable(call, name):
    with pytest.raises(ControlFlowError, match=f"{name} must be callable"):
        call()
    assert current_stack() == ()


@pytest.mark.parametrize(
    "kwargs", [{"static_argnums": "a"}, {"static_argnums": 1.0}, {"static_argnames": 0}]
)
def test_jit_static_arguments_of_the_wrong_type(kwargs):
    with pytest.raises(ArgnumsError, match="must be"):
        ft.jit(lambda a: a * 2, **kwargs)(2.0)
    assert current_stack() == ()


def test_jit_static_argnums_as_a_numpy_integer():
    f = ft.jit(lambda a, n: a * n, static_argnums=np.int64(1))
    assert f(np.ones(2), 3).tolist() == [3.0, 3.0]


@pytest.mark.parametrize("leaf", ["f8", "s", object()])
def test_eval_shape_of_a_non_array_output(leaf):
    # 'f8' used to be read as a dtype: a float64 scalar reported for a str output
    with pytest.raises(NotAnArrayError, match="got (str|object)"):
        ft.eval_shape(lambda a: (a, leaf), np.ones(2))
    assert current_stack() == ()
    got = ft.eval_shape(lambda a: (a, 1.0), np.ones(2))
    assert got[0].shape == (2,) and got[1].dtype == np.float64


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: ft.associative_scan(3, np.ones(3)), ControlFlowError),
        (lambda: ft.associative_scan(np.add, np.ones(3), axis=2), ScanLengthError),
        (lambda: ft.associative_scan(np.add, (np.ones(3), np.ones(2))), ScanLengthError),
        (lambda: ft.lax.map(3, np.ones(3)), ControlFlowError),
        (lambda: ft.lax.map(np.sin, np.ones(3), batch_size=0), ScanLengthError),
    ],
)
def test_associative_scan_and_map_misuse(call, error):
    with pytest.raises(error):
        call()
    assert current_stack() == ()
