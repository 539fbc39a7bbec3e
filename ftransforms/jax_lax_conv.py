"""``jax.lax``'s convolutions under ``ftransforms.lax``: ``conv_general_dilated`` with one,
two or three spatial axes, feature and batch groups; ``conv_transpose``;
``conv_general_dilated_patches``; and the layout and shape helpers
(``ConvDimensionNumbers``, ``conv_dimension_numbers``, ``conv_general_permutations``,
``conv_shape_tuple``, ``padtype_to_pads``...) (NOTE [jax.lax names in ftransforms.lax] in
``jax_lax.py``).

Every convolution is ``ft.nn.conv2d``'s primitive (cross-correlation in ``NCHW``/``OIHW``)
after transposes to that layout, padding and input dilation with ``lax.pad``: a 1-d one
adds a unit axis; a 3-d one is the sum over the kernel's depth of 2-d convolutions of
strided depth slices, each depth position of the output a row of the 2-d batch.  So
every transform goes through the 2-d convolution's rules.

Example:
    >>> import numpy as np
    >>> from ftransforms import lax
    >>> x, w = np.ones((1, 4, 4, 4, 2)), np.ones((3, 3, 3, 2, 5))
    >>> dn = ("NDHWC", "DHWIO", "NDHWC")
    >>> out = lax.conv_general_dilated(x, w, (1, 1, 1), "VALID", dimension_numbers=dn)
    >>> out.shape, float(out[0, 0, 0, 0, 0])
    ((1, 2, 2, 2, 5), 54.0)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy

import ftransforms.numpy as fnp
from ftransforms.core.errors import DimensionNumbersError, UnsupportedOperationError
from ftransforms.jax_lax import _padding, pad
from ftransforms.numpy.helpers import constant_like
from ftransforms.ops.nn import conv2d_p, conv_transpose2d_p


class ConvDimensionNumbers(NamedTuple):
    """A convolution's layouts as axis permutations (``jax.lax.ConvDimensionNumbers``):
    ``lhs_spec`` lists the input's batch, feature and spatial axes, ``rhs_spec`` the
    kernel's output-feature, input-feature and spatial axes, ``out_spec`` the output's.

    Example:
        >>> from ftransforms import lax
        >>> lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
        ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


def conv_general_permutations(dimension_numbers: Sequence[str]) -> tuple[tuple[int, ...], ...]:
    """The ``(lhs, rhs, out)`` permutations of string layouts such as
    ``("NHWC", "HWIO", "NHWC")``: batch and feature axes first, then the spatial axes in
    the kernel's order (``jax.lax.conv_general_permutations``).

    Example:
        >>> from ftransforms import lax
        >>> lax.conv_general_permutations(("NHWC", "HWIO", "NHWC"))
        ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    """
    where = f"lax.conv_general_permutations({tuple(dimension_numbers)!r})"
    if len(dimension_numbers) != 3 or not all(isinstance(s, str) for s in dimension_numbers):
        raise DimensionNumbersError(f"{where}: give three layout strings (lhs, rhs, out)")
    lhs, rhs, out = dimension_numbers
    for spec, pair in ((lhs, "NC"), (rhs, "OI"), (out, "NC")):
        if len(set(spec)) != len(spec) or any(c not in spec for c in pair):
            raise DimensionNumbersError(
                f"{where}: {spec!r} must name each axis once and contain {pair[0]!r} and "
                f"{pair[1]!r}"
            )
    spatial = [c for c in rhs if c not in "OI"]
    for spec in (lhs, out):
        if sorted(c for c in spec if c not in "NC") != sorted(spatial) or len(spec) != len(rhs):
            raise DimensionNumbersError(
                f"{where}: the spatial axes of {spec!r} must be those of the kernel {rhs!r}"
            )
    return (
        (lhs.index("N"), lhs.index("C"), *(lhs.index(c) for c in spatial)),
        (rhs.index("O"), rhs.index("I"), *(rhs.index(c) for c in spatial)),
        (out.index("N"), out.index("C"), *(out.index(c) for c in spatial)),
    )


