"""NumPy's floating-point warnings of some rows under ``vmap``, shown once per row.

NOTE [warnings of some rows]
----------------------------
``vmap(f)(xs)`` means the loop ``[f(x) for x in xs]``, in which ``np.log(x)`` warns
("invalid value encountered in log") for each row that holds a negative number.  A
batched kernel warns once for the whole batch.  Under the warnings filters' default
actions (``default``, ``once``, ``module``) the loop shows one warning too, so nothing
differs; a warning made an error splits the batch (NOTE [errors of some rows] in
interpreters/batching.py).  Under the ``always`` action (``warnings.simplefilter
("always")``, the usual companion of ``catch_warnings(record=True)``) every warning is
shown, and a function that records them can branch on them (``y if not w else
fallback``): there the batch must warn for its warning rows only.  So while a transform
is active, ``warnings._showwarnmsg`` (what Python calls to show a warning that passed
the filters) is wrapped: a NumPy floating-point warning that a batching rule's kernel
issued under the ``always`` action, for a vmap level of more than one row that may
split, is not shown; that level splits its batch in halves instead, as for an error of
some rows, until a run of one row shows it (the rows that do not warn show nothing).
Costs nothing where no such warning is shown (the wrapper is installed with NumPy's
patched functions, ``core/mutation.py``'s ``PATCHED_WHILE_ACTIVE``), and about 2 log2(n)
runs of ``f`` per warning row where one is.  Other warnings (the user's
``warnings.warn``, ftransforms' own) are shown as they come.

Example:
    >>> import warnings
    >>> import numpy as np
    >>> import ftransforms as ft
    >>> def log_or_zero(x):
    ...     with warnings.catch_warnings(record=True) as w:
    ...         warnings.simplefilter("always")
    ...         y = np.log(x)
    ...     return y if not w else 0.0 * x
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", ft.errors.PerformanceWarning)
    ...     ft.vmap(log_or_zero)(np.array([1.0, -1.0, np.e])).tolist()
    [0.0, -0.0, 1.0]
"""

from __future__ import annotations

import re
import sys
import warnings
from typing import Any

from ftransforms.core.errors import PerformanceWarning
from ftransforms.core.mutation import PATCHED_WHILE_ACTIVE
from ftransforms.interpreters.batching import BatchInterpreter

#: NumPy's messages for floating-point errors under ``np.errstate(...='warn')``.
_FLOATING_POINT = re.compile(r"(divide by zero|invalid value|overflow|underflow) encountered")
_PROCESS = BatchInterpreter.process.__code__
_SHOW = warnings._showwarnmsg  # type: ignore[attr-defined]
#: How many frames above a warning the batching levels' ``process`` are looked for.
_DEPTH = 24


def _batched_levels(frame: Any) -> list[BatchInterpreter]:
    """The vmap levels whose batching rules are running at ``frame``, the innermost
    ``BatchInterpreter.process`` above it first (the level the kernel computes for)."""
    levels = []
    for _ in range(_DEPTH):
        if frame is None:
            break
        if frame.f_code is _PROCESS:
            levels.append(frame.f_locals.get("self"))
        frame = frame.f_back
    return levels


def _action(msg: Any, module: str) -> str:
    """The action of the warnings filters for ``msg`` (as ``warnings.warn_explicit``
    finds it)."""
    text = str(msg.message)
    for action, message, category, mod, line in warnings.filters:
        if (
            (message is None or message.match(text))
            and issubclass(msg.category, category)
            and (mod is None or mod.match(module))
            and (line == 0 or msg.lineno == line)
        ):
            return action
    return warnings.defaultaction


def _showwarnmsg(msg: Any) -> None:
    """``warnings._showwarnmsg`` while a transform is active (NOTE [warnings of some
    rows])."""
    category = msg.category
    if (
        issubclass(category, RuntimeWarning)
        and not issubclass(category, PerformanceWarning)
        and _FLOATING_POINT.match(str(msg.message))
    ):
        frame = sys._getframe(1)
        levels = [i for i in _batched_levels(frame) if i is not None and i.axis_size > 1]
        if levels and _action(msg, frame.f_globals.get("__name__", "")) == "always":
            for interp in levels:  # as an error of some rows would pass them
                interp._split_at_row_error(msg.message)  # raises where the level may split
    _SHOW(msg)


PATCHED_WHILE_ACTIVE.append(
    (vars(warnings), {"_showwarnmsg": _showwarnmsg}, {"_showwarnmsg": _SHOW})
)
