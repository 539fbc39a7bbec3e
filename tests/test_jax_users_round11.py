"""JAX users' programs, round 11: the transforms' corners and their libraries as JAX's own
tests use them (``import ftransforms as jax``), each compared with JAX itself (x64).

Each test failed before the change it names:

* ``nn.softmax``/``nn.log_softmax`` take ``where=`` (masked entries are 0 / -inf and get no
  derivative), ``nn.logsumexp`` takes ``b=``, ``return_sign=`` and ``where=``;
  ``nn.one_hot`` takes ``axis=``; a fully masked row gives 0 / -inf without a 0/0 warning;
  ``softmax``/``log_softmax`` of an empty array is empty (was a ValueError);
* ``nn.sigmoid``/``silu``/``glu``/``gelu`` keep a float16 input's dtype (SciPy's
  ``expit``/``erf`` returned float64); ``nn.standardize`` takes ``algorithm=`` and clips
  the fast variance at 0, as JAX does;
* ``lax.cond(pred, t, f, operand=x)`` (JAX's keyword form), ``vmap(spmd_axis_name=)``;
* ``lax.axis_index`` of a tuple of names (the flattened position, row-major);
  ``lax.psum`` of int8..int32 keeps the dtype (was widened to int64, JAX keeps it);
* ``linear_transpose`` of an integer -> integer function is its transpose (it returned
  zeros: the VJP of integers), a mixed integer/float one raises TypeError (as in JAX);
* ``InDimsError``/``OutDimsError`` are TypeErrors too (JAX raises TypeError for an
  ``in_axes``/``out_axes`` entry that is not an int or None);
* ``vjp``'s ``vjp_fn`` called with several cotangents raises a TypeError that names the
  function and the count (JAX's wording), not Python's "takes 1 positional argument";
* a ``custom_vjp`` bwd rule's ``None`` for a whole pytree argument (or subtree) is zeros
  for all of its leaves (it raised "2 cotangent leaves for 3 input leaves"); a
  ``custom_jvp`` rule's float0 tangent (``zero_from_primal``) for an integer output is
  accepted (it raised a ValueError from a cast); a bwd cotangent of the wrong shape for an
  input that is not differentiated raises, as JAX checks them all (it was dropped);
* ``ravel_pytree``'s ``unravel`` of a tree whose leaves share one dtype keeps the flat
  array's dtype, whatever it is (JAX #7809; it raised), and names the expected dtype
  ("but expected dtype") when the leaves have several;
* ``tree_util.flatten_one_level`` of a leaf says "can't tree-flatten type" (JAX's words);
* ``nn.initializers`` keep float16 (``truncated_normal`` and the ``*_normal`` families
  drew float32: SciPy's erfinv; ``orthogonal``/``delta_orthogonal`` raised: NumPy's QR
  has no float16) and ``random.truncated_normal``/``orthogonal`` with them; a 1-d shape
  for ``variance_scaling`` gives JAX's message;
* the derivative of ``abs`` of a complex 0 is 0 (JAX's convention), not 0/0 = nan: the
  gradient of ``|z|**2`` at a zero residual was nan (a silent wrong answer);
* the transforms' dtype errors carry JAX's sentences too ("grad requires real-valued
  outputs (output dtype that is a sub-dtype of np.floating), but got complex128", "jacfwd
  with holomorphic=True requires inputs with complex dtype, but got float64", ...), which
  JAX's api_test matches;
* ``example_libraries.optimizers.sm3``; ``OptimizerState`` compares equal as JAX's
  namedtuple does (``pack_optimizer_state(unpack_optimizer_state(s)) == s``);
* ``jax.ad_checkpoint.checkpoint_name`` (the identity here: model code that names values
  for a checkpoint policy runs unchanged);
* the modules ``jax.custom_derivatives`` (``SymbolicZero``, ``zero_from_primal``...) and
  ``jax.dtypes`` (``float0``) under their JAX names.

Deliberate differences seen and left (the project chose them earlier, see
tests/test_api_parity_round6.py and tests/test_peer_semantics*.py): reverse mode through
``while_loop`` works (JAX raises), ``vmap`` does not map keyword arguments.  (``nn.gelu``'s
exact-form default and the integer zeros for an integer value's cotangent / tangent, listed
here then, are JAX's since round 12: ``approximate=True`` and ``float0``.)
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import ftransforms as ft

jax.config.update("jax_enable_x64", True)

M = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]])
MASK = M > 0


def close(a, b, tol=1e-12):
    la, ta = jax.tree_util.tree_flatten(a)
    lb, tb = jax.tree_util.tree_flatten(b)
    assert ta == tb, (ta, tb)
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, y.shape, x.dtype, y.dtype)
        np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


def test_abs_of_complex_zero_has_derivative_zero_like_jax():
    z = np.array([0j, 1 + 1j, 0j, -2 + 0.5j])
    with np.errstate(all="raise"):
        g = ft.grad(lambda a: (np.abs(a) ** 2).sum())(z)
        close(g, 2 * np.conj(z))  # d|z|^2 = 2 conj(z): 0 at 0
        close(
            ft.vmap(ft.grad(np.abs))(z),
            np.where(z == 0, 0, np.conj(z) / np.where(z == 0, 1, np.abs(z))),
        )
        _, t = ft.jvp(np.abs, (z,), (np.ones(4, complex),))
        close(t, np.where(z == 0, 0, z.real / np.where(z == 0, 1, np.abs(z))))


# -- jax.nn ---------------------------------------------------------------------------------


def fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def np_softmax(x, axis, where):
    m = np.max(x, axis=axis, keepdims=True, where=where, initial=-np.inf)
    e = np.where(where, np.exp(x - m), 0.0)
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_and_log_softmax_where():
    # JAX's convention: masked entries are 0 (softmax) and -inf (log_softmax)
    for axis in (-1, 0, None):
        want = np_softmax(M, axis, MASK)
        close(ft.nn.softmax(M, axis=axis, where=MASK), want)
        with np.errstate(divide="ignore"):
            close(
                ft.nn.log_softmax(M, axis=axis, where=MASK), np.where(MASK, np.log(want), -np.inf)
            )
    w = np.arange(6.0).reshape(2, 3)
    for name in ("softmax", "log_softmax"):
        f = getattr(ft.nn, name)
        g = ft.grad(lambda a: (np.where(MASK, f(a, where=MASK), 0.0) * w).sum())(M)
        close(g, fd_grad(lambda a: (np.where(MASK, f(a, where=MASK), 0.0) * w).sum(), M), 1e-8)
        assert not g[~MASK].any()  # no derivative to a masked entry
        rows = ft.vmap(lambda r, m: f(r, where=m))(M, MASK)
        close(rows, np.stack([f(r, where=m) for r, m in zip(M, MASK)]))


def test_logsumexp_weights_sign_and_where():
    b = np.array([1.0, -1.0, 2.0])
    s = (b * np.exp(M)).sum(1)
    close(ft.nn.logsumexp(M, axis=1, b=b, return_sign=True), (np.log(np.abs(s)), np.sign(s)))
    want = np.log(np.where(MASK, np.exp(M), 0.0).sum(0, keepdims=True))
    close(ft.nn.logsumexp(M, axis=0, keepdims=True, where=MASK), want)
    close(ft.nn.logsumexp(M, where=MASK), np.log(np.exp(M[MASK]).sum()))

    def f(a):
        return ft.nn.logsumexp(a, axis=1, b=np.abs(b), where=MASK).sum()

    close(ft.grad(f)(M), fd_grad(f, M), 1e-8)


def test_masked_softmax_edge_cases_and_empty_arrays():
    x = np.array([5.5, 1.3, -4.2, 0.9])
    with np.errstate(all="raise"):  # an all-masked row: no 0/0 on the way
        close(ft.nn.softmax(x, where=np.zeros(4, bool)), np.zeros(4))
        close(ft.nn.log_softmax(x, where=np.zeros(4, bool)), np.full(4, -np.inf))
        big = np.array([36.0, 10000.0])
        g = ft.grad(lambda a: ft.nn.softmax(a, where=a < 1000)[0])(big)
        close(g, np.zeros(2))
    for f in (ft.nn.softmax, ft.nn.log_softmax):
        close(f(np.array([])), np.array([]))
        close(f(np.zeros((0, 3)), axis=0), np.zeros((0, 3)))


@pytest.mark.parametrize("name", ["sigmoid", "silu", "glu", "gelu"])
def test_activations_keep_float16(name):
    f = getattr(ft.nn, name)
    x = np.linspace(-3, 3, 8).astype(np.float16)
    ref = f(x.astype(np.float64))
    for kw in [{}] + ([{"approximate": True}, {"approximate": False}] if name == "gelu" else []):
        got = f(x, **kw)
        assert got.dtype == np.float16
        ref = f(x.astype(np.float64), **kw)
        np.testing.assert_allclose(got, ref.astype(np.float16), rtol=2e-3, atol=2e-3)


def test_standardize_algorithms_like_jax():
    x = np.array([-11.0, -11.0, -11.0]) + 3e-6
    assert not np.isnan(ft.nn.standardize(x.astype(np.float32))).any()
    y = np.array([1e6, 1e6 + 1, 1e6 + 2])
    d = y - y.mean()
    close(ft.nn.standardize(y, algorithm="stable"), d / np.sqrt((d * d).mean() + 1e-5))
    fast = np.maximum((y * y).mean() - y.mean() ** 2, 0)
    close(ft.nn.standardize(y), (y - y.mean()) / np.sqrt(fast + 1e-5))
    with pytest.raises(ValueError, match="algorithm"):
        ft.nn.standardize(y, algorithm="exact")


def test_one_hot_axis():
    labels = np.array([[0, 2, -1], [1, 5, 2]])
    last = (labels[..., None] == np.arange(3)).astype(np.float64)  # jax.nn's default dtype
    for axis in (-1, 0, 1, -2, 2):
        close(ft.nn.one_hot(labels, 3, axis=axis), np.moveaxis(last, -1, axis))
    close(ft.nn.one_hot(labels, 3, axis=1), jax.nn.one_hot(labels, 3, axis=1))
    close(
        ft.vmap(lambda lab: ft.nn.one_hot(lab, 3, axis=0))(labels),
        np.stack([ft.nn.one_hot(lab, 3, axis=0) for lab in labels]),
    )
    with pytest.raises(ValueError, match="axis"):
        ft.nn.one_hot(labels, 3, axis=3)


@pytest.mark.parametrize(
    "name,shape",
    [
        ("truncated_normal", (3, 4)),
        ("he_normal", (3, 4)),
        ("glorot_normal", (2, 3, 4)),
        ("orthogonal", (3, 2)),
        ("delta_orthogonal", (3, 3, 2, 4)),
    ],
)
def test_initializers_keep_float16(name, shape):
    init = getattr(ft.nn.initializers, name)()
    w = init(ft.random.PRNGKey(0), shape, np.float16)
    assert w.shape == shape and w.dtype == np.float16 and np.isfinite(w).all()
    w = w.astype(np.float64)
    if name == "truncated_normal":  # stddev 0.01, truncated at two of them
        assert (np.abs(w) < 0.02).all() and w.std() > 0.002
    elif name == "orthogonal":
        np.testing.assert_allclose(w.T @ w, np.eye(2), atol=3e-3)
    elif name == "delta_orthogonal":
        np.testing.assert_allclose(w[1, 1] @ w[1, 1].T, np.eye(2), atol=3e-3)
        assert not w[0].any()
    else:  # truncated at two standard deviations of sqrt(scale / fan)
        assert (w != 0).any() and np.abs(w).max() < 2 * np.sqrt(2.0 / 3) / 0.8796 + 1e-2


def test_variance_scaling_1d_shape_message_like_jax():
    init = ft.nn.initializers.variance_scaling(1.0, "fan_avg", "truncated_normal")
    with pytest.raises(ValueError, match="Can't compute input and output sizes of a 1-dimensional"):
        init(ft.random.PRNGKey(0), (5,))
    t = ft.random.truncated_normal(ft.random.PRNGKey(1), -1.0, 1.0, (50,), np.float16)
    assert t.dtype == np.float16 and (np.abs(t) < 1).all()


# -- control flow and vmap's JAX keywords ----------------------------------------------------


def test_cond_operand_keyword_and_vmap_spmd_axis_name():
    for pred in (True, False):
        got = ft.lax.cond(pred, lambda a: a + 1, lambda a: a * 3, operand=M)
        close(got, M + 1 if pred else M * 3)
    with pytest.raises(TypeError, match="operand="):
        ft.lax.cond(True, lambda a, b: a, lambda a, b: b, M, operand=M)
    close(ft.vmap(lambda a: a * 2, spmd_axis_name="d")(M), M * 2)


def test_axis_index_of_a_tuple_of_names():
    z = np.zeros((2, 3, 4))

    def f(lax):
        return lambda a: a + lax.axis_index(("i", "j")) * 10 + lax.axis_index(("j", "i"))

    got = ft.vmap(ft.vmap(f(ft.lax), axis_name="j"), axis_name="i")(z)
    i, j = np.meshgrid(np.arange(2), np.arange(3), indexing="ij")
    close(got, np.broadcast_to(((i * 3 + j) * 10 + (j * 2 + i))[..., None], z.shape) + 0.0)


def test_psum_keeps_integer_dtypes_like_jax():
    for dt in (np.int8, np.int32, np.uint16):
        z = np.arange(6, dtype=dt).reshape(2, 3)
        got = ft.vmap(lambda r: ft.lax.psum(r, "i"), axis_name="i")(z)
        close(got, np.broadcast_to(z.sum(0, dtype=dt), z.shape))
        inner = ft.vmap(ft.vmap(lambda r: ft.lax.psum(r, "i"), axis_name="j"), axis_name="i")(z)
        close(inner, np.broadcast_to(z.sum(0, dtype=dt), z.shape))


def test_linear_transpose_of_integer_functions_like_jax():
    (ct,) = ft.linear_transpose(lambda x: 2 * x, 1)(3)
    assert ct == 6 and ct.dtype.kind == "i"
    f = ft.linear_transpose(
        lambda x, y: {"a": 3 * x + y[0] - 2 * y[2], "b": -y},
        np.int32(1),
        np.arange(3, dtype=np.int32),
    )
    out = f({"a": np.int32(2), "b": np.array([1, 2, 3], np.int32)})
    close(out, (np.array(6, np.int32), np.array([1, -2, -7], np.int32)))
    cts = {"a": np.arange(2, dtype=np.int32), "b": np.ones((2, 3), np.int32)}
    rows = [f({"a": cts["a"][k], "b": cts["b"][k]}) for k in range(2)]
    close(ft.vmap(f)(cts), tuple(np.stack(r) for r in zip(*rows)))
    with pytest.raises(TypeError, match="integer -> integer"):
        ft.linear_transpose(lambda x: 2.0 * x, 1)


def test_in_axes_and_out_axes_type_errors_are_type_errors():
    for bad in (False, np.array([1.0, 2.0])):
        with pytest.raises(TypeError, match="must be an int or None"):
            ft.vmap(lambda a: a, in_axes=(bad,))(np.ones(2))
        with pytest.raises(TypeError, match="must be an int or None"):
            ft.vmap(lambda a: a, out_axes=(bad,))(np.ones(2))
    with pytest.raises(ValueError, match="vmap got inconsistent sizes for array axes to be mapped"):
        ft.vmap(lambda a, b: a + b)(np.ones(2), np.ones(3))  # still a ValueError


def test_dtype_errors_carry_jax_sentences():
    """The regular expressions of JAX's api_test, on ftransforms' messages."""
    cases = [
        (
            lambda: ft.grad(lambda x: x**2 + 1j)(1.0),
            r"grad requires real-valued outputs \(output dtype "
            r"that is a sub-dtype of np.floating\), but got complex",
        ),
        (
            lambda: ft.grad(lambda x: (x > 0).astype(int))(1.0),
            r"grad requires real-valued outputs "
            r"\(output dtype that is a sub-dtype of np.floating\), but got int",
        ),
        (
            lambda: ft.grad(lambda x: x**2)(3),
            r"grad requires real- or complex-valued inputs \(input "
            r"dtype that is a sub-dtype of np.inexact\), but got int.*.",
        ),
        (
            lambda: ft.jacfwd(lambda x: x**2)(1j),
            r"jacfwd requires real-valued inputs \(input dtype "
            r"that is a sub-dtype of np.floating\), but got complex",
        ),
        (lambda: ft.grad(lambda x: (1, 2, 3), has_aux=True)(1.0), "two-element tuple"),
        (lambda: ft.grad(lambda x: x, has_aux=True)(1.0), "two-element tuple"),
    ]
    for t in ("grad", "jacrev", "jacfwd"):
        f = getattr(ft, t)(lambda x: x**2, holomorphic=True)
        cases.append(
            (
                lambda f=f: f(1.0),
                rf"{t} with holomorphic=True requires inputs with complex dtype, but got float",
            )
        )
    cases.append(
        (
            lambda: ft.grad(lambda z: z.real, holomorphic=True)(1j),
            "grad with holomorphic=True requires outputs with complex dtype",
        )
    )
    for call, pattern in cases:
        with pytest.raises(TypeError, match=pattern):
            call()


def test_vjp_fn_called_with_several_cotangents():
    def foo(x):
        return x, x

    _, f_vjp = ft.vjp(foo, 1.0)
    with pytest.raises(TypeError, match="applied to foo") as info:
        f_vjp(1.0, 1.0)
    assert "foo was called with 2 arguments" in str(info.value)
    with pytest.raises(TypeError, match="called with 0 arguments"):
        f_vjp()
    close(f_vjp((1.0, 2.0)), (np.array(3.0),))


# -- example_libraries.optimizers ------------------------------------------------------------


def np_sm3(x, grad, steps, lr, momentum):
    """JAX's sm3 for one array, in NumPy: an accumulator per axis (a 0-d array: one of
    shape (1,)), accum = min of them broadcast + g**2, each axis keeps its max over the
    others."""
    shape, x = x.shape, np.atleast_1d(x).astype(float)
    vs, m = [np.zeros(n) for n in x.shape], np.zeros_like(x)
    for _ in range(steps):
        g = np.atleast_1d(grad(x.reshape(shape)))
        along = [v.reshape((1,) * j + (-1,) + (1,) * (x.ndim - j - 1)) for j, v in enumerate(vs)]
        accum = np.minimum.reduce(np.broadcast_arrays(*along)) + g * g
        inv = np.where(accum > 0, 1 / np.sqrt(np.where(accum > 0, accum, 1)), 0)
        m = (1 - momentum) * g * inv + momentum * m
        x = x - lr * m
        vs = [accum.max(axis=tuple(k for k in range(x.ndim) if k != j)) for j in range(x.ndim)]
    return x.reshape(shape)


def test_sm3_steps():
    from ftransforms.example_libraries import optimizers as opt

    params = {
        "s": np.array(0.5),
        "v": np.array([1.0, -2.0]),
        "t": np.arange(12.0).reshape(2, 3, 2) / 7,
    }
    init, update, get = opt.sm3(0.1, momentum=0.5)
    state = init(params)
    for i in range(3):
        state = update(i, ft.tree_map(np.sin, get(state)), state)
    close(get(state), {k: np_sm3(v, np.sin, 3, 0.1, 0.5) for k, v in params.items()})
    # an update step maps over a batch of parameter trees like the loop over them
    init, update, get = opt.sm3(0.1)
    batch = np.stack([np.ones((2, 3)), -np.arange(6.0).reshape(2, 3)])

    def one(p):
        return get(update(0, np.cos(p), init(p)))

    close(ft.vmap(one)(batch), np.stack([one(p) for p in batch]))


# -- jax.custom_derivatives and jax.dtypes under their JAX names ------------------------------


def test_custom_derivatives_module_symbolic_zeros():
    jax_ = ft  # the test as JAX's custom_api_test writes it, with ``import ftransforms as jax``

    @jax_.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        x, y = primals
        xd, yd = tangents
        out = 0.0
        if type(xd) is not jax_.custom_derivatives.SymbolicZero:
            out = out + xd * y
        if type(yd) is not jax_.custom_derivatives.SymbolicZero:
            out = out + 100 * yd
        return f(x, y), out

    f.defjvp(f_jvp, symbolic_zeros=True)
    close(jax_.grad(f, argnums=(0, 1))(2.0, 3.0), (np.array(3.0), np.array(100.0)))
    close(jax_.grad(f, argnums=1)(2.0, 3.0), np.array(100.0))  # x's tangent is symbolic
    z = jax_.custom_derivatives.zero_from_primal({"a": np.ones(2), "n": 3}, symbolic_zeros=True)
    assert z["a"].shape == (2,) and z["n"].dtype == jax.dtypes.float0
    close(jax_.custom_derivatives.zero_from_primal({"a": np.ones(2)}), {"a": np.zeros(2)})
    assert jax_.custom_derivatives.custom_vjp is ft.custom_vjp


def test_custom_vjp_bwd_none_for_a_pytree_argument_like_jax():
    @ft.custom_vjp
    def f(xs, y):
        return xs[0] * xs[1] * np.sin(y)

    f.defvjp(lambda xs, y: (f(xs, y), np.cos(y)), lambda c, g: (None, 2 * c * g))
    x = np.array([1.0, 2.0, 3.0])
    close(ft.grad(lambda a: f((a, a), a).sum())(x), 2 * np.cos(x))
    close(ft.vmap(ft.grad(lambda a: f((a, a), a)))(x), 2 * np.cos(x))

    @ft.custom_vjp
    def h(a, d):
        return a * d["p"][0] + d["q"]

    h.defvjp(lambda a, d: (h(a, d), (a, d)), lambda r, g: (g * r[1]["p"][0], {"p": None, "q": g}))
    g = ft.grad(h, argnums=(0, 1))(2.0, {"p": (3.0, 4.0), "q": 1.0})
    close(g, (np.array(3.0), {"p": (np.array(0.0), np.array(0.0)), "q": np.array(1.0)}))


def test_custom_vjp_bwd_cotangent_shapes_checked_for_every_input():
    @ft.custom_vjp
    def f(a, y):
        return np.sin(a) * y

    f.defvjp(
        lambda a, y: (f(a, y), (np.cos(a), np.sin(a), y)), lambda r, g: (r[0] * g * r[2], r[1] * g)
    )
    x = np.array([0.1, 0.2, 0.3])
    close(ft.grad(lambda a: f(a, np.full(3, 3.0)).sum())(x), 3 * np.cos(x))
    with pytest.raises(ft.errors.TangentMismatchError, match="cotangent leaf 1 has shape"):
        ft.grad(lambda a: f(a, y=3.0).sum())(x)  # y's cotangent has a's shape (3,)


def test_custom_jvp_rule_float0_tangent_for_an_integer_output():
    @ft.custom_jvp
    def f(x, n):
        return x * 2, n

    def f_jvp(p, t):
        return f(*p), (2 * t[0], ft.custom_derivatives.zero_from_primal(p[1]))

    f.defjvp(f_jvp)
    out, tan = ft.jvp(f, (2.0, 3), (1.0, np.zeros((), ft.dtypes.float0)))
    close(out, (np.array(4.0), np.array(3)))
    close(tan[0], np.array(2.0))
    assert not np.any(tan[1])
    close(ft.grad(lambda x: f(x, 3)[0])(2.0), np.array(2.0))


def test_unravel_is_dtype_polymorphic_for_one_dtype_like_jax():
    flat, unravel = ft.ravel_pytree(
        {"a": np.arange(4.0, dtype=np.float32), "b": np.ones((2, 2), np.float32)}
    )
    back = unravel(flat < 2.5)
    assert back["a"].dtype == np.bool_ and back["b"].shape == (2, 2)
    close(back, {"a": np.arange(4.0) < 2.5, "b": np.ones((2, 2)) < 2.5})
    close(
        ft.vmap(unravel)(np.stack([flat, -flat]).astype(np.float64))["a"],
        np.stack([np.arange(4.0), -np.arange(4.0)]),
    )
    _, unravel = ft.ravel_pytree((np.arange(3, dtype=np.float32), np.arange(3, dtype=np.int32)))
    with pytest.raises(TypeError, match="but expected dtype float32"):
        unravel(np.zeros(6) < 1)


def test_flatten_one_level_of_a_leaf_in_jax_words():
    for leaf in (1, np.arange(2)):
        with pytest.raises(ValueError, match="can't tree-flatten type"):
            ft.tree_util.flatten_one_level(leaf)


def test_ad_checkpoint_checkpoint_name_in_model_code():
    def layer(w, x):
        h = ft.ad_checkpoint.checkpoint_name(np.tanh(x @ w), "hidden")
        return np.sum(h**2)

    w, x = np.arange(6.0).reshape(3, 2) / 7, np.ones((4, 3))
    g = ft.grad(ft.ad_checkpoint.checkpoint(layer))(w, x)
    close(g, fd_grad(lambda v: layer(v, x), w), 1e-8)
    with pytest.raises(TypeError, match="name must be a str"):
        ft.ad_checkpoint.checkpoint_name(x, 3)


def test_dtypes_float0_as_jax_tests_write_it():
    float0 = ft.dtypes.float0
    assert float0 == jax.dtypes.float0
    g = ft.grad(lambda x, i: x[i], argnums=(0, 1), allow_int=True)(np.ones(2), 1)
    close(g[0], np.array([0.0, 1.0]))
    assert g[1].dtype == float0 and g[1].shape == ()
    out = ft.jvp(lambda x, n: x * n, (2.0, 3), (1.0, np.zeros((), dtype=float0)))
    close(out, (np.array(6.0), np.array(3.0)))


def test_optimizer_state_pack_unpack_round_trip_compares_equal():
    from ftransforms.example_libraries import optimizers as opt

    init, update, get = opt.momentum(0.1, mass=0.9)
    state = init([{"w": np.ones((1, 2)), "bias": np.zeros(2)}])
    assert opt.pack_optimizer_state(opt.unpack_optimizer_state(state)) == state
    assert state != init([{"w": np.ones((1, 2))}])
    later = ft.jit(update)(0, [{"w": np.ones((1, 2)), "bias": np.ones(2)}], state)
    close(get(later), [{"bias": np.full(2, -0.1), "w": np.full((1, 2), 0.9)}])


# -- example_libraries.stax ------------------------------------------------------------------


def np_conv1d_transpose_valid(x, w, s):
    """JAX's conv_transpose (kernel not flipped), 'VALID', NHC/HIO, in its scatter form:
    out[n, i*s + t, o] += x[n, i, c] * w[k - 1 - t, c, o], of length n*s + max(k - s, 0)."""
    n, length, _ = x.shape
    k = w.shape[0]
    out = np.zeros((n, length * s + max(k - s, 0), w.shape[2]))
    for i in range(length):
        for t in range(k):
            out[:, i * s + t] += x[:, i] @ w[k - 1 - t]
    return out


def test_stax_conv_transpose_layers():
    from ftransforms.example_libraries import stax

    x = np.random.default_rng(11).normal(size=(2, 5, 3))
    for stride in (1, 2, 4):
        init, apply = stax.Conv1DTranspose(2, (3,), strides=(stride,))
        shape, (w, b) = init(ft.random.PRNGKey(1), (-1, 5, 3))
        assert w.shape == (3, 3, 2) and b.shape == (1, 1, 2)
        want = np_conv1d_transpose_valid(x, w, stride) + b
        assert shape == (-1,) + want.shape[1:]
        close(apply((w, b), x), want, 1e-12)
    init, apply = stax.ConvTranspose(4, (3, 2), strides=(2, 1), padding="SAME")
    shape, (w, b) = init(ft.random.PRNGKey(1), (-1, 5, 4, 3))
    assert shape == (-1, 10, 4, 4) and w.shape == (3, 2, 3, 4)
    assert apply((w, b), np.ones((2, 5, 4, 3))).shape == (2, 10, 4, 4)


def test_custom_jvp_rule_outputs_checked_like_jax():
    """A rule whose primal output has another structure than the function's, or fewer
    tangent leaves, raises (JAX: TypeError); it used to pass (the primal half was dropped,
    and a short tangent list was cut by zip)."""

    @ft.custom_jvp
    def f(x):
        return x * 2

    f.defjvp(lambda p, t: ((f(p[0]), f(p[0])), t[0]))
    with pytest.raises(ft.errors.TangentMismatchError, match="primal output has 2 leaves"):
        ft.jvp(f, (M,), (M,))

    @ft.custom_jvp
    def g(x):
        return x * 2, x

    g.defjvp(lambda p, t: (g(p[0]), (t[0],)))
    with pytest.raises(ft.errors.TangentMismatchError, match="1 tangent output leaves for 2"):
        ft.jvp(g, (M,), (M,))
    with pytest.raises(ft.errors.TangentMismatchError):
        ft.grad(lambda a: g(a)[0].sum())(M)
    f.defjvp(lambda p, t: f(p[0]))
    with pytest.raises(TypeError, match="pair"):
        ft.jvp(f, (M,), (M,))
