"""The batching interpreter behind ``vmap``.

A :class:`BatchTracer` carries a physical value ``val`` with one extra axis, ``bdim``.
Values without a batch axis are never wrapped: they are plain lower-level values, and a
batching rule sees them with ``bdim=None`` and does no work for them.
"""

from __future__ import annotations

import warnings
from typing import Any

# The module, not its rule: ``import batching_rules`` first (as tests do) imports
# ftransforms, and so this module, while batching_rules.elementwise is still loading.
import batching_rules.elementwise as _elementwise_rules
from batching_rules.fallback import loop_and_stack
from ftransforms.core.errors import BatchedControlFlowError, UnsupportedOperationError
from ftransforms.core.stack import Interpreter
from ftransforms.core.tracer import Tracer


class BatchTracer(Tracer):
    """A value batched along physical axis ``bdim`` (a non-negative int) of ``val``."""

    __slots__ = ("val", "bdim")

    def __init__(self, interp: BatchInterpreter, val: Any, bdim: int) -> None:
        self._interp = interp
        self.val = val
        self.bdim = bdim

    @property
    def shape(self) -> tuple[int, ...]:
        s = self.val.shape
        return s[: self.bdim] + s[self.bdim + 1 :]

    @property
    def ndim(self) -> int:
        return self.val.ndim - 1

    @property
    def dtype(self) -> Any:
        return self.val.dtype

    def _concrete(self) -> Any:
        raise BatchedControlFlowError(
            f"{self._interp.name}: a batched value has no single truth value (bool(), if, "
            f"while or `and`/`or` on a value that differs across the batch).  Use "
            f"ft.cond(pred, true_fun, false_fun, *operands) for a branch and "
            f"ft.while_loop(cond_fun, body_fun, init) for a loop (each row takes its own "
            f"path), or express the choice as data with fnp.where(condition, a, b)."
        )

    _conversion_fix = (
        "A batched value holds one number per batch element: keep it as an array (fnp.* "
        "works on 0-d arrays), or return it from the vmapped function and convert the result."
    )

    def _physical(self) -> Any:
        v = self.val
        return v._physical() if isinstance(v, Tracer) else v

    def __repr__(self) -> str:
        return (
            f"BatchTracer(level={self._interp.level}, bdim={self.bdim}, "
            f"batch_size={self._interp.axis_size}, val={self.val!r})"
        )


class BatchInterpreter(Interpreter):
    """One ``vmap`` level: applies each primitive's batching rule."""

    __slots__ = ("axis_size", "randomness", "axis")

    def __init__(
        self, name: str, axis_size: int, randomness: str = "error", axis: tuple | None = None
    ) -> None:
        super().__init__(name)
        self.axis_size = axis_size
        self.randomness = randomness
        # ``(axis_name, xp)`` of ``vmap(..., axis_name=)``, else None (NOTE [collectives
        # under vmap] in ftransforms/lax.py)
        self.axis = axis

    def axis_index(self) -> BatchTracer:
        """Each row's position along this level's named axis (``arange`` batched here)."""
        return BatchTracer(self, self.axis[1].arange(self.axis_size), 0)

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        rule = prim.batch
        if rule is _elementwise_rules.elementwise:
            # NOTE [elementwise under vmap]: the family rule's fast path, decided here
            # without building the value and batch-axis lists or calling the rule: a unary
            # op; two values batched on the same axis with the same rank; one batched value
            # with an unbatched one (a scalar, a bias) too short to reach its batch axis
            # when right-aligned.  The op maps over the batch axis where it is, and the
            # result is what the rule (batching_rules/elementwise.py) returns.
            n = len(args)
            if n == 1:
                a = args[0]
                if type(a) is BatchTracer and a._interp is self:
                    return BatchTracer(self, prim.bind(a.val, **params), a.bdim)
            elif n == 2:
                a, b = args
                if type(a) is BatchTracer and a._interp is self:
                    av = a.val
                    d = a.bdim
                    if type(b) is BatchTracer and b._interp is self:
                        bv = b.val
                        if d == b.bdim and av.ndim == bv.ndim:
                            return BatchTracer(self, prim.bind(av, bv, **params), d)
                    else:
                        rank = 0 if type(b) in _SCALARS else getattr(b, "ndim", None)
                        if rank is not None and rank < av.ndim - d:
                            return BatchTracer(self, prim.bind(av, b, **params), d)
                elif type(b) is BatchTracer and b._interp is self:
                    bv = b.val
                    d = b.bdim
                    rank = 0 if type(a) in _SCALARS else getattr(a, "ndim", None)
                    if rank is not None and rank < bv.ndim - d:
                        return BatchTracer(self, prim.bind(a, bv, **params), d)
        if len(args) == 2:  # list displays, not appends (the rules receive lists)
            a, b = args
            if type(a) is BatchTracer and a._interp is self:
                if type(b) is BatchTracer and b._interp is self:
                    vals = [a.val, b.val]
                    bdims = [a.bdim, b.bdim]
                else:
                    vals = [a.val, b]
                    bdims = [a.bdim, None]
            elif type(b) is BatchTracer and b._interp is self:
                vals = [a, b.val]
                bdims = [None, b.bdim]
            else:
                vals = [a, b]
                bdims = [None, None]
        else:
            vals = []
            bdims = []
            for a in args:
                if type(a) is BatchTracer and a._interp is self:
                    vals.append(a.val)
                    bdims.append(a.bdim)
                else:
                    vals.append(a)
                    bdims.append(None)
        if rule is None:
            rule = _fallback_rule(prim)
        out, out_bdim = rule(prim, vals, bdims, self.axis_size, **params)
        if prim.multiple_results:
            return tuple(o if d is None else BatchTracer(self, o, d) for o, d in zip(out, out_bdim))
        return out if out_bdim is None else BatchTracer(self, out, out_bdim)


#: Python scalars: they broadcast against any value without reaching its batch axis.
_SCALARS = frozenset({int, float, complex, bool})


# -- the loop-and-stack fallback -------------------------------------------------------

#: When False, an op without a batching rule raises instead of looping (the op database
#: tests switch it off so that no built-in op can rely on the fallback).
FALLBACK = {"enabled": True, "warned": set()}


def _fallback_rule(prim: Any):
    if not FALLBACK["enabled"]:
        raise UnsupportedOperationError(
            f"vmap: the primitive {prim.name!r} has no batching rule and the loop fallback "
            f"is switched off; register one in batching_rules/ (register_batch_rule), or "
            f"give its defop family=... or batch=..."
        )
    if prim.name not in FALLBACK["warned"]:
        FALLBACK["warned"].add(prim.name)
        warnings.warn(
            f"vmap: performance drop: {prim.name!r} has no batching rule, so it runs as a "
            f"Python loop over the batch.  Register a rule in batching_rules/ "
            f"(register_batch_rule), or give its defop family=... or batch=..., to fix this.",
            RuntimeWarning,
            stacklevel=4,
        )
    return loop_and_stack
