"""``ftransforms.scipy.fft``: ``scipy.fft``'s transforms with SciPy's signatures, on
``ftransforms.numpy.fft`` (so every transform differentiates and batches them), and the
discrete cosine transforms ``dct``/``idct``/``dctn``/``idctn`` of types 2 and 3 (as
``jax.scipy.fft`` has them), written as products with the cosine matrix.

SciPy's ``overwrite_x``, ``workers`` and ``plan`` are accepted and change nothing (they
are performance settings); SciPy's own ``scipy.fft.fft(t)`` answers with these under a
transform (NOTE [SciPy's own names under the transforms]).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> power = lambda x: np.sum(np.abs(fft(x)) ** 2)  # Parseval: 4 * sum(x**2)
    >>> ft.grad(power)(np.array([1.0, 0.0, 2.0, 0.0]))
    array([ 8.,  0., 16.,  0.])
"""

from __future__ import annotations

from typing import Any

import numpy

import ftransforms.numpy as fnp
import ftransforms.numpy.fft as _fft
from ftransforms.core.errors import UnsupportedOperationError
from ftransforms.numpy.helpers import dtype_of, normalize_axis
from ftransforms.numpy.ufuncs import float_input

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


def _one_axis(numpy_name: str, doc_example: str):
    numpy_fn = getattr(_fft, numpy_name)

    def transform(
        x: Any,
        n: int | None = None,
        axis: int = -1,
        norm: str | None = None,
        overwrite_x: bool = False,
        workers: int | None = None,
        *,
        plan: Any = None,
    ) -> Any:
        return numpy_fn(x, n=n, axis=axis, norm=norm)

    transform.__name__ = transform.__qualname__ = numpy_name
    transform.__doc__ = (
        f"``scipy.fft.{numpy_name}``: ``numpy.fft.{numpy_name}`` with SciPy's signature "
        f"(``overwrite_x``, ``workers`` and ``plan`` change nothing).\n\n"
        f"    Example:\n        >>> import numpy as np\n        >>> {doc_example}\n"
    )
    return transform


def _many_axes(numpy_name: str, default_axes: Any, doc_example: str):
    numpy_fn = getattr(_fft, numpy_name)

    def transform(
        x: Any,
        s: Any = None,
        axes: Any = default_axes,
        norm: str | None = None,
        overwrite_x: bool = False,
        workers: int | None = None,
        *,
        plan: Any = None,
    ) -> Any:
        return numpy_fn(x, s=s, axes=axes, norm=norm)

    transform.__name__ = transform.__qualname__ = numpy_name
    transform.__doc__ = (
        f"``scipy.fft.{numpy_name}``: ``numpy.fft.{numpy_name}`` with SciPy's signature "
        f"(``overwrite_x``, ``workers`` and ``plan`` change nothing).\n\n"
        f"    Example:\n        >>> import numpy as np\n        >>> {doc_example}\n"
    )
    return transform


fft = _one_axis("fft", "fft(np.array([1.0, 1.0])).tolist()\n        [(2+0j), 0j]")
ifft = _one_axis("ifft", "ifft(np.array([2.0, 0.0])).tolist()\n        [(1+0j), (1+0j)]")
rfft = _one_axis("rfft", "rfft(np.array([1.0, 1.0])).tolist()\n        [(2+0j), 0j]")
irfft = _one_axis("irfft", "irfft(np.array([2.0, 0.0])).tolist()\n        [1.0, 1.0]")
hfft = _one_axis("hfft", "hfft(np.array([1.0, 0.0])).tolist()\n        [1.0, 1.0]")
ihfft = _one_axis("ihfft", "ihfft(np.array([2.0, 0.0])).tolist()\n        [(1+0j), (1-0j)]")
fft2 = _many_axes("fft2", (-2, -1), "fft2(np.ones((2, 2)))[0, 0].real.item()\n        4.0")
ifft2 = _many_axes("ifft2", (-2, -1), "ifft2(np.ones((2, 2)))[0, 0].real.item()\n        1.0")
rfft2 = _many_axes("rfft2", (-2, -1), "rfft2(np.ones((2, 2))).shape\n        (2, 2)")
irfft2 = _many_axes("irfft2", (-2, -1), "irfft2(np.ones((2, 2))).shape\n        (2, 2)")
fftn = _many_axes("fftn", None, "fftn(np.ones((2, 2)))[0, 0].real.item()\n        4.0")
ifftn = _many_axes("ifftn", None, "ifftn(np.ones((2, 2)))[0, 0].real.item()\n        1.0")
rfftn = _many_axes("rfftn", None, "rfftn(np.ones((2, 2))).shape\n        (2, 2)")
irfftn = _many_axes("irfftn", None, "irfftn(np.ones((2, 2))).shape\n        (2, 2)")


