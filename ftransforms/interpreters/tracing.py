"""The recording interpreter behind ``ftransforms.jit``.

It sits at the bottom of the stack (below every transform inside the jitted function),
evaluates each primitive eagerly on concrete arrays, and appends the backend call to a
flat program: ``(primitive, xp, argument references, settings, output references)``.
Replaying the program runs only the NumPy/CuPy calls, with no tracer and no rule.

NOTE [value-dependent traces]: a program is only valid for inputs that take the same
Python paths.  Any read of a traced value (``bool()``, ``int()``, a boolean mask, a rule
that peeks at the data such as ``x.at[i].set``'s duplicate check, a random draw) marks the
trace as value-dependent, and ``jit`` then runs that input signature eagerly instead of
replaying.  So does an operation on a tracer of an enclosing transform that the jitted
function closes over (``grad(lambda w: jit(lambda x: x * w)(x0))``): that value changes
from call to call without being an input.
"""

from __future__ import annotations

from typing import Any

import numpy

from ftransforms.backend import namespace_of
from ftransforms.core.primitive import REGISTRY
from ftransforms.core.stack import Interpreter
from ftransforms.core.tracer import Tracer
from ftransforms.program import Eqn


class TraceTracer(Tracer):
    """A concrete array known to the recorder as slot ``ref``."""

    __slots__ = ("val", "ref")

    def __init__(self, interp: TraceInterpreter, val: Any, ref: int) -> None:
        self._interp = interp
        self.val = val
        self.ref = ref

    @property
    def shape(self) -> tuple[int, ...]:
        return self.val.shape

    @property
    def dtype(self) -> Any:
        return self.val.dtype

    def _concrete(self) -> Any:
        self._interp.note_value_read(f"a Python read of a traced value {self!r}")
        return self.val

    def _physical(self) -> Any:
        return self.val

    def __repr__(self) -> str:
        return f"TraceTracer(%{self.ref}, shape={self.val.shape}, dtype={self.val.dtype})"


class TraceInterpreter(Interpreter):
    """Evaluates and records every backend call made on traced values."""

    __slots__ = ("program", "n_slots", "value_dependent", "reason", "chain", "diagonal")

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.program: list[tuple] = []
        # slot of a transpose/reshape result -> (op, the chain's source tracer, axes)
        self.chain: dict[int, tuple] = {}
        # slot of an ``identity * v`` result (the matrix diag(v)) -> the tracer of v
        self.diagonal: dict[int, TraceTracer] = {}
        self.n_slots = 0
        self.value_dependent = False
        self.reason = ""

    def new_input(self, value: Any) -> TraceTracer:
        self.n_slots += 1
        return TraceTracer(self, value, self.n_slots - 1)

    def note_value_read(self, reason: str) -> None:
        if not self.value_dependent:
            self.value_dependent = True
            self.reason = reason

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        vals = []
        refs = []
        for a in args:
            if type(a) is TraceTracer and a._interp is self:
                vals.append(a.val)
                refs.append(a.ref)
            else:
                vals.append(a)
                refs.append(None)
        if prim.effectful:
            self.note_value_read(f"the random primitive {prim.name!r}")
        if any(r is None and isinstance(v, Tracer) for v, r in zip(vals, refs)):
            self.note_value_read(
                f"{prim.name} uses a value of an enclosing transform (a closure over a "
                f"traced value), which a replay would not see"
            )
        xp = namespace_of(*vals)
        out = prim.impl(xp, *vals, **params)
        consts = tuple(v if r is None else None for v, r in zip(vals, refs))
        if prim.multiple_results:
            outs = tuple(self.new_input(o) for o in out)
            avals = tuple((o.shape, o.dtype) for o in out)
            self.program.append(
                Eqn(prim, xp, tuple(refs), consts, params, tuple(o.ref for o in outs), avals)
            )
            return outs
        same = _identity_operand(prim, vals, refs, out, params)
        if same is not None:
            return args[same]
        if _constant_result(prim, vals, refs, params):
            return out  # not recorded: a constant of this signature
        if prim.name == "matmul" and not params:
            scaled = self._diagonal_matmul(args, refs, out)
            if scaled is not None:
                return scaled
        chained = self.chain.get(refs[0]) if prim.name in ("transpose", "reshape") else None
        if chained is not None and chained[0] != prim.name:
            chained = None  # a transpose of a reshape (or the reverse): no folding
        if chained is not None:
            # transpose(transpose(x)) / reshape(reshape(x)): one op from x, or x itself
            inner, inner_axes = chained[1], chained[2]
            if out.shape == inner.val.shape and (
                prim.name == "reshape" or _compose(inner_axes, params["axes"]) == _ident(out)
            ):
                return inner
            if prim.name == "transpose":
                params = {"axes": _compose(inner_axes, params["axes"])}
            refs, consts = [inner.ref], (None,)
        o = self.new_input(out)
        aval = (out.shape, out.dtype)
        self.program.append(Eqn(prim, xp, tuple(refs), consts, params, o.ref, aval))
        if prim.name in ("transpose", "reshape") and refs[0] is not None:
            source = chained[1] if chained is not None else args[0]
            self.chain[o.ref] = (prim.name, source, params.get("axes"))
        if prim.name == "multiply" and out.ndim == 2 and out.shape[0] == out.shape[1]:
            for i in (0, 1):  # identity * v: the diagonal matrix diag(v)
                v, c = args[1 - i], vals[i]
                if refs[i] is None and refs[1 - i] is not None and _is_identity(c, out):
                    if v.val.shape in ((out.shape[0],), (1, out.shape[0]), (out.shape[0], 1)):
                        self.diagonal[o.ref] = v
        return o

    def _diagonal_matmul(self, args: tuple, refs: list, out: Any) -> Any:
        """``I @ x`` and ``x @ I`` are ``x``; ``diag(v) @ w`` is ``v[:, None] * w`` and
        ``w @ diag(v)`` is ``w * v``: jacrev/jacfwd/hessian multiply the identity basis
        into the first linear layer, an n^3 product for n^2 work.  (The results are the
        same numbers, except where ``w`` holds inf or nan: a product with the identity
        turns those into nan along the row, the rewrite does not.)"""
        a, b = args
        if out.ndim != 2 or a.ndim != 2 or b.ndim != 2:
            return None
        for i, other in ((0, b), (1, a)):
            if refs[i] is None and refs[1 - i] is not None and _is_identity(args[i], out):
                if _same_aval(other.val, out):
                    return other  # I @ x = x @ I = x
        multiply = REGISTRY["multiply"]
        reshape = REGISTRY["reshape"]
        for i in (0, 1):
            v = self.diagonal.get(refs[i]) if refs[i] is not None else None
            if v is None:
                continue
            n = out.shape[0] if i == 0 else out.shape[1]
            shape = (n, 1) if i == 0 else (n,)
            d = v if v.val.shape == shape else self.process(reshape, (v,), {"shape": shape})
            other = args[1 - i]
            pair = (d, other) if i == 0 else (other, d)
            result = self.process(multiply, pair, {})
            if _same_aval(getattr(result, "val", result), out):
                return result
        return None


