"""Linear algebra: matmul and einsum, routed to NumPy's batched BLAS paths."""

from __future__ import annotations

import math

import ftransforms.numpy as fnp
from batching_rules.helpers import (
    logical_rank,
    move_bdim_to,
    move_bdim_to_front,
    pad_rank_after_front,
)


def matmul(prim, args, bdims, axis_size, **params):
    """Batch ``a @ b`` (both of logical rank >= 2).

    When only ``a`` is batched and ``b`` is a matrix, the batch is folded into the rows of
    ``a`` so that NumPy makes one GEMM call instead of one per batch element.  When only
    ``b`` is batched and ``a`` is a matrix, ``a @ b = (bᵀ @ aᵀ)ᵀ`` puts the batch on the
    left and takes the same path (jacrev/jacfwd/hessian hit this case: a constant matrix
    times a batch of basis vectors).
    """
    a, b = args
    da, db = bdims
    ra, rb = logical_rank(a, da), logical_rank(b, db)
    if db is None and rb == 2:
        # A batch of vectors times a matrix is already a matrix product: (B, n) @ (n, m).
        return _fold_rows(prim, move_bdim_to_front(a, da), b, params), 0
    if da is None and ra == 2:
        if rb == 1:  # A v for a batch of vectors v: (B, m) @ A^T
            return prim.bind(move_bdim_to_front(b, db), fnp.swapaxes(a, -1, -2), **params), 0
        b_t = fnp.swapaxes(move_bdim_to_front(b, db), -1, -2)
        return fnp.swapaxes(_fold_rows(prim, b_t, fnp.swapaxes(a, -1, -2), params), -1, -2), 0
    if ra == 1 or rb == 1:
        return _with_vectors_as_matrices(prim, a, b, da, db, axis_size, params)
    rank = max(ra, rb)
    if da is not None:
        a = pad_rank_after_front(move_bdim_to_front(a, da), rank)
    if db is not None:
        b = pad_rank_after_front(move_bdim_to_front(b, db), rank)
    return prim.bind(a, b, **params), 0


def _with_vectors_as_matrices(prim, a, b, da, db, axis_size, params):
    """The remaining vector cases (a batched vector with a batched or stacked operand):
    a vector becomes a one-row (``a``) or one-column (``b``) matrix, and that axis is
    dropped from the product again."""
    ra, rb = logical_rank(a, da), logical_rank(b, db)
    if ra == 1:
        a = move_bdim_to_front(a, da)
        a = fnp.expand_dims(a, -2 if da is None else 1)  # (n,) -> (1, n); (B, n) -> (B, 1, n)
        da = None if da is None else 0
    if rb == 1:
        b = fnp.expand_dims(move_bdim_to_front(b, db), -1)  # (m,) -> (m, 1); (B, m) -> (B, m, 1)
        db = None if db is None else 0
    out, out_bdim = matmul(prim, (a, b), (da, db), axis_size, **params)
    if ra == 1:  # out is batched at 0 with a logical rank >= 2 here
        out = fnp.squeeze(out, axis=-2)
    if rb == 1:
        out = fnp.squeeze(out, axis=-1)
    return out, out_bdim


def _fold_rows(prim, a, b, params):
    """``a @ b`` for a stack ``a`` and a matrix ``b`` as one GEMM over all rows of ``a``."""
    shape = fnp.shape(a)
    rows = fnp.reshape(a, (math.prod(shape[:-1]), shape[-1]))  # not -1: size-0 rows
    out = prim.bind(rows, b, **params)
    return fnp.reshape(out, shape[:-1] + (fnp.shape(out)[-1],))


def _fresh_letter(subscripts: str) -> str:
    for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA":
        if c not in subscripts:
            return c
    raise ValueError("einsum: no free subscript letter left for the batch axis")


def einsum(prim, args, bdims, axis_size, *, subscripts, **params):
    """Batch einsum by giving the batch axis its own letter, placed where it already is."""
    ins, out = subscripts.split("->")
    letter = _fresh_letter(subscripts)
    new_ins = [s if d is None else s[:d] + letter + s[d:] for s, d in zip(ins.split(","), bdims)]
    new = ",".join(new_ins) + "->" + letter + out
    return prim.bind(*args, subscripts=new, **params), 0


def leading(prim, args, bdims, axis_size, **params):
    """Batch a one-operand matrix op that maps over leading axes (``numpy.linalg``'s
    ``inv``, ``det``, ``eigh``, ``svd``, ...): the batch axis goes to the front and the op
    runs once, batched.  Multiple-result ops return every result batched at 0."""
    (x,), (d,) = args, bdims
    out = prim.bind(move_bdim_to_front(x, d), **params)
    out_bdim = None if d is None else 0
    if prim.multiple_results:
        return out, (out_bdim,) * len(out)
    return out, out_bdim


def broadcasting_matrices(prim, args, bdims, axis_size, **params):
    """Batch an op over stacks of matrices whose leading axes broadcast (``solve``): each
    batched operand gets its batch axis at the front and size-1 axes after it up to the
    highest logical rank, so that the batch axis lines up across operands."""
    rank = max(logical_rank(x, d) for x, d in zip(args, bdims))
    args = [
        x if d is None else pad_rank_after_front(move_bdim_to_front(x, d), rank)
        for x, d in zip(args, bdims)
    ]
    return prim.bind(*args, **params), 0


def solve(prim, args, bdims, axis_size, **params):
    """Batch ``solve(a, b)``.  With ``a`` one unbatched matrix and ``b`` a batch of
    ``(n, k)`` matrices (``jacfwd``/``jacrev`` and every JVP/VJP rule built on ``solve``
    against a fixed matrix), the batch goes into the columns of ``b``: one factorization of
    ``a`` instead of one per batch element."""
    a, b = args
    da, db = bdims
    if da is None and db is not None and fnp.ndim(a) == 2 and logical_rank(b, db) == 2:
        b = move_bdim_to(b, db, 1)
        n, size, k = fnp.shape(b)
        out = prim.bind(a, fnp.reshape(b, (n, size * k)), **params)
        return fnp.reshape(out, (n, size, k)), 1
    return broadcasting_matrices(prim, args, bdims, axis_size, **params)
