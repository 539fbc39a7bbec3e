"""``ftransforms.image``: ``resize`` and ``scale_and_translate`` on tracers (``jax.image``).

Every method but ``'nearest'`` is a separable linear map: along each resized axis the
output is ``weights.T @ input``, with ``weights[j, i] = kernel(|s_i - j| / k)``
normalised to sum to one per output sample ``i``.  Sample ``i`` of the output sits at
input coordinate ``s_i = (i + 0.5) / scale - translation / scale - 0.5`` (pixel centres at
half-integers); ``k = max(1 / scale, 1)`` when ``antialias`` is set (the kernel widens
when shrinking, a low-pass filter), else 1; samples outside ``[-0.5, n - 0.5]`` get zero
weight.  The kernels: triangle (``'linear'``), Keys cubic with ``a = -0.5``
(``'cubic'``), Lanczos of radius 3 or 5, the area overlap (``'area'``) and OpenCV's cubic
with ``a = -0.75`` and repeated edges (``'cubic-pytorch'`` without antialiasing).  The
weights are built with ``fnp`` operations and contracted with ``fnp.tensordot``, so every
transform applies, to the image and (in ``scale_and_translate``) to ``scale`` and
``translation`` too.  ``'nearest'`` gathers input ``floor((i + 0.5) * n_in / n_out)``.

These are JAX's definitions: they differ from ``scipy.ndimage.zoom`` (which places the
corner samples on the corners) and, with ``antialias=True`` when shrinking, from
``torch.nn.functional.interpolate``'s default.

Example:
    >>> import numpy as np
    >>> from ftransforms.image import resize
    >>> resize(np.array([0.0, 1.0]), (4,), "linear").tolist()
    [0.0, 0.25, 0.75, 1.0]
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

import numpy

import ftransforms.numpy as fnp
from ftransforms.numpy.helpers import dtype_of

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]


class ResizeMethod(enum.Enum):
    """The resampling methods of :func:`resize` (``jax.image.ResizeMethod``); a string
    names one too (``'bilinear'`` and ``'trilinear'`` are ``LINEAR``, ``'bicubic'`` and
    ``'tricubic'`` are ``CUBIC``).

    Example:
        >>> ResizeMethod.from_string("bilinear")
        <ResizeMethod.LINEAR: 1>
    """

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        """The method that ``s`` names.

        Example:
            >>> ResizeMethod.from_string("lanczos3")
            <ResizeMethod.LANCZOS3: 2>
        """
        method = _NAMES.get(s)
        if method is None:
            raise ValueError(
                f"resize(method={s!r}): unknown method; expected one of "
                f"{', '.join(repr(n) for n in _NAMES)} or a ResizeMethod"
            )
        return method


_NAMES = {
    "nearest": ResizeMethod.NEAREST,
    "linear": ResizeMethod.LINEAR,
    "bilinear": ResizeMethod.LINEAR,
    "trilinear": ResizeMethod.LINEAR,
    "triangle": ResizeMethod.LINEAR,
    "lanczos3": ResizeMethod.LANCZOS3,
    "lanczos5": ResizeMethod.LANCZOS5,
    "cubic": ResizeMethod.CUBIC,
    "bicubic": ResizeMethod.CUBIC,
    "tricubic": ResizeMethod.CUBIC,
    "cubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
    "bicubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
    "area": ResizeMethod.AREA,
}


def _triangle(x: Any) -> Any:
    return fnp.maximum(0.0, 1.0 - x)


def _keys_cubic(x: Any, a: float = -0.5) -> Any:
    """Keys' cubic convolution kernel of parameter ``a`` at ``x >= 0``."""
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    return fnp.where(x >= 2.0, 0.0, fnp.where(x >= 1.0, far, near))


def _lanczos(radius: float) -> Callable[[Any], Any]:
    def kernel(x: Any) -> Any:
        # radius sin(pi x) sin(pi x / radius) / (pi x)^2, 1 at (and near) 0
        safe = fnp.where(x > 1e-3, x, 1.0)
        px = numpy.pi * safe
        value = radius * fnp.sin(px) * fnp.sin(px / radius) / (px * px)
        return fnp.where(x > radius, 0.0, fnp.where(x > 1e-3, value, 1.0))

    return kernel


#: method -> (kernel radius, kernel at |distance|); AREA's weights are overlaps instead.
_KERNELS: dict[ResizeMethod, tuple[int, Any]] = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, lambda x: _keys_cubic(x, -0.75)),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.0)),
    ResizeMethod.AREA: (1, None),
}

