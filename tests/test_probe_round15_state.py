"""Round 15 probes: stateful NumPy code (running statistics, optimizer state, counters,
caches, closures) under ftransforms' transforms, against eager NumPy and torch.func/JAX
semantics."""

from __future__ import annotations

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import EscapedTracerError


class _RunningMean:
    """A layer that rebinds its running statistic in forward (a batch-norm buffer)."""

    def __init__(self) -> None:
        self.W = np.eye(3) * 2.0
        self.running_mean = np.zeros(3)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.running_mean = 0.9 * self.running_mean + 0.1 * x
        return self.W @ x


_X = np.arange(12.0).reshape(4, 3) / 7


def test_functional_call_write_back_eager_is_torchs() -> None:
    # torch.func.functional_call writes a rebound buffer back into the single dict given
    m = _RunningMean()
    s = ft.named_arrays(m)
    ft.functional_call(m, s, (_X[1],))
    np.testing.assert_allclose(s["running_mean"], 0.1 * _X[1])
    np.testing.assert_array_equal(m.running_mean, np.zeros(3))  # the model's own restored


@pytest.mark.parametrize("transform", ["vmap", "grad"])
def test_functional_call_tracer_written_back_into_closed_dict_names_its_place(
    transform: str,
) -> None:
    m = _RunningMean()
    s = ft.named_arrays(m)
    f = lambda x: ft.functional_call(m, s, (x,)).sum()  # noqa: E731
    if transform == "vmap":
        ft.vmap(f)(_X)
    else:
        ft.grad(f)(_X[1])
    where = r"functional_call\(_RunningMean\).*'running_mean'"
    with pytest.raises(EscapedTracerError, match=where):
        s["running_mean"] + 1


def test_functional_call_written_back_tracer_usable_inside_the_transform() -> None:
    # two forward passes reading the updated buffer from the dict: derivatives flow through it
    m = _RunningMean()

    def loss(x: np.ndarray) -> np.ndarray:
        s = dict(ft.named_arrays(m))
        ft.functional_call(m, s, (x,))
        return (s["running_mean"] ** 2).sum()

    np.testing.assert_allclose(ft.grad(loss)(_X[1]), 2 * 0.01 * _X[1])


class _Counted:
    calls = 0  # a class attribute shared by the instances

    def __init__(self) -> None:
        self.t = 0

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.t += 1
        _Counted.calls += 1
        return x.sum() * self.t


def test_jit_counter_runs_eagerly_and_its_warning_names_each_place_once() -> None:
    m, eager = _Counted(), _Counted()
    f = ft.jit(m)
    with pytest.warns(RuntimeWarning, match="runs eagerly") as record:
        got = [f(_X[1]) for _ in range(3)]
    np.testing.assert_allclose(got, [eager(_X[1]) for _ in range(3)])
    assert m.t == eager.t == 3
    message = str(record[0].message)
    assert message.count("_Counted.calls") == 1, message


class _StepCounter:
    """A layer that counts its forward calls and scales by the count."""

    def __init__(self) -> None:
        self.t = 0

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.t += 1
        y = x * self.t
        if y.sum() > 1.0:  # rows disagree: the vmap splits its batch
            return y.sum()
        return -y.sum()


@pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")
def test_vmap_split_reruns_start_from_the_state_the_call_found() -> None:
    # vmap runs the function once (jax.vmap, torch.func.vmap): every row sees t == 1 and
    # the layer is left with t == 1, also where the batch splits and each group reruns it
    m = _StepCounter()
    got = ft.vmap(m)(_X)
    np.testing.assert_allclose(got, [_StepCounter()(x) for x in _X])  # each with t == 1
    assert m.t == 1


@pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")
def test_vmap_split_restores_a_closed_over_counter_and_a_held_object() -> None:
    calls = 0
    m = _StepCounter()

    def f(x: np.ndarray) -> np.ndarray:
        nonlocal calls
        calls += 1
        return m(x) * calls

    got = ft.vmap(f)(_X)
    np.testing.assert_allclose(got, [_StepCounter()(x) for x in _X])
    assert (calls, m.t) == (1, 1)


_CALLS = 0
_LAYER = _StepCounter()


def _uses_globals(x: np.ndarray) -> np.ndarray:
    global _CALLS
    _CALLS += 1
    return _LAYER(x) * _CALLS


@pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")
def test_vmap_split_restores_globals_it_rebinds_and_reaches_through_grad() -> None:
    global _CALLS, _LAYER
    _CALLS, _LAYER = 0, _StepCounter()
    got = ft.vmap(_uses_globals)(_X)
    np.testing.assert_allclose(got, [_StepCounter()(x) for x in _X])
    assert (_CALLS, _LAYER.t) == (1, 1)
    m = _StepCounter()
    got = ft.vmap(ft.grad(m))(_X)  # the layer is reached through grad's wrapper
    np.testing.assert_allclose(got, [ft.grad(_StepCounter())(x) for x in _X])
    assert m.t == 1


def test_vmap_split_of_a_function_reading_an_iterator_it_holds_raises() -> None:
    # a rerun per group would read the iterator's next items (each group its own scale)
    def scales():
        k = 0.0
        while True:
            k += 1.0
            yield k

    batches = scales()

    def f(x: np.ndarray) -> np.ndarray:
        s = next(batches)
        return x.sum() * s if x.sum() > 1.0 else -x.sum() * s

    with pytest.raises(ft.errors.BatchedControlFlowError, match="iterator it holds"):
        ft.vmap(f)(_X)


class _Schedule:
    def __init__(self) -> None:
        self.t = 0


@pytest.mark.filterwarnings("ignore::ftransforms.errors.PerformanceWarning")
def test_vmap_split_restores_an_object_argument_passed_as_is() -> None:
    def f(x: np.ndarray, sched: _Schedule) -> np.ndarray:
        sched.t += 1
        y = x * sched.t
        return y.sum() if y.sum() > 1.0 else -y.sum()

    sched = _Schedule()
    got = ft.vmap(f, in_dims=(0, None))(_X, sched)
    np.testing.assert_allclose(got, [f(x, _Schedule()) for x in _X])
    assert sched.t == 1


def test_jit_eager_fallback_returns_what_the_recording_returned() -> None:
    # a counter makes the signature run eagerly from its third call: the outputs keep
    # their kind (0-d arrays, as the recording returns a NumPy scalar), in containers too
    m = _Counted()

    def f(x: np.ndarray) -> tuple:
        s = m(x)
        return s, {"a": x.sum()}

    jf = ft.jit(f)
    with pytest.warns(RuntimeWarning, match="runs eagerly"):
        outs = [jf(_X[1]) for _ in range(4)]
    for out in outs:
        assert type(out) is tuple and type(out[0]) is np.ndarray, out
        assert type(out[1]["a"]) is np.ndarray, out
