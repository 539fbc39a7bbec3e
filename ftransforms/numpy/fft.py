"""``ftransforms.numpy.fft``: ``numpy.fft`` over arrays and tracers.

Every transform is the one ``fft`` primitive of ``ftransforms.ops.fft`` (types ``fft``,
``ifft``, ``rfft``, ``irfft`` over a set of axes, with NumPy's cutting/zero-padding to
``n``/``s`` and its ``norm``); ``hfft``/``ihfft`` add a conjugation, ``fftshift``/
``ifftshift`` are rolls, ``fftfreq``/``rfftfreq`` constants.  Arguments and results follow
NumPy's (``norm`` in ``"backward"``, ``"ortho"``, ``"forward"``; float32 inputs give
complex64 results); ``numpy.fft.*`` called on a tracer comes here.  Derivatives of complex
results follow JAX's convention (NOTE [complex derivatives] in ``ops/elementwise.py``).

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> x = np.array([1.0, 2.0, 0.5, -1.0])
    >>> grad(lambda x: np.sum(np.real(np.fft.fft(x))))(x)  # sum_k Re X_k = n x_0
    array([4., 0., 0., 0.])
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy

import ftransforms.numpy.helpers as helpers
from ftransforms.backend import is_array
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.core.tracer import Tracer
from ftransforms.numpy.creation import asarray
from ftransforms.numpy.dispatch import implements
from ftransforms.numpy.helpers import ndim, normalize_axis, xp_of
from ftransforms.numpy.rearranging import roll
from ftransforms.numpy.ufuncs import astype, conj
from ftransforms.ops.fft import SWAP_NORM, fft_p

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]


# -- argument handling (NumPy's rules) -----------------------------------------------------


def _norm(norm: str | None) -> str:
    if norm is None:
        return "backward"
    if norm not in SWAP_NORM:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
    return norm


def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise UnsupportedOperationError(
            f"numpy.fft.{name}(..., out=...): ftransforms arrays are immutable; use the "
            f"return value instead of out="
        )


def _operand(a: Any, name: str, fft_type: str) -> Any:
    """``a`` as an array or tracer of an inexact dtype, as NumPy computes it."""
    if not (isinstance(a, Tracer) or hasattr(a, "shape")):  # lists, Python scalars
        a = asarray(a)
    dt = a.dtype
    if dt.kind in "biu":
        a = astype(a, numpy.float64)
    elif dt == numpy.float16:
        a = astype(a, numpy.float32)
    elif dt.kind == "c" and fft_type == "rfft":
        raise TypeError(
            f"numpy.fft.{name}: the input must be real, got {dt}; take the real part first, "
            f"or use fft for a complex input"
        )
    return a


def _check_lengths(lengths: Sequence[int]) -> tuple[int, ...]:
    out = tuple(int(n) for n in lengths)
    for n in out:
        if n < 1:
            raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return out


def _one(a: Any, fft_type: str, n: int | None, axis: int, norm: str | None, name: str) -> Any:
    """One transform along one axis (``fft``, ``ifft``, ``rfft``, ``irfft``)."""
    a = _operand(a, name, fft_type)
    axis = normalize_axis(axis, ndim(a))
    if n is None:
        n = helpers.shape(a)[axis]
        if fft_type == "irfft":
            n = 2 * (n - 1)
    return fft_p.bind(
        a, fft_type=fft_type, axes=(axis,), lengths=_check_lengths((n,)), norm=_norm(norm)
    )


def _cook_nd(a: Any, s: Any, axes: Any, inverse_real: bool) -> tuple[list, list]:
    """NumPy's ``_cook_nd_args``: the lengths and (non-negative) axes of an n-D transform."""
    shape = helpers.shape(a)
    rank = len(shape)
    shapeless = s is None
    if axes is not None:
        axes = [normalize_axis(int(ax), rank) for ax in axes]
    if shapeless:
        s = list(shape) if axes is None else [shape[ax] for ax in axes]
    s = list(s)
    if axes is None:
        if not shapeless:
            warnings.warn(
                "`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0). "
                "In a future version of NumPy, this will raise an error and `s[i]` will "
                "correspond to the size along the transformed axis specified by `axes[i]`. "
                "To retain current behaviour, pass a sequence [0, ..., k-1] to `axes` for an "
                "array of dimension k.",
                DeprecationWarning,
                stacklevel=4,
            )
        axes = [normalize_axis(ax, rank) for ax in range(-len(s), 0)]
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if inverse_real and shapeless and axes:
        s[-1] = (shape[axes[-1]] - 1) * 2
    if None in s:
        warnings.warn(
            "Passing an array containing `None` values to `s` is deprecated in NumPy 2.0 "
            "and will raise an error in a future version of NumPy. To use the default "
            "behaviour of the corresponding 1-D transform, pass the value matching the "
            "default for its `n` parameter. To use the default behaviour for every axis, "
            "the `s` argument can be omitted.",
            DeprecationWarning,
            stacklevel=4,
        )
    # -1: the input's length; None (deprecated): the default of each 1-D step
    s = [shape[ax] if n is not None and n == -1 else n for n, ax in zip(s, axes)]
    return s, axes


