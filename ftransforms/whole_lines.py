"""``print`` under the transforms writes its line once the line is whole.

NOTE [a printed line is written whole]
--------------------------------------
``print("x =", x)`` writes ``"x ="``, then the separator, then ``str(x)``, one argument at
a time.  Under ``vmap`` ``str(x)`` of rows whose texts differ splits the batch (NOTE
[splitting the batch] in split.py): the run is abandoned after ``"x = "`` was written,
and each group prints its line again, so the output began ``x = x = 0.0``.  While a
transform is active ``builtins.print`` is a wrapper that makes every argument's text
first and hands ``print`` the joined line, so a split (or any error) in an argument's
``str`` writes nothing; the output is the same text otherwise.  It is swapped in with
NumPy's patched functions (``core/mutation.py``'s ``PATCHED_WHILE_ACTIVE``) through a
stand-in namespace that keeps the ``print`` found there, so a ``print`` the user
installed in ``builtins`` is the one that writes, and is put back.

Example:
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> _ = ft.vmap(lambda x: print("x =", x) or x)(np.array([0.5, 1.5]))
    x = 0.5
    x = 1.5
"""

from __future__ import annotations

import builtins
import functools
from typing import Any

from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE

#: The ``print`` that writes: the one in ``builtins`` when the transforms were entered.
_WRITER = [builtins.print]


@functools.wraps(builtins.print)
def _print(*args: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: Any = False):
    """``print`` with its arguments' texts joined first (NOTE [a printed line is written
    whole]); odd arguments (a ``sep`` that is no string) reach ``print`` as they are."""
    if len(args) > 1 and (sep is None or type(sep) is str):
        args = ((" " if sep is None else sep).join(map(str, args)),)
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
