"""User-defined derivative rules: :class:`custom_jvp` and :class:`custom_vjp` (JAX's API).

Each decorated function becomes a primitive whose rules are the user's functions of
arrays.  Under ``vmap`` the function and its rules are vectorized with ``vmap`` itself
(every input is given a leading batch axis), so custom rules compose with batching; in
reverse mode a ``custom_jvp`` rule is transposed by running ``vjp`` over its (linear)
tangent map.  A ``custom_vjp`` function cannot be forward-differentiated (as in JAX).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy
import optree

import ftransforms.numpy as fnp
from ftransforms.api import vjp as _vjp
from ftransforms.api import vmap
from ftransforms.arguments import FLOAT0, structure_str
from ftransforms.boundary import transform_inputs, transform_outputs
from ftransforms.core.errors import ArgnumsError, InPlaceError, TangentMismatchError
from ftransforms.core.mutation import Buffer, assign, mutable, snapshot, written
from ftransforms.core.primitive import Primitive
from ftransforms.core.tracer import Tracer
from ftransforms.interpreters.batching import BatchTracer
from ftransforms.interpreters.forward import DualTracer
from ftransforms.interpreters.reverse import ReverseTracer
from ftransforms.lax import ensure_bdim
from ftransforms.numpy.helpers import dtype_of
from ftransforms.pytree import (
    NAMESPACE,
    register_pytree_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_unflatten,
)

__all__ = ["CustomVJPPrimal", "SymbolicZero", "custom_jvp", "custom_vjp"]


class _Spec:
    """Output structure, learnt when the function first runs."""

    __slots__ = ("out", "res", "n_out")

    def __init__(self) -> None:
        self.out = self.res = None
        self.n_out = 0


def _front(args, bdims, axis_size):
    return [ensure_bdim(a, d, axis_size) for a, d in zip(args, bdims)]


def _as_arrays(args: tuple, where: str) -> tuple[list, Any]:
    leaves, spec = tree_flatten(transform_inputs(args))
    out = []
    for leaf in leaves:
        if isinstance(leaf, (bool, int, float, complex)):
            leaf = fnp.asarray(leaf)
        elif not (isinstance(leaf, Tracer) or hasattr(leaf, "dtype")):
            raise TypeError(
                f"{where}: arguments must be arrays (or pytrees of arrays), got "
                f"{type(leaf).__name__}; close over other values instead of passing them"
            )
        out.append(leaf)
    return out, spec


def _differentiated(leaves: list) -> tuple[bool, bool]:
    """(some leaf is differentiated forward, some leaf is differentiated in reverse), at
    any depth of nesting.  Without either, a custom function is just its body: batching
    traces through it, which also keeps ``fwd`` calling the function itself finite."""

    fwd = rev = False
    for x in leaves:
        while isinstance(x, Tracer):
            if type(x) is DualTracer:
                fwd, x = True, x.primal
            elif type(x) is ReverseTracer:
                rev, x = True, x.value
            elif type(x) is BatchTracer:
                x = x.val
            else:
                break
    return fwd, rev


def _inexact(x: Any) -> bool:
    return dtype_of(x).kind in "fc"


def _arguments_kept(
    fn: Callable, name: str, what: str, returned: dict, pair: bool, ran: list | None = None
) -> Callable:
    """``fn`` (the function, or ``fwd``, of a differentiated custom function) called on its
    own copies of its argument leaves: a NumPy array as a buffer, a tracer as a new object
    (NOTE [mutation semantics]), so that a write inside reaches neither the caller's arrays
    nor the values the transforms hold.  An argument written into and returned as an
    output (``x -= x.max(); ...; return x``) is recorded in ``returned`` (argument leaf ->
    output leaf): the caller's argument becomes that output, derivative included, as NumPy
    leaves it the returned array.  One written and not returned would have a new value
    without a derivative (the rules give the outputs' only): InPlaceError.  ``pair``:
    ``fn`` returns ``(outputs, residuals)`` (``fwd``); ``ran`` (if given) gets an entry
    each time ``fn`` runs to its end."""

    def call(*args: Any) -> Any:
        leaves, spec = tree_flatten(args)
        own = [_own_copy(v) for v in leaves]
        before = [snapshot(v) for v in own]
        out = fn(*tree_unflatten(spec, own))
        for k, (v, was) in enumerate(zip(own, before)):
            if not written(v, was):
                continue
            outs = tree_flatten(out[0] if pair else out)[0]
            j = next((j for j, o in enumerate(outs) if o is v), None)
            if j is None:
                raise InPlaceError(
                    f"{name}: {what} wrote into its argument (leaf {k}) and did not return "
                    f"it, while it is differentiated; the custom rule gives the derivative of "
                    f"the outputs only, so the argument's new value would have none; write "
                    f"into a copy (x = x.copy()) or return the argument as an output"
                )
            returned[k] = j
        if ran is not None:
            ran.append(True)
        return out

    return call


def _own_copy(v: Any) -> Any:
    if type(v) is Buffer:
        v = v.val
    out = mutable(v)
    if out is v and type(v) is numpy.ndarray:
        return v.copy()  # (no buffer scope: a plain copy, the caller's array kept)
    return out


def _write_back(returned: dict, leaves: list, outs: list) -> None:
    """The arguments the function wrote into and returned become those outputs."""
    for k, j in returned.items():
        if isinstance(leaves[k], Tracer):
            assign(leaves[k], outs[j])


class SymbolicZero:
    """A tangent known to be zero, given to a ``custom_jvp`` rule set with
    ``defjvp(rule, symbolic_zeros=True)`` in place of the zero array of an input that is
    not differentiated (JAX's ``jax.custom_derivatives.SymbolicZero``).  It has the
    tangent's ``shape``, ``dtype`` and ``ndim``; the rule may return one as a tangent
    output too.  ``SymbolicZero.from_primal_value(x)`` makes the one of ``x``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import custom_jvp, grad
        >>> f = custom_jvp(lambda x, y: x * y)
        >>> def f_jvp(primals, tangents):
        ...     (x, y), (tx, ty) = primals, tangents
        ...     assert isinstance(ty, SymbolicZero)  # y is not differentiated below
        ...     return x * y, tx * y
        >>> _ = f.defjvp(f_jvp, symbolic_zeros=True)
        >>> float(grad(f)(2.0, 3.0))
        3.0
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple, dtype: Any) -> None:
        self.shape, self.dtype = tuple(shape), numpy.dtype(dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @staticmethod
    def from_primal_value(x: Any) -> SymbolicZero:
        dt = dtype_of(x)
        return SymbolicZero(fnp.shape(x), dt if dt.kind in "fc" else FLOAT0)

    def __repr__(self) -> str:
        return f"SymbolicZero(shape={self.shape}, dtype={self.dtype})"


# A container with no leaves: vmap passes it through a rule untouched (NOTE [symbolic
# zeros in custom_jvp rules] below).
register_pytree_node(
    SymbolicZero, lambda z: ((), (z.shape, z.dtype)), lambda a, _: SymbolicZero(*a)
)


def _tangent_leaves(t_out: Any, y: tuple, name: str, unbatched: bool) -> tuple:
    """A rule's tangent outputs as arrays of ``y``'s shapes and dtypes; a
    ``SymbolicZero`` among them becomes zeros.

    NOTE [symbolic zeros in custom_jvp rules]: with ``symbolic_zeros=True`` the rule gets
    a ``SymbolicZero`` for each input whose tangent is known to be zero (an input not
    differentiated: its tangent is ``None`` in the forward rule, and not ``wanted`` in
    the reverse rule, where the tangent map is linearized in the wanted inputs only).
    Under ``vmap`` the rule is vmapped: a ``SymbolicZero`` is a pytree without leaves, so
    it passes through unbatched, with the per-example shape (``unbatched``: the batched
    rule drops the leading batch axis of the shape it describes)."""
    t_leaves = optree.tree_leaves(
        transform_outputs(t_out),
        is_leaf=lambda v: isinstance(v, SymbolicZero),
        namespace=NAMESPACE,
    )
    if len(t_leaves) != len(y):
        raise TangentMismatchError(
            f"{name}: the JVP rule returned {len(t_leaves)} tangent output leaves for "
            f"{len(y)} primal output leaves; return one tangent per output, with its structure"
        )
    return tuple(
        fnp.zeros_like(yi)
        if isinstance(t, SymbolicZero)
        else _like(t, yi, name, f"the JVP rule's tangent output {k}", "primal output")
        for k, (t, yi) in enumerate(zip(t_leaves, y))
    )


def _described(value: Any) -> str:
    """``value``'s kind for an error message: a tuple's length, an array's shape."""
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of length {len(value)}"
    if hasattr(value, "shape"):
        return f"a single array of shape {tuple(value.shape)}"
    return type(value).__name__


def _rule_pair(result: Any, name: str, primal_checked: Callable | None = None) -> None:
    """A JVP rule's ``(primal_out, tangent_out)``: a pair whose halves have one structure
    (JAX's check; a ``SymbolicZero`` is one leaf), once ``primal_checked`` (the check of
    the primal half against the function's outputs, when known) passes."""
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise TangentMismatchError(
            f"{name}: the JVP rule must return a pair (primal_out, tangent_out), got "
            f"{_described(result)}"
        )
    if primal_checked is not None:
        primal_checked()
    primal = optree.tree_structure(result[0], namespace=NAMESPACE)
    tangent = optree.tree_structure(
        result[1], is_leaf=lambda v: isinstance(v, SymbolicZero), namespace=NAMESPACE
    )
    if primal != tangent and primal.num_leaves == tangent.num_leaves:  # (else: counted)
        raise TangentMismatchError(
            f"{name}: the JVP rule's primal and tangent outputs must have one structure, but "
            f"the primal output is {structure_str(spec=primal)} and the tangent output is "
            f"{structure_str(spec=tangent)}; return the tangent in the primal output's structure"
        )


def _rule_tangents(result: Any, y: tuple, name: str) -> Any:
    """The tangent half of a JVP rule's ``(primal_out, tangent_out)``, once its primal half
    is checked against the function's outputs (as many leaves, the same shapes: as JAX
    checks); the primal values used are the function's own."""

    def primal_checked() -> None:
        p_leaves = tree_leaves(transform_outputs(result[0]))
        if len(p_leaves) != len(y) or any(
            fnp.shape(p) != fnp.shape(v) for p, v in zip(p_leaves, y)
        ):
            raise TangentMismatchError(
                f"{name}: the JVP rule's primal output has {len(p_leaves)} leaves of shapes "
                f"{[fnp.shape(p) for p in p_leaves]}, but the function returns {len(y)} of "
                f"shapes {[fnp.shape(v) for v in y]}; return f(*primals) (or the same values) "
                f"first"
            )

    _rule_pair(result, name, primal_checked)
    return result[1]


def _fwd_pair(result: Any, name: str) -> Any:
    """A custom_vjp fwd rule's ``(out, residuals)``, or a TangentMismatchError."""
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise TangentMismatchError(
            f"{name}: the fwd rule must return a pair (out, residuals), got "
            f"{_described(result)}; return e.g. (f(x), (x,))"
        )
    return result


def _symbolic_zero(x: Any, batched: bool) -> SymbolicZero:
    z = SymbolicZero.from_primal_value(x)
    return SymbolicZero(z.shape[1:], z.dtype) if batched else z


class _CustomBase:
    """What ``custom_jvp`` and ``custom_vjp`` share: keyword arguments resolved to
    positions (with the defaults filled in, as JAX does) and ``nondiff_argnums``."""

    def __init__(
        self, fun: Callable, nondiff_argnums: Any, kind: str, nondiff_argnames: Any = ()
    ) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self._name = f"{kind}({getattr(fun, '__name__', 'f')})"
        nums = (nondiff_argnums,) if isinstance(nondiff_argnums, int) else nondiff_argnums
        if not isinstance(nums, (tuple, list)) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in nums
        ):
            raise ArgnumsError(
                f"{self._name}: nondiff_argnums must be a tuple of ints, got {nondiff_argnums!r}"
            )
        try:
            self._sig: inspect.Signature | None = inspect.signature(fun)
        except (TypeError, ValueError):
            self._sig = None
        params = list(self._sig.parameters.values()) if self._sig is not None else []
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        self._n_positional = sum(p.kind in positional for p in params)
        # JAX's nondiff_argnames: the positions of those parameters, added to nondiff_argnums
        names = (nondiff_argnames,) if isinstance(nondiff_argnames, str) else nondiff_argnames
        where = {p.name: k for k, p in enumerate(params) if p.kind in positional}
        unknown = [n for n in names if n not in where]
        if unknown:
            raise ArgnumsError(
                f"{self._name}: nondiff_argnames={tuple(names)!r} names no positional "
                f"parameter of the function: {unknown} (its positional parameters are "
                f"{list(where)})"
            )
        self.nondiff_argnums = tuple(sorted(set(nums) | {where[n] for n in names}))

    def _positional(self, args: tuple, kwargs: dict) -> tuple:
        """``args`` and ``kwargs`` as one tuple of positional arguments."""
        if not kwargs and (self._sig is None or len(args) >= self._n_positional):
            return args
        if self._sig is None:
            raise TypeError(
                f"{self._name}: keyword arguments need a function whose signature can be "
                f"read; pass the arguments positionally"
            )
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"{self._name}: {err}") from None
        passed = sorted(k for k in bound.kwargs if k in kwargs)
        if passed:
            raise TypeError(
                f"{self._name}: keyword-only arguments {passed} cannot be resolved to "
                f"positions; make them positional parameters"
            )
        # the keyword-only parameters not passed keep their defaults in the call (as in
        # JAX: custom_jvp(np.sin)(x), whose where=/casting=... are keyword-only)
        bound.apply_defaults()
        return tuple(bound.args)

    def _split(self, args: tuple) -> tuple[tuple, Callable]:
        """(the differentiated arguments, a function putting the nondiff ones back)."""
        n = len(args)
        for i in self.nondiff_argnums:
            if not -n <= i < n:
                raise ArgnumsError(
                    f"{self._name}: nondiff_argnums={self.nondiff_argnums!r} is out of range "
                    f"for a call with {n} positional argument(s)"
                )
        fixed = sorted({i % n for i in self.nondiff_argnums})
        static = tuple(args[i] for i in fixed)
        dyn = tuple(a for i, a in enumerate(args) if i not in fixed)

        def merge(d: tuple) -> tuple:
            it_d, it_s, out = iter(d), iter(static), []
            for i in range(n):
                out.append(next(it_s) if i in fixed else next(it_d))
            return tuple(out)

        merge.static = static  # type: ignore[attr-defined]
        return dyn, merge