def conv_dimension_numbers(
    lhs_shape: Sequence[int], rhs_shape: Sequence[int], dimension_numbers: Any
) -> ConvDimensionNumbers:
    """``dimension_numbers`` (``None``: ``NC...``/``OI...``, three layout strings, or a
    :class:`ConvDimensionNumbers`) as a :class:`ConvDimensionNumbers`
    (``jax.lax.conv_dimension_numbers``).

    Example:
        >>> from ftransforms import lax
        >>> lax.conv_dimension_numbers((1, 2, 5), (4, 2, 3), None).lhs_spec
        (0, 1, 2)
    """
    if dimension_numbers is not None and not isinstance(dimension_numbers[0], str):
        return ConvDimensionNumbers(*(tuple(map(int, s)) for s in dimension_numbers))
    if len(lhs_shape) != len(rhs_shape):
        raise DimensionNumbersError(
            f"lax.conv_dimension_numbers: the input and kernel need the same rank, got "
            f"{len(lhs_shape)} and {len(rhs_shape)}"
        )
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if any(len(s) != len(lhs_shape) for s in dimension_numbers):
        raise DimensionNumbersError(
            f"lax.conv_dimension_numbers: the layouts {tuple(dimension_numbers)} must have "
            f"one letter per axis of the operands (rank {len(lhs_shape)})"
        )
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def padtype_to_pads(
    in_shape: Sequence[int],
    window_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
) -> list[tuple[int, int]]:
    """The ``(low, high)`` pads of ``"VALID"``, ``"SAME"`` (the odd one at the end) or
    ``"SAME_LOWER"`` (at the start) for windows over ``in_shape``
    (``jax.lax.padtype_to_pads``).

    Example:
        >>> from ftransforms import lax
        >>> lax.padtype_to_pads((5, 6), (3, 2), (1, 2), "SAME")
        [(1, 1), (0, 0)]
    """
    if not isinstance(padding, str):
        padding = getattr(padding, "name", padding)
    if not isinstance(padding, str):
        raise TypeError(f"lax.padtype_to_pads: padding must be a string, got {padding!r}")
    return _padding(padding, list(in_shape), list(window_shape), list(window_strides))


def _stride_dim(n: int, window: int, stride: int) -> int:
    return max(0, (n - window) // stride + 1)


def conv_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    pads: Any,
    batch_group_count: int = 1,
) -> tuple[int, ...]:
    """The output shape of a convolution in the ``NC...``/``OI...`` layout
    (``jax.lax.conv_shape_tuple``).

    Example:
        >>> from ftransforms import lax
        >>> lax.conv_shape_tuple((2, 3, 9, 9), (8, 3, 3, 3), (2, 2), "SAME")
        (2, 8, 5, 5)
    """
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise DimensionNumbersError(
            f"lax.conv_shape_tuple: one (low, high) pad per spatial axis "
            f"({len(lhs_shape) - 2}), got {len(pads)}"
        )
    padded = [n + lo + hi for n, (lo, hi) in zip(lhs_shape[2:], pads, strict=True)]
    space = [_stride_dim(n, k, s) for n, k, s in zip(padded, rhs_shape[2:], strides, strict=True)]
    return (lhs_shape[0] // batch_group_count, rhs_shape[0], *space)


def _in_layout(shape: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(shape[p]) for p in perm)


def _out_layout(shape: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(shape[i]) for i in numpy.argsort(perm))


def conv_general_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    dimension_numbers: Any,
) -> tuple[int, ...]:
    """The output shape of :func:`conv_general_dilated` without dilations, in the output's
    layout (``jax.lax.conv_general_shape_tuple``).

    Example:
        >>> from ftransforms import lax
        >>> dn = ("NHWC", "HWIO", "NHWC")
        >>> lax.conv_general_shape_tuple((1, 8, 8, 3), (3, 3, 3, 4), (2, 2), "VALID", dn)
        (1, 3, 3, 4)
    """
    lp, rp, op = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    out = conv_shape_tuple(
        _in_layout(lhs_shape, lp), _in_layout(rhs_shape, rp), window_strides, padding
    )
    return _out_layout(out, op)


