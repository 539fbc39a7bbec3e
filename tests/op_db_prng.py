"""Op-database entry of the Threefry-2x32 hash under JAX-style random keys
(``ftransforms/ops/prng.py``): four ``uint32`` operands with broadcasting, two ``uint32``
outputs (stacked on a last axis here), no derivative.  The reference is JAX's own
``threefry2x32_p``, so the forward sweep checks the hash bit for bit.

Format: ``tests/op_db.py``.
"""

from __future__ import annotations

import jax.extend.random as jrandom
import numpy as np

from ftransforms.core.primitive import REGISTRY
from tests.op_db_base import JNP, S, add

F64 = (np.dtype(np.float64),)


def _threefry(m, k1, k2, x1, x2):
    if m is JNP:
        y1, y2 = jrandom.threefry2x32_p.bind(*m.broadcast_arrays(k1, k2, x1, x2))
        return m.stack([y1, y2], axis=-1)
    y1, y2 = REGISTRY["threefry2x32"].bind(k1, k2, x1, x2)
    return m.stack([y1, y2], axis=-1)


def _words(d, shape):
    return np.asarray(d.rng.integers(0, 2**32, shape), dtype=np.uint32)


def _threefry_samples(d):
    return [
        S("scalar_key_3_counters", _words(d, ()), _words(d, ()), _words(d, (3,)), _words(d, (3,))),
        S("2x3_all", *(_words(d, (2, 3)) for _ in range(4))),
        S(
            "keys_2x1_counters_3",
            _words(d, (2, 1)),
            _words(d, (2, 1)),
            _words(d, (3,)),
            _words(d, (3,)),
        ),
    ]


add(
    "threefry2x32",
    _threefry,
    _threefry_samples,
    dtypes=F64,
    nondiff=True,
    ref="jax",
    via_numpy=False,
)