# -- custom_jvp --------------------------------------------------------------------------


def _custom_jvp_primitive(
    fun,
    rule,
    in_spec,
    spec: _Spec,
    name: str,
    symbolic: bool = False,
    batched: bool = False,
    joint: bool = False,
) -> Primitive:
    def impl(xp, *leaves):
        out_leaves, spec.out = tree_flatten(
            transform_outputs(fun(*tree_unflatten(in_spec, leaves)))
        )
        return _array_leaves(xp, out_leaves)

    def call_rule(tangents, leaves):
        # the rule may write into what it gets (``t = t.copy(); t *= 2``), as a transformed
        # function may: plain arrays as buffers, tracers as new objects (mutation.mutable)
        tangents = [
            (_symbolic_zero(x, batched) if symbolic else mutable(fnp.zeros_like(x)))
            if t is None
            else mutable(t)
            for t, x in zip(tangents, leaves)
        ]
        primals = tree_unflatten(in_spec, [mutable(x) for x in leaves])
        return rule(tuple(primals), tuple(tree_unflatten(in_spec, tangents)))

    def jvp(tangents, y, *leaves, pullback=None):
        result = call_rule(tangents, leaves)
        return _tangent_leaves(_rule_tangents(result, y, name), y, name, batched)

    def jvp_joint(primals, tangents):
        # NOTE [custom_jvp calls only its rule under differentiation]: as in JAX, jvp and
        # vjp of a custom_jvp function run the rule alone and take the outputs from its
        # primal half (forward mode: ``jvp_joint``; reverse mode: ``vjp_joint``, which
        # linearizes the rule in its live tangents once and keeps the pullback on the
        # tape); running the function as well would double the cost and repeat its side
        # effects.  One thing only the function tells: which arguments it writes into and
        # returns (NumPy code, ``x -= x.max(); ...; return x``), which the caller's arrays
        # then become.  So the first differentiated call for an input structure runs the
        # function and then the rule (``impl`` + ``jvp``/``vjp``), learning that in
        # ``custom_jvp._writes``; the later ones use the joint rules and write back what
        # was learnt.  Undifferentiated calls and ``vmap`` alone run the function only.
        result = call_rule(tangents, primals)
        _rule_pair(result, name)
        y_leaves, spec.out = tree_flatten(transform_outputs(result[0]))
        y = tuple(fnp.asarray(v) if not isinstance(v, Tracer) else v for v in y_leaves)
        return y, _tangent_leaves(result[1], y, name, batched)

    def vjp_joint(leaves, wanted):
        # (NOTE [custom_jvp calls only its rule under differentiation])
        live = [k for k, (w, x) in enumerate(zip(wanted, leaves)) if w and _inexact(x)]
        held: list = []

        def tangent_map(*live_tangents):
            tangent_leaves = [None] * len(leaves)
            for k, t in zip(live, live_tangents):
                tangent_leaves[k] = t
            result = call_rule(tangent_leaves, leaves)
            _rule_pair(result, name)
            y_leaves, spec.out = tree_flatten(transform_outputs(result[0]))
            held[:] = [fnp.asarray(v) if not isinstance(v, Tracer) else v for v in y_leaves]
            return _tangent_leaves(result[1], tuple(held), name, batched)

        _, pullback = _vjp(tangent_map, *[fnp.zeros_like(leaves[k]) for k in live])
        return tuple(held), (live, pullback)

    def vjp(y_bar, y, *leaves, wanted, pullback=None):
        if pullback is not None:  # from vjp_joint
            live, back = pullback
            ct = tuple(fnp.zeros_like(yi) if b is None else b for b, yi in zip(y_bar, y))
            cts = dict(zip(live, back(ct)))
            return tuple(cts.get(k) if w else None for k, w in enumerate(wanted))
        # the tangent map is linear in the tangents of the inputs it is pulled back to; with
        # symbolic zeros, only the wanted ones are its inputs (the others are SymbolicZero)
        live = [
            k for k, (w, x) in enumerate(zip(wanted, leaves)) if not symbolic or (w and _inexact(x))
        ]

        def tangent_map(*live_tangents):
            tangent_leaves = [_symbolic_zero(x, batched) for x in leaves] if symbolic else []
            tangent_leaves = tangent_leaves or [None] * len(leaves)
            for k, t in zip(live, live_tangents):
                tangent_leaves[k] = mutable(t)
            given = tuple(tree_unflatten(in_spec, [mutable(x) for x in leaves]))
            result = rule(given, tuple(tree_unflatten(in_spec, tangent_leaves)))
            return _tangent_leaves(_rule_tangents(result, y, name), y, name, batched)

        zeros = [fnp.zeros_like(leaves[k]) for k in live]
        ct = tuple(fnp.zeros_like(yi) if b is None else b for b, yi in zip(y_bar, y))
        _, pullback = _vjp(tangent_map, *zeros)
        cts = dict(zip(live, pullback(ct)))
        return tuple(
            cts.get(k) if w and _inexact(x) else None
            for k, (w, x) in enumerate(zip(wanted, leaves))
        )

    def batch(prim, args, bdims, axis_size):
        batched_prim = _custom_jvp_primitive(
            vmap(fun), vmap(rule), in_spec, spec, name + "_batched", symbolic, True, joint
        )
        outs = batched_prim.bind(*_front(args, bdims, axis_size))
        return outs, (0,) * len(outs)

    return Primitive(
        name,
        impl,
        jvp=jvp,
        jvp_joint=jvp_joint if joint else None,
        vjp=vjp,
        vjp_joint=vjp_joint if joint else None,
        batch=batch,
        multiple_results=True,
    )


