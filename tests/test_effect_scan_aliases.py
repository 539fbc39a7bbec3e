"""A write into an object's array through a local name (``c = self.count; c += 1``) is an
effect: the eager shape check of ``cond``'s untaken branch and the trial call of a loop
body must not run it (they would change the object though the branch is not taken).  Oracle:
plain Python control flow on NumPy."""

from __future__ import annotations

import numpy as np

import ftransforms as ft
from ftransforms.effect_scan import may_have_effects


class Counter:
    def __init__(self):
        self.count = np.zeros(1)
        self.table = np.zeros((2, 2))

    def bump(self, x):
        c = self.count
        c += 1.0  # writes self.count
        return x * 2.0

    def bump_transposed(self, x):
        t = self.table.T
        t += 1.0  # a view of self.table
        return x * 3.0

    def keep(self, x):
        return x + 1.0

    def own_view(self, x):
        y = x.T  # a view of the argument: not an outside object
        y += 1.0
        return y


def test_a_write_through_a_local_alias_of_an_attribute_is_an_effect():
    m = Counter()
    assert may_have_effects(m.bump) and may_have_effects(m.bump_transposed)
    assert not may_have_effects(m.keep) and not may_have_effects(m.own_view)


def test_cond_does_not_run_the_untaken_branch_that_writes_an_attribute():
    m = Counter()
    x = np.arange(3.0)
    for pred, branch in ((False, m.bump), (False, m.bump_transposed)):
        out = ft.cond(pred, branch, m.keep, x)
        np.testing.assert_array_equal(out, x + 1.0)
    np.testing.assert_array_equal(m.count, [0.0])  # as `m.keep(x) if not pred else ...`
    np.testing.assert_array_equal(m.table, np.zeros((2, 2)))
    out = ft.cond(True, m.bump, m.keep, x)
    np.testing.assert_array_equal(out, x * 2.0)
    np.testing.assert_array_equal(m.count, [1.0])
