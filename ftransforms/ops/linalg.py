"""Linear-algebra primitives: ``matmul`` (operands of rank >= 2; ``ftransforms.numpy``
handles vectors) and ``einsum`` (explicit subscripts with ``->``, no ellipsis: the
``fnp.einsum`` front end expands them)."""

from __future__ import annotations

import ftransforms.numpy as fnp
from batching_rules import linalg as rules
from ftransforms.core.primitive import defop
from ftransforms.ops._util import unbroadcast

def _matmul_impl(xp, a, b):
    # A contraction of length 1 is an outer product: NumPy's stacked matmul does it
    # element by element, a broadcast multiply is many times faster (per-sample weight
    # gradients hit this case).
    if a.shape[-1] == 1 and b.shape[-2] == 1:
        return xp.multiply(a, b)
    return xp.matmul(a, b)


matmul_p = defop(
    "matmul",
    _matmul_impl,
    jvp=(
        lambda a_dot, y, a, b: matmul_p.bind(a_dot, b),
        lambda b_dot, y, a, b: matmul_p.bind(a, b_dot),
    ),
    vjp=(
        lambda g, y, a, b: unbroadcast(matmul_p.bind(g, fnp.swapaxes(b, -1, -2)), a),
        lambda g, y, a, b: unbroadcast(matmul_p.bind(fnp.swapaxes(a, -1, -2), g), b),
    ),
    batch=rules.matmul,
)


def _einsum_jvp(tangents, y, *operands, subscripts, optimize):
    out = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        ops = operands[:i] + (t,) + operands[i + 1 :]
        term = einsum_p.bind(*ops, subscripts=subscripts, optimize=optimize)
        out = term if out is None else out + term
    return out


def _fresh_letters(used: str):
    for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ":
        if c not in used:
            yield c


def _einsum_operand_cotangent(g, operands, ins, out, i, optimize):
    """Cotangent of operand ``i``: contract ``g`` with the other operands back to ``ins[i]``.

    A letter repeated within ``ins[i]`` (a diagonal) is renamed and tied to its original
    by an identity matrix; a letter found only in ``ins[i]`` (summed there and nowhere
    else) is broadcast back.
    """
    x = operands[i]
    sizes = {c: n for s, op in zip(ins, operands) for c, n in zip(s, op.shape)}
    fresh = _fresh_letters("".join(ins) + out)
    target = ""
    subs = [s for j, s in enumerate(ins) if j != i] + [out]
    ops = [op for j, op in enumerate(operands) if j != i] + [g]
    for c in ins[i]:
        if c in target:
            f = next(fresh)
            subs.append(c + f)
            ops.append(fnp.eye(sizes[c], dtype=g.dtype, like=g))
            target += f
        else:
            target += c
    available = set("".join(subs))
    kept = "".join(c for c in target if c in available)
    res = einsum_p.bind(*ops, subscripts=",".join(subs) + "->" + kept, optimize=optimize)
    if kept != target:
        res = fnp.reshape(res, tuple(sizes[c] if c in available else 1 for c in target))
        res = fnp.broadcast_to(res, x.shape)
    return unbroadcast(res, x)


def _einsum_vjp(g, y, *operands, subscripts, optimize, wanted):
    ins, out = subscripts.split("->")
    ins = ins.split(",")
    return tuple(
        _einsum_operand_cotangent(g, operands, ins, out, i, optimize) if want else None
        for i, want in enumerate(wanted)
    )


einsum_p = defop(
    "einsum",
    lambda xp, *operands, subscripts, optimize: xp.einsum(subscripts, *operands, optimize=optimize),
    jvp=_einsum_jvp,
    vjp=_einsum_vjp,
    batch=rules.einsum,
)

__all__ = ["einsum_p", "matmul_p"]