_NUMBERS = (bool, int, float, complex, numpy.generic)


def _array_leaves(xp: Any, leaves: list) -> tuple:
    """The outputs (and residuals) of a rule's primitive as arrays: a Python or NumPy
    number (a count kept as a residual, a constant output) becomes a 0-d array, as JAX
    makes it, so that every interpreter, ``jit``'s recording included, sees arrays."""
    return tuple(xp.asarray(v) if isinstance(v, _NUMBERS) else v for v in leaves)


def _check_cotangent_shape(c, x, name, k) -> None:
    """A cotangent nobody asked for (an input not differentiated) must still fit its input
    (JAX checks every one); it is dropped."""
    if fnp.shape(c) != fnp.shape(x):
        _like(c, x, name, f"the bwd rule's cotangent leaf {k}", "input leaf")


def _like(t, y, name, what, ref):
    """A rule's tangent/cotangent ``t`` in the dtype of ``y``, whose shape it must have
    (as JAX checks: a missing ``.sum()`` or a wrong slice is the user's bug, not a value to
    broadcast or a NumPy broadcasting error from deep inside the backward pass)."""
    if fnp.shape(t) != fnp.shape(y):
        raise TangentMismatchError(
            f"{name}: {what} has shape {fnp.shape(t)} but the {ref} has shape "
            f"{fnp.shape(y)}; a rule must return one value of that shape per "
            f"{ref.split()[0]} (reduce or broadcast it in the rule)"
        )
    if dtype_of(t) == FLOAT0:  # JAX's zero of an integer value (zero_from_primal)
        if _inexact(y):
            raise TangentMismatchError(
                f"{name}: {what} has JAX's float0 dtype (the zero of an integer value) but "
                f"the {ref} has dtype {dtype_of(y)}; return zeros of that dtype"
            )
        return fnp.zeros_like(y)
    return fnp.astype(t, dtype_of(y))


