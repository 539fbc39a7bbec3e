"""Round 13 probes: the less-travelled transforms (custom rules, jet, implicit) against JAX."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental.jet import jet as jax_jet

import ftransforms as ft
from tests.tolerances import assert_tree_close, tol

jax.config.update("jax_enable_x64", True)

X3 = np.array([0.3, -1.2, 2.0])
TOL = tol(np.float64)


def _doubled_sin_rule(lib, fun):
    f = lib.custom_jvp(fun)
    f.defjvp(lambda p, t: (f(p[0]), 2.0 * np.cos(p[0]) * t[0]))
    return f


def test_custom_jvp_of_a_ufunc_runs_with_its_keyword_only_defaults():
    """np.sin's signature has keyword-only where=/casting=...: JAX fills the defaults of the
    keyword-only parameters a call does not pass; only a passed one cannot be a position."""
    f, fj = _doubled_sin_rule(ft, np.sin), _doubled_sin_rule(jax, np.sin)
    assert_tree_close(f(X3), np.sin(X3), **TOL)
    assert_tree_close(ft.grad(f)(0.5), jax.grad(fj)(0.5), **TOL)
    assert_tree_close(ft.jvp(f, (X3,), (X3,)), jax.jvp(fj, (X3,), (X3,)), **TOL)
    assert_tree_close(ft.vmap(ft.grad(f))(X3), np.array([jax.grad(fj)(x) for x in X3]), **TOL)


def test_custom_jvp_keyword_only_argument_passed_is_still_refused():
    def g(x, *, scale=2.0):
        return x * scale

    f = ft.custom_jvp(g)
    f.defjvp(lambda p, t: (f(p[0]), 3.0 * t[0]))
    assert ft.grad(f)(0.5) == 3.0
    with pytest.raises(TypeError, match=r"keyword-only arguments \['scale'\] .*positional"):
        ft.grad(lambda x: f(x, scale=3.0))(0.5)


def _sin_with_doubled_bwd(lib, np_):
    @lib.custom_vjp
    def f(x, y):
        return np_.sin(x) * y

    def fwd(x, y):  # fwd computes the output itself (does not call f)
        return np_.sin(x) * y, {"c": np_.cos(x), "y": (y,)}

    f.defvjp(fwd, lambda r, g: (2.0 * r["c"] * r["y"][0] * g, None))
    return f


# what JAX gives (checked with jax.hessian etc.): bwd's 2 cos(x) y g and fwd's sin(x) y
# differentiated as ordinary code, so the loss (1.5 sin x)^2 has the "Hessian" 9 cos(2x)
HESSIANS = {
    "hessian": (
        lambda f: ft.hessian(lambda x: (f(x, 1.5) ** 2).sum())(X3),
        np.diag(9.0 * np.cos(2 * X3)),
    ),
    "jacfwd(jacrev)": (
        lambda f: ft.jacfwd(ft.jacrev(lambda x: f(x, 1.5).sum()))(X3),
        np.diag(-3.0 * np.sin(X3)),
    ),
    "jvp(grad)": (
        lambda f: ft.jvp(ft.grad(lambda v: (f(v, 1.5) ** 2).sum()), (X3,), (X3[::-1],))[1],
        9.0 * np.cos(2 * X3) * X3[::-1],
    ),
    "vmap(hessian)": (
        lambda f: ft.vmap(ft.hessian(lambda x: f(x, 1.5) ** 2))(X3),
        9.0 * np.cos(2 * X3),
    ),
    "jit(hessian)": (
        lambda f: ft.jit(ft.hessian(lambda x: (f(x, 1.5) ** 2).sum()))(X3),
        np.diag(9.0 * np.cos(2 * X3)),
    ),
}


@pytest.mark.parametrize("name", list(HESSIANS))
def test_forward_over_reverse_of_custom_vjp_matches_jax(name):
    """JAX runs fwd (and later bwd) as ordinary code on the level below the reverse one,
    so forward over reverse works; this raised 'can't apply forward-mode autodiff'."""
    run, want = HESSIANS[name]
    assert_tree_close(run(_sin_with_doubled_bwd(ft, np)), want, **TOL)


def test_the_forward_over_reverse_figures_are_jax_s():
    f = _sin_with_doubled_bwd(jax, jnp)
    got = jax.hessian(lambda x: (f(x, 1.5) ** 2).sum())(jnp.asarray(X3))
    assert_tree_close(np.asarray(got), HESSIANS["hessian"][1], **TOL)


def _gradient_reversal(lib):
    @functools.partial(lib.custom_vjp, nondiff_argnums=(1,))
    def reverse(x, lam):
        return x

    reverse.defvjp(lambda x, lam: (x, None), lambda lam, _, g: (-lam * g,))
    return reverse


