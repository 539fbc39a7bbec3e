"""The composition table: transforms stacked two and three deep.

Every composition is written once, against a transform namespace ``T`` and an array
namespace ``xp``, and run three ways:

* ftransforms (``T = ftransforms``, ``xp = numpy``) in float32 and float64;
* JAX (``T = JaxT``, ``xp = jax.numpy``) in float64, the oracle;
* a second oracle built from 4th-order central finite differences in float64: of the
  plain NumPy function for first derivatives, and of ftransforms' own inner transform (in
  float64) for the outer derivative of a stack.  ``vmap`` layers are checked against a
  Python loop.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optree
import pytest

import ftransforms
from tests.jaxpr_evaluator import on_jax
from tests.tolerances import assert_tree_close as _assert_tree_close
from tests.tolerances import fd_tol, tol

# what a transform returns must be a numpy.ndarray (see tolerances.assert_tree_close)
assert_tree_close = functools.partial(_assert_tree_close, strict=True)

N, M, B, A = 4, 3, 3, 2  # input size, output size, batch sizes


# -- the transform namespaces ------------------------------------------------------------


class JaxT:
    """JAX behind torch.func's names and return conventions."""

    @staticmethod
    def vmap(f, in_dims=0, out_dims=0, chunk_size=None):
        return jax.vmap(f, in_axes=in_dims, out_axes=out_dims)

    grad = staticmethod(jax.grad)
    jacrev = staticmethod(jax.jacrev)
    jacfwd = staticmethod(jax.jacfwd)
    hessian = staticmethod(jax.hessian)

    @staticmethod
    def vjp(f, *primals, has_aux=False):
        return jax.vjp(f, *primals, has_aux=has_aux)

    @staticmethod
    def jvp(f, primals, tangents, has_aux=False):
        return jax.jvp(f, tuple(primals), tuple(tangents), has_aux=has_aux)


OURS = (ftransforms, np)
JAX = (JaxT, jnp)


# -- the test functions: f(x, p) with x of shape (N,), p a dict of parameters ------------
# Scalar-valued functions take part in grad/hessian stacks, vector-valued ones (M outputs)
# in jvp/vjp/jacobian stacks.  Inputs are kept away from the kinks of where/maximum.


def mlp_sq(xp):
    # A mean, not a sum: with a sum the Hessian has O(1) entries, whose float32 roundoff
    # (JAX's own float32 jacfwd(jacrev) included) reaches the table's atol of 1e-6.
    return lambda x, p: xp.mean(xp.tanh(p["W"] @ x + p["b"]) ** 2)


def softmax_ce(xp):
    def f(x, p):
        logits = p["W"] @ xp.tanh(x) + p["b"]
        z = logits - xp.max(logits)
        logp = z - xp.log(xp.sum(xp.exp(z)))
        return -xp.sum(p["y"] * logp)

    return f


def sum_squares(xp):
    return lambda x, p: xp.sum((x - p["c"]) ** 2) * xp.mean(xp.exp(x / 4))


def logsumexp(xp):
    def f(x, p):
        z = x * p["c"]
        m = xp.max(z)
        return m + xp.log(xp.sum(xp.exp(z - m)))

    return f


def index_where_max(xp):
    def f(x, p):
        idx = p["idx"]
        s = xp.sum(xp.where(x > 0, x**3, xp.sin(x)))
        return s + x[0] * xp.sum(x[idx] ** 2) + xp.sum(xp.maximum(x, p["c"]) * x)

    return f


def matmul_reduce(xp):
    def f(x, p):
        q = x @ p["Q"] @ x
        return q + xp.sum(xp.mean(p["W"] * x, axis=1) ** 2) + xp.prod(xp.cos(x[1:3]))

    return f


SCALAR_FNS = {
    "mlp_sq": mlp_sq,
    "softmax_ce": softmax_ce,
    "sum_squares": sum_squares,
    "logsumexp": logsumexp,
    "index_where_max": index_where_max,
    "matmul_reduce": matmul_reduce,
}