def _nd(a: Any, fft_type: str, s: Any, axes: Any, norm: str | None, name: str) -> Any:
    """An n-D transform: one primitive over distinct axes; repeated axes are transformed
    one after the other in NumPy's order."""
    a = _operand(a, name, fft_type)
    s, axes = _cook_nd(a, s, axes, fft_type == "irfft")
    norm = _norm(norm)
    if not axes:
        if fft_type in ("rfft", "irfft"):
            raise ValueError(f"numpy.fft.{name}: at least one axis must be transformed")
        return a
    if len(set(axes)) == len(axes):
        shape = helpers.shape(a)
        if fft_type == "irfft" and s[-1] is None:
            s[-1] = 2 * (shape[axes[-1]] - 1)
        s = [shape[ax] if n is None else n for n, ax in zip(s, axes)]
        return fft_p.bind(
            a, fft_type=fft_type, axes=tuple(axes), lengths=_check_lengths(s), norm=norm
        )
    if fft_type == "rfft":
        a = _one(a, "rfft", s[-1], axes[-1], norm, name)
        steps = [("fft", i) for i in range(len(axes) - 2, -1, -1)]
    elif fft_type == "irfft":
        steps = [("ifft", i) for i in range(len(axes) - 1)] + [("irfft", len(axes) - 1)]
    else:
        steps = [(fft_type, i) for i in range(len(axes) - 1, -1, -1)]
    for kind, i in steps:
        a = _one(a, kind, s[i], axes[i], norm, name)
    return a


# -- the transforms --------------------------------------------------------------------------


@implements(numpy.fft.fft)
def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None):
    """``numpy.fft.fft``: the 1-D discrete Fourier transform along ``axis``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import vmap
        >>> vmap(fft)(np.eye(2))
        array([[ 1.+0.j,  1.+0.j],
               [ 1.+0.j, -1.+0.j]])
    """
    _no_out("fft", out)
    return _one(a, "fft", n, axis, norm, "fft")


@implements(numpy.fft.ifft)
def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None):
    """``numpy.fft.ifft``: the inverse of :func:`fft`.

    Example:
        >>> import numpy as np
        >>> ifft(np.array([2.0, 0.0])).real
        array([1., 1.])
    """
    _no_out("ifft", out)
    return _one(a, "ifft", n, axis, norm, "ifft")


@implements(numpy.fft.rfft)
def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None):
    """``numpy.fft.rfft``: the ``n // 2 + 1`` non-negative frequencies of a real input.

    Example:
        >>> import numpy as np
        >>> rfft(np.array([1.0, 1.0, 1.0, 1.0]))
        array([4.+0.j, 0.+0.j, 0.+0.j])
    """
    _no_out("rfft", out)
    return _one(a, "rfft", n, axis, norm, "rfft")


