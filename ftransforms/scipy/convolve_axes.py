"""HIPS autograd's tensor convolution, ``convolve(A, B, axes=, dot_axes=, mode=)``
(``autograd.scipy.signal.convolve``): what ``ftransforms.scipy.signal.convolve`` computes
when given ``axes`` or ``dot_axes``.

The axis pairs ``axes = (axes_A, axes_B)`` are convolved, the pairs ``dot_axes`` are
contracted (summed over, as ``tensordot``), and every other axis is kept: the result's
axes are ``A``'s other axes, then ``B``'s, then one per convolved pair.  A convolutional
layer is ``convolve(images[N, C, H, W], filters[C, F, h, w], axes=([2, 3], [2, 3]),
dot_axes=([1], [0]), mode="valid")`` of shape ``(N, F, H - h + 1, W - w + 1)``.

The full convolution is a sum over the positions of the input with fewer positions
along the convolved axes: each position's slice, contracted with the other input shifted
to that position (``fnp.pad``) by ``tensordot``.  'valid' and 'same' crop it as SciPy
does (the centre, of length ``|a - b| + 1`` or that of ``A``).  Everything is ``fnp``,
so every transform applies.

Example:
    >>> import numpy as np
    >>> from ftransforms.scipy.signal import convolve
    >>> images, filters = np.ones((2, 3, 5, 5)), np.ones((3, 4, 2, 2))
    >>> convolve(images, filters, axes=([2, 3], [2, 3]), dot_axes=([1], [0]),
    ...          mode="valid").shape
    (2, 4, 4, 4)
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import ftransforms.numpy as fnp


def _axis_list(where: str, what: str, value: Any, ndim: int) -> list[int]:
    try:
        out = [int(a) % ndim if -ndim <= int(a) < ndim else None for a in value]
    except TypeError:
        out = [None]
    if None in out or len(set(out)) != len(out):
        raise ValueError(
            f"{where}: {what} must be distinct axes of an array with {ndim} dimension(s), "
            f"got {value!r}; pass a list of axis numbers"
        )
    return out


def convolve_axes(A: Any, B: Any, axes: Any, dot_axes: Any, mode: str) -> Any:
    """``A`` convolved with ``B`` along the pairs ``axes`` and contracted along the pairs
    ``dot_axes`` (see the module doc).

    Example:
        >>> import numpy as np
        >>> from ftransforms.scipy.convolve_axes import convolve_axes
        >>> convolve_axes(np.array([1.0, 2.0]), np.array([1.0, 1.0, 1.0]), None, None, "full")
        array([1., 3., 3., 2.])
    """
    where = f"convolve(A, B, axes={axes!r}, dot_axes={dot_axes!r}, mode={mode!r})"
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"{where}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    A, B = fnp.asarray(A), fnp.asarray(B)
    na, nb = fnp.ndim(A), fnp.ndim(B)
    if axes is None:  # autograd's default: every axis of A with the same axis of B
        axes = (list(range(na)), list(range(na)))
    if dot_axes is None:
        dot_axes = ((), ())
    conv_a, conv_b = (_axis_list(where, "axes", ax, n) for ax, n in zip(axes, (na, nb)))
    dot_a, dot_b = (_axis_list(where, "dot_axes", ax, n) for ax, n in zip(dot_axes, (na, nb)))
    sa, sb = fnp.shape(A), fnp.shape(B)
    if len(conv_a) != len(conv_b) or len(dot_a) != len(dot_b):
        raise ValueError(f"{where}: axes and dot_axes must pair as many axes of A as of B")
    if set(conv_a) & set(dot_a) or set(conv_b) & set(dot_b):
        raise ValueError(f"{where}: an axis cannot be both convolved and contracted")
    if any(sa[i] != sb[j] for i, j in zip(dot_a, dot_b)):
        raise ValueError(
            f"{where}: the contracted axes must have equal lengths, got "
            f"{[sa[i] for i in dot_a]} and {[sb[j] for j in dot_b]}"
        )
    ka, kb = [sa[i] for i in conv_a], [sb[j] for j in conv_b]
    if mode == "valid" and not (
        all(a >= b for a, b in zip(ka, kb)) or all(b >= a for a, b in zip(ka, kb))
    ):
        raise ValueError(
            f"{where}: for 'valid' mode one array must be at least as large as the other "
            f"along every convolved axis, got lengths {ka} and {kb}"
        )
    free_a = [i for i in range(na) if i not in conv_a and i not in dot_a]
    free_b = [j for j in range(nb) if j not in conv_b and j not in dot_b]
    # both as (free, contracted, convolved)
    At = fnp.transpose(A, free_a + dot_a + conv_a)
    Bt = fnp.transpose(B, free_b + dot_b + conv_b)
    nfa, nfb, nd = len(free_a), len(free_b), len(dot_a)
    loop_over_a = math.prod(ka) <= math.prod(kb)
    small, big = (At, Bt) if loop_over_a else (Bt, At)
    k_small = ka if loop_over_a else kb
    nf_small, nf_big = (nfa, nfb) if loop_over_a else (nfb, nfa)
    full = None
    for pos in numpy.ndindex(*k_small):
        piece = small[(Ellipsis,) + tuple(pos)]  # (free, contracted) of the small one
        pads = [(0, 0)] * (nf_big + nd) + [(p, k - 1 - p) for p, k in zip(pos, k_small)]
        shifted = fnp.pad(big, pads)
        term = fnp.tensordot(
            piece,
            shifted,
            axes=(list(range(nf_small, nf_small + nd)), list(range(nf_big, nf_big + nd))),
        )  # (free of small, free of big, convolved)
        full = term if full is None else full + term
    if full is None:  # an empty convolved axis
        shape = [sa[i] for i in free_a] + [sb[j] for j in free_b]
        shape += [max(a + b - 1, 0) for a, b in zip(ka, kb)]
        return fnp.zeros(tuple(shape), dtype=fnp.result_type(A, B))
    if not loop_over_a:  # (free of B, free of A, ...) -> (free of A, free of B, ...)
        order = (
            list(range(nfb, nfb + nfa)) + list(range(nfb)) + list(range(nfa + nfb, fnp.ndim(full)))
        )
        full = fnp.transpose(full, order)
    if mode == "full":
        return full
    if mode == "same":
        lengths, starts = ka, [(b - 1) // 2 for b in kb]  # centred on A, as SciPy
    else:
        lengths = [abs(a - b) + 1 for a, b in zip(ka, kb)]
        starts = [min(a, b) - 1 for a, b in zip(ka, kb)]
    crop = (slice(None),) * (nfa + nfb) + tuple(slice(s, s + n) for s, n in zip(starts, lengths))
    return full[crop]
