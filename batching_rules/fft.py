"""FFT: the ``fft`` primitive transforms a static set of axes of one operand, so the batch
axis only has to stay out of them.  It stays where it is (no data moves): the transformed
axes are renumbered around it, and the output is batched at the same axis."""

from __future__ import annotations

from batching_rules.helpers import physical_axis
from ftransforms.core.primitive import register_batch_rule
from ftransforms.ops import fft as ops


def fft(prim, args, x_bdims, axis_size, *, axes, **params):
    """Batch ``fft(x, axes=...)``: the logical ``axes`` become physical axes of ``x``."""
    (x,), (x_bdim,) = args, x_bdims
    if x_bdim is None:
        return prim.bind(x, axes=axes, **params), None
    return prim.bind(x, axes=tuple(physical_axis(a, x_bdim) for a in axes), **params), x_bdim


register_batch_rule(ops.fft_p, fft)
