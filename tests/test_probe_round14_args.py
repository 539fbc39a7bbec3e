"""Round-14 probe of writes into argument containers under the transforms.

An argument that is not transformed (``grad``'s other arguments, keyword arguments) is the
caller's object, as in eager NumPy and ``jax.grad``: the function's Python-level changes
to its lists and dicts (a counter, an append, an entry rebound) reach the caller, while a
write into one of its NumPy arrays leaves the caller's array alone (the documented
``outside-array`` row of docs/guides/numpy-code.md).  Before, a container holding an array
was rebuilt, and those changes were silently lost.  ``vmap`` gives its ``in_dims=None``
arguments as ``jax.vmap`` does: copies of the containers.  Oracles: the eager call, the same
code under ``jax.grad``/``jax.vmap``, float64 finite differences.
"""

from __future__ import annotations

import collections
import dataclasses

import jax
import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import EscapedTracerError
from tests.program_oracles import check_fd_grad, check_hessian, fd_jacobian
from tests.tolerances import assert_tree_close, fd_tol

jax.config.update("jax_enable_x64", True)

X = np.array([0.7, -1.3, 2.1])

TRANSFORMS = {
    "grad": (ft.grad, jax.grad),
    "value_and_grad": (ft.value_and_grad, jax.value_and_grad),
    "jacrev": (ft.jacrev, jax.jacrev),
    "jacfwd": (ft.jacfwd, jax.jacfwd),
    "hessian": (ft.hessian, jax.hessian),
}


def counted(x, s):
    s["count"] = s["count"] + 1
    return (x**3 * s["scale"]).sum()


def state():
    return {"count": 0, "scale": np.array([1.5, 2.0, -0.5])}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_a_counter_in_a_dict_that_holds_an_array(name):
    ours, theirs = TRANSFORMS[name]
    eager = state()
    counted(X, eager)
    st, jst = state(), state()
    ours(counted)(X, st)
    theirs(counted)(X, jst)
    assert st["count"] == jst["count"] == eager["count"] == 1
    assert type(st["scale"]) is np.ndarray


def test_the_derivative_and_the_caller_array_stay_right():
    st = state()
    scale = st["scale"]
    check_fd_grad(counted, (X, st))
    check_hessian(counted, (X, st))
    assert st["scale"] is scale
    assert st["count"] > 0


def logs(x, log, cfg, *, opts):
    log.append(len(log))  # a list holding an array
    cfg["inner"]["steps"] += 1  # a nested dict
    cfg["lr"] = 0.5  # an entry rebound to a plain value
    opts["seen"].append("x")  # a keyword argument
    return ((x**2 - x) * log[0] * cfg["inner"]["w"] * opts["w"]).sum()


def log_state():
    return (
        [np.array([1.0, 2.0, 3.0])],
        {"inner": {"steps": 0, "w": np.array([0.5, -1.0, 2.0])}, "lr": 0.1},
        {"seen": [], "w": np.ones(3)},
    )


@pytest.mark.parametrize("name", ["grad", "jacrev", "jacfwd"])
def test_list_append_nested_dict_and_keyword_argument(name):
    ours, theirs = TRANSFORMS[name]
    log, cfg, opts = log_state()
    g = ours(logs)(X, log, cfg, opts=opts)
    jlog, jcfg, jopts = log_state()
    want = theirs(logs)(X, jlog, jcfg, opts=jopts)
    assert_tree_close(g, np.asarray(want), **fd_tol(np.float64))
    assert log[1:] == jlog[1:] == [1]
    assert cfg["inner"]["steps"] == jcfg["inner"]["steps"] == 1
    assert cfg["lr"] == jcfg["lr"] == 0.5
    assert opts["seen"] == jopts["seen"] == ["x"]
    assert type(log[0]) is np.ndarray and type(cfg["inner"]["w"]) is np.ndarray


def writes(x, s):
    s["w"] *= 2.0  # in place into the caller's array: the caller's array is left alone
    s["fresh"] = np.zeros(3)  # an array made inside: the caller gets the plain array
    s["fresh"][1] = 4.0
    s["sum"] = s["w"] + 1.0  # a new plain array
    return (x * s["w"]).sum()


def test_in_place_writes_keep_the_documented_semantics_and_new_arrays_reach_the_caller():
    w = np.array([1.0, 2.0, 3.0])
    st = {"w": w}
    g = ft.grad(writes)(X, st)
    np.testing.assert_array_equal(g, 2.0 * w)  # the written value, as eager NumPy
    assert st["w"] is w
    np.testing.assert_array_equal(w, [1.0, 2.0, 3.0])
    assert type(st["fresh"]) is np.ndarray and type(st["sum"]) is np.ndarray
    np.testing.assert_array_equal(st["fresh"], [0.0, 4.0, 0.0])
    np.testing.assert_array_equal(st["sum"], 2.0 * w + 1.0)


