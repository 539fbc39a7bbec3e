"""API parity, round six: the transforms' signatures, options and edge semantics as JAX
and torch.func users call them, each compared with JAX (float64) where it runs the same
program.  Each test failed before the change it names.

Deliberate differences found by the probe and left as they are (documented):

* (Since changed to JAX's: ``vjp`` of an integer primal gives ``float0`` zeros, and so do
  the ``jvp``/``linearize`` tangents of an integer output.)
* ``argnums`` as a list, and a ``has_aux`` function returning a list, raise (torch.func).
* ``vmap`` does not map keyword arguments (torch.func; JAX maps them over axis 0), and an
  explicit int in_dim for a ``None`` argument raises (torch.func; JAX maps nothing).
* ``vmap``'s fourth positional argument is torch.func's ``randomness`` (JAX's
  ``axis_name`` goes by keyword); ``custom_jvp`` under ``jvp``/``grad`` returns ``f``'s
  primal output, not the rule's (JAX returns the rule's; they differ only for a rule
  inconsistent with ``f``, whose second derivatives then differ from JAX's too).
* Lenient where JAX raises: ``in_axes``/``out_axes`` as NumPy integers or lists, a
  1-tuple ``out_axes`` for a single output, an unhashable static ``jit`` argument.
  Stricter: an unknown name in ``nondiff_argnames`` raises (JAX ignores it).
* ``checkpoint``'s selective policies raise ``UnsupportedOperationError``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.custom_derivatives import SymbolicZero as JaxSymbolicZero

import ftransforms as ft
from ftransforms import errors as E
from ftransforms.custom import CustomVJPPrimal, SymbolicZero
from ftransforms.program import Program
from tests.tolerances import assert_tree_close

close = functools.partial(assert_tree_close, rtol=1e-12, atol=1e-12, strict=True)
X3 = np.array([0.5, -1.25, 2.0])


def j2n(tree):
    return jax.tree_util.tree_map(
        lambda v: np.asarray(v) if isinstance(v, (jax.Array, np.ndarray)) else v, tree
    )


# -- custom rules: a tangent/cotangent of the wrong shape ----------------------------------


def _custom_vjp(np_, custom_vjp, bwd):
    f = custom_vjp(lambda a: a * 2.0)
    f.defvjp(lambda a: (a * 2.0, None), bwd)
    return f


@pytest.mark.parametrize(
    "bwd",
    [lambda res, g: (g[:2],), lambda res, g: (1.0,), lambda res, g: (g.sum(),)],
    ids=["sliced", "python-float", "summed"],
)
def test_custom_vjp_bwd_of_the_wrong_shape_raises_like_jax(bwd):
    """JAX: "Custom VJP bwd rule must produce an output with the same type as the args";
    ours raised NumPy's broadcasting error, or broadcast a scalar silently."""
    jf = _custom_vjp(jnp, jax.custom_vjp, bwd)
    with pytest.raises(ValueError):
        jax.grad(lambda a: jf(a).sum())(X3)
    f = _custom_vjp(np, ft.custom_vjp, bwd)
    with pytest.raises(E.TangentMismatchError, match=r"custom_vjp\(<lambda>\): the bwd rule's"):
        ft.grad(lambda a: f(a).sum())(X3)
    # the stack is clean: the next call works
    assert np.allclose(ft.grad(lambda a: np.sum(a**2))(X3), 2 * X3)


def test_custom_vjp_bwd_with_too_few_cotangents_is_a_type_error_like_jax():
    def make(custom_vjp):
        f = custom_vjp(lambda a, b: a * b)
        f.defvjp(lambda a, b: (a * b, (a, b)), lambda res, g: (g * res[1],))
        return f

    with pytest.raises(TypeError):
        jax.grad(lambda a, b: make(jax.custom_vjp)(a, b).sum())(X3, X3)
    with pytest.raises(TypeError, match="1 cotangent leaves for 2 input leaves"):
        ft.grad(lambda a, b: make(ft.custom_vjp)(a, b).sum())(X3, X3)