class custom_jvp(_CustomBase):  # noqa: N801  (JAX's name)
    """A function with a user-defined JVP rule.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> @custom_jvp
        ... def log1pexp(x):
        ...     return np.log1p(np.exp(x))
        >>> @log1pexp.defjvp
        ... def _(primals, tangents):
        ...     (x,), (t,) = primals, tangents
        ...     return log1pexp(x), t * (1 - 1 / (1 + np.exp(x)))
        >>> float(grad(log1pexp)(100.0))
        1.0

    As in JAX: keyword arguments are resolved to positions (defaults filled in) before
    the rule sees them; the arguments in ``nondiff_argnums`` (functions, ints, settings)
    are not differentiated and come first: ``rule(*nondiff, primals, tangents)``, where
    ``primals``/``tangents`` hold the other arguments; ``defjvps(*jvps)`` gives one
    ``jvp_i(tangent_i, primal_out, *primals)`` per argument (``None``: no dependence).
    """

    def __init__(
        self, fun: Callable, nondiff_argnums: Any = (), nondiff_argnames: Any = ()
    ) -> None:
        super().__init__(fun, nondiff_argnums, "custom_jvp", nondiff_argnames)
        self.jvp_rule: Callable | None = None
        self.symbolic_zeros = False
        # input structure -> the arguments the function writes and returns (NOTE
        # [custom_jvp calls only its rule under differentiation])
        self._writes: dict = {}

    def defjvp(self, rule: Callable, symbolic_zeros: bool = False) -> Callable:
        """Set ``rule(primals, tangents) -> (primal_out, tangent_out)``; the tangent of an
        input that has none is a zero array, or with ``symbolic_zeros=True`` (JAX's) a
        :class:`SymbolicZero`, which the rule may also return."""
        self.jvp_rule = rule
        self.symbolic_zeros = bool(symbolic_zeros)
        return rule

    def defjvps(self, *jvps: Callable | None) -> None:
        """Set the JVP as a sum of one term per argument: ``jvps[i](tangent_i,
        primal_out, *primals)``, or ``None`` for an argument the output does not depend
        on (JAX's ``defjvps``).  With ``nondiff_argnums`` it raises, as JAX does: use
        ``defjvp``, whose rule takes the non-differentiated arguments first."""
        if self.nondiff_argnums:
            raise TypeError(
                f"{self._name}.defjvps: can't use defjvps with nondiff_argnums="
                f"{self.nondiff_argnums!r} (its JVP functions would not see those "
                f"arguments); use defjvp, whose rule is called as rule(*nondiff_args, "
                f"primals, tangents)"
            )

        def rule(*args: Any) -> tuple:
            *static, primals, tangents = args
            if len(jvps) != len(primals):
                raise TypeError(
                    f"{self._name}.defjvps: got {len(jvps)} JVP functions for "
                    f"{len(primals)} differentiated arguments; give one each (None for none)"
                )
            out = self.fun(*(tuple(static) + tuple(primals)))
            total = None
            for jvp_i, t in zip(jvps, tangents):
                if jvp_i is None:
                    continue
                term = jvp_i(t, out, *primals)
                total = term if total is None else tree_map(fnp.add, total, term)
            return out, tree_map(fnp.zeros_like, out) if total is None else total

        self.jvp_rule = rule
        self.symbolic_zeros = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = self._name
        if self.jvp_rule is None:
            raise TypeError(f"{name}: no JVP rule; decorate one with @{name[11:-1]}.defjvp")
        args = self._positional(args, kwargs)
        fun, rule = self.fun, self.jvp_rule
        if self.nondiff_argnums:
            args, merge = self._split(args)
            static = merge.static

            def fun(*d: Any) -> Any:
                return self.fun(*merge(d))

            def rule(primals: tuple, tangents: tuple) -> Any:
                return self.jvp_rule(*static, primals, tangents)

        leaves, in_spec = _as_arrays(args, name)
        if not any(_differentiated(leaves)):
            return transform_outputs(fun(*args))
        known = self._writes.get(in_spec)
        returned: dict = {}
        ran: list = []
        fun = _arguments_kept(fun, name, "the function", returned, False, ran)
        spec = _Spec()
        prim = _custom_jvp_primitive(
            fun, rule, in_spec, spec, name, self.symbolic_zeros, joint=known is not None
        )
        outs = prim.bind(*leaves)
        if ran:
            self._writes[in_spec] = known = dict(returned)
        _write_back(known or returned, leaves, outs)
        return tree_unflatten(spec.out, outs)


