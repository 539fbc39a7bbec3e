"""Abstract values: an array's shape and dtype without its data (JAX's
``ShapeDtypeStruct`` and ``ShapedArray``), for ``eval_shape``, callbacks' result types and
``make_jaxpr``'s avals.  A module of the lowest layer, so the program (``Program.out_avals``)
and the user-facing modules both use them."""

from __future__ import annotations

from typing import Any

import numpy

__all__ = ["ShapeDtypeStruct", "ShapedArray"]


class ShapeDtypeStruct:
    """An array's shape and dtype, with no data (``jax.ShapeDtypeStruct``): what
    :func:`eval_shape` returns and what ``pure_callback`` takes as its result type.

    Example:
        >>> import numpy as np
        >>> s = ShapeDtypeStruct((2, 3), np.float32)
        >>> s
        ShapeDtypeStruct(shape=(2, 3), dtype=float32)
        >>> s.ndim, s.size
        (2, 6)
    """

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape: Any, dtype: Any, *, sharding: Any = None, weak_type: bool = False):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = numpy.dtype(dtype)
        self.weak_type = bool(weak_type)  # JAX's; kept, with no effect here
        del sharding  # JAX's; there is no device placement to describe

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def sharding(self) -> None:
        """JAX's attribute: always ``None`` (arrays live where their backend puts them)."""
        return None

    @property
    def size(self) -> int:
        return int(numpy.prod(self.shape, dtype=numpy.int64))

    def __repr__(self) -> str:
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ShapeDtypeStruct)
            and self.shape == other.shape
            and self.dtype == other.dtype
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))


class ShapedArray(ShapeDtypeStruct):
    """What :func:`ftransforms.typeof` returns: a :class:`ShapeDtypeStruct` printed as JAX
    prints ``jax.typeof``'s ``ShapedArray`` (``float64[3,3]``, ``~float64[]`` when weakly
    typed), so a program printing the types of its values prints what JAX prints.

    Example:
        >>> import numpy as np
        >>> t = ShapedArray((3, 3), np.float64)
        >>> print(t)
        float64[3,3]
        >>> t
        ShapedArray(float64[3,3])
    """

    __slots__ = ()

    def __str__(self) -> str:
        dims = ",".join(str(d) for d in self.shape)
        return f"{'~' if self.weak_type else ''}{self.dtype.name}[{dims}]"

    def __repr__(self) -> str:
        dims = ",".join(str(d) for d in self.shape)
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.dtype.name}[{dims}]{weak})"