def test_custom_jvp_tangent_of_the_wrong_shape_raises_like_jax():
    def make(custom_jvp):
        f = custom_jvp(lambda a: a * 2.0)
        f.defjvp(lambda p, t: (p[0] * 2.0, t[0][:2]))
        return f

    with pytest.raises(TypeError):
        jax.jvp(make(jax.custom_jvp), (X3,), (X3,))
    with pytest.raises(E.TangentMismatchError, match="tangent output 0 has shape") as info:
        ft.jvp(make(ft.custom_jvp), (X3,), (X3,))
    assert isinstance(info.value, TypeError)
    with pytest.raises(E.TangentMismatchError):
        ft.grad(lambda a: make(ft.custom_jvp)(a).sum())(X3)


def test_correct_custom_rules_still_compose_with_vmap_and_grad():
    """The shape check sees the batched rule's shapes under vmap (rows included)."""

    def make(np_, custom_vjp):
        f = custom_vjp(lambda a, w: np_.sum(a * w))
        f.defvjp(lambda a, w: (np_.sum(a * w), (a, w)), lambda r, g: (g * r[1], g * r[0]))
        return f

    ours = ft.vmap(ft.grad(make(np, ft.custom_vjp), argnums=(0, 1)), in_dims=(0, None))
    theirs = jax.vmap(jax.grad(make(jnp, jax.custom_vjp), argnums=(0, 1)), in_axes=(0, None))
    A = np.arange(6.0).reshape(2, 3)
    close(ours(A, X3), j2n(theirs(A, X3)))


# -- jit: static arguments inferred through the signature, JAX's other options -----------


def test_jit_static_argnums_also_covers_the_parameter_passed_by_keyword_like_jax():
    """``jax.jit(f, static_argnums=1)(x, n=3)`` makes n static (JAX infers
    static_argnames from the signature); ours raised "static_argnums has 1"."""
    calls = []

    def power(x, n=2):
        calls.append(n)
        return x**n

    jpower = jax.jit(power, static_argnums=1)
    f = ft.jit(power, static_argnums=1)
    for call in (lambda g: g(X3, n=3), lambda g: g(X3, 3), lambda g: g(X3)):
        close(call(f), j2n(call(jpower)))
    assert len(f.cache) == 3  # n=3 by keyword, 3 by position, the default: three keys
    calls.clear()
    close(f(X3 + 1.0, n=3), (X3 + 1.0) ** 3)  # replayed: n was static, power not called
    assert calls == []


def test_jit_static_argnames_and_argnums_are_checked_against_the_signature_like_jax():
    for kwargs in ({"static_argnums": 3}, {"static_argnames": "m"}):
        with pytest.raises(ValueError):
            jax.jit(lambda a, n: a * n, **kwargs)(X3, 2)
        with pytest.raises(ValueError, match=r"jit\(<lambda>, static_arg"):
            ft.jit(lambda a, n: a * n, **kwargs)

    def varargs(a, *rest):
        return a * len(rest)

    # with *args, a static position past the call's arguments is skipped (JAX's rule)
    close(
        ft.jit(varargs, static_argnums=5)(X3, 1, 2),
        j2n(jax.jit(varargs, static_argnums=5)(X3, 1, 2)),
    )
    # a required static parameter left out: the function's own TypeError, as jax.jit
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        jax.jit(lambda a, n: a * n, static_argnums=1)(X3)
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        ft.jit(lambda a, n: a * n, static_argnums=1)(X3)


@pytest.mark.parametrize(
    "option",
    [{"donate_argnums": 0}, {"donate_argnums": (0,)}, {"donate_argnames": "a"},
     {"keep_unused": True}, {"inline": True}],
)  # fmt: skip
def test_jit_accepts_jax_donation_and_compilation_options(option):
    """They were TypeErrors (unexpected keyword); nothing is donated: the argument stays."""
    a = X3.copy()
    close(ft.jit(lambda a: a * 2.0, **option)(a), j2n(jax.jit(lambda a: a * 2.0, **option)(a)))
    close(ft.jit(**option)(lambda a: a * 2.0)(a), 2.0 * X3)
    assert np.array_equal(a, X3)


def test_make_jaxpr_static_argnums_and_return_shape_like_jax():
    def f(x, n):
        return {"y": x * n, "s": (x**2).sum()}

    jaxpr, jshape = jax.make_jaxpr(f, static_argnums=1, return_shape=True)(X3, 2.0)
    program, shape = ft.make_jaxpr(f, static_argnums=1, return_shape=True)(X3, 2.0)
    assert isinstance(program, Program)
    assert jax.tree_util.tree_structure(shape) == jax.tree_util.tree_structure(jshape)
    for ours, theirs in zip(jax.tree_util.tree_leaves(shape), jax.tree_util.tree_leaves(jshape)):
        assert isinstance(ours, ft.ShapeDtypeStruct)
        assert (ours.shape, ours.dtype) == (theirs.shape, theirs.dtype)
    assert len(program.in_avals) == 1  # n is a constant of the program, not an input