def _is_one(c: Any) -> bool:
    if isinstance(c, (int, float)) and not isinstance(c, bool):
        return c == 1
    if isinstance(c, numpy.ndarray | numpy.generic) and c.dtype.kind in "iufc" and c.size:
        return bool(numpy.all(c == 1))
    return False


# -- peephole simplifications made while recording ----------------------------------------
#
# The recorder sees every concrete value, so it can tell when an op returns one of its
# traced operands unchanged (``x * 1`` from reverse mode's all-ones seeds, ``x ** 1``, a
# full slice from jacrev's chunking) or a constant (``x ** 0``): nothing is recorded and
# the operand (or the constant) stands for the result.  Chains of transposes or reshapes
# are folded into one op from the chain's source.


def _same_aval(x: Any, out: Any) -> bool:
    return getattr(x, "shape", None) == out.shape and getattr(x, "dtype", None) == out.dtype


def _ident(x: Any) -> tuple:
    return tuple(range(len(x.shape)))


def _compose(inner: tuple, outer: tuple) -> tuple:
    """Axes of ``transpose(transpose(x, inner), outer)`` as one transpose of ``x``."""
    return tuple(inner[a] for a in outer)


def _full_slices(index: Any, ndim: int) -> bool:
    return (
        isinstance(index, tuple)
        and len(index) <= ndim
        and all(type(i) is slice and i.step in (None, 1) for i in index)
    )


def _is_identity(c: Any, out: Any) -> bool:
    """``c`` is a constant identity matrix of ``out``'s size (jacrev/jacfwd's basis)."""
    if getattr(c, "ndim", 0) != 2 or c.shape != (out.shape[0],) * 2 or c.dtype.kind not in "fc":
        return False
    n = c.shape[0]
    if c[0, 0] != 1 or (n > 1 and c[0, 1] != 0):  # most constants fail here, at no cost
        return False
    xp = namespace_of(c)  # n ones on the diagonal and n nonzeros in all: no n x n temporary
    return bool((xp.diagonal(c) == 1).all()) and int(xp.count_nonzero(c)) == n


def _constant_result(prim: Any, vals: list, refs: list, params: dict) -> bool:
    """``x ** 0``: ones of ``x``'s shape whatever ``x`` holds (NumPy: nan ** 0 == 1)."""
    return (
        prim.name == "power"
        and refs[1] is None
        and isinstance(vals[1], (int, float))
        and not isinstance(vals[1], bool)
        and vals[1] == 0
    )


def _identity_operand(prim: Any, vals: list, refs: list, out: Any, params: dict) -> int | None:
    """The index of the traced operand that ``out`` equals exactly (see above), or None."""
    name = prim.name
    if name == "getitem" and refs[0] is not None and len(vals) == 1:
        x = vals[0]
        if _same_aval(x, out) and _full_slices(params["index"], x.ndim):
            return 0  # a slice of every axis with step 1 and the same length: all of it
        return None
    if name == "power" and refs[0] is not None and refs[1] is None:
        if isinstance(vals[1], int | float) and vals[1] == 1 and _same_aval(vals[0], out):
            return 0
        return None
    if name not in ("multiply", "divide") or len(vals) != 2:
        return None
    for i, j in ((0, 1), (1, 0)):
        if prim.name == "divide" and i == 1:
            break
        if refs[i] is None or refs[j] is not None or not _is_one(vals[j]):
            continue
        if _same_aval(vals[i], out):
            return i
    return None