# -- custom_vjp --------------------------------------------------------------------------


def _custom_vjp_primitive(
    fwd, bwd, in_spec, spec: _Spec, name: str, symbolic: bool = False, batched: bool = False
) -> Primitive:
    def impl(xp, *leaves):
        out, res = _fwd_pair(transform_outputs(fwd(*tree_unflatten(in_spec, leaves))), name)
        out_leaves, spec.out = tree_flatten(out)
        res_leaves, spec.res = tree_flatten(res)
        spec.n_out = len(out_leaves)
        return _array_leaves(xp, out_leaves + res_leaves)

    def jvp(tangents, y, *leaves, pullback=None):
        raise TypeError(
            f"{name}: can't apply forward-mode autodiff (jvp, jacfwd) to a custom_vjp "
            f"function; use reverse mode (grad, vjp, jacrev), forward over reverse "
            f"(jacfwd(jacrev(f)), hessian) where fwd does not call the function itself, or "
            f"define the rule with custom_jvp instead"
        )

    def vjp_joint(leaves, wanted):
        # NOTE [custom_vjp's fwd is ordinary code to the levels below]: a reverse level
        # takes the outputs and residuals from ``fwd`` called on its inputs' values, not
        # from the primitive bound below, so the levels below (an outer grad, jvp, jacfwd)
        # differentiate ``fwd``'s own code, and ``bwd``'s when it runs, as JAX does (its
        # process_custom_vjp_call runs fwd on the parent trace): jacfwd(jacrev(f)) and
        # jvp(grad(f)) work, and in grad(grad(f)) the outer level differentiates the output
        # as fwd computes it (``fwd = lambda x: (x, None)`` of a clip_gradient is the
        # identity there), where the primitive bound below would apply ``bwd`` again.
        out, res = _fwd_pair(transform_outputs(fwd(*tree_unflatten(in_spec, leaves))), name)
        out_leaves, spec.out = tree_flatten(out)
        res_leaves, spec.res = tree_flatten(res)
        spec.n_out = len(out_leaves)
        return tuple(
            v if isinstance(v, Tracer) or not isinstance(v, _NUMBERS) else fnp.asarray(v)
            for v in out_leaves + res_leaves
        ), None

    def vjp(y_bar, y, *leaves, wanted, pullback=None):
        n = spec.n_out
        ct = [
            (_symbolic_zero(yi, batched) if symbolic else mutable(fnp.zeros_like(yi)))
            if b is None
            else mutable(b)
            for b, yi in zip(y_bar[:n], y[:n])
        ]
        res = tree_unflatten(spec.res, [mutable(r) for r in y[n:]])
        cts = transform_outputs(bwd(res, tree_unflatten(spec.out, ct)))
        if type(cts) is list:  # JAX takes a list as the tuple of cotangents
            cts = tuple(cts)
        if not isinstance(cts, tuple):
            raise TangentMismatchError(
                f"{name}: the bwd rule must return a tuple with one cotangent per argument, "
                f"got {_described(cts)}; return e.g. (g * 2,) for one argument"
            )
        ct_leaves = _cotangent_leaves(cts, in_spec)
        ct_leaves = [None if isinstance(c, SymbolicZero) else c for c in ct_leaves]
        if len(ct_leaves) != len(leaves):
            raise TangentMismatchError(
                f"{name}: the bwd rule returned {len(ct_leaves)} cotangent leaves for "
                f"{len(leaves)} input leaves; return one per argument, with its structure"
            )
        # every cotangent is checked (JAX checks them all), the wanted ones are kept
        out = [
            None if c is None or not _inexact(x) else
            _like(c, x, name, f"the bwd rule's cotangent leaf {k}", "input leaf")
            if w else _check_cotangent_shape(c, x, name, k)
            for k, (c, w, x) in enumerate(zip(ct_leaves, wanted, leaves))
        ]  # fmt: skip
        res_cts = _residual_cotangents(fwd, in_spec, leaves, y_bar[n:], wanted)
        for i, c in enumerate(res_cts):
            if c is not None:
                out[i] = c if out[i] is None else out[i] + c
        return tuple(out)

    def batch(prim, args, bdims, axis_size):
        batched_prim = _custom_vjp_primitive(
            vmap(fwd), vmap(bwd), in_spec, spec, name + "_batched", symbolic, True
        )
        outs = batched_prim.bind(*_front(args, bdims, axis_size))
        return outs, (0,) * len(outs)

    return Primitive(
        name, impl, jvp=jvp, vjp=vjp, vjp_joint=vjp_joint, batch=batch, multiple_results=True
    )