# -- custom rules: nondiff_argnames --------------------------------------------------------


def _sum_squares(np_, custom_jvp):
    @functools.partial(custom_jvp, nondiff_argnames=("axis",))
    def f(a, axis):
        return np_.sum(a**2, axis=axis)

    @f.defjvp
    def _(axis, primals, tangents):  # a rule deliberately 10x the true one: it must be used
        return np_.sum(primals[0] ** 2, axis=axis), np_.sum(
            20 * primals[0] * tangents[0], axis=axis
        )

    return f


def _scaled(np_, custom_vjp):
    @functools.partial(custom_vjp, nondiff_argnames=("k",))
    def f(a, k):
        return a * k

    f.defvjp(lambda a, k: (a * k, None), lambda k, res, g: (g * k * 100.0,))
    return f


def test_custom_jvp_and_custom_vjp_nondiff_argnames_like_jax():
    """JAX's nondiff_argnames (a TypeError here before): the named parameters are
    nondiff arguments, by keyword or by position."""
    A = np.arange(6.0).reshape(2, 3) / 5
    f, jf = _sum_squares(np, ft.custom_jvp), _sum_squares(jnp, jax.custom_jvp)
    close(ft.jacrev(lambda a: f(a, axis=0))(A), j2n(jax.jacrev(lambda a: jf(a, axis=0))(A)))
    close(ft.jacfwd(lambda a: f(a, 1))(A), j2n(jax.jacfwd(lambda a: jf(a, 1))(A)))
    g, jg = _scaled(np, ft.custom_vjp), _scaled(jnp, jax.custom_vjp)
    close(ft.grad(lambda a: g(a, k=3.0).sum())(X3), j2n(jax.grad(lambda a: jg(a, k=3.0).sum())(X3)))
    close(
        ft.vmap(ft.grad(lambda a: g(a, 3.0).sum()))(A),
        j2n(jax.vmap(jax.grad(lambda a: jg(a, 3.0).sum()))(A)),
    )
    with pytest.raises(E.ArgnumsError, match="names no positional parameter"):
        ft.custom_vjp(lambda a, k: a, nondiff_argnames=("z",))


# -- transforms check their function on the spot; torch.func's jvp(strict=) ---------------


@pytest.mark.parametrize(
    "transform", ["vmap", "grad", "value_and_grad", "jacrev", "jacfwd", "hessian"]
)
def test_transforming_a_non_function_is_a_type_error_at_once_like_jax(transform):
    """``jax.grad(x)`` raises "Expected a callable value"; ours returned a wrapper that
    failed later, inside the call, with "'numpy.ndarray' object is not callable"."""
    with pytest.raises(TypeError):
        getattr(jax, transform)(X3)
    with pytest.raises(TypeError, match="expected a function to transform"):
        getattr(ft, transform)(X3)


def test_vjp_jvp_linearize_name_the_call_form_for_a_non_function():
    for call, form in [
        (lambda: ft.vjp(X3, X3), r"vjp\(f, x\)"),
        (lambda: ft.jvp(X3, (X3,), (X3,)), r"jvp\(f, \(x,\), \(t,\)\)"),
        (lambda: ft.linearize(X3, X3), r"linearize\(f, x\)"),
    ]:
        with pytest.raises(TypeError, match=form):
            call()


def test_jvp_strict_like_torch_func():
    """torch.func.jvp(..., strict=True) raises where an output does not depend on the
    primals ("This is not allowed with strict=True"); strict=False, its default, gives
    that output a zero tangent.  ``strict=`` was a TypeError here."""
    out, t = ft.jvp(lambda a: (a * 2.0, np.ones(2)), (X3,), (X3,), strict=False)
    close((out, t), ((2.0 * X3, np.ones(2)), (2.0 * X3, np.zeros(2))))
    close(ft.jvp(np.sin, (X3,), (X3,), strict=True), (np.sin(X3), np.cos(X3) * X3))
    with pytest.raises(E.GradOutputError, match="output leaf 1 does not depend") as info:
        ft.jvp(lambda a: (a * 2.0, np.ones(2)), (X3,), (X3,), strict=True)
    assert isinstance(info.value, RuntimeError)  # torch raises RuntimeError