def test_an_error_in_the_function_gives_the_caller_back_its_arrays():
    st = state()
    scale = st["scale"]

    def fails(x, s):
        s["count"] += 1
        raise KeyError("boom")

    with pytest.raises(KeyError):
        ft.grad(fails)(X, st)
    assert st["scale"] is scale and st["count"] == 1


def test_a_traced_value_stored_in_the_callers_dict_raises_when_used():
    st = state()

    def leaks(x, s):
        s["last"] = x * 2.0
        return (x * s["scale"]).sum()

    np.testing.assert_array_equal(ft.grad(leaks)(X, st), st["scale"])
    with pytest.raises(EscapedTracerError, match=r"grad\(leaks\).*stored it in s\['last'\]"):
        np.asarray(st["last"] + 1.0)

    def logs_it(x, *, opts):
        opts["seen"][0].hist.append(x)
        return (x * opts["seen"][0].w).sum()

    opts = {"seen": [Params(np.ones(3), [])]}
    ft.jacrev(logs_it)(X, opts=opts)
    with pytest.raises(EscapedTracerError, match=r"in opts\['seen'\]\[0\]\.hist\[0\]"):
        np.asarray(opts["seen"][0].hist[0] * 2.0)


def test_a_dict_passed_twice_and_inside_a_tuple():
    st = state()

    def twice(x, a, b):
        a["count"] += 1
        b["count"] += 1
        return (x * a["scale"] * b["scale"]).sum()

    np.testing.assert_allclose(ft.grad(twice)(X, st, st), st["scale"] ** 2)
    assert st["count"] == 2
    inner = state()
    ft.grad(lambda x, t: counted(x, t[0]) * t[1])(X, (inner, 2.0))
    assert inner["count"] == 1


def test_an_argument_sharing_memory_with_the_differentiated_one():
    x = X.copy()
    st = {"count": 0, "view": x}

    def f(x, s):
        s["count"] += 1
        return (x * s["view"]).sum()

    jst = {"count": 0, "view": x}
    np.testing.assert_allclose(ft.grad(f)(x, st), jax.grad(f)(x, jst))
    assert st["count"] == jst["count"] == 1 and st["view"] is x


def test_vmap_in_dims_none_gives_copies_of_containers_as_jax_vmap():
    xs = np.stack([X, 2 * X])
    st, jst = state(), state()
    got = ft.vmap(counted, in_dims=(0, None))(xs, st)
    want = jax.vmap(counted, in_axes=(0, None))(xs, jst)
    assert_tree_close(got, np.asarray(want), **fd_tol(np.float64))
    assert st["count"] == jst["count"] == 0
    # vmap of grad: the batch's one Python run, and the row derivatives
    st = state()
    rows = ft.vmap(ft.grad(counted), in_dims=(0, None))(xs, st)
    for row, x in zip(rows, xs):
        fd = fd_jacobian(lambda v: counted(v, state()), (x,))
        assert_tree_close(row, fd, **fd_tol(np.float64))


NT = collections.namedtuple("NT", "log w")


@dataclasses.dataclass(frozen=True)
class Params:
    w: np.ndarray
    hist: list


ft.tree_util.register_dataclass(Params, data_fields=["w", "hist"], meta_fields=[])
jax.tree_util.register_dataclass(Params, data_fields=["w", "hist"], meta_fields=[])


def test_a_list_in_a_namedtuple_and_the_attributes_of_a_registered_dataclass():
    def appends(x, t):
        t.log.append(1)
        return (x * t.w).sum()

    nt, jnt = NT([np.ones(3)], np.ones(3)), NT([np.ones(3)], np.ones(3))
    ft.grad(appends)(X, nt)
    jax.grad(appends)(X, jnt)
    assert len(nt.log) == len(jnt.log) == 2

    def records(x, p):
        p.hist.append(len(p.hist))
        return (x**2 * p.w).sum()

    w = np.array([1.0, -2.0, 0.5])
    p, jp = Params(w, []), Params(w.copy(), [])
    np.testing.assert_allclose(ft.hessian(records)(X, p), jax.hessian(records)(X, jp))
    assert p.hist == jp.hist == [0]
    assert p.w is w

    def writes_w(x, p):
        p.w[0] = 5.0
        return (x * p.w).sum()

    np.testing.assert_array_equal(ft.grad(writes_w)(X, p), [5.0, -2.0, 0.5])
    assert p.w is w
    np.testing.assert_array_equal(w, [1.0, -2.0, 0.5])  # the documented outside-array row
