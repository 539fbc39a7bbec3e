"""The forward-mode interpreter behind ``jvp``: dual numbers ``(primal, tangent)``.

Values with a zero tangent are never wrapped; a rule sees their tangent as ``None`` (a
symbolic zero) and skips it, so constants cost no tangent arithmetic.
"""

from __future__ import annotations

from typing import Any

from ftransforms.core.primitive import end_quiet_derivatives, quiet_derivatives
from ftransforms.core.stack import Interpreter
from ftransforms.core.tracer import PrimalTracer


class DualTracer(PrimalTracer):
    """A primal value and its (non-zero) tangent, both of the primal's shape and dtype."""

    __slots__ = ()  # the layout is Tracer's (NOTE [mutation semantics])
    _payload = ("_interp", "primal", "tangent")

    def __init__(self, interp: ForwardInterpreter, primal: Any, tangent: Any) -> None:
        self._interp = interp
        self.primal = primal
        self.tangent = tangent

    def __repr__(self) -> str:
        return (
            f"DualTracer(level={self._interp.level}, primal={self.primal!r}, "
            f"tangent={self.tangent!r})"
        )


class ForwardInterpreter(Interpreter):
    """One ``jvp`` level: computes the primal and pushes tangents through JVP rules."""

    __slots__ = ()

    def process(self, prim: Any, args: tuple, params: dict) -> Any:
        primals = []
        tangents = []
        any_tangent = False
        for a in args:
            if type(a) is DualTracer and a._interp is self:
                primals.append(a.primal)
                tangents.append(a.tangent)
                any_tangent = True
            else:
                primals.append(a)
                tangents.append(None)
        if any_tangent and prim.jvp_joint is not None:
            out, out_dot = prim.jvp_joint(primals, tangents, **params)
            return tuple(o if t is None else DualTracer(self, o, t) for o, t in zip(out, out_dot))
        out = prim.bind(*primals, **params)
        if not any_tangent or prim.is_nondiff(params):
            return out
        quiet = quiet_derivatives()  # NOTE [floating-point warnings of derivatives]
        try:
            out_dot = prim.apply_jvp(primals, tangents, out, params)
        finally:
            end_quiet_derivatives(quiet)
        if prim.multiple_results:
            return tuple(o if t is None else DualTracer(self, o, t) for o, t in zip(out, out_dot))
        return out if out_dot is None else DualTracer(self, out, out_dot)