def fftfreq(n: int, d: Any = 1.0, *, xp: Any = None, device: Any = None) -> Any:
    """``scipy.fft.fftfreq``: the sample frequencies of an ``n``-point FFT.

    Example:
        >>> fftfreq(4).tolist()
        [0.0, 0.25, -0.5, -0.25]
    """
    return _fft.fftfreq(n, d)


def rfftfreq(n: int, d: Any = 1.0, *, xp: Any = None, device: Any = None) -> Any:
    """``scipy.fft.rfftfreq``: the sample frequencies of an ``n``-point real FFT.

    Example:
        >>> rfftfreq(4).tolist()
        [0.0, 0.25, 0.5]
    """
    return _fft.rfftfreq(n, d)


def fftshift(x: Any, axes: Any = None) -> Any:
    """``scipy.fft.fftshift``: the zero frequency moved to the centre.

    Example:
        >>> import numpy as np
        >>> fftshift(np.arange(4)).tolist()
        [2, 3, 0, 1]
    """
    return _fft.fftshift(x, axes=axes)


def ifftshift(x: Any, axes: Any = None) -> Any:
    """``scipy.fft.ifftshift``: the inverse of :func:`fftshift`.

    Example:
        >>> import numpy as np
        >>> ifftshift(np.array([2, 3, 0, 1])).tolist()
        [0, 1, 2, 3]
    """
    return _fft.ifftshift(x, axes=axes)


def next_fast_len(target: int, real: bool = False) -> int:
    """``scipy.fft.next_fast_len``: the smallest 5-smooth length (``2**a 3**b 5**c``) at
    least ``target`` (SciPy's for ``real=True``; a length to pad to, not a traced value).

    Example:
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


# -- discrete cosine transforms ------------------------------------------------------------------


def _dct_matrix(n: int, kind: int, norm: str | None, orthogonalize: bool) -> numpy.ndarray:
    """The ``n x n`` matrix of SciPy's DCT of ``kind`` 2 or 3 with ``norm``."""
    k = numpy.arange(n)[:, None]
    j = numpy.arange(n)[None, :]
    if kind == 2:
        m = 2.0 * numpy.cos(numpy.pi * k * (2 * j + 1) / (2 * n))
        if orthogonalize:
            m[0] = m[0] / numpy.sqrt(2.0)
    else:
        m = 2.0 * numpy.cos(numpy.pi * (2 * k + 1) * j / (2 * n))
        m[:, 0] = 1.0
        if orthogonalize:
            m[:, 0] = m[:, 0] * numpy.sqrt(2.0)
    if norm == "ortho":
        m = m * numpy.sqrt(1.0 / (2 * n))
    elif norm == "forward":
        m = m / (2 * n)
    return m


def _check_dct(where: str, kind: int, norm: Any) -> int:
    if kind not in (2, 3):
        raise UnsupportedOperationError(
            f"{where}: type={kind} is not available (types 2 and 3 are, as in jax.scipy.fft); "
            f"call scipy.fft outside the transform for the others"
        )
    if norm not in (None, "backward", "ortho", "forward"):
        raise ValueError(f"{where}: norm must be None, 'backward', 'ortho' or 'forward'")
    return kind


