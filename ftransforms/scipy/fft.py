"""``ftransforms.scipy.fft``: ``scipy.fft`` on tracers (like ``jax.scipy.fft``).

The discrete Fourier transforms are :mod:`ftransforms.numpy.fft`'s, with SciPy's
signatures (``overwrite_x`` and ``workers`` are accepted and have no effect; ``plan`` is
refused, as SciPy refuses it).  The discrete cosine transforms of types 2 and 3
(``dct``, ``idct``, ``dctn``, ``idctn``, every ``norm`` and ``orthogonalize``) are
computed through one FFT of the same length (Makhoul's reordering), so they are
differentiable and batchable like the FFT; types 1 and 4 raise a clear error.

Example:
    >>> import numpy as np
    >>> from ftransforms import grad
    >>> from ftransforms.scipy.fft import dct
    >>> dct(np.array([1.0, 2.0, 3.0]), norm="ortho").round(4).tolist()
    [3.4641, -1.4142, -0.0]
    >>> grad(lambda x: dct(x)[0])(np.array([1.0, 2.0, 3.0])).tolist()  # y[0] = 2 sum(x)
    [2.0, 2.0, 2.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ftransforms.numpy as fnp
from ftransforms.core.errors import UnsupportedOperationError

__all__ = [
    "dct",
    "dctn",
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "idct",
    "idctn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "next_fast_len",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

fftfreq = fnp.fft.fftfreq
rfftfreq = fnp.fft.rfftfreq
fftshift = fnp.fft.fftshift
ifftshift = fnp.fft.ifftshift


def _no_plan(plan: Any, where: str) -> None:
    if plan is not None:
        raise UnsupportedOperationError(
            f"ftransforms.scipy.fft.{where}(plan=...): precomputed plans are not supported "
            f"(scipy.fft does not support them either); leave plan=None"
        )


def _one_axis(name: str, doc: str):
    numpy_fn = getattr(fnp.fft, name)

    def fn(
        x: Any,
        n: int | None = None,
        axis: int = -1,
        norm: str | None = None,
        overwrite_x: bool = False,
        workers: int | None = None,
        *,
        plan: Any = None,
    ) -> Any:
        _no_plan(plan, name)
        return numpy_fn(x, n=n, axis=axis, norm=norm)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"``scipy.fft.{name}``: {doc} (``ftransforms.numpy.fft.{name}``).\n\nExample:\n"
        f"    >>> import numpy as np\n    >>> from ftransforms.scipy.fft import {name}\n"
        f"    >>> {name}(np.ones(4)).shape[-1] > 0\n    True\n"
    )
    return fn


def _many_axes(name: str, doc: str, default_axes: Any):
    numpy_fn = getattr(fnp.fft, name)

    def fn(
        x: Any,
        s: Sequence[int] | None = None,
        axes: Any = default_axes,
        norm: str | None = None,
        overwrite_x: bool = False,
        workers: int | None = None,
        *,
        plan: Any = None,
    ) -> Any:
        _no_plan(plan, name)
        return numpy_fn(x, s=s, axes=axes, norm=norm)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"``scipy.fft.{name}``: {doc} (``ftransforms.numpy.fft.{name}``).\n\nExample:\n"
        f"    >>> import numpy as np\n    >>> from ftransforms.scipy.fft import {name}\n"
        f"    >>> {name}(np.ones((4, 4))).ndim\n    2\n"
    )
    return fn


fft = _one_axis("fft", "the discrete Fourier transform along ``axis``")
ifft = _one_axis("ifft", "the inverse discrete Fourier transform along ``axis``")
rfft = _one_axis("rfft", "the discrete Fourier transform of a real input")
irfft = _one_axis("irfft", "the inverse of ``rfft``")
hfft = _one_axis("hfft", "the FFT of a Hermitian-symmetric signal")
ihfft = _one_axis("ihfft", "the inverse of ``hfft``")
fft2 = _many_axes("fft2", "the 2-D discrete Fourier transform", (-2, -1))
ifft2 = _many_axes("ifft2", "the inverse 2-D discrete Fourier transform", (-2, -1))
rfft2 = _many_axes("rfft2", "the 2-D FFT of a real input", (-2, -1))
irfft2 = _many_axes("irfft2", "the inverse of ``rfft2``", (-2, -1))
fftn = _many_axes("fftn", "the N-D discrete Fourier transform", None)
ifftn = _many_axes("ifftn", "the inverse N-D discrete Fourier transform", None)
rfftn = _many_axes("rfftn", "the N-D FFT of a real input", None)
irfftn = _many_axes("irfftn", "the inverse of ``rfftn``", None)


def next_fast_len(target: int, real: bool = False) -> int:
    """``scipy.fft.next_fast_len``: the smallest 5-smooth length (``2**a 3**b 5**c``) at
    least ``target`` (SciPy's for ``real=True``; a length to pad to, not a traced value).

    Example:
        >>> from ftransforms.scipy.fft import next_fast_len
        >>> next_fast_len(7), next_fast_len(11)
        (8, 12)
    """
    target = int(target)
    if target < 1:
        raise ValueError(f"next_fast_len(target): target must be positive, got {target}")
    best = None
    p5 = 1
    while p5 < 2 * target:
        p35 = p5
        while p35 < 2 * target:
            n = p35
            while n < target:
                n *= 2
            best = n if best is None else min(best, n)
            p35 *= 3
        p5 *= 5
    return best


# -- discrete cosine transforms -----------------------------------------------------------


def _fit(x: Any, n: int | None) -> Any:
    """``x`` (transform axis last) cut or zero-padded to length ``n``, as SciPy does."""
    if n is None or n == x.shape[-1]:
        return x
    if n < 1:
        raise ValueError(f"invalid number of data points ({n}) specified")
    if n < x.shape[-1]:
        return x[..., :n]
    return fnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, n - x.shape[-1])])


def _phases(n: int, sign: float, like: Any) -> Any:
    k = fnp.arange(n, dtype=fnp.float64)
    w = fnp.exp(sign * 1j * math.pi * k / (2 * n))
    return w.astype(fnp.result_type(like.dtype, fnp.complex64))


def _dct2(x: Any) -> Any:
    """Unnormalised DCT-II along the last axis, ``2 sum_n x[n] cos(pi k (2n + 1) / 2N)``:
    the FFT of the even samples followed by the odd ones reversed (Makhoul, 1980)."""
    n = x.shape[-1]
    v = fnp.concatenate([x[..., ::2], x[..., 1::2][..., ::-1]], axis=-1)
    return 2.0 * fnp.real(_phases(n, -1.0, x) * fnp.fft.fft(v, axis=-1))


def _dct3(x: Any) -> Any:
    """Unnormalised DCT-III along the last axis, ``x[0] + 2 sum_{n>0} x[n] cos(pi (2k + 1)
    n / 2N)``: ``2N`` times the inverse of ``_dct2``, through one inverse FFT."""
    n = x.shape[-1]
    flipped = fnp.concatenate([fnp.zeros_like(x[..., :1]), x[..., :0:-1]], axis=-1)
    v = fnp.real(fnp.fft.ifft(_phases(n, 1.0, x) * (x - 1j * flipped), axis=-1)) * n
    # v holds the even outputs, then the odd ones reversed: interleave them back
    half = (n + 1) // 2
    even, odd = v[..., :half], v[..., half:][..., ::-1]
    pairs = fnp.stack([even[..., : n // 2], odd], axis=-1)
    merged = fnp.reshape(pairs, pairs.shape[:-2] + (2 * (n // 2),))
    return merged if n % 2 == 0 else fnp.concatenate([merged, even[..., -1:]], axis=-1)


def _check_type(type: int, where: str) -> None:
    if type not in (2, 3):
        raise UnsupportedOperationError(
            f"{where}(x): type={type} is not available: only the DCT types 2 and 3 are "
            f"supported under the transforms (as in jax.scipy.fft); use type=2 or type=3"
        )


def _dct_last(x: Any, type: int, norm: str | None, orthogonalize: bool | None) -> Any:
    """SciPy's ``dct(x, type, norm=norm)`` along the last axis."""
    n = x.shape[-1]
    orth = norm == "ortho" if orthogonalize is None else orthogonalize
    if x.dtype.kind in "biu":
        x = x.astype(fnp.float64)
    if type == 2:
        y = _dct2(x)
        if norm == "ortho":
            y = y * math.sqrt(1.0 / (2 * n))
        elif norm == "forward":
            y = y / (2 * n)
        if orth:
            y = fnp.concatenate([y[..., :1] / math.sqrt(2.0), y[..., 1:]], axis=-1)
        return y
    if orth:
        x = fnp.concatenate([x[..., :1] * math.sqrt(2.0), x[..., 1:]], axis=-1)
    y = _dct3(x)
    if norm == "ortho":
        y = y * math.sqrt(1.0 / (2 * n))
    elif norm == "forward":
        y = y / (2 * n)
    return y


_INVERSE_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": None}


def _check_norm(norm: str | None, where: str) -> None:
    if norm not in _INVERSE_NORM:
        raise ValueError(
            f"ftransforms.scipy.fft.{where}: invalid norm {norm!r}; "
            f"use None, 'backward', 'ortho' or 'forward'"
        )


def _along(x: Any, axis: int, fn) -> Any:
    x = fnp.asarray(x)
    return fnp.moveaxis(fn(fnp.moveaxis(x, axis, -1)), -1, axis)


def dct(
    x: Any,
    type: int = 2,
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    overwrite_x: bool = False,
    workers: int | None = None,
    orthogonalize: bool | None = None,
) -> Any:
    """``scipy.fft.dct``: the discrete cosine transform (types 2 and 3) along ``axis``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.fft import dct
        >>> dct(np.array([1.0, 2.0, 3.0, 4.0])).round(4).tolist()
        [20.0, -6.3086, 0.0, -0.4483]
    """
    _check_type(type, "dct")
    _check_norm(norm, "dct")
    return _along(x, axis, lambda v: _dct_last(_fit(v, n), type, norm, orthogonalize))


def idct(
    x: Any,
    type: int = 2,
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    overwrite_x: bool = False,
    workers: int | None = None,
    orthogonalize: bool | None = None,
) -> Any:
    """``scipy.fft.idct``: the inverse of ``dct`` of the same ``type`` and ``norm``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.fft import dct, idct
        >>> idct(dct(np.array([1.0, 2.0, 3.0]))).round(6).tolist()
        [1.0, 2.0, 3.0]
    """
    _check_type(type, "idct")
    _check_norm(norm, "idct")
    other = 5 - type  # the inverse of type 2 is type 3 and back, with the inverse norm
    return _along(
        x, axis, lambda v: _dct_last(_fit(v, n), other, _INVERSE_NORM[norm], orthogonalize)
    )


def _axes_and_sizes(x: Any, s: Any, axes: Any) -> list[tuple[int, int | None]]:
    ndim = fnp.ndim(x)
    if axes is None:
        axes = list(range(ndim)) if s is None else list(range(ndim - len(s), ndim))
    elif isinstance(axes, int):
        axes = [axes]
    sizes = [None] * len(axes) if s is None else list(s) if not isinstance(s, int) else [s]
    return list(zip(axes, sizes))


def dctn(
    x: Any,
    type: int = 2,
    s: Any = None,
    axes: Any = None,
    norm: str | None = None,
    overwrite_x: bool = False,
    workers: int | None = None,
    *,
    orthogonalize: bool | None = None,
) -> Any:
    """``scipy.fft.dctn``: ``dct`` along each of ``axes`` (every axis by default).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.fft import dctn
        >>> float(dctn(np.ones((2, 3)))[0, 0])  # 2 * 2 * sum
        24.0
    """
    for axis, n in _axes_and_sizes(x, s, axes):
        x = dct(x, type, n, axis, norm, orthogonalize=orthogonalize)
    return x


def idctn(
    x: Any,
    type: int = 2,
    s: Any = None,
    axes: Any = None,
    norm: str | None = None,
    overwrite_x: bool = False,
    workers: int | None = None,
    orthogonalize: bool | None = None,
) -> Any:
    """``scipy.fft.idctn``: ``idct`` along each of ``axes``, the inverse of ``dctn``.

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.fft import dctn, idctn
        >>> (idctn(dctn(np.eye(2))).round(6) + 0.0).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    for axis, n in _axes_and_sizes(x, s, axes):
        x = idct(x, type, n, axis, norm, orthogonalize=orthogonalize)
    return x