def test_checkpoint_static_argnames_like_jax():
    """jax.checkpoint(f, static_argnames=...) was a TypeError (unexpected keyword) here.
    (JAX 0.10 accepts the option but still traces keyword arguments, so the oracle passes
    them by position with static_argnums.)"""

    def body(np_):
        def f(a, n=1, mode="sin"):
            for _ in range(n):
                a = np_.sin(a) if mode == "sin" else np_.cos(a)
            return a

        return f

    ours = ft.checkpoint(body(np), static_argnames=("n", "mode"))
    theirs = jax.checkpoint(body(jnp), static_argnums=(1, 2))
    close(
        ft.grad(lambda a: ours(a, n=3, mode="cos").sum())(X3),
        j2n(jax.grad(lambda a: theirs(a, 3, "cos").sum())(X3)),
    )
    close(
        ft.vmap(ft.grad(lambda a: ft.checkpoint(body(np), static_argnames="n")(a, n=2)))(X3),
        j2n(jax.vmap(jax.grad(lambda a: theirs(a, 2, "sin")))(X3)),
    )
    with pytest.raises(E.ArgnumsError, match="static_argnames must be a str"):
        ft.checkpoint(body(np), static_argnames=(1,))


# -- custom rules: Python numbers among outputs and residuals ------------------------------


def _count_residual(np_, custom_vjp):
    f = custom_vjp(lambda a: a * 2.0)
    f.defvjp(
        lambda a: (a * 2.0, (a, 3, {"half": 0.5})),
        lambda res, g: (g * 2.0 * res[1] * res[2]["half"] + 0.0 * res[0],),
    )
    return f


def test_custom_vjp_python_number_residuals_under_jit_like_jax():
    """A count kept as a residual (``(x, 3)``): jit(grad(f)) raised AttributeError
    "'int' object has no attribute 'shape'" while recording."""
    f, jf = _count_residual(np, ft.custom_vjp), _count_residual(jnp, jax.custom_vjp)
    want = j2n(jax.jit(jax.grad(lambda a: jf(a).sum()))(X3))
    close(ft.jit(ft.grad(lambda a: f(a).sum()))(X3), want)
    close(ft.grad(lambda a: f(a).sum())(X3), want)
    A = np.arange(6.0).reshape(2, 3)
    close(
        ft.jit(ft.vmap(ft.grad(lambda a: f(a).sum())))(A),
        j2n(jax.jit(jax.vmap(jax.grad(lambda a: jf(a).sum())))(A)),
    )


def _with_a_count(np_, custom_jvp, zero):
    f = custom_jvp(lambda a: (np_.sin(a), 3))
    f.defjvp(lambda p, t: ((np_.sin(p[0]), 3), (np_.cos(p[0]) * t[0], zero)))
    return f


def test_custom_jvp_python_number_output_under_jit_and_grad_like_jax():
    """jit(grad(f)) of a custom_jvp function returning ``(y, 3)`` raised AttributeError;
    its reverse mode also refused the rule's float tangent for the integer output."""
    # the integer output's tangent: JAX wants float0, ours takes zeros of any dtype
    f = _with_a_count(np, ft.custom_jvp, np.zeros(()))
    jf = _with_a_count(jnp, jax.custom_jvp, np.zeros((), jax.dtypes.float0))
    want = j2n(jax.grad(lambda a: jf(a)[0].sum())(X3))
    close(ft.jit(ft.grad(lambda a: f(a)[0].sum()))(X3), want)
    close(ft.grad(lambda a: f(a)[0].sum())(X3), want)
    close(ft.jacrev(lambda a: f(a)[0])(X3), j2n(jax.jacrev(lambda a: jf(a)[0])(X3)))


# -- JAX's deprecated reduce_axes ----------------------------------------------------------