def _cotangent_leaves(ct: Any, spec: Any) -> list:
    """The bwd rule's cotangents ``ct`` as one leaf per input leaf of ``spec``: a ``None``
    standing for a whole argument or subtree means zeros for all of its leaves (JAX's
    rule); ``SymbolicZero``s are kept as leaves."""
    if ct is None:
        return [None] * spec.num_leaves
    if spec.is_leaf() or isinstance(ct, SymbolicZero):
        return [ct]
    children, _ = optree.tree_flatten(
        ct, is_leaf=lambda v: v is not ct, none_is_leaf=True, namespace=NAMESPACE
    )
    subspecs = spec.children()
    if len(children) != len(subspecs):  # a structure mismatch: counted (and reported) later
        return optree.tree_leaves(
            ct, is_leaf=lambda v: isinstance(v, SymbolicZero), none_is_leaf=True,
            namespace=NAMESPACE,
        )  # fmt: skip
    return [leaf for c, sub in zip(children, subspecs) for leaf in _cotangent_leaves(c, sub)]


class CustomVJPPrimal:
    """An argument leaf of a ``custom_vjp`` function as its ``fwd`` rule gets it under
    ``defvjp(fwd, bwd, symbolic_zeros=True)`` (JAX's ``CustomVJPPrimal``): ``value`` and
    ``perturbed``, whether that leaf is differentiated.

    Example:
        >>> import numpy as np
        >>> from ftransforms import custom_vjp, grad
        >>> f = custom_vjp(lambda x, y: x * y)
        >>> def fwd(x, y):
        ...     assert x.perturbed and not y.perturbed
        ...     return x.value * y.value, y.value
        >>> f.defvjp(fwd, lambda y, g: (g * y, None), symbolic_zeros=True)
        >>> float(grad(f)(2.0, 3.0))
        3.0
    """

    __slots__ = ("value", "perturbed")

    def __init__(self, value: Any, perturbed: bool) -> None:
        self.value, self.perturbed = value, perturbed

    def __repr__(self) -> str:
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def _with_primal_flags(fwd: Callable, in_spec: Any, perturbed: list) -> Callable:
    """``fwd`` called with each argument leaf wrapped as a :class:`CustomVJPPrimal`."""

    def wrapped(*args: Any) -> Any:
        leaves = tree_flatten(args)[0]
        flagged = [CustomVJPPrimal(v, p) for v, p in zip(leaves, perturbed)]
        return fwd(*tree_unflatten(in_spec, flagged))

    return wrapped


