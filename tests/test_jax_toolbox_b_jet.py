"""``ft.jet`` (Taylor mode, NOTE [Taylor mode] in ``ftransforms/jet.py``) against JAX's
``jax.experimental.jet.jet``: op by op, pytrees, under vmap, jit and grad, the strict CuPy
stand-in, and the errors.  Ops JAX's jet has no rule for are checked against nested
``jax.jvp`` along a straight line."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sps
from jax.experimental.jet import jet as jax_jet

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.primitive import Primitive
from ftransforms.errors import TangentMismatchError, UnsupportedOperationError
from ftransforms.strict_backend import StrictArray, asarray
from tests.jaxpr_evaluator import on_jax

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(2)
X = RNG.uniform(0.5, 1.5, size=5)
TERMS = [RNG.normal(size=5) for _ in range(4)]
W = RNG.normal(size=(5, 3))


def _close(a, b, tol=1e-11):
    for u, v in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        u, v = np.asarray(u), np.asarray(v)
        np.testing.assert_allclose(u, v, rtol=tol, atol=tol * (1 + np.abs(v).max()))


# the same function over numpy (ftransforms sees it through the NumPy protocols) and jnp
OPS = {
    "sin": lambda m: m.sin,
    "cos": lambda m: m.cos,
    "exp": lambda m: m.exp,
    "log": lambda m: m.log,
    "expm1": lambda m: m.expm1,
    "log1p": lambda m: m.log1p,
    "sinh": lambda m: m.sinh,
    "cosh": lambda m: m.cosh,
    "tanh": lambda m: m.tanh,
    "sqrt": lambda m: m.sqrt,
    "abs": lambda m: lambda x: m.abs(x - 1.0),
    "square": lambda m: m.square,
    "reciprocal": lambda m: m.reciprocal,
    "power_float": lambda m: lambda x: x**2.5,
    "power_int": lambda m: lambda x: x**3,
    "power_neg": lambda m: lambda x: x**-2,
    "power_series": lambda m: lambda x: x**x,
    "divide": lambda m: lambda x: m.sin(x) / (x + 1.0),
    "expit": lambda m: lambda x: 1 / (1 + m.exp(-x)),
    "erf": lambda m: sps.erf if m is np else jax.scipy.special.erf,
    "arcsinh": lambda m: m.arcsinh,
    "relu": lambda m: lambda x: m.maximum(x - 1.0, 0.0),
    "where": lambda m: lambda x: m.where(x > 1.0, x**2, m.sin(x)),
    "reduce_max": lambda m: lambda x: m.max(x * x),
    "reduce_sum": lambda m: lambda x: m.sum(m.exp(x)),
    "mean_std": lambda m: lambda x: m.mean(x) + m.std(x),
    "matmul": lambda m: lambda x: m.tanh(x @ W).sum(),
    "einsum": lambda m: lambda x: m.einsum("i,ij,i->j", x, W, m.exp(x)),
    "concatenate": lambda m: lambda x: m.concatenate([x, x**2]),
    "reshape_transpose": lambda m: lambda x: (m.reshape(x[:4], (2, 2)).T * x[:2]).sum(0),
    "getitem": lambda m: lambda x: m.exp(x[::2]) * x[1],
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_matches_jax_jet(name):
    f, fj = OPS[name](np), OPS[name](jnp)
    got = ft.jet(f, (X,), (TERMS,))
    ref = on_jax(lambda x, terms: jax_jet(fj, (x,), (terms,)), X, TERMS)
    _close(got, ref)


def _line_derivatives(fj, x, v, order):
    """d^k/dt^k fj(x + t v) at 0 for k = 1..order, by nested jax.jvp."""

    def all_orders(x):
        out = []
        g = fj
        for _ in range(order):
            g = (lambda g: lambda x: jax.jvp(g, (x,), (v,))[1])(g)
            out.append(g(x))
        return out

    return on_jax(all_orders, x)


# JAX's jet has no rule for these; ftransforms derives one from the JVP rule
GENERIC = {
    "arctan": (np.arctan, jnp.arctan),
    "tan": (np.tan, jnp.tan),
    "logaddexp": (lambda x: np.logaddexp(x, 0.3), lambda x: jnp.logaddexp(x, 0.3)),
    "arctan2": (lambda x: np.arctan2(x, 2.0 - x), lambda x: jnp.arctan2(x, 2.0 - x)),
    "gammaln": (sps.gammaln, jax.scipy.special.gammaln),
}


@pytest.mark.parametrize("name", sorted(GENERIC))
def test_op_without_a_jax_rule_matches_nested_jvp(name):
    f, fj = GENERIC[name]
    v = TERMS[0]
    zeros = [np.zeros_like(v)] * 3
    _, series = ft.jet(f, (X,), ([v, *zeros],))
    _close(series, _line_derivatives(fj, X, v, 4), tol=1e-9)


def test_pytrees_and_several_primals():
    # JAX's jet takes arrays only: its reference is the same function on flat arguments
    def f(m):
        def fun(p, y):
            return {"a": m.sin(p["u"]) * y, "b": (m.exp(p["w"]).sum() * y, p["u"] + y)}

        return fun

    p = {"u": X, "w": X[:3]}
    sp = [{"u": t, "w": t[:3]} for t in TERMS[:3]]
    y = X[::-1].copy()
    sy = [t[::-1].copy() for t in TERMS[:3]]
    got = ft.jet(f(np), (p, y), (sp, sy))
    ref = jax_jet(
        lambda u, w, y: f(jnp)({"u": u, "w": w}, y),
        (X, X[:3], y),
        ([t["u"] for t in sp], [t["w"] for t in sp], sy),
    )
    assert set(got[1]) == {"a", "b"} and len(got[1]["b"]) == 2 and len(got[1]["a"]) == 3
    _close(got, ref)


def mlp(m, x):
    return m.tanh(m.tanh(x @ W) @ W.T) @ W


def _fourth(x, v, m=np, jet=ft.jet):
    z = x * 0
    return jet(lambda x: mlp(m, x), (x,), ([v, z, z, z],))[1][3]


def test_vmap_jit_and_grad_compose_as_in_jax():
    xs, vs = RNG.normal(size=(4, 5)), RNG.normal(size=(4, 5))
    jax_vmapped = jax.vmap(lambda x, v: _fourth(x, v, jnp, jax_jet))
    jax_ref = lambda xs, vs: on_jax(jax_vmapped, xs, vs)  # noqa: E731
    ref = jax_ref(xs, vs)
    _close(ft.vmap(_fourth)(xs, vs), ref)
    _close(ft.jit(ft.vmap(_fourth))(xs, vs), ref)
    _close(ft.jit(ft.vmap(_fourth))(xs + 1, vs), jax_ref(xs + 1, vs))
    # jet of a vmapped function
    got = ft.jet(ft.vmap(lambda x: mlp(np, x)), (xs,), ([vs, vs * 0],))
    _close(
        got,
        on_jax(
            lambda xs, vs: jax_jet(jax.vmap(lambda x: mlp(jnp, x)), (xs,), ([vs, vs * 0],)), xs, vs
        ),
    )
    # grad through jet
    g = ft.grad(lambda x: _fourth(x, vs[0]).sum())(xs[0])
    ref_g = on_jax(jax.grad(lambda x: _fourth(x, vs[0], jnp, jax_jet).sum()), xs[0])
    _close(g, ref_g, tol=1e-9)


def test_agrees_with_nested_jvp_at_order_four():
    v = TERMS[0]
    got = _fourth(X, v)
    _close(got, _line_derivatives(lambda x: mlp(jnp, x), X, v, 4)[3], tol=1e-9)


def test_strict_backend_stays_on_device():
    y, series = ft.jet(
        lambda x: fnp.tanh(x @ asarray(W)), (asarray(X),), ([asarray(t) for t in TERMS[:3]],)
    )
    assert type(y) is StrictArray and all(type(s) is StrictArray for s in series)
    _, ref = jax_jet(lambda x: jnp.tanh(x @ W), (X,), (TERMS[:3],))
    _close([s.get() for s in series], ref)


def test_errors():
    no_rule = Primitive("no_jvp_rule", lambda xp, x: xp.sin(x))  # det has one (round 13)
    with pytest.raises(UnsupportedOperationError, match="'no_jvp_rule' has no Taylor"):
        ft.jet(no_rule.bind, (X[:1],), ([TERMS[0][:1]],))
    with pytest.raises(TangentMismatchError, match="same number of Taylor terms"):
        ft.jet(lambda x, y: x * y, (X, X), ([X], [X, X]))
    with pytest.raises(TangentMismatchError, match="shaped like its primal"):
        ft.jet(np.sin, (X,), ([X[:2]],))
    with pytest.raises(TypeError, match="list of Taylor terms"):
        ft.jet(np.sin, (X,), (X,))
    assert not ft.core.stack.current_stack()