def test_second_order_reverse_differentiates_what_fwd_computes():
    """In grad(grad(f)) the outer level differentiates the output as fwd computes it (here
    the identity), as JAX does; it applied bwd again (-lam^2 cos^2 where JAX has +cos^2)."""

    def loss(lib, np_):
        rev = _gradient_reversal(lib)
        return lambda x: (rev(np_.sin(x), 0.5) ** 2).sum()

    got = ft.jacrev(ft.grad(loss(ft, np)))(X3)
    want = jax.jacrev(jax.grad(loss(jax, jnp)))(jnp.asarray(X3))
    assert_tree_close(got, np.asarray(want), **TOL)
    got = ft.grad(ft.grad(lambda x: loss(ft, np)(x[None])))(0.3)
    assert_tree_close(got, -np.cos(0.6), **TOL)  # -lam * 2 cos(2x), lam = 0.5, as above


def test_forward_mode_through_a_custom_vjp_call_is_still_refused():
    def f_calls_itself(lib, np_):
        @lib.custom_vjp
        def f(x):
            return np_.sin(x)

        f.defvjp(lambda x: (f(x), np_.cos(x)), lambda c, g: (c * g,))
        return f

    f = f_calls_itself(ft, np)
    for run in (lambda: ft.jvp(f, (X3,), (X3,)), lambda: ft.hessian(lambda x: f(x).sum())(X3)):
        with pytest.raises(TypeError, match=r"^custom_vjp\(f\): can't apply forward-mode"):
            run()
    with pytest.raises(TypeError, match="forward-mode"):  # JAX refuses both the same way
        jax.hessian(lambda x: f_calls_itself(jax, jnp)(x).sum())(jnp.asarray(X3))
    assert_tree_close(ft.grad(lambda x: f(x).sum())(X3), np.cos(X3), **TOL)  # stack clean


def test_forward_over_reverse_of_a_checkpointed_custom_vjp():
    f = _sin_with_doubled_bwd(ft, np)
    got = ft.hessian(lambda x: (ft.checkpoint(f)(x, 1.5) ** 2).sum())(X3)
    assert_tree_close(got, HESSIANS["hessian"][1], **TOL)
    got = ft.grad(lambda x: (ft.checkpoint(f)(x, 1.5) ** 2).sum())(X3)
    assert_tree_close(got, 4.5 * np.sin(2 * X3), **TOL)  # bwd's 2 cos(x) y g


def test_checkpointed_custom_jvp_under_grad_and_hessian_uses_its_rule():
    f = ft.custom_jvp(np.sin)
    f.defjvp(lambda p, t: (f(p[0]), 3.0 * np.cos(p[0]) * t[0]))
    g = ft.checkpoint(lambda x: f(x) * 2.0)
    for _ in range(2):  # the first differentiated call also runs f (round 12), later not
        assert_tree_close(ft.grad(lambda x: g(x).sum())(X3), 6.0 * np.cos(X3), **TOL)
        assert_tree_close(ft.hessian(lambda x: g(x).sum())(X3), np.diag(-6.0 * np.sin(X3)), **TOL)


JET_X = np.array([0.3, 1.2, 2.0, 0.7])
JET_TERMS = [np.ones(4), 0.5 * JET_X, JET_X - 1.0]
WITHOUT_A_JET_RULE = {
    "cumprod": (np.cumprod, jnp.cumprod),
    "det": (lambda x: np.linalg.det(x.reshape(2, 2)), lambda x: jnp.linalg.det(x.reshape(2, 2))),
}


@pytest.mark.parametrize("name", list(WITHOUT_A_JET_RULE))
def test_jet_of_an_op_without_a_taylor_rule_matches_jax(name):
    """A primitive with a JVP rule but no Taylor rule gets its coefficients from nested
    jvp's (it raised 'has no Taylor (jet) rule'; jax.experimental.jet computes these)."""
    ours, theirs = WITHOUT_A_JET_RULE[name]
    got = ft.jet(ours, (JET_X,), (JET_TERMS,))
    want = jax_jet(theirs, (jnp.asarray(JET_X),), (JET_TERMS,))
    want = (np.asarray(want[0]), [np.asarray(w) for w in want[1]])
    assert_tree_close((got[0], list(got[1])), want, **TOL)


def test_jet_of_solve_matches_nested_jvp_under_vmap():
    a = np.array([[3.0, 1.0], [0.5, 2.0]])

    def f(x):
        return np.linalg.solve(a + np.diag(x), x)

    def second_derivative(x):  # along x(t) = x + t; jet's series[1] is f''
        return ft.jvp(lambda v: ft.jvp(f, (v,), (np.ones(2),))[1], (x,), (np.ones(2),))[1]

    xs = np.array([[0.3, -0.2], [1.0, 0.4]])
    got = ft.vmap(lambda x: ft.jet(f, (x,), ([np.ones(2), np.zeros(2)],))[1][1])(xs)
    assert_tree_close(got, np.stack([second_derivative(x) for x in xs]), **TOL)
