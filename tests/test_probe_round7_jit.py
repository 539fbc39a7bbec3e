"""Probe round 7 of ``ft.jit``: a replay gives the eager call's answer (the eager call on
the same new arguments is the oracle)."""

import numpy as np

import ftransforms as ft

X = np.array([1.0, 2.0, 3.0])


def test_a_method_decorated_with_jit_reads_the_fields_of_self_at_every_call():
    """``self`` passed as a plain (static) leaf: its fields are values read from outside."""

    class Model:
        def __init__(self):
            self.lr = 0.1

        @ft.jit
        def step(self, x):
            return x - self.lr * x

    m = Model()
    for lr in (0.1, 0.5, 0.25):
        m.lr = lr
        for x in (X, 2 * X, X[:2]):
            np.testing.assert_allclose(m.step(x), x - lr * x)


def test_a_global_list_or_dict_that_grows_records_again():
    L = [1.0]
    D = {"a": 1.0}

    def total(x):
        return x * sum(L)

    def count(x):
        return x * len(D)

    jt, jc = ft.jit(total), ft.jit(count)
    for k in range(3):
        np.testing.assert_allclose(jt(X), X * sum(L))
        np.testing.assert_allclose(jc(X), X * len(D))
        L.append(2.0 + k)
        D[f"k{k}"] = 1.0
    L.clear()
    np.testing.assert_allclose(jt(X), X * 0)


def test_a_list_the_function_appends_to_is_a_side_effect_of_the_recording():
    """The docs' rule stays: a Python side effect runs only while recording."""
    calls = [0]

    def f(x):
        calls.append(1)
        return np.sin(x)

    jf = ft.jit(f)
    for x in (X, 2 * X, 3 * X):
        np.testing.assert_allclose(jf(x), np.sin(x))
    assert len(calls) == 2