def test_reduce_axes_is_accepted_empty_and_refused_otherwise_like_jax():
    """``jax.grad(f, reduce_axes=())`` runs; a non-empty one raises NotImplementedError.
    Here it was a TypeError (unexpected keyword) on grad, value_and_grad, vjp and
    linear_transpose."""
    loss = lambda a: np.sum(a**2)  # noqa: E731
    jloss = lambda a: jnp.sum(a**2)  # noqa: E731
    close(ft.grad(loss, reduce_axes=())(X3), j2n(jax.grad(jloss, reduce_axes=())(X3)))
    close(
        ft.value_and_grad(loss, reduce_axes=())(X3),
        j2n(jax.value_and_grad(jloss, reduce_axes=())(X3)),
    )
    close(
        ft.vjp(np.sin, X3, reduce_axes=())[1](X3), j2n(jax.vjp(jnp.sin, X3, reduce_axes=())[1](X3))
    )
    close(
        ft.linear_transpose(lambda a: 2.0 * a, X3, reduce_axes=())(X3),
        j2n(jax.linear_transpose(lambda a: 2.0 * a, X3, reduce_axes=())(X3)),
    )
    with pytest.raises(NotImplementedError):
        jax.grad(jloss, reduce_axes=("i",))(X3)
    for call in (
        lambda: ft.grad(loss, reduce_axes=("i",))(X3),
        lambda: ft.vjp(np.sin, X3, reduce_axes=("i",)),
        lambda: ft.linear_transpose(lambda a: 2.0 * a, X3, reduce_axes=("i",)),
    ):
        with pytest.raises(E.UnsupportedOperationError, match="reduce_axes=") as info:
            call()
        assert isinstance(info.value, NotImplementedError)


def test_vmap_axis_name_given_by_position_says_that_it_goes_by_keyword():
    """``jax.vmap(f, 0, 0, "batch")``: JAX's fourth positional argument is axis_name,
    torch.func's (and ours) is randomness; the error names the keyword to use."""
    jax.vmap(lambda a: a, 0, 0, "batch")(X3)  # JAX: axis_name
    with pytest.raises(E.RandomnessError, match=r"pass JAX's axis_name by keyword"):
        ft.vmap(lambda a: a, 0, 0, "batch")
    close(
        ft.vmap(lambda a: ft.lax.psum(a, "batch"), 0, 0, axis_name="batch")(X3),
        np.full(3, X3.sum()),
    )


def test_vjp_fn_takes_float0_or_any_cotangent_for_an_integer_output_like_jax():
    """JAX's cotangent for an integer output is float0 zeros (``vjp_fn(tree_map(ones_like,
    out))`` is accepted too: an integer output has no derivative); ours refused both
    float0 and a float cotangent there ("cotangent 1 has dtype ...")."""

    def f(np_):
        return lambda a, n: (a * 2.0, n, np_.argmax(a))

    n = np.arange(3)
    out, fn = ft.vjp(f(np), X3, n)
    jout, jfn = jax.vjp(f(jnp), X3, n)
    want = j2n(jfn((X3, np.zeros(3, jax.dtypes.float0), np.zeros((), jax.dtypes.float0))))[0]
    for ct_n, ct_k in [
        (np.zeros(3, jax.dtypes.float0), np.zeros((), jax.dtypes.float0)),
        (np.ones(3), np.ones(())),
        (np.ones_like(n), np.ones((), int)),
    ]:
        got = fn((X3, ct_n, ct_k))
        close(got[0], want)
        assert got[1].dtype == ft.float0 and got[1].shape == n.shape  # as JAX
    with pytest.raises(E.TangentMismatchError, match="cotangent 1 has shape"):
        fn((X3, np.zeros(2), np.zeros(())))


# -- custom_jvp(symbolic_zeros=True) -------------------------------------------------------


def _product(np_, custom_jvp, symbolic_zero, seen):
    f = custom_jvp(lambda a, b: a * b)

    def rule(primals, tangents):
        (a, b), (ta, tb) = primals, tangents
        seen.append(tuple(isinstance(t, symbolic_zero) for t in tangents))
        if isinstance(ta, symbolic_zero) and isinstance(tb, symbolic_zero):
            return a * b, ta
        t_out = 0.0
        if not isinstance(ta, symbolic_zero):
            t_out = t_out + ta * b
        if not isinstance(tb, symbolic_zero):
            assert tb.shape == np_.shape(b)
            t_out = t_out + a * tb
        return a * b, t_out

    f.defjvp(rule, symbolic_zeros=True)
    return f


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_custom_jvp_symbolic_zeros_like_jax(argnums):
    """``defjvp(rule, symbolic_zeros=True)``: the rule gets a SymbolicZero for each input
    that is not differentiated (it raised UnsupportedOperationError)."""
    seen_o, seen_j = [], []
    f = _product(np, ft.custom_jvp, SymbolicZero, seen_o)
    jf = _product(jnp, jax.custom_jvp, JaxSymbolicZero, seen_j)
    ours = ft.grad(lambda a, b: f(a, b).sum(), argnums=argnums)(X3, 2.0 * X3)
    theirs = jax.grad(lambda a, b: jf(a, b).sum(), argnums=argnums)(X3, 2.0 * X3)
    close(ours, j2n(theirs))
    assert seen_o == seen_j and seen_o[0] != (True, True)


