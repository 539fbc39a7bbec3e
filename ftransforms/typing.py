"""JAX's ``jax.typing`` annotations for ported code: ``ArrayLike`` (anything the
transforms take as an array: NumPy/CuPy arrays, tracers, NumPy and Python scalars) and
``DTypeLike`` (anything ``numpy.dtype`` accepts).

Example:
    >>> from ftransforms.typing import ArrayLike
    >>> def scale(x: ArrayLike) -> ArrayLike:
    ...     return x * 2
    >>> scale(3)
    6
"""

from __future__ import annotations

import numpy
import numpy.typing

from ftransforms.numpy import ndarray  # counts tracers and every backend's arrays

ArrayLike = ndarray | numpy.ndarray | numpy.generic | bool | int | float | complex
DTypeLike = numpy.typing.DTypeLike

__all__: list[str] = []  # two type aliases, documented above (no docstrings of their own)