def mlp_layer(xp):
    return lambda x, p: xp.tanh(x @ p["W"].T + p["b"])


def affine(xp):
    return lambda x, p: x @ p["W"].T + p["b"]


def softmax(xp):
    def f(x, p):
        z = p["W"] @ x
        e = xp.exp(z - xp.max(z))
        return e / xp.sum(e)

    return f


def index_mix(xp):
    # x[idx] gathers (with a repeat), x[:2] slices, maximum/where pick elementwise
    def f(x, p):
        g = x[p["idx"]] * x[0]
        return xp.where(g > 0, g, xp.exp(g)) + xp.maximum(x[:M], p["c"][:M]) ** 2

    return f


VECTOR_FNS = {
    "mlp_layer": mlp_layer,
    "affine": affine,
    "softmax": softmax,
    "index_mix": index_mix,
}


def scalar_h(xp):
    """A scalar function of a scalar, for grad(grad(h)) stacks."""
    return lambda t: xp.tanh(t) * t**2 + xp.log1p(xp.exp(-t)) + xp.sin(3 * t)


# -- data ------------------------------------------------------------------------------------


def away_from_kinks(z, kink=0.0, gap=0.25):
    """Push values at least ``gap`` away from ``kink`` (finite differences must not cross)."""
    d = z - kink
    return kink + np.sign(d + (d == 0)) * (np.abs(d) + gap)


def make_data(dtype):
    rng = np.random.default_rng(1234)
    data = {
        # inputs are at least 0.25 away from 0 (where's kink) and so at least 0.1 away
        # from c (maximum's kinks); finite-difference steps are 2e-3
        "x": away_from_kinks(rng.standard_normal(N)),
        "X": away_from_kinks(rng.standard_normal((B, N))),
        "XX": away_from_kinks(rng.standard_normal((A, B, N))),
        "v": rng.standard_normal(N),
        "w": rng.standard_normal(N),
        "V": rng.standard_normal((B, N)),
        "u": rng.standard_normal(M),
        "U": rng.standard_normal((B, M)),
        "t": rng.standard_normal(B) * 1.5,
        "T": rng.standard_normal((A, B)) * 1.5,
        "p": {
            "W": rng.standard_normal((M, N)) * 0.7,
            "b": rng.standard_normal(M) * 0.3,
            "y": np.eye(M)[1],
            "c": np.linspace(-0.15, 0.15, N),
            "Q": rng.standard_normal((N, N)) * 0.5,
            "idx": np.array([2, 0, 2]),
        },
    }

    def cast(a):
        # float32-representable values, so that both dtypes see the same inputs and share
        # one (float64) oracle
        a = np.asarray(a)
        return a.astype(np.float32).astype(dtype) if a.dtype.kind == "f" else a

    return optree.tree_map(cast, data)


def as64(tree):
    return optree.tree_map(
        lambda a: np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else a, tree
    )


# -- finite differences ------------------------------------------------------------------