def test_custom_jvp_symbolic_zeros_under_jvp_vmap_jit_and_second_order_like_jax():
    seen_o, seen_j = [], []
    f = _product(np, ft.custom_jvp, SymbolicZero, seen_o)
    jf = _product(jnp, jax.custom_jvp, JaxSymbolicZero, seen_j)
    A = np.arange(6.0).reshape(2, 3) / 4

    def cases(lib, g):
        yield "jvp", lambda: lib.jvp(lambda a: g(a, X3), (X3,), (X3,))
        yield "jacfwd", lambda: lib.jacfwd(lambda b: g(X3, b))(X3)  # a SymbolicZero, vmapped
        yield "vmap", lambda: lib.vmap(lib.grad(lambda a, b: g(a, b).sum()), (0, None))(A, X3)
        yield "jit", lambda: lib.jit(lib.grad(lambda a, b: g(a, b).sum()))(X3, X3)
        yield "hessian", lambda: lib.hessian(lambda a: (g(a, a) ** 2).sum())(X3)

    for (label, ours), (_, theirs) in zip(cases(ft, f), cases(jax, jf)):
        seen_o.clear(), seen_j.clear()
        close(ours(), j2n(theirs()))
        assert seen_o[:1] == seen_j[:1], label


def _sin_and_product(np_, custom_vjp, symbolic_zero, seen):
    f = custom_vjp(lambda a, b: (a * b, np_.sin(a)))

    def fwd(a, b):
        seen.append((type(a).__name__, a.perturbed, b.perturbed))
        return (a.value * b.value, np_.sin(a.value)), (a.value, b.value)

    def bwd(res, g):
        (a, b), (g_prod, g_sin) = res, g
        seen.append(tuple(isinstance(c, symbolic_zero) for c in g))
        g_a = 0.0
        if not isinstance(g_prod, symbolic_zero):
            g_a = g_a + g_prod * b
        if not isinstance(g_sin, symbolic_zero):
            g_a = g_a + g_sin * np_.cos(a)
        return g_a, (
            symbolic_zero.from_primal_value(b) if isinstance(g_prod, symbolic_zero) else g_prod * a
        )

    f.defvjp(fwd, bwd, symbolic_zeros=True)
    return f


def test_custom_vjp_symbolic_zeros_like_jax():
    """``defvjp(fwd, bwd, symbolic_zeros=True)`` (an UnsupportedOperationError before):
    fwd gets CustomVJPPrimal leaves saying which are differentiated, bwd a SymbolicZero
    for an output without cotangent, and may return one."""
    seen_o, seen_j = [], []
    f = _sin_and_product(np, ft.custom_vjp, SymbolicZero, seen_o)
    jf = _sin_and_product(jnp, jax.custom_vjp, JaxSymbolicZero, seen_j)
    A = np.arange(6.0).reshape(2, 3) / 4

    def cases(lib, g):
        yield lambda: lib.grad(lambda a, b: g(a, b)[1].sum())(X3, X3)
        yield lambda: lib.grad(lambda a, b: g(a, b)[0].sum(), argnums=1)(X3, X3)
        yield lambda: lib.grad(lambda a, b: sum(o.sum() for o in g(a, b)), argnums=(0, 1))(X3, X3)
        yield lambda: lib.vmap(lib.grad(lambda a, b: g(a, b)[0].sum()), (0, None))(A, X3)
        yield lambda: lib.jit(lib.grad(lambda a, b: g(a, b)[1].sum()))(X3, X3)
        yield lambda: lib.jacrev(lambda a: g(a, X3))(X3)

    for ours, theirs in zip(cases(ft, f), cases(jax, jf)):
        seen_o.clear(), seen_j.clear()
        close(ours(), j2n(theirs()))
        assert seen_o == seen_j
        assert seen_o[0][0] == CustomVJPPrimal.__name__
