"""Round 15 probes: bad input gets a clear error of a specific type, and the stack stays clean.

Fixes covered:
- vmap with out_dims of the wrong structure raised a PerformanceWarning (the batch split into
  one group per row) before the OutDimsError: optree's mismatch message printed the batched
  outputs, and printing a tracer reads its values.
"""

import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.core.stack import current_stack
from ftransforms.errors import OutDimsError


def test_out_dims_structure_mismatch_is_an_error_without_splitting_the_batch():
    x = np.arange(6.0).reshape(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(OutDimsError, match="does not match the structure"):
            ft.vmap(lambda a: (a, a * 2), out_dims=(0, 0, 0))(x)
    assert current_stack() == ()