_TINY = 1000.0 * float(numpy.finfo(numpy.float32).eps)  # a column summing to less: zero


def _weights(
    n_in: int,
    n_out: int,
    scale: Any,
    translation: Any,
    method: ResizeMethod,
    antialias: bool,
    dtype: Any,
) -> Any:
    """The ``(n_in, n_out)`` matrix that resamples one axis (the module's docstring)."""
    if method is ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC  # (JAX's: its OpenCV kernel only without antialiasing)
    radius, kernel = _KERNELS[method]
    inv = 1.0 / scale
    edge = method is ResizeMethod.CUBIC_PYTORCH and not antialias
    out_idx = fnp.arange(n_out, dtype=dtype)
    sample = (out_idx + 0.5) * inv - translation * inv - 0.5
    pad = radius if edge else 0
    src = fnp.arange(-pad, n_in + pad, dtype=dtype)
    if method is ResizeMethod.AREA:
        left = out_idx * inv - translation * inv
        right = left + inv
        w = fnp.maximum(
            0.0,
            fnp.minimum(right[None, :], src[:, None] + 1.0)
            - fnp.maximum(left[None, :], src[:, None]),
        )
    else:
        widen = fnp.maximum(inv, 1.0) if antialias else 1.0
        w = kernel(fnp.abs(sample[None, :] - src[:, None]) / widen)
    if edge:  # the padded sources are the edge pixels repeated
        clamp = numpy.clip(numpy.arange(-pad, n_in + pad), 0, n_in - 1)
        onto = (clamp[None, :] == numpy.arange(n_in)[:, None]).astype(dtype)
        w = fnp.matmul(onto, w)
    total = fnp.sum(w, axis=0, keepdims=True)
    w = fnp.where(fnp.abs(total) > _TINY, w / fnp.where(total != 0, total, 1.0), 0.0)
    if not edge:
        inside = (sample >= -0.5) & (sample <= n_in - 0.5)
        w = fnp.where(inside[None, :], w, 0.0)
    return w.astype(dtype)


def _method(method: Any, where: str) -> ResizeMethod:
    if isinstance(method, ResizeMethod):
        return method
    if isinstance(method, str):
        try:
            return ResizeMethod.from_string(method)
        except ValueError:
            raise ValueError(
                f"{where}(method={method!r}): unknown method; expected one of "
                f"{', '.join(repr(n) for n in _NAMES)} or a ResizeMethod"
            ) from None
    raise TypeError(f"{where}: method must be a string or a ResizeMethod, got {method!r}")


def _shape(shape: Any, image: Any, where: str) -> tuple[int, ...]:
    try:
        out = tuple(_index(s) for s in shape)
    except TypeError:
        raise TypeError(f"{where}: shape must be a sequence of integers, got {shape!r}") from None
    if len(out) != fnp.ndim(image):
        raise ValueError(
            f"{where}: shape must have one entry per dimension of the image, got shape "
            f"{out} for an image of shape {fnp.shape(image)}"
        )
    if any(s < 0 for s in out):
        raise ValueError(f"{where}: shape must not be negative, got {out}")
    return out


def _index(s: Any) -> int:
    return int(s.__index__())


def _inexact(image: Any) -> Any:
    image = fnp.asarray(image)
    if not numpy.issubdtype(dtype_of(image), numpy.inexact):
        image = image.astype(numpy.result_type(dtype_of(image), numpy.float32))
    return image


def _apply(image: Any, shape: tuple, dims: Sequence[int], mats: list) -> Any:
    """Contract each resized axis ``dims[i]`` of ``image`` with ``mats[i]``, one axis at a
    time (a tensordot each: one einsum of every matrix would loop over all the axes at
    once)."""
    for d, w in zip(dims, mats):
        image = fnp.moveaxis(fnp.tensordot(image, w, axes=([d], [0])), -1, d)
    return image


