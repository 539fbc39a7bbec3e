"""Round 14: machine-learning code written in plain NumPy under the transforms (optimizer
steps that update state dicts, jitted training steps).  Oracles: the same code run
eagerly, and the documented contract of ``jit`` (docs/guides/jit.md: the caller's
arguments are never modified, and a step written to modify them is told so).

* A jitted training step that kept its optimizer state in a dict it was passed
  (``state["t"] += 1``, ``state["m"][k] = 0.9 * state["m"][k] + g``) silently did
  nothing to that state, at every call, where the same step without ``jit`` updates it:
  ``jit`` (as ``jax.jit``) hands the function new containers rebuilt from the flattened
  arguments.  Only writes into an argument's *arrays* were told with
  ``ArgumentWriteWarning``; an assignment into an argument's dict or list now is too
  (NOTE [assignments into argument containers under jit]), naming the item, except for an
  argument the step returns (``p["W"] = ...; return p``), whose items the caller gets,
  and for an equal number put back (``cfg["lr"] *= 1.0``).
"""

import re
import warnings

import numpy as np
import pytest

import ftransforms as ft
from ftransforms.errors import ArgumentWriteWarning


def _loss(p, x, y):
    z = np.tanh(x @ p["W"] + p["b"])
    return ((z - y) ** 2).mean()


def _step_with_state(p, state, x, y):
    g = ft.grad(_loss)(p, x, y)
    state["t"] += 1
    for k in p:
        state["m"][k] = 0.9 * state["m"][k] + 0.1 * g[k]
    return {k: p[k] - 0.1 * state["m"][k] for k in p}


def _data():
    rng = np.random.default_rng(0)
    p = {"W": rng.normal(size=(3, 2)), "b": np.zeros(2)}
    state = {"t": 0, "m": {k: np.zeros_like(v) for k, v in p.items()}}
    return p, state, rng.normal(size=(5, 3)), rng.normal(size=(5, 2))


def test_a_jitted_step_that_assigns_into_its_state_dict_says_so():
    p, state, x, y = _data()
    step = ft.jit(_step_with_state)
    with pytest.warns(ArgumentWriteWarning) as caught:
        for _ in range(3):
            p = step(p, state, x, y)
    assert len(caught) == 1  # once per jitted function
    msg = str(caught[0].message)
    assert msg.startswith("jit(_step_with_state): the function assigns into argument 1[")
    assert "p, state = step(p, state, g)" in msg
    assert state["t"] == 0  # the documented contract: the caller's containers are kept

    # returning the state, as the warning says, gives the eager loop's numbers
    def functional(p, state, x, y):
        state = {"t": state["t"], "m": dict(state["m"])}
        return _step_with_state(p, state, x, y), state

    p_j, s_j, p_e, s_e = *_data()[:2], *_data()[:2]
    jitted = ft.jit(functional)
    for _ in range(3):
        p_j, s_j = jitted(p_j, s_j, x, y)
        p_e = _step_with_state(p_e, s_e, x, y)
    for k in p_e:
        np.testing.assert_allclose(p_j[k], p_e[k], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(s_j["m"][k], s_e["m"][k], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "body, place",
    [
        (lambda d, x: d.__setitem__("n", d["n"] + 1), "argument 0['n']"),
        (lambda d, x: d["hist"].append(1.0), "argument 0['hist'][0]"),
        (lambda d, x: d["m"].__setitem__("a", d["m"]["a"] + x), "argument 0['m']['a']"),
    ],
)
def test_each_kind_of_assignment_names_the_item(body, place):
    def f(d, x):
        body(d, x)
        return x * 2

    d = {"n": 0, "hist": [], "m": {"a": np.zeros(2)}}
    with pytest.warns(ArgumentWriteWarning, match="assigns into " + re.escape(place) + ","):
        np.testing.assert_array_equal(ft.jit(f)(d, np.ones(2)), 2.0)
    assert d["n"] == 0 and d["hist"] == [] and not d["m"]["a"].any()


def test_a_step_that_returns_the_dict_it_assigned_into_is_not_told():
    def sgd(p, g):
        p["W"] = p["W"] - 0.1 * g
        return p

    p = {"W": np.ones(2)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        step = ft.jit(sgd)
        for _ in range(3):
            p = step(p, np.ones(2))
        assert ft.jit(lambda d: {"a": d["a"] * 2})({"a": np.ones(1)})["a"][0] == 2.0
    np.testing.assert_allclose(p["W"], 0.7)


def test_an_assignment_of_an_equal_number_is_not_told():
    def f(cfg, x):
        cfg["lr"] *= 1.0  # a new float object, equal: the caller sees no change
        cfg["n"] = cfg["n"] + 0
        return x * cfg["lr"]

    cfg = {"lr": 0.5, "n": 1000}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(ft.jit(f)(cfg, np.ones(2)), 0.5)