def fd_jac(fun, x, h=1e-3):
    """d fun / d x by 4th-order central differences: shape fun(x).shape + x.shape."""
    x = np.asarray(x, np.float64)
    y0 = np.asarray(fun(x))
    out = np.zeros(y0.shape + x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        d = (-fun(x + 2 * e) + 8 * fun(x + e) - 8 * fun(x - e) + fun(x - 2 * e)) / (12 * h)
        out[(...,) + i] = d
    return out


def rows(fun, X):
    """Apply ``fun`` to every row (leading index) of X and stack: the loop for vmap."""
    return np.stack([fun(X[i]) for i in range(X.shape[0])])


# -- the composition table ---------------------------------------------------------------


@dataclass(frozen=True)
class Comp:
    name: str
    kind: str  # "scalar" | "vector" | "h": which test functions it takes
    run: Any  # run(T, xp, f, d) -> pytree of arrays
    fd: Any  # fd(f_np, d) -> expected pytree (float64), or None
    loop: Any = None  # loop(f_np, d) -> expected pytree for vmap-only stacks


def ours_grad(f, d):
    return lambda x: ftransforms.grad(f)(x, d["p"])


def ours_vjp(f, d):
    return lambda x: ftransforms.vjp(lambda x: f(x, d["p"]), x)[1](d["u"])[0]


def ours_jvp(f, d):
    return lambda x: ftransforms.jvp(lambda x: f(x, d["p"]), (x,), (d["v"],))[1]


COMPS = [
    # ---------------- scalar functions ----------------
    Comp(
        "vmap(grad)",
        "scalar",
        lambda T, xp, f, d: T.vmap(T.grad(f), in_dims=(0, None))(d["X"], d["p"]),
        lambda f, d: rows(lambda x: fd_jac(lambda x: f(x, d["p"]), x), d["X"]),
    ),
    Comp(
        "grad(vmap)",
        "scalar",
        lambda T, xp, f, d: T.grad(
            lambda X: xp.sum(T.vmap(f, in_dims=(0, None))(X, d["p"]) * d["t"])
        )(d["X"]),
        lambda f, d: fd_jac(lambda X: rows(lambda x: f(x, d["p"]), X) @ d["t"], d["X"]),
    ),
    Comp(
        "grad(grad)",
        "scalar",
        lambda T, xp, f, d: T.grad(lambda x: T.grad(f)(x, d["p"]) @ d["v"])(d["x"]),
        lambda f, d: fd_jac(ours_grad(f, d), d["x"]).T @ d["v"],
    ),
    Comp(
        "jvp(grad)",
        "scalar",
        lambda T, xp, f, d: T.jvp(lambda x: T.grad(f)(x, d["p"]), (d["x"],), (d["v"],)),
        lambda f, d: (
            fd_jac(lambda x: f(x, d["p"]), d["x"]),
            fd_jac(ours_grad(f, d), d["x"]) @ d["v"],
        ),
    ),
    Comp(
        "grad(jvp)",
        "scalar",
        lambda T, xp, f, d: T.grad(lambda x: T.jvp(lambda y: f(y, d["p"]), (x,), (d["v"],))[1])(
            d["x"]
        ),
        lambda f, d: fd_jac(ours_grad(f, d), d["x"]).T @ d["v"],
    ),
    Comp(
        "hessian",
        "scalar",
        lambda T, xp, f, d: T.hessian(f)(d["x"], d["p"]),
        lambda f, d: fd_jac(ours_grad(f, d), d["x"]),
    ),
    Comp(
        "jacfwd(jacrev)",
        "scalar",
        lambda T, xp, f, d: T.jacfwd(T.jacrev(f))(d["x"], d["p"]),
        lambda f, d: fd_jac(ours_grad(f, d), d["x"]),
    ),
    Comp(
        "jacrev(jacrev)",
        "scalar",
        lambda T, xp, f, d: T.jacrev(T.jacrev(f))(d["x"], d["p"]),
        lambda f, d: fd_jac(ours_grad(f, d), d["x"]),
    ),
    Comp(
        "vmap(vmap)",
        "scalar",
        lambda T, xp, f, d: T.vmap(T.vmap(f, in_dims=(0, None)), in_dims=(1, None))(
            d["XX"], d["p"]
        ),
        None,
        loop=lambda f, d: np.stack([rows(lambda x: f(x, d["p"]), d["XX"][:, j]) for j in range(B)]),
    ),
    # depth 3
    Comp(
        "vmap(vmap(grad))",
        "scalar",
        lambda T, xp, f, d: T.vmap(T.vmap(T.grad(f), in_dims=(0, None)), in_dims=(0, None))(
            d["XX"], d["p"]
        ),
        lambda f, d: np.stack(
            [rows(lambda x: fd_jac(lambda x: f(x, d["p"]), x), d["XX"][i]) for i in range(A)]
        ),
    ),
    Comp(
        "jacfwd(vmap(grad))",
        "scalar",
        lambda T, xp, f, d: T.jacfwd(lambda X: T.vmap(T.grad(f), in_dims=(0, None))(X, d["p"]))(
            d["X"]
        ),
        lambda f, d: fd_jac(lambda X: rows(ours_grad(f, d), X), d["X"]),
    ),
    Comp(
        "vmap(hessian)",
        "scalar",
        lambda T, xp, f, d: T.vmap(T.hessian(f), in_dims=(0, None))(d["X"], d["p"]),
        lambda f, d: rows(lambda x: fd_jac(ours_grad(f, d), x), d["X"]),
    ),
    Comp(
        "vmap(jvp(grad))",
        "scalar",
        lambda T, xp, f, d: T.vmap(
            lambda x, v: T.jvp(lambda y: T.grad(f)(y, d["p"]), (x,), (v,))[1]
        )(d["X"], d["V"]),
        lambda f, d: np.stack([fd_jac(ours_grad(f, d), d["X"][i]) @ d["V"][i] for i in range(B)]),
    ),
    Comp(
        "grad(vmap(grad))",
        "scalar",
        lambda T, xp, f, d: T.grad(
            lambda X: xp.sum(T.vmap(T.grad(f), in_dims=(0, None))(X, d["p"]) * d["V"])
        )(d["X"]),
        lambda f, d: fd_jac(lambda X: np.sum(rows(ours_grad(f, d), X) * d["V"]), d["X"]),
    ),
    # ---------------- vector functions ----------------
    Comp(
        "vjp(vmap)",
        "vector",
        lambda T, xp, f, d: T.vjp(lambda X: T.vmap(f, in_dims=(0, None))(X, d["p"]), d["X"])[1](
            d["U"]
        ),
        lambda f, d: (
            np.stack([d["U"][i] @ fd_jac(lambda x: f(x, d["p"]), d["X"][i]) for i in range(B)]),
        ),
    ),
    Comp(
        "vmap(vjp)",
        "vector",
        lambda T, xp, f, d: T.vmap(lambda x, u: T.vjp(lambda y: f(y, d["p"]), x)[1](u)[0])(
            d["X"], d["U"]
        ),
        lambda f, d: np.stack(
            [d["U"][i] @ fd_jac(lambda x: f(x, d["p"]), d["X"][i]) for i in range(B)]
        ),
    ),
    Comp(
        "vmap(jvp)",
        "vector",
        lambda T, xp, f, d: T.vmap(lambda x, v: T.jvp(lambda y: f(y, d["p"]), (x,), (v,)))(
            d["X"], d["V"]
        ),
        lambda f, d: (
            rows(lambda x: f(x, d["p"]), d["X"]),
            np.stack([fd_jac(lambda x: f(x, d["p"]), d["X"][i]) @ d["V"][i] for i in range(B)]),
        ),
    ),
    Comp(
        "vmap(jacrev)",
        "vector",
        lambda T, xp, f, d: T.vmap(T.jacrev(f), in_dims=(0, None))(d["X"], d["p"]),
        lambda f, d: rows(lambda x: fd_jac(lambda x: f(x, d["p"]), x), d["X"]),
    ),
    Comp(
        "vmap(jacfwd)",
        "vector",
        lambda T, xp, f, d: T.vmap(T.jacfwd(f), in_dims=(0, None))(d["X"], d["p"]),
        lambda f, d: rows(lambda x: fd_jac(lambda x: f(x, d["p"]), x), d["X"]),
    ),
    Comp(
        "jacrev(vmap)",
        "vector",
        lambda T, xp, f, d: T.jacrev(lambda X: T.vmap(f, in_dims=(0, None))(X, d["p"]))(d["X"]),
        lambda f, d: fd_jac(lambda X: rows(lambda x: f(x, d["p"]), X), d["X"]),
    ),
    Comp(
        "jvp(vjp)",
        "vector",
        lambda T, xp, f, d: T.jvp(
            lambda x: T.vjp(lambda y: f(y, d["p"]), x)[1](d["u"])[0], (d["x"],), (d["v"],)
        ),
        lambda f, d: (
            d["u"] @ fd_jac(lambda x: f(x, d["p"]), d["x"]),
            fd_jac(ours_vjp(f, d), d["x"]) @ d["v"],
        ),
    ),
    Comp(
        "vjp(vjp)",
        "vector",
        lambda T, xp, f, d: T.vjp(
            lambda x, u: T.vjp(lambda y: f(y, d["p"]), x)[1](u)[0], d["x"], d["u"]
        )[1](d["w"]),
        lambda f, d: (
            d["w"] @ fd_jac(ours_vjp(f, d), d["x"]),
            # differentiating the pullback in its cotangent gives J w (double-backward)
            fd_jac(lambda x: f(x, d["p"]), d["x"]) @ d["w"],
        ),
    ),
    Comp(
        "jvp(jvp)",
        "vector",
        lambda T, xp, f, d: T.jvp(
            lambda x: T.jvp(lambda y: f(y, d["p"]), (x,), (d["v"],))[1], (d["x"],), (d["w"],)
        ),
        lambda f, d: (
            fd_jac(lambda x: f(x, d["p"]), d["x"]) @ d["v"],
            fd_jac(ours_jvp(f, d), d["x"]) @ d["w"],
        ),
    ),
    Comp(
        "jacfwd(jacrev)-vector",
        "vector",
        lambda T, xp, f, d: T.jacfwd(T.jacrev(f))(d["x"], d["p"]),
        lambda f, d: fd_jac(lambda x: ftransforms.jacrev(f)(x, d["p"]), d["x"]),
    ),
    Comp(
        "jacrev(jacrev)-vector",
        "vector",
        lambda T, xp, f, d: T.jacrev(T.jacrev(f))(d["x"], d["p"]),
        lambda f, d: fd_jac(lambda x: ftransforms.jacrev(f)(x, d["p"]), d["x"]),
    ),
    Comp(
        "jacrev(jacfwd)-vector",
        "vector",
        lambda T, xp, f, d: T.jacrev(T.jacfwd(f))(d["x"], d["p"]),
        lambda f, d: fd_jac(lambda x: ftransforms.jacfwd(f)(x, d["p"]), d["x"]),
    ),
    Comp(
        "vmap(vmap)-vector",
        "vector",
        lambda T, xp, f, d: T.vmap(
            T.vmap(f, in_dims=(0, None), out_dims=1), in_dims=(0, None), out_dims=-1
        )(d["XX"], d["p"]),
        None,
        loop=lambda f, d: np.stack(
            [np.stack([f(d["XX"][i, j], d["p"]) for j in range(B)], 1) for i in range(A)], -1
        ),
    ),
    Comp(
        "vmap(vjp(vmap))",
        "vector",
        lambda T, xp, f, d: T.vmap(
            lambda x, u: T.vjp(lambda y: T.vmap(f, in_dims=(0, None))(y, d["p"]), x)[1](u)[0]
        )(d["XX"], d["U"][None].repeat(A, 0)),
        lambda f, d: np.stack(
            [
                np.stack(
                    [d["U"][j] @ fd_jac(lambda x: f(x, d["p"]), d["XX"][i, j]) for j in range(B)]
                )
                for i in range(A)
            ]
        ),
    ),
    # ---------------- scalar -> scalar ----------------
    Comp(
        "vmap(grad(grad))",
        "h",
        lambda T, xp, h, d: T.vmap(T.grad(T.grad(h)))(d["t"]),
        lambda h, d: np.array([fd_jac(ftransforms.grad(h), t) for t in d["t"]]),
    ),
    Comp(
        "vmap(vmap(grad(grad)))",
        "h",
        lambda T, xp, h, d: T.vmap(T.vmap(T.grad(T.grad(h))))(d["T"]),
        lambda h, d: np.vectorize(lambda t: fd_jac(ftransforms.grad(h), t))(d["T"]),
    ),
    Comp(
        "vmap(grad(grad(grad)))",
        "h",
        lambda T, xp, h, d: T.vmap(T.grad(T.grad(T.grad(h))))(d["t"]),
        lambda h, d: np.array([fd_jac(ftransforms.grad(ftransforms.grad(h)), t) for t in d["t"]]),
    ),
]


def _fns(kind):
    return {"scalar": SCALAR_FNS, "vector": VECTOR_FNS, "h": {"h": scalar_h}}[kind]


#: Which test functions each composition runs on (every JAX oracle costs a compilation, so
#: the functions rotate over the table; the Hessian takes all of them).
FNS_FOR = {
    "vmap(grad)": ("mlp_sq", "softmax_ce", "index_where_max"),
    "grad(vmap)": ("logsumexp", "matmul_reduce"),
    "grad(grad)": ("mlp_sq", "index_where_max"),
    "jvp(grad)": ("softmax_ce", "sum_squares"),
    "grad(jvp)": ("logsumexp", "matmul_reduce"),
    "hessian": tuple(SCALAR_FNS),
    "jacfwd(jacrev)": ("softmax_ce", "index_where_max"),
    "jacrev(jacrev)": ("mlp_sq", "matmul_reduce"),
    "vmap(vmap)": ("sum_squares", "index_where_max"),
    "vmap(vmap(grad))": ("softmax_ce",),
    "jacfwd(vmap(grad))": ("mlp_sq",),
    "vmap(hessian)": ("index_where_max",),
    "vmap(jvp(grad))": ("logsumexp",),
    "grad(vmap(grad))": ("matmul_reduce",),
    "vjp(vmap)": ("mlp_layer", "index_mix"),
    "vmap(vjp)": ("affine", "softmax"),
    "vmap(jvp)": ("mlp_layer", "index_mix"),
    "vmap(jacrev)": ("mlp_layer", "softmax"),
    "vmap(jacfwd)": ("affine", "index_mix"),
    "jacrev(vmap)": ("softmax", "mlp_layer"),
    "jvp(vjp)": ("mlp_layer", "index_mix"),
    "vjp(vjp)": ("softmax", "affine"),
    "jvp(jvp)": ("mlp_layer", "softmax"),
    "jacfwd(jacrev)-vector": ("index_mix", "mlp_layer"),
    "jacrev(jacrev)-vector": ("softmax",),
    "jacrev(jacfwd)-vector": ("mlp_layer",),
    "vmap(vmap)-vector": ("index_mix", "affine"),
    "vmap(vjp(vmap))": ("mlp_layer",),
    "vmap(grad(grad))": ("h",),
    "vmap(vmap(grad(grad)))": ("h",),
    "vmap(grad(grad(grad)))": ("h",),
}
assert set(FNS_FOR) == {c.name for c in COMPS}
assert set().union(*FNS_FOR.values()) == {*SCALAR_FNS, *VECTOR_FNS, "h"}

CASES = [pytest.param(c, fname, id=f"{c.name}-{fname}") for c in COMPS for fname in FNS_FOR[c.name]]

#: (composition, function) -> (JAX's result, the finite-difference or loop result), both
#: float64 on the shared inputs; computed once for the two dtypes.
_ORACLES: dict = {}


def oracles(comp, fname):
    key = (comp.name, fname)
    if key not in _ORACLES:
        make = _fns(comp.kind)[fname]
        d64 = make_data(np.float64)
        # JAX traces the composition and tests/jaxpr_evaluator.py runs it on NumPy (NOTE
        # [the JAX oracle without XLA compiles]); XLA (jax.jit) for a primitive it lacks
        ref = on_jax(lambda d: comp.run(JaxT, jnp, make(jnp), d), d64)
        ref = optree.tree_map(np.asarray, ref)
        f_np = make(np)
        second = comp.fd(f_np, d64) if comp.fd is not None else comp.loop(f_np, d64)
        _ORACLES[key] = (ref, second)
    return _ORACLES[key]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("comp,fname", CASES)
def test_composition(comp, fname, dtype):
    make = _fns(comp.kind)[fname]
    out = comp.run(ftransforms, np, make(np), make_data(dtype))
    ref, second = oracles(comp, fname)
    assert_tree_close(out, ref, dtype=dtype, err_msg=f"{comp.name} vs JAX", **tol(dtype))
    if comp.fd is not None:
        bound, what = fd_tol(dtype), "finite differences"
    else:
        bound, what = tol(dtype), "a Python loop"
    assert_tree_close(out, second, err_msg=f"{comp.name} vs {what}", **bound)


# -- perturbation confusion ------------------------------------------------------------------


def test_perturbation_confusion_grad():
    # d/dx [x * d/dy (x + y)] = d/dx [x * 1] = 1; a confused implementation gives 2.
    one = np.float64(1.0)
    out = ftransforms.grad(lambda x: x * ftransforms.grad(lambda y: x + y)(one))(one)
    ref = jax.grad(lambda x: x * jax.grad(lambda y: x + y)(one))(one)
    assert float(out) == float(ref) == 1.0


def test_perturbation_confusion_jvp():
    one = np.float64(1.0)

    def inner(T, x):
        return T.jvp(lambda y: x + y, (one,), (one,))[1]

    out = ftransforms.jvp(lambda x: x * inner(ftransforms, x), (one,), (one,))[1]
    ref = jax.jvp(lambda x: x * inner(JaxT, x), (one,), (one,))[1]
    assert float(out) == float(ref) == 1.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_perturbation_confusion_arrays(dtype):
    d = make_data(dtype)
    x, y0, v, w = d["x"], d["v"], d["w"], d["V"][0]

    def run(T, xp, x, y0, v, w):
        def outer(x):
            # the inner grad closes over the outer transform's tracer x
            g = T.grad(lambda y: xp.sum(xp.sin(x * y) * y))(y0)
            # and so does the inner jvp
            t = T.jvp(lambda y: xp.exp(x * y), (y0,), (v,))[1]
            return xp.sum(g * x) + xp.sum(t)

        return T.grad(outer)(x), T.jvp(outer, (x,), (w,))[1]

    out = run(ftransforms, np, x, y0, v, w)
    ref = jax.jit(lambda *a: run(JaxT, jnp, *a))(*as64((x, y0, v, w)))
    assert_tree_close(out, optree.tree_map(np.asarray, ref), dtype=dtype, **tol(dtype))
    y64, v64 = as64((y0, v))

    def outer_inner_only(x):  # outer() on a plain array: only the inner transforms run
        g = ftransforms.grad(lambda y: np.sum(np.sin(x * y) * y))(y64)
        t = ftransforms.jvp(lambda y: np.exp(x * y), (y64,), (v64,))[1]
        return np.sum(g * x) + np.sum(t)

    fd = fd_jac(outer_inner_only, as64(x))
    assert_tree_close(out, (fd, fd @ as64(w)), **fd_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_perturbation_confusion_vmap_closure(dtype):
    # an inner grad / jvp inside vmap, closing over the batched value
    d = make_data(dtype)
    X, y0, v = d["X"], d["v"], d["w"]

    def run(T, xp, X, y0, v):
        def per_row(x):
            g = T.grad(lambda y: xp.sum(x * y**2 + xp.tanh(y) * x[0]))(y0)
            t = T.jvp(lambda y: xp.sin(x * y), (y0,), (v,))[1]
            return g + t

        return T.vmap(per_row)(X)

    out = run(ftransforms, np, X, y0, v)
    ref = np.asarray(jax.jit(lambda *a: run(JaxT, jnp, *a))(*as64((X, y0, v))))
    assert_tree_close(out, ref, dtype=dtype, **tol(dtype))
    x64, y64, v64 = as64((X, y0, v))
    expected = np.stack(
        [2 * x * y64 + (1 - np.tanh(y64) ** 2) * x[0] + np.cos(x * y64) * x * v64 for x in x64]
    )
    assert_tree_close(out, expected, **fd_tol(dtype))
