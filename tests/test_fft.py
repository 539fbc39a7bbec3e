"""``numpy.fft`` under the transforms (the ``fft`` primitive and ``fnp.fft``), beyond the
generic op-database checks (``tests/op_db_fft.py``): gradients of real losses through
rfft/irfft and every ``norm`` against JAX, Jacobians, ``vmap`` with the batch axis in
the middle, cutting and zero-padding, complex inputs (JAX's convention), ``jit`` replay,
and NumPy's argument handling and errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ftransforms as ft
import ftransforms.numpy as fnp
from ftransforms.core.errors import InPlaceError
from ftransforms.testing import check_grads
from tests.jaxpr_evaluator import on_jax

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(11)
X = RNG.standard_normal(8)
X2 = RNG.standard_normal((4, 6))
Z = RNG.standard_normal(5) + 1j * RNG.standard_normal(5)
NORMS = [None, "backward", "ortho", "forward"]
TOL = {"rtol": 1e-10, "atol": 1e-12}


def close(a, b, **tol):
    a = np.asarray(a)
    assert type(a) is np.ndarray or np.isscalar(a)
    np.testing.assert_allclose(a, np.asarray(b), **(tol or TOL))


# -- gradients of real losses vs JAX ---------------------------------------------------------


def _spectral_loss(m, x, norm, n):
    """A real loss through rfft, a filter, and irfft back to real."""
    spec = m.fft.rfft(x, n=n, norm=norm)
    w = m.cos(m.arange(spec.shape[-1]) * 0.3)
    back = m.fft.irfft(spec * w, n=n, norm=norm)
    return m.sum(m.abs(spec) ** 2 * w) + m.sum(m.sin(back) * m.arange(n))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [5, 8, 11])
def test_grad_through_rfft_irfft_matches_jax(norm, n):
    got = ft.grad(lambda x: _spectral_loss(np, x, norm, n))(X)
    want = on_jax(jax.grad(lambda x: _spectral_loss(jnp, x, norm, n)), X)
    close(got, want)


@pytest.mark.parametrize(
    "name, kw",
    [
        ("fft", {}),
        ("ifft", {"n": 6}),
        ("fft2", {"s": (3, 7)}),
        ("ifftn", {"axes": (1, 0)}),
        ("hfft", {"n": 9}),
    ],
)
@pytest.mark.parametrize("norm", NORMS)
def test_grad_of_complex_input_matches_jax(name, kw, norm):
    """grad of a real function of a complex input is df/dx - i df/dy, as in JAX."""
    z = RNG.standard_normal((4, 6)) + 1j * RNG.standard_normal((4, 6))
    w = RNG.standard_normal((4, 6))

    def loss(m, z):
        y = getattr(m.fft, name)(z, norm=norm, **kw)
        wy = w[..., : y.shape[-1]] if y.shape[-1] <= 6 else m.ones(y.shape[-1])
        return m.sum(m.real(y * m.conj(y)) * m.cos(m.real(y))) + m.sum(m.imag(y) ** 3 * wy)

    got = ft.grad(lambda z: loss(np, z))(z)
    assert got.dtype == np.complex128
    close(got, on_jax(jax.grad(lambda z: loss(jnp, z)), z))


def test_hessian_of_a_spectral_loss_matches_jax():
    def f(m, x):
        return m.sum(m.abs(m.fft.rfft(m.tanh(x), norm="ortho")) ** 3)

    close(ft.hessian(lambda x: f(np, x))(X), on_jax(jax.hessian(lambda x: f(jnp, x)), X))


# -- Jacobians -----------------------------------------------------------------------------


def _parts(m, name, **kw):
    def f(x):
        y = getattr(m.fft, name)(x, **kw)
        return m.stack([m.real(y), m.imag(y)])

    return f


@pytest.mark.parametrize("name, kw", [("fft", {}), ("rfft", {"n": 6}), ("ifft2", {})])
def test_jacfwd_and_jacrev_match_jax(name, kw):
    x = X2 if name.endswith("2") else X
    want = on_jax(jax.jacfwd(_parts(jnp, name, **kw)), x)
    close(ft.jacfwd(_parts(np, name, **kw))(x), want)
    close(ft.jacrev(_parts(fnp, name, **kw))(x), want)


def test_jacobian_of_fft_is_the_dft_matrix():
    n = 5
    dft = np.exp(-2j * np.pi * np.outer(np.arange(n), np.arange(n)) / n)
    jac = ft.jacrev(_parts(np, "fft", norm="ortho"))(X[:n])
    close(jac[0] + 1j * jac[1], dft / np.sqrt(n))


def test_jacobian_of_complex_output_is_refused_like_jax():
    with pytest.raises(TypeError, match="complex"):
        ft.jacrev(np.fft.fft)(X)


# -- vmap ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, kw",
    [
        ("fft", {"axis": 0}),
        ("rfft", {"n": 7}),
        ("irfft", {"axis": 0, "n": 5}),
        ("fft2", {"s": (3, 2)}),
        ("rfftn", {"axes": (1, 0)}),
        ("irfftn", {}),
        ("ihfft", {}),
        ("fftshift", {}),
    ],
)
def test_vmap_with_in_dims_1_matches_a_loop(name, kw):
    xs = RNG.standard_normal((4, 3, 6))  # batch axis 1
    f = getattr(np.fft, name)
    got = ft.vmap(lambda x: f(x, **kw), in_dims=1)(xs)
    want = np.stack([f(xs[:, b], **kw) for b in range(3)])
    close(got, want)
    got_last = ft.vmap(lambda x: f(x, **kw), in_dims=1, out_dims=-1)(xs)
    close(got_last, np.moveaxis(want, 0, -1))


def test_vmap_of_grad_per_sample_matches_jax():
    xs = RNG.standard_normal((3, 8))

    def loss(m, x):
        return m.sum(m.abs(m.fft.rfft(x, norm="forward")) ** 2 * m.arange(5.0))

    close(
        ft.vmap(ft.grad(lambda x: loss(np, x)))(xs),
        on_jax(jax.vmap(jax.grad(lambda x: loss(jnp, x))), xs),
    )


def test_vmap_of_vmap_keeps_the_transformed_axes():
    xs = RNG.standard_normal((2, 5, 3, 4))
    got = ft.vmap(ft.vmap(lambda x: np.fft.fft2(x), in_dims=1), in_dims=0)(xs)
    close(got, np.fft.fft2(np.moveaxis(xs, 2, 1)))


# -- lengths and norms -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 8, 12])
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft"])
def test_cutting_and_padding_forward_and_vjp(name, n):
    f = getattr(np.fft, name)
    y, vjp_fn = ft.vjp(lambda x: f(x, n=n), X)
    close(y, f(X, n=n))
    ct = RNG.standard_normal(y.shape) + 1j * RNG.standard_normal(y.shape)
    jf = getattr(jnp.fft, name)
    (want,) = on_jax(lambda x, c: jax.vjp(lambda x: jf(x, n=n), x)[1](c), X, ct)
    close(vjp_fn(ct)[0], want)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "rfft2"])
def test_norms_forward_and_jvp_match_numpy_and_jax(name, norm):
    x = X2 if name.endswith("2") else X
    f, jf = getattr(fnp.fft, name), getattr(jnp.fft, name)
    close(f(x, norm=norm), getattr(np.fft, name)(x, norm=norm))
    t = RNG.standard_normal(x.shape)
    _, got = ft.jvp(lambda x: f(x, norm=norm), (x,), (t,))
    close(got, on_jax(lambda x, t: jax.jvp(lambda x: jf(x, norm=norm), (x,), (t,))[1], x, t))


def test_ortho_fft_is_unitary_so_its_vjp_inverts_it():
    y, vjp_fn = ft.vjp(lambda z: np.fft.fft(z, norm="ortho"), Z)
    (back,) = vjp_fn(np.conj(y))  # the transpose of a symmetric unitary F is F: F(conj(Fz))
    close(np.conj(back), Z)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtypes_are_kept(dtype):
    x = X.astype(dtype)
    cdt = np.result_type(dtype, np.complex64)
    assert fnp.fft.fft(x).dtype == cdt
    assert fnp.fft.irfft(fnp.fft.rfft(x)).dtype == dtype
    g = ft.grad(lambda x: np.sum(np.abs(np.fft.rfft(x)) ** 2))(x)
    assert g.dtype == dtype
    close(g, ft.grad(lambda x: np.sum(np.abs(np.fft.rfft(x)) ** 2))(X), rtol=1e-5, atol=1e-5)


# -- jit --------------------------------------------------------------------------------------


def test_jit_of_grad_replays_like_eager():
    def loss(x):
        return _spectral_loss(np, x, "ortho", 8) + np.sum(np.real(np.fft.fft2(x[:6].reshape(2, 3))))

    g = ft.grad(loss)
    jg = ft.jit(g)
    for x in (X, RNG.standard_normal(8), RNG.standard_normal(8)):
        close(jg(x), g(x))


def test_jit_of_vmap_replays_like_eager():
    f = ft.vmap(lambda x: np.fft.irfft2(np.fft.rfft2(x) * 0.5, s=x.shape), in_dims=2)
    jf = ft.jit(f)
    for _ in range(3):
        xs = RNG.standard_normal((4, 6, 2))
        close(jf(xs), f(xs))
        close(jf(xs), np.moveaxis(xs, 2, 0) * 0.5)


# -- NumPy's argument handling and errors ------------------------------------------------------


def test_numpy_functions_on_tracers_dispatch_to_fnp_fft():
    names = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2"]
    names += ["irfft2", "fftn", "ifftn", "rfftn", "irfftn", "fftshift", "ifftshift"]
    xs = RNG.standard_normal((2, 4, 6))
    for name in names:
        out = ft.vmap(getattr(np.fft, name))(xs)
        close(out, np.stack([getattr(np.fft, name)(x) for x in xs]))


def test_repeated_axes_transform_twice_like_numpy():
    x = X2 + 1j * X2[::-1]
    close(fnp.fft.fftn(x, axes=(1, 0, 1)), np.fft.fftn(x, axes=(1, 0, 1)))
    close(fnp.fft.rfftn(X2, axes=(0, 0)), np.fft.rfftn(X2, axes=(0, 0)))
    close(fnp.fft.irfftn(x, axes=(1, 1)), np.fft.irfftn(x, axes=(1, 1)))
    check_grads(lambda x: np.fft.irfftn(np.fft.fftn(x, axes=(1, 1))), (X2,), order=1)


def test_s_without_axes_warns_like_numpy():
    with pytest.warns(DeprecationWarning, match="axes"):
        got = fnp.fft.fftn(X2, s=(3,))
    with pytest.warns(DeprecationWarning):
        want = np.fft.fftn(X2, s=(3,))
    close(got, want)
    close(fnp.fft.fftn(X2, s=(-1, 4), axes=(0, 1)), np.fft.fftn(X2, s=(-1, 4), axes=(0, 1)))


def test_integer_inputs_and_lists_are_computed_in_float64():
    a = np.arange(6)
    close(fnp.fft.fft(a), np.fft.fft(a))
    close(fnp.fft.rfft([1, 2, 3]), np.fft.rfft([1, 2, 3]))


def test_fftfreq_and_rfftfreq_are_constants_or_follow_a_traced_spacing():
    close(fnp.fft.fftfreq(7, 0.5), np.fft.fftfreq(7, 0.5))
    close(fnp.fft.rfftfreq(8), np.fft.rfftfreq(8))
    got = ft.grad(lambda d: np.sum(fnp.fft.rfftfreq(8, d) ** 2))(2.0)
    close(got, -2 * np.sum(np.fft.rfftfreq(8) ** 2) / 2.0**3)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: fnp.fft.fft(X, norm="unitary"), ValueError, "Invalid norm value"),
        (lambda: fnp.fft.fft(X, n=0), ValueError, "Invalid number of FFT data points"),
        (lambda: fnp.fft.rfft(Z), TypeError, "must be real"),
        (lambda: fnp.fft.fftn(X2, s=(2, 3), axes=(0,)), ValueError, "different lengths"),
        (lambda: fnp.fft.fft(X, axis=1), np.exceptions.AxisError, "axis"),
    ],
)
def test_bad_arguments_raise_like_numpy(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_out_into_a_buffer_and_into_an_outside_array():
    # NOTE [mutation semantics]: np.empty made inside takes the result; an array from
    # outside the function is refused
    def f(x):
        return np.sum(np.real(np.fft.fft(x, out=np.empty(8, complex))) ** 2)

    np.testing.assert_allclose(
        ft.grad(f)(X), ft.grad(lambda x: np.sum(np.real(np.fft.fft(x)) ** 2))(X)
    )
    outside = np.empty(8, complex)
    with pytest.raises(InPlaceError, match="out="):
        ft.grad(lambda x: np.sum(np.real(np.fft.fft(x, out=outside))))(X)
