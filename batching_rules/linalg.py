"""Linear algebra: matmul and einsum, routed to NumPy's batched BLAS paths; solve; and the
``numpy.linalg`` matrix functions (batch axis to the front)."""

from __future__ import annotations

import math

from batching_rules.helpers import (
    logical_rank,
    move_bdim_to,
    move_bdim_to_front,
    pad_rank_after_front,
)
from ftransforms import lax
from ftransforms.core.primitive import register_batch_rule
from ftransforms.ops import linalg as ops
from ftransforms.ops import scipy_ops


def matmul(prim, args, x_bdims, axis_size, **params):
    """Batch ``a @ b`` (both of logical rank >= 2).

    When only ``a`` is batched and ``b`` is a matrix, the batch is folded into the rows of
    ``a`` so that NumPy makes one GEMM call instead of one per batch element.  When only
    ``b`` is batched and ``a`` is a matrix, ``a @ b = (bᵀ @ aᵀ)ᵀ`` puts the batch on the
    left and takes the same path (jacrev/jacfwd/hessian hit this case: a constant matrix
    times a batch of basis vectors).
    """
    a, b = args
    a_bdim, b_bdim = x_bdims
    ra, rb = logical_rank(a, a_bdim), logical_rank(b, b_bdim)
    if b_bdim is None and rb == 2:
        # A batch of vectors times a matrix is already a matrix product: (B, n) @ (n, m).
        return _fold_rows(prim, move_bdim_to_front(a, a_bdim), b, params), 0
    if a_bdim is None and ra == 2:
        if rb == 1:  # A v for a batch of vectors v: (B, m) @ A^T
            return prim.bind(move_bdim_to_front(b, b_bdim), lax.swapaxes(a, -1, -2), **params), 0
        b_t = lax.swapaxes(move_bdim_to_front(b, b_bdim), -1, -2)
        return lax.swapaxes(_fold_rows(prim, b_t, lax.swapaxes(a, -1, -2), params), -1, -2), 0
    if ra == 1 or rb == 1:
        return _with_vectors_as_matrices(prim, a, b, a_bdim, b_bdim, axis_size, params)
    rank = max(ra, rb)
    if a_bdim is not None:
        a = pad_rank_after_front(move_bdim_to_front(a, a_bdim), rank)
    if b_bdim is not None:
        b = pad_rank_after_front(move_bdim_to_front(b, b_bdim), rank)
    return prim.bind(a, b, **params), 0


def _with_vectors_as_matrices(prim, a, b, a_bdim, b_bdim, axis_size, params):
    """The remaining vector cases (a batched vector with a batched or stacked operand):
    a vector becomes a one-row (``a``) or one-column (``b``) matrix, and that axis is
    dropped from the product again."""
    ra, rb = logical_rank(a, a_bdim), logical_rank(b, b_bdim)
    if ra == 1:
        a = move_bdim_to_front(a, a_bdim)
        a = lax.expand_dims(a, -2 if a_bdim is None else 1)  # (n,) -> (1, n); (B, n) -> (B, 1, n)
        a_bdim = None if a_bdim is None else 0
    if rb == 1:
        b = lax.expand_dims(
            move_bdim_to_front(b, b_bdim), -1
        )  # (m,) -> (m, 1); (B, m) -> (B, m, 1)
        b_bdim = None if b_bdim is None else 0
    out, out_bdim = matmul(prim, (a, b), (a_bdim, b_bdim), axis_size, **params)
    if ra == 1:  # out is batched at 0 with a logical rank >= 2 here
        out = lax.squeeze(out, axis=-2)
    if rb == 1:
        out = lax.squeeze(out, axis=-1)
    return out, out_bdim


def _fold_rows(prim, a, b, params):
    """``a @ b`` for a stack ``a`` and a matrix ``b`` as one GEMM over all rows of ``a``."""
    shape = lax.shape(a)
    rows = lax.reshape(a, (math.prod(shape[:-1]), shape[-1]))  # not -1: size-0 rows
    out = prim.bind(rows, b, **params)
    return lax.reshape(out, shape[:-1] + (lax.shape(out)[-1],))


def _fresh_letter(subscripts: str) -> str:
    for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA":
        if c not in subscripts:
            return c
    raise ValueError("einsum: no free subscript letter left for the batch axis")


def einsum(prim, args, x_bdims, axis_size, *, subscripts, **params):
    """Batch einsum by giving the batch axis its own letter, placed where it already is."""
    ins, out = subscripts.split("->")
    letter = _fresh_letter(subscripts)
    new_ins = [
        s if x_bdim is None else s[:x_bdim] + letter + s[x_bdim:]
        for s, x_bdim in zip(ins.split(","), x_bdims)
    ]
    new = ",".join(new_ins) + "->" + letter + out
    return prim.bind(*args, subscripts=new, **params), 0


def leading(prim, args, x_bdims, axis_size, **params):
    """Batch a one-operand matrix op that maps over leading axes (``numpy.linalg``'s
    ``inv``, ``det``, ``eigh``, ``svd``, ...): the batch axis goes to the front and the op
    runs once, batched.  Multiple-result ops return every result batched at 0."""
    (x,), (x_bdim,) = args, x_bdims
    out = prim.bind(move_bdim_to_front(x, x_bdim), **params)
    out_bdim = None if x_bdim is None else 0
    if prim.multiple_results:
        return out, (out_bdim,) * len(out)
    return out, out_bdim


def broadcasting_matrices(prim, args, x_bdims, axis_size, **params):
    """Batch an op over stacks of matrices whose leading axes broadcast (``solve``): each
    batched operand gets its batch axis at the front and size-1 axes after it up to the
    highest logical rank, so that the batch axis lines up across operands."""
    rank = max(logical_rank(x, x_bdim) for x, x_bdim in zip(args, x_bdims))
    args = [
        x if x_bdim is None else pad_rank_after_front(move_bdim_to_front(x, x_bdim), rank)
        for x, x_bdim in zip(args, x_bdims)
    ]
    return prim.bind(*args, **params), 0


def solve(prim, args, x_bdims, axis_size, **params):
    """Batch ``solve(a, b)``.  With ``a`` one unbatched matrix and ``b`` a batch of
    ``(n, k)`` matrices (``jacfwd``/``jacrev`` and every JVP/VJP rule built on ``solve``
    against a fixed matrix), the batch goes into the columns of ``b``: one factorization of
    ``a`` instead of one per batch element."""
    a, b = args
    a_bdim, b_bdim = x_bdims
    if a_bdim is None and b_bdim is not None and lax.ndim(a) == 2 and logical_rank(b, b_bdim) == 2:
        b = move_bdim_to(b, b_bdim, 1)
        n, size, k = lax.shape(b)
        out = prim.bind(a, lax.reshape(b, (n, size * k)), **params)
        return lax.reshape(out, (n, size, k)), 1
    return broadcasting_matrices(prim, args, x_bdims, axis_size, **params)


register_batch_rule(ops.matmul_p, matmul)
register_batch_rule(ops.einsum_p, einsum)
register_batch_rule(ops.solve_p, solve)
for _prim in (
    ops.inv_p,
    ops.adjugate_p,
    ops.det_p,
    ops.slogdet_p,
    ops.cholesky_p,
    ops.eigh_p,
    ops.eig_p,
    ops.svd_p,
    ops.qr_p,
    ops.pinv_p,
    scipy_ops.lu_row_order_p,
):
    register_batch_rule(_prim, leading)
