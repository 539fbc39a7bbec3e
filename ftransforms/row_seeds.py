"""NumPy's generators seeded inside a vmapped function, as the loop over the rows seeds
them.

NOTE [seeds of some rows]
-------------------------
``vmap(f)(xs)`` means ``[f(x) for x in xs]``.  A function that seeds NumPy's global
generator from its example (``np.random.seed(int(idx))``, per-example augmentation
that must be reproducible) then draws: in the loop each row starts from its own seed,
so rows with the same seed draw the same numbers.  Under ``vmap(randomness=
'different')`` every row drew its own number from the one global generator, one after
the other, so the second row of a seed drew the seed's second number (a silent
difference from the loop).  While a transform is active ``numpy.random.seed`` is
wrapped: a seed read from a row (a tracer) is read as ``int()``/``.tolist()`` reads it
(rows with other seeds split the batch, NOTE [splitting the batch] in
ftransforms/split.py), and the 'different' vmap levels active at the call are marked
as reseeded: every row of them starts from the same state, so the global draws that
follow give each row the same numbers (one draw serves the level, as under 'same'),
as the loop gives them.  ``numpy.random.default_rng`` of a seed read from a row takes
the row's number the same way (NumPy refused the tracer), and so does
``numpy.random.RandomState(seed)``, whose name is a subclass while a transform is active
(ftransforms/numpy/generator_out.py; ``isinstance`` against it answers for NumPy's class;
``SeedSequence`` is left alone).  Costs
nothing while no transform is active (installed with NumPy's global draws, in the same
patch: ``random._GLOBAL_WRAPPERS``).

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def noisy(x, seed):
    ...     np.random.seed(seed)
    ...     return x + np.random.normal()
    >>> xs, seeds = np.zeros(3), np.array([7, 8, 7])
    >>> out = ft.vmap(noisy, randomness="different")(xs, seeds)
    >>> bool(out[0] == out[2] != out[1])
    True
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

import numpy

from ftransforms.core.stack import current_stack
from ftransforms.core.tracer import Tracer
from ftransforms.host_random import note_global_move
from ftransforms.interpreters.batching import BatchInterpreter
from ftransforms.numpy.generator_out import SEED_READERS

#: The 'different' vmap levels (interpreters) whose rows reseeded NumPy's global generator.
RESEEDED: weakref.WeakSet = weakref.WeakSet()


def row_seed(seed: Any) -> Any:
    """A seed as the loop's row holds it: a traced one read as a Python int (or list), and
    so each traced entry of a list or tuple of them (``default_rng([base, idx])``, a
    ``SeedSequence``'s entropy)."""
    if isinstance(seed, Tracer):
        return seed.tolist() if seed.ndim else int(seed)
    if isinstance(seed, (list, tuple)):
        read = [row_seed(s) for s in seed]
        if any(r is not s for r, s in zip(read, seed)):
            return read
    return seed


_SEED = numpy.random.seed

#: What seeds NumPy's global generator once a seed is read: ``numpy.random.seed``, or what
#: ftransforms/random.py puts there (NOTE [a reseed in a split 'same' batch]).
GLOBAL_SEEDER = [_SEED]


@functools.wraps(_SEED)
def _seed(seed: Any = None) -> None:
    seed = row_seed(seed)
    for interp in current_stack():  # NOTE [seeds of some rows]
        if isinstance(interp, BatchInterpreter) and interp.randomness == "different":
            RESEEDED.add(interp)
    note_global_move()  # NOTE [NumPy's global generator reached as an object]
    GLOBAL_SEEDER[0](seed)


#: NumPy's seeding functions while a transform is active (merged into the global draws'
#: patch in ftransforms/random.py: one dict update for both); ``default_rng`` is patched by
#: ftransforms/numpy/generator_out.py, which reads a row's seed with ``row_seed``.
SEED_WRAPPERS = {"seed": _seed}
SEED_READERS.append(row_seed)
