"""The FFT primitive: one ``fft`` op for the whole ``numpy.fft`` family, like ``jax.lax.fft``.

``fft_p.bind(x, fft_type=..., axes=..., lengths=..., norm=...)`` is NumPy's
``{fft,ifft,rfft,irfft}n(x, s=lengths, axes=axes, norm=norm)`` for distinct non-negative
``axes``: each transformed axis of ``x`` is first cut or zero-padded to ``lengths`` (for
``irfft``: the output lengths, the last axis to ``lengths[-1] // 2 + 1``).  The front ends
in ``ftransforms.numpy.fft`` (``fft2``, ``hfft``, ``fftshift``, ...) are built on it.

Every type is linear in ``x``, so the op declares a transpose only (NOTE [fft transposes]);
the batching rule renumbers ``axes`` around the batch axis (``batching_rules/fft.py``).
"""

from __future__ import annotations

import numpy

from ftransforms import lax
from ftransforms.core.primitive import defop

#: The transform types: complex forward/inverse, real-to-half-complex and its inverse.
FFT_TYPES = ("fft", "ifft", "rfft", "irfft")
#: NumPy's ``norm`` values, and each one's partner for the transform in the other direction.
SWAP_NORM = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _fft_impl(xp, x, *, fft_type, axes, lengths, norm):
    if len(axes) == 1:  # the 1-D functions have less overhead than the n-D ones
        return getattr(xp.fft, fft_type)(x, n=lengths[0], axis=axes[0], norm=norm)
    return getattr(xp.fft, fft_type + "n")(x, s=lengths, axes=axes, norm=norm)


# NOTE [fft transposes]: cotangents pair by <a, b> = Re(sum a * b), without conjugation
# (NOTE [complex derivatives] in ops/elementwise.py), so a transpose is the plain matrix
# transpose.  With F the unnormalized DFT matrix (symmetric) and P the cut-or-pad of the
# input to ``lengths`` (P^T pads or cuts back to the input's shape), per type:
#
# * fft = c F P and ifft = c conj(F) P (c the norm's scale) are symmetric up to P: the
#   transpose is the same transform with the same norm, then P^T.
# * rfft = the first n // 2 + 1 rows of c F P on a real input: the transpose zero-pads the
#   cotangent to n (the fft's own padding does it), applies c F and keeps the real part.
# * irfft is real-linear, not complex-linear (it reads the Hermitian extension of z):
#   y_j = c (Re z_0 + 2 sum_{0<k<n/2} Re(z_k w^jk) [+ Re(z_{n/2} (-1)^j) for even n]), with
#   w = exp(2 pi i / n).  Its transpose is conj(m * c rfft(y_bar)), m the weights 1, 2, ...,
#   2 (1 last for even n); c rfft is rfft with the swapped norm.  Along several axes
#   irfftn = irfft(last) o ifft(others), and the transposes compose to the same formula
#   with rfftn (JAX's ``_irfft_transpose`` is the same map).
#
# A real input (fft of a real array, irfft of a real "half spectrum") keeps the real part.


def _resize(x, axes, shape):
    """Cut or zero-pad ``x`` along ``axes`` to the sizes they have in ``shape``."""
    cur = lax.shape(x)
    if all(cur[a] == shape[a] for a in axes):
        return x
    cut = [slice(None)] * len(cur)
    widths = [(0, 0)] * len(cur)
    for a in axes:
        if cur[a] > shape[a]:
            cut[a] = slice(0, shape[a])
        else:
            widths[a] = (0, shape[a] - cur[a])
    if any(s != slice(None) for s in cut):
        x = x[tuple(cut)]
    if any(w != (0, 0) for w in widths):
        x = lax.pad_zeros(x, widths)
    return x


def _irfft_weights(z, axis, n):
    """The weights ``1, 2, ..., 2[, 1]`` of the half spectrum along ``axis`` (a constant on
    ``z``'s backend, in ``z``'s real precision, shaped to broadcast against ``z``)."""
    m = n // 2 + 1
    w = numpy.full(m, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    w = w.reshape((m,) + (1,) * (lax.ndim(z) - axis - 1))
    return lax.xp_of(z).asarray(w.astype(numpy.finfo(z.dtype).dtype))


def _fft_transpose(y_bar, x, *, fft_type, axes, lengths, norm):
    if fft_type in ("fft", "ifft"):
        x_bar = fft_p.bind(y_bar, fft_type=fft_type, axes=axes, lengths=lengths, norm=norm)
    elif fft_type == "rfft":
        x_bar = lax.real(fft_p.bind(y_bar, fft_type="fft", axes=axes, lengths=lengths, norm=norm))
    else:
        z = fft_p.bind(y_bar, fft_type="rfft", axes=axes, lengths=lengths, norm=SWAP_NORM[norm])
        x_bar = lax.conj_or_self(z * _irfft_weights(z, axes[-1], lengths[-1]))
    x_bar = _resize(x_bar, axes, lax.shape(x))
    if x.dtype.kind != "c" and x_bar.dtype.kind == "c":
        x_bar = lax.real(x_bar)  # NOTE [complex derivatives]: a real input keeps Re
    return x_bar


fft_p = defop(
    "fft",
    _fft_impl,
    transpose=_fft_transpose,
    doc=(
        "``numpy.fft.<fft_type>n(x, s=lengths, axes=axes, norm=norm)``; ``fft_type`` one of "
        "``fft``, ``ifft``, ``rfft``, ``irfft``, ``axes`` distinct non-negative ints."
    ),
)

__all__ = ["FFT_TYPES", "SWAP_NORM", "fft_p"]