def _residual_cotangents(fwd, in_spec, leaves, res_bars, wanted) -> list:
    """The cotangents of the inputs through the residuals ``fwd`` computed from them.

    NOTE [custom_vjp residuals under higher-order reverse mode]: only the innermost
    reverse level uses ``bwd`` alone.  In ``grad(grad(f))`` the inner level calls ``bwd``
    on residuals that are the outer level's values, so the outer level receives cotangents
    for the residual outputs of the primitive as well; they flow back through ``fwd``'s
    own code, differentiated as ordinary code (JAX differentiates ``fwd`` at the outer
    levels the same way).  Without this, the second derivative of ``bwd(res, g)`` with
    respect to the inputs would silently be zero.  The cost (one more ``vjp`` of ``fwd``)
    is paid only when some residual cotangent is present."""
    picked = [k for k, b in enumerate(res_bars) if b is not None and _inexact(b) and not _zero(b)]
    if not picked or not any(w and _inexact(x) for w, x in zip(wanted, leaves)):
        return [None] * len(leaves)

    def residuals(*ls: Any) -> tuple:
        _, res = transform_outputs(fwd(*tree_unflatten(in_spec, ls)))
        res_leaves = tree_flatten(res)[0]
        return tuple(res_leaves[k] for k in picked)

    _, pullback = _vjp(residuals, *leaves)
    cts = pullback(tuple(res_bars[k] for k in picked))
    return [
        fnp.astype(c, dtype_of(x)) if w and _inexact(x) and c is not None else None
        for c, w, x in zip(cts, wanted, leaves)
    ]


