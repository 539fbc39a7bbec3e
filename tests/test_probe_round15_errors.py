"""Round 15 probes: bad input gets a clear error of a specific type, and the stack stays clean.

Fixes covered:
- vmap with out_dims of the wrong structure raised a PerformanceWarning (the batch split into
  one group per row) before the OutDimsError: optree's mismatch message printed the batched
  outputs, and printing a tracer reads its values.
"""

import re
import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import ArgnumsError, BranchesError, OutDimsError


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
