"""Round 12 probes: custom_jvp under differentiation runs its rule alone (as JAX does)."""

import numpy as np
import pytest

import ftransforms as ft

X3 = np.array([0.3, -1.2, 2.0])


def _logged():
    log = []

    @ft.custom_jvp
    def f(x):
        log.append("f")
        return np.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        log.append("jvp")
        (x,), (t,) = primals, tangents
        return f(x), np.cos(x) * t

    return f, log


# what JAX calls for each (jax.custom_jvp, the same f and rule): the rule, and f from
# inside the rule; never f before the rule
CASES = {
    "jvp": (lambda f: ft.jvp(f, (3.0,), (1.0,))[1], lambda: np.cos(3.0), ["jvp", "f"]),
    "grad": (lambda f: ft.grad(f)(3.0), lambda: np.cos(3.0), ["jvp", "f"]),
    "vjp": (lambda f: ft.vjp(f, 3.0)[1](1.0)[0], lambda: np.cos(3.0), ["jvp", "f"]),
    "vmap(grad)": (lambda f: ft.vmap(ft.grad(f))(X3), lambda: np.cos(X3), ["jvp", "f"]),
    "jit(grad)": (lambda f: ft.jit(ft.grad(f))(3.0), lambda: np.cos(3.0), ["jvp", "f"]),
    "grad(grad)": (lambda f: ft.grad(ft.grad(f))(3.0), lambda: -np.sin(3.0), ["jvp", "jvp", "f"]),
    "jacfwd": (lambda f: ft.jacfwd(f)(X3), lambda: np.diag(np.cos(X3)), ["jvp", "f"]),
    "jacrev": (lambda f: ft.jacrev(f)(X3), lambda: np.diag(np.cos(X3)), ["jvp", "f"]),
    "hessian": (
        lambda f: ft.hessian(lambda v: f(v).sum())(X3),
        lambda: np.diag(-np.sin(X3)),
        ["jvp", "jvp", "f"],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_custom_jvp_runs_only_its_rule_under_differentiation(case):
    run, want, calls = CASES[case]
    f, log = _logged()
    run(f)  # the first differentiated call also runs f (it learns what f writes)
    log.clear()
    np.testing.assert_allclose(run(f), want(), rtol=1e-12, atol=1e-12)
    assert log == calls


def test_custom_jvp_plain_and_vmap_calls_run_the_function():
    f, log = _logged()
    ft.grad(f)(1.0)
    log.clear()
    np.testing.assert_allclose(ft.vmap(f)(X3), np.sin(X3))
    np.testing.assert_allclose(f(X3), np.sin(X3))
    assert log == ["f", "f"]


@ft.custom_jvp
def _softmax_in_place(x):
    x -= x.max()
    np.exp(x, out=x)
    x /= x.sum()
    return x


@_softmax_in_place.defjvp
def _softmax_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = _softmax_in_place(x.copy())
    return y, y * (t - np.sum(y * t))


def _reads_written_argument(x):
    a = x * 1.0
    y = _softmax_in_place(a)  # a is y now, as in NumPy
    return np.sum((a * 2.0 + y * x) * np.arange(1.0, 4.0))


def test_written_argument_still_written_back_when_only_the_rule_runs():
    eps = 1e-6
    fd = np.array(
        [
            (_reads_written_argument(X3 + eps * e) - _reads_written_argument(X3 - eps * e))
            / (2 * eps)
            for e in np.eye(3)
        ]
    )
    for _ in range(3):  # the first call runs the function, the later ones the rule only
        np.testing.assert_allclose(ft.grad(_reads_written_argument)(X3), fd, atol=1e-7)
        np.testing.assert_allclose(
            ft.jvp(_reads_written_argument, (X3,), (np.ones(3),))[1], fd.sum(), atol=1e-7
        )


@pytest.mark.parametrize("transform", ["vjp", "linearize"])
def test_jit_returning_the_vjp_function_says_what_to_do(transform):
    """JAX's ``jit(lambda x: vjp(f, x))`` returns a Partial; here the function holds the
    recording, so jit refuses it with the two ways that work (both checked below)."""
    t = getattr(ft, transform)
    x = np.array([0.5, 1.0, 2.0])
    with pytest.raises(TypeError, match=rf"ft\.{transform} returns .*ft\.{transform}\(ft\.jit"):
        ft.jit(lambda v: t(np.sin, v))(x)
    np.testing.assert_allclose(
        ft.jit(lambda v, c: t(np.sin, v)[1](c))(x, X3)[0 if transform == "vjp" else ()],
        np.cos(x) * X3,
    )
    np.testing.assert_allclose(np.ravel(t(ft.jit(np.sin), x)[1](X3)), np.cos(x) * X3)
    np.testing.assert_allclose(ft.grad(lambda v: np.sin(v).sum())(x), np.cos(x))  # stack clean
