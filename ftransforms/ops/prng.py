"""The counter-based hash under JAX-style random keys: Threefry-2x32 (Salmon et al.,
"Parallel random numbers: as easy as 1, 2, 3", SC 2011), 20 rounds, as JAX uses it.

One primitive, ``threefry2x32(k1, k2, x1, x2) -> (y1, y2)``: elementwise over four
broadcastable ``uint32`` arrays (the two words of a key and of a counter), two ``uint32``
outputs.  It has no derivative (keys and counters are integers) and the elementwise
family's batching rule with several outputs (``batching_rules/elementwise.py``), so a
batch of keys under ``vmap`` is one call over the stacked keys.  The key functions that
sit on it (``split``, ``fold_in``, ``bits``, ``normal``, ...) are in
``ftransforms/random_keys.py``.

Example:
    >>> import numpy as np
    >>> import ftransforms  # declares the primitives
    >>> from ftransforms.ops.prng import threefry2x32_p
    >>> k = np.array([0, 42], np.uint32)
    >>> [int(y) for y in threefry2x32_p(k[0], k[1], np.uint32(0), np.uint32(0))]
    [1832780943, 270669613]
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.core.primitive import defop

#: The rotation distances of the two alternating groups of four rounds.
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
#: The key-schedule parity constant of Threefry.
_PARITY = 0x1BD11BDA


def _threefry2x32_impl(xp: Any, k1: Any, k2: Any, x1: Any, x2: Any) -> tuple[Any, Any]:
    u32 = numpy.uint32
    k1, k2, x1, x2 = (xp.asarray(a, dtype=u32) for a in (k1, k2, x1, x2))
    shape = numpy.broadcast_shapes(k1.shape, k2.shape, x1.shape, x2.shape)
    # Work on 1-d copies: uint32 arithmetic wraps silently on arrays (NumPy scalars
    # would warn about the overflow that the hash relies on).
    size = int(numpy.prod(shape))  # 1 for a scalar, 0 for an empty shape
    k1, k2, x1, x2 = (xp.broadcast_to(a, shape).reshape(size).copy() for a in (k1, k2, x1, x2))
    ks = (k1, k2, xp.bitwise_xor(xp.bitwise_xor(k1, k2), u32(_PARITY)))
    xp.add(x1, ks[0], out=x1)
    xp.add(x2, ks[1], out=x2)
    tmp = xp.empty_like(x2)
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            xp.add(x1, x2, out=x1)
            xp.left_shift(x2, u32(r), out=tmp)
            xp.right_shift(x2, u32(32 - r), out=x2)
            xp.bitwise_or(x2, tmp, out=x2)
            xp.bitwise_xor(x2, x1, out=x2)
        xp.add(x1, ks[(i + 1) % 3], out=x1)
        xp.add(x2, ks[(i + 2) % 3], out=x2)
        xp.add(x2, u32(i + 1), out=x2)
    return x1.reshape(shape), x2.reshape(shape)


threefry2x32_p = defop(
    "threefry2x32",
    _threefry2x32_impl,
    nondiff=True,
    multiple_results=True,
    doc=(
        "``threefry2x32(k1, k2, x1, x2) -> (y1, y2)``: the Threefry-2x32 hash of the counter "
        "words ``(x1, x2)`` under the key words ``(k1, k2)``, elementwise with broadcasting, "
        "all ``uint32`` (JAX's ``threefry2x32_p``)."
    ),
)
