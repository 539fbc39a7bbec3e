"""Op-database entries for the draw primitives of ``ftransforms/random.py`` (to be wired
into the registry checks by ``tests/op_db.py``'s owner).

The draws take no array operands (only settings: the generator, the shape, the dtype), so
the generic forward/derivative/vmap tests do not apply: the distributions, the vmap
randomness modes and the derivatives through the parameters are checked in
``tests/test_random.py``, which also asserts that this list covers every draw primitive.
"""

from __future__ import annotations

_NOTE = "random: sampled, checked in test_random.py"

ENTRIES: list[dict] = [
    {"name": name, "note": _NOTE}
    for name in ("random_normal", "random_uniform", "random_integers", "random_permutation")
]

NAMES = sorted(e["name"] for e in ENTRIES)