def _transpose_pads(k: int, s: int, padding: Any) -> tuple[int, int]:
    """The pads of the input-dilated convolution that transposes a forward one of kernel
    ``k``, stride ``s`` and ``padding`` (JAX's rule for ``conv_transpose``)."""
    if padding == "SAME":
        total = k + s - 2
        low = k - 1 if s > k - 1 else math.ceil(total / 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        low = k - 1
    else:
        pads = tuple(k - p - 1 for p in padding)
        low, total = pads[0], sum(pads)
    return low, total - low


def conv_transpose_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    dimension_numbers: Any,
) -> tuple[int, ...]:
    """The output shape of :func:`conv_transpose` (``jax.lax.conv_transpose_shape_tuple``).

    Example:
        >>> from ftransforms import lax
        >>> dn = ("NHWC", "HWIO", "NHWC")
        >>> lax.conv_transpose_shape_tuple((1, 4, 4, 3), (3, 3, 3, 2), (2, 2), "SAME", dn)
        (1, 8, 8, 2)
    """
    lp, rp, op = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs, rhs = _in_layout(lhs_shape, lp), _in_layout(rhs_shape, rp)
    if isinstance(padding, str):
        padding = [_transpose_pads(k, s, padding) for k, s in zip(rhs[2:], window_strides)]
    space = [
        (i - 1) * s - k + 2 + sum(p)
        for i, k, s, p in zip(lhs[2:], rhs[2:], window_strides, padding, strict=True)
    ]
    return _out_layout((lhs[0], rhs[0], *space), op)