def _apply_dct(x: Any, kind: int, n: int | None, axis: int, norm: Any, orth: Any) -> Any:
    x = float_input(x if hasattr(x, "dtype") else fnp.asarray(x), None)
    axis = normalize_axis(axis, fnp.ndim(x))
    x = fnp.moveaxis(x, axis, -1)
    length = fnp.shape(x)[-1]
    if n is not None and n != length:  # SciPy zero-pads or truncates to n
        if n < length:
            x = x[..., :n]
        else:
            pad = [(0, 0)] * (fnp.ndim(x) - 1) + [(0, n - length)]
            x = fnp.pad(x, pad)
        length = n
    norm = None if norm == "backward" else norm
    orth = (norm == "ortho") if orth is None else bool(orth)
    m = _dct_matrix(length, kind, norm, orth).astype(numpy.finfo(dtype_of(x)).dtype)
    out = fnp.matmul(x, m.T)
    return fnp.moveaxis(out, -1, axis)


def dct(
    x: Any,
    type: int = 2,  # noqa: A002  (SciPy's name)
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    overwrite_x: bool = False,
    workers: int | None = None,
    orthogonalize: bool | None = None,
) -> Any:
    """``scipy.fft.dct`` of type 2 or 3 along ``axis`` (SciPy's scaling for every
    ``norm``; ``orthogonalize`` as SciPy's).

    Example:
        >>> import numpy as np
        >>> dct(np.array([1.0, 1.0])).round(12).tolist()  # 2 * sum(x), then 0
        [4.0, 0.0]
    """
    _check_dct("dct(x)", type, norm)
    return _apply_dct(x, type, n, axis, norm, orthogonalize)


def idct(
    x: Any,
    type: int = 2,  # noqa: A002
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    overwrite_x: bool = False,
    workers: int | None = None,
    orthogonalize: bool | None = None,
) -> Any:
    """``scipy.fft.idct``: the inverse of :func:`dct` of the same ``type`` and ``norm``
    (the DCT of the other type, scaled).

    Example:
        >>> import numpy as np
        >>> x = np.array([1.0, 2.0, 4.0])
        >>> np.allclose(idct(dct(x)), x)
        True
    """
    _check_dct("idct(x)", type, norm)
    inverse_norm = {None: "forward", "backward": "forward", "forward": None, "ortho": "ortho"}
    return _apply_dct(x, 5 - type, n, axis, inverse_norm[norm], orthogonalize)


def _axes_and_sizes(x: Any, s: Any, axes: Any) -> list:
    nd = fnp.ndim(x)
    if axes is None:
        axes = list(range(nd)) if s is None else list(range(nd - len(s), nd))
    elif isinstance(axes, int):
        axes = [axes]
    sizes = [None] * len(axes) if s is None else list(s)
    if len(sizes) != len(axes):
        raise ValueError("dctn(x, s, axes): s and axes must have the same length")
    return list(zip(axes, sizes))


def dctn(
    x: Any,
    type: int = 2,  # noqa: A002
    s: Any = None,
    axes: Any = None,
    norm: str | None = None,
    overwrite_x: bool = False,
    workers: int | None = None,
    *,
    orthogonalize: bool | None = None,
) -> Any:
    """``scipy.fft.dctn``: :func:`dct` along each of ``axes`` (every axis by default).

    Example:
        >>> import numpy as np
        >>> dctn(np.ones((2, 2))).round(12).tolist()
        [[16.0, 0.0], [0.0, 0.0]]
    """
    _check_dct("dctn(x)", type, norm)
    for axis, size in _axes_and_sizes(x, s, axes):
        x = _apply_dct(x, type, size, axis, norm, orthogonalize)
    return x


def idctn(
    x: Any,
    type: int = 2,  # noqa: A002
    s: Any = None,
    axes: Any = None,
    norm: str | None = None,
    overwrite_x: bool = False,
    workers: int | None = None,
    orthogonalize: bool | None = None,
) -> Any:
    """``scipy.fft.idctn``: :func:`idct` along each of ``axes``.

    Example:
        >>> import numpy as np
        >>> x = np.arange(6.0).reshape(2, 3)
        >>> np.allclose(idctn(dctn(x)), x)
        True
    """
    for axis, size in _axes_and_sizes(x, s, axes):
        x = idct(x, type, size, axis, norm, orthogonalize=orthogonalize)
    return x
