"""User-defined batching rules: :class:`custom_vmap` (``jax.custom_batching.custom_vmap``).

NOTE [custom_vmap]: a ``custom_vmap`` function looks at its arguments' tracers.  When the
highest-level one belongs to a ``vmap`` (so that ``vmap`` is the innermost transform the
call sees), the rule replaces the function for that level: it gets the batch size, which
arguments are batched and their values with the batch axis in front, one level down, and
its outputs are rewrapped at that level.  The rule's own operations are then seen by the
transforms below as usual, so nested ``vmap``s batch the rule (or, if it calls the
function again, apply the rule once more), ``grad(vmap(f))`` differentiates the rule, and
``jit`` records it.  A ``jvp`` level above the ``vmap`` (``vmap(jvp(f))``, ``jacfwd(f)``)
batches the jvp of the rule, as JAX does (NOTE [custom_vmap under jvp]).  Anywhere else (no
``vmap``, or a reverse level above the ``vmap`` as in ``vmap(grad(f))``) the function's own
body runs and is transformed by the
ordinary rules: where JAX raises for ``grad(f)`` and ``vmap(grad(f))``, we differentiate
the body.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ftransforms.core.errors import OutDimsError
from ftransforms.core.mutation import Buffer
from ftransforms.core.tracer import Tracer
from ftransforms.interpreters.batching import BatchInterpreter, BatchTracer
from ftransforms.interpreters.forward import DualTracer, ForwardInterpreter
from ftransforms.lax import move_bdim_to_front, shape
from ftransforms.pytree import tree_flatten, tree_unflatten

__all__ = ["custom_vmap"]


class custom_vmap:  # noqa: N801 - JAX's name, used as a decorator
    """A function with its own batching rule (``jax.custom_batching.custom_vmap``).

    ``@custom_vmap`` wraps ``fun``; ``@f.def_vmap`` gives the rule
    ``rule(axis_size, in_batched, *args) -> (out, out_batched)``: ``in_batched`` is a
    list with one pytree of bools per positional argument (whether each leaf has the
    batch axis, which comes first), and ``out_batched`` a pytree of bools matching
    ``out`` (a batched output carries the batch axis first).  Under ``vmap`` the rule
    replaces ``fun``; nested ``vmap``s, ``jit`` and ``grad`` of a ``vmap`` compose with
    it (NOTE [custom_vmap] in ``ftransforms/custom_batching.py``).  Outside ``vmap``,
    and under ``vmap`` of ``grad``, ``fun``'s body runs (JAX raises for those).

    Example:
        >>> import numpy as np
        >>> import ftransforms as ft
        >>> @custom_vmap
        ... def norm(x):
        ...     return np.sqrt((x * x).sum())
        >>> @norm.def_vmap
        ... def _(axis_size, in_batched, x):
        ...     return np.linalg.norm(x, axis=-1), in_batched[0]
        >>> ft.vmap(norm)(np.array([[3.0, 4.0], [6.0, 8.0]])).tolist()
        [5.0, 10.0]
        >>> ft.grad(norm)(np.array([3.0, 4.0])).round(6).tolist()  # the body's derivative
        [0.6, 0.8]
    """

    def __init__(self, fun: Callable) -> None:
        if not callable(fun):
            raise TypeError(f"custom_vmap(fun): fun must be callable, got {type(fun).__name__}")
        self.fun = fun
        self.vmap_rule: Callable | None = None
        functools.update_wrapper(self, fun)

    def def_vmap(self, rule: Callable) -> Callable:
        """Set the batching rule ``rule(axis_size, in_batched, *args) -> (out,
        out_batched)``; returns ``rule`` (so it can be a decorator).

        Example:
            >>> import numpy as np
            >>> f = custom_vmap(lambda x: x + 1.0)
            >>> _ = f.def_vmap(lambda n, batched, x: (x + 1.0, batched[0]))
            >>> f(np.zeros(2)).tolist()
            [1.0, 1.0]
        """
        if not callable(rule):
            raise TypeError(f"{self._name()}.def_vmap(rule): rule must be callable, got {rule!r}")
        self.vmap_rule = rule
        return rule

    def _name(self) -> str:
        return f"custom_vmap({getattr(self.fun, '__name__', 'f')})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:  # as JAX does: keyword arguments are bound to their positions
            bound = inspect.signature(self.fun).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        leaves, spec = tree_flatten(args)
        top = None
        for leaf in leaves:
            # a Buffer (an untransformed NumPy argument, NOTE [mutation semantics]) is a
            # plain value at every transform's level, not the innermost transform
            if (
                isinstance(leaf, Tracer)
                and type(leaf) is not Buffer
                and (top is None or leaf._interp.level > top.level)
            ):
                top = leaf._interp
        if isinstance(top, ForwardInterpreter) and self.vmap_rule is not None:
            return _jvp_call(self, top, leaves, spec)  # NOTE [custom_vmap under jvp]
        if not isinstance(top, BatchInterpreter):
            return self.fun(*args, **kwargs)
        if self.vmap_rule is None:
            raise TypeError(
                f"vmap of {self._name()}: no batching rule was given; define one with "
                f"@{getattr(self.fun, '__name__', 'f')}.def_vmap"
            )
        vals, batched = [], []
        for leaf in leaves:
            if type(leaf) is BatchTracer and leaf._interp is top:
                vals.append(move_bdim_to_front(leaf.val, leaf.bdim))
                batched.append(True)
            else:
                vals.append(leaf)
                batched.append(False)
        in_batched = list(tree_unflatten(spec, batched))
        result = self.vmap_rule(top.axis_size, in_batched, *tree_unflatten(spec, vals), **kwargs)
        if not isinstance(result, tuple) or len(result) != 2:
            raise TypeError(
                f"vmap of {self._name()}: the rule must return a pair (out, out_batched), got "
                f"{type(result).__name__}"
            )
        out, out_batched = result
        out_leaves, out_spec = tree_flatten(out)
        out_leaves = [x.val if type(x) is Buffer else x for x in out_leaves]  # a plain value
        flags, flags_spec = tree_flatten(out_batched)
        if flags_spec != out_spec or not all(isinstance(f, bool) for f in flags):
            raise OutDimsError(
                f"vmap of {self._name()}: the rule's out_batched must be a pytree of bools "
                f"with out's structure {out_spec}, got {out_batched!r}"
            )
        wrapped = []
        for leaf, flag in zip(out_leaves, flags):
            if flag:
                s = shape(leaf)
                if not s or s[0] != top.axis_size:
                    raise OutDimsError(
                        f"vmap of {self._name()}: an output marked batched must have the "
                        f"batch axis (size {top.axis_size}) first, got shape {s}"
                    )
                wrapped.append(BatchTracer(top, leaf, 0))
            else:
                wrapped.append(leaf)
        return tree_unflatten(out_spec, wrapped)


# NOTE [custom_vmap under jvp]: as in JAX, the JVP of a custom_vmap function is again a
# custom_vmap function, of (primals, tangents): its body is the jvp of ``fun`` and its rule
# the jvp of the user's rule, so that ``vmap(jvp(f))`` and ``jacfwd(f)`` (a vmap over the
# tangents) batch through the rule.  Inside that rule an argument whose primal or tangent
# is batched has both batched (the other broadcast), and every output and its tangent
# come out batched.


def _jvp_of(f: custom_vmap) -> custom_vmap:
    """The custom_vmap of ``(primals, tangents) -> (out, out_dot)`` for ``f``."""
    from ftransforms.api import jvp  # late import: the api module imports this one

    def body(primals: tuple, tangents: tuple) -> tuple:
        return jvp(f.fun, primals, tangents)

    jf = custom_vmap(body)

    def rule(axis_size: int, in_batched: list, primals: tuple, tangents: tuple) -> tuple:
        import ftransforms.numpy as fnp  # late import: ftransforms.numpy imports lax

        p_leaves, spec = tree_flatten(primals)
        t_leaves = tree_flatten(tangents)[0]
        pb, tb = tree_flatten(in_batched[0])[0], tree_flatten(in_batched[1])[0]
        both = [a or b for a, b in zip(pb, tb)]

        def front(x: Any, flag: bool, was: bool) -> Any:
            if flag and not was:
                return fnp.broadcast_to(x, (axis_size, *shape(x)))
            return x

        ps = [front(x, f_, b) for x, f_, b in zip(p_leaves, both, pb)]
        ts = [front(x, f_, b) for x, f_, b in zip(t_leaves, both, tb)]
        flags_box: list = []

        def ruled(*p: Any) -> Any:
            out, out_b = f.vmap_rule(axis_size, list(tree_unflatten(spec, both)), *p)
            flags_box.append(out_b)
            return out

        out_dot = jvp(ruled, tuple(tree_unflatten(spec, ps)), tuple(tree_unflatten(spec, ts)))[1]
        joint = tree_flatten(flags_box[0])[0]
        # the primal output as the rule gives it for the primals' own batching
        out, out_b = f.vmap_rule(axis_size, list(in_batched[0]), *primals)
        o_leaves, o_spec = tree_flatten(out)
        d_leaves = tree_flatten(out_dot)[0]
        d_new = [front(d, True, fl) for d, fl in zip(d_leaves, joint)]
        every = tree_unflatten(o_spec, [True] * len(d_new))
        return (out, tree_unflatten(o_spec, d_new)), (out_b, every)

    jf.def_vmap(rule)
    return jf


def _jvp_call(f: custom_vmap, top: ForwardInterpreter, leaves: list, spec: Any) -> Any:
    import ftransforms.numpy as fnp  # late import: ftransforms.numpy imports lax

    primals, tangents = [], []
    for leaf in leaves:
        if type(leaf) is DualTracer and leaf._interp is top:
            primals.append(leaf.primal)
            tangents.append(leaf.tangent)
        else:
            primals.append(leaf)
            tangents.append(fnp.zeros_like(leaf))
    out, out_dot = _jvp_of(f)(
        tuple(tree_unflatten(spec, primals)), tuple(tree_unflatten(spec, tangents))
    )
    o_leaves, o_spec = tree_flatten(out)
    d_leaves = tree_flatten(out_dot)[0]
    return tree_unflatten(o_spec, [DualTracer(top, o, d) for o, d in zip(o_leaves, d_leaves)])