def reduce_window_shape_tuple(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """The output shape of ``lax.reduce_window`` with explicit ``(low, high)`` pads
    (``jax.lax.reduce_window_shape_tuple``).

    Example:
        >>> from ftransforms import lax
        >>> lax.reduce_window_shape_tuple((4, 4), (2, 2), (2, 2), ((0, 0), (1, 1)))
        (2, 3)
    """
    shape = list(operand_shape)
    window = list(window_dimensions)
    if base_dilation is not None:
        shape = [0 if n == 0 else (n - 1) * d + 1 for n, d in zip(shape, base_dilation)]
    if window_dilation is not None:
        window = [0 if w == 0 else (w - 1) * d + 1 for w, d in zip(window, window_dilation)]
    return tuple(
        _stride_dim(n + lo + hi, w, s)
        for n, w, s, (lo, hi) in zip(shape, window, window_strides, padding, strict=True)
    )


# -- the convolutions --------------------------------------------------------------------------


def _accumulating(x: Any, w: Any, preferred: Any) -> tuple[Any, Any]:
    """The operands cast to ``preferred_element_type`` (XLA computes in it: ``int8``
    operands with ``int32`` do not wrap at 127, ``uint8`` ones with ``float32`` neither)."""
    if preferred is None:
        return x, w
    preferred = numpy.dtype(preferred)
    common = numpy.result_type(numpy.dtype(x.dtype), numpy.dtype(w.dtype))
    if not numpy.can_cast(common, preferred, "same_kind"):
        return x, w
    return fnp.astype(x, preferred), fnp.astype(w, preferred)


def conv2d(x: Any, w: Any, stride: tuple, dilation: tuple, groups: int) -> Any:
    """The unpadded ``NCHW``/``OIHW`` cross-correlation in the operands' common dtype, as
    XLA's: integers stay integers (``ft.nn.conv2d``, torch's, computes them in float64)."""
    dt = numpy.result_type(numpy.dtype(x.dtype), numpy.dtype(w.dtype))
    return conv2d_p.bind(
        fnp.astype(x, dt),
        fnp.astype(w, dt),
        stride=stride,
        padding=((0, 0), (0, 0)),
        dilation=dilation,
        groups=groups,
    )


def _conv_nchw(x: Any, w: Any, strides: list[int], rdil: list[int], groups: int) -> Any:
    """The cross-correlation of an already padded ``(N, C, *spatial)`` input with an
    ``(O, C / groups, *kernel)`` kernel, for one to three spatial axes."""
    spatial = x.ndim - 2
    if spatial == 1:
        out = conv2d(
            fnp.expand_dims(x, 2),
            fnp.expand_dims(w, 2),
            stride=(1, strides[0]),
            dilation=(1, rdil[0]),
            groups=groups,
        )
        return fnp.squeeze(out, axis=2)
    if spatial == 2:
        return conv2d(x, w, stride=tuple(strides), dilation=tuple(rdil), groups=groups)
    # 3-d: the output's depth positions become rows of a 2-d batch, one 2-d convolution
    # per depth offset of the kernel, summed
    n, c, depth = x.shape[:3]
    kd = w.shape[2]
    out_depth = _stride_dim(depth, (kd - 1) * rdil[0] + 1, strides[0])
    total = None
    for j in range(kd):
        start = j * rdil[0]
        rows = x[:, :, start : start + (out_depth - 1) * strides[0] + 1 : strides[0]]
        rows = fnp.reshape(fnp.moveaxis(rows, 2, 1), (n * out_depth, c, *x.shape[3:]))
        part = conv2d(
            rows, w[:, :, j], stride=tuple(strides[1:]), dilation=tuple(rdil[1:]), groups=groups
        )
        total = part if total is None else total + part
    out = fnp.reshape(total, (n, out_depth, *total.shape[1:]))
    return fnp.moveaxis(out, 1, 2)


def _as_transpose(spatial, ldil, strides, batch_groups, pads, kernel, size) -> bool:
    """Whether an input-dilated convolution is a transposed one (NOTE [input dilation as a
    transposed convolution])."""
    if (
        spatial > 2
        or batch_groups != 1
        or all(d == 1 for d in ldil)
        or any(s != 1 for s in strides)
    ):
        return False
    for (lo, hi), k, n, d in zip(pads, kernel, size, ldil, strict=True):
        if not (0 <= k - 1 - lo and 0 <= k - 1 - hi) or (n - 1) * d + 1 + lo + hi - k + 1 < 1:
            return False
    return True


# NOTE [input dilation as a transposed convolution]: a stride-1 convolution of the input
# dilated by s (s - 1 zeros between entries), padded (lo, hi), with kernel w of span k, is
# the transpose (the input derivative) of a stride-s convolution with the kernel flipped
# and its feature axes swapped, padded (k - 1 - lo, k - 1 - hi): the primitive
# ``conv_transpose2d`` computes it without the products with the inserted zeros (about
# s^2 times fewer for 2-d).  Taken when those pads are not negative (the pads of
# ``conv_transpose``'s "SAME"/"VALID" and of the gradients of strided convolutions); other
# cases dilate and pad the input with ``lax.pad``.


def _dilated_as_transpose(x, w, ldil, rdil, pads, kernel, groups):
    n_sp = x.ndim - 2
    o, cg = w.shape[:2]
    v = fnp.flip(w, axis=tuple(range(2, w.ndim)))
    v = fnp.reshape(v, (groups, o // groups, cg, *w.shape[2:]))
    v = fnp.reshape(fnp.swapaxes(v, 1, 2), (groups * cg, o // groups, *w.shape[2:]))
    size = [
        (n - 1) * d + 1 + lo + hi - k + 1
        for n, d, (lo, hi), k in zip(x.shape[2:], ldil, pads, kernel, strict=True)
    ]
    tpads = [(k - 1 - lo, k - 1 - hi) for (lo, hi), k in zip(pads, kernel, strict=True)]
    stride, dil = list(ldil), list(rdil)
    if n_sp == 1:  # a unit height
        x, v = fnp.expand_dims(x, 2), fnp.expand_dims(v, 2)
        size, tpads, stride, dil = [1, *size], [(0, 0), *tpads], [1, *stride], [1, *dil]
    dt = numpy.result_type(numpy.dtype(x.dtype), numpy.dtype(v.dtype))
    out = conv_transpose2d_p.bind(
        x.astype(dt),
        v.astype(dt),
        in_size=tuple(size),
        stride=tuple(stride),
        padding=tuple(tpads),
        dilation=tuple(dil),
        groups=groups,
    )
    return fnp.squeeze(out, axis=2) if n_sp == 1 else out


def conv_general_dilated(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Any,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """A convolution (cross-correlation) with one, two or three spatial axes: layouts from
    ``dimension_numbers`` (``None`` is ``NC...``/``OI...``, or strings such as
    ``("NHWC", "HWIO", "NHWC")``, or a :class:`ConvDimensionNumbers`), ``padding``
    ``"VALID"``/``"SAME"``/``"SAME_LOWER"``/``(low, high)`` pairs (negative crops), input
    dilation (``lhs_dilation``: a transposed convolution), kernel dilation, feature groups
    and batch groups (``jax.lax.conv_general_dilated``, over ``ft.nn.conv2d``'s primitive);
    ``precision`` is accepted and has no effect.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> x, w = np.ones((1, 5, 5, 2)), np.ones((3, 3, 2, 4))
        >>> dn = ("NHWC", "HWIO", "NHWC")
        >>> lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=dn).shape
        (1, 5, 5, 4)
    """
    where = "lax.conv_general_dilated(lhs, rhs, window_strides, padding)"
    x, w = _accumulating(fnp.asarray(lhs), fnp.asarray(rhs), preferred_element_type)
    nd = x.ndim
    spatial = nd - 2
    if spatial not in (1, 2, 3) or w.ndim != nd:
        raise UnsupportedOperationError(
            f"{where}: one to three spatial axes are supported, got operands of rank {x.ndim} "
            f"and {w.ndim}"
        )
    lp, rp, op = conv_dimension_numbers(x.shape, w.shape, dimension_numbers)
    x, w = fnp.transpose(x, lp), fnp.transpose(w, rp)
    strides = [operator.index(st) for st in window_strides]
    ldil = [1] * spatial if lhs_dilation is None else [operator.index(d) for d in lhs_dilation]
    rdil = [1] * spatial if rhs_dilation is None else [operator.index(d) for d in rhs_dilation]
    if not len(strides) == len(ldil) == len(rdil) == spatial:
        raise DimensionNumbersError(
            f"{where}: window_strides and the dilations need one entry per spatial axis "
            f"({spatial}), got {len(strides)}, {len(ldil)} and {len(rdil)}"
        )
    if isinstance(padding, str) and any(d > 1 for d in ldil):
        raise UnsupportedOperationError(
            f"lax.conv_general_dilated(..., padding={padding!r}, lhs_dilation={tuple(ldil)}): "
            f"with lhs_dilation give the padding as (low, high) pairs, as JAX requires"
        )
    groups, batch_groups = operator.index(feature_group_count), operator.index(batch_group_count)
    if x.shape[1] != w.shape[1] * groups or w.shape[0] % (groups * batch_groups):
        raise DimensionNumbersError(
            f"{where}: the input's {x.shape[1]} features must be the kernel's input features "
            f"({w.shape[1]}) times feature_group_count={groups}, and the kernel's "
            f"{w.shape[0]} output features a multiple of the group counts"
        )
    if x.shape[0] % batch_groups:
        raise DimensionNumbersError(
            f"{where}: the batch ({x.shape[0]}) must be a multiple of "
            f"batch_group_count={batch_groups}"
        )
    kernel = [(k - 1) * d + 1 for k, d in zip(w.shape[2:], rdil, strict=True)]
    pads = _padding(padding, x.shape[2:], kernel, strides)
    if _as_transpose(spatial, ldil, strides, batch_groups, pads, kernel, x.shape[2:]):
        out = _dilated_as_transpose(x, w, ldil, rdil, pads, kernel, groups)
        out = fnp.transpose(out, numpy.argsort(op).tolist())
        return out if preferred_element_type is None else out.astype(preferred_element_type)
    dilated = [(n - 1) * d + 1 if n else 0 for n, d in zip(x.shape[2:], ldil, strict=True)]
    sizes = [
        _stride_dim(n + lo + hi, k, st)
        for n, (lo, hi), k, st in zip(dilated, pads, kernel, strides, strict=True)
    ]
    if 0 in sizes:  # the kernel is larger than the padded input: an empty result, as JAX
        shape = (x.shape[0] // batch_groups, w.shape[0], *sizes)
        out = fnp.zeros(shape, numpy.result_type(numpy.dtype(x.dtype), numpy.dtype(w.dtype)))
        out = fnp.transpose(out, numpy.argsort(op).tolist())
        return out if preferred_element_type is None else out.astype(preferred_element_type)
    config = [(0, 0, 0), (0, 0, 0)] + [
        (lo, hi, d - 1) for (lo, hi), d in zip(pads, ldil, strict=True)
    ]
    if any(c != (0, 0, 0) for c in config):
        x = pad(x, fnp.zeros((), x.dtype), config)
    if batch_groups == 1:
        out = _conv_nchw(x, w, strides, rdil, groups)
    else:  # batch group g: the g-th block of the batch with the g-th block of kernels
        n, o = x.shape[0] // batch_groups, w.shape[0] // batch_groups
        out = fnp.concatenate(
            [
                _conv_nchw(x[g * n : (g + 1) * n], w[g * o : (g + 1) * o], strides, rdil, groups)
                for g in range(batch_groups)
            ],
            axis=1,
        )
    out = fnp.transpose(out, numpy.argsort(op).tolist())
    return out if preferred_element_type is None else out.astype(preferred_element_type)


def conv(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """:func:`conv_general_dilated` in the ``NCHW``/``OIHW`` layout (``jax.lax.conv``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> out = lax.conv(np.ones((1, 1, 4, 4)), np.ones((2, 1, 3, 3)), (1, 1), "VALID")
        >>> out[0, :, 0, 0].tolist()
        [9.0, 9.0]
    """
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, preferred_element_type=preferred_element_type
    )


def conv_with_general_padding(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Any,
    lhs_dilation: Sequence[int] | None,
    rhs_dilation: Sequence[int] | None,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """:func:`conv_general_dilated` in the ``NCHW``/``OIHW`` layout with dilations
    (``jax.lax.conv_with_general_padding``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> x, w = np.ones((1, 1, 4, 4)), np.ones((1, 1, 2, 2))
        >>> lax.conv_with_general_padding(x, w, (1, 1), [(0, 0), (0, 0)], None, (2, 2)).shape
        (1, 1, 2, 2)
    """
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        preferred_element_type=preferred_element_type,
    )


_TRANSPOSE_LAYOUTS = {
    2: ("NC", "IO", "NC"),
    3: ("NHC", "HIO", "NHC"),
    4: ("NHWC", "HWIO", "NHWC"),
    5: ("NHWDC", "HWDIO", "NHWDC"),
}


def conv_transpose(
    lhs: Any,
    rhs: Any,
    strides: Sequence[int],
    padding: Any,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    transpose_kernel: bool = False,
    precision: Any = None,
    preferred_element_type: Any = None,
    use_consistent_padding: bool = False,
) -> Any:
    """The transposed convolution ("deconvolution"): the input dilated by ``strides`` and
    convolved with stride 1, padded so that ``"SAME"``/``"VALID"`` invert the forward
    convolution's shapes; ``transpose_kernel=True`` flips the kernel's spatial axes and
    swaps its feature axes, making it the gradient of ``conv_general_dilated``.  The
    default layouts are ``NHWC``/``HWIO`` (``NHC``/``HIO``, ``NHWDC``/``HWDIO``)
    (``jax.lax.conv_transpose``).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> x, w = np.ones((1, 3, 3, 2)), np.ones((3, 3, 2, 4))
        >>> lax.conv_transpose(x, w, (2, 2), "SAME").shape
        (1, 6, 6, 4)
    """
    x, w = fnp.asarray(lhs), fnp.asarray(rhs)
    if dimension_numbers is None:
        if x.ndim not in _TRANSPOSE_LAYOUTS:
            raise UnsupportedOperationError(
                f"lax.conv_transpose: default layouts exist for ranks 2 to 5, got {x.ndim}; "
                f"give dimension_numbers"
            )
        dimension_numbers = _TRANSPOSE_LAYOUTS[x.ndim]
    dn = conv_dimension_numbers(x.shape, w.shape, dimension_numbers)
    spatial = x.ndim - 2
    rdil = [1] * spatial if rhs_dilation is None else list(rhs_dilation)
    kernel = [(w.shape[a] - 1) * d + 1 for a, d in zip(dn.rhs_spec[2:], rdil, strict=True)]
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        each = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = [_transpose_pads(k, s, p) for k, s, p in zip(kernel, strides, each, strict=True)]
    else:
        pads = padding
    if transpose_kernel:
        w = fnp.flip(w, axis=tuple(dn.rhs_spec[2:]))
        w = fnp.swapaxes(w, dn.rhs_spec[0], dn.rhs_spec[1])
    return conv_general_dilated(
        x,
        w,
        (1,) * spatial,
        pads,
        strides,
        rdil,
        dn,
        preferred_element_type=preferred_element_type,
    )


def conv_general_dilated_patches(
    lhs: Any,
    filter_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """The patches a convolution with a kernel of spatial shape ``filter_shape`` sees, as
    features: the output's feature axis holds ``C * prod(filter_shape)`` entries, channel
    major (``jax.lax.conv_general_dilated_patches``, im2col).

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> x = np.arange(9.0).reshape(1, 1, 3, 3)
        >>> lax.conv_general_dilated_patches(x, (2, 2), (1, 1), "VALID")[0, :, 0, 0].tolist()
        [0.0, 1.0, 3.0, 4.0]
    """
    x = fnp.asarray(lhs)
    filter_shape = tuple(operator.index(k) for k in filter_shape)
    dn = conv_dimension_numbers(x.shape, (1, 1, *filter_shape), dimension_numbers)
    size = math.prod(filter_shape)
    channels = x.shape[dn.lhs_spec[1]]
    eye = numpy.eye(size, dtype=numpy.dtype(x.dtype))
    kernel = numpy.broadcast_to(eye, (channels, size, size)).reshape(
        channels * size, 1, *filter_shape
    )
    canonical = tuple(range(x.ndim))
    return conv_general_dilated(
        x,
        constant_like(kernel, x),
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        ConvDimensionNumbers(dn.lhs_spec, canonical, dn.out_spec),
        feature_group_count=channels,
        preferred_element_type=preferred_element_type,
    )


def conv_general_dilated_local(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Any,
    filter_shape: Sequence[int],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    precision: Any = None,
) -> Any:
    """A locally connected convolution: a separate kernel at every output position
    (``jax.lax.conv_general_dilated_local``).  ``rhs`` has the layout of
    ``dimension_numbers``' kernel spec, its input-feature axis holding
    ``C * prod(filter_shape)`` entries (channel major, as :func:`conv_general_dilated_patches`
    orders them) and its spatial axes the output's spatial shape.

    Example:
        >>> import numpy as np
        >>> from ftransforms import lax
        >>> x = np.ones((1, 2, 4))  # N, C, W
        >>> w = np.ones((3, 2 * 2, 3))  # O, C * 2, output width 3
        >>> lax.conv_general_dilated_local(x, w, (1,), "VALID", (2,)).shape
        (1, 3, 3)
    """
    x = fnp.asarray(lhs)
    filter_shape = tuple(operator.index(k) for k in filter_shape)
    patches = conv_general_dilated_patches(
        x, filter_shape, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers
    )
    dn = conv_dimension_numbers(x.shape, (1, 1, *filter_shape), dimension_numbers)
    out_spatial, rhs_spatial = list(dn.out_spec[2:]), list(dn.rhs_spec[2:])
    # pair each spatial axis of the patches (in increasing order) with the kernel's axis
    pairs = sorted(zip(out_spatial, rhs_spatial))
    rest = [dn.out_spec[0], dn.out_spec[1]]
    letters = "abcdefghijklmnopqrstuvwxyz"
    lp = [""] * patches.ndim
    rp = [""] * fnp.ndim(rhs)
    for k, (a, b) in enumerate(pairs):
        lp[a] = rp[b] = letters[k]
    lp[rest[0]] = "n"
    lp[rest[1]] = rp[dn.rhs_spec[1]] = "c"
    rp[dn.rhs_spec[0]] = "o"
    out = [""] * patches.ndim
    out[dn.out_spec[0]], out[dn.out_spec[1]] = "n", "o"
    for k, (a, _) in enumerate(pairs):
        out[a] = letters[k]
    return fnp.einsum(f"{''.join(lp)},{''.join(rp)}->{''.join(out)}", patches, rhs)


__all__ = [
    "ConvDimensionNumbers",
    "conv",
    "conv_general_dilated_local",
    "conv_dimension_numbers",
    "conv_general_dilated",
    "conv_general_dilated_patches",
    "conv_general_permutations",
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose",
    "conv_transpose_shape_tuple",
    "conv_with_general_padding",
    "padtype_to_pads",
    "reduce_window_shape_tuple",
]