@implements(numpy.fft.irfft)
def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None):
    """``numpy.fft.irfft``: the real signal of length ``n`` (default ``2 * (m - 1)``) whose
    half spectrum is ``a``.

    Example:
        >>> import numpy as np
        >>> irfft(np.array([4.0, 0.0, 0.0]))
        array([1., 1., 1., 1.])
    """
    _no_out("irfft", out)
    return _one(a, "irfft", n, axis, norm, "irfft")


@implements(numpy.fft.hfft)
def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None):
    """``numpy.fft.hfft``: the real spectrum of a signal with Hermitian symmetry, given by
    its first half ``a``.

    Example:
        >>> import numpy as np
        >>> hfft(np.array([1.0, 0.0, 0.0]))
        array([1., 1., 1., 1.])
    """
    _no_out("hfft", out)
    return _one(conj(_operand(a, "hfft", "hfft")), "irfft", n, axis, _swap(norm), "hfft")


@implements(numpy.fft.ihfft)
def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None):
    """``numpy.fft.ihfft``: the inverse of :func:`hfft` (a real input, a half spectrum).

    Example:
        >>> import numpy as np
        >>> ihfft(np.array([1.0, 1.0, 1.0, 1.0]))
        array([1.-0.j, 0.-0.j, 0.-0.j])
    """
    _no_out("ihfft", out)
    return conj(_one(a, "rfft", n, axis, _swap(norm), "ihfft"))


def _swap(norm: str | None) -> str:
    return SWAP_NORM[_norm(norm)]


@implements(numpy.fft.fftn)
def fftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None, out: Any = None):
    """``numpy.fft.fftn``: the n-D transform over ``axes`` (default all), cut or
    zero-padded to the lengths ``s``.

    Example:
        >>> import numpy as np
        >>> fftn(np.ones((2, 2))).real
        array([[4., 0.],
               [0., 0.]])
    """
    _no_out("fftn", out)
    return _nd(a, "fft", s, axes, norm, "fftn")


@implements(numpy.fft.ifftn)
def ifftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None, out: Any = None):
    """``numpy.fft.ifftn``: the inverse of :func:`fftn`.

    Example:
        >>> import numpy as np
        >>> ifftn(np.array([[4.0, 0.0], [0.0, 0.0]])).real
        array([[1., 1.],
               [1., 1.]])
    """
    _no_out("ifftn", out)
    return _nd(a, "ifft", s, axes, norm, "ifftn")


@implements(numpy.fft.rfftn)
def rfftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None, out: Any = None):
    """``numpy.fft.rfftn``: the n-D transform of a real input, half spectrum on the last
    axis of ``axes``.

    Example:
        >>> import numpy as np
        >>> rfftn(np.ones((2, 2))).shape
        (2, 2)
    """
    _no_out("rfftn", out)
    return _nd(a, "rfft", s, axes, norm, "rfftn")


@implements(numpy.fft.irfftn)
def irfftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None, out: Any = None):
    """``numpy.fft.irfftn``: the inverse of :func:`rfftn` (``s`` the output lengths).

    Example:
        >>> import numpy as np
        >>> irfftn(np.array([[4.0, 0.0], [0.0, 0.0]]))
        array([[1., 1.],
               [1., 1.]])
    """
    _no_out("irfftn", out)
    return _nd(a, "irfft", s, axes, norm, "irfftn")


@implements(numpy.fft.fft2)
def fft2(a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None, out: Any = None):
    """``numpy.fft.fft2``: :func:`fftn` over the last two axes.

    Example:
        >>> import numpy as np
        >>> fft2(np.ones((2, 2)))[0, 0]
        np.complex128(4+0j)
    """
    _no_out("fft2", out)
    return _nd(a, "fft", s, axes, norm, "fft2")


@implements(numpy.fft.ifft2)
def ifft2(a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None, out: Any = None):
    """``numpy.fft.ifft2``: :func:`ifftn` over the last two axes.

    Example:
        >>> import numpy as np
        >>> ifft2(np.ones((2, 2)))[0, 0]
        np.complex128(1+0j)
    """
    _no_out("ifft2", out)
    return _nd(a, "ifft", s, axes, norm, "ifft2")