def _zero(x: Any) -> bool:
    """A concrete all-zero array (a cotangent that changes nothing)."""
    return not isinstance(x, Tracer) and not fnp.any(x != 0)


class custom_vjp(_CustomBase):  # noqa: N801  (JAX's name)
    """A function with a user-defined VJP: ``fwd(*args) -> (out, residuals)`` and
    ``bwd(residuals, out_cotangent) -> tuple of input cotangents``.

    Example:
        >>> import numpy as np
        >>> from ftransforms import grad
        >>> @custom_vjp
        ... def clip_gradient(x):
        ...     return x
        >>> clip_gradient.defvjp(lambda x: (x, None),
        ...                      lambda res, g: (np.clip(g, -1.0, 1.0),))
        >>> float(grad(lambda x: 5.0 * clip_gradient(x))(2.0))
        1.0

    As in JAX: keyword arguments are resolved to positions (defaults filled in);
    ``fwd`` takes the same arguments as the function; the arguments in
    ``nondiff_argnums`` (and those ``nondiff_argnames`` names) are not differentiated,
    come first in ``bwd(*nondiff, residuals, g)``, and get no cotangent.
    """

    def __init__(
        self, fun: Callable, nondiff_argnums: Any = (), nondiff_argnames: Any = ()
    ) -> None:
        super().__init__(fun, nondiff_argnums, "custom_vjp", nondiff_argnames)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.symbolic_zeros = False

    def defvjp(
        self,
        fwd: Callable,
        bwd: Callable,
        symbolic_zeros: bool = False,
        optimize_remat: bool = False,
    ) -> None:
        """Set the forward pass (with residuals) and the backward pass.  With
        ``symbolic_zeros=True`` (JAX's), ``fwd`` gets each argument leaf as a
        :class:`CustomVJPPrimal` (``.value``, ``.perturbed``: whether it is
        differentiated), ``bwd`` gets a :class:`SymbolicZero` for an output whose
        cotangent is known to be zero, and may return one (or ``None``) for an input.
        ``optimize_remat`` has no effect (nothing is compiled)."""
        self.fwd, self.bwd = fwd, bwd
        self.symbolic_zeros = bool(symbolic_zeros)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = self._name
        if self.fwd is None:
            raise TypeError(f"{name}: no VJP rule; call .defvjp(fwd, bwd) first")
        args = self._positional(args, kwargs)
        fun, fwd, bwd = self.fun, self.fwd, self.bwd
        if self.nondiff_argnums:
            args, merge = self._split(args)
            static = merge.static

            def fun(*d: Any) -> Any:
                return self.fun(*merge(d))

            def fwd(*d: Any) -> Any:
                return self.fwd(*merge(d))

            def bwd(res: Any, g: Any) -> Any:
                return self.bwd(*static, res, g)

        leaves, in_spec = _as_arrays(args, name)
        forward, reverse = _differentiated(leaves)
        if not (forward or reverse):
            return transform_outputs(fun(*args))
        if self.symbolic_zeros:  # fwd gets CustomVJPPrimal(value, perturbed) leaves
            fwd = _with_primal_flags(fwd, in_spec, [any(_differentiated([x])) for x in leaves])
        returned: dict = {}
        fwd = _arguments_kept(fwd, name, "fwd", returned, True)
        spec = _Spec()
        prim = _custom_vjp_primitive(fwd, bwd, in_spec, spec, name, self.symbolic_zeros)
        outs = prim.bind(*leaves)
        _write_back(returned, leaves, outs)
        return tree_unflatten(spec.out, outs[: spec.n_out])
