"""Op-database entries for ``numpy.fft`` (the ``fft`` primitive of ``ftransforms/ops/fft.py``
and the ``fnp.fft`` front ends).  Format: ``tests/op_db.py``.

``fn(m, ...)`` over ``fnp``, ``np`` and ``jnp``, which spell ``m.fft.*`` the same: float32
and float64, NumPy as the forward reference, and ``np.fft.*`` on tracers through
``__array_function__``.  The harness differentiates real operands and real outputs only,
so a complex input is built from two real operands ``x + 1j * y`` and a complex result
is returned as its ``(real, imag)`` parts; that covers every complex derivative.

Samples cover the default length, cutting and zero-padding (``n``/``s``), other axes,
every ``norm``, odd and even ``irfft`` lengths and, for ``fftn``, a repeated axis (NumPy
transforms it twice; not compared with JAX, which refuses it).
"""

from __future__ import annotations

from collections.abc import Callable

from tests.op_db_base import S, add


def _parts(m, z):
    return m.real(z), m.imag(z)


def _complex_in_fn(name: str, real_out: bool) -> Callable:
    """``fn(m, x, y, **kw)``: ``m.fft.<name>(x + 1j * y, **kw)``."""

    def fn(m, x, y, **kw):
        out = getattr(m.fft, name)(x + 1j * y, **kw)
        return out if real_out else _parts(m, out)

    fn.__name__ = f"fft_{name}"
    return fn


def _real_in(name: str, real_out: bool) -> Callable:
    """``fn(m, x, **kw)``: ``m.fft.<name>(x, **kw)``."""

    def fn(m, x, **kw):
        out = getattr(m.fft, name)(x, **kw)
        return out if real_out else _parts(m, out)

    fn.__name__ = f"fft_{name}"
    return fn


def _shape_name(shape: tuple, kw: dict) -> str:
    label = "x".join(map(str, shape)) or "scalar"
    for k, v in kw.items():
        if k.startswith("_"):  # a sample option (``_jax``)
            continue
        if isinstance(v, tuple):
            v = "_".join(map(str, v))
        label += f"_{k}{v}"
    return label


#: name -> (fnp/numpy function name, complex input, real output, samples: (shape, kwargs))
_ENTRIES: dict[str, tuple[str, bool, bool, list[tuple[tuple, dict]]]] = {
    "fft": (
        "fft",
        True,
        False,
        [
            ((6,), {}),
            ((2, 5), {"n": 3, "axis": 0}),
            ((3, 4), {"n": 3, "norm": "ortho", "_jax": True}),
            ((4, 3), {"norm": "forward"}),
            ((0, 4), {}),
        ],
    ),
    "fft_real_input": (
        "fft",
        False,
        False,
        [((5,), {}), ((3, 4), {"n": 6, "axis": 0, "norm": "ortho"})],
    ),
    "ifft": (
        "ifft",
        True,
        False,
        [((5,), {}), ((3, 4), {"n": 5, "axis": 0, "norm": "ortho"}), ((2, 3), {"n": 2})],
    ),
    "rfft": (
        "rfft",
        False,
        False,
        [
            ((6,), {}),
            ((5, 3), {"n": 4, "axis": 0}),
            ((2, 5), {"n": 7, "norm": "ortho", "_jax": True}),
            ((3, 4), {"norm": "forward"}),
        ],
    ),
    "irfft": (
        "irfft",
        True,
        True,
        [
            ((4,), {}),
            ((3, 2), {"n": 5, "axis": 0, "_jax": True}),
            ((2, 4), {"n": 4, "norm": "forward"}),
            ((2, 3), {"n": 8, "norm": "ortho", "_jax": True}),
        ],
    ),
    "hfft": (
        "hfft",
        True,
        True,
        [
            ((4,), {}),
            ((3, 2), {"n": 5, "axis": 0, "norm": "ortho", "_jax": True}),
            ((2, 3), {"n": 3}),
        ],
    ),
    "ihfft": (
        "ihfft",
        False,
        False,
        [((5,), {}), ((2, 6), {"n": 4, "norm": "forward"})],
    ),
    "fft2": (
        "fft2",
        True,
        False,
        [((3, 4), {}), ((2, 3, 4), {"s": (4, 2), "norm": "ortho"})],
    ),
    "ifft2": (
        "ifft2",
        True,
        False,
        [((3, 4), {}), ((2, 3), {"s": (2, 5), "axes": (1, 0), "norm": "forward", "_jax": True})],
    ),
    "rfft2": (
        "rfft2",
        False,
        False,
        [((3, 4), {}), ((4, 3), {"s": (3, 5), "norm": "forward"})],
    ),
    "irfft2": (
        "irfft2",
        True,
        True,
        [((3, 3), {}), ((4, 3), {"s": (5, 5), "norm": "ortho"})],
    ),
    "fftn": (
        "fftn",
        True,
        False,
        [
            ((2, 3, 4), {}),
            ((3, 4), {"s": (5,), "axes": (0,)}),
            ((3, 4), {"axes": (1, 0, 1)}),
        ],
    ),
    "ifftn": (
        "ifftn",
        True,
        False,
        [((2, 3, 2), {"axes": (0, 2)}), ((3, 2), {"s": (2, 4), "axes": (0, 1), "norm": "ortho"})],
    ),
    "rfftn": (
        "rfftn",
        False,
        False,
        [((2, 3, 4), {}), ((3, 4), {"s": (3, 4), "axes": (1, 0)})],
    ),
    "irfftn": (
        "irfftn",
        True,
        True,
        [
            ((2, 3, 3), {}),
            ((3, 2, 4), {"s": (3, 4), "axes": (2, 0), "norm": "forward", "_jax": True}),
        ],
    ),
    "fftshift": (
        "fftshift",
        False,
        True,
        [((5,), {}), ((4, 3), {"axes": 0}), ((2, 3, 4), {"axes": (0, 2)})],
    ),
    "ifftshift": (
        "ifftshift",
        False,
        True,
        [((5,), {}), ((4, 3), {"axes": 1}), ((2, 3, 4), {"axes": (2, 0)})],
    ),
}

#: Entries whose function is a composite without the ``fft`` primitive.
_NO_FFT_PRIMITIVE = {"fftshift", "ifftshift"}


def _sampler(complex_in: bool, specs: list) -> Callable:
    def sampler(d) -> list:
        out = []
        for shape, kw in specs:
            args = (d.u(shape), d.u(shape)) if complex_in else (d.u(shape),)
            out.append(S(_shape_name(shape, kw), *args, **kw))
        return out

    return sampler


for _name, (_fn_name, _complex_in, _real_out, _specs) in _ENTRIES.items():
    add(
        f"fft_{_name}",
        (_complex_in_fn if _complex_in else _real_in)(_fn_name, _real_out),
        _sampler(_complex_in, _specs),
        prims=() if _name in _NO_FFT_PRIMITIVE else "fft",
        funcs=f"fft.{_fn_name}",
    )
