"""``print`` under the transforms writes its line once the line is whole.

NOTE [a printed line is written whole]
--------------------------------------
``print("x =", x)`` writes ``"x ="``, then the separator, then ``str(x)``, one argument at
a time.  Under ``vmap`` ``str(x)`` of rows whose texts differ splits the batch (NOTE
[splitting the batch] in split.py): the run is abandoned after ``"x = "`` was written,
and each group prints its line again, so the output began ``x = x = 0.0``.  While a
transform is active ``builtins.print`` is a wrapper that makes every argument's text
first and hands ``print`` the joined line, so a split (or any error) in an argument's
``str`` writes nothing; the output is the same text otherwise.  The texts are made as
``str()`` of a tracer makes its own (NOTE [the text of a tracer over a batch] in
core/tracer.py), so a batched value inside a printed list, tuple, dict or object
(``print([x[0], x[1]])``, whose ``str`` is its elements' ``repr``) is written as its row's
value, as the loop prints it, not as the whole batch.  It is swapped in with
NumPy's patched functions (``core/mutation.py``'s ``PATCHED_WHILE_ACTIVE``) through a
stand-in namespace that keeps the ``print`` found there, so a ``print`` the user
installed in ``builtins`` is the one that writes, and is put back.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> _ = ft.vmap(lambda x: print("x =", x, [x * 2]) or x)(np.array([0.5, 1.5]))
    x = 0.5 [np.float64(1.0)]
    x = 1.5 [np.float64(3.0)]
"""

from __future__ import annotations

import builtins
import functools
from typing import Any

from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.core.tracer import ROW_TEXT

#: The ``print`` that writes: the one in ``builtins`` when the transforms were entered.
_WRITER = [builtins.print]


@functools.wraps(builtins.print)
def _print(*args: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: Any = False):
    """``print`` with its arguments' texts joined first (NOTE [a printed line is written
    whole]); odd arguments (a ``sep`` that is no string) reach ``print`` as they are."""
    if args and (sep is None or type(sep) is str):
        if ROW_TEXT.on:
            texts = [str(a) for a in args]
        else:
            ROW_TEXT.on = True
            try:
                texts = [str(a) for a in args]
            finally:
                ROW_TEXT.on = False
        args = ((" " if sep is None else sep).join(texts),)
    return _WRITER[0](*args, sep=sep, end=end, file=file, flush=flush)


class _Builtins:
    """``builtins`` as ``PATCHED_WHILE_ACTIVE`` updates it: :func:`_print` in while a
    transform is active, and the ``print`` found there on entry back after."""

    def update(self, names: dict) -> None:
        if names is _WRAPPERS:
            current = builtins.print
            if current is not _print:
                _WRITER[0] = current
            builtins.print = _print
        elif builtins.print is _print:
            builtins.print = _WRITER[0]


_WRAPPERS = {"print": _print}
PATCHED_WHILE_ACTIVE.append((_Builtins(), _WRAPPERS, {"print": builtins.print}))  # type: ignore[arg-type]