@implements(numpy.fft.rfft2)
def rfft2(a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None, out: Any = None):
    """``numpy.fft.rfft2``: :func:`rfftn` over the last two axes.

    Example:
        >>> import numpy as np
        >>> rfft2(np.ones((2, 4))).shape
        (2, 3)
    """
    _no_out("rfft2", out)
    return _nd(a, "rfft", s, axes, norm, "rfft2")


@implements(numpy.fft.irfft2)
def irfft2(a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None, out: Any = None):
    """``numpy.fft.irfft2``: :func:`irfftn` over the last two axes.

    Example:
        >>> import numpy as np
        >>> irfft2(np.ones((2, 3))).shape
        (2, 4)
    """
    _no_out("irfft2", out)
    return _nd(a, "irfft", s, axes, norm, "irfft2")


# -- helpers -------------------------------------------------------------------------------


def _shifts(x: Any, axes: Any, sign: int) -> tuple[Any, Any]:
    shape = helpers.shape(x)
    if axes is None:
        axes = tuple(range(len(shape)))
    if isinstance(axes, (int, numpy.integer)):
        return sign * (shape[axes] // 2), int(axes)
    axes = tuple(int(ax) for ax in axes)
    return tuple(sign * (shape[ax] // 2) for ax in axes), axes


@implements(numpy.fft.fftshift)
def fftshift(x: Any, axes: Any = None) -> Any:
    """``numpy.fft.fftshift``: the zero frequency moved to the middle (a roll).

    Example:
        >>> import numpy as np
        >>> fftshift(np.arange(5.0))
        array([3., 4., 0., 1., 2.])
    """
    if not isinstance(x, Tracer):
        x = asarray(x)
    shift, axes = _shifts(x, axes, 1)
    return roll(x, shift, axes)


@implements(numpy.fft.ifftshift)
def ifftshift(x: Any, axes: Any = None) -> Any:
    """``numpy.fft.ifftshift``: the inverse of :func:`fftshift`.

    Example:
        >>> import numpy as np
        >>> ifftshift(np.array([3.0, 4.0, 0.0, 1.0, 2.0]))
        array([0., 1., 2., 3., 4.])
    """
    if not isinstance(x, Tracer):
        x = asarray(x)
    shift, axes = _shifts(x, axes, -1)
    return roll(x, shift, axes)


def fftfreq(n: int, d: Any = 1.0, device: Any = None) -> Any:
    """``numpy.fft.fftfreq``: the sample frequencies (a constant; a traced spacing ``d``
    stays traced).

    Example:
        >>> fftfreq(4)
        array([ 0.  ,  0.25, -0.5 , -0.25])
    """
    if isinstance(d, Tracer) or (is_array(d) and type(d) is not numpy.ndarray):  # on its device
        # NumPy's formula, op for op (so the traced value is the eager one to the bit)
        ints = numpy.fft.ifftshift(numpy.arange(n) - n // 2)  # 0, 1, ..., -2, -1
        return xp_of(d).asarray(ints) * (1.0 / (n * d))
    return numpy.fft.fftfreq(n, d, device=device)


def rfftfreq(n: int, d: Any = 1.0, device: Any = None) -> Any:
    """``numpy.fft.rfftfreq``: the non-negative sample frequencies (a constant; a traced
    spacing ``d`` stays traced).

    Example:
        >>> rfftfreq(4)
        array([0.  , 0.25, 0.5 ])
    """
    if isinstance(d, Tracer) or (is_array(d) and type(d) is not numpy.ndarray):  # on its device
        ints = numpy.arange(n // 2 + 1)  # NumPy's formula, op for op, as in fftfreq
        return xp_of(d).asarray(ints) * (1.0 / (n * d))
    return numpy.fft.rfftfreq(n, d, device=device)