def scale_and_translate(
    image: Any,
    shape: Sequence[int],
    spatial_dims: Sequence[int],
    scale: Any,
    translation: Any,
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: Any = None,
) -> Any:
    """Resample ``image`` to ``shape`` so that input location ``x`` (pixel centres at
    ``index + 0.5``) lands at ``x * scale + translation`` along each of ``spatial_dims``
    (``jax.image.scale_and_translate``); output samples that come from outside the input
    are zero.  Differentiable in ``image``, ``scale`` and ``translation``.  ``method``:
    any of :func:`resize`'s but ``'nearest'``; ``precision`` is accepted and ignored.

    Example:
        >>> import numpy as np
        >>> scale_and_translate(np.arange(4.0), (4,), (0,), np.array([1.0]),
        ...                     np.array([1.0]), "linear").tolist()
        [0.0, 0.0, 1.0, 2.0]
    """
    where = "scale_and_translate"
    image = _inexact(image)
    shape = _shape(shape, image, where)
    m = _method(method, where)
    if m is ResizeMethod.NEAREST:
        raise ValueError(
            f"{where}(method='nearest'): nearest-neighbour sampling has no scale and "
            "translation form; use resize(..., 'nearest') or a 'linear' method"
        )
    dims = [_index(d) % max(len(shape), 1) for d in spatial_dims]
    scale = fnp.asarray(scale)
    translation = fnp.asarray(translation)
    if fnp.shape(scale) != (len(dims),) or fnp.shape(translation) != (len(dims),):
        raise ValueError(
            f"{where}: scale and translation must have one entry per spatial dimension "
            f"({len(dims)}), got shapes {fnp.shape(scale)} and {fnp.shape(translation)}"
        )
    if not dims:
        return image
    dtype = dtype_of(image)
    st_dtype = numpy.result_type(dtype_of(scale), dtype_of(translation), numpy.float32)
    scale, translation = scale.astype(st_dtype), translation.astype(st_dtype)
    mats = [
        _weights(fnp.shape(image)[d], shape[d], scale[i], translation[i], m, antialias, st_dtype)
        for i, d in enumerate(dims)
    ]
    mats = [w.astype(dtype) for w in mats]
    return _apply(image, shape, dims, mats)


def _nearest(image: Any, shape: tuple) -> Any:
    for d, (n_in, n_out) in enumerate(zip(fnp.shape(image), shape)):
        if n_in == n_out:
            continue
        centres = (numpy.arange(n_out, dtype=numpy.float32) + 0.5) * n_in / n_out
        idx = numpy.floor(centres.astype(numpy.float32)).astype(numpy.intp)
        image = fnp.take(image, idx, axis=d)
    return image


def resize(
    image: Any,
    shape: Sequence[int],
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: Any = None,
) -> Any:
    """Resample ``image`` to ``shape`` (``jax.image.resize``), along every axis whose
    size changes: ``method`` is ``'nearest'``, ``'linear'`` (``'bilinear'``,
    ``'trilinear'``), ``'cubic'`` (``'bicubic'``, ``'tricubic'``; Keys' kernel),
    ``'lanczos3'``, ``'lanczos5'``, ``'cubic-pytorch'`` or ``'area'``.  With
    ``antialias`` (the default) shrinking widens the kernel, which averages instead of
    skipping samples; enlarging is unaffected.  ``precision`` is accepted and ignored.
    Integer images are computed in floating point (``'nearest'`` keeps the dtype).

    Example:
        >>> import numpy as np
        >>> spikes = np.array([0.0, 8.0, 0.0, 0.0, 8.0, 0.0])
        >>> resize(spikes, (2,), "linear", antialias=False).tolist()  # samples 1 and 4
        [8.0, 8.0]
        >>> np.round(resize(spikes, (2,), "linear"), 6).tolist()  # a wider triangle
        [3.0, 3.0]
        >>> resize(np.arange(4.0), (2, ), "nearest").tolist()
        [1.0, 3.0]
    """
    where = "resize"
    m = _method(method, where)
    if m is ResizeMethod.NEAREST:
        image = fnp.asarray(image)
        return _nearest(image, _shape(shape, image, where))
    image = _inexact(image)
    shape = _shape(shape, image, where)
    dims = [d for d in range(len(shape)) if fnp.shape(image)[d] != shape[d]]
    if not dims:
        return image
    dtype = dtype_of(image)
    wdtype = numpy.float64 if dtype in (numpy.float64, numpy.complex128) else numpy.float32
    mats = []
    for d in dims:
        n_in, n_out = fnp.shape(image)[d], shape[d]
        scale = 1.0 if n_out == 0 else n_out / n_in
        w = _weights(n_in, n_out, numpy.asarray(scale, wdtype), 0.0, m, antialias, wdtype)
        mats.append(numpy.asarray(w).astype(dtype))
    return _apply(image, shape, dims, mats)
